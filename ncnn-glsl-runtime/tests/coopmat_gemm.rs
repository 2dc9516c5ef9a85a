//! The cooperative-matrix GEMM of the corpus (`tests/corpus/gemm_coopmat_pack4.comp`),
//! built as a set at test time and run in every mode the device runs: for
//! each mode of the set, the variant the runtime selects, each distinct
//! blob once. That is the plain tiled variant where the device has no
//! `VK_KHR_cooperative_matrix` (Debian 12's lavapipe), the
//! cooperative-matrix one where it has (an NVIDIA GPU; Mesa 26's lavapipe,
//! which CI runs it on too: `.ci/lavapipe-coopmat`), with M, N, K from the
//! device's shapes.
//!
//! Every output element is checked against a host reference computed in
//! f64 from the same inputs (A exact in every storage, B fp16), at sizes
//! with ragged GM and GN; glslang's blob of the same finished text runs on
//! the same inputs and our output must equal its output byte for byte.
//! glslang 12 does not know `GL_KHR_cooperative_matrix`: for that variant,
//! without a glslang able to compile it, the comparison is skipped with a
//! note unless `NCNN_REQUIRE_GLSLANG=1`; for the plain variant a glslang
//! failure fails the test under `CI`.
//! `NCNN_REQUIRE_COOPMAT=1` fails the test where the device runs the plain
//! variant in any mode.

use std::sync::Arc;

use half::f16;
use ncnn_glsl_core::variant::{Variant, VariantSet, UNDEFINED};
use ncnn_glsl_core::Flag;
use ncnn_glsl_runtime::{
    Blob, Buffer, Context, ContextOptions, Dispatch, FloatStorage, Pipeline, PipelineOptions,
    SpecValue,
};
use ncnn_glsl_testkit::coopmat::{device_shape, gemm_set, leak_built, GEMM};
use ncnn_glsl_testkit::differential::{glslang_blob, glslang_result, leak_set};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::rng::{fresh_seed, Rng};

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

/// One GEMM's inputs: A (GM x GK, values exact in fp32, fp16 and bf16),
/// B transposed (GN padded to a multiple of N rows, x GK, fp16), row-major.
struct Inputs {
    gm: usize,
    gn: usize,
    gk: usize,
    a: Vec<f32>,
    b: Vec<f16>,
}

fn inputs(rng: &mut Rng, gm: usize, gn: usize, gk: usize, n: usize) -> Inputs {
    let rows_b = gn.div_ceil(n) * n;
    // An fp16 value with its 3 low mantissa bits clear has at most 8
    // significant bits: bf16 holds it exactly too.
    let a = (0..gm * gk)
        .map(|_| f16::from_bits(f16::from_f32(rng.f32(-1.0, 1.0)).to_bits() & !7).to_f32())
        .collect();
    let b = (0..rows_b * gk)
        .map(|i| {
            if i / gk < gn {
                f16::from_f32(rng.f32(-1.0, 1.0))
            } else {
                f16::ZERO
            }
        })
        .collect();
    Inputs { gm, gn, gk, a, b }
}

/// The spacing of values at magnitude `x` with `bits` mantissa bits and the
/// smallest normal exponent `min_exp` (subnormal spacing below).
fn ulp(x: f64, bits: i32, min_exp: i32) -> f64 {
    let e = if x.abs() < 2f64.powi(min_exp) {
        min_exp
    } else {
        x.abs().log2().floor() as i32
    };
    2f64.powi(e - bits)
}

fn ulp16(x: f64) -> f64 {
    ulp(x, 10, -14)
}

/// How one variant computes: what it stores, whether on cooperative
/// matrices, whether its plain loop sums in fp16.
#[derive(Clone, Copy)]
struct Kind {
    storage: FloatStorage,
    coop: bool,
    fp16_sum: bool,
}

