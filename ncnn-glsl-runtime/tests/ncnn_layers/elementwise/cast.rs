//! Cast: fp32 to the mode's storage and back.

use ncnn_glsl_testkit::ncnn_layers::{spec, Data, Device, Mode, Run, Step, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{expect_copy, fp32_tensor, ints, run_of, words, Blob};

/// A Cast configuration: from fp32 (else to fp32), shape, elempack,
/// specialized.
type CastCase = (bool, &'static [u32], u32, bool);

/// The Cast configurations.
const CASTS: [CastCase; 6] = [
    (true, &[5, 7, 8], 4, true),
    (true, &[5, 7, 3], 1, false),
    (false, &[5, 7, 8], 4, false),
    (false, &[13], 1, true),
    (true, &[3, 5, 2, 4], 4, true),
    (false, &[6, 12], 4, true),
];

/// `cast_vulkan.cpp` for fp32 -> fp16 (`type_from` 1, `type_to` 2) and back:
/// `cast_fp32_to_fp16[_pack4].comp`, `cast_fp16_to_fp32[_pack4].comp`; the
/// fp32 side is always fp32 words, the other side the mode's storage (as
/// in ncnn, fp32 where the options have no fp16 storage); both shapes
/// specialized where known and pushed; local size from the output shape.
pub(crate) fn cast(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (from_fp32, shape, elempack, known) in CASTS {
        let wide = Blob::fp32(shape, elempack);
        let narrow = Blob::sfp(shape, elempack, mode);
        let (src, dst) = if from_fp32 {
            (&wide, &narrow)
        } else {
            (&narrow, &wide)
        };
        // fp32 inputs keep every bit; the others are what the storage holds.
        let t = if from_fp32 {
            fp32_tensor(shape, rng)
        } else {
            Tensor::random(shape, mode, rng, -100.0, 100.0)
        };
        let shapes: Vec<i32> = [src.shape5(), dst.shape5()].concat();
        let sp = spec(&ints(&shapes, known));
        let shader = match (from_fp32, elempack) {
            (true, 4) => "cast_fp32_to_fp16_pack4.comp",
            (true, _) => "cast_fp32_to_fp16.comp",
            (false, 4) => "cast_fp16_to_fp32_pack4.comp",
            (false, _) => "cast_fp16_to_fp32.comp",
        };
        let local = dst.shape_local(device, known);
        let buffers = if from_fp32 {
            vec![Data::Words(wide.words(&t)), Data::Poison(narrow.bytes())]
        } else {
            vec![
                Data::Floats(narrow.data(&t)),
                Data::Words(wide.poison_words()),
            ]
        };
        let expect = expect_copy(mode, 1, dst, &t);
        runs.push(run_of(
            format!("cast from_fp32 {from_fp32} {shape:?} pack{elempack} spec {known}"),
            buffers,
            vec![Step::new(
                shader,
                local,
                sp,
                words(&shapes),
                &[0, 1],
                dst.dispatcher(),
            )],
            expect,
        ));
    }
    runs
}
