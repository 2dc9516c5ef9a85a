//! Every variant of every shipped shader (`ncnn_glsl_q8ta::SETS`),
//! our embedded blob against glslang's: the variant's finished GLSL (the
//! committed artifact `shaders/variants/<shader>/<variant>.glsl`, whose
//! manifest entry must carry the hash of the blob we embed) goes through
//! `glslangValidator -V`, and both blobs run on the default device
//! (lavapipe in CI) on the same random, valid q8ta inputs: shapes with and
//! without padding, random quantization parameters, every path of the new
//! pixel-shuffle kernel the shape allows, grids clamped so the shuffle
//! kernels' grid-stride loops run. The new pixel-shuffle kernel is one blob
//! per requantization table size whose layouts, passthrough and path are
//! specialization constants: both
//! blobs run under every one of its 18 layout and passthrough
//! specializations, on every path each shape allows. Outputs start poisoned;
//! integer outputs must be identical, float outputs within one ulp of their
//! storage type.
//!
//! Variants with identical finished GLSL are one shader and run once.
//! Variants the device cannot run (a feature either blob needs is missing)
//! are listed with the reason. The seed is printed on failure;
//! `NCNN_SEED=N` replays it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ncnn_glsl_core::variant::build::VariantKey;
use ncnn_glsl_core::variant::manifest::{file_name, fnv1a64};
use ncnn_glsl_q8ta::launch::{dequantize_grid, dequantize_vec_width, quantize_grid, ShufflePath};
use ncnn_glsl_q8ta::plan::{plan_with, Device};
use ncnn_glsl_q8ta::push::{DequantizePush, QuantizePush};
use ncnn_glsl_q8ta::sets::{DEQUANTIZE, PIXEL_SHUFFLE, PIXEL_SHUFFLE_BASELINE, QUANTIZE};
use ncnn_glsl_q8ta::{
    BlockAxis, Layout, PixelShuffle, QuantParams, Requantization, Rewrite, Shape, SETS,
};
use ncnn_glsl_runtime::{
    Blob, Context, ContextOptions, DeviceType, FloatStorage, Variant, VariantSet,
};
use ncnn_glsl_testkit::differential::{
    glslang, glslang_blob, leak_set, run_pair_with, seed, Case, Cmp, Fill, Io,
};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::Rng;

/// One dispatch of a variant: the case (bindings, push constants, grid,
/// local size) and the bytes of every binding.
struct Run {
    case: Case,
    inputs: Vec<Vec<u8>>,
}

/// The artifacts directory of a shipped set.
fn artifacts(set: &VariantSet) -> PathBuf {
    let stem = Path::new(set.name)
        .file_stem()
        .expect("a shader file name")
        .to_string_lossy()
        .into_owned();
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shaders/variants")
        .join(stem)
}

/// The committed finished GLSL of `v`, checked against the manifest: the
/// entry for that file must carry the hash of the blob we embed.
fn finished_text(set: &VariantSet, v: &Variant, manifest: &serde_json::Value) -> (String, String) {
    let names: Vec<&str> = set.axes.iter().map(|a| a.name).collect();
    let key = VariantKey {
        target: v.target,
        axes: v.axes.to_vec(),
    };
    let file = file_name(&key, &names);
    let entry = manifest["variants"]
        .as_array()
        .expect("manifest variants")
        .iter()
        .find(|e| e["glsl"] == file.as_str())
        .unwrap_or_else(|| panic!("{}: no manifest entry for `{file}`", set.name));
    assert_eq!(
        entry["spirv_fnv1a64"].as_str().unwrap(),
        format!("{:016x}", fnv1a64(v.blob.spirv())),
        "{}: `{file}` is not the text of the embedded blob (run `cargo xtask regen-variants`)",
        set.name
    );
    let text = std::fs::read_to_string(artifacts(set).join(&file))
        .unwrap_or_else(|e| panic!("cannot read `{file}`: {e}"));
    (file, text)
}

/// What a differential run of one set found.
#[derive(Default)]
struct Tally {
    variants: usize,
    texts: usize,
    dispatches: usize,
    skipped: Vec<String>,
    failures: Vec<String>,
}

