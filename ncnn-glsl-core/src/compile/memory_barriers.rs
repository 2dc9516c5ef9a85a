//! `memoryBarrierShared()`, `memoryBarrierBuffer()`, `memoryBarrierImage()`,
//! `memoryBarrier()`, `groupMemoryBarrier()`: naga's GLSL frontend has none
//! of them ("Unknown function"), its IR has `Statement::MemoryBarrier`. naga
//! is given body-less prototypes (naga-only text, never shown to glslang) and
//! this pass turns each call into the barrier.
//!
//! What naga's writer emits for each, against glslang 12 (memory scope,
//! semantics; AcquireRelease = 0x8 in all):
//!
//! | call | glslang | here |
//! |---|---|---|
//! | `memoryBarrierShared` | Device, Workgroup | Workgroup, Workgroup |
//! | `memoryBarrierBuffer` | Device, Uniform | Device, Uniform |
//! | `memoryBarrierImage` | Device, Image | Device, Uniform\|Image |
//! | `memoryBarrier` | Device, Uniform\|Workgroup\|AtomicCounter\|Image | Device, Uniform\|Workgroup\|Image |
//! | `groupMemoryBarrier` | Workgroup, Uniform\|Workgroup\|AtomicCounter\|Image | Device, Uniform\|Workgroup\|Image |
//! | `subgroupMemoryBarrierShared` | Subgroup, Workgroup | Workgroup, Workgroup |
//! | `subgroupMemoryBarrierBuffer` | Subgroup, Uniform | Device, Uniform |
//! | `subgroupMemoryBarrierImage` | Subgroup, Image | Device, Uniform\|Image |
//! | `subgroupMemoryBarrier` | Subgroup, Uniform\|Workgroup\|AtomicCounter\|Image | Device, Uniform\|Workgroup\|Image |
//!
//! naga derives the scope from the memory kinds (Device exactly when storage
//! memory is included), so glslang's pairs cannot all be written. Each choice
//! orders at least what glslang's does: workgroup memory is only visible
//! inside the workgroup (Workgroup scope loses nothing there), the others are
//! as strong or stronger (a wider scope orders at least what a narrower
//! one does); AtomicCounter memory does not exist in Vulkan.

use std::collections::HashMap;

use naga::{Barrier, Block, Handle, Module, Statement};

/// The functions and the barrier each becomes.
const FUNCTIONS: &[(&str, Barrier)] = &[
    ("memoryBarrierShared", Barrier::WORK_GROUP),
    ("memoryBarrierBuffer", Barrier::STORAGE),
    (
        "memoryBarrierImage",
        Barrier::STORAGE.union(Barrier::TEXTURE),
    ),
    (
        "memoryBarrier",
        Barrier::STORAGE
            .union(Barrier::WORK_GROUP)
            .union(Barrier::TEXTURE),
    ),
    (
        "groupMemoryBarrier",
        Barrier::STORAGE
            .union(Barrier::WORK_GROUP)
            .union(Barrier::TEXTURE),
    ),
    ("subgroupMemoryBarrierShared", Barrier::WORK_GROUP),
    ("subgroupMemoryBarrierBuffer", Barrier::STORAGE),
    (
        "subgroupMemoryBarrierImage",
        Barrier::STORAGE.union(Barrier::TEXTURE),
    ),
    (
        "subgroupMemoryBarrier",
        Barrier::STORAGE
            .union(Barrier::WORK_GROUP)
            .union(Barrier::TEXTURE),
    ),
];

/// Whether the text calls one of them.
pub(crate) fn called(src: &str, toks: &[super::tokens::Token]) -> bool {
    toks.windows(2).any(|w| {
        w[0].kind == super::tokens::Kind::Ident
            && w[1].is_punct(src, '(')
            && FUNCTIONS.iter().any(|(n, _)| *n == w[0].text(src))
    })
}

/// The prototypes naga is given (one line).
pub(crate) fn prototypes() -> String {
    let mut s: String = FUNCTIONS
        .iter()
        .map(|(n, _)| format!("void {n}(); "))
        .collect();
    s.push('\n');
    s
}

/// Replaces every call of a prototype by its memory barrier; returns how many.
pub(crate) fn lower(module: &mut Module) -> usize {
    let protos: HashMap<Handle<naga::Function>, Barrier> = module
        .functions
        .iter()
        .filter(|(_, f)| f.body.is_empty() && f.arguments.is_empty() && f.result.is_none())
        .filter_map(|(h, f)| {
            let name = f.name.as_deref()?;
            FUNCTIONS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, b)| (h, *b))
        })
        .collect();
    if protos.is_empty() {
        return 0;
    }
    let mut n = 0;
    for (_, f) in module.functions.iter_mut() {
        n += lower_block(&mut f.body, &protos);
    }
    for ep in module.entry_points.iter_mut() {
        n += lower_block(&mut ep.function.body, &protos);
    }
    n
}

fn lower_block(block: &mut Block, protos: &HashMap<Handle<naga::Function>, Barrier>) -> usize {
    let mut n = 0;
    super::ir_walk::each_mut(block, &mut |s, _| {
        if let Statement::Call {
            function,
            result: None,
            ..
        } = s
        {
            if let Some(&barrier) = protos.get(function) {
                *s = Statement::MemoryBarrier(barrier);
                n += 1;
            }
        }
    });
    n
}
