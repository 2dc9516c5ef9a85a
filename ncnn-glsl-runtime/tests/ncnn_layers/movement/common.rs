//! What the movement layers share: blobs sub-allocated in one buffer as
//! ncnn's allocators place them, their checks, ncnn's packing and shape
//! constants, local sizes and steps.

use std::ops::Range;

use ncnn_glsl_runtime::{optimal_local_size, BufferRange, NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, pack, packed_mat, spec, Data, Device, Expect, Mode, Run, Step, Tensor,
};

/// A blob placed in an [`Arena`]: the range it is bound at and its first
/// scalar.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placed {
    range: BufferRange,
    first: usize,
}

/// One buffer that blobs are sub-allocated from, as ncnn's blob and
/// workspace allocators place them: each blob at an offset aligned to the
/// device's `minStorageBufferOffsetAlignment` (and 16 bytes), at least 16
/// bytes after the one before and before the buffer's end, its size rounded
/// up to whole words (ncnn's `alignSize(total * elemsize, 4)`). Bytes
/// outside the blobs hold NaN.
pub(crate) struct Arena {
    scalar_bytes: u64,
    align: u64,
    scalars: Vec<f32>,
    outputs: Vec<Range<u64>>,
}

impl Arena {
    /// An empty buffer for `mode`'s scalars.
    pub(crate) fn new(device: &Device, mode: &Mode) -> Arena {
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
    pub(crate) fn tensor(&mut self, t: &Tensor, m: &NcnnMat) -> Placed {
        self.scalars_in(&pack(t, m))
    }

    /// An input of `values` scalars.
    pub(crate) fn scalars_in(&mut self, values: &[f32]) -> Placed {
        let p = self.place(values.len() as u64 * self.scalar_bytes);
        self.scalars[p.first..p.first + values.len()].copy_from_slice(values);
        p
    }

    /// An output (or workspace) of `bytes`, which the run may write.
    pub(crate) fn output(&mut self, bytes: u64) -> Placed {
        let p = self.place(bytes);
        self.outputs
            .push(p.range.offset..p.range.offset + p.range.size);
        p
    }

    /// An output blob `m`.
    pub(crate) fn blob(&mut self, m: &NcnnMat) -> Placed {
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
pub(crate) fn placed(mut e: Expect, p: Placed) -> Expect {
    for point in &mut e.points {
        point.0 += p.first;
    }
    e
}

/// Checks that output blob `m` (of logical `shape`, placed at `p`) holds
/// copies of the values `want` names.
pub(crate) fn expect_copy(
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

/// The run of `steps` on the arena `a`.
pub(crate) fn finish_run(name: String, a: Arena, steps: Vec<Step>, expect: Vec<Expect>) -> Run {
    let (data, untouched) = a.finish();
    Run {
        name,
        buffers: vec![data],
        steps,
        expect,
        untouched,
    }
}

/// The elempack ncnn gives a blob of `shape`: 4 when its outermost axis is
/// a multiple of 4.
pub(crate) fn natural(shape: &[u32]) -> u32 {
    if shape[shape.len() - 1] % 4 == 0 {
        4
    } else {
        1
    }
}

/// A blob of `shape` packed as ncnn packs it.
pub(crate) fn blob(shape: &[u32], mode: &Mode) -> NcnnMat {
    packed_mat(shape, natural(shape), mode)
}

/// The slot in `[w, h, d, c]` of ncnn's axis `axis` (negative counts from
/// the end) of a `dims`-dimensional blob.
pub(crate) fn axis_slot(dims: usize, axis: i32) -> usize {
    let a = if axis < 0 { dims as i32 + axis } else { axis } as usize;
    match dims {
        1 => 0,
        2 => [1, 0][a],
        3 => [3, 1, 0][a],
        _ => [3, 2, 1, 0][a],
    }
}

/// The slot in `[w, h, d, c]` of the axis ncnn packs.
pub(crate) fn outer_slot(dims: usize) -> usize {
    match dims {
        1 => 0,
        2 => 1,
        _ => 3,
    }
}

/// The shape of `dims` dimensions with extents `whdc`.
pub(crate) fn shape_of(whdc: [u32; 4], dims: usize) -> Vec<u32> {
    let [w, h, d, c] = whdc;
    match dims {
        1 => vec![w],
        2 => vec![w, h],
        3 => vec![w, h, c],
        _ => vec![w, h, d, c],
    }
}

/// `dims, w, h, d, c, cstep` of a blob (ncnn's shape constants).
pub(crate) fn shape6(m: &NcnnMat) -> [u32; 6] {
    [m.dims, m.w, m.h, m.d, m.c, m.cstep() as u32]
}

/// `dims, w, h, c, cstep` of a blob (the shaders without depth).
pub(crate) fn shape5(m: &NcnnMat) -> [u32; 5] {
    [m.dims, m.w, m.h, m.c, m.cstep() as u32]
}

/// Shape words as `int` specialization constants, or zeros where ncnn
/// does not know the shape at `create_pipeline`.
pub(crate) fn spec_shape(words: &[u32], known: bool) -> Vec<SpecValue> {
    words
        .iter()
        .map(|&v| SpecValue::Int(if known { v as i32 } else { 0 }))
        .collect()
}

/// ncnn's dispatcher for a blob: `w, h * d, c`.
pub(crate) fn dispatcher(m: &NcnnMat) -> [u32; 3] {
    [m.w, m.h * m.d, m.c]
}

/// `set_optimal_local_size_xyz(size)` on the device.
pub(crate) fn local(device: &Device, size: [u32; 3]) -> [u32; 3] {
    optimal_local_size(size, &device.limits)
}

/// The local size most layers guess from a known output blob (64 wide in
/// one dimension, 8 x 8 in two, 4 x 4 x 4 in three and four, each capped
/// by the blob's extent); zeros (ncnn's 4 x 4 x 4) when unknown.
pub(crate) fn blob_local(m: &NcnnMat, known: bool) -> [u32; 3] {
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

/// One step of `shader`, binding the blobs `bind` of buffer 0 at their
/// ranges (the harness's [`Step::new`] binds whole buffers).
pub(crate) fn step(
    shader: &'static str,
    local_size: [u32; 3],
    spec_values: &[SpecValue],
    push: Vec<u32>,
    bind: &[Placed],
    dispatch: [u32; 3],
) -> Step {
    Step {
        bind: bind.iter().map(|p| (0, Some(p.range))).collect(),
        ..Step::new(shader, local_size, spec(spec_values), push, &[], dispatch)
    }
}

/// The constants of a layer whose shaders take the shapes of an input and
/// an output (`bot` and `top`, as [`shape5`] or [`shape6`] words):
/// specialization `head` then both shapes (zeros unless `known`), push
/// both shapes then `tail`.
pub(crate) fn shape_consts(
    head: Vec<SpecValue>,
    bot: &[u32],
    top: &[u32],
    known: bool,
    tail: &[u32],
) -> (Vec<SpecValue>, Vec<u32>) {
    let mut spec_values = head;
    spec_values.extend(spec_shape(bot, known));
    spec_values.extend(spec_shape(top, known));
    let push = [bot, top, tail].concat();
    (spec_values, push)
}

/// The shader, local-size guess and dispatcher of a layer with a shader
/// per packing, `shaders` being its pack1, pack4, pack1to4 and pack4to1
/// ones: the last runs over the input `bot`, the others over the output
/// `top`.
pub(crate) fn by_packing(
    shaders: [&'static str; 4],
    bot: &NcnnMat,
    top: &NcnnMat,
    known: bool,
) -> (&'static str, [u32; 3], [u32; 3]) {
    let [pack1, pack4, pack1to4, pack4to1] = shaders;
    let shader = match (bot.elempack, top.elempack) {
        (1, 1) => pack1,
        (4, 4) => pack4,
        (1, 4) => pack1to4,
        _ => return (pack4to1, blob_local(bot, known), dispatcher(bot)),
    };
    (shader, blob_local(top, known), dispatcher(top))
}

/// One dispatch's choices: the shader, its local-size guess (before
/// [`local`]), ncnn's dispatcher shape and its constants.
pub(crate) struct Kernel {
    /// ncnn's shader file.
    pub(crate) shader: &'static str,
    /// The local size the layer asks for.
    pub(crate) local: [u32; 3],
    /// The dispatcher shape.
    pub(crate) dispatch: [u32; 3],
    /// Specialization constants, in order.
    pub(crate) spec: Vec<SpecValue>,
    /// Push-constant words.
    pub(crate) push: Vec<u32>,
}

impl Kernel {
    /// The kernel of a shader choice `(shader, local, dispatch)` (as
    /// [`by_packing`] gives it) and constants `(spec, push)` (as
    /// [`shape_consts`] gives them).
    pub(crate) fn new(
        (shader, local, dispatch): (&'static str, [u32; 3], [u32; 3]),
        (spec, push): (Vec<SpecValue>, Vec<u32>),
    ) -> Kernel {
        Kernel {
            shader,
            local,
            dispatch,
            spec,
            push,
        }
    }
}

/// The run of a layer that copies the tensor `t` (in blob `bot`) into blob
/// `top` (of logical `out_shape`) in one dispatch `k` bound to both: the
/// output must hold the input values `want` names.
pub(crate) fn copy_run(
    device: &Device,
    mode: &Mode,
    name: String,
    (t, bot): (&Tensor, &NcnnMat),
    (top, out_shape): (&NcnnMat, &[u32]),
    k: Kernel,
    want: impl Fn(u32, u32, u32, u32) -> f64,
) -> Run {
    let mut a = Arena::new(device, mode);
    let input = a.tensor(t, bot);
    let out = a.blob(top);
    let steps = vec![step(
        k.shader,
        local(device, k.local),
        &k.spec,
        k.push,
        &[input, out],
        k.dispatch,
    )];
    let expect = expect_copy(mode, out, top, out_shape, want);
    finish_run(name, a, steps, vec![expect])
}
