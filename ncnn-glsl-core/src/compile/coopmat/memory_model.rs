//! The Vulkan memory model, as glslang writes it. naga's writer declares
//! `VulkanMemoryModel` (and `OpMemoryModel Logical Vulkan`) whenever a
//! cooperative matrix type exists; glslang does too. Under that model a
//! memory access without `NonPrivatePointer` is private to its invocation:
//! `barrier()` no longer makes another invocation's plain write to `shared`
//! memory visible. GLSL's `shared` variables are implicitly coherent, so
//! glslang writes every `shared` load `MakePointerVisible|NonPrivatePointer`
//! and every store `MakePointerAvailable|NonPrivatePointer`, at Workgroup
//! scope (buffers keep plain accesses: they are not coherent in GLSL), and
//! writes a Device scope as QueueFamily (a Device scope would need the
//! device feature `vulkanMemoryModelDeviceScope`). naga writes plain
//! accesses and Device scopes: this pass writes glslang's, on every
//! `OpLoad`, `OpStore`, cooperative load and store, barrier and atomic.

use std::collections::HashMap;

use super::super::spirv_edit::{inst, Rewrite};
use super::words::ops;
use crate::spirv::op;

/// SPIR-V's storage class Workgroup.
const WORKGROUP: u32 = 4;
/// Scopes.
const DEVICE: u32 = 1;
const WORKGROUP_SCOPE: u32 = 2;
const QUEUE_FAMILY: u32 = 5;
/// Memory operand bits.
const MAKE_AVAILABLE: u32 = 0x8;
const MAKE_VISIBLE: u32 = 0x10;
const NON_PRIVATE: u32 = 0x20;

const CONTROL_BARRIER: u16 = 224;
const MEMORY_BARRIER: u16 = 225;
const ATOMIC_STORE: u16 = 228;
const FUNCTION_PARAMETER: u16 = 55;

/// Rewrites `words` for the Vulkan memory model when they declare it;
/// nothing otherwise.
pub(crate) fn fix(words: &mut Vec<u32>) -> Result<(), String> {
    let declared = crate::spirv::walk(words)
        .map_while(Result::ok)
        .any(|i| i.op == op::CAPABILITY && i.operand(0) == Some(ops::CAP_VULKAN_MEMORY_MODEL));
    if !declared {
        return Ok(());
    }
    let mut m = Rewrite::new(words)?;
    // The storage class of every pointer value.
    let class: HashMap<u32, u32> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == op::TYPE_POINTER)
        .filter_map(|w| Some((*w.get(1)?, *w.get(2)?)))
        .collect();
    let pointer_class: HashMap<u32, u32> = m
        .insts
        .iter()
        .filter(|w| {
            matches!(
                Rewrite::op(w),
                op::VARIABLE
                    | op::ACCESS_CHAIN
                    | op::IN_BOUNDS_ACCESS_CHAIN
                    | FUNCTION_PARAMETER
                    | op::COPY_OBJECT
            )
        })
        .filter_map(|w| Some((*w.get(2)?, *class.get(w.get(1)?)?)))
        .collect();
    let shared = |p: u32| pointer_class.get(&p) == Some(&WORKGROUP);
    let device: Vec<u32> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == op::CONSTANT && w.len() == 4 && w[3] == DEVICE)
        .map(|w| w[2])
        .collect();
    // What to change: (instruction, first memory operand, bits) and
    // (instruction, operand of a Device scope).
    let mut accesses = Vec::new();
    let mut scopes = Vec::new();
    for (k, w) in m.insts.iter().enumerate() {
        let o = Rewrite::op(w);
        // (index of the pointer, index of the first memory operand, bits)
        let access = match o {
            op::LOAD => Some((3, 4, MAKE_VISIBLE)),
            op::STORE => Some((1, 3, MAKE_AVAILABLE)),
            ops::COOP_LOAD_KHR | ops::COOP_LOAD_NV => Some((3, 6, MAKE_VISIBLE)),
            ops::COOP_STORE_KHR | ops::COOP_STORE_NV => Some((1, 5, MAKE_AVAILABLE)),
            _ => None,
        };
        if let Some((ptr, first, bits)) = access {
            if w.get(ptr).is_some_and(|p| shared(*p)) {
                accesses.push((k, first, bits | NON_PRIVATE));
            }
            continue;
        }
        // Scopes of barriers and atomics: operand index of the memory scope.
        let at = match o {
            CONTROL_BARRIER => Some(2),
            MEMORY_BARRIER => Some(1),
            ATOMIC_STORE => Some(2),
            // The other atomics: result type, result, pointer, scope.
            227 | 229..=242 => Some(4),
            _ => None,
        };
        if let Some(at) = at {
            if w.get(at).is_some_and(|s| device.contains(s)) {
                scopes.push((k, at));
            }
        }
    }
    if accesses.is_empty() && scopes.is_empty() {
        return Ok(());
    }
    // Declared before the first function: the indexes above shift by one
    // each, all of them (every one is inside a function).
    let mut shift = 0;
    let scope = if accesses.is_empty() {
        0
    } else {
        constant(&mut m, WORKGROUP_SCOPE, &mut shift)
    };
    let queue_family = if scopes.is_empty() {
        0
    } else {
        constant(&mut m, QUEUE_FAMILY, &mut shift)
    };
    for (k, first, bits) in accesses {
        add_operands(&mut m.insts[k + shift], first, bits, scope);
    }
    for (k, at) in scopes {
        m.insts[k + shift][at] = queue_family;
    }
    m.order_globals()?;
    *words = m.words();
    Ok(())
}

/// Sets `bits` in the memory operands starting at word `first` (adding
/// them when there are none) and appends `scope` for the new bits.
fn add_operands(w: &mut Vec<u32>, first: usize, bits: u32, scope: u32) {
    let op = Rewrite::op(w);
    if w.len() <= first {
        w.truncate(first);
        w.push(bits);
        w.push(scope);
    } else {
        let had = w[first];
        if had & (MAKE_AVAILABLE | MAKE_VISIBLE) != 0 {
            return;
        }
        // Operands follow in bit order: `Aligned`'s literal (0x2) comes
        // before the scope of the availability bits.
        w[first] = had | bits;
        w.push(scope);
    }
    w[0] = ((w.len() as u32) << 16) | u32::from(op);
}

/// The `uint` constant `v`, declared before the first function when
/// missing (then `shift` counts the instructions inserted).
fn constant(m: &mut Rewrite, v: u32, shift: &mut usize) -> u32 {
    let before = m.insts.len();
    let ty = m.int_type(false);
    let found = m
        .insts
        .iter()
        .find(|w| Rewrite::op(w) == op::CONSTANT && w.len() == 4 && w[1] == ty && w[3] == v)
        .map(|w| w[2]);
    let id = match found {
        Some(id) => id,
        None => {
            let id = m.fresh_id();
            let at = m
                .insts
                .iter()
                .position(|w| Rewrite::op(w) == op::FUNCTION)
                .unwrap_or(m.insts.len());
            m.insts.insert(at, inst(op::CONSTANT, &[ty, id, v]));
            id
        }
    };
    *shift += m.insts.len() - before;
    id
}
