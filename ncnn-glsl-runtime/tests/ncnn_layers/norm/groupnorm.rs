//! GroupNorm and InstanceNorm: per-channel fp32 partial sums, folded per
//! group (per channel for InstanceNorm), then stored coefficients applied
//! in place.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob_tol, pack, packed_mat, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{
    affine_at, at, group_stats, local_known, optimal, packed, run_of, spec_ints, spec_known,
    sum4_push, weights, words, Buffers, Geo,
};

/// What a partial-sum pass reads: `w` values per channel, `c` channels
/// `cstep` apart.
#[derive(Clone, Copy, Debug)]
struct Rows {
    w: u32,
    c: u32,
    cstep: u32,
}

/// One `reduce_sum4` pass of GroupNorm/InstanceNorm: `src` summed by fours
/// into a new fp32 workspace (`w / 4` per channel, a three-dimensional
/// `VkMat` of `4 * ep`-byte elements), dispatched over it.
fn sum4_pass(
    b: &mut Buffers,
    steps: &mut Vec<Step>,
    shader: &'static str,
    local: [u32; 3],
    ep: u32,
    (src, r): (usize, Rows),
) -> (usize, Rows) {
    let next = Geo::new(&[r.w.div_ceil(4), 1, r.c], 4 * ep);
    let nb = b.add(next.poison());
    steps.push(Step::new(
        shader,
        local,
        Vec::new(),
        sum4_push(r.w, 1, r.c, r.cstep, &next),
        &[src, nb],
        [next.w, 1, next.c],
    ));
    (
        nb,
        Rows {
            w: next.w,
            c: next.c,
            cstep: next.cstep(),
        },
    )
}

/// The GroupNorm/InstanceNorm partial-sum chain: `first` once when given,
/// then the fp32 pass `fp32` while more than four sums per channel remain.
fn partial_sums(
    b: &mut Buffers,
    steps: &mut Vec<Step>,
    src: (usize, Rows),
    ep: u32,
    local: [u32; 3],
    first: Option<&'static str>,
    fp32: &'static str,
) -> (usize, Rows) {
    let mut cur = src;
    if let Some(s) = first {
        cur = sum4_pass(b, steps, s, local, ep, cur);
    }
    while cur.1.w > 4 {
        cur = sum4_pass(b, steps, fp32, local, ep, cur);
    }
    cur
}

/// A `*_reduce_mean` pass: the partial sums `src` (`r`) folded into `n`
/// statistics in `dst`; `extra` follows the source shape in the push
/// constants (the divisor, and for GroupNorm its grouping).
fn mean_step(
    shader: &'static str,
    local: [u32; 3],
    cc: u32,
    (src, r): (usize, Rows),
    extra: &[u32],
    dst: usize,
    n: u32,
) -> Step {
    let mut push = words(&[r.w as i32, 1, r.c as i32, r.cstep as i32]);
    push.extend(extra);
    Step::new(
        shader,
        local,
        spec_ints(0, &[0, 0, cc as i32, 0]),
        push,
        &[src, dst],
        [n, 1, 1],
    )
}

/// A `*_coeffs` pass writing `n` channels' coefficients: `eps`, then the
/// integer constants `ints` from 1, specialized.
fn coeffs_step(
    shader: &'static str,
    local: [u32; 3],
    eps: f32,
    ints: &[i32],
    n: u32,
    bind: &[usize],
) -> Step {
    let mut spec = vec![(0, SpecValue::Float(eps))];
    spec.extend(spec_ints(1, ints));
    Step::new(shader, local, spec, vec![n], bind, [n, 1, 1])
}

/// The reference of one element `x` normalized by its group's `(mean,
/// variance)` and scaled and shifted by `gm` and `bt`, with its tolerance.
fn normalized(
    mode: &Mode,
    x: f64,
    (mu, var): (f64, f64),
    eps: f32,
    gm: f64,
    bt: f64,
) -> (f64, f64) {
    let a = gm / (var + f64::from(eps)).sqrt();
    let want = (x - mu) * a + bt;
    // `a` and `b = beta - mean * a` are stored in the blob's storage.
    let stored = (x * a).abs() + (mu * a).abs() + bt.abs();
    (want, mode.tol_stored(want, stored + want.abs(), stored))
}

