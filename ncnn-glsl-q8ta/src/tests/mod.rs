//! Tests of the q8ta host side: requantization exactness, layouts, the golden
//! vectors, the shader models and the errors.

use super::launch::{self, Axes, BlockAxis, ShufflePath};
use super::model::{self, Memory};
use super::push::{DequantizePush, QuantizePush, ShufflePush};
use super::reference::{self, pixel_shuffle, pixel_shuffle_nchw};
use super::*;
use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::Rng;

mod float;
mod geometry;
mod plans;

/// The seed of a test's inputs: fresh each run, `NCNN_SEED` repeats one.
fn seed() -> u64 {
    ncnn_glsl_testkit::rng::fresh_seed()
}

fn qp(scale: f32, zp: i32) -> QuantParams {
    QuantParams {
        scale,
        zero_point: zp,
    }
}

/// `m * 2^e` of an f32.
fn parts(x: f32) -> (u128, i32) {
    let b = x.to_bits();
    let e = ((b >> 23) & 0xff) as i32;
    let f = (b & 0x7f_ffff) as u128;
    if e == 0 {
        (f, -149)
    } else {
        (f | 0x80_0000, e - 150)
    }
}

/// The exact real-valued requantization, by integer arithmetic on the
/// rationals (independent of the fixed-point form).
fn exact_requant(q: i8, i: QuantParams, o: QuantParams) -> i8 {
    let d = q as i32 - i.zero_point;
    let (mi, ei) = parts(i.scale);
    let (mo, eo) = parts(o.scale);
    let e = ei - eo;
    let x = d.unsigned_abs() as u128;
    // floor(x * mi * 2^e / mo + 1/2) = floor((2 x mi 2^e + mo) / (2 mo)).
    let y: u128 = if x == 0 {
        0
    } else if e > 40 {
        1000 // r >= 2^16: saturates
    } else if e < -70 {
        0 // r < 2^-46: x * r < 2^-37
    } else if e >= 0 {
        (((2 * x * mi) << e) + mo) / (2 * mo)
    } else {
        let s = (-e) as u32;
        (2 * x * mi + (mo << s)) / ((2 * mo) << s)
    };
    let y = y.min(1000) as i32;
    let r = if d < 0 {
        o.zero_point - y
    } else {
        o.zero_point + y
    };
    r.clamp(-128, 127) as i8
}

fn f64_requant(q: i8, i: QuantParams, o: QuantParams) -> f64 {
    let v = (q as i32 - i.zero_point) as f64 * i.scale as f64 / o.scale as f64;
    (round_half_away(v) + o.zero_point as f64).clamp(-128.0, 127.0)
}

pub(super) fn check_requant(i: QuantParams, o: QuantParams) {
    let r = Requant::new(i, o).unwrap();
    for q in -128..=127i8 {
        let got = r.apply(q);
        if r.passthrough {
            assert_eq!(got, q);
            continue;
        }
        let want = exact_requant(q, i, o);
        assert_eq!(got, want, "q {q}, in {i:?}, out {o:?}, {r:?}");
        if r.float_exact {
            for fused in [false, true] {
                let f = r.apply_float(q, fused);
                assert_eq!(
                    f, want,
                    "f32 (fused {fused}): q {q}, in {i:?}, out {o:?}, {r:?}"
                );
            }
        }
        let f = f64_requant(q, i, o);
        assert!(
            (got as f64 - f).abs() <= 1.0,
            "q {q} {i:?} {o:?}: {got} vs f64 {f}"
        );
    }
}

