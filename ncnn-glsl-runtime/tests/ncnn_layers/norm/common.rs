//! Host pieces the normalization, pooling and reduction layers share: the
//! geometry of the blobs a layer allocates, dispatch steps, buffer lists,
//! and the statistics their references need.

use ncnn_glsl_runtime::{group_counts, optimal_local_size, NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{whdc, Data, Device, Mode, Step, Tensor};
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

/// One dispatch binding whole buffers; `dispatcher` is ncnn's dispatcher
/// shape (`w`, `h * d`, `c`).
pub(crate) fn step(
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
