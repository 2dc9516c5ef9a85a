//! Softmax: ncnn's four-pipeline chain (reduce max, exp, reduce sum,
//! divide) over every axis of one to four dimensions.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, pack, packed_mat, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{at, blob_local, local_known, packed, run_of, spec_known, words, Buffers, Geo};

/// `softmax_vulkan.cpp`, in place: `softmax_reduce_max` into a max
/// workspace, `softmax_exp_sub_max` over the blob, `softmax_reduce_sum` into
/// a sum workspace, `softmax_div_sum` over the blob (each `_pack4` for a
/// pack-4 blob). The workspace drops the reduced axis, in packed extents;
/// the shapes are specialized (with `axis`) when known, else pushed; the
/// reduce pipelines' local size follows the workspace, the element-wise
/// ones' the blob (4x4x4 when unknown).
pub(crate) fn softmax(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (shape, axis, ep, specialized) in [
        (&[24u32][..], 0i32, 4u32, true),
        (&[6, 8][..], 0, 4, true),
        (&[6, 8][..], 1, 4, false),
        (&[7, 3][..], -1, 1, true),
        (&[5, 4, 8][..], 0, 4, true),
        (&[5, 4, 8][..], 1, 4, false),
        (&[5, 4, 3][..], 2, 1, true),
        (&[3, 4, 2, 8][..], 0, 4, false),
        (&[3, 4, 2, 8][..], 1, 4, true),
        (&[3, 4, 2, 4][..], 2, 4, true),
        (&[3, 4, 2, 3][..], 3, 1, false),
    ] {
        let t = Tensor::random(shape, mode, rng, -3.0, 3.0);
        let m = packed_mat(shape, ep, mode);
        let g = Geo::of(&m);
        let dims = m.dims;
        let pos = if axis < 0 { dims as i32 + axis } else { axis } as u32;
        let ws_shape: Vec<u32> = match (dims, pos) {
            (1, _) => vec![1],
            (2, 0) => vec![m.w],
            (2, _) => vec![m.h],
            (3, 0) => vec![m.w, m.h],
            (3, 1) => vec![m.w, m.c],
            (3, _) => vec![m.h, m.c],
            (_, 0) => vec![m.w, m.h, m.d],
            (_, 1) => vec![m.w, m.h, m.c],
            (_, 2) => vec![m.w, m.d, m.c],
            _ => vec![m.h, m.d, m.c],
        };
        let ws = Geo::new(&ws_shape, m.elemsize);
        let constants: Vec<i32> = g.shape6().into_iter().chain(ws.shape6()).collect();
        let mut spec = vec![(0, SpecValue::Int(axis))];
        spec.extend(spec_known(1, specialized, &constants));
        let ws_dispatch = [ws.w, ws.h * ws.d, ws.c];
        let blob_dispatch = [m.w, m.h * m.d, m.c];
        // The reduce pipelines run over the workspace, the element-wise ones
        // over the blob.
        let over_ws = (
            local_known(device, specialized, ws_dispatch, [0; 3]),
            ws_dispatch,
        );
        let over_blob = (blob_local(device, specialized, &m, [0; 3]), blob_dispatch);
        let mut b = Buffers::default();
        let blob = b.add(Data::Floats(pack(&t, &m)));
        let max_ws = b.add(ws.poison());
        let sum_ws = b.add(ws.poison());
        let push = words(&constants);
        let steps = [
            (
                "softmax_reduce_max.comp",
                "softmax_reduce_max_pack4.comp",
                over_ws,
                max_ws,
            ),
            (
                "softmax_exp_sub_max.comp",
                "softmax_exp_sub_max_pack4.comp",
                over_blob,
                max_ws,
            ),
            (
                "softmax_reduce_sum.comp",
                "softmax_reduce_sum_pack4.comp",
                over_ws,
                sum_ws,
            ),
            (
                "softmax_div_sum.comp",
                "softmax_div_sum_pack4.comp",
                over_blob,
                sum_ws,
            ),
        ]
        .into_iter()
        .map(|(pack1, pack4, (local, dispatcher), work)| {
            Step::new(
                packed(ep, pack1, pack4),
                local,
                spec.clone(),
                push.clone(),
                &[blob, work],
                dispatcher,
            )
        })
        .collect();
        // The softmax axis among `[w, h, d, c]`.
        let ax = match (dims, pos) {
            (1, _) => 0,
            (2, 0) => 1,
            (2, _) => 0,
            (3, 0) => 3,
            (3, 1) => 1,
            (3, _) => 0,
            (_, 0) => 3,
            (_, 1) => 2,
            (_, 2) => 1,
            _ => 0,
        };
        let n = t.whdc()[ax];
        let expect = expect_blob(mode, blob, &m, shape, |x, y, z, q| {
            let p = [x, y, z, q];
            let slice: Vec<f64> = (0..n)
                .map(|k| {
                    let mut p = p;
                    p[ax] = k;
                    at(&t, p)
                })
                .collect();
            let max = slice.iter().cloned().fold(f64::MIN, f64::max);
            let sum: f64 = slice.iter().map(|v| (v - max).exp()).sum();
            let v = at(&t, p);
            let want = (v - max).exp() / sum;
            // The exponentials are stored before they are summed and
            // divided: the sum carries `n` terms, the exponent `|v - max|`
            // units of its own argument's rounding.
            let mag = want * (f64::from(n) + (v - max).abs() + 2.0);
            (want, mag)
        });
        runs.push(run_of(
            format!("softmax {shape:?} axis {axis} pack{ep} spec {specialized}"),
            b,
            steps,
            expect,
        ));
    }
    runs
}
