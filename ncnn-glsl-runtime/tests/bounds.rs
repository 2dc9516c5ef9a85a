//! A shader that indexes far past its buffers and its `shared` memory (at
//! its default size and specialized to 2 elements), run
//! through every safe entry point (`Pipeline::dispatch`, `Dispatch::typed`,
//! `Sequence`) in every variant the device runs, with buffers of one element
//! between poisoned guards: the guards and the input stay intact, every
//! atomic lands in the one counter (the compiler clamps each index into its
//! array: ncnn-glsl-core/src/compile/tests/bounds.rs), and the output is the
//! input.

use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, ContextOptions, Dispatch, FloatStorage, Pipeline, PipelineOptions,
    Sequence,
};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::Rng;

include_ncnn_shader!(mod oob = "tests/shaders/out_of_bounds.comp");

/// Bytes of each guard around the buffers.
const GUARD: usize = 64 << 10;
/// The guards' poison.
const POISON: u8 = 0xa5;
/// Workgroups of 64: 16,384 invocations, indexing up to 600,000 elements
/// past the end and 4,096 before the start.
const GROUPS: u32 = 256;
const STRIDE: i32 = 37;
const BACK: i32 = 4096;

fn guard(ctx: &std::sync::Arc<ncnn_glsl_runtime::Context>) -> Buffer {
    let mut g = Buffer::new(ctx, GUARD as u64).unwrap();
    g.write(&[POISON; GUARD]).unwrap();
    g
}

fn bytes_of(b: &mut Buffer) -> Vec<u8> {
    let mut out = vec![0u8; b.size() as usize];
    b.read(&mut out).unwrap();
    out
}

#[test]
fn no_access_leaves_the_bound_buffers() {
    GpuTest::new(ContextOptions {
        variant_sets: vec![oob::SET],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let mut rng = Rng::fresh();
        let seed = rng.seed();
        let mut ran = Vec::new();
        for v in oob::SET.variants() {
            let chosen = ctx.select(oob::SET, v.target.options, &[]).unwrap();
            if chosen.variant.target != v.target {
                continue; // the device cannot run it
            }
            let s = FloatStorage::of(v.target.options);
            let value: Vec<f32> = (0..4).map(|_| s.round(rng.f32(-8.0, 8.0))).collect();
            // Guards between and around the buffers, allocated in order so
            // that a suballocating allocator puts them side by side.
            let mut guards = vec![guard(ctx)];
            let mut input = Buffer::for_floats(ctx, s, 4).unwrap();
            guards.push(guard(ctx));
            let mut output = Buffer::for_floats(ctx, s, 4).unwrap();
            guards.push(guard(ctx));
            let mut count = Buffer::new(ctx, 4).unwrap();
            guards.push(guard(ctx));
            input.write_floats(s, &value).unwrap();
            let input_bytes = bytes_of(&mut input);
            // `shared` memory at its default size, and specialized below the
            // constant index the shader writes.
            for tile in [None, Some(2)] {
                let values = oob::Specialization { TILE: tile }.values();
                let options = PipelineOptions {
                    specialization: &values,
                    ..PipelineOptions::default()
                };
                let pipeline = Pipeline::for_variant(ctx, oob::SET, v, &options).unwrap();
                for entry in ["Pipeline::dispatch", "Dispatch::typed", "Sequence"] {
                    let at = format!(
                        "variant {}, TILE {tile:?}, through {entry} (seed {seed:#x})",
                        v.target
                    );
                    output.write(&vec![0xff; output.size() as usize]).unwrap();
                    count.write(&[0; 4]).unwrap();
                    run_once(ctx, &pipeline, entry, [&input, &output, &count], &at);
                    for (k, g) in guards.iter_mut().enumerate() {
                        let bad = bytes_of(g).iter().position(|&b| b != POISON);
                        assert_eq!(bad, None, "{at}: guard {k} written at byte {bad:?}");
                    }
                    assert_eq!(bytes_of(&mut input), input_bytes, "{at}: input written");
                    let counted = u32::from_le_bytes(bytes_of(&mut count)[..4].try_into().unwrap());
                    assert_eq!(counted, GROUPS * 64, "{at}: atomics outside the counter");
                    let out = output.read_floats(s, 4).unwrap();
                    assert_eq!(out, value, "{at}: the output is not the input");
                }
            }
            ran.push(v.target.to_string());
        }
        assert!(!ran.is_empty(), "no variant ran");
        eprintln!("ran {}", ran.join(", "));
    });
}

/// Runs the shader once through `entry`.
fn run_once(
    ctx: &std::sync::Arc<ncnn_glsl_runtime::Context>,
    pipeline: &Pipeline,
    entry: &str,
    [input, output, count]: [&Buffer; 3],
    at: &str,
) {
    let push = oob::PushConstants {
        stride: STRIDE,
        back: BACK,
    };
    let groups = [GROUPS, 1, 1];
    let buffers = [input, output, count];
    let raw = Dispatch::new(
        &buffers,
        ncnn_glsl_runtime::bytemuck::bytes_of(&push),
        groups,
    );
    let bound = oob::Buffers {
        bottom_blob: input,
        top_blob: output,
        count_blob: count,
    }
    .bind();
    match entry {
        "Pipeline::dispatch" => pipeline.dispatch(&raw).map(drop),
        "Dispatch::typed" => pipeline
            .dispatch(&Dispatch::typed(&bound, &push, groups))
            .map(drop),
        _ => (|| {
            let mut q = Sequence::new(ctx);
            q.dispatch(pipeline, raw)?;
            q.run().map(drop)
        })(),
    }
    .unwrap_or_else(|e| panic!("{at}: {e}"));
}
