//! ncnn's arithmetic for running its layers: a blob's layout in a buffer
//! ([`NcnnMat`], `ncnn::Mat`'s `cstep` and `elemsize`), the local size a
//! layer sets per pipeline ([`ncnn_local_size`], [`optimal_local_size`],
//! `ncnn::Pipeline::set_local_size_xyz` and `set_optimal_local_size_xyz`),
//! and the workgroups a dispatch runs ([`group_counts`], as
//! `VkCompute::record_pipeline` derives them from its dispatcher's shape).
//! `docs/ncnn-layers.md` says how a layer is ported with them.

use ash::vk;

use crate::error::{Error, Result};

/// A blob as ncnn lays it out: `c` channels of `w * h * d` elements, each
/// channel starting `cstep` elements after the one before, an element being
/// `elempack` scalars of `elemsize / elempack` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NcnnMat {
    /// 1 to 4: the shape is `w`, `w h`, `w h c` or `w h d c`.
    pub dims: u32,
    /// Width.
    pub w: u32,
    /// Height (1 below two dimensions).
    pub h: u32,
    /// Depth (1 below four dimensions).
    pub d: u32,
    /// Channels of packed elements (1 below three dimensions).
    pub c: u32,
    /// Scalars per element: 1, 4 or 8.
    pub elempack: u32,
    /// Bytes per element: `elempack` times the scalar's bytes.
    pub elemsize: u32,
}

/// The most bytes one [`NcnnMat`] may describe: a blob past it is no
/// buffer any device binds (`maxStorageBufferRange` is 32 bits).
pub const MAX_MAT_BYTES: u64 = 1 << 32;

impl NcnnMat {
    /// A blob of `shape` (`[w]`, `[w, h]`, `[w, h, c]` or `[w, h, d, c]`, `c`
    /// counting packed elements) of `elempack` scalars of `scalar_bytes`
    /// each. Every extent must be at least 1 and the blob at most
    /// [`MAX_MAT_BYTES`].
    pub fn new(shape: &[u32], elempack: u32, scalar_bytes: u32) -> Result<NcnnMat> {
        let (w, h, d, c) = match *shape {
            [w] => (w, 1, 1, 1),
            [w, h] => (w, h, 1, 1),
            [w, h, c] => (w, h, 1, c),
            [w, h, d, c] => (w, h, d, c),
            _ => {
                return Err(Error::bad(
                    "dimensions of an ncnn blob",
                    shape.len(),
                    "ncnn's blobs have 1 to 4",
                ))
            }
        };
        if let Some(zero) = shape.iter().position(|&e| e == 0) {
            return Err(Error::bad(
                format!("extent {zero} of an ncnn blob"),
                0,
                "every extent is at least 1",
            ));
        }
        if !matches!(elempack, 1 | 4 | 8) {
            return Err(Error::bad("elempack", elempack, "ncnn packs 1, 4 or 8"));
        }
        if !matches!(scalar_bytes, 1 | 2 | 4) {
            return Err(Error::bad(
                "bytes per scalar",
                scalar_bytes,
                "ncnn stores 1, 2 or 4",
            ));
        }
        let m = NcnnMat {
            dims: shape.len() as u32,
            w,
            h,
            d,
            c,
            elempack,
            elemsize: elempack * scalar_bytes,
        };
        if m.bytes() > MAX_MAT_BYTES {
            return Err(Error::bad(
                "bytes of an ncnn blob",
                m.bytes(),
                format!("at most {MAX_MAT_BYTES}"),
            ));
        }
        Ok(m)
    }

    /// Elements from one channel's start to the next: `w * h * d` rounded up
    /// to 16 bytes, in every dimension count (ncnn's `Mat`; a one- or
    /// two-dimensional blob's one channel is padded too, which the shaders
    /// that read a blob as vec4s rely on). Past `u64` (a blob
    /// [`NcnnMat::new`] refuses) it saturates.
    pub fn cstep(&self) -> u64 {
        let plane = u64::from(self.w)
            .saturating_mul(u64::from(self.h))
            .saturating_mul(u64::from(self.d));
        let size = u64::from(self.elemsize.max(1));
        plane.saturating_mul(size).div_ceil(16).saturating_mul(16) / size
    }

    /// Elements the blob spans, padding included: `cstep * c`.
    pub fn total(&self) -> u64 {
        self.cstep().saturating_mul(u64::from(self.c))
    }

    /// Bytes the blob spans, padding included.
    pub fn bytes(&self) -> u64 {
        self.total().saturating_mul(u64::from(self.elemsize))
    }
}

