//! The typed host side of `include_ncnn_shader!(mod NAME = "FILE");` on a
//! real device, in every variant the device runs: push constants as a
//! struct (with std430 padding before a `vec4`), specialization constants
//! by name (`psc()` picks the constant over the push constant), buffers by
//! name, floats written and read in each variant's storage. The crate
//! forbids `unsafe` code, as a user's may: what the macro expands to passes.

#![forbid(unsafe_code)]

use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, ContextOptions, Dispatch, FloatStorage, Pipeline, PipelineOptions,
};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::Rng;

include_ncnn_shader!(mod scale = "tests/shaders/typed_scale.comp");
include_ncnn_shader!(mod fixed = "tests/shaders/fixed_part.comp");
// The same shader again: its host types have the same names and layout,
// but belong to another set.
include_ncnn_shader!(mod twin = "tests/shaders/typed_scale.comp");

#[test]
fn the_generated_layout_is_the_shaders() {
    // `int n; float scale; uvec2 pad_check; vec4 offset;`: the vec4 is 16-aligned.
    assert_eq!(std::mem::size_of::<scale::PushConstants>(), 32);
    assert_eq!(std::mem::offset_of!(scale::PushConstants, offset), 16);
    assert_eq!(scale::BUFFER_NAMES, ["a_blob", "b_blob"]);
    let r = &scale::SET.variants()[0].blob.reflection();
    assert_eq!(r.push_constant_size, 32);
    let spec = scale::Specialization {
        n: Some(7),
        bias: Some(0.5),
    };
    assert_eq!(
        spec.values(),
        [
            (0, ncnn_glsl_runtime::SpecValue::Int(7)),
            (1, ncnn_glsl_runtime::SpecValue::Float(0.5))
        ]
    );
}

/// The host's result for one element, rounded as the storage stores it.
fn expected(s: FloatStorage, a: f32, scale: f32, add: f32) -> f32 {
    s.round(a * scale + add)
}

/// Whether `got` is `want` within the rounding of the storage (and of fp16
/// arithmetic, a few ulps of the result).
fn close(s: FloatStorage, want: f32, got: f32) -> bool {
    let tol = match s {
        FloatStorage::F32 => 1e-5 * want.abs().max(1.0),
        FloatStorage::F16 => 4.0 / 1024.0 * want.abs().max(1.0),
        FloatStorage::Bf16 => 2.0 / 128.0 * want.abs().max(1.0),
    };
    (want - got).abs() <= tol
}

#[test]
fn typed_dispatch_runs_every_variant_the_device_has() {
    GpuTest::new(ContextOptions {
        variant_sets: vec![scale::SET],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let mut rng = Rng::fresh();
        let seed = rng.seed();
        let mut ran = Vec::new();
        for v in scale::SET.variants() {
            if ctx
                .select(scale::SET, v.target.options, &[])
                .unwrap()
                .variant
                .target
                != v.target
            {
                continue; // the device cannot run it
            }
            let s = FloatStorage::of(v.target.options);
            let vec4s = 200usize;
            let count = vec4s * 4;
            let input: Vec<f32> = (0..count).map(|_| s.round(rng.f32(-4.0, 4.0))).collect();
            let mut a = Buffer::for_floats(ctx, s, count).unwrap();
            let mut b = Buffer::for_floats(ctx, s, count).unwrap();
            a.write_floats(s, &input).unwrap();
            // (spec n, push n): the push constant when the constant is 0.
            for (spec_n, push_n) in [(None, vec4s as i32), (Some(77), vec4s as i32)] {
                let poison = vec![0xffu8; s.buffer_bytes(count)];
                b.write(&poison).unwrap();
                let spec = scale::Specialization {
                    n: spec_n,
                    bias: Some(0.25),
                };
                let values = spec.values();
                let options = PipelineOptions {
                    specialization: &values,
                    ..PipelineOptions::default()
                };
                let p = Pipeline::for_variant(ctx, scale::SET, v, &options).unwrap();
                let push = scale::PushConstants {
                    n: push_n,
                    scale: 1.5,
                    pad_check: [3, 5],
                    offset: [0.5, -0.5, 1.0, 0.0],
                };
                let bound = scale::Buffers {
                    a_blob: &a,
                    b_blob: &b,
                }
                .bind();
                p.dispatch(&Dispatch::typed(
                    &bound,
                    &push,
                    [vec4s.div_ceil(64) as u32, 1, 1],
                ))
                .unwrap();
                let got = b.read_floats(s, count).unwrap();
                let mut raw = vec![0u8; s.buffer_bytes(count)];
                b.read(&mut raw).unwrap();
                let written = spec_n.unwrap_or(push_n) as usize * 4;
                let e = s.element_bytes();
                for i in 0..count {
                    let at = format!(
                        "variant {}, spec n {spec_n:?}, element {i} (seed {seed:#x})",
                        v.target
                    );
                    if i >= written {
                        assert!(
                            raw[i * e..(i + 1) * e].iter().all(|&x| x == 0xff),
                            "{at}: written past n"
                        );
                        continue;
                    }
                    let add = push.offset[i % 4] + 0.25 + 2.0;
                    let want = expected(s, input[i], 1.5, add);
                    assert!(
                        close(s, want, got[i]),
                        "{at}: {} gave {}, want {want}",
                        input[i],
                        got[i]
                    );
                }
            }
            ran.push(v.target.to_string());
        }
        assert!(ran.iter().any(|m| m == "fp32"), "ran {ran:?}");
        assert!(ran.iter().any(|m| m.starts_with("fp16s")), "ran {ran:?}");
        eprintln!("ran {ran:?}");
    });
}

