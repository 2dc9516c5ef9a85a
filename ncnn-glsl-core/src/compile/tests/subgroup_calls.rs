//! The subgroup functions written through placeholders (`subgroup_calls.rs`):
//! each compiles to the instruction glslang (`glslangValidator -V
//! --target-env vulkan1.1`) emits for the same text, with the same subgroup
//! capabilities, so the runtime asks the device for the same subgroup
//! operations; every blob passes spirv-val (`compile` checks it in tests).
//! What they compute is checked on lavapipe against glslang in the corpus
//! (`reduce_subgroup_elect_pack4`), where lavapipe has the operations.

use std::collections::BTreeMap;
use std::process::Command;

use super::{disassemble, errs, ok};
use crate::compile::reflect;
use crate::compile::{compile, CompileOptions};
use crate::spirv::instructions;

/// A shader with buffers `fa` (float), `ua` (uint), `ia` (int), `i` the
/// invocation, `b` a ballot; `body` in `main`.
fn shader(body: &str) -> String {
    format!(
        "#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
layout (local_size_x = 64) in;
layout (binding = 0) buffer f_blob {{ float fa[]; }};
layout (binding = 1) buffer u_blob {{ uint ua[]; }};
layout (binding = 2) buffer i_blob {{ int ia[]; }};
const uint N = 4u;
void main()
{{
    uint i = gl_GlobalInvocationID.x;
    uvec4 b = uvec4(ua[i], ua[i + 1u], 0u, 0u);
    {body}
}}
"
    )
}

/// Every call, one shader each, and the instruction it must become.
const CASES: &[(&str, &str)] = &[
    ("if (subgroupElect()) ua[i] = 1u;", "OpGroupNonUniformElect"),
    ("if (subgroupAllEqual(fa[i])) ua[i] = 1u;", "OpGroupNonUniformAllEqual"),
    ("if (subgroupAllEqual(ivec2(ia[i], 1))) ua[i] = 1u;", "OpGroupNonUniformAllEqual"),
    ("if (subgroupAllEqual(fa[i] > 0.0)) ua[i] = 1u;", "OpGroupNonUniformAllEqual"),
    ("if (subgroupInverseBallot(b)) ua[i] = 1u;", "OpGroupNonUniformInverseBallot"),
    ("if (subgroupBallotBitExtract(b, 3u)) ua[i] = 1u;", "OpGroupNonUniformBallotBitExtract"),
    ("if (subgroupBallotBitExtract(b, i)) ua[i] = 1u;", "OpGroupNonUniformBallotBitExtract"),
    ("ua[i] = subgroupBallotBitCount(subgroupBallot(fa[i] > 0.0));", "OpGroupNonUniformBallotBitCount"),
    ("ua[i] = subgroupBallotInclusiveBitCount(b);", "OpGroupNonUniformBallotBitCount"),
    ("ua[i] = subgroupBallotExclusiveBitCount(b);", "OpGroupNonUniformBallotBitCount"),
    ("ua[i] = subgroupBallotFindLSB(b);", "OpGroupNonUniformBallotFindLSB"),
    ("ua[i] = subgroupBallotFindMSB(b);", "OpGroupNonUniformBallotFindMSB"),
    ("fa[i] = subgroupClusteredAdd(fa[i], 4u);", "OpGroupNonUniformFAdd"),
    ("fa[i] = subgroupClusteredMul(fa[i], 1);", "OpGroupNonUniformFMul"),
    ("ia[i] = subgroupClusteredMin(ia[i], 2);", "OpGroupNonUniformSMin"),
    ("ua[i] = subgroupClusteredMax(ua[i], N);", "OpGroupNonUniformUMax"),
    ("const uint n = 8u; vec2 v = subgroupClusteredMin(vec2(fa[i], 1.0), n); fa[i] = v.x;", "OpGroupNonUniformFMin"),
    ("ua[i] = subgroupClusteredAnd(ua[i], 4u);", "OpGroupNonUniformBitwiseAnd"),
    ("ivec3 v = subgroupClusteredOr(ivec3(ia[i]), 16u); ia[i] = v.y;", "OpGroupNonUniformBitwiseOr"),
    ("ua[i] = subgroupClusteredXor(ua[i], 32u);", "OpGroupNonUniformBitwiseXor"),
    ("bvec2 v = subgroupClusteredOr(bvec2(fa[i] > 0.0, true), 2u); ua[i] = v.x ? 1u : 0u;", "OpGroupNonUniformLogicalOr"),
    ("if (subgroupClusteredAnd(fa[i] > 0.0, 4u)) ua[i] = 1u;", "OpGroupNonUniformLogicalAnd"),
    ("fa[i] = subgroupInclusiveMin(fa[i]);", "OpGroupNonUniformFMin"),
    ("ia[i] = subgroupInclusiveMax(ia[i]);", "OpGroupNonUniformSMax"),
    ("ua[i] = subgroupExclusiveMin(ua[i]);", "OpGroupNonUniformUMin"),
    ("vec4 v = subgroupExclusiveMax(vec4(fa[i])); fa[i] = v.w;", "OpGroupNonUniformFMax"),
    ("ua[i] = subgroupInclusiveAnd(ua[i]) + subgroupInclusiveOr(ua[i]) + subgroupInclusiveXor(ua[i]);", "OpGroupNonUniformBitwiseXor"),
    ("ia[i] = subgroupExclusiveAnd(ia[i]) + subgroupExclusiveOr(ia[i]) + subgroupExclusiveXor(ia[i]);", "OpGroupNonUniformBitwiseOr"),
    ("if (subgroupInclusiveXor(fa[i] > 0.0) || subgroupExclusiveOr(fa[i] > 1.0)) ua[i] = 1u;", "OpGroupNonUniformLogicalXor"),
];

