//! Permute: the axes of 2-D to 4-D blobs reordered.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{Device, Mode, Run, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{blob, by_packing, copy_run, shape6, shape_consts, shape_of, Kernel};

/// ncnn's permute orders of 3-D blobs: the input axes the output's `w`,
/// `h`, `c` take.
const ORDERS3: [&str; 6] = ["whc", "hwc", "wch", "cwh", "hcw", "chw"];

/// ncnn's permute orders of 4-D blobs: the input axes the output's `w`,
/// `h`, `d`, `c` take.
const ORDERS4: [&str; 24] = [
    "whdc", "hwdc", "wdhc", "dwhc", "hdwc", "dhwc", "whcd", "hwcd", "wchd", "cwhd", "hcwd", "chwd",
    "wdch", "dwch", "wcdh", "cwdh", "dcwh", "cdwh", "hdcw", "dhcw", "hcdw", "chdw", "dchw", "cdhw",
];

/// `permute_vulkan.cpp`: `permute` / `permute_pack4` / `permute_pack1to4`
/// over the output, `permute_pack4to1` over the input, by the packing of
/// the input and of the permuted output.
pub(crate) fn permute(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[u32], &[i32], bool)] = &[
        (&[5, 8], &[1], true),
        (&[8, 3], &[1], false),
        (&[4, 3, 8], &[2, 3, 5], true),
        (&[4, 5, 3], &[1, 4], false),
        (&[2, 3, 4, 4], &[3, 14, 23], true),
        (&[2, 4, 3, 3], &[11, 13, 20], false),
    ];
    let mut runs = Vec::new();
    for &(shape, orders, known) in configs {
        let dims = shape.len();
        for &order in orders {
            let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
            let letters: &str = match dims {
                2 => ["wh", "hw"][order as usize],
                3 => ORDERS3[order as usize],
                _ => ORDERS4[order as usize],
            };
            // The output's axes, as slots of `[w, h, d, c]`.
            let positions: &[usize] = match dims {
                2 => &[0, 1],
                3 => &[0, 1, 3],
                _ => &[0, 1, 2, 3],
            };
            let slot_of = |l: char| match l {
                'w' => 0,
                'h' => 1,
                'd' => 2,
                _ => 3,
            };
            let in_whdc = t.whdc();
            let mut out_whdc = [1; 4];
            for (&p, l) in positions.iter().zip(letters.chars()) {
                out_whdc[p] = in_whdc[slot_of(l)];
            }
            let out_shape = shape_of(out_whdc, dims);
            let bot = blob(shape, mode);
            let top_m = blob(&out_shape, mode);
            let kernel = Kernel::new(
                by_packing(
                    [
                        "permute.comp",
                        "permute_pack4.comp",
                        "permute_pack1to4.comp",
                        "permute_pack4to1.comp",
                    ],
                    &bot,
                    &top_m,
                    known,
                ),
                shape_consts(
                    vec![SpecValue::Int(order), SpecValue::Int(0)],
                    &shape6(&bot),
                    &shape6(&top_m),
                    known,
                    &[],
                ),
            );
            runs.push(copy_run(
                device,
                mode,
                format!("permute {shape:?} order {order} ({letters}) spec {known}"),
                (&t, &bot),
                (&top_m, &out_shape),
                kernel,
                |x, y, z, q| {
                    let o = [x, y, z, q];
                    let mut c = [0; 4];
                    for (&p, l) in positions.iter().zip(letters.chars()) {
                        c[slot_of(l)] = o[p];
                    }
                    f64::from(t.at(c[0], c[1], c[2], c[3]))
                },
            ));
        }
    }
    runs
}
