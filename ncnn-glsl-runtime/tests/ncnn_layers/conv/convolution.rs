//! Convolution: the 1x1 stride-1 shader, the direct shader and the sgemm
//! shader.

use ncnn_glsl_runtime::{group_counts, ncnn_local_size, optimal_local_size};
use ncnn_glsl_testkit::ncnn_layers::{expect_blob, packed_mat, Data, Device, Mode, Run, Step};
use ncnn_glsl_testkit::Rng;

use super::common::{
    bias_data, blob, blocks, conv, ints, known, pack_of, poison_blob, spec_of, words, Conv,
};

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
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [outw, outh] = p.out_size();
    let min = packed_mat(&[p.size[0], p.size[1], p.cin], ep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
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
    let step = Step {
        shader: "convolution_packed_1x1s1d1.comp",
        local_size: local,
        spec,
        push: words(&[
            c_packed,
            cstep,
            outc,
            outcstep,
            outcstep_native,
            size,
            u64::from(p.cout),
            u64::from(p.cin),
        ]),
        bind: vec![(0, None), (1, None), (2, None), (3, None)],
        groups: group_counts([size as u32, outc as u32, 1], local),
    };
    let expect = expect_blob(mode, 1, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        p.act.apply(p.conv_at(&input, &weights, &bias, x, y, q))
    });
    Run {
        name: format!("conv1x1 {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            Data::Floats(blocks(weights_pack4x4(p, &weights), f32::NAN)),
            bias_data(&bias),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
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

/// `convolution_vulkan.cpp`'s direct path (`num_output < 8` or
/// `num_input * maxk < 8`, not 1x1 stride 1): `convolution_packed.comp`,
/// 2x2 positions by 2 output groups per invocation; weights per 4 output
/// channels, per input pack, per tap, `[out lane][in lane]`; local size
/// `set_optimal_local_size_xyz(min(8, outw), min(8, outh), min(4, (outc_pack4
/// + 1) / 2))` (8, 8 unspecialized); dispatcher halves of the output.
fn conv_direct_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [outw, outh] = p.out_size();
    let min = packed_mat(&[p.size[0], p.size[1], p.cin], ep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
    let nop = p.cout.div_ceil(4) * 4;
    let outc = u64::from(nop / 4);
    let outcstep = if oep == 4 {
        mout.cstep()
    } else {
        mout.cstep() * 4
    };
    let mut wp = Vec::new();
    for q in (0..nop).step_by(4) {
        for c in (0..p.cin).step_by(ep as usize) {
            for k in 0..p.maxk() {
                for i in 0..4 {
                    for j in 0..ep {
                        wp.push(if q + i < p.cout {
                            p.w(&weights, q + i, c + j, k)
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    let sp = p.specialized;
    let shape = [
        3,
        u64::from(min.w),
        u64::from(min.h),
        u64::from(min.c),
        min.cstep(),
        3,
        u64::from(outw),
        u64::from(outh),
        outc,
        outcstep,
    ];
    let spec = spec_of(&[
        &ints(&[
            u64::from(p.k[0]),
            u64::from(p.k[1]),
            u64::from(p.d[0]),
            u64::from(p.d[1]),
            u64::from(p.s[0]),
            u64::from(p.s[1]),
            u64::from(p.bias),
        ]),
        &p.act.spec(),
        &ints(&[u64::from(ep), u64::from(oep)]),
        &ints(&shape.map(|v| known(sp, v))),
        &ints(&[u64::from(p.cout)]),
    ]);
    let zc = 4.min((nop / 4).div_ceil(2));
    let local = optimal_local_size(
        if sp {
            [8.min(outw), 8.min(outh), zc]
        } else {
            [8, 8, zc]
        },
        &device.limits,
    );
    let mut push = shape.to_vec();
    push.push(u64::from(p.cout));
    let step = Step {
        shader: "convolution_packed.comp",
        local_size: local,
        spec,
        push: words(&push),
        bind: vec![
            (0, None),
            (1, None),
            (0, None),
            (1, None),
            (2, None),
            (3, None),
        ],
        groups: group_counts(
            [outw.div_ceil(2), outh.div_ceil(2), (nop / 4).div_ceil(2)],
            local,
        ),
    };
    let expect = expect_blob(mode, 1, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        p.act.apply(p.conv_at(&input, &weights, &bias, x, y, q))
    });
    Run {
        name: format!("convdirect {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            Data::Floats(blocks(wp, f32::NAN)),
            bias_data(&bias),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Convolution's direct path: every packing pair, stride 2, dilation 2 on
/// either axis, non-square kernels, 1x1 stride 2, an odd output group count.
pub(crate) fn conv_direct(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    [
        conv(4, 4, [3, 3], [1, 1], [1, 1], [7, 6], true, true),
        conv(8, 6, [3, 3], [1, 1], [2, 2], [9, 8], true, false),
        conv(3, 12, [2, 1], [2, 1], [1, 1], [6, 5], false, true),
        conv(5, 3, [3, 2], [1, 2], [1, 1], [6, 7], true, false),
        conv(4, 4, [1, 1], [1, 1], [2, 2], [7, 7], true, true),
    ]
    .iter()
    .map(|p| conv_direct_run(device, mode, rng, p))
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
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [outw, outh] = p.out_size();
    let min = packed_mat(&[p.size[0], p.size[1], p.cin], ep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
    let (c, outc) = (u64::from(p.cin.div_ceil(4)), u64::from(p.cout.div_ceil(4)));
    let sp = p.specialized;
    let spec = spec_of(&[
        &ints(&[
            u64::from(p.k[0]),
            u64::from(p.k[1]),
            u64::from(p.d[0]),
            u64::from(p.d[1]),
            u64::from(p.s[0]),
            u64::from(p.s[1]),
            u64::from(p.bias),
        ]),
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
    let step = Step {
        shader: "convolution_packed_gemm.comp",
        local_size: local,
        spec,
        push: words(&push),
        bind: vec![
            (0, None),
            (1, None),
            (0, None),
            (1, None),
            (2, None),
            (3, None),
        ],
        groups: group_counts([(outw * outh).div_ceil(4), outc as u32, 1], local),
    };
    let expect = expect_blob(mode, 1, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        p.act.apply(p.conv_at(&input, &weights, &bias, x, y, q))
    });
    Run {
        name: format!("convgemm {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            Data::Floats(blocks(weights_pack4x4(p, &weights), f32::NAN)),
            bias_data(&bias),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
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
