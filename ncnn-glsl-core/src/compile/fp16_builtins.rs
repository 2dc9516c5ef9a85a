//! float16 forms of GLSL's float builtins (`max`, `exp`, `clamp`, `dot` on
//! `float16_t`/`f16vecN`): naga's GLSL frontend declares its builtins for 32-
//! and 64-bit floats only ("Unknown function"), so fp16-arithmetic code (afp =
//! float16_t) stops at the first one. naga treats user functions named like
//! builtins as extra overloads (float calls still reach the real builtins),
//! so naga is given body-less float16 prototypes (naga-only text) for every
//! vector size, and this pass turns each call into `Expression::Math`, the
//! same IR naga builds for float. Forms with scalar arguments (`max(v, s)`,
//! `clamp(v, lo, hi)`, `mix(x, y, a)`, `step(edge, v)`, `smoothstep`) are
//! small helper functions with bodies that splat the scalars and call the
//! same-type form, as `Math` needs equal argument types.
//!
//! The relational vector functions (`lessThan`, `lessThanEqual`,
//! `greaterThan`, `greaterThanEqual`, `equal`, `notEqual` on `f16vecN`)
//! become `Expression::Binary` with the comparison operator, giving a bool
//! vector, and `mix(x, y, bvecN)` (ncnn's leaky relu
//! `mix(v, v * slope, lessThan(v, afpvec4(0)))`) becomes `Expression::Select`:
//! what naga builds for the float forms. Like naga's float `notEqual`, ours
//! is `FOrdNotEqual` (glslang: `FUnordNotEqual`); they differ only on NaN.
//!
//! The prototypes are given only when naga fails without them, so shaders
//! that compiled before keep their exact SPIR-V.
//!
//! `mod` is a helper with a body, `x - y * floor(x / y)`: what naga's
//! frontend builds for `float`'s `mod` (glslang writes `OpFMod`, which SPIR-V
//! defines as the same), with the scalar `y` of `mod(f16vecN, float16_t)`
//! splatted.
//!
//! Not provided (naga's error names the function): `modf`, `frexp`,
//! `ldexp`, `isnan`, `isinf`, matrix functions.

use std::collections::HashMap;

use naga::{BinaryOperator, Block, Expression, Function, Handle, MathFunction, Module, Statement};

use super::tokens::{Kind, Token};

const SCALAR: &str = "float16_t";
const VECTORS: &[&str] = &["f16vec2", "f16vec3", "f16vec4"];

/// Same-type functions of one argument, as `G f(G)`.
const UNARY: &[(&str, MathFunction)] = &[
    ("abs", MathFunction::Abs),
    ("sign", MathFunction::Sign),
    ("floor", MathFunction::Floor),
    ("ceil", MathFunction::Ceil),
    ("trunc", MathFunction::Trunc),
    ("fract", MathFunction::Fract),
    // naga's `Round` is GLSL's roundEven (GLSL.std.450 RoundEven);
    // `round_half_away.rs` writes GLSL.std.450 `Round` where the text calls
    // `round`, as glslang does for `float16_t` (and as for `float`).
    ("roundEven", MathFunction::Round),
    ("round", MathFunction::Round),
    ("sqrt", MathFunction::Sqrt),
    ("inversesqrt", MathFunction::InverseSqrt),
    ("exp", MathFunction::Exp),
    ("exp2", MathFunction::Exp2),
    ("log", MathFunction::Log),
    ("log2", MathFunction::Log2),
    ("sin", MathFunction::Sin),
    ("cos", MathFunction::Cos),
    ("tan", MathFunction::Tan),
    ("asin", MathFunction::Asin),
    ("acos", MathFunction::Acos),
    ("atan", MathFunction::Atan),
    ("sinh", MathFunction::Sinh),
    ("cosh", MathFunction::Cosh),
    ("tanh", MathFunction::Tanh),
    ("asinh", MathFunction::Asinh),
    ("acosh", MathFunction::Acosh),
    ("atanh", MathFunction::Atanh),
    ("radians", MathFunction::Radians),
    ("degrees", MathFunction::Degrees),
];

