//! Bounds clamps of arrays sized by specialization constants. naga compiled
//! them at a placeholder length, so its clamps (`BoundsCheckPolicy::Restrict`)
//! bound the placeholder: a dynamic index `i` is `UMin(i, placeholder - 1)`,
//! and a constant one is not clamped at all (naga sees it in bounds).
//! Both are rewritten to bound the length the pipeline specializes, at the
//! access chain that indexes such an array: the `UMin` feeding its index
//! takes `length - 1`, and a constant index `k` becomes `min(k, length - 1)`,
//! as `OpSpecConstantOp`s (which have no `UMin`:
//! `last + ((k - last) & ((k - last) >> 31))`, for indices below 2^31).
//!
//! Each edit is made where the chain uses the value, never to the constant
//! itself: naga shares one `OpConstant` among equal literals, so the clamp's
//! `placeholder - 1` may be the user's literal too.

use std::collections::{HashMap, HashSet};

use crate::compile::spirv_edit::{inst, Rewrite};
use crate::spirv::op;

const IADD: u32 = 128;
const ISUB: u32 = 130;
const SHIFT_RIGHT_ARITHMETIC: u32 = 195;
const BITWISE_AND: u32 = 199;
/// `OpFunctionParameter`: a pointer an access chain may start from.
const FUNCTION_PARAMETER: u16 = 55;
/// `UMin` of the `GLSL.std.450` instructions.
const UMIN: u32 = 38;

/// Rewrites the clamps of the arrays whose length ids are `lengths` (by the
/// placeholder each replaced). `uint` is the module's `uint` type. `Err`
/// where an index into such an array is neither a constant nor naga's clamp:
/// it would be unbounded.
pub(super) fn rewrite(
    m: &mut Rewrite,
    lengths: &HashMap<u32, u32>,
    uint: u32,
) -> Result<(), String> {
    let placeholder_of: HashMap<u32, u32> = lengths.iter().map(|(&p, &l)| (l, p)).collect();
    let glsl = glsl_import(m);
    // Types, constants and ext-insts by id; the type of each pointer a
    // chain starts from.
    let mut types: HashMap<u32, usize> = HashMap::new();
    let mut constants: HashMap<u32, u32> = HashMap::new();
    let mut defs: HashMap<u32, usize> = HashMap::new();
    let mut pointer_of: HashMap<u32, u32> = HashMap::new();
    for (i, w) in m.insts.iter().enumerate() {
        match Rewrite::op(w) {
            19..=39 if w.len() > 1 => {
                types.insert(w[1], i);
            }
            op::CONSTANT if w.len() == 4 => {
                constants.insert(w[2], w[3]);
            }
            op::EXT_INST if w.len() > 2 => {
                defs.insert(w[2], i);
            }
            op::VARIABLE | op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN | FUNCTION_PARAMETER
                if w.len() > 2 =>
            {
                pointer_of.insert(w[2], w[1]);
            }
            _ => {}
        }
    }
    let pointee = |ty: u32| {
        let w = &m.insts[*types.get(&ty)?];
        (Rewrite::op(w) == op::TYPE_POINTER).then(|| w.get(3).copied())?
    };
    // Each index into a specialized array: (instruction, operand, index, length).
    let mut constant_edits = Vec::new();
    let mut umin_edits = Vec::new();
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
                    if let Some(&placeholder) = placeholder_of.get(&t[3]) {
                        if constants.contains_key(&index) {
                            constant_edits.push((i, 4 + k, index, t[3]));
                        } else {
                            let clamp = defs
                                .get(&index)
                                .filter(|&&at| {
                                    is_clamp(&m.insts[at], glsl, &constants, placeholder)
                                })
                                .ok_or_else(|| {
                                    format!(
                                        "an index (%{index}) into an array sized by \
                                         specialization constants is not naga's clamp"
                                    )
                                })?;
                            umin_edits.push((*clamp, t[3]));
                        }
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
    let mut fresh = Vec::new();
    let mut new_constant = |m: &mut Rewrite, value: u32| {
        let id = m.fresh_id();
        fresh.push(inst(op::CONSTANT, &[uint, id, value]));
        id
    };
    let one = new_constant(m, 1);
    let c31 = new_constant(m, 31);
    // `length - 1` of each length, made where first needed.
    let mut last: HashMap<u32, u32> = HashMap::new();
    let mut last_of = |m: &mut Rewrite, length: u32, fresh: &mut Vec<Vec<u32>>| {
        *last.entry(length).or_insert_with(|| {
            let id = m.fresh_id();
            fresh.push(inst(op::SPEC_CONSTANT_OP, &[uint, id, ISUB, length, one]));
            id
        })
    };
    let mut rewritten: HashSet<usize> = HashSet::new();
    for (at, length) in umin_edits {
        if rewritten.insert(at) {
            let last = last_of(m, length, &mut fresh);
            m.insts[at][6] = last;
        }
    }
    let mut clamped: HashMap<(u32, u32), u32> = HashMap::new();
    for (i, at, index, length) in constant_edits {
        let id = *clamped.entry((index, length)).or_insert_with(|| {
            let last = last_of(m, length, &mut fresh);
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
    let at = m
        .insts
        .iter()
        .position(|w| Rewrite::op(w) == op::FUNCTION)
        .unwrap_or(m.insts.len());
    m.insts.splice(at..at, fresh);
    Ok(())
}

/// The id of the `GLSL.std.450` import (0 without one).
fn glsl_import(m: &Rewrite) -> u32 {
    m.insts
        .iter()
        .find(|w| {
            Rewrite::op(w) == op::EXT_INST_IMPORT
                && w.len() > 2
                && w[2..]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .take_while(|&b| b != 0)
                    .eq(*b"GLSL.std.450")
        })
        .map_or(0, |w| w[1])
}

/// Whether `w` is naga's clamp of an index into an array of the placeholder
/// length `placeholder`: `UMin(i, placeholder - 1)`.
fn is_clamp(w: &[u32], glsl: u32, constants: &HashMap<u32, u32>, placeholder: u32) -> bool {
    // header, result type, result, set, instruction, x, y
    w.len() == 7 && w[3] == glsl && w[4] == UMIN && constants.get(&w[6]) == Some(&(placeholder - 1))
}
