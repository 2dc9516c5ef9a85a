//! Tests of the cooperative matrix steps: each construct through the text,
//! IR and word steps, the refusals at their places, and the blobs against
//! glslang's of the same text (`glslang.rs`).

use super::super::tests::{errs, expanded, ok_mode};
use super::super::tokens::tokenize;
use super::text;
use super::tools;
use super::{Flavor, Size, Use};
use crate::reflection::{CoopMatDim, CoopMatElement, CoopMatFlavor, CoopMatType, CoopMatUse};

mod glslang;

/// A KHR GEMM step: fp16 A and B, an fp32 accumulator array, M, N, K
/// specialization constants, A from `shared` (row-major, a stride), B from
/// a buffer of `uvec2` (column-major), C built from a scalar, the result
/// converted to fp16 and stored to a buffer of `f16vec4` and to `shared`.
pub(super) const KHR_GEMM: &str = "#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout (constant_id = 18) const uint M = 16;
layout (constant_id = 19) const uint N = 16;
layout (constant_id = 20) const uint K = 16;
layout (local_size_x = 32) in;
layout (binding = 0) readonly buffer A_blob { uvec2 A_blob_data[]; };
layout (binding = 1) readonly buffer B_blob { uvec2 B_blob_data[]; };
layout (binding = 2) writeonly buffer top_blob { f16vec4 top_blob_data[]; };
layout (push_constant) uniform parameter { int kk; float alpha; } p;
shared uvec2 tmp_a[256];
shared uvec2 tmp_o[256];
void main()
{
    const uint li = gl_LocalInvocationID.x;
    for (uint i = li; i < 256; i += 32)
        tmp_a[i] = A_blob_data[gl_WorkGroupID.x * 256 + i];
    barrier();
    coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> sum[2];
    sum[0] = coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(0.f);
    sum[1] = coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(p.alpha);
    for (int k = 0; k < p.kk; k++)
    {
        coopmat<float16_t, gl_ScopeSubgroup, M, K, gl_MatrixUseA> a;
        coopmat<float16_t, gl_ScopeSubgroup, K, N, gl_MatrixUseB> b;
        coopMatLoad(a, tmp_a, k * (M * K / 4), K / 4, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(b, B_blob_data, k * (K * N / 4), K / 4, gl_CooperativeMatrixLayoutColumnMajor);
        sum[k % 2] = coopMatMulAdd(a, b, sum[k % 2]);
    }
    coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> total = (sum[0] + sum[1]) * p.alpha;
    coopmat<float16_t, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> r = coopmat<float16_t, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(total);
    coopMatStore(r, top_blob_data, gl_WorkGroupID.x * (M * N / 4), N / 4, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(r, tmp_o, 0, M / 4, gl_CooperativeMatrixLayoutColumnMajor);
    barrier();
    for (uint i = li; i < 64; i += 32)
        top_blob_data[i] = f16vec4(unpackHalf2x16(tmp_o[i].x), unpackHalf2x16(tmp_o[i].y));
}
";

/// The same in `GL_NV_cooperative_matrix`'s words.
pub(super) const NV_GEMM: &str = "#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout (constant_id = 18) const uint M = 16;
layout (constant_id = 19) const uint N = 16;
layout (constant_id = 20) const uint K = 16;
layout (local_size_x = 32) in;
layout (binding = 0) readonly buffer A_blob { uvec2 A_blob_data[]; };
layout (binding = 1) readonly buffer B_blob { float16_t B_blob_data[]; };
layout (binding = 2) writeonly buffer top_blob { uvec2 top_blob_data[]; };
shared uvec2 tmp_a[256];
void main()
{
    const uint li = gl_LocalInvocationID.x;
    for (uint i = li; i < 256; i += 32)
        tmp_a[i] = A_blob_data[i];
    barrier();
    fcoopmatNV<32, gl_ScopeSubgroup, M, N> sum = fcoopmatNV<32, gl_ScopeSubgroup, M, N>(0.f);
    fcoopmatNV<16, gl_ScopeSubgroup, M, K> a;
    fcoopmatNV<16, gl_ScopeSubgroup, K, N> b;
    coopMatLoadNV(a, tmp_a, 0, K / 4, false);
    coopMatLoadNV(b, B_blob_data, 0, K, true);
    sum = coopMatMulAddNV(a, b, sum);
    fcoopmatNV<16, gl_ScopeSubgroup, M, N> r = fcoopmatNV<16, gl_ScopeSubgroup, M, N>(sum * 2.0);
    coopMatStoreNV(r, top_blob_data, 0, N / 4, false);
}
";

/// The GEMM in ncnn's fp32 mode: `afp` is `float`, so A and B are `float`
/// matrices (legal; the device's list decides), loaded from `vec4` buffers.
pub(super) const FP32_GEMM: &str = "#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout (constant_id = 0) const uint M = 16;
layout (constant_id = 1) const uint N = 16;
layout (constant_id = 2) const uint K = 8;
layout (local_size_x = 32) in;
layout (binding = 0) readonly buffer A_blob { sfpvec4 A_blob_data[]; };
layout (binding = 1) readonly buffer B_blob { sfpvec4 B_blob_data[]; };
layout (binding = 2) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
void main()
{
    coopmat<afp, gl_ScopeSubgroup, M, K, gl_MatrixUseA> a;
    coopmat<afp, gl_ScopeSubgroup, K, N, gl_MatrixUseB> b;
    coopmat<afp, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> c = coopmat<afp, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(0.f);
    coopMatLoad(a, A_blob_data, 0, K / 4, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, B_blob_data, 0, N / 4, gl_CooperativeMatrixLayoutRowMajor);
    c = coopMatMulAdd(a, b, c);
    coopMatStore(c, top_blob_data, 0, N / 4, gl_CooperativeMatrixLayoutRowMajor);
}
";

/// A multiply-add whose M and N are `const`s computed from specialization
/// constants: `R2` sizes types only, `C2` a stride too.
pub(super) const DERIVED_SIZES: &str = "#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout (constant_id = 0) const uint R = 8;
layout (constant_id = 1) const uint C = 8;
layout (constant_id = 2) const uint K = 16;
const uint R2 = R * 2;
const uint C2 = C + C;
layout (local_size_x = 32) in;
layout (binding = 0) readonly buffer a_blob { float16_t a_data[]; };
layout (binding = 1) readonly buffer b_blob { float16_t b_data[]; };
layout (binding = 2) writeonly buffer c_blob { float c_data[]; };
void main()
{
    coopmat<float16_t, gl_ScopeSubgroup, R2, K, gl_MatrixUseA> a;
    coopmat<float16_t, gl_ScopeSubgroup, K, C2, gl_MatrixUseB> b;
    coopmat<float, gl_ScopeSubgroup, R2, C2, gl_MatrixUseAccumulator> c = coopmat<float, gl_ScopeSubgroup, R2, C2, gl_MatrixUseAccumulator>(0.f);
    coopMatLoad(a, a_data, 0, K, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(b, b_data, 0, C2, gl_CooperativeMatrixLayoutRowMajor);
    c = coopMatMulAdd(a, b, c);
    coopMatStore(c, c_data, 0, C2, gl_CooperativeMatrixLayoutRowMajor);
}
";

/// The finished text of `src` in `mode` (the extension's macros expanded).
pub(super) fn finished(src: &str, mode: &str) -> crate::expand::Expanded {
    crate::expand(
        crate::source::SourceFile {
            name: "t.comp".into(),
            path: None,
            text: src.into(),
        },
        &crate::target::Target::for_mode(mode.parse().unwrap()),
        None,
        &crate::MemoryLoader::default(),
        &crate::ExpandOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// `src` expanded in `mode` and compiled.
pub(super) fn ncnn_ok(src: &str, mode: &str) -> super::super::Compiled {
    super::super::compile(
        &finished(src, mode),
        &super::super::CompileOptions::default(),
    )
    .unwrap_or_else(|e| panic!("compile failed in {mode}:\n{e}"))
}

fn rewrite(src: &str) -> Result<(String, super::TextFound, String), Vec<text::Problem>> {
    let mut t = src.to_string();
    let toks = tokenize(src);
    let spec = super::super::spec_constants::decls(src, &toks);
    text::rewrite(&mut t, &toks, &spec).map(|(found, decls)| (t, found, decls))
}

#[test]
fn the_text_step_rewrites_in_place() {
    let (t, found, decls) = rewrite(KHR_GEMM).unwrap();
    assert_eq!(t.len(), KHR_GEMM.len());
    assert_eq!(t.lines().count(), KHR_GEMM.lines().count());
    // Four types: the accumulators, A, B and the fp16 result.
    let keys: Vec<_> = found
        .types
        .iter()
        .map(|t| (t.key.half, t.key.use_))
        .collect();
    assert_eq!(
        keys,
        [
            (false, Some(Use::Accumulator)),
            (true, Some(Use::A)),
            (true, Some(Use::B)),
            (true, Some(Use::Accumulator)),
        ]
    );
    let spec = |id| Size::Spec { id, signed: false };
    assert_eq!(found.types[1].key.rows, spec(18));
    assert_eq!(found.types[1].key.cols, spec(20));
    assert_eq!(found.types[0].key.flavor, Flavor::Khr);
    assert!(t.contains("ncnnext_cm0 "), "{t}");
    assert!(t.contains("= ncnnext_cmc0 "), "{t}");
    assert!(
        t.contains("ncnnext_cml(a, tmp_a[ k * (M * K / 4), K / 4, 0 "),
        "{t}"
    );
    assert!(t.contains("ncnnext_cmma (a, b, sum[k % 2])"), "{t}");
    assert!(!t.contains("gl_CooperativeMatrixLayout"), "{t}");
    // One `]` per load and store, before the stride's comma, and the
    // stride as a `uint`.
    assert_eq!(found.inserts.len(), 12);
    for i in found.inserts.chunks(3) {
        assert_eq!(i[0].text, "]");
        assert_eq!(&KHR_GEMM[i[0].at..i[0].at + 1], ",");
        assert_eq!((i[1].text.as_str(), i[1].at), ("uint(", i[0].at + 1));
        assert_eq!(i[2].text, ")");
        assert_eq!(&KHR_GEMM[i[2].at..i[2].at + 1], ",");
    }
    assert!(
        decls.contains("struct ncnnext_cm0 { float x0; };"),
        "{decls}"
    );
    assert!(decls.contains("void ncnnext_cml(out ncnnext_cm1 m, uvec2 e, uint s, int l);"));
    assert!(
        decls.contains("ncnnext_cm0 ncnnext_cmma(ncnnext_cm1 a, ncnnext_cm2 b, ncnnext_cm0 c);")
    );
    assert!(
        decls.contains("ncnnext_cm3 ncnnext_cmc3(ncnnext_cm0 x);"),
        "{decls}"
    );
    // Types of one element type and IR role get distinct sizes.
    let (acc32, acc16) = (&found.types[0], &found.types[3]);
    assert_eq!(acc32.role(), acc16.role());
    assert_eq!(
        acc32.slot, acc16.slot,
        "different element types may share sizes"
    );
}

#[test]
fn the_text_step_leaves_other_text_alone() {
    let src = "#version 450\nvoid main() { int coopmat = 1; }\n";
    let (t, found, decls) = rewrite(src).unwrap();
    assert_eq!(t, src);
    assert!(!found.used());
    assert!(decls.is_empty());
}

#[test]
fn the_nv_form_is_read() {
    let (t, found, decls) = rewrite(NV_GEMM).unwrap();
    assert_eq!(t.len(), NV_GEMM.len());
    assert!(found
        .types
        .iter()
        .all(|t| t.key.flavor == Flavor::Nv && t.key.use_.is_none()));
    assert_eq!(found.types.len(), 4);
    assert!(
        t.contains("ncnnext_nvl  (a, tmp_a[ 0, K / 4, false)"),
        "{t}"
    );
    assert!(decls.contains("bool l);"), "{decls}");
    assert!(decls.contains("ncnnext_nvma("), "{decls}");
}

/// Every malformed use is an error at its place, all at once.
#[test]
fn malformed_uses_are_refused_at_their_place() {
    let src = "#version 450
layout (constant_id = 3) const float F = 1.0;
void main()
{
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseC> a;
    coopmat<float, gl_ScopeSubgroup, 16, F, gl_MatrixUseA> b;
    coopmat<float, gl_ScopeSubgroup, 16, (16), gl_MatrixUseA> c;
    coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> d;
    coopmat<float, gl_ScopeDevice, 16, 16, gl_MatrixUseA> e;
    icoopmatNV<32, gl_ScopeSubgroup, 16, 16> f;
    coopMatLoad(a, buf, 0, 4);
    coopMatMulAdd(a, a, a, gl_MatrixOperandsSaturatingAccumulation);
    coopMatStore(a, buf, 0, 4, gl_CooperativeMatrixLayoutRowBlockedInterleavedARM);
    coopmat<float, gl_ScopeSubgroup, 16, 16 a;
}
";
    let problems = rewrite(src).unwrap_err();
    let at = |p: &text::Problem| {
        let line = src[..p.range.start].matches('\n').count() + 1;
        let col = p.range.start - src[..p.range.start].rfind('\n').map_or(0, |k| k + 1) + 1;
        (line, col)
    };
    let got: Vec<((usize, usize), &str)> = problems
        .iter()
        .map(|p| (at(p), p.message.as_str()))
        .collect();
    let want_lines = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
    for line in want_lines {
        assert!(
            got.iter().any(|((l, _), _)| *l == line),
            "no error at line {line}: {got:#?}"
        );
    }
    // Each at the column of the token it names.
    let find = |s: &str, token: &str| {
        let (at, _) = got
            .iter()
            .find(|(_, m)| m.contains(s))
            .unwrap_or_else(|| panic!("no error mentions `{s}`: {got:#?}"));
        let line = src.lines().nth(at.0 - 1).unwrap();
        assert_eq!(at.1, line.find(token).unwrap() + 1, "`{s}` at {at:?}");
    };
    find("`gl_MatrixUseC` is no matrix use", "gl_MatrixUseC");
    find("`F` is no size", "F,");
    find("`int`: naga's IR", "int");
    find("`gl_ScopeDevice`", "gl_ScopeDevice");
    find("`icoopmatNV`", "icoopmatNV");
    find("takes 5 arguments", "coopMatLoad");
    find("matrices A, B and C", "coopMatMulAdd");
    find(
        "RowBlockedInterleavedARM",
        "gl_CooperativeMatrixLayoutRowBlocked",
    );
    find("not closed by `>`", "coopmat");
}

#[test]
fn a_fifth_shape_of_one_use_is_refused() {
    let mut src = String::from("#version 450\nvoid main()\n{\n");
    for n in [16, 32, 48, 64, 80] {
        src += &format!("    coopmat<float, gl_ScopeSubgroup, {n}, 16, gl_MatrixUseA> a{n};\n");
    }
    src += "}\n";
    let problems = rewrite(&src).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].message.contains("fifth"), "{problems:?}");
    assert_eq!(&src[problems[0].range.clone()][..8], "coopmat<");
    assert!(src[..problems[0].range.start].ends_with("    "));
    assert_eq!(src[..problems[0].range.start].matches('\n').count() + 1, 8);
}

#[test]
fn khr_and_nv_in_one_shader_are_refused() {
    let src = "#version 450\nvoid main()\n{\n    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;\n    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> b;\n}\n";
    let problems = rewrite(src).unwrap_err();
    assert_eq!(problems.len(), 1);
    assert!(problems[0]
        .message
        .contains("either GL_KHR_cooperative_matrix"));
}

/// Names naga's messages would show are put back as written.
#[test]
fn naga_messages_name_the_glsl() {
    let (_, found, _) = rewrite(KHR_GEMM).unwrap();
    let m = super::protos::reword(
        "Unknown function 'ncnnext_cml' for ncnnext_cm1 and ncnnext_cmc3",
        &found.types,
    );
    assert_eq!(
        m,
        "Unknown function 'coopMatLoad' for coopmat<float16_t, gl_ScopeSubgroup, M, K, gl_MatrixUseA> \
         and coopmat<float16_t, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>"
    );
}

fn disassembly(words: &[u32]) -> String {
    tools::disassemble(words).unwrap_or_default()
}

#[test]
fn the_khr_gemm_compiles_with_its_sizes_as_specialization_constants() {
    let c = ok_mode(KHR_GEMM, "fp16s");
    let r = &c.reflection;
    assert!(r
        .requirements
        .features
        .iter()
        .any(|f| f == "cooperativeMatrix"));
    assert!(r
        .requirements
        .features
        .iter()
        .any(|f| f == "vulkanMemoryModel"));
    assert!(r
        .requirements
        .extensions
        .iter()
        .any(|e| e == "VK_KHR_cooperative_matrix"));
    assert_eq!(r.cooperative_matrices.len(), 1);
    let ma = r.cooperative_matrices[0];
    assert_eq!(ma.flavor, CoopMatFlavor::Khr);
    assert_eq!(
        (ma.a_type, ma.b_type, ma.c_type, ma.result_type),
        (
            CoopMatElement::Float16,
            CoopMatElement::Float16,
            CoopMatElement::Float32,
            CoopMatElement::Float32
        )
    );
    assert_eq!(ma.scope, 3);
    assert_eq!(
        ma.m,
        CoopMatDim::Spec {
            id: 18,
            default: 16
        }
    );
    assert_eq!(
        ma.n,
        CoopMatDim::Spec {
            id: 19,
            default: 16
        }
    );
    assert_eq!(
        ma.k,
        CoopMatDim::Spec {
            id: 20,
            default: 16
        }
    );
    assert_eq!(
        ma.shape(|id| (id == 19).then_some(8)),
        [Some(16), Some(8), Some(16)]
    );
    // Every type, in text order, the fp16 accumulator (no multiply-add's)
    // among them.
    let spec = |id| CoopMatDim::Spec { id, default: 16 };
    let ty = |element, rows, cols, role| CoopMatType {
        flavor: CoopMatFlavor::Khr,
        element,
        scope: 3,
        rows: spec(rows),
        cols: spec(cols),
        role: Some(role),
    };
    assert_eq!(
        r.cooperative_matrix_types.to_vec(),
        [
            ty(CoopMatElement::Float32, 18, 19, CoopMatUse::Accumulator),
            ty(CoopMatElement::Float16, 18, 20, CoopMatUse::A),
            ty(CoopMatElement::Float16, 20, 19, CoopMatUse::B),
            ty(CoopMatElement::Float16, 18, 19, CoopMatUse::Accumulator),
        ]
    );
    // The words say the same, at the values a pipeline sets (what the
    // runtime checks the reflection against).
    let read = crate::spirv_interface::read_specialized(&c.spirv, &[(18, 8), (20, 32)]).unwrap();
    let words = read.cooperative_matrix_types.clone();
    let w = |component, rows, cols, role| crate::spirv_interface::WordCoopMatType {
        nv: false,
        component: Some(component),
        scope: Some(3),
        rows: Some(rows),
        cols: Some(cols),
        role: Some(role),
    };
    let mut words = words;
    words.sort_by_key(|t| (t.role, t.component));
    assert_eq!(
        words,
        [
            w(0, 8, 32, 0),
            w(0, 32, 16, 1),
            w(0, 8, 16, 2),
            w(1, 8, 16, 2)
        ]
    );
    // Its multiply-adds (all alike): A, B, C and the result.
    let acc = w(1, 8, 16, 2);
    assert!(!read.cooperative_matrix_mul_adds.is_empty());
    for ops in &read.cooperative_matrix_mul_adds {
        assert_eq!(
            *ops,
            [
                Some(w(0, 8, 32, 0)),
                Some(w(0, 32, 16, 1)),
                Some(acc),
                Some(acc)
            ]
        );
    }
    let dis = disassembly(&c.spirv);
    if dis.is_empty() {
        return;
    }
    // The sizes are the specialization constants' ids, declared before.
    let spec_of = |id: u32| {
        let line = dis
            .lines()
            .find(|l| l.contains(&format!("SpecId {id}")))
            .unwrap_or_else(|| panic!("no SpecId {id}:\n{dis}"));
        line.split_whitespace().nth(1).unwrap().to_string()
    };
    let (m, n, k) = (spec_of(18), spec_of(19), spec_of(20));
    let types: Vec<&str> = dis
        .lines()
        .filter(|l| l.contains("OpTypeCooperativeMatrixKHR"))
        .collect();
    assert_eq!(types.len(), 4, "{dis}");
    for l in &types {
        let ops: Vec<&str> = l.split_whitespace().collect();
        let (rows, cols) = (ops[5], ops[6]);
        assert!([&m, &n, &k].contains(&&rows.to_string()), "{l}\n{dis}");
        assert!([&m, &n, &k].contains(&&cols.to_string()), "{l}\n{dis}");
        let decl = |id: &str| {
            dis.lines()
                .position(|x| x.trim_start().starts_with(&format!("{id} =")))
        };
        assert!(decl(rows) < decl(ops[0]), "{l}\n{dis}");
    }
    for op in [
        "OpCooperativeMatrixLoadKHR",
        "OpCooperativeMatrixStoreKHR",
        "OpCooperativeMatrixMulAddKHR",
        "OpConstantComposite",
        "OpCompositeConstruct",
        "OpFConvert",
        "OpMatrixTimesScalar",
        "OpMemoryModel Logical Vulkan",
        "MakePointerVisible|NonPrivatePointer",
        "MakePointerAvailable|NonPrivatePointer",
    ] {
        assert!(dis.contains(op), "no {op}:\n{dis}");
    }
    assert!(!dis.contains("ncnnext"), "{dis}");
}

#[test]
fn a_size_computed_from_specialization_constants_is_its_constant_op() {
    let c = ok_mode(DERIVED_SIZES, "fp16s");
    let r = &c.reflection;
    let k = CoopMatDim::Spec { id: 2, default: 16 };
    let derived = CoopMatDim::Derived;
    assert_eq!(r.cooperative_matrices.len(), 1);
    let ma = r.cooperative_matrices[0];
    assert_eq!((ma.m, ma.n, ma.k), (derived, derived, k));
    assert_eq!(ma.shape(|_| None), [None, None, Some(16)]);
    let rows_cols: Vec<(CoopMatDim, CoopMatDim)> = r
        .cooperative_matrix_types
        .iter()
        .map(|t| (t.rows, t.cols))
        .collect();
    assert_eq!(
        rows_cols,
        [(derived, k), (k, derived), (derived, derived)],
        "{:?}",
        r.cooperative_matrix_types
    );
    // The words compute them at the values a pipeline sets (R2 = R * 2,
    // C2 = C + C), and at the defaults.
    for (spec, (r2, c2)) in [(vec![(0, 4), (1, 8), (2, 8)], (8, 16)), (vec![], (16, 16))] {
        let read = crate::spirv_interface::read_specialized(&c.spirv, &spec).unwrap();
        let mut sizes: Vec<(Option<u32>, Option<u32>)> = read
            .cooperative_matrix_types
            .iter()
            .map(|t| (t.rows, t.cols))
            .collect();
        sizes.sort();
        let kk = if spec.is_empty() { 16 } else { 8 };
        let mut want = vec![
            (Some(r2), Some(kk)),
            (Some(kk), Some(c2)),
            (Some(r2), Some(c2)),
        ];
        want.sort();
        assert_eq!(sizes, want, "at {spec:?}");
        let [a, b, _, _] = read.cooperative_matrix_mul_adds[0];
        assert_eq!((a.unwrap().rows, b.unwrap().cols), (Some(r2), Some(c2)));
    }
    tools::assert_valid(&c.spirv);
}

#[test]
fn a_size_computed_from_constants_is_their_value() {
    let src = DERIVED_SIZES.replace(
        "const uint R2 = R * 2;",
        "const uint T = 4;\nconst uint R2 = (T + 4) * 2;",
    );
    let c = ok_mode(&src, "fp16s");
    let ma = c.reflection.cooperative_matrices[0];
    assert_eq!(ma.m, CoopMatDim::Constant(16));
    assert_eq!(ma.n, CoopMatDim::Derived);
    // An `int` constant computes as glslang folds it, signed: -32 / -2
    // is 16 (unsigned, 0).
    let src = DERIVED_SIZES.replace(
        "const uint R2 = R * 2;",
        "const int T = -32;\nconst uint R2 = uint(T / -2);",
    );
    let c = ok_mode(&src, "fp16s");
    assert_eq!(
        c.reflection.cooperative_matrices[0].m,
        CoopMatDim::Constant(16)
    );
    // A float in the initializer: no size this compiler computes, refused
    // at the type with what sizes may be.
    let src = DERIVED_SIZES.replace("const uint R2 = R * 2;", "const uint R2 = uint(16.0);");
    let e = errs(&src, "fp16s").to_string();
    assert!(
        e.contains("`R2` is no integer expression")
            && e.contains("t.comp:17:5")
            && e.matches("error").count() == 1,
        "{e}"
    );
}

#[test]
fn the_nv_gemm_compiles_to_nv_words() {
    let c = ok_mode(NV_GEMM, "fp16s");
    let r = &c.reflection;
    assert!(r
        .requirements
        .extensions
        .iter()
        .any(|e| e == "VK_NV_cooperative_matrix"));
    assert_eq!(r.cooperative_matrices[0].flavor, CoopMatFlavor::Nv);
    assert!(r
        .cooperative_matrix_types
        .iter()
        .all(|t| t.flavor == CoopMatFlavor::Nv && t.role.is_none()));
    // The words' multiply-adds have NV operands of types the reader knows.
    let read = crate::spirv_interface::read(&c.spirv).unwrap();
    assert!(!read.cooperative_matrix_mul_adds.is_empty());
    for ops in &read.cooperative_matrix_mul_adds {
        assert!(
            ops.iter()
                .all(|t| t.is_some_and(|t| t.nv && t.role.is_none())),
            "{ops:?}"
        );
    }
    let dis = disassembly(&c.spirv);
    if dis.is_empty() {
        return;
    }
    for op in [
        "OpCapability CooperativeMatrixNV",
        "SPV_NV_cooperative_matrix",
        "OpTypeCooperativeMatrixNV",
        "OpCooperativeMatrixLoadNV",
        "OpCooperativeMatrixStoreNV",
        "OpCooperativeMatrixMulAddNV",
    ] {
        assert!(dis.contains(op), "no {op}:\n{dis}");
    }
    assert!(!dis.contains("KHR "), "{dis}");
}

#[test]
fn fp32_mode_compiles_float_matrices() {
    let c = ncnn_ok(FP32_GEMM, "fp32");
    let ma = c.reflection.cooperative_matrices[0];
    assert_eq!(ma.a_type, CoopMatElement::Float32);
    assert_eq!(ma.k, CoopMatDim::Spec { id: 2, default: 8 });
    // Loaded from `vec4` buffers directly: no placeholder pointer.
    let c16 = ncnn_ok(FP32_GEMM, "fp16s+fp16a");
    assert_eq!(
        c16.reflection.cooperative_matrices[0].a_type,
        CoopMatElement::Float16
    );
    let c16p = ncnn_ok(FP32_GEMM, "fp16p+fp16a");
    assert_eq!(
        c16p.reflection.cooperative_matrices[0].c_type,
        CoopMatElement::Float16
    );
}

#[test]
fn ir_refusals_are_at_their_place() {
    let head = "#version 450
#extension GL_KHR_cooperative_matrix : require
layout (local_size_x = 32) in;
layout (binding = 0) readonly buffer A_blob { vec4 a_data[]; };
";
    let cases: &[(&str, &str)] = &[
        (
            "void main() { coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a; coopMatStore(a, a_data, 0, 4, gl_CooperativeMatrixLayoutRowMajor); }",
            "into a `readonly` buffer",
        ),
        (
            "void main() { int l = 0; coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a; coopMatLoad(a, a_data, 0, 4, l); }",
            "must be a constant",
        ),
        (
            "void main() { coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> a = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0); a = a * a; }",
            "component-wise product",
        ),
        (
            "void main() { coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a; coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b; coopmat<float, gl_ScopeSubgroup, 8, 16, gl_MatrixUseAccumulator> c; c = coopMatMulAdd(a, b, c); }",
            "A must be M x K",
        ),
        (
            "void main() { coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a; coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>(a); }",
            "converts only to one of the same size",
        ),
        (
            "void main() { coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a; float x = a[0]; }",
            "an element of a cooperative matrix",
        ),
    ];
    for (body, want) in cases {
        let src = format!("{head}{body}\n");
        let e = errs(&src, "fp32");
        let d =
            e.0.iter()
                .find(|d| d.message.contains(want))
                .unwrap_or_else(|| panic!("no error `{want}` for\n{src}\n{e}"));
        let span = d.span.as_ref().unwrap_or_else(|| panic!("no place: {d}"));
        assert_eq!(span.line, 5, "{d}");
    }
}

/// What glslang builds and naga's IR cannot say is refused in the shader's
/// terms, with what to write instead: element access and component-wise
/// `*`, `/` and `-` (typed by naga's frontend or its IR), a global matrix.
#[test]
fn operations_naga_has_no_form_for_are_refused_in_glsl_terms() {
    let body = |b: &str| {
        format!(
            "{}\nvoid main()\n{{\n    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> a = \
             coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(float16_t(1.0));\n    \
             coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> b = a;\n{b}\n}}\n",
            "#version 450\n#extension GL_KHR_cooperative_matrix : require\n\
             #extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n\
             layout (local_size_x = 32) in;"
        )
    };
    for (b, want) in [
        (
            "    a[0] = a[1] * float16_t(2.0);",
            "an element of a cooperative matrix",
        ),
        (
            "    float16_t x = a[0];",
            "an element of a cooperative matrix",
        ),
        (
            "    int n = a.length();",
            "the `length()` of a cooperative matrix",
        ),
        ("    a = a * b;", "component-wise"),
        ("    a = a / b;", "component-wise quotient"),
        ("    a = -a;", "a negated cooperative matrix"),
    ] {
        let e = errs(&body(b), "fp16s").to_string();
        assert!(e.contains(want), "{b}: {e}");
        assert!(
            !e.contains("Struct {") && !e.contains("no name for"),
            "{b}: {e}"
        );
    }
    let member = "#version 450\n#extension GL_KHR_cooperative_matrix : require\n\
                  layout (local_size_x = 32) in;\n\
                  struct S { coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> m; };\n\
                  void main() { S s; }\n";
    let e = errs(member, "fp32").to_string();
    assert!(e.contains("declare the matrix beside the struct"), "{e}");
}

/// A matrix of the shader (a private global), as glslang writes it: a
/// `Private` variable without initializer.
#[test]
fn a_private_global_matrix_is_glslangs() {
    let src = "#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout (constant_id = 0) const uint M = 16;
layout (local_size_x = 32) in;
layout (binding = 0) buffer a_blob { float16_t a_data[]; };
coopmat<float16_t, gl_ScopeSubgroup, M, M, gl_MatrixUseAccumulator> g;
coopmat<float16_t, gl_ScopeSubgroup, M, M, gl_MatrixUseAccumulator> h[2];
void main()
{
    coopMatLoad(g, a_data, 0, M, gl_CooperativeMatrixLayoutRowMajor);
    h[1] = g + g;
    coopMatStore(h[1], a_data, 0, M, gl_CooperativeMatrixLayoutRowMajor);
}
";
    let c = ok_mode(src, "fp16s");
    tools::assert_valid(&c.spirv);
    let insts = crate::spirv::instructions(&c.spirv).unwrap();
    let private: Vec<_> = insts
        .iter()
        .filter(|i| i.op == crate::spirv::op::VARIABLE && i.operand(2) == Some(6))
        .collect();
    assert_eq!(private.len(), 2);
    assert!(private.iter().all(|i| i.words.len() == 4), "an initializer");
    glslang::compare_text(finished(src, "fp16s").text(), "private globals");
}

/// A naga parse error inside a rewritten call names the GLSL.
#[test]
fn a_wrong_argument_is_reported_in_glsl_terms() {
    let src = "#version 450
#extension GL_KHR_cooperative_matrix : require
layout (local_size_x = 32) in;
struct S { float x; };
layout (binding = 0) readonly buffer A_blob { S a_data[]; };
void main()
{
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
    coopMatLoad(a, a_data, 0, 4, gl_CooperativeMatrixLayoutRowMajor);
}
";
    let e = errs(src, "fp32");
    let d = &e.0[0];
    assert!(!d.message.contains("ncnnext"), "{e}");
    assert_eq!(d.span.as_ref().map(|s| s.line), Some(9), "{e}");
}

#[test]
fn no_input_panics() {
    // Hostile shapes: every prefix of the GEMM, and mangled calls.
    let src = KHR_GEMM;
    for cut in (0..src.len()).step_by(97) {
        let _ = super::super::compile(
            &expanded(&src[..cut], "fp16s"),
            &super::super::CompileOptions::default(),
        );
    }
    for bad in [
        "coopMatLoad(",
        "coopMatLoad(a,,,,)",
        "coopmat<",
        "coopmat<>",
        "coopmat<float, gl_ScopeSubgroup, 0, 16, gl_MatrixUseA> z;",
        "coopMatMulAdd(1, 2, 3)",
        "coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>(1, 2)",
    ] {
        let text = format!("#version 450\nvoid main() {{ {bad} }}\n");
        let r = super::super::compile(
            &expanded(&text, "fp32"),
            &super::super::CompileOptions::default(),
        );
        assert!(r.is_err(), "{bad}");
        let e = r.unwrap_err();
        assert!(!e.to_string().contains("panicked"), "{bad}: {e}");
    }
}

/// The corpus shaders with cooperative matrices.
pub(super) const CORPUS: &[&str] = &[
    "gemm_coopmat_pack4.comp",
    "conv1x1_coopmat_pack4.comp",
    "attention_score_coopmat.comp",
];

/// Each builds as a set with a device axis over
/// `ncnn_VK_KHR_cooperative_matrix`; its cooperative matrix variants do
/// their multiply-adds with specialization-constant sizes and pass
/// spirv-val, and each distinct text of them is glslang's shape.
#[test]
fn the_corpus_builds_as_sets() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    for name in CORPUS {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let set = crate::variant::build::build(
            crate::source::SourceFile {
                name: name.to_string(),
                path: Some(path),
                text,
            },
            &crate::FsLoader,
            &crate::ExpandOptions::default(),
            &super::super::CompileOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}:\n{e}"));
        assert!(
            set.declaration
                .device
                .iter()
                .any(|a| a.name == "ncnn_VK_KHR_cooperative_matrix"),
            "{name}: {:?}",
            set.axis_names()
        );
        let coop: Vec<&super::super::Compiled> = set
            .blobs
            .iter()
            .filter(|b| !b.reflection.cooperative_matrices.is_empty())
            .collect();
        let plain = set.blobs.len() - coop.len();
        assert!(
            !coop.is_empty() && plain > 0,
            "{name}: {} blobs",
            set.blobs.len()
        );
        for b in &coop {
            for ma in b.reflection.cooperative_matrices.iter() {
                assert!(
                    matches!(ma.m, CoopMatDim::Spec { id: 18, .. }),
                    "{name}: {ma:?}"
                );
                assert!(
                    matches!(ma.n, CoopMatDim::Spec { id: 19, .. }),
                    "{name}: {ma:?}"
                );
                assert!(
                    matches!(ma.k, CoopMatDim::Spec { id: 20, .. }),
                    "{name}: {ma:?}"
                );
            }
            tools::assert_valid(&b.spirv);
        }
        for t in set.texts.iter().filter(|t| t.contains("coopMatMulAdd")) {
            glslang::compare_text(t, name);
        }
    }
}

/// The reflection's multiply-adds survive JSON (how sets embed
/// reflections), and a reflection without any writes none.
#[test]
fn the_multiply_adds_survive_json() {
    let r = ok_mode(KHR_GEMM, "fp16s").reflection;
    let json = serde_json::to_string(&r).unwrap();
    assert!(
        json.contains("\"cooperative_matrices\":[{\"flavor\":\"khr\""),
        "{json}"
    );
    let back: crate::reflection::Reflection = serde_json::from_str(&json).unwrap();
    assert_eq!(back, r);
    let plain = ok_mode("#version 450\nvoid main() {}\n", "fp32").reflection;
    let json = serde_json::to_string(&plain).unwrap();
    assert!(!json.contains("cooperative_matrices"), "{json}");
    let back: crate::reflection::Reflection = serde_json::from_str(&json).unwrap();
    assert!(back.cooperative_matrices.is_empty());
}
