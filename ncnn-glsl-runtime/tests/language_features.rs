//! The GLSL that naga's frontend lacks and this compiler provides through
//! its IR or the SPIR-V words (subgroups, `compile/subgroups.rs`;
//! specialization constants in array sizes and global constants,
//! `compile/spec_expressions.rs`): compiled by us and by glslang from the same
//! finished GLSL, run on lavapipe with the same random inputs, outputs
//! compared.

use ncnn_glsl_core::compile::reflect::requirements;
use ncnn_glsl_core::spirv_interface::read_specialized;
use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::differential::{
    assert_valid, compile_both, finished, glslang, run, Case, Cmp, Fill, Io,
};

/// The subgroup built-ins (one read in a function other than `main`) and
/// every subgroup function this compiler provides (`subgroups.rs`, the
/// barriers in `memory_barriers.rs`), against glslang's blob of the same
/// text. lavapipe's subgroups have 8 lanes, so the 64 invocations of a
/// workgroup are 8 subgroups.
#[test]
fn subgroup_operations() {
    let src = "#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) writeonly buffer B { vec4 b[]; };
layout(binding = 2) writeonly buffer C { uvec4 c[]; };
uint lane() { return gl_SubgroupInvocationID; }
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    float s = subgroupAdd(x);
    float m = subgroupInclusiveAdd(x) * subgroupMul(x);
    vec2 e = subgroupExclusiveAdd(vec2(x, 1.0)) + subgroupInclusiveMul(vec2(x, 2.0));
    int k = subgroupMin(int(x * 10.0)) + subgroupMax(int(x * 3.0)) + subgroupExclusiveMul(int(x));
    uint o = subgroupOr(uint(x + 4.0) + lane()) ^ subgroupAnd(uint(x + 8.0)) ^ subgroupXor(lane());
    bool v = subgroupAll(x > -3.5) && subgroupAny(x > 3.0);
    uvec4 bal = subgroupBallot(x > 0.0);
    float f = subgroupBroadcastFirst(x);
    float br = subgroupBroadcast(x, 3u);
    float sh = subgroupShuffle(x, (lane() + 1u) % gl_SubgroupSize);
    float sx = subgroupShuffleXor(x, 1u);
    float up = subgroupShuffleUp(x, 1u);
    float dn = subgroupShuffleDown(x, 2u);
    float q = subgroupQuadSwapHorizontal(x) + subgroupQuadSwapVertical(x) * 2.0
        + subgroupQuadSwapDiagonal(x) * 4.0 + subgroupQuadBroadcast(x, 1u) * 8.0;
    subgroupBarrier();
    subgroupMemoryBarrier();
    subgroupMemoryBarrierBuffer();
    b[i] = vec4(s, m, e.x + e.y, float(k));
    b[i + 128u] = vec4(f, br, sh, sx);
    b[i + 256u] = vec4(up, dn, q, v ? 1.0 : 0.0);
    c[i] = bal + uvec4(o, gl_SubgroupSize, gl_NumSubgroups, gl_SubgroupID * 64u + lane());
}
";
    let mut case = Case::new(
        "subgroup operations",
        src,
        "fp32",
        vec![
            Io::In(4 * 128, Fill::F32(-4.0, 4.0)),
            Io::Out(16 * 384, Cmp::Exact),
            Io::Out(16 * 128, Cmp::Exact),
        ],
    );
    case.groups = [2, 1, 1];
    run(&case);
    // The capabilities, so the subgroup operations the device must have, are glslang's.
    if let Some((ours, _, theirs)) = compile_both(&case) {
        let caps = |w: &[u32]| {
            let mut c: Vec<String> = requirements(w)
                .spirv_capabilities
                .iter()
                .map(|c| c.to_string())
                .collect();
            c.sort();
            c
        };
        assert_eq!(caps(&ours), caps(&theirs));
    }
}

