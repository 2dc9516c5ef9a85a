//! The subgroup functions written through placeholders
//! (`ncnn-glsl-core/src/compile/subgroup_calls.rs`) and the locals renamed
//! out of scopes naga does not open (`compile/local_scopes.rs`): compiled by
//! us and by glslang from the same finished GLSL, run on lavapipe with the
//! same random inputs, outputs compared.
//!
//! lavapipe's subgroups have 8 lanes and its `supportedOperations` are
//! basic, vote, arithmetic, ballot, shuffle, shuffle relative and quad: no
//! clustered operations. A clustered reduction therefore cannot run here;
//! both blobs of one are shown to need the same operation (the pipeline is
//! refused for both, for the same reason), and its words are compared with
//! glslang's in `compile/tests/subgroup_calls.rs`.

use std::path::Path;

use ncnn_glsl_core::{CompileOptions, DeviceCaps, MemoryLoader, Options, SourceFile, Target};
use ncnn_glsl_runtime::{ContextOptions, SpecValue, Variant};
use ncnn_glsl_testkit::differential::{
    assert_valid, glslang, glslang_blob, leak_blob, leak_set, run, run_blobs, seed, Case, Cmp,
    Fill, Io, RunError,
};
use ncnn_glsl_testkit::gpu::GpuTest;

