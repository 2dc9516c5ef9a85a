//! Puts back what dropping `writeonly` lost: glslang decorates a `writeonly`
//! buffer `NonReadable`, which lets a driver skip caching reads it will
//! never see. naga never saw the qualifier, so the decoration is added to the
//! words, on the variable (where naga puts `NonWritable` for `readonly`).

use std::collections::HashMap;

use crate::spirv::{decoration, instructions, op};

/// Decorates `NonReadable` the variables bound at the `(set, binding)`s of
/// `writeonly`. `Err` when the framing of `words` is broken.
pub(crate) fn decorate_writeonly(
    words: &mut Vec<u32>,
    writeonly: &[(u32, u32)],
) -> Result<(), String> {
    if writeonly.is_empty() {
        return Ok(());
    }
    let insts = instructions(words)?;
    let mut sets = HashMap::new();
    let mut bindings = HashMap::new();
    let mut annotations_end = None;
    for i in &insts {
        if matches!(i.op, op::DECORATE | op::MEMBER_DECORATE) {
            annotations_end = Some(i.at + i.words.len());
        }
        if i.op != op::DECORATE {
            continue;
        }
        match (i.operand(0), i.operand(1), i.operand(2)) {
            (Some(id), Some(decoration::DESCRIPTOR_SET), Some(v)) => {
                sets.insert(id, v);
            }
            (Some(id), Some(decoration::BINDING), Some(v)) => {
                bindings.insert(id, v);
            }
            _ => {}
        }
    }
    let Some(at) = annotations_end else {
        return Ok(());
    };
    let mut ids: Vec<u32> = bindings
        .iter()
        .filter(|(id, b)| writeonly.contains(&(sets.get(id).copied().unwrap_or(0), **b)))
        .map(|(id, _)| *id)
        .collect();
    ids.sort_unstable();
    let added: Vec<u32> = ids
        .iter()
        .flat_map(|id| {
            [
                (3 << 16) | op::DECORATE as u32,
                *id,
                decoration::NON_READABLE,
            ]
        })
        .collect();
    words.splice(at..at, added);
    Ok(())
}
