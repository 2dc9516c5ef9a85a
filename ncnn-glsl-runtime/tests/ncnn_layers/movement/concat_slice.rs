//! Concat and Slice: copies along one axis, at an offset into the output
//! or out of the input.

use ncnn_glsl_runtime::{NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{packed_mat, Device, Mode, Run, Step, Tensor};
use ncnn_glsl_testkit::Rng;

use super::common::{
    axis_slot, blob, dispatcher, expect_copy, finish_run, local, natural, outer_slot, shape6,
    shape_of, spec_shape, step, Arena, Placed,
};

/// A Concat or Slice dispatch: `shader` copying blob `from` (placed at
/// `src`) into blob `to` (at `dst`), `offset` along the axis into the
/// output (Concat) or out of the input (Slice), over `over`'s dispatcher.
fn offset_step(
    shader: &'static str,
    local_size: [u32; 3],
    spec_values: &[SpecValue],
    (from, src): (&NcnnMat, Placed),
    (to, dst): (&NcnnMat, Placed),
    offset: u32,
    over: &NcnnMat,
) -> Step {
    let push = [&shape6(from)[..], &shape6(to), &[offset]].concat();
    step(
        shader,
        local_size,
        spec_values,
        push,
        &[src, dst],
        dispatcher(over),
    )
}

/// `concat_vulkan.cpp`: one dispatch per input, dispatched over the input,
/// writing it at an offset along the axis into the output. Along the packed
/// axis the inputs run at the smallest input elempack (`concat_pack4to1`
/// for a pack4 input into a pack1 output); the output shape (not the
/// inputs') is specialized when known, which also picks the local size.
pub(crate) fn concat(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[&[u32]], i32, bool)] = &[
        (&[&[8], &[4], &[3]], 0, true),
        (&[&[8], &[12]], 0, false),
        (&[&[5, 4], &[5, 3]], 0, false),
        (&[&[3, 8], &[5, 8], &[2, 8]], 1, true),
        (&[&[3, 2, 4], &[3, 2, 8], &[3, 2, 3]], 0, true),
        (&[&[3, 2, 4], &[3, 2, 8]], 0, false),
        (&[&[3, 2, 8], &[3, 3, 8]], 1, true),
        (&[&[1, 2, 3], &[4, 2, 3]], -1, false),
        (&[&[2, 3, 2, 4], &[2, 3, 2, 3]], 0, true),
        (&[&[2, 3, 2, 8], &[2, 3, 1, 8]], 1, false),
        (&[&[2, 1, 2, 3], &[2, 3, 2, 3]], -2, true),
    ];
    let mut runs = Vec::new();
    for &(shapes, axis, known) in configs {
        let dims = shapes[0].len();
        let slot = axis_slot(dims, axis);
        let along_packed = slot == outer_slot(dims);
        let ts: Vec<Tensor> = shapes
            .iter()
            .map(|s| Tensor::random(s, mode, rng, -10.0, 10.0))
            .collect();
        let ms: Vec<NcnnMat> = shapes.iter().map(|s| blob(s, mode)).collect();
        let mut out_whdc = ts[0].whdc();
        out_whdc[slot] = ts.iter().map(|t| t.whdc()[slot]).sum();
        let out_shape = shape_of(out_whdc, dims);
        let elempack = if along_packed {
            ms.iter().map(|m| m.elempack).min().unwrap()
        } else {
            ms[0].elempack
        };
        assert_eq!(
            elempack,
            natural(&out_shape),
            "{shapes:?}: ncnn would convert the packing of the output"
        );
        let top = packed_mat(&out_shape, elempack, mode);

        let mut a = Arena::new(device, mode);
        let ins: Vec<Placed> = ts.iter().zip(&ms).map(|(t, m)| a.tensor(t, m)).collect();
        let out = a.blob(&top);

        let mut spec_values = vec![SpecValue::Int(axis)];
        spec_values.extend(spec_shape(&[0; 6], false));
        spec_values.extend(spec_shape(&shape6(&top), known));
        let guess = match top.dims {
            1 => [64, 1, 1],
            2 => [8, 8, 1],
            _ => [4, 4, 4],
        };
        let local_size = local(device, if known { guess } else { [0; 3] });
        let mut offset = 0;
        let mut steps = Vec::new();
        for ((t, m), p) in ts.iter().zip(&ms).zip(&ins) {
            let shader = match (along_packed, m.elempack, elempack) {
                (false, _, 1) | (true, 1, 1) => "concat.comp",
                (false, _, 4) | (true, 4, 4) => "concat_pack4.comp",
                (true, 4, 1) => "concat_pack4to1.comp",
                other => unreachable!("{other:?}"),
            };
            steps.push(offset_step(
                shader,
                local_size,
                &spec_values,
                (m, *p),
                (&top, out),
                offset,
                m,
            ));
            offset += t.whdc()[slot] / if along_packed { elempack } else { 1 };
        }
        let expect = expect_copy(mode, out, &top, &out_shape, |x, y, z, q| {
            let mut c = [x, y, z, q];
            for t in &ts {
                let e = t.whdc()[slot];
                if c[slot] < e {
                    return f64::from(t.at(c[0], c[1], c[2], c[3]));
                }
                c[slot] -= e;
            }
            unreachable!("past the concatenation")
        });
        runs.push(finish_run(
            format!("concat {shapes:?} axis {axis} spec {known}"),
            a,
            steps,
            vec![expect],
        ));
    }
    runs
}

