//! Differential runs: one shader, compiled by this project (naga and its
//! repairs) and by `glslangValidator -V` from the same finished GLSL, run on
//! the same random inputs, outputs compared (integers identical, floats
//! within a given number of ulps).
//!
//! For a corpus, build a [`Case`] per shader (source with the extension, a
//! mode, one [`Io`] per binding in binding order, push constants, grid,
//! specializations) and call [`run`]. The seed is fresh per run and printed
//! on failure; `NCNN_SEED=N` replays one.
//!
//! glslang gets the finished text of `ncnn_glsl_core::expand` only: none of
//! the naga-only prototypes the compiler adds ever reach it.

use std::sync::Arc;

use half::f16;
use ncnn_glsl_core::{CompileOptions, MemoryLoader, SourceFile};
use ncnn_glsl_runtime::reflection::Reflection;
use ncnn_glsl_runtime::{
    Blob, Buffer, Context, ContextOptions, Dispatch, FloatStorage, Pipeline, PipelineOptions,
    SpecValue, Target, Usage, Variant, VariantSet,
};

use crate::gpu::{Gpu, GpuTest};
use crate::rng::Rng;
use crate::tools;

/// How an input buffer is filled.
#[derive(Clone, Copy, Debug)]
pub enum Fill {
    /// Random 32-bit words.
    Words,
    /// Random `f32` in `[lo, hi)`.
    F32(f32, f32),
    /// Random `f16` in `[lo, hi)`, two per word.
    F16(f32, f32),
    /// Random bf16 (the high half of an `f32`, rounded to nearest) in
    /// `[lo, hi)`, two per word.
    Bf16(f32, f32),
    /// Random `u32` in `[0, n)`.
    Below(u32),
}

/// How an output buffer is compared.
#[derive(Clone, Copy, Debug)]
pub enum Cmp {
    /// Every byte identical.
    Exact,
    /// `f32` elements within `n` ulps (NaN only equals NaN).
    F32Ulps(u32),
    /// `f16` elements within `n` ulps.
    F16Ulps(u32),
    /// bf16 elements within `n` ulps.
    Bf16Ulps(u32),
}

/// What one binding is, in the order of the reflection's bindings.
#[derive(Clone, Copy, Debug)]
pub enum Io {
    /// Read by the shader: `bytes` filled with `Fill`.
    In(u64, Fill),
    /// Written by the shader: `bytes` poisoned beforehand, then compared.
    Out(u64, Cmp),
    /// Both: filled, then compared.
    InOut(u64, Fill, Cmp),
}

impl Io {
    fn bytes(self) -> u64 {
        match self {
            Io::In(b, _) | Io::Out(b, _) | Io::InOut(b, _, _) => b,
        }
    }
}

/// One differential run.
#[derive(Clone, Debug)]
pub struct Case {
    /// For messages.
    pub name: String,
    /// The shader, with the extension (expanded for `mode`).
    pub source: String,
    /// The mode (`fp32`, `fp16s+fp16a`, ...), optionally with the device
    /// bits as a target prints them (`fp16s+fp16a [S16 I16 I64]`); without
    /// them, the least device that keeps the mode's flags.
    pub mode: String,
    /// One per binding.
    pub io: Vec<Io>,
    /// The push-constant bytes.
    pub push_constants: Vec<u8>,
    /// Workgroups.
    pub groups: [u32; 3],
    /// Dimensions of `local_size_*_id`.
    pub local_size: Option<[u32; 3]>,
    /// Specialization constants.
    pub specialization: Vec<(u32, SpecValue)>,
}

impl Case {
    /// A case with no push constants, no specialization, one workgroup.
    pub fn new(name: &str, source: &str, mode: &str, io: Vec<Io>) -> Case {
        Case {
            name: name.into(),
            source: source.into(),
            mode: mode.into(),
            io,
            push_constants: Vec::new(),
            groups: [1, 1, 1],
            local_size: None,
            specialization: Vec::new(),
        }
    }
}

