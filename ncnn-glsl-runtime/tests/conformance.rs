//! Conformance of the extension's functions on a real device (lavapipe in
//! CI): small shaders that call each function, compiled by the core for each
//! mode naga and the device allow, run under the validation layer, and every
//! output byte compared with a CPU model of the spec (`conformance_model`).
//!
//! Fresh random inputs each run (the seed is printed on failure); every
//! output buffer is poisoned before the dispatch with the complement of what
//! it should hold, so an element that is not written fails.
//!
//! Modes not run, and why (each is asserted, so a change shows up):
//! - int8s, int8s+int8a, int16s, int16p with `shaderInt16`, bf16p with
//!   16-bit storage and `shaderInt16`: naga's GLSL frontend has no 8- or
//!   16-bit integer types, so the core refuses them (and variant sets leave
//!   them out for shaders that use those names, `compile/inexpressible.rs`).
//! - bf16s: naga has no bfloat16 types (and lavapipe no `shaderBFloat16Type`).
//!
//! fp16s+fp16a with `shaderInt64` and `shaderInt16` runs: its `lfpvec4` is
//! `f16vec4` (ncnn's `uint64_t`, which naga cannot declare).
//! - `psc` with a non-default specialization constant: naga bakes spec
//!   constants at their defaults (the reflection lists them), and the runtime
//!   has no way to specialize them; `psc` is checked with the defaults. In
//!   ncnn's order (constants before the push-constant block) the core
//!   refuses `psc` (naga's block-member scoping); the push block goes first.
//!
//! Contention: where elements share a 32-bit word, many invocations store
//! the neighbouring elements of the same words in one dispatch and no store
//! may be lost. A plain read-modify-write control shows the test can fail: on
//! lavapipe (2 cores) it loses every other (2 lanes) or 3 of 4 (4 lanes)
//! stores when the writers are neighbours in one subgroup (run as SIMD lanes),
//! and none, measured, when they are in different workgroups (the race window
//! between threads is too small to hit here); the rates are printed.
//! - The spec has no 8-wide (`buffer_ld8`, ...) forms.

mod conformance_model;

use std::sync::Arc;

use conformance_model as m;
use conformance_model::FloatStorage;
use ncnn_glsl_core::variant::{Usage, Variant, VariantSet};
use ncnn_glsl_core::{compile, expand, CompileOptions, MemoryLoader, SourceFile};
use ncnn_glsl_runtime::{
    Blob, Buffer, Context, ContextOptions, DeviceBits, Dispatch, Options, Pipeline,
    PipelineOptions, Target,
};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::Rng;

/// One output buffer: elements of `size` bytes, each allowed two values
/// (equal where the spec gives one result).
struct Out {
    size: usize,
    want: Vec<[u32; 2]>,
    /// Elements no invocation writes: they keep the poison.
    untouched: Vec<usize>,
}

impl Out {
    fn exact(size: usize, want: Vec<u32>) -> Out {
        Out {
            size,
            want: want.into_iter().map(|w| [w, w]).collect(),
            untouched: Vec::new(),
        }
    }

    fn mask(&self) -> u32 {
        if self.size == 4 {
            u32::MAX
        } else {
            (1u32 << (8 * self.size)) - 1
        }
    }

    /// The complement of the first allowed value, element by element.
    fn poison(&self) -> Vec<u8> {
        let elems: Vec<u32> = self.want.iter().map(|w| !w[0] & self.mask()).collect();
        m::to_bytes(&elems, self.size)
    }
}

/// A buffer of a dispatch: input bytes, or an output to check.
enum Io {
    In(Vec<u8>),
    Out(&'static str, Out),
}

/// A shader compiled for one target, or why not.
struct Built {
    target: Target,
    blob: Result<&'static Blob, String>,
}

fn target(mode: &str, bits: Option<(bool, bool, bool, bool)>) -> Target {
    let options: Options = mode.parse().unwrap();
    let mut t = Target::for_mode(options);
    if let Some((s16, u16, i16, i64)) = bits {
        t.bits = DeviceBits {
            storage16: s16,
            uniform16: u16,
            int16: i16,
            int64: i64,
        };
    }
    t
}

fn build(name: &str, text: &str, targets: &[Target]) -> Vec<Built> {
    targets
        .iter()
        .map(|&t| {
            let src = SourceFile {
                name: name.to_string(),
                path: None,
                text: text.to_string(),
            };
            let expanded = expand(src, &t, None, &MemoryLoader::default(), &Default::default())
                .unwrap_or_else(|d| panic!("{name} {t}: expand failed:\n{d}"));
            let blob = match compile(&expanded, &CompileOptions::default()) {
                // SAFETY: our compiler's words and reflection.
                Ok(c) => Ok(&*Box::leak(Box::new(unsafe {
                    Blob::new(Box::leak(c.spirv.into_boxed_slice()), c.reflection)
                }))),
                Err(d) => Err(d.0.first().map(|d| d.message.clone()).unwrap_or_default()),
            };
            Built { target: t, blob }
        })
        .collect()
}

/// Options for a context whose device enables every feature the built blobs need.
fn options(name: &'static str, built: &[Built]) -> ContextOptions {
    let variants: Vec<Variant> = built
        .iter()
        .filter_map(|b| {
            b.blob.as_ref().ok().map(|blob| Variant {
                target: b.target,
                axes: &[],
                blob,
            })
        })
        .collect();
    let set: &'static VariantSet = Box::leak(Box::new(VariantSet::new(
        name,
        Usage {
            float: true,
            int8: true,
            int16: true,
            macros: Options::FP32,
        },
        &[],
        Box::leak(variants.into_boxed_slice()),
    )));
    ContextOptions {
        variant_sets: vec![set],
        ..ContextOptions::default()
    }
}

