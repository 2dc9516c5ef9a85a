//! Every statement of a block, the nested ones included, in the order
//! naga's SPIR-V writer emits them (a branch's accept block before its
//! reject block, a loop's body before its continuing block): the one walk
//! the IR passes share.

use naga::{Block, Span, Statement};

/// Calls `f` on each statement of `block` and of the blocks inside it, a
/// statement before the ones it holds, with its span.
pub(crate) fn each(block: &Block, f: &mut impl FnMut(&Statement, &Span)) {
    for (s, span) in block.span_iter() {
        f(s, span);
        match s {
            Statement::Block(b) => each(b, f),
            Statement::If { accept, reject, .. } => {
                each(accept, f);
                each(reject, f);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    each(&c.body, f);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                each(body, f);
                each(continuing, f);
            }
            _ => {}
        }
    }
}

/// [`each`] with every statement open to change: `f` runs before the walk
/// goes into what the statement holds, so one it replaces is walked as
/// replaced.
pub(crate) fn each_mut(block: &mut Block, f: &mut impl FnMut(&mut Statement, Span)) {
    for (s, span) in block.span_iter_mut() {
        f(s, span.map_or(Span::UNDEFINED, |s| *s));
        match s {
            Statement::Block(b) => each_mut(b, f),
            Statement::If { accept, reject, .. } => {
                each_mut(accept, f);
                each_mut(reject, f);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    each_mut(&mut c.body, f);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                each_mut(body, f);
                each_mut(continuing, f);
            }
            _ => {}
        }
    }
}
