//! The q8ta pixel shuffle benchmark (`BENCHMARKS.md`): the seed's kernel (the
//! "rewrite"), the baseline it replaces and `vkCmdCopyBuffer` of the same
//! bytes (the ceiling), side by side in one run on any Vulkan device, with GPU
//! timestamps; optionally the same finished GLSL compiled by glslangValidator.
//!
//! ```text
//! cargo run --release -p ncnn-glsl-runtime --example q8ta_bench -- \
//!     [--cases seed|large|all|N,C,H,W;...] [--quant passthrough|requant|both] \
//!     [--reps R] [--warmup W] [--device SELECTOR] [--validation] \
//!     [--glslang DIR] [--sweep X,Y,Z;...] [--json FILE] [--svg FILE] \
//!     [--cold] [--pairs IN->OUT,...]
//! ```
//!
//! Cases: `seed` is the seed's 81 (9 layout pairs x `[1,256,H,H]`, H = 16 ..
//! 256), `large` the tensors that exceed the GPU's cache (`[8,256,256,256]`,
//! `[16,256,256,256]`: 128 and 256 MiB per side); `all` (the default) both.
//! Bytes moved = input bytes + output bytes (padding included); the copy
//! moves the same number. Each repetition runs every kernel once, in turn,
//! so drift on a shared machine hits all of them alike; the median and the
//! 10th/90th percentiles are over the repetitions after the warm-up. All
//! repetitions of a case run in one submission (`Sequence`), after
//! `--heat-ms` (default 500 on a GPU, 0 on a CPU driver) of other GPU work,
//! so the GPU runs them at the clocks of a busy device. Every
//! output is poisoned first and checked byte for byte against the CPU
//! reference afterwards; a mismatch fails the run.
//!
//! `--executables FILE` times nothing: it writes what the driver compiled
//! for each kernel (`VK_KHR_pipeline_executable_properties`).
//! `--glslang DIR` (from `cargo xtask glslang-variants --out DIR`) adds each
//! path of the rewrite built by `glslangValidator` from the same committed
//! finished GLSL, specialized the same way (one blob; the layouts,
//! passthrough and path are specialization constants 3, 4, 5, 6).
//! `--from-json FILE` re-reads an earlier run's JSON and derives "rewrite"
//! (the path the runtime takes for each case) again by this build's rule,
//! without a device: the kernel's paths are measured separately ("path
//! words", "path tile", "path quad"), so a changed rule needs no new run.
//! `--sweep` times the rewrite at each listed workgroup shape instead of the
//! runtime's choice, the baseline and the copy beside it, and prints the best
//! shape per pair.
//! `--pairs 4W4C->4C,...` limits the run to those layout pairs.
//! `--cold` gives each kernel and each copy its own copy of the input, so
//! that none reads what the kernel before it left in the GPU's cache (by
//! default they share one input: a tensor that fits the cache stays there
//! from one kernel to the next).

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use ncnn_glsl_runtime::q8ta::sets::{PIXEL_SHUFFLE, PIXEL_SHUFFLE_BASELINE};
use ncnn_glsl_runtime::q8ta::{
    self, launch, reference, shuffle_specialization, Layout, PixelShuffle, Q8taOps, QTensor,
    QuantParams, Requant, Shape, ShufflePath,
};
use ncnn_glsl_runtime::{
    Blob, Buffer, Context, ContextOptions, DeviceSelector, DeviceType, Dispatch, Options, Pipeline,
    PipelineOptions, Sequence, Variant,
};
use ncnn_glsl_testkit::bench::{copy_pipeline, CopyLaunch, Heater};
use ncnn_glsl_testkit::Rng;
use serde_json::{json, Value};

type Fail = Box<dyn std::error::Error>;

struct Args {
    cases: Vec<Shape>,
    quant: Vec<bool>,
    reps: usize,
    warmup: usize,
    device: DeviceSelector,
    validation: bool,
    glslang: Option<PathBuf>,
    sweep: Option<Vec<[u32; 3]>>,
    json: Option<PathBuf>,
    svg: Option<PathBuf>,
    best: Option<PathBuf>,
    locals: BTreeMap<String, [u32; 3]>,
    sweep_path: ShufflePath,
    from_json: Option<PathBuf>,
    heat_ms: Option<u64>,
    executables: Option<PathBuf>,
    cold: bool,
    pairs: Option<Vec<(Layout, Layout)>>,
}

fn usage() -> String {
    "usage: q8ta_bench [--cases seed|large|all|N,C,H,W;...] [--quant passthrough|requant|both] \
     [--reps R] [--warmup W] [--device SELECTOR] [--validation] [--glslang DIR] \
     [--sweep X,Y,Z;...] [--sweep-path words|tile|quad] [--best FILE] [--locals FILE] \
     [--json FILE] [--svg FILE] [--from-json FILE] [--heat-ms MS] [--executables FILE] \
     [--cold] [--pairs IN->OUT,...]"
        .to_string()
}

const SEED_SIDES: [usize; 9] = [16, 24, 32, 48, 64, 96, 128, 192, 256];

