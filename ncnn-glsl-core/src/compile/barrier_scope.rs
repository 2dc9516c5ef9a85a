//! `barrier()`: naga's GLSL frontend makes it `ControlBarrier(Barrier::all())`,
//! which its SPIR-V writer emits with Subgroup execution scope and Device
//! memory scope. Subgroup execution scope does not wait for the rest of the
//! workgroup (AMD's and Intel's compilers emit no workgroup barrier for it),
//! so shared-memory code races. GLSL's `barrier()` in a compute shader is
//! glslang's `OpControlBarrier Workgroup Workgroup AcquireRelease|WorkgroupMemory`;
//! naga writes exactly that for `ControlBarrier(Barrier::WORK_GROUP)`.

use naga::{Barrier, Block, Module, Statement};

/// Rewrites every control barrier that includes subgroup scope to the
/// workgroup barrier glslang emits. Returns how many were rewritten.
pub(crate) fn fix_barrier_scope(module: &mut Module) -> usize {
    let mut n = 0;
    for (_, f) in module.functions.iter_mut() {
        n += fix_block(&mut f.body);
    }
    for ep in module.entry_points.iter_mut() {
        n += fix_block(&mut ep.function.body);
    }
    n
}

fn fix_block(block: &mut Block) -> usize {
    let mut n = 0;
    super::ir_walk::each_mut(block, &mut |s, _| {
        // GLSL has no other source of a control barrier than `barrier()`.
        if let Statement::ControlBarrier(flags) = s {
            if *flags == Barrier::all() {
                *flags = Barrier::WORK_GROUP;
                n += 1;
            }
        }
    });
    n
}