/// Every element of `top` (GM x GN in `kind.storage`) against the f64
/// reference.
fn check(inp: &Inputs, kind: Kind, top: &[u8], what: &str, seed: u64) {
    let (gm, gn, gk) = (inp.gm, inp.gn, inp.gk);
    let top = kind.storage.decode(top, gm * gn).expect("top is GM x GN");
    let mut bad = Vec::new();
    for m in 0..gm {
        for n in 0..gn {
            let mut sum = 0f64;
            let mut abs = 0f64;
            for k in 0..gk {
                let p = f64::from(inp.a[m * gk + k]) * inp.b[n * gk + k].to_f64();
                sum += p;
                abs += p.abs();
            }
            let got = f64::from(top[m * gn + n]);
            let at = sum.abs().max(got.abs());
            // The output's rounding: one ulp of the storage (round to
            // nearest gives half of one, a conversion toward zero up to
            // one), plus one of fp16 where the matrix result goes through
            // fp16 first.
            let out = match kind.storage {
                FloatStorage::F32 => ulp(at, 23, -126),
                FloatStorage::F16 => ulp16(at),
                FloatStorage::Bf16 => ulp(at, 7, -126),
            } + if kind.coop { ulp16(at) } else { 0.0 };
            // The accumulation's: fp32, GK additions of at most 2^-24
            // relative each; the plain loop in fp16 arithmetic rounds each
            // dot of four to fp16 and adds GK / 4 of them in fp16. Doubled.
            let acc = if kind.fp16_sum {
                2.0 * (gk / 4 + 1) as f64 * 2f64.powi(-11) * abs
            } else {
                2.0 * gk as f64 * 2f64.powi(-24) * abs
            };
            let tol = out + acc;
            if got.is_nan() || (got - sum).abs() > tol {
                bad.push(format!(
                    "[{m}][{n}] = {got}, reference {sum} (tolerance {tol:e})"
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{what}: {} of {} elements off; replay with NCNN_SEED={seed}; first: {:?}",
        bad.len(),
        gm * gn,
        &bad[..bad.len().min(8)]
    );
}

/// A pipeline of `blob` for one launch configuration.
struct Launch {
    local: [u32; 3],
    spec: Vec<(u32, SpecValue)>,
}

fn launch(blob: &Blob, coop: bool, (m, n, k): (u32, u32, u32), subgroup: u32) -> Launch {
    let listed = blob.reflection().spec_constants.clone();
    let spec = [(18, m), (19, n), (20, k), (21, subgroup)]
        .into_iter()
        .filter(|(id, _)| listed.iter().any(|s| s.id == *id))
        .map(|(id, v)| (id, SpecValue::Uint(v)))
        .collect();
    Launch {
        local: [if coop { subgroup } else { 64 }, 1, 1],
        spec,
    }
}

/// Runs `blob` on the inputs; returns top's bytes.
fn run(
    ctx: &Arc<Context>,
    blob: &Blob,
    l: &Launch,
    kind: Kind,
    (m, n): (u32, u32),
    inp: &Inputs,
) -> Vec<u8> {
    let p = Pipeline::new(
        ctx,
        GEMM,
        blob,
        &PipelineOptions {
            local_size: Some(l.local),
            specialization: &l.spec,
        },
    )
    .unwrap_or_else(|e| panic!("pipeline: {e}"));
    let (gm, gn, gk) = (inp.gm as u32, inp.gn as u32, inp.gk as u32);
    let a_bytes = kind.storage.encode(&inp.a);
    let mut a = Buffer::new(ctx, a_bytes.len() as u64).unwrap();
    a.write(&a_bytes).unwrap();
    let b_bytes: Vec<u8> = inp.b.iter().flat_map(|h| h.to_le_bytes()).collect();
    let mut b = Buffer::new(ctx, b_bytes.len() as u64).unwrap();
    b.write(&b_bytes).unwrap();
    let top_bytes = kind.storage.buffer_bytes((gm * gn) as usize);
    let mut top = Buffer::new(ctx, top_bytes as u64).unwrap();
    // Poison: NaN in every storage, so an element not written fails.
    top.write(&vec![0xff; top_bytes]).unwrap();
    let push: Vec<u8> = [gm as i32, gn as i32, gk as i32]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let groups = if kind.coop {
        [gn.div_ceil(n), gm.div_ceil(m), 1]
    } else {
        [(gn / 4).div_ceil(l.local[0]), gm, 1]
    };
    p.dispatch(&Dispatch::new(&[&a, &b, &top], &push, groups))
        .unwrap_or_else(|e| panic!("dispatch: {e}"));
    let mut out = vec![0u8; top_bytes];
    top.read(&mut out).unwrap();
    out
}

fn env_on(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// What the device runs for each mode of `set`: the variant
/// [`Context::select`] picks for every set of options the set was built
/// with, each distinct blob once, in the set's order.
fn device_variants(ctx: &Context, set: &'static VariantSet) -> Vec<&'static Variant> {
    let mut chosen: Vec<&'static Variant> = Vec::new();
    for v in set.variants() {
        let choice = ctx
            .select(set, v.target.options, &[])
            .unwrap_or_else(|e| panic!("no variant for {}: {e}", v.target));
        if !chosen
            .iter()
            .any(|c| std::ptr::eq(c.blob, choice.variant.blob))
        {
            chosen.push(choice.variant);
        }
    }
    chosen
}

#[test]
fn coopmat_gemm_matches_the_reference_and_glslang_in_every_mode() {
    let built = gemm_set();
    let set = leak_built(&built, GEMM);
    GpuTest::new(ContextOptions {
        variant_sets: vec![set],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let caps = ctx.caps();
        let variants = device_variants(ctx, set);
        let subgroup = caps.property("subgroupSize").unwrap_or(32) as u32;
        println!(
            "device {} (driver {}), subgroup size {subgroup}: {} distinct variants",
            caps.name,
            caps.driver_version,
            variants.len()
        );
        // A run meant for the matrix variants (`.ci/lavapipe-coopmat`, a
        // GPU) must not pass on the plain ones.
        if env_on("NCNN_REQUIRE_COOPMAT") {
            for v in &variants {
                assert!(
                    !v.blob.reflection().cooperative_matrices.is_empty(),
                    "NCNN_REQUIRE_COOPMAT is set, but the device runs the plain variant for {}",
                    v.target
                );
            }
        }

        // glslang's blob of each variant's finished text.
        let mut theirs: Vec<Option<&'static Blob>> = Vec::new();
        for variant in &variants {
            let coop = !variant.blob.reflection().cooperative_matrices.is_empty();
            let index = built
                .variants
                .iter()
                .position(|v| v.key.target == variant.target && v.key.axes == variant.axes)
                .expect("the selected variant is the built set's");
            let text = &built.texts[built.variants[index].text];
            theirs.push(match glslang_result(text) {
                Some(Ok(words)) => {
                    // SAFETY: the shader guards every row and column it
                    // reads and writes with GM, GN, GK, and the buffers are
                    // sized for them (B padded to whole tiles of N rows).
                    Some(unsafe { glslang_blob(words, variant.blob.reflection()) })
                }
                why => {
                    let why = match why {
                        Some(Err(e)) => format!("glslang rejects the text: {e}"),
                        _ => "no glslangValidator".to_string(),
                    };
                    if !coop && env_on("CI") {
                        panic!("the plain variant must compile with glslang under CI: {why}");
                    }
                    if coop && env_on("NCNN_REQUIRE_GLSLANG") {
                        panic!("NCNN_REQUIRE_GLSLANG is set, but {why}");
                    }
                    println!("{}: glslang comparison not run: {why}", variant.target);
                    None
                }
            });
        }
        // A context that enables what glslang's blobs need too (its
        // messages go to the test's log).
        let compared: Vec<Variant> = variants
            .iter()
            .zip(&theirs)
            .filter_map(|(v, t)| {
                t.map(|blob| Variant {
                    target: v.target,
                    axes: &[],
                    blob,
                })
            })
            .collect();
        let run_ctx = if compared.is_empty() {
            ctx.clone()
        } else {
            gpu.open(ContextOptions {
                variant_sets: vec![set, leak_set(leak(compared))],
                ..gpu.options()
            })
            .unwrap_or_else(|e| panic!("second context: {e}"))
        };

        let seed = fresh_seed();
        let mut rng = Rng::new(seed);
        for (variant, theirs) in variants.iter().zip(&theirs) {
            let opts = variant.target.options;
            let coop = !variant.blob.reflection().cooperative_matrices.is_empty();
            let kind = Kind {
                storage: FloatStorage::of(opts),
                coop,
                fp16_sum: !coop && opts.has(Flag::Fp16Arithmetic),
            };
            let shape = if coop {
                device_shape(caps).unwrap_or_else(|| {
                    panic!(
                        "{}: the cooperative-matrix variant was selected, but the device lists \
                         no fp16/fp16/fp32/fp32 subgroup shape: {:?}",
                        caps.name, caps.cooperative_matrix_shapes
                    )
                })
            } else {
                (16, 16, 16)
            };
            let axes: Vec<String> = set
                .axes
                .iter()
                .zip(variant.axes)
                .map(|(a, &v)| match v {
                    UNDEFINED => format!("{}=undefined", a.name),
                    v => format!("{}={v}", a.name),
                })
                .collect();
            println!(
                "variant {} {axes:?} ({}, {:?} storage), M/N/K {shape:?}",
                variant.target,
                if coop { "cooperative matrix" } else { "plain" },
                kind.storage,
            );
            let (m, n, k) = shape;
            let kq = (k as usize).max(4) * 4 / gcd(k as usize, 4);
            let sizes = [
                (m as usize, n as usize, 2 * kq),
                (
                    m as usize + 7,
                    5 * n as usize / 2 + 4 - (5 * n as usize / 2) % 4,
                    3 * kq,
                ),
                (3 * m as usize - 3, 6 * n as usize + 4, 5 * kq),
            ];
            let l = launch(variant.blob, coop, shape, subgroup);
            for (gm, gn, gk) in sizes {
                assert!(gn % 4 == 0 && gk % 4 == 0 && gk % k as usize == 0);
                let inp = inputs(&mut rng, gm, gn, gk, n as usize);
                let what = format!("{} GM {gm} GN {gn} GK {gk}", variant.target);
                let ours = run(&run_ctx, variant.blob, &l, kind, (m, n), &inp);
                check(&inp, kind, &ours, &format!("{what}, ours"), seed);
                let equal = theirs.map(|blob| {
                    let out = run(&run_ctx, blob, &l, kind, (m, n), &inp);
                    check(&inp, kind, &out, &format!("{what}, glslang's"), seed);
                    out == ours
                });
                println!(
                    "  GM {gm} GN {gn} GK {gk}: matches the reference; bit-equal to glslang: {}",
                    equal.map_or("not compared".to_string(), |e| e.to_string())
                );
                if let Some(false) = equal {
                    panic!(
                        "{what}: our output differs from glslang's; replay with NCNN_SEED={seed}"
                    );
                }
            }
        }
        gpu.assert_clean();
    });
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