/// What picks a local size: the device's limits and the subgroup size
/// ncnn rounds the invocation count to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalSizeLimits {
    /// `maxComputeWorkGroupSize`.
    pub max_size: [u32; 3],
    /// `maxComputeWorkGroupInvocations`.
    pub max_invocations: u32,
    /// The device's subgroup size (a power of two; 1 where unknown).
    pub subgroup_size: u32,
}

impl LocalSizeLimits {
    /// The limits of a device with `limits` and `subgroup_size`.
    pub fn new(limits: &vk::PhysicalDeviceLimits, subgroup_size: u32) -> Self {
        LocalSizeLimits {
            max_size: limits.max_compute_work_group_size,
            max_invocations: limits.max_compute_work_group_invocations,
            subgroup_size: if subgroup_size.is_power_of_two() {
                subgroup_size
            } else {
                1
            },
        }
    }
}

/// The largest power of two ncnn rounds a local size to: subgroups are 4 to
/// 128 invocations, and ncnn caps the exponent at 10.
const MAX_SUBGROUP_LOG2: u32 = 10;

/// The local size ncnn's `set_local_size_xyz(x, y, z)` gives a pipeline:
/// grown, where it is not already, to a multiple of the subgroup size, each
/// dimension to the next multiple of a power of two, growing the first
/// dimensions above 1 (so that a whole subgroup runs). The layer's shader
/// must tolerate the extra invocations, as ncnn's do by testing the shape.
pub fn ncnn_local_size(size: [u32; 3], subgroup_size: u32) -> [u32; 3] {
    let [mut x, mut y, mut z] = size.map(|v| v.max(1));
    let target = subgroup_size.max(1).trailing_zeros().min(MAX_SUBGROUP_LOG2);
    let n = u64::from(x) * u64::from(y) * u64::from(z);
    if n % (1u64 << target) == 0 {
        return [x, y, z];
    }
    // `v` rounded up to a multiple of 2^k.
    let up = |v: u32, k: u32| v.div_ceil(1 << k.min(31)).saturating_mul(1 << k.min(31));
    let (tx, ty, tz) = (x.trailing_zeros(), y.trailing_zeros(), z.trailing_zeros());
    let need = target.saturating_sub(tx + ty + tz);
    match (x == 1, y == 1, z == 1) {
        (_, true, true) => x = up(x, target),
        (true, false, true) => y = up(y, target),
        (false, false, true) => {
            y = up(y, ty + need / 2);
            x = up(x, tx + need - need / 2);
        }
        (true, true, false) => z = up(z, target),
        (false, true, false) => {
            z = up(z, tz + need / 2);
            x = up(x, tx + need - need / 2);
        }
        (true, false, false) => {
            z = up(z, tz + need / 2);
            y = up(y, ty + need - need / 2);
        }
        (false, false, false) => {
            z = up(z, tz + need / 3);
            y = up(y, ty + (need - need / 3) / 2);
            x = up(x, tx + need - (need - need / 3) / 2);
        }
    }
    [x, y, z]
}

/// The local size ncnn's `set_optimal_local_size_xyz(w, h, c)` picks for a
/// blob of that shape (`[0, 0, 0]`: ncnn's fallback, 4 x 4 x 4): each
/// dimension within the device's maximum, `w` and `h` halved together
/// until the invocations fit, then [`ncnn_local_size`]. The result is
/// within `limits` wherever ncnn's is (a subgroup size past
/// `maxComputeWorkGroupInvocations` can push it past).
pub fn optimal_local_size(shape: [u32; 3], limits: &LocalSizeLimits) -> [u32; 3] {
    let [w, h, c] = if shape == [0; 3] { [4; 3] } else { shape };
    let clamp = |v: u32, i: usize| v.max(1).min(limits.max_size[i].max(1));
    let (mut w, mut h, c) = (clamp(w, 0), clamp(h, 1), clamp(c, 2));
    let max = u64::from(limits.max_invocations.max(1));
    let n = u64::from(w) * u64::from(h) * u64::from(c);
    if n > max {
        let xy = (max / u64::from(c)).max(1);
        let wh_max = xy.isqrt().max(1);
        while u64::from(w) * u64::from(h) >= wh_max && (w > 1 || h > 1) {
            w = (w / 2).max(1);
            h = (h / 2).max(1);
        }
    }
    ncnn_local_size([w, h, c], limits.subgroup_size)
}

