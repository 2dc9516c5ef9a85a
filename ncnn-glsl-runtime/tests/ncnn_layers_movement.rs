//! ncnn's data-movement layers, run as ncnn runs them (see
//! `ncnn_glsl_testkit::ncnn_layers`): Concat, Slice, Crop, Padding, Interp,
//! PixelShuffle, Reshape, Permute and Flatten, each through the shaders its
//! `*_vulkan.cpp` picks for the packing of its blobs (pack1, pack4, pack1to4,
//! pack4to1, the 3-D padding shaders, the bicubic coefficient pass), with the
//! shapes specialized or pushed.
//!
//! Every blob is sub-allocated as ncnn's blob allocator does it: inputs,
//! outputs and workspaces of a run share one buffer, each bound at an
//! aligned offset with other bytes (NaN) at least 16 bytes either side, and
//! every byte outside the output ranges must keep its value.
//!
//! Configurations where ncnn would first run `convert_packing` (a packing
//! layer of its own) are left out: the input is given in the packing the
//! layer's shader reads.

use std::ops::Range;

use ncnn_glsl_runtime::{group_counts, optimal_local_size, BufferRange, NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, pack, packed_index, packed_mat, spec, suite, Data, Device, Expect, Mode, Run,
    Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

// ---------------------------------------------------------------------------
// Blobs in one buffer

/// A blob placed in an [`Arena`]: the range it is bound at and its first
/// scalar.
#[derive(Clone, Copy, Debug)]
struct Placed {
    range: BufferRange,
    first: usize,
}

/// One buffer that blobs are sub-allocated from, as ncnn's blob and
/// workspace allocators place them: each blob at an offset aligned to the
/// device's `minStorageBufferOffsetAlignment` (and 16 bytes), at least 16
/// bytes after the one before and before the buffer's end, its size rounded
/// up to whole words (ncnn's `alignSize(total * elemsize, 4)`). Bytes
/// outside the blobs hold NaN.
struct Arena {
    scalar_bytes: u64,
    align: u64,
    scalars: Vec<f32>,
    outputs: Vec<Range<u64>>,
}

impl Arena {
    /// An empty buffer for `mode`'s scalars.
    fn new(device: &Device, mode: &Mode) -> Arena {
        let a = device.offset_alignment.max(1);
        let mut g = (a, 16u64);
        while g.1 != 0 {
            g = (g.1, g.0 % g.1);
        }
        Arena {
            scalar_bytes: u64::from(mode.scalar_bytes()),
            align: a / g.0 * 16,
            scalars: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// Room for `bytes`, after what is placed already.
    fn place(&mut self, bytes: u64) -> Placed {
        let end = self.scalars.len() as u64 * self.scalar_bytes;
        let offset = (end + 16).div_ceil(self.align) * self.align;
        let size = bytes.div_ceil(4) * 4;
        self.scalars
            .resize(((offset + size) / self.scalar_bytes) as usize, f32::NAN);
        Placed {
            range: BufferRange::new(offset, size),
            first: (offset / self.scalar_bytes) as usize,
        }
    }

    /// An input blob `m` holding tensor `t`.
    fn tensor(&mut self, t: &Tensor, m: &NcnnMat) -> Placed {
        self.scalars_in(&pack(t, m))
    }

    /// An input of `values` scalars.
    fn scalars_in(&mut self, values: &[f32]) -> Placed {
        let p = self.place(values.len() as u64 * self.scalar_bytes);
        self.scalars[p.first..p.first + values.len()].copy_from_slice(values);
        p
    }

    /// An output (or workspace) of `bytes`, which the run may write.
    fn output(&mut self, bytes: u64) -> Placed {
        let p = self.place(bytes);
        self.outputs
            .push(p.range.offset..p.range.offset + p.range.size);
        p
    }

    /// An output blob `m`.
    fn blob(&mut self, m: &NcnnMat) -> Placed {
        self.output(m.bytes())
    }

    /// The buffer, and every byte range of it outside the outputs (buffer
    /// index 0).
    fn finish(mut self) -> (Data, Vec<(usize, Range<u64>)>) {
        let end = self.scalars.len() as u64 * self.scalar_bytes;
        let total = (end + 16).div_ceil(4) * 4;
        self.scalars
            .resize((total / self.scalar_bytes) as usize, f32::NAN);
        let mut untouched = Vec::new();
        let mut at = 0;
        for r in &self.outputs {
            if r.start > at {
                untouched.push((0, at..r.start));
            }
            at = r.end;
        }
        untouched.push((0, at..total));
        (Data::Floats(self.scalars), untouched)
    }
}

/// Checks of a blob placed at `p` of buffer 0.
fn placed(mut e: Expect, p: Placed) -> Expect {
    for point in &mut e.points {
        point.0 += p.first;
    }
    e
}

/// Checks that output blob `m` (of logical `shape`, placed at `p`) holds
/// copies of the values `want` names.
fn expect_copy(
    mode: &Mode,
    p: Placed,
    m: &NcnnMat,
    shape: &[u32],
    want: impl Fn(u32, u32, u32, u32) -> f64,
) -> Expect {
    placed(
        expect_blob(mode, 0, m, shape, |x, y, z, q| {
            let v = want(x, y, z, q);
            (v, v.abs())
        }),
        p,
    )
}

/// Checks of output blob `m` (of logical `shape`, placed at `p`): every
/// element against `want`, which gives the reference and its tolerance.
fn expect_tol(
    p: Placed,
    m: &NcnnMat,
    shape: &[u32],
    want: impl Fn(u32, u32, u32, u32) -> (f64, f64),
) -> Expect {
    let t = Tensor {
        shape: shape.to_vec(),
        values: Vec::new(),
    };
    let [w, h, d, c] = t.whdc();
    let mut points = Vec::new();
    for q in 0..c {
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let (v, tol) = want(x, y, z, q);
                    points.push((p.first + packed_index(m, x, y, z, q), v, tol));
                }
            }
        }
    }
    Expect { buffer: 0, points }
}

