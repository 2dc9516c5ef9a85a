//! The matrix branch of the corpus's other cooperative-matrix shaders
//! (`tests/corpus/conv1x1_coopmat_pack4.comp`, `attention_score_coopmat.comp`:
//! loads through `shared` arrays of `uvec2` and with a zero stride,
//! construction from a matrix of another element type, a matrix times a
//! scalar, stores to `shared` and to a buffer) against glslang's blob of the
//! same finished text, in six modes, on the same random inputs, every output
//! byte compared. The corpus test runs their plain branch (it expands
//! without a device); this one defines `ncnn_VK_KHR_cooperative_matrix` and
//! takes M, N, K and the workgroup (one subgroup) from the device.
//!
//! It needs `VK_KHR_cooperative_matrix`, which Debian 12's lavapipe lacks:
//! ignored in the README's test command, run by `.ci/lavapipe-coopmat` on
//! Mesa 26's lavapipe (and on a GPU with `--include-ignored`).

use ncnn_glsl_core::CompileOptions;
use ncnn_glsl_runtime::{ContextOptions, SpecValue, Variant};
use ncnn_glsl_testkit::coopmat::device_shape;
use ncnn_glsl_testkit::differential::{
    finished, glslang_blob, glslang_result, leak_blob, leak_set, run_blobs, seed, target_of, Case,
    Cmp, Fill, Io,
};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::shaders::workspace_root;

/// The modes the matrix GEMM runs in on lavapipe and the H200.
const MODES: [&str; 6] = [
    "fp32",
    "fp16p",
    "fp16s",
    "fp16p+fp16a",
    "fp16s+fp16a",
    "bf16p",
];

/// The shader's text with the device macro defined after `#version`.
fn matrix_branch(file: &str) -> String {
    let path = workspace_root().join("tests/corpus").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let (version, rest) = text.split_once('\n').expect("a #version line");
    format!("{version}\n#define ncnn_VK_KHR_cooperative_matrix 1\n{rest}")
}

/// Bytes of `n` sfpvec4 in `mode`, how they are filled and compared.
fn sfpvec4(mode: &str, n: u64, out: bool) -> Io {
    let (bytes, fill, cmp) = if mode.starts_with("bf16") {
        (8, Fill::Bf16(-1.0, 1.0), Cmp::Bf16Ulps(0))
    } else if mode.starts_with("fp16") {
        (8, Fill::F16(-1.0, 1.0), Cmp::F16Ulps(0))
    } else {
        (16, Fill::F32(-1.0, 1.0), Cmp::F32Ulps(0))
    };
    if out {
        Io::Out(n * bytes, cmp)
    } else {
        Io::In(n * bytes, fill)
    }
}

