//! Interp: nearest, bilinear and bicubic resizing, with the f64 taps
//! the references sample.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob_tol, packed_mat, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{
    blob, blob_local, dispatcher, finish_run, local, placed, shape5, shape_consts, step, Arena,
    Placed,
};

/// The source position of output `o` along an axis (`scale` input pixels
/// per output pixel), clamped to the `n` input pixels: bilinear's pair of
/// pixels and the second's weight.
fn linear_taps(o: u32, n: u32, scale: f32, align_corner: bool) -> (u32, f64) {
    let s = f64::from(scale);
    let f = if align_corner {
        f64::from(o) * s
    } else {
        (f64::from(o) + 0.5) * s - 0.5
    };
    let f = f.clamp(0.0, f64::from(n - 1));
    let i = (f.floor() as u32).min(n - 2);
    (i, f - f64::from(i))
}

/// Cubic convolution (`A = -0.75`) at output `o` along an axis of `n`
/// input pixels: the four taps (clamped to the edge pixels, which then
/// carry the weight of the taps past them), each weight, and the magnitude
/// of the terms the weight is computed from.
fn cubic_taps(o: u32, n: u32, scale: f32, align_corner: bool) -> [(u32, f64, f64); 4] {
    const A: f64 = -0.75;
    let s = f64::from(scale);
    let f = if align_corner {
        f64::from(o) * s
    } else {
        (f64::from(o) + 0.5) * s - 0.5
    };
    let sx = f.floor();
    let t = f - sx;
    let near = |x: f64| {
        (
            (A + 2.0) * x * x * x - (A + 3.0) * x * x + 1.0,
            (A + 2.0).abs() * x * x * x + (A + 3.0).abs() * x * x + 1.0,
        )
    };
    let x0 = t + 1.0;
    let w0 = A * x0 * x0 * x0 - 5.0 * A * x0 * x0 + 8.0 * A * x0 - 4.0 * A;
    let m0 = A.abs() * (x0 * x0 * x0 + 5.0 * x0 * x0 + 8.0 * x0 + 4.0);
    let (w1, m1) = near(t);
    let (w2, m2) = near(1.0 - t);
    let w3 = 1.0 - w0 - w1 - w2;
    let m3 = 1.0 + w0.abs() + w1.abs() + w2.abs() + m0 + m1 + m2;
    let mut taps = [(0u32, 0.0, 0.0); 4];
    for (k, (w, m)) in [(w0, m0), (w1, m1), (w2, m2), (w3, m3)]
        .into_iter()
        .enumerate()
    {
        let i = (sx as i64 - 1 + k as i64).clamp(0, i64::from(n) - 1) as u32;
        taps[k] = (i, w, m);
    }
    taps
}