fn cases(spec: &str) -> Result<Vec<Shape>, String> {
    let seed = || SEED_SIDES.iter().map(|&h| Shape::new(1, 256, h, h));
    let large = || [8, 16].into_iter().map(|n| Shape::new(n, 256, 256, 256));
    Ok(match spec {
        "seed" => seed().collect(),
        "large" => large().collect(),
        "all" => seed().chain(large()).collect(),
        list => list
            .split(';')
            .map(|s| {
                let d = numbers::<usize>(s, 4)?;
                Ok(Shape::from_dims([d[0], d[1], d[2], d[3]]))
            })
            .collect::<Result<_, String>>()?,
    })
}

/// `4W4C->4C,4C->4C1W`: layout pairs by their names.
fn pairs(spec: &str) -> Result<Vec<(Layout, Layout)>, String> {
    let layout = |name: &str| {
        Layout::ALL
            .into_iter()
            .find(|l| l.name() == name.trim())
            .ok_or_else(|| format!("--pairs: `{name}` is not a layout (4W4C, 4C, 4C1W)"))
    };
    spec.split(',')
        .map(|p| {
            let (i, o) = p
                .split_once("->")
                .ok_or_else(|| format!("--pairs: `{p}` is not IN->OUT"))?;
            Ok((layout(i)?, layout(o)?))
        })
        .collect()
}

fn numbers<T: std::str::FromStr>(s: &str, n: usize) -> Result<Vec<T>, String> {
    let v: Vec<T> = s
        .split(',')
        .map(|x| x.trim().parse::<T>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("`{s}`: expected {n} comma-separated numbers"))?;
    if v.len() != n {
        return Err(format!("`{s}`: expected {n} comma-separated numbers"));
    }
    Ok(v)
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        cases: cases("all")?,
        quant: vec![true, false],
        reps: 30,
        warmup: 3,
        device: DeviceSelector::Best,
        validation: false,
        glslang: None,
        sweep: None,
        json: None,
        svg: None,
        best: None,
        locals: BTreeMap::new(),
        sweep_path: ShufflePath::Tile,
        from_json: None,
        heat_ms: None,
        executables: None,
        cold: false,
        pairs: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))
        };
        match flag.as_str() {
            "--cases" => a.cases = cases(&value()?)?,
            "--quant" => {
                a.quant = match value()?.as_str() {
                    "passthrough" => vec![true],
                    "requant" => vec![false],
                    "both" => vec![true, false],
                    v => return Err(format!("--quant {v}: passthrough, requant or both")),
                }
            }
            "--reps" => a.reps = value()?.parse().map_err(|e| format!("--reps: {e}"))?,
            "--warmup" => a.warmup = value()?.parse().map_err(|e| format!("--warmup: {e}"))?,
            "--device" => {
                let v = value()?;
                a.device = v.parse().map_err(|e| format!("--device {v}: {e}"))?;
            }
            "--validation" => a.validation = true,
            "--glslang" => a.glslang = Some(value()?.into()),
            "--sweep" => {
                let v = value()?;
                let shapes = v
                    .split(';')
                    .map(|s| numbers::<u32>(s, 3).map(|d| [d[0], d[1], d[2]]))
                    .collect::<Result<Vec<_>, _>>()?;
                a.sweep = Some(shapes);
            }
            "--best" => a.best = Some(value()?.into()),
            "--sweep-path" => {
                let v = value()?;
                a.sweep_path = *ShufflePath::ALL
                    .iter()
                    .find(|p| p.name() == v)
                    .ok_or_else(|| format!("--sweep-path {v}: words, tile or quad"))?;
            }
            "--locals" => {
                let v = value()?;
                let text = std::fs::read_to_string(&v).map_err(|e| format!("--locals {v}: {e}"))?;
                a.locals = serde_json::from_str(&text).map_err(|e| format!("--locals {v}: {e}"))?;
            }
            "--from-json" => a.from_json = Some(value()?.into()),
            "--executables" => a.executables = Some(value()?.into()),
            "--cold" => a.cold = true,
            "--pairs" => a.pairs = Some(pairs(&value()?)?),
            "--heat-ms" => {
                a.heat_ms = Some(value()?.parse().map_err(|e| format!("--heat-ms: {e}"))?)
            }
            "--json" => a.json = Some(value()?.into()),
            "--svg" => a.svg = Some(value()?.into()),
            "-h" | "--help" => return Err(usage()),
            other => return Err(format!("unknown argument `{other}`\n{}", usage())),
        }
    }
    a.reps = a.reps.max(1);
    Ok(a)
}

/// A kernel under test: a pipeline and its path (`None`: the baseline, whose
/// grid differs).
#[derive(Clone)]
struct Kernel {
    name: String,
    pipeline: Arc<Pipeline>,
    path: Option<ShufflePath>,
}

/// Median and the 10th / 90th percentiles of GPU times, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Spread {
    median: f64,
    p10: f64,
    p90: f64,
}

