//! ncnn's layers run as ncnn runs them, against f64 references.
//!
//! A layer case reads what the layer's `*_vulkan.cpp` in ncnn does for one
//! configuration: which of ncnn's shaders it runs (unmodified, from the
//! folder `NCNN_SHADER_DIR` names), with which specialization constants, push
//! constants, local size and workgroups, on which blobs in ncnn's packed
//! layout. It returns a [`Run`]: the buffers, the steps, and the values each
//! output must hold (from an f64 reference written from the layer's
//! definition), with a tolerance each.
//!
//! [`suite`] compiles every shader a case names for every mode the device
//! offers (ncnn's default options included, so the local-memory variants
//! run), each distinct finished text once, opens one validated context for
//! all of them, runs every case in every mode on fresh random inputs, and
//! fails with the case, the mode, the worst error and the seed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ncnn_glsl_core::variant::build::left_out_of;
use ncnn_glsl_core::variant::select::fallback_order;
use ncnn_glsl_core::{CompileOptions, ExpandOptions, FsLoader, SourceFile};
use ncnn_glsl_runtime::{
    group_counts, Blob, Buffer, BufferRange, ContextOptions, DeviceCaps, Dispatch, Flag,
    FloatStorage, LocalSizeLimits, NcnnMat, Options, Pipeline, PipelineOptions, Sequence,
    SpecValue, Target, Variant,
};

mod glslang;

pub use glslang::GLSLANG_VAR;

use crate::differential::{leak_blob, leak_set};
use crate::gpu::GpuTest;
use crate::rng::Rng;

/// The environment variable naming ncnn's shader folder
/// (`src/layer/vulkan/shader` of an ncnn checkout).
pub const SHADER_DIR_VAR: &str = "NCNN_SHADER_DIR";

/// The byte every output buffer holds before a run: NaN in fp32, fp16 and
/// bf16, so an element a layer forgets is an error.
pub const POISON: u8 = 0xff;

/// One mode a layer runs in: the target its shaders are expanded for and
/// how `sfp` values are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Options and device bits.
    pub target: Target,
}

impl Mode {
    /// How the mode stores `sfp` values.
    pub fn storage(&self) -> FloatStorage {
        FloatStorage::of(self.target.options)
    }

    /// Bytes of one stored scalar.
    pub fn scalar_bytes(&self) -> u32 {
        self.storage().element_bytes() as u32
    }

    /// Whether `afp` arithmetic is fp16.
    pub fn fp16_arithmetic(&self) -> bool {
        self.target.options.has(Flag::Fp16Arithmetic)
    }

    /// Whether the layer picks its local-memory shaders (ncnn's
    /// `opt.use_shader_local_memory`).
    pub fn local_memory(&self) -> bool {
        self.target.options.has(Flag::ShaderLocalMemory)
    }

    /// The relative rounding unit of a stored value.
    pub fn storage_eps(&self) -> f64 {
        match self.storage() {
            FloatStorage::F32 => f64::from(f32::EPSILON),
            FloatStorage::F16 => 1.0 / 1024.0,
            FloatStorage::Bf16 => 1.0 / 128.0,
        }
    }

    /// The relative rounding unit of `afp` arithmetic.
    pub fn arith_eps(&self) -> f64 {
        if self.fp16_arithmetic() {
            1.0 / 1024.0
        } else {
            f64::from(f32::EPSILON)
        }
    }

    /// The tolerance for an output `want` whose computation summed terms of
    /// total magnitude `mag` (`|want|` for an element-wise result): a few
    /// arithmetic units of `mag`, one stored unit of `want` twice over, and a
    /// floor for results near zero.
    pub fn tol(&self, want: f64, mag: f64) -> f64 {
        8.0 * self.arith_eps() * mag + 2.0 * self.storage_eps() * want.abs() + 1e-6
    }

    /// [`Mode::tol`] for an output computed through values the layer keeps
    /// in the mode's storage on the way (partial sums, coefficients in an
    /// `sfp` blob): one more stored unit of `stored`, their magnitude.
    pub fn tol_stored(&self, want: f64, mag: f64, stored: f64) -> f64 {
        self.tol(want, mag) + self.storage_eps() * stored
    }

