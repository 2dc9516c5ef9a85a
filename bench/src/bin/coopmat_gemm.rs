//! The corpus's cooperative-matrix GEMM (`tests/corpus/gemm_coopmat_pack4.comp`)
//! on one big problem: its cooperative-matrix variant, its plain variant
//! (the same set's variant with `ncnn_VK_KHR_cooperative_matrix`
//! undefined), glslang's blob of the cooperative-matrix variant's finished
//! text where `glslangValidator` knows the extension (no index clamps, no
//! extent checks: what this compiler's bounds cost, in one run), and a copy
//! of as many bytes as A, B and top together (the benchmark crate's copy
//! shader and `vkCmdCopyBuffer`: the bandwidth ceiling), each the median of
//! `--reps` repetitions in one submission after three warm-up runs and
//! `--heat-ms` of load.
//!
//! ```text
//! cargo run --release -p ncnn-glsl-bench --bin coopmat_gemm -- [--gm GM] [--gn GN] [--gk GK] [--reps R] [--heat-ms MS] [--json FILE]
//! ```
//!
//! fp16 storage (fp16s, or fp16p without 16-bit storage), fp32 arithmetic.
//! M, N, K are the device's fp16 x fp16 + fp32 subgroup shape (16 x 16 x 16
//! where listed); a device without cooperative matrices times only the
//! plain variant and the copy. A sample of outputs is checked against a
//! host reference before anything is reported.

use std::process::ExitCode;
use std::sync::Arc;

use ncnn_glsl_bench::copy::{copy_pipeline, CopyLaunch, Heater, BENCH_COPY};
use ncnn_glsl_bench::stamp::document;
use ncnn_glsl_bench::stats::median;
use ncnn_glsl_core::variant::build::BuiltSet;
use ncnn_glsl_core::variant::UNDEFINED;
use ncnn_glsl_runtime::{
    Blob, Buffer, Context, ContextOptions, DeviceType, Dispatch, Flag, Options, Pipeline,
    PipelineOptions, Sequence, SpecValue, Variant,
};
use ncnn_glsl_testkit::coopmat::{device_shape, gemm_set, leak_built, GEMM};
use ncnn_glsl_testkit::differential::{glslang_blob, glslang_result};
use ncnn_glsl_testkit::rng::{fresh_seed, Rng};
use serde_json::json;

type Fail = Box<dyn std::error::Error>;

const AXIS: &str = "ncnn_VK_KHR_cooperative_matrix";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("coopmat_gemm: {e}");
            ExitCode::FAILURE
        }
    }
}

/// An fp16 value's bits as f64 (normal numbers and zero; the inputs are
/// made of those).
fn f16_to_f64(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let man = f64::from(h & 0x3ff);
    if exp == 0 {
        return sign * man * 2f64.powi(-24);
    }
    sign * (1.0 + man / 1024.0) * 2f64.powi(exp - 15)
}

/// glslang's blob of `variant`'s finished text, with its reflection.
fn glslang_of(built: &BuiltSet, variant: &Variant) -> Result<&'static Blob, String> {
    let index = built
        .variants
        .iter()
        .position(|v| v.key.target == variant.target && v.key.axes == variant.axes)
        .ok_or("the selected variant is not the built set's")?;
    let text = &built.texts[built.variants[index].text];
    match glslang_result(text) {
        // SAFETY: the shader guards every row and column it reads and
        // writes with GM, GN, GK, and the buffers hold them (B padded to
        // whole tiles of N rows): no index leaves its buffer.
        Some(Ok(words)) => Ok(unsafe { glslang_blob(words, variant.blob.reflection()) }),
        Some(Err(e)) => Err(format!("glslang rejects the text: {e}")),
        None => Err("no glslangValidator on PATH".into()),
    }
}

/// One timed kernel's result.
struct Timed {
    name: String,
    variant: String,
    ns: f64,
}