fn spread(mut ns: Vec<f64>) -> Option<Spread> {
    if ns.is_empty() {
        return None;
    }
    ns.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| ns[((ns.len() - 1) as f64 * q).round() as usize] / 1e3;
    Some(Spread {
        median: at(0.5),
        p10: at(0.1),
        p90: at(0.9),
    })
}

/// The glslang-built blob of `variant` from `dir`: the artifact file name
/// with `.spv` (the set has no axes: `<target>.spv`). glslang turns
/// `local_size_*_id` into specialization constants 0, 1, 2, which the
/// pipeline sets from the local size (as for ours), and keeps the ids 3, 4,
/// 5, 6 of the layouts, passthrough and path; the same GLSL has the same bindings and
/// constants: our reflection serves.
fn glslang_blob(dir: &std::path::Path, variant: &Variant) -> Result<Blob, Fail> {
    let path = dir
        .join("q8ta_pixel_shuffle")
        .join(format!("{}.spv", variant.target));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    Ok(Blob {
        spirv: Box::leak(words.into_boxed_slice()),
        reflection: variant.blob.reflection.clone(),
    })
}

/// One measured (case, layout pair, quantization, kernel).
#[derive(Clone)]
struct Record {
    shape: Shape,
    pair: (Layout, Layout),
    passthrough: bool,
    kernel: String,
    local: [u32; 3],
    bytes: usize,
    time: Spread,
}

impl Record {
    fn gbps(&self) -> f64 {
        self.bytes as f64 / (self.time.median * 1e3)
    }
}

/// Runs every kernel and the copy on one (shape, pair, quantization), checks
/// every output byte, and returns one record per kernel (the copy as "copy").
#[allow(clippy::too_many_arguments)]
fn measure(
    ops: &Q8taOps,
    a: &Args,
    rng: &mut Rng,
    shape: Shape,
    il: Layout,
    ol: Layout,
    passthrough: bool,
    kernels: &[Kernel],
    copy_shader: &Pipeline,
    heater: &Heater,
) -> Result<Vec<Record>, Fail> {
    let ctx = ops.context();
    let q_in = QuantParams::new(0.02, 3, "input")?;
    let q_out = if passthrough {
        q_in
    } else {
        QuantParams::new(0.05, -7, "output")?
    };
    let os = reference::shuffle_output_shape(shape)?;
    let words: Vec<u32> = (0..il.word_count(shape))
        .map(|_| rng.next_u64() as u32)
        .collect();
    let ps = PixelShuffle::new(shape, os, 2, il, ol, q_in, q_out)?;
    let expected: Vec<u8> =
        reference::pixel_shuffle(&words, il, shape, ol, &Requant::new(q_in, q_out)?)?
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
    let out_bytes = ol.byte_count(os);
    let in_bytes = il.byte_count(shape);
    // The paths this shape allows, each built by naga and (--glslang) by glslang.
    let device = ctx.caps().device_type;
    let kernels: Vec<&Kernel> = kernels
        .iter()
        .filter(|k| k.path.is_none_or(|p| p.check(shape).is_ok()))
        .collect();
    // --cold: each kernel (and each copy) reads its own copy of the input, so
    // that none finds it in a cache from the kernel before.
    let inputs = (0..if a.cold { kernels.len() } else { 1 })
        .map(|_| ops.tensor_from_words(&words, shape, il, q_in))
        .collect::<Result<Vec<_>, _>>()?;
    let mut outs: Vec<QTensor> = Vec::new();
    for _ in &kernels {
        let mut t = ops.tensor(os, ol, q_out)?;
        t.buffer.write(&vec![0xa5; out_bytes])?;
        outs.push(t);
    }
    // The ceilings: the same number of bytes moved (read + written) by a copy,
    // vkCmdCopyBuffer and the copy shader (whole 16-byte quads).
    let copy_bytes = ((in_bytes + out_bytes) / 2 / 16 * 16) as u64;
    let copy_src = Buffer::new(ctx, copy_bytes)?;
    let shader_src = if a.cold {
        Some(Buffer::new(ctx, copy_bytes)?)
    } else {
        None
    };
    let copy_dst = Buffer::new(ctx, copy_bytes)?;
    let max_groups = ctx.limits().max_compute_work_group_count;
    let copy = CopyLaunch::new(ctx, copy_bytes);
    // Every repetition of every kernel in one submission, back to back:
    // no host time between them for the GPU's clocks to fall in.
    let launches = kernels
        .iter()
        .map(|k| ps.launch(k.path, k.pipeline.local_size(), max_groups))
        .collect::<Result<Vec<_>, _>>()?;
    let pushes: Vec<_> = launches.iter().map(|l| l.push.to_bytes()).collect();
    let bindings: Vec<[&Buffer; 2]> = outs
        .iter()
        .enumerate()
        .map(|(i, o)| [&inputs[i % inputs.len()].buffer, &o.buffer])
        .collect();
    let copy_bindings = [shader_src.as_ref().unwrap_or(&copy_src), &copy_dst];
    let mut seq = Sequence::new(ctx);
    let steps_per_rep = kernels.len() + 2;
    for _ in 0..a.warmup + a.reps {
        for (i, k) in kernels.iter().enumerate() {
            seq.dispatch(
                &k.pipeline,
                Dispatch::new(&bindings[i], &pushes[i], launches[i].groups),
            )?;
        }
        seq.copy(&copy_src, &copy_dst, copy_bytes)?;
        seq.dispatch(
            copy_shader,
            Dispatch::new(&copy_bindings, &copy.push, copy.groups),
        )?;
    }
    heater.heat()?;
    let stats = seq.run()?;
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); steps_per_rep];
    for (j, s) in stats.iter().enumerate().skip(a.warmup * steps_per_rep) {
        times[j % steps_per_rep].extend(s.gpu_ns);
    }
    for (k, out) in kernels.iter().zip(outs.iter_mut()) {
        let got = out.read_bytes()?;
        if got[..out_bytes] != expected[..] {
            let bad = (0..out_bytes).filter(|&i| got[i] != expected[i]).count();
            return Err(format!(
                "{} on {shape:?} {il} -> {ol} ({}): {bad} of {out_bytes} bytes differ from \
                 the CPU reference (seed {:#x})",
                k.name,
                if passthrough {
                    "passthrough"
                } else {
                    "requant"
                },
                rng.seed()
            )
            .into());
        }
    }
    let mut records = Vec::new();
    for (i, t) in times.into_iter().enumerate() {
        let Some(time) = spread(t) else {
            return Err("this queue has no timestamps: nothing to measure".into());
        };
        let (kernel, local) = match kernels.get(i) {
            Some(k) => (k.name.clone(), k.pipeline.local_size()),
            None if i == kernels.len() => ("copy".to_string(), [0; 3]),
            None => ("copy (shader)".to_string(), [256, 1, 1]),
        };
        records.push(Record {
            shape,
            pair: (il, ol),
            passthrough,
            kernel,
            local,
            bytes: in_bytes + out_bytes,
            time,
        });
    }
    add_rewrite(&mut records, device);
    Ok(records)
}

