//! What the convolution family's cases share: buffers grown to whole
//! blocks, specialization and push-constant words, a spatial layer's
//! parameters ([`Conv`]) with its f64 references, and the tolerance of an
//! output summed through stored partial sums.

use ncnn_glsl_runtime::{NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{pack, spec, Data, Mode, Tensor};
use ncnn_glsl_testkit::Rng;

use super::activation::{Act, NO_ACT};

/// Scalars a buffer is rounded up to: whole `sfpvec4` and `sfpmat4` elements
/// in every storage.
const BLOCK: usize = 16;

/// `v` grown to whole [`BLOCK`]s (one at least) with `fill`.
pub(crate) fn blocks(mut v: Vec<f32>, fill: f32) -> Vec<f32> {
    while v.is_empty() || v.len() % BLOCK != 0 {
        v.push(fill);
    }
    v
}

/// A poisoned output of `scalars` (grown to whole [`BLOCK`]s) in the mode's
/// storage.
fn poison(mode: &Mode, scalars: u64) -> Data {
    let n = scalars.div_ceil(BLOCK as u64) * BLOCK as u64;
    Data::Poison(n * u64::from(mode.scalar_bytes()))
}

/// A poisoned output blob.
pub(crate) fn poison_blob(mode: &Mode, m: &NcnnMat) -> Data {
    poison(mode, m.total() * u64::from(m.elempack))
}

/// An input blob: the tensor in the layout `m`, padding 0.
pub(crate) fn blob(t: &Tensor, m: &NcnnMat) -> Data {
    Data::Floats(blocks(pack(t, m), 0.0))
}

/// The bias ncnn uploads (`num_output` scalars, unpacked); the room past it
/// is NaN. Without a bias term, the placeholder ncnn binds.
pub(crate) fn bias_data(bias: &[f32]) -> Data {
    Data::Floats(blocks(bias.to_vec(), f32::NAN))
}

/// `n` values in `[lo, hi)`, each rounded to the mode's storage.
pub(crate) fn values(n: u32, mode: &Mode, rng: &mut Rng, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| mode.round(rng.f32(lo, hi))).collect()
}

/// `Int` specialization values.
pub(crate) fn ints(v: &[u64]) -> Vec<SpecValue> {
    v.iter().map(|&x| SpecValue::Int(x as i32)).collect()
}

/// Specialization constants `0..` from the pieces, in order.
pub(crate) fn spec_of(parts: &[&[SpecValue]]) -> Vec<(u32, SpecValue)> {
    spec(&parts.concat())
}

/// Push-constant words from `int` members.
pub(crate) fn words(v: &[u64]) -> Vec<u32> {
    v.iter().map(|&x| x as u32).collect()
}

/// `x` where the shape is specialized, else 0 (ncnn's `Mat()` fields).
pub(crate) fn known(specialized: bool, x: u64) -> u64 {
    if specialized {
        x
    } else {
        0
    }
}

/// ncnn's packing of a channel count: 4 when it divides by 4.
pub(crate) fn pack_of(n: u32) -> u32 {
    if n % 4 == 0 {
        4
    } else {
        1
    }
}

/// A spatial layer's parameters and input shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conv {
    /// Input channels.
    pub(crate) cin: u32,
    /// Output channels.
    pub(crate) cout: u32,
    /// Groups (1: a plain convolution).
    pub(crate) group: u32,
    /// `kernel_w, kernel_h`.
    pub(crate) k: [u32; 2],
    /// `dilation_w, dilation_h`.
    pub(crate) d: [u32; 2],
    /// `stride_w, stride_h`.
    pub(crate) s: [u32; 2],
    /// Input `w, h`.
    pub(crate) size: [u32; 2],
    /// `bias_term`.
    pub(crate) bias: bool,
    /// Whether the shapes are known at `create_pipeline` (specialized) or
    /// zero there and pushed.
    pub(crate) specialized: bool,
    /// The fused activation.
    pub(crate) act: Act,
}

/// A [`Conv`] without groups or activation.
#[allow(clippy::too_many_arguments)]
pub(crate) fn conv(
    cin: u32,
    cout: u32,
    k: [u32; 2],
    d: [u32; 2],
    s: [u32; 2],
    size: [u32; 2],
    bias: bool,
    specialized: bool,
) -> Conv {
    Conv {
        cin,
        cout,
        group: 1,
        k,
        d,
        s,
        size,
        bias,
        specialized,
        act: NO_ACT,
    }
}

impl Conv {
    /// `kernel_w * kernel_h`.
    pub(crate) fn maxk(&self) -> u32 {
        self.k[0] * self.k[1]
    }

    /// The kernel's extent along axis `i`.
    pub(crate) fn extent(&self, i: usize) -> u32 {
        self.d[i] * (self.k[i] - 1) + 1
    }