    /// The value the storage holds for `x`.
    pub fn round(&self, x: f32) -> f32 {
        self.storage().round(x)
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.target)
    }
}

/// A logical tensor: `c` channels of `d` x `h` x `w` values (dims 1 to 4),
/// in that order, before ncnn packs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// `[w]`, `[w, h]`, `[w, h, c]` or `[w, h, d, c]`.
    pub shape: Vec<u32>,
    /// The values, `w` fastest.
    pub values: Vec<f32>,
}

impl Tensor {
    /// A tensor of `shape` with values from `f`, each rounded to the mode's
    /// storage (so the reference sees what the shader loads).
    pub fn random(shape: &[u32], mode: &Mode, rng: &mut Rng, lo: f32, hi: f32) -> Tensor {
        let n: u32 = shape.iter().product();
        Tensor {
            shape: shape.to_vec(),
            values: (0..n).map(|_| mode.round(rng.f32(lo, hi))).collect(),
        }
    }

    /// Extents as `[w, h, d, c]`.
    pub fn whdc(&self) -> [u32; 4] {
        whdc(&self.shape)
    }

    /// The value at `(x, y, z, q)`.
    pub fn at(&self, x: u32, y: u32, z: u32, q: u32) -> f32 {
        let [w, h, d, _] = self.whdc();
        self.values[(((q * d + z) * h + y) * w + x) as usize]
    }
}

/// The extents of a logical `shape` as `[w, h, d, c]`.
pub fn whdc(shape: &[u32]) -> [u32; 4] {
    match *shape {
        [w] => [w, 1, 1, 1],
        [w, h] => [w, h, 1, 1],
        [w, h, c] => [w, h, 1, c],
        [w, h, d, c] => [w, h, d, c],
        _ => panic!("a tensor has 1 to 4 dimensions"),
    }
}

/// ncnn's packing of a tensor: the outermost axis (`w` in one dimension,
/// `h` in two, `c` in three and four) in groups of `elempack`.
pub fn packed_mat(shape: &[u32], elempack: u32, mode: &Mode) -> NcnnMat {
    let mut packed = shape.to_vec();
    let last = packed.len() - 1;
    assert_eq!(packed[last] % elempack, 0, "{shape:?} packs by {elempack}");
    packed[last] /= elempack;
    NcnnMat::new(&packed, elempack, mode.scalar_bytes()).expect("a blob's shape")
}

/// The scalar index in an ncnn blob `m` (of a tensor of `shape`) of the
/// logical element `(x, y, z, q)`, `q` the unpacked channel (or the
/// unpacked outermost axis).
pub fn packed_index(m: &NcnnMat, x: u32, y: u32, z: u32, q: u32) -> usize {
    let p = m.elempack;
    let (x, y, z, q, lane) = match m.dims {
        1 => (x / p, y, z, 0, x % p),
        2 => (x, y / p, z, 0, y % p),
        _ => (x, y, z, q / p, q % p),
    };
    let plane = u64::from(m.w) * u64::from(m.h);
    let element = u64::from(q) * m.cstep()
        + u64::from(z) * plane
        + u64::from(y) * u64::from(m.w)
        + u64::from(x);
    (element * u64::from(p) + u64::from(lane)) as usize
}

/// A tensor in ncnn's layout `m`: the scalars of the whole blob, padding 0.
pub fn pack(t: &Tensor, m: &NcnnMat) -> Vec<f32> {
    let mut out = vec![0.0; (m.total() * u64::from(m.elempack)) as usize];
    let [w, h, d, c] = t.whdc();
    for q in 0..c {
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    out[packed_index(m, x, y, z, q)] = t.at(x, y, z, q);
                }
            }
        }
    }
    out
}