/// The run of `steps` on the arena `a`.
fn finish_run(name: String, a: Arena, steps: Vec<Step>, expect: Vec<Expect>) -> Run {
    let (data, untouched) = a.finish();
    Run {
        name,
        buffers: vec![data],
        steps,
        expect,
        untouched,
    }
}

// ---------------------------------------------------------------------------
// Shapes, constants, local sizes

/// The elempack ncnn gives a blob of `shape`: 4 when its outermost axis is
/// a multiple of 4.
fn natural(shape: &[u32]) -> u32 {
    if shape[shape.len() - 1] % 4 == 0 {
        4
    } else {
        1
    }
}

/// A blob of `shape` packed as ncnn packs it.
fn blob(shape: &[u32], mode: &Mode) -> NcnnMat {
    packed_mat(shape, natural(shape), mode)
}

/// The slot in `[w, h, d, c]` of ncnn's axis `axis` (negative counts from
/// the end) of a `dims`-dimensional blob.
fn axis_slot(dims: usize, axis: i32) -> usize {
    let a = if axis < 0 { dims as i32 + axis } else { axis } as usize;
    match dims {
        1 => 0,
        2 => [1, 0][a],
        3 => [3, 1, 0][a],
        _ => [3, 2, 1, 0][a],
    }
}

/// The slot in `[w, h, d, c]` of the axis ncnn packs.
fn outer_slot(dims: usize) -> usize {
    match dims {
        1 => 0,
        2 => 1,
        _ => 3,
    }
}

/// The shape of `dims` dimensions with extents `whdc`.
fn shape_of(whdc: [u32; 4], dims: usize) -> Vec<u32> {
    let [w, h, d, c] = whdc;
    match dims {
        1 => vec![w],
        2 => vec![w, h],
        3 => vec![w, h, c],
        _ => vec![w, h, d, c],
    }
}

/// `dims, w, h, d, c, cstep` of a blob (ncnn's shape constants).
fn shape6(m: &NcnnMat) -> [u32; 6] {
    [m.dims, m.w, m.h, m.d, m.c, m.cstep() as u32]
}

/// `dims, w, h, c, cstep` of a blob (the shaders without depth).
fn shape5(m: &NcnnMat) -> [u32; 5] {
    [m.dims, m.w, m.h, m.c, m.cstep() as u32]
}

/// Shape words as `int` specialization constants, or zeros where ncnn
/// does not know the shape at `create_pipeline`.
fn spec_shape(words: &[u32], known: bool) -> Vec<SpecValue> {
    words
        .iter()
        .map(|&v| SpecValue::Int(if known { v as i32 } else { 0 }))
        .collect()
}

/// ncnn's dispatcher for a blob: `w, h * d, c`.
fn dispatcher(m: &NcnnMat) -> [u32; 3] {
    [m.w, m.h * m.d, m.c]
}

/// `set_optimal_local_size_xyz(size)` on the device.
fn local(device: &Device, size: [u32; 3]) -> [u32; 3] {
    optimal_local_size(size, &device.limits)
}

/// The local size most layers guess from a known output blob (64 wide in
/// one dimension, 8 x 8 in two, 4 x 4 x 4 in three and four, each capped
/// by the blob's extent); zeros (ncnn's 4 x 4 x 4) when unknown.
fn blob_local(m: &NcnnMat, known: bool) -> [u32; 3] {
    if !known {
        return [0; 3];
    }
    match m.dims {
        1 => [m.w.min(64), 1, 1],
        2 => [m.w.min(8), m.h.min(8), 1],
        3 => [m.w.min(4), m.h.min(4), m.c.min(4)],
        _ => [m.w.min(4), (m.h * m.d).min(4), m.c.min(4)],
    }
}

/// One step of `shader`.
fn step(
    shader: &'static str,
    local_size: [u32; 3],
    spec_values: &[SpecValue],
    push: Vec<u32>,
    bind: &[Placed],
    dispatch: [u32; 3],
) -> Step {
    Step {
        shader,
        local_size,
        spec: spec(spec_values),
        push,
        bind: bind.iter().map(|p| (0, Some(p.range))).collect(),
        groups: group_counts(dispatch, local_size),
    }
}

// ---------------------------------------------------------------------------
// Concat and Slice

