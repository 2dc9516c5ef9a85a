//! The downstream program of `tests/tests/downstream.rs`: a crate outside the
//! workspace that depends on `ncnn-glsl-runtime = "0.1.0"` and
//! `ncnn-glsl-q8ta = "0.1.0"` as a user does,
//! served by the packaged crates (the test writes its `Cargo.toml`, with
//! `[patch.crates-io]` pointing at the extracted `.crate` files).
//!
//! - no argument: prints a fingerprint of its own shader's set (the test
//!   edits the shader and checks that a rebuild takes effect), and checks that
//!   the shipped shader it includes by name is the one `ncnn-glsl-q8ta` embeds;
//! - `q8ta`: quantizes random floats to every layout, pixel-shuffles them
//!   (a sample of the layout pairs, [`PAIRS`]) through
//!   `ncnn_glsl_q8ta::Q8taOps` on the default Vulkan device with the
//!   Khronos validation layer, and checks every byte against
//!   `ncnn_glsl_q8ta::reference`; then runs its own shader through the typed item form
//!   (`include_ncnn_shader!(mod typed = ...)`: push constants as a struct,
//!   the specialization constant and the buffers by name), every element
//!   checked on the host. Exit status 0: all OK; 1: a mismatch, an error or a
//!   validation message; 77: no Vulkan device with the validation layer here
//!   (the test decides whether that is a skip or, under `CI`, a failure).
//!
//! New uses of the macro go here, as statics beside these ones, with a check
//! in `fingerprint` or a mode of their own. The crate forbids `unsafe` code,
//! as a user's may: what the macro expands to must pass.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use ncnn_glsl_q8ta::{
    self as q8ta, reference, unpack, Layout, Q8taOps, QuantParams, Requant, Shape,
};
use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, Context, ContextOptions, Dispatch, Error, FloatStorage, Message,
    Options, Pipeline, PipelineOptions, VariantSet,
};

/// This crate's own shader, relative to its `Cargo.toml`.
static SCALE: &VariantSet = include_ncnn_shader!("shaders/scale.comp");
/// A shader of the shipped library, by name: found in the packaged macros
/// crate.
static PIXEL_SHUFFLE: &VariantSet = include_ncnn_shader!("q8ta_pixel_shuffle.comp");
// The item form: `typed::SET` and its typed host side.
include_ncnn_shader!(mod typed = "shaders/typed.comp");
// The library form: every shader of `shaders/`, a module each, by index or name.
ncnn_glsl_runtime::include_ncnn_library!(pub mod kernels = "shaders");