/// Runs `blob` over `io` and checks every output byte; `Err` lists the
/// mismatches (the first few of each buffer) and how many elements matched
/// only the second allowed value is printed.
fn run(
    ctx: &Arc<Context>,
    what: &str,
    blob: &Blob,
    io: &[Io],
    push: &[u8],
    groups: u32,
) -> Result<(), String> {
    let (_, errors) = run_counting(ctx, what, blob, io, push, groups)?;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// [`run`] for a family whose only push constant is its element count `n`,
/// one invocation per element in workgroups of 64.
fn run_elements(
    ctx: &Arc<Context>,
    what: &str,
    blob: &Blob,
    io: &[Io],
    n: usize,
) -> Result<(), String> {
    run(ctx, what, blob, io, &push_i32(&[n as i32]), (n / 64) as u32)
}

/// [`run`], returning the number of wrong elements of each output and the
/// messages about them.
fn run_counting(
    ctx: &Arc<Context>,
    what: &str,
    blob: &Blob,
    io: &[Io],
    push: &[u8],
    groups: u32,
) -> Result<(Vec<usize>, Vec<String>), String> {
    let p =
        Pipeline::new(ctx, what, blob, &PipelineOptions::default()).map_err(|e| e.to_string())?;
    let mut bufs = Vec::new();
    for b in io {
        let bytes = match b {
            Io::In(bytes) => bytes.clone(),
            Io::Out(_, out) => out.poison(),
        };
        let mut buf = Buffer::new(ctx, bytes.len().max(4) as u64).map_err(|e| e.to_string())?;
        buf.write(&bytes).map_err(|e| e.to_string())?;
        bufs.push(buf);
    }
    let refs: Vec<&Buffer> = bufs.iter().collect();
    p.dispatch(&Dispatch::new(&refs, push, [groups, 1, 1]))
        .map_err(|e| e.to_string())?;
    let mut errors = Vec::new();
    let mut counts = Vec::new();
    for (b, buf) in io.iter().zip(bufs.iter_mut()) {
        let Io::Out(name, out) = b else { continue };
        let mut bytes = vec![0u8; out.want.len() * out.size];
        buf.read(&mut bytes).map_err(|e| e.to_string())?;
        let got = m::from_bytes(&bytes, out.size);
        let poison = m::from_bytes(&out.poison(), out.size);
        let mut bad = 0;
        let mut second = 0;
        for (i, (g, w)) in got.iter().zip(&out.want).enumerate() {
            let ok = if out.untouched.contains(&i) {
                *g == poison[i]
            } else {
                *g == w[0] || *g == w[1]
            };
            if !ok {
                if bad < 5 {
                    errors.push(format!(
                        "{what}: `{name}`[{i}] = {g:#x}, want {:#x}{}",
                        w[0],
                        if w[1] != w[0] {
                            format!(" or {:#x}", w[1])
                        } else {
                            String::new()
                        }
                    ));
                }
                bad += 1;
            } else if *g != w[0] && !out.untouched.contains(&i) {
                second += 1;
            }
        }
        counts.push(bad);
        if bad > 0 {
            errors.push(format!(
                "{what}: `{name}`: {bad} of {} elements wrong",
                got.len()
            ));
        }
        if second > 0 {
            eprintln!("{what}: `{name}`: {second} elements rounded toward zero (allowed for fp16)");
        }
    }
    Ok((counts, errors))
}

fn push_i32(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words_i32(v: &[i32]) -> Vec<u8> {
    push_i32(v)
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A random stored element: finite, never a subnormal (drivers may flush
/// those when they pass through arithmetic), sometimes zero.
fn random_elem(rng: &mut Rng, s: FloatStorage) -> u32 {
    let r = rng.next_u64();
    if r % 61 == 0 {
        return 0;
    }
    let sign = (r >> 8) & 1;
    match s {
        FloatStorage::F32 => {
            let exp = 1 + (r >> 9) % 254;
            ((sign << 31) | (exp << 23) | ((r >> 20) & 0x7f_ffff)) as u32
        }
        FloatStorage::F16 => {
            let exp = 1 + (r >> 9) % 30;
            ((sign << 15) | (exp << 10) | ((r >> 20) & 0x3ff)) as u32
        }
        FloatStorage::Bf16 => {
            let exp = 1 + (r >> 9) % 254;
            ((sign << 15) | (exp << 7) | ((r >> 20) & 0x7f)) as u32
        }
    }
}

/// A random fp32 value to store in `s`: for fp16, within the normal fp16
/// range (so neither overflow nor subnormal rules matter), with some values
/// exactly halfway between two fp16 numbers.
fn random_value(rng: &mut Rng, s: FloatStorage) -> f32 {
    let r = rng.next_u64();
    if r % 53 == 0 {
        return 0.0;
    }
    let sign = ((r >> 8) & 1) as u32;
    match s {
        FloatStorage::F32 | FloatStorage::Bf16 => {
            let exp = (1 + (r >> 9) % 253) as u32;
            f32::from_bits((sign << 31) | (exp << 23) | ((r >> 20) as u32 & 0x7f_ffff))
        }
        FloatStorage::F16 => {
            let exp = (127 - 14 + (r >> 9) % 30) as u32;
            let mut mant = (r >> 20) as u32 & 0x7f_ffff;
            if r % 7 == 0 {
                mant = (mant & !0x1fff) | 0x1000; // exactly halfway
            }
            let v = f32::from_bits((sign << 31) | (exp << 23) | mant);
            if v.abs() >= 65504.0 {
                65504.0f32.copysign(v)
            } else {
                v
            }
        }
    }
}

/// The targets that ran, and those that did not with the reason.
type Outcome = (Vec<String>, Vec<(String, String)>);

/// Runs every built target of a family; returns the modes that ran, and
/// panics with every failure (and the seed) at the end.
fn run_family(
    family: &'static str,
    built: &[Built],
    mut case: impl FnMut(&Arc<Context>, &Built, &'static Blob, &mut Rng) -> Result<(), String>,
) -> Option<Outcome> {
    let mut outcome = None;
    GpuTest::new(options(family, built)).run(|gpu| {
        let ctx = gpu.ctx();
        let mut rng = Rng::fresh();
        let seed = rng.seed();
        let mut ran = Vec::new();
        let mut refused = Vec::new();
        let mut failures = Vec::new();
        for b in built {
            match b.blob {
                Ok(blob) => {
                    let missing: Vec<String> = blob
                        .reflection()
                        .requirements
                        .features
                        .iter()
                        .filter(|f| !ctx.caps().feature(f))
                        .map(|f| f.to_string())
                        .collect();
                    if !missing.is_empty() {
                        refused.push((b.target.to_string(), format!("device lacks {missing:?}")));
                        continue;
                    }
                    match case(ctx, b, blob, &mut rng) {
                        Ok(()) => ran.push(b.target.to_string()),
                        Err(e) => failures.push(format!("{family} {}:\n{e}", b.target)),
                    }
                }
                Err(ref e) => refused.push((b.target.to_string(), e.clone())),
            }
        }
        assert!(
            failures.is_empty(),
            "{} (seed {seed:#x})",
            failures.join("\n\n")
        );
        eprintln!("{family}: ran {ran:?}");
        for (t, why) in &refused {
            eprintln!("{family}: not run: {t}: {why}");
        }
        outcome = Some((ran, refused));
    });
    outcome
}

fn assert_modes(family: &str, ran: &[String], refused: &[(String, String)], want_ran: &[&str]) {
    for w in want_ran {
        assert!(
            ran.iter().any(|r| r == w),
            "{family}: {w} did not run; ran {ran:?}, refused {refused:?}"
        );
    }
    for (t, why) in refused {
        assert!(
            why.contains("naga's GLSL frontend has no"),
            "{family}: {t} refused for an unexpected reason: {why}"
        );
    }
}

// ---------------------------------------------------------------- float

const FLOAT: &str = r#"#version 450
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer s1_blob { sfp s1[]; };
layout (binding = 1) readonly buffer s2_blob { sfpvec2 s2[]; };
layout (binding = 2) readonly buffer s4_blob { sfpvec4 s4[]; };
layout (binding = 3) readonly buffer f1_blob { float f1[]; };
layout (binding = 4) writeonly buffer ld_blob { float o_ld[]; };
layout (binding = 5) buffer st1_blob { sfp d_st1[]; };
layout (binding = 6) writeonly buffer st2_blob { sfpvec2 d_st2[]; };
layout (binding = 7) writeonly buffer st4_blob { sfpvec4 d_st4[]; };
layout (binding = 8) buffer cp1_blob { sfp d_cp1[]; };
layout (binding = 9) writeonly buffer cp2_blob { sfpvec2 d_cp2[]; };
layout (binding = 10) writeonly buffer cp4_blob { sfpvec4 d_cp4[]; };
layout (binding = 11) writeonly buffer cp1to4_blob { sfpvec4 d_cp1to4[]; };
layout (binding = 12) buffer cp4to1_blob { sfp d_cp4to1[]; };
layout (push_constant) uniform parameter { int n; } p;

// A bijection of 0..n (n a power of two): a word's two elements come from
// invocations far apart.
int perm(int x) { return (x * 5 + 3) % p.n; }
int gath(int x) { return (x * 7 + 1) % p.n; }

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    afp x1 = buffer_ld1(s1, i);
    o_ld[i] = float(x1);
    buffer_st1(d_st1, i, f1[i]);
    buffer_cp1(d_cp1, perm(i), s1, i);
    if (i < p.n / 2)
    {
        afpvec2 x2 = buffer_ld2(s2, i);
        o_ld[p.n + 2 * i] = float(x2.x);
        o_ld[p.n + 2 * i + 1] = float(x2.y);
        buffer_st2(d_st2, i, vec2(f1[2 * i], f1[2 * i + 1]));
        buffer_cp2(d_cp2, p.n / 2 - 1 - i, s2, i);
    }
    if (i < p.n / 4)
    {
        afpvec4 x4 = buffer_ld4(s4, i);
        o_ld[2 * p.n + 4 * i] = float(x4.x);
        o_ld[2 * p.n + 4 * i + 1] = float(x4.y);
        o_ld[2 * p.n + 4 * i + 2] = float(x4.z);
        o_ld[2 * p.n + 4 * i + 3] = float(x4.w);
        buffer_st4(d_st4, i, vec4(f1[4 * i], f1[4 * i + 1], f1[4 * i + 2], f1[4 * i + 3]));
        buffer_cp4(d_cp4, p.n / 4 - 1 - i, s4, i);
        buffer_cp1to4(d_cp1to4, i, s1, ivec4(gath(4 * i), gath(4 * i + 1), gath(4 * i + 2), gath(4 * i + 3)));
        buffer_cp4to1(d_cp4to1, ivec4(perm(4 * i), perm(4 * i + 1), perm(4 * i + 2), perm(4 * i + 3)), s4, i);
    }
}
"#;

fn float_targets() -> Vec<Target> {
    let s16 = Some((true, false, false, false));
    vec![
        target("fp32", None),
        target("fp16p", None),
        target("fp16p+fp16a", None),
        target("fp16s", None),
        target("fp16s+fp16a", None),
        target("fp16s+fp16a", Some((true, false, true, true))),
        target("fp16s+fp16a+fp16u", None),
        target("bf16p", None),
        target("bf16p", s16),
        target("bf16p", Some((true, true, true, false))),
        target("bf16s", None),
        target("fp16p+fp16a+bf16p", None),
    ]
}

const FLOAT_MODES: &[&str] = &[
    "fp32",
    "fp16p",
    "fp16p+fp16a",
    "fp16s [S16]",
    "fp16s+fp16a [S16]",
    "fp16s+fp16a [S16 I16 I64]",
    "fp16s+fp16a+fp16u [S16 U16]",
    "bf16p",
    "bf16p [S16]",
    "fp16p+fp16a+bf16p",
];

fn float_case(ctx: &Arc<Context>, b: &Built, blob: &Blob, rng: &mut Rng) -> Result<(), String> {
    let n = 4096usize;
    let s = FloatStorage::of(b.target.options);
    let sz = s.bytes();
    let s1: Vec<u32> = (0..n).map(|_| random_elem(rng, s)).collect();
    let s2: Vec<u32> = (0..n).map(|_| random_elem(rng, s)).collect();
    let s4: Vec<u32> = (0..n).map(|_| random_elem(rng, s)).collect();
    let f1: Vec<f32> = (0..n).map(|_| random_value(rng, s)).collect();
    let dec = |e: &u32| s.decode(*e).to_bits();
    let perm = |x: usize| (x * 5 + 3) % n;
    let gath = |x: usize| (x * 7 + 1) % n;
    let ld: Vec<u32> = s1.iter().chain(&s2).chain(&s4).map(dec).collect();
    let st: Vec<[u32; 2]> = f1.iter().map(|v| s.encode(*v)).collect();
    let mut cp1 = vec![0; n];
    let mut cp4to1 = vec![0; n];
    for i in 0..n {
        cp1[perm(i)] = s1[i];
        cp4to1[perm(i)] = s4[i];
    }
    let cp2: Vec<u32> = (0..n)
        .map(|e| s2[(n / 2 - 1 - e / 2) * 2 + e % 2])
        .collect();
    let cp4: Vec<u32> = (0..n)
        .map(|e| s4[(n / 4 - 1 - e / 4) * 4 + e % 4])
        .collect();
    let cp1to4: Vec<u32> = (0..n).map(|e| s1[gath(e)]).collect();
    let st_out = |name| {
        Io::Out(
            name,
            Out {
                size: sz,
                want: st.clone(),
                untouched: vec![],
            },
        )
    };
    let io = [
        Io::In(m::to_bytes(&s1, sz)),
        Io::In(m::to_bytes(&s2, sz)),
        Io::In(m::to_bytes(&s4, sz)),
        Io::In(floats(&f1)),
        Io::Out("buffer_ld1/ld2/ld4", Out::exact(4, ld)),
        st_out("buffer_st1"),
        st_out("buffer_st2"),
        st_out("buffer_st4"),
        Io::Out("buffer_cp1", Out::exact(sz, cp1)),
        Io::Out("buffer_cp2", Out::exact(sz, cp2)),
        Io::Out("buffer_cp4", Out::exact(sz, cp4)),
        Io::Out("buffer_cp1to4", Out::exact(sz, cp1to4)),
        Io::Out("buffer_cp4to1", Out::exact(sz, cp4to1)),
    ];
    run_elements(ctx, &format!("float {}", b.target), blob, &io, n)
}

#[test]
fn buffer_functions_match_the_model_in_every_float_mode() {
    let built = build("conformance_float.comp", FLOAT, &float_targets());
    let Some((ran, refused)) = run_family("float", &built, float_case) else {
        return;
    };
    assert_modes("float", &ran, &refused, FLOAT_MODES);
}

// ---------------------------------------------------------------- local

const LOCAL: &str = r#"#version 450
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer s1_blob { sfp s1[]; };
layout (binding = 1) readonly buffer s4_blob { sfpvec4 s4[]; };
layout (binding = 2) readonly buffer f_blob { float f[]; };
layout (binding = 3) writeonly buffer o_blob { float o[]; };
layout (push_constant) uniform parameter { int n; } p;

shared lfp t1[64];
shared lfpvec4 t4[64];
shared lfp u1[64];
shared lfpvec4 u4[64];

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    const int l = int(gl_LocalInvocationID.x);
    const int n = p.n;
    t1[l] = buffer_sm1(s1, i);
    t4[l] = buffer_sm4(s4, i);
    u1[l] = afp2lfp(afp(f[i]));
    u4[l] = afp2lfpvec4(afpvec4(vec4(f[n + 4 * i], f[n + 4 * i + 1], f[n + 4 * i + 2], f[n + 4 * i + 3])));
    barrier();
    // The neighbour's slots: what it stored reaches this invocation.
    const int k = l ^ 1;
    o[i] = float(lfp2afp(t1[k]));
    afpvec4 v = lfp2afpvec4(t4[k]);
    o[n + 4 * i] = float(v.x);
    o[n + 4 * i + 1] = float(v.y);
    o[n + 4 * i + 2] = float(v.z);
    o[n + 4 * i + 3] = float(v.w);
    o[5 * n + i] = float(lfp2afp(u1[k]));
    afpvec4 w = lfp2afpvec4(u4[k]);
    o[6 * n + 4 * i] = float(w.x);
    o[6 * n + 4 * i + 1] = float(w.y);
    o[6 * n + 4 * i + 2] = float(w.z);
    o[6 * n + 4 * i + 3] = float(w.w);
}
"#;

fn local_case(ctx: &Arc<Context>, b: &Built, blob: &Blob, rng: &mut Rng) -> Result<(), String> {
    let n = 1024usize;
    let o = b.target.options;
    let s = FloatStorage::of(o);
    let sz = s.bytes();
    let s1: Vec<u32> = (0..n).map(|_| random_elem(rng, s)).collect();
    let s4: Vec<u32> = (0..4 * n).map(|_| random_elem(rng, s)).collect();
    // Values fp16 holds exactly (normal numbers), for every mode: the Vulkan
    // spec lets a driver drop an f32 -> f16 -> f32 pair ("Evaluation of
    // Expressions"; NVIDIA's does, docs/h200-fp16-rounding.md), so only
    // fp16-exact inputs make the local-memory path's result one value.
    let f: Vec<f32> = (0..5 * n)
        .map(|_| half::f16::from_f32(random_value(rng, FloatStorage::F16)).to_f32())
        .collect();
    let nb = |i: usize| i ^ 1;
    let mut want: Vec<[u32; 2]> = Vec::with_capacity(10 * n);
    for i in 0..n {
        let e = s.decode(s1[nb(i)]).to_bits();
        want.push([e, e]);
    }
    for i in 0..n {
        for k in 0..4 {
            let e = s.decode(s4[4 * nb(i) + k]).to_bits();
            want.push([e, e]);
        }
    }
    // afp2lfp then lfp2afp: through fp16 where afp is fp16, else exact.
    for i in 0..n {
        let v = f[nb(i)];
        want.push(if m::afp_is_half(o) {
            m::through_half(v)
        } else {
            [v.to_bits(); 2]
        });
    }
    // The vec4 local type is the storage format packed (fp16 halves, bf16
    // bits), or fp32 / f16vec4.
    for i in 0..n {
        for k in 0..4 {
            let v = f[n + 4 * nb(i) + k];
            want.push(match s {
                FloatStorage::F32 => [v.to_bits(); 2],
                FloatStorage::F16 => m::through_half(v),
                FloatStorage::Bf16 => [m::through_bf16(v); 2],
            });
        }
    }
    let io = [
        Io::In(m::to_bytes(&s1, sz)),
        Io::In(m::to_bytes(&s4, sz)),
        Io::In(floats(&f)),
        Io::Out(
            "buffer_sm1/sm4, lfp2afp*, afp2lfp*",
            Out {
                size: 4,
                want,
                untouched: vec![],
            },
        ),
    ];
    run_elements(ctx, &format!("local {}", b.target), blob, &io, n)
}

#[test]
fn local_memory_functions_match_the_model() {
    let built = build("conformance_local.comp", LOCAL, &float_targets());
    let Some((ran, refused)) = run_family("local", &built, local_case) else {
        return;
    };
    assert_modes("local", &ran, &refused, FLOAT_MODES);
}

// ---------------------------------------------------------------- int8

const INT8: &str = r#"#version 450
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer a_blob { sint8 a[]; };
layout (binding = 1) readonly buffer a4_blob { sint8vec4 a4[]; };
layout (binding = 2) readonly buffer v_blob { int v[]; };
layout (binding = 3) readonly buffer f_blob { float f[]; };
layout (binding = 4) writeonly buffer o_blob { int o[]; };
layout (binding = 5) buffer st1_blob { sint8 d_st1[]; };
layout (binding = 6) writeonly buffer st4_blob { sint8vec4 d_st4[]; };
layout (binding = 7) buffer cp1_blob { sint8 d_cp1[]; };
layout (binding = 8) writeonly buffer cp4_blob { sint8vec4 d_cp4[]; };
layout (binding = 9) writeonly buffer cp1to4_blob { sint8vec4 d_cp1to4[]; };
layout (binding = 10) buffer cp4to1_blob { sint8 d_cp4to1[]; };
layout (binding = 11) writeonly buffer q_blob { int q[]; };
layout (push_constant) uniform parameter { int n; } p;

int perm(int x) { return (x * 5 + 3) % p.n; }
int gath(int x) { return (x * 7 + 1) % p.n; }

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    const int n = p.n;
    if (i >= n)
        return;
    o[i] = i8buffer_ld1(a, i);
    i8buffer_st1(d_st1, i, v[i]);
    i8buffer_cp1(d_cp1, perm(i), a, i);
    ivec2 u2 = unpackInt2x16(v[i]);
    q[i] = packInt2x16(ivec2(v[(i + 1) % n], v[(i + 2) % n]));
    q[n + 2 * i] = u2.x;
    q[n + 2 * i + 1] = u2.y;
    q[3 * n + i] = float2int8(f[i]);
    if (i < n / 4)
    {
        ivec4 x = i8buffer_ld4(a4, i);
        o[n + 4 * i] = x.x;
        o[n + 4 * i + 1] = x.y;
        o[n + 4 * i + 2] = x.z;
        o[n + 4 * i + 3] = x.w;
        o[2 * n + i] = int(i8buffer_sm4(a4, i));
        i8buffer_st4(d_st4, i, ivec4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]));
        i8buffer_cp4(d_cp4, n / 4 - 1 - i, a4, i);
        i8buffer_cp1to4(d_cp1to4, i, a, ivec4(gath(4 * i), gath(4 * i + 1), gath(4 * i + 2), gath(4 * i + 3)));
        i8buffer_cp4to1(d_cp4to1, ivec4(perm(4 * i), perm(4 * i + 1), perm(4 * i + 2), perm(4 * i + 3)), a4, i);
        q[4 * n + i] = packInt4x8(ivec4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]));
        ivec4 u4 = unpackInt4x8(v[i]);
        q[5 * n + 4 * i] = u4.x;
        q[5 * n + 4 * i + 1] = u4.y;
        q[5 * n + 4 * i + 2] = u4.z;
        q[5 * n + 4 * i + 3] = u4.w;
        ivec4 r = float2int8vec4(vec4(f[n + 4 * i], f[n + 4 * i + 1], f[n + 4 * i + 2], f[n + 4 * i + 3]));
        q[6 * n + 4 * i] = r.x;
        q[6 * n + 4 * i + 1] = r.y;
        q[6 * n + 4 * i + 2] = r.z;
        q[6 * n + 4 * i + 3] = r.w;
    }
}
"#;

