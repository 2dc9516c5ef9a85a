//! A `float16_t` value stored into a `float` (`float s = buffer_ld1(a, i);`
//! in an fp16 arithmetic mode, where `buffer_ld1` returns `float16_t`):
//! GLSL converts `float16_t` to `float` implicitly (glslang does, with
//! `GL_EXT_shader_explicit_arithmetic_types`), but naga's GLSL frontend ranks
//! `float16_t` above `float`, so it converts nothing and its validator
//! rejects the store, naming IR handles. This pass converts the stored value
//! (scalars and vectors): an `As` to 32 bits, appended to the function's
//! expressions (its operand is older, as the validator wants) and emitted
//! right before the store. Functions without such a store are untouched, so
//! other shaders keep their exact SPIR-V.
//!
//! Initialized declarations and assignments are stores in naga's IR; a
//! `float16_t` passed for a `float` parameter or returned as a `float` stays
//! naga's error.
//!
//! The same ranking makes naga convert the other way where GLSL converts
//! none: in `h * 0.5` or `h * y` (`h` a `float16_t`, `y` a `float`) GLSL
//! promotes `h` and multiplies in 32 bits, naga demotes `0.5` or `y` and
//! multiplies in 16; the same in `c ? h : 0.1` (naga selects between 16-bit
//! values, so the `float` result is `0.0999755859375`) and in the arguments
//! of a builtin (`pow(h, 0.5)`; where the value is a literal that 16 bits
//! hold exactly, `c ? h : 0.0` and `clamp(h, 0.0, 6.0)` give back one of
//! their values, the same either way, and pass). [`demotions`] finds those conversions (an `As` to 16
//! bits with its operand's span, or a 16-bit literal whose text is a plain
//! number; an explicit `float16_t(y)` spans the call) so that they are
//! refused: a converted store of such a product would otherwise hide it.

use naga::front::Typifier;
use naga::proc::ResolveContext;
use naga::{
    Arena, Block, Expression, Function, Handle, Literal, MathFunction, Module, Scalar, ScalarKind,
    Span, Statement, TypeInner, VectorSize,
};

/// Converts the value of every store of a `float16_t` scalar or vector into
/// a `float` one; returns how many.
pub(crate) fn widen_stores(module: &mut Module) -> usize {
    let mut n = 0;
    let handles: Vec<Handle<Function>> = module.functions.iter().map(|(h, _)| h).collect();
    for h in handles {
        let narrow = narrow_stores(module, &module.functions[h]);
        if !narrow.is_empty() {
            let f = &mut module.functions[h];
            n += widen_block(&mut f.body, &mut f.expressions, &narrow);
        }
    }
    for k in 0..module.entry_points.len() {
        let narrow = narrow_stores(module, &module.entry_points[k].function);
        if !narrow.is_empty() {
            let f = &mut module.entry_points[k].function;
            n += widen_block(&mut f.body, &mut f.expressions, &narrow);
        }
    }
    n
}

/// A store's pointer and value.
type Store = (Handle<Expression>, Handle<Expression>);

/// `f`'s stores that put a 16-bit float into a 32-bit one.
fn narrow_stores(module: &Module, f: &Function) -> Vec<Store> {
    let mut types = Typifier::new();
    let cx = ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
    for (h, _) in f.expressions.iter() {
        if types.grow(h, &f.expressions, &cx).is_err() {
            return Vec::new();
        }
    }
    let shape = |inner: &TypeInner| -> Option<(Option<VectorSize>, Scalar)> {
        match *inner {
            TypeInner::Scalar(s) => Some((None, s)),
            TypeInner::Vector { size, scalar } => Some((Some(size), scalar)),
            _ => None,
        }
    };
    let pointee = |p: Handle<Expression>| -> Option<(Option<VectorSize>, Scalar)> {
        match *types[p].inner_with(&module.types) {
            TypeInner::Pointer { base, .. } => shape(&module.types[base].inner),
            TypeInner::ValuePointer { size, scalar, .. } => Some((size, scalar)),
            _ => None,
        }
    };
    let mut out = Vec::new();
    let mut stores = Vec::new();
    collect_stores(&f.body, &mut stores);
    for (pointer, value) in stores {
        let (Some((ps, to)), Some((vs, from))) = (
            pointee(pointer),
            shape(types[value].inner_with(&module.types)),
        ) else {
            continue;
        };
        let float = |s: Scalar, w: u8| s.kind == ScalarKind::Float && s.width == w;
        if ps == vs && float(to, 4) && float(from, 2) {
            out.push((pointer, value));
        }
    }
    out
}

/// Every `Store { pointer, value }` in `block` and the blocks inside it.
fn collect_stores(block: &Block, out: &mut Vec<Store>) {
    for s in block.iter() {
        match s {
            Statement::Store { pointer, value } => out.push((*pointer, *value)),
            Statement::Block(b) => collect_stores(b, out),
            Statement::If { accept, reject, .. } => {
                collect_stores(accept, out);
                collect_stores(reject, out);
            }
            Statement::Switch { cases, .. } => {
                cases.iter().for_each(|c| collect_stores(&c.body, out))
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                collect_stores(body, out);
                collect_stores(continuing, out);
            }
            _ => {}
        }
    }
}

