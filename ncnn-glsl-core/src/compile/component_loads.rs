//! One component of a 16-bit vector in a buffer, loaded through an access
//! chain. For `buf[i].x` naga loads the whole `f16vec4` and extracts the
//! component: an operation on a 16-bit value, which needs `Float16` (or
//! `Int16`), where glslang loads the component through an access chain and
//! needs only 16-bit storage. An fp16s variant of ncnn's pack4-to-1 copies
//! then asked for `shaderFloat16`, which ncnn's fp16s devices need not have.
//!
//! This word pass writes glslang's form: `%v = OpLoad %v4half %p` followed
//! by `%e = OpCompositeExtract %half %v k` becomes, at the extract,
//! `%q = OpAccessChain %ptr_half %p %k` and `%e = OpLoad %half %q`. Only
//! where nothing between the load and the extract can write memory (no
//! store, call, atomic or barrier, the same block), so both read the same
//! value. The whole load stays (a move, which 16-bit storage allows); the
//! capability pass after this one then finds no 16-bit arithmetic.

use std::collections::HashMap;

use super::spirv_edit::{inst, Rewrite};
use crate::spirv::{op, storage};

const COMPOSITE_EXTRACT: u16 = 81;
const FUNCTION: u16 = 54;
/// The furthest an extract may follow its load, in instructions.
const MAX_DISTANCE: usize = 64;

/// Whether `o` may write memory or leave the block.
fn barrier_to_moving(o: u16) -> bool {
    matches!(
        o,
        op::STORE | 63 | 64 | 57 | 224 | 225 | 227..=242 | 246..=256
    )
}

