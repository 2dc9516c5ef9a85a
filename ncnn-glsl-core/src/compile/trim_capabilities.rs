//! naga declares every 16-bit capability as soon as a 16-bit type exists
//! (`Float16`, `StorageBuffer16BitAccess`, `UniformAndStorageBuffer16BitAccess`,
//! `StorageInputOutput16`), where glslang declares what the code uses. Each
//! extra capability is a device feature the runtime must demand, so an fp16s
//! variant would refuse devices ncnn runs it on. This pass drops what the
//! module does not use, judged from the SPIR-V itself.

use std::collections::{BTreeSet, HashSet};

use crate::spirv::{cap, instructions, op, storage};

/// What the pass changed, for tests and notes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trimmed {
    pub removed: Vec<u32>,
    pub added: Vec<u32>,
}

/// Removes capabilities the module does not need and adds
/// `StoragePushConstant16` where a push-constant block holds 16-bit data.
/// `Err` when the framing of `words` is broken.
pub(crate) fn trim_capabilities(words: &mut Vec<u32>) -> Result<Trimmed, String> {
    let insts = instructions(words)?;
    let declared: BTreeSet<u32> = insts
        .iter()
        .filter(|i| i.op == op::CAPABILITY)
        .filter_map(|i| i.operand(0))
        .collect();

    // Types that hold 16-bit data (any), and those that hold 16-bit floats.
    let mut holds16 = HashSet::new();
    let mut holds_f16 = HashSet::new();
    // Storage classes of pointers to 16-bit data; whether a pointer outside
    // the 16-bit storage classes holds a float16 (needs `Float16`).
    let mut classes16 = HashSet::new();
    let mut f16_elsewhere = false;
    let mut f16_values = HashSet::new();
    let mut f16_arith = false;
    let is_decl =
        |o: u16| (19..=39).contains(&o) || matches!(o, 1..=11 | 13..=17 | 71..=75 | 331 | 332);
    for i in &insts {
        let (Some(id), a1) = (i.operand(0), i.operand(1)) else {
            continue;
        };
        match i.op {
            op::TYPE_FLOAT | op::TYPE_INT if a1 == Some(16) => {
                holds16.insert(id);
                if i.op == op::TYPE_FLOAT {
                    holds_f16.insert(id);
                }
            }
            op::TYPE_VECTOR
            | op::TYPE_MATRIX
            | op::TYPE_ARRAY
            | op::TYPE_RUNTIME_ARRAY
            | op::TYPE_STRUCT => {
                let members = &i.words[2..];
                let members = if i.op == op::TYPE_STRUCT {
                    members
                } else {
                    &members[..1.min(members.len())]
                };
                if members.iter().any(|m| holds16.contains(m)) {
                    holds16.insert(id);
                }
                if members.iter().any(|m| holds_f16.contains(m)) {
                    holds_f16.insert(id);
                }
            }
            op::TYPE_POINTER => {
                let (Some(class), Some(pointee)) = (a1, i.operand(2)) else {
                    continue;
                };
                if holds16.contains(&pointee) {
                    classes16.insert(class);
                }
                let storage16 = [
                    storage::STORAGE_BUFFER,
                    storage::UNIFORM,
                    storage::PUSH_CONSTANT,
                    storage::INPUT,
                    storage::OUTPUT,
                ];
                if holds_f16.contains(&pointee) && !storage16.contains(&class) {
                    f16_elsewhere = true;
                }
            }
            o if is_decl(o) => {}
            o => {
                // The 16-bit storage capabilities allow float16 values only to
                // be loaded, stored, copied and converted; anything else is
                // arithmetic and needs `Float16`. Literal operands that happen
                // to equal an id only make this keep `Float16`: safe.
                let result_f16 = holds_f16.contains(&id);
                let moves = matches!(
                    o,
                    op::LOAD
                        | op::STORE
                        | op::COPY_OBJECT
                        | op::F_CONVERT
                        | op::ACCESS_CHAIN
                        | op::IN_BOUNDS_ACCESS_CHAIN
                        | op::VARIABLE
                );
                let uses_f16 = i.words[1..].iter().any(|w| f16_values.contains(w));
                if !moves && (result_f16 || uses_f16) {
                    f16_arith = true;
                }
                if result_f16 {
                    if let Some(r) = a1 {
                        f16_values.insert(r);
                    }
                }
            }
        }
    }

    let mut remove = Vec::new();
    let mut add = Vec::new();
    let io16 = classes16.contains(&storage::INPUT) || classes16.contains(&storage::OUTPUT);
    if declared.contains(&cap::STORAGE_INPUT_OUTPUT_16) && !io16 {
        remove.push(cap::STORAGE_INPUT_OUTPUT_16);
    }
    if declared.contains(&cap::UNIFORM_AND_STORAGE_BUFFER_16BIT_ACCESS)
        && !classes16.contains(&storage::UNIFORM)
    {
        remove.push(cap::UNIFORM_AND_STORAGE_BUFFER_16BIT_ACCESS);
    }
    let ssbo16 = classes16.contains(&storage::STORAGE_BUFFER);
    let ubo16 = classes16.contains(&storage::UNIFORM);
    if declared.contains(&cap::STORAGE_BUFFER_16BIT_ACCESS) && !ssbo16 && !ubo16 {
        remove.push(cap::STORAGE_BUFFER_16BIT_ACCESS);
    }
    if ubo16 && ssbo16 && !declared.contains(&cap::STORAGE_BUFFER_16BIT_ACCESS) {
        add.push(cap::STORAGE_BUFFER_16BIT_ACCESS);
    }
    if classes16.contains(&storage::PUSH_CONSTANT)
        && !declared.contains(&cap::STORAGE_PUSH_CONSTANT_16)
    {
        add.push(cap::STORAGE_PUSH_CONSTANT_16);
    }
    // Without arithmetic, the storage capabilities alone allow the float16
    // type; without any of them left, keep `Float16` so the type stays legal.
    let storage_caps_left = ssbo16 || ubo16 || io16 || classes16.contains(&storage::PUSH_CONSTANT);
    if declared.contains(&cap::FLOAT16) && !f16_arith && !f16_elsewhere && storage_caps_left {
        remove.push(cap::FLOAT16);
    }

    if remove.is_empty() && add.is_empty() {
        return Ok(Trimmed::default());
    }
    let last_cap_end = insts
        .iter()
        .filter(|i| i.op == op::CAPABILITY)
        .map(|i| i.at + i.words.len())
        .max()
        .unwrap_or(5);
    let mut out = Vec::with_capacity(words.len() + 2 * add.len());
    out.extend_from_slice(&words[..5]);
    for i in &insts {
        if i.op == op::CAPABILITY && i.operand(0).is_some_and(|c| remove.contains(&c)) {
            continue;
        }
        out.extend_from_slice(i.words);
        if i.at + i.words.len() == last_cap_end {
            for c in &add {
                out.extend_from_slice(&[(2 << 16) | op::CAPABILITY as u32, *c]);
            }
        }
    }
    *words = out;
    Ok(Trimmed {
        removed: remove,
        added: add,
    })
}
