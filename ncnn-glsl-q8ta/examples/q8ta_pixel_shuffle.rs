//! float -> quantize -> q8ta pixel shuffle -> dequantize on the default Vulkan
//! device (lavapipe where there is no GPU), for all 9 layout pairs, in the
//! passthrough and the requantize variant; every byte is checked against the
//! CPU reference, and the seed's kernel is timed against the baseline.
//!
//! ```text
//! cargo run --release -p ncnn-glsl-q8ta --example q8ta_pixel_shuffle -- \
//!     [--shape N,C,H,W] [--seed S] [--device SELECTOR] [--validation] \
//!     [--reps R] [--vectors FILE] [--json FILE]
//! ```
//!
//! `--shape` is the shuffle's input shape (C a multiple of 4). `--vectors`
//! runs every case of a golden-vector file (the format of
//! `ncnn-glsl-q8ta/tests/data/q8ta_pixel_shuffle.json`) through both
//! kernels instead.
//! The exit status is non-zero on any mismatch.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use ncnn_glsl_q8ta::vectors::{self, VectorCase};
use ncnn_glsl_q8ta::{
    self, pack, reference, unpack, Layout, Q8taOps, QTensor, QuantParams, Requant, Shape,
};
use ncnn_glsl_runtime::{Context, ContextOptions, DeviceSelector, FloatStorage, Message, Options};
use ncnn_glsl_testkit::Rng;

struct Args {
    shape: Shape,
    seed: u64,
    device: DeviceSelector,
    validation: bool,
    reps: usize,
    vectors: Option<String>,
    json: Option<String>,
}

fn usage() -> String {
    "usage: q8ta_pixel_shuffle [--shape N,C,H,W] [--seed S] [--device SELECTOR] [--validation] \
     [--reps R] [--vectors FILE] [--json FILE]"
        .to_string()
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        shape: Shape::new(1, 64, 64, 64),
        seed: 0x5eed,
        device: DeviceSelector::Best,
        validation: false,
        reps: 10,
        vectors: None,
        json: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))
        };
        match flag.as_str() {
            "--shape" => {
                let v = value()?;
                let d: Vec<usize> = v
                    .split(',')
                    .map(|x| x.trim().parse())
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("--shape {v}: {e}"))?;
                let d: [usize; 4] = d
                    .try_into()
                    .map_err(|_| format!("--shape {v}: four dimensions N,C,H,W"))?;
                a.shape = Shape::from_dims(d);
            }
            "--seed" => {
                let v = value()?;
                a.seed = v.parse().map_err(|e| format!("--seed {v}: {e}"))?;
            }
            "--device" => {
                let v = value()?;
                a.device = v.parse().map_err(|e| format!("--device {v}: {e}"))?;
            }
            "--reps" => {
                let v = value()?;
                a.reps = v.parse().map_err(|e| format!("--reps {v}: {e}"))?;
                a.reps = a.reps.max(1);
            }
            "--validation" => a.validation = true,
            "--vectors" => a.vectors = Some(value()?),
            "--json" => a.json = Some(value()?),
            "-h" | "--help" => return Err(usage()),
            other => return Err(format!("unknown argument `{other}`\n{}", usage())),
        }
    }
    Ok(a)
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Some(v[v.len() / 2])
}

type Fail = Box<dyn std::error::Error>;

/// Runs a kernel `reps` times (after one warm-up) into a poisoned output; the
/// output of the last run is returned with the median GPU time.
fn timed(
    ops: &Q8taOps,
    input: &QTensor,
    out: &mut QTensor,
    baseline: bool,
    reps: usize,
) -> Result<(Vec<u8>, Option<f64>, String), Fail> {
    let mut times = Vec::new();
    let mut desc = String::new();
    for i in 0..=reps {
        let n = out.buffer.size() as usize;
        out.buffer.write(&vec![0xa5; n])?;
        let r = if baseline {
            ops.pixel_shuffle_baseline(input, out, 2)?
        } else {
            ops.pixel_shuffle(input, out, 2)?
        };
        desc = format!(
            "{} {} local {}x{}x{}",
            r.target, r.axes, r.local[0], r.local[1], r.local[2]
        );
        if i > 0 {
            if let Some(ns) = r.stats.gpu_ns {
                times.push(ns);
            }
        }
    }
    Ok((out.read_bytes()?, median(times), desc))
}

/// One quantization step, only where `x / scale` is within 2^-20 of a tie.
fn quantize_ok(got: i8, want: i8, x: f32, scale: f32) -> bool {
    if got == want {
        return true;
    }
    let v = x as f64 / scale as f64;
    (got as i32 - want as i32).abs() == 1 && (v - v.floor() - 0.5).abs() < 2f64.powi(-20)
}