/// Runs every variant of `set`; `runs` gives the dispatches of one variant.
fn check_set(set: &'static VariantSet, runs: impl Fn(&Variant, &mut Rng) -> Vec<Run>) {
    assert!(SETS.iter().any(|s| std::ptr::eq(*s, set)));
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(artifacts(set).join("manifest.json")).expect("manifest.json"),
    )
    .expect("manifest.json parses");
    // glslang once per distinct finished text (which is one blob of ours).
    let mut texts: HashMap<String, usize> = HashMap::new();
    let mut firsts: Vec<(&'static Variant, String, Vec<u32>)> = Vec::new();
    for v in set.variants() {
        let (file, text) = finished_text(set, v, &manifest);
        if let Some(&i) = texts.get(&text) {
            assert_eq!(
                firsts[i].0.blob.spirv(),
                v.blob.spirv(),
                "{}: `{file}` has the text of `{}` but another blob",
                set.name,
                firsts[i].1
            );
            continue;
        }
        let Some(spirv) = glslang(&text) else {
            return;
        };
        texts.insert(text, firsts.len());
        firsts.push((v, file, spirv));
    }
    let theirs: Vec<&'static Blob> = firsts
        .iter()
        // SAFETY: glslang's build of the shipped text, run on the shapes
        // the plan checked, as the shipped sets are.
        .map(|(v, _, spirv)| unsafe { glslang_blob(spirv.clone(), v.blob.reflection()) })
        .collect();
    let theirs_variants: &'static [Variant] = Box::leak(
        firsts
            .iter()
            .zip(&theirs)
            .map(|((v, _, _), blob)| Variant {
                target: v.target,
                axes: v.axes,
                blob,
            })
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    GpuTest::new(ContextOptions {
        variant_sets: vec![set, leak_set(theirs_variants)],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let seed = seed();
        let mut rng = Rng::new(seed);
        let mut tally = Tally {
            variants: set.variants().len(),
            texts: firsts.len(),
            ..Tally::default()
        };
        for ((v, file, _), theirs) in firsts.iter().zip(&theirs) {
            if let Some(why) = cannot_run(ctx, v.blob, theirs) {
                tally.skipped.push(format!("{file}: {why}"));
                continue;
            }
            for run in runs(v, &mut rng) {
                tally.dispatches += 1;
                let mut case = run.case;
                case.name = format!("{} `{file}` {}", set.name, case.name);
                case.mode = v.target.to_string();
                if let Err(e) = run_pair_with(ctx, &case, v.blob, theirs, &run.inputs) {
                    tally.failures.push(e);
                }
            }
        }
        eprintln!(
            "{}: {} variants, {} distinct texts, {} dispatches of both blobs, {} not run here{}",
            set.name,
            tally.variants,
            tally.texts,
            tally.dispatches,
            tally.skipped.len(),
            tally
                .skipped
                .iter()
                .map(|s| format!("\n  not run: {s}"))
                .collect::<String>()
        );
        assert!(
            tally.failures.is_empty(),
            "{} of {} dispatches differ from glslang's (NCNN_SEED={seed}):\n{}",
            tally.failures.len(),
            tally.dispatches,
            tally.failures.join("\n")
        );
        assert!(tally.dispatches > 0, "{}: nothing ran", set.name);
    });
}

/// Why the device cannot run one of the blobs, if it cannot.
fn cannot_run(ctx: &Arc<Context>, ours: &Blob, theirs: &Blob) -> Option<String> {
    let mut missing = Vec::new();
    for (who, blob) in [("ours", ours), ("glslang's", theirs)] {
        for f in blob.reflection().requirements.features.iter() {
            if !ctx.enabled_caps().feature(f) {
                missing.push(format!("{who} needs `{f}`"));
            }
        }
    }
    (!missing.is_empty()).then(|| format!("the device lacks features: {}", missing.join(", ")))
}

fn axis(set: &VariantSet, v: &Variant, name: &str) -> i64 {
    let i = set
        .axes
        .iter()
        .position(|a| a.name == name)
        .unwrap_or_else(|| panic!("{}: no axis {name}", set.name));
    v.axes[i]
}

fn layout(value: i64) -> Layout {
    Layout::ALL[value as usize]
}

fn words(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    (0..bytes.div_ceil(4))
        .flat_map(|_| (rng.next_u32()).to_le_bytes())
        .take(bytes)
        .collect()
}