/// float2int8 inputs: halfway cases, saturation, the largest float below
/// one half, and random values.
fn float2int8_input(rng: &mut Rng) -> f32 {
    let r = rng.next_u64();
    let k = (r >> 8) as i64 % 300 - 150;
    match r % 6 {
        0 => k as f32 + 0.5,
        1 => k as f32 - 0.5,
        2 => 0.49999997f32.copysign(k as f32),
        3 => rng.f32(-1e6, 1e6),
        _ => rng.f32(-140.0, 140.0),
    }
}

fn int8_case(ctx: &Arc<Context>, b: &Built, blob: &Blob, rng: &mut Rng) -> Result<(), String> {
    let n = 4096usize;
    let a: Vec<u32> = (0..n).map(|_| rng.next_u32() & 0xff).collect();
    let a4: Vec<u32> = (0..n).map(|_| rng.next_u32() & 0xff).collect();
    // Wider than 8 bits: stores keep the low 8 bits.
    let v: Vec<i32> = (0..n)
        .map(|_| match rng.next_u64() % 3 {
            0 => (rng.next_u64() as i32) >> 8,
            _ => (rng.next_u64() % 256) as i32 - 128,
        })
        .collect();
    let f: Vec<f32> = (0..2 * n).map(|_| float2int8_input(rng)).collect();
    let sx = |e: u32| i32::from(e as u8 as i8) as u32;
    let perm = |x: usize| (x * 5 + 3) % n;
    let gath = |x: usize| (x * 7 + 1) % n;
    let mut o: Vec<u32> = a.iter().map(|e| sx(*e)).collect();
    o.extend(a4.iter().map(|e| sx(*e)));
    o.extend(m::from_bytes(&m::to_bytes(&a4, 1), 4));
    let st1: Vec<u32> = v.iter().map(|x| *x as u32 & 0xff).collect();
    let mut cp1 = vec![0; n];
    let mut cp4to1 = vec![0; n];
    for i in 0..n {
        cp1[perm(i)] = a[i];
        cp4to1[perm(i)] = a4[i];
    }
    let cp4: Vec<u32> = (0..n)
        .map(|e| a4[(n / 4 - 1 - e / 4) * 4 + e % 4])
        .collect();
    let cp1to4: Vec<u32> = (0..n).map(|e| a[gath(e)]).collect();
    let mut q = vec![0u32; 7 * n];
    for i in 0..n {
        q[i] = m::pack_int2x16([v[(i + 1) % n], v[(i + 2) % n]]) as u32;
        let u = m::unpack_int2x16(v[i]);
        q[n + 2 * i] = u[0] as u32;
        q[n + 2 * i + 1] = u[1] as u32;
        q[3 * n + i] = m::float2int8(f[i]) as u32;
    }
    for i in 0..n / 4 {
        q[4 * n + i] = m::pack_int4x8([v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]]) as u32;
        for (k, x) in m::unpack_int4x8(v[i]).iter().enumerate() {
            q[5 * n + 4 * i + k] = *x as u32;
        }
        for k in 0..4 {
            q[6 * n + 4 * i + k] = m::float2int8(f[n + 4 * i + k]) as u32;
        }
    }
    // q[4n + n/4 .. 5n) is never written.
    let untouched: Vec<usize> = (4 * n + n / 4..5 * n).collect();
    let io = [
        Io::In(m::to_bytes(&a, 1)),
        Io::In(m::to_bytes(&a4, 1)),
        Io::In(words_i32(&v)),
        Io::In(floats(&f)),
        Io::Out("i8buffer_ld1/ld4/sm4", Out::exact(4, o)),
        Io::Out("i8buffer_st1", Out::exact(1, st1.clone())),
        Io::Out("i8buffer_st4", Out::exact(1, st1)),
        Io::Out("i8buffer_cp1", Out::exact(1, cp1)),
        Io::Out("i8buffer_cp4", Out::exact(1, cp4)),
        Io::Out("i8buffer_cp1to4", Out::exact(1, cp1to4)),
        Io::Out("i8buffer_cp4to1", Out::exact(1, cp4to1)),
        Io::Out(
            "packInt2x16/unpackInt2x16/float2int8/packInt4x8/unpackInt4x8/float2int8vec4",
            Out {
                size: 4,
                want: q.iter().map(|x| [*x, *x]).collect(),
                untouched,
            },
        ),
    ];
    run_elements(ctx, &format!("int8 {}", b.target), blob, &io, n)
}

