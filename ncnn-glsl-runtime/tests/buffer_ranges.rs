//! Buffers bound at an offset and a range, as ncnn binds a blob inside a
//! larger buffer: the shader sees the range only (its array length, its
//! bounds clamps), the bytes around it keep their values, and every bad range
//! is refused before anything is recorded.

use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, BufferRange, ContextOptions, Dispatch, FloatStorage, Options,
    Pipeline, PipelineOptions, VariantSet,
};
use ncnn_glsl_testkit::gpu::{Gpu, GpuTest};
use ncnn_glsl_testkit::Rng;

static SEED: &VariantSet = include_ncnn_shader!("../tests/shaders/seed_example.comp");

const POISON: u8 = 0xa5;

/// Runs `body` on a validated context with the seed's fp32 pipeline at
/// local size `local_size`.
fn with_seed(local_size: [u32; 3], body: impl FnOnce(&Gpu, &Pipeline)) {
    GpuTest::new(ContextOptions {
        variant_sets: vec![SEED],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let v = ctx.select(SEED, Options::FP32, &[]).unwrap().variant;
        let options = PipelineOptions {
            local_size: Some(local_size),
            ..Default::default()
        };
        let p = Pipeline::for_variant(ctx, SEED, v, &options).unwrap();
        body(gpu, &p);
    });
}

#[test]
fn a_dispatch_sees_its_ranges_only() {
    with_seed([64, 1, 1], |gpu, p| {
        let ctx = gpu.ctx();
        let align = ctx.limits().min_storage_buffer_offset_alignment.max(16);
        let mut rng = Rng::fresh();
        let seed = rng.seed();
        // Input and output as two blobs of one buffer, each at an aligned
        // offset, with poison between and around them.
        let n = 64 * 3; // vec4s each dispatch reads and writes
        let blob = n as u64 * 16;
        let (in_at, out_at) = (align, (align + blob).div_ceil(align) * align + align);
        let total = out_at + blob + align;
        let input: Vec<f32> = (0..n * 4).map(|_| rng.f32(-100.0, 100.0)).collect();
        let mut bytes = vec![POISON; total as usize];
        bytes[in_at as usize..(in_at + blob) as usize]
            .copy_from_slice(&FloatStorage::F32.encode(&input));
        let mut whole = Buffer::new(ctx, total).unwrap();
        whole.write(&bytes).unwrap();
        let ranges = [
            BufferRange::new(in_at, blob),
            BufferRange::new(out_at, blob),
        ];
        p.dispatch(&Dispatch::new(&[&whole, &whole], &[], [3, 1, 1]).with_ranges(&ranges))
            .unwrap();
        let mut got = vec![0u8; total as usize];
        whole.read(&mut got).unwrap();
        let out = FloatStorage::F32
            .decode(&got[out_at as usize..(out_at + blob) as usize], n * 4)
            .unwrap();
        for (i, (x, y)) in input.iter().zip(&out).enumerate() {
            assert_eq!(*y, x + 123.0, "element {i} (seed {seed:#x})");
        }
        for (i, (b, want)) in got.iter().zip(&bytes).enumerate() {
            let in_out = (out_at..out_at + blob).contains(&(i as u64));
            assert!(in_out || b == want, "byte {i} outside the output changed");
        }

        // Twice the invocations the output range holds: the shader's clamps
        // keep every store inside the range, whose neighbours stay poison.
        let half = BufferRange::new(out_at, blob / 2);
        whole.write(&bytes).unwrap();
        p.dispatch(
            &Dispatch::new(&[&whole, &whole], &[], [3, 1, 1])
                .with_ranges(&[BufferRange::new(in_at, blob), half]),
        )
        .unwrap();
        whole.read(&mut got).unwrap();
        for (i, (b, want)) in got.iter().zip(&bytes).enumerate() {
            let inside = (half.offset..half.offset + half.size).contains(&(i as u64));
            assert!(
                inside || b == want,
                "byte {i} outside the bound half changed"
            );
        }
        let first = FloatStorage::F32
            .decode(&got[out_at as usize..(out_at + half.size) as usize], n * 2)
            .unwrap();
        for (i, (x, y)) in input.iter().zip(&first).take(n * 2 - 4).enumerate() {
            assert_eq!(*y, x + 123.0, "element {i} (seed {seed:#x})");
        }
    });
}

#[test]
fn bad_ranges_are_refused_before_anything_runs() {
    with_seed([1, 1, 1], |gpu, p| {
        let ctx = gpu.ctx();
        let align = ctx.limits().min_storage_buffer_offset_alignment;
        let mut a = Buffer::new(ctx, 4096).unwrap();
        let mut b = Buffer::new(ctx, 4096).unwrap();
        a.write(&[0; 4096]).unwrap();
        b.write(&[POISON; 4096]).unwrap();
        let whole = BufferRange::new(0, 4096);
        let refused = |ranges: &[BufferRange], want: &str| {
            let e = p
                .dispatch(&Dispatch::new(&[&a, &b], &[], [4, 1, 1]).with_ranges(ranges))
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{ranges:?}: {e}");
        };
        refused(&[whole], "number of buffer ranges");
        if align > 1 {
            refused(
                &[whole, BufferRange::new(align / 2, 64)],
                &format!("offset of the range bound for `b_blob` = {}", align / 2),
            );
        }
        refused(
            &[whole, BufferRange::new(0, 4097)],
            "range bound for `b_blob` = 4097 bytes at offset 0, but the buffer holds 4096 bytes",
        );
        let far = u64::MAX / align * align;
        refused(&[whole, BufferRange::new(far, 64)], "the buffer holds 4096");
        refused(
            &[whole, BufferRange::new(0, 0)],
            "a range holds at least one byte",
        );
        refused(
            &[whole, BufferRange::new(0, 8)],
            "size of the range bound for `b_blob` = 8",
        );
        refused(&[whole, BufferRange::new(0, 24)], "make it 32 bytes");
        let mut out = vec![0u8; 4096];
        b.read(&mut out).unwrap();
        assert!(out.iter().all(|&x| x == POISON), "a refused dispatch wrote");
    });
}