/// Every function lavapipe can run, against glslang's blob of the same
/// text, in uniform and divergent control flow (elect picks the lowest
/// active lane; the ballot scans count the lanes below).
#[test]
fn elect_all_equal_ballot_queries_and_scans() {
    let src = "#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) writeonly buffer B { uvec4 b[]; };
layout(binding = 2) writeonly buffer C { vec4 c[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    uvec4 bal = subgroupBallot(x > 0.0);
    uint e = subgroupElect() ? 1u : 0u;
    if (x > 1.0)
        e |= subgroupElect() ? 2u : 0u;
    uint q = (subgroupAllEqual(x > -5.0) ? 1u : 0u) | (subgroupAllEqual(x) ? 2u : 0u)
        | (subgroupAllEqual(uint(x + 8.0) / 64u) ? 4u : 0u)
        | (subgroupInverseBallot(bal) ? 8u : 0u)
        | (subgroupBallotBitExtract(bal, 3u) ? 16u : 0u)
        | (subgroupBallotBitExtract(bal, i % 8u) ? 32u : 0u);
    b[i] = uvec4(e | (q << 4), subgroupBallotBitCount(bal),
        subgroupBallotInclusiveBitCount(bal) | (subgroupBallotExclusiveBitCount(bal) << 8),
        subgroupBallotFindLSB(bal) | (subgroupBallotFindMSB(bal) << 8));
    uint u = uint(x + 8.0);
    int k = int(x * 4.0);
    c[i] = vec4(subgroupInclusiveMin(x) + subgroupExclusiveMax(x) * 3.0,
        float(subgroupInclusiveMax(k) - subgroupExclusiveMin(k)),
        float(subgroupInclusiveAnd(u) ^ subgroupInclusiveOr(u) ^ subgroupInclusiveXor(u)),
        float(subgroupExclusiveAnd(u) + subgroupExclusiveOr(u) * 3u + subgroupExclusiveXor(u) * 5u)
            + (subgroupInclusiveXor(x > 0.0) ? 0.5 : 0.0) + (subgroupExclusiveOr(x > 2.0) ? 0.25 : 0.0));
}
";
    let mut case = Case::new(
        "elect, all-equal, ballot queries, scans",
        src,
        "fp32",
        vec![
            Io::In(4 * 128, Fill::F32(-4.0, 4.0)),
            Io::Out(16 * 128, Cmp::Exact),
            Io::Out(16 * 128, Cmp::Exact),
        ],
    );
    case.groups = [2, 1, 1];
    run(&case);
}

/// A device description of `devices/`.
fn device(name: &str) -> DeviceCaps {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../devices")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    DeviceCaps::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The corpus shader `name` expanded for ncnn's default options on
/// `caps`, with its device macros: our blob (valid) and glslang's.
fn both_for_device(
    name: &str,
    caps: &DeviceCaps,
) -> Option<(
    Vec<u32>,
    ncnn_glsl_runtime::reflection::Reflection,
    Vec<u32>,
    Target,
)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(format!("{name}.comp"));
    let text = std::fs::read_to_string(&path).unwrap();
    let target = Target::for_device(Options::NCNN_DEFAULT, caps);
    let file = SourceFile {
        name: format!("tests/corpus/{name}.comp"),
        path: None,
        text,
    };
    let e = ncnn_glsl_core::expand(
        file,
        &target,
        Some(caps),
        &MemoryLoader::default(),
        &Default::default(),
    )
    .unwrap_or_else(|d| panic!("{name}: {d}"));
    let ours = ncnn_glsl_core::compile(&e, &CompileOptions::default())
        .unwrap_or_else(|d| panic!("{name}: {d}"));
    assert_valid(&ours.spirv);
    let theirs = glslang(e.text())?;
    Some((ours.spirv, ours.reflection, theirs, target))
}

/// The corpus's `reduce_subgroup_elect_pack4` with lavapipe's device
/// macros (the corpus expands without a device, so it runs the shared-memory
/// path there): `subgroupElect` and `subgroupBallotBitCount`, against glslang
/// on lavapipe; with the H200's macros the clustered path, which needs the
/// clustered operations in both blobs alike.
#[test]
fn the_corpus_reduction_with_device_macros() {
    let lavapipe = device("lavapipe.json");
    let h200 = device("h200.json");
    let Some((ours, reflection, theirs, target)) =
        both_for_device("reduce_subgroup_elect_pack4", &lavapipe)
    else {
        return;
    };
    let Some((c_ours, c_reflection, c_theirs, c_target)) =
        both_for_device("reduce_subgroup_elect_pack4", &h200)
    else {
        return;
    };
    let ops = |r: &ncnn_glsl_runtime::reflection::Reflection| r.requirements.subgroup_operations();
    let theirs_ops =
        |w: &[u32]| ncnn_glsl_core::compile::reflect::requirements(w).subgroup_operations();
    // basic, arithmetic, ballot; then clustered too
    assert_eq!(ops(&reflection), 0x1 | 0x4 | 0x8);
    assert_eq!(ops(&reflection), theirs_ops(&theirs));
    assert_eq!(ops(&c_reflection), 0x1 | 0x4 | 0x8 | 0x40);
    assert_eq!(ops(&c_reflection), theirs_ops(&c_theirs));
    // SAFETY: the shader reads rows inside the buffers the case sizes; ours
    // clamps every index besides.
    let blobs = unsafe {
        [
            leak_blob(ours, reflection.clone()),
            glslang_blob(theirs, &reflection),
            leak_blob(c_ours, c_reflection.clone()),
            glslang_blob(c_theirs, &c_reflection),
        ]
    };
    let variants: &'static [Variant] = Box::leak(Box::new([
        Variant {
            target,
            axes: &[],
            blob: blobs[0],
        },
        Variant {
            target,
            axes: &[],
            blob: blobs[1],
        },
        Variant {
            target: c_target,
            axes: &[],
            blob: blobs[2],
        },
        Variant {
            target: c_target,
            axes: &[],
            blob: blobs[3],
        },
    ]));
    let options = ContextOptions {
        variant_sets: vec![leak_set(variants)],
        ..ContextOptions::default()
    };
    let shape = [37i32, 5, 3, 200];
    let push: Vec<u8> = shape.iter().flat_map(|v| v.to_le_bytes()).collect();
    let float = ncnn_glsl_runtime::FloatStorage::of(target.options);
    let (sfp, fill, cmp) = match float {
        ncnn_glsl_runtime::FloatStorage::F32 => (4, Fill::F32(-2.0, 2.0), Cmp::F32Ulps(1)),
        ncnn_glsl_runtime::FloatStorage::F16 => (2, Fill::F16(-2.0, 2.0), Cmp::F16Ulps(1)),
        ncnn_glsl_runtime::FloatStorage::Bf16 => (2, Fill::Bf16(-2.0, 2.0), Cmp::Bf16Ulps(1)),
    };
    let case = |spec: Vec<(u32, SpecValue)>| Case {
        name: "reduce_subgroup_elect_pack4".into(),
        source: String::new(),
        mode: target.to_string(),
        io: vec![
            Io::In(sfp * 4 * 3 * 200, fill),
            Io::Out(sfp * 4 * 3 * 5, cmp),
            Io::Out(4 * 3 * 5, Cmp::Exact),
        ],
        push_constants: push.clone(),
        groups: [1, 5, 3],
        local_size: Some([32, 1, 1]),
        specialization: spec,
    };
    GpuTest::new(options).run(|gpu| {
        let s = seed();
        for (i, spec) in [
            vec![],
            shape
                .iter()
                .enumerate()
                .map(|(k, &v)| (k as u32, SpecValue::Int(v)))
                .collect(),
        ]
        .into_iter()
        .enumerate()
        {
            let c = case(spec);
            if let Err(e) = run_blobs(gpu, &c, blobs[0], blobs[1], s.wrapping_add(i as u64)) {
                panic!("{e}");
            }
        }
        let clustered = gpu
            .ctx()
            .caps()
            .property("supportedOperations")
            .unwrap_or(0)
            & 0x40
            != 0;
        match run_blobs(gpu, &case(vec![]), blobs[2], blobs[3], s) {
            Ok(()) => assert!(
                clustered,
                "ran clustered operations on a device without them"
            ),
            Err(RunError::NotRunnable(e)) => {
                assert!(!clustered, "{e}");
                eprintln!("clustered path not runnable here, as expected: {e}");
            }
            Err(e) => panic!("{e}"),
        }
    });
}

