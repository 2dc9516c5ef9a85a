//! UnaryOp: every operation of `unaryop.comp`.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{Device, Mode, Run};
use ncnn_glsl_testkit::Rng;

use super::activation::{flat_run, FLAT_SHAPES};
use super::common::tensor_in;
use super::error_bounds::{Prec, E};

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
pub(crate) fn unaryop(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