    /// A convolution's output `w, h` (no padding).
    pub(crate) fn out_size(&self) -> [u32; 2] {
        [0, 1].map(|i| (self.size[i] - self.extent(i)) / self.s[i] + 1)
    }

    /// A deconvolution's output `w, h` (no padding, no output padding).
    pub(crate) fn deconv_out_size(&self) -> [u32; 2] {
        [0, 1].map(|i| (self.size[i] - 1) * self.s[i] + self.extent(i))
    }

    /// Weights (`weight_data`, `[cout][cin / group][maxk]`), bias and input,
    /// in the mode's storage.
    pub(crate) fn data(&self, mode: &Mode, rng: &mut Rng) -> (Tensor, Vec<f32>, Vec<f32>) {
        let input = Tensor::random(
            &[self.size[0], self.size[1], self.cin],
            mode,
            rng,
            -1.0,
            1.0,
        );
        let n = self.cout * (self.cin / self.group) * self.maxk();
        let weights = values(n, mode, rng, -1.0, 1.0);
        let bias = if self.bias {
            values(self.cout, mode, rng, -1.0, 1.0)
        } else {
            Vec::new()
        };
        (input, weights, bias)
    }

    /// `weight_data[q][p][k]`.
    pub(crate) fn w(&self, weights: &[f32], q: u32, p: u32, k: u32) -> f32 {
        weights[((q * (self.cin / self.group) + p) * self.maxk() + k) as usize]
    }

    /// The bias of channel `q`, and the sum's start.
    pub(crate) fn start(&self, bias: &[f32], q: u32) -> f64 {
        if self.bias {
            f64::from(bias[q as usize])
        } else {
            0.0
        }
    }

    /// Convolution output `(x, y, q)` before the activation, and the sum of
    /// the magnitudes of its terms.
    pub(crate) fn conv_at(
        &self,
        input: &Tensor,
        weights: &[f32],
        bias: &[f32],
        x: u32,
        y: u32,
        q: u32,
    ) -> (f64, f64) {
        let cg = self.cin / self.group;
        let g = q / (self.cout / self.group);
        let mut sum = self.start(bias, q);
        let mut mag = sum.abs();
        for p in 0..cg {
            for ky in 0..self.k[1] {
                for kx in 0..self.k[0] {
                    let ix = x * self.s[0] + kx * self.d[0];
                    let iy = y * self.s[1] + ky * self.d[1];
                    let v = f64::from(input.at(ix, iy, 0, g * cg + p))
                        * f64::from(self.w(weights, q, p, ky * self.k[0] + kx));
                    sum += v;
                    mag += v.abs();
                }
            }
        }
        (sum, mag)
    }

    /// Deconvolution output `(x, y, q)` before the activation: every input
    /// `(ix, iy)` and tap `(kx, ky)` with `ix * stride + kx * dilation == x`
    /// (and so for `y`) adds `input * weight`.
    pub(crate) fn deconv_at(
        &self,
        input: &Tensor,
        weights: &[f32],
        bias: &[f32],
        x: u32,
        y: u32,
        q: u32,
    ) -> (f64, f64) {
        let mut sum = self.start(bias, q);
        let mut mag = sum.abs();
        for p in 0..self.cin {
            for ky in 0..self.k[1] {
                for kx in 0..self.k[0] {
                    let (tx, ty) = (
                        i64::from(x) - i64::from(kx * self.d[0]),
                        i64::from(y) - i64::from(ky * self.d[1]),
                    );
                    let (sw, sh) = (i64::from(self.s[0]), i64::from(self.s[1]));
                    if tx < 0 || ty < 0 || tx % sw != 0 || ty % sh != 0 {
                        continue;
                    }
                    let (ix, iy) = ((tx / sw) as u32, (ty / sh) as u32);
                    if ix >= self.size[0] || iy >= self.size[1] {
                        continue;
                    }
                    let v = f64::from(input.at(ix, iy, 0, p))
                        * f64::from(self.w(weights, q, p, ky * self.k[0] + kx));
                    sum += v;
                    mag += v.abs();
                }
            }
        }
        (sum, mag)
    }

    /// For run names.
    pub(crate) fn describe(&self) -> String {
        format!(
            "{}->{} g{} k{}x{} d{}x{} s{}x{} in {}x{} bias {} {} act {}",
            self.cin,
            self.cout,
            self.group,
            self.k[0],
            self.k[1],
            self.d[0],
            self.d[1],
            self.s[0],
            self.s[1],
            self.size[0],
            self.size[1],
            self.bias,
            if self.specialized { "spec" } else { "push" },
            self.act.name()
        )
    }
}

/// The tolerance of an output summed from partial sums that were stored in
/// the mode's storage on the way (each rounded once: at most one storage
/// unit of the magnitude of all terms).
pub(crate) fn tol_staged(mode: &Mode, act: Act, sum: (f64, f64)) -> (f64, f64) {
    let (out, amag) = act.apply(sum);
    (out, mode.tol_stored(out, amag, amag))
}
