//! Pooling: windowed max and average through ncnn's padding layer, the
//! global reduce chain, and adaptive pooling.

use ncnn_glsl_runtime::{Flag, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, pack, packed_mat, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{
    local_known, optimal, packed, run_of, spec_ints, spec_known, words, Buffers, Geo,
};

/// The reference of pooling `vals` (kind 0 max, else the average over `n`)
/// and the magnitude of its terms.
fn pooled(kind: i32, vals: &[f64], n: f64) -> (f64, f64) {
    if kind == 0 {
        let v = vals.iter().cloned().fold(f64::MIN, f64::max);
        (v, v.abs())
    } else {
        let mag: f64 = vals.iter().map(|v| v.abs()).sum();
        (vals.iter().sum::<f64>() / n, mag / n)
    }
}

/// One Pooling configuration (the layer's parameters).
#[derive(Clone, Copy, Debug)]
struct Pool {
    /// `[w, h, c]`.
    shape: [u32; 3],
    elempack: u32,
    /// 0 max, 1 average.
    kind: i32,
    kernel: [u32; 2],
    stride: [u32; 2],
    /// left, right, top, bottom.
    pad: [u32; 4],
    pad_mode: i32,
    include_pad: bool,
    specialized: bool,
}

/// `pooling_vulkan.cpp` for a windowed pooling: the layer's padding layer
/// (`padding.comp` / `padding_pack4.comp`, constant `-FLT_MAX` for max,
/// `-65000` where fp16 is on, `0` for average), skipped where nothing is
/// padded, then `pooling` / `pooling_pack4` with the layer's parameters
/// specialized and the shapes specialized or pushed; pad mode 0 pads the
/// tail to whole strides and passes the tail to the shader, modes 2 and 3
/// pad "same". The reference windows the unpadded input.
pub(crate) fn pooling(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let base = Pool {
        shape: [7, 6, 8],
        elempack: 4,
        kind: 0,
        kernel: [3, 3],
        stride: [2, 2],
        pad: [1, 1, 1, 1],
        pad_mode: 1,
        include_pad: false,
        specialized: true,
    };
    let configs = [
        base,
        Pool {
            shape: [7, 6, 3],
            elempack: 1,
            kind: 1,
            kernel: [3, 2],
            stride: [2, 1],
            pad: [1, 0, 1, 1],
            pad_mode: 0,
            specialized: false,
            ..base
        },
        Pool {
            kind: 1,
            include_pad: true,
            specialized: false,
            ..base
        },
        Pool {
            kind: 1,
            pad_mode: 0,
            pad: [0, 0, 1, 0],
            kernel: [2, 3],
            ..base
        },
        Pool {
            shape: [6, 5, 3],
            elempack: 1,
            kind: 0,
            kernel: [3, 3],
            stride: [2, 2],
            pad: [0; 4],
            pad_mode: 2,
            ..base
        },
        Pool {
            pad_mode: 3,
            pad: [0; 4],
            specialized: false,
            ..base
        },
        Pool {
            shape: [5, 5, 4],
            kernel: [2, 2],
            stride: [1, 1],
            pad: [0; 4],
            ..base
        },
        Pool {
            shape: [5, 5, 4],
            kind: 1,
            kernel: [2, 2],
            stride: [2, 2],
            pad: [0; 4],
            specialized: false,
            ..base
        },
    ];
    let fp16 = [Flag::Fp16Packed, Flag::Fp16Storage, Flag::Fp16Arithmetic]
        .iter()
        .any(|f| mode.target.options.has(*f));
    let mut runs = Vec::new();
    for cfg in configs {
        let [w, h, cch] = cfg.shape;
        let ep = cfg.elempack;
        let [kw, kh] = cfg.kernel;
        let [sw, sh] = cfg.stride;
        let [pl, pr, pt, pb] = cfg.pad;
        let t = Tensor::random(&cfg.shape, mode, rng, -4.0, 4.0);
        let m = packed_mat(&cfg.shape, ep, mode);
        // The padding the layer applies (top, bottom, left, right) and the
        // tails it passes on.
        let (pads, wtail, htail) = match cfg.pad_mode {
            0 => {
                let tail = |n: u32, k: u32, s: u32| match (n - k) % s {
                    0 => 0,
                    r => s - r,
                };
                let (wt, ht) = (tail(w + pl + pr, kw, sw), tail(h + pt + pb, kh, sh));
                ([pt, pb + ht, pl, pr + wt], wt, ht)
            }
            1 => ([pt, pb, pl, pr], 0, 0),
            _ => {
                let wpad = kw + (w - 1) / sw * sw - w;
                let hpad = kh + (h - 1) / sh * sh - h;
                if cfg.pad_mode == 2 {
                    ([hpad / 2, hpad - hpad / 2, wpad / 2, wpad - wpad / 2], 0, 0)
                } else {
                    ([hpad - hpad / 2, hpad / 2, wpad - wpad / 2, wpad / 2], 0, 0)
                }
            }
        };
        let padded = pads.iter().any(|&p| p > 0);
        let (wb, hb) = (w + pads[2] + pads[3], h + pads[0] + pads[1]);
        let mb = packed_mat(&[wb, hb, cch], ep, mode);
        let (ow, oh) = ((wb - kw) / sw + 1, (hb - kh) / sh + 1);
        let mo = packed_mat(&[ow, oh, cch], ep, mode);
        let (g, gb, go) = (Geo::of(&m), Geo::of(&mb), Geo::of(&mo));
        let mut b = Buffers::default();
        let mut steps = Vec::new();
        let input = b.add(Data::Floats(pack(&t, &m)));
        let bordered = if padded {
            let out = b.add(gb.poison());
            let per_channel = b.dummy();
            let value = match (cfg.kind, fp16) {
                (0, true) => -65000.0f32,
                (0, false) => -f32::MAX,
                _ => 0.0,
            };
            let mut spec = vec![
                (0, SpecValue::Int(0)),
                (1, SpecValue::Float(value)),
                (2, SpecValue::Int(0)),
            ];
            let shapes: Vec<i32> = g.whc().into_iter().chain(gb.whc()).collect();
            spec.extend(spec_known(3, cfg.specialized, &shapes));
            let mut push = shapes;
            push.extend([pads[2] as i32, pads[0] as i32, 0]);
            steps.push(Step::new(
                packed(ep, "padding.comp", "padding_pack4.comp"),
                local_known(device, cfg.specialized, [wb, hb, mb.c], [0; 3]),
                spec,
                words(&push),
                &[input, out, per_channel],
                [wb, hb, mb.c],
            ));
            out
        } else {
            input
        };
        let output = b.add(go.poison());
        // The shape the layer knows at create time: the bordered one (none
        // for "same" padding that pads nothing).
        let known = cfg.specialized && (cfg.pad_mode < 2 || padded);
        let mut spec = spec_ints(
            0,
            &[
                cfg.kind,
                kw as i32,
                kh as i32,
                sw as i32,
                sh as i32,
                pl as i32,
                pr as i32,
                pt as i32,
                pb as i32,
                0,
                cfg.pad_mode,
                i32::from(cfg.include_pad),
            ],
        );
        let shapes: Vec<i32> = gb.whc().into_iter().chain(go.whc()).collect();
        spec.extend(spec_known(12, known, &shapes));
        let mut push = shapes;
        push.extend([wtail as i32, htail as i32]);
        steps.push(Step::new(
            packed(ep, "pooling.comp", "pooling_pack4.comp"),
            local_known(device, cfg.specialized, [ow, oh, mo.c], [0; 3]),
            spec,
            words(&push),
            &[bordered, output],
            [ow, oh, mo.c],
        ));
        let expect = expect_blob(mode, output, &mo, &[ow, oh, cch], |ox, oy, _, q| {
            let mut vals = Vec::new();
            for ky in 0..kh {
                for kx in 0..kw {
                    let iy = (oy * sh + ky) as i64 - i64::from(pads[0]);
                    let ix = (ox * sw + kx) as i64 - i64::from(pads[2]);
                    if (0..i64::from(h)).contains(&iy) && (0..i64::from(w)).contains(&ix) {
                        vals.push(f64::from(t.at(ix as u32, iy as u32, 0, q)));
                    }
                }
            }
            let n = if cfg.include_pad {
                f64::from(kw * kh)
            } else {
                vals.len() as f64
            };
            pooled(cfg.kind, &vals, n)
        });
        runs.push(run_of(format!("pooling {cfg:?}"), b, steps, expect));
    }
    runs
}

/// `pooling_vulkan.cpp` for global pooling: `pooling_global_reduce_*_first`
/// folding each channel into `w * h / 8` partial results (in the blob's
/// storage for max, fp32 for average), `pooling_global_reduce_*` folding by
/// eight while more than 32 remain, and `pooling_global_reduce_*_last` into
/// the one-dimensional output (average divides by `w * h`); the first
/// pass's shape specialized or pushed.
pub(crate) fn global_pooling(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (shape, ep, kind, specialized) in [
        ([24u32, 24, 8], 4u32, 0i32, true),
        ([24, 24, 4], 4, 1, false),
        ([5, 3, 3], 1, 1, true),
        ([7, 5, 3], 1, 0, false),
        ([19, 17, 2], 1, 1, true),
        ([3, 2, 4], 4, 1, true),
    ] {
        let t = Tensor::random(&shape, mode, rng, -4.0, 4.0);
        let m = packed_mat(&shape, ep, mode);
        let g = Geo::of(&m);
        let (w, h, c) = (m.w, m.h, m.c);
        let shaders: [&'static str; 3] = match (kind, ep) {
            (0, 4) => [
                "pooling_global_reduce_max_first_pack4.comp",
                "pooling_global_reduce_max_pack4.comp",
                "pooling_global_reduce_max_last_pack4.comp",
            ],
            (0, _) => [
                "pooling_global_reduce_max_first.comp",
                "pooling_global_reduce_max.comp",
                "pooling_global_reduce_max_last.comp",
            ],
            (_, 4) => [
                "pooling_global_reduce_sum_first_pack4.comp",
                "pooling_global_reduce_sum_pack4.comp",
                "pooling_global_reduce_sum_last_pack4.comp",
            ],
            _ => [
                "pooling_global_reduce_sum_first.comp",
                "pooling_global_reduce_sum.comp",
                "pooling_global_reduce_sum_last.comp",
            ],
        };
        let red_elemsize = if kind == 0 { m.elemsize } else { 4 * ep };
        let local64 = optimal(device, [64, 1, 1]);
        let spec_c = if specialized { c as i32 } else { 0 };
        let mut b = Buffers::default();
        let mut steps = Vec::new();
        let input = b.add(Data::Floats(pack(&t, &m)));
        let mut red = Geo::new(&[(w * h).div_ceil(8), 1, c], red_elemsize);
        let mut rb = b.add(red.poison());
        steps.push(Step::new(
            shaders[0],
            local64,
            spec_known(
                0,
                specialized,
                &[w, h, c, g.cstep(), 0, 0].map(|v| v as i32),
            ),
            words(&[w, h, c, g.cstep(), red.w, red.cstep()].map(|v| v as i32)),
            &[input, rb],
            [red.w, 1, c],
        ));
        while red.w > 32 {
            let next = Geo::new(&[red.w.div_ceil(8), 1, c], red_elemsize);
            let nb = b.add(next.poison());
            steps.push(Step::new(
                shaders[1],
                local64,
                spec_ints(0, &[0, spec_c, 0, 0, 0]),
                words(&[red.w, red.c, red.cstep(), next.w, next.cstep()].map(|v| v as i32)),
                &[rb, nb],
                [next.w, 1, next.c],
            ));
            red = next;
            rb = nb;
        }
        let mo = packed_mat(&[shape[2]], ep, mode);
        let out = b.add(Geo::of(&mo).poison());
        steps.push(Step::new(
            shaders[2],
            optimal(device, [1, 1, 64]),
            spec_ints(0, &[0, spec_c, 0]),
            words(&[red.w, red.c, red.cstep(), w * h].map(|v| v as i32)),
            &[rb, out],
            [1, 1, mo.w],
        ));
        let expect = expect_blob(mode, out, &mo, &[shape[2]], |q, _, _, _| {
            let vals: Vec<f64> = (0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .map(|(x, y)| f64::from(t.at(x, y, 0, q)))
                .collect();
            pooled(kind, &vals, vals.len() as f64)
        });
        runs.push(run_of(
            format!("global_pooling {shape:?} pack{ep} kind {kind} spec {specialized}"),
            b,
            steps,
            expect,
        ));
    }
    runs
}

/// `pooling_vulkan.cpp` for adaptive pooling: `pooling_adaptive` /
/// `pooling_adaptive_pack4`, output `x` pooling input columns
/// `floor(w * x / outw)` up to `ceil(w * (x + 1) / outw)` (rows alike),
/// the type specialized and the shapes specialized or pushed.
pub(crate) fn adaptive_pooling(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (shape, ep, kind, out, specialized) in [
        ([7u32, 6, 8], 4u32, 0i32, [3u32, 4u32], true),
        ([7, 6, 3], 1, 1, [4, 2], false),
        ([5, 5, 4], 4, 1, [2, 3], true),
        ([8, 7, 3], 1, 0, [3, 3], false),
    ] {
        let [w, h, cch] = shape;
        let [ow, oh] = out;
        let t = Tensor::random(&shape, mode, rng, -4.0, 4.0);
        let m = packed_mat(&shape, ep, mode);
        let mo = packed_mat(&[ow, oh, cch], ep, mode);
        let shapes: Vec<i32> = Geo::of(&m)
            .whc()
            .into_iter()
            .chain(Geo::of(&mo).whc())
            .collect();
        let mut spec = vec![(0, SpecValue::Int(kind))];
        spec.extend(spec_known(1, specialized, &shapes));
        let mut b = Buffers::default();
        let input = b.add(Data::Floats(pack(&t, &m)));
        let output = b.add(Geo::of(&mo).poison());
        let steps = vec![Step::new(
            packed(ep, "pooling_adaptive.comp", "pooling_adaptive_pack4.comp"),
            local_known(device, specialized, [ow, oh, mo.c], [0; 3]),
            spec,
            words(&shapes),
            &[input, output],
            [ow, oh, mo.c],
        )];
        let expect = expect_blob(mode, output, &mo, &[ow, oh, cch], |ox, oy, _, q| {
            let (sx, ex) = (w * ox / ow, (w * (ox + 1)).div_ceil(ow));
            let (sy, ey) = (h * oy / oh, (h * (oy + 1)).div_ceil(oh));
            let vals: Vec<f64> = (sy..ey)
                .flat_map(|y| (sx..ex).map(move |x| (x, y)))
                .map(|(x, y)| f64::from(t.at(x, y, 0, q)))
                .collect();
            pooled(kind, &vals, vals.len() as f64)
        });
        runs.push(run_of(
            format!(
                "adaptive_pooling {shape:?} pack{ep} kind {kind} out {out:?} spec {specialized}"
            ),
            b,
            steps,
            expect,
        ));
    }
    runs
}