/// `groupnorm_vulkan.cpp`, in place: per-channel fp32 partial sums
/// (`groupnorm_reduce_sum4_fp16_to_fp32`, then `groupnorm_reduce_sum4_fp32`
/// while more than four remain), `groupnorm_reduce_mean` summing a group's
/// channels into one float per group, `groupnorm_sub_mean_square` into an
/// fp32 square workspace and the same chain for the variance,
/// `groupnorm_coeffs` storing `a = gamma / sqrt(var + eps)` and
/// `b = beta - mean * a` per channel, and `groupnorm_norm`. One- and
/// two-dimensional blobs are viewed as channels of one value (of `w`
/// values); the shapes are specialized when known (three and four
/// dimensions only, as the layer does), else pushed. Groups of two
/// channels in a pack-4 blob split its lanes.
pub(crate) fn groupnorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let eps = 1e-5f32;
    let mut runs = Vec::new();
    for (shape, ep, group, affine, specialized) in [
        (&[5u32, 4, 8][..], 4u32, 2u32, true, true),
        (&[5, 4, 6][..], 1, 3, true, false),
        (&[12][..], 4, 3, true, true),
        (&[7, 8][..], 4, 4, true, false),
        (&[7, 6][..], 1, 2, false, true),
        (&[3, 2, 3, 8][..], 4, 2, false, true),
        (&[3, 2, 3, 8][..], 4, 8, true, false),
    ] {
        let t = Tensor::random(shape, mode, rng, -1.0, 3.0);
        let m = packed_mat(shape, ep, mode);
        let dims = m.dims;
        let channels = shape[shape.len() - 1];
        let cc = channels / ep;
        let channels_g = channels / group;
        let gamma = weights(channels, mode, rng, 0.5, 2.0);
        let beta = weights(channels, mode, rng, -1.0, 1.0);
        let (w, h, c, cstep) = (m.w, m.h * m.d, m.c, m.cstep() as u32);
        let (c_v, size_v, cstep_v) = match dims {
            1 => (m.w, 1, 1),
            2 => (m.h, m.w, m.w),
            _ => (c, w * h, cstep),
        };
        let three = dims >= 3;
        let known = specialized && three;
        let sq = if three {
            Geo::new(&[w, h, c], 4 * ep)
        } else {
            Geo::new(&[size_v, 1, c_v], 4 * ep)
        };
        let view: [i32; 5] = if three {
            [dims.min(3), w, h, c, cstep].map(|v| v as i32)
        } else {
            [3, size_v, 1, c_v, cstep_v].map(|v| v as i32)
        };
        let local_sum = optimal(device, [16, 1, cc.min(4)]);
        let local_mean = optimal(device, [group.min(64), 1, 1]);
        let local_sq = local_known(device, known, [sq.w, sq.h, sq.c], [4, 4, cc.min(4)]);
        let local_coeffs = optimal(device, [cc.min(64), 1, 1]);
        let local_norm = local_known(device, known, [w, h, c], [4, 4, cc.min(4)]);
        let area = ((channels_g * size_v) as f32).to_bits();
        let fp32 = packed(
            ep,
            "groupnorm_reduce_sum4_fp32.comp",
            "groupnorm_reduce_sum4_fp32_pack4.comp",
        );
        let reduce_mean = packed(
            ep,
            "groupnorm_reduce_mean.comp",
            "groupnorm_reduce_mean_pack4.comp",
        );
        let mut b = Buffers::default();
        let mut steps = Vec::new();
        let blob = b.add(Data::Floats(pack(&t, &m)));
        let mean = b.add(Geo::new(&[group], 4).poison());
        let sums = partial_sums(
            &mut b,
            &mut steps,
            (
                blob,
                Rows {
                    w: size_v,
                    c: c_v,
                    cstep: cstep_v,
                },
            ),
            ep,
            local_sum,
            Some(packed(
                ep,
                "groupnorm_reduce_sum4_fp16_to_fp32.comp",
                "groupnorm_reduce_sum4_fp16_to_fp32_pack4.comp",
            )),
            fp32,
        );
        let grouping = [area, group, channels_g];
        steps.push(mean_step(
            reduce_mean,
            local_mean,
            cc,
            sums,
            &grouping,
            mean,
            group,
        ));
        let var = b.add(Geo::new(&[group], 4).poison());
        let square = b.add(sq.poison());
        let sq_consts: Vec<i32> = view.into_iter().chain(sq.whc()).collect();
        let mut sq_push = sq_consts.clone();
        sq_push.push(channels_g as i32);
        steps.push(Step::new(
            packed(
                ep,
                "groupnorm_sub_mean_square.comp",
                "groupnorm_sub_mean_square_pack4.comp",
            ),
            local_sq,
            spec_known(0, known, &sq_consts),
            words(&sq_push),
            &[blob, mean, square],
            [sq.w, sq.h, sq.c],
        ));
        let sqsums = partial_sums(
            &mut b,
            &mut steps,
            (
                square,
                Rows {
                    w: sq.w * sq.h,
                    c: sq.c,
                    cstep: sq.cstep(),
                },
            ),
            ep,
            local_sum,
            None,
            fp32,
        );
        steps.push(mean_step(
            reduce_mean,
            local_mean,
            cc,
            sqsums,
            &grouping,
            var,
            group,
        ));
        let coeffs = b.add(Geo::new(&[c_v], m.elemsize * 2).poison());
        let g = b.affine(affine, &gamma);
        let be = b.affine(affine, &beta);
        steps.push(coeffs_step(
            packed(ep, "groupnorm_coeffs.comp", "groupnorm_coeffs_pack4.comp"),
            local_coeffs,
            eps,
            &[i32::from(affine), cc as i32, channels_g as i32],
            c_v,
            &[coeffs, mean, var, g, be],
        ));
        steps.push(Step::new(
            packed(ep, "groupnorm_norm.comp", "groupnorm_norm_pack4.comp"),
            local_norm,
            spec_known(0, known, &view),
            words(&view),
            &[blob, coeffs],
            if three { [w, h, c] } else { [size_v, 1, c_v] },
        ));
        let last = shape.len() - 1;
        let channel = |p: [u32; 4]| match last {
            0 => p[0],
            1 => p[1],
            _ => p[3],
        };
        let stats = group_stats(&t, group as usize, |p| (channel(p) / channels_g) as usize);
        let expect = expect_blob_tol(blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let ch = channel(p) as usize;
            normalized(
                mode,
                at(&t, p),
                stats[ch / channels_g as usize],
                eps,
                affine_at(affine, &gamma, ch, 1.0),
                affine_at(affine, &beta, ch, 0.0),
            )
        });
        runs.push(run_of(
            format!(
                "groupnorm {shape:?} pack{ep} group {group} affine {affine} spec {specialized}"
            ),
            b,
            steps,
            expect,
        ));
    }
    runs
}