/// `slice_vulkan.cpp`: one dispatch per output, dispatched over the output,
/// reading it at an offset along the axis of the input. Along the packed
/// axis the input runs at the smallest output elempack (`slice_pack1to4`
/// for a pack4 output of a pack1 input); the input shape (not the
/// outputs') is specialized when known, which also picks the local size.
pub(crate) fn slice(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[u32], i32, &[u32], bool)] = &[
        (&[15], 0, &[8, 4, 3], true),
        (&[20], 0, &[8, 12], false),
        (&[5, 7], 0, &[4, 3], true),
        (&[6, 8], 1, &[3, 1, 2], false),
        (&[3, 2, 15], 0, &[4, 8, 3], true),
        (&[3, 2, 12], 0, &[8, 4], false),
        (&[3, 5, 3], -2, &[1, 4], false),
        (&[5, 2, 4], 2, &[2, 3], true),
        (&[2, 3, 2, 7], 0, &[4, 3], true),
        (&[2, 3, 3, 8], 1, &[1, 2], false),
        (&[3, 3, 2, 4], -1, &[1, 2], true),
    ];
    let mut runs = Vec::new();
    for &(shape, axis, slices, known) in configs {
        let dims = shape.len();
        let slot = axis_slot(dims, axis);
        let along_packed = slot == outer_slot(dims);
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let bottom = blob(shape, mode);
        let out_shapes: Vec<Vec<u32>> = slices
            .iter()
            .map(|&s| {
                let mut whdc = t.whdc();
                whdc[slot] = s;
                shape_of(whdc, dims)
            })
            .collect();
        assert_eq!(slices.iter().sum::<u32>(), t.whdc()[slot]);
        let tops: Vec<NcnnMat> = out_shapes.iter().map(|s| blob(s, mode)).collect();
        let out_elempack = if along_packed {
            tops.iter().map(|m| m.elempack).min().unwrap()
        } else {
            bottom.elempack
        };
        assert_eq!(
            bottom.elempack, out_elempack,
            "{shape:?}: ncnn would convert the packing of the input"
        );

        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bottom);
        let outs: Vec<Placed> = tops.iter().map(|m| a.blob(m)).collect();

        let mut spec_values = vec![SpecValue::Int(axis)];
        spec_values.extend(spec_shape(&shape6(&bottom), known));
        spec_values.extend(spec_shape(&[0; 6], false));
        let guess = match bottom.dims {
            1 => [64, 1, 1],
            2 => [8, 8, 1],
            3 => [4, 4, 4],
            _ => [0; 3],
        };
        let local_size = local(device, if known { guess } else { [0; 3] });
        let mut offset = 0;
        let mut steps = Vec::new();
        let mut expect = Vec::new();
        let mut start = 0;
        for (((top, p), out_shape), &s) in tops.iter().zip(&outs).zip(&out_shapes).zip(slices) {
            let shader = match (along_packed, out_elempack, top.elempack) {
                (false, 1, _) | (true, 1, 1) => "slice.comp",
                (false, 4, _) | (true, 4, 4) => "slice_pack4.comp",
                (true, 1, 4) => "slice_pack1to4.comp",
                other => unreachable!("{other:?}"),
            };
            steps.push(offset_step(
                shader,
                local_size,
                &spec_values,
                (&bottom, input),
                (top, *p),
                offset,
                top,
            ));
            offset += s / if along_packed { out_elempack } else { 1 };
            let t = &t;
            expect.push(expect_copy(mode, *p, top, out_shape, move |x, y, z, q| {
                let mut c = [x, y, z, q];
                c[slot] += start;
                f64::from(t.at(c[0], c[1], c[2], c[3]))
            }));
            start += s;
        }
        runs.push(finish_run(
            format!("slice {shape:?} axis {axis} {slices:?} spec {known}"),
            a,
            steps,
            expect,
        ));
    }
    runs
}