/// `concat_vulkan.cpp`: one dispatch per input, dispatched over the input,
/// writing it at an offset along the axis into the output. Along the packed
/// axis the inputs run at the smallest input elempack (`concat_pack4to1`
/// for a pack4 input into a pack1 output); the output shape (not the
/// inputs') is specialized when known, which also picks the local size.
fn concat(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
            let mut push = shape6(m).to_vec();
            push.extend(shape6(&top));
            push.push(offset);
            steps.push(step(
                shader,
                local_size,
                &spec_values,
                push,
                &[*p, out],
                dispatcher(m),
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
fn slice(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
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
            let mut push = shape6(&bottom).to_vec();
            push.extend(shape6(top));
            push.push(offset);
            steps.push(step(
                shader,
                local_size,
                &spec_values,
                push,
                &[input, *p],
                dispatcher(top),
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

// ---------------------------------------------------------------------------
// Crop

/// One crop configuration: the input, the offsets `[w, h, d, c]`, the
/// output shape, shapes specialized or not.
type CropConfig = (&'static [u32], [u32; 4], &'static [u32], bool);

/// `crop_vulkan.cpp` with explicit offsets and output sizes: one dispatch
/// over the output; `crop_pack4` when the input, the offset along the
/// packed axis and the output are all whole vec4s, `crop_pack4to1` for a
/// pack1 output of a pack4 input, `crop_pack1to4` for a pack4 output of a
/// pack1 input; both shapes specialized when known.
fn crop(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[CropConfig] = &[
        (&[13], [1, 0, 0, 0], &[8], true),
        (&[16], [4, 0, 0, 0], &[8], false),
        (&[16], [3, 0, 0, 0], &[5], true),
        (&[5, 7], [2, 1, 0, 0], &[3, 5], true),
        (&[6, 12], [0, 3, 0, 0], &[5, 6], false),
        (&[6, 5, 12], [2, 0, 0, 4], &[3, 5, 8], false),
        (&[4, 5, 9], [0, 2, 0, 1], &[4, 3, 8], true),
        (&[4, 3, 3, 5], [0, 1, 1, 1], &[4, 2, 2, 3], false),
        (&[4, 3, 2, 8], [1, 1, 0, 2], &[3, 2, 2, 5], true),
    ];
    let mut runs = Vec::new();
    for &(shape, offs, out_shape, known) in configs {
        let dims = shape.len();
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let bottom = blob(shape, mode);
        let top = blob(out_shape, mode);
        let ep = bottom.elempack;
        let off = offs[outer_slot(dims)];
        let offset_ep = match off {
            0 => ep,
            _ if off % 4 == 0 => 4,
            _ => 1,
        }
        .min(ep);
        let shader = match (ep, offset_ep, top.elempack) {
            (1, _, 1) => "crop.comp",
            (4, 4, 4) => "crop_pack4.comp",
            (1, _, 4) => "crop_pack1to4.comp",
            (4, _, 1) => "crop_pack4to1.comp",
            other => panic!("{other:?}: ncnn would convert the packing of the input"),
        };
        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bottom);
        let out = a.blob(&top);
        let mut spec_values = vec![SpecValue::Int(0)];
        spec_values.extend(spec_shape(&shape6(&bottom), known));
        spec_values.extend(spec_shape(&shape6(&top), known));
        let mut push = shape6(&bottom).to_vec();
        push.extend(shape6(&top));
        push.extend(offs);
        let steps = vec![step(
            shader,
            local(device, blob_local(&top, known)),
            &spec_values,
            push,
            &[input, out],
            dispatcher(&top),
        )];
        let expect = expect_copy(mode, out, &top, out_shape, |x, y, z, q| {
            f64::from(t.at(x + offs[0], y + offs[1], z + offs[2], q + offs[3]))
        });
        runs.push(finish_run(
            format!("crop {shape:?} at {offs:?} to {out_shape:?} spec {known}"),
            a,
            steps,
            vec![expect],
        ));
    }
    runs
}

// ---------------------------------------------------------------------------
// Padding

/// One padding configuration: the input, `[left, right, top, bottom,
/// front, behind]`, the types run, per-channel values or not, shapes
/// specialized or not.
type PadConfig = (&'static [u32], [u32; 6], &'static [i32], bool, bool);

/// `padding_vulkan.cpp`: one dispatch over the output. Up to three
/// dimensions `padding` / `padding_pack4` / `padding_pack1to4` /
/// `padding_pack4to1` by the packing of the offset along the packed axis
/// and of the output; in four dimensions (`front`/`behind` pad the depth)
/// `padding_3d` or `padding_3d_pack4`. Types 0 (a constant, or one value per
/// output channel), 1 (replicate) and 2 (reflect); shapes specialized when
/// known.
fn padding(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[PadConfig] = &[
        (&[5], [1, 1, 0, 0, 0, 0], &[0, 2], false, false),
        (&[6], [2, 0, 0, 0, 0, 0], &[0, 1, 2], false, true),
        (&[8], [4, 4, 0, 0, 0, 0], &[1, 2], false, false),
        (&[8], [4, 1, 0, 0, 0, 0], &[0, 2], false, true),
        (&[3, 3], [1, 1, 1, 1, 0, 0], &[1], false, true),
        (&[5, 4], [1, 2, 0, 3, 0, 0], &[1, 2], false, false),
        (&[5, 3], [2, 1, 1, 0, 0, 0], &[0, 2], false, true),
        (&[4, 8], [1, 1, 4, 4, 0, 0], &[0, 1, 2], false, false),
        (&[4, 3, 3], [1, 0, 1, 1, 1, 1], &[0, 2], true, false),
        (&[5, 4, 3], [1, 1, 2, 0, 1, 0], &[0, 1, 2], true, true),
        (&[5, 4, 8], [2, 1, 1, 2, 0, 0], &[0, 1], true, false),
        (&[4, 3, 8], [0, 0, 0, 0, 4, 4], &[2], false, true),
        (&[4, 3, 8], [1, 0, 0, 0, 0, 1], &[0, 1, 2], true, false),
        (&[4, 3, 2, 3], [1, 0, 1, 1, 1, 1], &[0, 1, 2], true, false),
        (&[3, 2, 3, 4], [1, 1, 0, 1, 1, 0], &[0, 1, 2], true, true),
    ];
    let mut runs = Vec::new();
    for &(shape, pads, types, per_channel, known) in configs {
        let dims = shape.len();
        let [left, right, top, bottom, front, behind] = pads;
        let (lo, hi) = match dims {
            1 => ([left, 0, 0, 0], [right, 0, 0, 0]),
            2 => ([left, top, 0, 0], [right, bottom, 0, 0]),
            3 => ([left, top, 0, front], [right, bottom, 0, behind]),
            _ => ([left, top, front, 0], [right, bottom, behind, 0]),
        };
        for &ty in types {
            let per_channel = per_channel && ty == 0;
            let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
            let in_whdc = t.whdc();
            let mut out_whdc = in_whdc;
            for i in 0..4 {
                out_whdc[i] += lo[i] + hi[i];
            }
            let out_shape = shape_of(out_whdc, dims);
            let bot = blob(shape, mode);
            let top_m = blob(&out_shape, mode);
            let ep = bot.elempack;
            let offset_ep = match dims {
                4 => ep,
                _ => match lo[outer_slot(dims)] {
                    0 => ep,
                    o if o % 4 == 0 => 4,
                    _ => 1,
                },
            }
            .min(ep);
            assert_eq!(
                offset_ep, ep,
                "{shape:?}: ncnn would convert the packing of the input"
            );
            let shader = match (dims, offset_ep, top_m.elempack) {
                (4, _, 1) => "padding_3d.comp",
                (4, _, 4) => "padding_3d_pack4.comp",
                (_, 1, 1) => "padding.comp",
                (_, 4, 4) => "padding_pack4.comp",
                (_, 1, 4) => "padding_pack1to4.comp",
                (_, 4, 1) => "padding_pack4to1.comp",
                other => unreachable!("{other:?}"),
            };
            let value = mode.round(rng.f32(-5.0, 5.0));
            let channel_values: Vec<f32> = (0..out_whdc[3])
                .map(|_| mode.round(rng.f32(-5.0, 5.0)))
                .collect();

            let mut a = Arena::new(device, mode);
            let input = a.tensor(&t, &bot);
            let out = a.blob(&top_m);
            // Without per-channel values ncnn binds its dummy buffer there.
            let pad_data = if per_channel {
                a.scalars_in(&channel_values)
            } else {
                a.scalars_in(&[0.0; 4])
            };
            let mut spec_values = vec![
                SpecValue::Int(ty),
                SpecValue::Float(value),
                SpecValue::Int(i32::from(per_channel)),
            ];
            let mut push;
            if dims == 4 {
                spec_values.extend(spec_shape(&shape6(&bot), known));
                spec_values.extend(spec_shape(&shape6(&top_m), known));
                push = shape6(&bot).to_vec();
                push.extend(shape6(&top_m));
            } else {
                spec_values.extend(spec_shape(&shape5(&bot), known));
                spec_values.extend(spec_shape(&shape5(&top_m), known));
                push = shape5(&bot).to_vec();
                push.extend(shape5(&top_m));
            }
            push.extend([left, top, front]);
            let steps = vec![step(
                shader,
                local(device, blob_local(&top_m, known)),
                &spec_values,
                push,
                &[input, out, pad_data],
                dispatcher(&top_m),
            )];
            let expect = expect_copy(mode, out, &top_m, &out_shape, |x, y, z, q| {
                let mut c = [x, y, z, q];
                let mut inside = true;
                for i in 0..4 {
                    let n = in_whdc[i] as i64;
                    let j = i64::from(c[i]) - i64::from(lo[i]);
                    let j = match ty {
                        0 => {
                            inside &= (0..n).contains(&j);
                            j
                        }
                        1 => j.clamp(0, n - 1),
                        _ => (n - 1) - ((j.abs()) - (n - 1)).abs(),
                    };
                    c[i] = j.clamp(0, n - 1) as u32;
                }
                if inside {
                    f64::from(t.at(c[0], c[1], c[2], c[3]))
                } else if per_channel {
                    f64::from(channel_values[q as usize])
                } else {
                    f64::from(value)
                }
            });
            runs.push(finish_run(
                format!(
                    "padding {shape:?} pads {pads:?} type {ty} per-channel {per_channel} spec {known}"
                ),
                a,
                steps,
                vec![expect],
            ));
        }
    }
    runs
}

// ---------------------------------------------------------------------------
// Interp

/// The source position of output `o` along an axis (`scale` input pixels
/// per output pixel), clamped to the `n` input pixels: bilinear's pair of
/// pixels and the second's weight.
fn linear_taps(o: u32, n: u32, scale: f32, align_corner: bool) -> (u32, f64) {
    let s = f64::from(scale);
    let f = if align_corner {
        f64::from(o) * s
    } else {
        (f64::from(o) + 0.5) * s - 0.5
    };
    let f = f.clamp(0.0, f64::from(n - 1));
    let i = (f.floor() as u32).min(n - 2);
    (i, f - f64::from(i))
}

/// Cubic convolution (`A = -0.75`) at output `o` along an axis of `n`
/// input pixels: the four taps (clamped to the edge pixels, which then
/// carry the weight of the taps past them), each weight, and the magnitude
/// of the terms the weight is computed from.
fn cubic_taps(o: u32, n: u32, scale: f32, align_corner: bool) -> [(u32, f64, f64); 4] {
    const A: f64 = -0.75;
    let s = f64::from(scale);
    let f = if align_corner {
        f64::from(o) * s
    } else {
        (f64::from(o) + 0.5) * s - 0.5
    };
    let sx = f.floor();
    let t = f - sx;
    let near = |x: f64| {
        (
            (A + 2.0) * x * x * x - (A + 3.0) * x * x + 1.0,
            (A + 2.0).abs() * x * x * x + (A + 3.0).abs() * x * x + 1.0,
        )
    };
    let x0 = t + 1.0;
    let w0 = A * x0 * x0 * x0 - 5.0 * A * x0 * x0 + 8.0 * A * x0 - 4.0 * A;
    let m0 = A.abs() * (x0 * x0 * x0 + 5.0 * x0 * x0 + 8.0 * x0 + 4.0);
    let (w1, m1) = near(t);
    let (w2, m2) = near(1.0 - t);
    let w3 = 1.0 - w0 - w1 - w2;
    let m3 = 1.0 + w0.abs() + w1.abs() + w2.abs() + m0 + m1 + m2;
    let mut taps = [(0u32, 0.0, 0.0); 4];
    for (k, (w, m)) in [(w0, m0), (w1, m1), (w2, m2), (w3, m3)]
        .into_iter()
        .enumerate()
    {
        let i = (sx as i64 - 1 + k as i64).clamp(0, i64::from(n) - 1) as u32;
        taps[k] = (i, w, m);
    }
    taps
}

/// One interp configuration: the input, the output width and height, the
/// resize type (1 nearest, 2 bilinear, 3 bicubic), align_corner, shapes
/// specialized or not.
type InterpConfig = (&'static [u32], [u32; 2], i32, bool, bool);

/// `interp_vulkan.cpp` with an explicit output size: `interp` /
/// `interp_pack4` (nearest and bilinear; a 1-D input becomes channels of a
/// constant image), or for bicubic the `interp_bicubic_coeffs` pass per
/// axis (weights and offsets into workspace blobs) then `interp_bicubic` /
/// `interp_bicubic_pack4`. A 2-D input resizes its width only. The scales
/// are exact in fp16, so the sample positions are the same in every mode.
fn interp(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[InterpConfig] = &[
        (&[4, 8], [8, 1], 1, false, true),
        (&[6, 3], [4, 1], 2, false, false),
        (&[5, 8], [9, 1], 2, true, true),
        (&[3, 4, 3], [6, 8], 1, false, true),
        (&[6, 4, 8], [4, 2], 1, false, false),
        (&[4, 3, 8], [8, 6], 2, false, true),
        (&[6, 4, 3], [4, 8], 2, false, false),
        (&[5, 3, 4], [9, 5], 2, true, true),
        (&[8], [3, 2], 1, false, true),
        (&[5], [2, 3], 2, false, false),
        (&[4, 4, 8], [8, 8], 3, false, true),
        (&[5, 4, 3], [9, 7], 3, true, false),
        (&[4, 5], [8, 1], 3, false, false),
        (&[6, 8], [3, 1], 3, false, true),
    ];
    let mut runs = Vec::new();
    for &(shape, [outw, outh], resize, align, known) in configs {
        let dims = shape.len();
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let bot = blob(shape, mode);
        let ep = bot.elempack;
        let (top_m, out_shape) = match dims {
            1 => {
                let s = vec![outw, outh, shape[0]];
                (packed_mat(&s, ep, mode), s)
            }
            2 => {
                let s = vec![outw, shape[1]];
                (packed_mat(&s, ep, mode), s)
            }
            _ => {
                let s = vec![outw, outh, shape[2]];
                (packed_mat(&s, ep, mode), s)
            }
        };
        let (w, h) = (bot.w, bot.h);
        let ratio = |a: u32, b: u32| {
            if align && resize != 1 {
                (a - 1) as f32 / (b - 1) as f32
            } else {
                a as f32 / b as f32
            }
        };
        let scale_x = ratio(w, outw);
        let scale_y = if dims == 2 { 1.0 } else { ratio(h, outh) };

        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bot);
        let out = a.blob(&top_m);
        let mut steps = Vec::new();
        let main_local = local(device, blob_local(&top_m, known));
        if resize != 3 {
            let shader = if ep == 4 {
                "interp_pack4.comp"
            } else {
                "interp.comp"
            };
            let mut spec_values = vec![SpecValue::Int(resize), SpecValue::Int(i32::from(align))];
            spec_values.extend(spec_shape(&shape5(&bot), known));
            spec_values.extend(spec_shape(&shape5(&top_m), known));
            let mut push = shape5(&bot).to_vec();
            push.extend(shape5(&top_m));
            push.extend([scale_x.to_bits(), scale_y.to_bits()]);
            steps.push(step(
                shader,
                main_local,
                &spec_values,
                push,
                &[input, out],
                dispatcher(&top_m),
            ));
        } else {
            // The weights are vec4s of the storage; the offsets are ints.
            let sb = u64::from(mode.scalar_bytes());
            let coeffs = |a: &mut Arena, n: u32, outn: u32, scale: f32| -> (Placed, Placed, Step) {
                let alpha = a.output(u64::from(outn) * 4 * sb);
                let ofs = a.output(u64::from(outn) * 4);
                let spec_values = [
                    SpecValue::Int(i32::from(align)),
                    SpecValue::Int(if known { n as i32 } else { 0 }),
                    SpecValue::Int(if known { outn as i32 } else { 0 }),
                ];
                let l = local(
                    device,
                    if known {
                        [outn.min(64), 1, 1]
                    } else {
                        [64, 1, 1]
                    },
                );
                let s = step(
                    "interp_bicubic_coeffs.comp",
                    l,
                    &spec_values,
                    vec![n, outn, scale.to_bits()],
                    &[alpha, ofs],
                    [outn, 1, 1],
                );
                (alpha, ofs, s)
            };
            let (alpha, xofs, sx) = coeffs(&mut a, w, outw, scale_x);
            steps.push(sx);
            let (beta, yofs) = if dims == 2 {
                (alpha, xofs)
            } else {
                let (beta, yofs, sy) = coeffs(&mut a, h, outh, scale_y);
                steps.push(sy);
                (beta, yofs)
            };
            let shader = if ep == 4 {
                "interp_bicubic_pack4.comp"
            } else {
                "interp_bicubic.comp"
            };
            let mut spec_values = spec_shape(&shape5(&bot), known);
            spec_values.extend(spec_shape(&shape5(&top_m), known));
            let mut push = shape5(&bot).to_vec();
            push.extend(shape5(&top_m));
            steps.push(step(
                shader,
                main_local,
                &spec_values,
                push,
                &[input, out, alpha, xofs, beta, yofs],
                dispatcher(&top_m),
            ));
        }
        let at = |x: u32, y: u32, q: u32| -> f64 {
            match dims {
                2 => f64::from(t.at(x, q, 0, 0)),
                _ => f64::from(t.at(x, y, 0, q)),
            }
        };
        let h_in = if dims == 3 { shape[1] } else { 1 };
        let expect = expect_tol(out, &top_m, &out_shape, |x, y, _, q| {
            // The row of a 2-D blob is its `h`; of a 3-D one the channel.
            let (y, q) = if dims == 2 { (0, y) } else { (y, q) };
            if dims == 1 {
                let v = f64::from(t.at(q, 0, 0, 0));
                return (v, mode.tol(v, v.abs()));
            }
            let w_in = shape[0];
            match resize {
                1 => {
                    let sx = ((f64::from(x) * f64::from(scale_x)).floor() as u32).min(w_in - 1);
                    let sy = ((f64::from(y) * f64::from(scale_y)).floor() as u32).min(h_in - 1);
                    let v = at(sx, sy, q);
                    (v, mode.tol(v, v.abs()))
                }
                2 => {
                    let (ix, fx) = linear_taps(x, w_in, scale_x, align);
                    let rows: Vec<(u32, f64)> = if dims == 2 {
                        vec![(0, 1.0)]
                    } else {
                        let (iy, fy) = linear_taps(y, h_in, scale_y, align);
                        vec![(iy, 1.0 - fy), (iy + 1, fy)]
                    };
                    let (mut v, mut mag) = (0.0, 0.0);
                    for (yy, wy) in rows {
                        for (xx, wx) in [(ix, 1.0 - fx), (ix + 1, fx)] {
                            let p = at(xx, yy, q);
                            v += wx * wy * p;
                            mag += (wx * wy * p).abs();
                        }
                    }
                    (v, mode.tol(v, mag))
                }
                _ => {
                    let cols = cubic_taps(x, w_in, scale_x, align);
                    let rows = if dims == 2 {
                        [(0, 1.0, 0.0), (0, 0.0, 0.0), (0, 0.0, 0.0), (0, 0.0, 0.0)]
                    } else {
                        cubic_taps(y, h_in, scale_y, align)
                    };
                    let (mut v, mut mag, mut stored) = (0.0, 0.0, 0.0);
                    for &(yy, wy, my) in &rows {
                        for &(xx, wx, mx) in &cols {
                            let p = at(xx, yy, q).abs();
                            v += wx * wy * at(xx, yy, q);
                            mag += p * (mx * wy.abs() + wx.abs() * my + 2.0 * (wx * wy).abs());
                            stored += p * (wx * wy).abs();
                        }
                    }
                    // The layer keeps each weight in the storage (its
                    // workspace blobs are `sfp`): one rounding of each.
                    (v, mode.tol(v, mag) + 2.0 * mode.storage_eps() * stored)
                }
            }
        });
        runs.push(finish_run(
            format!("interp {shape:?} to {outw}x{outh} type {resize} align {align} spec {known}"),
            a,
            steps,
            vec![expect],
        ));
    }
    runs
}

// ---------------------------------------------------------------------------
// PixelShuffle, Reshape, Permute, Flatten

/// `pixelshuffle_vulkan.cpp`: `pixelshuffle` / `pixelshuffle_pack4` over
/// the output, `pixelshuffle_pack4to1` over the input (with ncnn's 4 x 4 x 4
/// local size); modes 0 (channel-major, as PyTorch) and 1.
fn pixelshuffle(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[u32], u32, i32, bool)] = &[
        (&[3, 2, 16], 2, 0, true),
        (&[3, 2, 16], 2, 1, false),
        (&[2, 3, 12], 2, 0, false),
        (&[2, 3, 12], 2, 1, true),
        (&[2, 2, 9], 3, 0, true),
        (&[2, 1, 18], 3, 1, false),
    ];
    let mut runs = Vec::new();
    for &(shape, r, pmode, known) in configs {
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let outc = shape[2] / (r * r);
        let out_shape = [shape[0] * r, shape[1] * r, outc];
        let bot = blob(shape, mode);
        let top_m = blob(&out_shape, mode);
        let (shader, l, disp) = match (bot.elempack, top_m.elempack) {
            (1, 1) => (
                "pixelshuffle.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            (4, 4) => (
                "pixelshuffle_pack4.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            (4, 1) => ("pixelshuffle_pack4to1.comp", [0; 3], dispatcher(&bot)),
            other => unreachable!("{other:?}"),
        };
        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bot);
        let out = a.blob(&top_m);
        let mut spec_values = vec![SpecValue::Int(r as i32), SpecValue::Int(pmode)];
        spec_values.extend(spec_shape(&shape5(&bot), known));
        spec_values.extend(spec_shape(&shape5(&top_m), known));
        let mut push = shape5(&bot).to_vec();
        push.extend(shape5(&top_m));
        let steps = vec![step(
            shader,
            local(device, l),
            &spec_values,
            push,
            &[input, out],
            disp,
        )];
        let expect = expect_copy(mode, out, &top_m, &out_shape, |x, y, _, q| {
            let sub = (y % r) * r + x % r;
            let ch = if pmode == 0 {
                q * r * r + sub
            } else {
                sub * outc + q
            };
            f64::from(t.at(x / r, y / r, 0, ch))
        });
        runs.push(finish_run(
            format!("pixelshuffle {shape:?} r {r} mode {pmode} spec {known}"),
            a,
            steps,
            vec![expect],
        ));
    }
    runs
}

/// `reshape_vulkan.cpp` with an explicit output shape: `reshape` /
/// `reshape_pack4` / `reshape_pack1to4` over the output, `reshape_pack4to1`
/// over the input; the elements keep their order (`c`, `d`, `h`, `w`).
fn reshape(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[u32], &[u32], bool)] = &[
        (&[4, 3, 8], &[12, 8], true),
        (&[5, 3, 4], &[10, 6], true),
        (&[6, 5], &[3, 2, 5], false),
        (&[6, 2], &[3, 4], true),
        (&[2, 3, 2, 4], &[6, 2, 4], false),
        (&[24], &[3, 2, 2, 2], true),
        (&[30], &[5, 3, 2], false),
        (&[6, 4, 2], &[2, 3, 2, 4], false),
    ];
    let mut runs = Vec::new();
    for &(shape, out_shape, known) in configs {
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let bot = blob(shape, mode);
        let top_m = blob(out_shape, mode);
        let (shader, l, disp) = match (bot.elempack, top_m.elempack) {
            (1, 1) => (
                "reshape.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            (4, 4) => (
                "reshape_pack4.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            (1, 4) => (
                "reshape_pack1to4.comp",
                blob_local(&top_m, known),
                dispatcher(&top_m),
            ),
            _ => (
                "reshape_pack4to1.comp",
                blob_local(&bot, known),
                dispatcher(&bot),
            ),
        };
        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bot);
        let out = a.blob(&top_m);
        let mut spec_values = vec![SpecValue::Int(out_shape.len() as i32)];
        spec_values.extend(spec_shape(&shape6(&bot), known));
        spec_values.extend(spec_shape(&shape6(&top_m), known));
        let mut push = shape6(&bot).to_vec();
        push.extend(shape6(&top_m));
        let steps = vec![step(
            shader,
            local(device, l),
            &spec_values,
            push,
            &[input, out],
            disp,
        )];
        let o = Tensor {
            shape: out_shape.to_vec(),
            values: Vec::new(),
        };
        let [ow, oh, od, _] = o.whdc();
        let expect = expect_copy(mode, out, &top_m, out_shape, |x, y, z, q| {
            f64::from(t.values[(((q * od + z) * oh + y) * ow + x) as usize])
        });
        runs.push(finish_run(
            format!("reshape {shape:?} to {out_shape:?} spec {known}"),
            a,
            steps,
            vec![expect],
        ));
    }
    runs
}