/// The checks of an output blob `m` of logical shape `shape`: every element
/// against `want(x, y, z, q)`, which gives the reference and the magnitude
/// of its terms ([`Mode::tol`]).
pub fn expect_blob(
    mode: &Mode,
    buffer: usize,
    m: &NcnnMat,
    shape: &[u32],
    want: impl Fn(u32, u32, u32, u32) -> (f64, f64),
) -> Expect {
    expect_blob_tol(buffer, m, shape, |x, y, z, q| {
        let (v, mag) = want(x, y, z, q);
        (v, mode.tol(v, mag))
    })
}

/// [`expect_blob`] with `want` giving the reference and its tolerance.
pub fn expect_blob_tol(
    buffer: usize,
    m: &NcnnMat,
    shape: &[u32],
    want: impl Fn(u32, u32, u32, u32) -> (f64, f64),
) -> Expect {
    let [w, h, d, c] = whdc(shape);
    let mut points = Vec::new();
    for q in 0..c {
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let (v, tol) = want(x, y, z, q);
                    points.push((packed_index(m, x, y, z, q), v, tol));
                }
            }
        }
    }
    Expect { buffer, points }
}

/// What a buffer holds before the run.
#[derive(Clone, Debug)]
pub enum Data {
    /// `sfp` scalars, stored as the mode stores them.
    Floats(Vec<f32>),
    /// 32-bit words (integers, or floats a shader always reads as `float`).
    Words(Vec<u32>),
    /// [`POISON`] bytes: an output.
    Poison(u64),
}

/// One dispatch of a run.
#[derive(Clone, Debug)]
pub struct Step {
    /// ncnn's shader file, in the shader folder.
    pub shader: &'static str,
    /// The local size the layer sets.
    pub local_size: [u32; 3],
    /// The layer's specialization constants.
    pub spec: Vec<(u32, SpecValue)>,
    /// The layer's push constants, as 32-bit words.
    pub push: Vec<u32>,
    /// The buffers bound, in binding order: an index into [`Run::buffers`]
    /// and the range bound (`None`: the whole buffer).
    pub bind: Vec<(usize, Option<BufferRange>)>,
    /// Workgroups (ncnn's dispatcher shape divided by the local size).
    pub groups: [u32; 3],
}

impl Step {
    /// A dispatch of `shader` binding the whole buffers `bind`, over ncnn's
    /// dispatcher shape `dispatcher` (its workgroups: [`group_counts`]).
    pub fn new(
        shader: &'static str,
        local_size: [u32; 3],
        spec: Vec<(u32, SpecValue)>,
        push: Vec<u32>,
        bind: &[usize],
        dispatcher: [u32; 3],
    ) -> Step {
        Step {
            shader,
            local_size,
            spec,
            push,
            bind: bind.iter().map(|&b| (b, None)).collect(),
            groups: group_counts(dispatcher, local_size),
        }
    }
}

/// The values a buffer must hold after the run.
#[derive(Clone, Debug)]
pub struct Expect {
    /// The index into [`Run::buffers`].
    pub buffer: usize,
    /// Scalar index (in the mode's storage for [`Data::Floats`] and
    /// [`Data::Poison`]), reference value, tolerance.
    pub points: Vec<(usize, f64, f64)>,
}

/// One layer configuration in one mode.
#[derive(Clone, Debug)]
pub struct Run {
    /// For messages: the layer and its configuration.
    pub name: String,
    /// The buffers.
    pub buffers: Vec<Data>,
    /// The dispatches, in order.
    pub steps: Vec<Step>,
    /// The checks.
    pub expect: Vec<Expect>,
    /// Byte ranges of buffers that must keep their bytes (around a blob
    /// bound at an offset): buffer index, range.
    pub untouched: Vec<(usize, std::ops::Range<u64>)>,
}

/// What a case knows of the device.
#[derive(Clone, Debug)]
pub struct Device {
    /// The device's description.
    pub caps: DeviceCaps,
    /// Its local-size limits and subgroup size.
    pub limits: LocalSizeLimits,
    /// `minStorageBufferOffsetAlignment`.
    pub offset_alignment: u64,
}