#[test]
fn int8_functions_and_packing_helpers_match_the_model() {
    let targets = [
        target("fp32", None),
        target("int8p", None),
        target("int8p+int8a", None),
        target("int8s", None),
        target("int8s+int8a", None),
    ];
    let built = build("conformance_int8.comp", INT8, &targets);
    let Some((ran, refused)) = run_family("int8", &built, int8_case) else {
        return;
    };
    assert_modes("int8", &ran, &refused, &["fp32", "int8p", "int8p+int8a"]);
}

// ---------------------------------------------------------------- int16

const INT16: &str = r#"#version 450
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer a_blob { sint16 a[]; };
layout (binding = 1) readonly buffer a4_blob { sint16vec4 a4[]; };
layout (binding = 2) readonly buffer v_blob { int v[]; };
layout (binding = 3) writeonly buffer o_blob { int o[]; };
layout (binding = 4) buffer st1_blob { sint16 d_st1[]; };
layout (binding = 5) buffer st2_blob { sint16 d_st2[]; };
layout (binding = 6) buffer st2o_blob { sint16 d_st2o[]; };
layout (binding = 7) writeonly buffer st4_blob { sint16vec4 d_st4[]; };
layout (push_constant) uniform parameter { int n; } p;

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    const int n = p.n;
    if (i >= n)
        return;
    o[i] = int(i16buffer_ld1(a, i));
    i16buffer_st1(d_st1, i, v[i]);
    o[4 * n + i] = int(lint162aint16(v[i]));
    if (i < n / 2)
    {
        ivec2 x = ivec2(i16buffer_ld2(a, 2 * i));
        o[n + 2 * i] = x.x;
        o[n + 2 * i + 1] = x.y;
        i16buffer_st2(d_st2, 2 * i, ivec2(v[2 * i], v[2 * i + 1]));
        // Odd offsets: the pair straddles two words, each shared with a neighbour.
        if (2 * i + 2 < n)
            i16buffer_st2(d_st2o, 2 * i + 1, ivec2(v[2 * i + 1], v[2 * i + 2]));
    }
    if (i < n / 4)
    {
        ivec4 x = ivec4(i16buffer_ld4(a4, i));
        o[2 * n + 4 * i] = x.x;
        o[2 * n + 4 * i + 1] = x.y;
        o[2 * n + 4 * i + 2] = x.z;
        o[2 * n + 4 * i + 3] = x.w;
        ivec4 y = ivec4(lint162aint16vec4(i16buffer_sm4(a4, i)));
        o[3 * n + 4 * i] = y.x;
        o[3 * n + 4 * i + 1] = y.y;
        o[3 * n + 4 * i + 2] = y.z;
        o[3 * n + 4 * i + 3] = y.w;
        i16buffer_st4(d_st4, i, ivec4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]));
    }
}
"#;