/// The target of a [`Case::mode`]: `MODE` on the least device that keeps
/// its flags, or `MODE [BITS]` with exactly those device bits.
pub fn target_of(mode: &str) -> Target {
    let (options, bits) = match mode.split_once('[') {
        Some((m, b)) => (m.trim(), Some(b.trim_end_matches(']'))),
        None => (mode.trim(), None),
    };
    let mut target = Target::for_mode(options.parse().expect("a mode"));
    if let Some(bits) = bits {
        let on: Vec<&str> = bits.split_whitespace().collect();
        for name in &on {
            assert!(
                ["S16", "U16", "I16", "I64"].contains(name),
                "`{name}` in `{mode}` is not a device bit"
            );
        }
        target.bits.storage16 = on.contains(&"S16");
        target.bits.uniform16 = on.contains(&"U16");
        target.bits.int16 = on.contains(&"I16");
        target.bits.int64 = on.contains(&"I64");
    }
    target
}

/// The finished text of `source` in `mode`, as glslang and naga get it.
pub fn finished(source: &str, mode: &str) -> ncnn_glsl_core::Expanded {
    let target = target_of(mode);
    let file = SourceFile {
        name: "case.comp".into(),
        path: None,
        text: source.into(),
    };
    ncnn_glsl_core::expand(
        file,
        &target,
        None,
        &MemoryLoader::default(),
        &Default::default(),
    )
    .unwrap_or_else(|e| panic!("expand failed:\n{e}"))
}

/// `glslangValidator -V` of finished GLSL, or `None` without glslang.
pub fn glslang(text: &str) -> Option<Vec<u32>> {
    Some(
        glslang_result(text)?
            .unwrap_or_else(|e| panic!("glslang rejects the finished text:\n{e}\n{text}")),
    )
}

/// `glslangValidator -V` of finished GLSL: its SPIR-V or its messages;
/// `None` without glslang (a failure under `CI`).
pub fn glslang_result(text: &str) -> Option<Result<Vec<u32>, String>> {
    tools::tool_available("glslangValidator").then(|| tools::glslang_spirv(text))
}

/// spirv-val must accept `words` (skipped without the tool, except under `CI`).
pub fn assert_valid(words: &[u32]) {
    if let Some(Err(e)) = spirv_val(words) {
        panic!("spirv-val rejects our SPIR-V:\n{e}");
    }
}

/// spirv-val's verdict on `words`; `None` without the tool (a failure under `CI`).
pub fn spirv_val(words: &[u32]) -> Option<Result<(), String>> {
    tools::tool_available("spirv-val").then(|| tools::spirv_val(words))
}

/// Our SPIR-V and reflection, and glslang's SPIR-V, for `case` (`None`
/// without glslang).
pub fn compile_both(case: &Case) -> Option<(Vec<u32>, Reflection, Vec<u32>)> {
    let e = finished(&case.source, &case.mode);
    let ours = ncnn_glsl_core::compile(&e, &CompileOptions::default())
        .unwrap_or_else(|d| panic!("{}: our compile failed:\n{d}", case.name));
    assert_valid(&ours.spirv);
    let theirs = glslang(e.text())?;
    Some((ours.spirv, ours.reflection, theirs))
}

/// Fills, runs and compares as [`run`], but glslang compiles `glslang_source`
/// (with the extension, expanded in the case's mode) instead of the case's
/// own text: a check that another form of the same shader (ncnn's
/// definitions of a name where ours differ, a column this compiler leaves
/// out and the one it runs instead) computes the same outputs on the same
/// bytes. Returns whether it ran (glslang and a device able to run both).
pub fn run_against(case: &Case, glslang_source: &str) -> bool {
    let e = finished(&case.source, &case.mode);
    let ours = ncnn_glsl_core::compile(&e, &CompileOptions::default())
        .unwrap_or_else(|d| panic!("{}: our compile failed:\n{d}", case.name));
    assert_valid(&ours.spirv);
    let other = finished(glslang_source, &case.mode);
    let Some(theirs) = glslang(other.text()) else {
        return false;
    };
    let target = target_of(&case.mode);
    // SAFETY: the differential cases' shaders index inside the buffers the
    // cases size for them; ours is our compiler's, with every index clamped.
    let (ours_blob, theirs_blob) = unsafe {
        (
            leak_blob(ours.spirv, ours.reflection.clone()),
            glslang_blob(theirs, &ours.reflection),
        )
    };
    let options = context_for(target, ours_blob, theirs_blob);
    let mut ran = false;
    GpuTest::new(options)
        .blobs([ours_blob, theirs_blob])
        .run(|gpu| {
            if let Err(e) = run_blobs(gpu, case, ours_blob, theirs_blob, seed()) {
                panic!("{e}");
            }
            ran = true;
        });
    ran
}

