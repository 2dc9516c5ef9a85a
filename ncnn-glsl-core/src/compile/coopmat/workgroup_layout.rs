//! `shared` arrays without an explicit layout. naga decorates every array
//! type `ArrayStride` (and struct members `Offset`), including the types of
//! `Workgroup` variables; Vulkan forbids that without
//! `workgroupMemoryExplicitLayout` (VUID-StandaloneSpirv-None-10684, which
//! the SPIRV-Tools that validate cooperative matrices check; glslang writes
//! none). The aggregates a `Workgroup` pointer reaches get an undecorated
//! copy (aggregates may be declared twice), and the `Workgroup` pointer
//! types point at the copies; buffers keep the decorated ones.
//!
//! Run on blobs with cooperative matrices: older SPIRV-Tools, which the
//! other blobs are checked with, do not check the rule.

use std::collections::HashMap;

use super::super::spirv_edit::Rewrite;
use crate::spirv::op;

const WORKGROUP: u32 = 4;

/// Gives the types of `Workgroup` variables undecorated copies.
pub(crate) fn strip(words: &mut Vec<u32>) -> Result<(), String> {
    let mut m = Rewrite::new(words)?;
    let aggregate = |m: &Rewrite, id: u32| {
        m.insts.iter().position(|w| {
            matches!(Rewrite::op(w), op::TYPE_ARRAY | op::TYPE_STRUCT) && w.get(1) == Some(&id)
        })
    };
    let roots: Vec<(usize, u32)> = m
        .insts
        .iter()
        .enumerate()
        .filter(|(_, w)| Rewrite::op(w) == op::TYPE_POINTER && w.get(2) == Some(&WORKGROUP))
        .filter_map(|(k, w)| Some((k, *w.get(3)?)))
        .filter(|(_, p)| aggregate(&m, *p).is_some())
        .collect();
    if roots.is_empty() {
        return Ok(());
    }
    // Copy each aggregate reachable from a root, members first.
    let mut copies: HashMap<u32, u32> = HashMap::new();
    fn copy(m: &mut Rewrite, id: u32, copies: &mut HashMap<u32, u32>, depth: u32) -> Option<u32> {
        if let Some(&c) = copies.get(&id) {
            return Some(c);
        }
        let at = m.insts.iter().position(|w| {
            matches!(Rewrite::op(w), op::TYPE_ARRAY | op::TYPE_STRUCT) && w.get(1) == Some(&id)
        })?;
        if depth > 64 {
            return None;
        }
        let mut w = m.insts[at].clone();
        let members: Vec<usize> = match Rewrite::op(&w) {
            op::TYPE_ARRAY => vec![2],
            _ => (2..w.len()).collect(),
        };
        for k in members {
            if let Some(c) = copy(m, w[k], copies, depth + 1) {
                w[k] = c;
            }
        }
        let new = m.fresh_id();
        w[1] = new;
        // Right after the original: what it uses is declared before it.
        let at = m.insts.iter().position(|x| {
            matches!(Rewrite::op(x), op::TYPE_ARRAY | op::TYPE_STRUCT) && x.get(1) == Some(&id)
        })?;
        m.insts.insert(at + 1, w);
        copies.insert(id, new);
        Some(new)
    }
    for (_, pointee) in &roots {
        copy(&mut m, *pointee, &mut copies, 0);
    }
    // Every Workgroup pointer to an aggregate points at its copy (the
    // indexes moved with the inserts: look them up again).
    for w in m.insts.iter_mut() {
        if Rewrite::op(w) == op::TYPE_POINTER && w.get(2) == Some(&WORKGROUP) {
            if let Some(&c) = w.get(3).and_then(|p| copies.get(p)) {
                w[3] = c;
            }
        }
    }
    // Whole loads and stores of such an aggregate take the copy's type.
    let wg_ptr_types: Vec<u32> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == op::TYPE_POINTER && w.get(2) == Some(&WORKGROUP))
        .filter_map(|w| w.get(1).copied())
        .collect();
    let pointers: std::collections::HashSet<u32> = m
        .insts
        .iter()
        .filter(|w| {
            matches!(
                Rewrite::op(w),
                op::VARIABLE | op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN
            ) && w.get(1).is_some_and(|t| wg_ptr_types.contains(t))
        })
        .filter_map(|w| w.get(2).copied())
        .collect();
    for w in m.insts.iter_mut() {
        if Rewrite::op(w) == op::LOAD && w.get(3).is_some_and(|p| pointers.contains(p)) {
            if let Some(&c) = copies.get(&w[1]) {
                w[1] = c;
            }
        }
    }
    m.order_globals()?;
    *words = m.words();
    Ok(())
}