/// Rewrites every such extract; returns how many. `Err` when the framing of
/// `words` is broken.
pub(crate) fn load_components(words: &mut Vec<u32>) -> Result<usize, String> {
    let mut m = Rewrite::new(words)?;
    // 16-bit scalar types; vectors of them, with their component type.
    let mut scalar16 = Vec::new();
    let mut vec16: HashMap<u32, u32> = HashMap::new();
    let mut uint = None;
    // Pointer types: id -> (class, pointee), and back.
    let mut pointers: HashMap<u32, (u32, u32)> = HashMap::new();
    let mut pointer_of: HashMap<(u32, u32), u32> = HashMap::new();
    let mut uint_consts: HashMap<u32, u32> = HashMap::new();
    // Result id -> result type, of the instructions a pointer comes from.
    let mut type_of: HashMap<u32, u32> = HashMap::new();
    for w in &m.insts {
        match (Rewrite::op(w), w.get(1..).unwrap_or(&[])) {
            (op::TYPE_FLOAT, [id, 16, ..]) | (op::TYPE_INT, [id, 16, _]) => scalar16.push(*id),
            (op::TYPE_INT, [id, 32, 0]) => uint = Some(*id),
            (op::TYPE_VECTOR, [id, c, _]) if scalar16.contains(c) => {
                vec16.insert(*id, *c);
            }
            (op::TYPE_POINTER, [id, class, pointee]) => {
                pointers.insert(*id, (*class, *pointee));
                pointer_of.entry((*class, *pointee)).or_insert(*id);
            }
            (op::CONSTANT, [ty, id, value]) if Some(*ty) == uint => {
                uint_consts.entry(*value).or_insert(*id);
            }
            (op::VARIABLE | op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN, [ty, id, ..]) => {
                type_of.insert(*id, *ty);
            }
            _ => {}
        }
    }
    let Some(uint) = uint else {
        return Ok(0);
    };
    let buffer_class = |c: u32| {
        matches!(
            c,
            storage::STORAGE_BUFFER | storage::UNIFORM | storage::PUSH_CONSTANT
        )
    };

    // Loads of a 16-bit vector from a buffer: result id -> (index, pointer, class).
    let mut loads: HashMap<u32, (usize, u32, u32)> = HashMap::new();
    let mut edits: Vec<(usize, u32, u32, u32, u32, u32)> = Vec::new();
    for (k, w) in m.insts.iter().enumerate() {
        match (Rewrite::op(w), w.get(1..).unwrap_or(&[])) {
            (op::LOAD, [ty, id, ptr, ..]) if vec16.contains_key(ty) => {
                let class = type_of.get(ptr).and_then(|t| pointers.get(t)).map(|p| p.0);
                if let Some(class) = class.filter(|c| buffer_class(*c)) {
                    loads.insert(*id, (k, *ptr, class));
                }
            }
            (COMPOSITE_EXTRACT, [ty, id, composite, index]) => {
                let Some(&(at, ptr, class)) = loads.get(composite) else {
                    continue;
                };
                let near = k - at <= MAX_DISTANCE;
                if near
                    && !m.insts[at + 1..k]
                        .iter()
                        .any(|v| barrier_to_moving(Rewrite::op(v)))
                {
                    edits.push((k, *ty, *id, ptr, class, *index));
                }
            }
            _ => {}
        }
    }
    if edits.is_empty() {
        return Ok(0);
    }

    // Pointer types and index constants the chains need, made once.
    let mut globals = Vec::new();
    let mut rewritten: Vec<(usize, Vec<u32>)> = Vec::new();
    for &(k, ty, id, ptr, class, index) in &edits {
        let ptr_ty = match pointer_of.get(&(class, ty)) {
            Some(&p) => p,
            None => {
                let p = m.fresh_id();
                globals.push(inst(op::TYPE_POINTER, &[p, class, ty]));
                pointer_of.insert((class, ty), p);
                p
            }
        };
        let k_id = match uint_consts.get(&index) {
            Some(&c) => c,
            None => {
                let c = m.fresh_id();
                globals.push(inst(op::CONSTANT, &[uint, c, index]));
                uint_consts.insert(index, c);
                c
            }
        };
        let chain = m.fresh_id();
        let mut words = inst(op::ACCESS_CHAIN, &[ptr_ty, chain, ptr, k_id]);
        words.extend(inst(op::LOAD, &[ty, id, chain]));
        rewritten.push((k, words));
    }
    for (k, words) in rewritten {
        m.insts[k] = words;
    }
    if !globals.is_empty() {
        let at = m
            .insts
            .iter()
            .position(|w| Rewrite::op(w) == FUNCTION)
            .ok_or("a module with code and no function")?;
        m.insts.splice(at..at, globals);
    }
    let n = edits.len();
    *words = m.words();
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::MAGIC;

    /// Types: %1 half, %2 v4half, %3 ptr SB v4half, %4 uint, %5 uint 2;
    /// %6 a pointer into the buffer; in a function, %7 = load %6, then
    /// `between`, then %8 = extract %7 2.
    fn module(between: &[Vec<u32>]) -> Vec<u32> {
        let mut w = vec![MAGIC, 0x10300, 0, 20, 0];
        for i in [
            inst(op::TYPE_FLOAT, &[1, 16]),
            inst(op::TYPE_VECTOR, &[2, 1, 4]),
            inst(op::TYPE_POINTER, &[3, storage::STORAGE_BUFFER, 2]),
            inst(op::TYPE_INT, &[4, 32, 0]),
            inst(op::CONSTANT, &[4, 5, 2]),
            inst(op::VARIABLE, &[3, 6, storage::STORAGE_BUFFER]),
            inst(FUNCTION, &[9, 10, 0, 11]),
            inst(op::LOAD, &[2, 7, 6]),
        ] {
            w.extend(i);
        }
        for i in between {
            w.extend(i);
        }
        w.extend(inst(COMPOSITE_EXTRACT, &[1, 8, 7, 2]));
        w
    }

    #[test]
    fn the_extract_becomes_a_load_through_a_chain() {
        let mut w = module(&[]);
        assert_eq!(load_components(&mut w).unwrap(), 1);
        let m = Rewrite::new(&w).unwrap();
        // A pointer type to `half` in the buffer is made before the function.
        assert_eq!(
            m.insts[6],
            inst(op::TYPE_POINTER, &[20, storage::STORAGE_BUFFER, 1])
        );
        assert_eq!(Rewrite::op(&m.insts[7]), FUNCTION);
        assert_eq!(m.insts[9], inst(op::ACCESS_CHAIN, &[20, 21, 6, 5]));
        assert_eq!(m.insts[10], inst(op::LOAD, &[1, 8, 21]));
        assert_eq!(m.header[3], 22);
    }

    #[test]
    fn not_past_a_store_a_call_or_the_end_of_a_block() {
        for between in [
            inst(op::STORE, &[6, 7]),
            inst(57, &[1, 12, 10]),
            inst(224, &[5, 5, 5]),
            inst(248, &[13]),
        ] {
            let mut w = module(&[between]);
            let before = w.clone();
            assert_eq!(load_components(&mut w).unwrap(), 0);
            assert_eq!(w, before);
        }
    }
}
