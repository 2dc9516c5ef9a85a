//! The q8ta operations on a Vulkan device: [`Q8taOps`] selects the variant of
//! each shipped q8ta shader for its context, caches pipelines, validates every
//! argument on the host first (nothing is dispatched or written when a check
//! fails) and runs the dispatch.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use ncnn_glsl_runtime::{
    Buffer, Context, Dispatch, DispatchStats, Error, FloatStorage, Options, Pipeline,
    PipelineOptions, SpecValue, Variant, VariantSet,
};

use super::check::check_size;
use super::error::Q8taError;
use super::launch::{self, Rewrite, ShufflePath};
use super::layout::Layout;
use super::op::{shuffle_axes, PixelShuffle};
use super::plan::{self, Device, Plan};
use super::push::{DequantizePush, QuantizePush};
use super::quant::QuantParams;
use super::sets::{DEQUANTIZE, PIXEL_SHUFFLE, PIXEL_SHUFFLE_BASELINE, QUANTIZE, SETS};
use super::shape::Shape;

/// A failed q8ta operation: bad arguments (checked before anything runs) or
/// the runtime's error.
#[derive(Debug)]
pub enum OpError {
    /// An argument is invalid; nothing was dispatched or written.
    Invalid(Q8taError),
    /// The Vulkan runtime failed (or refused an argument).
    Vulkan(Error),
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpError::Invalid(e) => write!(f, "{e}"),
            OpError::Vulkan(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for OpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpError::Invalid(e) => Some(e),
            OpError::Vulkan(e) => Some(e),
        }
    }
}

impl From<Q8taError> for OpError {
    fn from(e: Q8taError) -> Self {
        OpError::Invalid(e)
    }
}

impl From<Error> for OpError {
    fn from(e: Error) -> Self {
        OpError::Vulkan(e)
    }
}

/// A quantized int8 tensor on the device: its words in `layout`, padding
/// included. The fields are public so that a caller (a test) can pair any
/// buffer with any shape; every operation checks the buffer's size first.
#[derive(Debug)]
pub struct QTensor {
    /// The words (`layout.byte_count(shape)` bytes, or more).
    pub buffer: Buffer,
    /// The NCHW shape.
    pub shape: Shape,
    /// The word layout.
    pub layout: Layout,
    /// Scale and zero point.
    pub params: QuantParams,
}

impl QTensor {
    /// Bytes the tensor needs.
    pub fn byte_count(&self) -> usize {
        self.layout.byte_count(self.shape)
    }

    /// Reads the tensor's words (padding included) back.
    pub fn read_words(&mut self) -> Result<Vec<u32>, OpError> {
        let n = self.byte_count();
        check_size("tensor", n, self.buffer.size())?;
        let mut b = vec![0u8; n];
        self.buffer.read(&mut b)?;
        Ok(words_of(&b))
    }

    /// Reads the whole buffer as bytes.
    pub fn read_bytes(&mut self) -> Result<Vec<u8>, OpError> {
        let mut b = vec![0u8; self.buffer.size() as usize];
        self.buffer.read(&mut b)?;
        Ok(b)
    }
}

/// Which kernel a pixel shuffle runs ([`Q8taOps::pixel_shuffle_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleKernel {
    /// The seed's kernel as the launch plan says for the device and the
    /// shuffle ([`plan::plan`]).
    Rewrite,
    /// The seed's kernel forced onto this path, with the requantization,
    /// block axis and rows the plan takes with it ([`plan::plan_on`]): for
    /// experiments and tests.
    RewriteOn(ShufflePath),
    /// The seed's kernel exactly so ([`plan::plan_with`]): for experiments
    /// and tests.
    RewriteWith(Rewrite),
    /// The kernel the seed replaces: one invocation per output word.
    Baseline,
}

/// What one pixel shuffle ran.
#[derive(Clone, Debug, PartialEq)]
pub struct ShuffleRun {
    /// GPU time and pieces.
    pub stats: DispatchStats,
    /// The variant's target (mode), e.g. `fp32` or `fp16p+int8p`.
    pub target: String,
    /// The layouts and passthrough as `NAME=value` pairs: the new kernel's
    /// specialization constants, the baseline variant's axes.
    pub axes: String,
    /// The workgroup shape.
    pub local: [u32; 3],
    /// The workgroups launched.
    pub groups: [u32; 3],
    /// The new kernel's choices (`None`: the baseline).
    pub rewrite: Option<Rewrite>,
}

