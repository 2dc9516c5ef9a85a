//! The calls that survive to the words (see the module doc of
//! `coopmat.rs`): the body-less functions naga wrote for the constructors
//! and NV's multiply-add, recognized by their form and types, their calls
//! written as glslang's instructions (`OpCompositeConstruct`, or one
//! `OpConstantComposite` per value from a constant, the scalar converted to
//! the element type as GLSL converts it; `OpFConvert`;
//! `OpCooperativeMatrixMulAddNV`), and the functions removed.

use std::collections::{HashMap, HashSet};

use super::super::spirv_edit::{inst, is_type, Rewrite};
use super::words::{drop_names, literal, ops, used, Globals};
use super::Survivor;
use crate::spirv::op;

/// A body-less function naga wrote for a prototype: `OpFunction`, its
/// parameters, `OpLabel`, `OpReturnValue` of a null, `OpFunctionEnd` (a
/// function of the user's has a body; one without any returns no null of a
/// matrix it takes). Its result type and parameter types.
fn survivor_at(m: &Rewrite, at: usize) -> Option<(u32, u32, Vec<u32>)> {
    let f = &m.insts[at];
    if Rewrite::op(f) != op::FUNCTION {
        return None;
    }
    let (result, id) = (*f.get(1)?, *f.get(2)?);
    let mut params = Vec::new();
    let mut k = at + 1;
    while Rewrite::op(m.insts.get(k)?) == 55 {
        params.push(*m.insts[k].get(1)?);
        k += 1;
    }
    // Labels and branches between them, one return of a null, the end.
    let end = k + m.insts[k..]
        .iter()
        .position(|w| Rewrite::op(w) == ops::FUNCTION_END)?;
    let body = &m.insts[k..end];
    if !body
        .iter()
        .all(|w| matches!(Rewrite::op(w), 248 | 249 | 254))
    {
        return None;
    }
    let mut returns = body.iter().filter(|w| Rewrite::op(w) == 254);
    let (Some(ret), None) = (returns.next(), returns.next()) else {
        return None;
    };
    let null = *ret.get(1)?;
    let returns_null = m
        .insts
        .iter()
        .any(|w| Rewrite::op(w) == ops::CONSTANT_NULL && w.get(2) == Some(&null));
    returns_null.then_some((result, id, params))
}

/// What a surviving function is, from its types: three matrices, NV's
/// multiply-add; a scalar, a construction; a matrix, a copy or conversion.
fn survivor_kind(
    m: &Rewrite,
    result: u32,
    params: &[u32],
    coop: &HashSet<u32>,
) -> Option<Survivor> {
    if !coop.contains(&result) {
        return None;
    }
    match params {
        [a, b, c] if [a, b, c].iter().all(|p| coop.contains(p)) => Some(Survivor::MulAddNv),
        [p] if coop.contains(p) => Some(if *p == result {
            Survivor::Copy
        } else {
            Survivor::Convert
        }),
        [p] => m
            .insts
            .iter()
            .any(|w| matches!(Rewrite::op(w), op::TYPE_FLOAT | op::TYPE_INT) && w.get(1) == Some(p))
            .then_some(Survivor::Construct),
        _ => None,
    }
}