fn int16_case(ctx: &Arc<Context>, b: &Built, blob: &Blob, rng: &mut Rng) -> Result<(), String> {
    let n = 4096usize;
    let packed = b.target.options.has(ncnn_glsl_runtime::Flag::Int16Packed);
    // Without int16p or int16s, sint16 is a plain `int` (spec section 5).
    let sz = if packed { 2 } else { 4 };
    let mask = if packed { 0xffff } else { u32::MAX };
    let a: Vec<i32> = (0..n)
        .map(|_| (rng.next_u64() % 65536) as i32 - 32768)
        .collect();
    let a4: Vec<i32> = (0..n)
        .map(|_| (rng.next_u64() % 65536) as i32 - 32768)
        .collect();
    let v: Vec<i32> = (0..n)
        .map(|_| (rng.next_u64() % 65536) as i32 - 32768)
        .collect();
    let bits = |x: &i32| *x as u32 & mask;
    let ab: Vec<u32> = a.iter().map(bits).collect();
    let a4b: Vec<u32> = a4.iter().map(bits).collect();
    let mut o: Vec<u32> = a.iter().map(|x| *x as u32).collect();
    o.extend(a.iter().map(|x| *x as u32));
    o.extend(a4.iter().map(|x| *x as u32));
    o.extend(a4.iter().map(|x| *x as u32));
    o.extend(v.iter().map(|x| *x as u32));
    let st: Vec<u32> = v.iter().map(bits).collect();
    let st2o = Out {
        size: sz,
        want: st.iter().map(|x| [*x, *x]).collect(),
        untouched: vec![0, n - 1],
    };
    let io = [
        Io::In(m::to_bytes(&ab, sz)),
        Io::In(m::to_bytes(&a4b, sz)),
        Io::In(words_i32(&v)),
        Io::Out(
            "i16buffer_ld1/ld2/ld4/sm4, lint162aint16*",
            Out::exact(4, o),
        ),
        Io::Out("i16buffer_st1", Out::exact(sz, st.clone())),
        Io::Out("i16buffer_st2 (even)", Out::exact(sz, st.clone())),
        Io::Out("i16buffer_st2 (odd)", st2o),
        Io::Out("i16buffer_st4", Out::exact(sz, st)),
    ];
    run_elements(ctx, &format!("int16 {}", b.target), blob, &io, n)
}