#[test]
fn requant_is_exact_over_a_sweep_of_scales() {
    let s = seed();
    eprintln!("seed {s}");
    let mut g = Rng::new(s);
    let zps = [-128, -127, -7, -1, 0, 1, 3, 64, 126, 127];
    let specials = [
        1.0f32,
        0.5,
        2.0,
        0.02,
        0.04,
        0.1,
        1.0 / 3.0,
        3.0,
        255.0,
        256.0,
        257.0,
        1.0 / 256.0,
        1.0 / 1024.0,
        1.0 / 1000.0,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x7f),
        f32::MAX,
        1e30,
        1e-30,
        f32::from_bits(0x3be9_0bc8),
    ];
    let mut scales: Vec<f32> = specials.to_vec();
    for _ in 0..60 {
        // Random exponents over the whole range, and mostly within a few octaves.
        let e = if g.below(2) == 0 {
            g.below(254) + 1
        } else {
            120 + g.below(14)
        } as u32;
        scales.push(f32::from_bits(
            (e << 23) | (g.next_u64() as u32 & 0x7f_ffff),
        ));
    }
    let mut pairs = Vec::new();
    for &a in &scales {
        for &b in &scales {
            pairs.push((a, b));
        }
        // Ratios next to 1, 2 and 1/2 and at exact halves.
        for b in [
            f32::from_bits(a.to_bits() + 1),
            f32::from_bits(a.to_bits().saturating_sub(1).max(1)),
            a * 2.0,
            a * 0.5,
            a * 3.0,
            a * 4.0,
            a / 255.0,
            a * 255.0,
        ] {
            if b.is_finite() && b > 0.0 {
                pairs.push((a, b));
                pairs.push((b, a));
            }
        }
    }
    for (k, (a, b)) in pairs.into_iter().enumerate() {
        let zi = zps[k % zps.len()];
        let zo = zps[(k / zps.len() + 3 * k) % zps.len()];
        check_requant(qp(a, zi), qp(b, zo));
        check_requant(qp(a, zo), qp(b, zi));
    }
}

#[test]
fn requant_ties_and_saturation() {
    // scale ratio exactly 1/2: every odd d is a tie, rounded away from zero.
    let r = Requant::new(qp(0.02, 0), qp(0.04, 0)).unwrap();
    assert!(!r.passthrough);
    assert_eq!(r.apply(1), 1);
    assert_eq!(r.apply(-1), -1);
    assert_eq!(r.apply(3), 2);
    assert_eq!(r.apply(-3), -2);
    assert_eq!(r.apply(127), 64);
    assert_eq!(r.apply(-128), -64);
    // x2 saturates.
    let r = Requant::new(qp(0.04, -2), qp(0.02, 9)).unwrap();
    assert_eq!(r.apply(127), 127);
    assert_eq!(r.apply(-128), -128);
    assert_eq!(r.apply(-2), 9);
    // Huge ratio: everything but zp_in saturates.
    let r = Requant::new(qp(f32::MAX, 5), qp(f32::from_bits(1), -3)).unwrap();
    assert_eq!(r.apply(5), -3);
    assert_eq!(r.apply(6), 127);
    assert_eq!(r.apply(4), -128);
    // Tiny ratio: everything maps to zp_out.
    let r = Requant::new(qp(f32::from_bits(1), -128), qp(f32::MAX, 17)).unwrap();
    assert!(r.table().iter().all(|&v| v == 17));
}

#[test]
fn passthrough_is_the_identity() {
    for (s, z) in [
        (f32::from_bits(0x3be9_0bc8), 0),
        (0.05, -7),
        (1.0, 127),
        (3e-20, -128),
    ] {
        let r = Requant::new(qp(s, z), qp(s, z)).unwrap();
        assert!(r.passthrough);
        assert_eq!(r.table(), std::array::from_fn(|i| i as u8 as i8));
        // The fixed-point path gives the identity too (a requant variant fed equal params).
        let forced = Requant {
            passthrough: false,
            ..r
        };
        assert_eq!(forced.table(), r.table(), "{s} {z}");
    }
}

/// The golden vectors: part of the test binary, so no test runs without them.
const VECTORS: &str = include_str!("../../tests/data/q8ta_pixel_shuffle.json");

struct Case {
    name: String,
    in_shape: Shape,
    out_shape: Shape,
    in_layout: Layout,
    out_layout: Layout,
    requant: Requant,
    input: Vec<u32>,
    expected: Vec<u32>,
}

