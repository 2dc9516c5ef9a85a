//! Deconvolution: the gemm + col2im pair and the direct shader.

use ncnn_glsl_runtime::{group_counts, ncnn_local_size, optimal_local_size};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, expect_blob_tol, packed_mat, Data, Device, Mode, Run, Step,
};
use ncnn_glsl_testkit::Rng;

use super::common::{
    bias_data, blob, blocks, conv, ints, known, pack_of, poison_blob, spec_of, tol_staged, words,
    Conv,
};

/// `deconvolution_vulkan.cpp`'s gemm path (`use_sgemm_convolution`,
/// `num_input >= 8`, `maxk * num_output >= 8`):
/// `deconvolution_gemm_packed.comp` makes the column blob (`w * h, 1, maxk *
/// num_output / out_elempack`; each column channel `q * maxk + k` holds the
/// input times the tap-`k` weights of output pack `q`), then
/// `deconvolution{,_pack4}_col2im.comp` adds the columns that land on each
/// output, the bias and the activation. The column blob is stored in the
/// mode's storage between the two.
fn deconv_gemm_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [w, h] = p.size;
    let [outw, outh] = p.deconv_out_size();
    let maxk = p.maxk();
    let min = packed_mat(&[w, h, p.cin], ep, mode);
    let mcol = packed_mat(&[w * h, 1, maxk * p.cout], oep, mode);
    let mout = packed_mat(&[outw, outh, p.cout], oep, mode);
    let nip = p.cin.div_ceil(4) * 4;
    let c = u64::from(nip / 4);
    // Rows `q / out_elempack * maxk + k`; in each, per 4 inputs, a 4x4 block
    // of the 4 output channels from `q` (the next channels' with pack1).
    let mut wp = Vec::new();
    for q in (0..p.cout).step_by(oep as usize) {
        for k in 0..maxk {
            for cc in (0..nip).step_by(4) {
                for i in 0..4 {
                    for j in 0..4 {
                        wp.push(if q + i < p.cout && cc + j < p.cin {
                            p.w(&weights, q + i, cc + j, k)
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    let sp = p.specialized;
    let sg = device.limits.subgroup_size;
    let gemm_local = if mode.local_memory() {
        ncnn_local_size([8, 8, 1], sg)
    } else if sp {
        optimal_local_size([8.min(w * h), 4.min(mcol.c), 1], &device.limits)
    } else {
        optimal_local_size([8, 4.min(p.cout / oep), 1], &device.limits)
    };
    let gemm = Step {
        shader: "deconvolution_gemm_packed.comp",
        local_size: gemm_local,
        spec: spec_of(&[&ints(&[
            u64::from(maxk),
            u64::from(ep),
            u64::from(oep),
            known(sp, u64::from(w)),
            known(sp, u64::from(h)),
            known(sp, c),
            known(sp, min.cstep()),
            known(sp, mcol.cstep()),
            known(sp, u64::from(mcol.c)),
            u64::from(p.cin),
        ])]),
        push: words(&[
            u64::from(w),
            u64::from(h),
            c,
            min.cstep(),
            mcol.cstep(),
            u64::from(mcol.c),
            u64::from(p.cin),
        ]),
        bind: vec![(0, None), (1, None), (0, None), (1, None), (2, None)],
        groups: group_counts([mcol.cstep().div_ceil(4) as u32, mcol.c, 1], gemm_local),
    };
    let col_local = optimal_local_size(
        if sp {
            [8.min(outw), 8.min(outh), 4.min(mout.c)]
        } else {
            [8, 8, 4.min(p.cout / oep)]
        },
        &device.limits,
    );
    let col2im = Step {
        shader: if oep == 4 {
            "deconvolution_pack4_col2im.comp"
        } else {
            "deconvolution_col2im.comp"
        },
        local_size: col_local,
        spec: spec_of(&[
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
                u64::from(p.cout / oep),
                known(sp, u64::from(w)),
                known(sp, u64::from(h)),
                known(sp, mcol.cstep()),
                known(sp, u64::from(outw)),
                known(sp, u64::from(outh)),
                known(sp, mout.cstep()),
            ]),
        ]),
        push: words(&[
            u64::from(w),
            u64::from(h),
            mcol.cstep(),
            u64::from(outw),
            u64::from(outh),
            mout.cstep(),
        ]),
        bind: vec![(1, None), (3, None), (4, None)],
        groups: group_counts([outw, outh, mout.c], col_local),
    };
    let expect = expect_blob_tol(3, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        tol_staged(mode, p.act, p.deconv_at(&input, &weights, &bias, x, y, q))
    });
    // ncnn pads the bias to whole 4s with zeros.
    let mut b = bias.clone();
    if p.bias {
        b.resize(p.cout.div_ceil(4) as usize * 4, 0.0);
    }
    Run {
        name: format!("deconvgemm {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mcol),
            Data::Floats(blocks(wp, f32::NAN)),
            poison_blob(mode, &mout),
            bias_data(&b),
        ],
        steps: vec![gemm, col2im],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// `deconvolution_vulkan.cpp`'s direct path (`num_input < 8` or `maxk *
/// num_output < 8`): `deconvolution_packed.comp` gathers, for 2x2 outputs by
/// 2 output groups, the inputs each tap reaches; its weights are the
/// convolution direct layout of the kernel turned by 180 degrees; the bias
/// padded to whole 4s with zeros.
fn deconv_direct_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let (input, weights, bias) = p.data(mode, rng);
    let (ep, oep) = (pack_of(p.cin), pack_of(p.cout));
    let [outw, outh] = p.deconv_out_size();
    let maxk = p.maxk();
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
            for k in 0..maxk {
                for i in 0..4 {
                    for j in 0..ep {
                        wp.push(if q + i < p.cout {
                            p.w(&weights, q + i, c + j, maxk - 1 - k)
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
        shader: "deconvolution_packed.comp",
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
        p.act.apply(p.deconv_at(&input, &weights, &bias, x, y, q))
    });
    let mut b = bias.clone();
    if p.bias {
        b.resize(nop as usize, 0.0);
    }
    Run {
        name: format!("deconvdirect {}", p.describe()),
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            Data::Floats(blocks(wp, f32::NAN)),
            bias_data(&b),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Deconvolution: the gemm path (every output pack, input pack1 and pack4,
/// stride 2, dilation 2, more than 8 input groups) and the direct path
/// (pack4 to pack1, pack1 to pack4, dilation 2).
pub(crate) fn deconvolution(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let one = [1, 1];
    let mut runs: Vec<Run> = [
        conv(8, 4, [3, 3], one, [2, 2], [4, 3], true, true),
        conv(9, 3, [2, 2], one, [2, 2], [5, 4], true, false),
        conv(36, 5, [3, 2], [2, 2], one, [3, 3], false, true),
    ]
    .iter()
    .map(|p| deconv_gemm_run(device, mode, rng, p))
    .collect();
    runs.extend(
        [
            conv(4, 6, [3, 3], one, [2, 2], [4, 4], true, true),
            conv(3, 4, [3, 2], [2, 2], [1, 2], [5, 4], false, false),
        ]
        .iter()
        .map(|p| deconv_direct_run(device, mode, rng, p)),
    );
    runs
}
