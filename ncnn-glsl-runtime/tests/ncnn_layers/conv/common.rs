//! What the convolution family's cases share: buffers grown to whole
//! blocks, specialization and push-constant words, a spatial layer's
//! parameters ([`Conv`]) with its f64 references, one configuration's data
//! and blobs ([`Setup`]) and its one-dispatch run, the direct path that
//! Convolution and Deconvolution write alike ([`direct_run`]), and the
//! tolerance of an output summed through stored partial sums.

use ncnn_glsl_runtime::{optimal_local_size, NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, pack, packed_mat, spec, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::activation::{Act, NO_ACT};

/// Scalars a buffer is rounded up to: whole `sfpvec4` and `sfpmat4` elements
/// in every storage.
const BLOCK: usize = 16;

/// `v` grown to whole [`BLOCK`]s (one at least) with `fill`.
pub(crate) fn blocks(mut v: Vec<f32>, fill: f32) -> Vec<f32> {
    while v.is_empty() || v.len() % BLOCK != 0 {
        v.push(fill);
    }
    v
}

/// A poisoned output of `scalars` (grown to whole [`BLOCK`]s) in the mode's
/// storage.
fn poison(mode: &Mode, scalars: u64) -> Data {
    let n = scalars.div_ceil(BLOCK as u64) * BLOCK as u64;
    Data::Poison(n * u64::from(mode.scalar_bytes()))
}

/// A poisoned output blob.
pub(crate) fn poison_blob(mode: &Mode, m: &NcnnMat) -> Data {
    poison(mode, m.total() * u64::from(m.elempack))
}

/// An input blob: the tensor in the layout `m`, padding 0.
pub(crate) fn blob(t: &Tensor, m: &NcnnMat) -> Data {
    Data::Floats(blocks(pack(t, m), 0.0))
}

/// The bias ncnn uploads (`num_output` scalars, unpacked); the room past it
/// is NaN. Without a bias term, the placeholder ncnn binds.
pub(crate) fn bias_data(bias: &[f32]) -> Data {
    Data::Floats(blocks(bias.to_vec(), f32::NAN))
}

/// `n` values in `[lo, hi)`, each rounded to the mode's storage.
pub(crate) fn values(n: u32, mode: &Mode, rng: &mut Rng, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| mode.round(rng.f32(lo, hi))).collect()
}

/// `Int` specialization values.
pub(crate) fn ints(v: &[u64]) -> Vec<SpecValue> {
    v.iter().map(|&x| SpecValue::Int(x as i32)).collect()
}

/// Specialization constants `0..` from the pieces, in order.
pub(crate) fn spec_of(parts: &[&[SpecValue]]) -> Vec<(u32, SpecValue)> {
    spec(&parts.concat())
}

/// Push-constant words from `int` members.
pub(crate) fn words(v: &[u64]) -> Vec<u32> {
    v.iter().map(|&x| x as u32).collect()
}

/// `x` where the shape is specialized, else 0 (ncnn's `Mat()` fields).
pub(crate) fn known(specialized: bool, x: u64) -> u64 {
    if specialized {
        x
    } else {
        0
    }
}

/// ncnn's packing of a channel count: 4 when it divides by 4.
pub(crate) fn pack_of(n: u32) -> u32 {
    if n % 4 == 0 {
        4
    } else {
        1
    }
}

/// A spatial layer's parameters and input shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conv {
    /// Input channels.
    pub(crate) cin: u32,
    /// Output channels.
    pub(crate) cout: u32,
    /// Groups (1: a plain convolution).
    pub(crate) group: u32,
    /// `kernel_w, kernel_h`.
    pub(crate) k: [u32; 2],
    /// `dilation_w, dilation_h`.
    pub(crate) d: [u32; 2],
    /// `stride_w, stride_h`.
    pub(crate) s: [u32; 2],
    /// Input `w, h`.
    pub(crate) size: [u32; 2],
    /// `bias_term`.
    pub(crate) bias: bool,
    /// Whether the shapes are known at `create_pipeline` (specialized) or
    /// zero there and pushed.
    pub(crate) specialized: bool,
    /// The fused activation.
    pub(crate) act: Act,
}

