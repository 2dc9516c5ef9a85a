//! ncnn's element-wise layers, run as their `*_vulkan.cpp` runs them (see
//! `ncnn_glsl_testkit::ncnn_layers`): BinaryOp (same shape, scalar, and the
//! three broadcast shaders, the reversed operations included), Eltwise,
//! UnaryOp (every operation of `unaryop.comp`), Sigmoid, HardSigmoid, PReLU,
//! Clip, TanH, Swish, Mish, GELU, ELU, HardSwish, Cast (fp32 <-> the
//! storage) and Packing (pack1to4, pack4to1, same packing, with and without
//! a cast). ReLU is in `ncnn_layers/activation.rs`.
//!
//! Blobs are laid out as ncnn does (`NcnnMat`: `cstep` padded to 16 bytes in
//! every dimension count), which the flat shaders (`n = total * elempack /
//! 4`) and Packing's same-packing path depend on for one- and
//! two-dimensional blobs whose size is not a multiple of four.
//!
//! Tolerances: `Mode::tol(want, mag)` with `mag = |want| + err / 8`, `err`
//! being the error bound of the shader's own expression in units of the
//! arithmetic's epsilon, propagated through each operation ([`E`]): exact
//! inputs, correctly rounded `+ - *`, the Vulkan spec's bounds for division,
//! `inversesqrt`, `exp`, `log`, `pow`, `atan`, and the functions it defines
//! by inheritance (`tanh` from `sinh / cosh`, `asin` from `atan2`, ...).
//! `sin` and `cos`, which the spec bounds only by an absolute 2^-11 but
//! lavapipe computes within a few ulps, are held to their conditioning
//! instead ([`Prec`]).

use ncnn_glsl_runtime::FloatStorage;
use ncnn_glsl_runtime::{group_counts, optimal_local_size, NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    pack, packed_index, suite, Data, Device, Expect, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

// ---------------------------------------------------------------------------
// Blobs

/// A blob as ncnn lays it out, with its logical shape.
#[derive(Clone, Debug)]
struct Blob {
    /// The layout.
    m: NcnnMat,
    /// The logical shape.
    shape: Vec<u32>,
}

impl Blob {
    /// A blob of logical `shape` packed by `elempack`, `scalar_bytes` a
    /// scalar.
    fn new(shape: &[u32], elempack: u32, scalar_bytes: u32) -> Blob {
        let mut packed = shape.to_vec();
        let last = packed.len() - 1;
        assert_eq!(packed[last] % elempack, 0, "{shape:?} packs by {elempack}");
        packed[last] /= elempack;
        Blob {
            m: NcnnMat::new(&packed, elempack, scalar_bytes).expect("a blob's shape"),
            shape: shape.to_vec(),
        }
    }

    /// A blob in the mode's storage.
    fn sfp(shape: &[u32], elempack: u32, mode: &Mode) -> Blob {
        Blob::new(shape, elempack, mode.scalar_bytes())
    }

    /// A blob of fp32 scalars.
    fn fp32(shape: &[u32], elempack: u32) -> Blob {
        Blob::new(shape, elempack, 4)
    }

    /// ncnn's `cstep`: a channel's elements padded to 16 bytes.
    fn cstep(&self) -> u32 {
        self.m.cstep() as u32
    }

    /// Scalars the blob spans, padding included.
    fn scalars(&self) -> usize {
        (self.cstep() * self.m.c * self.m.elempack) as usize
    }

    /// Bytes the blob spans.
    fn bytes(&self) -> u64 {
        u64::from(self.cstep()) * u64::from(self.m.c) * u64::from(self.m.elemsize)
    }

    /// `total() * elempack / 4`: the vec4s a flat shader walks.
    fn vec4s(&self) -> u32 {
        (self.scalars() / 4) as u32
    }

    /// `t` in this layout, padding 0.
    fn data(&self, t: &Tensor) -> Vec<f32> {
        assert_eq!(t.shape, self.shape);
        let mut v = pack(t, &self.m);
        v.resize(self.scalars(), 0.0);
        v
    }

    /// `t` as fp32 words in this layout.
    fn words(&self, t: &Tensor) -> Vec<u32> {
        self.data(t).iter().map(|v| v.to_bits()).collect()
    }

    /// NaN words for an fp32 output.
    fn poison_words(&self) -> Vec<u32> {
        vec![u32::MAX; self.scalars()]
    }

    /// The shape ncnn specializes and pushes: dims, w, h * d, c, cstep.
    fn shape5(&self) -> [i32; 5] {
        let m = &self.m;
        [m.dims, m.w, m.h * m.d, m.c, self.cstep()].map(|v| v as i32)
    }

    /// The shape the broadcast shaders take: dims, w, h, d, c, cstep.
    fn shape6(&self) -> [i32; 6] {
        let m = &self.m;
        [m.dims, m.w, m.h, m.d, m.c, self.cstep()].map(|v| v as i32)
    }

    /// `record_pipeline`'s dispatcher for this blob: `w, h * d, c`.
    fn dispatcher(&self) -> [u32; 3] {
        [self.m.w, self.m.h * self.m.d, self.m.c]
    }

    /// The local size BinaryOp, Cast and PReLU derive from an output shape
    /// (packed), or ncnn's 4x4x4 fallback when the shape is unknown.
    fn shape_local(&self, device: &Device, known: bool) -> [u32; 3] {
        let m = &self.m;
        let size = if !known {
            [0, 0, 0]
        } else {
            match m.dims {
                1 => [m.w.min(64), 1, 1],
                2 => [m.w.min(8), m.h.min(8), 1],
                3 => [m.w.min(4), m.h.min(4), m.c.min(4)],
                _ => [m.w.min(4), (m.h * m.d).min(4), m.c.min(4)],
            }
        };
        optimal_local_size(size, &device.limits)
    }

    /// The checks of this blob (buffer `buffer`): every logical element
    /// against `want(x, y, z, q)`, which gives the reference and its
    /// tolerance.
    fn expect(&self, buffer: usize, want: impl Fn(u32, u32, u32, u32) -> (f64, f64)) -> Expect {
        let [w, h, d, c] = whdc(&self.shape);
        let mut points = Vec::new();
        for q in 0..c {
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        let (v, tol) = want(x, y, z, q);
                        points.push((packed_index(&self.m, x, y, z, q), v, tol));
                    }
                }
            }
        }
        Expect { buffer, points }
    }
}

/// `[w, h, d, c]` of a logical shape.
fn whdc(shape: &[u32]) -> [u32; 4] {
    match *shape {
        [w] => [w, 1, 1, 1],
        [w, h] => [w, h, 1, 1],
        [w, h, c] => [w, h, 1, c],
        [w, h, d, c] => [w, h, d, c],
        _ => panic!("a blob has 1 to 4 dimensions"),
    }
}

/// A tensor of `shape` whose values `draw` gives, rounded to the mode's
/// storage.
fn tensor(
    shape: &[u32],
    mode: &Mode,
    rng: &mut Rng,
    mut draw: impl FnMut(&mut Rng) -> f32,
) -> Tensor {
    let n: u32 = shape.iter().product();
    Tensor {
        shape: shape.to_vec(),
        values: (0..n).map(|_| mode.round(draw(rng))).collect(),
    }
}

/// Uniform in `[lo, hi)` with `|x| >= min_abs`.
fn draw(rng: &mut Rng, lo: f32, hi: f32, min_abs: f32) -> f32 {
    loop {
        let v = rng.f32(lo, hi);
        if v.abs() >= min_abs {
            return v;
        }
    }
}

/// A tensor uniform in `[lo, hi)`, `|x| >= min_abs`, stored values kept
/// only where `keep` holds.
fn tensor_in(
    shape: &[u32],
    mode: &Mode,
    rng: &mut Rng,
    (lo, hi, min_abs): (f32, f32, f32),
    keep: impl Fn(f64) -> bool,
) -> Tensor {
    tensor(shape, mode, rng, |rng| loop {
        let v = mode.round(draw(rng, lo, hi, min_abs));
        if keep(f64::from(v)) {
            return v;
        }
    })
}

/// A dispatch of `shader` over ncnn's dispatcher shape `dispatcher`.
fn step(
    shader: &'static str,
    local_size: [u32; 3],
    spec: Vec<(u32, SpecValue)>,
    push: Vec<u32>,
    bind: &[usize],
    dispatcher: [u32; 3],
) -> Step {
    Step {
        shader,
        local_size,
        spec,
        push,
        bind: bind.iter().map(|&b| (b, None)).collect(),
        groups: group_counts(dispatcher, local_size),
    }
}

