//! Contexts opened, used and dropped on several threads at once, each
//! thread ending while the others still call the driver.
//!
//! On NVIDIA's driver this took the process down (SIGSEGV or abort, in
//! glvnd's libEGL, which the ICD loads) while the runtime let the loader
//! unload the driver with the last instance: a thread that had called into
//! it ended after it was unloaded and loaded again. The runtime now keeps
//! what a context loaded for the life of the process (`quirks.rs`). Its own
//! binary: a crash here is this test's and no other's.

use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, ContextOptions, Dispatch, Options, Pipeline, PipelineOptions,
    VariantSet,
};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::Rng;

static SEED: &VariantSet = include_ncnn_shader!("../tests/shaders/seed_example.comp");

/// Threads at once; thread `t` opens `ROUNDS + t` contexts, one after the
/// other, so the threads end at different times.
const THREADS: usize = 4;
const ROUNDS: usize = 3;

/// One context: the seed shader in fp32 over fresh random vec4s, every
/// output element checked (`a + 123`, exact in fp32 for these inputs).
fn one_context(thread: usize, round: usize) {
    GpuTest::new(ContextOptions {
        variant_sets: vec![SEED],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let choice = ctx.select(SEED, Options::FP32, &[]).unwrap();
        let p = Pipeline::for_variant(ctx, SEED, choice.variant, &PipelineOptions::default())
            .unwrap();
        let mut rng = Rng::fresh();
        let seed = rng.seed();
        let n = 256u32;
        // Integers below 2^20: the sum is exact in fp32.
        let input: Vec<f32> = (0..n * 4)
            .map(|_| rng.f32(-1e6, 1e6).round())
            .collect();
        let bytes = input.len() as u64 * 4;
        let mut a = Buffer::new(ctx, bytes).unwrap();
        let mut b = Buffer::new(ctx, bytes).unwrap();
        a.write(bytemuck::cast_slice(&input)).unwrap();
        b.write(&vec![0xff; bytes as usize]).unwrap(); // poison: NaN
        p.dispatch(&Dispatch::new(&[&a, &b], &[], [n, 1, 1]))
            .unwrap();
        let mut out = vec![0u8; bytes as usize];
        b.read(&mut out).unwrap();
        for (i, (x, y)) in input.iter().zip(out.chunks_exact(4)).enumerate() {
            let got = f32::from_le_bytes(y.try_into().unwrap());
            assert_eq!(
                got.to_bits(),
                (x + 123.0).to_bits(),
                "thread {thread}, context {round}, element {i}: {x} + 123 gave {got} (seed {seed:#x})"
            );
        }
    });
}

#[test]
fn contexts_open_and_close_on_threads_that_end_at_different_times() {
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            std::thread::Builder::new()
                .name(format!("contexts-{t}"))
                .spawn(move || {
                    for round in 0..ROUNDS + t {
                        one_context(t, round);
                    }
                })
                .unwrap()
        })
        .collect();
    for (t, handle) in threads.into_iter().enumerate() {
        if let Err(panic) = handle.join() {
            eprintln!("thread {t} failed");
            std::panic::resume_unwind(panic);
        }
    }
    // No context is left, and this binary does not link the loader: it is
    // mapped only because the runtime kept it.
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        assert!(
            maps.contains("libvulkan"),
            "the Vulkan loader was unloaded with the last context"
        );
    }
}