/// ncnn's permute orders of 3-D blobs: the input axes the output's `w`,
/// `h`, `c` take.
const ORDERS3: [&str; 6] = ["whc", "hwc", "wch", "cwh", "hcw", "chw"];

/// ncnn's permute orders of 4-D blobs: the input axes the output's `w`,
/// `h`, `d`, `c` take.
const ORDERS4: [&str; 24] = [
    "whdc", "hwdc", "wdhc", "dwhc", "hdwc", "dhwc", "whcd", "hwcd", "wchd", "cwhd", "hcwd", "chwd",
    "wdch", "dwch", "wcdh", "cwdh", "dcwh", "cdwh", "hdcw", "dhcw", "hcdw", "chdw", "dchw", "cdhw",
];

/// `permute_vulkan.cpp`: `permute` / `permute_pack4` / `permute_pack1to4`
/// over the output, `permute_pack4to1` over the input, by the packing of
/// the input and of the permuted output.
fn permute(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[u32], &[i32], bool)] = &[
        (&[5, 8], &[1], true),
        (&[8, 3], &[1], false),
        (&[4, 3, 8], &[2, 3, 5], true),
        (&[4, 5, 3], &[1, 4], false),
        (&[2, 3, 4, 4], &[3, 14, 23], true),
        (&[2, 4, 3, 3], &[11, 13, 20], false),
    ];
    let mut runs = Vec::new();
    for &(shape, orders, known) in configs {
        let dims = shape.len();
        for &order in orders {
            let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
            let letters: &str = match dims {
                2 => ["wh", "hw"][order as usize],
                3 => ORDERS3[order as usize],
                _ => ORDERS4[order as usize],
            };
            // The output's axes, as slots of `[w, h, d, c]`.
            let positions: &[usize] = match dims {
                2 => &[0, 1],
                3 => &[0, 1, 3],
                _ => &[0, 1, 2, 3],
            };
            let slot_of = |l: char| match l {
                'w' => 0,
                'h' => 1,
                'd' => 2,
                _ => 3,
            };
            let in_whdc = t.whdc();
            let mut out_whdc = [1; 4];
            for (&p, l) in positions.iter().zip(letters.chars()) {
                out_whdc[p] = in_whdc[slot_of(l)];
            }
            let out_shape = shape_of(out_whdc, dims);
            let bot = blob(shape, mode);
            let top_m = blob(&out_shape, mode);
            let (shader, l, disp) = match (bot.elempack, top_m.elempack) {
                (1, 1) => (
                    "permute.comp",
                    blob_local(&top_m, known),
                    dispatcher(&top_m),
                ),
                (4, 4) => (
                    "permute_pack4.comp",
                    blob_local(&top_m, known),
                    dispatcher(&top_m),
                ),
                (1, 4) => (
                    "permute_pack1to4.comp",
                    blob_local(&top_m, known),
                    dispatcher(&top_m),
                ),
                _ => (
                    "permute_pack4to1.comp",
                    blob_local(&bot, known),
                    dispatcher(&bot),
                ),
            };
            let mut a = Arena::new(device, mode);
            let input = a.tensor(&t, &bot);
            let out = a.blob(&top_m);
            let mut spec_values = vec![SpecValue::Int(order), SpecValue::Int(0)];
            spec_values.extend(spec_shape(&shape6(&bot), known));
            spec_values.extend(spec_shape(&shape6(&top_m), known));
            let mut push = shape6(&bot).to_vec();
            push.extend(shape6(&top_m));
            let steps = vec![step(
                shader,
                local(device, l),
                &spec_values,
                push,
                &[input, out],
                disp,
            )];
            let expect = expect_copy(mode, out, &top_m, &out_shape, |x, y, z, q| {
                let o = [x, y, z, q];
                let mut c = [0; 4];
                for (&p, l) in positions.iter().zip(letters.chars()) {
                    c[slot_of(l)] = o[p];
                }
                f64::from(t.at(c[0], c[1], c[2], c[3]))
            });
            runs.push(finish_run(
                format!("permute {shape:?} order {order} ({letters}) spec {known}"),
                a,
                steps,
                vec![expect],
            ));
        }
    }
    runs
}