/// A two-level reduction as ncnn writes one: a subgroup sum per subgroup,
/// the sums through `shared` memory behind `subgroupMemoryBarrierShared`
/// and `barrier()`, plus per-lane maxima and shuffles, on the extension's
/// types in every float mode (fp16 arithmetic: `float16_t` subgroup
/// operations, which need `shaderSubgroupExtendedTypes`).
#[test]
fn subgroup_reductions_in_every_float_mode() {
    let src = "#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#if NCNN_fp16_arithmetic
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { sfp a[]; };
layout(binding = 1) writeonly buffer B { sfp b[]; };
layout(binding = 2) writeonly buffer S { float sums[]; };
shared float partial[64];
void main() {
    uint i = gl_GlobalInvocationID.x;
    afp x = buffer_ld1(a, i);
    afp s = subgroupAdd(x);
    if (gl_SubgroupInvocationID == 0u)
        partial[gl_SubgroupID] = float(s);
    subgroupMemoryBarrierShared();
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        float t = 0.0;
        for (uint k = 0u; k < gl_NumSubgroups; k++)
            t += partial[k];
        sums[gl_WorkGroupID.x] = t;
    }
    buffer_st1(b, i, subgroupMax(x) + subgroupShuffleXor(x, 1u) * afp(0.5));
}
";
    for (mode, fill) in [
        ("fp32", Fill::F32(-2.0, 2.0)),
        ("fp16p", Fill::F16(-2.0, 2.0)),
        ("fp16s", Fill::F16(-2.0, 2.0)),
        ("fp16s+fp16a", Fill::F16(-2.0, 2.0)),
        ("fp16p+fp16a", Fill::F16(-2.0, 2.0)),
    ] {
        let bytes = if mode == "fp32" { 4 * 256 } else { 2 * 256 };
        let mut case = Case::new(
            &format!("subgroup reduction {mode}"),
            src,
            mode,
            vec![
                Io::In(bytes, fill),
                Io::Out(bytes, Cmp::Exact),
                Io::Out(4 * 4, Cmp::Exact),
            ],
        );
        case.groups = [4, 1, 1];
        run(&case);
    }
}

/// Specialization constants sizing `shared` and local arrays and computing
/// global constants (`OpSpecConstantOp`), as ncnn's unrolled kernels use
/// them: one read only by a size, one by a size and the code, a constant
/// derived from another derived one; at the defaults and at other values
/// (larger arrays than the defaults: the sizes follow the pipeline's
/// values, or the writes past the default size would be lost).
#[test]
fn specialization_constants_in_sizes_and_constants() {
    let src = "#version 450
layout (constant_id = 0) const int UNROLL = 2;
layout (constant_id = 1) const uint LANES = 4u;
const int N = UNROLL * 4;
const int M = N + (UNROLL << 1) - 1;
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer A { float a[]; };
layout (binding = 1) writeonly buffer B { float b[]; };
layout (binding = 2) writeonly buffer C { int c[]; };
shared float tmp[UNROLL * 32];
shared vec4 lanes[LANES * 16u];
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint l = gl_LocalInvocationID.x;
    float acc[M];
    for (int k = 0; k < M; k++)
        acc[k] = a[(i + uint(k)) % 256u];
    for (int k = 0; k < UNROLL * 32; k += 64)
        tmp[uint(k) + l] = acc[(l + uint(k)) % uint(M)];
    if (l < LANES * 16u)
        lanes[l] = vec4(float(N), float(M), float(l), 1.0);
    barrier();
    float s = 0.0;
    for (int k = 0; k < UNROLL * 32; k++)
        s += tmp[k];
    b[i] = s + lanes[(l + 1u) % (LANES * 16u)].z;
    c[i] = N * 1000 + M;
}
";
    let specs: Vec<Vec<(u32, SpecValue)>> = vec![
        vec![],
        vec![(0, SpecValue::Int(4))],
        vec![(0, SpecValue::Int(6)), (1, SpecValue::Uint(1))],
    ];
    for spec in specs {
        let mut case = Case::new(
            "specialization constants in sizes and constants",
            src,
            "fp32",
            vec![
                Io::In(4 * 256, Fill::F32(-4.0, 4.0)),
                Io::Out(4 * 256, Cmp::Exact),
                Io::Out(4 * 256, Cmp::Exact),
            ],
        );
        case.groups = [4, 1, 1];
        case.specialization = spec;
        run(&case);
    }
}

