//! ncnn's normalization, pooling and reduction layers, run as their
//! `*_vulkan.cpp` runs them (`ncnn_glsl_testkit::ncnn_layers`): Softmax's
//! four-pipeline chain over every axis, LayerNorm, GroupNorm, RMSNorm and
//! InstanceNorm with their reduce-sum chains, BatchNorm, Pooling (max and
//! average through ncnn's padding layer, the global reduce chain, adaptive)
//! and Reduction. Every temporary a layer allocates is a poisoned buffer of the
//! size the layer gives it, and the steps run in one sequence in the order
//! the layer records them.
//!
//! Where a layer keeps an intermediate (a coefficient, a square, an
//! exponential) in the mode's storage, its rounding is part of the error
//! model: the tolerance adds one storage unit of the magnitude that passed
//! through storage ([`checks`]).

use ncnn_glsl_runtime::{
    group_counts, ncnn_local_size, optimal_local_size, Flag, NcnnMat, SpecValue,
};
use ncnn_glsl_testkit::ncnn_layers::{
    pack, packed_index, packed_mat, suite, Data, Device, Expect, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

// ---------------------------------------------------------------------------
// Shared host pieces
// ---------------------------------------------------------------------------

/// The geometry of an ncnn `Mat`/`VkMat` a layer allocates: extents and
/// bytes per element, with ncnn's channel step (16-byte aligned from three
/// dimensions).
#[derive(Clone, Copy, Debug)]
struct Geo {
    dims: u32,
    w: u32,
    h: u32,
    d: u32,
    c: u32,
    elemsize: u32,
}

impl Geo {
    /// A blob of `shape` (`[w]` to `[w, h, d, c]`, packed extents) whose
    /// elements take `elemsize` bytes.
    fn new(shape: &[u32], elemsize: u32) -> Geo {
        let (w, h, d, c) = match *shape {
            [w] => (w, 1, 1, 1),
            [w, h] => (w, h, 1, 1),
            [w, h, c] => (w, h, 1, c),
            [w, h, d, c] => (w, h, d, c),
            _ => panic!("1 to 4 extents"),
        };
        Geo {
            dims: shape.len() as u32,
            w,
            h,
            d,
            c,
            elemsize,
        }
    }

    /// The geometry of a blob ncnn already describes.
    fn of(m: &NcnnMat) -> Geo {
        Geo {
            dims: m.dims,
            w: m.w,
            h: m.h,
            d: m.d,
            c: m.c,
            elemsize: m.elemsize,
        }
    }

    /// ncnn's `cstep`.
    fn cstep(&self) -> u32 {
        let plane = self.w * self.h * self.d;
        if self.dims < 3 {
            plane
        } else {
            (plane * self.elemsize).div_ceil(16) * 16 / self.elemsize
        }
    }

    /// The bytes `VkMat::create` allocates: whole 32-bit words.
    fn bytes(&self) -> u64 {
        (u64::from(self.cstep()) * u64::from(self.c) * u64::from(self.elemsize)).div_ceil(4) * 4
    }

    /// A poisoned buffer of the blob's size.
    fn poison(&self) -> Data {
        Data::Poison(self.bytes())
    }

    /// `dims, w, h, d, c, cstep` as ncnn's shader constants carry them.
    fn shape6(&self) -> [i32; 6] {
        [self.dims, self.w, self.h, self.d, self.c, self.cstep()].map(|v| v as i32)
    }

    /// `dims, w, h, c, cstep` (the layers that fold `d` into `h` pass the
    /// blob's own `h` here).
    fn whc(&self) -> [i32; 5] {
        [self.dims, self.w, self.h, self.c, self.cstep()].map(|v| v as i32)
    }
}

/// Integer constants as push-constant words.
fn words(v: &[i32]) -> Vec<u32> {
    v.iter().map(|&x| x as u32).collect()
}

/// Integer specialization constants `first..`.
fn spec_ints(first: u32, v: &[i32]) -> Vec<(u32, SpecValue)> {
    v.iter()
        .enumerate()
        .map(|(i, &x)| (first + i as u32, SpecValue::Int(x)))
        .collect()
}

/// ncnn's `set_optimal_local_size_xyz(w, h, c)` on this device.
fn optimal(device: &Device, size: [u32; 3]) -> [u32; 3] {
    optimal_local_size(size, &device.limits)
}

/// One dispatch binding whole buffers; `dispatcher` is ncnn's dispatcher
/// shape (`w`, `h * d`, `c`).
fn step(
    shader: &'static str,
    local_size: [u32; 3],
    spec: Vec<(u32, SpecValue)>,
    push: Vec<u32>,
    bind: &[usize],
    dispatcher: [u32; 3],
) -> Step {
    Step {
        shader,
        local_size,
        spec,
        push,
        bind: bind.iter().map(|&b| (b, None)).collect(),
        groups: group_counts(dispatcher, local_size),
    }
}

/// The buffers of a run, added in order.
#[derive(Default)]
struct Buffers(Vec<Data>);

impl Buffers {
    /// Adds `d`; its index.
    fn add(&mut self, d: Data) -> usize {
        self.0.push(d);
        self.0.len() - 1
    }

    /// ncnn binds its dummy buffer where a layer has no weights (a layer
    /// without affine parameters); a small buffer of zeros stands in.
    fn dummy(&mut self) -> usize {
        self.add(Data::Words(vec![0; 16]))
    }
}

/// The checks of every element of an output blob `m` of logical `shape`:
/// `want(x, y, z, q)` gives the reference, the magnitude of the arithmetic
/// that produced it (as [`Mode::tol`] takes it) and the magnitude that
/// passed through the mode's storage on the way (a coefficient or partial
/// result the layer stores in `sfp`), which adds one storage unit of it.
fn checks(
    mode: &Mode,
    buffer: usize,
    m: &NcnnMat,
    shape: &[u32],
    want: impl Fn(u32, u32, u32, u32) -> (f64, f64, f64),
) -> Expect {
    let t = Tensor {
        shape: shape.to_vec(),
        values: Vec::new(),
    };
    let [w, h, d, c] = t.whdc();
    let mut points = Vec::new();
    for q in 0..c {
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let (v, mag, stored) = want(x, y, z, q);
                    let tol = mode.tol(v, mag) + mode.storage_eps() * stored;
                    points.push((packed_index(m, x, y, z, q), v, tol));
                }
            }
        }
    }
    Expect { buffer, points }
}