/// Specialization constants `0..` of `values`.
fn spec(values: impl IntoIterator<Item = SpecValue>) -> Vec<(u32, SpecValue)> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| (i as u32, v))
        .collect()
}

/// Int specialization values, or zeros where the shape is not known.
fn ints(values: &[i32], known: bool) -> impl Iterator<Item = SpecValue> + '_ {
    values
        .iter()
        .map(move |&v| SpecValue::Int(if known { v } else { 0 }))
}

/// Push-constant words of int members.
fn words(values: &[i32]) -> Vec<u32> {
    values.iter().map(|&v| v as u32).collect()
}

/// The local size of the flat shaders:
/// `set_optimal_local_size_xyz(subgroup_size, 1, 1)`.
fn flat_local(device: &Device) -> [u32; 3] {
    optimal_local_size([device.limits.subgroup_size, 1, 1], &device.limits)
}

/// The tolerance of a result `want` whose error bound is `err` units of the
/// arithmetic's epsilon.
fn tol(mode: &Mode, want: f64, err: f64) -> f64 {
    mode.tol(want, want.abs() + err / 8.0)
}

// ---------------------------------------------------------------------------
// Error bounds

/// A value and the bound of its absolute error, in units of the
/// arithmetic's epsilon (2^-23 in fp32, 2^-10 in fp16): a result `r`
/// within `k` ulps has `err = k * |r|`.
#[derive(Clone, Copy, Debug)]
struct E {
    /// The value.
    v: f64,
    /// Its error bound.
    e: f64,
}

impl E {
    /// An exact value (an input as stored).
    fn x(v: f64) -> E {
        E { v, e: 0.0 }
    }

    /// A constant of the shader, rounded to the arithmetic.
    fn c(v: f64) -> E {
        E { v, e: v.abs() }
    }

    /// `self + o`, correctly rounded.
    fn add(self, o: E) -> E {
        let v = self.v + o.v;
        E {
            v,
            e: self.e + o.e + v.abs(),
        }
    }

    /// `self - o`, correctly rounded.
    fn sub(self, o: E) -> E {
        let v = self.v - o.v;
        E {
            v,
            e: self.e + o.e + v.abs(),
        }
    }

    /// `self * o`, correctly rounded.
    fn mul(self, o: E) -> E {
        let v = self.v * o.v;
        E {
            v,
            e: self.e * o.v.abs() + o.e * self.v.abs() + v.abs(),
        }
    }

    /// `-self`, exact.
    fn neg(self) -> E {
        E {
            v: -self.v,
            e: self.e,
        }
    }

    /// `self / o`: 2.5 ulp (OpFDiv).
    fn div(self, o: E) -> E {
        let v = self.v / o.v;
        E {
            v,
            e: (self.e + v.abs() * o.e) / o.v.abs() + 2.5 * v.abs(),
        }
    }
}

/// The precision of the transcendental functions a mode's arithmetic is
/// held to.
///
/// The Vulkan spec ("Precision and Operation of SPIR-V Instructions"):
/// `exp`: (3 + 2|x|) ulp in fp32, (1 + 2|x|) in fp16; `log`: 3 ulp outside
/// [0.5, 2], inside an absolute 2^-21 (fp32) or 2^-7 (fp16); `inversesqrt`
/// 2 ulp; `sqrt` from `1 / inversesqrt`; `pow` from `exp2(y * log2(x))`;
/// `sin`, `cos`: absolute 2^-11 (fp32) or 2^-7 (fp16) on [-pi, pi]; `atan`,
/// `atan2`: 4096 ulp (fp32) or 5 ulp (fp16); `tan`, `sinh`, `cosh`, `tanh`,
/// `asin`, `acos`, `asinh`, `acosh`, `atanh` from their definitions in those.
///
/// `sin` and `cos` are held to more than the spec (see [`Prec::sin`]).
#[derive(Clone, Copy, Debug)]
struct Prec {
    /// fp16 arithmetic.
    fp16: bool,
}

impl Prec {
    /// The precision of the mode's `afp` arithmetic.
    fn of(mode: &Mode) -> Prec {
        Prec {
            fp16: mode.fp16_arithmetic(),
        }
    }

    /// One unit of the arithmetic's epsilon, as a power of two.
    fn eps(self) -> f64 {
        if self.fp16 {
            (2.0f64).powi(-10)
        } else {
            (2.0f64).powi(-23)
        }
    }

    /// An absolute error `a`, in units of the epsilon.
    fn abs(self, a: f64) -> f64 {
        a / self.eps()
    }

    /// `exp(a)`.
    fn exp(self, a: E) -> E {
        let v = a.v.exp();
        let ulp = if self.fp16 { 1.0 } else { 3.0 } + 2.0 * a.v.abs();
        E {
            v,
            e: ulp * v + v * a.e,
        }
    }

    /// `log(a)` (`a` > 0).
    fn log(self, a: E) -> E {
        let v = a.v.ln();
        let own = if (0.5..=2.0).contains(&a.v) {
            self.abs(if self.fp16 {
                (2.0f64).powi(-7)
            } else {
                (2.0f64).powi(-21)
            })
        } else {
            3.0 * v.abs()
        };
        E {
            v,
            e: own + a.e / a.v,
        }
    }

    /// `log2(a)` (`a` > 0).
    fn log2(self, a: E) -> E {
        let l = self.log(a);
        E {
            v: a.v.log2(),
            e: l.e / std::f64::consts::LN_2,
        }
    }

    /// `exp2(a)`.
    fn exp2(self, a: E) -> E {
        let v = a.v.exp2();
        let ulp = if self.fp16 { 1.0 } else { 3.0 } + 2.0 * a.v.abs();
        E {
            v,
            e: ulp * v + v * std::f64::consts::LN_2 * a.e,
        }
    }

    /// `pow(a, b)`, inherited from `exp2(b * log2(a))` (`a` > 0).
    fn pow(self, a: E, b: E) -> E {
        let r = self.exp2(b.mul(self.log2(a)));
        E {
            v: a.v.powf(b.v),
            e: r.e,
        }
    }

    /// `inversesqrt(a)`: 2 ulp.
    fn rsqrt(self, a: E) -> E {
        let v = 1.0 / a.v.sqrt();
        E {
            v,
            e: 2.0 * v + v * a.e / (2.0 * a.v),
        }
    }

    /// `sqrt(a)`, inherited from `1 / inversesqrt(a)`.
    fn sqrt(self, a: E) -> E {
        let r = E::x(1.0).div(self.rsqrt(a));
        E {
            v: a.v.sqrt(),
            e: r.e,
        }
    }

    /// `sin(a)` on [-pi, pi]. The spec allows an absolute 2^-11 (fp32,
    /// 4096 units) or 2^-7 (fp16); lavapipe is within a few ulps, so the
    /// bound is that of a correctly rounded `sin` of the argument rounded
    /// once: `|sin a| + |a cos a|`.
    fn sin(self, a: E) -> E {
        let (s, c) = (a.v.sin(), a.v.cos());
        E {
            v: s,
            e: s.abs() + (a.v * c).abs() + c.abs() * a.e,
        }
    }

    /// `cos(a)` on [-pi, pi], as [`Prec::sin`]: `|cos a| + |a sin a|`.
    fn cos(self, a: E) -> E {
        let (s, c) = (a.v.sin(), a.v.cos());
        E {
            v: c,
            e: c.abs() + (a.v * s).abs() + s.abs() * a.e,
        }
    }

    /// `atan2(y, x)`: 4096 ulp (fp32), 5 ulp (fp16). The spec's bound:
    /// lavapipe's `atan` is some hundred ulps off in fp32, its `asin` (from
    /// this) some thousand.
    fn atan2(self, y: E, x: E) -> E {
        let v = y.v.atan2(x.v);
        let ulp = if self.fp16 { 5.0 } else { 4096.0 };
        let r2 = x.v * x.v + y.v * y.v;
        E {
            v,
            e: ulp * v.abs() + (x.v.abs() * y.e + y.v.abs() * x.e) / r2,
        }
    }

    /// `tanh(a)`, inherited from `sinh(a) / cosh(a)`, those from `exp`.
    fn tanh(self, a: E) -> E {
        let (ep, em) = (self.exp(a), self.exp(a.neg()));
        let half = E::x(0.5);
        let t = ep.sub(em).mul(half).div(ep.add(em).mul(half));
        E {
            v: a.v.tanh(),
            e: t.e,
        }
    }
}

