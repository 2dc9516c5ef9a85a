//! Subgroups (subgroups.rs): the built-ins become built-in inputs, each
//! function its `OpGroupNonUniform*` instruction, and the reflection names
//! the subgroup operations and features the blob needs. What they compute is
//! checked on lavapipe against glslang (ncnn-glsl-runtime/tests/repairs.rs,
//! `subgroup_operations`).

use super::{control_barriers, disassemble, errs, ok};

const SHADER: &str = "#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { float a[]; };
uint lane() { return gl_SubgroupInvocationID; }
void main()
{
    uint i = gl_GlobalInvocationID.x;
    float s = subgroupAdd(a[i]);
    uvec4 b = subgroupBallot(s > 0.0);
    a[i] = s + float(b.x + lane() + gl_SubgroupSize + gl_SubgroupID + gl_NumSubgroups);
}
";

#[test]
fn built_ins_and_functions_compile_to_group_non_uniform_instructions() {
    let c = ok(SHADER);
    let req = &c.reflection.requirements;
    // basic, arithmetic, ballot
    assert_eq!(req.subgroup_operations(), 0x1 | 0x4 | 0x8, "{req:?}");
    assert!(req.features.is_empty(), "{req:?}");
    let Some(d) = disassemble(&c.spirv) else {
        return;
    };
    for want in [
        "BuiltIn SubgroupSize",
        "BuiltIn SubgroupLocalInvocationId",
        "BuiltIn SubgroupId",
        "BuiltIn NumSubgroups",
        "OpGroupNonUniformFAdd",
        " Reduce ",
        "OpGroupNonUniformBallot",
    ] {
        assert!(d.contains(want), "no `{want}` in\n{d}");
    }
}

#[test]
fn a_float16_operation_asks_for_extended_types() {
    let text = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { float16_t a[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    a[i] = subgroupMax(a[i]);
}
";
    let req = ok(text).reflection.requirements;
    assert!(
        req.features
            .iter()
            .any(|f| f == "shaderSubgroupExtendedTypes"),
        "{req:?}"
    );
    assert!(
        req.extensions
            .iter()
            .any(|f| f == "VK_KHR_shader_subgroup_extended_types"),
        "{req:?}"
    );
    // 32-bit operations do not.
    let req = ok(SHADER).reflection.requirements;
    assert!(!req
        .features
        .iter()
        .any(|f| f == "shaderSubgroupExtendedTypes"));
}

#[test]
fn subgroup_barrier_keeps_subgroup_execution_scope() {
    let text = SHADER.replace(
        "    uvec4 b =",
        "    subgroupBarrier();\n    barrier();\n    uvec4 b =",
    );
    let Some(d) = disassemble(&ok(&text).spirv) else {
        return;
    };
    // `subgroupBarrier`: Subgroup (3) execution, Device (1) memory, AcquireRelease
    // with uniform, subgroup, workgroup and image memory (0x9c8); `barrier`:
    // glslang's Workgroup barrier.
    assert_eq!(
        control_barriers(&d),
        vec![vec!["3", "1", "2504"], vec!["2", "2", "264"]],
        "{d}"
    );
}

#[test]
fn logical_operations_on_bool_are_refused_at_the_call() {
    let text = SHADER.replace(
        "    uvec4 b =",
        "    bool any = subgroupOr(s > 1.0);\n    uvec4 b =",
    );
    let d = errs(&text, "fp32");
    let e = &d.0[0];
    assert!(e.message.contains("no logical subgroup operations"), "{e}");
    assert_eq!(
        e.span.as_ref().map(|s| (s.line, s.column)),
        Some((11, 16)),
        "{e}"
    );
}

#[test]
fn a_subgroup_barrier_alone_asks_for_basic_subgroup_operations() {
    let text = "#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { float a[]; };
void main()
{
    a[gl_GlobalInvocationID.x] = 1.0;
    subgroupBarrier();
}
";
    let req = ok(text).reflection.requirements;
    assert_eq!(req.subgroup_operations(), 0x1, "{req:?}");
}