/// Same-type functions of two arguments, as `G f(G, G)`.
const BINARY: &[(&str, MathFunction)] = &[
    ("min", MathFunction::Min),
    ("max", MathFunction::Max),
    ("pow", MathFunction::Pow),
    ("step", MathFunction::Step),
    ("atan", MathFunction::Atan2),
];

/// Same-type functions of three arguments, as `G f(G, G, G)`.
const TERNARY: &[(&str, MathFunction)] = &[
    ("clamp", MathFunction::Clamp),
    ("mix", MathFunction::Mix),
    ("smoothstep", MathFunction::SmoothStep),
    ("fma", MathFunction::Fma),
];

/// Geometric functions: vectors only (naga's `Dot` and friends want vectors).
const GEOMETRIC: &[(&str, MathFunction)] = &[
    ("normalize", MathFunction::Normalize),
    ("reflect", MathFunction::Reflect),
    ("faceforward", MathFunction::FaceForward),
    ("dot", MathFunction::Dot),
    ("length", MathFunction::Length),
    ("distance", MathFunction::Distance),
    ("refract", MathFunction::Refract),
    ("cross", MathFunction::Cross),
];

/// Relational vector functions, as `bvecN f(G, G)` for vectors only.
const RELATIONAL: &[(&str, BinaryOperator)] = &[
    ("lessThan", BinaryOperator::Less),
    ("lessThanEqual", BinaryOperator::LessEqual),
    ("greaterThan", BinaryOperator::Greater),
    ("greaterThanEqual", BinaryOperator::GreaterEqual),
    ("equal", BinaryOperator::Equal),
    ("notEqual", BinaryOperator::NotEqual),
];

/// What a prototype's call becomes.
#[derive(Clone, Copy, Debug)]
enum Lowered {
    Math(MathFunction),
    /// A component-wise comparison (the relational functions).
    Compare(BinaryOperator),
    /// `mix(x, y, b)` with a bool selector: `b ? y : x` per component.
    Select,
}

/// Whether the text uses float16 types (then the prototypes are needed when
/// it calls a builtin on them; unused ones are compacted away).
pub(crate) fn wanted(src: &str, toks: &[Token]) -> bool {
    toks.iter()
        .any(|t| t.kind == Kind::Ident && (t.text(src) == SCALAR || VECTORS.contains(&t.text(src))))
}

/// The prototypes and helpers naga is given (on one line each kind, to keep
/// the inserted block short in lines).
pub(crate) fn prototypes() -> String {
    let mut s = String::new();
    let all: Vec<&str> = std::iter::once(SCALAR)
        .chain(VECTORS.iter().copied())
        .collect();
    for g in &all {
        for (f, _) in UNARY {
            s += &format!("{g} {f}({g} x); ");
        }
        for (f, _) in BINARY {
            s += &format!("{g} {f}({g} x, {g} y); ");
        }
        for (f, _) in TERNARY {
            s += &format!("{g} {f}({g} x, {g} y, {g} z); ");
        }
    }
    for g in VECTORS {
        s += &format!("{g} normalize({g} x); {g} reflect({g} i, {g} n); ");
        s += &format!("{g} faceforward({g} n, {g} i, {g} r); ");
        s += &format!("{SCALAR} dot({g} x, {g} y); {SCALAR} length({g} x); ");
        s += &format!("{SCALAR} distance({g} x, {g} y); ");
        s += &format!("{g} refract({g} i, {g} n, {SCALAR} eta); ");
    }
    s += "f16vec3 cross(f16vec3 x, f16vec3 y); ";
    s += &format!("{SCALAR} mix({SCALAR} x, {SCALAR} y, bool a); ");
    for (g, n) in VECTORS.iter().zip(2..) {
        for (f, _) in RELATIONAL {
            s += &format!("bvec{n} {f}({g} x, {g} y); ");
        }
        s += &format!("{g} mix({g} x, {g} y, bvec{n} a); ");
    }
    s.push('\n');
    for g in &all {
        s += &format!("{g} mod({g} x, {g} y) {{ return x - y * floor(x / y); }} ");
    }
    // Scalar-argument forms of vectors: splat, then the same-type form.
    for g in VECTORS {
        s += &format!("{g} mod({g} x, {SCALAR} y) {{ return mod(x, {g}(y)); }} ");
        let t = SCALAR;
        s += &format!("{g} min({g} x, {t} y) {{ return min(x, {g}(y)); }} ");
        s += &format!("{g} max({g} x, {t} y) {{ return max(x, {g}(y)); }} ");
        s += &format!("{g} clamp({g} x, {t} a, {t} b) {{ return clamp(x, {g}(a), {g}(b)); }} ");
        s += &format!("{g} mix({g} x, {g} y, {t} a) {{ return mix(x, y, {g}(a)); }} ");
        s += &format!("{g} step({t} e, {g} x) {{ return step({g}(e), x); }} ");
        s += &format!(
            "{g} smoothstep({t} a, {t} b, {g} x) {{ return smoothstep({g}(a), {g}(b), x); }} "
        );
    }
    s.push('\n');
    s
}