fn cases() -> Vec<Case> {
    super::vectors::cases(VECTORS)
        .unwrap()
        .iter()
        .map(|c| {
            let v = super::vectors::VectorCase::from_json(c).unwrap();
            assert_eq!(
                v.input_params.scale as f64, v.scale_in_decimal,
                "{}",
                v.name
            );
            let requant = Requant::new(v.input_params, v.output_params).unwrap();
            assert_eq!(requant.passthrough, v.passthrough, "{}", v.name);
            Case {
                name: v.name,
                in_shape: v.input_shape,
                out_shape: v.output_shape,
                in_layout: v.in_layout,
                out_layout: v.out_layout,
                requant,
                input: v.input,
                expected: v.expected,
            }
        })
        .collect()
}

/// A kernel the models run: the new kernel's path and block axis, or the
/// baseline (`None`).
type ModelKernel = Option<(ShufflePath, BlockAxis)>;

/// The modelled dispatch of `kernel`, the grid clamped as the host does
/// (`PixelShuffle::launch`): every axis but the blocks' to `max_groups`.
fn run_model(
    c: &Case,
    kernel: ModelKernel,
    local: [u32; 3],
    max_groups: u32,
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let (grid, blocks) = match kernel {
        None => (
            launch::baseline_grid(c.in_shape, c.out_layout),
            BlockAxis::X,
        ),
        Some((p, b)) => (launch::shuffle_grid(c.in_shape, p, b), b),
    };
    let fixed = blocks.index();
    let (_, launched) = launch::launch_shuffle(grid, local, [max_groups; 3], blocks);
    let p = ShufflePush::new(c.in_shape, &c.requant, launched, local);
    let a = Axes {
        in_layout: c.in_layout,
        out_layout: c.out_layout,
        passthrough: c.requant.passthrough,
    };
    let mut m = Memory::new(&c.input, c.out_layout.word_count(c.out_shape), 0xdead_beef);
    match kernel {
        None => model::dispatch(grid, local, max_groups, fixed, |g| {
            model::baseline_invocation(g, &p, a, &mut m)
        }),
        Some((path, blocks)) => model::dispatch(grid, local, max_groups, fixed, |g| {
            model::shuffle_invocation(g, &p, a, path, blocks, &mut m)
        }),
    }
    (m.output, m.writes, m.reads)
}

#[test]
fn golden_vectors_pass_the_reference_and_both_models() {
    let cases = cases();
    assert_eq!(cases.len(), 135, "3 x 3 layout pairs, 15 cases each");
    for c in &cases {
        assert_eq!(
            c.in_layout.word_count(c.in_shape),
            c.input.len(),
            "{}",
            c.name
        );
        assert_eq!(
            c.out_layout.word_count(c.out_shape),
            c.expected.len(),
            "{}",
            c.name
        );
        let got =
            pixel_shuffle(&c.input, c.in_layout, c.in_shape, c.out_layout, &c.requant).unwrap();
        assert_eq!(got, c.expected, "{}", c.name);
        for kernel in kernels_for(c.in_shape) {
            let (out, writes, reads) = run_model(c, kernel, [4, 16, 1], 65535);
            assert_eq!(out, c.expected, "{} kernel={kernel:?}", c.name);
            assert!(writes.iter().all(|&w| w == 1), "{}", c.name);
            for (i, &r) in reads.iter().enumerate() {
                let real = real_input_word(c.in_layout, c.in_shape, i);
                assert!(real || r == 0, "{}: padding word {i} read", c.name);
            }
        }
    }
}

fn random_case(g: &mut Rng, in_shape: Shape, il: Layout, ol: Layout, requant: Requant) -> Case {
    let os = reference::shuffle_output_shape(in_shape).unwrap();
    // Junk everywhere, padding included: the kernels must not read it.
    let input: Vec<u32> = (0..il.word_count(in_shape))
        .map(|_| g.next_u64() as u32)
        .collect();
    let expected = pixel_shuffle(&input, il, in_shape, ol, &requant).unwrap();
    Case {
        name: format!("{in_shape} {il}->{ol} {requant:?}"),
        in_shape,
        out_shape: os,
        in_layout: il,
        out_layout: ol,
        requant,
        input,
        expected,
    }
}

