//! Statements after a `break`, `continue` or `return` in the same block
//! (`for (...) { break; f(x); }`) never run. naga's GLSL frontend parses
//! them without emitting the expressions they use, so its validator
//! rejects the module ("Expression not visited by the appropriate
//! statement"), and in fp16p a `buffer_st1` there (a compare-and-swap loop)
//! read as a read of its `writeonly` buffer; glslang drops them. They are
//! removed right after parsing: what never runs changes nothing. A call's
//! or an atomic's result whose statement went is left without the
//! statement naga's validator wants to see produce it: it becomes a zero
//! value of its type, which nothing reads.

use std::collections::HashSet;

use naga::{Block, Expression, Function, Handle, Module, Statement};

use super::ir_walk;

/// Removes every statement that follows a `break`, `continue`, `return` or
/// `discard` in its block, in every function.
pub(crate) fn drop_unreachable(module: &mut Module) {
    let results: Vec<Option<Handle<naga::Type>>> = module
        .functions
        .iter()
        .map(|(_, f)| f.result.as_ref().map(|r| r.ty))
        .collect();
    let functions = module
        .functions
        .iter_mut()
        .map(|(_, f)| f)
        .chain(module.entry_points.iter_mut().map(|e| &mut e.function));
    for f in functions {
        drop_in(&mut f.body);
        orphans_to_zero(f, &results);
    }
}

/// Each call or atomic result no statement produces any more becomes a
/// zero of its type (`results`: each function's result type, by index).
fn orphans_to_zero(f: &mut Function, results: &[Option<Handle<naga::Type>>]) {
    let mut produced = HashSet::new();
    ir_walk::each(&f.body, &mut |s, _| match s {
        Statement::Call {
            result: Some(r), ..
        }
        | Statement::Atomic {
            result: Some(r), ..
        } => {
            produced.insert(*r);
        }
        _ => {}
    });
    let orphans: Vec<(Handle<Expression>, Handle<naga::Type>)> = f
        .expressions
        .iter()
        .filter(|(h, _)| !produced.contains(h))
        .filter_map(|(h, e)| match *e {
            Expression::CallResult(callee) => Some((h, results.get(callee.index()).copied()??)),
            Expression::AtomicResult { ty, .. } => Some((h, ty)),
            _ => None,
        })
        .collect();
    for (h, ty) in orphans {
        f.expressions[h] = Expression::ZeroValue(ty);
    }
}

fn drop_in(block: &mut Block) {
    let end = block.iter().position(|s| {
        matches!(
            s,
            Statement::Break | Statement::Continue | Statement::Return { .. } | Statement::Kill
        )
    });
    if let Some(k) = end {
        block.cull(k + 1..);
    }
    for s in block.iter_mut() {
        match s {
            Statement::Block(b) => drop_in(b),
            Statement::If { accept, reject, .. } => {
                drop_in(accept);
                drop_in(reject);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    drop_in(&mut c.body);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                drop_in(body);
                drop_in(continuing);
            }
            _ => {}
        }
    }
}
