//! The cost of the atomics repair: an element-wise fp16 copy whose stores
//! share 32-bit words, timed on one device in one run.
//!
//! ```text
//! cargo run --release -p ncnn-glsl-bench --bin store_cost -- [--n ELEMENTS] [--reps R] [--json FILE] [--heat-ms MS]
//! ```
//!
//! Kernels (`bench/shaders/`):
//! - `buffer_st1` in fp16p and bf16p: the extension's compare-and-swap loop on
//!   the shared word, which naga compiles only through the atomics repair;
//! - the same store as a plain read-modify-write (racy: neighbouring
//!   invocations share words), what it would cost without atomics; its lost
//!   stores are counted, the control that shows the race is real;
//! - `buffer_st1` in fp16s (a 16-bit store, where the device has 16-bit
//!   storage) and whole-word copies: the floors;
//! - the same copy as one 16-byte quad per invocation, and as `q8ta_bench`'s
//!   copy shader (four quads in flight per invocation, grid-stride): whether
//!   wider accesses move more bytes on the device.
//!
//! Every output except the racy one is checked against the input, every byte.
//! Each kernel's repetitions run in one submission, after `--heat-ms`
//! (default 500 on a GPU, 0 on a CPU driver) of load
//! (`ncnn_glsl_bench::copy::Heater`).

use std::process::ExitCode;
use std::sync::Arc;

use ncnn_glsl_bench::copy::{copy_pipeline, CopyLaunch, Heater, BENCH_COPY};
use ncnn_glsl_bench::stamp::document;
use ncnn_glsl_bench::stats::median;
use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, Context, ContextOptions, DeviceType, Dispatch, Options, Pipeline,
    PipelineOptions, Sequence, VariantSet,
};
use serde_json::json;

static STORE_ST1: &VariantSet = include_ncnn_shader!("shaders/store_st1.comp");
static STORE_PLAIN_RMW: &VariantSet = include_ncnn_shader!("shaders/store_plain_rmw.comp");
static STORE_WORD: &VariantSet = include_ncnn_shader!("shaders/store_word.comp");
static STORE_QUAD: &VariantSet = include_ncnn_shader!("shaders/store_quad.comp");

