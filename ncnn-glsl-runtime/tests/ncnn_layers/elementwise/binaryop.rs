//! BinaryOp: same shape, scalar, and the three broadcast shaders, the
//! reversed operations included.

use ncnn_glsl_runtime::{FloatStorage, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob_tol, spec, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{draw, ints, run_of, tensor, tol, words, Blob};
use super::error_bounds::{Prec, E};

/// BinaryOp's operations `0..=18` as the shaders number them.
const BINARY_OPS: [&str; 19] = [
    "add",
    "sub",
    "mul",
    "div",
    "max",
    "min",
    "pow",
    "rsub",
    "rdiv",
    "rpow",
    "atan2",
    "ratan2",
    "fmod",
    "rfmod",
    "logaddexp",
    "floordiv",
    "rfloordiv",
    "remainder",
    "rremainder",
];

/// The operation with its operands swapped (`get_reverse_op_type`).
fn reverse_op(op: i32) -> i32 {
    match op {
        1 => 7,
        7 => 1,
        3 => 8,
        8 => 3,
        6 => 9,
        9 => 6,
        10 => 11,
        11 => 10,
        12 => 13,
        13 => 12,
        15 => 16,
        16 => 15,
        17 => 18,
        18 => 17,
        o => o,
    }
}

/// Input ranges `(lo, hi, min |x|)` of `a` and `b` for operation `op`.
fn binary_ranges(op: i32) -> ((f32, f32, f32), (f32, f32, f32)) {
    let any = (-10.0, 10.0, 0.0);
    let nonzero = (-10.0, 10.0, 0.5);
    let base = (0.5, 4.0, 0.0);
    let exponent = (-3.0, 3.0, 0.0);
    let angle = (-10.0, 10.0, 0.1);
    let divisor = (-4.0, 4.0, 1.0);
    match op {
        3 => (any, nonzero),
        8 => (nonzero, any),
        6 => (base, exponent),
        9 => (exponent, base),
        10 | 11 => (angle, angle),
        12 | 15 | 17 => (any, divisor),
        13 | 16 | 18 => (divisor, any),
        _ => (any, any),
    }
}

/// Whether `a op b` is away from the operation's jumps: `trunc`, `floor`
/// and `roundEven` of the quotient change value at integers (halves for
/// `roundEven`), where the quotient's rounding decides the result.
fn binary_pair_ok(op: i32, a: f64, b: f64) -> bool {
    let q = match op {
        12 | 15 | 17 => a / b,
        13 | 16 | 18 => b / a,
        _ => return true,
    };
    let jump = if op >= 17 { q.floor() + 0.5 } else { q.round() };
    (q - jump).abs() >= 0.05
}

/// `op(a, b)` as the binary shaders compute it: the definition's value and
/// the error bound of the shader's expression.
fn binary_ref(p: Prec, op: i32, a: f64, b: f64) -> E {
    let (va, vb) = (E::x(a), E::x(b));
    let with = |want: f64, e: E| E { v: want, e: e.e };
    // `x - f(x / y) * y` with `f(x / y)` exact (away from its jumps).
    let rem = |x: E, y: E, f: fn(f64) -> f64| {
        let k = f(x.v / y.v);
        x.sub(E::x(k).mul(y))
    };
    match op {
        0 => va.add(vb),
        1 => va.sub(vb),
        2 => va.mul(vb),
        3 => va.div(vb),
        4 => E::x(a.max(b)),
        5 => E::x(a.min(b)),
        6 => p.pow(va, vb),
        7 => vb.sub(va),
        8 => vb.div(va),
        9 => p.pow(vb, va),
        10 => p.atan2(va, vb),
        11 => p.atan2(vb, va),
        12 => rem(va, vb, f64::trunc),
        13 => rem(vb, va, f64::trunc),
        14 => {
            let (hi, lo) = (a.max(b), a.min(b));
            let r = E::x(hi).add(p.log(E::x(1.0).add(p.exp(E::x(lo).sub(E::x(hi))))));
            with(hi + (lo - hi).exp().ln_1p(), r)
        }
        15 => E::x((a / b).floor()),
        16 => E::x((b / a).floor()),
        17 => rem(va, vb, f64::round_ties_even),
        18 => rem(vb, va, f64::round_ties_even),
        _ => unreachable!("binaryop {op}"),
    }
}

/// The shapes BinaryOp's same-shape runs cycle through: shape, elempack,
/// specialized.
const BINARY_SHAPES: [(&[u32], u32, bool); 6] = [
    (&[5, 7, 8], 4, true),
    (&[5, 7, 3], 1, false),
    (&[3, 5, 2, 4], 4, true),
    (&[13], 1, false),
    (&[6, 12], 4, false),
    (&[7, 5], 1, true),
];

/// `binaryop_vulkan.cpp`'s `forward` for two blobs of one shape and
/// packing: `binaryop.comp` or `binaryop_pack4.comp`, `op_type`,
/// `with_scalar` 0 and the three shapes (dims, w, h * d, c, cstep)
/// specialized where known, the shapes pushed, local size from the output
/// shape, dispatcher the output.
fn binary_same(
    device: &Device,
    mode: &Mode,
    rng: &mut Rng,
    op: i32,
    (shape, elempack, known): (&[u32], u32, bool),
) -> Run {
    let (ra, rb) = binary_ranges(op);
    let n: u32 = shape.iter().product();
    let (mut av, mut bv) = (Vec::new(), Vec::new());
    while av.len() < n as usize {
        let a = mode.round(draw(rng, ra.0, ra.1, ra.2));
        let b = mode.round(draw(rng, rb.0, rb.1, rb.2));
        if binary_pair_ok(op, f64::from(a), f64::from(b)) {
            av.push(a);
            bv.push(b);
        }
    }
    let ta = Tensor {
        shape: shape.to_vec(),
        values: av,
    };
    let tb = Tensor {
        shape: shape.to_vec(),
        values: bv,
    };
    let blob = Blob::sfp(shape, elempack, mode);
    let s = blob.shape5();
    let st = same_shape_step(
        device,
        &blob,
        known,
        (op, 0, 0.0),
        &[s, s, s].concat(),
        &[0, 1, 2],
    );
    let p = Prec::of(mode);
    let expect = expect_blob_tol(2, &blob.m, &blob.shape, |x, y, z, q| {
        let r = binary_ref(
            p,
            op,
            f64::from(ta.at(x, y, z, q)),
            f64::from(tb.at(x, y, z, q)),
        );
        (r.v, tol(mode, r.v, r.e))
    });
    run_of(
        format!(
            "binaryop {} {shape:?} pack{elempack} spec {known}",
            BINARY_OPS[op as usize]
        ),
        vec![
            Data::Floats(blob.data(&ta)),
            Data::Floats(blob.data(&tb)),
            Data::Poison(blob.bytes()),
        ],
        vec![st],
        expect,
    )
}

/// The dispatch of the same-shape shader (`binaryop[_pack4].comp`) over
/// `blob`: `op`, `with_scalar` and `b` then the three shapes (all the
/// blob's) specialized, `push` pushed, buffers `bind` bound; local size
/// from the blob's shape.
fn same_shape_step(
    device: &Device,
    blob: &Blob,
    known: bool,
    (op, with_scalar, b): (i32, i32, f32),
    push: &[i32],
    bind: &[usize],
) -> Step {
    let s = blob.shape5();
    let mut sp = vec![
        SpecValue::Int(op),
        SpecValue::Int(with_scalar),
        SpecValue::Float(b),
    ];
    sp.extend(ints(&[s, s, s].concat(), known));
    let shader = if blob.m.elempack == 4 {
        "binaryop_pack4.comp"
    } else {
        "binaryop.comp"
    };
    let local = blob.shape_local(device, known);
    Step::new(
        shader,
        local,
        spec(&sp),
        words(push),
        bind,
        blob.dispatcher(),
    )
}

/// `binaryop_vulkan.cpp`'s `forward_inplace` (`with_scalar`): the same-shape
/// shader with `with_scalar` 1 and `b` specialized, the blob bound to all
/// three bindings, only the output shape pushed (the rest 0).
fn binary_scalar(
    device: &Device,
    mode: &Mode,
    rng: &mut Rng,
    op: i32,
    b: f32,
    (shape, elempack, known): (&[u32], u32, bool),
) -> Run {
    let (ra, _) = binary_ranges(op);
    let ta = tensor(shape, mode, rng, |r| draw(r, ra.0, ra.1, ra.2));
    let blob = Blob::sfp(shape, elempack, mode);
    let mut push = vec![0i32; 10];
    push.extend(blob.shape5());
    let st = same_shape_step(device, &blob, known, (op, 1, b), &push, &[0, 0, 0]);
    let p = Prec::of(mode);
    let bb = if mode.fp16_arithmetic() {
        f64::from(FloatStorage::F16.round(b))
    } else {
        f64::from(b)
    };
    let expect = expect_blob_tol(0, &blob.m, &blob.shape, |x, y, z, q| {
        let r = binary_ref(p, op, f64::from(ta.at(x, y, z, q)), bb);
        (r.v, tol(mode, r.v, r.e))
    });
    run_of(
        format!(
            "binaryop {} scalar {shape:?} pack{elempack} spec {known} b {b}",
            BINARY_OPS[op as usize]
        ),
        vec![Data::Floats(blob.data(&ta))],
        vec![st],
        expect,
    )
}

/// The coordinates of an output element of `dims` dimensions, innermost
/// first.
fn coords(dims: usize, x: u32, y: u32, z: u32, q: u32) -> Vec<u32> {
    match dims {
        1 => vec![x],
        2 => vec![x, y],
        3 => vec![x, y, q],
        _ => vec![x, y, z, q],
    }
}

/// The element of `t` an output element at `out` (its coordinates) reads
/// under ncnn's broadcasting: a lower-rank operand lines its axes up with
/// the output's outermost ones, a one-dimensional operand whose length is
/// not the output's outermost extent lines up with `w` (`inner`), and an
/// extent of 1 repeats.
fn broadcast_at(t: &Tensor, out: &[u32], inner: bool) -> f32 {
    let k = t.shape.len();
    let own: Vec<u32> = if inner {
        vec![out[0]]
    } else {
        out[out.len() - k..].to_vec()
    };
    let c: Vec<u32> = own
        .iter()
        .zip(&t.shape)
        .map(|(&i, &n)| i.min(n - 1))
        .collect();
    match *c.as_slice() {
        [x] => t.at(x, 0, 0, 0),
        [x, y] => t.at(x, y, 0, 0),
        [x, y, q] => t.at(x, y, 0, q),
        [x, y, z, q] => t.at(x, y, z, q),
        _ => unreachable!(),
    }
}

/// A broadcasting BinaryOp configuration: operation, `A` shape and
/// packing, `B` shape and packing, specialized.
type Broadcast = (i32, &'static [u32], u32, &'static [u32], u32, bool);

/// The broadcast configurations: explicit broadcasting in one to four
/// dimensions (`binaryop_broadcast.comp`, `_pack4`, `_pack1to4`), the
/// implicit ones (a lower-rank `B`: ncnn's types 8 to 13), a lower-rank
/// `A` (swapped, the reversed operation's pipeline), and a one-dimensional
/// `B` that lines up with `w` (read as pack1).
const BROADCASTS: [Broadcast; 15] = [
    (1, &[5, 3, 8], 4, &[1, 3, 8], 4, true),
    (3, &[4, 5, 3], 1, &[4, 1, 3], 1, false),
    (2, &[6, 2, 8], 4, &[6, 2, 1], 1, true),
    (6, &[6, 2, 8], 4, &[1, 2, 1], 1, false),
    (1, &[8], 4, &[3, 4, 8], 4, true),
    (8, &[6], 1, &[4, 2, 6], 1, false),
    (1, &[6, 2, 1], 1, &[6, 2, 8], 4, true),
    (0, &[5, 8], 4, &[8], 4, false),
    (4, &[4, 6, 8], 4, &[6, 8], 4, true),
    (1, &[3, 2, 2, 8], 4, &[2, 2, 8], 4, false),
    (7, &[3, 2, 2, 8], 4, &[2, 8], 4, true),
    (2, &[3, 2, 2, 8], 4, &[8], 4, false),
    (5, &[4, 3, 8], 4, &[4], 4, true),
    (0, &[3, 2, 2, 3], 1, &[1, 2, 1, 3], 1, true),
    (3, &[7], 1, &[1], 1, false),
];

/// `binaryop_vulkan.cpp`'s `forward` for blobs of different shapes, as it
/// picks the operand order, the reversed operation, the conversion of a
/// one-dimensional `B` and the shader; specialized as `create_pipeline`
/// does from the same shapes (the converted `B`'s `cstep` stays the
/// unconverted one there, which the shader never reads for it).
fn binary_broadcast(
    device: &Device,
    mode: &Mode,
    rng: &mut Rng,
    (op, ashape, apack, bshape, bpack, known): Broadcast,
) -> Run {
    let (ra, rb) = binary_ranges(op);
    let ta = tensor(ashape, mode, rng, |r| draw(r, ra.0, ra.1, ra.2));
    let tb = tensor(bshape, mode, rng, |r| draw(r, rb.0, rb.1, rb.2));
    let a = Blob::sfp(ashape, apack, mode);
    let b = Blob::sfp(bshape, bpack, mode);
    // The output: like the higher-rank operand, else the larger extents.
    let out_shape: Vec<u32> = if ashape.len() != bshape.len() {
        if ashape.len() > bshape.len() {
            ashape.to_vec()
        } else {
            bshape.to_vec()
        }
    } else {
        ashape.iter().zip(bshape).map(|(&x, &y)| x.max(y)).collect()
    };
    let out_pack = match ashape.len().cmp(&bshape.len()) {
        std::cmp::Ordering::Greater => apack,
        std::cmp::Ordering::Less => bpack,
        std::cmp::Ordering::Equal => apack.max(bpack),
    };
    let out = Blob::sfp(&out_shape, out_pack, mode);
    let size = |m: &Blob| m.m.w * m.m.h * m.m.d * m.m.c * m.m.elempack;
    let swap = a.m.dims < b.m.dims
        || (a.m.dims == b.m.dims && a.m.elempack < b.m.elempack)
        || (a.m.elempack == b.m.elempack && size(&a) < size(&b));
    let (x, y, xi, yi) = if swap { (&b, &a, 1, 0) } else { (&a, &b, 0, 1) };
    let shader_op = if swap { reverse_op(op) } else { op };
    let outer = match x.m.dims {
        2 => x.m.h * x.m.elempack,
        3 | 4 => x.m.c * x.m.elempack,
        _ => 0,
    };
    let convert = y.m.dims == 1 && x.m.dims >= 2 && y.m.w * y.m.elempack != outer;
    let buffers = vec![
        Data::Floats(a.data(&ta)),
        Data::Floats(b.data(&tb)),
        Data::Poison(out.bytes()),
    ];
    // The operand bound second, as the shader sees it. A converted one is
    // `convert_packing` to pack1 of a one-dimensional blob with its own cast:
    // no dispatch, the same buffer read as `w * elempack` scalars (`cstep`
    // too), its dims set to the output's.
    let (mut y2, mut y2_spec) = (y.shape6(), y.shape6());
    if convert {
        let w = (y.m.w * y.m.elempack) as i32;
        let dims = out.m.dims as i32;
        y2 = [dims, w, 1, 1, 1, (y.cstep() * y.m.elempack) as i32];
        y2_spec = [dims, w, 1, 1, 1, y.cstep() as i32];
    }
    let y2_pack = if convert { 1 } else { y.m.elempack };
    let shader = match (y2_pack, out.m.elempack) {
        (1, 1) => "binaryop_broadcast.comp",
        (4, 4) => "binaryop_broadcast_pack4.comp",
        _ => "binaryop_broadcast_pack1to4.comp",
    };
    let push: Vec<i32> = [x.shape6(), y2, out.shape6()].concat();
    let spec_shapes: Vec<i32> = [x.shape6(), y2_spec, out.shape6()].concat();
    let mut sp = vec![SpecValue::Int(shader_op)];
    sp.extend(ints(&spec_shapes, known));
    let local = out.shape_local(device, known);
    let steps = vec![Step::new(
        shader,
        local,
        spec(&sp),
        words(&push),
        &[xi, yi, 2],
        out.dispatcher(),
    )];
    let p = Prec::of(mode);
    let dims = out_shape.len();
    let expect = expect_blob_tol(2, &out.m, &out.shape, |x_, y_, z_, q_| {
        let c = coords(dims, x_, y_, z_, q_);
        let inner_a = convert && swap;
        let inner_b = convert && !swap;
        let va = broadcast_at(&ta, &c, inner_a);
        let vb = broadcast_at(&tb, &c, inner_b);
        let r = binary_ref(p, op, f64::from(va), f64::from(vb));
        (r.v, tol(mode, r.v, r.e))
    });
    run_of(
        format!(
            "binaryop {} broadcast A {ashape:?} pack{apack} B {bshape:?} pack{bpack} spec {known}",
            BINARY_OPS[op as usize]
        ),
        buffers,
        steps,
        expect,
    )
}

/// BinaryOp: every operation on same-shape blobs (shapes cycling through
/// [`BINARY_SHAPES`]), the scalar form for eight operations, and every
/// [`BROADCASTS`] configuration.
pub(crate) fn binaryop(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for op in 0..BINARY_OPS.len() as i32 {
        let cfg = BINARY_SHAPES[op as usize % BINARY_SHAPES.len()];
        runs.push(binary_same(device, mode, rng, op, cfg));
    }
    for (i, (op, b)) in [
        (0, 1.5f32),
        (1, -0.75),
        (2, 3.0),
        (3, 0.3),
        (4, 0.25),
        (6, 1.5),
        (7, 2.0),
        (8, -2.5),
    ]
    .into_iter()
    .enumerate()
    {
        let cfg = BINARY_SHAPES[i % BINARY_SHAPES.len()];
        runs.push(binary_scalar(device, mode, rng, op, b, cfg));
    }
    for cfg in BROADCASTS {
        runs.push(binary_broadcast(device, mode, rng, cfg));
    }
    runs
}