/// Adds "rewrite" (and "rewrite (glslang)") records: the measurements of
/// the path the runtime takes for each case on a `device` of that type
/// ([`ShufflePath`] rule `q8ta::launch::shuffle_path`), under the name the
/// report compares.
fn add_rewrite(records: &mut Vec<Record>, device: DeviceType) {
    let mut extra = Vec::new();
    for r in records.iter() {
        let axes = launch::Axes {
            in_layout: r.pair.0,
            out_layout: r.pair.1,
            passthrough: r.passthrough,
        };
        let chosen = launch::shuffle_path(r.shape, axes, device).name();
        let name = if r.kernel == format!("path {chosen}") {
            "rewrite"
        } else if r.kernel == format!("path {chosen} (glslang)") {
            "rewrite (glslang)"
        } else {
            continue;
        };
        extra.push(Record {
            kernel: name.to_string(),
            ..r.clone()
        });
    }
    records.retain(|r| !matches!(r.kernel.as_str(), "rewrite" | "rewrite (glslang)"));
    records.extend(extra);
}

/// The workgroup shape of each path of the rewrite ([`ShufflePath::ALL`]'s
/// order) on `shape`: the runtime's, or `--locals`' for the swept path.
fn locals(
    ops: &Q8taOps,
    a: &Args,
    shape: Shape,
    il: Layout,
    ol: Layout,
    pt: bool,
) -> Vec<[u32; 3]> {
    ShufflePath::ALL
        .iter()
        .map(|&path| match a.locals.get(&pair_key(il, ol, pt)) {
            Some(&l) if path == a.sweep_path => l,
            _ => ops.shuffle_local_size(shape, il, ol, path),
        })
        .collect()
}

/// The baseline's pipeline for one (pair, quantization): a variant for each.
fn baseline(ops: &Q8taOps, il: Layout, ol: Layout, passthrough: bool) -> Result<Kernel, Fail> {
    let axes = [
        ("IN_LAYOUT", il.axis_value()),
        ("OUT_LAYOUT", ol.axis_value()),
        ("PASSTHROUGH", passthrough as i64),
    ];
    let vb = ops.variant(PIXEL_SHUFFLE_BASELINE, &axes)?;
    Ok(Kernel {
        name: "baseline".into(),
        pipeline: Arc::new(Pipeline::for_variant(
            ops.context(),
            PIXEL_SHUFFLE_BASELINE,
            vb,
            &PipelineOptions::default(),
        )?),
        path: None,
    })
}

