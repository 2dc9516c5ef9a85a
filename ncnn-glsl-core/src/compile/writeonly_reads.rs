//! Reads of a `writeonly` buffer, refused at the read. The text stage blanks
//! the qualifier (naga refuses it) and the word stage puts it back as
//! `NonReadable`, so without this check a read compiled to an `OpLoad` from
//! a variable the driver may assume is never read; glslang refuses it ("can't
//! read from writeonly object").
//!
//! A buffer the extension's one-element stores reach with atomics (the
//! compare-and-swap loops of packed storage, after [`super::atomics`] lowered
//! them) is read by those atomics: it is left out of the check and of the
//! `NonReadable` decoration ([`atomic_targets`]), since every access to it is
//! an atomic and the words must let it be read.

use naga::{Expression, Function, Handle, Module, Span, Statement};

/// The span of every load through a global bound at one of the `(set,
/// binding)`s of `writeonly` but not among `atomic` ([`atomic_targets`]).
pub(crate) fn reads(module: &Module, writeonly: &[(u32, u32)], atomic: &[(u32, u32)]) -> Vec<Span> {
    let checked = |g: Handle<naga::GlobalVariable>| {
        binding(module, g).is_some_and(|b| writeonly.contains(&b) && !atomic.contains(&b))
    };
    let mut out = Vec::new();
    for f in functions(module) {
        for (h, e) in f.expressions.iter() {
            if let Expression::Load { pointer } = *e {
                if root(f, pointer).is_some_and(checked) {
                    out.push(f.expressions.get_span(h));
                }
            }
        }
    }
    out.sort_by_key(|s| s.to_range().map(|r| r.start));
    out
}

/// The `(set, binding)`s among `writeonly` that an atomic statement reaches.
pub(crate) fn atomic_targets(module: &Module, writeonly: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let bound = |g: Handle<naga::GlobalVariable>| {
        binding(module, g).is_some_and(|b| writeonly.contains(&b))
    };
    let mut spans = Vec::new();
    let mut out = Vec::new();
    for f in functions(module) {
        let mut roots = Vec::new();
        atomics(f, &f.body, &bound, &mut spans, &mut roots);
        out.extend(roots.into_iter().filter_map(|g| binding(module, g)));
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn binding(module: &Module, g: Handle<naga::GlobalVariable>) -> Option<(u32, u32)> {
    let b = module.global_variables[g].binding.as_ref()?;
    Some((b.group, b.binding))
}

fn functions(module: &Module) -> impl Iterator<Item = &Function> {
    module
        .functions
        .iter()
        .map(|(_, f)| f)
        .chain(module.entry_points.iter().map(|e| &e.function))
}

/// The atomic statements of `block` (and the blocks in it) on a bound
/// global: their spans and roots.
fn atomics(
    f: &Function,
    block: &naga::Block,
    bound: &dyn Fn(Handle<naga::GlobalVariable>) -> bool,
    out: &mut Vec<Span>,
    roots: &mut Vec<Handle<naga::GlobalVariable>>,
) {
    for (s, span) in block.span_iter() {
        match s {
            Statement::Atomic { pointer, .. } => {
                if let Some(g) = root(f, *pointer).filter(|&g| bound(g)) {
                    out.push(*span);
                    roots.push(g);
                }
            }
            Statement::Block(b) => atomics(f, b, bound, out, roots),
            Statement::If { accept, reject, .. } => {
                atomics(f, accept, bound, out, roots);
                atomics(f, reject, bound, out, roots);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    atomics(f, &c.body, bound, out, roots);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                atomics(f, body, bound, out, roots);
                atomics(f, continuing, bound, out, roots);
            }
            _ => {}
        }
    }
}

/// The global an access chain starts from.
fn root(f: &Function, mut e: Handle<Expression>) -> Option<Handle<naga::GlobalVariable>> {
    loop {
        match f.expressions[e] {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => e = base,
            Expression::GlobalVariable(g) => return Some(g),
            _ => return None,
        }
    }
}
