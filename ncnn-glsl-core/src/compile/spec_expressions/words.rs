//! The words of `spec_expressions.rs`: an expression as the
//! `OpSpecConstantOp`s glslang writes for it, and the declarations those
//! need (the `bool` type, arrays of specialized arrays without a stride).

use std::collections::{HashMap, HashSet};

use super::expr::{is_uint, opcode, ty, unary_opcode, BinOp, Expr, Ty, I_NOT_EQUAL, SELECT};
use crate::compile::spirv_edit::{inst, Rewrite};
use crate::spirv::op;

/// Ids the emission needs: the 32-bit integer types, the `bool` type (0
/// where no expression has a `bool` part) and each name's constant.
pub(super) struct Ids<'a> {
    pub int: u32,
    pub uint: u32,
    pub boolean: u32,
    pub names: &'a HashMap<String, (u32, bool)>,
}

/// Appends the instructions computing `e` to `out`; the last one has
/// result id `result` (a fresh one when `None`) and type `as_uint` (a
/// `bool` part has type `bool` whatever `as_uint` says). Returns the result
/// id.
pub(super) fn emit(
    m: &mut Rewrite,
    e: &Expr,
    result: Option<u32>,
    as_uint: bool,
    ids: &Ids,
    out: &mut Vec<Vec<u32>>,
) -> Result<u32, String> {
    let uint_of = |n: &str| ids.names.get(n).is_some_and(|x| x.1);
    let int_ty = |u: bool| if u { ids.uint } else { ids.int };
    let own = ty(e, &uint_of);
    // A conversion that keeps every bit (`uint(n)`, `int(a + b)`,
    // `bool(a < b)`) is its operand in the type wanted.
    if let Expr::Cast(to, x) = e {
        if (*to == Ty::Bool) == (ty(x, &uint_of) == Ty::Bool) {
            return emit(m, x, result, as_uint, ids, out);
        }
    }
    let ty = if own == Ty::Bool {
        ids.boolean
    } else {
        int_ty(as_uint)
    };
    let id = result.unwrap_or_else(|| m.fresh_id());
    let constant = |m: &mut Rewrite, ty: u32, v: u32, out: &mut Vec<Vec<u32>>| {
        let c = m.fresh_id();
        out.push(inst(op::CONSTANT, &[ty, c, v]));
        c
    };
    let spec = |out: &mut Vec<Vec<u32>>, operands: &[u32]| {
        out.push(inst(op::SPEC_CONSTANT_OP, operands));
    };
    match e {
        Expr::Literal(v, _) => out.push(inst(op::CONSTANT, &[ty, id, *v])),
        Expr::Name(n) => {
            let &(named, _) = ids
                .names
                .get(n)
                .ok_or_else(|| format!("no constant `{n}`"))?;
            if result.is_none() && uint_of(n) == as_uint {
                return Ok(named);
            }
            // A name as the whole expression, under its own id, or in the
            // other signedness (an operand of OpUDiv, OpUMod): `n + 0`.
            let zero = constant(m, ty, 0, out);
            spec(out, &[ty, id, 128, named, zero]);
        }
        Expr::Unary(o, x) => {
            let own = is_uint(x, &uint_of);
            let x = emit(m, x, None, own, ids, out)?;
            spec(out, &[ty, id, unary_opcode(*o), x]);
        }
        Expr::Binary(o @ (BinOp::Min | BinOp::Max), a, b) => {
            // A select of the comparison, on operands of the result's type
            // (OpSelect's objects have it).
            let code = opcode(*o, ty_of(a, ids), ty_of(b, ids));
            let x = emit(m, a, None, as_uint, ids, out)?;
            let y = emit(m, b, None, as_uint, ids, out)?;
            let first = m.fresh_id();
            spec(out, &[ids.boolean, first, code, x, y]);
            spec(out, &[ty, id, SELECT, first, x, y]);
        }
        Expr::Binary(o, a, b) => {
            let (ta, tb) = (ty_of(a, ids), ty_of(b, ids));
            let code = opcode(*o, ta, tb);
            // OpUDiv and OpUMod take and give `uint` only; the other
            // operations any signedness (a comparison's operands each
            // their own).
            let unsigned_only = matches!(code, 134 | 137);
            let (ua, ub) = if unsigned_only {
                (true, true)
            } else {
                (ta == Ty::Uint, tb == Ty::Uint)
            };
            let x = emit(m, a, None, ua, ids, out)?;
            let y = emit(m, b, None, ub, ids, out)?;
            if unsigned_only && !as_uint {
                let q = m.fresh_id();
                spec(out, &[ids.uint, q, code, x, y]);
                let zero = constant(m, ty, 0, out);
                spec(out, &[ty, id, 128, q, zero]);
            } else {
                spec(out, &[ty, id, code, x, y]);
            }
        }
        Expr::Select(c, a, b) => {
            let c = emit(m, c, None, false, ids, out)?;
            let x = emit(m, a, None, as_uint, ids, out)?;
            let y = emit(m, b, None, as_uint, ids, out)?;
            spec(out, &[ty, id, SELECT, c, x, y]);
        }
        // `bool(n)`: `n != 0`.
        Expr::Cast(Ty::Bool, x) => {
            let own = is_uint(x, &uint_of);
            let x = emit(m, x, None, own, ids, out)?;
            let zero = constant(m, int_ty(own), 0, out);
            spec(out, &[ty, id, I_NOT_EQUAL, x, zero]);
        }
        // `int(b)`, `uint(b)` of a `bool`: `b ? 1 : 0`.
        Expr::Cast(_, x) => {
            let c = emit(m, x, None, false, ids, out)?;
            let one = constant(m, ty, 1, out);
            let zero = constant(m, ty, 0, out);
            spec(out, &[ty, id, SELECT, c, one, zero]);
        }
    }
    Ok(id)
}

