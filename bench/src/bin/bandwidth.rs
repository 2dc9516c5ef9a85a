//! What a copy moves on this device, against the size of the buffers, where
//! their memory comes from, and how much other device memory is allocated
//! around them: the ceiling `q8ta_bench` compares its kernels with.
//!
//! ```text
//! cargo run --release -p ncnn-glsl-bench --bin bandwidth -- [--reps R] [--json FILE] [--steps STEPS] [--queue-family N]
//! ```
//!
//! Each `copy` step (see [`Step`] for the others) allocates `before` MiB of other buffers, then a source and a
//! destination of `size` MiB each (from the allocator's shared blocks or each
//! in its own `VkDeviceMemory`), then `after` MiB of other buffers, and times
//! three copies of the source into the destination: `q8ta_bench`'s copy
//! shader (four 16-byte quads per invocation, grid-stride), one quad per
//! invocation, and `vkCmdCopyBuffer`. Every destination is checked against
//! the source after the run.

use std::process::ExitCode;

use ncnn_glsl_bench::copy::{CopyLaunch, BENCH_COPY};
use ncnn_glsl_bench::stamp::document;
use ncnn_glsl_bench::stats::median;
use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, Context, ContextOptions, Dispatch, Options, Pipeline,
    PipelineOptions, Sequence, VariantSet,
};
use serde_json::json;

static STORE_QUAD: &VariantSet = include_ncnn_shader!("shaders/store_quad.comp");

type Fail = Box<dyn std::error::Error>;

const MIB: u64 = 1 << 20;

/// One step of a run (`--steps`, `;`-separated):
/// - `copy SIZE [bN] [aN] [d] [u]`: allocate N MiB of other buffers before,
///   a source and a destination of SIZE MiB (`d`: each in its own
///   `VkDeviceMemory`), N MiB after, write the source (`u`: leave it
///   unwritten), time the three copies, check the destination;
/// - `alloc SIZE [d]`: allocate SIZE MiB of device memory and free it;
/// - `stage SIZE`: write SIZE MiB into a new buffer (through the staging
///   path) and free both;
/// - `sleep SECONDS`;
/// - `pipeline`: create the copy shader's pipeline once more, as a program
///   does when it loads a kernel;
/// - `ramp MS [N]`: 64 MiB copies by the copy shader, N (8) per submission,
///   for MS milliseconds of wall time, printing the bandwidth of each submission
///   against the time since the step began: how fast the GPU's clocks
///   follow its load.
#[derive(Clone, Debug)]
enum Step {
    Copy(Row),
    Alloc(u64, bool),
    Stage(u64),
    Sleep(u64),
    Ramp(u64, usize),
    Pipeline,
}

#[derive(Clone, Copy, Debug)]
struct Row {
    before: u64,
    size: u64,
    after: u64,
    dedicated: bool,
    written: bool,
}

/// The default run: sizes, memory placement and other allocations.
const DEFAULT_STEPS: &str = "copy 16; copy 32; copy 64; copy 128; copy 192; copy 256; copy 384; \
    copy 512; copy 1024; copy 64 d; copy 128 d; copy 512 d; copy 128 u; copy 128 b1024; \
    copy 128 a1024; copy 128 b4096";