// ---------------------------------------------------------------------------
// The flat in-place activations

/// The shapes the flat activations run: 3-D pack4 specialized, 3-D pack1
/// pushed, 4-D pack4 pushed, and a 1-D pack1 blob whose length is no
/// multiple of four (its `cstep` padding is what completes the last vec4)
/// specialized.
const FLAT_SHAPES: [(&[u32], u32, bool); 4] = [
    (&[5, 7, 8], 4, true),
    (&[5, 7, 3], 1, false),
    (&[3, 5, 2, 4], 4, false),
    (&[13], 1, true),
];

/// One run of a flat in-place activation as its `*_vulkan.cpp` records it:
/// the shader over the blob as vec4s (`n = total * elempack / 4`), in
/// place, `params` then `n` specialized (`n` 0 where the shape is not
/// known), `n` pushed, local size `set_optimal_local_size_xyz(subgroup, 1,
/// 1)`, dispatcher `n, 1, 1`. `want(x)` gives the reference and its error
/// bound ([`E`]).
#[allow(clippy::too_many_arguments)]
fn flat_run(
    device: &Device,
    mode: &Mode,
    name: String,
    shader: &'static str,
    params: &[SpecValue],
    (shape, elempack, known): (&[u32], u32, bool),
    t: Tensor,
    want: impl Fn(f64) -> E,
) -> Run {
    let b = Blob::sfp(shape, elempack, mode);
    let n = b.vec4s();
    let local = flat_local(device);
    let mut sp: Vec<SpecValue> = params.to_vec();
    sp.push(SpecValue::Uint(if known { n } else { 0 }));
    let expect = b.expect(0, |x, y, z, q| {
        let r = want(f64::from(t.at(x, y, z, q)));
        (r.v, tol(mode, r.v, r.e))
    });
    Run {
        name: format!("{name} {shape:?} pack{elempack} spec {known}"),
        buffers: vec![Data::Floats(b.data(&t))],
        steps: vec![step(shader, local, spec(sp), vec![n], &[0], [n, 1, 1])],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Every shape of [`FLAT_SHAPES`] for one activation, inputs in `range`.
#[allow(clippy::too_many_arguments)]
fn flat_layer(
    device: &Device,
    mode: &Mode,
    rng: &mut Rng,
    name: &str,
    shader: &'static str,
    params: &[SpecValue],
    range: (f32, f32),
    want: impl Fn(f64) -> E + Copy,
) -> Vec<Run> {
    FLAT_SHAPES
        .iter()
        .map(|&(shape, elempack, known)| {
            let t = tensor(shape, mode, rng, |r| r.f32(range.0, range.1));
            flat_run(
                device,
                mode,
                name.to_string(),
                shader,
                params,
                (shape, elempack, known),
                t,
                want,
            )
        })
        .collect()
}

/// `sigmoid.comp`: `1 / (1 + exp(-x))`.
fn sigmoid(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let p = Prec::of(mode);
    flat_layer(
        device,
        mode,
        rng,
        "sigmoid",
        "sigmoid.comp",
        &[],
        (-8.0, 8.0),
        move |x| {
            let r = E::x(1.0).div(E::x(1.0).add(p.exp(E::x(-x))));
            E {
                v: 1.0 / (1.0 + (-x).exp()),
                e: r.e,
            }
        },
    )
}

/// `hardsigmoid.comp`: `clamp(x * alpha + beta, 0, 1)`, `alpha` and `beta`
/// specialized.
fn hardsigmoid(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (alpha, beta) in [(0.2f32, 0.5f32), (1.0 / 6.0, 0.5)] {
        let params = [SpecValue::Float(alpha), SpecValue::Float(beta)];
        let name = format!("hardsigmoid alpha {alpha} beta {beta}");
        runs.extend(flat_layer(
            device,
            mode,
            rng,
            &name,
            "hardsigmoid.comp",
            &params,
            (-6.0, 6.0),
            move |x| {
                let u = E::x(x)
                    .mul(E::c(f64::from(alpha)))
                    .add(E::c(f64::from(beta)));
                // clamp is 1-Lipschitz: the argument's error bounds the result's.
                E {
                    v: u.v.clamp(0.0, 1.0),
                    e: u.e,
                }
            },
        ));
    }
    runs
}

/// `clip.comp`: `clamp(x, min, max)`, both specialized.
fn clip(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (lo, hi) in [(-1.5f32, 2.25f32), (0.0, 6.0)] {
        // Bounds every arithmetic and storage holds exactly.
        let params = [SpecValue::Float(lo), SpecValue::Float(hi)];
        let (lo, hi) = (f64::from(lo), f64::from(hi));
        let name = format!("clip {lo}..{hi}");
        runs.extend(flat_layer(
            device,
            mode,
            rng,
            &name,
            "clip.comp",
            &params,
            (-8.0, 8.0),
            move |x| E::x(x.clamp(lo, hi)),
        ));
    }
    runs
}

/// `tanh.comp`: `tanh(x)`.
fn tanh(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let p = Prec::of(mode);
    flat_layer(
        device,
        mode,
        rng,
        "tanh",
        "tanh.comp",
        &[],
        (-5.0, 5.0),
        move |x| p.tanh(E::x(x)),
    )
}

/// `swish.comp`: `x / (1 + exp(-x))`.
fn swish(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let p = Prec::of(mode);
    flat_layer(
        device,
        mode,
        rng,
        "swish",
        "swish.comp",
        &[],
        (-8.0, 8.0),
        move |x| {
            let r = E::x(x).div(E::x(1.0).add(p.exp(E::x(-x))));
            E {
                v: x / (1.0 + (-x).exp()),
                e: r.e,
            }
        },
    )
}

/// `mish.comp`: `x * tanh(log(exp(x) + 1))`.
fn mish(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let p = Prec::of(mode);
    flat_layer(
        device,
        mode,
        rng,
        "mish",
        "mish.comp",
        &[],
        (-5.0, 5.0),
        move |x| {
            let softplus = p.log(p.exp(E::x(x)).add(E::x(1.0)));
            let r = E::x(x).mul(p.tanh(softplus));
            E {
                v: x * x.exp().ln_1p().tanh(),
                e: r.e,
            }
        },
    )
}

/// `gelu.comp`: the tanh form `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715
/// x^3)))`, which the shader computes whatever the layer's `fast_gelu`.
fn gelu(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let p = Prec::of(mode);
    flat_layer(
        device,
        mode,
        rng,
        "gelu",
        "gelu.comp",
        &[],
        (-5.0, 5.0),
        move |x| gelu_tanh(p, x),
    )
}

/// The tanh form of GELU at `x`, with the error bound of `gelu.comp`'s
/// expression.
fn gelu_tanh(p: Prec, x: f64) -> E {
    let k = (2.0 / std::f64::consts::PI).sqrt();
    let v = E::x(x);
    let cube = E::c(0.044715).mul(v).mul(v).mul(v);
    let inner = E::c(k).mul(v.add(cube));
    let r = E::x(0.5).mul(v).mul(E::x(1.0).add(p.tanh(inner)));
    let want = 0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh());
    E { v: want, e: r.e }
}

/// `erf(x)` in f64: `2 / sqrt(pi) * exp(-x^2) * sum 2^n x^(2n+1) / (1 * 3
/// * ... * (2n + 1))`, a series of positive terms (no cancellation).
fn erf(x: f64) -> f64 {
    let (mut term, mut sum, mut n) = (x, x, 0.0);
    while term.abs() > 1e-17 * sum.abs() {
        n += 1.0;
        term *= 2.0 * x * x / (2.0 * n + 1.0);
        sum += term;
    }
    2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp() * sum
}

/// GELU with `fast_gelu` 0, whose definition is `0.5 x (1 + erf(x /
/// sqrt(2)))`: `gelu_vulkan.cpp` runs `gelu.comp`, the tanh form, for it
/// too, up to about 5e-4 away.
fn gelu_erf(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let p = Prec::of(mode);
    flat_layer(
        device,
        mode,
        rng,
        "gelu_erf",
        "gelu.comp",
        &[],
        (-5.0, 5.0),
        move |x| {
            let shader = gelu_tanh(p, x);
            E {
                v: 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2)),
                e: shader.e,
            }
        },
    )
}