/// Locals in a scope naga does not open, whose names a later use reads in
/// GLSL as the outer variable, parameter or global: naga alone compiles
/// this and reads the leaked local (wrong outputs, silently); renamed, ours
/// reads what glslang's reads.
#[test]
fn leaked_locals_read_what_glslang_reads() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { int a[]; };
layout(binding = 1) writeonly buffer B { ivec4 b[]; };
const int g = 7;
int f(int k) {
    switch (k & 3) { case 0: int k = 100; return k + 1; default: break; }
    return k;
}
void main() {
    int x = a[gl_GlobalInvocationID.x];
    int k = 1;
    {
        if (x < 0) int k = 5;
        k += x;
    }
    int h = 2;
    switch (x & 1) { case 0: int g = 9; h += g; break; default: break; }
    b[gl_GlobalInvocationID.x] = ivec4(k, g, f(x), h);
}
";
    let case = Case::new(
        "leaked locals",
        src,
        "fp32",
        vec![Io::In(4 * 64, Fill::Words), Io::Out(16 * 64, Cmp::Exact)],
    );
    run(&case);
}

/// Locals declared again after a scope naga does not open (naga alone:
/// "Variable already declared"), in every kind of such scope.
#[test]
fn locals_declared_again_after_their_scope() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { int a[]; };
layout(binding = 1) writeonly buffer B { ivec4 b[]; };
void main() {
    int x = a[gl_GlobalInvocationID.x];
    if (x < 4) { const int x4 = x * 4; x += x4 & 7; }
    if (x > 0) const int x4 = x * 2; else const int x4 = -x;
    const int x4 = x * 4 + 1;
    switch (x & 3) { case 1: const int y = x4 * 3; x += y; break; default: break; }
    int y = x4 - 2;
    do int z = y; while (false);
    int z = y + x;
    int s = 0;
    for (int i = 0; i < 3; i++)
        if (i > (x & 3)) int i = 9; else s += i;
    b[gl_GlobalInvocationID.x] = ivec4(x, x4, y + z, s);
}
";
    let case = Case::new(
        "locals declared again",
        src,
        "fp32",
        vec![Io::In(4 * 64, Fill::Words), Io::Out(16 * 64, Cmp::Exact)],
    );
    run(&case);
}
