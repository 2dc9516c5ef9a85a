//! Host pieces the normalization, pooling and reduction layers share: the
//! geometry of the blobs a layer allocates, the constants and local sizes
//! layers pick, buffer lists, and the statistics their references need.

use ncnn_glsl_runtime::{optimal_local_size, NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{whdc, Data, Device, Expect, Mode, Run, Step, Tensor};
use ncnn_glsl_testkit::Rng;

/// The geometry of an ncnn `Mat`/`VkMat` a layer allocates: extents and
/// bytes per element, with ncnn's channel step (16-byte aligned from three
/// dimensions).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geo {
    pub(crate) dims: u32,
    pub(crate) w: u32,
    pub(crate) h: u32,
    pub(crate) d: u32,
    pub(crate) c: u32,
    pub(crate) elemsize: u32,
}

impl Geo {
    /// A blob of `shape` (`[w]` to `[w, h, d, c]`, packed extents) whose
    /// elements take `elemsize` bytes.
    pub(crate) fn new(shape: &[u32], elemsize: u32) -> Geo {
        let [w, h, d, c] = whdc(shape);
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
    pub(crate) fn of(m: &NcnnMat) -> Geo {
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
    pub(crate) fn cstep(&self) -> u32 {
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
    pub(crate) fn poison(&self) -> Data {
        Data::Poison(self.bytes())
    }

    /// `dims, w, h, d, c, cstep` as ncnn's shader constants carry them.
    pub(crate) fn shape6(&self) -> [i32; 6] {
        [self.dims, self.w, self.h, self.d, self.c, self.cstep()].map(|v| v as i32)
    }

    /// `dims, w, h, c, cstep` (the layers that fold `d` into `h` pass the
    /// blob's own `h` here).
    pub(crate) fn whc(&self) -> [i32; 5] {
        [self.dims, self.w, self.h, self.c, self.cstep()].map(|v| v as i32)
    }
}

/// Integer constants as push-constant words.
pub(crate) fn words(v: &[i32]) -> Vec<u32> {
    v.iter().map(|&x| x as u32).collect()
}

/// Integer specialization constants `first..`.
pub(crate) fn spec_ints(first: u32, v: &[i32]) -> Vec<(u32, SpecValue)> {
    v.iter()
        .enumerate()
        .map(|(i, &x)| (first + i as u32, SpecValue::Int(x)))
        .collect()
}

/// ncnn's `set_optimal_local_size_xyz(w, h, c)` on this device.
pub(crate) fn optimal(device: &Device, size: [u32; 3]) -> [u32; 3] {
    optimal_local_size(size, &device.limits)
}

/// Integer specialization constants `first..`: `v` where the layer knows
/// the shapes at create time, else as many zeros (the shader then reads the
/// pushed shapes).
pub(crate) fn spec_known(first: u32, known: bool, v: &[i32]) -> Vec<(u32, SpecValue)> {
    if known {
        spec_ints(first, v)
    } else {
        spec_ints(first, &vec![0; v.len()])
    }
}

/// The local size a layer picks for a dispatch over `size`: up to four a
/// side where the shape is known at create time, else its `unknown` size.
pub(crate) fn local_known(
    device: &Device,
    known: bool,
    size: [u32; 3],
    unknown: [u32; 3],
) -> [u32; 3] {
    optimal(
        device,
        if known {
            size.map(|v| v.min(4))
        } else {
            unknown
        },
    )
}

/// The local size an element-wise layer picks for the blob `m` when its
/// shape is known (64 wide in one dimension, 8x8 in two, 4x4x4 from three),
/// else its `unknown` size.
pub(crate) fn blob_local(device: &Device, known: bool, m: &NcnnMat, unknown: [u32; 3]) -> [u32; 3] {
    let size = match (known, m.dims) {
        (false, _) => unknown,
        (_, 1) => [m.w.min(64), 1, 1],
        (_, 2) => [m.w.min(8), m.h.min(8), 1],
        _ => [m.w.min(4), (m.h * m.d).min(4), m.c.min(4)],
    };
    optimal(device, size)
}

/// The push constants of a reduce-sum-by-four pass: the source (`w` sums
/// per row, `rows` rows per channel, `ch` channels `cstep` apart) and the
/// workspace `next` it writes.
pub(crate) fn sum4_push(w: u32, rows: u32, ch: u32, cstep: u32, next: &Geo) -> Vec<u32> {
    words(&[w, rows, ch, cstep, next.w, rows, ch, next.cstep()].map(|v| v as i32))
}

/// A run with one output blob to check and no bytes that must stay.
pub(crate) fn run_of(name: String, b: Buffers, steps: Vec<Step>, expect: Expect) -> Run {
    Run {
        name,
        buffers: b.0,
        steps,
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// The buffers of a run, added in order.
#[derive(Default)]
pub(crate) struct Buffers(pub(crate) Vec<Data>);

impl Buffers {
    /// Adds `d`; its index.
    pub(crate) fn add(&mut self, d: Data) -> usize {
        self.0.push(d);
        self.0.len() - 1
    }

    /// ncnn binds its dummy buffer where a layer has no weights (a layer
    /// without affine parameters); a small buffer of zeros stands in.
    pub(crate) fn dummy(&mut self) -> usize {
        self.add(Data::Words(vec![0; 16]))
    }

    /// The weights `w` where the layer is affine, else ncnn's dummy buffer.
    pub(crate) fn affine(&mut self, affine: bool, w: &[f32]) -> usize {
        if affine {
            self.add(Data::Floats(w.to_vec()))
        } else {
            self.dummy()
        }
    }
}

/// The logical coordinates `[x, y, z, q]` of every element of `t`.
pub(crate) fn coords(t: &Tensor) -> Vec<[u32; 4]> {
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
pub(crate) fn at(t: &Tensor, p: [u32; 4]) -> f64 {
    f64::from(t.at(p[0], p[1], p[2], p[3]))
}

/// Per-group mean and (biased) variance, groups numbered by `key`.
pub(crate) fn group_stats(
    t: &Tensor,
    groups: usize,
    key: impl Fn([u32; 4]) -> usize,
) -> Vec<(f64, f64)> {
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

/// Affine weight `i` of `w` where the layer is affine, else `none` (1 for a
/// scale, 0 for a shift).
pub(crate) fn affine_at(affine: bool, w: &[f32], i: usize, none: f64) -> f64 {
    if affine {
        f64::from(w[i])
    } else {
        none
    }
}

/// `name` or `name_pack4`, as the layer picks by elempack.
pub(crate) fn packed(ep: u32, pack1: &'static str, pack4: &'static str) -> &'static str {
    if ep == 4 {
        pack4
    } else {
        pack1
    }
}

/// Random weights of `n` values in `[lo, hi)`, rounded to the mode's
/// storage (ncnn uploads them in it).
pub(crate) fn weights(n: u32, mode: &Mode, rng: &mut Rng, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| mode.round(rng.f32(lo, hi))).collect()
}