#[test]
fn int16_functions_match_the_model() {
    let targets = [
        target("fp32", None),
        target("int16p", None),
        target("int16p", Some((false, false, true, false))),
        target("int16s", None),
    ];
    let built = build("conformance_int16.comp", INT16, &targets);
    let Some((ran, refused)) = run_family("int16", &built, int16_case) else {
        return;
    };
    assert_modes("int16", &ran, &refused, &["fp32", "int16p"]);
}

// ---------------------------------------------------------------- psc

const PSC: &str = r#"#version 450
layout (local_size_x = 64) in;
// The push-constant block before the constants here; ncnn's order
// (constants first) is `psc_in_ncnn_order_reads_the_constants`.
layout (push_constant) uniform parameter { int a; int b; int n; } p;
layout (constant_id = 0) const int a = 0;
layout (constant_id = 1) const int b = 7;
layout (binding = 0) writeonly buffer o_blob { int o[]; };

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    o[2 * i] = psc(a) + i;
    o[2 * i + 1] = psc(b) + i;
}
"#;

/// `psc(x)`: the push constant where the specialization constant is 0, the
/// constant otherwise (at their defaults; specializations are covered by
/// `tests/repairs.rs`).
#[test]
fn psc_reads_the_push_constant_where_the_spec_constant_is_zero() {
    check_psc("conformance_psc.comp", PSC);
}