/// Random valid quantization parameters: a scale in [2^-9, 2^-2) (an exact
/// power of two one time in four, so that float inputs can sit exactly on
/// rounding ties) and a zero point in [-128, 127].
fn params(rng: &mut Rng) -> QuantParams {
    let scale = if rng.next_u64() % 4 == 0 {
        f32::powi(2.0, -2 - (rng.next_u64() % 7) as i32)
    } else {
        f32::powf(2.0, rng.f32(-9.0, -2.0))
    };
    let zp = (rng.next_u64() % 256) as i32 - 128;
    QuantParams::new(scale, zp, "test").expect("valid parameters")
}

/// Input shapes of the pixel shuffle: one every path can take (W % 4 == 0,
/// C_out % 16 == 0) and one with partial channel blocks and odd sizes
/// (the word-by-word path only; its grid is clamped below).
const SHUFFLE_SHAPES: [[usize; 4]; 2] = [[2, 64, 3, 8], [1, 20, 5, 7]];

/// The shuffle of `input` between the variant's layouts (the baseline's
/// axes), with a requant that is the identity exactly when the variant is
/// the passthrough one.
fn shuffle(set: &VariantSet, v: &Variant, input: Shape, rng: &mut Rng) -> PixelShuffle {
    let (in_l, out_l) = (
        layout(axis(set, v, "IN_LAYOUT")),
        layout(axis(set, v, "OUT_LAYOUT")),
    );
    let passthrough = axis(set, v, "PASSTHROUGH") == 1;
    shuffle_between(in_l, out_l, passthrough, input, rng)
}

/// The shuffle of `input` from `in_l` to `out_l`, with random quantization
/// parameters whose requant is the identity exactly when `passthrough`.
fn shuffle_between(
    in_l: Layout,
    out_l: Layout,
    passthrough: bool,
    input: Shape,
    rng: &mut Rng,
) -> PixelShuffle {
    let q_in = params(rng);
    let q_out = if passthrough {
        q_in
    } else {
        loop {
            let q = params(rng);
            if q != q_in {
                break q;
            }
        }
    };
    let output = Shape::new(input.n, input.c / 4, 2 * input.h, 2 * input.w);
    let ps = PixelShuffle::new(input, output, 2, in_l, out_l, q_in, q_out).expect("valid shuffle");
    assert_eq!(ps.requant.passthrough, passthrough);
    ps
}

fn shuffle_case(name: String, ps: &PixelShuffle, rng: &mut Rng) -> (Case, Vec<Vec<u8>>) {
    let io = vec![
        Io::In(ps.input_bytes() as u64, Fill::Words),
        Io::Out(ps.output_bytes() as u64, Cmp::Exact),
    ];
    let inputs = vec![words(rng, ps.input_bytes()), Vec::new()];
    (Case::new(&name, "", "", io), inputs)
}

/// Grids clamped on y and z to this many workgroups for the odd shape, so
/// that the kernels' grid-stride loops over those axes run.
const CLAMPED: [u32; 3] = [65535, 1, 2];

/// The same with the new kernel's blocks on y: its width, on x, is clamped.
const CLAMPED_X: [u32; 3] = [1, 65535, 2];

/// The new kernel: one blob per requantization table size (the axis
/// `LUT_COPIES`), a covering sample of [`every_pixel_shuffle_specialization_matches_glslang`]'s
/// runs in every CI run: each of its 18 layout pair and passthrough
/// specializations, and each (path, requantization, shape) at least once.
#[test]
fn pixel_shuffle_specializations_match_glslang() {
    pixel_shuffle_specializations(false);
}

/// Each blob under each of its 18 layout pair and passthrough
/// specializations, on every path each shape allows (the path is the fourth
/// constant), with each requantization of that blob (720 pipelines, about
/// 11 minutes on lavapipe): run on a GPU with `--ignored`.
#[test]
#[ignore = "the whole product: run on a GPU with --ignored"]
fn every_pixel_shuffle_specialization_matches_glslang() {
    pixel_shuffle_specializations(true);
}

