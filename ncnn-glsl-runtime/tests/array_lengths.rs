//! Arrays sized by specialization constants (a local, an `inout`
//! parameter, a private global, `shared` arrays sized by a difference and
//! by a derived constant), specialized to lengths that fit and to lengths
//! that do not: 0 (the bounds clamp `length - 1` would wrap), negative (a
//! driver crashed creating the pipeline, or grew to 24 GB), past the
//! per-invocation limit. Each one that does not fit is refused by
//! `Pipeline::new` with the array, its size, the constant's value and the
//! limit, before the driver sees it; each that fits runs, every element
//! checked against the CPU.

use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, ContextOptions, Dispatch, Options, Pipeline, PipelineOptions,
    SpecValue,
};
use ncnn_glsl_testkit::differential::{finished, glslang_blob, glslang_result};
use ncnn_glsl_testkit::gpu::GpuTest;

include_ncnn_shader!(mod lengths = "tests/shaders/spec_array_lengths.comp");

/// Workgroups of 64.
const GROUPS: u32 = 2;

/// The shader's output for invocation `g` at `N`, `S`, `P`.
fn expected(g: u32, [n, s, p]: [i32; 3]) -> i32 {
    let l = (g % 64) as i32;
    let d = s * 2;
    let total: i32 = (0..n).map(|k| k + l).sum();
    total + (l % s) * 2 + (l % (s - 4) + 100) + (l % d) * 5 + (l % p) * 3
}

#[test]
fn lengths_that_fit_run_and_others_are_refused() {
    GpuTest::new(ContextOptions {
        variant_sets: vec![lengths::SET],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let v = ctx
            .select(lengths::SET, Options::FP32, &[])
            .unwrap()
            .variant;
        let pipeline = |values: [i32; 3]| {
            let spec: Vec<(u32, SpecValue)> = (0..3)
                .map(|id| (id, SpecValue::Int(values[id as usize])))
                .collect();
            Pipeline::for_variant(
                ctx,
                lengths::SET,
                v,
                &PipelineOptions {
                    specialization: &spec,
                    ..PipelineOptions::default()
                },
            )
        };
        // Lengths that fit: the defaults, the least, `shared` past the
        // local size, the most the local and the private global may take
        // together (16,384 bytes).
        for values in [[8, 8, 4], [1, 5, 1], [3, 100, 7], [4000, 6, 96]] {
            let p = pipeline(values).unwrap_or_else(|e| panic!("{values:?}: {e}"));
            let n = 64 * GROUPS;
            let mut out = Buffer::new(ctx, u64::from(n) * 4).unwrap();
            out.write(&vec![0xa5; n as usize * 4]).unwrap();
            p.dispatch(&Dispatch::new(&[&out], &[], [GROUPS, 1, 1]))
                .unwrap();
            let mut bytes = vec![0u8; n as usize * 4];
            out.read(&mut bytes).unwrap();
            for (g, w) in bytes.chunks_exact(4).enumerate() {
                let got = i32::from_le_bytes(w.try_into().unwrap());
                assert_eq!(
                    got,
                    expected(g as u32, values),
                    "{values:?}, invocation {g}"
                );
            }
        }
        // (values, what the error must say)
        let refused: [([i32; 3], &[&str]); 9] = [
            (
                [0, 8, 4],
                &[
                    "`loc`",
                    "`a`",
                    "sized `N`",
                    "N = 0",
                    "= 0, but an array has 1 element or more",
                ],
            ),
            ([-1, 8, 4], &["`loc`", "N = -1", "= -1, but"]),
            ([i32::MIN, 8, 4], &["`loc`", "N = -2147483648"]),
            ([8, 0, 4], &["`shared` array `sh`", "S = 0"]),
            (
                [8, 4, 4],
                &[
                    "`shared` array `diff`",
                    "sized `S - 4`",
                    "S = 4",
                    "= 0, but",
                ],
            ),
            ([8, -2, 4], &["`shared` array"]),
            ([8, 8, 0], &["`priv`", "P = 0"]),
            (
                [4000, 8, 97],
                &[
                    "the largest: private or function arrays `a`, `loc`",
                    "N = 4000",
                    "= 16388, but",
                    "at most 16384 bytes an invocation",
                ],
            ),
            // Positive, but past the device's shared memory: the arrays named.
            (
                [8, 100_000, 4],
                &[
                    "shared memory of",
                    "`shared` array `sh` (sized `S`, with S = 100000) = 100000",
                    "`shared` array `twice` (sized `D`) = 200000",
                    "maxComputeSharedMemorySize",
                ],
            ),
        ];
        for (values, says) in refused {
            let e = match pipeline(values) {
                Ok(_) => panic!("{values:?}: a pipeline was made"),
                Err(e) => e.to_string(),
            };
            eprintln!("{values:?}: {e}");
            for s in says {
                assert!(e.contains(s), "{values:?}: `{s}` not in: {e}");
            }
            assert!(
                e.contains("spec_array_lengths"),
                "{values:?}: the shader is not named: {e}"
            );
        }
    });
}

/// glslang's blob of the same shader, whose reflection cannot name its
/// arrays (our words' ids are not its): a length of 0 or a negative one is
/// refused all the same, naming the constant the words read for it.
#[test]
fn glslangs_blob_is_refused_by_the_constant_it_reads() {
    let text = include_str!("shaders/spec_array_lengths.comp");
    let Some(words) = glslang_result(finished(text, "fp32").text()) else {
        return; // no glslang (a failure under CI, where the harness checks)
    };
    let words = words.expect("glslang compiles the shader");
    GpuTest::new(ContextOptions {
        variant_sets: vec![lengths::SET],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let ours = ctx
            .select(lengths::SET, Options::FP32, &[])
            .unwrap()
            .variant;
        // SAFETY: refused before the driver sees it (what the test checks),
        // and it indexes inside its arrays at the lengths that fit.
        let theirs = unsafe { glslang_blob(words, ours.blob.reflection()) };
        for (n, says) in [(0, "N = 0"), (-3, "N = -3")] {
            let spec = [(0, SpecValue::Int(n))];
            let options = PipelineOptions {
                specialization: &spec,
                ..PipelineOptions::default()
            };
            let e = match Pipeline::new(ctx, "glslang's", theirs, &options) {
                Ok(_) => panic!("N = {n}: a pipeline was made"),
                Err(e) => e.to_string(),
            };
            eprintln!("N = {n}: {e}");
            assert!(e.contains(says) && e.contains("1 element or more"), "{e}");
        }
    });
}