/// The logical coordinates `[x, y, z, q]` of every element of `t`.
fn coords(t: &Tensor) -> Vec<[u32; 4]> {
    let [w, h, d, c] = t.whdc();
    let mut out = Vec::new();
    for q in 0..c {
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    out.push([x, y, z, q]);
                }
            }
        }
    }
    out
}

/// The value of `t` at `p`, in f64.
fn at(t: &Tensor, p: [u32; 4]) -> f64 {
    f64::from(t.at(p[0], p[1], p[2], p[3]))
}

/// Per-group mean and (biased) variance, groups numbered by `key`.
fn group_stats(t: &Tensor, groups: usize, key: impl Fn([u32; 4]) -> usize) -> Vec<(f64, f64)> {
    let mut sum = vec![(0.0f64, 0usize); groups];
    for p in coords(t) {
        let s = &mut sum[key(p)];
        s.0 += at(t, p);
        s.1 += 1;
    }
    let mean: Vec<f64> = sum.iter().map(|&(s, n)| s / n as f64).collect();
    let mut var = vec![0.0f64; groups];
    for p in coords(t) {
        let k = key(p);
        var[k] += (at(t, p) - mean[k]).powi(2);
    }
    (0..groups)
        .map(|k| (mean[k], var[k] / sum[k].1 as f64))
        .collect()
}

/// `name` or `name_pack4`, as the layer picks by elempack.
fn packed(ep: u32, pack1: &'static str, pack4: &'static str) -> &'static str {
    if ep == 4 {
        pack4
    } else {
        pack1
    }
}

/// Random weights of `n` values in `[lo, hi)`, rounded to the mode's
/// storage (ncnn uploads them in it).
fn weights(n: u32, mode: &Mode, rng: &mut Rng, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| mode.round(rng.f32(lo, hi))).collect()
}

// ---------------------------------------------------------------------------
// Softmax
// ---------------------------------------------------------------------------