/// A `'static` blob, as variant sets hold them.
///
/// # Safety
///
/// As [`Blob::new`]: `spirv` is a valid compute module that `reflection`
/// describes, and stays inside its buffers for the inputs the test gives it.
pub unsafe fn leak_blob(spirv: Vec<u32>, reflection: Reflection) -> &'static Blob {
    // SAFETY: the caller's promise.
    Box::leak(Box::new(unsafe {
        Blob::new(Box::leak(spirv.into_boxed_slice()), reflection)
    }))
}

/// Fills, runs both blobs on the same inputs and compares; panics with the
/// seed on the first difference.
pub fn run(case: &Case) {
    let Some((ours, reflection, theirs)) = compile_both(case) else {
        return;
    };
    let target = target_of(&case.mode);
    // SAFETY: the differential cases' shaders index inside the buffers the
    // cases size for them; ours is our compiler's, with every index clamped.
    let (ours_blob, theirs_blob) = unsafe {
        (
            leak_blob(ours, reflection.clone()),
            glslang_blob(theirs, &reflection),
        )
    };
    let options = context_for(target, ours_blob, theirs_blob);
    GpuTest::new(options)
        .blobs([ours_blob, theirs_blob])
        .run(|gpu| {
            if let Err(e) = run_blobs(gpu, case, ours_blob, theirs_blob, seed()) {
                panic!("{e}");
            }
        });
}

/// glslang's blob of a shader: our reflection (same GLSL, same bindings)
/// with the requirements read from its own SPIR-V, and without our words'
/// ids of specialized array lengths (the runtime checks glslang's lengths
/// from its words, unnamed).
///
/// # Safety
///
/// glslang clamps no index: the shader must stay inside its buffers for the
/// inputs the test gives it (and our reflection must describe glslang's
/// module, as it does for the same text).
pub unsafe fn glslang_blob(spirv: Vec<u32>, ours: &Reflection) -> &'static Blob {
    let mut reflection = ours.clone();
    reflection.requirements = ncnn_glsl_core::compile::reflect::requirements(&spirv);
    reflection.spec_arrays = Default::default();
    // SAFETY: the caller's promise.
    unsafe { leak_blob(spirv, reflection) }
}

/// A context's options for both blobs of one target: their features enabled.
fn context_for(target: Target, ours: &'static Blob, theirs: &'static Blob) -> ContextOptions {
    let variants: &'static [Variant] = Box::leak(Box::new([ours, theirs].map(|blob| Variant {
        target,
        axes: &[],
        blob,
    })));
    ContextOptions {
        variant_sets: vec![leak_set(variants)],
        ..ContextOptions::default()
    }
}

/// A variant set holding `variants`, for a context that enables their features.
pub fn leak_set(variants: &'static [Variant]) -> &'static VariantSet {
    Box::leak(Box::new(VariantSet::new(
        "differential",
        Usage::default(),
        &[],
        variants,
    )))
}

/// The inputs' seed: `NCNN_SEED` to replay a failure, else fresh.
pub fn seed() -> u64 {
    crate::rng::fresh_seed()
}

/// [`run_blobs`] with the bytes of every binding given (outputs: ignored,
/// poisoned instead) and the context's validation messages left to the caller.
pub fn run_pair_with(
    ctx: &Arc<Context>,
    case: &Case,
    ours: &Blob,
    theirs: &Blob,
    inputs: &[Vec<u8>],
) -> Result<(), String> {
    let inputs: Vec<Vec<u8>> = case
        .io
        .iter()
        .zip(inputs)
        .map(|(io, bytes)| match io {
            Io::Out(..) => fill(&mut Rng::new(1), *io),
            _ => bytes.clone(),
        })
        .collect();
    run_blobs_with(ctx, None, case, ours, theirs, &inputs, None).map_err(|e| e.to_string())
}

/// Why [`run_blobs`] did not match.
#[derive(Clone, Debug)]
pub enum RunError {
    /// A pipeline could not be made on this device (a missing feature, a
    /// limit): the blob cannot run here.
    NotRunnable(String),
    /// The outputs differ, an output was not written, a dispatch failed or
    /// the validation layer spoke.
    Failed(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::NotRunnable(e) => write!(f, "not runnable: {e}"),
            RunError::Failed(e) => write!(f, "{e}"),
        }
    }
}

