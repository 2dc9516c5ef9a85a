//! `dotPacked4x8EXT` (GL_EXT_integer_dot_product): the dot product of two
//! words read as four 8-bit lanes. naga's GLSL frontend does not know it
//! ("Unknown function"); its IR has the signed and the unsigned form
//! (`Dot4I8Packed`, `Dot4U8Packed`), written as `OpSDot` / `OpUDot` with the
//! `DotProduct` and `DotProductInput4x8BitPacked` capabilities, which the
//! reflection turns into the device feature `shaderIntegerDotProduct` and
//! extension `VK_KHR_shader_integer_dot_product`.
//!
//! naga is given (naga-only text, after `#version`) the GLSL overloads as
//! functions over two body-less prototypes that take `uint` words, as naga's
//! IR does; this pass turns each call of a prototype into the IR's dot
//! product. `int dotPacked4x8EXT(int, int)` bitcasts its words to `uint`,
//! which keeps their bits. The mixed-sign overloads (`int` with `uint`, an
//! `OpSUDot`) have no form in naga's IR: they are declared too, so that
//! naga's overload resolution cannot convert their `int` argument to
//! `uint` and pick the unsigned form, and each call of one is refused.

use naga::{Block, Expression, Handle, MathFunction, Module, Range, Statement};

use super::atomics::Unsupported;

/// The names naga's GLSL frontend lacks that this pass provides.
const NAMES: &[&str] = &["dotPacked4x8EXT"];

/// The prototypes the overloads call, and the IR function each becomes
/// (`None`: refused).
const PROTOTYPES: &[(&str, Option<MathFunction>)] = &[
    ("ncnnext_sdot4x8", Some(MathFunction::Dot4I8Packed)),
    ("ncnnext_udot4x8", Some(MathFunction::Dot4U8Packed)),
    ("ncnnext_sudot4x8", None),
];

/// Whether the text calls one of them.
pub(crate) fn called(src: &str, toks: &[super::tokens::Token]) -> bool {
    toks.windows(2).any(|w| {
        w[0].kind == super::tokens::Kind::Ident
            && w[1].is_punct(src, '(')
            && NAMES.contains(&w[0].text(src))
    })
}

/// The naga-only declarations (one line).
pub(crate) fn prototypes() -> String {
    "int ncnnext_sdot4x8(uint a, uint b); uint ncnnext_udot4x8(uint a, uint b); \
     int ncnnext_sudot4x8(uint a, uint b); \
     int dotPacked4x8EXT(int a, int b) { return ncnnext_sdot4x8(uint(a), uint(b)); } \
     uint dotPacked4x8EXT(uint a, uint b) { return ncnnext_udot4x8(a, b); } \
     int dotPacked4x8EXT(int a, uint b) { return ncnnext_sudot4x8(uint(a), b); } \
     int dotPacked4x8EXT(uint a, int b) { return ncnnext_sudot4x8(a, uint(b)); }\n"
        .into()
}

/// Replaces every call of a prototype by its dot product (the mixed-sign
/// one stays a call: [`refused_calls`] finds its callers); `false` when the
/// module declares none.
pub(crate) fn lower(module: &mut Module) -> bool {
    let protos: Vec<(Handle<naga::Function>, Option<MathFunction>)> = module
        .functions
        .iter()
        .filter(|(_, f)| f.body.is_empty())
        .filter_map(|(h, f)| {
            let name = f.name.as_deref()?;
            let (_, fun) = PROTOTYPES.iter().find(|(n, _)| *n == name)?;
            Some((h, *fun))
        })
        .collect();
    if protos.is_empty() {
        return false;
    }
    for (h, f) in module.functions.iter_mut() {
        if !protos.iter().any(|(p, _)| *p == h) {
            lower_block(&mut f.body, &mut f.expressions, &protos);
        }
    }
    true
}

fn lower_block(
    block: &mut Block,
    exprs: &mut naga::Arena<Expression>,
    protos: &[(Handle<naga::Function>, Option<MathFunction>)],
) {
    super::ir_walk::each_mut(block, &mut |s, _| {
        let Statement::Call {
            function,
            arguments,
            result: Some(result),
        } = s
        else {
            return;
        };
        let Some((_, Some(fun))) = protos.iter().find(|(p, _)| p == function) else {
            return;
        };
        if arguments.len() != 2 {
            return;
        }
        // The result's handle comes after the arguments': the dot product
        // takes its place and is emitted where the call was.
        exprs[*result] = Expression::Math {
            fun: *fun,
            arg: arguments[0],
            arg1: Some(arguments[1]),
            arg2: None,
            arg3: None,
        };
        *s = Statement::Emit(Range::new_from_bounds(*result, *result));
    });
}

/// Every call of a mixed-sign overload (the functions that call the refused
/// prototype), at the user's call site.
pub(crate) fn refused_calls(module: &Module) -> Vec<Unsupported> {
    let refused: Vec<Handle<naga::Function>> = module
        .functions
        .iter()
        .filter(|(_, f)| f.body.is_empty() && f.name.as_deref() == Some("ncnnext_sudot4x8"))
        .map(|(h, _)| h)
        .collect();
    if refused.is_empty() {
        return Vec::new();
    }
    // The overloads whose body calls the refused prototype.
    let mixed: Vec<Handle<naga::Function>> = module
        .functions
        .iter()
        .filter(|(_, f)| calls_any(&f.body, &refused))
        .map(|(h, _)| h)
        .collect();
    let mut out = Vec::new();
    let bodies = module
        .functions
        .iter()
        .filter(|(h, _)| !mixed.contains(h))
        .map(|(_, f)| &f.body)
        .chain(module.entry_points.iter().map(|e| &e.function.body));
    for body in bodies {
        call_spans(body, &mixed, &mut out);
    }
    out
}

fn calls_any(block: &Block, targets: &[Handle<naga::Function>]) -> bool {
    let mut spans = Vec::new();
    call_spans(block, targets, &mut spans);
    !spans.is_empty()
}

fn call_spans(block: &Block, targets: &[Handle<naga::Function>], out: &mut Vec<Unsupported>) {
    super::ir_walk::each(block, &mut |s, span| {
        if let Statement::Call { function, .. } = s {
            if targets.contains(function) {
                out.push(Unsupported {
                    span: *span,
                    what: "`dotPacked4x8EXT` of an `int` and a `uint` word (the mixed-sign \
                           form): naga's IR has the signed and the unsigned packed dot product \
                           only"
                        .into(),
                });
            }
        }
    });
}