/// `flatten_vulkan.cpp`: `flatten` / `flatten_pack4` / `flatten_pack1to4`
/// over the 1-D output, a 4-D input seen as 3-D (`h * d` rows); a pack1 2-D
/// input is flattened without a dispatch and is not run here.
fn flatten(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let configs: &[(&[u32], bool)] = &[
        (&[3, 2, 8], true),
        (&[3, 2, 5], false),
        (&[2, 2, 3], true),
        (&[5, 8], false),
        (&[2, 3, 2, 4], true),
        (&[2, 2, 2, 3], false),
    ];
    let mut runs = Vec::new();
    for &(shape, known) in configs {
        let t = Tensor::random(shape, mode, rng, -10.0, 10.0);
        let total: u32 = shape.iter().product();
        let out_shape = [total];
        let bot = blob(shape, mode);
        let top_m = blob(&out_shape, mode);
        let shader = match (bot.elempack, top_m.elempack) {
            (1, 1) => "flatten.comp",
            (4, 4) => "flatten_pack4.comp",
            (1, 4) => "flatten_pack1to4.comp",
            other => unreachable!("{other:?}"),
        };
        let flat = |m: &NcnnMat| [m.dims.min(3), m.w, m.h * m.d, m.c, m.cstep() as u32];
        let mut a = Arena::new(device, mode);
        let input = a.tensor(&t, &bot);
        let out = a.blob(&top_m);
        let mut spec_values = spec_shape(&flat(&bot), known);
        spec_values.extend(spec_shape(&flat(&top_m), known));
        let mut push = flat(&bot).to_vec();
        push.extend(flat(&top_m));
        let l = if known {
            [top_m.w.min(64), 1, 1]
        } else {
            [64, 1, 1]
        };
        let steps = vec![step(
            shader,
            local(device, l),
            &spec_values,
            push,
            &[input, out],
            dispatcher(&top_m),
        )];
        let expect = expect_copy(mode, out, &top_m, &out_shape, |x, _, _, _| {
            f64::from(t.values[x as usize])
        });
        runs.push(finish_run(
            format!("flatten {shape:?} spec {known}"),
            a,
            steps,
            vec![expect],
        ));
    }
    runs
}