/// A shader's own literals equal to the placeholder lengths naga compiles
/// specialized arrays at, and to their last indices (`0xBFFFFF`,
/// `0xC00000`, ...): naga shares one constant among equal literals, so its
/// clamp of `s[i]` and the user's `0xBFFFFFu` are one `OpConstant`. The
/// clamps are rewritten where the access chain uses them, and the literals
/// keep their values (they once became `N - 1` and `2N - 1`), a user's
/// own `min(x, 0xBFFFFFu)` included.
#[test]
fn literals_equal_to_the_placeholders_keep_their_values() {
    let src = "#version 450
layout (constant_id = 0) const uint N = 4u;
const uint M = N * 2u;
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer A { uint a[]; };
layout (binding = 1) writeonly buffer B { uint b[]; };
shared uint s[N];
shared uint t[M];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint g = gl_GlobalInvocationID.x;
    uint v[N * 3u];
    for (uint k = 0u; k < N * 3u; k++)
        v[k] = a[(g + k) % 256u];
    if (l < N) s[l] = l + 1u;
    if (l < M) t[l] = l * 2u + 1u;
    barrier();
    uint x = a[g] % 64u;
    b[g * 9u + 0u] = 0xBFFFFFu;
    b[g * 9u + 1u] = 0xC00000u;
    b[g * 9u + 2u] = 0xC00001u;
    b[g * 9u + 3u] = 0xC00002u + x;
    b[g * 9u + 4u] = uint(12582911 + int(x));
    b[g * 9u + 5u] = s[x % N] + t[x % M] + v[x % (N * 3u)];
    b[g * 9u + 6u] = min(x * 0x40000u, 0xBFFFFFu);
    b[g * 9u + 7u] = s[0] + t[0] + v[0];
    b[g * 9u + 8u] = s[(x >> 4u) % N] + t[N - 1u] + v[N * 3u - 1u];
}
";
    for n in [4u32, 1, 16] {
        let mut case = Case::new(
            "literals equal to the placeholders",
            src,
            "fp32",
            vec![
                Io::In(4 * 256, Fill::Words),
                Io::Out(4 * 9 * 256, Cmp::Exact),
            ],
        );
        case.groups = [4, 1, 1];
        case.specialization = vec![(0, SpecValue::Uint(n))];
        run(&case);
    }
}

/// ncnn's GEMM tile sized by `?:` of specialization constants (a 2-D
/// `shared` array whose inner length is `OpSelect` of an `OpUGreaterThan`):
/// every element written through `gl_LocalInvocationID` and read back
/// reversed into the output, under specializations where the select picks
/// each side (and the two sides are equal). The reflection's measure of the
/// `shared` memory of our blob and of glslang's (the runtime checks both
/// against the device's limit) agrees with the expression at each.
#[test]
fn specialization_constants_selected_by_a_comparison_size_a_tile() {
    let src = "#version 450
layout (constant_id = 0) const uint M = 16;
layout (constant_id = 1) const uint K = 8;
layout (constant_id = 2) const uint Kd4p = 4;
layout (constant_id = 3) const uint Md4p = 4;
const uint L = 2 * (M * Kd4p > K * Md4p ? M * Kd4p : K * Md4p);
layout (local_size_x = 64) in;
layout (binding = 0) writeonly buffer O { uvec2 o[]; };
shared uvec2 tmp_a[2][2 * (M * Kd4p > K * Md4p ? M * Kd4p : K * Md4p)];
void main() {
    uint l = gl_LocalInvocationID.x;
    for (uint i = l; i < 2u * L; i += 64u)
        tmp_a[i / L][i % L] = uvec2(i * 3u + 1u, i ^ L);
    barrier();
    for (uint i = l; i < 2u * L; i += 64u) {
        uint j = 2u * L - 1u - i;
        o[i] = tmp_a[j / L][j % L];
    }
}
";
    let u = SpecValue::Uint;
    // (M, K, Kd4p, Md4p): the first side, the second, equal sides (the
    // second: `>` is strict), the first again at a larger tile.
    let shapes: [[u32; 4]; 4] = [[16, 8, 4, 4], [4, 8, 4, 4], [8, 8, 4, 4], [32, 8, 4, 2]];
    for shape in shapes {
        let [m, k, kd, md] = shape;
        let length = 2 * (m * kd).max(k * md);
        let mut case = Case::new(
            "a tile sized by a select of specialization constants",
            src,
            "fp32",
            vec![Io::Out(8 * 2 * 256, Cmp::Exact)],
        );
        case.specialization = (0..4).map(|id| (id, u(shape[id as usize]))).collect();
        if let Some((ours, _, theirs)) = compile_both(&case) {
            let values: Vec<(u32, u32)> = (0..4).map(|id| (id, shape[id as usize])).collect();
            let bytes = |w: &[u32]| read_specialized(w, &values).unwrap().workgroup_bytes;
            assert_eq!(bytes(&ours), u64::from(2 * length * 8), "{shape:?}");
            assert_eq!(bytes(&ours), bytes(&theirs), "{shape:?}");
        }
        run(&case);
    }
}