#[test]
fn typed_buffers_of_another_shader_are_refused() {
    GpuTest::new(ContextOptions {
        variant_sets: vec![scale::SET],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let v = &scale::SET.variants()[0];
        let p = Pipeline::for_variant(ctx, scale::SET, v, &PipelineOptions::default()).unwrap();
        let (a, b) = (Buffer::new(ctx, 64).unwrap(), Buffer::new(ctx, 64).unwrap());
        let push = scale::PushConstants::default();
        // Bound with other names: refused before anything is recorded.
        static OTHER: [&str; 2] = ["x_blob", "y_blob"];
        let wrong = ncnn_glsl_runtime::Bound::new([&a, &b], &OTHER);
        let e = p
            .dispatch(&Dispatch::typed(&wrong, &push, [1, 1, 1]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("[\"x_blob\", \"y_blob\"]") && e.contains("[\"a_blob\", \"b_blob\"]"),
            "{e}"
        );
        // Another shader's host types, names and layout equal: refused.
        let twin_bound = twin::Buffers {
            a_blob: &a,
            b_blob: &b,
        }
        .bind();
        let twin_push = twin::PushConstants::default();
        let ours_bound = scale::Buffers {
            a_blob: &a,
            b_blob: &b,
        }
        .bind();
        for args in [
            Dispatch::typed(&twin_bound, &twin_push, [1, 1, 1]),
            Dispatch::typed(&twin_bound, &push, [1, 1, 1]),
            Dispatch::typed(&ours_bound, &twin_push, [1, 1, 1]),
        ] {
            let e = p.dispatch(&args).unwrap_err().to_string();
            assert!(
                e.contains("typed arguments for") && e.contains("own shader's variants"),
                "{e}"
            );
        }
        p.dispatch(&Dispatch::typed(&ours_bound, &push, [1, 1, 1]))
            .unwrap();
        // Floats read in another storage than the buffer holds.
        let mut halves = Buffer::for_floats(ctx, FloatStorage::F16, 32).unwrap();
        let e = halves
            .read_floats(FloatStorage::F32, 16)
            .unwrap_err()
            .to_string();
        assert!(e.contains("the buffer holds F16 floats"), "{e}");
        halves.write_floats(FloatStorage::Bf16, &[1.0; 32]).unwrap();
        assert_eq!(
            halves.read_floats(FloatStorage::Bf16, 32).unwrap(),
            [1.0; 32]
        );
        assert!(halves.read_floats(FloatStorage::F16, 32).is_err());
        // More floats than a buffer holds, or than memory can.
        let mut small = Buffer::new(ctx, 64).unwrap();
        let e = small
            .read_floats(FloatStorage::F16, 1000)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("read of 1000 floats") && e.contains("holds 64 bytes"),
            "{e}"
        );
        let e = Buffer::for_floats(ctx, FloatStorage::F32, usize::MAX)
            .unwrap_err()
            .to_string();
        assert!(e.contains("must fit in memory"), "{e}");
        assert_eq!(small.read_floats(FloatStorage::F16, 32).unwrap().len(), 32);
    });
}

#[test]
fn a_buffer_smaller_than_the_blocks_fixed_part_is_refused() {
    // `int total; int values[4]; float rest[];`: 20 bytes before `rest`,
    // and one element of it (the index clamps need one).
    assert_eq!(std::mem::size_of::<fixed::PushConstants>(), 0);
    let r = &fixed::SET.variants()[0].blob.reflection();
    assert_eq!(r.bindings[0].min_size, 24);
    GpuTest::new(ContextOptions {
        variant_sets: vec![fixed::SET],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let v = &fixed::SET.variants()[0];
        let p = Pipeline::for_variant(ctx, fixed::SET, v, &PipelineOptions::default()).unwrap();
        let short = Buffer::new(ctx, 20).unwrap();
        let bound = fixed::Buffers { out_blob: &short }.bind();
        let e = p
            .dispatch(&Dispatch::typed(
                &bound,
                &fixed::PushConstants {},
                [1, 1, 1],
            ))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`out_blob`") && e.contains("= 20") && e.contains("24 bytes"),
            "{e}"
        );
        // A part of an element after the whole ones: its index would be
        // clamped into the last whole one.
        let ragged = Buffer::new(ctx, 26).unwrap();
        let bound = fixed::Buffers { out_blob: &ragged }.bind();
        let e = p
            .dispatch(&Dispatch::typed(
                &bound,
                &fixed::PushConstants {},
                [1, 1, 1],
            ))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("= 26")
                && e.contains("4-byte elements after 20 bytes")
                && e.contains("28 bytes"),
            "{e}"
        );
        // Exactly the fixed part plus one element of `rest` runs.
        let mut ok = Buffer::new(ctx, 24).unwrap();
        let mut init = vec![0u8; 24];
        init[4..8].copy_from_slice(&5i32.to_le_bytes());
        init[16..20].copy_from_slice(&37i32.to_le_bytes());
        ok.write(&init).unwrap();
        let bound = fixed::Buffers { out_blob: &ok }.bind();
        p.dispatch(&Dispatch::typed(
            &bound,
            &fixed::PushConstants {},
            [1, 1, 1],
        ))
        .unwrap();
        let mut out = vec![0u8; 24];
        ok.read(&mut out).unwrap();
        assert_eq!(i32::from_le_bytes(out[0..4].try_into().unwrap()), 42);
        assert_eq!(f32::from_le_bytes(out[20..24].try_into().unwrap()), 1.0);
    });
}
