//! The flat in-place activations (Sigmoid, HardSigmoid, Clip, TanH,
//! Swish, Mish, GELU, ELU, HardSwish) and the run every flat shader shares.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob_tol, spec, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{flat_local, run_of, tol, Blob};
use super::error_bounds::{Prec, E};

/// The shapes the flat activations run: 3-D pack4 specialized, 3-D pack1
/// pushed, 4-D pack4 pushed, and a 1-D pack1 blob whose length is no
/// multiple of four (its `cstep` padding is what completes the last vec4)
/// specialized.
pub(crate) const FLAT_SHAPES: [(&[u32], u32, bool); 4] = [
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
pub(crate) fn flat_run(
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
    let expect = expect_blob_tol(0, &b.m, &b.shape, |x, y, z, q| {
        let r = want(f64::from(t.at(x, y, z, q)));
        (r.v, tol(mode, r.v, r.e))
    });
    run_of(
        format!("{name} {shape:?} pack{elempack} spec {known}"),
        vec![Data::Floats(b.data(&t))],
        vec![Step::new(
            shader,
            local,
            spec(&sp),
            vec![n],
            &[0],
            [n, 1, 1],
        )],
        expect,
    )
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
            let t = Tensor::random(shape, mode, rng, range.0, range.1);
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
pub(crate) fn sigmoid(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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

/// The runs of `shader` over `clamp(x * alpha + beta, 0, 1)` (HardSigmoid,
/// HardSwish), `alpha` and `beta` specialized, for each pair of `params`:
/// `finish(x, c)` gives the result from `x` and the clamp `c`.
fn hard_layer(
    (device, mode, rng): (&Device, &Mode, &mut Rng),
    (layer, shader): (&str, &'static str),
    params: [(f32, f32); 2],
    finish: fn(f64, E) -> E,
) -> Vec<Run> {
    let mut runs = Vec::new();
    for (alpha, beta) in params {
        let spec_values = [SpecValue::Float(alpha), SpecValue::Float(beta)];
        let name = format!("{layer} alpha {alpha} beta {beta}");
        runs.extend(flat_layer(
            device,
            mode,
            rng,
            &name,
            shader,
            &spec_values,
            (-6.0, 6.0),
            move |x| {
                let u = E::x(x)
                    .mul(E::c(f64::from(alpha)))
                    .add(E::c(f64::from(beta)));
                // clamp is 1-Lipschitz: the argument's error bounds the result's.
                let c = E {
                    v: u.v.clamp(0.0, 1.0),
                    e: u.e,
                };
                finish(x, c)
            },
        ));
    }
    runs
}

/// `hardsigmoid.comp`: `clamp(x * alpha + beta, 0, 1)`, `alpha` and `beta`
/// specialized.
pub(crate) fn hardsigmoid(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    hard_layer(
        (device, mode, rng),
        ("hardsigmoid", "hardsigmoid.comp"),
        [(0.2, 0.5), (1.0 / 6.0, 0.5)],
        |_, c| c,
    )
}

/// `clip.comp`: `clamp(x, min, max)`, both specialized.
pub(crate) fn clip(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
pub(crate) fn tanh(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
pub(crate) fn swish(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
pub(crate) fn mish(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
pub(crate) fn gelu(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
pub(crate) fn gelu_erf(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
pub(crate) fn elu(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
pub(crate) fn hardswish(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    hard_layer(
        (device, mode, rng),
        ("hardswish", "hardswish.comp"),
        [(1.0 / 6.0, 0.5), (0.2, 0.5)],
        |x, c| E::x(x).mul(c),
    )
}