/// Runs our blob and glslang's on the test's context (which must have been
/// opened with a variant set holding both, so their features are enabled)
/// with the same inputs drawn from `seed`, and compares the outputs. The
/// validation messages of the run fail it (and are taken from the log).
pub fn run_blobs(
    gpu: &Gpu,
    case: &Case,
    ours_blob: &Blob,
    theirs_blob: &Blob,
    seed: u64,
) -> Result<(), RunError> {
    let mut rng = Rng::new(seed);
    let inputs: Vec<Vec<u8>> = case.io.iter().map(|io| fill(&mut rng, *io)).collect();
    run_blobs_with(
        gpu.ctx(),
        Some(gpu),
        case,
        ours_blob,
        theirs_blob,
        &inputs,
        Some(seed),
    )
}

/// [`run_blobs`] on given inputs; with `gpu`, the messages of the run are
/// taken from its log and any fails the run; `seed` is named in a mismatch
/// to replay it.
fn run_blobs_with(
    ctx: &Arc<Context>,
    gpu: Option<&Gpu>,
    case: &Case,
    ours_blob: &Blob,
    theirs_blob: &Blob,
    inputs: &[Vec<u8>],
    seed: Option<u64>,
) -> Result<(), RunError> {
    let reflection = &ours_blob.reflection();
    if reflection.bindings.len() != case.io.len() {
        return Err(RunError::Failed(format!(
            "{}: one Io per binding ({} bindings, {} Io)",
            case.name,
            reflection.bindings.len(),
            case.io.len()
        )));
    }
    if inputs.len() != case.io.len() {
        return Err(RunError::Failed(format!(
            "{}: one input per binding",
            case.name
        )));
    }
    let options = PipelineOptions {
        local_size: case.local_size,
        specialization: &case.specialization,
    };
    let mut outputs = Vec::new();
    for (who, blob) in [("ours", ours_blob), ("glslang", theirs_blob)] {
        let p = Pipeline::new(ctx, who, blob, &options)
            .map_err(|e| RunError::NotRunnable(format!("{who} pipeline: {e}")))?;
        let mut bufs: Vec<Buffer> = inputs
            .iter()
            .map(|bytes| {
                let mut b = Buffer::new(ctx, bytes.len() as u64).unwrap();
                b.write(bytes).unwrap();
                b
            })
            .collect();
        {
            let refs: Vec<&Buffer> = bufs.iter().collect();
            p.dispatch(&Dispatch::new(&refs, &case.push_constants, case.groups))
                .map_err(|e| RunError::Failed(format!("{}: {who} dispatch: {e}", case.name)))?;
        }
        let got: Vec<Vec<u8>> = bufs
            .iter_mut()
            .map(|b| {
                let mut out = vec![0u8; b.size() as usize];
                b.read(&mut out).unwrap();
                out
            })
            .collect();
        outputs.push(got);
    }
    let messages: Vec<String> = gpu
        .map(Gpu::take_messages)
        .unwrap_or_default()
        .iter()
        .map(|m| format!("[{:?}] {}: {}", m.severity, m.id, m.text))
        .collect();
    if !messages.is_empty() {
        return Err(RunError::Failed(format!(
            "{}: validation messages:\n{}",
            case.name,
            messages.join("\n")
        )));
    }
    for (k, io) in case.io.iter().enumerate() {
        let cmp = match io {
            Io::In(..) => continue,
            Io::Out(_, c) | Io::InOut(_, _, c) => *c,
        };
        let poison = fill(&mut Rng::new(1), Io::Out(io.bytes(), cmp));
        if outputs[0][k] == poison {
            return Err(RunError::Failed(format!(
                "{}: binding {k} was not written at all: a comparison of poison with poison proves nothing",
                case.name
            )));
        }
        if let Err(at) = compare(cmp, &outputs[0][k], &outputs[1][k]) {
            return Err(RunError::Failed(format!(
                "{} (mode {}, specialization {:?}, local size {:?}): binding {k} differs from \
                 glslang's at {at}{}",
                case.name,
                case.mode,
                case.specialization,
                case.local_size,
                seed.map_or(String::new(), |s| format!("; replay with NCNN_SEED={s}"))
            )));
        }
    }
    Ok(())
}

