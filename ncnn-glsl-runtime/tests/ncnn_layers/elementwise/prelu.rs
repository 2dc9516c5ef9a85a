//! PReLU: per-channel, per-element, per-row and single slopes.

use ncnn_glsl_runtime::{optimal_local_size, FloatStorage, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{expect_blob, spec, Data, Device, Mode, Run, Step, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{ints, run_of, words, Blob};

/// A PReLU configuration: slopes, shape, elempack, specialized.
type PreluCase = (u32, &'static [u32], u32, bool);

/// The PReLU configurations: per-channel slopes in 3-D (pack4, pack1) and
/// 4-D, per-element in 1-D, per-row in 2-D, and a single slope (pack4,
/// pack1).
const PRELUS: [PreluCase; 7] = [
    (8, &[5, 7, 8], 4, true),
    (3, &[5, 7, 3], 1, false),
    (8, &[3, 5, 2, 8], 4, true),
    (12, &[12], 4, true),
    (8, &[5, 8], 4, false),
    (1, &[5, 7, 8], 4, true),
    (1, &[13], 1, false),
];

/// `prelu_vulkan.cpp`: `prelu.comp` / `prelu_pack4.comp` in place,
/// `num_slope`, the single slope and the shape (dims at most 3, `h * d`)
/// specialized where known, the shape pushed; the slopes uploaded as a
/// blob (packed by 4 when their count is a multiple of 4), none (ncnn's
/// dummy buffer) for a single slope; local size from the shape, else
/// `4, 4, min(4, num_slope / elempack)`.
pub(crate) fn prelu(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (num_slope, shape, elempack, known) in PRELUS {
        let t = Tensor::random(shape, mode, rng, -6.0, 6.0);
        let slopes = Tensor::random(&[num_slope], mode, rng, -1.0, 1.0);
        let blob = Blob::sfp(shape, elempack, mode);
        let s = blob.shape5();
        let shape_spec = [s[0].min(3), s[1], s[2], s[3], s[4]];
        let single = num_slope == 1;
        let mut sp = vec![
            SpecValue::Int(num_slope as i32),
            SpecValue::Float(if single { slopes.values[0] } else { 1.0 }),
        ];
        sp.extend(ints(&shape_spec, known));
        let local = if known {
            blob.shape_local(device, true)
        } else {
            let pack = if num_slope % 4 == 0 { 4 } else { 1 };
            optimal_local_size([4, 4, (num_slope / pack).min(4)], &device.limits)
        };
        let slope_buffer = if single {
            Data::Words(vec![0; 4])
        } else {
            let sb = Blob::sfp(&[num_slope], if num_slope % 4 == 0 { 4 } else { 1 }, mode);
            Data::Floats(sb.data(&slopes))
        };
        let shader = if elempack == 4 {
            "prelu_pack4.comp"
        } else {
            "prelu.comp"
        };
        let slope_value = if single && mode.fp16_arithmetic() {
            FloatStorage::F16.round(slopes.values[0])
        } else {
            slopes.values[0]
        };
        let dims = shape.len();
        let expect = expect_blob(mode, 0, &blob.m, &blob.shape, |x, y, z, q| {
            let v = f64::from(t.at(x, y, z, q));
            let slope = if single {
                f64::from(slope_value)
            } else {
                f64::from(
                    slopes.values[match dims {
                        1 => x,
                        2 => y,
                        _ => q,
                    } as usize],
                )
            };
            let r = if v < 0.0 { v * slope } else { v };
            (r, r.abs())
        });
        runs.push(run_of(
            format!("prelu slopes {num_slope} {shape:?} pack{elempack} spec {known}"),
            vec![Data::Floats(blob.data(&t)), slope_buffer],
            vec![Step::new(
                shader,
                local,
                spec(&sp),
                words(&shape_spec),
                &[0, 1],
                blob.dispatcher(),
            )],
            expect,
        ));
    }
    runs
}