fn dequantize_ok(got: f32, want: f32, s: FloatStorage) -> bool {
    match s {
        FloatStorage::F32 => got == want,
        FloatStorage::F16 => {
            let ulp = half::f16::from_f32(want.abs()).to_f32().max(6.1e-5) * 2f32.powi(-10);
            got == s.round(want) || (got - want).abs() <= ulp * 1.0001
        }
        FloatStorage::Bf16 => {
            got == s.round(want) || (got - want).abs() <= want.abs().max(1e-30) * 2f32.powi(-7)
        }
    }
}

struct Row {
    pair: String,
    mode: &'static str,
    variant: String,
    ns: Option<f64>,
    base_ns: Option<f64>,
    gbs: Option<f64>,
    ok: bool,
    detail: String,
}

fn run_pair(
    ops: &Q8taOps,
    a: &Args,
    x: &[f32],
    il: Layout,
    ol: Layout,
    q_in: QuantParams,
    q_out: QuantParams,
) -> Result<Row, Fail> {
    let s = a.shape;
    let os = reference::shuffle_output_shape(s)?;
    let mode = if q_in == q_out {
        "passthrough"
    } else {
        "requantize"
    };
    let mut problems = Vec::new();
    // Quantize on the GPU, checked against the reference (storage-rounded input).
    let storage = ops.quantize_storage(il)?;
    let xs: Vec<f32> = x.iter().map(|&v| storage.round(v)).collect();
    let mut qt = ops.quantize(&xs, s, il, q_in)?;
    let words = qt.read_words()?;
    let want = reference::quantize(&xs, s, il, q_in)?;
    let (g, w) = (unpack(il, s, &words)?, unpack(il, s, &want)?);
    let bad = (0..g.len())
        .filter(|&i| !quantize_ok(g[i], w[i], xs[i], q_in.scale))
        .count();
    if bad > 0 || pack(il, s, &g, q_in.zp_i8())? != words {
        problems.push(format!("quantize: {bad} elements differ"));
    }
    // The shuffle, both kernels, whole output buffers against the reference
    // applied to the GPU's own quantized words.
    let rq = Requant::new(q_in, q_out)?;
    let expected = bytes_of(&reference::pixel_shuffle(&words, il, s, ol, &rq)?);
    let mut out = ops.tensor(os, ol, q_out)?;
    let (got, ns, variant) = timed(ops, &qt, &mut out, false, a.reps)?;
    if got != expected {
        let n = (0..got.len()).filter(|&i| got[i] != expected[i]).count();
        problems.push(format!("rewrite: {n} bytes differ"));
    }
    let mut out_b = ops.tensor(os, ol, q_out)?;
    let (got_b, base_ns, _) = timed(ops, &qt, &mut out_b, true, a.reps)?;
    if got_b != expected {
        let n = (0..got_b.len())
            .filter(|&i| got_b[i] != expected[i])
            .count();
        problems.push(format!("baseline: {n} bytes differ"));
    }
    // Dequantize the shuffled tensor.
    let dq_storage = ops.dequantize_storage(os, ol)?;
    let y = ops.dequantize(&out)?;
    let out_words: Vec<u32> = expected
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want_y = reference::dequantize(&out_words, os, ol, q_out)?;
    let bad = (0..y.len())
        .filter(|&i| !dequantize_ok(y[i], want_y[i], dq_storage))
        .count();
    if bad > 0 {
        problems.push(format!("dequantize: {bad} elements differ"));
    }
    let bytes = (il.byte_count(s) + ol.byte_count(os)) as f64;
    Ok(Row {
        pair: format!("{il} -> {ol}"),
        mode,
        variant,
        ns,
        base_ns,
        gbs: ns.map(|t| bytes / t),
        ok: problems.is_empty(),
        detail: problems.join("; "),
    })
}

fn fmt_us(ns: Option<f64>) -> String {
    ns.map_or("-".to_string(), |t| format!("{:.1}", t / 1e3))
}

fn run_vectors(ops: &Q8taOps, path: &str) -> Result<(usize, usize, serde_json::Value), Fail> {
    let cases = vectors::cases(&std::fs::read_to_string(path)?)?;
    let (mut pass, mut fail) = (0, 0);
    let mut results = Vec::new();
    for c in cases {
        let name = c["name"].as_str().unwrap_or("?").to_string();
        let r = (|| -> Result<(bool, bool), Fail> {
            let c = VectorCase::from_json(&c)?;
            let it = ops.tensor_from_words(&c.input, c.input_shape, c.in_layout, c.input_params)?;
            let mut out = ops.tensor(c.output_shape, c.out_layout, c.output_params)?;
            let want = bytes_of(&c.expected);
            let (got, _, _) = timed(ops, &it, &mut out, false, 0)?;
            let (got_b, _, _) = timed(ops, &it, &mut out, true, 0)?;
            Ok((got == want, got_b == want))
        })();
        let (ok, text) = match r {
            Ok((a, b)) => (
                a && b,
                format!(
                    "rewrite {}, baseline {}",
                    if a { "OK" } else { "MISMATCH" },
                    if b { "OK" } else { "MISMATCH" }
                ),
            ),
            Err(e) => (false, format!("error: {e}")),
        };
        println!("{:<48} {text}", name);
        results.push(serde_json::json!({"name": name, "ok": ok, "detail": text}));
        if ok {
            pass += 1;
        } else {
            fail += 1;
        }
    }
    Ok((pass, fail, serde_json::Value::Array(results)))
}