/// The kernels of one (pair, quantization): each path of the rewrite at its
/// workgroup shape `locals` (or the swept path at each sweep shape), and
/// glslang's build (`glslang`, [`glslang_blob`]) of each path. The rewrite is
/// one blob, specialized for the pair, quantization and path.
fn kernels(
    ops: &Q8taOps,
    a: &Args,
    (il, ol, passthrough): (Layout, Layout, bool),
    locals: &[[u32; 3]],
    glslang: Option<&Blob>,
) -> Result<Vec<Kernel>, Fail> {
    let ctx = ops.context();
    let specs = ShufflePath::ALL.map(|path| shuffle_specialization(il, ol, passthrough, path));
    let options = |local, path: ShufflePath| PipelineOptions {
        local_size: Some(local),
        specialization: &specs[path as usize],
    };
    let v = ops.variant(PIXEL_SHUFFLE, &[])?;
    let mut out = Vec::new();
    let pipe = |local, path| Pipeline::for_variant(ctx, PIXEL_SHUFFLE, v, &options(local, path));
    if let Some(shapes) = &a.sweep {
        for &s in shapes {
            out.push(Kernel {
                name: format!("rewrite {}x{}x{}", s[0], s[1], s[2]),
                pipeline: Arc::new(pipe(s, a.sweep_path)?),
                path: Some(a.sweep_path),
            });
        }
        return Ok(out);
    }
    for (path, &local) in ShufflePath::ALL.into_iter().zip(locals) {
        out.push(Kernel {
            name: format!("path {}", path.name()),
            pipeline: Arc::new(pipe(local, path)?),
            path: Some(path),
        });
        if let Some(blob) = glslang {
            out.push(Kernel {
                name: format!("path {} (glslang)", path.name()),
                pipeline: Arc::new(Pipeline::new(
                    ctx,
                    "glslang build",
                    blob,
                    &options(local, path),
                )?),
                path: Some(path),
            });
        }
    }
    Ok(out)
}

