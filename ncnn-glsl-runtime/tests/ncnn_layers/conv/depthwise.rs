//! ConvolutionDepthWise: depth-wise and grouped, every packing pair.

use ncnn_glsl_runtime::optimal_local_size;
use ncnn_glsl_testkit::ncnn_layers::{Device, Mode, Run, Step};
use ncnn_glsl_testkit::Rng;

use super::common::{conv, ints, known, pack_of, spec_of, words, Conv, Layer, Setup};

/// `convolutiondepthwise_vulkan.cpp`: depth-wise (`channels == group ==
/// num_output`) with `convolutiondepthwise{,_pack4}.comp`, weights
/// `[group][maxk]` packed by the channel pack; grouped with
/// `convolutiondepthwise_group{,_pack4,_pack1to4,_pack4to1}.comp` by the
/// per-group packs, weights per group, per output pack, per input pack, per
/// tap, `[out lane][in lane]`. One invocation per output element; local size
/// `set_optimal_local_size_xyz(min(8, outw), min(8, outh), min(4, outc))`
/// (8, 8, `min(4, num_output / out_elempack)` unspecialized); dispatcher the
/// output blob. The shapes keep the blob's packs equal to the per-group ones
/// (no packing conversion around the shader).
fn dw_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Conv) -> Run {
    let s = Setup::new(p, Layer::Conv, mode, rng);
    let (ep, oep, [outw, outh], mout) = (s.ep, s.oep, s.out, s.mout);
    let depthwise = p.cin == p.group && p.group == p.cout;
    let (cg, og) = (p.cin / p.group, p.cout / p.group);
    let (epg, oepg) = (pack_of(cg), pack_of(og));
    let maxk = p.maxk();
    let (shader, wp) = if depthwise {
        let mut wp = Vec::new();
        for g in (0..p.group).step_by(ep as usize) {
            for k in 0..maxk {
                for lane in 0..ep {
                    wp.push(p.w(&s.weights, g + lane, 0, k));
                }
            }
        }
        let shader = if ep == 4 {
            "convolutiondepthwise_pack4.comp"
        } else {
            "convolutiondepthwise.comp"
        };
        (shader, wp)
    } else {
        assert!(
            ep == epg && oep == oepg,
            "a grouped case without conversions"
        );
        let mut wp = Vec::new();
        for g in 0..p.group {
            for q in (0..og).step_by(oepg as usize) {
                for c in (0..cg).step_by(epg as usize) {
                    for k in 0..maxk {
                        for i in 0..oepg {
                            for j in 0..epg {
                                wp.push(p.w(&s.weights, g * og + q + i, c + j, k));
                            }
                        }
                    }
                }
            }
        }
        let shader = match (epg, oepg) {
            (1, 1) => "convolutiondepthwise_group.comp",
            (4, 4) => "convolutiondepthwise_group_pack4.comp",
            (1, 4) => "convolutiondepthwise_group_pack1to4.comp",
            _ => "convolutiondepthwise_group_pack4to1.comp",
        };
        (shader, wp)
    };
    let sp = p.specialized;
    let shape = s.shape_words(u64::from(mout.c), mout.cstep());
    let spec = spec_of(&[
        &p.kernel_spec(),
        &ints(&[u64::from(p.group)]),
        &p.act.spec(),
        &ints(&shape.map(|v| known(sp, v))),
    ]);
    let local = optimal_local_size(
        if sp {
            [8.min(outw), 8.min(outh), 4.min(mout.c)]
        } else {
            [8, 8, 4.min(p.cout / if depthwise { oep } else { oepg })]
        },
        &device.limits,
    );
    let step = Step::new(
        shader,
        local,
        spec,
        words(&shape),
        &[0, 1, 2, 3],
        [outw, outh, mout.c],
    );
    s.one_step(mode, "convdw", step, wp)
}

/// A grouped [`Conv`].
fn grouped(mut p: Conv, group: u32) -> Conv {
    p.group = group;
    p
}

/// ConvolutionDepthWise: depth-wise pack1 and pack4 (stride 2, dilation
/// 2), grouped pack1, pack4, pack1to4, pack4to1.
pub(crate) fn depthwise(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let k3 = [3, 3];
    let one = [1, 1];
    [
        grouped(conv(8, 8, k3, one, one, [6, 5], true, true), 8),
        grouped(conv(3, 3, k3, [2, 2], [2, 2], [9, 8], true, false), 3),
        grouped(conv(6, 6, k3, one, one, [5, 5], true, false), 2),
        grouped(conv(8, 8, k3, one, one, [5, 4], true, true), 2),
        grouped(conv(2, 8, k3, one, one, [5, 5], true, true), 2),
        grouped(conv(8, 2, [2, 3], one, [2, 1], [7, 7], false, false), 2),
    ]
    .iter()
    .map(|p| dw_run(device, mode, rng, p))
    .collect()
}