/// The IEEE half nearest `f` (ties to even), as bits.
fn f32_to_f16(f: f32) -> u32 {
    let b = f.to_bits();
    let sign = (b >> 16) & 0x8000;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    let round = |v: u32, shift: u32| {
        let half = 1 << (shift - 1);
        let rest = v & ((1 << shift) - 1);
        let q = v >> shift;
        if rest > half || (rest == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        return sign | round(m, (14 - e) as u32);
    }
    // The carry of the rounding moves into the exponent, as it should.
    sign | round(((e as u32) << 23) | man, 13)
}

/// The scalar `a` of type `from` as the element type `to` of a matrix:
/// a constant converted here, else a conversion instruction (returned, to
/// go before the construction).
fn convert_scalar(
    m: &mut Rewrite,
    a: u32,
    from: u32,
    to: u32,
) -> Result<(u32, Option<Vec<u32>>), String> {
    if from == to {
        return Ok((a, None));
    }
    let ty = |m: &Rewrite, id: u32| {
        m.insts
            .iter()
            .find(|w| is_type(Rewrite::op(w)) && w.get(1) == Some(&id))
            .cloned()
    };
    let (Some(f), Some(t)) = (ty(m, from), ty(m, to)) else {
        return Err("a matrix construction from a value of unknown type".into());
    };
    let to_width = t.get(2).copied().unwrap_or(32);
    let constant = m
        .insts
        .iter()
        .find(|w| Rewrite::op(w) == op::CONSTANT && w.get(2) == Some(&a))
        .and_then(|w| w.get(3).copied());
    let value = constant.map(|bits| match (Rewrite::op(&f), f.get(2), f.get(3)) {
        (op::TYPE_FLOAT, Some(32), _) => f64::from(f32::from_bits(bits)),
        (op::TYPE_INT, _, Some(1)) => f64::from(bits as i32),
        (op::TYPE_INT, _, _) => f64::from(bits),
        // A half: widened exactly through f32.
        _ => f64::from(half_to_f32(bits)),
    });
    if let Some(v) = value {
        let bits = if to_width == 16 {
            f32_to_f16(v as f32)
        } else {
            (v as f32).to_bits()
        };
        if let Some(w) = m
            .insts
            .iter()
            .find(|w| Rewrite::op(w) == op::CONSTANT && w.len() == 4 && w[1] == to && w[3] == bits)
        {
            return Ok((w[2], None));
        }
        let id = m.fresh_id();
        Globals { m }.declare(inst(op::CONSTANT, &[to, id, bits]));
        return Ok((id, None));
    }
    let opcode = match (Rewrite::op(&f), f.get(3)) {
        (op::TYPE_FLOAT, _) => op::F_CONVERT,
        (op::TYPE_INT, Some(1)) => 111,
        _ => 112,
    };
    let id = m.fresh_id();
    Ok((id, Some(inst(opcode, &[to, id, a]))))
}

/// A half's bits as an f32.
fn half_to_f32(h: u32) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f32;
    sign * match exp {
        0 => man * 2f32.powi(-24),
        0x1f if man == 0.0 => f32::INFINITY,
        0x1f => f32::NAN,
        e => (1.0 + man / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Rewrites the calls of the `expected` body-less functions that stood for
/// what naga's IR has no expression for (`coop`: the matrix types), and
/// removes those functions.
pub(crate) fn rewrite(m: &mut Rewrite, expected: usize, coop: &HashSet<u32>) -> Result<(), String> {
    if expected == 0 {
        return Ok(());
    }
    // Each function's kind and parameter type.
    let mut kinds: HashMap<u32, (Survivor, Vec<u32>)> = HashMap::new();
    for at in 0..m.insts.len() {
        if let Some((result, id, params)) = survivor_at(m, at) {
            if let Some(kind) = survivor_kind(m, result, &params, coop) {
                kinds.insert(id, (kind, params));
            }
        }
    }
    if kinds.len() != expected {
        return Err(format!(
            "{} surviving functions found, {expected} expected",
            kinds.len()
        ));
    }
    let component = |m: &Rewrite, ty: u32| {
        m.insts
            .iter()
            .find(|w| {
                matches!(Rewrite::op(w), ops::TYPE_COOP_KHR | ops::TYPE_COOP_NV)
                    && w.get(1) == Some(&ty)
            })
            .and_then(|w| w.get(2).copied())
    };
    let mut composites: Vec<Vec<u32>> = Vec::new();
    let mut aliases: HashMap<u32, u32> = HashMap::new();
    let mut k = 0;
    while k < m.insts.len() {
        let w = &m.insts[k];
        if Rewrite::op(w) != ops::FUNCTION_CALL {
            k += 1;
            continue;
        }
        let (ty, id, f) = (w[1], w[2], w[3]);
        let Some((kind, params)) = kinds.get(&f).cloned() else {
            k += 1;
            continue;
        };
        let args = w[4..].to_vec();
        let new = match (kind, args.as_slice()) {
            (Survivor::Construct, [a]) => {
                let elem = component(m, ty).ok_or("a construction of no matrix type")?;
                let (a, conversion) = convert_scalar(m, *a, params[0], elem)?;
                // `convert_scalar` may have declared a constant before the
                // functions: find the call again.
                k = m
                    .insts
                    .iter()
                    .position(|w| Rewrite::op(w) == ops::FUNCTION_CALL && w.get(2) == Some(&id))
                    .ok_or("a call went missing")?;
                let constant = m.insts.iter().any(|w| {
                    matches!(Rewrite::op(w), op::CONSTANT | ops::CONSTANT_NULL)
                        && w.get(2) == Some(&a)
                });
                if constant {
                    // One constant per value, as glslang: a second
                    // construction of it names the first.
                    match composites
                        .iter()
                        .find(|c: &&Vec<u32>| c[1] == ty && c[3] == a)
                    {
                        Some(first) => {
                            aliases.insert(id, first[2]);
                        }
                        None => composites.push(inst(op::CONSTANT_COMPOSITE, &[ty, id, a])),
                    }
                    m.insts.remove(k);
                    continue;
                }
                if let Some(c) = conversion {
                    m.insts.insert(k, c);
                    k += 1;
                }
                inst(ops::COMPOSITE_CONSTRUCT, &[ty, id, a])
            }
            (Survivor::Copy, [a]) => inst(op::COPY_OBJECT, &[ty, id, *a]),
            (Survivor::Convert, [a]) => inst(op::F_CONVERT, &[ty, id, *a]),
            (Survivor::MulAddNv, [a, b, c]) => inst(ops::COOP_MUL_ADD_NV, &[ty, id, *a, *b, *c]),
            _ => return Err("a surviving call has an unexpected form".into()),
        };
        m.insts[k] = new;
        k += 1;
    }
    // The functions themselves, their names and the null they return.
    let mut returned = Vec::new();
    for f in kinds.keys() {
        let Some(start) = m
            .insts
            .iter()
            .position(|w| Rewrite::op(w) == op::FUNCTION && w.get(2) == Some(f))
        else {
            continue;
        };
        let Some(len) = m.insts[start..]
            .iter()
            .position(|w| Rewrite::op(w) == ops::FUNCTION_END)
        else {
            return Err("a function without its end".into());
        };
        let body: Vec<Vec<u32>> = m.insts.drain(start..=start + len).collect();
        for w in &body {
            match Rewrite::op(w) {
                // OpReturnValue: its null, once nothing else uses it.
                254 => returned.extend(w.get(1).copied()),
                // Parameters: their names.
                55 => {
                    if let Some(&p) = w.get(2) {
                        drop_names(m, p);
                    }
                }
                _ => {}
            }
        }
        drop_names(m, *f);
    }
    for id in returned {
        if !used(m, id) {
            m.insts
                .retain(|w| !(Rewrite::op(w) == ops::CONSTANT_NULL && w.get(2) == Some(&id)));
        }
    }
    if !aliases.is_empty() {
        for w in m.insts.iter_mut() {
            let o = Rewrite::op(w);
            for (k, x) in w.iter_mut().enumerate().skip(1) {
                if !literal(o, k) {
                    if let Some(&to) = aliases.get(x) {
                        *x = to;
                    }
                }
            }
        }
    }
    let mut g = Globals { m };
    for c in composites {
        g.declare(c);
    }
    Ok(())
}
