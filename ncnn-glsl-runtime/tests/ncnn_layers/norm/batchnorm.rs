//! BatchNorm: one element-wise pass with per-channel coefficients the layer
//! derives at load time.

use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob_tol, pack, packed_mat, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{at, blob_local, packed, run_of, spec_known, words, Buffers};

/// `batchnorm_vulkan.cpp`, in place: `batchnorm` / `batchnorm_pack4` with
/// the per-channel `a = bias - slope * mean / sqrt(var + eps)` and
/// `b = slope / sqrt(var + eps)` the layer derives in fp32 when it loads
/// the model (uploaded in the mode's storage), the channel read along the
/// blob's outermost axis (`w`, `h` or `c`); the shape specialized or
/// pushed, with the local size the layer picks for either.
pub(crate) fn batchnorm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
        let local = blob_local(device, specialized, &m, [4, 4, (channels / ep).min(4)]);
        let mut b = Buffers::default();
        let blob = b.add(Data::Floats(pack(&t, &m)));
        let ab = b.add(Data::Floats(a.clone()));
        let bb_buf = b.add(Data::Floats(bb.clone()));
        let steps = vec![Step::new(
            packed(ep, "batchnorm.comp", "batchnorm_pack4.comp"),
            local,
            spec_known(0, specialized, &consts),
            words(&consts),
            &[blob, ab, bb_buf],
            [m.w, m.h * m.d, m.c],
        )];
        let last = shape.len() - 1;
        let expect = expect_blob_tol(blob, &m, shape, |x, y, z, q| {
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
            (want, mode.tol_stored(want, stored + want.abs(), stored))
        });
        runs.push(run_of(
            format!("batchnorm {shape:?} pack{ep} spec {specialized}"),
            b,
            steps,
            expect,
        ));
    }
    runs
}