type Fail = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("store_cost: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Fail> {
    let mut n: usize = 1 << 24;
    let mut reps = 20;
    let mut json_out = None;
    let mut heat_ms = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut v = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--n" => n = v()?.parse()?,
            "--reps" => reps = v()?.parse()?,
            "--json" => json_out = Some(v()?),
            "--heat-ms" => heat_ms = Some(v()?.parse()?),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let n = n.max(2) / 2 * 2;
    let ctx = Context::new(ContextOptions {
        variant_sets: vec![
            STORE_ST1,
            STORE_PLAIN_RMW,
            STORE_WORD,
            STORE_QUAD,
            BENCH_COPY,
        ],
        ..Default::default()
    })?;
    eprintln!("device: {}, {n} fp16 elements", ctx.caps().name);
    let words = n / 2;
    let input: Vec<u8> = (0..words as u32)
        .flat_map(|i| i.wrapping_mul(0x9e37_79b9).to_le_bytes())
        .collect();
    let mut a = Buffer::new(&ctx, (words * 4) as u64)?;
    a.write(&input)?;
    let push = (n as i32).to_le_bytes();
    let groups_for = |invocations: usize| -> Result<[u32; 3], Fail> {
        let g = invocations.div_ceil(256) as u32;
        if g > ctx.limits().max_compute_work_group_count[0] {
            return Err(
                format!("--n {n}: {g} workgroups exceed maxComputeWorkGroupCount[0]").into(),
            );
        }
        Ok([g, 1, 1])
    };
    // (name, set, wanted mode, invocations, checked)
    let kernels: [(&str, &VariantSet, &str, usize, bool); 7] = [
        ("buffer_st1 fp16p (atomic CAS)", STORE_ST1, "fp16p", n, true),
        ("buffer_st1 bf16p (atomic CAS)", STORE_ST1, "bf16p", n, true),
        (
            "plain read-modify-write (racy)",
            STORE_PLAIN_RMW,
            "fp32",
            n,
            false,
        ),
        (
            "buffer_st1 fp16s (16-bit store)",
            STORE_ST1,
            "fp16s",
            n,
            true,
        ),
        ("whole words", STORE_WORD, "fp32", words, true),
        (
            "whole word quads",
            STORE_QUAD,
            "fp32",
            words.div_ceil(4),
            true,
        ),
        ("q8ta_bench's copy shader", BENCH_COPY, "fp32", 0, true),
    ];
    let heat_ms = heat_ms.unwrap_or(match ctx.caps().device_type {
        DeviceType::Cpu => 0,
        _ => 500,
    });
    let heat_shader = copy_pipeline(&ctx)?;
    let heater = Heater::new(&ctx, &heat_shader, heat_ms)?;
    let mut rows = Vec::new();
    let mut floor_ns = None;
    for (name, set, mode, invocations, checked) in kernels {
        let choice = ctx.select(set, mode.parse::<Options>()?, &[])?;
        let target = choice.variant.target.to_string();
        if (mode.starts_with("fp16") || mode.starts_with("bf16")) && !target.starts_with(mode) {
            eprintln!("{name}: skipped, the device runs {target} for {mode}");
            continue;
        }
        let pipeline = Arc::new(Pipeline::for_variant(
            &ctx,
            set,
            choice.variant,
            &PipelineOptions::default(),
        )?);
        let mut b = Buffer::new(&ctx, (words * 4) as u64)?;
        b.write(&vec![0xa5; words * 4])?;
        // The benchmark's copy shader (invocations 0) has its own launch.
        let (copy_push, groups) = if invocations == 0 {
            let l = CopyLaunch::new(&ctx, (words * 4) as u64);
            (l.push, l.groups)
        } else {
            (push.to_vec(), groups_for(invocations)?)
        };
        // All repetitions in one submission, after a load that brings a GPU
        // to the clocks of a busy device (`ncnn_glsl_bench::copy`).
        let bufs = [&a, &b];
        let mut seq = Sequence::new(&ctx);
        for _ in 0..reps + 3 {
            seq.dispatch(&pipeline, Dispatch::new(&bufs, &copy_push, groups))?;
        }
        heater.heat()?;
        let times: Vec<f64> = seq.run()?.iter().skip(3).filter_map(|s| s.gpu_ns).collect();
        if times.is_empty() {
            return Err("this queue has no timestamps: nothing to measure".into());
        }
        let mut out = vec![0u8; words * 4];
        b.read(&mut out)?;
        let lost = out
            .chunks_exact(2)
            .zip(input.chunks_exact(2))
            .filter(|(o, i)| o != i)
            .count();
        if checked && lost != 0 {
            return Err(format!("{name} ({target}): {lost} of {n} elements wrong").into());
        }
        let ns = median(times);
        if name == "whole words" {
            floor_ns = Some(ns);
        }
        rows.push((name, target, ns, lost));
    }
    println!(
        "{:<34} {:<16} {:>12} {:>10} {:>14}",
        "kernel", "variant", "median us", "GB/s", "elements lost"
    );
    let bytes = (2 * words * 4) as f64;
    let mut records = Vec::new();
    for (name, target, ns, lost) in &rows {
        println!(
            "{name:<34} {target:<16} {:>12.1} {:>10.1} {:>14}",
            ns / 1e3,
            bytes / ns,
            lost
        );
        records.push(json!({
            "kernel": name, "variant": target, "median_us": ns / 1e3, "gb_per_s": bytes / ns,
            "elements_lost": lost, "x_whole_words": floor_ns.map(|f| ns / f),
        }));
    }
    if let Some(path) = json_out {
        let doc = document(
            &ctx,
            json!({ "elements": n, "reps": reps, "heat_ms": heat_ms, "records": records }),
        );
        std::fs::write(&path, serde_json::to_string_pretty(&doc)? + "\n")?;
        eprintln!("wrote {path}");
    }
    Ok(())
}