/// A [`Conv`] without groups or activation.
#[allow(clippy::too_many_arguments)]
pub(crate) fn conv(
    cin: u32,
    cout: u32,
    k: [u32; 2],
    d: [u32; 2],
    s: [u32; 2],
    size: [u32; 2],
    bias: bool,
    specialized: bool,
) -> Conv {
    Conv {
        cin,
        cout,
        group: 1,
        k,
        d,
        s,
        size,
        bias,
        specialized,
        act: NO_ACT,
    }
}

impl Conv {
    /// `kernel_w * kernel_h`.
    pub(crate) fn maxk(&self) -> u32 {
        self.k[0] * self.k[1]
    }

    /// The kernel's extent along axis `i`.
    pub(crate) fn extent(&self, i: usize) -> u32 {
        self.d[i] * (self.k[i] - 1) + 1
    }

    /// A convolution's output `w, h` (no padding).
    pub(crate) fn out_size(&self) -> [u32; 2] {
        [0, 1].map(|i| (self.size[i] - self.extent(i)) / self.s[i] + 1)
    }

    /// A deconvolution's output `w, h` (no padding, no output padding).
    pub(crate) fn deconv_out_size(&self) -> [u32; 2] {
        [0, 1].map(|i| (self.size[i] - 1) * self.s[i] + self.extent(i))
    }

    /// `weight_data[q][p][k]`.
    pub(crate) fn w(&self, weights: &[f32], q: u32, p: u32, k: u32) -> f32 {
        weights[((q * (self.cin / self.group) + p) * self.maxk() + k) as usize]
    }

    /// The specialization values every spatial shader starts with:
    /// `kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h,
    /// bias_term`.
    pub(crate) fn kernel_spec(&self) -> Vec<SpecValue> {
        ints(&[
            u64::from(self.k[0]),
            u64::from(self.k[1]),
            u64::from(self.d[0]),
            u64::from(self.d[1]),
            u64::from(self.s[0]),
            u64::from(self.s[1]),
            u64::from(self.bias),
        ])
    }

    /// For run names.
    pub(crate) fn describe(&self) -> String {
        format!(
            "{}->{} g{} k{}x{} d{}x{} s{}x{} in {}x{} bias {} {} act {}",
            self.cin,
            self.cout,
            self.group,
            self.k[0],
            self.k[1],
            self.d[0],
            self.d[1],
            self.s[0],
            self.s[1],
            self.size[0],
            self.size[1],
            self.bias,
            if self.specialized { "spec" } else { "push" },
            self.act.name()
        )
    }
}

/// The tolerance of an output summed from partial sums that were stored in
/// the mode's storage on the way (each rounded once: at most one storage
/// unit of the magnitude of all terms).
pub(crate) fn tol_staged(mode: &Mode, act: Act, sum: (f64, f64)) -> (f64, f64) {
    let (out, amag) = act.apply(sum);
    (out, mode.tol_stored(out, amag, amag))
}

/// Which spatial layer a [`Conv`] configures: it sets the output size, the
/// reference and the bias ncnn uploads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layer {
    /// Convolution and ConvolutionDepthWise.
    Conv,
    /// Deconvolution.
    Deconv,
}

/// One configuration of a spatial layer in one mode: its data, in the
/// mode's storage, and its input and output blobs in ncnn's packing.
#[derive(Clone, Debug)]
pub(crate) struct Setup {
    /// The configuration.
    pub(crate) p: Conv,
    /// The layer it configures.
    pub(crate) layer: Layer,
    /// The input.
    pub(crate) input: Tensor,
    /// `weight_data`, `[cout][cin / group][maxk]`.
    pub(crate) weights: Vec<f32>,
    /// `bias_data`: `cout` values, none without a bias term.
    pub(crate) bias: Vec<f32>,
    /// The input blob's pack.
    pub(crate) ep: u32,
    /// The output blob's pack.
    pub(crate) oep: u32,
    /// The output `w, h`.
    pub(crate) out: [u32; 2],
    /// The input blob.
    pub(crate) min: NcnnMat,
    /// The output blob.
    pub(crate) mout: NcnnMat,
}