/// One interp configuration: the input, the output width and height, the
/// resize type (1 nearest, 2 bilinear, 3 bicubic), align_corner, shapes
/// specialized or not.
type InterpConfig = (&'static [u32], [u32; 2], i32, bool, bool);

/// `interp_vulkan.cpp` with an explicit output size: `interp` /
/// `interp_pack4` (nearest and bilinear; a 1-D input becomes channels of a
/// constant image), or for bicubic the `interp_bicubic_coeffs` pass per
/// axis (weights and offsets into workspace blobs) then `interp_bicubic` /
/// `interp_bicubic_pack4`. A 2-D input resizes its width only. The scales
/// are exact in fp16, so the sample positions are the same in every mode.
pub(crate) fn interp(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[InterpConfig] = &[
        (&[4, 8], [8, 1], 1, false, true),
        (&[6, 3], [4, 1], 2, false, false),
        (&[5, 8], [9, 1], 2, true, true),
        (&[3, 4, 3], [6, 8], 1, false, true),
        (&[6, 4, 8], [4, 2], 1, false, false),
        (&[4, 3, 8], [8, 6], 2, false, true),
        (&[6, 4, 3], [4, 8], 2, false, false),
        (&[5, 3, 4], [9, 5], 2, true, true),
        (&[8], [3, 2], 1, false, true),
        (&[5], [2, 3], 2, false, false),
        (&[4, 4, 8], [8, 8], 3, false, true),
        (&[5, 4, 3], [9, 7], 3, true, false),
        (&[4, 5], [8, 1], 3, false, false),
        (&[6, 8], [3, 1], 3, false, true),
    ];
    let mut runs = Vec::new();
    for &(shape, [outw, outh], resize, align, known) in configs {
        let dims = shape.len();
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let bot = blob(shape, mode);
        let ep = bot.elempack;
        let (top_m, out_shape) = match dims {
            1 => {
                let s = vec![outw, outh, shape[0]];
                (packed_mat(&s, ep, mode), s)
            }
            2 => {
                let s = vec![outw, shape[1]];
                (packed_mat(&s, ep, mode), s)
            }
            _ => {
                let s = vec![outw, outh, shape[2]];
                (packed_mat(&s, ep, mode), s)
            }
        };
        let (w, h) = (bot.w, bot.h);
        let ratio = |a: u32, b: u32| {
            if align && resize != 1 {
                (a - 1) as f32 / (b - 1) as f32
            } else {
                a as f32 / b as f32
            }
        };
        let scale_x = ratio(w, outw);
        let scale_y = if dims == 2 { 1.0 } else { ratio(h, outh) };

        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bot);
        let out = a.blob(&top_m);
        let mut steps = Vec::new();
        let main_local = local(device, blob_local(&top_m, known));
        if resize != 3 {
            let shader = if ep == 4 {
                "interp_pack4.comp"
            } else {
                "interp.comp"
            };
            let (spec_values, push) = shape_consts(
                vec![SpecValue::Int(resize), SpecValue::Int(i32::from(align))],
                &shape5(&bot),
                &shape5(&top_m),
                known,
                &[scale_x.to_bits(), scale_y.to_bits()],
            );
            steps.push(step(
                shader,
                main_local,
                &spec_values,
                push,
                &[input, out],
                dispatcher(&top_m),
            ));
        } else {
            // The weights are vec4s of the storage; the offsets are ints.
            let sb = u64::from(mode.scalar_bytes());
            let coeffs = |a: &mut Arena, n: u32, outn: u32, scale: f32| -> (Placed, Placed, Step) {
                let alpha = a.output(u64::from(outn) * 4 * sb);
                let ofs = a.output(u64::from(outn) * 4);
                let spec_values = [
                    SpecValue::Int(i32::from(align)),
                    SpecValue::Int(if known { n as i32 } else { 0 }),
                    SpecValue::Int(if known { outn as i32 } else { 0 }),
                ];
                let l = local(
                    device,
                    if known {
                        [outn.min(64), 1, 1]
                    } else {
                        [64, 1, 1]
                    },
                );
                let s = step(
                    "interp_bicubic_coeffs.comp",
                    l,
                    &spec_values,
                    vec![n, outn, scale.to_bits()],
                    &[alpha, ofs],
                    [outn, 1, 1],
                );
                (alpha, ofs, s)
            };
            let (alpha, xofs, sx) = coeffs(&mut a, w, outw, scale_x);
            steps.push(sx);
            let (beta, yofs) = if dims == 2 {
                (alpha, xofs)
            } else {
                let (beta, yofs, sy) = coeffs(&mut a, h, outh, scale_y);
                steps.push(sy);
                (beta, yofs)
            };
            let shader = if ep == 4 {
                "interp_bicubic_pack4.comp"
            } else {
                "interp_bicubic.comp"
            };
            let (spec_values, push) =
                shape_consts(vec![], &shape5(&bot), &shape5(&top_m), known, &[]);
            steps.push(step(
                shader,
                main_local,
                &spec_values,
                push,
                &[input, out, alpha, xofs, beta, yofs],
                dispatcher(&top_m),
            ));
        }
        let at = |x: u32, y: u32, q: u32| -> f64 {
            match dims {
                2 => f64::from(t.at(x, q, 0, 0)),
                _ => f64::from(t.at(x, y, 0, q)),
            }
        };
        let h_in = if dims == 3 { shape[1] } else { 1 };
        let expect = expect_blob_tol(0, &top_m, &out_shape, |x, y, _, q| {
            // The row of a 2-D blob is its `h`; of a 3-D one the channel.
            let (y, q) = if dims == 2 { (0, y) } else { (y, q) };
            if dims == 1 {
                let v = f64::from(t.at(q, 0, 0, 0));
                return (v, mode.tol(v, v.abs()));
            }
            let w_in = shape[0];
            match resize {
                1 => {
                    let sx = ((f64::from(x) * f64::from(scale_x)).floor() as u32).min(w_in - 1);
                    let sy = ((f64::from(y) * f64::from(scale_y)).floor() as u32).min(h_in - 1);
                    let v = at(sx, sy, q);
                    (v, mode.tol(v, v.abs()))
                }
                2 => {
                    let (ix, fx) = linear_taps(x, w_in, scale_x, align);
                    let rows: Vec<(u32, f64)> = if dims == 2 {
                        vec![(0, 1.0)]
                    } else {
                        let (iy, fy) = linear_taps(y, h_in, scale_y, align);
                        vec![(iy, 1.0 - fy), (iy + 1, fy)]
                    };
                    let (mut v, mut mag) = (0.0, 0.0);
                    for (yy, wy) in rows {
                        for (xx, wx) in [(ix, 1.0 - fx), (ix + 1, fx)] {
                            let p = at(xx, yy, q);
                            v += wx * wy * p;
                            mag += (wx * wy * p).abs();
                        }
                    }
                    (v, mode.tol(v, mag))
                }
                _ => {
                    let cols = cubic_taps(x, w_in, scale_x, align);
                    let rows = if dims == 2 {
                        [(0, 1.0, 0.0), (0, 0.0, 0.0), (0, 0.0, 0.0), (0, 0.0, 0.0)]
                    } else {
                        cubic_taps(y, h_in, scale_y, align)
                    };
                    let (mut v, mut mag, mut stored) = (0.0, 0.0, 0.0);
                    for &(yy, wy, my) in &rows {
                        for &(xx, wx, mx) in &cols {
                            let p = at(xx, yy, q).abs();
                            v += wx * wy * at(xx, yy, q);
                            mag += p * (mx * wy.abs() + wx.abs() * my + 2.0 * (wx * wy).abs());
                            stored += p * (wx * wy).abs();
                        }
                    }
                    // The layer keeps each weight in the storage (its
                    // workspace blobs are `sfp`): one rounding of each of
                    // the two, hence twice the stored magnitude.
                    (v, mode.tol_stored(v, mag, 2.0 * stored))
                }
            }
        });
        runs.push(finish_run(
            format!("interp {shape:?} to {outw}x{outh} type {resize} align {align} spec {known}"),
            a,
            steps,
            vec![placed(expect, out)],
        ));
    }
    runs
}
