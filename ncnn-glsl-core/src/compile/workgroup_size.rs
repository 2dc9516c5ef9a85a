//! `gl_WorkGroupSize`: naga's GLSL frontend declares it as an input builtin
//! (`OpVariable Input` decorated `BuiltIn WorkgroupSize`), which spirv-val
//! rejects: WorkgroupSize must be a constant. This word pass turns that
//! variable into a constant composite of the compiled local size, its loads
//! into copies, and drops it from the interface and its BuiltIn decoration
//! (so `OpExecutionMode LocalSize`, which the runtime patches, stays the only
//! source of the size). A dimension given by `local_size_*_id` becomes an
//! `OpSpecConstant` with that SpecId (default: the compiled size) and the
//! composite an `OpSpecConstantComposite`; the runtime passes the size it
//! patches into `LocalSize` as that specialization value too, so both agree.

use super::spirv_edit::{inst, Rewrite};
use crate::spirv::{builtin, decoration, op};

/// Rewrites the module's `gl_WorkGroupSize`; `false` when it has none.
pub(crate) fn fix_workgroup_size(
    words: &mut Vec<u32>,
    local_size: [u32; 3],
    spec_ids: [Option<u32>; 3],
) -> Result<bool, String> {
    let mut m = Rewrite::new(words)?;
    let builtin = m.insts.iter().position(|w| {
        Rewrite::op(w) == op::DECORATE
            && w.get(2) == Some(&decoration::BUILTIN)
            && w.get(3) == Some(&builtin::WORKGROUP_SIZE)
    });
    let Some(builtin) = builtin else {
        return Ok(false);
    };
    let var = m.insts[builtin][1];
    let at = m
        .insts
        .iter()
        .position(|w| Rewrite::op(w) == op::VARIABLE && w.get(2) == Some(&var))
        .ok_or("gl_WorkGroupSize: no OpVariable")?;
    let ptr = m.insts[at][1];
    let vec3 = m
        .pointee(ptr)
        .ok_or("gl_WorkGroupSize: its type is not a pointer")?;
    let uint = m
        .def(vec3)
        .filter(|w| Rewrite::op(w) == op::TYPE_VECTOR && w[3] == 3)
        .map(|w| w[2])
        .ok_or("gl_WorkGroupSize: not a 3-vector")?;
    let mut defs = Vec::new();
    let mut decorations = Vec::new();
    let mut parts = Vec::new();
    for dim in 0..3 {
        let id = m.fresh_id();
        match spec_ids[dim] {
            Some(spec) => {
                defs.push(inst(op::SPEC_CONSTANT, &[uint, id, local_size[dim]]));
                decorations.push(inst(op::DECORATE, &[id, decoration::SPEC_ID, spec]));
            }
            None => defs.push(inst(op::CONSTANT, &[uint, id, local_size[dim]])),
        }
        parts.push(id);
    }
    let composite = if spec_ids.iter().any(Option::is_some) {
        op::SPEC_CONSTANT_COMPOSITE
    } else {
        op::CONSTANT_COMPOSITE
    };
    defs.push(inst(composite, &[vec3, var, parts[0], parts[1], parts[2]]));
    m.insts.splice(at..=at, defs);
    m.insts.remove(builtin);
    m.decorate(decorations);
    if !m.variable_to_constant(var) {
        return Err("gl_WorkGroupSize is used other than by loads".into());
    }
    *words = m.words();
    Ok(true)
}