/// A layer case: its name and the function that builds its runs in a mode
/// (several configurations each).
pub type Case = (&'static str, fn(&Device, &Mode, &mut Rng) -> Vec<Run>);

/// ncnn's shader folder from [`SHADER_DIR_VAR`]; `None` (with a note) when
/// the variable is unset. A folder named but missing fails.
pub fn shader_dir() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os(SHADER_DIR_VAR) else {
        eprintln!("note: skipped: {SHADER_DIR_VAR} names no ncnn shader folder");
        return None;
    };
    let dir = PathBuf::from(dir);
    assert!(
        dir.join("relu.comp").is_file(),
        "{SHADER_DIR_VAR}={} holds no relu.comp: not ncnn's shader folder",
        dir.display()
    );
    Some(dir)
}

/// The option sets the suite asks for, each narrowed to the device: fp32,
/// the fp16 and bf16 storages with and without fp16 arithmetic, each with
/// and without local memory, and ncnn's defaults.
fn wanted_modes() -> Vec<Options> {
    let mut out = Vec::new();
    for flags in [
        &[][..],
        &[Flag::Fp16Packed],
        &[Flag::Fp16Packed, Flag::Fp16Arithmetic],
        &[Flag::Fp16Packed, Flag::Fp16Storage],
        &[Flag::Fp16Packed, Flag::Fp16Storage, Flag::Fp16Arithmetic],
        &[Flag::Bf16Packed],
    ] {
        let o = Options::from_flags(flags);
        out.push(o);
        out.push(o.with(Flag::ShaderLocalMemory));
    }
    out.push(Options::NCNN_DEFAULT);
    out
}

/// The distinct modes the device runs for [`wanted_modes`]. Local memory
/// is kept where asked for even on a device ncnn would not use it on (a
/// CPU's, lavapipe): it needs no device feature, and its shaders are the
/// ones that depend on the local size.
pub fn modes(caps: &DeviceCaps) -> Vec<Mode> {
    let mut out: Vec<Mode> = Vec::new();
    for o in wanted_modes() {
        let mut target = Target::for_device(o, caps);
        if o.has(Flag::ShaderLocalMemory) {
            target.options = target.options.with(Flag::ShaderLocalMemory);
        }
        let m = Mode { target };
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}

/// ncnn's `shader` from `dir`, expanded for `mode` on the device: its
/// finished text.
fn expand(dir: &Path, shader: &str, mode: &Mode, caps: &DeviceCaps) -> ncnn_glsl_core::Expanded {
    let path = dir.join(shader);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let source = SourceFile {
        name: path.display().to_string(),
        path: Some(path.clone()),
        text,
    };
    let options = ExpandOptions::include([dir.to_path_buf()]);
    ncnn_glsl_core::expand(source, &mode.target, Some(caps), &FsLoader, &options)
        .unwrap_or_else(|d| panic!("{shader} in {mode}: expansion failed:\n{d}"))
}

/// The blob ncnn's `shader` runs in `mode`: its own, or where naga cannot
/// express the mode's definitions of the names it uses
/// (`compile/inexpressible.rs`), that of the first mode of the fallback
/// order that stores the same bytes, as a variant set picks it. The
/// fallback keeps the storage and the local-memory choice the run was
/// built for.
fn blob_for(
    dir: &Path,
    shader: &str,
    mode: &Mode,
    caps: &DeviceCaps,
) -> (Mode, String, &'static Blob) {
    let same = |t: &Target| {
        FloatStorage::of(t.options) == mode.storage()
            && t.options.has(Flag::ShaderLocalMemory) == mode.local_memory()
    };
    // The order starts with the mode itself.
    for target in fallback_order(mode.target).into_iter().filter(same) {
        let m = Mode { target };
        let e = expand(dir, shader, &m, caps);
        if left_out_of(&e).is_none() {
            return (m, e.text().to_string(), compiled(shader, &m, &e));
        }
    }
    panic!("{shader} in {mode}: no mode of the fallback order that stores the same bytes compiles");
}

/// The blob of a finished text, compiled once per test binary (the tests of
/// a binary share shaders, and modes often expand to the same text).
fn compiled(shader: &str, mode: &Mode, e: &ncnn_glsl_core::Expanded) -> &'static Blob {
    static BLOBS: Mutex<BTreeMap<String, &'static Blob>> = Mutex::new(BTreeMap::new());
    let key = e.text().to_string();
    if let Some(b) = BLOBS.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return b;
    }
    let c = ncnn_glsl_core::compile(e, &CompileOptions::default())
        .unwrap_or_else(|d| panic!("{shader} in {mode}: compile failed:\n{d}"));
    // SAFETY: our compiler's words, with every buffer access clamped to its
    // binding; the reflection is the compiler's own.
    let blob = unsafe { leak_blob(c.spirv, c.reflection) };
    BLOBS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(key)
        .or_insert(blob)
}