type Fail = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    let result = match std::env::args().nth(1).as_deref() {
        None => fingerprint(),
        Some("q8ta") => match run_q8ta() {
            Err(Unavailable(reason)) => {
                println!("unavailable: {reason}");
                return ExitCode::from(77);
            }
            Ok(r) => r,
        },
        Some(other) => Err(format!("unknown argument `{other}`: none, or `q8ta`").into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            println!("FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn fingerprint() -> Result<(), Fail> {
    // FNV-1a of every embedded word, to see a rebuild take effect.
    let mut h: u64 = 0xcbf29ce484222325;
    for v in SCALE.variants() {
        for w in v.blob.spirv() {
            h = (h ^ u64::from(*w)).wrapping_mul(0x100000001b3);
        }
    }
    println!("{} variants {:016x}", SCALE.variants().len(), h);
    library()?;

    // The shader found by name is the shipped one: the same variants and
    // SPIR-V as the set `ncnn-glsl-q8ta` compiled from its own package.
    let ours = PIXEL_SHUFFLE;
    let shipped = q8ta::sets::PIXEL_SHUFFLE;
    let same = ours.name == shipped.name
        && ours.variants().len() == shipped.variants().len()
        && ours.variants().iter().zip(shipped.variants()).all(|(a, b)| {
            a.target == b.target && a.axes == b.axes && a.blob.spirv() == b.blob.spirv()
        });
    if !same {
        return Err(format!(
            "include_ncnn_shader!(\"{}\") ({} variants) differs from ncnn-glsl-q8ta's `{}` ({} variants)",
            ours.name,
            ours.variants().len(),
            shipped.name,
            shipped.variants().len()
        )
        .into());
    }
    println!(
        "library {}: {} variant(s), as ncnn-glsl-q8ta's",
        ours.name,
        ours.variants().len()
    );
    Ok(())
}

/// The library form: the shaders of `shaders/` asked for by index and by
/// name give the sets `include_ncnn_shader!` builds from the same files.
fn library() -> Result<(), Fail> {
    use kernels::{Shader, LIBRARY};
    let same = |a: &VariantSet, b: &VariantSet| {
        a.variants().len() == b.variants().len()
            && a.variants().iter().zip(b.variants()).all(|(x, y)| {
                x.target == y.target && x.axes == y.axes && x.blob.spirv() == y.blob.spirv()
            })
    };
    if LIBRARY.names != ["scale", "typed"] || Shader::ALL != [Shader::Scale, Shader::Typed] {
        return Err(format!("library names {:?}", LIBRARY.names).into());
    }
    let by_index = LIBRARY.get(Shader::Scale.index())?;
    let by_name = LIBRARY.by_name("typed")?;
    if !same(by_index, SCALE) || !same(by_name, typed::SET) || !same(Shader::Scale.set(), SCALE) {
        return Err("a library shader differs from its own include_ncnn_shader! set".into());
    }
    if Shader::from_name("typed") != Some(Shader::Typed) || LIBRARY.get(2).is_ok() {
        return Err("the library answers a name or an index it should not".into());
    }
    let device = ncnn_glsl_runtime::DeviceCaps::default();
    let choice = LIBRARY.select(Shader::Typed.index(), &device, Options::FP32, &[])?;
    println!(
        "kernels: {} shaders, `{}` runs {}",
        LIBRARY.len(),
        Shader::Typed.name(),
        choice.chosen
    );
    Ok(())
}

/// Why the Vulkan part cannot run here.
struct Unavailable(String);

/// `Err` only when there is no Vulkan with the validation layer; every other
/// failure is the inner `Err`.
fn run_q8ta() -> Result<Result<(), Fail>, Unavailable> {
    let messages: Arc<Mutex<Vec<Message>>> = Arc::default();
    let sink = messages.clone();
    let ctx = match Context::new(ContextOptions {
        validation: true,
        messages: Some(Arc::new(move |m: Message| {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(m)
        })),
        // The q8ta sets and this crate's typed one: the context enables the
        // features their variants use.
        variant_sets: q8ta::SETS.iter().copied().chain([typed::SET]).collect(),
        ..q8ta::context_options()
    }) {
        Ok(ctx) => ctx,
        Err(e @ (Error::NoLoader(_) | Error::NoValidationLayer | Error::NoDevice)) => {
            return Err(Unavailable(e.to_string()))
        }
        Err(e) => return Ok(Err(format!("cannot open a Vulkan context: {e}").into())),
    };
    println!("device: {} ({:?})", ctx.caps().name, ctx.caps().device_type);
    let mut result = shuffle_pairs(&ctx).and_then(|()| typed_scale(&ctx));
    drop(ctx);
    let messages = messages.lock().unwrap_or_else(|p| p.into_inner());
    if result.is_ok() && !messages.is_empty() {
        let shown: Vec<String> = messages
            .iter()
            .map(|m| format!("  [{:?}] {}: {}", m.severity, m.id, m.text))
            .collect();
        result = Err(format!(
            "{} validation messages:\n{}",
            messages.len(),
            shown.join("\n")
        )
        .into());
    }
    Ok(result)
}

/// The pixel shuffles run here, by index in `Layout::ALL`: (input layout,
/// output layout, requantize). Each layout is an input and an output once
/// with each quantization, and input and output share a layout once with
/// each. This proves the packaged operator; `ncnn-glsl-q8ta`'s GPU tests
/// (`a_covering_sample_matches_the_reference`) run every pair with each
/// quantization from the workspace in the same CI run. Each run is a
/// pipeline of its own, about 1 s on lavapipe with validation.
const PAIRS: [(usize, usize, bool); 6] = [
    (0, 0, false),
    (1, 2, false),
    (2, 1, false),
    (0, 1, true),
    (1, 0, true),
    (2, 2, true),
];

fn shuffle_pairs(ctx: &Arc<Context>) -> Result<(), Fail> {
    let ops = Q8taOps::new(ctx, Options::NCNN_DEFAULT)?;
    let seed = match std::env::var("NCNN_SEED") {
        Ok(s) => s.parse().map_err(|e| format!("NCNN_SEED={s}: {e}"))?,
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_nanos() as u64,
    };
    println!("seed {seed} (NCNN_SEED={seed} repeats this run)");
    let mut rng = SplitMix(seed);
    // Small, but W % 4 == 0 and C_out % 16 == 0, so every path may be taken.
    let s = Shape::new(1, 64, 3, 8);
    let os = reference::shuffle_output_shape(s)?;
    let q_in = QuantParams::new(0.05, -3, "input")?;
    let q_req = QuantParams::new(0.07, 5, "output")?;
    // Mostly in range, some saturating.
    let x: Vec<f32> = (0..s.elements()).map(|_| rng.f32(-7.0, 7.0)).collect();
    let mut problems = Vec::new();
    // Quantize to every layout on the GPU, checked against the reference on
    // the input as the variant stores it.
    let mut quantized = Vec::new();
    for il in Layout::ALL {
        let storage = ops.quantize_storage(il)?;
        let xs: Vec<f32> = x.iter().map(|&v| storage.round(v)).collect();
        let mut qt = ops.quantize(&xs, s, il, q_in)?;
        let words = qt.read_words()?;
        let want = reference::quantize(&xs, s, il, q_in)?;
        let (g, w) = (unpack(il, s, &words)?, unpack(il, s, &want)?);
        let bad = (0..g.len())
            .filter(|&i| !quantize_ok(g[i], w[i], xs[i], q_in.scale))
            .count();
        if bad > 0 {
            problems.push(format!(
                "quantize to {il}: {bad} of {} elements differ",
                g.len()
            ));
        }
        quantized.push((il, qt, words));
    }
    for (i, o, requantize) in PAIRS {
        let (il, qt, words) = &quantized[i];
        let (il, ol) = (*il, Layout::ALL[o]);
        let q_out = if requantize { q_req } else { q_in };
        // The reference applied to the GPU's own quantized words; the output
        // is poisoned first, so every byte must be written.
        let rq = Requant::new(q_in, q_out)?;
        let expected: Vec<u8> = reference::pixel_shuffle(words, il, s, ol, &rq)?
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let mut out = ops.tensor(os, ol, q_out)?;
        out.buffer.write(&vec![0xa5; out.buffer.size() as usize])?;
        let run = ops.pixel_shuffle(qt, &mut out, 2)?;
        let got = out.read_bytes()?;
        let what = format!(
            "{il} -> {ol}, {} ({} {})",
            if requantize {
                "requantize"
            } else {
                "passthrough"
            },
            run.target,
            run.axes
        );
        if got.len() != expected.len() {
            problems.push(format!(
                "{what}: {} bytes, not {}",
                got.len(),
                expected.len()
            ));
        } else {
            let n = (0..got.len()).filter(|&i| got[i] != expected[i]).count();
            if n > 0 {
                problems.push(format!("{what}: {n} of {} bytes differ", got.len()));
            } else {
                println!("{what}: {} bytes OK", got.len());
            }
        }
    }
    if problems.is_empty() {
        println!("all OK");
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// `typed.comp` in the variant ncnn's defaults choose here: `y = x * scale +
/// bias` over the first `n` vec4s (`n` fixed through `psc`), the rest of the
/// poisoned output untouched.
fn typed_scale(ctx: &Arc<Context>) -> Result<(), Fail> {
    let choice = ctx.select(typed::SET, Options::NCNN_DEFAULT, &[])?;
    let storage = FloatStorage::of(choice.chosen.options);
    let (vec4s, n) = (300usize, 250i32);
    let spec = typed::Specialization { n: Some(n) };
    let options = PipelineOptions {
        specialization: &spec.values(),
        ..Default::default()
    };
    let pipeline = Pipeline::for_variant(ctx, typed::SET, choice.variant, &options)?;
    let mut rng = SplitMix(0x5eed);
    let x: Vec<f32> = (0..vec4s * 4)
        .map(|_| storage.round(rng.f32(-8.0, 8.0)))
        .collect();
    let mut bottom = Buffer::for_floats(ctx, storage, x.len())?;
    let mut top = Buffer::for_floats(ctx, storage, x.len())?;
    bottom.write_floats(storage, &x)?;
    top.write(&vec![0xff; top.size() as usize])?;
    let push = typed::PushConstants {
        n: vec4s as i32, // not read: the specialization constant wins
        scale: -0.75,
        bias: [1.0, 2.0, -3.0, 0.5],
        ..Default::default()
    };
    let buffers = typed::Buffers {
        bottom_blob: &bottom,
        top_blob: &top,
    }
    .bind();
    pipeline.dispatch(&Dispatch::typed(
        &buffers,
        &push,
        [vec4s.div_ceil(64) as u32, 1, 1],
    ))?;
    let y = top.read_floats(storage, x.len())?;
    let mut raw = vec![0u8; top.size() as usize];
    top.read(&mut raw)?;
    let e = storage.element_bytes();
    for (i, (&x, &y)) in x.iter().zip(&y).enumerate() {
        if i >= n as usize * 4 {
            if raw[i * e..(i + 1) * e].iter().any(|&b| b != 0xff) {
                return Err(format!("typed: element {i} written past n = {n}").into());
            }
            continue;
        }
        let want = storage.round(x * -0.75 + push.bias[i % 4]);
        if (y - want).abs() > 4e-3 * want.abs().max(1.0) {
            return Err(format!(
                "typed ({}): element {i}: {x} gave {y}, want {want}",
                choice.chosen
            )
            .into());
        }
    }
    println!("typed {}: {} elements OK", choice.chosen, n * 4);
    Ok(())
}

/// One quantization step, only where `x / scale` is within 2^-20 of a tie
/// (the GPU's float division may round across it).
fn quantize_ok(got: i8, want: i8, x: f32, scale: f32) -> bool {
    if got == want {
        return true;
    }
    let v = x as f64 / scale as f64;
    (got as i32 - want as i32).abs() == 1 && (v - v.floor() - 0.5).abs() < 2f64.powi(-20)
}

/// SplitMix64: the testkit's generator is not published, and this program
/// needs only uniform floats.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }

    fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
}