// ---------------------------------------------------------------------------

/// Concat along every axis of 1-D to 4-D blobs.
#[test]
fn ncnn_concat() {
    suite(&[("concat", concat)]);
}

/// Slice along every axis of 1-D to 4-D blobs.
#[test]
fn ncnn_slice() {
    suite(&[("slice", slice)]);
}

/// Crop of 1-D to 4-D blobs.
#[test]
fn ncnn_crop() {
    suite(&[("crop", crop)]);
}

/// Padding: constant, replicate, reflect.
#[test]
fn ncnn_padding() {
    suite(&[("padding", padding)]);
}

/// Interp: nearest, bilinear, bicubic.
#[test]
fn ncnn_interp() {
    suite(&[("interp", interp)]);
}

/// PixelShuffle in both modes.
#[test]
fn ncnn_pixelshuffle() {
    suite(&[("pixelshuffle", pixelshuffle)]);
}

/// Reshape between 1-D to 4-D shapes.
#[test]
fn ncnn_reshape() {
    suite(&[("reshape", reshape)]);
}

/// Permute of 2-D to 4-D blobs.
#[test]
fn ncnn_permute() {
    suite(&[("permute", permute)]);
}

/// Flatten of 2-D to 4-D blobs.
#[test]
fn ncnn_flatten() {
    suite(&[("flatten", flatten)]);
}
