//! ncnn's convolution family, run as ncnn runs it: Convolution (the 1x1
//! stride-1 shader with and without local memory, the direct shader, the
//! sgemm shader), ConvolutionDepthWise (depth-wise and grouped, every
//! packing pair), Deconvolution (the gemm + col2im pair and the direct
//! shader), InnerProduct (direct, sum8 + reduce, and the 2-D gemm shaders),
//! Gemm (`gemm.comp`), and the activations every one of them fuses
//! (`vulkan_activation.comp`), each against an f64 reference written from
//! the layer's definition (`ncnn_glsl_testkit::ncnn_layers`).
//!
//! Each case builds what the layer's `create_pipeline` / `upload_model`
//! would: the weights in the layer's packed layout, the specialization
//! constants (the shape specialized, or zero and pushed), the local size and
//! the dispatcher shape of its `forward`. The cooperative-matrix, int8 and
//! winograd paths are left out: shapes are chosen so ncnn's default options
//! (`use_sgemm_convolution`, `use_winograd_convolution` on) pick the path
//! each case names. Paddings, crops and packing conversions, which ncnn runs
//! as other layers, are avoided by the shapes chosen.
//!
//! Buffers are sized to whole 16-scalar blocks: the shaders read `sfp` blobs
//! through `sfpvec4` (and `sfpmat4`) views, the runtime binds whole elements
//! of a view only, and past a blob's end ncnn's allocator has the memory a
//! straddling vector reads. The room past a bias, which ncnn leaves
//! uninitialized, holds NaN, so a padded lane that reached a stored output
//! would show.

use ncnn_glsl_runtime::{group_counts, ncnn_local_size, optimal_local_size, NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    pack, packed_index, packed_mat, suite, Data, Device, Expect, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

// ---------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------

/// A fused activation: ncnn's `activation_type` and its two parameters.
#[derive(Clone, Copy, Debug)]
struct Act {
    /// 0 none, 1 relu, 2 leaky relu, 3 clip, 4 sigmoid, 5 mish, 6 hardswish.
    ty: i32,
    /// `activation_params[0]`: slope, min, or hardswish's alpha.
    p0: f32,
    /// `activation_params[1]`: max, or hardswish's beta.
    p1: f32,
}

/// No activation.
const NO_ACT: Act = Act {
    ty: 0,
    p0: 0.0,
    p1: 0.0,
};

/// The activations `vulkan_activation.comp` defines, with parameters a
/// half-precision `afp` holds exactly.
const ACTS: [Act; 6] = [
    Act {
        ty: 1,
        p0: 0.0,
        p1: 0.0,
    },
    Act {
        ty: 2,
        p0: 0.125,
        p1: 0.0,
    },
    Act {
        ty: 3,
        p0: -0.5,
        p1: 0.75,
    },
    Act {
        ty: 4,
        p0: 0.0,
        p1: 0.0,
    },
    Act {
        ty: 5,
        p0: 0.0,
        p1: 0.0,
    },
    Act {
        ty: 6,
        p0: 0.25,
        p1: 0.5,
    },
];

impl Act {
    /// The activation of `v`, and the magnitude its tolerance scales with:
    /// the error of `v` (of magnitude `mag`) through the activation's
    /// steepest slope near `v`, plus the activation's own arithmetic.
    fn apply(&self, v: f64, mag: f64) -> (f64, f64) {
        let (p0, p1) = (f64::from(self.p0), f64::from(self.p1));
        match self.ty {
            0 => (v, mag),
            1 => (v.max(0.0), mag),
            2 => (if v < 0.0 { v * p0 } else { v }, mag * p0.abs().max(1.0)),
            3 => (v.clamp(p0, p1), mag),
            4 => (1.0 / (1.0 + (-v).exp()), 0.25 * mag + 1.0),
            // mish' stays below 1.1
            5 => (v * (v.exp().ln_1p()).tanh(), 1.1 * mag + v.abs()),
            6 => {
                let slope = 1.0 + 2.0 * p0.abs() * v.abs() + p1.abs();
                (v * (v * p0 + p1).clamp(0.0, 1.0), slope * mag + v.abs())
            }
            t => panic!("activation_type {t}"),
        }
    }

    /// Specialization values: `activation_type`, its two parameters.
    fn spec(&self) -> [SpecValue; 3] {
        [
            SpecValue::Int(self.ty),
            SpecValue::Float(self.p0),
            SpecValue::Float(self.p1),
        ]
    }

    /// For run names.
    fn name(&self) -> &'static str {
        [
            "none",
            "relu",
            "leakyrelu",
            "clip",
            "sigmoid",
            "mish",
            "hardswish",
        ][self.ty as usize]
    }
}

/// Scalars a buffer is rounded up to: whole `sfpvec4` and `sfpmat4` elements
/// in every storage.
const BLOCK: usize = 16;

/// `v` grown to whole [`BLOCK`]s (one at least) with `fill`.
fn blocks(mut v: Vec<f32>, fill: f32) -> Vec<f32> {
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
fn poison_blob(mode: &Mode, m: &NcnnMat) -> Data {
    poison(mode, m.total() * u64::from(m.elempack))
}

/// An input blob: the tensor in the layout `m`, padding 0.
fn blob(t: &Tensor, m: &NcnnMat) -> Data {
    Data::Floats(blocks(pack(t, m), 0.0))
}

/// The bias ncnn uploads (`num_output` scalars, unpacked); the room past it
/// is NaN. Without a bias term, the placeholder ncnn binds.
fn bias_data(bias: &[f32]) -> Data {
    Data::Floats(blocks(bias.to_vec(), f32::NAN))
}

/// `n` values in `[lo, hi)`, each rounded to the mode's storage.
fn values(n: u32, mode: &Mode, rng: &mut Rng, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| mode.round(rng.f32(lo, hi))).collect()
}

/// `Int` specialization values.
fn ints(v: &[u64]) -> Vec<SpecValue> {
    v.iter().map(|&x| SpecValue::Int(x as i32)).collect()
}

/// Specialization constants `0..` from the pieces, in order.
fn spec_of(parts: &[&[SpecValue]]) -> Vec<(u32, SpecValue)> {
    parts
        .iter()
        .flat_map(|p| p.iter().copied())
        .enumerate()
        .map(|(i, v)| (i as u32, v))
        .collect()
}

/// Push-constant words from `int` members.
fn words(v: &[u64]) -> Vec<u32> {
    v.iter().map(|&x| x as u32).collect()
}

/// `x` where the shape is specialized, else 0 (ncnn's `Mat()` fields).
fn known(specialized: bool, x: u64) -> u64 {
    if specialized {
        x
    } else {
        0
    }
}

/// The checks of output blob `m` (tensor `shape`) with `want(x, y, z, q)`
/// giving the reference and its tolerance.
fn expect_tol(
    buffer: usize,
    m: &NcnnMat,
    shape: &[u32],
    want: impl Fn(u32, u32, u32, u32) -> (f64, f64),
) -> Expect {
    let t = Tensor {
        shape: shape.to_vec(),
        values: Vec::new(),
    };
    let [w, h, d, c] = t.whdc();
    let mut points = Vec::new();
    for q in 0..c {
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let (v, tol) = want(x, y, z, q);
                    points.push((packed_index(m, x, y, z, q), v, tol));
                }
            }
        }
    }
    Expect { buffer, points }
}