/// The workgroups that cover `invocations` (ncnn's dispatcher `w, h, c`)
/// with `local_size`: each dimension divided, rounded up.
pub fn group_counts(invocations: [u32; 3], local_size: [u32; 3]) -> [u32; 3] {
    [0, 1, 2].map(|i| invocations[i].div_ceil(local_size[i].max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cstep_pads_channels_to_16_bytes() {
        let m = NcnnMat::new(&[5, 3, 7], 1, 4).unwrap();
        assert_eq!((m.cstep(), m.total(), m.bytes()), (16, 112, 448));
        let m = NcnnMat::new(&[5, 3, 7], 4, 2).unwrap();
        assert_eq!((m.elemsize, m.cstep()), (8, 16));
        let m = NcnnMat::new(&[5, 3], 1, 4).unwrap();
        assert_eq!((m.cstep(), m.c), (16, 1));
        let m = NcnnMat::new(&[13], 1, 2).unwrap();
        assert_eq!((m.cstep(), m.bytes()), (16, 32));
        let m = NcnnMat::new(&[3, 2, 2, 5], 8, 2).unwrap();
        assert_eq!(m.cstep(), 12);
        assert!(NcnnMat::new(&[1, 2, 3, 4, 5], 1, 4).is_err());
        assert!(NcnnMat::new(&[4, 0, 3], 1, 4).is_err());
        assert!(NcnnMat::new(&[4], 3, 4).is_err());
        let e = NcnnMat::new(&[u32::MAX, u32::MAX, 2], 4, 4).unwrap_err();
        assert!(e.to_string().contains("bytes of an ncnn blob"), "{e}");
    }

    #[test]
    fn local_sizes_become_whole_subgroups() {
        assert_eq!(ncnn_local_size([64, 1, 1], 32), [64, 1, 1]);
        assert_eq!(ncnn_local_size([8, 8, 1], 32), [8, 8, 1]);
        assert_eq!(ncnn_local_size([5, 1, 1], 32), [32, 1, 1]);
        assert_eq!(ncnn_local_size([1, 3, 1], 16), [1, 16, 1]);
        assert_eq!(ncnn_local_size([1, 1, 3], 8), [1, 1, 8]);
        // Both of x and y: y takes half of the missing factors, x the rest.
        assert_eq!(ncnn_local_size([3, 3, 1], 16), [4, 4, 1]);
        assert_eq!(ncnn_local_size([4, 4, 4], 128), [8, 4, 4]);
        assert_eq!(ncnn_local_size([7, 9, 1], 1), [7, 9, 1]);
        for s in [[3, 5, 7], [1, 9, 6], [12, 1, 5], [0, 0, 0]] {
            let [x, y, z] = ncnn_local_size(s, 64);
            assert_eq!(x * y * z % 64, 0, "{s:?}");
            assert!(x >= s[0] && y >= s[1] && z >= s[2], "{s:?}");
        }
    }

    #[test]
    fn optimal_local_sizes_fit_the_device() {
        let l = LocalSizeLimits {
            max_size: [1024, 1024, 64],
            max_invocations: 1024,
            subgroup_size: 32,
        };
        assert_eq!(optimal_local_size([0, 0, 0], &l), [4, 4, 4]);
        assert_eq!(optimal_local_size([64, 1, 1], &l), [64, 1, 1]);
        assert_eq!(optimal_local_size([8, 8, 1], &l), [8, 8, 1]);
        // 256 * 256 * 4: w and h halved until w * h < sqrt(1024 / 4) = 16.
        assert_eq!(optimal_local_size([256, 256, 4], &l), [4, 2, 4]);
        assert_eq!(optimal_local_size([4000, 1, 1], &l), [1024, 1, 1]);
        assert_eq!(optimal_local_size([10_000, 10_000, 10_000], &l), [1, 1, 64]);
        for shape in [[1, 1, 1], [3, 700, 70], [10_000, 10_000, 10_000]] {
            let [x, y, z] = optimal_local_size(shape, &l);
            assert!(x * y * z <= 1024 && z <= 64, "{shape:?}");
        }
    }

    #[test]
    fn group_counts_round_up() {
        assert_eq!(group_counts([100, 7, 1], [64, 4, 1]), [2, 2, 1]);
        assert_eq!(group_counts([0, 1, 1], [8, 8, 1]), [0, 1, 1]);
        assert_eq!(group_counts([u32::MAX, 1, 1], [1, 0, 1]), [u32::MAX, 1, 1]);
    }
}