/// Replaces every call of a prototype by its expression; returns how many.
pub(crate) fn lower(module: &mut Module) -> usize {
    let protos: HashMap<Handle<Function>, Lowered> = module
        .functions
        .iter()
        .filter(|(_, f)| f.body.is_empty() && f.result.is_some())
        .filter_map(|(h, f)| {
            let name = f.name.as_deref()?;
            // Only float16 forms: the first argument's scalar is 16-bit.
            let first = f.arguments.first()?;
            let scalar = module.types[first.ty].inner.scalar()?;
            if scalar != naga::Scalar::F16 {
                return None;
            }
            let bool_last = f
                .arguments
                .last()
                .and_then(|a| module.types[a.ty].inner.scalar())
                == Some(naga::Scalar::BOOL);
            if name == "mix" && bool_last {
                return Some((h, Lowered::Select));
            }
            if let Some((_, op)) = RELATIONAL.iter().find(|(n, _)| *n == name) {
                return Some((h, Lowered::Compare(*op)));
            }
            let table = match f.arguments.len() {
                1 => UNARY,
                2 => BINARY,
                _ => TERNARY,
            };
            let found = GEOMETRIC
                .iter()
                .chain(table)
                .find(|(n, _)| *n == name)
                .map(|(_, m)| Lowered::Math(*m));
            found.map(|m| (h, m))
        })
        .collect();
    if protos.is_empty() {
        return 0;
    }
    let mut n = 0;
    for (h, f) in module.functions.iter_mut() {
        if !protos.contains_key(&h) {
            n += lower_block(&mut f.body, &mut f.expressions, &protos);
        }
    }
    for ep in module.entry_points.iter_mut() {
        let f = &mut ep.function;
        n += lower_block(&mut f.body, &mut f.expressions, &protos);
    }
    n
}

fn lower_block(
    block: &mut Block,
    exprs: &mut naga::Arena<Expression>,
    protos: &HashMap<Handle<Function>, Lowered>,
) -> usize {
    let mut n = 0;
    super::ir_walk::each_mut(block, &mut |s, _| {
        if let Statement::Call {
            function,
            arguments,
            result: Some(r),
        } = s
        {
            let Some(lowered) = protos.get(function) else {
                return;
            };
            // A prototype of the user's own with that name may take fewer
            // arguments: left as a call (naga refuses a call of a body-less function).
            let needed = match lowered {
                Lowered::Math(_) => 1,
                Lowered::Compare(_) => 2,
                Lowered::Select => 3,
            };
            if arguments.len() < needed {
                return;
            }
            let a = |i: usize| arguments.get(i).copied();
            // The arguments are older than the call's result: no forward reference.
            exprs[*r] = match protos[function] {
                Lowered::Math(fun) => Expression::Math {
                    fun,
                    arg: arguments[0],
                    arg1: a(1),
                    arg2: a(2),
                    arg3: None,
                },
                Lowered::Compare(op) => Expression::Binary {
                    op,
                    left: arguments[0],
                    right: arguments[1],
                },
                Lowered::Select => Expression::Select {
                    condition: arguments[2],
                    accept: arguments[1],
                    reject: arguments[0],
                },
            };
            *s = Statement::Emit(naga::Range::new_from_bounds(*r, *r));
            n += 1;
        }
    });
    n
}