fn parse_steps(text: &str) -> Result<Vec<Step>, Fail> {
    let mut steps = Vec::new();
    for s in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let words: Vec<&str> = s.split_whitespace().collect();
        let num = |w: Option<&&str>| -> Result<u64, Fail> {
            Ok(w.ok_or(format!("`{s}`: a number is missing"))?.parse()?)
        };
        let flag = |f: &str| words[2..].contains(&f);
        steps.push(match words[0] {
            "copy" => {
                let mut row = Row {
                    before: 0,
                    size: num(words.get(1))?,
                    after: 0,
                    dedicated: flag("d"),
                    written: !flag("u"),
                };
                for w in &words[2..] {
                    if let Some(n) = w.strip_prefix('b') {
                        row.before = n.parse()?;
                    } else if let Some(n) = w.strip_prefix('a') {
                        row.after = n.parse()?;
                    } else if *w != "d" && *w != "u" {
                        return Err(format!("`{s}`: unknown word `{w}`").into());
                    }
                }
                Step::Copy(row)
            }
            "alloc" => Step::Alloc(num(words.get(1))?, words.get(2) == Some(&"d")),
            "stage" => Step::Stage(num(words.get(1))?),
            "sleep" => Step::Sleep(num(words.get(1))?),
            "ramp" => Step::Ramp(
                num(words.get(1))?,
                words.get(2).map_or(Ok(8), |w| w.parse())?,
            ),
            "pipeline" => Step::Pipeline,
            w => return Err(format!("`{s}`: unknown step `{w}`").into()),
        });
    }
    Ok(steps)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bandwidth: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Fail> {
    let mut reps = 10;
    let mut json_out = None;
    let mut steps = DEFAULT_STEPS.to_string();
    let mut queue_family = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut v = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--reps" => reps = v()?.parse()?,
            "--json" => json_out = Some(v()?),
            "--steps" => steps = v()?,
            "--queue-family" => queue_family = Some(v()?.parse()?),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let ctx = Context::new(ContextOptions {
        variant_sets: vec![STORE_QUAD, BENCH_COPY],
        queue_family,
        ..Default::default()
    })?;
    eprintln!(
        "device: {}, queue family {}",
        ctx.caps().name,
        ctx.queue_family_index()
    );
    let pipe = |set: &'static VariantSet| -> Result<Pipeline, Fail> {
        let v = ctx.select(set, Options::NCNN_DEFAULT, &[])?.variant;
        Ok(Pipeline::for_variant(
            &ctx,
            set,
            v,
            &PipelineOptions::default(),
        )?)
    };
    let copy_shader = pipe(BENCH_COPY)?;
    let quad_shader = pipe(STORE_QUAD)?;
    let max_x = ctx.limits().max_compute_work_group_count[0];
    let steps = parse_steps(&steps)?;
    let t0 = std::time::Instant::now();
    println!(
        "{:>7} {:>7} {:>7} {:>7} {:>9} {:>7} | {:>12} {:>12} {:>12}",
        "time",
        "before",
        "MiB",
        "after",
        "memory",
        "written",
        "copy shader",
        "one quad",
        "vkCmdCopy"
    );
    let mut records = Vec::new();
    for step in steps {
        let r = match step {
            Step::Copy(r) => r,
            Step::Alloc(mib, dedicated) => {
                let b = if dedicated {
                    Buffer::new_dedicated(&ctx, mib * MIB)?
                } else {
                    Buffer::new(&ctx, mib * MIB)?
                };
                drop(b);
                println!("{:>6.1}s alloc {mib} MiB", t0.elapsed().as_secs_f64());
                continue;
            }
            Step::Stage(mib) => {
                let mut b = Buffer::new(&ctx, mib * MIB)?;
                b.write(&vec![0x5a; (mib * MIB) as usize])?;
                println!("{:>6.1}s stage {mib} MiB", t0.elapsed().as_secs_f64());
                continue;
            }
            Step::Pipeline => {
                let v = ctx.select(BENCH_COPY, Options::NCNN_DEFAULT, &[])?.variant;
                let t = std::time::Instant::now();
                drop(Pipeline::for_variant(
                    &ctx,
                    BENCH_COPY,
                    v,
                    &PipelineOptions::default(),
                )?);
                println!(
                    "{:>6.1}s pipeline in {:.1} ms",
                    t0.elapsed().as_secs_f64(),
                    t.elapsed().as_secs_f64() * 1e3
                );
                continue;
            }
            Step::Ramp(ms, batch) => {
                let bytes = 64 * MIB;
                let (src, dst) = (Buffer::new(&ctx, bytes)?, Buffer::new(&ctx, bytes)?);
                let copy = CopyLaunch::new(&ctx, bytes);
                let bufs = [&src, &dst];
                let start = std::time::Instant::now();
                let mut series = Vec::new();
                while start.elapsed().as_millis() < u128::from(ms) {
                    let mut seq = Sequence::new(&ctx);
                    for _ in 0..batch {
                        seq.dispatch(&copy_shader, Dispatch::new(&bufs, &copy.push, copy.groups))?;
                    }
                    let ns: Vec<f64> = seq.run()?.iter().filter_map(|s| s.gpu_ns).collect();
                    if ns.is_empty() {
                        return Err("this queue has no timestamps: nothing to measure".into());
                    }
                    let gbps = (2 * bytes) as f64 / median(ns);
                    series.push((start.elapsed().as_secs_f64() * 1e3, gbps.round()));
                }
                let line: Vec<String> = series
                    .iter()
                    .map(|(t, g)| format!("{t:.0}ms:{g:.0}"))
                    .collect();
                println!(
                    "{:>6.1}s ramp {ms} ms, GB/s per submission: {}",
                    t0.elapsed().as_secs_f64(),
                    line.join(" ")
                );
                records.push(json!({ "ramp_ms": ms, "series_ms_gb_per_s": series }));
                continue;
            }
            Step::Sleep(s) => {
                std::thread::sleep(std::time::Duration::from_secs(s));
                println!("{:>6.1}s sleep {s} s", t0.elapsed().as_secs_f64());
                continue;
            }
        };
        let bytes = r.size * MIB;
        let ballast = |mib: u64| -> Result<Vec<Buffer>, Fail> {
            (0..mib.div_ceil(256))
                .map(|i| Ok(Buffer::new(&ctx, (mib - 256 * i).min(256) * MIB)?))
                .collect()
        };
        let _before = ballast(r.before)?;
        let new = |size| {
            if r.dedicated {
                Buffer::new_dedicated(&ctx, size)
            } else {
                Buffer::new(&ctx, size)
            }
        };
        let mut src = new(bytes)?;
        let mut dst = new(bytes)?;
        let _after = ballast(r.after)?;
        let input: Vec<u8> = (0..(bytes / 4) as u32)
            .flat_map(|i| i.wrapping_mul(0x9e37_79b9).to_le_bytes())
            .collect();
        if r.written {
            src.write(&input)?;
        }
        let copy = CopyLaunch::new(&ctx, bytes);
        let quads = (bytes / 16) as u32;
        let quad_push = ((bytes / 2) as i32).to_le_bytes();
        let quad_groups = quads.div_ceil(256);
        if quad_groups > max_x {
            return Err(format!(
                "{} MiB: {quad_groups} workgroups exceed the x limit",
                r.size
            )
            .into());
        }
        let mut ns = [Vec::new(), Vec::new(), Vec::new()];
        for rep in 0..reps + 3 {
            let a = copy_shader.dispatch(&Dispatch::new(&[&src, &dst], &copy.push, copy.groups))?;
            let b = quad_shader.dispatch(&Dispatch::new(
                &[&src, &dst],
                &quad_push,
                [quad_groups, 1, 1],
            ))?;
            let c = dst.copy_from(&src, bytes)?;
            if rep >= 3 {
                ns[0].extend(a.gpu_ns);
                ns[1].extend(b.gpu_ns);
                ns[2].extend(c.gpu_ns);
            }
        }
        let mut out = vec![0u8; bytes as usize];
        dst.read(&mut out)?;
        let mut expected = vec![0u8; bytes as usize];
        src.read(&mut expected)?;
        if r.written && expected != input {
            return Err(format!("{} MiB: the source does not read back", r.size).into());
        }
        if out != expected {
            let bad = out.iter().zip(&expected).filter(|(a, b)| a != b).count();
            return Err(format!("{} MiB: {bad} bytes of the copy differ", r.size).into());
        }
        if ns.iter().any(|v| v.is_empty()) {
            return Err("this queue has no timestamps: nothing to measure".into());
        }
        let gbps: Vec<f64> = ns
            .into_iter()
            .map(|v| (2 * bytes) as f64 / median(v))
            .collect();
        let memory = if r.dedicated { "dedicated" } else { "blocks" };
        println!(
            "{:>6.1}s {:>7} {:>7} {:>7} {:>9} {:>7} | {:>9.0} GB/s {:>7.0} GB/s {:>7.0} GB/s",
            t0.elapsed().as_secs_f64(),
            r.before,
            r.size,
            r.after,
            memory,
            r.written,
            gbps[0],
            gbps[1],
            gbps[2]
        );
        records.push(json!({
            "seconds": t0.elapsed().as_secs_f64(), "before_mib": r.before, "size_mib": r.size, "after_mib": r.after,
            "memory": memory, "written": r.written,
            "copy_shader_gb_per_s": gbps[0], "one_quad_gb_per_s": gbps[1],
            "vk_cmd_copy_buffer_gb_per_s": gbps[2],
        }));
    }
    if let Some(path) = json_out {
        let doc = document(&ctx, json!({ "reps": reps, "records": records }));
        std::fs::write(&path, serde_json::to_string_pretty(&doc)? + "\n")?;
        eprintln!("wrote {path}");
    }
    Ok(())
}