fn run() -> Result<(), Fail> {
    let (mut gm, mut gn, mut gk) = (4096usize, 4096usize, 4096usize);
    let mut reps = 20;
    let mut json_out = None;
    let mut heat_ms = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut v = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--gm" => gm = v()?.parse()?,
            "--gn" => gn = v()?.parse()?,
            "--gk" => gk = v()?.parse()?,
            "--reps" => reps = v()?.parse()?,
            "--json" => json_out = Some(v()?),
            "--heat-ms" => heat_ms = Some(v()?.parse()?),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    eprintln!("building the variant set of {GEMM}");
    let built = gemm_set();
    let set = leak_built(&built, GEMM);
    let ctx = Context::new(ContextOptions {
        variant_sets: vec![set, BENCH_COPY],
        ..Default::default()
    })?;
    let caps = ctx.caps();
    let wanted = Options::from_flags(&[Flag::Fp16Packed, Flag::Fp16Storage]);
    let choice = ctx.select(set, wanted, &[])?;
    let selected = choice.variant;
    let coop = !selected.blob.reflection().cooperative_matrices.is_empty();
    let shape = if coop {
        device_shape(ctx.caps()).ok_or("the cooperative-matrix variant was selected, but the device lists no fp16/fp16/fp32/fp32 subgroup shape")?
    } else {
        (16, 16, 16)
    };
    let (m, n, k) = shape;
    let subgroup = caps.property("subgroupSize").unwrap_or(32) as u32;
    if gn % 4 != 0 || gk % 4 != 0 || gk % k as usize != 0 {
        return Err(format!("GN must be a multiple of 4, GK of 4 and of K = {k}").into());
    }
    // The plain variant: the selected one's target and axes, the macro left
    // undefined.
    let axis = set
        .axes
        .iter()
        .position(|a| a.name == AXIS)
        .ok_or(format!("the set has no axis {AXIS}"))?;
    let mut plain_axes = selected.axes.to_vec();
    plain_axes[axis] = UNDEFINED;
    let plain = set
        .find(selected.target, &plain_axes)
        .ok_or("the set holds no plain variant for the selected target")?;
    eprintln!(
        "device: {}; variant {}; cooperative matrices: {}; M/N/K {m}/{n}/{k}; subgroup {subgroup}",
        caps.name,
        selected.target,
        if coop {
            "yes"
        } else {
            "no (timing only the plain variant and the copy)"
        }
    );

    // Inputs: fp16 in ±[0.5, 1), B padded to whole tiles of N rows.
    let seed = fresh_seed();
    let mut rng = Rng::new(seed);
    let half = |rng: &mut Rng| -> u16 {
        ((rng.below(2) as u16) << 15) | (0x3800 + rng.below(0x400) as u16)
    };
    let rows_b = gn.div_ceil(n as usize) * n as usize;
    let a: Vec<u16> = (0..gm * gk).map(|_| half(&mut rng)).collect();
    let b: Vec<u16> = (0..rows_b * gk)
        .map(|i| if i / gk < gn { half(&mut rng) } else { 0 })
        .collect();
    let to_bytes = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|h| h.to_le_bytes()).collect() };
    let (a_bytes, b_bytes, top_bytes) =
        (2 * a.len() as u64, 2 * b.len() as u64, 2 * (gm * gn) as u64);
    let mut a_buf = Buffer::new(&ctx, a_bytes)?;
    a_buf.write(&to_bytes(&a))?;
    let mut b_buf = Buffer::new(&ctx, b_bytes)?;
    b_buf.write(&to_bytes(&b))?;
    let mut top = Buffer::new(&ctx, top_bytes)?;
    let push: Vec<u8> = [gm as i32, gn as i32, gk as i32]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();

    let heat_ms = heat_ms.unwrap_or(match caps.device_type {
        DeviceType::Cpu => 0,
        _ => 500,
    });
    let heat_shader = copy_pipeline(&ctx)?;
    let heater = Heater::new(&ctx, &heat_shader, heat_ms)?;
    let time = |seq: Sequence| -> Result<f64, Fail> {
        heater.heat()?;
        let ns: Vec<f64> = seq.run()?.iter().skip(3).filter_map(|s| s.gpu_ns).collect();
        if ns.is_empty() {
            return Err("this queue has no timestamps: nothing to measure".into());
        }
        Ok(median(ns))
    };

    let mut kernels: Vec<(&str, &Variant, &'static Blob, bool)> = Vec::new();
    if coop {
        kernels.push(("cooperative matrix", selected, selected.blob, true));
        match glslang_of(&built, selected) {
            Ok(blob) => kernels.push(("cooperative matrix, glslang", selected, blob, true)),
            Err(why) => eprintln!("glslang's blob not timed: {why}"),
        }
    }
    kernels.push(("plain", plain, plain.blob, false));
    let mut rows: Vec<Timed> = Vec::new();
    for (name, variant, blob, is_coop) in kernels {
        let listed = blob.reflection().spec_constants.clone();
        let spec: Vec<(u32, SpecValue)> = [(18, m), (19, n), (20, k), (21, subgroup)]
            .into_iter()
            .filter(|(id, _)| listed.iter().any(|s| s.id == *id))
            .map(|(id, v)| (id, SpecValue::Uint(v)))
            .collect();
        let local = if is_coop { subgroup } else { 64 };
        let pipeline = Pipeline::new(
            &ctx,
            name,
            blob,
            &PipelineOptions {
                local_size: Some([local, 1, 1]),
                specialization: &spec,
            },
        );
        let pipeline = match pipeline {
            Ok(p) => Arc::new(p),
            // glslang's blob may need what the context did not enable.
            Err(e) if !std::ptr::eq(blob, variant.blob) => {
                eprintln!("{name} not timed: {e}");
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let groups = if is_coop {
            [(gn as u32).div_ceil(n), (gm as u32).div_ceil(m), 1]
        } else {
            [(gn as u32 / 4).div_ceil(local), gm as u32, 1]
        };
        top.write(&vec![0xff; top_bytes as usize])?;
        let bufs = [&a_buf, &b_buf, &top];
        let mut seq = Sequence::new(&ctx);
        for _ in 0..reps + 3 {
            seq.dispatch(&pipeline, Dispatch::new(&bufs, &push, groups))?;
        }
        let ns = time(seq)?;
        // A sample of outputs against the host reference (see
        // ncnn-glsl-runtime/tests/coopmat_gemm.rs for the tolerance).
        let mut out = vec![0u8; top_bytes as usize];
        top.read(&mut out)?;
        let mut check = Rng::new(seed ^ 0x5eed);
        for _ in 0..256 {
            let (r, c) = (
                check.below(gm as u64) as usize,
                check.below(gn as u64) as usize,
            );
            let (mut sum, mut abs) = (0f64, 0f64);
            for kk in 0..gk {
                let p = f16_to_f64(a[r * gk + kk]) * f16_to_f64(b[c * gk + kk]);
                sum += p;
                abs += p.abs();
            }
            let i = 2 * (r * gn + c);
            let got = f16_to_f64(u16::from_le_bytes([out[i], out[i + 1]]));
            let mag = sum.abs().max(got.abs()).max(2f64.powi(-14));
            let tol =
                2f64.powi(mag.log2().floor() as i32 - 10) + 2.0 * gk as f64 * 2f64.powi(-24) * abs;
            if got.is_nan() || (got - sum).abs() > tol {
                return Err(format!(
                    "{name}: top[{r}][{c}] = {got}, reference {sum} (seed {seed})"
                )
                .into());
            }
        }
        rows.push(Timed {
            name: name.to_string(),
            variant: variant.target.to_string(),
            ns,
        });
    }

    // The copy ceiling: as many bytes as A, B and top together.
    let copy_bytes = (a_bytes + b_bytes + top_bytes).div_ceil(16) * 16;
    let src = Buffer::new(&ctx, copy_bytes)?;
    let dst = Buffer::new(&ctx, copy_bytes)?;
    let launch = CopyLaunch::new(&ctx, copy_bytes);
    let copy_shader = copy_pipeline(&ctx)?;
    let bufs = [&src, &dst];
    let mut seq = Sequence::new(&ctx);
    for _ in 0..reps + 3 {
        seq.dispatch(
            &copy_shader,
            Dispatch::new(&bufs, &launch.push, launch.groups),
        )?;
    }
    let copy_shader_ns = time(seq)?;
    let mut seq = Sequence::new(&ctx);
    for _ in 0..reps + 3 {
        seq.copy(&src, &dst, copy_bytes)?;
    }
    let copy_cmd_ns = time(seq)?;

    let flops = 2.0 * gm as f64 * gn as f64 * gk as f64;
    let gemm_bytes = (a_bytes + b_bytes + top_bytes) as f64;
    println!(
        "GEMM GM {gm} GN {gn} GK {gk} (fp16 storage), {} on {}",
        selected.target, caps.name
    );
    println!(
        "{:<28} {:<12} {:>12} {:>10} {:>10}",
        "kernel", "variant", "median us", "TFLOP/s", "GB/s"
    );
    let mut records = Vec::new();
    for r in &rows {
        let (tflops, gbps) = (flops / r.ns / 1e3, gemm_bytes / r.ns);
        println!(
            "{:<28} {:<12} {:>12.1} {:>10.2} {:>10.1}",
            r.name,
            r.variant,
            r.ns / 1e3,
            tflops,
            gbps
        );
        records.push(json!({
            "kernel": r.name, "variant": r.variant, "median_us": r.ns / 1e3,
            "tflop_per_s": tflops, "gb_per_s": gbps,
        }));
    }
    for (name, ns) in [
        ("copy shader (A+B+top bytes)", copy_shader_ns),
        ("vkCmdCopyBuffer", copy_cmd_ns),
    ] {
        // Read and write: twice the bytes.
        let gbps = 2.0 * copy_bytes as f64 / ns;
        println!(
            "{name:<28} {:<12} {:>12.1} {:>10} {:>10.1}",
            "-",
            ns / 1e3,
            "-",
            gbps
        );
        records.push(
            json!({ "kernel": name, "median_us": ns / 1e3, "gb_per_s": gbps, "bytes": copy_bytes }),
        );
    }
    if let Some(path) = json_out {
        let doc = document(
            &ctx,
            json!({
                "shader": GEMM, "gm": gm, "gn": gn, "gk": gk, "storage": selected.target.to_string(),
                "cooperative_matrix": coop,
                "note": (!coop).then_some("the device has no cooperative matrices: only the plain variant and the copy are timed"), "m": m, "n": n, "k": k, "subgroup_size": subgroup,
                "reps": reps, "heat_ms": heat_ms, "seed": seed, "records": records,
            }),
        );
        std::fs::write(&path, serde_json::to_string_pretty(&doc)? + "\n")?;
        eprintln!("wrote {path}");
    }
    Ok(())
}
