//! Reduction: `reduction.comp` over axis sets of one to four dimensions,
//! every operation, with and without keepdims.

use ncnn_glsl_runtime::ncnn_local_size;
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, pack, packed_mat, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{at, run_of, spec_ints, words, Buffers, Geo};

/// One Reduction configuration: input shape, operation, reduced axes as
/// `[w, h, d, c]` flags, keepdims, coefficient.
type Reduce = (&'static [u32], i32, [bool; 4], bool, f32);

/// Reductions over axis sets of one to four dimensions.
const REDUCTIONS: &[Reduce] = &[
    (&[300], 0, [true, false, false, false], false, 1.0),
    (&[33, 5], 3, [true, false, false, false], false, 1.0),
    (&[6, 5, 4], 4, [false, true, false, false], true, 1.0),
    (&[6, 5, 4], 8, [true, false, false, true], false, 0.5),
    (&[3, 4, 2, 5], 10, [false, false, true, false], false, 1.0),
    (&[5, 3, 4], 6, [true, false, false, false], true, 1.0),
    (&[7, 6, 5], 5, [true, true, true, true], false, 1.0),
    (&[9, 4], 1, [false, true, false, false], true, 2.0),
    (&[4, 5, 6], 2, [false, true, false, true], false, 1.0),
    (&[3, 4, 8, 5], 9, [true, true, false, false], true, 1.0),
];

/// Four-dimensional blobs whose `w * h * d` values do not fill whole 16
/// bytes: `reduction.comp` steps between `d`-slices by `cstep / d`, which
/// the channel padding makes larger than `w * h`. The output side (a kept
/// `d` of 2 in a channel padded to 4) and the input side (a `d` of 2 read
/// from a channel of 6 values padded to 8).
pub(crate) const REDUCTIONS_PADDED_CSTEP: &[Reduce] = &[
    (&[2, 1, 2, 1], 0, [true, false, false, false], true, 1.0),
    (&[3, 1, 2, 1], 0, [false, false, true, false], false, 1.0),
];

/// The [`REDUCTIONS`] runs.
pub(crate) fn reduction(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    reduction_runs_of(REDUCTIONS, device, mode, rng)
}

/// `reduction_vulkan.cpp`: `reduction.comp` (pack 1 only: the layer takes
/// no packing; its subgroup reduction takes the branch of the device's
/// subgroup size, 8 on lavapipe), one workgroup of `set_local_size_xyz(256, 1, 1)` per output
/// element over the dispatcher `256 x out_total`, the operation
/// specialized and everything else pushed: input and output shapes, the
/// reduced axes, which input axis each output axis reads (keepdims keeps
/// every axis; otherwise the surviving axes fill the output from `w` up)
/// and the coefficient (divided by the reduced count for the mean).
pub(crate) fn reduction_runs_of(
    configs: &[Reduce],
    device: &Device,
    mode: &Mode,
    rng: &mut Rng,
) -> Vec<Run> {
    let mut runs = Vec::new();
    for &(shape, op, reduce, keepdims, coeff) in configs {
        let (lo, hi) = match op {
            6 => (0.6f32, 1.4f32),
            9 => (0.1, 2.0),
            _ => (-2.0, 2.0),
        };
        let t = Tensor::random(shape, mode, rng, lo, hi);
        let m = packed_mat(shape, 1, mode);
        let g = Geo::of(&m);
        let dims = shape.len();
        let ext = t.whdc();
        // Axes the input has, as `[w, h, d, c]`.
        let has = [true, dims >= 2, dims >= 4, dims >= 3];
        let red = [0, 1, 2, 3].map(|i| reduce[i] && has[i]);
        // Output shape: keepdims keeps every axis (reduced ones as 1);
        // otherwise the surviving axes, `w` first.
        let out_shape: Vec<u32> = if keepdims {
            let keep = |i: usize| if red[i] { 1 } else { ext[i] };
            match dims {
                1 => vec![keep(0)],
                2 => vec![keep(0), keep(1)],
                3 => vec![keep(0), keep(1), keep(3)],
                _ => vec![keep(0), keep(1), keep(2), keep(3)],
            }
        } else {
            let s: Vec<u32> = [0, 1, 2, 3]
                .into_iter()
                .filter(|&i| has[i] && !red[i])
                .map(|i| ext[i])
                .collect();
            if s.is_empty() {
                vec![1]
            } else {
                s
            }
        };
        let mo = packed_mat(&out_shape, 1, mode);
        let go = Geo::of(&mo);
        // Which input axis (0 c, 1 d, 2 h, 3 w) each output axis reads.
        let map: [i32; 4] = if keepdims {
            [
                3,
                if dims >= 2 { 2 } else { -1 },
                if dims >= 4 { 1 } else { -1 },
                if dims >= 3 { 0 } else { -1 },
            ]
        } else {
            let surviving: Vec<i32> = [(3, 0), (2, 1), (1, 2), (0, 3)]
                .into_iter()
                .filter(|&(_, i)| has[i] && !red[i])
                .map(|(a, _)| a)
                .collect();
            let n = surviving.len();
            let mut map = [-1; 4];
            if n >= 1 {
                map[0] = surviving[n - 1];
            }
            if n >= 2 {
                map[1] = surviving[n - 2];
            }
            if n >= 3 {
                if out_shape.len() >= 4 {
                    map[2] = surviving[n - 3];
                } else {
                    map[3] = surviving[n - 3];
                }
            }
            if n >= 4 {
                map[3] = surviving[n - 4];
            }
            map
        };
        let count: u32 = (0..4).filter(|&i| red[i]).map(|i| ext[i]).product();
        let coeff2 = if op == 3 { coeff / count as f32 } else { coeff };
        let mut push: Vec<i32> = vec![
            g.w as i32,
            g.h as i32,
            g.d as i32,
            g.c as i32,
            g.cstep() as i32,
            g.dims as i32,
            go.w as i32,
            go.h as i32,
            go.d as i32,
            go.c as i32,
            go.dims as i32,
            go.cstep() as i32,
        ];
        push.extend(reduce.map(i32::from));
        push.extend(map);
        let mut push = words(&push);
        push.push(coeff2.to_bits());
        let local = ncnn_local_size([256, 1, 1], device.limits.subgroup_size);
        let out_total = go.w * go.h * go.d * go.c;
        let mut b = Buffers::default();
        let out = b.add(go.poison());
        let input = b.add(Data::Floats(pack(&t, &m)));
        let steps = vec![Step::new(
            "reduction.comp",
            local,
            spec_ints(0, &[op]),
            push,
            &[out, input],
            [256, out_total, 1],
        )];
        let expect = expect_blob(mode, out, &mo, &out_shape, |ox, oy, oz, oq| {
            // The input coordinates this output element fixes.
            // The output's `[w, h, d, c]` coordinates go to the input axes
            // `map` names (0 c, 1 d, 2 h, 3 w).
            let o = [ox, oy, oz, oq];
            let mut fixed = [0u32; 4];
            for (k, &axis) in map.iter().enumerate() {
                if axis >= 0 {
                    fixed[[3, 2, 1, 0][axis as usize]] = o[k];
                }
            }
            let mut vals = Vec::new();
            for q in 0..ext[3] {
                for z in 0..ext[2] {
                    for y in 0..ext[1] {
                        for x in 0..ext[0] {
                            let p = [x, y, z, q];
                            if (0..4).all(|i| red[i] || p[i] == fixed[i]) {
                                vals.push(at(&t, p));
                            }
                        }
                    }
                }
            }
            let n = vals.len() as f64;
            let c = f64::from(coeff2);
            let asum: f64 = vals.iter().map(|v| v.abs()).sum();
            let sumsq: f64 = vals.iter().map(|v| v * v).sum();
            let (r, mag) = match op {
                0 | 3 => (vals.iter().sum::<f64>(), asum),
                1 | 7 => (asum, asum),
                2 => (sumsq, sumsq),
                4 => {
                    let v = vals.iter().cloned().fold(f64::MIN, f64::max);
                    (v, v.abs())
                }
                5 => {
                    let v = vals.iter().cloned().fold(f64::MAX, f64::min);
                    (v, v.abs())
                }
                6 => {
                    let v: f64 = vals.iter().product();
                    (v, v.abs() * n)
                }
                8 => (sumsq.sqrt(), sumsq.sqrt()),
                9 => {
                    let s: f64 = vals.iter().sum();
                    (s.ln(), s.ln().abs() + 1.0)
                }
                _ => {
                    let s: f64 = vals.iter().map(|v| v.exp()).sum();
                    (s.ln(), s.ln().abs() + 2.0)
                }
            };
            (r * c, mag * c.abs())
        });
        runs.push(run_of(
            format!(
                "reduction {shape:?} op {op} axes {reduce:?} keepdims {keepdims} coeff {coeff}"
            ),
            b,
            steps,
            expect,
        ));
    }
    runs
}