/// `elu.comp`: `x > 0 ? x : alpha * (exp(x) - 1)`, `alpha` specialized.
fn elu(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let p = Prec::of(mode);
    let mut runs = Vec::new();
    for alpha in [1.0f32, 0.3] {
        let a = f64::from(alpha);
        let name = format!("elu alpha {alpha}");
        runs.extend(flat_layer(
            device,
            mode,
            rng,
            &name,
            "elu.comp",
            &[SpecValue::Float(alpha)],
            (-5.0, 5.0),
            move |x| {
                if x > 0.0 {
                    E::x(x)
                } else {
                    let r = E::c(a).mul(p.exp(E::x(x)).sub(E::x(1.0)));
                    E {
                        v: a * x.exp_m1(),
                        e: r.e,
                    }
                }
            },
        ));
    }
    runs
}

/// `hardswish.comp`: `x * clamp(x * alpha + beta, 0, 1)`.
fn hardswish(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (alpha, beta) in [(1.0f32 / 6.0, 0.5f32), (0.2, 0.5)] {
        let params = [SpecValue::Float(alpha), SpecValue::Float(beta)];
        let name = format!("hardswish alpha {alpha} beta {beta}");
        runs.extend(flat_layer(
            device,
            mode,
            rng,
            &name,
            "hardswish.comp",
            &params,
            (-6.0, 6.0),
            move |x| {
                let u = E::x(x)
                    .mul(E::c(f64::from(alpha)))
                    .add(E::c(f64::from(beta)));
                E::x(x).mul(E {
                    v: u.v.clamp(0.0, 1.0),
                    e: u.e,
                })
            },
        ));
    }
    runs
}

// ---------------------------------------------------------------------------
// UnaryOp

/// Just inside pi (the f32 constant is above it): `sin` and `cos` are held
/// to precision on [-pi, pi] only.
const PI_INSIDE: f32 = std::f32::consts::PI * 0.999;

/// `unaryop.comp`'s operations: name, input range `(lo, hi, min |x|)`.
const UNARY_OPS: [(&str, (f32, f32, f32)); 28] = [
    ("abs", (-10.0, 10.0, 0.0)),
    ("neg", (-10.0, 10.0, 0.0)),
    ("floor", (-10.0, 10.0, 0.0)),
    ("ceil", (-10.0, 10.0, 0.0)),
    ("square", (-10.0, 10.0, 0.0)),
    ("sqrt", (0.01, 100.0, 0.0)),
    ("rsqrt", (0.01, 100.0, 0.0)),
    ("exp", (-8.0, 8.0, 0.0)),
    ("log", (0.01, 100.0, 0.0)),
    ("sin", (-PI_INSIDE, PI_INSIDE, 0.0)),
    ("cos", (-PI_INSIDE, PI_INSIDE, 0.0)),
    ("tan", (-1.2, 1.2, 0.0)),
    ("asin", (-0.95, 0.95, 0.0)),
    ("acos", (-0.95, 0.95, 0.0)),
    ("atan", (-10.0, 10.0, 0.0)),
    ("reciprocal", (-10.0, 10.0, 0.1)),
    ("tanh", (-5.0, 5.0, 0.0)),
    ("log10", (0.01, 100.0, 0.0)),
    ("round", (-10.0, 10.0, 0.0)),
    ("trunc", (-10.0, 10.0, 0.0)),
    ("sign", (-10.0, 10.0, 0.0)),
    ("expm1", (-3.0, 3.0, 0.0)),
    ("sinh", (-5.0, 5.0, 0.0)),
    ("asinh", (-5.0, 5.0, 0.0)),
    ("cosh", (-5.0, 5.0, 0.0)),
    ("acosh", (1.05, 10.0, 0.0)),
    ("atanh", (-0.9, 0.9, 0.0)),
    ("log1p", (-0.5, 5.0, 0.0)),
];

/// UnaryOp `op` of `x` as `unaryop.comp` computes it: the definition's
/// value and the error bound of the shader's expression.
fn unary_ref(p: Prec, op: usize, x: f64) -> E {
    let v = E::x(x);
    let one = E::x(1.0);
    let half = E::x(0.5);
    let with = |want: f64, e: E| E { v: want, e: e.e };
    match op {
        0 => E::x(x.abs()),
        1 => E::x(-x),
        2 => E::x(x.floor()),
        3 => E::x(x.ceil()),
        4 => v.mul(v),
        5 => p.sqrt(v),
        6 => p.rsqrt(v),
        7 => p.exp(v),
        8 => p.log(v),
        9 => p.sin(v),
        10 => p.cos(v),
        11 => with(x.tan(), p.sin(v).div(p.cos(v))),
        // asin from atan2(x, sqrt(1 - x * x)), acos from atan2(sqrt(1 - x * x), x)
        12 => with(x.asin(), p.atan2(v, p.sqrt(one.sub(v.mul(v))))),
        13 => with(x.acos(), p.atan2(p.sqrt(one.sub(v.mul(v))), v)),
        14 => p.atan2(v, one),
        15 => one.div(v),
        16 => p.tanh(v),
        17 => with(x.log10(), p.log(v).mul(E::c(std::f64::consts::LOG10_E))),
        18 => E::x(x.round()),
        19 => E::x(x.trunc()),
        20 => E::x(if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }),
        21 => with(x.exp_m1(), p.exp(v).sub(one)),
        22 => with(x.sinh(), p.exp(v).sub(p.exp(v.neg())).mul(half)),
        23 => with(x.asinh(), p.log(v.add(p.sqrt(v.mul(v).add(one))))),
        24 => with(x.cosh(), p.exp(v).add(p.exp(v.neg())).mul(half)),
        25 => with(
            x.acosh(),
            p.log(v.add(p.sqrt(v.sub(one)).mul(p.sqrt(v.add(one))))),
        ),
        26 => with(x.atanh(), p.log(one.add(v).div(one.sub(v))).mul(half)),
        27 => with(x.ln_1p(), p.log(v.add(one))),
        _ => unreachable!("unaryop {op}"),
    }
}

/// `unaryop_vulkan.cpp`: `unaryop.comp` in place over the blob as vec4s,
/// `op_type` and `n` specialized (`n` 0 where the shape is not known), `n`
/// pushed, local size `set_optimal_local_size_xyz(subgroup, 1, 1)`. Every
/// operation, each on one of [`FLAT_SHAPES`] in turn. `round` draws no
/// halves: GLSL leaves their direction to the implementation.
fn unaryop(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let p = Prec::of(mode);
    let mut runs = Vec::new();
    for (op, &(name, range)) in UNARY_OPS.iter().enumerate() {
        let (shape, elempack, known) = FLAT_SHAPES[op % FLAT_SHAPES.len()];
        let no_halves = |v: f64| op != 18 || (v - v.trunc()).abs() != 0.5;
        let t = tensor_in(shape, mode, rng, range, no_halves);
        let params = [SpecValue::Int(op as i32)];
        runs.push(flat_run(
            device,
            mode,
            format!("unaryop {name}"),
            "unaryop.comp",
            &params,
            (shape, elempack, known),
            t,
            move |x| unary_ref(p, op, x),
        ));
    }
    runs
}

// ---------------------------------------------------------------------------
// BinaryOp

/// BinaryOp's operations `0..=18` as the shaders number them.
const BINARY_OPS: [&str; 19] = [
    "add",
    "sub",
    "mul",
    "div",
    "max",
    "min",
    "pow",
    "rsub",
    "rdiv",
    "rpow",
    "atan2",
    "ratan2",
    "fmod",
    "rfmod",
    "logaddexp",
    "floordiv",
    "rfloordiv",
    "remainder",
    "rremainder",
];

/// The operation with its operands swapped (`get_reverse_op_type`).
fn reverse_op(op: i32) -> i32 {
    match op {
        1 => 7,
        7 => 1,
        3 => 8,
        8 => 3,
        6 => 9,
        9 => 6,
        10 => 11,
        11 => 10,
        12 => 13,
        13 => 12,
        15 => 16,
        16 => 15,
        17 => 18,
        18 => 17,
        o => o,
    }
}

/// Input ranges `(lo, hi, min |x|)` of `a` and `b` for operation `op`.
fn binary_ranges(op: i32) -> ((f32, f32, f32), (f32, f32, f32)) {
    let any = (-10.0, 10.0, 0.0);
    let nonzero = (-10.0, 10.0, 0.5);
    let base = (0.5, 4.0, 0.0);
    let exponent = (-3.0, 3.0, 0.0);
    let angle = (-10.0, 10.0, 0.1);
    let divisor = (-4.0, 4.0, 1.0);
    match op {
        3 => (any, nonzero),
        8 => (nonzero, any),
        6 => (base, exponent),
        9 => (exponent, base),
        10 | 11 => (angle, angle),
        12 | 15 | 17 => (any, divisor),
        13 | 16 | 18 => (divisor, any),
        _ => (any, any),
    }
}

