//! PixelShuffle in both channel orders.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{Device, Mode, Run, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{blob, blob_local, copy_run, dispatcher, shape5, shape_consts, Kernel};

/// `pixelshuffle_vulkan.cpp`: `pixelshuffle` / `pixelshuffle_pack4` over
/// the output, `pixelshuffle_pack4to1` over the input (with ncnn's 4 x 4 x 4
/// local size); modes 0 (channel-major, as PyTorch) and 1.
pub(crate) fn pixelshuffle(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[u32], u32, i32, bool)] = &[
        (&[3, 2, 16], 2, 0, true),
        (&[3, 2, 16], 2, 1, false),
        (&[2, 3, 12], 2, 0, false),
        (&[2, 3, 12], 2, 1, true),
        (&[2, 2, 9], 3, 0, true),
        (&[2, 1, 18], 3, 1, false),
    ];
    let mut runs = Vec::new();
    for &(shape, r, pmode, known) in configs {
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let outc = shape[2] / (r * r);
        let out_shape = [shape[0] * r, shape[1] * r, outc];
        let bot = blob(shape, mode);
        let top_m = blob(&out_shape, mode);
        let (shader, l, disp) = match (bot.elempack, top_m.elempack) {
            (1, 1) => (
                "pixelshuffle.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            (4, 4) => (
                "pixelshuffle_pack4.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            (4, 1) => ("pixelshuffle_pack4to1.comp", [0; 3], dispatcher(&bot)),
            other => unreachable!("{other:?}"),
        };
        let kernel = Kernel::new(
            (shader, l, disp),
            shape_consts(
                vec![SpecValue::Int(r as i32), SpecValue::Int(pmode)],
                &shape5(&bot),
                &shape5(&top_m),
                known,
                &[],
            ),
        );
        runs.push(copy_run(
            device,
            mode,
            format!("pixelshuffle {shape:?} r {r} mode {pmode} spec {known}"),
            (&t, &bot),
            (&top_m, &out_shape),
            kernel,
            |x, y, _, q| {
                let sub = (y % r) * r + x % r;
                let ch = if pmode == 0 {
                    q * r * r + sub
                } else {
                    sub * outc + q
                };
                f64::from(t.at(x / r, y / r, 0, ch))
            },
        ));
    }
    runs
}
