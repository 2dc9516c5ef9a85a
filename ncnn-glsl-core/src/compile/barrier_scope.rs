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
    for (s, _) in block.span_iter_mut() {
        match s {
            // GLSL has no other source of a control barrier than `barrier()`.
            Statement::ControlBarrier(flags) if *flags == Barrier::all() => {
                *flags = Barrier::WORK_GROUP;
                n += 1;
            }
            Statement::Block(b) => n += fix_block(b),
            Statement::If { accept, reject, .. } => n += fix_block(accept) + fix_block(reject),
            Statement::Switch { cases, .. } => {
                n += cases
                    .iter_mut()
                    .map(|c| fix_block(&mut c.body))
                    .sum::<usize>()
            }
            Statement::Loop {
                body, continuing, ..
            } => n += fix_block(body) + fix_block(continuing),
            _ => {}
        }
    }
    n
}
