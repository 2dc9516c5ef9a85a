//! Reshape and Flatten: the elements keep their order, the shape changes.

use ncnn_glsl_runtime::{NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{whdc, Device, Mode, Run, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{blob, by_packing, copy_run, dispatcher, shape6, shape_consts, Kernel};

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
        let kernel = Kernel::new(
            by_packing(
                [
                    "reshape.comp",
                    "reshape_pack4.comp",
                    "reshape_pack1to4.comp",
                    "reshape_pack4to1.comp",
                ],
                &bot,
                &top_m,
                known,
            ),
            shape_consts(
                vec![SpecValue::Int(out_shape.len() as i32)],
                &shape6(&bot),
                &shape6(&top_m),
                known,
                &[],
            ),
        );
        let [ow, oh, od, _] = whdc(out_shape);
        runs.push(copy_run(
            device,
            mode,
            format!("reshape {shape:?} to {out_shape:?} spec {known}"),
            (&t, &bot),
            (&top_m, out_shape),
            kernel,
            |x, y, z, q| f64::from(t.values[(((q * od + z) * oh + y) * ow + x) as usize]),
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
        let l = if known {
            [top_m.w.min(64), 1, 1]
        } else {
            [64, 1, 1]
        };
        let kernel = Kernel::new(
            (shader, l, dispatcher(&top_m)),
            shape_consts(vec![], &flat(&bot), &flat(&top_m), known, &[]),
        );
        runs.push(copy_run(
            device,
            mode,
            format!("flatten {shape:?} spec {known}"),
            (&t, &bot),
            (&top_m, &out_shape),
            kernel,
            |x, _, _, _| f64::from(t.values[x as usize]),
        ));
    }
    runs
}
