//! LayerNorm and RMSNorm: per-group statistics through LayerNorm's
//! reduce-sum chain, then stored coefficients applied in place.

use ncnn_glsl_runtime::{NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, expect_blob_tol, pack, packed_mat, whdc, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{
    affine_at, at, coords, group_stats, optimal, packed, run_of, spec_ints, sum4_push, weights,
    words, Buffers, Geo,
};

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

    /// The square workspace the layers allocate: the view's shape, in the
    /// blob's storage.
    fn square(&self) -> Geo {
        Geo::new(&[self.w, self.h, self.channels], self.elemsize)
    }

    /// A pass over the whole view (8x8 local size), the view's shape pushed.
    fn over_blob(
        &self,
        device: &Device,
        shader: &'static str,
        spec: Vec<(u32, SpecValue)>,
        bind: &[usize],
    ) -> Step {
        Step::new(
            shader,
            optimal(device, [8, 8, 1]),
            spec,
            words(&[self.w, self.h, self.channels, self.cstep].map(|v| v as i32)),
            bind,
            [self.w, self.h, self.channels],
        )
    }

    /// A `*_coeffs` pass: one coefficient set per group from its statistic,
    /// `eps` specialized.
    fn coeffs(&self, device: &Device, shader: &'static str, eps: f32, bind: &[usize]) -> Step {
        let (ng, ch) = (self.groups_per_channel, self.channels);
        Step::new(
            shader,
            optimal(device, [8, 8, 1]),
            vec![(0, SpecValue::Float(eps))],
            words(&[ng as i32, ch as i32]),
            bind,
            [1, ng, ch],
        )
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
    // The first pass converts the blob's storage to fp32, the others fold
    // fp32 sums; each writes a new workspace.
    let (mut cur, mut w, mut cstep) = (src, v.group_size, src_cstep);
    let mut first = true;
    while first || w > 1 {
        let (shader, local) = if first {
            (
                packed(
                    ep,
                    "layernorm_reduce_sum4_fp16_to_fp32.comp",
                    "layernorm_reduce_sum4_fp16_to_fp32_pack4.comp",
                ),
                [16, 4, 1],
            )
        } else {
            (
                packed(
                    ep,
                    "layernorm_reduce_sum4_fp32.comp",
                    "layernorm_reduce_sum4_fp32_pack4.comp",
                ),
                [8, 8, 1],
            )
        };
        let next = Geo::new(&[w.div_ceil(4), ng, ch], 4 * ep);
        let nb = b.add(next.poison());
        steps.push(Step::new(
            shader,
            optimal(device, local),
            Vec::new(),
            sum4_push(w, ng, ch, cstep, &next),
            &[cur, nb],
            [next.w, ng, ch],
        ));
        (cur, w, cstep) = (nb, next.w, next.cstep());
        first = false;
    }
    let mut push = words(&[w as i32, ng as i32, ch as i32, cstep as i32]);
    push.push((v.group_size as f32).to_bits());
    steps.push(Step::new(
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
    let [w, h, d, _] = whdc(shape);
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
    let [w, h, d, c] = whdc(shape);
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
pub(crate) fn layernorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
        let square_geo = v.square();
        let square = b.add(square_geo.poison());
        steps.push(v.over_blob(
            device,
            packed(
                v.elempack,
                "layernorm_sub_mean_square.comp",
                "layernorm_sub_mean_square_pack4.comp",
            ),
            spec_ints(0, &[affine_size as i32]),
            &[blob, mean, square],
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
        steps.push(v.coeffs(
            device,
            packed(
                v.elempack,
                "layernorm_coeffs.comp",
                "layernorm_coeffs_pack4.comp",
            ),
            eps,
            &[coeffs, mean, var],
        ));
        let g = b.affine(affine, &gamma);
        let be = b.affine(affine, &beta);
        steps.push(v.over_blob(
            device,
            packed(
                v.elempack,
                "layernorm_norm.comp",
                "layernorm_norm_pack4.comp",
            ),
            spec_ints(0, &[i32::from(affine), affine_size as i32]),
            &[blob, coeffs, g, be],
        ));
        let stats = group_stats(&t, ln_groups(shape, affine_size), |p| {
            ln_group(shape, affine_size, p).0
        });
        let expect = expect_blob_tol(blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let (k, inner) = ln_group(shape, affine_size, p);
            let (mu, var) = stats[k];
            let a = 1.0 / (var + f64::from(eps)).sqrt();
            let gm = affine_at(affine, &gamma, inner as usize, 1.0);
            let bt = affine_at(affine, &beta, inner as usize, 0.0);
            let x = at(&t, p);
            let want = (x - mu) * a * gm + bt;
            // `a` and `b = -mean * a` are stored in the blob's storage.
            let stored = (x.abs() + mu.abs()) * a * gm.abs();
            (
                want,
                mode.tol_stored(want, stored + bt.abs() + want.abs(), stored),
            )
        });
        runs.push(run_of(
            format!("layernorm {shape:?} pack{ep} affine_size {affine_size} affine {affine}"),
            b,
            steps,
            expect,
        ));
    }
    runs
}

/// `rmsnorm_vulkan.cpp`, in place: `rmsnorm_square` into a square
/// workspace (in the blob's storage), LayerNorm's mean chain over it,
/// `rmsnorm_coeffs` storing `1/sqrt(mean + eps)` per group and
/// `rmsnorm_norm` scaling (by gamma at `q % affine_size` when affine). The
/// groups are LayerNorm's.
pub(crate) fn rmsnorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
        let square_geo = v.square();
        let square = b.add(square_geo.poison());
        steps.push(v.over_blob(
            device,
            packed(
                v.elempack,
                "rmsnorm_square.comp",
                "rmsnorm_square_pack4.comp",
            ),
            Vec::new(),
            &[blob, square],
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
        steps.push(v.coeffs(
            device,
            packed(
                v.elempack,
                "rmsnorm_coeffs.comp",
                "rmsnorm_coeffs_pack4.comp",
            ),
            eps,
            &[coeffs, rms],
        ));
        let g = b.affine(affine, &gamma);
        steps.push(v.over_blob(
            device,
            packed(v.elempack, "rmsnorm_norm.comp", "rmsnorm_norm_pack4.comp"),
            spec_ints(0, &[i32::from(affine), affine_size as i32]),
            &[blob, coeffs, g],
        ));
        let groups = ln_groups(shape, affine_size);
        let mut ms = vec![(0.0f64, 0u32); groups];
        for p in coords(&t) {
            let e = &mut ms[ln_group(shape, affine_size, p).0];
            e.0 += at(&t, p).powi(2);
            e.1 += 1;
        }
        let expect = expect_blob(mode, blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let (k, inner) = ln_group(shape, affine_size, p);
            let a = 1.0 / (ms[k].0 / f64::from(ms[k].1) + f64::from(eps)).sqrt();
            let gm = affine_at(affine, &gamma, inner as usize, 1.0);
            let want = at(&t, p) * a * gm;
            // The squares and `a` are stored in the blob's storage: a
            // relative rounding each, within the storage units `tol` gives.
            (want, want.abs())
        });
        runs.push(run_of(
            format!("rmsnorm {shape:?} pack{ep} affine_size {affine_size} affine {affine}"),
            b,
            steps,
            expect,
        ));
    }
    runs
}