fn ints(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// M, N, K (18, 19, 20) and the one-subgroup workgroup (`local_size_x_id`).
fn shape_spec(m: u32, n: u32, k: u32) -> Vec<(u32, SpecValue)> {
    vec![
        (18, SpecValue::Uint(m)),
        (19, SpecValue::Uint(n)),
        (20, SpecValue::Uint(k)),
    ]
}

/// top (outc x size) = W (outc x c) * bottom (c x size) + bias, with a
/// ragged last column tile and row strides past the row.
fn conv1x1(source: &str, mode: &str, (m, n, k): (u32, u32, u32), sg: u32) -> Case {
    let (c, outc, size) = (2 * k as i32, 2 * m as i32, 2 * n as i32 + 3);
    let (cstep, outcstep) = (size + 1, size + 2);
    let io = vec![
        sfpvec4(mode, (c / 4 * cstep) as u64, false),
        sfpvec4(mode, (outc / 4 * outcstep) as u64, true),
        Io::In((outc * c / 4) as u64 * 8, Fill::F16(-1.0, 1.0)),
        Io::In((outc / 4) as u64 * 8, Fill::F16(-1.0, 1.0)),
    ];
    let mut case = Case::new("conv1x1_coopmat_pack4", source, mode, io);
    case.push_constants = ints(&[c, cstep, outc, outcstep, size]);
    case.groups = [(size as u32).div_ceil(n), outc as u32 / m, 1];
    case.local_size = Some([sg, 1, 1]);
    case.specialization = [c, cstep, outc, outcstep, size]
        .iter()
        .enumerate()
        .map(|(id, &v)| (id as u32, SpecValue::Int(v)))
        .chain(shape_spec(m, n, k))
        .chain([(21, SpecValue::Uint(sg))])
        .collect();
    case
}

/// S (seqlen_q x seqlen_k, f32) = Q * K^T * scale.
fn attention(source: &str, mode: &str, (m, n, k): (u32, u32, u32), sg: u32) -> Case {
    let (q, kv, d) = (2 * m as i32, 3 * n as i32, 2 * k as i32);
    let io = vec![
        Io::In((q * d / 4) as u64 * 8, Fill::F16(-1.0, 1.0)),
        Io::In((kv * d / 4) as u64 * 8, Fill::F16(-1.0, 1.0)),
        Io::Out((q * kv) as u64 * 4, Cmp::F32Ulps(0)),
    ];
    let mut case = Case::new("attention_score_coopmat", source, mode, io);
    case.push_constants = ints(&[q, kv, d]);
    case.groups = [kv as u32 / n, q as u32 / m, 1];
    case.local_size = Some([sg, 1, 1]);
    case.specialization = vec![
        (0, SpecValue::Float(0.125)),
        (1, SpecValue::Int(q)),
        (2, SpecValue::Int(kv)),
        (3, SpecValue::Int(d)),
    ];
    case.specialization.extend(shape_spec(m, n, k));
    case
}

type MakeCase = fn(&str, &str, (u32, u32, u32), u32) -> Case;

fn matches_glslang(file: &str, make: MakeCase) {
    let source = matrix_branch(file);
    for mode in MODES {
        // The blobs do not depend on the shape: compiled before the device
        // is known, run at its shape.
        let e = finished(&source, mode);
        let compiled = ncnn_glsl_core::compile(&e, &CompileOptions::default())
            .unwrap_or_else(|d| panic!("{file} {mode}: our compile failed:\n{d}"));
        let (ours, reflection) = (compiled.spirv, compiled.reflection);
        let theirs = match glslang_result(e.text()) {
            Some(Ok(words)) => words,
            Some(Err(log)) => panic!("{file} {mode}: glslang refuses the finished text:\n{log}"),
            None => panic!(
                "{file}: no glslangValidator on PATH (one that knows GL_KHR_cooperative_matrix)"
            ),
        };
        assert!(
            !reflection.cooperative_matrices.is_empty(),
            "{file} {mode}: the matrix branch has no multiply-add"
        );
        // SAFETY: each shader guards every row and column it reads and
        // writes with the sizes its specialization constants give, and the
        // cases size the buffers for them (whole M and K tiles of the
        // matrices' rows and columns, as the shaders ask of the host).
        let (ours, theirs) = unsafe {
            (
                leak_blob(ours, reflection.clone()),
                glslang_blob(theirs, &reflection),
            )
        };
        let target = target_of(mode);
        let both: &'static [Variant] = Box::leak(Box::new([ours, theirs].map(|blob| Variant {
            target,
            axes: &[],
            blob,
        })));
        GpuTest::new(ContextOptions {
            variant_sets: vec![leak_set(both)],
            ..ContextOptions::default()
        })
        .feature("cooperativeMatrix")
        .blobs([ours, theirs])
        .run(|gpu| {
            let caps = gpu.ctx().caps();
            let shape = device_shape(caps).unwrap_or_else(|| {
                panic!("no fp16 x fp16 + fp32 subgroup shape with N and K multiples of 4")
            });
            let sg = caps.property("subgroupSize").unwrap_or(32) as u32;
            let case = make(&source, mode, shape, sg);
            let seed = seed();
            if let Err(e) = run_blobs(gpu, &case, ours, theirs, seed) {
                panic!("{file} {mode} at M/N/K {shape:?}: {e} (seed {seed})");
            }
            println!("{file} {mode}: M/N/K {shape:?}, subgroup {sg}: equal to glslang's");
        });
    }
}

#[test]
#[ignore = "needs VK_KHR_cooperative_matrix: .ci/lavapipe-coopmat runs it on Mesa 26's lavapipe"]
fn conv1x1_matrix_branch_matches_glslang() {
    matches_glslang("conv1x1_coopmat_pack4.comp", conv1x1);
}

#[test]
#[ignore = "needs VK_KHR_cooperative_matrix: .ci/lavapipe-coopmat runs it on Mesa 26's lavapipe"]
fn attention_matrix_branch_matches_glslang() {
    matches_glslang("attention_score_coopmat.comp", attention);
}