/// The type of `e` with the names' types of `ids`.
fn ty_of(e: &Expr, ids: &Ids) -> Ty {
    ty(e, &|n: &str| ids.names.get(n).is_some_and(|x| x.1))
}

/// The module's `bool` type, declared where it has none (a module has one).
pub(super) fn bool_type(m: &mut Rewrite) -> u32 {
    const TYPE_BOOL: u16 = 20;
    if let Some(w) = m
        .insts
        .iter()
        .find(|w| Rewrite::op(w) == TYPE_BOOL && w.len() == 2)
    {
        return w[1];
    }
    let id = m.fresh_id();
    let at = m
        .insts
        .iter()
        .position(|w| (19..=39).contains(&Rewrite::op(w)) || Rewrite::op(w) == op::FUNCTION)
        .unwrap_or(m.insts.len());
    m.insts.insert(at, inst(TYPE_BOOL, &[id]));
    id
}

/// Drops the `ArrayStride` of each array whose elements hold an array of
/// one of `lengths` (`T a[2][n]`): naga computed it from the placeholder,
/// and no constant can be the specialized stride. Such arrays are never in
/// a block (refused), and arrays outside blocks need no stride (glslang
/// writes none); the specialized arrays keep theirs, their elements' size.
pub(super) fn drop_outer_strides(m: &mut Rewrite, lengths: &HashSet<u32>) {
    const ARRAY_STRIDE: u32 = 6;
    let arrays: Vec<(u32, u32, u32)> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == op::TYPE_ARRAY && w.len() == 4)
        .map(|w| (w[1], w[2], w[3]))
        .collect();
    let mut holding: HashSet<u32> = arrays
        .iter()
        .filter(|a| lengths.contains(&a.2))
        .map(|a| a.0)
        .collect();
    let mut outer: HashSet<u32> = HashSet::new();
    // Each round adds an array or ends: at most one round per array type.
    loop {
        let more: Vec<u32> = arrays
            .iter()
            .filter(|a| holding.contains(&a.1) && !outer.contains(&a.0))
            .map(|a| a.0)
            .collect();
        if more.is_empty() {
            break;
        }
        outer.extend(&more);
        holding.extend(more);
    }
    m.insts.retain(|w| {
        !(Rewrite::op(w) == op::DECORATE
            && w.len() == 4
            && w[2] == ARRAY_STRIDE
            && outer.contains(&w[1]))
    });
}
