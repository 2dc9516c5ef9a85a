//! Reshape and Flatten: the elements keep their order, the shape changes.

use ncnn_glsl_runtime::{NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{whdc, Device, Mode, Run, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{
    blob, blob_local, dispatcher, expect_copy, finish_run, local, shape6, spec_shape, step, Arena,
};

/// `reshape_vulkan.cpp` with an explicit output shape: `reshape` /
/// `reshape_pack4` / `reshape_pack1to4` over the output, `reshape_pack4to1`
/// over the input; the elements keep their order (`c`, `d`, `h`, `w`).
pub(crate) fn reshape(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[u32], &[u32], bool)] = &[
        (&[4, 3, 8], &[12, 8], true),
        (&[5, 3, 4], &[10, 6], true),
        (&[6, 5], &[3, 2, 5], false),
        (&[6, 2], &[3, 4], true),
        (&[2, 3, 2, 4], &[6, 2, 4], false),
        (&[24], &[3, 2, 2, 2], true),
        (&[30], &[5, 3, 2], false),
        (&[6, 4, 2], &[2, 3, 2, 4], false),
    ];
    let mut runs = Vec::new();
    for &(shape, out_shape, known) in configs {
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let bot = blob(shape, mode);
        let top_m = blob(out_shape, mode);
        let (shader, l, disp) = match (bot.elempack, top_m.elempack) {
            (1, 1) => (
                "reshape.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            (4, 4) => (
                "reshape_pack4.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            (1, 4) => (
                "reshape_pack1to4.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            _ => (
                "reshape_pack4to1.comp",
                blob_local(&bot, known),
                dispatcher(&bot),
            ),
        };
        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bot);
        let out = a.blob(&top_m);
        let mut spec_values = vec![SpecValue::Int(out_shape.len() as i32)];
        spec_values.extend(spec_shape(&shape6(&bot), known));
        spec_values.extend(spec_shape(&shape6(&top_m), known));
        let mut push = shape6(&bot).to_vec();
        push.extend(shape6(&top_m));
        let steps = vec![step(
            shader,
            local(device, l),
            &spec_values,
            push,
            &[input, out],
            disp,
        )];
        let [ow, oh, od, _] = whdc(out_shape);
        let expect = expect_copy(mode, out, &top_m, out_shape, |x, y, z, q| {
            f64::from(t.values[(((q * od + z) * oh + y) * ow + x) as usize])
        });
        runs.push(finish_run(
            format!("reshape {shape:?} to {out_shape:?} spec {known}"),
            a,
            steps,
            vec![expect],
        ));
    }
    runs
}

/// `flatten_vulkan.cpp`: `flatten` / `flatten_pack4` / `flatten_pack1to4`
/// over the 1-D output, a 4-D input seen as 3-D (`h * d` rows); a pack1 2-D
/// input is flattened without a dispatch and is not run here.
pub(crate) fn flatten(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[u32], bool)] = &[
        (&[3, 2, 8], true),
        (&[3, 2, 5], false),
        (&[2, 2, 3], true),
        (&[5, 8], false),
        (&[2, 3, 2, 4], true),
        (&[2, 2, 2, 3], false),
    ];
    let mut runs = Vec::new();
    for &(shape, known) in configs {
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let total: u32 = shape.iter().product();
        let out_shape = [total];
        let bot = blob(shape, mode);
        let top_m = blob(&out_shape, mode);
        let shader = match (bot.elempack, top_m.elempack) {
            (1, 1) => "flatten.comp",
            (4, 4) => "flatten_pack4.comp",
            (1, 4) => "flatten_pack1to4.comp",
            other => unreachable!("{other:?}"),
        };
        let flat = |m: &NcnnMat| [m.dims.min(3), m.w, m.h * m.d, m.c, m.cstep() as u32];
        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bot);
        let out = a.blob(&top_m);
        let mut spec_values = spec_shape(&flat(&bot), known);
        spec_values.extend(spec_shape(&flat(&top_m), known));
        let mut push = flat(&bot).to_vec();
        push.extend(flat(&top_m));
        let l = if known {
            [top_m.w.min(64), 1, 1]
        } else {
            [64, 1, 1]
        };
        let steps = vec![step(
            shader,
            local(device, l),
            &spec_values,
            push,
            &[input, out],
            dispatcher(&top_m),
        )];
        let expect = expect_copy(mode, out, &top_m, &out_shape, |x, _, _, _| {
            f64::from(t.values[x as usize])
        });
        runs.push(finish_run(
            format!("flatten {shape:?} spec {known}"),
            a,
            steps,
            vec![expect],
        ));
    }
    runs
}