impl Setup {
    /// Random weights, bias and input for `p`, and its blobs packed as ncnn
    /// packs channel counts.
    pub(crate) fn new(p: &Conv, layer: Layer, mode: &Mode, rng: &mut Rng) -> Setup {
        let input = Tensor::random(&[p.size[0], p.size[1], p.cin], mode, rng, -1.0, 1.0);
        let weights = values(p.cout * (p.cin / p.group) * p.maxk(), mode, rng, -1.0, 1.0);
        let bias = if p.bias {
            values(p.cout, mode, rng, -1.0, 1.0)
        } else {
            Vec::new()
        };
        let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
        let out = match layer {
            Layer::Conv => p.out_size(),
            Layer::Deconv => p.deconv_out_size(),
        };
        Setup {
            p: *p,
            layer,
            min: packed_mat(&[p.size[0], p.size[1], p.cin], ep, mode),
            mout: packed_mat(&[out[0], out[1], p.cout], oep, mode),
            input,
            weights,
            bias,
            ep,
            oep,
            out,
        }
    }

    /// The layer's output `(x, y, q)` before the activation, and the sum of
    /// the magnitudes of its terms. A convolution reads, per tap, the input
    /// at `(x, y) * stride + tap * dilation` of `q`'s group; a deconvolution
    /// (no groups) adds, per tap, every input `(ix, iy)` with `ix * stride +
    /// kx * dilation == x` (and so for `y`).
    pub(crate) fn at(&self, x: u32, y: u32, q: u32) -> (f64, f64) {
        let (p, input) = (&self.p, &self.input);
        match self.layer {
            Layer::Conv => {
                let cg = p.cin / p.group;
                let g = q / (p.cout / p.group);
                self.taps(q, |c, kx, ky| {
                    let ix = x * p.s[0] + kx * p.d[0];
                    let iy = y * p.s[1] + ky * p.d[1];
                    Some(input.at(ix, iy, 0, g * cg + c))
                })
            }
            Layer::Deconv => {
                assert_eq!(p.group, 1, "a deconvolution without groups");
                self.taps(q, |c, kx, ky| {
                    let (tx, ty) = (
                        i64::from(x) - i64::from(kx * p.d[0]),
                        i64::from(y) - i64::from(ky * p.d[1]),
                    );
                    let (sw, sh) = (i64::from(p.s[0]), i64::from(p.s[1]));
                    if tx < 0 || ty < 0 || tx % sw != 0 || ty % sh != 0 {
                        return None;
                    }
                    let (ix, iy) = ((tx / sw) as u32, (ty / sh) as u32);
                    if ix >= p.size[0] || iy >= p.size[1] {
                        return None;
                    }
                    Some(input.at(ix, iy, 0, c))
                })
            }
        }
    }

    /// The bias of channel `q` plus `input * weight` over the channels of
    /// `q`'s group and the taps, and the sum of the magnitudes of its terms.
    /// `input_at(c, kx, ky)` is the input that tap `(kx, ky)` of group
    /// channel `c` reaches, `None` where it reaches none.
    fn taps(&self, q: u32, input_at: impl Fn(u32, u32, u32) -> Option<f32>) -> (f64, f64) {
        let p = &self.p;
        let mut sum = if p.bias {
            f64::from(self.bias[q as usize])
        } else {
            0.0
        };
        let mut mag = sum.abs();
        for c in 0..p.cin / p.group {
            for ky in 0..p.k[1] {
                for kx in 0..p.k[0] {
                    let Some(v) = input_at(c, kx, ky) else {
                        continue;
                    };
                    let v = f64::from(v) * f64::from(p.w(&self.weights, q, c, ky * p.k[0] + kx));
                    sum += v;
                    mag += v.abs();
                }
            }
        }
        (sum, mag)
    }

    /// The shape words ncnn's direct and depth-wise shaders take (as
    /// specialization constants, or zero there and pushed): `dims, w, h, c,
    /// cstep` of the input blob, then of the output with `outc` and
    /// `outcstep` as the shader counts them.
    pub(crate) fn shape_words(&self, outc: u64, outcstep: u64) -> [u64; 10] {
        let (min, [outw, outh]) = (&self.min, self.out);
        [
            3,
            u64::from(min.w),
            u64::from(min.h),
            u64::from(min.c),
            min.cstep(),
            3,
            u64::from(outw),
            u64::from(outh),
            outc,
            outcstep,
        ]
    }