/// The device's description, read once per test binary: the modes and
/// what the cases size depend on it, and the context that runs them must
/// enable what their blobs need. `None` where the harness found no device
/// (and said why).
fn device() -> Option<Device> {
    static DEVICE: Mutex<Option<Option<Device>>> = Mutex::new(None);
    let mut cached = DEVICE.lock().unwrap_or_else(|p| p.into_inner());
    if cached.is_none() {
        let mut device = None;
        GpuTest::new(ContextOptions::default()).run(|gpu| {
            let ctx = gpu.ctx();
            device = Some(Device {
                caps: ctx.caps().clone(),
                limits: ctx.local_size_limits(),
                offset_alignment: ctx.limits().min_storage_buffer_offset_alignment,
            });
        });
        *cached = Some(device);
    }
    cached.clone().flatten()
}

/// Runs every case in every mode the device offers; panics with a table of
/// the failures (case, mode, worst error, seed). With [`GLSLANG_VAR`] set,
/// glslang's blobs run too and both are timed (`glslang.rs`).
pub fn suite(cases: &[Case]) {
    let Some(dir) = shader_dir() else {
        return;
    };
    let Some(device) = device() else {
        return;
    };
    let modes = modes(&device.caps);
    let mut rng = Rng::fresh();
    let seed = rng.seed();
    eprintln!(
        "ncnn layers: {} cases, modes {}; seed {seed} (NCNN_SEED={seed} replays it)",
        cases.len(),
        modes
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut runs: Vec<(Mode, Run)> = Vec::new();
    for (_, case) in cases {
        for mode in &modes {
            for run in case(&device, mode, &mut rng) {
                runs.push((*mode, run));
            }
        }
    }
    let versus = glslang::wanted();
    // Each (shader, mode) expanded once; identical finished texts share a blob.
    let mut blobs: BTreeMap<(String, String), &'static Blob> = BTreeMap::new();
    let mut theirs: BTreeMap<(String, String), &'static Blob> = BTreeMap::new();
    let mut variants: Vec<Variant> = Vec::new();
    for (mode, run) in &runs {
        for step in &run.steps {
            let key = (step.shader.to_string(), mode.to_string());
            if blobs.contains_key(&key) {
                continue;
            }
            let (ran, text, blob) = blob_for(&dir, step.shader, mode, &device.caps);
            let mut made = vec![blob];
            if versus.is_some() {
                let their = glslang::blob(&text, blob);
                theirs.insert(key.clone(), their);
                made.push(their);
            }
            blobs.insert(key, blob);
            for blob in made {
                variants.push(Variant {
                    target: ran.target,
                    axes: &[],
                    blob,
                });
            }
        }
    }
    let mut distinct: Vec<*const Blob> = blobs.values().map(|b| *b as *const Blob).collect();
    distinct.sort();
    distinct.dedup();
    eprintln!(
        "ncnn layers: {} runs, {} shader modes, {} distinct blobs",
        runs.len(),
        blobs.len(),
        distinct.len()
    );
    let set = leak_set(Box::leak(variants.into_boxed_slice()));
    let mut failures: Vec<String> = Vec::new();
    let mut worst: BTreeMap<String, f64> = BTreeMap::new();
    let mut times: Vec<glslang::Row> = Vec::new();
    let (mut pipeline_ms, mut result_ms) = (Vec::new(), Vec::new());
    let reps = if versus.is_some() { glslang::REPS } else { 0 };
    GpuTest::new(ContextOptions {
        variant_sets: vec![set],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        // A run whose blobs and storage another mode already ran is that
        // run again: the modes differ only in what its shaders do not use.
        let mut ran: Vec<(String, FloatStorage, Vec<*const Blob>)> = Vec::new();
        for (mode, run) in &runs {
            let blob = |s: &Step| blobs[&(s.shader.to_string(), mode.to_string())];
            let key = (
                run.name.clone(),
                mode.storage(),
                run.steps.iter().map(|s| blob(s) as *const Blob).collect(),
            );
            if ran.contains(&key) {
                continue;
            }
            ran.push(key);
            let layer = run.name.split(' ').next().unwrap_or("").to_string();
            let ours = match execute(gpu.ctx(), mode, run, blob, reps) {
                Ok(r) => {
                    let w = worst.entry(format!("{layer} {mode}")).or_insert(0.0);
                    *w = w.max(r.worst);
                    pipeline_ms.extend(r.pipeline_ms);
                    result_ms.push(r.result_ms);
                    r.gpu_ns
                }
                Err(e) => {
                    failures.push(format!("{} in {mode}: {e}", run.name));
                    Vec::new()
                }
            };
            gpu.assert_clean();
            if versus.is_none() {
                continue;
            }
            let their = |s: &Step| theirs[&(s.shader.to_string(), mode.to_string())];
            match execute(gpu.ctx(), mode, run, their, reps) {
                Ok(r) if !r.gpu_ns.is_empty() && !ours.is_empty() => times.push(glslang::Row {
                    layer,
                    mode: mode.to_string(),
                    ours: glslang::median(ours),
                    theirs: glslang::median(r.gpu_ns),
                }),
                Ok(_) => {}
                Err(e) => failures.push(format!("{} in {mode}, glslang's blob: {e}", run.name)),
            }
            gpu.assert_clean();
        }
    });
    for (k, v) in &worst {
        eprintln!("  {k}: worst error / tolerance {v:.3}");
    }
    if !result_ms.is_empty() {
        let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        eprintln!(
            "ncnn layers: {} pipelines made, median {:.2} ms, max {:.2} ms; a run's first result \
             (pipelines, upload, dispatches, read back) median {:.2} ms, max {:.2} ms",
            pipeline_ms.len(),
            glslang::median(pipeline_ms.clone()),
            max(&pipeline_ms),
            glslang::median(result_ms.clone()),
            max(&result_ms)
        );
    }
    if let Some(path) = &versus {
        let name = format!(
            "{} (driver version {:#x})",
            device.caps.name, device.caps.driver_version
        );
        glslang::write(path, &name, &times);
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs failed (NCNN_SEED={seed}):\n{}",
        failures.len(),
        runs.len(),
        failures.join("\n")
    );
}

/// What one execution of a [`Run`] measured.
struct Ran {
    /// The worst error over its tolerance.
    worst: f64,
    /// GPU ns of each of the `reps` further submissions of its dispatches
    /// (none where the queue has no timestamps).
    gpu_ns: Vec<f64>,
    /// Wall ms of each `Pipeline::new`.
    pipeline_ms: Vec<f64>,
    /// Wall ms from the first buffer made to the outputs read back: the
    /// time to a first result of precompiled shaders.
    result_ms: f64,
}

/// Runs one [`Run`] and checks it, then submits its dispatches `reps`
/// more times; or what failed.
fn execute(
    ctx: &std::sync::Arc<ncnn_glsl_runtime::Context>,
    mode: &Mode,
    run: &Run,
    blob: impl Fn(&Step) -> &'static Blob,
    reps: usize,
) -> Result<Ran, String> {
    let start = std::time::Instant::now();
    let s = mode.storage();
    let mut buffers = Vec::new();
    let mut before = Vec::new();
    for d in &run.buffers {
        let bytes = match d {
            Data::Floats(v) => s.encode(v),
            Data::Words(w) => w.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::Poison(n) => vec![POISON; *n as usize],
        };
        let mut b = Buffer::new(ctx, bytes.len() as u64).map_err(|e| e.to_string())?;
        b.write(&bytes).map_err(|e| e.to_string())?;
        buffers.push(b);
        before.push(bytes);
    }
    let mut pipelines = Vec::new();
    let mut pipeline_ms = Vec::new();
    for step in &run.steps {
        let options = PipelineOptions {
            local_size: Some(step.local_size),
            specialization: &step.spec,
        };
        let made = std::time::Instant::now();
        let p = Pipeline::new(ctx, step.shader, blob(step), &options)
            .map_err(|e| format!("{}: {e}", step.shader))?;
        pipeline_ms.push(made.elapsed().as_secs_f64() * 1e3);
        pipelines.push(p);
    }
    submit(ctx, run, &pipelines, &buffers)?;
    let mut after = Vec::new();
    for b in buffers.iter_mut() {
        let mut out = vec![0u8; b.size() as usize];
        b.read(&mut out).map_err(|e| e.to_string())?;
        after.push(out);
    }
    let result_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut worst = 0.0f64;
    for ex in &run.expect {
        let bytes = &after[ex.buffer];
        let values = match run.buffers[ex.buffer] {
            Data::Words(_) => bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            _ => s
                .decode(bytes, bytes.len() / s.element_bytes())
                .ok_or("an output shorter than its elements")?,
        };
        for &(i, want, tol) in &ex.points {
            let got = f64::from(
                *values
                    .get(i)
                    .ok_or(format!("element {i} past the buffer"))?,
            );
            let err = (got - want).abs();
            // NaN fails too: `err <= tol` is false for it.
            if err.is_nan() || err > tol {
                return Err(format!(
                    "buffer {} element {i}: {got} where the reference is {want} (tolerance {tol:.3e})",
                    ex.buffer
                ));
            }
            worst = worst.max(err / tol);
        }
    }
    for (b, r) in &run.untouched {
        let (lo, hi) = (r.start as usize, r.end as usize);
        if after[*b][lo..hi] != before[*b][lo..hi] {
            return Err(format!(
                "buffer {b} changed in bytes {r:?}, outside what the layer binds"
            ));
        }
    }
    let mut gpu_ns = Vec::new();
    for _ in 0..reps {
        if let Some(ns) = submit(ctx, run, &pipelines, &buffers)? {
            gpu_ns.push(ns);
        }
    }
    Ok(Ran {
        worst,
        gpu_ns,
        pipeline_ms,
        result_ms,
    })
}

/// Records `run`'s dispatches on `pipelines` and `buffers` into one
/// sequence and runs it: the GPU ns of its dispatches, where the queue has
/// timestamps.
fn submit(
    ctx: &std::sync::Arc<ncnn_glsl_runtime::Context>,
    run: &Run,
    pipelines: &[Pipeline],
    buffers: &[Buffer],
) -> Result<Option<f64>, String> {
    let binds: Vec<(Vec<&Buffer>, Vec<BufferRange>, Vec<u8>)> = run
        .steps
        .iter()
        .map(|step| {
            let bufs = step.bind.iter().map(|(i, _)| &buffers[*i]).collect();
            let ranges = step
                .bind
                .iter()
                .map(|(i, r)| r.unwrap_or(BufferRange::new(0, buffers[*i].size())))
                .collect();
            let push = step.push.iter().flat_map(|w| w.to_le_bytes()).collect();
            (bufs, ranges, push)
        })
        .collect();
    let mut seq = Sequence::new(ctx);
    for ((step, p), (bufs, ranges, push)) in run.steps.iter().zip(pipelines).zip(&binds) {
        seq.dispatch(
            p,
            Dispatch::new(bufs, push, step.groups).with_ranges(ranges),
        )
        .map_err(|e| format!("{}: {e}", step.shader))?;
    }
    let stats = seq.run().map_err(|e| e.to_string())?;
    Ok(stats.iter().map(|s| s.gpu_ns).sum())
}

/// Specialization constants `0..` of `values`, in order.
pub fn spec(values: &[SpecValue]) -> Vec<(u32, SpecValue)> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u32, *v))
        .collect()
}
