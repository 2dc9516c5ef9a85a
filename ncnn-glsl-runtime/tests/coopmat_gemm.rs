//! The cooperative-matrix GEMM of the corpus (`tests/corpus/gemm_coopmat_pack4.comp`),
//! built as a set at test time and run on the variant the device selects
//! for fp16 storage: the plain tiled variant where the device has no
//! `VK_KHR_cooperative_matrix` (lavapipe, CI), the cooperative-matrix one
//! where it has (an NVIDIA GPU), with M, N, K from the device's shapes.
//!
//! Every output element is checked against a host reference computed in
//! f64 from the same fp16 inputs, at sizes with ragged GM and GN; glslang's
//! blob of the same finished text runs on the same inputs and our output
//! must equal its output byte for byte. glslang 12 does not know
//! `GL_KHR_cooperative_matrix`: for that variant, without a glslang able to
//! compile it, the comparison is skipped with a note unless
//! `NCNN_REQUIRE_GLSLANG=1`; for the plain variant a glslang failure fails
//! the test under `CI`.

use std::sync::Arc;

use half::f16;
use ncnn_glsl_core::variant::{Variant, UNDEFINED};
use ncnn_glsl_core::Flag;
use ncnn_glsl_runtime::{
    Blob, Buffer, Context, ContextOptions, Dispatch, Options, Pipeline, PipelineOptions, SpecValue,
};
use ncnn_glsl_testkit::coopmat::{device_shape, gemm_set, leak_built, GEMM};
use ncnn_glsl_testkit::differential::{glslang_blob, glslang_result, leak_set};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::rng::{fresh_seed, Rng};

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

/// One GEMM's inputs: A (GM x GK), B transposed (GN padded to a multiple of
/// N rows, x GK), both fp16, row-major.
struct Inputs {
    gm: usize,
    gn: usize,
    gk: usize,
    a: Vec<f16>,
    b: Vec<f16>,
}