fn pixel_shuffle_specializations(whole: bool) {
    let set = PIXEL_SHUFFLE;
    let axes: Vec<&str> = set.axes.iter().map(|a| a.name).collect();
    assert_eq!(
        axes,
        ["LUT_COPIES"],
        "the layouts are specialization constants"
    );
    check_set(set, |v, rng| {
        let requants: Vec<Requantization> = Requantization::ALL
            .into_iter()
            .filter(|r| r.lut_copies() == v.axes[0])
            .collect();
        let mut runs = Vec::new();
        let mut specializations = 0;
        let mut inexact = 0;
        // The sample: a run whose specialization or (path, requantization,
        // shape) has not run yet.
        let mut seen = std::collections::BTreeSet::new();
        for in_l in Layout::ALL {
            for out_l in Layout::ALL {
                for passthrough in [false, true] {
                    specializations += 1;
                    for (k, dims) in SHUFFLE_SHAPES.iter().enumerate() {
                        for (path, requant) in ShufflePath::ALL
                            .into_iter()
                            .flat_map(|p| requants.iter().map(move |&r| (p, r)))
                        {
                            let same =
                                !matches!(requant, Requantization::Table | Requantization::Banked);
                            if passthrough && same {
                                continue; // the same code as the table's: no requantization
                            }
                            let input = Shape::from_dims(*dims);
                            let ps = shuffle_between(in_l, out_l, passthrough, input, rng);
                            if path.check(ps.input).is_err() {
                                continue;
                            }
                            // In f32 only for the scales it is proven exact for.
                            let exact = ps.requant.passthrough || ps.requant.float_exact;
                            if requant.uses_float() && !exact {
                                inexact += 1;
                                continue;
                            }
                            // The odd shape with its blocks on y and the
                            // width's axis (x) and z clamped: the loops.
                            let blocks = [BlockAxis::X, BlockAxis::Y][k.min(1)];
                            let rewrite = Rewrite {
                                path,
                                requant,
                                blocks,
                                rows: 1,
                            };
                            // A GPU's workgroup for the shape, or a small one
                            // whose grid the launch clamps.
                            let (local, max) = if k == 0 {
                                let gpu = Device::unlimited(DeviceType::DiscreteGpu);
                                (
                                    plan_with(rewrite, ps.input, ps.axes(), &gpu).local,
                                    [65535; 3],
                                )
                            } else {
                                ([2, 1, 1], CLAMPED_X)
                            };
                            let launch = ps.launch(Some(rewrite), local, max).expect("a launch");
                            let new_spec = seen.insert((Some((in_l, out_l, passthrough)), None));
                            let new_way = seen.insert((None, Some((path, requant, k))));
                            if !whole && !new_spec && !new_way {
                                continue;
                            }
                            let name = format!(
                                "{in_l}->{out_l} {} {dims:?} path {} {} {}",
                                if passthrough {
                                    "passthrough"
                                } else {
                                    "requant"
                                },
                                path.name(),
                                requant.name(),
                                blocks.name()
                            );
                            let (mut case, inputs) = shuffle_case(name, &ps, rng);
                            case.push_constants = launch.push.to_bytes().to_vec();
                            case.groups = launch.groups;
                            case.local_size = Some(local);
                            case.specialization = ps.specialization(rewrite).to_vec();
                            runs.push(Run { case, inputs });
                        }
                    }
                }
            }
        }
        // Every pair and quantization: the full shape on every path, the odd
        // shape word by word; requantizing, each way of this blob (the table
        // and per lane and in f32 where the random scales allow it, or the
        // banked table and both mixed splits).
        assert_eq!(specializations, 18);
        let paths = ShufflePath::ALL.len();
        if whole {
            assert_eq!(runs.len() + inexact, 9 * (paths + 1) * (1 + requants.len()));
        }
        runs
    });
}

#[test]
fn pixel_shuffle_baseline_variants_match_glslang() {
    let set = PIXEL_SHUFFLE_BASELINE;
    check_set(set, |v, rng| {
        SHUFFLE_SHAPES
            .iter()
            .enumerate()
            .map(|(k, dims)| {
                let ps = shuffle(set, v, Shape::from_dims(*dims), rng);
                let local = v.blob.reflection().local_size;
                let max = if k == 0 { [65535; 3] } else { CLAMPED };
                let launch = ps.launch(None, local, max).expect("a launch");
                let (mut case, inputs) = shuffle_case(format!("{dims:?}"), &ps, rng);
                case.push_constants = launch.push.to_bytes().to_vec();
                case.groups = launch.groups;
                Run { case, inputs }
            })
            .collect()
    });
}

/// Workgroups of 64 x 1 x 1 over a grid of invocations.
fn groups64(grid: [u32; 3]) -> [u32; 3] {
    [grid[0].div_ceil(64), grid[1], grid[2]]
}