#[test]
fn models_match_the_reference_on_every_layout_pair_and_shape() {
    let s = seed();
    eprintln!("seed {s}");
    let mut g = Rng::new(s);
    let shapes = [
        Shape::new(1, 4, 1, 1),
        Shape::new(1, 4, 3, 5),
        Shape::new(2, 4, 2, 3),
        Shape::new(1, 24, 3, 5),
        Shape::new(2, 24, 4, 4),
        Shape::new(1, 256, 2, 3),
        Shape::new(2, 256, 3, 2),
        Shape::new(1, 256, 1, 1),
        Shape::new(2, 8, 5, 7),
        // The tiled path (W % 4 == 0, C_out % 16 == 0).
        Shape::new(2, 64, 3, 4),
        Shape::new(1, 256, 2, 8),
    ];
    let requants = [
        Requant::new(qp(0.05, -7), qp(0.05, -7)).unwrap(),
        Requant::new(qp(0.02, 3), qp(0.04, -5)).unwrap(),
        Requant::new(qp(0.04, -2), qp(0.02, 9)).unwrap(),
        Requant::new(qp(0.0075838477, -16), qp(0.013498383, 1)).unwrap(),
    ];
    for shape in shapes {
        for il in Layout::ALL {
            for ol in Layout::ALL {
                for rq in requants {
                    let c = random_case(&mut g, shape, il, ol, rq);
                    // NCHW reference agrees with the layout reference.
                    let x = unpack(il, shape, &c.input).unwrap();
                    let (os, y) = pixel_shuffle_nchw(&x, shape, &rq).unwrap();
                    assert_eq!(unpack(ol, os, &c.expected).unwrap(), y);
                    let mut runs = vec![(None, [64, 1, 1])];
                    for kernel in kernels_for(shape).into_iter().flatten() {
                        for local in [[4, 16, 1], [16, 4, 1], [1, 64, 1], [2, 2, 2]] {
                            runs.push((Some(kernel), local));
                        }
                    }
                    for (kernel, local) in runs {
                        let baseline = kernel.is_none();
                        // A small max_groups clamps the y and z grids as the host does: the shaders loop.
                        for max_groups in [65535, 1, 2] {
                            let (out, writes, reads) = run_model(&c, kernel, local, max_groups);
                            assert_eq!(
                                out, c.expected,
                                "{} kernel={kernel:?} {local:?} {max_groups}",
                                c.name
                            );
                            assert!(
                                writes.iter().all(|&w| w == 1),
                                "{}: a word written != once",
                                c.name
                            );
                            // Input padding (4W4C words at w >= W) is never read; the new kernel reads each real word once.
                            for (i, &r) in reads.iter().enumerate() {
                                let real = real_input_word(il, shape, i);
                                if !real {
                                    assert_eq!(r, 0, "{}: padding word {i} read", c.name);
                                } else if !baseline {
                                    assert_eq!(r, 1, "{}: word {i} read {r} times", c.name);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The baseline (`None`) and every path of the new kernel this shape
/// allows, with the blocks on either axis.
fn kernels_for(shape: Shape) -> Vec<ModelKernel> {
    let mut k = vec![None];
    for p in ShufflePath::ALL {
        if p.check(shape).is_ok() {
            k.extend(BlockAxis::ALL.map(|b| Some((p, b))));
        }
    }
    k
}

/// Whether word `i` of a tensor in `l` holds data (not width padding).
fn real_input_word(l: Layout, s: Shape, i: usize) -> bool {
    l != Layout::Packed4W4C || (i / (4 * s.c4())) % s.w4() * 4 + i % 4 < s.w
}

#[test]
fn pack_unpack_round_trips() {
    let mut g = Rng::new(seed());
    for c in [1, 4, 6, 64] {
        for w in [1, 2, 3, 4, 5, 8] {
            for n in [1, 2] {
                let s = Shape::new(n, c, 3, w);
                let x: Vec<i8> = (0..s.elements()).map(|_| g.i8()).collect();
                for l in Layout::ALL {
                    let zp = g.i8();
                    let words = pack(l, s, &x, zp).unwrap();
                    assert_eq!(words.len(), l.word_count(s));
                    assert_eq!(unpack(l, s, &words).unwrap(), x, "{l} {s}");
                    // Every padding byte is the zero point.
                    let mut real = vec![[false; 4]; words.len()];
                    for (nn, cc, hh, ww) in itertools(s) {
                        real[l.word_index(s, nn, cc, hh, ww)][cc % 4] = true;
                    }
                    for (wi, word) in words.iter().enumerate() {
                        for (lane, &is_real) in real[wi].iter().enumerate() {
                            if !is_real {
                                assert_eq!(
                                    super::layout::lane(*word, lane),
                                    zp,
                                    "{l} {s} word {wi}"
                                );
                            }
                        }
                    }
                    // The word index is a bijection onto the tensor's words.
                    let mut hit = vec![0; words.len()];
                    for (nn, cc, hh, ww) in itertools(s) {
                        if cc % 4 == 0 {
                            hit[l.word_index(s, nn, cc, hh, ww)] += 1;
                        }
                    }
                    let data_words = hit.iter().filter(|&&h| h == 1).count();
                    assert!(hit.iter().all(|&h| h <= 1));
                    assert_eq!(data_words, n * 3 * w * s.c4());
                }
            }
        }
    }
}

fn itertools(s: Shape) -> impl Iterator<Item = (usize, usize, usize, usize)> {
    (0..s.n).flat_map(move |n| {
        (0..s.c).flat_map(move |c| (0..s.h).flat_map(move |h| (0..s.w).map(move |w| (n, c, h, w))))
    })
}

#[test]
fn layout_codes_and_names() {
    for (i, l) in Layout::ALL.into_iter().enumerate() {
        assert_eq!(l.axis_value(), i as i64);
        assert_eq!(Layout::from_name(l.name()), Some(l));
        assert_eq!(
            Layout::from_name(&format!("PACKED_INT8_{}", l.name())),
            Some(l)
        );
    }
    let s = Shape::new(2, 6, 3, 5);
    assert_eq!(Layout::Packed4W4C.word_count(s), 2 * 3 * 2 * 2 * 4);
    assert_eq!(Layout::Packed4C.word_count(s), 2 * 3 * 5 * 2);
    assert_eq!(Layout::Packed4C1W.word_count(s), 2 * 3 * 2 * 5);
}

#[test]
fn push_constants_layout() {
    let r = Requant::new(qp(0.02, 3), qp(0.04, -5)).unwrap();
    let p = ShufflePush::new(Shape::new(2, 24, 3, 5), &r, [8, 16, 65535], [4, 16, 1]);
    let b = p.to_bytes();
    let word = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!([word(0), word(1), word(2), word(3)], [2, 6, 3, 5]);
    assert_eq!(word(4) as i32, 3);
    assert_eq!(word(5) as i32, -5);
    assert_eq!(((word(6) as u64) << 24) | word(7) as u64, r.multiplier());
    assert_eq!(word(8), r.shift);
    assert_eq!([word(9), word(10), word(11)], [16, 65535, 64]);
    // Ratio 1/2 is exact: M / 2^S == 0.5.
    assert_eq!(r.multiplier() as f64 / 2f64.powi(r.shift as i32), 0.5);
}

#[test]
fn quantize_shader_path_matches_the_reference() {
    let s = seed();
    eprintln!("seed {s}");
    let mut g = Rng::new(s);
    let mut scales = vec![
        0.02f32,
        0.04,
        0.1,
        1.0 / 3.0,
        1.0,
        f32::from_bits(0x3be9_0bc8),
        3.7,
        1e-3,
        123.0,
    ];
    for _ in 0..40 {
        let e = 110 + g.below(30) as u32;
        scales.push(f32::from_bits(
            (e << 23) | (g.next_u64() as u32 & 0x7f_ffff),
        ));
    }
    for scale in scales {
        let k = QuantizeConsts::new(scale);
        assert_eq!(k.scale_hi + k.scale_lo, scale);
        let p = qp(scale, (g.below(256) as i32) - 128);
        let mut xs: Vec<f32> = vec![
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            -f32::MAX,
            1e-45,
        ];
        for y in -300i32..=300 {
            // Exact ties where f32 can hold them, and their neighbours.
            let t = ((y as f64 + 0.5) * scale as f64) as f32;
            xs.extend([
                t,
                f32::from_bits(t.to_bits() + 1),
                f32::from_bits(t.to_bits().wrapping_sub(1)),
            ]);
            xs.push((y as f64 * scale as f64) as f32);
        }
        for _ in 0..2000 {
            xs.push(
                ((((g.next_u64() >> 11) as f64 / (1u64 << 53) as f64) - 0.5) * 600.0 * scale as f64)
                    as f32,
            );
        }
        for x in xs {
            let want = quantize_value(x, p);
            let got = k.quantize(x, p.zero_point);
            if got != want {
                // Allowed only within 2^-20 of a tie (spec), which f64 itself may misjudge.
                let v = x as f64 / scale as f64;
                let frac = v.abs() - v.abs().floor();
                assert!(
                    (frac - 0.5).abs() < 2f64.powi(-20),
                    "x {x:e} scale {scale:e}: {got} vs {want}"
                );
                assert!((got as i32 - want as i32).abs() <= 1);
            }
        }
    }
}

#[test]
fn quantize_and_dequantize_references() {
    let s = Shape::new(2, 6, 3, 5);
    let p = qp(0.1, -3);
    let x: Vec<f32> = (0..s.elements())
        .map(|i| (i as f32 - 80.0) * 0.05)
        .collect();
    for l in Layout::ALL {
        let words = reference::quantize(&x, s, l, p).unwrap();
        let back = reference::dequantize(&words, s, l, p).unwrap();
        for (a, b) in x.iter().zip(&back) {
            assert!((a - b).abs() <= 0.05 + 1e-6, "{a} {b}");
        }
    }
    assert_eq!(quantize_value(0.15, qp(0.1, 0)), 2); // 1.4999999 or 1.5000001 in f64: f32 0.15 is above
    assert_eq!(quantize_value(0.25, qp(0.5, 0)), 1);
    assert_eq!(quantize_value(-0.25, qp(0.5, 0)), -1);
    assert_eq!(quantize_value(1000.0, qp(0.5, 0)), 127);
    assert_eq!(quantize_value(-1000.0, qp(0.5, 0)), -128);
    assert_eq!(quantize_value(f32::NAN, qp(0.5, 4)), 4);
    assert_eq!(dequantize_value(-128, qp(0.5, 127)), -127.5);
}

#[test]
fn bad_inputs_are_errors_naming_the_value() {
    let e = |r: Result<Requant, Q8taError>| r.unwrap_err().to_string();
    assert!(e(Requant::new(qp(0.0, 0), qp(1.0, 0))).contains("input scale 0.0"));
    assert!(e(Requant::new(qp(1.0, 0), qp(-1.0, 0))).contains("output scale -1.0"));
    assert!(e(Requant::new(qp(f32::NAN, 0), qp(1.0, 0))).contains("NaN"));
    assert!(e(Requant::new(qp(f32::INFINITY, 0), qp(1.0, 0))).contains("inf"));
    // Float conversions refuse subnormal scales and scales whose reciprocal
    // is subnormal; the integer requantization takes them exactly.
    let tiny = f32::MIN_POSITIVE / 2.0;
    let floats = |s: f32| qp(s, 0).validate_for_floats("quantize");
    assert!(floats(tiny)
        .unwrap_err()
        .to_string()
        .contains(&format!("quantize scale {tiny:?}")));
    assert!(floats(1e38).unwrap_err().to_string().contains("normal f32"));
    assert!(floats(f32::MIN_POSITIVE).is_ok() && floats(1.0 / f32::MIN_POSITIVE).is_ok());
    assert!(Requant::new(qp(tiny, 0), qp(1.0, 0)).is_ok());
    assert!(e(Requant::new(qp(1.0, 128), qp(1.0, 0))).contains("input zero point 128"));
    assert!(e(Requant::new(qp(1.0, 0), qp(1.0, -129))).contains("output zero point -129"));
    assert!(QuantParams::new(1.0, 200, "weights")
        .unwrap_err()
        .to_string()
        .contains("weights zero point 200"));
    let i = Shape::new(1, 16, 4, 4);
    assert_eq!(
        check_shuffle_shapes(i, Shape::new(1, 4, 8, 8), 3),
        Err(Q8taError::UpscaleFactor(3))
    );
    assert!(matches!(
        check_shuffle_shapes(i, Shape::new(1, 5, 8, 8), 2),
        Err(Q8taError::Channels { c_in: 16, c_out: 5 })
    ));
    let m = check_shuffle_shapes(i, Shape::new(1, 4, 8, 9), 2).unwrap_err();
    assert!(m.to_string().contains("expected [1, 4, 8, 8]"), "{m}");
    assert!(matches!(
        check_shuffle_shapes(Shape::new(2, 16, 4, 4), Shape::new(1, 4, 8, 8), 2),
        Err(Q8taError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        check_shuffle_shapes(Shape::new(1, 0, 4, 4), Shape::new(1, 0, 8, 8), 2),
        Err(Q8taError::Empty { .. })
    ));
    assert!(matches!(
        check_shuffle_shapes(
            Shape::new(1, 4 << 20, 1024, 1024),
            Shape::new(1, 1 << 20, 2048, 2048),
            2
        ),
        Err(Q8taError::TooLarge { .. })
    ));
    // Products past usize: an error with the count, never a panic or a wrap
    // (a wrapped product can be 0: "has a zero dimension").
    let m = usize::MAX;
    for (i, o) in [
        (Shape::new(m, 4, m, m), Shape::new(m, 1, 2, 2)),
        (
            Shape::new(1 << 32, 1 << 32, 4, 4),
            Shape::new(1 << 32, 1 << 30, 8, 8),
        ),
        (Shape::new(1, m, 1, 1), Shape::new(1, m / 4, 2, 2)),
    ] {
        let e = check_shuffle_shapes(i, o, 2).unwrap_err();
        assert!(
            matches!(e, Q8taError::TooLarge { what: "input", .. }),
            "{e}"
        );
        assert!(e.to_string().contains("at most 2147483647"), "{e}");
        assert!(Shape::new(m, m, 1, 1).elements() == m);
    }
    let e = check_shuffle_shapes(
        Shape::new(1 << 16, 1 << 16, 1 << 16, 1 << 16),
        Shape::new(1, 1, 1, 1),
        2,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("18446744073709551616 elements with its padding"),
        "{e}"
    );
    assert!(matches!(
        reference::shuffle_output_shape(Shape::new(1, 6, 2, 2)),
        Err(Q8taError::Channels { .. })
    ));
    let r = Requant::new(qp(1.0, 0), qp(1.0, 0)).unwrap();
    let short = vec![0u32; 3];
    let err = pixel_shuffle(&short, Layout::Packed4C, i, Layout::Packed4C, &r).unwrap_err();
    assert_eq!(
        err,
        Q8taError::BufferTooSmall {
            what: "packed input",
            needed: 64,
            len: 3
        }
    );
    assert!(err.to_string().contains("holds 3"), "{err}");
}

#[test]
fn quantize_and_dequantize_models_match_the_references() {
    let s = seed();
    eprintln!("seed {s}");
    let mut g = Rng::new(s);
    for shape in [
        Shape::new(1, 1, 1, 1),
        Shape::new(2, 6, 3, 5),
        Shape::new(1, 64, 2, 4),
        Shape::new(2, 3, 2, 6),
        Shape::new(1, 5, 3, 7),
    ] {
        for layout in Layout::ALL {
            let p = qp(
                0.0123 + g.below(100) as f32 * 1e-3,
                g.below(256) as i32 - 128,
            );
            let x: Vec<f32> = (0..shape.elements())
                .map(|_| (g.below(100_000) as f32 - 50_000.0) * 1e-4)
                .collect();
            let want = reference::quantize(&x, shape, layout, p).unwrap();
            let push = QuantizePush::new(shape, p);
            let mut m = Memory::new(&[], layout.word_count(shape), 0xdead_beef);
            model::dispatch(
                launch::quantize_grid(shape, layout),
                [64, 1, 1],
                65535,
                0,
                |gid| model::quantize_invocation(gid, &push, layout, &x, &mut m),
            );
            assert_eq!(m.output, want, "{shape} {layout}");
            assert!(m.writes.iter().all(|&w| w == 1));

            // Dequantize from words with junk in the padding: never read.
            let mut words = want.clone();
            for (i, w) in words.iter_mut().enumerate() {
                if !real_input_word(layout, shape, i) {
                    *w = g.next_u64() as u32;
                }
            }
            let want = reference::dequantize(&words, shape, layout, p).unwrap();
            let dp = DequantizePush::new(shape, p);
            let mut m = Memory::new(&words, 0, 0);
            let mut out = vec![f32::NAN; shape.elements()];
            let mut writes = vec![0u32; shape.elements()];
            model::dispatch(
                launch::dequantize_grid(shape),
                [64, 1, 1],
                65535,
                0,
                |gid| model::dequantize_invocation(gid, &dp, layout, &mut m, &mut out, &mut writes),
            );
            assert_eq!(out, want, "{shape} {layout}");
            assert!(writes.iter().all(|&w| w == 1));
            for (i, &r) in m.reads.iter().enumerate() {
                if !real_input_word(layout, shape, i) {
                    assert_eq!(r, 0, "padding word {i} read");
                }
            }
        }
    }
    assert_eq!(
        QuantizePush::new(Shape::new(1, 2, 3, 4), qp(0.5, -1))
            .to_bytes()
            .len(),
        32
    );
    assert_eq!(launch::dequantize_vec_width(6), 2);
    assert_eq!(launch::dequantize_vec_width(8), 4);
    assert_eq!(launch::dequantize_vec_width(7), 1);
}

/// The public helpers that take unchecked values (public fields, a local
/// size no pipeline has, a shape no operation accepts) never panic: they
/// saturate or wrap, and the checks of the operations refuse such values
/// with the value and the limit.
#[test]
fn public_helpers_take_any_value_without_panicking() {
    let (groups, launched) = launch::launch([10, 1, 1], [0, 1, 1], [u32::MAX; 3]);
    assert_eq!((groups, launched), ([10, 1, 1], [10, 1, 1]));
    let (_, launched) = launch::launch([u32::MAX, 1, 1], [0x8000_0001, 1, 1], [u32::MAX; 3]);
    assert_eq!(launched[0], u32::MAX);
    let huge = Shape::new(1 << 33, 4, 1 << 33, 4);
    for layout in [Layout::Packed4C, Layout::Packed4W4C] {
        let grid = launch::quantize_grid(huge, layout);
        assert_eq!(grid[1], u32::MAX, "{grid:?}");
        assert_eq!(launch::baseline_grid(huge, layout)[1], u32::MAX);
    }
    assert_eq!(launch::dequantize_grid(huge)[2], u32::MAX);
    assert_eq!(
        ncnn_glsl_runtime::FloatStorage::F32.buffer_bytes(usize::MAX / 2),
        usize::MAX
    );
    let bad = Requant {
        zp_in: i32::MIN,
        zp_out: i32::MAX,
        mult_hi: u32::MAX,
        mult_lo: u32::MAX,
        shift: 0,
        passthrough: false,
        ratio: f32::NAN,
        float_exact: true,
    };
    for q in i8::MIN..=i8::MAX {
        let _ = bad.apply(q);
        let _ = bad.apply_float(q, true);
    }
    assert!(!bad.float_is_exact());
    let _ = Requant {
        ratio: f32::MAX,
        ..bad
    }
    .float_is_exact();
    let _ = ShufflePush::new(huge, &bad, [u32::MAX; 3], [65536, 65536, 1]);
}
