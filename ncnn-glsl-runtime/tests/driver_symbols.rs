//! lavapipe's JIT compiles some fp16 math (`exp`, ...) to calls of C math
//! functions it looks up by name among the process's global symbols: in a
//! program that does not link libm, the lookup gives address 0 and the
//! driver's thread jumps there. This binary does not link libm (checked
//! first), and runs such a shader in every variant the device runs.

use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, ContextOptions, Dispatch, FloatStorage, Pipeline, PipelineOptions,
};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::Rng;

include_ncnn_shader!(mod fp16_exp = "tests/shaders/fp16_exp.comp");

/// The libraries this test binary names as `NEEDED` (`readelf -d`).
fn needed() -> Vec<String> {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new("readelf")
        .arg("-d")
        .arg(&exe)
        .output()
        .expect("readelf (binutils) runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split('[').nth(1)?.trim_end_matches(']').to_string()))
        .collect()
}

#[test]
fn fp16_math_runs_in_a_program_without_libm() {
    let libs = needed();
    assert!(!libs.is_empty(), "readelf found no NEEDED entries");
    assert!(
        !libs.iter().any(|l| l.starts_with("libm.")),
        "this binary links libm ({libs:?}): the test would prove nothing"
    );
    GpuTest::new(ContextOptions {
        variant_sets: vec![fp16_exp::SET],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let mut rng = Rng::fresh();
        let seed = rng.seed();
        let n = 256usize;
        let x: Vec<f32> = (0..n * 4).map(|_| rng.f32(-2.0, 2.0)).collect();
        // The reference is the fp32 variant's output: host math would link libm.
        let mut reference: Option<Vec<f32>> = None;
        let mut ran = Vec::new();
        // fp32 first: the set is sorted by target and fp32 sorts first.
        for v in fp16_exp::SET.variants() {
            if ctx
                .select(fp16_exp::SET, v.target.options, &[])
                .unwrap()
                .variant
                .target
                != v.target
            {
                continue; // the device cannot run it
            }
            let s = FloatStorage::of(v.target.options);
            let x: Vec<f32> = x.iter().map(|&x| s.round(x)).collect();
            let mut a = Buffer::for_floats(ctx, s, x.len()).unwrap();
            let mut b = Buffer::for_floats(ctx, s, x.len()).unwrap();
            a.write_floats(s, &x).unwrap();
            b.write(&vec![0xff; b.size() as usize]).unwrap();
            let p =
                Pipeline::for_variant(ctx, fp16_exp::SET, v, &PipelineOptions::default()).unwrap();
            let push = fp16_exp::PushConstants { n: n as i32 };
            let bound = fp16_exp::Buffers {
                bottom_blob: &a,
                top_blob: &b,
            }
            .bind();
            p.dispatch(&Dispatch::typed(
                &bound,
                &push,
                [n.div_ceil(64) as u32, 1, 1],
            ))
            .unwrap();
            let got = b.read_floats(s, x.len()).unwrap();
            let want = reference.get_or_insert_with(|| got.clone());
            for (i, (&w, &y)) in want.iter().zip(&got).enumerate() {
                assert!(
                    (w - y).abs() <= 0.05 * w.abs().max(1.0),
                    "variant {}, element {i}: f({}) gave {y}, fp32 gave {w} (seed {seed:#x})",
                    v.target,
                    x[i]
                );
            }
            ran.push(v.target.to_string());
        }
        assert!(
            ran.iter().any(|t| t.contains("fp16a")),
            "no fp16-arithmetic variant ran: {ran:?}"
        );
        eprintln!("ran {}", ran.join(", "));
    });
}
