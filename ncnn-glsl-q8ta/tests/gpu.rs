//! The q8ta operations on a Vulkan device (lavapipe in CI) under the
//! validation layer: every item of "Tests that must pass" in
//! docs/q8ta-pixel-shuffle.md. Inputs are fresh random each run
//! (`NCNN_SEED` repeats one); the seed is printed and shown on failure.
//! Output buffers are poisoned before each dispatch and read back whole.

use ncnn_glsl_q8ta::gpu::ShuffleRun;
use ncnn_glsl_q8ta::vectors;
use ncnn_glsl_q8ta::{
    launch, plan, reference, BlockAxis, Layout, OpError, Q8taError, Q8taOps, QTensor, QuantParams,
    Requant, Requantization, Rewrite, Shape, ShuffleKernel, ShufflePath,
};
use ncnn_glsl_runtime::{Buffer, ContextOptions, FloatStorage, Options};
use ncnn_glsl_testkit::gpu::{enabled_and_wanted, GpuTest};
use ncnn_glsl_testkit::Rng;

const POISON: u8 = 0xa5;

/// A GPU test of the q8ta operations for `wanted` options, on a context
/// opened for the q8ta sets.
fn with_ops(wanted: Options, body: impl FnOnce(&Q8taOps)) {
    GpuTest::new(ncnn_glsl_q8ta::context_options()).run(|gpu| {
        let ops = Q8taOps::new(gpu.ctx(), wanted).unwrap();
        body(&ops);
    });
}

fn seed() -> u64 {
    let s = ncnn_glsl_testkit::rng::fresh_seed();
    eprintln!("seed {s} (NCNN_SEED={s} repeats this run)");
    s
}

fn qp(scale: f32, zp: i32) -> QuantParams {
    QuantParams {
        scale,
        zero_point: zp,
    }
}

fn below(r: &mut Rng, n: u64) -> u64 {
    r.next_u64() % n
}

/// Random words: every byte random, padding included (junk the kernels must not read).
fn random_words(r: &mut Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| r.next_u64() as u32).collect()
}

fn poison(t: &mut QTensor) {
    let n = t.buffer.size() as usize;
    t.buffer.write(&vec![POISON; n]).unwrap();
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs one kernel into a poisoned output and returns the whole output buffer.
fn run(ops: &Q8taOps, input: &QTensor, out: &mut QTensor, baseline: bool) -> (Vec<u8>, ShuffleRun) {
    poison(out);
    let r = if baseline {
        ops.pixel_shuffle_baseline(input, out, 2)
    } else {
        ops.pixel_shuffle(input, out, 2)
    }
    .unwrap_or_else(|e| panic!("dispatch failed: {e}"));
    (out.read_bytes().unwrap(), r)
}

/// One case through both kernels and the `forced` rewrites: whole output
/// buffers equal `expected`.
#[allow(clippy::too_many_arguments)]
fn check_case(
    ops: &Q8taOps,
    name: &str,
    input_words: &[u32],
    in_shape: Shape,
    in_layout: Layout,
    out_layout: Layout,
    q_in: QuantParams,
    q_out: QuantParams,
    expected: &[u32],
    forced: &[Rewrite],
) {
    let out_shape = Shape::new(in_shape.n, in_shape.c / 4, 2 * in_shape.h, 2 * in_shape.w);
    let input = ops
        .tensor_from_words(input_words, in_shape, in_layout, q_in)
        .unwrap();
    let mut out = ops.tensor(out_shape, out_layout, q_out).unwrap();
    assert_eq!(out.byte_count(), expected.len() * 4, "{name}");
    let want = bytes_of(expected);
    let (new, r) = run(ops, &input, &mut out, false);
    if let Some(i) = (0..want.len()).find(|&i| new[i] != want[i]) {
        panic!(
            "{name}: rewrite ({} {}) byte {i}: got {:#04x}, want {:#04x}",
            r.target, r.axes, new[i], want[i]
        );
    }
    for &k in forced {
        poison(&mut out);
        let kernel = ShuffleKernel::RewriteWith(k);
        ops.pixel_shuffle_with(&input, &mut out, 2, kernel)
            .unwrap_or_else(|e| panic!("{name}: {kernel:?}: {e}"));
        let got = out.read_bytes().unwrap();
        if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "{name}: {kernel:?} byte {i}: got {:#04x}, want {:#04x}",
                got[i], want[i]
            );
        }
    }
    let (base, r) = run(ops, &input, &mut out, true);
    if let Some(i) = (0..want.len()).find(|&i| base[i] != want[i]) {
        panic!(
            "{name}: baseline ({} {}) byte {i}: got {:#04x}, want {:#04x}",
            r.target, r.axes, base[i], want[i]
        );
    }
    assert_eq!(new, base, "{name}: rewrite and baseline differ");
}

