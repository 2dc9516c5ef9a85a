//! Convolution: the 1x1 stride-1 shader, the direct shader and the sgemm
//! shader.

use ncnn_glsl_runtime::{ncnn_local_size, optimal_local_size};
use ncnn_glsl_testkit::ncnn_layers::{Device, Mode, Run, Step};
use ncnn_glsl_testkit::Rng;

use super::common::{conv, direct_run, ints, known, spec_of, words, Conv, Layer, Setup};

/// The weights of `convolution_packed_1x1s1d1.comp` and
/// `convolution_packed_gemm.comp`: per 4 output channels, per 4 input
/// channels, per tap, a 4x4 block `[out lane][in lane]`, zero past the
/// channels.
fn weights_pack4x4(p: &Conv, weights: &[f32]) -> Vec<f32> {
    let (nip, nop) = (p.cin.div_ceil(4) * 4, p.cout.div_ceil(4) * 4);
    let mut out = Vec::new();
    for q in (0..nop).step_by(4) {
        for c in (0..nip).step_by(4) {
            for k in 0..p.maxk() {
                for i in 0..4 {
                    for j in 0..4 {
                        out.push(if q + i < p.cout && c + j < p.cin {
                            p.w(weights, q + i, c + j, k)
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    out
}

/// `convolution_vulkan.cpp` on a 1x1 stride-1 convolution:
/// `convolution_packed_1x1s1d1.comp` over 4 spatial positions by 4 output
/// channels per invocation; local size 8x8 with local memory (its tiles are
/// 8 wide), else `8 x min(8, outc_pack4)`; dispatcher `(size / 4, outc_pack4)`.
pub(crate) fn conv1x1_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let s = Setup::new(p, Layer::Conv, mode, rng);
    let (ep, oep, [outw, outh], min, mout) = (s.ep, s.oep, s.out, s.min, s.mout);
    let c_packed = u64::from(p.cin.div_ceil(4));
    let outc = u64::from(p.cout.div_ceil(4));
    let cstep = if ep == 4 {
        min.cstep()
    } else {
        min.cstep() / 4
    };
    let outcstep = if oep == 4 {
        mout.cstep()
    } else {
        mout.cstep() / 4
    };
    let outcstep_native = mout.cstep() / 4;
    let size = u64::from(outw * outh).div_ceil(4);
    let sp = p.specialized;
    let spec = spec_of(&[
        &ints(&[u64::from(p.bias)]),
        &p.act.spec(),
        &ints(&[
            u64::from(ep),
            u64::from(oep),
            c_packed,
            known(sp, cstep),
            known(sp, outc),
            known(sp, outcstep),
            known(sp, outcstep_native),
            known(sp, size),
            u64::from(p.cout),
            u64::from(p.cin),
        ]),
    ]);
    let sg = device.limits.subgroup_size;
    let local = if mode.local_memory() {
        ncnn_local_size([8, 8, 1], sg)
    } else {
        ncnn_local_size([8, outc.min(8) as u32, 1], sg)
    };
    let push = words(&[
        c_packed,
        cstep,
        outc,
        outcstep,
        outcstep_native,
        size,
        u64::from(p.cout),
        u64::from(p.cin),
    ]);
    let step = Step::new(
        "convolution_packed_1x1s1d1.comp",
        local,
        spec,
        push,
        &[0, 1, 2, 3],
        [size as u32, outc as u32, 1],
    );
    s.one_step(mode, "conv1x1", step, weights_pack4x4(p, &s.weights))
}

/// Convolution 1x1 stride 1 (not the cooperative-matrix shader): every
/// packing pair, more than 8 input groups (the local-memory loop and its
/// remainder), more than 8 output groups, odd spatial sizes.
pub(crate) fn conv1x1(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let one = [1, 1];
    [
        conv(8, 8, one, one, one, [5, 3], true, true),
        conv(40, 12, one, one, one, [6, 5], true, false),
        conv(37, 36, one, one, one, [4, 4], true, true),
        conv(6, 5, one, one, one, [7, 3], true, false),
        conv(40, 7, one, one, one, [9, 9], false, true),
    ]
    .iter()
    .map(|p| conv1x1_run(device, mode, rng, p))
    .collect()
}

/// Convolution's direct path (`convolution_vulkan.cpp`: `num_output < 8`
/// or `num_input * maxk < 8`, not 1x1 stride 1; [`direct_run`]): every
/// packing pair, stride 2, dilation 2 on either axis, non-square kernels,
/// 1x1 stride 2, an odd output group count.
pub(crate) fn conv_direct(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    [
        conv(4, 4, [3, 3], [1, 1], [1, 1], [7, 6], true, true),
        conv(8, 6, [3, 3], [1, 1], [2, 2], [9, 8], true, false),
        conv(3, 12, [2, 1], [2, 1], [1, 1], [6, 5], false, true),
        conv(5, 3, [3, 2], [1, 2], [1, 1], [6, 7], true, false),
        conv(4, 4, [1, 1], [1, 1], [2, 2], [7, 7], true, true),
    ]
    .iter()
    .map(|p| direct_run(device, mode, rng, p, Layer::Conv))
    .collect()
}

/// `convolution_vulkan.cpp`'s sgemm path (`use_sgemm_convolution`, not 1x1
/// stride 1, `num_input * maxk >= 8`, `num_output >= 8`, not winograd):
/// `convolution_packed_gemm.comp`, 4 output positions by 4 output channels
/// per invocation over `c * maxk` steps; local size 8x8 with local memory,
/// else `set_optimal_local_size_xyz(min(16, outw * outh), min(4,
/// outc_pack4), 1)` (16 unspecialized); dispatcher `(outsize / 4,
/// outc_pack4)`.
fn conv_gemm_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let s = Setup::new(p, Layer::Conv, mode, rng);
    let (ep, oep, [outw, outh], min, mout) = (s.ep, s.oep, s.out, s.min, s.mout);
    let (c, outc) = (u64::from(p.cin.div_ceil(4)), u64::from(p.cout.div_ceil(4)));
    let sp = p.specialized;
    let spec = spec_of(&[
        &p.kernel_spec(),
        &p.act.spec(),
        &ints(&[
            u64::from(ep),
            u64::from(oep),
            known(sp, u64::from(min.w)),
            known(sp, u64::from(min.h)),
            c,
            known(sp, min.cstep()),
            known(sp, u64::from(outw)),
            known(sp, u64::from(outh)),
            known(sp, outc),
            known(sp, mout.cstep()),
            u64::from(p.cout),
            u64::from(p.cin),
        ]),
    ]);
    let local = if mode.local_memory() {
        ncnn_local_size([8, 8, 1], device.limits.subgroup_size)
    } else {
        let x = if sp { 16.min(outw * outh) } else { 16 };
        optimal_local_size([x, 4.min(outc as u32), 1], &device.limits)
    };
    let push = [
        u64::from(min.w),
        u64::from(min.h),
        c,
        min.cstep(),
        u64::from(outw),
        u64::from(outh),
        outc,
        mout.cstep(),
        u64::from(p.cout),
        u64::from(p.cin),
    ];
    let step = Step::new(
        "convolution_packed_gemm.comp",
        local,
        spec,
        words(&push),
        &[0, 1, 0, 1, 2, 3],
        [(outw * outh).div_ceil(4), outc as u32, 1],
    );
    s.one_step(mode, "convgemm", step, weights_pack4x4(p, &s.weights))
}

/// Convolution's sgemm path: every packing pair, stride 2, dilation 2, a
/// 3x1 kernel with unequal strides, and `c * maxk` below, just past and well
/// past the 8 steps of a local-memory tile.
pub(crate) fn conv_gemm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    [
        conv(4, 8, [3, 3], [1, 1], [1, 1], [6, 6], true, true),
        conv(3, 9, [3, 3], [1, 1], [2, 2], [9, 7], true, false),
        conv(16, 10, [3, 3], [2, 2], [1, 1], [7, 7], false, false),
        conv(6, 16, [3, 1], [1, 1], [1, 2], [7, 6], true, true),
    ]
    .iter()
    .map(|p| conv_gemm_run(device, mode, rng, p))
    .collect()
}
