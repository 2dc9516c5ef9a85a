//! Crop with explicit offsets and output sizes.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{Device, Mode, Run, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{
    blob, blob_local, copy_run, dispatcher, outer_slot, shape6, shape_consts, Kernel,
};

/// One crop configuration: the input, the offsets `[w, h, d, c]`, the
/// output shape, shapes specialized or not.
type CropConfig = (&'static [u32], [u32; 4], &'static [u32], bool);

/// `crop_vulkan.cpp` with explicit offsets and output sizes: one dispatch
/// over the output; `crop_pack4` when the input, the offset along the
/// packed axis and the output are all whole vec4s, `crop_pack4to1` for a
/// pack1 output of a pack4 input, `crop_pack1to4` for a pack4 output of a
/// pack1 input; both shapes specialized when known.
pub(crate) fn crop(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[CropConfig] = &[
        (&[13], [1, 0, 0, 0], &[8], true),
        (&[16], [4, 0, 0, 0], &[8], false),
        (&[16], [3, 0, 0, 0], &[5], true),
        (&[5, 7], [2, 1, 0, 0], &[3, 5], true),
        (&[6, 12], [0, 3, 0, 0], &[5, 6], false),
        (&[6, 5, 12], [2, 0, 0, 4], &[3, 5, 8], false),
        (&[4, 5, 9], [0, 2, 0, 1], &[4, 3, 8], true),
        (&[4, 3, 3, 5], [0, 1, 1, 1], &[4, 2, 2, 3], false),
        (&[4, 3, 2, 8], [1, 1, 0, 2], &[3, 2, 2, 5], true),
    ];
    let mut runs = Vec::new();
    for &(shape, offs, out_shape, known) in configs {
        let dims = shape.len();
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let bottom = blob(shape, mode);
        let top = blob(out_shape, mode);
        let ep = bottom.elempack;
        let off = offs[outer_slot(dims)];
        let offset_ep = match off {
            0 => ep,
            _ if off % 4 == 0 => 4,
            _ => 1,
        }
        .min(ep);
        let shader = match (ep, offset_ep, top.elempack) {
            (1, _, 1) => "crop.comp",
            (4, 4, 4) => "crop_pack4.comp",
            (1, _, 4) => "crop_pack1to4.comp",
            (4, _, 1) => "crop_pack4to1.comp",
            other => panic!("{other:?}: ncnn would convert the packing of the input"),
        };
        let kernel = Kernel::new(
            (shader, blob_local(&top, known), dispatcher(&top)),
            shape_consts(
                vec![SpecValue::Int(0)],
                &shape6(&bottom),
                &shape6(&top),
                known,
                &offs,
            ),
        );
        runs.push(copy_run(
            device,
            mode,
            format!("crop {shape:?} at {offs:?} to {out_shape:?} spec {known}"),
            (&t, &bottom),
            (&top, out_shape),
            kernel,
            |x, y, z, q| f64::from(t.at(x + offs[0], y + offs[1], z + offs[2], q + offs[3])),
        ));
    }
    runs
}