/// Every rewrite a shuffle of `in_shape` with these parameters can be
/// forced to: each path the shape allows, with each requantization and the
/// blocks on either axis (alternating), f32 only for the scales it is proven
/// exact for. Passthrough drops the requantization: every way runs the code
/// of the first two (the banked blob differs only in the table it declares
/// and never builds), one per block axis.
fn every_rewrite(in_shape: Shape, q_in: QuantParams, q_out: QuantParams) -> Vec<Rewrite> {
    let rq = Requant::new(q_in, q_out).ok();
    let passthrough = rq.as_ref().is_some_and(|r| r.passthrough);
    let float_exact = rq.as_ref().is_some_and(|r| r.float_exact);
    let mut all = Vec::new();
    for path in ShufflePath::ALL {
        if path.check(in_shape).is_err() {
            continue;
        }
        for (requant, blocks) in [
            (Requantization::Lanes, BlockAxis::Y),
            (Requantization::Table, BlockAxis::X),
            (Requantization::Banked, BlockAxis::Y),
            (Requantization::Float, BlockAxis::X),
            (Requantization::Mixed, BlockAxis::Y),
            (Requantization::MixedQuarter, BlockAxis::X),
        ] {
            if requant.uses_float() && (passthrough || !float_exact)
                || passthrough && requant == Requantization::Banked
            {
                continue;
            }
            all.push(Rewrite {
                path,
                requant,
                blocks,
                rows: 1,
            });
        }
    }
    all
}

/// A random input (junk padding included) against the CPU reference.
#[allow(clippy::too_many_arguments)]
fn random_case(
    ops: &Q8taOps,
    g: &mut Rng,
    in_shape: Shape,
    il: Layout,
    ol: Layout,
    q_in: QuantParams,
    q_out: QuantParams,
    what: &str,
    forced: &[Rewrite],
) {
    let input = random_words(g, il.word_count(in_shape));
    let rq = Requant::new(q_in, q_out).unwrap();
    let expected = reference::pixel_shuffle(&input, il, in_shape, ol, &rq).unwrap();
    let name = format!("{what} {in_shape} {il}->{ol} in {q_in:?} out {q_out:?}");
    check_case(
        ops, &name, &input, in_shape, il, ol, q_in, q_out, &expected, forced,
    );
}

/// The shapes of the product: odd and even widths, padding lanes, batches,
/// and each path's smallest shapes.
const SHAPES: [(usize, usize, usize, usize); 8] = [
    (1, 4, 3, 5),   // C_out = 1 (three padding lanes), odd W
    (2, 24, 2, 4),  // C_out = 6, even W, batch 2
    (1, 256, 2, 3), // C_out = 64
    (2, 4, 1, 1),   // H = W = 1, batch 2
    (1, 24, 1, 1),  // H = W = 1
    (2, 64, 3, 8),  // the tiled path: W % 4 == 0, C_out % 16 == 0
    (1, 256, 2, 4), // the tiled path, C_out = 64
    (1, 32, 2, 6),  // the pairs path, not the quad path: W % 4 == 2
];

