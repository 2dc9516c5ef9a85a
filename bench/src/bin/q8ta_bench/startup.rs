//! Wall-clock start-up: what a program pays before its first pixel shuffle.

use std::sync::Arc;
use std::time::Instant;

use ncnn_glsl_q8ta::plan::plan_on;
use ncnn_glsl_q8ta::sets::PIXEL_SHUFFLE;
use ncnn_glsl_q8ta::{
    reference, shuffle_axes, shuffle_specialization, Axes, BlockAxis, Layout, Q8taOps, QuantParams,
    Requant, Rewrite, Shape, ShufflePath,
};
use ncnn_glsl_runtime::{Blob, Context, ContextOptions, Options, Pipeline, PipelineOptions};
use serde_json::{json, Value};

use crate::args::Args;
use crate::cases;
use crate::error::Fail;

/// Wall-clock start-up: context creation, then the first pixel shuffle's
/// result on the host, then one more pipeline of the shuffle's blob,
/// specialized for another layout pair and quantization, from its embedded
/// SPIR-V (nothing is compiled from GLSL at run time).
pub fn startup(a: &Args) -> Result<(Arc<Context>, Value), Fail> {
    let t0 = Instant::now();
    let ctx = Context::new(ContextOptions {
        device: a.device.clone(),
        validation: a.validation,
        pipeline_statistics: a.executables.is_some(),
        ..ncnn_glsl_q8ta::context_options()
    })?;
    let t_ctx = t0.elapsed();
    let ops = Q8taOps::new(&ctx, Options::NCNN_DEFAULT)?;
    let q = QuantParams::new(0.02, 3, "input")?;
    let shape = Shape::new(1, 64, 16, 16);
    let words = vec![0x0102_0304u32; Layout::Packed4C.word_count(shape)];
    let input = ops.tensor_from_words(&words, shape, Layout::Packed4C, q)?;
    let os = reference::shuffle_output_shape(shape)?;
    let mut out = ops.tensor(os, Layout::Packed4C, q)?;
    ops.pixel_shuffle(&input, &mut out, 2)?;
    let got = out.read_words()?;
    let t_first = t0.elapsed();
    let want = reference::pixel_shuffle(
        &words,
        Layout::Packed4C,
        shape,
        Layout::Packed4C,
        &Requant::new(q, q)?,
    )?;
    if got != want {
        return Err("start-up run: the first result differs from the reference".into());
    }
    let axes = Axes {
        in_layout: Layout::Packed4W4C,
        out_layout: Layout::Packed4C1W,
        passthrough: false,
    };
    let k = Rewrite {
        path: ShufflePath::Words,
        requant: plan_on(
            ShufflePath::Words,
            shape,
            axes,
            cases::float_exact(),
            &ops.device(),
        )
        .rewrite
        .requant,
        blocks: BlockAxis::X,
        rows: 1,
    };
    let v = ops.variant(PIXEL_SHUFFLE, &shuffle_axes(k))?;
    let spec = shuffle_specialization(axes.in_layout, axes.out_layout, axes.passthrough, k);
    let options = PipelineOptions {
        local_size: Some([8, 8, 1]),
        specialization: &spec,
    };
    let t1 = Instant::now();
    let p = Pipeline::for_variant(&ctx, PIXEL_SHUFFLE, v, &options)?;
    let t_pipe = t1.elapsed();
    drop(p);
    // Variants share identical blobs: count each once.
    let mut blobs: Vec<&Blob> = PIXEL_SHUFFLE.variants().iter().map(|v| v.blob).collect();
    blobs.sort_by_key(|b| std::ptr::from_ref::<Blob>(b));
    blobs.dedup_by_key(|b| std::ptr::from_ref::<Blob>(b));
    let set_bytes: usize = blobs.iter().map(|b| b.spirv_len() * 4).sum();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    Ok((
        ctx,
        json!({
            "context_ms": ms(t_ctx),
            "first_result_ms": ms(t_first),
            "pipeline_create_ms": ms(t_pipe),
            "pixel_shuffle_variants": PIXEL_SHUFFLE.variants().len(),
            "pixel_shuffle_blobs": blobs.len(),
            "pixel_shuffle_spirv_bytes": set_bytes,
        }),
    ))
}
