//! PixelShuffle in both channel orders.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{Device, Mode, Run, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{
    blob, blob_local, dispatcher, expect_copy, finish_run, local, shape5, spec_shape, step, Arena,
};

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
        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bot);
        let out = a.blob(&top_m);
        let mut spec_values = vec![SpecValue::Int(r as i32), SpecValue::Int(pmode)];
        spec_values.extend(spec_shape(&shape5(&bot), known));
        spec_values.extend(spec_shape(&shape5(&top_m), known));
        let mut push = shape5(&bot).to_vec();
        push.extend(shape5(&top_m));
        let steps = vec![step(
            shader,
            local(device, l),
            &spec_values,
            push,
            &[input, out],
            disp,
        )];
        let expect = expect_copy(mode, out, &top_m, &out_shape, |x, y, _, q| {
            let sub = (y % r) * r + x % r;
            let ch = if pmode == 0 {
                q * r * r + sub
            } else {
                sub * outc + q
            };
            f64::from(t.at(x / r, y / r, 0, ch))
        });
        runs.push(finish_run(
            format!("pixelshuffle {shape:?} r {r} mode {pmode} spec {known}"),
            a,
            steps,
            vec![expect],
        ));
    }
    runs
}
