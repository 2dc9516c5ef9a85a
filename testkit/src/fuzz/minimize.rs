//! The minimizer: a failing program made smaller, one edit at a time, each
//! kept only where the same failure still reproduces (so an edit that
//! breaks the program, which glslang then refuses, is simply not kept).
//!
//! The edits, biggest first: drop a function, a global array (with its
//! fills), a global constant or a specialization constant; drop a
//! statement; replace an `if` by one of its branches, a loop by one pass of
//! its body, a block by its statements; drop a compound operator; replace
//! an expression by a literal of its type (0, then 1). Subscripts known to
//! be in range are left alone, and so is every fill of a `shared` or
//! private array that stays: an element read before it is written is not
//! the failure being chased.

use std::time::Instant;

use super::ast::{Expr, Ty};
use super::program::{Shader, Stmt};
use super::Program;

/// `p` made as small as the edits can while `still` holds, until `deadline`.
pub fn minimize(
    p: &Program,
    still: &mut dyn FnMut(&Program) -> bool,
    deadline: Instant,
) -> Program {
    let mut best = p.clone();
    loop {
        let before = best.shader.text().len();
        for pass in [globals, statements, expressions] {
            best = pass(best, still, deadline);
        }
        if best.shader.text().len() >= before || Instant::now() >= deadline {
            return best;
        }
    }
}

/// Tries each candidate edit `edit(p, n)` for n = 0, 1, ... (`None`: no
/// edit `n`), keeping those that still fail.
fn each(
    mut best: Program,
    still: &mut dyn FnMut(&Program) -> bool,
    deadline: Instant,
    edit: &dyn Fn(&mut Program, usize) -> Option<bool>,
) -> Program {
    let mut n = 0;
    while Instant::now() < deadline {
        let mut candidate = best.clone();
        match edit(&mut candidate, n) {
            None => break,
            Some(true) if still(&candidate) => best = candidate,
            Some(_) => n += 1,
        }
    }
    best
}

fn globals(best: Program, still: &mut dyn FnMut(&Program) -> bool, deadline: Instant) -> Program {
    let best = each(best, still, deadline, &|p, n| {
        (n < p.shader.funcs.len()).then(|| {
            p.shader.funcs.remove(n);
            true
        })
    });
    let best = each(best, still, deadline, &|p, n| {
        (n < p.shader.globals.len()).then(|| {
            let a = p.shader.globals.remove(n);
            retain(&mut p.shader.main, &|s| match s {
                Stmt::Fill { arr, .. } | Stmt::SharedFill { arr, .. } => arr.name != a.name,
                _ => true,
            });
            true
        })
    });
    let best = each(best, still, deadline, &|p, n| {
        (n < p.shader.consts.len()).then(|| {
            p.shader.consts.remove(n);
            true
        })
    });
    each(best, still, deadline, &|p, n| {
        (n < p.shader.specs.len()).then(|| {
            let s = p.shader.specs.remove(n);
            p.specialization.retain(|(id, _)| *id != s.id);
            true
        })
    })
}

/// Keeps the statements of `list` (at any depth) for which `keep` holds.
fn retain(list: &mut Vec<Stmt>, keep: &dyn Fn(&Stmt) -> bool) {
    list.retain(keep);
    for s in list {
        match s {
            Stmt::If { then, els, .. } => {
                retain(then, keep);
                retain(els, keep);
            }
            Stmt::For { body, .. } | Stmt::Block(body) => retain(body, keep),
            _ => {}
        }
    }
}

/// Calls `f` on the list holding the `n`-th statement of `list` (in
/// order, outer before inner) and its index there.
fn at_stmt(
    list: &mut Vec<Stmt>,
    n: &mut usize,
    f: &mut dyn FnMut(&mut Vec<Stmt>, usize) -> bool,
) -> Option<bool> {
    let mut i = 0;
    while i < list.len() {
        if *n == 0 {
            return Some(f(list, i));
        }
        *n -= 1;
        let inner = match &mut list[i] {
            Stmt::If { then, els, .. } => at_stmt(then, n, f).or_else(|| at_stmt(els, n, f)),
            Stmt::For { body, .. } | Stmt::Block(body) => at_stmt(body, n, f),
            _ => None,
        };
        if inner.is_some() {
            return inner;
        }
        i += 1;
    }
    None
}

/// The `n`-th statement of the shader (the functions' bodies, then
/// `main`'s) given to `f`.
fn shader_stmt(
    s: &mut Shader,
    mut n: usize,
    f: &mut dyn FnMut(&mut Vec<Stmt>, usize) -> bool,
) -> Option<bool> {
    for func in &mut s.funcs {
        if let Some(r) = at_stmt(&mut func.body, &mut n, f) {
            return Some(r);
        }
    }
    at_stmt(&mut s.main, &mut n, f)
}

fn statements(
    best: Program,
    still: &mut dyn FnMut(&Program) -> bool,
    deadline: Instant,
) -> Program {
    // Dropping: every statement but the fills that keep memory defined.
    let best = each(best, still, deadline, &|p, n| {
        shader_stmt(&mut p.shader, n, &mut |list, i| {
            if matches!(
                list[i],
                Stmt::SharedFill { .. } | Stmt::Fill { declare: false, .. }
            ) {
                return false;
            }
            list.remove(i);
            true
        })
    });
    // Replacing a statement by what it holds.
    let best = each(best, still, deadline, &|p, n| {
        let mut choice = n % 2;
        shader_stmt(&mut p.shader, n / 2, &mut |list, i| {
            let inner = match &mut list[i] {
                Stmt::If { then, els, .. } if choice == 0 => std::mem::take(then),
                Stmt::If { then: _, els, .. } => std::mem::take(els),
                Stmt::For { var, body, .. } if choice == 0 => {
                    let mut b = vec![Stmt::Decl {
                        name: var.clone(),
                        ty: Ty::Int,
                        init: Expr::lit(Ty::Int, 0.0),
                    }];
                    b.append(body);
                    vec![Stmt::Block(b)]
                }
                Stmt::Block(body) if choice == 0 => std::mem::take(body),
                Stmt::Assign {
                    op: op @ Some(_), ..
                } if choice == 0 => {
                    *op = None;
                    choice = 2;
                    Vec::new()
                }
                _ => return false,
            };
            if choice != 2 {
                list.splice(i..=i, inner);
            }
            true
        })
    });
    best
}

/// Calls `f` on the `n`-th expression node of the shader (every statement's
/// expressions, the functions' return values), outer before inner.
fn at_expr(s: &mut Shader, n: usize, f: &mut dyn FnMut(&mut Expr)) -> bool {
    let mut count = 0;
    let mut done = false;
    let mut visit = |e: &mut Expr| {
        if !done && count == n {
            f(e);
            done = true;
        }
        count += 1;
    };
    for func in &mut s.funcs {
        func.body
            .iter_mut()
            .for_each(|st| st.visit_exprs(&mut visit));
        func.value.visit_mut(&mut visit);
    }
    s.main.iter_mut().for_each(|st| st.visit_exprs(&mut visit));
    done
}

fn expressions(
    best: Program,
    still: &mut dyn FnMut(&Program) -> bool,
    deadline: Instant,
) -> Program {
    each(best, still, deadline, &|p, n| {
        let mut changed = false;
        let found = at_expr(&mut p.shader, n / 2, &mut |e| {
            let v = (n % 2) as f64;
            if e.is_lit() {
                return;
            }
            *e = Expr::lit(e.ty, v);
            changed = true;
        });
        found.then_some(changed)
    })
}
