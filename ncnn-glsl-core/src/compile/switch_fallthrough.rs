//! A `switch` with a multi-label case (`case 0: case 1:`) and a case whose
//! code falls through into the next one: naga writes a back-edge outside a loop
//! and the SPIR-V fails spirv-val (drivers may crash or miscompile it).
//! There is no repair in the IR short of duplicating code, so it is refused.

use naga::{Block, Module, Span, Statement};

use super::naga_run::{at, Origin};
use crate::diag::Diagnostic;

/// A refusal for each `switch` of `module` that naga would write invalid.
pub(crate) fn check(origin: &Origin, module: &Module) -> Vec<Diagnostic> {
    bad_switches(module)
        .into_iter()
        .take(crate::diag::MAX_ERRORS)
        .map(|span| {
            at(
                origin,
                span.to_range(),
                "naga writes invalid SPIR-V for a `switch` with a multi-label `case` and a case \
                 that falls through into the next"
                    .into(),
            )
            .note(
                "end the falling-through case with `break;` (repeat the next case's code in it), \
                 or split the multi-label case",
            )
        })
        .collect()
}

/// The spans of the `switch` statements that hit the bug, in every function.
fn bad_switches(module: &Module) -> Vec<Span> {
    let mut out = Vec::new();
    for (_, f) in module.functions.iter() {
        scan(&f.body, &mut out);
    }
    for ep in &module.entry_points {
        scan(&ep.function.body, &mut out);
    }
    out
}

fn scan(block: &Block, out: &mut Vec<Span>) {
    for (s, span) in block.span_iter() {
        match s {
            Statement::Switch { cases, .. } => {
                // naga represents `case 0: case 1: body` as an empty case that
                // falls through, then the case with the body. Measured: a switch
                // with such a group and any case whose code falls through fails
                // spirv-val, wherever the two are; either alone is fine.
                let group = cases.iter().any(|c| c.body.is_empty() && c.fall_through);
                let falls = cases.iter().any(|c| !c.body.is_empty() && c.fall_through);
                let bad = group && falls;
                if bad {
                    out.push(*span);
                }
                for c in cases {
                    scan(&c.body, out);
                }
            }
            Statement::Block(b) => scan(b, out),
            Statement::If { accept, reject, .. } => {
                scan(accept, out);
                scan(reject, out);
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                scan(body, out);
                scan(continuing, out);
            }
            _ => {}
        }
    }
}
