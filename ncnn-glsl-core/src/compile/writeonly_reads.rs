//! Reads of a `writeonly` buffer, refused at the read. The text stage blanks
//! the qualifier (naga refuses it) and the word stage puts it back as
//! `NonReadable`, so without this check a read compiled to an `OpLoad` from
//! a variable the driver may assume is never read; glslang refuses it ("can't
//! read from writeonly object").
//!
//! Atomics are not loads: a `writeonly` buffer may take them, as glslang
//! allows (the extension's one-element stores of packed storage are
//! compare-and-swap loops, after [`super::atomics`] lowered them). A buffer
//! they reach is read by them, so it is left out of the `NonReadable`
//! decoration ([`atomic_targets`]); a plain load of it is still refused.

use naga::{Expression, Function, Handle, Module, Span, Statement};

/// The span of every load through a global bound at one of the `(set,
/// binding)`s of `writeonly`.
pub(crate) fn reads(module: &Module, writeonly: &[(u32, u32)]) -> Vec<Span> {
    let checked = |g: Handle<naga::GlobalVariable>| {
        binding(module, g).is_some_and(|b| writeonly.contains(&b))
    };
    let mut out = Vec::new();
    for f in functions(module) {
        // The load naga made of an atomic's `inout` argument stays in the
        // arena after the call became an atomic statement: not a read.
        let mut atomic = Vec::new();
        atomics(f, &f.body, &|_| true, &mut atomic, &mut Vec::new());
        // A load no statement emits never runs (one of a statement dropped
        // as unreachable, `unreachable.rs`): not a read either.
        let mut emitted = std::collections::HashSet::new();
        super::ir_walk::each(&f.body, &mut |s, _| {
            if let Statement::Emit(range) = s {
                emitted.extend(range.clone());
            }
        });
        for (h, e) in f.expressions.iter() {
            if let Expression::Load { pointer } = *e {
                if atomic.iter().any(|(_, p)| *p == pointer) || !emitted.contains(&h) {
                    continue;
                }
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
    out: &mut Vec<(Span, Handle<Expression>)>,
    roots: &mut Vec<Handle<naga::GlobalVariable>>,
) {
    for (s, span) in block.span_iter() {
        match s {
            Statement::Atomic { pointer, .. } => {
                if let Some(g) = root(f, *pointer).filter(|&g| bound(g)) {
                    out.push((*span, *pointer));
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