    /// The bias buffer. ncnn's Deconvolution pads its bias to whole 4s with
    /// zeros; past that, [`bias_data`]'s NaN.
    pub(crate) fn bias_data(&self) -> Data {
        let mut b = self.bias.clone();
        if self.layer == Layer::Deconv && self.p.bias {
            b.resize(self.p.cout.div_ceil(4) as usize * 4, 0.0);
        }
        bias_data(&b)
    }

    /// The run of one dispatch `step` (named `kind` and the configuration)
    /// on the buffers the layer binds: the input, the output (checked), the
    /// packed weights `wp`, the bias.
    pub(crate) fn one_step(&self, mode: &Mode, kind: &str, step: Step, wp: Vec<f32>) -> Run {
        let [outw, outh] = self.out;
        let expect = expect_blob(
            mode,
            1,
            &self.mout,
            &[outw, outh, self.p.cout],
            |x, y, _, q| self.p.act.apply(self.at(x, y, q)),
        );
        Run {
            name: format!("{kind} {}", self.p.describe()),
            buffers: vec![
                blob(&self.input, &self.min),
                poison_blob(mode, &self.mout),
                Data::Floats(blocks(wp, f32::NAN)),
                self.bias_data(),
            ],
            steps: vec![step],
            expect: vec![expect],
            untouched: Vec::new(),
        }
    }
}

/// The direct path of Convolution (`convolution_packed.comp`) and
/// Deconvolution (`deconvolution_packed.comp`), which ncnn writes alike:
/// 2x2 positions by 2 output groups per invocation; weights per 4 output
/// channels, per input pack, per tap, `[out lane][in lane]` (Deconvolution's
/// kernel turned by 180 degrees: the shader gathers the inputs each tap
/// reaches); local size `set_optimal_local_size_xyz(min(8, outw), min(8,
/// outh), min(4, (outc_pack4 + 1) / 2))` (8, 8 unspecialized); dispatcher
/// halves of the output.
pub(crate) fn direct_run(
    device: &Device,
    mode: &Mode,
    rng: &mut Rng,
    p: &Conv,
    layer: Layer,
) -> Run {
    let s = Setup::new(p, layer, mode, rng);
    let (ep, oep, [outw, outh], mout) = (s.ep, s.oep, s.out, s.mout);
    let maxk = p.maxk();
    let nop = p.cout.div_ceil(4) * 4;
    let outc = u64::from(nop / 4);
    let outcstep = if oep == 4 {
        mout.cstep()
    } else {
        mout.cstep() * 4
    };
    let tap = |k: u32| match layer {
        Layer::Conv => k,
        Layer::Deconv => maxk - 1 - k,
    };
    let mut wp = Vec::new();
    for q in (0..nop).step_by(4) {
        for c in (0..p.cin).step_by(ep as usize) {
            for k in 0..maxk {
                for i in 0..4 {
                    for j in 0..ep {
                        wp.push(if q + i < p.cout {
                            p.w(&s.weights, q + i, c + j, tap(k))
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    let sp = p.specialized;
    let shape = s.shape_words(outc, outcstep);
    let spec = spec_of(&[
        &p.kernel_spec(),
        &p.act.spec(),
        &ints(&[u64::from(ep), u64::from(oep)]),
        &ints(&shape.map(|v| known(sp, v))),
        &ints(&[u64::from(p.cout)]),
    ]);
    let zc = 4.min((nop / 4).div_ceil(2));
    let local = optimal_local_size(
        if sp {
            [8.min(outw), 8.min(outh), zc]
        } else {
            [8, 8, zc]
        },
        &device.limits,
    );
    let mut push = shape.to_vec();
    push.push(u64::from(p.cout));
    let (shader, kind) = match layer {
        Layer::Conv => ("convolution_packed.comp", "convdirect"),
        Layer::Deconv => ("deconvolution_packed.comp", "deconvdirect"),
    };
    let step = Step::new(
        shader,
        local,
        spec,
        words(&push),
        &[0, 1, 0, 1, 2, 3],
        [outw.div_ceil(2), outh.div_ceil(2), (nop / 4).div_ceil(2)],
    );
    s.one_step(mode, kind, step, wp)
}