/// `softmax_vulkan.cpp`, in place: `softmax_reduce_max` into a max
/// workspace, `softmax_exp_sub_max` over the blob, `softmax_reduce_sum` into
/// a sum workspace, `softmax_div_sum` over the blob (each `_pack4` for a
/// pack-4 blob). The workspace drops the reduced axis, in packed extents;
/// the shapes are specialized (with `axis`) when known, else pushed; the
/// reduce pipelines' local size follows the workspace, the element-wise
/// ones' the blob (4x4x4 when unknown).
fn softmax(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (shape, axis, ep, specialized) in [
        (&[24u32][..], 0i32, 4u32, true),
        (&[6, 8][..], 0, 4, true),
        (&[6, 8][..], 1, 4, false),
        (&[7, 3][..], -1, 1, true),
        (&[5, 4, 8][..], 0, 4, true),
        (&[5, 4, 8][..], 1, 4, false),
        (&[5, 4, 3][..], 2, 1, true),
        (&[3, 4, 2, 8][..], 0, 4, false),
        (&[3, 4, 2, 8][..], 1, 4, true),
        (&[3, 4, 2, 4][..], 2, 4, true),
        (&[3, 4, 2, 3][..], 3, 1, false),
    ] {
        let t = Tensor::random(shape, mode, rng, -3.0, 3.0);
        let m = packed_mat(shape, ep, mode);
        let g = Geo::of(&m);
        let dims = m.dims;
        let pos = if axis < 0 { dims as i32 + axis } else { axis } as u32;
        let ws_shape: Vec<u32> = match (dims, pos) {
            (1, _) => vec![1],
            (2, 0) => vec![m.w],
            (2, _) => vec![m.h],
            (3, 0) => vec![m.w, m.h],
            (3, 1) => vec![m.w, m.c],
            (3, _) => vec![m.h, m.c],
            (_, 0) => vec![m.w, m.h, m.d],
            (_, 1) => vec![m.w, m.h, m.c],
            (_, 2) => vec![m.w, m.d, m.c],
            _ => vec![m.h, m.d, m.c],
        };
        let ws = Geo::new(&ws_shape, m.elemsize);
        let constants: Vec<i32> = g.shape6().into_iter().chain(ws.shape6()).collect();
        let mut spec = vec![(0, SpecValue::Int(axis))];
        spec.extend(spec_ints(
            1,
            &if specialized {
                constants.clone()
            } else {
                vec![0; 12]
            },
        ));
        let reduce_local = if specialized {
            [ws.w.min(4), (ws.h * ws.d).min(4), ws.c.min(4)]
        } else {
            [0; 3]
        };
        let blob_local = match (specialized, dims) {
            (false, _) => [0; 3],
            (_, 1) => [m.w.min(64), 1, 1],
            (_, 2) => [m.w.min(8), m.h.min(8), 1],
            _ => [m.w.min(4), (m.h * m.d).min(4), m.c.min(4)],
        };
        let (reduce_local, blob_local) =
            (optimal(device, reduce_local), optimal(device, blob_local));
        let ws_dispatch = [ws.w, ws.h * ws.d, ws.c];
        let blob_dispatch = [m.w, m.h * m.d, m.c];
        let mut b = Buffers::default();
        let blob = b.add(Data::Floats(pack(&t, &m)));
        let max_ws = b.add(ws.poison());
        let sum_ws = b.add(ws.poison());
        let push = words(&constants);
        let steps = vec![
            step(
                packed(
                    ep,
                    "softmax_reduce_max.comp",
                    "softmax_reduce_max_pack4.comp",
                ),
                reduce_local,
                spec.clone(),
                push.clone(),
                &[blob, max_ws],
                ws_dispatch,
            ),
            step(
                packed(
                    ep,
                    "softmax_exp_sub_max.comp",
                    "softmax_exp_sub_max_pack4.comp",
                ),
                blob_local,
                spec.clone(),
                push.clone(),
                &[blob, max_ws],
                blob_dispatch,
            ),
            step(
                packed(
                    ep,
                    "softmax_reduce_sum.comp",
                    "softmax_reduce_sum_pack4.comp",
                ),
                reduce_local,
                spec.clone(),
                push.clone(),
                &[blob, sum_ws],
                ws_dispatch,
            ),
            step(
                packed(ep, "softmax_div_sum.comp", "softmax_div_sum_pack4.comp"),
                blob_local,
                spec,
                push,
                &[blob, sum_ws],
                blob_dispatch,
            ),
        ];
        // The softmax axis among `[w, h, d, c]`.
        let ax = match (dims, pos) {
            (1, _) => 0,
            (2, 0) => 1,
            (2, _) => 0,
            (3, 0) => 3,
            (3, 1) => 1,
            (3, _) => 0,
            (_, 0) => 3,
            (_, 1) => 2,
            (_, 2) => 1,
            _ => 0,
        };
        let n = t.whdc()[ax];
        let expect = checks(mode, blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let slice: Vec<f64> = (0..n)
                .map(|k| {
                    let mut p = p;
                    p[ax] = k;
                    at(&t, p)
                })
                .collect();
            let max = slice.iter().cloned().fold(f64::MIN, f64::max);
            let sum: f64 = slice.iter().map(|v| (v - max).exp()).sum();
            let v = at(&t, p);
            let want = (v - max).exp() / sum;
            // The exponentials are stored before they are summed and
            // divided: the sum carries `n` terms, the exponent `|v - max|`
            // units of its own argument's rounding.
            let mag = want * (f64::from(n) + (v - max).abs() + 2.0);
            (want, mag, 0.0)
        });
        runs.push(Run {
            name: format!("softmax {shape:?} axis {axis} pack{ep} spec {specialized}"),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------
// LayerNorm and RMSNorm: one reduce-sum chain per statistic
// ---------------------------------------------------------------------------

/// The shape LayerNorm and RMSNorm work on: a one-dimensional blob as
/// unpacked scalars, `h` and `d` folded.
struct NormView {
    w: u32,
    h: u32,
    channels: u32,
    elempack: u32,
    elemsize: u32,
    cstep: u32,
    group_size: u32,
    groups_per_channel: u32,
}

impl NormView {
    /// `layernorm_vulkan.cpp`'s (and `rmsnorm_vulkan.cpp`'s) view of `m`
    /// for `affine_size`.
    fn new(m: &NcnnMat, affine_size: u32) -> NormView {
        let one = m.dims == 1;
        let w = if one { m.w * m.elempack } else { m.w };
        let h = m.h * m.d;
        let (group_size, groups_per_channel) = match m.dims {
            1 => (w, 1),
            2 => (w, h),
            _ if affine_size == w => (w, h),
            4 if affine_size == w * m.h => (affine_size, m.d),
            _ => (w * h, 1),
        };
        NormView {
            w,
            h,
            channels: m.c,
            elempack: if one { 1 } else { m.elempack },
            // ncnn multiplies by elempack again for a one-dimensional blob;
            // the workspaces it sizes with it are that large.
            elemsize: if one {
                m.elemsize * m.elempack
            } else {
                m.elemsize
            },
            cstep: if one {
                (m.cstep() * u64::from(m.elempack)) as u32
            } else {
                m.cstep() as u32
            },
            group_size,
            groups_per_channel,
        }
    }
}

/// LayerNorm's statistic chain over `src` (whose channel step is
/// `src_cstep`): `layernorm_reduce_sum4_fp16_to_fp32` into fp32 partial sums
/// of four, `layernorm_reduce_sum4_fp32` passes until one column is left,
/// and `layernorm_reduce_mean` dividing by the group size into `dst`.
fn ln_mean_chain(
    device: &Device,
    v: &NormView,
    b: &mut Buffers,
    steps: &mut Vec<Step>,
    src: usize,
    src_cstep: u32,
    dst: usize,
) {
    let ep = v.elempack;
    let (ng, ch) = (v.groups_per_channel, v.channels);
    let ws_of = |w: u32| Geo::new(&[w, ng, ch], 4 * ep);
    let mut ws = ws_of(v.group_size.div_ceil(4));
    let mut cur = b.add(ws.poison());
    steps.push(step(
        packed(
            ep,
            "layernorm_reduce_sum4_fp16_to_fp32.comp",
            "layernorm_reduce_sum4_fp16_to_fp32_pack4.comp",
        ),
        optimal(device, [16, 4, 1]),
        Vec::new(),
        words(&[
            v.group_size as i32,
            ng as i32,
            ch as i32,
            src_cstep as i32,
            ws.w as i32,
            ng as i32,
            ch as i32,
            ws.cstep() as i32,
        ]),
        &[src, cur],
        [ws.w, ng, ch],
    ));
    while ws.w > 1 {
        let next = ws_of(ws.w.div_ceil(4));
        let nb = b.add(next.poison());
        steps.push(step(
            packed(
                ep,
                "layernorm_reduce_sum4_fp32.comp",
                "layernorm_reduce_sum4_fp32_pack4.comp",
            ),
            optimal(device, [8, 8, 1]),
            Vec::new(),
            words(&[
                ws.w as i32,
                ng as i32,
                ch as i32,
                ws.cstep() as i32,
                next.w as i32,
                ng as i32,
                ch as i32,
                next.cstep() as i32,
            ]),
            &[cur, nb],
            [next.w, ng, ch],
        ));
        ws = next;
        cur = nb;
    }
    let mut push = words(&[ws.w as i32, ng as i32, ch as i32, ws.cstep() as i32]);
    push.push((v.group_size as f32).to_bits());
    steps.push(step(
        packed(
            ep,
            "layernorm_reduce_mean.comp",
            "layernorm_reduce_mean_pack4.comp",
        ),
        optimal(device, [1, 8, 8]),
        Vec::new(),
        push,
        &[cur, dst],
        [1, ng, ch],
    ));
}

/// The group of a logical element under LayerNorm's grouping, numbered
/// `0..`, and its index within the group (the affine index).
fn ln_group(shape: &[u32], affine_size: u32, p: [u32; 4]) -> (usize, u32) {
    let t = Tensor {
        shape: shape.to_vec(),
        values: Vec::new(),
    };
    let [w, h, d, _] = t.whdc();
    let [x, y, z, q] = p;
    let (key, inner) = match shape.len() {
        1 => (0, x),
        2 => (y, x),
        3 if affine_size == w => (q * h + y, x),
        3 => (q, y * w + x),
        _ if affine_size == w => ((q * d + z) * h + y, x),
        _ if affine_size == w * h => (q * d + z, y * w + x),
        _ => (q, (z * h + y) * w + x),
    };
    (key as usize, inner)
}

/// The number of LayerNorm groups of `shape`.
fn ln_groups(shape: &[u32], affine_size: u32) -> usize {
    let t = Tensor {
        shape: shape.to_vec(),
        values: Vec::new(),
    };
    let [w, h, d, c] = t.whdc();
    match shape.len() {
        1 => 1,
        2 => h as usize,
        3 if affine_size == w => (c * h) as usize,
        3 => c as usize,
        _ if affine_size == w => (c * d * h) as usize,
        _ if affine_size == w * h => (c * d) as usize,
        _ => c as usize,
    }
}

/// `layernorm_vulkan.cpp`, in place: the mean chain, then
/// `layernorm_sub_mean_square` into a square workspace (in the blob's
/// storage) and the same chain for the variance, `layernorm_coeffs`
/// storing `a = 1/sqrt(var + eps)` and `b = -mean * a` per group, and
/// `layernorm_norm` applying them with gamma and beta at `q % affine_size`.
/// The groups are rows (`affine_size == w`), `d`-slices (`w * h` of a
/// four-dimensional blob) or whole channels; a one-dimensional blob is read
/// unpacked.
fn layernorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let eps = 1e-5f32;
    let mut runs = Vec::new();
    for (shape, ep, affine_size, affine) in [
        (&[24u32][..], 4u32, 24u32, true),
        (&[10, 8][..], 4, 10, true),
        (&[7, 3][..], 1, 7, false),
        (&[6, 5, 8][..], 4, 6, true),
        (&[6, 5, 3][..], 1, 30, true),
        (&[3, 4, 2, 4][..], 4, 12, true),
        (&[3, 4, 2, 3][..], 1, 24, false),
        (&[3, 4, 2, 4][..], 4, 3, false),
    ] {
        let t = Tensor::random(shape, mode, rng, -1.0, 3.0);
        let m = packed_mat(shape, ep, mode);
        let v = NormView::new(&m, affine_size);
        let gamma = weights(affine_size, mode, rng, 0.5, 2.0);
        let beta = weights(affine_size, mode, rng, -1.0, 1.0);
        let ngt = v.groups_per_channel * v.channels;
        let mut b = Buffers::default();
        let mut steps = Vec::new();
        let blob = b.add(Data::Floats(pack(&t, &m)));
        let mean = b.add(Geo::new(&[ngt], 4 * v.elempack).poison());
        ln_mean_chain(device, &v, &mut b, &mut steps, blob, v.cstep, mean);
        let var = b.add(Geo::new(&[ngt], 4 * v.elempack).poison());
        let square_geo = Geo::new(&[v.w, v.h, v.channels], v.elemsize);
        let square = b.add(square_geo.poison());
        let wh = words(&[v.w as i32, v.h as i32, v.channels as i32, v.cstep as i32]);
        steps.push(step(
            packed(
                v.elempack,
                "layernorm_sub_mean_square.comp",
                "layernorm_sub_mean_square_pack4.comp",
            ),
            optimal(device, [8, 8, 1]),
            spec_ints(0, &[affine_size as i32]),
            wh.clone(),
            &[blob, mean, square],
            [v.w, v.h, v.channels],
        ));
        ln_mean_chain(
            device,
            &v,
            &mut b,
            &mut steps,
            square,
            square_geo.cstep(),
            var,
        );
        let coeffs = b.add(Geo::new(&[ngt * 2], v.elemsize).poison());
        steps.push(step(
            packed(
                v.elempack,
                "layernorm_coeffs.comp",
                "layernorm_coeffs_pack4.comp",
            ),
            optimal(device, [8, 8, 1]),
            vec![(0, SpecValue::Float(eps))],
            words(&[v.groups_per_channel as i32, v.channels as i32]),
            &[coeffs, mean, var],
            [1, v.groups_per_channel, v.channels],
        ));
        let (g, be) = if affine {
            (
                b.add(Data::Floats(gamma.clone())),
                b.add(Data::Floats(beta.clone())),
            )
        } else {
            (b.dummy(), b.dummy())
        };
        steps.push(step(
            packed(
                v.elempack,
                "layernorm_norm.comp",
                "layernorm_norm_pack4.comp",
            ),
            optimal(device, [8, 8, 1]),
            spec_ints(0, &[i32::from(affine), affine_size as i32]),
            wh,
            &[blob, coeffs, g, be],
            [v.w, v.h, v.channels],
        ));
        let stats = group_stats(&t, ln_groups(shape, affine_size), |p| {
            ln_group(shape, affine_size, p).0
        });
        let expect = checks(mode, blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let (k, inner) = ln_group(shape, affine_size, p);
            let (mu, var) = stats[k];
            let a = 1.0 / (var + f64::from(eps)).sqrt();
            let (gm, bt) = if affine {
                (
                    f64::from(gamma[inner as usize]),
                    f64::from(beta[inner as usize]),
                )
            } else {
                (1.0, 0.0)
            };
            let x = at(&t, p);
            let want = (x - mu) * a * gm + bt;
            // `a` and `b = -mean * a` are stored in the blob's storage.
            let stored = (x.abs() + mu.abs()) * a * gm.abs();
            (want, stored + bt.abs() + want.abs(), stored)
        });
        runs.push(Run {
            name: format!("layernorm {shape:?} pack{ep} affine_size {affine_size} affine {affine}"),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

/// `rmsnorm_vulkan.cpp`, in place: `rmsnorm_square` into a square
/// workspace (in the blob's storage), LayerNorm's mean chain over it,
/// `rmsnorm_coeffs` storing `1/sqrt(mean + eps)` per group and
/// `rmsnorm_norm` scaling (by gamma at `q % affine_size` when affine). The
/// groups are LayerNorm's.
fn rmsnorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let eps = 1e-5f32;
    let mut runs = Vec::new();
    for (shape, ep, affine_size, affine) in [
        (&[24u32][..], 4u32, 24u32, true),
        (&[10, 8][..], 4, 10, false),
        (&[7, 3][..], 1, 7, true),
        (&[6, 5, 8][..], 4, 6, true),
        (&[6, 5, 3][..], 1, 30, true),
        (&[3, 4, 2, 4][..], 4, 12, false),
    ] {
        let t = Tensor::random(shape, mode, rng, -2.0, 2.0);
        let m = packed_mat(shape, ep, mode);
        let v = NormView::new(&m, affine_size);
        let gamma = weights(affine_size, mode, rng, 0.5, 2.0);
        let ngt = v.groups_per_channel * v.channels;
        let mut b = Buffers::default();
        let mut steps = Vec::new();
        let blob = b.add(Data::Floats(pack(&t, &m)));
        let square_geo = Geo::new(&[v.w, v.h, v.channels], v.elemsize);
        let square = b.add(square_geo.poison());
        let wh = words(&[v.w as i32, v.h as i32, v.channels as i32, v.cstep as i32]);
        steps.push(step(
            packed(
                v.elempack,
                "rmsnorm_square.comp",
                "rmsnorm_square_pack4.comp",
            ),
            optimal(device, [8, 8, 1]),
            Vec::new(),
            wh.clone(),
            &[blob, square],
            [v.w, v.h, v.channels],
        ));
        let rms = b.add(Geo::new(&[ngt], 4 * v.elempack).poison());
        ln_mean_chain(
            device,
            &v,
            &mut b,
            &mut steps,
            square,
            square_geo.cstep(),
            rms,
        );
        let coeffs = b.add(Geo::new(&[ngt], v.elemsize).poison());
        steps.push(step(
            packed(
                v.elempack,
                "rmsnorm_coeffs.comp",
                "rmsnorm_coeffs_pack4.comp",
            ),
            optimal(device, [8, 8, 1]),
            vec![(0, SpecValue::Float(eps))],
            words(&[v.groups_per_channel as i32, v.channels as i32]),
            &[coeffs, rms],
            [1, v.groups_per_channel, v.channels],
        ));
        let g = if affine {
            b.add(Data::Floats(gamma.clone()))
        } else {
            b.dummy()
        };
        steps.push(step(
            packed(v.elempack, "rmsnorm_norm.comp", "rmsnorm_norm_pack4.comp"),
            optimal(device, [8, 8, 1]),
            spec_ints(0, &[i32::from(affine), affine_size as i32]),
            wh,
            &[blob, coeffs, g],
            [v.w, v.h, v.channels],
        ));
        let groups = ln_groups(shape, affine_size);
        let mut ms = vec![(0.0f64, 0u32); groups];
        for p in coords(&t) {
            let e = &mut ms[ln_group(shape, affine_size, p).0];
            e.0 += at(&t, p).powi(2);
            e.1 += 1;
        }
        let expect = checks(mode, blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let (k, inner) = ln_group(shape, affine_size, p);
            let a = 1.0 / (ms[k].0 / f64::from(ms[k].1) + f64::from(eps)).sqrt();
            let gm = if affine {
                f64::from(gamma[inner as usize])
            } else {
                1.0
            };
            let want = at(&t, p) * a * gm;
            // The squares and `a` are stored in the blob's storage: a
            // relative rounding each, within the storage units `tol` gives.
            (want, want.abs(), 0.0)
        });
        runs.push(Run {
            name: format!("rmsnorm {shape:?} pack{ep} affine_size {affine_size} affine {affine}"),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------
// GroupNorm and InstanceNorm: per-channel partial sums, then per group
// ---------------------------------------------------------------------------

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
    steps.push(step(
        shader,
        local,
        Vec::new(),
        words(&[
            r.w as i32,
            1,
            r.c as i32,
            r.cstep as i32,
            next.w as i32,
            1,
            next.c as i32,
            next.cstep() as i32,
        ]),
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
fn groupnorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
        let local_sq = optimal(
            device,
            if known {
                [sq.w.min(4), sq.h.min(4), sq.c.min(4)]
            } else {
                [4, 4, cc.min(4)]
            },
        );
        let local_coeffs = optimal(device, [cc.min(64), 1, 1]);
        let local_norm = optimal(
            device,
            if known {
                [w.min(4), h.min(4), c.min(4)]
            } else {
                [4, 4, cc.min(4)]
            },
        );
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
        let mean_push = |r: Rows| {
            let mut p = words(&[r.w as i32, 1, r.c as i32, r.cstep as i32]);
            p.extend([area, group, channels_g]);
            p
        };
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
        steps.push(step(
            reduce_mean,
            local_mean,
            spec_ints(0, &[0, 0, cc as i32, 0]),
            mean_push(sums.1),
            &[sums.0, mean],
            [group, 1, 1],
        ));
        let var = b.add(Geo::new(&[group], 4).poison());
        let square = b.add(sq.poison());
        let sq_spec = if known {
            view.into_iter().chain(sq.whc()).collect()
        } else {
            vec![0; 10]
        };
        let mut sq_push: Vec<i32> = view.into_iter().chain(sq.whc()).collect();
        sq_push.push(channels_g as i32);
        steps.push(step(
            packed(
                ep,
                "groupnorm_sub_mean_square.comp",
                "groupnorm_sub_mean_square_pack4.comp",
            ),
            local_sq,
            spec_ints(0, &sq_spec),
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
        steps.push(step(
            reduce_mean,
            local_mean,
            spec_ints(0, &[0, 0, cc as i32, 0]),
            mean_push(sqsums.1),
            &[sqsums.0, var],
            [group, 1, 1],
        ));
        let coeffs = b.add(Geo::new(&[c_v], m.elemsize * 2).poison());
        let (g, be) = if affine {
            (
                b.add(Data::Floats(gamma.clone())),
                b.add(Data::Floats(beta.clone())),
            )
        } else {
            (b.dummy(), b.dummy())
        };
        let mut coeff_spec = vec![(0, SpecValue::Float(eps))];
        coeff_spec.extend(spec_ints(
            1,
            &[i32::from(affine), cc as i32, channels_g as i32],
        ));
        steps.push(step(
            packed(ep, "groupnorm_coeffs.comp", "groupnorm_coeffs_pack4.comp"),
            local_coeffs,
            coeff_spec,
            vec![c_v],
            &[coeffs, mean, var, g, be],
            [c_v, 1, 1],
        ));
        steps.push(step(
            packed(ep, "groupnorm_norm.comp", "groupnorm_norm_pack4.comp"),
            local_norm,
            spec_ints(0, &if known { view.to_vec() } else { vec![0; 5] }),
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
        let expect = checks(mode, blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let ch = channel(p);
            let (mu, var) = stats[(ch / channels_g) as usize];
            let (gm, bt) = if affine {
                (f64::from(gamma[ch as usize]), f64::from(beta[ch as usize]))
            } else {
                (1.0, 0.0)
            };
            let a = gm / (var + f64::from(eps)).sqrt();
            let x = at(&t, p);
            let want = (x - mu) * a + bt;
            // `a` and `b = beta - mean * a` are stored in the blob's storage.
            let stored = (x * a).abs() + (mu * a).abs() + bt.abs();
            (want, stored + want.abs(), stored)
        });
        runs.push(Run {
            name: format!(
                "groupnorm {shape:?} pack{ep} group {group} affine {affine} spec {specialized}"
            ),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
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
fn instancenorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
        let local_sq = optimal(
            device,
            if specialized {
                [sq.w.min(4), sq.h.min(4), sq.c.min(4)]
            } else {
                [4, 4, cc.min(4)]
            },
        );
        let local_norm = optimal(
            device,
            if specialized {
                [w.min(4), h.min(4), c.min(4)]
            } else {
                [4, 4, cc.min(4)]
            },
        );
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
        let mean_push = |r: Rows| {
            let mut p = words(&[r.w as i32, 1, r.c as i32, r.cstep as i32]);
            p.push((size as f32).to_bits());
            p
        };
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
        steps.push(step(
            reduce_mean,
            local_ch,
            spec_ints(0, &[0, 0, cc as i32, 0]),
            mean_push(sums.1),
            &[sums.0, mean],
            [c, 1, 1],
        ));
        let var = b.add(Geo::new(&[c], 4 * ep).poison());
        let square = b.add(sq.poison());
        let sq_consts: Vec<i32> = view.into_iter().chain(sq.whc()).collect();
        steps.push(step(
            packed(
                ep,
                "instancenorm_sub_mean_square.comp",
                "instancenorm_sub_mean_square_pack4.comp",
            ),
            local_sq,
            spec_ints(
                0,
                &if specialized {
                    sq_consts.clone()
                } else {
                    vec![0; 10]
                },
            ),
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
        steps.push(step(
            reduce_mean,
            local_ch,
            spec_ints(0, &[0, 0, cc as i32, 0]),
            mean_push(sqsums.1),
            &[sqsums.0, var],
            [c, 1, 1],
        ));
        let coeffs = b.add(Geo::new(&[c], m.elemsize * 2).poison());
        let (g, be) = if affine {
            (
                b.add(Data::Floats(gamma.clone())),
                b.add(Data::Floats(beta.clone())),
            )
        } else {
            (b.dummy(), b.dummy())
        };
        let mut coeff_spec = vec![(0, SpecValue::Float(eps))];
        coeff_spec.extend(spec_ints(1, &[i32::from(affine), cc as i32]));
        steps.push(step(
            packed(
                ep,
                "instancenorm_coeffs.comp",
                "instancenorm_coeffs_pack4.comp",
            ),
            local_ch,
            coeff_spec,
            vec![c],
            &[coeffs, mean, var, g, be],
            [c, 1, 1],
        ));
        steps.push(step(
            packed(ep, "instancenorm_norm.comp", "instancenorm_norm_pack4.comp"),
            local_norm,
            spec_ints(
                0,
                &if specialized {
                    view.to_vec()
                } else {
                    vec![0; 5]
                },
            ),
            words(&view),
            &[blob, coeffs],
            [w, h, c],
        ));
        let stats = group_stats(&t, channels as usize, |p| p[3] as usize);
        let expect = checks(mode, blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let (mu, var) = stats[q as usize];
            let (gm, bt) = if affine {
                (f64::from(gamma[q as usize]), f64::from(beta[q as usize]))
            } else {
                (1.0, 0.0)
            };
            let a = gm / (var + f64::from(eps)).sqrt();
            let x = at(&t, p);
            let want = (x - mu) * a + bt;
            // `a` and `b = beta - mean * a` are stored in the blob's storage.
            let stored = (x * a).abs() + (mu * a).abs() + bt.abs();
            (want, stored + want.abs(), stored)
        });
        runs.push(Run {
            name: format!("instancenorm {shape:?} pack{ep} affine {affine} spec {specialized}"),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------
// BatchNorm
// ---------------------------------------------------------------------------

/// `batchnorm_vulkan.cpp`, in place: `batchnorm` / `batchnorm_pack4` with
/// the per-channel `a = bias - slope * mean / sqrt(var + eps)` and
/// `b = slope / sqrt(var + eps)` the layer derives in fp32 when it loads
/// the model (uploaded in the mode's storage), the channel read along the
/// blob's outermost axis (`w`, `h` or `c`); the shape specialized or
/// pushed, with the local size the layer picks for either.
fn batchnorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let eps = 1e-3f32;
    let mut runs = Vec::new();
    for (shape, ep, specialized) in [
        (&[8u32][..], 4u32, true),
        (&[6][..], 1, false),
        (&[5, 8][..], 4, false),
        (&[5, 6][..], 1, true),
        (&[4, 3, 8][..], 4, true),
        (&[4, 3, 5][..], 1, false),
        (&[3, 2, 2, 8][..], 4, true),
        (&[3, 2, 2, 3][..], 1, false),
    ] {
        let t = Tensor::random(shape, mode, rng, -2.0, 2.0);
        let m = packed_mat(shape, ep, mode);
        let channels = shape[shape.len() - 1];
        let slope: Vec<f32> = (0..channels).map(|_| rng.f32(0.5, 2.0)).collect();
        let mean: Vec<f32> = (0..channels).map(|_| rng.f32(-1.0, 1.0)).collect();
        let var: Vec<f32> = (0..channels).map(|_| rng.f32(0.1, 2.0)).collect();
        let bias: Vec<f32> = (0..channels).map(|_| rng.f32(-1.0, 1.0)).collect();
        let (a, bb): (Vec<f32>, Vec<f32>) = (0..channels as usize)
            .map(|i| {
                let sqrt_var = (var[i] + eps).sqrt();
                (
                    mode.round(bias[i] - slope[i] * mean[i] / sqrt_var),
                    mode.round(slope[i] / sqrt_var),
                )
            })
            .unzip();
        let consts: [i32; 5] =
            [m.dims.min(3), m.w, m.h * m.d, m.c, m.cstep() as u32].map(|v| v as i32);
        let local = match (specialized, m.dims) {
            (false, _) => [4, 4, (channels / ep).min(4)],
            (_, 1) => [m.w.min(64), 1, 1],
            (_, 2) => [m.w.min(8), m.h.min(8), 1],
            _ => [m.w.min(4), (m.h * m.d).min(4), m.c.min(4)],
        };
        let local = optimal(device, local);
        let mut b = Buffers::default();
        let blob = b.add(Data::Floats(pack(&t, &m)));
        let ab = b.add(Data::Floats(a.clone()));
        let bb_buf = b.add(Data::Floats(bb.clone()));
        let steps = vec![step(
            packed(ep, "batchnorm.comp", "batchnorm_pack4.comp"),
            local,
            spec_ints(
                0,
                &if specialized {
                    consts.to_vec()
                } else {
                    vec![0; 5]
                },
            ),
            words(&consts),
            &[blob, ab, bb_buf],
            [m.w, m.h * m.d, m.c],
        )];
        let last = shape.len() - 1;
        let expect = checks(mode, blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let ch = match last {
                0 => x,
                1 => y,
                _ => q,
            } as usize;
            let v = at(&t, p);
            let want = (v - f64::from(mean[ch])) / (f64::from(var[ch]) + f64::from(eps)).sqrt()
                * f64::from(slope[ch])
                + f64::from(bias[ch]);
            // `a` and `b` are stored in the mode's storage.
            let stored = (v * f64::from(bb[ch])).abs() + f64::from(a[ch]).abs();
            (want, stored + want.abs(), stored)
        });
        runs.push(Run {
            name: format!("batchnorm {shape:?} pack{ep} spec {specialized}"),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------
// Pooling
// ---------------------------------------------------------------------------

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
fn pooling(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
            spec.extend(spec_ints(
                3,
                &if cfg.specialized {
                    shapes.clone()
                } else {
                    vec![0; 10]
                },
            ));
            let mut push = shapes;
            push.extend([pads[2] as i32, pads[0] as i32, 0]);
            steps.push(step(
                packed(ep, "padding.comp", "padding_pack4.comp"),
                optimal(
                    device,
                    if cfg.specialized {
                        [wb.min(4), hb.min(4), mb.c.min(4)]
                    } else {
                        [0; 3]
                    },
                ),
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
        spec.extend(spec_ints(
            12,
            &if known { shapes.clone() } else { vec![0; 10] },
        ));
        let mut push = shapes;
        push.extend([wtail as i32, htail as i32]);
        steps.push(step(
            packed(ep, "pooling.comp", "pooling_pack4.comp"),
            optimal(
                device,
                if cfg.specialized {
                    [ow.min(4), oh.min(4), mo.c.min(4)]
                } else {
                    [0; 3]
                },
            ),
            spec,
            words(&push),
            &[bordered, output],
            [ow, oh, mo.c],
        ));
        let expect = checks(mode, output, &mo, &[ow, oh, cch], |ox, oy, _, q| {
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
            let mag: f64 = vals.iter().map(|v| v.abs()).sum();
            if cfg.kind == 0 {
                let v = vals.iter().cloned().fold(f64::MIN, f64::max);
                (v, v.abs(), 0.0)
            } else {
                let n = if cfg.include_pad {
                    f64::from(kw * kh)
                } else {
                    vals.len() as f64
                };
                (vals.iter().sum::<f64>() / n, mag / n, 0.0)
            }
        });
        runs.push(Run {
            name: format!("pooling {cfg:?}"),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

/// `pooling_vulkan.cpp` for global pooling: `pooling_global_reduce_*_first`
/// folding each channel into `w * h / 8` partial results (in the blob's
/// storage for max, fp32 for average), `pooling_global_reduce_*` folding by
/// eight while more than 32 remain, and `pooling_global_reduce_*_last` into
/// the one-dimensional output (average divides by `w * h`); the first
/// pass's shape specialized or pushed.
fn global_pooling(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
        steps.push(step(
            shaders[0],
            local64,
            spec_ints(
                0,
                &if specialized {
                    [w, h, c, g.cstep(), 0, 0].map(|v| v as i32)
                } else {
                    [0; 6]
                },
            ),
            words(&[w, h, c, g.cstep(), red.w, red.cstep()].map(|v| v as i32)),
            &[input, rb],
            [red.w, 1, c],
        ));
        while red.w > 32 {
            let next = Geo::new(&[red.w.div_ceil(8), 1, c], red_elemsize);
            let nb = b.add(next.poison());
            steps.push(step(
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
        steps.push(step(
            shaders[2],
            optimal(device, [1, 1, 64]),
            spec_ints(0, &[0, spec_c, 0]),
            words(&[red.w, red.c, red.cstep(), w * h].map(|v| v as i32)),
            &[rb, out],
            [1, 1, mo.w],
        ));
        let expect = checks(mode, out, &mo, &[shape[2]], |q, _, _, _| {
            let vals: Vec<f64> = (0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .map(|(x, y)| f64::from(t.at(x, y, 0, q)))
                .collect();
            if kind == 0 {
                let v = vals.iter().cloned().fold(f64::MIN, f64::max);
                (v, v.abs(), 0.0)
            } else {
                let n = vals.len() as f64;
                let mag: f64 = vals.iter().map(|v| v.abs()).sum();
                (vals.iter().sum::<f64>() / n, mag / n, 0.0)
            }
        });
        runs.push(Run {
            name: format!("global_pooling {shape:?} pack{ep} kind {kind} spec {specialized}"),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

/// `pooling_vulkan.cpp` for adaptive pooling: `pooling_adaptive` /
/// `pooling_adaptive_pack4`, output `x` pooling input columns
/// `floor(w * x / outw)` up to `ceil(w * (x + 1) / outw)` (rows alike),
/// the type specialized and the shapes specialized or pushed.
fn adaptive_pooling(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
        spec.extend(spec_ints(
            1,
            &if specialized {
                shapes.clone()
            } else {
                vec![0; 10]
            },
        ));
        let mut b = Buffers::default();
        let input = b.add(Data::Floats(pack(&t, &m)));
        let output = b.add(Geo::of(&mo).poison());
        let steps = vec![step(
            packed(ep, "pooling_adaptive.comp", "pooling_adaptive_pack4.comp"),
            optimal(
                device,
                if specialized {
                    [ow.min(4), oh.min(4), mo.c.min(4)]
                } else {
                    [0; 3]
                },
            ),
            spec,
            words(&shapes),
            &[input, output],
            [ow, oh, mo.c],
        )];
        let expect = checks(mode, output, &mo, &[ow, oh, cch], |ox, oy, _, q| {
            let (sx, ex) = (w * ox / ow, (w * (ox + 1)).div_ceil(ow));
            let (sy, ey) = (h * oy / oh, (h * (oy + 1)).div_ceil(oh));
            let vals: Vec<f64> = (sy..ey)
                .flat_map(|y| (sx..ex).map(move |x| (x, y)))
                .map(|(x, y)| f64::from(t.at(x, y, 0, q)))
                .collect();
            if kind == 0 {
                let v = vals.iter().cloned().fold(f64::MIN, f64::max);
                (v, v.abs(), 0.0)
            } else {
                let n = vals.len() as f64;
                let mag: f64 = vals.iter().map(|v| v.abs()).sum();
                (vals.iter().sum::<f64>() / n, mag / n, 0.0)
            }
        });
        runs.push(Run {
            name: format!(
                "adaptive_pooling {shape:?} pack{ep} kind {kind} out {out:?} spec {specialized}"
            ),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------
// Reduction
// ---------------------------------------------------------------------------

/// `reduction_vulkan.cpp`: `reduction.comp` (pack 1 only: the layer takes
/// no packing; its subgroup reduction takes the branch of the device's
/// subgroup size, 8 on lavapipe), one workgroup of `set_local_size_xyz(256, 1, 1)` per output
/// element over the dispatcher `256 x out_total`, the operation
/// specialized and everything else pushed: input and output shapes, the
/// reduced axes, which input axis each output axis reads (keepdims keeps
/// every axis; otherwise the surviving axes fill the output from `w` up)
/// and the coefficient (divided by the reduced count for the mean).
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
const REDUCTIONS_PADDED_CSTEP: &[Reduce] = &[
    (&[2, 1, 2, 1], 0, [true, false, false, false], true, 1.0),
    (&[3, 1, 2, 1], 0, [false, false, true, false], false, 1.0),
];

/// The [`REDUCTIONS`] runs.
fn reduction(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
fn reduction_runs_of(configs: &[Reduce], device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
        let steps = vec![step(
            "reduction.comp",
            local,
            spec_ints(0, &[op]),
            push,
            &[out, input],
            [256, out_total, 1],
        )];
        let expect = checks(mode, out, &mo, &out_shape, |ox, oy, oz, oq| {
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
            (r * c, mag * c.abs(), 0.0)
        });
        runs.push(Run {
            name: format!(
                "reduction {shape:?} op {op} axes {reduce:?} keepdims {keepdims} coeff {coeff}"
            ),
            buffers: b.0,
            steps,
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}

// ---------------------------------------------------------------------------
// The tests: one per layer
// ---------------------------------------------------------------------------

/// Softmax over every axis of one to four dimensions, pack 1 and 4.
#[test]
fn softmax_layer() {
    suite(&[("softmax", softmax)]);
}

/// LayerNorm per row, per `d`-slice and per channel.
#[test]
fn layernorm_layer() {
    suite(&[("layernorm", layernorm)]);
}

/// GroupNorm in one to four dimensions.
#[test]
fn groupnorm_layer() {
    suite(&[("groupnorm", groupnorm)]);
}

/// RMSNorm per row and per channel.
#[test]
fn rmsnorm_layer() {
    suite(&[("rmsnorm", rmsnorm)]);
}

/// BatchNorm in one to four dimensions.
#[test]
fn batchnorm_layer() {
    suite(&[("batchnorm", batchnorm)]);
}

/// InstanceNorm in three and four dimensions.
#[test]
fn instancenorm_layer() {
    suite(&[("instancenorm", instancenorm)]);
}

/// Pooling: windowed max and average through the padding layer, the global
/// reduce chain, and adaptive pooling.
#[test]
fn pooling_layer() {
    suite(&[
        ("pooling", pooling),
        ("global_pooling", global_pooling),
        ("adaptive_pooling", adaptive_pooling),
    ]);
}

/// Reduction: sums, means, extrema, products, norms and log-sums over axis
/// sets of one to four dimensions.
#[test]
fn reduction_layer() {
    suite(&[("reduction", reduction)]);
}

/// Reduction of four-dimensional blobs with padded channels
/// ([`REDUCTIONS_PADDED_CSTEP`]): the `d`-slices after the first are read
/// from and written to the channel padding.
#[test]
#[ignore = "reduction.comp steps d-slices by cstep / d, past w * h where the channel is padded (ncnn bug)"]
fn reduction_padded_cstep() {
    suite(&[("reduction", |d, m, r| {
        reduction_runs_of(REDUCTIONS_PADDED_CSTEP, d, m, r)
    })]);
}