/// The bytes of one binding before the dispatch (outputs: poison, NaN-ish
/// and odd, so an unwritten or half-written element shows).
pub fn fill(rng: &mut Rng, io: Io) -> Vec<u8> {
    let n = io.bytes() as usize;
    let fill = match io {
        Io::In(_, f) | Io::InOut(_, f, _) => f,
        Io::Out(..) => {
            return (0..n).map(|i| [0xde, 0xad, 0xbe, 0xef][i % 4]).collect();
        }
    };
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        match fill {
            Fill::Words => out.extend_from_slice(&(rng.next_u32()).to_le_bytes()),
            Fill::F32(lo, hi) => out.extend_from_slice(&rng.f32(lo, hi).to_le_bytes()),
            Fill::F16(lo, hi) => {
                out.extend_from_slice(&FloatStorage::F16.encode(&[rng.f32(lo, hi)])[..2])
            }
            Fill::Bf16(lo, hi) => {
                out.extend_from_slice(&FloatStorage::Bf16.encode(&[rng.f32(lo, hi)])[..2])
            }
            Fill::Below(m) => out
                .extend_from_slice(&((rng.next_u64() % u64::from(m.max(1))) as u32).to_le_bytes()),
        }
    }
    out.truncate(n);
    out
}

/// `Ok` when equal under `cmp`; else where and what.
pub fn compare(cmp: Cmp, ours: &[u8], theirs: &[u8]) -> Result<(), String> {
    let ulps = |a: i64, b: i64, nan_a: bool, nan_b: bool, n: u32| {
        if nan_a || nan_b {
            nan_a && nan_b
        } else {
            (a - b).unsigned_abs() <= u64::from(n)
        }
    };
    match cmp {
        Cmp::Exact => match ours.iter().zip(theirs).position(|(a, b)| a != b) {
            None => Ok(()),
            Some(i) => {
                let w = i / 4 * 4;
                Err(format!(
                    "byte {i} (word {}: ours {:02x?}, glslang {:02x?})",
                    i / 4,
                    &ours[w..(w + 4).min(ours.len())],
                    &theirs[w..(w + 4).min(theirs.len())]
                ))
            }
        },
        Cmp::F32Ulps(n) => {
            for (i, (a, b)) in ours.chunks(4).zip(theirs.chunks(4)).enumerate() {
                let (a, b) = (
                    f32::from_le_bytes(a.try_into().unwrap()),
                    f32::from_le_bytes(b.try_into().unwrap()),
                );
                if !ulps(ordered32(a), ordered32(b), a.is_nan(), b.is_nan(), n) {
                    return Err(format!("f32 element {i}: ours {a:e}, glslang {b:e}"));
                }
            }
            Ok(())
        }
        Cmp::F16Ulps(n) => halves(ours, theirs, n, "f16", |h| f16::from_bits(h).to_f32()),
        Cmp::Bf16Ulps(n) => halves(ours, theirs, n, "bf16", |h| {
            f32::from_bits(u32::from(h) << 16)
        }),
    }
}

/// Compares 16-bit floats (sign and magnitude, as fp16 and bf16 are) within
/// `n` ulps; `value` reads one as an f32 for NaN and the message.
fn halves(
    ours: &[u8],
    theirs: &[u8],
    n: u32,
    what: &str,
    value: fn(u16) -> f32,
) -> Result<(), String> {
    for (i, (a, b)) in ours.chunks(2).zip(theirs.chunks(2)).enumerate() {
        let (a, b) = (
            u16::from_le_bytes(a.try_into().unwrap()),
            u16::from_le_bytes(b.try_into().unwrap()),
        );
        let (fa, fb) = (value(a), value(b));
        let close = if fa.is_nan() || fb.is_nan() {
            fa.is_nan() && fb.is_nan()
        } else {
            (ordered16(a) - ordered16(b)).unsigned_abs() <= u64::from(n)
        };
        if !close {
            return Err(format!("{what} element {i}: ours {fa:e}, glslang {fb:e}"));
        }
    }
    Ok(())
}

/// The bits of `v` as an integer that counts ulps across zero.
fn ordered32(v: f32) -> i64 {
    let b = v.to_bits() as i32;
    i64::from(if b < 0 { i32::MIN - b } else { b })
}

/// The same for the bits of a 16-bit float.
fn ordered16(bits: u16) -> i64 {
    let b = bits as i16;
    i64::from(if b < 0 { i16::MIN - b } else { b })
}