fn main() -> ExitCode {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match real_main(&a) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn real_main(a: &Args) -> Result<bool, Fail> {
    let messages: Arc<Mutex<Vec<Message>>> = Arc::default();
    let sink = messages.clone();
    let ctx = Context::new(ContextOptions {
        device: a.device.clone(),
        validation: a.validation,
        messages: Some(Arc::new(move |m: Message| sink.lock().unwrap().push(m))),
        // The q8ta sets: the context enables the features their variants use.
        ..ncnn_glsl_q8ta::context_options()
    })?;
    let ops = Q8taOps::new(&ctx, Options::NCNN_DEFAULT)?;
    println!(
        "device: {} ({:?}), validation {}",
        ctx.caps().name,
        ctx.caps().device_type,
        if a.validation { "on" } else { "off" }
    );
    let mut all_ok = true;
    let mut json = serde_json::json!({
        "device": ctx.caps().name,
        "seed": a.seed,
        "shape": [a.shape.n, a.shape.c, a.shape.h, a.shape.w],
    });

    if let Some(path) = &a.vectors {
        let (pass, fail, results) = run_vectors(&ops, path)?;
        println!("{pass} cases passed, {fail} failed");
        all_ok &= fail == 0;
        json["vectors"] = results;
    } else {
        let s = a.shape;
        reference::shuffle_output_shape(s)?;
        // `| 1` as before the testkit's generator: a recorded seed repeats its inputs.
        let mut g = Rng::new(a.seed | 1);
        let q_in = QuantParams::new(0.05, -3, "input")?;
        let q_req = QuantParams::new(0.07, 5, "output")?;
        // Mostly in range, some saturating.
        let x: Vec<f32> = (0..s.elements()).map(|_| g.f32(-7.0, 7.0)).collect();
        let os = reference::shuffle_output_shape(s)?;
        println!(
            "input {s} -> output {os}, seed {}, {} reps (median of GPU timestamps)",
            a.seed, a.reps
        );
        let qv = ops.variant(ncnn_glsl_q8ta::sets::QUANTIZE, &[("OUT_LAYOUT", 0)])?;
        println!(
            "quantize / dequantize run in {} storage ({:?} on the host)",
            qv.target,
            ops.quantize_storage(Layout::Packed4W4C)?
        );
        println!(
            "{:<14} {:<11} {:<54} {:>10} {:>8} {:>12} {:>8}  OK",
            "layouts", "mode", "variant run", "time (us)", "GB/s", "baseline us", "speedup"
        );
        let mut rows = Vec::new();
        for il in Layout::ALL {
            for ol in Layout::ALL {
                for q_out in [q_in, q_req] {
                    let r = run_pair(&ops, a, &x, il, ol, q_in, q_out)?;
                    let speedup = match (r.ns, r.base_ns) {
                        (Some(t), Some(b)) => format!("{:.2}x", b / t),
                        _ => "-".into(),
                    };
                    println!(
                        "{:<14} {:<11} {:<54} {:>10} {:>8} {:>12} {:>8}  {}{}",
                        r.pair,
                        r.mode,
                        r.variant,
                        fmt_us(r.ns),
                        r.gbs.map_or("-".into(), |g| format!("{g:.2}")),
                        fmt_us(r.base_ns),
                        speedup,
                        if r.ok { "OK" } else { "MISMATCH: " },
                        r.detail
                    );
                    all_ok &= r.ok;
                    rows.push(serde_json::json!({
                        "layouts": r.pair, "mode": r.mode, "variant": r.variant,
                        "ns": r.ns, "baseline_ns": r.base_ns, "gbps": r.gbs,
                        "ok": r.ok, "detail": r.detail,
                    }));
                }
            }
        }
        json["results"] = serde_json::Value::Array(rows);
    }
    let msgs = messages.lock().unwrap();
    if !msgs.is_empty() {
        all_ok = false;
        println!("{} validation messages:", msgs.len());
        for m in msgs.iter().take(10) {
            println!("  [{:?}] {}: {}", m.severity, m.id, m.text);
        }
    }
    json["ok"] = all_ok.into();
    if let Some(path) = &a.json {
        std::fs::write(path, serde_json::to_string_pretty(&json)?)?;
    }
    println!("{}", if all_ok { "all OK" } else { "FAILED" });
    Ok(all_ok)
}