fn check_psc(name: &str, text: &str) {
    let built = build(name, text, &[target("fp32", None)]);
    let blob = *built[0]
        .blob
        .as_ref()
        .unwrap_or_else(|e| panic!("{name} did not compile: {e}"));
    let spec: Vec<(u32, String)> = blob
        .reflection()
        .spec_constants
        .iter()
        .map(|s| (s.id, s.name.to_string()))
        .collect();
    assert_eq!(spec, [(0, "a".to_string()), (1, "b".to_string())]);
    GpuTest::new(options("psc", &built)).run(|gpu| {
        let ctx = gpu.ctx();
        let mut rng = Rng::fresh();
        let seed = rng.seed();
        let n = 256usize;
        let pa = (rng.next_u64() % 100_000) as i32 + 8;
        let pb = -((rng.next_u64() % 100_000) as i32) - 1;
        let want: Vec<u32> = (0..n)
            .flat_map(|i| [(pa + i as i32) as u32, (7 + i as i32) as u32])
            .collect();
        let io = [Io::Out("psc", Out::exact(4, want))];
        run(
            ctx,
            "psc fp32",
            blob,
            &io,
            &push_i32(&[pa, pb, n as i32]),
            (n / 64) as u32,
        )
        .unwrap_or_else(|e| panic!("{e} (seed {seed:#x})"));
    });
}

// ---------------------------------------------------------------- contention

const CONTEND: &str = r#"#version 450
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer v_blob { uint v[]; };
layout (binding = 1) buffer d_blob { STORE_TYPE d[]; };
layout (push_constant) uniform parameter { int n; int spread; } p;

void main()
{
    const int g = int(gl_GlobalInvocationID.x);
    if (g >= p.n)
        return;
    // spread 0: element g, so a word's elements are written by neighbouring
    // invocations of one subgroup; spread 1: by invocations n / LANES apart,
    // in different workgroups, which lavapipe runs on different threads.
    const int per = p.n / LANES;
    const int e = p.spread == 0 ? g : (g % per) * LANES + g / per;
    STORE;
}
"#;