/// Whether `a op b` is away from the operation's jumps: `trunc`, `floor`
/// and `roundEven` of the quotient change value at integers (halves for
/// `roundEven`), where the quotient's rounding decides the result.
fn binary_pair_ok(op: i32, a: f64, b: f64) -> bool {
    let q = match op {
        12 | 15 | 17 => a / b,
        13 | 16 | 18 => b / a,
        _ => return true,
    };
    let jump = if op >= 17 { q.floor() + 0.5 } else { q.round() };
    (q - jump).abs() >= 0.05
}

/// `op(a, b)` as the binary shaders compute it: the definition's value and
/// the error bound of the shader's expression.
fn binary_ref(p: Prec, op: i32, a: f64, b: f64) -> E {
    let (va, vb) = (E::x(a), E::x(b));
    let with = |want: f64, e: E| E { v: want, e: e.e };
    // `x - f(x / y) * y` with `f(x / y)` exact (away from its jumps).
    let rem = |x: E, y: E, f: fn(f64) -> f64| {
        let k = f(x.v / y.v);
        x.sub(E::x(k).mul(y))
    };
    match op {
        0 => va.add(vb),
        1 => va.sub(vb),
        2 => va.mul(vb),
        3 => va.div(vb),
        4 => E::x(a.max(b)),
        5 => E::x(a.min(b)),
        6 => p.pow(va, vb),
        7 => vb.sub(va),
        8 => vb.div(va),
        9 => p.pow(vb, va),
        10 => p.atan2(va, vb),
        11 => p.atan2(vb, va),
        12 => rem(va, vb, f64::trunc),
        13 => rem(vb, va, f64::trunc),
        14 => {
            let (hi, lo) = (a.max(b), a.min(b));
            let r = E::x(hi).add(p.log(E::x(1.0).add(p.exp(E::x(lo).sub(E::x(hi))))));
            with(hi + (lo - hi).exp().ln_1p(), r)
        }
        15 => E::x((a / b).floor()),
        16 => E::x((b / a).floor()),
        17 => rem(va, vb, f64::round_ties_even),
        18 => rem(vb, va, f64::round_ties_even),
        _ => unreachable!("binaryop {op}"),
    }
}

/// The shapes BinaryOp's same-shape runs cycle through: shape, elempack,
/// specialized.
const BINARY_SHAPES: [(&[u32], u32, bool); 6] = [
    (&[5, 7, 8], 4, true),
    (&[5, 7, 3], 1, false),
    (&[3, 5, 2, 4], 4, true),
    (&[13], 1, false),
    (&[6, 12], 4, false),
    (&[7, 5], 1, true),
];

