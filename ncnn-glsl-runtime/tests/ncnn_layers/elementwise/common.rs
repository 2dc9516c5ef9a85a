//! What the element-wise layer cases share: [`Blob`], ncnn's layout of a
//! blob with its logical shape, the tensors the cases draw, and the
//! dispatch, specialization and tolerance helpers.

use ncnn_glsl_runtime::{optimal_local_size, NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, pack, Data, Device, Expect, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

/// A blob as ncnn lays it out, with its logical shape.
#[derive(Clone, Debug)]
pub(crate) struct Blob {
    /// The layout.
    pub(crate) m: NcnnMat,
    /// The logical shape.
    pub(crate) shape: Vec<u32>,
}

impl Blob {
    /// A blob of logical `shape` packed by `elempack`, `scalar_bytes` a
    /// scalar.
    pub(crate) fn new(shape: &[u32], elempack: u32, scalar_bytes: u32) -> Blob {
        let mut packed = shape.to_vec();
        let last = packed.len() - 1;
        assert_eq!(packed[last] % elempack, 0, "{shape:?} packs by {elempack}");
        packed[last] /= elempack;
        Blob {
            m: NcnnMat::new(&packed, elempack, scalar_bytes).expect("a blob's shape"),
            shape: shape.to_vec(),
        }
    }

    /// A blob in the mode's storage.
    pub(crate) fn sfp(shape: &[u32], elempack: u32, mode: &Mode) -> Blob {
        Blob::new(shape, elempack, mode.scalar_bytes())
    }

    /// A blob of fp32 scalars.
    pub(crate) fn fp32(shape: &[u32], elempack: u32) -> Blob {
        Blob::new(shape, elempack, 4)
    }

    /// ncnn's `cstep`: a channel's elements padded to 16 bytes.
    pub(crate) fn cstep(&self) -> u32 {
        self.m.cstep() as u32
    }

    /// Scalars the blob spans, padding included.
    pub(crate) fn scalars(&self) -> usize {
        (self.cstep() * self.m.c * self.m.elempack) as usize
    }

    /// Bytes the blob spans.
    pub(crate) fn bytes(&self) -> u64 {
        u64::from(self.cstep()) * u64::from(self.m.c) * u64::from(self.m.elemsize)
    }

    /// `total() * elempack / 4`: the vec4s a flat shader walks.
    pub(crate) fn vec4s(&self) -> u32 {
        (self.scalars() / 4) as u32
    }

    /// `t` in this layout, padding 0.
    pub(crate) fn data(&self, t: &Tensor) -> Vec<f32> {
        assert_eq!(t.shape, self.shape);
        let mut v = pack(t, &self.m);
        v.resize(self.scalars(), 0.0);
        v
    }

    /// `t` as fp32 words in this layout.
    pub(crate) fn words(&self, t: &Tensor) -> Vec<u32> {
        self.data(t).iter().map(|v| v.to_bits()).collect()
    }

    /// NaN words for an fp32 output.
    pub(crate) fn poison_words(&self) -> Vec<u32> {
        vec![u32::MAX; self.scalars()]
    }

    /// The shape ncnn specializes and pushes: dims, w, h * d, c, cstep.
    pub(crate) fn shape5(&self) -> [i32; 5] {
        let m = &self.m;
        [m.dims, m.w, m.h * m.d, m.c, self.cstep()].map(|v| v as i32)
    }

    /// The shape the broadcast shaders take: dims, w, h, d, c, cstep.
    pub(crate) fn shape6(&self) -> [i32; 6] {
        let m = &self.m;
        [m.dims, m.w, m.h, m.d, m.c, self.cstep()].map(|v| v as i32)
    }

    /// `record_pipeline`'s dispatcher for this blob: `w, h * d, c`.
    pub(crate) fn dispatcher(&self) -> [u32; 3] {
        [self.m.w, self.m.h * self.m.d, self.m.c]
    }

    /// The local size BinaryOp, Cast and PReLU derive from an output shape
    /// (packed), or ncnn's 4x4x4 fallback when the shape is unknown.
    pub(crate) fn shape_local(&self, device: &Device, known: bool) -> [u32; 3] {
        let m = &self.m;
        let size = if !known {
            [0, 0, 0]
        } else {
            match m.dims {
                1 => [m.w.min(64), 1, 1],
                2 => [m.w.min(8), m.h.min(8), 1],
                3 => [m.w.min(4), m.h.min(4), m.c.min(4)],
                _ => [m.w.min(4), (m.h * m.d).min(4), m.c.min(4)],
            }
        };
        optimal_local_size(size, &device.limits)
    }
}

/// A tensor of `shape` whose values `draw` gives, rounded to the mode's
/// storage.
pub(crate) fn tensor(
    shape: &[u32],
    mode: &Mode,
    rng: &mut Rng,
    mut draw: impl FnMut(&mut Rng) -> f32,
) -> Tensor {
    let n: u32 = shape.iter().product();
    Tensor {
        shape: shape.to_vec(),
        values: (0..n).map(|_| mode.round(draw(rng))).collect(),
    }
}

/// Uniform in `[lo, hi)` with `|x| >= min_abs`.
pub(crate) fn draw(rng: &mut Rng, lo: f32, hi: f32, min_abs: f32) -> f32 {
    loop {
        let v = rng.f32(lo, hi);
        if v.abs() >= min_abs {
            return v;
        }
    }
}

/// A tensor uniform in `[lo, hi)`, `|x| >= min_abs`, stored values kept
/// only where `keep` holds.
pub(crate) fn tensor_in(
    shape: &[u32],
    mode: &Mode,
    rng: &mut Rng,
    (lo, hi, min_abs): (f32, f32, f32),
    keep: impl Fn(f64) -> bool,
) -> Tensor {
    tensor(shape, mode, rng, |rng| loop {
        let v = mode.round(draw(rng, lo, hi, min_abs));
        if keep(f64::from(v)) {
            return v;
        }
    })
}

/// A tensor of `shape` uniform in `[-100, 100)`, `|x| >= 0.01`, as fp32:
/// an fp32 input keeps every bit (no rounding to the mode's storage).
pub(crate) fn fp32_tensor(shape: &[u32], rng: &mut Rng) -> Tensor {
    Tensor {
        shape: shape.to_vec(),
        values: (0..shape.iter().product::<u32>())
            .map(|_| draw(rng, -100.0, 100.0, 0.01))
            .collect(),
    }
}

/// The checks of a layer that only moves values: blob `dst` (buffer
/// `buffer`) holds the tensor `t`.
pub(crate) fn expect_copy(mode: &Mode, buffer: usize, dst: &Blob, t: &Tensor) -> Expect {
    expect_blob(mode, buffer, &dst.m, &dst.shape, |x, y, z, q| {
        let v = f64::from(t.at(x, y, z, q));
        (v, v.abs())
    })
}

/// The run of `steps` on `buffers`, whole buffers bound (nothing must stay
/// untouched), checked by `expect`.
pub(crate) fn run_of(name: String, buffers: Vec<Data>, steps: Vec<Step>, expect: Expect) -> Run {
    Run {
        name,
        buffers,
        steps,
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Int specialization values, or zeros where the shape is not known.
pub(crate) fn ints(values: &[i32], known: bool) -> Vec<SpecValue> {
    values
        .iter()
        .map(|&v| SpecValue::Int(if known { v } else { 0 }))
        .collect()
}

/// Push-constant words of int members.
pub(crate) fn words(values: &[i32]) -> Vec<u32> {
    values.iter().map(|&v| v as u32).collect()
}

/// The local size of the flat shaders:
/// `set_optimal_local_size_xyz(subgroup_size, 1, 1)`.
pub(crate) fn flat_local(device: &Device) -> [u32; 3] {
    optimal_local_size([device.limits.subgroup_size, 1, 1], &device.limits)
}

/// The tolerance of a result `want` whose error bound is `err` units of the
/// arithmetic's epsilon.
pub(crate) fn tol(mode: &Mode, want: f64, err: f64) -> f64 {
    mode.tol(want, want.abs() + err / 8.0)
}