/// (what, mode, storage type, lanes per word, the store, element bytes).
const CONTENDED: &[(&str, &str, &str, usize, &str, usize)] = &[
    (
        "buffer_st1",
        "fp16p",
        "sfp",
        2,
        "buffer_st1(d, e, unpackHalf2x16(v[e]).x)",
        2,
    ),
    (
        "buffer_st1",
        "fp16p+fp16a",
        "sfp",
        2,
        "buffer_st1(d, e, unpackHalf2x16(v[e]).x)",
        2,
    ),
    (
        "buffer_st1",
        "bf16p",
        "sfp",
        2,
        "buffer_st1(d, e, uintBitsToFloat(v[e] << 16))",
        2,
    ),
    (
        "i8buffer_st1",
        "int8p",
        "sint8",
        4,
        "i8buffer_st1(d, e, int(v[e]))",
        1,
    ),
    (
        "i16buffer_st1",
        "int16p",
        "sint16",
        2,
        "i16buffer_st1(d, e, int(v[e]))",
        2,
    ),
];

/// The same lane stores as a plain read-modify-write of the word: the
/// control, which must lose stores for the test to mean anything.
const CONTROL: &[(&str, usize, &str, usize)] = &[
    (
        "plain read-modify-write, 2 lanes",
        2,
        "{ uint w = d[e / 2]; d[e / 2] = bitfieldInsert(w, v[e], (e % 2) * 16, 16); }",
        2,
    ),
    (
        "plain read-modify-write, 4 lanes",
        4,
        "{ uint w = d[e / 4]; d[e / 4] = bitfieldInsert(w, v[e], (e % 4) * 8, 8); }",
        1,
    ),
];

/// Random element bits that every store above keeps exactly: finite normal
/// fp16 / bf16, any byte, any 16 bits.
fn contended_value(rng: &mut Rng, what: &str, mode: &str, size: usize) -> u32 {
    let r = rng.next_u64();
    match (what, mode) {
        ("buffer_st1", "bf16p") => random_elem(rng, FloatStorage::Bf16),
        ("buffer_st1", _) => random_elem(rng, FloatStorage::F16),
        _ => (r as u32) & if size == 1 { 0xff } else { 0xffff },
    }
}

/// Lost stores of one dispatch of `blob` over `n` elements.
fn lost_stores(
    ctx: &Arc<Context>,
    what: &str,
    blob: &Blob,
    values: &[u32],
    size: usize,
    spread: i32,
) -> Result<usize, String> {
    let io = [
        Io::In(words_i32(
            &values.iter().map(|v| *v as i32).collect::<Vec<_>>(),
        )),
        Io::Out("d", Out::exact(size, values.to_vec())),
    ];
    let n = values.len();
    let (counts, _) = run_counting(
        ctx,
        what,
        blob,
        &io,
        &push_i32(&[n as i32, spread]),
        (n / 64) as u32,
    )?;
    Ok(counts[0])
}

#[test]
fn shared_word_stores_lose_no_concurrent_write_and_a_plain_store_does() {
    let n = 1usize << 18;
    let reps = 3;
    let text = |ty: &str, lanes: usize, store: &str| {
        CONTEND
            .replace("STORE_TYPE", ty)
            .replace("LANES", &lanes.to_string())
            .replace("STORE;", &format!("{store};"))
    };
    let mut built = Vec::new();
    for (what, mode, ty, lanes, store, _) in CONTENDED {
        let b = build(what, &text(ty, *lanes, store), &[target(mode, None)]).remove(0);
        assert!(b.blob.is_ok(), "{what} {mode}: {:?}", b.blob.err());
        built.push(b);
    }
    for (what, lanes, store, _) in CONTROL {
        built.push(build(what, &text("uint", *lanes, store), &[target("fp32", None)]).remove(0));
    }
    GpuTest::new(options("contention", &built)).run(|gpu| {
        let ctx = gpu.ctx();
        let mut rng = Rng::fresh();
        let seed = rng.seed();
        let mut failures = Vec::new();
        for (b, (what, mode, _, _, _, size)) in built.iter().zip(CONTENDED) {
            let blob = *b.blob.as_ref().unwrap();
            for spread in [0, 1] {
                for _ in 0..reps {
                    let values: Vec<u32> = (0..n)
                        .map(|_| contended_value(&mut rng, what, mode, *size))
                        .collect();
                    let lost = lost_stores(ctx, what, blob, &values, *size, spread)
                        .unwrap_or_else(|e| panic!("{e}"));
                    if lost > 0 {
                        failures.push(format!(
                            "{what} {mode} spread {spread}: {lost} of {n} stores lost"
                        ));
                    }
                }
            }
        }
        let mut control_lost = 0;
        for (b, (what, _, _, size)) in built[CONTENDED.len()..].iter().zip(CONTROL) {
            let blob = *b.blob.as_ref().unwrap();
            for spread in [0, 1] {
                let mut lost_runs = Vec::new();
                for _ in 0..reps {
                    let values: Vec<u32> = (0..n)
                        .map(|_| rng.next_u32() & if *size == 1 { 0xff } else { 0xffff })
                        .collect();
                    let lost = lost_stores(ctx, what, blob, &values, *size, spread)
                        .unwrap_or_else(|e| panic!("{e}"));
                    lost_runs.push(lost);
                    control_lost += lost;
                }
                eprintln!(
                    "control: {what}, spread {spread}: stores lost per run of {n}: {lost_runs:?}"
                );
            }
        }
        assert!(
            failures.is_empty(),
            "{} (seed {seed:#x})",
            failures.join("\n")
        );
        assert!(
            control_lost > 0,
            "the plain read-modify-write control lost no store in {} runs: this device does \
         not run a word's writers concurrently, so the test shows nothing here",
            reps * 2 * CONTROL.len()
        );
    });
}

/// ncnn declares the specialization constants before the push-constant
/// block, whose members naga puts into the global scope; the core moves the
/// constants after the block, so a bare `a` still reads the constant.
#[test]
fn psc_in_ncnn_order_reads_the_constants() {
    let text = PSC.replace(
        "layout (push_constant) uniform parameter { int a; int b; int n; } p;\n",
        "",
    );
    let text = text.replace(
        "layout (binding = 0)",
        "layout (push_constant) uniform parameter { int a; int b; int n; } p;\nlayout (binding = 0)",
    );
    assert!(text.find("constant_id = 0").unwrap() < text.find("push_constant").unwrap());
    check_psc("psc_ncnn_order.comp", &text);
}
