//! Deconvolution: the gemm + col2im pair and the direct shader.

use ncnn_glsl_runtime::{ncnn_local_size, optimal_local_size};
use ncnn_glsl_testkit::ncnn_layers::{expect_blob_tol, packed_mat, Data, Device, Mode, Run, Step};
use ncnn_glsl_testkit::Rng;

use super::common::{
    blob, blocks, conv, direct_run, ints, known, poison_blob, spec_of, tol_staged, words, Conv,
    Layer, Setup,
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
    let s = Setup::new(p, Layer::Deconv, mode, rng);
    let (ep, oep, [outw, outh], min, mout) = (s.ep, s.oep, s.out, s.min, s.mout);
    let [w, h] = p.size;
    let maxk = p.maxk();
    let mcol = packed_mat(&[w * h, 1, maxk * p.cout], oep, mode);
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
                            p.w(&s.weights, q + i, cc + j, k)
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
    let gemm = Step::new(
        "deconvolution_gemm_packed.comp",
        gemm_local,
        spec_of(&[&ints(&[
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
        words(&[
            u64::from(w),
            u64::from(h),
            c,
            min.cstep(),
            mcol.cstep(),
            u64::from(mcol.c),
            u64::from(p.cin),
        ]),
        &[0, 1, 0, 1, 2],
        [mcol.cstep().div_ceil(4) as u32, mcol.c, 1],
    );
    let col_local = optimal_local_size(
        if sp {
            [8.min(outw), 8.min(outh), 4.min(mout.c)]
        } else {
            [8, 8, 4.min(p.cout / oep)]
        },
        &device.limits,
    );
    let col2im = Step::new(
        if oep == 4 {
            "deconvolution_pack4_col2im.comp"
        } else {
            "deconvolution_col2im.comp"
        },
        col_local,
        spec_of(&[
            &p.kernel_spec(),
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
        words(&[
            u64::from(w),
            u64::from(h),
            mcol.cstep(),
            u64::from(outw),
            u64::from(outh),
            mout.cstep(),
        ]),
        &[1, 3, 4],
        [outw, outh, mout.c],
    );
    let expect = expect_blob_tol(3, &mout, &[outw, outh, p.cout], |x, y, _, q| {
        tol_staged(mode, p.act, s.at(x, y, q))
    });
    Run {
        name: format!("deconvgemm {}", p.describe()),
        buffers: vec![
            blob(&s.input, &min),
            poison_blob(mode, &mcol),
            Data::Floats(blocks(wp, f32::NAN)),
            poison_blob(mode, &mout),
            s.bias_data(),
        ],
        steps: vec![gemm, col2im],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Deconvolution: the gemm path (every output pack, input pack1 and pack4,
/// stride 2, dilation 2, more than 8 input groups) and the direct path
/// (`deconvolution_vulkan.cpp`: `num_input < 8` or `maxk * num_output < 8`;
/// [`direct_run`]; pack4 to pack1, pack1 to pack4, dilation 2).
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
        .map(|p| direct_run(device, mode, rng, p, Layer::Deconv)),
    );
    runs
}
