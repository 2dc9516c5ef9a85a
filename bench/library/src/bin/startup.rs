//! Start-up at library scale: from nothing to the first result of a chain
//! of 50 pipelines (the library's 50 unary shaders, in place on one
//! buffer, one submission), on one device. Prints one JSON object: the
//! context, the 50 pipelines (the blobs' first decompression and the rest
//! of each creation apart), the chain's run, the total; and whether the
//! driver's pipeline cache was loaded.
//!
//! `startup [DEVICE] [CACHE_DIR]`: `DEVICE` as the runtime's
//! `DeviceSelector` parses it (`type:cpu`, `type:discrete`, ...; default
//! the first device); with `CACHE_DIR`, pipeline caches are loaded from and
//! saved to it (run twice: cold, then warm).

use std::time::Instant;

use ncnn_glsl_library_bench::kernels::LIBRARY;
use ncnn_glsl_runtime::{
    Buffer, CacheDir, Context, ContextOptions, DeviceSelector, Dispatch, Options, Pipeline,
    PipelineOptions, Sequence,
};

const CHAIN: usize = 50;
const W: u32 = 64;
const H: u32 = 64;
const C: u32 = 8;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let device: DeviceSelector = match args.next() {
        Some(d) => d.parse().map_err(|e| format!("device `{d}`: {e}"))?,
        None => DeviceSelector::default(),
    };
    let cache = args.next();
    let shaders: Vec<usize> = (0..LIBRARY.len())
        .filter(|&i| LIBRARY.names[i].starts_with("unary/"))
        .take(CHAIN)
        .collect();
    if shaders.len() != CHAIN {
        return Err(format!(
            "the library has {} unary shaders, not {CHAIN}",
            shaders.len()
        )
        .into());
    }

    let t0 = Instant::now();
    let ctx = Context::new(ContextOptions {
        device,
        variant_sets: shaders.iter().map(|&i| LIBRARY.sets[i]).collect(),
        // SAFETY: a folder this benchmark alone writes, given on its command line.
        pipeline_cache_dir: cache.map(|c| unsafe { CacheDir::new(c) }),
        ..ContextOptions::default()
    })?;
    let context_ms = ms(t0);

    let t = Instant::now();
    let mut choices = Vec::new();
    for &i in &shaders {
        choices.push((
            i,
            LIBRARY.select(i, ctx.caps(), Options::NCNN_DEFAULT, &[])?,
        ));
    }
    let select_ms = ms(t);
    let t = Instant::now();
    for (_, c) in &choices {
        std::hint::black_box(c.variant.blob.spirv());
    }
    let decompress_ms = ms(t);
    let t = Instant::now();
    let mut pipelines = Vec::new();
    let mut cache_loaded = 0;
    for (i, c) in &choices {
        let p = Pipeline::for_variant(
            &ctx,
            LIBRARY.sets[*i],
            c.variant,
            &PipelineOptions::default(),
        )?;
        cache_loaded += usize::from(p.cache_loaded());
        pipelines.push(p);
    }
    let pipelines_ms = ms(t);

    let t = Instant::now();
    // The largest element any chosen variant stores: fp32 pack4.
    let mut buf = Buffer::new(&ctx, u64::from(W * H * C) * 16)?;
    buf.write(&vec![0x3c; buf.size() as usize])?;
    // Every unary shader's block starts with `int w, h, c, cstep`; a
    // parameter after them (a slope, a bound) is 0.
    let shape: Vec<u8> = [W, H, C, W * H]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let pushes: Vec<Vec<u8>> = pipelines
        .iter()
        .map(|p| {
            let mut b = shape.clone();
            b.resize(p.push_constant_size() as usize, 0);
            b
        })
        .collect();
    let bufs = [&buf];
    let mut seq = Sequence::new(&ctx);
    for (p, push) in pipelines.iter().zip(&pushes) {
        let l = p.local_size();
        let groups = [W.div_ceil(l[0]), H.div_ceil(l[1]), C.div_ceil(l[2])];
        seq.dispatch(p, Dispatch::new(&bufs, push, groups))?;
    }
    seq.run()?;
    let mut out = vec![0u8; buf.size() as usize];
    buf.read(&mut out)?;
    let run_ms = ms(t);
    let total_ms = ms(t0);
    let modes: std::collections::BTreeSet<String> = choices
        .iter()
        .map(|(_, c)| c.chosen.options.to_string())
        .collect();
    let out = serde_json::json!({
        "device": ctx.caps().name,
        "chain": CHAIN,
        "modes": modes,
        "pipeline_cache_loaded": cache_loaded,
        "context_ms": context_ms,
        "select_ms": select_ms,
        "decompress_ms": decompress_ms,
        "pipelines_ms": pipelines_ms,
        "run_ms": run_ms,
        "total_ms": total_ms,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
