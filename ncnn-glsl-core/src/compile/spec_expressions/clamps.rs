//! Bounds clamps of arrays sized by specialization constants. naga compiled
//! them at a placeholder length, so its clamps (`BoundsCheckPolicy::Restrict`)
//! bound the placeholder: a dynamic index is clamped to the placeholder's last
//! index, and a constant one is not clamped at all (naga sees it in bounds).
//! Both are rewritten to bound the length the pipeline specializes: the
//! clamp's constant becomes `length - 1`, and a constant index `k` becomes
//! `min(k, length - 1)`, as `OpSpecConstantOp`s (which have no `UMin`:
//! `last + ((k - last) & ((k - last) >> 31))`, for indices below 2^31).

use std::collections::HashMap;

use crate::compile::spirv_edit::{inst, Rewrite};
use crate::spirv::op;

const IADD: u32 = 128;
const ISUB: u32 = 130;
const SHIFT_RIGHT_ARITHMETIC: u32 = 195;
const BITWISE_AND: u32 = 199;

/// Rewrites the clamps of the arrays whose length ids are `lengths` (by the
/// placeholder each replaced). `uint` is the module's `uint` type.
pub(super) fn rewrite(m: &mut Rewrite, lengths: &HashMap<u32, u32>, uint: u32) {
    let mut fresh = Vec::new();
    let constant = |m: &mut Rewrite, value: u32, fresh: &mut Vec<Vec<u32>>| {
        let id = m.fresh_id();
        fresh.push(inst(op::CONSTANT, &[uint, id, value]));
        id
    };
    let one = constant(m, 1, &mut fresh);
    // `length - 1` of each length, made where first needed.
    let mut last: HashMap<u32, u32> = HashMap::new();
    let mut last_of = |m: &mut Rewrite, length: u32, fresh: &mut Vec<Vec<u32>>| {
        *last.entry(length).or_insert_with(|| {
            let id = m.fresh_id();
            fresh.push(inst(op::SPEC_CONSTANT_OP, &[uint, id, ISUB, length, one]));
            id
        })
    };
    // naga's clamp of a dynamic index: `OpConstant %uint (placeholder - 1)`.
    let by_last: HashMap<u32, u32> = lengths.iter().map(|(&p, &l)| (p - 1, l)).collect();
    for i in 0..m.insts.len() {
        let w = &m.insts[i];
        if Rewrite::op(w) == op::CONSTANT && w.len() == 4 && w[1] == uint {
            if let Some(&length) = by_last.get(&w[3]) {
                let id = w[2];
                m.insts[i] = inst(op::SPEC_CONSTANT_OP, &[uint, id, ISUB, length, one]);
            }
        }
    }
    let c31 = constant(m, 31, &mut fresh);
    constant_indices(m, lengths, uint, c31, &mut fresh, &mut last_of);
    let at = m
        .insts
        .iter()
        .position(|w| Rewrite::op(w) == op::FUNCTION)
        .unwrap_or(m.insts.len());
    m.insts.splice(at..at, fresh);
}

/// Clamps each constant index into an array of one of `lengths`, in every
/// access chain (`c31`: the constant 31).
fn constant_indices(
    m: &mut Rewrite,
    lengths: &HashMap<u32, u32>,
    uint: u32,
    c31: u32,
    fresh: &mut Vec<Vec<u32>>,
    last_of: &mut impl FnMut(&mut Rewrite, u32, &mut Vec<Vec<u32>>) -> u32,
) {
    let specialized: std::collections::HashSet<u32> = lengths.values().copied().collect();
    // Types and constants by id; the type of each pointer a chain starts from.
    let mut types: HashMap<u32, usize> = HashMap::new();
    let mut constants: HashMap<u32, u32> = HashMap::new();
    let mut pointer_of: HashMap<u32, u32> = HashMap::new();
    for (i, w) in m.insts.iter().enumerate() {
        match Rewrite::op(w) {
            19..=39 if w.len() > 1 => {
                types.insert(w[1], i);
            }
            op::CONSTANT if w.len() == 4 => {
                constants.insert(w[2], w[3]);
            }
            op::VARIABLE | op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN if w.len() > 2 => {
                pointer_of.insert(w[2], w[1]);
            }
            _ => {}
        }
    }
    let pointee = |ty: u32| {
        let w = &m.insts[*types.get(&ty)?];
        (Rewrite::op(w) == op::TYPE_POINTER).then(|| w.get(3).copied())?
    };
    let mut clamped: HashMap<(u32, u32), u32> = HashMap::new();
    let mut edits = Vec::new();
    for (i, w) in m.insts.iter().enumerate() {
        if !matches!(
            Rewrite::op(w),
            op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN
        ) || w.len() < 5
        {
            continue;
        }
        let Some(mut ty) = pointer_of.get(&w[3]).and_then(|&p| pointee(p)) else {
            continue;
        };
        for (k, &index) in w[4..].iter().enumerate() {
            let Some(t) = types.get(&ty).map(|&at| &m.insts[at]) else {
                break;
            };
            match Rewrite::op(t) {
                op::TYPE_ARRAY if t.len() == 4 => {
                    if specialized.contains(&t[3]) && constants.contains_key(&index) {
                        edits.push((i, 4 + k, index, t[3]));
                    }
                    ty = t[2];
                }
                op::TYPE_RUNTIME_ARRAY | op::TYPE_VECTOR | op::TYPE_MATRIX => ty = t[2],
                op::TYPE_STRUCT => match constants.get(&index) {
                    Some(&member) if (member as usize) + 2 < t.len() => ty = t[2 + member as usize],
                    _ => break,
                },
                _ => break,
            }
        }
    }
    for (i, at, index, length) in edits {
        let id = *clamped.entry((index, length)).or_insert_with(|| {
            let last = last_of(m, length, fresh);
            let [d, mask, and, min] = [(); 4].map(|_| m.fresh_id());
            fresh.push(inst(op::SPEC_CONSTANT_OP, &[uint, d, ISUB, index, last]));
            fresh.push(inst(
                op::SPEC_CONSTANT_OP,
                &[uint, mask, SHIFT_RIGHT_ARITHMETIC, d, c31],
            ));
            fresh.push(inst(
                op::SPEC_CONSTANT_OP,
                &[uint, and, BITWISE_AND, d, mask],
            ));
            fresh.push(inst(op::SPEC_CONSTANT_OP, &[uint, min, IADD, last, and]));
            min
        });
        m.insts[i][at] = id;
    }
}
