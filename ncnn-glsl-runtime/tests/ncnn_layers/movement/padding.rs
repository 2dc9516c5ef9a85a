//! Padding: constant (or per-channel), replicate and reflect.

use ncnn_glsl_runtime::{NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{Device, Mode, Run, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{
    blob, blob_local, dispatcher, expect_copy, finish_run, local, outer_slot, shape5, shape6,
    shape_consts, shape_of, step, Arena,
};

/// One padding configuration: the input, `[left, right, top, bottom,
/// front, behind]`, the types run, per-channel values or not, shapes
/// specialized or not.
type PadConfig = (&'static [u32], [u32; 6], &'static [i32], bool, bool);

/// `padding_vulkan.cpp`: one dispatch over the output. Up to three
/// dimensions `padding` / `padding_pack4` / `padding_pack1to4` /
/// `padding_pack4to1` by the packing of the offset along the packed axis
/// and of the output; in four dimensions (`front`/`behind` pad the depth)
/// `padding_3d` or `padding_3d_pack4`. Types 0 (a constant, or one value per
/// output channel), 1 (replicate) and 2 (reflect); shapes specialized when
/// known.
pub(crate) fn padding(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[PadConfig] = &[
        (&[5], [1, 1, 0, 0, 0, 0], &[0, 2], false, false),
        (&[6], [2, 0, 0, 0, 0, 0], &[0, 1, 2], false, true),
        (&[8], [4, 4, 0, 0, 0, 0], &[1, 2], false, false),
        (&[8], [4, 1, 0, 0, 0, 0], &[0, 2], false, true),
        (&[3, 3], [1, 1, 1, 1, 0, 0], &[1], false, true),
        (&[5, 4], [1, 2, 0, 3, 0, 0], &[1, 2], false, false),
        (&[5, 3], [2, 1, 1, 0, 0, 0], &[0, 2], false, true),
        (&[4, 8], [1, 1, 4, 4, 0, 0], &[0, 1, 2], false, false),
        (&[4, 3, 3], [1, 0, 1, 1, 1, 1], &[0, 2], true, false),
        (&[5, 4, 3], [1, 1, 2, 0, 1, 0], &[0, 1, 2], true, true),
        (&[5, 4, 8], [2, 1, 1, 2, 0, 0], &[0, 1], true, false),
        (&[4, 3, 8], [0, 0, 0, 0, 4, 4], &[2], false, true),
        (&[4, 3, 8], [1, 0, 0, 0, 0, 1], &[0, 1, 2], true, false),
        (&[4, 3, 2, 3], [1, 0, 1, 1, 1, 1], &[0, 1, 2], true, false),
        (&[3, 2, 3, 4], [1, 1, 0, 1, 1, 0], &[0, 1, 2], true, true),
    ];
    let mut runs = Vec::new();
    for &(shape, pads, types, per_channel, known) in configs {
        let dims = shape.len();
        let [left, right, top, bottom, front, behind] = pads;
        let (lo, hi) = match dims {
            1 => ([left, 0, 0, 0], [right, 0, 0, 0]),
            2 => ([left, top, 0, 0], [right, bottom, 0, 0]),
            3 => ([left, top, 0, front], [right, bottom, 0, behind]),
            _ => ([left, top, front, 0], [right, bottom, behind, 0]),
        };
        for &ty in types {
            let per_channel = per_channel && ty == 0;
            let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
            let in_whdc = t.whdc();
            let mut out_whdc = in_whdc;
            for i in 0..4 {
                out_whdc[i] += lo[i] + hi[i];
            }
            let out_shape = shape_of(out_whdc, dims);
            let bot = blob(shape, mode);
            let top_m = blob(&out_shape, mode);
            let ep = bot.elempack;
            let offset_ep = match dims {
                4 => ep,
                _ => match lo[outer_slot(dims)] {
                    0 => ep,
                    o if o % 4 == 0 => 4,
                    _ => 1,
                },
            }
            .min(ep);
            assert_eq!(
                offset_ep, ep,
                "{shape:?}: ncnn would convert the packing of the input"
            );
            let shader = match (dims, offset_ep, top_m.elempack) {
                (4, _, 1) => "padding_3d.comp",
                (4, _, 4) => "padding_3d_pack4.comp",
                (_, 1, 1) => "padding.comp",
                (_, 4, 4) => "padding_pack4.comp",
                (_, 1, 4) => "padding_pack1to4.comp",
                (_, 4, 1) => "padding_pack4to1.comp",
                other => unreachable!("{other:?}"),
            };
            let value = mode.round(rng.f32(-5.0, 5.0));
            let channel_values: Vec<f32> = (0..out_whdc[3])
                .map(|_| mode.round(rng.f32(-5.0, 5.0)))
                .collect();

            let mut a = Arena::new(device, mode);
            let input = a.tensor(&t, &bot);
            let out = a.blob(&top_m);
            // Without per-channel values ncnn binds its dummy buffer there.
            let pad_data = if per_channel {
                a.scalars_in(&channel_values)
            } else {
                a.scalars_in(&[0.0; 4])
            };
            // Four dimensions take the shapes with depth.
            let words = |m: &NcnnMat| match dims {
                4 => shape6(m).to_vec(),
                _ => shape5(m).to_vec(),
            };
            let (spec_values, push) = shape_consts(
                vec![
                    SpecValue::Int(ty),
                    SpecValue::Float(value),
                    SpecValue::Int(i32::from(per_channel)),
                ],
                &words(&bot),
                &words(&top_m),
                known,
                &[left, top, front],
            );
            let steps = vec![step(
                shader,
                local(device, blob_local(&top_m, known)),
                &spec_values,
                push,
                &[input, out, pad_data],
                dispatcher(&top_m),
            )];
            let expect = expect_copy(mode, out, &top_m, &out_shape, |x, y, z, q| {
                let mut c = [x, y, z, q];
                let mut inside = true;
                for i in 0..4 {
                    let n = in_whdc[i] as i64;
                    let j = i64::from(c[i]) - i64::from(lo[i]);
                    let j = match ty {
                        0 => {
                            inside &= (0..n).contains(&j);
                            j
                        }
                        1 => j.clamp(0, n - 1),
                        _ => (n - 1) - ((j.abs()) - (n - 1)).abs(),
                    };
                    c[i] = j.clamp(0, n - 1) as u32;
                }
                if inside {
                    f64::from(t.at(c[0], c[1], c[2], c[3]))
                } else if per_channel {
                    f64::from(channel_values[q as usize])
                } else {
                    f64::from(value)
                }
            });
            runs.push(finish_run(
                format!(
                    "padding {shape:?} pads {pads:?} type {ty} per-channel {per_channel} spec {known}"
                ),
                a,
                steps,
                vec![expect],
            ));
        }
    }
    runs
}