#[test]
fn quantize_variants_match_glslang() {
    let set = QUANTIZE;
    check_set(set, |v, rng| {
        assert_eq!(v.blob.reflection().local_size, [64, 1, 1]);
        let out_l = layout(axis(set, v, "OUT_LAYOUT"));
        let storage = FloatStorage::of(v.target.options);
        [[2, 6, 3, 5], [1, 8, 2, 8], [1, 3, 1, 70]]
            .into_iter()
            .map(|dims| {
                let shape = Shape::from_dims(dims);
                let p = params(rng);
                // Values from -170 to 170 steps of the scale (saturating
                // past -128 and 127), one in four exactly halfway between
                // two steps.
                let x: Vec<f32> = (0..shape.elements())
                    .map(|_| {
                        if rng.next_u64() % 4 == 0 {
                            ((rng.next_u64() % 341) as f32 - 170.5) * p.scale
                        } else {
                            rng.f32(-170.0, 170.0) * p.scale
                        }
                    })
                    .collect();
                let input = storage.encode(&x);
                let out_bytes = out_l.byte_count(shape);
                let io = vec![
                    Io::In(input.len() as u64, Fill::Words),
                    Io::Out(out_bytes as u64, Cmp::Exact),
                ];
                let mut case = Case::new(&format!("{dims:?}"), "", "", io);
                case.push_constants = QuantizePush::new(shape, p).to_bytes().to_vec();
                case.groups = groups64(quantize_grid(shape, out_l));
                Run {
                    case,
                    inputs: vec![input, Vec::new()],
                }
            })
            .collect()
    });
}

#[test]
fn dequantize_variants_match_glslang() {
    let set = DEQUANTIZE;
    check_set(set, |v, rng| {
        assert_eq!(v.blob.reflection().local_size, [64, 1, 1]);
        let in_l = layout(axis(set, v, "IN_LAYOUT"));
        let vec = axis(set, v, "VEC");
        let storage = FloatStorage::of(v.target.options);
        let cmp = match storage {
            FloatStorage::F32 => Cmp::F32Ulps(1),
            FloatStorage::F16 => Cmp::F16Ulps(1),
            FloatStorage::Bf16 => Cmp::Bf16Ulps(1),
        };
        // Shapes whose width selects this variant's vector width.
        let shapes: &[[usize; 4]] = match vec {
            4 => &[[1, 6, 3, 8], [2, 4, 1, 4]],
            2 => &[[2, 5, 3, 6], [1, 8, 2, 2]],
            _ => &[[1, 7, 2, 5], [2, 3, 3, 1]],
        };
        shapes
            .iter()
            .map(|dims| {
                let shape = Shape::from_dims(*dims);
                assert_eq!(dequantize_vec_width(shape.w) as i64, vec);
                let p = params(rng);
                let in_bytes = in_l.byte_count(shape);
                let out_bytes = storage.buffer_bytes(shape.elements());
                let io = vec![
                    Io::In(in_bytes as u64, Fill::Words),
                    Io::Out(out_bytes as u64, cmp),
                ];
                let mut case = Case::new(&format!("{dims:?}"), "", "", io);
                case.push_constants = DequantizePush::new(shape, p).to_bytes().to_vec();
                case.groups = groups64(dequantize_grid(shape));
                Run {
                    inputs: vec![words(rng, in_bytes), Vec::new()],
                    case,
                }
            })
            .collect()
    });
}

/// The comparison of bf16 outputs, which only this file uses: one bf16 ulp
/// passes, two fail.
#[test]
fn bf16_comparison_can_fail() {
    let b = |bits: &[u16]| {
        bits.iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    let compare = ncnn_glsl_testkit::differential::compare;
    assert!(compare(Cmp::Bf16Ulps(1), &b(&[0x3f80]), &b(&[0x3f81])).is_ok());
    assert!(compare(Cmp::Bf16Ulps(1), &b(&[0x3f80]), &b(&[0x3f82])).is_err());
    assert!(compare(Cmp::Bf16Ulps(1), &b(&[0x8000]), &b(&[0x0000])).is_ok());
    assert!(compare(Cmp::Bf16Ulps(1), &b(&[0xbf80]), &b(&[0x3f80])).is_err());
    assert!(compare(Cmp::Bf16Ulps(0), &b(&[0x0001]), &b(&[0x8001])).is_err());
}