/// Array lengths of comparisons, selects (nested, with branches of mixed
/// signedness), conversions and `^^` of specialization constants: the
/// reflection measures our words and glslang's alike at values on both
/// sides of each comparison. (glslang 12 writes `&&` and `||` of
/// specialization constants as a short-circuit `OpPhi` in `main` that the
/// global `OpSpecConstantOp` reads, which spirv-val rejects: those are
/// checked against their expected values in `compile/tests/spec_sizes.rs`
/// instead.)
#[test]
fn lengths_of_comparisons_and_selects_are_measured_as_in_glslangs_words() {
    let sizes = [
        "M * 4u > K * 2u ? M * 4u : K * 2u",
        "S < 0 ? -S : S + 1",
        "S < 2u ? 3 : 4",
        "M >= K ? (S > 0 ? 1u : 2u) : S == 0 ? 3u : 4u",
        "uint(S != 0) + uint(M <= K) * 2u + 1u",
        "(S > 0 ^^ M > K) ? 5 : 6",
        "!(M == K) ? M : 1u",
        "int(M) % 3 + (bool(S) ? 1 : 2)",
        "S < 0 ? 1 : 64 / S",
    ];
    let values: [&[(u32, u32)]; 5] = [
        &[],
        &[(0, 4)],
        &[(0, 8), (1, 8), (2, 0)],
        &[(2, (-3i32) as u32)],
        &[(0, 1), (1, 30), (2, 7)],
    ];
    for size in sizes {
        let src = format!(
            "#version 450
layout (constant_id = 0) const uint M = 16;
layout (constant_id = 1) const uint K = 8;
layout (constant_id = 2) const int S = 3;
layout (local_size_x = 1) in;
layout (binding = 0) buffer A {{ uint a[]; }};
shared uint t[2][{size}];
void main() {{ t[1][0] = 1u; a[0] = t[1][0]; }}
"
        );
        let e = finished(&src, "fp32");
        let ours = ncnn_glsl_core::compile(&e, &Default::default())
            .unwrap_or_else(|d| panic!("`{size}`: {d}"))
            .spirv;
        assert_valid(&ours);
        let Some(theirs) = glslang(e.text()) else {
            return;
        };
        for v in values {
            // A length that divides by zero is unknown in both (ids differ).
            let bytes = |w: &[u32]| read_specialized(w, v).ok().map(|i| i.workgroup_bytes);
            assert_eq!(bytes(&ours), bytes(&theirs), "`{size}` at {v:?}");
        }
    }
}

/// Bindings the shader declares and never reads (an input a mode's `#if`
/// leaves unused, as in ncnn's shaders): the compiler's compaction drops
/// them from the words, the reflection keeps the declared layout, and the
/// pipeline is made and runs with a buffer bound to each (it was refused:
/// "the reflection lists binding 0.0, which the SPIR-V does not declare";
/// the differential fuzzer's seed 1796669016897321530).
#[test]
fn unused_bindings_are_bound_and_the_shader_runs() {
    let src = "#version 450
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer A { uint a[]; };
layout (binding = 1) writeonly buffer B { uint b[]; };
layout (binding = 2) buffer C { uint c[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    b[i] = i * 3u + 1u;
}
";
    let mut case = Case::new(
        "unused bindings",
        src,
        "fp32",
        vec![
            Io::In(4 * 256, Fill::Words),
            Io::Out(4 * 256, Cmp::Exact),
            Io::InOut(4 * 256, Fill::Words, Cmp::Exact),
        ],
    );
    case.groups = [4, 1, 1];
    run(&case);
}

/// `gl_SubgroupID` and `gl_SubgroupInvocationID` with a local size of two
/// dimensions, which naga's validator refused (a WGSL rule; the
/// differential fuzzer's seed 1796669016897321455): validated with the
/// local size folded to one dimension, written with its own; the outputs
/// equal glslang's.
#[test]
fn subgroup_ids_with_a_two_dimensional_local_size() {
    let src = "#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout (local_size_x = 8, local_size_y = 4) in;
layout (binding = 0) writeonly buffer B { uint b[]; };
void main() {
    uint i = gl_WorkGroupID.x * 32u + gl_LocalInvocationIndex;
    b[i] = gl_SubgroupID * 1000u + gl_SubgroupInvocationID * 10u + gl_NumSubgroups;
}
";
    let mut case = Case::new(
        "subgroup ids in two dimensions",
        src,
        "fp32",
        vec![Io::Out(4 * 128, Cmp::Exact)],
    );
    case.groups = [4, 1, 1];
    run(&case);
}