/// glslang's SPIR-V of `text`; `None` without glslang (a failure under CI).
fn glslang(text: &str) -> Option<Vec<u32>> {
    let dir = std::env::temp_dir().join(format!("ncnn-glsl-core-sgc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (src, spv) = (dir.join(format!("{n}.comp")), dir.join(format!("{n}.spv")));
    std::fs::write(&src, text).unwrap();
    let out = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.1", "-o"])
        .arg(&spv)
        .arg(&src)
        .output();
    let Ok(out) = out else {
        assert!(
            std::env::var_os("CI").is_none(),
            "glslangValidator is not installed but CI is set"
        );
        return None;
    };
    assert!(
        out.status.success(),
        "glslang rejects:\n{text}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let bytes = std::fs::read(&spv).unwrap();
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&spv);
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    )
}

/// The subgroup instructions of a module, by opcode, with their group
/// operation where they have one (the operand after the scope), counted.
fn subgroup_instructions(words: &[u32]) -> BTreeMap<(u16, Option<u32>), usize> {
    let mut out = BTreeMap::new();
    for i in instructions(words).unwrap() {
        if !(333..=366).contains(&i.op) {
            continue;
        }
        // Arithmetic (349..=364) and the ballot bit count (342) take one.
        let group = ((349..=364).contains(&i.op) || i.op == 342)
            .then(|| i.operand(3))
            .flatten();
        *out.entry((i.op, group)).or_default() += 1;
    }
    out
}

#[test]
fn each_function_is_glslangs_instruction_with_glslangs_requirements() {
    for (body, want) in CASES {
        let text = shader(body);
        let ours = ok(&text);
        if let Some(d) = disassemble(&ours.spirv) {
            assert!(d.contains(want), "{body}: no `{want}` in\n{d}");
            assert!(
                !d.contains("OpFunctionCall %bool") || !d.contains("subgroup"),
                "{d}"
            );
        }
        let Some(theirs) = glslang(&text) else {
            continue;
        };
        assert_eq!(
            subgroup_instructions(&ours.spirv),
            subgroup_instructions(&theirs),
            "{body}"
        );
        let (a, b) = (
            &ours.reflection.requirements,
            reflect::requirements(&theirs),
        );
        assert_eq!(a.subgroup_operations(), b.subgroup_operations(), "{body}");
        let caps = |r: &reflect::Requirements| {
            let mut c: Vec<String> = r
                .spirv_capabilities
                .iter()
                .filter(|c| c.starts_with("GroupNonUniform"))
                .map(|c| c.to_string())
                .collect();
            c.sort();
            c
        };
        assert_eq!(caps(a), caps(&b), "{body}");
        assert_eq!(a.features, b.features, "{body}");
    }
}

#[test]
fn float16_operations_ask_for_extended_types_as_glslangs_do() {
    let text = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { float16_t a[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    a[i] = subgroupClusteredAdd(a[i], 4u) + subgroupInclusiveMax(a[i]);
}
";
    let ours = ok(text);
    let req = &ours.reflection.requirements;
    assert!(
        req.features
            .iter()
            .any(|f| f == "shaderSubgroupExtendedTypes"),
        "{req:?}"
    );
    if let Some(theirs) = glslang(text) {
        assert_eq!(
            subgroup_instructions(&ours.spirv),
            subgroup_instructions(&theirs)
        );
        assert_eq!(
            req.subgroup_operations(),
            reflect::requirements(&theirs).subgroup_operations()
        );
    }
}

#[test]
fn all_equal_on_float16_asks_for_extended_types() {
    let text = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { float16_t a[]; };
layout (binding = 1) buffer b_blob { uint b[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    b[i] = subgroupAllEqual(a[i]) ? 1u : 0u;
}
";
    let has = |r: &crate::reflection::Requirements| {
        r.features
            .iter()
            .any(|f| f == "shaderSubgroupExtendedTypes")
    };
    let ours = ok(text);
    assert!(
        has(&ours.reflection.requirements),
        "{:?}",
        ours.reflection.requirements
    );
    if let Some(theirs) = glslang(text) {
        assert!(has(&reflect::requirements(&theirs)));
    }
    // On a 32-bit value it asks for nothing more.
    let plain = ok(&shader("ua[i] = subgroupAllEqual(fa[i]) ? 1u : 0u;"));
    assert!(!has(&plain.reflection.requirements));
}

#[test]
fn the_placeholders_leave_no_trace() {
    let text = shader(
        "if (subgroupElect()) ua[i] = subgroupBallotBitCount(b) + subgroupClusteredAdd(ua[i], 4u);",
    );
    let plain = ok(&text);
    let d = disassemble(&plain.spirv).unwrap_or_default();
    assert!(
        !d.contains("OpName") && !d.contains("OpFunctionCall %uint"),
        "{d}"
    );
    // With debug names asked for: the user's names stay, the placeholders go.
    let named = compile(
        &super::expanded(&text, "fp32"),
        &CompileOptions { debug_names: true },
    )
    .unwrap();
    if let Some(d) = disassemble(&named.spirv) {
        assert!(
            d.contains("OpName %main \"main\"") || d.contains("\"main\""),
            "{d}"
        );
        assert!(d.contains("\"ua\"") || d.contains("\"u_blob\""), "{d}");
        assert!(!d.contains("\"subgroupElect\""), "{d}");
        assert!(!d.contains("\"subgroupClusteredAdd\""), "{d}");
    }
    // Names are the only difference: the instructions are the same.
    let strip = |words: &[u32]| -> Vec<Vec<u32>> {
        instructions(words)
            .unwrap()
            .iter()
            .filter(|i| i.op != 5 && i.op != 6)
            .map(|i| i.words.to_vec())
            .collect()
    };
    assert_eq!(strip(&plain.spirv), strip(&named.spirv));
}

/// The word pass finds the placeholders by the debug names the writer
/// gives them, and drops the names after: that is the module written
/// without them only if the writer's debug names change nothing else.
#[test]
fn debug_names_change_nothing_but_names() {
    let text = shader(
        "float s = subgroupAdd(fa[i]); uint m = ua[i] % 7u; int r = ia[i] % 5;\n\
         ia[i] = r + int(m) + int(s) + int(subgroupBroadcast(ua[i], 1u));",
    );
    let words = |debug_names| {
        let c = compile(
            &super::expanded(&text, "fp32"),
            &CompileOptions { debug_names },
        )
        .unwrap();
        instructions(&c.spirv)
            .unwrap()
            .iter()
            .filter(|i| i.op != 5 && i.op != 6)
            .map(|i| i.words.to_vec())
            .collect::<Vec<_>>()
    };
    assert_eq!(words(true), words(false));
}

#[test]
fn a_function_of_the_users_own_is_called_as_written() {
    let text = "#version 450
layout (local_size_x = 64) in;
layout (binding = 0) buffer u_blob { uint ua[]; };
bool subgroupElect() { return ua[0] == 7u; }
void main()
{
    if (subgroupElect()) ua[gl_GlobalInvocationID.x] = 1u;
}
";
    let c = ok(text);
    assert_eq!(c.reflection.requirements.subgroup_operations(), 0);
    if let Some(d) = disassemble(&c.spirv) {
        assert_eq!(d.matches("OpFunctionCall").count(), 2, "{d}");
        assert!(!d.contains("OpGroupNonUniformElect"), "{d}");
    }
}

#[test]
fn a_cluster_size_must_be_a_constant_power_of_two() {
    for (body, says) in [
        (
            "ua[i] = subgroupClusteredAdd(ua[i], ua[0]);",
            "must be a constant integer expression",
        ),
        (
            "ua[i] = subgroupClusteredAdd(ua[i], 3u);",
            "is 3: it must be a power of two",
        ),
        (
            "ua[i] = subgroupClusteredAdd(ua[i], 0u);",
            "is 0: it must be a power of two",
        ),
        (
            "uint n = 4u; n += ua[0]; ua[i] = subgroupClusteredAdd(ua[i], n);",
            "must be a constant",
        ),
    ] {
        let d = errs(&shader(body), "fp32");
        let first = &d.0[0];
        assert!(first.message.contains(says), "{body}: {d}");
        let s = first
            .span
            .as_ref()
            .unwrap_or_else(|| panic!("no place: {d}"));
        // `main`'s body line of the call.
        assert_eq!((s.file.as_str(), s.line), ("t.comp", 16), "{d}");
        let column = 4 + body.find("subgroupClusteredAdd").unwrap() as u32 + 1;
        assert!(s.column <= column, "{body}: {d}");
    }
}

#[test]
fn what_is_still_refused_is_refused_at_the_call() {
    let d = errs(&shader("ua[i] = subgroupRotate(ua[i], 1u);"), "fp32");
    let s = d.0[0].span.as_ref().unwrap();
    assert_eq!((s.line, s.column), (16, 13), "{d}");
    assert!(d.0[0].message.contains("rotate"), "{d}");
}