/// ncnn's packing of a channel count: 4 when it divides by 4.
fn pack_of(n: u32) -> u32 {
    if n % 4 == 0 {
        4
    } else {
        1
    }
}

/// A spatial layer's parameters and input shape.
#[derive(Clone, Copy, Debug)]
struct Conv {
    /// Input channels.
    cin: u32,
    /// Output channels.
    cout: u32,
    /// Groups (1: a plain convolution).
    group: u32,
    /// `kernel_w, kernel_h`.
    k: [u32; 2],
    /// `dilation_w, dilation_h`.
    d: [u32; 2],
    /// `stride_w, stride_h`.
    s: [u32; 2],
    /// Input `w, h`.
    size: [u32; 2],
    /// `bias_term`.
    bias: bool,
    /// Whether the shapes are known at `create_pipeline` (specialized) or
    /// zero there and pushed.
    specialized: bool,
    /// The fused activation.
    act: Act,
}

/// A [`Conv`] without groups or activation.
#[allow(clippy::too_many_arguments)]
fn conv(
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
    fn maxk(&self) -> u32 {
        self.k[0] * self.k[1]
    }

    /// The kernel's extent along axis `i`.
    fn extent(&self, i: usize) -> u32 {
        self.d[i] * (self.k[i] - 1) + 1
    }

    /// A convolution's output `w, h` (no padding).
    fn out_size(&self) -> [u32; 2] {
        [0, 1].map(|i| (self.size[i] - self.extent(i)) / self.s[i] + 1)
    }

    /// A deconvolution's output `w, h` (no padding, no output padding).
    fn deconv_out_size(&self) -> [u32; 2] {
        [0, 1].map(|i| (self.size[i] - 1) * self.s[i] + self.extent(i))
    }

    /// Weights (`weight_data`, `[cout][cin / group][maxk]`), bias and input,
    /// in the mode's storage.
    fn data(&self, mode: &Mode, rng: &mut Rng) -> (Tensor, Vec<f32>, Vec<f32>) {
        let input = Tensor::random(
            &[self.size[0], self.size[1], self.cin],
            mode,
            rng,
            -1.0,
            1.0,
        );
        let n = self.cout * (self.cin / self.group) * self.maxk();
        let weights = values(n, mode, rng, -1.0, 1.0);
        let bias = if self.bias {
            values(self.cout, mode, rng, -1.0, 1.0)
        } else {
            Vec::new()
        };
        (input, weights, bias)
    }

    /// `weight_data[q][p][k]`.
    fn w(&self, weights: &[f32], q: u32, p: u32, k: u32) -> f32 {
        weights[((q * (self.cin / self.group) + p) * self.maxk() + k) as usize]
    }

    /// The bias of channel `q`, and the sum's start.
    fn start(&self, bias: &[f32], q: u32) -> f64 {
        if self.bias {
            f64::from(bias[q as usize])
        } else {
            0.0
        }
    }

    /// Convolution output `(x, y, q)` before the activation, and the sum of
    /// the magnitudes of its terms.
    fn conv_at(
        &self,
        input: &Tensor,
        weights: &[f32],
        bias: &[f32],
        x: u32,
        y: u32,
        q: u32,
    ) -> (f64, f64) {
        let cg = self.cin / self.group;
        let g = q / (self.cout / self.group);
        let mut sum = self.start(bias, q);
        let mut mag = sum.abs();
        for p in 0..cg {
            for ky in 0..self.k[1] {
                for kx in 0..self.k[0] {
                    let ix = x * self.s[0] + kx * self.d[0];
                    let iy = y * self.s[1] + ky * self.d[1];
                    let v = f64::from(input.at(ix, iy, 0, g * cg + p))
                        * f64::from(self.w(weights, q, p, ky * self.k[0] + kx));
                    sum += v;
                    mag += v.abs();
                }
            }
        }
        (sum, mag)
    }

    /// Deconvolution output `(x, y, q)` before the activation: every input
    /// `(ix, iy)` and tap `(kx, ky)` with `ix * stride + kx * dilation == x`
    /// (and so for `y`) adds `input * weight`.
    fn deconv_at(
        &self,
        input: &Tensor,
        weights: &[f32],
        bias: &[f32],
        x: u32,
        y: u32,
        q: u32,
    ) -> (f64, f64) {
        let mut sum = self.start(bias, q);
        let mut mag = sum.abs();
        for p in 0..self.cin {
            for ky in 0..self.k[1] {
                for kx in 0..self.k[0] {
                    let (tx, ty) = (
                        i64::from(x) - i64::from(kx * self.d[0]),
                        i64::from(y) - i64::from(ky * self.d[1]),
                    );
                    let (sw, sh) = (i64::from(self.s[0]), i64::from(self.s[1]));
                    if tx < 0 || ty < 0 || tx % sw != 0 || ty % sh != 0 {
                        continue;
                    }
                    let (ix, iy) = ((tx / sw) as u32, (ty / sh) as u32);
                    if ix >= self.size[0] || iy >= self.size[1] {
                        continue;
                    }
                    let v = f64::from(input.at(ix, iy, 0, p))
                        * f64::from(self.w(weights, q, p, ky * self.k[0] + kx));
                    sum += v;
                    mag += v.abs();
                }
            }
        }
        (sum, mag)
    }

    /// For run names.
    fn describe(&self) -> String {
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

/// The tolerance of an output computed in one pass.
fn tol_direct(mode: &Mode, act: Act, (v, mag): (f64, f64)) -> (f64, f64) {
    let (v, mag) = act.apply(v, mag);
    (v, mode.tol(v, mag))
}

/// The tolerance of an output summed from partial sums that were stored in
/// the mode's storage on the way (each rounded once: at most one storage
/// unit of the magnitude of all terms).
fn tol_staged(mode: &Mode, act: Act, (v, mag): (f64, f64)) -> (f64, f64) {
    let (out, amag) = act.apply(v, mag);
    (out, mode.tol(out, amag) + mode.storage_eps() * amag)
}

// ---------------------------------------------------------------------------
// Convolution
// ---------------------------------------------------------------------------

/// The weights of `convolution_packed_1x1s1d1.comp` and
/// `convolution_packed_gemm.comp`: per 4 output channels, per 4 input
/// channels, per tap, a 4x4 block `[out lane][in lane]`, zero past the
/// channels.
fn weights_pack4x4(p: &Conv, weights: &[f32]) -> Vec<f32> {
    let (nip, nop) = (p.cin.div_ceil(4) * 4, p.cout.div_ceil(4) * 4);
    let mut out = Vec::new();
    for q in (0..nop).step_by(4) {
        for c in (0..nip).step_by(4) {
            for k in 0..p.maxk() {
                for i in 0..4 {
                    for j in 0..4 {
                        out.push(if q + i < p.cout && c + j < p.cin {
                            p.w(weights, q + i, c + j, k)
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    out
}

/// `convolution_vulkan.cpp` on a 1x1 stride-1 convolution:
/// `convolution_packed_1x1s1d1.comp` over 4 spatial positions by 4 output
/// channels per invocation; local size 8x8 with local memory (its tiles are
/// 8 wide), else `8 x min(8, outc_pack4)`; dispatcher `(size / 4, outc_pack4)`.
fn conv1x1_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [outw, outh] = p.out_size();
    let min = packed_mat(&[p.size[0], p.size[1], p.cin], ep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
    let c_packed = u64::from(p.cin.div_ceil(4));
    let outc = u64::from(p.cout.div_ceil(4));
    let cstep = if ep == 4 {
        min.cstep()
    } else {
        min.cstep() / 4
    };
    let outcstep = if oep == 4 {
        mout.cstep()
    } else {
        mout.cstep() / 4
    };
    let outcstep_native = mout.cstep() / 4;
    let size = u64::from(outw * outh).div_ceil(4);
    let sp = p.specialized;
    let spec = spec_of(&[
        &ints(&[u64::from(p.bias)]),
        &p.act.spec(),
        &ints(&[
            u64::from(ep),
            u64::from(oep),
            c_packed,
            known(sp, cstep),
            known(sp, outc),
            known(sp, outcstep),
            known(sp, outcstep_native),
            known(sp, size),
            u64::from(p.cout),
            u64::from(p.cin),
        ]),
    ]);
    let sg = device.limits.subgroup_size;
    let local = if mode.local_memory() {
        ncnn_local_size([8, 8, 1], sg)
    } else {
        ncnn_local_size([8, outc.min(8) as u32, 1], sg)
    };
    let step = Step {
        shader: "convolution_packed_1x1s1d1.comp",
        local_size: local,
        spec,
        push: words(&[
            c_packed,
            cstep,
            outc,
            outcstep,
            outcstep_native,
            size,
            u64::from(p.cout),
            u64::from(p.cin),
        ]),
        bind: vec![(0, None), (1, None), (2, None), (3, None)],
        groups: group_counts([size as u32, outc as u32, 1], local),
    };
    let expect = expect_tol(1, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        tol_direct(mode, p.act, p.conv_at(&input, &weights, &bias, x, y, q))
    });
    Run {
        name: format!("conv1x1 {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            Data::Floats(blocks(weights_pack4x4(p, &weights), f32::NAN)),
            bias_data(&bias),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Convolution 1x1 stride 1 (not the cooperative-matrix shader): every
/// packing pair, more than 8 input groups (the local-memory loop and its
/// remainder), more than 8 output groups, odd spatial sizes.
fn conv1x1(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let one = [1, 1];
    [
        conv(8, 8, one, one, one, [5, 3], true, true),
        conv(40, 12, one, one, one, [6, 5], true, false),
        conv(37, 36, one, one, one, [4, 4], true, true),
        conv(6, 5, one, one, one, [7, 3], true, false),
        conv(40, 7, one, one, one, [9, 9], false, true),
    ]
    .iter()
    .map(|p| conv1x1_run(device, mode, rng, p))
    .collect()
}

/// `convolution_vulkan.cpp`'s direct path (`num_output < 8` or
/// `num_input * maxk < 8`, not 1x1 stride 1): `convolution_packed.comp`,
/// 2x2 positions by 2 output groups per invocation; weights per 4 output
/// channels, per input pack, per tap, `[out lane][in lane]`; local size
/// `set_optimal_local_size_xyz(min(8, outw), min(8, outh), min(4, (outc_pack4
/// + 1) / 2))` (8, 8 unspecialized); dispatcher halves of the output.
fn conv_direct_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [outw, outh] = p.out_size();
    let min = packed_mat(&[p.size[0], p.size[1], p.cin], ep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
    let nop = p.cout.div_ceil(4) * 4;
    let outc = u64::from(nop / 4);
    let outcstep = if oep == 4 {
        mout.cstep()
    } else {
        mout.cstep() * 4
    };
    let mut wp = Vec::new();
    for q in (0..nop).step_by(4) {
        for c in (0..p.cin).step_by(ep as usize) {
            for k in 0..p.maxk() {
                for i in 0..4 {
                    for j in 0..ep {
                        wp.push(if q + i < p.cout {
                            p.w(&weights, q + i, c + j, k)
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    let sp = p.specialized;
    let shape = [
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
    ];
    let spec = spec_of(&[
        &ints(&[
            u64::from(p.k[0]),
            u64::from(p.k[1]),
            u64::from(p.d[0]),
            u64::from(p.d[1]),
            u64::from(p.s[0]),
            u64::from(p.s[1]),
            u64::from(p.bias),
        ]),
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
    let step = Step {
        shader: "convolution_packed.comp",
        local_size: local,
        spec,
        push: words(&push),
        bind: vec![
            (0, None),
            (1, None),
            (0, None),
            (1, None),
            (2, None),
            (3, None),
        ],
        groups: group_counts(
            [outw.div_ceil(2), outh.div_ceil(2), (nop / 4).div_ceil(2)],
            local,
        ),
    };
    let expect = expect_tol(1, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        tol_direct(mode, p.act, p.conv_at(&input, &weights, &bias, x, y, q))
    });
    Run {
        name: format!("convdirect {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            Data::Floats(blocks(wp, f32::NAN)),
            bias_data(&bias),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Convolution's direct path: every packing pair, stride 2, dilation 2 on
/// either axis, non-square kernels, 1x1 stride 2, an odd output group count.
fn conv_direct(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    [
        conv(4, 4, [3, 3], [1, 1], [1, 1], [7, 6], true, true),
        conv(8, 6, [3, 3], [1, 1], [2, 2], [9, 8], true, false),
        conv(3, 12, [2, 1], [2, 1], [1, 1], [6, 5], false, true),
        conv(5, 3, [3, 2], [1, 2], [1, 1], [6, 7], true, false),
        conv(4, 4, [1, 1], [1, 1], [2, 2], [7, 7], true, true),
    ]
    .iter()
    .map(|p| conv_direct_run(device, mode, rng, p))
    .collect()
}

/// `convolution_vulkan.cpp`'s sgemm path (`use_sgemm_convolution`, not 1x1
/// stride 1, `num_input * maxk >= 8`, `num_output >= 8`, not winograd):
/// `convolution_packed_gemm.comp`, 4 output positions by 4 output channels
/// per invocation over `c * maxk` steps; local size 8x8 with local memory,
/// else `set_optimal_local_size_xyz(min(16, outw * outh), min(4,
/// outc_pack4), 1)` (16 unspecialized); dispatcher `(outsize / 4,
/// outc_pack4)`.
fn conv_gemm_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [outw, outh] = p.out_size();
    let min = packed_mat(&[p.size[0], p.size[1], p.cin], ep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
    let (c, outc) = (u64::from(p.cin.div_ceil(4)), u64::from(p.cout.div_ceil(4)));
    let sp = p.specialized;
    let spec = spec_of(&[
        &ints(&[
            u64::from(p.k[0]),
            u64::from(p.k[1]),
            u64::from(p.d[0]),
            u64::from(p.d[1]),
            u64::from(p.s[0]),
            u64::from(p.s[1]),
            u64::from(p.bias),
        ]),
        &p.act.spec(),
        &ints(&[
            u64::from(ep),
            u64::from(oep),
            known(sp, u64::from(min.w)),
            known(sp, u64::from(min.h)),
            c,
            known(sp, min.cstep()),
            known(sp, u64::from(outw)),
            known(sp, u64::from(outh)),
            known(sp, outc),
            known(sp, mout.cstep()),
            u64::from(p.cout),
            u64::from(p.cin),
        ]),
    ]);
    let local = if mode.local_memory() {
        ncnn_local_size([8, 8, 1], device.limits.subgroup_size)
    } else {
        let x = if sp { 16.min(outw * outh) } else { 16 };
        optimal_local_size([x, 4.min(outc as u32), 1], &device.limits)
    };
    let push = [
        u64::from(min.w),
        u64::from(min.h),
        c,
        min.cstep(),
        u64::from(outw),
        u64::from(outh),
        outc,
        mout.cstep(),
        u64::from(p.cout),
        u64::from(p.cin),
    ];
    let step = Step {
        shader: "convolution_packed_gemm.comp",
        local_size: local,
        spec,
        push: words(&push),
        bind: vec![
            (0, None),
            (1, None),
            (0, None),
            (1, None),
            (2, None),
            (3, None),
        ],
        groups: group_counts([(outw * outh).div_ceil(4), outc as u32, 1], local),
    };
    let expect = expect_tol(1, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        tol_direct(mode, p.act, p.conv_at(&input, &weights, &bias, x, y, q))
    });
    Run {
        name: format!("convgemm {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            Data::Floats(blocks(weights_pack4x4(p, &weights), f32::NAN)),
            bias_data(&bias),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Convolution's sgemm path: every packing pair, stride 2, dilation 2, a
/// 3x1 kernel with unequal strides, and `c * maxk` below, just past and well
/// past the 8 steps of a local-memory tile.
fn conv_gemm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    [
        conv(4, 8, [3, 3], [1, 1], [1, 1], [6, 6], true, true),
        conv(3, 9, [3, 3], [1, 1], [2, 2], [9, 7], true, false),
        conv(16, 10, [3, 3], [2, 2], [1, 1], [7, 7], false, false),
        conv(6, 16, [3, 1], [1, 1], [1, 2], [7, 6], true, true),
    ]
    .iter()
    .map(|p| conv_gemm_run(device, mode, rng, p))
    .collect()
}

// ---------------------------------------------------------------------------
// ConvolutionDepthWise
// ---------------------------------------------------------------------------

/// `convolutiondepthwise_vulkan.cpp`: depth-wise (`channels == group ==
/// num_output`) with `convolutiondepthwise{,_pack4}.comp`, weights
/// `[group][maxk]` packed by the channel pack; grouped with
/// `convolutiondepthwise_group{,_pack4,_pack1to4,_pack4to1}.comp` by the
/// per-group packs, weights per group, per output pack, per input pack, per
/// tap, `[out lane][in lane]`. One invocation per output element; local size
/// `set_optimal_local_size_xyz(min(8, outw), min(8, outh), min(4, outc))`
/// (8, 8, `min(4, num_output / out_elempack)` unspecialized); dispatcher the
/// output blob. The shapes keep the blob's packs equal to the per-group ones
/// (no packing conversion around the shader).
fn dw_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let depthwise = p.cin == p.group && p.group == p.cout;
    let (cg, og) = (p.cin / p.group, p.cout / p.group);
    let (epg, oepg) = (pack_of(cg), pack_of(og));
    let [outw, outh] = p.out_size();
    let maxk = p.maxk();
    let (shader, wp) = if depthwise {
        let mut wp = Vec::new();
        for g in (0..p.group).step_by(ep as usize) {
            for k in 0..maxk {
                for lane in 0..ep {
                    wp.push(p.w(&weights, g + lane, 0, k));
                }
            }
        }
        let s = if ep == 4 {
            "convolutiondepthwise_pack4.comp"
        } else {
            "convolutiondepthwise.comp"
        };
        (s, wp)
    } else {
        assert!(
            ep == epg && oep == oepg,
            "a grouped case without conversions"
        );
        let mut wp = Vec::new();
        for g in 0..p.group {
            for q in (0..og).step_by(oepg as usize) {
                for c in (0..cg).step_by(epg as usize) {
                    for k in 0..maxk {
                        for i in 0..oepg {
                            for j in 0..epg {
                                wp.push(p.w(&weights, g * og + q + i, c + j, k));
                            }
                        }
                    }
                }
            }
        }
        let s = match (epg, oepg) {
            (1, 1) => "convolutiondepthwise_group.comp",
            (4, 4) => "convolutiondepthwise_group_pack4.comp",
            (1, 4) => "convolutiondepthwise_group_pack1to4.comp",
            _ => "convolutiondepthwise_group_pack4to1.comp",
        };
        (s, wp)
    };
    let min = packed_mat(&[p.size[0], p.size[1], p.cin], ep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
    let sp = p.specialized;
    let shape = [
        3,
        u64::from(min.w),
        u64::from(min.h),
        u64::from(min.c),
        min.cstep(),
        3,
        u64::from(outw),
        u64::from(outh),
        u64::from(mout.c),
        mout.cstep(),
    ];
    let spec = spec_of(&[
        &ints(&[
            u64::from(p.k[0]),
            u64::from(p.k[1]),
            u64::from(p.d[0]),
            u64::from(p.d[1]),
            u64::from(p.s[0]),
            u64::from(p.s[1]),
            u64::from(p.bias),
            u64::from(p.group),
        ]),
        &p.act.spec(),
        &ints(&shape.map(|v| known(sp, v))),
    ]);
    let local = optimal_local_size(
        if sp {
            [8.min(outw), 8.min(outh), 4.min(mout.c)]
        } else {
            [8, 8, 4.min(p.cout / if depthwise { oep } else { oepg })]
        },
        &device.limits,
    );
    let step = Step {
        shader,
        local_size: local,
        spec,
        push: words(&shape),
        bind: vec![(0, None), (1, None), (2, None), (3, None)],
        groups: group_counts([outw, outh, mout.c], local),
    };
    let expect = expect_tol(1, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        tol_direct(mode, p.act, p.conv_at(&input, &weights, &bias, x, y, q))
    });
    Run {
        name: format!("convdw {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            Data::Floats(blocks(wp, f32::NAN)),
            bias_data(&bias),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// A grouped [`Conv`].
fn grouped(mut p: Conv, group: u32) -> Conv {
    p.group = group;
    p
}

/// ConvolutionDepthWise: depth-wise pack1 and pack4 (stride 2, dilation
/// 2), grouped pack1, pack4, pack1to4, pack4to1.
fn depthwise(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let k3 = [3, 3];
    let one = [1, 1];
    [
        grouped(conv(8, 8, k3, one, one, [6, 5], true, true), 8),
        grouped(conv(3, 3, k3, [2, 2], [2, 2], [9, 8], true, false), 3),
        grouped(conv(6, 6, k3, one, one, [5, 5], true, false), 2),
        grouped(conv(8, 8, k3, one, one, [5, 4], true, true), 2),
        grouped(conv(2, 8, k3, one, one, [5, 5], true, true), 2),
        grouped(conv(8, 2, [2, 3], one, [2, 1], [7, 7], false, false), 2),
    ]
    .iter()
    .map(|p| dw_run(device, mode, rng, p))
    .collect()
}

// ---------------------------------------------------------------------------
// Deconvolution
// ---------------------------------------------------------------------------

/// `deconvolution_vulkan.cpp`'s gemm path (`use_sgemm_convolution`,
/// `num_input >= 8`, `maxk * num_output >= 8`):
/// `deconvolution_gemm_packed.comp` makes the column blob (`w * h, 1, maxk *
/// num_output / out_elempack`; each column channel `q * maxk + k` holds the
/// input times the tap-`k` weights of output pack `q`), then
/// `deconvolution{,_pack4}_col2im.comp` adds the columns that land on each
/// output, the bias and the activation. The column blob is stored in the
/// mode's storage between the two.
fn deconv_gemm_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [w, h] = p.size;
    let [outw, outh] = p.deconv_out_size();
    let maxk = p.maxk();
    let min = packed_mat(&[w, h, p.cin], ep, mode);
    let mcol = packed_mat(&[w * h, 1, maxk * p.cout], oep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
    let nip = p.cin.div_ceil(4) * 4;
    let c = u64::from(nip / 4);
    // Rows `q / out_elempack * maxk + k`; in each, per 4 inputs, a 4x4 block
    // of the 4 output channels from `q` (the next channels' with pack1).
    let mut wp = Vec::new();
    for q in (0..p.cout).step_by(oep as usize) {
        for k in 0..maxk {
            for cc in (0..nip).step_by(4) {
                for i in 0..4 {
                    for j in 0..4 {
                        wp.push(if q + i < p.cout && cc + j < p.cin {
                            p.w(&weights, q + i, cc + j, k)
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    let sp = p.specialized;
    let sg = device.limits.subgroup_size;
    let gemm_local = if mode.local_memory() {
        ncnn_local_size([8, 8, 1], sg)
    } else if sp {
        optimal_local_size([8.min(w * h), 4.min(mcol.c), 1], &device.limits)
    } else {
        optimal_local_size([8, 4.min(p.cout / oep), 1], &device.limits)
    };
    let gemm = Step {
        shader: "deconvolution_gemm_packed.comp",
        local_size: gemm_local,
        spec: spec_of(&[&ints(&[
            u64::from(maxk),
            u64::from(ep),
            u64::from(oep),
            known(sp, u64::from(w)),
            known(sp, u64::from(h)),
            known(sp, c),
            known(sp, min.cstep()),
            known(sp, mcol.cstep()),
            known(sp, u64::from(mcol.c)),
            u64::from(p.cin),
        ])]),
        push: words(&[
            u64::from(w),
            u64::from(h),
            c,
            min.cstep(),
            mcol.cstep(),
            u64::from(mcol.c),
            u64::from(p.cin),
        ]),
        bind: vec![(0, None), (1, None), (0, None), (1, None), (2, None)],
        groups: group_counts([mcol.cstep().div_ceil(4) as u32, mcol.c, 1], gemm_local),
    };
    let col_local = optimal_local_size(
        if sp {
            [8.min(outw), 8.min(outh), 4.min(mout.c)]
        } else {
            [8, 8, 4.min(p.cout / oep)]
        },
        &device.limits,
    );
    let col2im = Step {
        shader: if oep == 4 {
            "deconvolution_pack4_col2im.comp"
        } else {
            "deconvolution_col2im.comp"
        },
        local_size: col_local,
        spec: spec_of(&[
            &ints(&[
                u64::from(p.k[0]),
                u64::from(p.k[1]),
                u64::from(p.d[0]),
                u64::from(p.d[1]),
                u64::from(p.s[0]),
                u64::from(p.s[1]),
                u64::from(p.bias),
            ]),
            &p.act.spec(),
            &ints(&[
                u64::from(p.cout / oep),
                known(sp, u64::from(w)),
                known(sp, u64::from(h)),
                known(sp, mcol.cstep()),
                known(sp, u64::from(outw)),
                known(sp, u64::from(outh)),
                known(sp, mout.cstep()),
            ]),
        ]),
        push: words(&[
            u64::from(w),
            u64::from(h),
            mcol.cstep(),
            u64::from(outw),
            u64::from(outh),
            mout.cstep(),
        ]),
        bind: vec![(1, None), (3, None), (4, None)],
        groups: group_counts([outw, outh, mout.c], col_local),
    };
    let expect = expect_tol(3, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        tol_staged(mode, p.act, p.deconv_at(&input, &weights, &bias, x, y, q))
    });
    // ncnn pads the bias to whole 4s with zeros.
    let mut b = bias.clone();
    if p.bias {
        b.resize(p.cout.div_ceil(4) as usize * 4, 0.0);
    }
    Run {
        name: format!("deconvgemm {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mcol),
            Data::Floats(blocks(wp, f32::NAN)),
            poison_blob(mode, &mout),
            bias_data(&b),
        ],
        steps: vec![gemm, col2im],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// `deconvolution_vulkan.cpp`'s direct path (`num_input < 8` or `maxk *
/// num_output < 8`): `deconvolution_packed.comp` gathers, for 2x2 outputs by
/// 2 output groups, the inputs each tap reaches; its weights are the
/// convolution direct layout of the kernel turned by 180 degrees; the bias
/// padded to whole 4s with zeros.
fn deconv_direct_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [outw, outh] = p.deconv_out_size();
    let maxk = p.maxk();
    let min = packed_mat(&[p.size[0], p.size[1], p.cin], ep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
    let nop = p.cout.div_ceil(4) * 4;
    let outc = u64::from(nop / 4);
    let outcstep = if oep == 4 {
        mout.cstep()
    } else {
        mout.cstep() * 4
    };
    let mut wp = Vec::new();
    for q in (0..nop).step_by(4) {
        for c in (0..p.cin).step_by(ep as usize) {
            for k in 0..maxk {
                for i in 0..4 {
                    for j in 0..ep {
                        wp.push(if q + i < p.cout {
                            p.w(&weights, q + i, c + j, maxk - 1 - k)
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    let sp = p.specialized;
    let shape = [
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
    ];
    let spec = spec_of(&[
        &ints(&[
            u64::from(p.k[0]),
            u64::from(p.k[1]),
            u64::from(p.d[0]),
            u64::from(p.d[1]),
            u64::from(p.s[0]),
            u64::from(p.s[1]),
            u64::from(p.bias),
        ]),
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
    let step = Step {
        shader: "deconvolution_packed.comp",
        local_size: local,
        spec,
        push: words(&push),
        bind: vec![
            (0, None),
            (1, None),
            (0, None),
            (1, None),
            (2, None),
            (3, None),
        ],
        groups: group_counts(
            [outw.div_ceil(2), outh.div_ceil(2), (nop / 4).div_ceil(2)],
            local,
        ),
    };
    let expect = expect_tol(1, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        tol_direct(mode, p.act, p.deconv_at(&input, &weights, &bias, x, y, q))
    });
    let mut b = bias.clone();
    if p.bias {
        b.resize(nop as usize, 0.0);
    }
    Run {
        name: format!("deconvdirect {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            Data::Floats(blocks(wp, f32::NAN)),
            bias_data(&b),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Deconvolution: the gemm path (every output pack, input pack1 and pack4,
/// stride 2, dilation 2, more than 8 input groups) and the direct path
/// (pack4 to pack1, pack1 to pack4, dilation 2).
fn deconvolution(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let one = [1, 1];
    let mut runs: Vec<Run> = [
        conv(8, 4, [3, 3], one, [2, 2], [4, 3], true, true),
        conv(9, 3, [2, 2], one, [2, 2], [5, 4], true, false),
        conv(36, 5, [3, 2], [2, 2], one, [3, 3], false, true),
    ]
    .iter()
    .map(|p| deconv_gemm_run(device, mode, rng, p))
    .collect();
    runs.extend(
        [
            conv(4, 6, [3, 3], one, [2, 2], [4, 4], true, true),
            conv(3, 4, [3, 2], [2, 2], [1, 2], [5, 4], false, false),
        ]
        .iter()
        .map(|p| deconv_direct_run(device, mode, rng, p)),
    );
    runs
}

// ---------------------------------------------------------------------------
// InnerProduct
// ---------------------------------------------------------------------------

/// An InnerProduct configuration.
#[derive(Clone, Copy, Debug)]
struct Fc {
    /// `num_input`.
    cin: u32,
    /// `num_output`.
    cout: u32,
    /// Rows of a 2-D input (the gemm path); 0 for a 1-D input.
    rows: u32,
    /// `bias_term`.
    bias: bool,
    /// Whether the input shape is known at `create_pipeline`.
    specialized: bool,
    /// The fused activation.
    act: Act,
}

/// An [`Fc`] without activation.
fn fc(cin: u32, cout: u32, rows: u32, bias: bool, specialized: bool) -> Fc {
    Fc {
        cin,
        cout,
        rows,
        bias,
        specialized,
        act: NO_ACT,
    }
}

/// `innerproduct_vulkan.cpp`: weights per output pack, per input pack,
/// `[out lane][in lane]` (packs from `num_output % 4`, `num_input % 4`).
/// A 1-D input runs `innerproduct{,_pack4,_pack1to4,_pack4to1}.comp` (one
/// invocation per output pack, local size `min(64, outw)`), or, from 32
/// input packs, `innerproduct_sum8*.comp` (partial sums of 8 input packs
/// into a `(w / 8, num_output / out_elempack)` blob in the mode's storage,
/// local size `8 x min(8, outh)`) then `innerproduct_reduce_sum8*.comp`
/// (bias, activation; local size `min(64, outw)`). A 2-D input with `w ==
/// num_input` (rows not a multiple of 4: no unpacking) runs
/// `innerproduct_gemm{,_wp4,_wp1to4,_wp4to1}.comp`, one invocation per row
/// and output pack, local size `min(16, num_output) x min(4, rows)`.
fn fc_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Fc) -> Run {
    let (ie, oe) = (pack_of(p.cin), pack_of(p.cout));
    let shape: Vec<u32> = if p.rows == 0 {
        vec![p.cin]
    } else {
        vec![p.cin, p.rows]
    };
    let input = Tensor::random(&shape, mode, rng, -1.0, 1.0);
    let weights = values(p.cout * p.cin, mode, rng, -1.0, 1.0);
    let bias = if p.bias {
        values(p.cout, mode, rng, -1.0, 1.0)
    } else {
        Vec::new()
    };
    let mut wp = Vec::new();
    for q in (0..p.cout).step_by(oe as usize) {
        for c in (0..p.cin).step_by(ie as usize) {
            for i in 0..oe {
                for j in 0..ie {
                    wp.push(weights[((q + i) * p.cin + c + j) as usize]);
                }
            }
        }
    }
    let at = |r: u32, q: u32| -> (f64, f64) {
        let mut sum = if p.bias {
            f64::from(bias[q as usize])
        } else {
            0.0
        };
        let mut mag = sum.abs();
        for c in 0..p.cin {
            let x = if p.rows == 0 {
                input.at(c, 0, 0, 0)
            } else {
                input.at(c, r, 0, 0)
            };
            let v = f64::from(x) * f64::from(weights[(q * p.cin + c) as usize]);
            sum += v;
            mag += v.abs();
        }
        (sum, mag)
    };
    let sp = p.specialized;
    let pick = |names: [&'static str; 4]| match (ie, oe) {
        (1, 1) => names[0],
        (4, 4) => names[1],
        (1, 4) => names[2],
        _ => names[3],
    };
    let head = [&ints(&[u64::from(p.bias)])[..], &p.act.spec()[..]].concat();
    let name = format!(
        "innerproduct {}->{} rows {} bias {} {} act {}",
        p.cin,
        p.cout,
        p.rows,
        p.bias,
        if sp { "spec" } else { "push" },
        p.act.name()
    );
    let w_data = Data::Floats(blocks(wp, f32::NAN));
    if p.rows > 0 {
        let min = packed_mat(&shape, 1, mode);
        let mout = packed_mat(&[p.cout, p.rows], 1, mode);
        let shapes = [
            2,
            u64::from(p.cin),
            u64::from(p.rows),
            1,
            min.cstep(),
            2,
            u64::from(p.cout),
            u64::from(p.rows),
            1,
            mout.cstep(),
        ];
        let local = optimal_local_size(
            if sp {
                [16.min(p.cout), 4.min(p.rows), 1]
            } else {
                [16.min(p.cout / oe), 4, 1]
            },
            &device.limits,
        );
        let step = Step {
            shader: pick([
                "innerproduct_gemm.comp",
                "innerproduct_gemm_wp4.comp",
                "innerproduct_gemm_wp1to4.comp",
                "innerproduct_gemm_wp4to1.comp",
            ]),
            local_size: local,
            spec: spec_of(&[&head, &ints(&shapes.map(|v| known(sp, v)))]),
            push: words(&shapes),
            bind: vec![(0, None), (1, None), (2, None), (3, None)],
            groups: group_counts([p.cout / oe, p.rows, 1], local),
        };
        let expect = expect_tol(1, &mout, &[p.cout, p.rows], |x, y, _, _| {
            tol_direct(mode, p.act, at(y, x))
        });
        return Run {
            name,
            buffers: vec![
                blob(&input, &min),
                poison_blob(mode, &mout),
                w_data,
                bias_data(&bias),
            ],
            steps: vec![step],
            expect: vec![expect],
            untouched: Vec::new(),
        };
    }
    let min = packed_mat(&shape, ie, mode);
    let mout = packed_mat(&[p.cout], oe, mode);
    let (w, outw) = (u64::from(p.cin / ie), u64::from(p.cout / oe));
    if w < 32 {
        let shapes = [1, w, 1, 1, w, 1, outw, 1, 1, outw];
        let local = optimal_local_size([64.min(outw as u32), 1, 1], &device.limits);
        let step = Step {
            shader: pick([
                "innerproduct.comp",
                "innerproduct_pack4.comp",
                "innerproduct_pack1to4.comp",
                "innerproduct_pack4to1.comp",
            ]),
            local_size: local,
            spec: spec_of(&[&head, &ints(&shapes.map(|v| known(sp, v)))]),
            push: words(&shapes),
            bind: vec![(0, None), (1, None), (2, None), (3, None)],
            groups: group_counts([outw as u32, 1, 1], local),
        };
        let expect = expect_tol(1, &mout, &[p.cout], |x, _, _, _| {
            tol_direct(mode, p.act, at(0, x))
        });
        return Run {
            name,
            buffers: vec![
                blob(&input, &min),
                poison_blob(mode, &mout),
                w_data,
                bias_data(&bias),
            ],
            steps: vec![step],
            expect: vec![expect],
            untouched: Vec::new(),
        };
    }
    let w8 = w.div_ceil(8);
    let msum = packed_mat(&[w8 as u32, p.cout], oe, mode);
    let sg = device.limits.subgroup_size;
    let sum_local = ncnn_local_size([8, 8.min(outw as u32), 1], sg);
    let sum8 = Step {
        shader: pick([
            "innerproduct_sum8.comp",
            "innerproduct_sum8_pack4.comp",
            "innerproduct_sum8_pack1to4.comp",
            "innerproduct_sum8_pack4to1.comp",
        ]),
        local_size: sum_local,
        spec: spec_of(&[&ints(&[known(sp, w), w8, outw])]),
        push: words(&[w, w8, outw]),
        bind: vec![(0, None), (1, None), (2, None)],
        groups: group_counts([w8 as u32, outw as u32, 1], sum_local),
    };
    let red_local = ncnn_local_size([64.min(outw as u32), 1, 1], sg);
    let reduce = Step {
        shader: if oe == 4 {
            "innerproduct_reduce_sum8_pack4.comp"
        } else {
            "innerproduct_reduce_sum8.comp"
        },
        local_size: red_local,
        spec: spec_of(&[&head, &ints(&[w8, outw, known(sp, outw)])]),
        push: words(&[w8, outw, outw]),
        bind: vec![(1, None), (4, None), (3, None)],
        groups: group_counts([outw as u32, 1, 1], red_local),
    };
    let expect = expect_tol(4, &mout, &[p.cout], |x, _, _, _| {
        tol_staged(mode, p.act, at(0, x))
    });
    Run {
        name,
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &msum),
            w_data,
            bias_data(&bias),
            poison_blob(mode, &mout),
        ],
        steps: vec![sum8, reduce],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// InnerProduct: each of the twelve shaders' packing pairs on 1-D inputs
/// (direct, and sum8 + reduce from 32 input packs) and 2-D inputs (gemm).
fn innerproduct(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    [
        fc(12, 8, 0, true, true),
        fc(10, 5, 0, true, false),
        fc(7, 8, 0, false, true),
        fc(16, 6, 0, true, false),
        fc(136, 8, 0, true, true),
        fc(35, 3, 0, true, false),
        fc(37, 4, 0, false, true),
        fc(128, 5, 0, true, false),
        fc(8, 8, 3, true, true),
        fc(6, 5, 5, true, false),
        fc(5, 8, 3, false, true),
        fc(8, 6, 5, true, false),
    ]
    .iter()
    .map(|p| fc_run(device, mode, rng, p))
    .collect()
}

// ---------------------------------------------------------------------------
// Gemm
// ---------------------------------------------------------------------------

/// Where Gemm's C comes from and how it broadcasts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum CFrom {
    /// No C (`broadcast_type_C` -1).
    None,
    /// A blob input with broadcast type 0 scalar, 1 `M`, 2 `Mx1`, 3 `MxN`,
    /// 4 `N` (shapes that are pack1 already: no conversion).
    Blob(i32),
    /// `constantC` with `constant_broadcast_type_C`.
    Constant(i32),
}

/// A Gemm configuration.
#[derive(Clone, Copy, Debug)]
struct GemmCfg {
    /// Rows of the product.
    m: u32,
    /// Columns of the product.
    n: u32,
    /// The summed extent.
    k: u32,
    /// `transA`: A is given as `K x M` (w = M).
    trans_a: bool,
    /// `transB`: B is given as `N x K` (w = K).
    trans_b: bool,
    /// `constantA`.
    const_a: bool,
    /// `constantB`.
    const_b: bool,
    /// C.
    c: CFrom,
    /// `alpha`.
    alpha: f32,
    /// `beta`.
    beta: f32,
    /// `output_transpose`.
    transpose: bool,
    /// `output_N1M`.
    n1m: bool,
}

/// A 2-D operand: the tensor (`w` fastest), its blob and the pack.
fn gemm_operand(mode: &Mode, rng: &mut Rng, w: u32, h: u32, constant: bool) -> (Tensor, NcnnMat) {
    let t = Tensor::random(&[w, h], mode, rng, -1.0, 1.0);
    // A constant operand is uploaded unpacked; a blob packs its rows by 4.
    let ep = if constant { 1 } else { pack_of(h) };
    let m = packed_mat(&[w, h], ep, mode);
    (t, m)
}

/// `gemm_vulkan.cpp` (not the cooperative-matrix, subgroup or int8 path):
/// `gemm.comp` over 4x4 blocks of the product, reading A and B in their
/// blobs' packing (constant ones uploaded unpacked), C unpacked; local size
/// 8x8 with local memory, else `set_optimal_local_size_xyz` of an empty
/// shape (4x4x4); dispatcher `((N + 3) / 4, (M + 3) / 4)`. The output packs
/// its outer axis (`M`, or `N` transposed) by 4 when it divides.
fn gemm_run(device: &Device, mode: &Mode, rng: &mut Rng, g: &GemmCfg) -> Run {
    let (m, n, k) = (g.m, g.n, g.k);
    let (a, ma) = if g.trans_a {
        gemm_operand(mode, rng, m, k, g.const_a)
    } else {
        gemm_operand(mode, rng, k, m, g.const_a)
    };
    let (b, mb) = if g.trans_b {
        gemm_operand(mode, rng, k, n, g.const_b)
    } else {
        gemm_operand(mode, rng, n, k, g.const_b)
    };
    let a_at = |i: u32, kk: u32| {
        if g.trans_a {
            a.at(i, kk, 0, 0)
        } else {
            a.at(kk, i, 0, 0)
        }
    };
    let b_at = |kk: u32, j: u32| {
        if g.trans_b {
            b.at(kk, j, 0, 0)
        } else {
            b.at(j, kk, 0, 0)
        }
    };
    let (c_shape, c_type): (Vec<u32>, i32) = match g.c {
        CFrom::None => (vec![1], -1),
        CFrom::Blob(t) | CFrom::Constant(t) => (
            match t {
                0 => vec![1],
                1 => vec![m],
                2 => vec![1, m],
                3 => vec![n, m],
                _ => vec![n],
            },
            t,
        ),
    };
    let c = Tensor::random(&c_shape, mode, rng, -1.0, 1.0);
    if let CFrom::Blob(_) = g.c {
        let outer = *c_shape.last().unwrap();
        assert!(
            outer % 4 != 0 || outer == 1,
            "a C blob that needs no unpacking"
        );
    }
    let c_at = |i: u32, j: u32| -> f64 {
        f64::from(match c_type {
            -1 => 0.0,
            0 => c.values[0],
            1 | 2 => c.values[i as usize],
            3 => c.values[(i * n + j) as usize],
            _ => c.values[j as usize],
        })
    };
    let oe = pack_of(if g.transpose { n } else { m });
    let (ow, oh) = if g.transpose { (m, n) } else { (n, m) };
    let out_shape: Vec<u32> = if g.n1m { vec![ow, 1, oh] } else { vec![ow, oh] };
    let mout = packed_mat(&out_shape, oe, mode);
    let outhstep = if g.n1m {
        mout.cstep()
    } else {
        u64::from(mout.w)
    };
    let hstep = |mm: &NcnnMat| u64::from(mm.w);
    let spec = spec_of(&[
        &[SpecValue::Float(g.alpha), SpecValue::Float(g.beta)],
        &ints(&[
            u64::from(g.trans_a),
            u64::from(g.trans_b),
            u64::from(g.const_a),
            u64::from(g.const_b),
            u64::from(matches!(g.c, CFrom::Constant(_))),
            if g.const_a { u64::from(m) } else { 0 },
            if g.const_b { u64::from(n) } else { 0 },
            if g.const_a || g.const_b {
                u64::from(k)
            } else {
                0
            },
            if let CFrom::Constant(t) = g.c {
                t as u64
            } else {
                0
            },
            u64::from(g.n1m),
            0,
            0,
            u64::from(g.transpose),
        ]),
    ]);
    let push = [
        m,
        n,
        k,
        c_type as u32,
        2,
        hstep(&ma) as u32,
        2,
        hstep(&mb) as u32,
        mout.dims,
        outhstep as u32,
        oe,
        ma.elempack,
        mb.elempack,
    ];
    let local = if mode.local_memory() {
        ncnn_local_size([8, 8, 1], device.limits.subgroup_size)
    } else {
        optimal_local_size([0, 0, 0], &device.limits)
    };
    let step = Step {
        shader: "gemm.comp",
        local_size: local,
        spec,
        push: push.to_vec(),
        bind: vec![(0, None), (1, None), (2, None), (3, None), (0, None)],
        groups: group_counts([n.div_ceil(4), m.div_ceil(4), 1], local),
    };
    let alpha = f64::from(g.alpha);
    let beta = f64::from(g.beta);
    let want = |i: u32, j: u32| {
        let mut sum = 0.0;
        let mut mag = 0.0;
        for kk in 0..k {
            let v = f64::from(a_at(i, kk)) * f64::from(b_at(kk, j));
            sum += v;
            mag += v.abs();
        }
        // ncnn's Gemm: alpha * (beta * C + A B)
        let cv = beta * c_at(i, j);
        let r = alpha * (cv + sum);
        (r, mode.tol(r, alpha.abs() * (cv.abs() + mag)))
    };
    let expect = expect_tol(0, &mout, &out_shape, |x, y, _, q| {
        let outer = if g.n1m { q } else { y };
        if g.transpose {
            want(x, outer)
        } else {
            want(outer, x)
        }
    });
    let c_data = Data::Floats(blocks(c.values.clone(), f32::NAN));
    Run {
        name: format!(
            "gemm M{m} N{n} K{k} tA{} tB{} cA{} cB{} C {:?} a{} b{} oT{} N1M{}",
            u8::from(g.trans_a),
            u8::from(g.trans_b),
            u8::from(g.const_a),
            u8::from(g.const_b),
            g.c,
            g.alpha,
            g.beta,
            u8::from(g.transpose),
            u8::from(g.n1m)
        ),
        buffers: vec![
            poison_blob(mode, &mout),
            blob(&a, &ma),
            blob(&b, &mb),
            c_data,
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Gemm: A and B in both orientations and packings (element-wise and
/// vector reads, `hstep` a multiple of 4 or not), constant A and B, C absent
/// and in every broadcast, constant C, alpha and beta, a transposed output,
/// an `N1M` output (its `cstep` pushed as `outhstep`), K below, at and past
/// a local-memory tile.
fn gemm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let base = GemmCfg {
        m: 8,
        n: 6,
        k: 5,
        trans_a: false,
        trans_b: false,
        const_a: false,
        const_b: false,
        c: CFrom::Constant(3),
        alpha: 1.0,
        beta: 1.0,
        transpose: false,
        n1m: false,
    };
    [
        base,
        GemmCfg {
            m: 6,
            n: 8,
            k: 8,
            trans_a: true,
            trans_b: true,
            c: CFrom::Blob(2),
            alpha: 1.5,
            beta: 0.5,
            ..base
        },
        GemmCfg {
            m: 5,
            n: 9,
            k: 12,
            trans_b: true,
            const_a: true,
            const_b: true,
            c: CFrom::Blob(4),
            ..base
        },
        GemmCfg {
            m: 4,
            n: 8,
            k: 6,
            c: CFrom::Blob(0),
            alpha: 0.5,
            beta: 2.0,
            transpose: true,
            ..base
        },
        GemmCfg {
            m: 8,
            n: 3,
            k: 4,
            c: CFrom::None,
            n1m: true,
            ..base
        },
        GemmCfg {
            m: 5,
            n: 7,
            k: 19,
            trans_a: true,
            trans_b: true,
            c: CFrom::Constant(1),
            ..base
        },
    ]
    .iter()
    .map(|g| gemm_run(device, mode, rng, g))
    .collect()
}

// ---------------------------------------------------------------------------
// Fused activations
// ---------------------------------------------------------------------------

/// Every activation of `vulkan_activation.comp` through the layers that
/// fuse it: `activation_afpvec4` in the 1x1 convolution, `activation_afp`
/// in the pack1 InnerProduct shader.
fn activations(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let one = [1, 1];
    let mut runs = Vec::new();
    for act in ACTS {
        let mut p = conv(8, 8, one, one, one, [5, 3], true, true);
        p.act = act;
        let mut f = fc(10, 6, 0, true, false);
        f.act = act;
        for mut run in [
            conv1x1_run(device, mode, rng, &p),
            fc_run(device, mode, rng, &f),
        ] {
            // Worst errors are reported per activation.
            run.name = format!("{} {}", act.name(), run.name);
            runs.push(run);
        }
    }
    runs
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[test]
fn convolution_1x1s1d1() {
    suite(&[("convolution_1x1", conv1x1)]);
}

#[test]
fn convolution_direct() {
    suite(&[("convolution_direct", conv_direct)]);
}

#[test]
fn convolution_gemm() {
    suite(&[("convolution_gemm", conv_gemm)]);
}

#[test]
fn convolution_depthwise() {
    suite(&[("convolutiondepthwise", depthwise)]);
}

#[test]
fn deconvolution_gemm_and_direct() {
    suite(&[("deconvolution", deconvolution)]);
}

#[test]
fn innerproduct_all_paths() {
    suite(&[("innerproduct", innerproduct)]);
}

#[test]
fn gemm_layer() {
    suite(&[("gemm", gemm)]);
}

#[test]
fn fused_activations() {
    suite(&[("activations", activations)]);
}