fn inputs(rng: &mut Rng, gm: usize, gn: usize, gk: usize, n: usize) -> Inputs {
    let rows_b = gn.div_ceil(n) * n;
    let a = (0..gm * gk)
        .map(|_| f16::from_f32(rng.f32(-1.0, 1.0)))
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

fn bytes(v: &[f16]) -> Vec<u8> {
    v.iter().flat_map(|h| h.to_le_bytes()).collect()
}

/// The spacing of fp16 values at magnitude `x` (subnormal spacing below).
fn ulp16(x: f64) -> f64 {
    let x = x.abs();
    if x < 2f64.powi(-14) {
        return 2f64.powi(-24);
    }
    2f64.powi(x.log2().floor() as i32 - 10)
}

/// Every element of `top` (GM x GN fp16) against the f64 reference.
fn check(inp: &Inputs, top: &[u8], what: &str, seed: u64) {
    let (gm, gn, gk) = (inp.gm, inp.gn, inp.gk);
    let mut bad = Vec::new();
    for m in 0..gm {
        for n in 0..gn {
            let mut sum = 0f64;
            let mut abs = 0f64;
            for k in 0..gk {
                let p = inp.a[m * gk + k].to_f64() * inp.b[n * gk + k].to_f64();
                sum += p;
                abs += p.abs();
            }
            let i = 2 * (m * gn + n);
            let got = f16::from_le_bytes([top[i], top[i + 1]]).to_f64();
            // The output is fp16: one ulp of it (round-to-nearest gives half
            // of one, a conversion toward zero up to one), at the larger of
            // the two magnitudes; plus the fp32 accumulation's rounding, GK
            // additions of at most 2^-24 relative each, doubled.
            let tol = ulp16(sum.abs().max(got.abs())) + 2.0 * gk as f64 * 2f64.powi(-24) * abs;
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
    coop: bool,
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
    let mut a = Buffer::new(ctx, 2 * inp.a.len() as u64).unwrap();
    a.write(&bytes(&inp.a)).unwrap();
    let mut b = Buffer::new(ctx, 2 * inp.b.len() as u64).unwrap();
    b.write(&bytes(&inp.b)).unwrap();
    let top_bytes = 2 * (gm * gn) as usize;
    let mut top = Buffer::new(ctx, top_bytes as u64).unwrap();
    // Poison: fp16 NaN everywhere, so an element not written fails.
    top.write(&vec![0xff; top_bytes]).unwrap();
    let push: Vec<u8> = [gm as i32, gn as i32, gk as i32]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let groups = if coop {
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

#[test]
fn coopmat_gemm_matches_the_reference_and_glslang() {
    let built = gemm_set();
    let set = leak_built(&built, GEMM);
    GpuTest::new(ContextOptions {
        variant_sets: vec![set],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let caps = ctx.caps();
        // fp16 storage (fp16s where the device has 16-bit storage, else
        // fp16p), fp32 arithmetic: the inputs and the output are fp16.
        let wanted = Options::from_flags(&[Flag::Fp16Packed, Flag::Fp16Storage]);
        let choice = ctx.select(set, wanted, &[]).unwrap();
        let variant = choice.variant;
        let opts = variant.target.options;
        assert!(
            opts.has(Flag::Fp16Packed) || opts.has(Flag::Fp16Storage),
            "the selected variant {} is not fp16 storage",
            variant.target
        );
        let coop = !variant.blob.reflection().cooperative_matrices.is_empty();
        let shape = if coop {
            device_shape(ctx.caps()).unwrap_or_else(|| {
                panic!(
                    "{}: the cooperative-matrix variant was selected, but the device lists no \
                     fp16/fp16/fp32/fp32 subgroup shape: {:?}",
                    caps.name, caps.cooperative_matrix_shapes
                )
            })
        } else {
            (16, 16, 16)
        };
        let subgroup = caps.property("subgroupSize").unwrap_or(32) as u32;
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
            "device {} (driver {}): variant {} {axes:?} ({}), M/N/K {:?}, subgroup size {subgroup}",
            caps.name,
            caps.driver_version,
            variant.target,
            if coop { "cooperative matrix" } else { "plain" },
            shape
        );

        // glslang's blob of the same finished text.
        let index = built
            .variants
            .iter()
            .position(|v| v.key.target == variant.target && v.key.axes == variant.axes)
            .expect("the selected variant is the built set's");
        let text = &built.texts[built.variants[index].text];
        let theirs: Option<&'static Blob> = match glslang_result(text) {
            Some(Ok(words)) => {
                // SAFETY: the shader guards every row and column it reads
                // and writes with GM, GN, GK, and the buffers are sized for
                // them (B padded to whole tiles of N rows).
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
                println!("glslang comparison not run: {why}");
                None
            }
        };
        // A context that enables what glslang's blob needs too (its messages
        // go to the test's log).
        let run_ctx = match theirs {
            Some(blob) => {
                let variants = leak(vec![Variant {
                    target: variant.target,
                    axes: &[],
                    blob,
                }]);
                gpu.open(ContextOptions {
                    variant_sets: vec![set, leak_set(variants)],
                    ..gpu.options()
                })
                .unwrap_or_else(|e| panic!("second context: {e}"))
            }
            None => ctx.clone(),
        };

        let seed = fresh_seed();
        let mut rng = Rng::new(seed);
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
            let what = format!("GM {gm} GN {gn} GK {gk}");
            let ours = run(&run_ctx, variant.blob, &l, coop, (m, n), &inp);
            check(&inp, &ours, &format!("{what}, ours"), seed);
            let equal = theirs.map(|blob| {
                let out = run(&run_ctx, blob, &l, coop, (m, n), &inp);
                check(&inp, &out, &format!("{what}, glslang's"), seed);
                out == ours
            });
            println!(
                "{what}: matches the reference; bit-equal to glslang: {}",
                equal.map_or("not compared".to_string(), |e| e.to_string())
            );
            if let Some(false) = equal {
                panic!("{what}: our output differs from glslang's; replay with NCNN_SEED={seed}");
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