fn words_of(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// (variant set, variant, local size, specialization constants as
/// `(id, type, bits)`).
type PipelineKey = (usize, usize, [u32; 3], Vec<(u32, &'static str, u32)>);

/// A specialization value's type and 32 bits, for [`PipelineKey`].
fn spec_key(v: SpecValue) -> (&'static str, u32) {
    let bits = match v {
        SpecValue::Bool(b) => b as u32,
        SpecValue::Int(i) => i as u32,
        SpecValue::Uint(u) => u,
        SpecValue::Float(f) => f.to_bits(),
    };
    (v.type_name(), bits)
}

/// The q8ta operations on one context: quantize, the pixel shuffle (the
/// seed's kernel and the baseline) and dequantize, with a pipeline cache
/// keyed by (variant set, variant, local size, specialization constants).
pub struct Q8taOps {
    ctx: Arc<Context>,
    wanted: Options,
    pipelines: Mutex<HashMap<PipelineKey, Arc<Pipeline>>>,
}

impl fmt::Debug for Q8taOps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Q8taOps")
            .field("wanted", &self.wanted)
            .finish()
    }
}

impl Q8taOps {
    /// Operations on `ctx`, choosing variants for the `wanted` options
    /// (narrowed by the device, as [`Context::select`] does). The context
    /// must have been opened for the q8ta sets ([`super::context_options`]),
    /// so that it enabled the features their variants use; else
    /// [`Q8taError::ContextWithoutSets`].
    pub fn new(ctx: &Arc<Context>, wanted: Options) -> Result<Self, Q8taError> {
        let opened = &ctx.options().variant_sets;
        if let Some(missing) = SETS
            .iter()
            .find(|s| !opened.iter().any(|o| std::ptr::eq(*o, **s)))
        {
            return Err(Q8taError::ContextWithoutSets {
                missing: missing.name,
            });
        }
        Ok(Q8taOps {
            ctx: ctx.clone(),
            wanted,
            pipelines: Mutex::default(),
        })
    }

    /// The context.
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// The variant of `set` this device runs for `axes`.
    pub fn variant(
        &self,
        set: &'static VariantSet,
        axes: &[(&str, i64)],
    ) -> Result<&'static Variant, Error> {
        Ok(self.ctx.select(set, self.wanted, axes)?.variant)
    }

    /// The pipeline of `variant` at `local` (`None`: the compiled size) with
    /// `specialization`, cached.
    fn pipeline(
        &self,
        set: &'static VariantSet,
        variant: &'static Variant,
        local: Option<[u32; 3]>,
        specialization: &[(u32, SpecValue)],
    ) -> Result<Arc<Pipeline>, Error> {
        let size = local.unwrap_or(variant.blob.reflection().local_size);
        let key = (
            set as *const VariantSet as usize,
            variant as *const Variant as usize,
            size,
            specialization
                .iter()
                .map(|&(id, v)| {
                    let (ty, bits) = spec_key(v);
                    (id, ty, bits)
                })
                .collect(),
        );
        let mut cache = self.pipelines.lock().unwrap();
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let options = PipelineOptions {
            local_size: local,
            specialization,
        };
        let p = Arc::new(Pipeline::for_variant(&self.ctx, set, variant, &options)?);
        cache.insert(key, p.clone());
        Ok(p)
    }

    /// What the plan depends on of this context's device.
    pub fn device(&self) -> Device {
        Device::of(&self.ctx)
    }

    /// What the new kernel runs for `ps` as `kernel` says on this device
    /// ([`plan::plan`], [`plan::plan_on`] for a forced path,
    /// [`plan::plan_with`] for a forced rewrite); `None` for the baseline.
    pub fn plan(&self, ps: &PixelShuffle, kernel: ShuffleKernel) -> Option<Plan> {
        let (input, axes, exact) = (ps.input, ps.axes(), ps.requant.float_exact);
        let device = self.device();
        match kernel {
            ShuffleKernel::Rewrite => Some(plan::plan(input, axes, exact, &device)),
            ShuffleKernel::RewriteOn(path) => {
                Some(plan::plan_on(path, input, axes, exact, &device))
            }
            ShuffleKernel::RewriteWith(k) => Some(plan::plan_with(k, input, axes, &device)),
            ShuffleKernel::Baseline => None,
        }
    }

    /// The storage of the quantize variant for `layout`: the format
    /// [`Q8taOps::quantize`] encodes its input in.
    pub fn quantize_storage(&self, layout: Layout) -> Result<FloatStorage, Error> {
        let v = self.variant(QUANTIZE, &[("OUT_LAYOUT", layout.axis_value())])?;
        Ok(FloatStorage::of(v.target.options))
    }

    /// The storage of the dequantize variant for a tensor of `shape` in `layout`.
    pub fn dequantize_storage(&self, shape: Shape, layout: Layout) -> Result<FloatStorage, Error> {
        let v = self.variant(DEQUANTIZE, &dequantize_axes(shape, layout))?;
        Ok(FloatStorage::of(v.target.options))
    }

    /// A device tensor of `shape` in `layout` (exactly its bytes, contents
    /// undefined). The parameters and the shape are validated.
    pub fn tensor(
        &self,
        shape: Shape,
        layout: Layout,
        params: QuantParams,
    ) -> Result<QTensor, OpError> {
        params.validate("tensor")?;
        shape.check_nonempty("tensor")?;
        shape.check_index_range("tensor")?;
        let buffer = Buffer::new(&self.ctx, whole_elements(layout.byte_count(shape)))?;
        Ok(QTensor {
            buffer,
            shape,
            layout,
            params,
        })
    }

    /// A device tensor holding `words` (padding included, as given).
    pub fn tensor_from_words(
        &self,
        words: &[u32],
        shape: Shape,
        layout: Layout,
        params: QuantParams,
    ) -> Result<QTensor, OpError> {
        let needed = layout.word_count(shape);
        if words.len() < needed {
            return Err(Q8taError::BufferTooSmall {
                what: "words",
                needed,
                len: words.len(),
            }
            .into());
        }
        let mut t = self.tensor(shape, layout, params)?;
        let bytes: Vec<u8> = words[..needed]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        t.buffer.write(&bytes)?;
        Ok(t)
    }

    /// Quantizes the float NCHW tensor `x` of `shape` into a new tensor in
    /// `layout`: `q = clamp(round_half_away(x / scale) + zp, -128, 127)`,
    /// padding lanes `zp`. `x` is stored in the quantize variant's storage
    /// ([`Q8taOps::quantize_storage`]) first, so fp16 / bf16 variants see `x`
    /// rounded to that format ([`FloatStorage::round`]).
    pub fn quantize(
        &self,
        x: &[f32],
        shape: Shape,
        layout: Layout,
        params: QuantParams,
    ) -> Result<QTensor, OpError> {
        params.validate_for_floats("quantize")?;
        shape.check_nonempty("quantize")?;
        shape.check_index_range("quantize")?;
        if x.len() < shape.elements() {
            return Err(Q8taError::BufferTooSmall {
                what: "float input",
                needed: shape.elements(),
                len: x.len(),
            }
            .into());
        }
        let groups = fit_groups(
            launch::quantize_grid(shape, layout),
            [64, 1, 1],
            self.ctx.limits().max_compute_work_group_count,
        )?;
        let variant = self.variant(QUANTIZE, &[("OUT_LAYOUT", layout.axis_value())])?;
        let storage = FloatStorage::of(variant.target.options);
        let pipeline = self.pipeline(QUANTIZE, variant, None, &[])?;
        let data = storage.encode(&x[..shape.elements()]);
        let mut input = Buffer::new(&self.ctx, whole_elements(data.len()))?;
        input.write(&data)?;
        let out = self.tensor(shape, layout, params)?;
        let push = QuantizePush::new(shape, params).to_bytes();
        pipeline.dispatch(&Dispatch::new(&[&input, &out.buffer], &push, groups))?;
        Ok(out)
    }

    /// Dequantizes `t` into a float NCHW tensor, `(q - zp) * scale`, through
    /// the dequantize variant's storage (decoded on the host).
    pub fn dequantize(&self, t: &QTensor) -> Result<Vec<f32>, OpError> {
        t.params.validate_for_floats("dequantize")?;
        t.shape.check_nonempty("dequantize")?;
        t.shape.check_index_range("dequantize")?;
        check_size("quantized input", t.byte_count(), t.buffer.size())?;
        let groups = fit_groups(
            launch::dequantize_grid(t.shape),
            [64, 1, 1],
            self.ctx.limits().max_compute_work_group_count,
        )?;
        let variant = self.variant(DEQUANTIZE, &dequantize_axes(t.shape, t.layout))?;
        let storage = FloatStorage::of(variant.target.options);
        let pipeline = self.pipeline(DEQUANTIZE, variant, None, &[])?;
        let n = t.shape.elements();
        let mut out = Buffer::new(&self.ctx, whole_elements(storage.buffer_bytes(n)))?;
        let push = DequantizePush::new(t.shape, t.params).to_bytes();
        pipeline.dispatch(&Dispatch::new(&[&t.buffer, &out], &push, groups))?;
        let mut b = vec![0u8; storage.buffer_bytes(n)];
        out.read(&mut b)?;
        let values = storage.decode(&b, n).ok_or(Q8taError::BufferTooSmall {
            what: "dequantized output",
            needed: n,
            len: b.len() / storage.element_bytes(),
        })?;
        Ok(values)
    }

    /// Validates a pixel shuffle of `input` into `output` (factor, shapes,
    /// quantization parameters, buffer sizes): what both kernels run.
    pub fn validate(
        &self,
        input: &QTensor,
        output: &QTensor,
        upscale_factor: usize,
    ) -> Result<PixelShuffle, Q8taError> {
        let ps = PixelShuffle::new(
            input.shape,
            output.shape,
            upscale_factor,
            input.layout,
            output.layout,
            input.params,
            output.params,
        )?;
        ps.check_buffers(input.buffer.size() as usize, output.buffer.size() as usize)?;
        Ok(ps)
    }

    /// The pixel shuffle (upscale factor 2) of `input` into `output` with the
    /// seed's kernel: `out[n, c, 2h + dy, 2w + dx] = requant(in[n, 4c + 2dy +
    /// dx, h, w])`, every byte of the output tensor written (padding =
    /// `zp_out`). Everything is validated before the dispatch.
    pub fn pixel_shuffle(
        &self,
        input: &QTensor,
        output: &mut QTensor,
        upscale_factor: usize,
    ) -> Result<ShuffleRun, OpError> {
        self.pixel_shuffle_with(input, output, upscale_factor, ShuffleKernel::Rewrite)
    }

    /// The same with the baseline kernel (one invocation per output word).
    pub fn pixel_shuffle_baseline(
        &self,
        input: &QTensor,
        output: &mut QTensor,
        upscale_factor: usize,
    ) -> Result<ShuffleRun, OpError> {
        self.pixel_shuffle_with(input, output, upscale_factor, ShuffleKernel::Baseline)
    }

    /// The pixel shuffle with the given kernel: [`Q8taOps::pixel_shuffle`]
    /// is [`ShuffleKernel::Rewrite`]. A path the shape or output layout
    /// cannot take ([`ShuffleKernel::RewriteOn`]) is an error
    /// ([`Q8taError::Path`]), nothing dispatched.
    pub fn pixel_shuffle_with(
        &self,
        input: &QTensor,
        output: &mut QTensor,
        upscale_factor: usize,
        kernel: ShuffleKernel,
    ) -> Result<ShuffleRun, OpError> {
        let ps = self.validate(input, output, upscale_factor)?;
        let plan = self.plan(&ps, kernel);
        if let Some(p) = plan {
            // A forced requantization whose table does not fit.
            p.rewrite
                .requant
                .check_shared_memory(self.ctx.limits().max_compute_shared_memory_size)?;
        }
        let rewrite = plan.map(|p| p.rewrite);
        // The new kernel is one variant specialized per layout pair,
        // passthrough, path, requantization and block axis; the baseline has
        // a variant for each pair and passthrough.
        let spec = rewrite.map(|k| ps.specialization(k));
        let (set, variant, local, specialization) = match (plan, &spec) {
            (Some(p), Some(spec)) => (
                PIXEL_SHUFFLE,
                self.variant(PIXEL_SHUFFLE, &shuffle_axes(p.rewrite))?,
                Some(p.local),
                &spec[..],
            ),
            _ => {
                let set = PIXEL_SHUFFLE_BASELINE;
                (set, self.variant(set, &ps.axis_values())?, None, &[][..])
            }
        };
        let pipeline = self.pipeline(set, variant, local, specialization)?;
        let local = pipeline.local_size();
        let launch = ps.launch(
            rewrite,
            local,
            self.ctx.limits().max_compute_work_group_count,
        )?;
        let push = launch.push.to_bytes();
        let stats = pipeline.dispatch(&Dispatch::new(
            &[&input.buffer, &output.buffer],
            &push,
            launch.groups,
        ))?;
        let axes = ps
            .axis_values()
            .iter()
            .map(|(name, v)| format!("{name}={v}"))
            .collect::<Vec<_>>()
            .join(",");
        Ok(ShuffleRun {
            stats,
            target: variant.target.to_string(),
            axes,
            local,
            groups: launch.groups,
            rewrite,
        })
    }
}

/// Bytes of a buffer for `bytes` of data: whole 16-byte elements, the
/// widest the shaders read (`uvec4`, `vec4`). Every index is clamped into
/// the whole elements a buffer holds, so a tensor whose last element is
/// partial needs the rest of it.
fn whole_elements(bytes: usize) -> u64 {
    bytes.div_ceil(16) as u64 * 16
}

fn dequantize_axes(shape: Shape, layout: Layout) -> [(&'static str, i64); 2] {
    [
        ("IN_LAYOUT", layout.axis_value()),
        ("VEC", launch::dequantize_vec_width(shape.w) as i64),
    ]
}

/// Workgroups for `grid` at `local`; every axis must fit `max` (these shaders
/// do not loop).
fn fit_groups(grid: [u32; 3], local: [u32; 3], max: [u32; 3]) -> Result<[u32; 3], Q8taError> {
    let mut g = [0; 3];
    for i in 0..3 {
        g[i] = grid[i].div_ceil(local[i]);
        if g[i] > max[i] {
            return Err(Q8taError::GridTooLarge {
                axis: ["x", "y", "z"][i],
                groups: g[i] as u64,
                max: max[i],
            });
        }
    }
    Ok(g)
}
