//! Packing: pack1to4, pack4to1 and the same packing, with and without a
//! cast.

use ncnn_glsl_runtime::{FloatStorage, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{spec, Data, Device, Mode, Run, Step, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{expect_copy, flat_local, fp32_tensor, run_of, Blob};

/// Which of Packing's shaders a conversion runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PackingPath {
    /// `packing.comp`: the packing kept.
    Same,
    /// `packing_pack1to4.comp`.
    Pack1To4,
    /// `packing_pack4to1.comp`.
    Pack4To1,
}

/// ncnn's cast type of the mode's storage: 1 fp32, 2 fp16, 5 bf16.
fn storage_cast_type(mode: &Mode) -> i32 {
    match mode.storage() {
        FloatStorage::F32 => 1,
        FloatStorage::F16 => 2,
        FloatStorage::Bf16 => 5,
    }
}

/// One `packing_vulkan.cpp` dispatch from `src` (buffer 0) to `dst`
/// (buffer 1), as ncnn's `convert_packing` runs it: no shape known at
/// `create_pipeline` (everything pushed), the cast types `from` and `to`
/// specialized; both blobs bound twice (as `sfp` and as fp32), local size
/// `set_optimal_local_size_xyz(subgroup, 1, 1)`, dispatcher `n, c, 1`.
fn packing_step(
    device: &Device,
    path: PackingPath,
    (src, dst): (&Blob, &Blob),
    (from, to): (i32, i32),
) -> Step {
    let dims = src.m.dims;
    let (n, c, stride, shader) = match path {
        PackingPath::Same => {
            let (n, c, stride) = if from == 1 {
                (
                    src.cstep() * src.m.elempack,
                    if dims >= 3 { src.m.c } else { 1 },
                    dst.cstep() * dst.m.elempack,
                )
            } else {
                (
                    dst.cstep() * dst.m.elempack,
                    if dims >= 3 { dst.m.c } else { 1 },
                    src.cstep() * src.m.elempack,
                )
            };
            (n / 4, c, stride / 4, "packing.comp")
        }
        PackingPath::Pack1To4 => {
            let (n, c, stride) = match dims {
                1 => (1, dst.m.w, 1),
                2 => (dst.m.w, dst.m.h, src.m.w),
                _ => (dst.cstep(), dst.m.c, src.cstep()),
            };
            (n, c, stride, "packing_pack1to4.comp")
        }
        PackingPath::Pack4To1 => {
            let (n, c, stride) = match dims {
                1 => (1, src.m.w, 1),
                2 => (src.m.w, src.m.h, dst.m.w),
                _ => (src.cstep(), src.m.c, dst.cstep()),
            };
            (n, c, stride, "packing_pack4to1.comp")
        }
    };
    let sp = spec(&[
        SpecValue::Int(from),
        SpecValue::Int(to),
        SpecValue::Uint(0),
        SpecValue::Uint(0),
        SpecValue::Uint(0),
    ]);
    Step::new(
        shader,
        flat_local(device),
        sp,
        vec![n, c, stride],
        &[0, 0, 1, 1],
        [n, c, 1],
    )
}

/// A Packing configuration: path, shape, source elempack, cast (`0` the
/// storage to itself, `1` fp32 to the storage, `2` the storage to fp32).
type PackingCase = (PackingPath, &'static [u32], u32, u8);

/// The Packing configurations.
const PACKINGS: [PackingCase; 12] = [
    (PackingPath::Pack1To4, &[5, 3, 8], 1, 0),
    (PackingPath::Pack4To1, &[5, 8], 4, 0),
    (PackingPath::Pack1To4, &[12], 1, 0),
    (PackingPath::Pack4To1, &[3, 2, 2, 8], 4, 0),
    (PackingPath::Same, &[5, 3, 8], 4, 0),
    (PackingPath::Same, &[5, 3, 8], 4, 1),
    (PackingPath::Same, &[13], 1, 2),
    (PackingPath::Same, &[7, 5], 1, 1),
    (PackingPath::Pack1To4, &[5, 3, 8], 1, 1),
    (PackingPath::Pack4To1, &[4, 3, 8], 4, 2),
    (PackingPath::Pack1To4, &[7, 8], 1, 2),
    (PackingPath::Pack4To1, &[8], 4, 1),
];

/// `packing_vulkan.cpp` as `convert_packing` uses it: each path, with the
/// storage's own cast and (in the fp16 and bf16 storages) the casts from and
/// to fp32.
pub(crate) fn packing(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    let s = storage_cast_type(mode);
    for (path, shape, src_pack, cast) in PACKINGS {
        if cast != 0 && s == 1 {
            continue;
        }
        let dst_pack = match path {
            PackingPath::Same => src_pack,
            PackingPath::Pack1To4 => 4,
            PackingPath::Pack4To1 => 1,
        };
        let (from, to) = match cast {
            0 => (s, s),
            1 => (1, s),
            _ => (s, 1),
        };
        let blob = |pack: u32, t: i32| {
            if t == 1 {
                Blob::fp32(shape, pack)
            } else {
                Blob::sfp(shape, pack, mode)
            }
        };
        let src = blob(src_pack, from);
        let dst = blob(dst_pack, to);
        let t = if from == 1 && s != 1 {
            fp32_tensor(shape, rng)
        } else {
            Tensor::random(shape, mode, rng, -100.0, 100.0)
        };
        let input = if from == 1 {
            Data::Words(src.words(&t))
        } else {
            Data::Floats(src.data(&t))
        };
        let output = if to == 1 {
            Data::Words(dst.poison_words())
        } else {
            Data::Poison(dst.bytes())
        };
        let st = packing_step(device, path, (&src, &dst), (from, to));
        let expect = expect_copy(mode, 1, &dst, &t);
        runs.push(run_of(
            format!("packing {path:?} {shape:?} pack{src_pack} cast {from}->{to}"),
            vec![input, output],
            vec![st],
            expect,
        ));
    }
    runs
}