/// Rebuilds `block` with each store of `narrow` preceded by the emitted
/// conversion of its value and storing that.
fn widen_block(block: &mut Block, exprs: &mut Arena<Expression>, narrow: &[Store]) -> usize {
    let mut n = 0;
    let old = std::mem::take(block);
    for (mut s, span) in old.span_into_iter() {
        match &mut s {
            Statement::Store { pointer, value } if narrow.contains(&(*pointer, *value)) => {
                let at = exprs.get_span(*value);
                let wide = exprs.append(
                    Expression::As {
                        expr: *value,
                        kind: ScalarKind::Float,
                        convert: Some(4),
                    },
                    at,
                );
                block.push(
                    Statement::Emit(naga::Range::new_from_bounds(wide, wide)),
                    Span::UNDEFINED,
                );
                *value = wide;
                n += 1;
            }
            Statement::Block(b) => n += widen_block(b, exprs, narrow),
            Statement::If { accept, reject, .. } => {
                n += widen_block(accept, exprs, narrow) + widen_block(reject, exprs, narrow)
            }
            Statement::Switch { cases, .. } => {
                for c in cases.iter_mut() {
                    n += widen_block(&mut c.body, exprs, narrow);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => n += widen_block(body, exprs, narrow) + widen_block(continuing, exprs, narrow),
            _ => {}
        }
        block.push(s, span);
    }
    n
}

/// The values of every `Store` in `block`, nested blocks included.
fn store_values(block: &Block, out: &mut Vec<Handle<Expression>>) {
    super::ir_walk::each(block, &mut |s, _| {
        if let Statement::Store { value, .. } = s {
            out.push(*value);
        }
    });
}

/// The implicit conversions of a 32-bit float to 16 bits in `module`'s
/// functions that feed a binary operator, a builtin function or a store
/// (`clamp(h, 0.1, 1.0)`, `c ? h : 0.1`: GLSL promotes `h` there, or refuses
/// the call or the store; see the module's doc), by span;
/// `text` is the text naga parsed. A constructor's argument converts the
/// same way with the same span (`f16vec4(0.5)`, `f16vec4(y)`), but feeds the
/// constructor, not an operator: GLSL converts there too.
pub(crate) fn demotions(module: &Module, text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let functions = module.functions.iter().map(|(_, f)| f);
    for f in functions.chain(module.entry_points.iter().map(|e| &e.function)) {
        let mut types = Typifier::new();
        let cx = ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
        // The demoted values, and whether each is a literal that 16 bits
        // hold exactly (`0.0`, `6.0`).
        let mut implicit: std::collections::HashMap<Handle<Expression>, bool> =
            std::collections::HashMap::new();
        for (h, e) in f.expressions.iter() {
            if types.grow(h, &f.expressions, &cx).is_err() {
                break;
            }
            let span = f.expressions.get_span(h);
            let converted = match *e {
                Expression::As {
                    expr,
                    kind: ScalarKind::Float,
                    convert: Some(2),
                } => {
                    let from = types[expr].inner_with(&module.types).scalar();
                    (from.is_some_and(|s| s.kind == ScalarKind::Float && s.width == 4)
                        && f.expressions.get_span(expr) == span)
                        .then_some(false)
                }
                Expression::Literal(Literal::F16(v)) => span
                    .to_range()
                    .and_then(|r| text.get(r))
                    .filter(|t| {
                        t.contains('.') && t.starts_with(|c: char| c.is_ascii_digit() || c == '.')
                    })
                    .map(|t| {
                        let written = t.trim_end_matches(['f', 'F']).parse::<f64>().ok();
                        written == Some(f64::from(v))
                    }),
                _ => None,
            };
            if let Some(exact) = converted {
                implicit.insert(h, exact);
            }
            // Each operand, and whether an exact literal is harmless there:
            // a `?:` or a `min`/`max`/`clamp` gives back one of its values,
            // the same in 16 bits as in 32.
            let operands: Vec<(Handle<Expression>, bool)> = match *e {
                Expression::Binary { left, right, .. } => vec![(left, false), (right, false)],
                Expression::Select { accept, reject, .. } => vec![(accept, true), (reject, true)],
                Expression::Math {
                    fun,
                    arg,
                    arg1,
                    arg2,
                    arg3,
                } => {
                    let picks = matches!(
                        fun,
                        MathFunction::Min | MathFunction::Max | MathFunction::Clamp
                    );
                    [Some(arg), arg1, arg2, arg3]
                        .into_iter()
                        .flatten()
                        .map(|a| (a, picks))
                        .collect()
                }
                _ => Vec::new(),
            };
            for (operand, exact_is_fine) in operands {
                if let Some(&exact) = implicit.get(&operand) {
                    if !(exact && exact_is_fine) {
                        out.push(f.expressions.get_span(operand));
                    }
                }
            }
        }
        // Stored into a 16-bit variable: naga's frontend writes `c ? h : 0.1`
        // as a branch storing into a temporary, and GLSL refuses a `float`
        // stored into a `float16_t` (glslang: "cannot convert"); a literal 16
        // bits hold exactly is the same value either way.
        let mut stored = Vec::new();
        store_values(&f.body, &mut stored);
        for value in stored {
            if implicit.get(&value) == Some(&false) {
                out.push(f.expressions.get_span(value));
            }
        }
    }
    out
}
