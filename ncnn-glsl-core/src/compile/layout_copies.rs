//! Whole copies naga cannot type: inside a std430 block (a buffer, or
//! push constants with `std430`) naga's GLSL frontend gives a struct or
//! array the block's strides as a second type of the same name, while a
//! variable of that struct keeps the declaration's (std140) strides. Where
//! they differ (an array member of scalars or 2-element vectors), copying the
//! whole struct, or an array member, between the block and a variable
//! (`S s = buf.items[i];`, `buf.items[i] = s;`, `s.v = buf.items[i].v;`)
//! fails naga's validation with "The type of [13] doesn't match the type
//! stored in [14]". This check refuses it first, at the copy, with the reason
//! and advice of [`super::reject::LAYOUT_COPY`].

use naga::front::Typifier;
use naga::proc::ResolveContext;
use naga::{Block, Expression, Function, Handle, Module, Span, Statement, Type, TypeInner};

/// Spans of every store of a value whose type differs from the pointee's
/// only in layout (offsets, strides, sizes).
pub(crate) fn find(module: &Module) -> Vec<Span> {
    let mut out = Vec::new();
    let functions = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .chain(module.entry_points.iter().map(|e| &e.function));
    for f in functions {
        let mut types = Typifier::new();
        let cx = ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
        if f.expressions
            .iter()
            .any(|(h, _)| types.grow(h, &f.expressions, &cx).is_err())
        {
            continue;
        }
        stores(module, f, &types, &f.body, &mut out);
    }
    out
}

fn stores(module: &Module, f: &Function, types: &Typifier, block: &Block, out: &mut Vec<Span>) {
    for (s, span) in block.span_iter() {
        match s {
            Statement::Store { pointer, value } => {
                let target = match *types[*pointer].inner_with(&module.types) {
                    TypeInner::Pointer { base, .. } => Some(base),
                    _ => None,
                };
                let stored = types[*value].handle();
                if let (Some(a), Some(b)) = (target, stored) {
                    if a != b && same_but_layout(module, a, b) {
                        out.push(whole(f, *pointer, *span));
                    }
                }
            }
            Statement::Block(b) => stores(module, f, types, b, out),
            Statement::If { accept, reject, .. } => {
                stores(module, f, types, accept, out);
                stores(module, f, types, reject, out);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    stores(module, f, types, &c.body, out);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                stores(module, f, types, body, out);
                stores(module, f, types, continuing, out);
            }
            _ => {}
        }
    }
}

/// `span` widened to the start of the access chain `pointer` ends
/// (naga's span of `buf.items[i] = s` starts at `[i]`).
fn whole(f: &Function, mut pointer: Handle<Expression>, span: Span) -> Span {
    let mut all = span;
    // The root (a variable) spans its declaration: only the accesses count.
    while let Expression::Access { base, .. } | Expression::AccessIndex { base, .. } =
        f.expressions[pointer]
    {
        let at = f.expressions.get_span(pointer);
        if at.is_defined() {
            all.subsume(at);
        }
        pointer = base;
    }
    all
}

/// Whether `a` and `b` are the same type but for offsets, strides and sizes.
fn same_but_layout(module: &Module, a: Handle<Type>, b: Handle<Type>) -> bool {
    if a == b {
        return true;
    }
    match (&module.types[a].inner, &module.types[b].inner) {
        (TypeInner::Struct { members: ma, .. }, TypeInner::Struct { members: mb, .. }) => {
            ma.len() == mb.len()
                && ma.iter().zip(mb).all(|(x, y)| {
                    x.name == y.name
                        && x.binding == y.binding
                        && same_but_layout(module, x.ty, y.ty)
                })
        }
        (
            TypeInner::Array {
                base: ba, size: sa, ..
            },
            TypeInner::Array {
                base: bb, size: sb, ..
            },
        ) => sa == sb && same_but_layout(module, *ba, *bb),
        (x, y) => x == y,
    }
}