/// The quantizations of the product: passthrough, random requantization
/// (drawn until f32 is exact for it, as for most scale pairs, so that the
/// f32 ways run), exact .5 ties (ratio 1/2, odd q - zp) and saturation
/// (ratio 8).
fn quantizations(g: &mut Rng) -> [(QuantParams, QuantParams, &'static str); 4] {
    let s = 0.001 + below(g, 1000) as f32 * 1e-4;
    let zp = below(g, 256) as i32 - 128;
    let requant = (0..100)
        .map(|_| {
            let (si, so) = (
                0.001 + below(g, 1000) as f32 * 1e-4,
                0.001 + below(g, 1000) as f32 * 1e-4,
            );
            let (zi, zo) = (below(g, 256) as i32 - 128, -(below(g, 129) as i32));
            (qp(si, zi), qp(so, zo))
        })
        .find(|&(i, o)| Requant::new(i, o).unwrap().float_exact)
        .expect("f32 exact for one of 100 random scale pairs");
    [
        (qp(s, zp), qp(s, zp), "passthrough"),
        (requant.0, requant.1, "requant"),
        (qp(0.5, -3), qp(1.0, -7), "ties"),
        (qp(0.08, 5), qp(0.01, -100), "saturate"),
    ]
}

/// A covering sample of the product below, run in every CI run on
/// lavapipe: every layout pair with each quantization (36 cases, the shape
/// rotating over [`SHAPES`]) through the plan's rewrite and the baseline,
/// and every forced rewrite (path x requantization x block axis) the
/// sample's cases allow at least once, the rest in turn one per case.
#[test]
fn a_covering_sample_matches_the_reference() {
    with_ops(Options::NCNN_DEFAULT, |ops| {
        let mut g = Rng::new(seed());
        let mut covered = std::collections::BTreeSet::new();
        let mut turn = 0;
        for (p, (il, ol)) in Layout::ALL
            .into_iter()
            .flat_map(|i| Layout::ALL.map(|o| (i, o)))
            .enumerate()
        {
            for (k, (q_in, q_out, what)) in quantizations(&mut g).into_iter().enumerate() {
                let (n, c, h, w) = SHAPES[(3 * p + k) % SHAPES.len()];
                let shape = Shape::new(n, c, h, w);
                let all = every_rewrite(shape, q_in, q_out);
                let mut forced: Vec<Rewrite> = all
                    .iter()
                    .copied()
                    .filter(|r| !covered.contains(r))
                    .collect();
                if forced.is_empty() && !all.is_empty() {
                    forced.push(all[turn % all.len()]);
                    turn += 1;
                }
                covered.extend(forced.iter().copied());
                random_case(ops, &mut g, shape, il, ol, q_in, q_out, what, &forced);
            }
        }
        // The sample reaches every path with every requantization.
        for path in ShufflePath::ALL {
            for requant in Requantization::ALL {
                assert!(
                    covered
                        .iter()
                        .any(|r| (r.path, r.requant) == (path, requant)),
                    "the sample never ran {path:?} with {requant:?}"
                );
            }
        }
    });
}

/// The whole product: every shape x layout pair x quantization through
/// the plan, every forced rewrite the case allows, and the baseline (288
/// cases; about 15 minutes on lavapipe). Run on a GPU with `--ignored`
/// (`bash bench/nvidia.sh tests`; BENCHMARKS.md lists the runs).
#[test]
#[ignore = "the whole product: run on a GPU with --ignored"]
fn every_layout_pair_shape_and_mode_matches_the_reference() {
    with_ops(Options::NCNN_DEFAULT, |ops| {
        let mut g = Rng::new(seed());
        for (n, c, h, w) in SHAPES {
            let shape = Shape::new(n, c, h, w);
            for il in Layout::ALL {
                for ol in Layout::ALL {
                    for (q_in, q_out, what) in quantizations(&mut g) {
                        let forced = every_rewrite(shape, q_in, q_out);
                        random_case(ops, &mut g, shape, il, ol, q_in, q_out, what, &forced);
                    }
                }
            }
        }
    });
}

/// The new kernel is one blob specialized per layout pair and passthrough:
/// runs that differ only in a specialization constant (same variant, same
/// workgroup shape) must not share a cached pipeline.
#[test]
fn pipelines_are_cached_per_specialization() {
    with_ops(Options::NCNN_DEFAULT, |ops| {
        let mut g = Rng::new(seed());
        let shape = Shape::new(1, 64, 2, 8);
        let (il, ol) = (Layout::Packed4C, Layout::Packed4C);
        for _ in 0..2 {
            // PASSTHROUGH 1, then 0, then 1 again: the same local size each time.
            random_case(
                ops,
                &mut g,
                shape,
                il,
                ol,
                qp(0.02, 3),
                qp(0.02, 3),
                "passthrough",
                &[],
            );
            random_case(
                ops,
                &mut g,
                shape,
                il,
                ol,
                qp(0.02, 3),
                qp(0.05, -7),
                "requant",
                &[],
            );
        }
        // OUT_LAYOUT 4C1W then 4W4C: the tile path's shape is 4x8x1 for both.
        for ol in [Layout::Packed4C1W, Layout::Packed4W4C, Layout::Packed4C1W] {
            random_case(
                ops,
                &mut g,
                shape,
                il,
                ol,
                qp(0.02, 3),
                qp(0.05, -7),
                "layout",
                &[],
            );
        }
    });
}

#[test]
fn a_grid_past_the_workgroup_count_limit_on_height_x_batch_runs() {
    with_ops(Options::NCNN_DEFAULT, |ops| {
        let ctx = ops.context();
        let mut g = Rng::new(seed());
        let max_z = ctx.limits().max_compute_work_group_count[2];
        // (C_in, W): C_out = 1 and W = 1 (a few MiB at most), and the tiled path (16 MiB).
        for (il, ol, c, w) in [
            (Layout::Packed4C1W, Layout::Packed4W4C, 4, 1),
            (Layout::Packed4C, Layout::Packed4C, 4, 1),
            (Layout::Packed4W4C, Layout::Packed4C1W, 64, 4),
        ] {
            // Batch 2, H x N just past max_z * local_z (the path does not depend on H here:
            // the third case is past the size where the runtime tiles either way).
            let n = 2;
            let probe = Shape::new(n, c, 1 << 16, w);
            let device = ops.device();
            let (q_in, q_out) = (qp(0.03, 7), qp(0.05, -9));
            let axes = launch::Axes {
                in_layout: il,
                out_layout: ol,
                passthrough: false,
            };
            let exact = Requant::new(q_in, q_out).unwrap().float_exact;
            let p = plan::plan(probe, axes, exact, &device);
            let h = (max_z as usize * p.local[2] as usize) / n + 3;
            let shape = Shape::new(n, c, h, w);
            assert_eq!(plan::plan(shape, axes, exact, &device), p);
            let input_words = random_words(&mut g, il.word_count(shape));
            let rq = Requant::new(q_in, q_out).unwrap();
            let expected = reference::pixel_shuffle(&input_words, il, shape, ol, &rq).unwrap();
            let input = ops
                .tensor_from_words(&input_words, shape, il, q_in)
                .unwrap();
            let out_shape = reference::shuffle_output_shape(shape).unwrap();
            let mut out = ops.tensor(out_shape, ol, q_out).unwrap();
            let want = bytes_of(&expected);
            for baseline in [false, true] {
                let (got, r) = run(ops, &input, &mut out, baseline);
                assert!(
                    r.groups.iter().all(|&x| x <= max_z),
                    "{r:?} launched past the limit"
                );
                if !baseline {
                    assert_eq!(r.groups[2], max_z, "the grid was not clamped: {r:?}");
                }
                let bad = (0..want.len()).find(|&i| got[i] != want[i]);
                assert!(
                    bad.is_none(),
                    "{shape} {il}->{ol} baseline={baseline}: byte {bad:?} differs"
                );
            }
        }
    });
}

/// The golden vectors: part of the test binary, so the test cannot run without them.
const VECTORS: &str = include_str!("data/q8ta_pixel_shuffle.json");

/// Every golden vector through the plan's rewrite and the baseline.
#[test]
fn every_golden_vector_through_both_kernels() {
    golden_vectors(false);
}

/// Every golden vector through every forced rewrite it allows too: run on a
/// GPU with `--ignored`.
#[test]
#[ignore = "every forced rewrite of every golden vector: run on a GPU with --ignored"]
fn every_golden_vector_through_every_rewrite() {
    golden_vectors(true);
}

fn golden_vectors(every_rewrite_too: bool) {
    with_ops(Options::NCNN_DEFAULT, |ops| {
        let cases = vectors::cases(VECTORS).unwrap();
        assert_eq!(cases.len(), 3 * 5 * 9);
        for c in &cases {
            let c = vectors::VectorCase::from_json(c).unwrap();
            let s = c.input_shape;
            assert_eq!(c.output_shape, Shape::new(s.n, s.c / 4, 2 * s.h, 2 * s.w));
            let forced = if every_rewrite_too {
                every_rewrite(s, c.input_params, c.output_params)
            } else {
                Vec::new()
            };
            check_case(
                ops,
                &c.name,
                &c.input,
                s,
                c.in_layout,
                c.out_layout,
                c.input_params,
                c.output_params,
                &c.expected,
                &forced,
            );
        }
    });
}

#[test]
fn bad_inputs_are_errors_and_nothing_is_dispatched_or_written() {
    with_ops(Options::NCNN_DEFAULT, |ops| {
        let ctx = ops.context();
        let mut g = Rng::new(seed());
        let (il, ol) = (Layout::Packed4W4C, Layout::Packed4C);
        let in_shape = Shape::new(1, 8, 3, 5);
        let out_shape = Shape::new(1, 2, 6, 10);
        let good = qp(0.05, 3);
        let words = random_words(&mut g, il.word_count(in_shape));
        let input = ops.tensor_from_words(&words, in_shape, il, good).unwrap();
        let tensor = |shape: Shape, layout: Layout, params: QuantParams, bytes: usize| QTensor {
            buffer: Buffer::new(ctx, bytes as u64).unwrap(),
            shape,
            layout,
            params,
        };
        let out_bytes = ol.byte_count(out_shape);

        type Case = (&'static str, QTensor, QTensor, usize, &'static str);
        let mk_in = |shape: Shape, params: QuantParams, bytes: usize| {
            let mut t = tensor(shape, il, params, bytes);
            let n = (t.buffer.size() as usize).min(words.len() * 4);
            t.buffer.write(&bytes_of(&words)[..n]).unwrap();
            t
        };
        let in_bytes = il.byte_count(in_shape);
        let cases: Vec<Case> = vec![
            (
                "factor 3",
                mk_in(in_shape, good, in_bytes),
                tensor(out_shape, ol, good, out_bytes),
                3,
                "upscale factor 3",
            ),
            (
                "output shape",
                mk_in(in_shape, good, in_bytes),
                tensor(Shape::new(1, 2, 6, 12), ol, good, out_bytes * 2),
                2,
                "expected [1, 2, 6, 10]",
            ),
            (
                "C_in != 4 C_out",
                mk_in(Shape::new(1, 6, 3, 5), good, in_bytes),
                tensor(Shape::new(1, 2, 6, 10), ol, good, out_bytes),
                2,
                "input channels 6 != 4 * output channels 2",
            ),
            (
                "input too small",
                mk_in(in_shape, good, in_bytes - 4),
                tensor(out_shape, ol, good, out_bytes),
                2,
                "input buffer holds",
            ),
            (
                "output too small",
                mk_in(in_shape, good, in_bytes),
                tensor(out_shape, ol, good, out_bytes - 4),
                2,
                "output buffer holds",
            ),
            (
                "scale 0",
                mk_in(in_shape, qp(0.0, 3), in_bytes),
                tensor(out_shape, ol, good, out_bytes),
                2,
                "input scale 0.0",
            ),
            (
                "scale < 0",
                mk_in(in_shape, good, in_bytes),
                tensor(out_shape, ol, qp(-0.5, 3), out_bytes),
                2,
                "output scale -0.5",
            ),
            (
                "scale NaN",
                mk_in(in_shape, qp(f32::NAN, 3), in_bytes),
                tensor(out_shape, ol, good, out_bytes),
                2,
                "input scale NaN",
            ),
            (
                "scale inf",
                mk_in(in_shape, good, in_bytes),
                tensor(out_shape, ol, qp(f32::INFINITY, 3), out_bytes),
                2,
                "output scale inf",
            ),
            (
                "zp 128",
                mk_in(in_shape, qp(0.05, 128), in_bytes),
                tensor(out_shape, ol, good, out_bytes),
                2,
                "input zero point 128",
            ),
            (
                "zp -129",
                mk_in(in_shape, good, in_bytes),
                tensor(out_shape, ol, qp(0.05, -129), out_bytes),
                2,
                "output zero point -129",
            ),
        ];
        for (name, inp, mut out, factor, msg) in cases {
            for baseline in [false, true] {
                poison(&mut out);
                let r = if baseline {
                    ops.pixel_shuffle_baseline(&inp, &mut out, factor)
                } else {
                    ops.pixel_shuffle(&inp, &mut out, factor)
                };
                match r {
                    Err(OpError::Invalid(e)) => {
                        assert!(e.to_string().contains(msg), "{name}: `{e}` lacks `{msg}`")
                    }
                    other => panic!("{name}: expected an argument error, got {other:?}"),
                }
                let got = out.read_bytes().unwrap();
                assert!(got.iter().all(|&b| b == POISON), "{name}: output written");
            }
        }
        // A path of the kernel the shape cannot take (W = 5 is odd): an error naming what the
        // path needs, nothing written.
        for (path, needs) in [
            (ShufflePath::Tile, "W % 4 == 0"),
            (ShufflePath::Quad, "W % 4 == 0"),
            (ShufflePath::Pairs, "W % 2 == 0"),
        ] {
            let mut out = tensor(out_shape, ol, good, out_bytes);
            poison(&mut out);
            match ops.pixel_shuffle_with(&input, &mut out, 2, ShuffleKernel::RewriteOn(path)) {
                Err(OpError::Invalid(e @ Q8taError::Path { .. })) => {
                    assert!(e.to_string().contains(needs), "{e}")
                }
                other => panic!("{path:?}: expected Q8taError::Path, got {other:?}"),
            }
            assert!(out.read_bytes().unwrap().iter().all(|&b| b == POISON));
        }
        // The input is never written either, and the good call still runs afterwards.
        let mut out = tensor(out_shape, ol, good, out_bytes);
        let (_, _) = run(ops, &input, &mut out, false);
        let mut input = input;
        assert_eq!(input.read_words().unwrap(), words);
        // Quantize and dequantize validate first too.
        let x = vec![0.5f32; in_shape.elements()];
        let e = ops.quantize(&x, in_shape, il, qp(0.0, 0)).unwrap_err();
        assert!(
            matches!(e, OpError::Invalid(Q8taError::Scale { .. })),
            "{e}"
        );
        let e = ops.quantize(&x[1..], in_shape, il, good).unwrap_err();
        assert!(e.to_string().contains("float input"), "{e}");
        let small = tensor(in_shape, il, good, in_bytes - 4);
        let e = ops.dequantize(&small).unwrap_err();
        assert!(e.to_string().contains("buffer holds"), "{e}");
        let bad_zp = tensor(in_shape, il, qp(0.1, 200), in_bytes);
        let e = ops.dequantize(&bad_zp).unwrap_err();
        assert!(e.to_string().contains("zero point 200"), "{e}");
    });
}

/// Distance of `x / scale` (exact, f64) from the nearest rounding tie `k + 1/2`.
fn tie_distance(x: f32, scale: f32) -> f64 {
    let v = x as f64 / scale as f64;
    (v - v.floor() - 0.5).abs()
}

fn quantize_round_trip(wanted: Options) {
    with_ops(wanted, |ops| {
        let mut g = Rng::new(seed());
        for shape in [
            Shape::new(2, 6, 3, 5),  // VEC 1, padding lanes
            Shape::new(1, 16, 4, 8), // VEC 4
            Shape::new(1, 5, 2, 6),  // VEC 2
        ] {
            for layout in Layout::ALL {
                let p = qp(
                    0.01 + below(&mut g, 1000) as f32 * 1e-4,
                    below(&mut g, 256) as i32 - 128,
                );
                let storage = ops.quantize_storage(layout).unwrap();
                // Random values, exact ties (k + 1/2) * scale, and saturating values.
                let x: Vec<f32> = (0..shape.elements())
                    .map(|i| match i % 4 {
                        0 => (below(&mut g, 60) as f32 - 30.0 + 0.5) * p.scale,
                        1 => g.f32(-400.0, 400.0) * p.scale,
                        _ => g.f32(-2.0, 2.0),
                    })
                    .map(|v| storage.round(v))
                    .collect();
                let t = ops.quantize(&x, shape, layout, p).unwrap();
                let mut t = t;
                let got = t.read_words().unwrap();
                let want = reference::quantize(&x, shape, layout, p).unwrap();
                let (gb, wb) = (bytes_of(&got), bytes_of(&want));
                let q_got = ncnn_glsl_q8ta::unpack(layout, shape, &got).unwrap();
                let q_want = ncnn_glsl_q8ta::unpack(layout, shape, &want).unwrap();
                for (i, (&a, &b)) in q_got.iter().zip(&q_want).enumerate() {
                    if a != b {
                        // One step, only where the exact value is within 2^-20 of a tie.
                        assert!(
                            (a as i32 - b as i32).abs() == 1
                                && tie_distance(x[i], p.scale) < 2f64.powi(-20),
                            "{shape} {layout} {storage:?}: element {i} x={} got {a} want {b}",
                            x[i]
                        );
                    }
                }
                // Padding is exact: re-pack the GPU's values and compare whole buffers.
                let repacked = ncnn_glsl_q8ta::pack(layout, shape, &q_got, p.zp_i8()).unwrap();
                assert_eq!(bytes_of(&repacked), gb, "{shape} {layout}: padding");
                assert_eq!(gb.len(), wb.len());

                // Dequantize the reference words, with junk in the padding.
                let mut words = want.clone();
                let mask =
                    ncnn_glsl_q8ta::pack(layout, shape, &vec![-1; shape.elements()], 0).unwrap();
                for (i, w) in words.iter_mut().enumerate() {
                    let junk = g.next_u32();
                    *w = (*w & mask[i]) | (junk & !mask[i]);
                }
                let qt = ops.tensor_from_words(&words, shape, layout, p).unwrap();
                let dst = ops.dequantize_storage(shape, layout).unwrap();
                let got = ops.dequantize(&qt).unwrap();
                let want = reference::dequantize(&words, shape, layout, p).unwrap();
                for (i, (&a, &b)) in got.iter().zip(&want).enumerate() {
                    let ok = match dst {
                        FloatStorage::F32 => a == b,
                        // One fp16 (bf16) ulp of the exact f32 result.
                        FloatStorage::F16 | FloatStorage::Bf16 => {
                            let r = dst.round(b);
                            let ulp = if dst == FloatStorage::F16 {
                                half::f16::from_f32(b.abs()).to_f32().max(6.1e-5) * 2f32.powi(-10)
                            } else {
                                b.abs().max(1e-30) * 2f32.powi(-7)
                            };
                            a == r || (a - b).abs() <= ulp * 1.0001
                        }
                    };
                    assert!(
                        ok,
                        "{shape} {layout} {dst:?}: dequantized {i}: got {a} want {b}"
                    );
                }
            }
        }
    });
}

#[test]
fn quantize_and_dequantize_fp32() {
    quantize_round_trip(Options::FP32);
}

#[test]
fn quantize_and_dequantize_ncnn_default() {
    quantize_round_trip(Options::NCNN_DEFAULT);
}

/// The operations refuse a context that was not opened for their sets: it
/// may lack the features their variants use.
#[test]
fn a_context_not_opened_for_the_q8ta_sets_is_refused() {
    GpuTest::new(ContextOptions::default()).run(|gpu| {
        let ctx = gpu.ctx();
        let e = Q8taOps::new(ctx, Options::NCNN_DEFAULT).unwrap_err();
        assert!(
            matches!(e, Q8taError::ContextWithoutSets { missing } if missing.contains("q8ta_")),
            "{e:?}"
        );
        assert!(
            e.to_string().contains("ncnn_glsl_q8ta::context_options()"),
            "{e}"
        );
    });
}

/// A context opened with `context_options()` enables exactly the features
/// the q8ta variants name that the device has, and some (the int8 storage
/// every q8ta shader reads).
#[test]
fn the_context_options_enable_what_the_sets_need() {
    GpuTest::new(ncnn_glsl_q8ta::context_options()).run(|gpu| {
        let (enabled, wanted) = enabled_and_wanted(gpu.ctx(), ncnn_glsl_q8ta::SETS);
        assert_eq!(enabled, wanted);
        assert!(!enabled.is_empty(), "the q8ta sets enabled nothing");
    });
}