/// Wall-clock start-up: context creation, then the first pixel shuffle's
/// result on the host, then one more pipeline of the shuffle's blob,
/// specialized for another layout pair and quantization, from its embedded
/// SPIR-V (nothing is compiled from GLSL at run time).
fn startup(a: &Args) -> Result<(Arc<Context>, Value), Fail> {
    let t0 = Instant::now();
    let ctx = Context::new(ContextOptions {
        device: a.device.clone(),
        validation: a.validation,
        pipeline_statistics: a.executables.is_some(),
        ..q8ta::context_options()
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
    let v = ops.variant(PIXEL_SHUFFLE, &[])?;
    let spec = shuffle_specialization(
        Layout::Packed4W4C,
        Layout::Packed4C1W,
        false,
        ShufflePath::Words,
    );
    let options = PipelineOptions {
        local_size: Some([8, 8, 1]),
        specialization: &spec,
    };
    let t1 = Instant::now();
    let p = Pipeline::for_variant(&ctx, PIXEL_SHUFFLE, v, &options)?;
    let t_pipe = t1.elapsed();
    drop(p);
    // Variants share identical blobs: count each once.
    let mut blobs: Vec<&Blob> = PIXEL_SHUFFLE.variants.iter().map(|v| v.blob).collect();
    blobs.sort_by_key(|b| b.spirv.as_ptr());
    blobs.dedup_by_key(|b| b.spirv.as_ptr());
    let set_bytes: usize = blobs.iter().map(|b| b.spirv.len() * 4).sum();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    Ok((
        ctx,
        json!({
            "context_ms": ms(t_ctx),
            "first_result_ms": ms(t_first),
            "pipeline_create_ms": ms(t_pipe),
            "pixel_shuffle_variants": PIXEL_SHUFFLE.variants.len(),
            "pixel_shuffle_blobs": blobs.len(),
            "pixel_shuffle_spirv_bytes": set_bytes,
        }),
    ))
}

/// `4C->4C1W passthrough`: the key of `--locals` and `--best` files.
fn pair_key(il: Layout, ol: Layout, passthrough: bool) -> String {
    format!("{il}->{ol} {}", quant_name(passthrough))
}

fn quant_name(passthrough: bool) -> &'static str {
    if passthrough {
        "passthrough"
    } else {
        "requant"
    }
}

fn shape_str(s: Shape) -> String {
    format!("{},{},{},{}", s.n, s.c, s.h, s.w)
}

fn main() -> ExitCode {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(&a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("q8ta_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--from-json`: the records of an earlier run (its JSON), with "rewrite"
/// derived again by this build's rule; no device is opened.
fn rederive(a: &Args, path: &std::path::Path) -> Result<(), Fail> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut doc: Value = serde_json::from_str(&text)?;
    let layout = |v: &Value| -> Result<Layout, Fail> {
        let name = v.as_str().ok_or("a layout is not a string")?;
        Layout::from_name(name).ok_or_else(|| format!("unknown layout `{name}`").into())
    };
    let mut records = Vec::new();
    for r in doc["records"].as_array().ok_or("no records")? {
        let num = |k: &str| r[k].as_f64().ok_or_else(|| format!("record without `{k}`"));
        let d: Vec<usize> = serde_json::from_value(r["shape"].clone())?;
        records.push(Record {
            shape: Shape::from_dims([d[0], d[1], d[2], d[3]]),
            pair: (layout(&r["in_layout"])?, layout(&r["out_layout"])?),
            passthrough: r["quant"] == "passthrough",
            kernel: r["kernel"]
                .as_str()
                .ok_or("record without kernel")?
                .to_string(),
            local: serde_json::from_value(r["local_size"].clone())?,
            bytes: num("bytes_moved")? as usize,
            time: Spread {
                median: num("median_us")?,
                p10: num("p10_us")?,
                p90: num("p90_us")?,
            },
        });
    }
    let device = match doc["device_type"].as_str() {
        Some("Cpu") => DeviceType::Cpu,
        Some("IntegratedGpu") => DeviceType::IntegratedGpu,
        Some("VirtualGpu") => DeviceType::VirtualGpu,
        Some("Other") => DeviceType::Other,
        // Runs before the field existed were on the H200.
        _ => DeviceType::DiscreteGpu,
    };
    add_rewrite(&mut records, device);
    let out = report(a, &records);
    print!("{}", out.table);
    doc["records"] = Value::Array(out.json);
    doc["rewrite_derived_by"] = json!(format!(
        "q8ta_bench --from-json {} (the rule of q8ta::launch::shuffle_path in this build)",
        path.display()
    ));
    if let Some(p) = &a.json {
        std::fs::write(p, serde_json::to_string_pretty(&doc)? + "\n")?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(p) = &a.svg {
        let device = doc["device"].as_str().unwrap_or("unknown device");
        std::fs::write(p, svg(&records, device))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

fn run(a: &Args) -> Result<(), Fail> {
    if let Some(path) = &a.from_json {
        return rederive(a, path);
    }
    let (ctx, start) = startup(a)?;
    let ops = Q8taOps::new(&ctx, Options::NCNN_DEFAULT)?;
    // glslang's build, read once: one blob for every pair, quantization and path.
    let glslang = match &a.glslang {
        Some(dir) => Some(glslang_blob(dir, ops.variant(PIXEL_SHUFFLE, &[])?)?),
        None => None,
    };
    if let Some(path) = &a.executables {
        return executables(&ops, a, glslang.as_ref(), path);
    }
    let caps = ctx.caps();
    let max_range = ctx.limits().max_storage_buffer_range as usize;
    let mut rng = Rng::fresh();
    let seed = rng.seed();
    eprintln!(
        "device: {} (driver {:#x}), seed {seed:#x}; start-up {start}",
        caps.name, caps.driver_version
    );
    let pairs: Vec<(Layout, Layout)> = a.pairs.clone().unwrap_or_else(|| {
        Layout::ALL
            .iter()
            .flat_map(|&i| Layout::ALL.iter().map(move |&o| (i, o)))
            .collect()
    });
    let total = (a.cases.len() * pairs.len() * a.quant.len()) as u64;
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} {msg}")
            .expect("a valid template"),
    );
    let copy_shader = copy_pipeline(&ctx)?;
    let heat_ms = a.heat_ms.unwrap_or(match caps.device_type {
        DeviceType::Cpu => 0,
        _ => 500,
    });
    let heater = Heater::new(&ctx, &copy_shader, heat_ms)?;
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    for &(il, ol) in &pairs {
        for &pt in &a.quant {
            let base = baseline(&ops, il, ol, pt)?;
            // The rewrite's pipelines per set of workgroup shapes (they depend
            // on the size), the baseline beside them.
            let mut built: BTreeMap<Vec<[u32; 3]>, Vec<Kernel>> = BTreeMap::new();
            for &shape in &a.cases {
                let l = locals(&ops, a, shape, il, ol, pt);
                let ks = match built.entry(l) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => {
                        let mut k = kernels(&ops, a, (il, ol, pt), e.key(), glslang.as_ref())?;
                        k.push(base.clone());
                        e.insert(k)
                    }
                };
                bar.set_message(format!(
                    "{il}->{ol} {} {}",
                    shape_str(shape),
                    quant_name(pt)
                ));
                let os = reference::shuffle_output_shape(shape)?;
                let biggest = il.byte_count(shape).max(ol.byte_count(os));
                if biggest > max_range {
                    skipped.push(json!({
                        "shape": shape_str(shape), "in": il.name(), "out": ol.name(),
                        "reason": format!("{biggest} bytes exceed maxStorageBufferRange {max_range}"),
                    }));
                } else {
                    records.extend(measure(
                        &ops,
                        a,
                        &mut rng,
                        shape,
                        il,
                        ol,
                        pt,
                        ks,
                        &copy_shader,
                        &heater,
                    )?);
                }
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    let out = report(a, &records);
    print!("{}", out.table);
    if let Some(best) = &out.best {
        println!("best workgroup shape per pair (least total median time over the cases):");
        for (pair, (l, t)) in best {
            println!("  {pair:<26} {}x{}x{} {t:>10.1} us", l[0], l[1], l[2]);
        }
        if let Some(path) = &a.best {
            let map: BTreeMap<&String, [u32; 3]> = best.iter().map(|(k, v)| (k, v.0)).collect();
            std::fs::write(path, serde_json::to_string_pretty(&map)? + "\n")?;
            eprintln!("wrote {}", path.display());
        }
    }
    if let Some(path) = &a.json {
        let doc = json!({
            "command": std::env::args().collect::<Vec<_>>().join(" "),
            "device": caps.name,
            "vendor_id": caps.vendor_id,
            "device_type": format!("{:?}", caps.device_type),
            "driver_version": caps.driver_version,
            "unix_time": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs(),
            "seed": seed,
            "reps": a.reps,
            "heat_ms": heat_ms,
            "cold": a.cold,
            "warmup": a.warmup,
            "startup": start,
            "skipped": skipped,
            "records": out.json,
        });
        std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(path) = &a.svg {
        std::fs::write(path, svg(&records, &caps.name))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// `--executables FILE`: no timing; what the driver compiled for every
/// kernel of every pair, at each workgroup shape the cases take (statistics such as registers and instruction
/// counts, and any text it shows), naga's and glslang's builds side by side.
fn executables(
    ops: &Q8taOps,
    a: &Args,
    glslang: Option<&Blob>,
    path: &std::path::Path,
) -> Result<(), Fail> {
    let mut out = Vec::new();
    for &il in &Layout::ALL {
        for &ol in &Layout::ALL {
            for &pt in &a.quant {
                // Each set of workgroup shapes the cases take.
                let sets: std::collections::BTreeSet<Vec<[u32; 3]>> = a
                    .cases
                    .iter()
                    .map(|&shape| locals(ops, a, shape, il, ol, pt))
                    .collect();
                let mut ks = vec![baseline(ops, il, ol, pt)?];
                for l in &sets {
                    ks.extend(kernels(ops, a, (il, ol, pt), l, glslang)?);
                }
                for k in ks {
                    let exes: Vec<Value> = k
                        .pipeline
                        .executables()?
                        .into_iter()
                        .map(|x| {
                            json!({
                                "name": x.name, "description": x.description,
                                "subgroup_size": x.subgroup_size,
                                "statistics": x.statistics.into_iter().collect::<BTreeMap<_, _>>(),
                                "representations": x.representations.into_iter().collect::<BTreeMap<_, _>>(),
                            })
                        })
                        .collect();
                    out.push(json!({
                        "pair": pair_key(il, ol, pt), "kernel": k.name,
                        "local_size": k.pipeline.local_size(), "executables": exes,
                    }));
                }
            }
        }
    }
    let doc = json!({ "device": ops.context().caps().name, "kernels": out });
    std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

struct Report {
    table: String,
    json: Vec<Value>,
    /// For a sweep: per pair key, the best shape and its total median time (us).
    best: Option<BTreeMap<String, ([u32; 3], f64)>>,
}

type Key = (Shape, Layout, Layout, bool);

fn key(r: &Record) -> Key {
    (r.shape, r.pair.0, r.pair.1, r.passthrough)
}

/// The table, the JSON records (with the fraction of the copy and the
/// speedup over the baseline) and, for a sweep, the best shape per pair.
fn report(a: &Args, records: &[Record]) -> Report {
    let find = |k: Key, name: &str| {
        records
            .iter()
            .find(|r| key(r) == k && r.kernel == name)
            .map(|r| r.time.median)
    };
    let mut table = format!(
        "{:<13} {:<11} {:<16} {:<22} {:>10} {:>8} {:>7} {:>7} {:>7} {:>10}\n",
        "pair",
        "quant",
        "shape",
        "kernel",
        "median us",
        "GB/s",
        "% copy",
        "% shc",
        "x base",
        "p10-p90"
    );
    let mut json = Vec::new();
    let pct = |f: Option<f64>| f.map_or("-".into(), |f| format!("{:.0}%", f * 100.0));
    for r in records.iter().filter(|r| !r.kernel.starts_with("copy")) {
        let k = key(r);
        let copy = find(k, "copy");
        let shader_copy = find(k, "copy (shader)");
        let base = find(k, "baseline");
        let speedup = base.map(|b| b / r.time.median);
        table += &format!(
            "{:<13} {:<11} {:<16} {:<22} {:>10.2} {:>8.1} {:>7} {:>7} {:>7} {:>4.1}-{:.1}\n",
            format!("{}->{}", r.pair.0, r.pair.1),
            quant_name(r.passthrough),
            shape_str(r.shape),
            r.kernel,
            r.time.median,
            r.gbps(),
            pct(copy.map(|c| c / r.time.median)),
            pct(shader_copy.map(|c| c / r.time.median)),
            speedup.map_or("-".into(), |s| format!("{s:.2}")),
            r.time.p10,
            r.time.p90,
        );
    }
    for r in records {
        let k = key(r);
        json.push(json!({
            "in_layout": r.pair.0.name(),
            "out_layout": r.pair.1.name(),
            "shape": [r.shape.n, r.shape.c, r.shape.h, r.shape.w],
            "quant": quant_name(r.passthrough),
            "kernel": r.kernel,
            "local_size": r.local,
            "bytes_moved": r.bytes,
            "median_us": r.time.median,
            "p10_us": r.time.p10,
            "p90_us": r.time.p90,
            "gb_per_s": r.gbps(),
            "fraction_of_copy": find(k, "copy").map(|c| c / r.time.median),
            "fraction_of_shader_copy": find(k, "copy (shader)").map(|c| c / r.time.median),
            "speedup_over_baseline": find(k, "baseline").map(|b| b / r.time.median),
        }));
    }
    let best = a.sweep.as_ref().map(|_| {
        // Per pair and quantization: the shape with the least total time over the cases.
        let mut total: BTreeMap<(String, [u32; 3]), f64> = BTreeMap::new();
        for r in records.iter().filter(|r| r.kernel.starts_with("rewrite ")) {
            let pair = pair_key(r.pair.0, r.pair.1, r.passthrough);
            *total.entry((pair, r.local)).or_default() += r.time.median;
        }
        let mut best: BTreeMap<String, ([u32; 3], f64)> = BTreeMap::new();
        for ((pair, local), t) in total {
            let e = best.entry(pair).or_insert((local, t));
            if t < e.1 {
                *e = (local, t);
            }
        }
        best
    });
    Report { table, json, best }
}

/// GB/s against tensor size (MiB moved, log scale), one panel per layout
/// pair: the rewrite, the baseline, glslang's build and the copy ceiling, for
/// the passthrough variant (requantize dotted).
fn svg(records: &[Record], device: &str) -> String {
    let (pw, ph, m) = (300.0, 210.0, 46.0);
    let (w, h) = (3.0 * pw + 20.0, 3.0 * ph + 70.0);
    let ymax = records.iter().map(Record::gbps).fold(1.0, f64::max) * 1.1;
    let xs: Vec<f64> = records
        .iter()
        .map(|r| (r.bytes as f64 / 1048576.0).log2())
        .collect();
    let (xmin, xmax) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let xspan = (xmax - xmin).max(1.0);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"10\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"white\"/>\n<text x=\"10\" y=\"18\" font-size=\"13\">q8ta pixel shuffle, GB/s \
         against MiB moved (log2), {device}</text>\n"
    );
    let styles = [
        ("copy", "#888888", ""),
        ("copy (shader)", "#000000", "2 2"),
        ("rewrite", "#1f77b4", ""),
        ("rewrite (glslang)", "#2ca02c", "4 3"),
        ("baseline", "#ff7f0e", ""),
    ];
    for (i, (name, color, dash)) in styles.iter().enumerate() {
        let x = 380.0 + 110.0 * i as f64;
        s += &format!(
            "<line x1=\"{x}\" y1=\"14\" x2=\"{}\" y2=\"14\" stroke=\"{color}\" stroke-width=\"2\" \
             stroke-dasharray=\"{dash}\"/><text x=\"{}\" y=\"18\">{name}</text>\n",
            x + 20.0,
            x + 24.0
        );
    }
    for (pi, &il) in Layout::ALL.iter().enumerate() {
        for (pj, &ol) in Layout::ALL.iter().enumerate() {
            let (ox, oy) = (10.0 + pj as f64 * pw, 30.0 + pi as f64 * ph);
            let (x0, y0, x1, y1) = (ox + m, oy + 14.0, ox + pw - 10.0, oy + ph - 26.0);
            let px = |mib: f64| x0 + (mib - xmin) / xspan * (x1 - x0);
            let py = |g: f64| y1 - g / ymax * (y1 - y0);
            s += &format!(
                "<rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\" fill=\"none\" \
                 stroke=\"#ccc\"/>\n<text x=\"{}\" y=\"{}\">{il} -&gt; {ol}</text>\n",
                x1 - x0,
                y1 - y0,
                x0 + 4.0,
                y0 + 12.0
            );
            for t in 0..=4 {
                let g = ymax * t as f64 / 4.0;
                s += &format!(
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.0}</text>\n",
                    x0 - 3.0,
                    py(g) + 3.0,
                    g
                );
            }
            for e in (xmin.ceil() as i32)..=(xmax.floor() as i32) {
                if e % 2 == 0 {
                    s += &format!(
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                        px(e as f64),
                        y1 + 12.0,
                        2f64.powi(e)
                    );
                }
            }
            for (name, color, dash) in styles {
                for pt in [true, false] {
                    let mut pts: Vec<(f64, f64)> = records
                        .iter()
                        .filter(|r| r.pair == (il, ol) && r.kernel == name && r.passthrough == pt)
                        .map(|r| (px((r.bytes as f64 / 1048576.0).log2()), py(r.gbps())))
                        .collect();
                    if pts.is_empty() || (name.starts_with("copy") && !pt) {
                        continue;
                    }
                    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let line: Vec<String> =
                        pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                    let dash = if pt { dash } else { "1 2" };
                    s += &format!(
                        "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" \
                         stroke-dasharray=\"{dash}\" points=\"{}\"/>\n",
                        line.join(" ")
                    );
                }
            }
        }
    }
    s += &format!(
        "<text x=\"10\" y=\"{}\">solid: passthrough; dotted: requantize. y: GB/s (input + \
         output bytes / median GPU time); x: MiB moved.</text>\n</svg>\n",
        h - 10.0
    );
    s
}
