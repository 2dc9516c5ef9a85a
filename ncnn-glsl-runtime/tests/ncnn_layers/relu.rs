//! ReLU (the other element-wise layers are in `elementwise`).

use ncnn_glsl_runtime::{group_counts, optimal_local_size, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, pack, packed_mat, suite, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

#[test]
fn relu_layer() {
    suite(&[("relu", relu)]);
}

/// `relu_vulkan.cpp`: `relu.comp` over the blob as vec4s (`n = total *
/// elempack / 4`), in place; the shape specialized or pushed; local size
/// `set_optimal_local_size_xyz(subgroup_size, 1, 1)`; dispatcher `n, 1, 1`.
fn relu(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (shape, elempack, slope, specialized) in [
        (&[5u32, 7, 8][..], 4, 0.0f32, true),
        (&[5, 7, 8][..], 1, 0.1, false),
        (&[64][..], 4, 0.25, true),
        (&[3, 5, 2, 4][..], 4, 0.0, false),
    ] {
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let m = packed_mat(shape, elempack, mode);
        let n = (m.total() * u64::from(m.elempack) / 4) as u32;
        let local = optimal_local_size([device.limits.subgroup_size, 1, 1], &device.limits);
        let step = Step {
            shader: "relu.comp",
            local_size: local,
            spec: vec![
                (0, SpecValue::Float(slope)),
                (1, SpecValue::Uint(if specialized { n } else { 0 })),
            ],
            push: vec![n],
            bind: vec![(0, None)],
            groups: group_counts([n, 1, 1], local),
        };
        let slope64 = f64::from(slope);
        let expect = expect_blob(mode, 0, &m, shape, |x, y, z, q| {
            let v = f64::from(t.at(x, y, z, q));
            let r = if v > 0.0 { v } else { v * slope64 };
            (r, r.abs())
        });
        runs.push(Run {
            name: format!("relu {shape:?} pack{elempack} slope {slope} spec {specialized}"),
            buffers: vec![Data::Floats(pack(&t, &m))],
            steps: vec![step],
            expect: vec![expect],
            untouched: Vec::new(),
        });
    }
    runs
}