/// `instancenorm_vulkan.cpp`, in place: GroupNorm's scheme with one group
/// per channel: per-channel partial sums, `instancenorm_reduce_mean` into
/// one value per channel, `instancenorm_sub_mean_square` into an fp32
/// square workspace whose chain starts with an fp32 pass,
/// `instancenorm_coeffs` (`a = gamma / sqrt(var + eps)`,
/// `b = beta - mean * a`) and `instancenorm_norm`; shapes specialized when
/// known, else pushed.
pub(crate) fn instancenorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let eps = 1e-5f32;
    let mut runs = Vec::new();
    for (shape, ep, affine, specialized) in [
        (&[5u32, 4, 8][..], 4u32, true, true),
        (&[5, 4, 3][..], 1, true, false),
        (&[3, 2, 3, 8][..], 4, false, false),
        (&[2, 2, 4][..], 4, true, true),
        (&[9, 7, 2][..], 1, false, true),
    ] {
        let t = Tensor::random(shape, mode, rng, -1.0, 3.0);
        let m = packed_mat(shape, ep, mode);
        let channels = shape[shape.len() - 1];
        let cc = channels / ep;
        let gamma = weights(channels, mode, rng, 0.5, 2.0);
        let beta = weights(channels, mode, rng, -1.0, 1.0);
        let (w, h, c, cstep) = (m.w, m.h * m.d, m.c, m.cstep() as u32);
        let size = w * h;
        let sq = Geo::new(&[w, h, c], 4 * ep);
        let view: [i32; 5] = [m.dims.min(3), w, h, c, cstep].map(|v| v as i32);
        let local_sum = optimal(device, [16, 1, cc.min(4)]);
        let local_ch = optimal(device, [cc.min(64), 1, 1]);
        let local_sq = local_known(device, specialized, [sq.w, sq.h, sq.c], [4, 4, cc.min(4)]);
        let local_norm = local_known(device, specialized, [w, h, c], [4, 4, cc.min(4)]);
        let fp32 = packed(
            ep,
            "instancenorm_reduce_sum4_fp32.comp",
            "instancenorm_reduce_sum4_fp32_pack4.comp",
        );
        let reduce_mean = packed(
            ep,
            "instancenorm_reduce_mean.comp",
            "instancenorm_reduce_mean_pack4.comp",
        );
        let divisor = [(size as f32).to_bits()];
        let mut b = Buffers::default();
        let mut steps = Vec::new();
        let blob = b.add(Data::Floats(pack(&t, &m)));
        let mean = b.add(Geo::new(&[c], 4 * ep).poison());
        let sums = partial_sums(
            &mut b,
            &mut steps,
            (blob, Rows { w: size, c, cstep }),
            ep,
            local_sum,
            Some(packed(
                ep,
                "instancenorm_reduce_sum4_fp16_to_fp32.comp",
                "instancenorm_reduce_sum4_fp16_to_fp32_pack4.comp",
            )),
            fp32,
        );
        steps.push(mean_step(
            reduce_mean,
            local_ch,
            cc,
            sums,
            &divisor,
            mean,
            c,
        ));
        let var = b.add(Geo::new(&[c], 4 * ep).poison());
        let square = b.add(sq.poison());
        let sq_consts: Vec<i32> = view.into_iter().chain(sq.whc()).collect();
        steps.push(Step::new(
            packed(
                ep,
                "instancenorm_sub_mean_square.comp",
                "instancenorm_sub_mean_square_pack4.comp",
            ),
            local_sq,
            spec_known(0, specialized, &sq_consts),
            words(&sq_consts),
            &[blob, mean, square],
            [w, h, c],
        ));
        let sqsums = partial_sums(
            &mut b,
            &mut steps,
            (
                square,
                Rows {
                    w: size,
                    c,
                    cstep: sq.cstep(),
                },
            ),
            ep,
            local_sum,
            Some(fp32),
            fp32,
        );
        steps.push(mean_step(
            reduce_mean,
            local_ch,
            cc,
            sqsums,
            &divisor,
            var,
            c,
        ));
        let coeffs = b.add(Geo::new(&[c], m.elemsize * 2).poison());
        let g = b.affine(affine, &gamma);
        let be = b.affine(affine, &beta);
        steps.push(coeffs_step(
            packed(
                ep,
                "instancenorm_coeffs.comp",
                "instancenorm_coeffs_pack4.comp",
            ),
            local_ch,
            eps,
            &[i32::from(affine), cc as i32],
            c,
            &[coeffs, mean, var, g, be],
        ));
        steps.push(Step::new(
            packed(ep, "instancenorm_norm.comp", "instancenorm_norm_pack4.comp"),
            local_norm,
            spec_known(0, specialized, &view),
            words(&view),
            &[blob, coeffs],
            [w, h, c],
        ));
        let stats = group_stats(&t, channels as usize, |p| p[3] as usize);
        let expect = expect_blob_tol(blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let q = q as usize;
            normalized(
                mode,
                at(&t, p),
                stats[q],
                eps,
                affine_at(affine, &gamma, q, 1.0),
                affine_at(affine, &beta, q, 0.0),
            )
        });
        runs.push(run_of(
            format!("instancenorm {shape:?} pack{ep} affine {affine} spec {specialized}"),
            b,
            steps,
            expect,
        ));
    }
    runs
}
