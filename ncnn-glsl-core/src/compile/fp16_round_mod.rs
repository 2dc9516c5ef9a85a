//! `round` and `mod` on `float16_t`/`f16vecN`, which `fp16_builtins.rs`
//! does not give naga (its `round` would be "no float16 overload"): naga
//! gets them beside `fp16_builtins.rs`'s prototypes, only when those are
//! given too (its first parse failed).
//!
//! `round` is a body-less prototype whose calls become `Math::Round`, the IR
//! naga builds for `float`'s `round` and `roundEven`; `round_half_away.rs`
//! then writes it as GLSL.std.450 `Round` where the text calls `round`,
//! as glslang does for `float16_t` too (and as for `float`).
//!
//! `mod` is a helper with a body: `x - y * floor(x / y)`, what naga's
//! frontend builds for `float`'s `mod` (glslang writes `OpFMod`, which SPIR-V
//! defines as the same), with the scalar `y` of `mod(f16vecN, float16_t)`
//! splatted as naga does for `float`.

use naga::{Block, Expression, Function, Handle, MathFunction, Module, Scalar, Statement};

const VECTORS: &[&str] = &["f16vec2", "f16vec3", "f16vec4"];

/// The prototypes and helpers, to go after `fp16_builtins::prototypes()`
/// (`mod`'s body calls its `floor`).
pub(crate) fn prototypes() -> String {
    let mut s = String::new();
    for g in std::iter::once(&"float16_t").chain(VECTORS) {
        s += &format!("{g} round({g} x); ");
        s += &format!("{g} mod({g} x, {g} y) {{ return x - y * floor(x / y); }} ");
    }
    for g in VECTORS {
        s += &format!("{g} mod({g} x, float16_t y) {{ return mod(x, {g}(y)); }} ");
    }
    s.push('\n');
    s
}

/// Replaces every call of a `round` prototype by `Math::Round`; returns how
/// many.
pub(crate) fn lower(module: &mut Module) -> usize {
    let protos: Vec<Handle<Function>> = module
        .functions
        .iter()
        .filter(|(_, f)| {
            f.body.is_empty()
                && f.result.is_some()
                && f.name.as_deref() == Some("round")
                && f.arguments.len() == 1
                && module.types[f.arguments[0].ty].inner.scalar() == Some(Scalar::F16)
        })
        .map(|(h, _)| h)
        .collect();
    if protos.is_empty() {
        return 0;
    }
    let mut n = 0;
    for (h, f) in module.functions.iter_mut() {
        if !protos.contains(&h) {
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
    protos: &[Handle<Function>],
) -> usize {
    let mut n = 0;
    super::ir_walk::each_mut(block, &mut |s, _| {
        if let Statement::Call {
            function,
            arguments,
            result: Some(r),
        } = s
        {
            if !protos.contains(function) || arguments.len() != 1 {
                return;
            }
            // The argument is older than the call's result: no forward reference.
            exprs[*r] = Expression::Math {
                fun: MathFunction::Round,
                arg: arguments[0],
                arg1: None,
                arg2: None,
                arg3: None,
            };
            *s = Statement::Emit(naga::Range::new_from_bounds(*r, *r));
            n += 1;
        }
    });
    n
}
