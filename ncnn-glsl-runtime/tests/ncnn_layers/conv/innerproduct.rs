//! InnerProduct: the direct shaders, sum8 + reduce, and the 2-D gemm
//! shaders.

use ncnn_glsl_runtime::{ncnn_local_size, optimal_local_size};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, expect_blob_tol, packed_mat, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::activation::{Act, NO_ACT};
use super::common::{
    bias_data, blob, blocks, ints, known, pack_of, poison_blob, spec_of, tol_staged, values, words,
};

/// An InnerProduct configuration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fc {
    /// `num_input`.
    cin: u32,
    /// `num_output`.
    cout: u32,
    /// Rows of a 2-D input (the gemm path); 0 for a 1-D input.
    rows: u32,
    /// `bias_term`.
    bias: bool,
    /// Whether the input shape is known at `create_pipeline`.
    specialized: bool,
    /// The fused activation.
    pub(crate) act: Act,
}

/// An [`Fc`] without activation.
pub(crate) fn fc(cin: u32, cout: u32, rows: u32, bias: bool, specialized: bool) -> Fc {
    Fc {
        cin,
        cout,
        rows,
        bias,
        specialized,
        act: NO_ACT,
    }
}

/// `innerproduct_vulkan.cpp`: weights per output pack, per input pack,
/// `[out lane][in lane]` (packs from `num_output % 4`, `num_input % 4`).
/// A 1-D input runs `innerproduct{,_pack4,_pack1to4,_pack4to1}.comp` (one
/// invocation per output pack, local size `min(64, outw)`), or, from 32
/// input packs, `innerproduct_sum8*.comp` (partial sums of 8 input packs
/// into a `(w / 8, num_output / out_elempack)` blob in the mode's storage,
/// local size `8 x min(8, outh)`) then `innerproduct_reduce_sum8*.comp`
/// (bias, activation; local size `min(64, outw)`). A 2-D input with `w ==
/// num_input` (rows not a multiple of 4: no unpacking) runs
/// `innerproduct_gemm{,_wp4,_wp1to4,_wp4to1}.comp`, one invocation per row
/// and output pack, local size `min(16, num_output) x min(4, rows)`.
pub(crate) fn fc_run(device: &Device, mode: &Mode, rng: &mut Rng, p: &Fc) -> Run {
    let (ie, oe) = (pack_of(p.cin), pack_of(p.cout));
    let shape: Vec<u32> = if p.rows == 0 {
        vec![p.cin]
    } else {
        vec![p.cin, p.rows]
    };
    let input = Tensor::random(&shape, mode, rng, -1.0, 1.0);
    let weights = values(p.cout * p.cin, mode, rng, -1.0, 1.0);
    let bias = if p.bias {
        values(p.cout, mode, rng, -1.0, 1.0)
    } else {
        Vec::new()
    };
    let mut wp = Vec::new();
    for q in (0..p.cout).step_by(oe as usize) {
        for c in (0..p.cin).step_by(ie as usize) {
            for i in 0..oe {
                for j in 0..ie {
                    wp.push(weights[((q + i) * p.cin + c + j) as usize]);
                }
            }
        }
    }
    let at = |r: u32, q: u32| -> (f64, f64) {
        let mut sum = if p.bias {
            f64::from(bias[q as usize])
        } else {
            0.0
        };
        let mut mag = sum.abs();
        for c in 0..p.cin {
            let x = if p.rows == 0 {
                input.at(c, 0, 0, 0)
            } else {
                input.at(c, r, 0, 0)
            };
            let v = f64::from(x) * f64::from(weights[(q * p.cin + c) as usize]);
            sum += v;
            mag += v.abs();
        }
        (sum, mag)
    };
    let sp = p.specialized;
    let pick = |names: [&'static str; 4]| match (ie, oe) {
        (1, 1) => names[0],
        (4, 4) => names[1],
        (1, 4) => names[2],
        _ => names[3],
    };
    let head = [&ints(&[u64::from(p.bias)])[..], &p.act.spec()[..]].concat();
    let name = format!(
        "innerproduct {}->{} rows {} bias {} {} act {}",
        p.cin,
        p.cout,
        p.rows,
        p.bias,
        if sp { "spec" } else { "push" },
        p.act.name()
    );
    let w_data = Data::Floats(blocks(wp, f32::NAN));
    // The two paths of one dispatch bind the same buffers and check the
    // output alike (`y` is 0 for a 1-D output); sum8 + reduce returns early.
    let (min, mout, out_shape, step) = if p.rows > 0 {
        let min = packed_mat(&shape, 1, mode);
        let out_shape = vec![p.cout, p.rows];
        let mout = packed_mat(&out_shape, 1, mode);
        let shapes = [
            2,
            u64::from(p.cin),
            u64::from(p.rows),
            1,
            min.cstep(),
            2,
            u64::from(p.cout),
            u64::from(p.rows),
            1,
            mout.cstep(),
        ];
        let local = optimal_local_size(
            if sp {
                [16.min(p.cout), 4.min(p.rows), 1]
            } else {
                [16.min(p.cout / oe), 4, 1]
            },
            &device.limits,
        );
        let step = Step::new(
            pick([
                "innerproduct_gemm.comp",
                "innerproduct_gemm_wp4.comp",
                "innerproduct_gemm_wp1to4.comp",
                "innerproduct_gemm_wp4to1.comp",
            ]),
            local,
            spec_of(&[&head, &ints(&shapes.map(|v| known(sp, v)))]),
            words(&shapes),
            &[0, 1, 2, 3],
            [p.cout / oe, p.rows, 1],
        );
        (min, mout, out_shape, step)
    } else {
        let min = packed_mat(&shape, ie, mode);
        let out_shape = vec![p.cout];
        let mout = packed_mat(&out_shape, oe, mode);
        let (w, outw) = (u64::from(p.cin / ie), u64::from(p.cout / oe));
        if w >= 32 {
            let w8 = w.div_ceil(8);
            let msum = packed_mat(&[w8 as u32, p.cout], oe, mode);
            let sg = device.limits.subgroup_size;
            let sum8 = Step::new(
                pick([
                    "innerproduct_sum8.comp",
                    "innerproduct_sum8_pack4.comp",
                    "innerproduct_sum8_pack1to4.comp",
                    "innerproduct_sum8_pack4to1.comp",
                ]),
                ncnn_local_size([8, 8.min(outw as u32), 1], sg),
                spec_of(&[&ints(&[known(sp, w), w8, outw])]),
                words(&[w, w8, outw]),
                &[0, 1, 2],
                [w8 as u32, outw as u32, 1],
            );
            let reduce = Step::new(
                if oe == 4 {
                    "innerproduct_reduce_sum8_pack4.comp"
                } else {
                    "innerproduct_reduce_sum8.comp"
                },
                ncnn_local_size([64.min(outw as u32), 1, 1], sg),
                spec_of(&[&head, &ints(&[w8, outw, known(sp, outw)])]),
                words(&[w8, outw, outw]),
                &[1, 4, 3],
                [outw as u32, 1, 1],
            );
            let expect = expect_blob_tol(4, &mout, &[p.cout], |x, _, _, _| {
                tol_staged(mode, p.act, at(0, x))
            });
            return Run {
                name,
                buffers: vec![
                    blob(&input, &min),
                    poison_blob(mode, &msum),
                    w_data,
                    bias_data(&bias),
                    poison_blob(mode, &mout),
                ],
                steps: vec![sum8, reduce],
                expect: vec![expect],
                untouched: Vec::new(),
            };
        }
        let shapes = [1, w, 1, 1, w, 1, outw, 1, 1, outw];
        let step = Step::new(
            pick([
                "innerproduct.comp",
                "innerproduct_pack4.comp",
                "innerproduct_pack1to4.comp",
                "innerproduct_pack4to1.comp",
            ]),
            optimal_local_size([64.min(outw as u32), 1, 1], &device.limits),
            spec_of(&[&head, &ints(&shapes.map(|v| known(sp, v)))]),
            words(&shapes),
            &[0, 1, 2, 3],
            [outw as u32, 1, 1],
        );
        (min, mout, out_shape, step)
    };
    let expect = expect_blob(mode, 1, &mout, &out_shape, |x, y, _, _| {
        p.act.apply(at(y, x))
    });
    Run {
        name,
        buffers: vec![
            blob(&input, &min),
            poison_blob(mode, &mout),
            w_data,
            bias_data(&bias),
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// InnerProduct: each of the twelve shaders' packing pairs on 1-D inputs
/// (direct, and sum8 + reduce from 32 input packs) and 2-D inputs (gemm).
pub(crate) fn innerproduct(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    [
        fc(12, 8, 0, true, true),
        fc(10, 5, 0, true, false),
        fc(7, 8, 0, false, true),
        fc(16, 6, 0, true, false),
        fc(136, 8, 0, true, true),
        fc(35, 3, 0, true, false),
        fc(37, 4, 0, false, true),
        fc(128, 5, 0, true, false),
        fc(8, 8, 3, true, true),
        fc(6, 5, 5, true, false),
        fc(5, 8, 3, false, true),
        fc(8, 6, 5, true, false),
    ]
    .iter()
    .map(|p| fc_run(device, mode, rng, p))
    .collect()
}
