//! The typed host side, end to end: `include_ncnn_shader!(mod ...)` on a
//! shader with push constants and a `psc()` specialization constant, the
//! variant ncnn's defaults choose on this device (fp16 storage and
//! arithmetic where it has them), floats written and read in that variant's
//! storage, every result checked on the host.
//!
//! ```sh
//! cargo run --release -p ncnn-glsl-runtime --example typed_scale
//! ```

use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, Context, ContextOptions, Dispatch, FloatStorage, Options,
    Pipeline, PipelineOptions,
};

// `scale::SET`, `scale::PushConstants`, `scale::Specialization`, `scale::Buffers`.
include_ncnn_shader!(mod scale = "examples/shaders/scale.comp");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(ContextOptions {
        variant_sets: vec![scale::SET],
        ..Default::default()
    })?;
    // ncnn's defaults narrowed to the device, then the best variant the set holds.
    let choice = ctx.select(scale::SET, Options::NCNN_DEFAULT, &[])?;
    let storage = FloatStorage::of(choice.chosen.options);

    let n = 1000; // vec4s
                  // `psc(n)`: fixed at pipeline creation, so the push constant's `n` is not read.
    let spec = scale::Specialization { n: Some(n) };
    let options = PipelineOptions {
        specialization: &spec.values(),
        ..Default::default()
    };
    let pipeline = Pipeline::for_variant(&ctx, scale::SET, choice.variant, &options)?;

    let x: Vec<f32> = (0..n * 4).map(|i| i as f32 / 64.0 - 30.0).collect();
    let mut bottom = Buffer::for_floats(&ctx, storage, x.len())?;
    let mut top = Buffer::for_floats(&ctx, storage, x.len())?;
    bottom.write_floats(storage, &x)?;

    let push = scale::PushConstants {
        n: 0,
        scale: 0.5,
        bias: 1.0,
    };
    let buffers = scale::Buffers {
        bottom_blob: &bottom,
        top_blob: &top,
    }
    .bind();
    let groups = [(n as u32).div_ceil(64), 1, 1];
    pipeline.dispatch(&Dispatch::typed(&buffers, &push, groups))?;

    let y = top.read_floats(storage, x.len())?;
    for (i, (x, y)) in x.iter().zip(&y).enumerate() {
        // The storage's rounding of the input and of the result (fp16: 11
        // bits; arithmetic in fp16 may add an ulp).
        let want = storage.round(storage.round(*x) * 0.5 + 1.0);
        if (y - want).abs() > 2e-3 * want.abs().max(1.0) {
            return Err(format!("element {i}: {x} * 0.5 + 1 gave {y}, want {want}").into());
        }
    }
    println!(
        "{}: {} elements in {} ({:?} storage), all as the host computes them",
        ctx.caps().name,
        x.len(),
        choice.chosen,
        storage
    );
    Ok(())
}