/// `binaryop_vulkan.cpp`'s `forward` for two blobs of one shape and
/// packing: `binaryop.comp` or `binaryop_pack4.comp`, `op_type`,
/// `with_scalar` 0 and the three shapes (dims, w, h * d, c, cstep)
/// specialized where known, the shapes pushed, local size from the output
/// shape, dispatcher the output.
fn binary_same(
    device: &Device,
    mode: &Mode,
    rng: &mut Rng,
    op: i32,
    (shape, elempack, known): (&[u32], u32, bool),
) -> Run {
    let (ra, rb) = binary_ranges(op);
    let n: u32 = shape.iter().product();
    let (mut av, mut bv) = (Vec::new(), Vec::new());
    while av.len() < n as usize {
        let a = mode.round(draw(rng, ra.0, ra.1, ra.2));
        let b = mode.round(draw(rng, rb.0, rb.1, rb.2));
        if binary_pair_ok(op, f64::from(a), f64::from(b)) {
            av.push(a);
            bv.push(b);
        }
    }
    let ta = Tensor {
        shape: shape.to_vec(),
        values: av,
    };
    let tb = Tensor {
        shape: shape.to_vec(),
        values: bv,
    };
    let blob = Blob::sfp(shape, elempack, mode);
    let s = blob.shape5();
    let shapes: Vec<i32> = [s, s, s].concat();
    let mut sp = vec![SpecValue::Int(op), SpecValue::Int(0), SpecValue::Float(0.0)];
    sp.extend(ints(&shapes, known));
    let shader = if elempack == 4 {
        "binaryop_pack4.comp"
    } else {
        "binaryop.comp"
    };
    let local = blob.shape_local(device, known);
    let p = Prec::of(mode);
    let expect = blob.expect(2, |x, y, z, q| {
        let r = binary_ref(
            p,
            op,
            f64::from(ta.at(x, y, z, q)),
            f64::from(tb.at(x, y, z, q)),
        );
        (r.v, tol(mode, r.v, r.e))
    });
    Run {
        name: format!(
            "binaryop {} {shape:?} pack{elempack} spec {known}",
            BINARY_OPS[op as usize]
        ),
        buffers: vec![
            Data::Floats(blob.data(&ta)),
            Data::Floats(blob.data(&tb)),
            Data::Poison(blob.bytes()),
        ],
        steps: vec![step(
            shader,
            local,
            spec(sp),
            words(&shapes),
            &[0, 1, 2],
            blob.dispatcher(),
        )],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// `binaryop_vulkan.cpp`'s `forward_inplace` (`with_scalar`): the same-shape
/// shader with `with_scalar` 1 and `b` specialized, the blob bound to all
/// three bindings, only the output shape pushed (the rest 0).
fn binary_scalar(
    device: &Device,
    mode: &Mode,
    rng: &mut Rng,
    op: i32,
    b: f32,
    (shape, elempack, known): (&[u32], u32, bool),
) -> Run {
    let (ra, _) = binary_ranges(op);
    let ta = tensor(shape, mode, rng, |r| draw(r, ra.0, ra.1, ra.2));
    let blob = Blob::sfp(shape, elempack, mode);
    let s = blob.shape5();
    let shapes: Vec<i32> = [s, s, s].concat();
    let mut sp = vec![SpecValue::Int(op), SpecValue::Int(1), SpecValue::Float(b)];
    sp.extend(ints(&shapes, known));
    let mut push = vec![0i32; 10];
    push.extend(s);
    let shader = if elempack == 4 {
        "binaryop_pack4.comp"
    } else {
        "binaryop.comp"
    };
    let local = blob.shape_local(device, known);
    let p = Prec::of(mode);
    let bb = if mode.fp16_arithmetic() {
        f64::from(FloatStorage::F16.round(b))
    } else {
        f64::from(b)
    };
    let expect = blob.expect(0, |x, y, z, q| {
        let r = binary_ref(p, op, f64::from(ta.at(x, y, z, q)), bb);
        (r.v, tol(mode, r.v, r.e))
    });
    Run {
        name: format!(
            "binaryop {} scalar {shape:?} pack{elempack} spec {known} b {b}",
            BINARY_OPS[op as usize]
        ),
        buffers: vec![Data::Floats(blob.data(&ta))],
        steps: vec![step(
            shader,
            local,
            spec(sp),
            words(&push),
            &[0, 0, 0],
            blob.dispatcher(),
        )],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// The coordinates of an output element of `dims` dimensions, innermost
/// first.
fn coords(dims: usize, x: u32, y: u32, z: u32, q: u32) -> Vec<u32> {
    match dims {
        1 => vec![x],
        2 => vec![x, y],
        3 => vec![x, y, q],
        _ => vec![x, y, z, q],
    }
}

/// The element of `t` an output element at `out` (its coordinates) reads
/// under ncnn's broadcasting: a lower-rank operand lines its axes up with
/// the output's outermost ones, a one-dimensional operand whose length is
/// not the output's outermost extent lines up with `w` (`inner`), and an
/// extent of 1 repeats.
fn broadcast_at(t: &Tensor, out: &[u32], inner: bool) -> f32 {
    let k = t.shape.len();
    let own: Vec<u32> = if inner {
        vec![out[0]]
    } else {
        out[out.len() - k..].to_vec()
    };
    let c: Vec<u32> = own
        .iter()
        .zip(&t.shape)
        .map(|(&i, &n)| i.min(n - 1))
        .collect();
    match *c.as_slice() {
        [x] => t.at(x, 0, 0, 0),
        [x, y] => t.at(x, y, 0, 0),
        [x, y, q] => t.at(x, y, 0, q),
        [x, y, z, q] => t.at(x, y, z, q),
        _ => unreachable!(),
    }
}

/// A broadcasting BinaryOp configuration: operation, `A` shape and
/// packing, `B` shape and packing, specialized.
type Broadcast = (i32, &'static [u32], u32, &'static [u32], u32, bool);

/// The broadcast configurations: explicit broadcasting in one to four
/// dimensions (`binaryop_broadcast.comp`, `_pack4`, `_pack1to4`), the
/// implicit ones (a lower-rank `B`: ncnn's types 8 to 13), a lower-rank
/// `A` (swapped, the reversed operation's pipeline), and a one-dimensional
/// `B` that lines up with `w` (read as pack1).
const BROADCASTS: [Broadcast; 15] = [
    (1, &[5, 3, 8], 4, &[1, 3, 8], 4, true),
    (3, &[4, 5, 3], 1, &[4, 1, 3], 1, false),
    (2, &[6, 2, 8], 4, &[6, 2, 1], 1, true),
    (6, &[6, 2, 8], 4, &[1, 2, 1], 1, false),
    (1, &[8], 4, &[3, 4, 8], 4, true),
    (8, &[6], 1, &[4, 2, 6], 1, false),
    (1, &[6, 2, 1], 1, &[6, 2, 8], 4, true),
    (0, &[5, 8], 4, &[8], 4, false),
    (4, &[4, 6, 8], 4, &[6, 8], 4, true),
    (1, &[3, 2, 2, 8], 4, &[2, 2, 8], 4, false),
    (7, &[3, 2, 2, 8], 4, &[2, 8], 4, true),
    (2, &[3, 2, 2, 8], 4, &[8], 4, false),
    (5, &[4, 3, 8], 4, &[4], 4, true),
    (0, &[3, 2, 2, 3], 1, &[1, 2, 1, 3], 1, true),
    (3, &[7], 1, &[1], 1, false),
];

/// `binaryop_vulkan.cpp`'s `forward` for blobs of different shapes, as it
/// picks the operand order, the reversed operation, the conversion of a
/// one-dimensional `B` and the shader; specialized as `create_pipeline`
/// does from the same shapes (the converted `B`'s `cstep` stays the
/// unconverted one there, which the shader never reads for it).
fn binary_broadcast(
    device: &Device,
    mode: &Mode,
    rng: &mut Rng,
    (op, ashape, apack, bshape, bpack, known): Broadcast,
) -> Run {
    let (ra, rb) = binary_ranges(op);
    let ta = tensor(ashape, mode, rng, |r| draw(r, ra.0, ra.1, ra.2));
    let tb = tensor(bshape, mode, rng, |r| draw(r, rb.0, rb.1, rb.2));
    let a = Blob::sfp(ashape, apack, mode);
    let b = Blob::sfp(bshape, bpack, mode);
    // The output: like the higher-rank operand, else the larger extents.
    let out_shape: Vec<u32> = if ashape.len() != bshape.len() {
        if ashape.len() > bshape.len() {
            ashape.to_vec()
        } else {
            bshape.to_vec()
        }
    } else {
        ashape.iter().zip(bshape).map(|(&x, &y)| x.max(y)).collect()
    };
    let out_pack = match ashape.len().cmp(&bshape.len()) {
        std::cmp::Ordering::Greater => apack,
        std::cmp::Ordering::Less => bpack,
        std::cmp::Ordering::Equal => apack.max(bpack),
    };
    let out = Blob::sfp(&out_shape, out_pack, mode);
    let size = |m: &Blob| m.m.w * m.m.h * m.m.d * m.m.c * m.m.elempack;
    let swap = a.m.dims < b.m.dims
        || (a.m.dims == b.m.dims && a.m.elempack < b.m.elempack)
        || (a.m.elempack == b.m.elempack && size(&a) < size(&b));
    let (x, y, xi, yi) = if swap { (&b, &a, 1, 0) } else { (&a, &b, 0, 1) };
    let shader_op = if swap { reverse_op(op) } else { op };
    let outer = match x.m.dims {
        2 => x.m.h * x.m.elempack,
        3 | 4 => x.m.c * x.m.elempack,
        _ => 0,
    };
    let convert = y.m.dims == 1 && x.m.dims >= 2 && y.m.w * y.m.elempack != outer;
    let buffers = vec![
        Data::Floats(a.data(&ta)),
        Data::Floats(b.data(&tb)),
        Data::Poison(out.bytes()),
    ];
    // The operand bound second, as the shader sees it. A converted one is
    // `convert_packing` to pack1 of a one-dimensional blob with its own cast:
    // no dispatch, the same buffer read as `w * elempack` scalars (`cstep`
    // too), its dims set to the output's.
    let (mut y2, mut y2_spec) = (y.shape6(), y.shape6());
    if convert {
        let w = (y.m.w * y.m.elempack) as i32;
        let dims = out.m.dims as i32;
        y2 = [dims, w, 1, 1, 1, (y.cstep() * y.m.elempack) as i32];
        y2_spec = [dims, w, 1, 1, 1, y.cstep() as i32];
    }
    let y2_pack = if convert { 1 } else { y.m.elempack };
    let shader = match (y2_pack, out.m.elempack) {
        (1, 1) => "binaryop_broadcast.comp",
        (4, 4) => "binaryop_broadcast_pack4.comp",
        _ => "binaryop_broadcast_pack1to4.comp",
    };
    let push: Vec<i32> = [x.shape6(), y2, out.shape6()].concat();
    let spec_shapes: Vec<i32> = [x.shape6(), y2_spec, out.shape6()].concat();
    let mut sp = vec![SpecValue::Int(shader_op)];
    sp.extend(ints(&spec_shapes, known));
    let local = out.shape_local(device, known);
    let steps = vec![step(
        shader,
        local,
        spec(sp),
        words(&push),
        &[xi, yi, 2],
        out.dispatcher(),
    )];
    let p = Prec::of(mode);
    let dims = out_shape.len();
    let expect = out.expect(2, |x_, y_, z_, q_| {
        let c = coords(dims, x_, y_, z_, q_);
        let inner_a = convert && swap;
        let inner_b = convert && !swap;
        let va = broadcast_at(&ta, &c, inner_a);
        let vb = broadcast_at(&tb, &c, inner_b);
        let r = binary_ref(p, op, f64::from(va), f64::from(vb));
        (r.v, tol(mode, r.v, r.e))
    });
    Run {
        name: format!(
            "binaryop {} broadcast A {ashape:?} pack{apack} B {bshape:?} pack{bpack} spec {known}",
            BINARY_OPS[op as usize]
        ),
        buffers,
        steps,
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// BinaryOp: every operation on same-shape blobs (shapes cycling through
/// [`BINARY_SHAPES`]), the scalar form for eight operations, and every
/// [`BROADCASTS`] configuration.
fn binaryop(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for op in 0..BINARY_OPS.len() as i32 {
        let cfg = BINARY_SHAPES[op as usize % BINARY_SHAPES.len()];
        runs.push(binary_same(device, mode, rng, op, cfg));
    }
    for (i, (op, b)) in [
        (0, 1.5f32),
        (1, -0.75),
        (2, 3.0),
        (3, 0.3),
        (4, 0.25),
        (6, 1.5),
        (7, 2.0),
        (8, -2.5),
    ]
    .into_iter()
    .enumerate()
    {
        let cfg = BINARY_SHAPES[i % BINARY_SHAPES.len()];
        runs.push(binary_scalar(device, mode, rng, op, b, cfg));
    }
    for cfg in BROADCASTS {
        runs.push(binary_broadcast(device, mode, rng, cfg));
    }
    runs
}

// ---------------------------------------------------------------------------
// Eltwise

/// An Eltwise configuration: `op_type` (0 prod, 1 sum, 2 max), the
/// coefficients (empty: none), the inputs, shape, elempack, specialized.
type EltwiseCase = (i32, &'static [f32], usize, &'static [u32], u32, bool);

/// The Eltwise configurations.
const ELTWISES: [EltwiseCase; 7] = [
    (1, &[0.5, -1.5], 2, &[5, 7, 8], 4, true),
    (1, &[], 3, &[5, 7, 3], 1, false),
    (0, &[], 2, &[13], 1, true),
    (0, &[], 3, &[3, 5, 2, 4], 4, false),
    (2, &[], 3, &[6, 12], 4, true),
    (1, &[0.5, 2.0, -0.75], 3, &[5, 7, 8], 1, false),
    (2, &[2.0, 3.0], 2, &[5, 7, 8], 4, false),
];

/// `eltwise_vulkan.cpp`: `eltwise.comp` over the blobs as vec4s, `op_type`,
/// `coeff_term` and `n` specialized, `n` and two coefficients pushed; the
/// first two inputs into the output, then each further input into the
/// output in place (coefficients 1 and its own), on alternating pipelines.
fn eltwise(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (op, coeffs, inputs, shape, elempack, known) in ELTWISES {
        let blob = Blob::sfp(shape, elempack, mode);
        let n = blob.vec4s();
        let ts: Vec<Tensor> = (0..inputs)
            .map(|_| tensor(shape, mode, rng, |r| r.f32(-4.0, 4.0)))
            .collect();
        let coeff = |i: usize| coeffs.get(i).copied().unwrap_or(1.0);
        let sp = spec([
            SpecValue::Int(op),
            SpecValue::Int(i32::from(!coeffs.is_empty())),
            SpecValue::Uint(if known { n } else { 0 }),
        ]);
        let local = flat_local(device);
        let out = inputs;
        let mut buffers: Vec<Data> = ts.iter().map(|t| Data::Floats(blob.data(t))).collect();
        buffers.push(Data::Poison(blob.bytes()));
        let mut steps = vec![step(
            "eltwise.comp",
            local,
            sp.clone(),
            vec![n, coeff(0).to_bits(), coeff(1).to_bits()],
            &[0, 1, out],
            [n, 1, 1],
        )];
        for b in 2..inputs {
            steps.push(step(
                "eltwise.comp",
                local,
                sp.clone(),
                vec![n, 1.0f32.to_bits(), coeff(b).to_bits()],
                &[out, b, out],
                [n, 1, 1],
            ));
        }
        // Coefficients as the arithmetic holds them (`afp(p.coeff0)`).
        let arith = |c: f32| {
            if mode.fp16_arithmetic() {
                FloatStorage::F16.round(c)
            } else {
                c
            }
        };
        let storage_units = mode.storage_eps() / mode.arith_eps();
        let expect = blob.expect(out, |x, y, z, q| {
            let v = |i: usize| E::x(f64::from(ts[i].at(x, y, z, q)));
            let apply = |acc: E, i: usize, c0: f32| -> E {
                match op {
                    0 => acc.mul(v(i)),
                    1 if coeffs.is_empty() => acc.add(v(i)),
                    1 => acc
                        .mul(E::x(f64::from(arith(c0))))
                        .add(v(i).mul(E::x(f64::from(arith(coeff(i)))))),
                    _ if v(i).v > acc.v => v(i),
                    _ => acc,
                }
            };
            let mut acc = apply(v(0), 1, coeff(0));
            for i in 2..inputs {
                // The output is stored, rounded to the storage, and read back.
                acc.e += storage_units * acc.v.abs();
                acc = apply(acc, i, 1.0);
            }
            (acc.v, tol(mode, acc.v, acc.e))
        });
        runs.push(Run {
            name: format!("eltwise op {op} coeffs {coeffs:?} inputs {inputs} {shape:?} pack{elempack} spec {known}"),
            buffers,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------
// PReLU

/// A PReLU configuration: slopes, shape, elempack, specialized.
type PreluCase = (u32, &'static [u32], u32, bool);

/// The PReLU configurations: per-channel slopes in 3-D (pack4, pack1) and
/// 4-D, per-element in 1-D, per-row in 2-D, and a single slope (pack4,
/// pack1).
const PRELUS: [PreluCase; 7] = [
    (8, &[5, 7, 8], 4, true),
    (3, &[5, 7, 3], 1, false),
    (8, &[3, 5, 2, 8], 4, true),
    (12, &[12], 4, true),
    (8, &[5, 8], 4, false),
    (1, &[5, 7, 8], 4, true),
    (1, &[13], 1, false),
];

/// `prelu_vulkan.cpp`: `prelu.comp` / `prelu_pack4.comp` in place,
/// `num_slope`, the single slope and the shape (dims at most 3, `h * d`)
/// specialized where known, the shape pushed; the slopes uploaded as a
/// blob (packed by 4 when their count is a multiple of 4), none (ncnn's
/// dummy buffer) for a single slope; local size from the shape, else
/// `4, 4, min(4, num_slope / elempack)`.
fn prelu(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (num_slope, shape, elempack, known) in PRELUS {
        let t = tensor(shape, mode, rng, |r| r.f32(-6.0, 6.0));
        let slopes = tensor(&[num_slope], mode, rng, |r| r.f32(-1.0, 1.0));
        let blob = Blob::sfp(shape, elempack, mode);
        let s = blob.shape5();
        let shape_spec = [s[0].min(3), s[1], s[2], s[3], s[4]];
        let single = num_slope == 1;
        let mut sp = vec![
            SpecValue::Int(num_slope as i32),
            SpecValue::Float(if single { slopes.values[0] } else { 1.0 }),
        ];
        sp.extend(ints(&shape_spec, known));
        let local = if known {
            blob.shape_local(device, true)
        } else {
            let pack = if num_slope % 4 == 0 { 4 } else { 1 };
            optimal_local_size([4, 4, (num_slope / pack).min(4)], &device.limits)
        };
        let slope_buffer = if single {
            Data::Words(vec![0; 4])
        } else {
            let sb = Blob::sfp(&[num_slope], if num_slope % 4 == 0 { 4 } else { 1 }, mode);
            Data::Floats(sb.data(&slopes))
        };
        let shader = if elempack == 4 {
            "prelu_pack4.comp"
        } else {
            "prelu.comp"
        };
        let slope_value = if single && mode.fp16_arithmetic() {
            FloatStorage::F16.round(slopes.values[0])
        } else {
            slopes.values[0]
        };
        let dims = shape.len();
        let expect = blob.expect(0, |x, y, z, q| {
            let v = f64::from(t.at(x, y, z, q));
            let slope = if single {
                f64::from(slope_value)
            } else {
                f64::from(
                    slopes.values[match dims {
                        1 => x,
                        2 => y,
                        _ => q,
                    } as usize],
                )
            };
            let r = if v < 0.0 { v * slope } else { v };
            (r, tol(mode, r, 0.0))
        });
        runs.push(Run {
            name: format!("prelu slopes {num_slope} {shape:?} pack{elempack} spec {known}"),
            buffers: vec![Data::Floats(blob.data(&t)), slope_buffer],
            steps: vec![step(
                shader,
                local,
                spec(sp),
                words(&shape_spec),
                &[0, 1],
                blob.dispatcher(),
            )],
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------
// Cast

/// A Cast configuration: from fp32 (else to fp32), shape, elempack,
/// specialized.
type CastCase = (bool, &'static [u32], u32, bool);

/// The Cast configurations.
const CASTS: [CastCase; 6] = [
    (true, &[5, 7, 8], 4, true),
    (true, &[5, 7, 3], 1, false),
    (false, &[5, 7, 8], 4, false),
    (false, &[13], 1, true),
    (true, &[3, 5, 2, 4], 4, true),
    (false, &[6, 12], 4, true),
];

/// `cast_vulkan.cpp` for fp32 -> fp16 (`type_from` 1, `type_to` 2) and back:
/// `cast_fp32_to_fp16[_pack4].comp`, `cast_fp16_to_fp32[_pack4].comp`; the
/// fp32 side is always fp32 words, the other side the mode's storage (as
/// in ncnn, fp32 where the options have no fp16 storage); both shapes
/// specialized where known and pushed; local size from the output shape.
fn cast(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (from_fp32, shape, elempack, known) in CASTS {
        let wide = Blob::fp32(shape, elempack);
        let narrow = Blob::sfp(shape, elempack, mode);
        let (src, dst) = if from_fp32 {
            (&wide, &narrow)
        } else {
            (&narrow, &wide)
        };
        // fp32 inputs keep every bit; the others are what the storage holds.
        let t = if from_fp32 {
            Tensor {
                shape: shape.to_vec(),
                values: (0..shape.iter().product::<u32>())
                    .map(|_| draw(rng, -100.0, 100.0, 0.01))
                    .collect(),
            }
        } else {
            tensor(shape, mode, rng, |r| r.f32(-100.0, 100.0))
        };
        let shapes: Vec<i32> = [src.shape5(), dst.shape5()].concat();
        let sp = spec(ints(&shapes, known));
        let shader = match (from_fp32, elempack) {
            (true, 4) => "cast_fp32_to_fp16_pack4.comp",
            (true, _) => "cast_fp32_to_fp16.comp",
            (false, 4) => "cast_fp16_to_fp32_pack4.comp",
            (false, _) => "cast_fp16_to_fp32.comp",
        };
        let local = dst.shape_local(device, known);
        let buffers = if from_fp32 {
            vec![Data::Words(wide.words(&t)), Data::Poison(narrow.bytes())]
        } else {
            vec![
                Data::Floats(narrow.data(&t)),
                Data::Words(wide.poison_words()),
            ]
        };
        let expect = dst.expect(1, |x, y, z, q| {
            let v = f64::from(t.at(x, y, z, q));
            (v, tol(mode, v, 0.0))
        });
        runs.push(Run {
            name: format!("cast from_fp32 {from_fp32} {shape:?} pack{elempack} spec {known}"),
            buffers,
            steps: vec![step(
                shader,
                local,
                sp,
                words(&shapes),
                &[0, 1],
                dst.dispatcher(),
            )],
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------
// Packing

/// Which of Packing's shaders a conversion runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PackingPath {
    /// `packing.comp`: the packing kept.
    Same,
    /// `packing_pack1to4.comp`.
    Pack1To4,
    /// `packing_pack4to1.comp`.
    Pack4To1,
}

/// ncnn's cast type of the mode's storage: 1 fp32, 2 fp16, 5 bf16.
fn storage_cast_type(mode: &Mode) -> i32 {
    match mode.storage() {
        FloatStorage::F32 => 1,
        FloatStorage::F16 => 2,
        FloatStorage::Bf16 => 5,
    }
}

/// One `packing_vulkan.cpp` dispatch from `src` (buffer 0) to `dst`
/// (buffer 1), as ncnn's `convert_packing` runs it: no shape known at
/// `create_pipeline` (everything pushed), the cast types `from` and `to`
/// specialized; both blobs bound twice (as `sfp` and as fp32), local size
/// `set_optimal_local_size_xyz(subgroup, 1, 1)`, dispatcher `n, c, 1`.
fn packing_step(
    device: &Device,
    path: PackingPath,
    (src, dst): (&Blob, &Blob),
    (from, to): (i32, i32),
) -> Step {
    let dims = src.m.dims;
    let (n, c, stride, shader) = match path {
        PackingPath::Same => {
            let (n, c, stride) = if from == 1 {
                (
                    src.cstep() * src.m.elempack,
                    if dims >= 3 { src.m.c } else { 1 },
                    dst.cstep() * dst.m.elempack,
                )
            } else {
                (
                    dst.cstep() * dst.m.elempack,
                    if dims >= 3 { dst.m.c } else { 1 },
                    src.cstep() * src.m.elempack,
                )
            };
            (n / 4, c, stride / 4, "packing.comp")
        }
        PackingPath::Pack1To4 => {
            let (n, c, stride) = match dims {
                1 => (1, dst.m.w, 1),
                2 => (dst.m.w, dst.m.h, src.m.w),
                _ => (dst.cstep(), dst.m.c, src.cstep()),
            };
            (n, c, stride, "packing_pack1to4.comp")
        }
        PackingPath::Pack4To1 => {
            let (n, c, stride) = match dims {
                1 => (1, src.m.w, 1),
                2 => (src.m.w, src.m.h, dst.m.w),
                _ => (src.cstep(), src.m.c, dst.cstep()),
            };
            (n, c, stride, "packing_pack4to1.comp")
        }
    };
    let sp = spec([
        SpecValue::Int(from),
        SpecValue::Int(to),
        SpecValue::Uint(0),
        SpecValue::Uint(0),
        SpecValue::Uint(0),
    ]);
    step(
        shader,
        flat_local(device),
        sp,
        vec![n, c, stride],
        &[0, 0, 1, 1],
        [n, c, 1],
    )
}

/// A Packing configuration: path, shape, source elempack, cast (`0` the
/// storage to itself, `1` fp32 to the storage, `2` the storage to fp32).
type PackingCase = (PackingPath, &'static [u32], u32, u8);

/// The Packing configurations.
const PACKINGS: [PackingCase; 12] = [
    (PackingPath::Pack1To4, &[5, 3, 8], 1, 0),
    (PackingPath::Pack4To1, &[5, 8], 4, 0),
    (PackingPath::Pack1To4, &[12], 1, 0),
    (PackingPath::Pack4To1, &[3, 2, 2, 8], 4, 0),
    (PackingPath::Same, &[5, 3, 8], 4, 0),
    (PackingPath::Same, &[5, 3, 8], 4, 1),
    (PackingPath::Same, &[13], 1, 2),
    (PackingPath::Same, &[7, 5], 1, 1),
    (PackingPath::Pack1To4, &[5, 3, 8], 1, 1),
    (PackingPath::Pack4To1, &[4, 3, 8], 4, 2),
    (PackingPath::Pack1To4, &[7, 8], 1, 2),
    (PackingPath::Pack4To1, &[8], 4, 1),
];

/// `packing_vulkan.cpp` as `convert_packing` uses it: each path, with the
/// storage's own cast and (in the fp16 and bf16 storages) the casts from and
/// to fp32.
fn packing(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    let s = storage_cast_type(mode);
    for (path, shape, src_pack, cast) in PACKINGS {
        if cast != 0 && s == 1 {
            continue;
        }
        let dst_pack = match path {
            PackingPath::Same => src_pack,
            PackingPath::Pack1To4 => 4,
            PackingPath::Pack4To1 => 1,
        };
        let (from, to) = match cast {
            0 => (s, s),
            1 => (1, s),
            _ => (s, 1),
        };
        let blob = |pack: u32, t: i32| {
            if t == 1 {
                Blob::fp32(shape, pack)
            } else {
                Blob::sfp(shape, pack, mode)
            }
        };
        let src = blob(src_pack, from);
        let dst = blob(dst_pack, to);
        let t = if from == 1 && s != 1 {
            Tensor {
                shape: shape.to_vec(),
                values: (0..shape.iter().product::<u32>())
                    .map(|_| draw(rng, -100.0, 100.0, 0.01))
                    .collect(),
            }
        } else {
            tensor(shape, mode, rng, |r| r.f32(-100.0, 100.0))
        };
        let input = if from == 1 {
            Data::Words(src.words(&t))
        } else {
            Data::Floats(src.data(&t))
        };
        let output = if to == 1 {
            Data::Words(dst.poison_words())
        } else {
            Data::Poison(dst.bytes())
        };
        let st = packing_step(device, path, (&src, &dst), (from, to));
        let expect = dst.expect(1, |x, y, z, q| {
            let v = f64::from(t.at(x, y, z, q));
            (v, tol(mode, v, 0.0))
        });
        runs.push(Run {
            name: format!("packing {path:?} {shape:?} pack{src_pack} cast {from}->{to}"),
            buffers: vec![input, output],
            steps: vec![st],
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------

/// BinaryOp.
#[test]
fn binaryop_layer() {
    suite(&[("binaryop", binaryop)]);
}

/// Eltwise.
#[test]
fn eltwise_layer() {
    suite(&[("eltwise", eltwise)]);
}

/// UnaryOp.
#[test]
fn unaryop_layer() {
    suite(&[("unaryop", unaryop)]);
}

/// Sigmoid.
#[test]
fn sigmoid_layer() {
    suite(&[("sigmoid", sigmoid)]);
}

/// HardSigmoid.
#[test]
fn hardsigmoid_layer() {
    suite(&[("hardsigmoid", hardsigmoid)]);
}

/// PReLU.
#[test]
fn prelu_layer() {
    suite(&[("prelu", prelu)]);
}

/// Clip.
#[test]
fn clip_layer() {
    suite(&[("clip", clip)]);
}

/// TanH.
#[test]
fn tanh_layer() {
    suite(&[("tanh", tanh)]);
}

/// Swish.
#[test]
fn swish_layer() {
    suite(&[("swish", swish)]);
}

/// Mish.
#[test]
fn mish_layer() {
    suite(&[("mish", mish)]);
}

/// GELU.
#[test]
fn gelu_layer() {
    suite(&[("gelu", gelu)]);
}

/// GELU with `fast_gelu` 0 against its erf definition.
#[test]
#[ignore = "gelu_vulkan.cpp runs the tanh approximation whatever fast_gelu says: up to 4.7e-4 from the erf definition, past fp32's tolerance"]
fn gelu_erf_layer() {
    suite(&[("gelu_erf", gelu_erf)]);
}

/// ELU.
#[test]
fn elu_layer() {
    suite(&[("elu", elu)]);
}

/// HardSwish.
#[test]
fn hardswish_layer() {
    suite(&[("hardswish", hardswish)]);
}

/// Cast.
#[test]
fn cast_layer() {
    suite(&[("cast", cast)]);
}

/// Packing.
#[test]
fn packing_layer() {
    suite(&[("packing", packing)]);
}
