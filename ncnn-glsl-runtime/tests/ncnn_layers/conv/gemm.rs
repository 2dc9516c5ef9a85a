//! Gemm (`gemm.comp`): operand orientations and packings, constant
//! operands, every C broadcast, transposed and `N1M` outputs.

use ncnn_glsl_runtime::{ncnn_local_size, optimal_local_size, NcnnMat, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob, packed_mat, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{blob, blocks, ints, pack_of, poison_blob, spec_of};

/// Where Gemm's C comes from and how it broadcasts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum CFrom {
    /// No C (`broadcast_type_C` -1).
    None,
    /// A blob input with broadcast type 0 scalar, 1 `M`, 2 `Mx1`, 3 `MxN`,
    /// 4 `N` (shapes that are pack1 already: no conversion).
    Blob(i32),
    /// `constantC` with `constant_broadcast_type_C`.
    Constant(i32),
}

/// A Gemm configuration.
#[derive(Clone, Copy, Debug)]
struct GemmCfg {
    /// Rows of the product.
    m: u32,
    /// Columns of the product.
    n: u32,
    /// The summed extent.
    k: u32,
    /// `transA`: A is given as `K x M` (w = M).
    trans_a: bool,
    /// `transB`: B is given as `N x K` (w = K).
    trans_b: bool,
    /// `constantA`.
    const_a: bool,
    /// `constantB`.
    const_b: bool,
    /// C.
    c: CFrom,
    /// `alpha`.
    alpha: f32,
    /// `beta`.
    beta: f32,
    /// `output_transpose`.
    transpose: bool,
    /// `output_N1M`.
    n1m: bool,
}

/// A 2-D operand: the tensor (`w` fastest), its blob and the pack.
fn gemm_operand(mode: &Mode, rng: &mut Rng, w: u32, h: u32, constant: bool) -> (Tensor, NcnnMat) {
    let t = Tensor::random(&[w, h], mode, rng, -1.0, 1.0);
    // A constant operand is uploaded unpacked; a blob packs its rows by 4.
    let ep = if constant { 1 } else { pack_of(h) };
    let m = packed_mat(&[w, h], ep, mode);
    (t, m)
}

/// `gemm_vulkan.cpp` (not the cooperative-matrix, subgroup or int8 path):
/// `gemm.comp` over 4x4 blocks of the product, reading A and B in their
/// blobs' packing (constant ones uploaded unpacked), C unpacked; local size
/// 8x8 with local memory, else `set_optimal_local_size_xyz` of an empty
/// shape (4x4x4); dispatcher `((N + 3) / 4, (M + 3) / 4)`. The output packs
/// its outer axis (`M`, or `N` transposed) by 4 when it divides.
fn gemm_run(device: &Device, mode: &Mode, rng: &mut Rng, g: &GemmCfg) -> Run {
    let (m, n, k) = (g.m, g.n, g.k);
    let (a, ma) = if g.trans_a {
        gemm_operand(mode, rng, m, k, g.const_a)
    } else {
        gemm_operand(mode, rng, k, m, g.const_a)
    };
    let (b, mb) = if g.trans_b {
        gemm_operand(mode, rng, k, n, g.const_b)
    } else {
        gemm_operand(mode, rng, n, k, g.const_b)
    };
    let a_at = |i: u32, kk: u32| {
        if g.trans_a {
            a.at(i, kk, 0, 0)
        } else {
            a.at(kk, i, 0, 0)
        }
    };
    let b_at = |kk: u32, j: u32| {
        if g.trans_b {
            b.at(kk, j, 0, 0)
        } else {
            b.at(j, kk, 0, 0)
        }
    };
    let (c_shape, c_type): (Vec<u32>, i32) = match g.c {
        CFrom::None => (vec![1], -1),
        CFrom::Blob(t) | CFrom::Constant(t) => (
            match t {
                0 => vec![1],
                1 => vec![m],
                2 => vec![1, m],
                3 => vec![n, m],
                _ => vec![n],
            },
            t,
        ),
    };
    let c = Tensor::random(&c_shape, mode, rng, -1.0, 1.0);
    if let CFrom::Blob(_) = g.c {
        let outer = *c_shape.last().unwrap();
        assert!(
            outer % 4 != 0 || outer == 1,
            "a C blob that needs no unpacking"
        );
    }
    let c_at = |i: u32, j: u32| -> f64 {
        f64::from(match c_type {
            -1 => 0.0,
            0 => c.values[0],
            1 | 2 => c.values[i as usize],
            3 => c.values[(i * n + j) as usize],
            _ => c.values[j as usize],
        })
    };
    let oe = pack_of(if g.transpose { n } else { m });
    let (ow, oh) = if g.transpose { (m, n) } else { (n, m) };
    let out_shape: Vec<u32> = if g.n1m { vec![ow, 1, oh] } else { vec![ow, oh] };
    let mout = packed_mat(&out_shape, oe, mode);
    let outhstep = if g.n1m {
        mout.cstep()
    } else {
        u64::from(mout.w)
    };
    let hstep = |mm: &NcnnMat| u64::from(mm.w);
    let spec = spec_of(&[
        &[SpecValue::Float(g.alpha), SpecValue::Float(g.beta)],
        &ints(&[
            u64::from(g.trans_a),
            u64::from(g.trans_b),
            u64::from(g.const_a),
            u64::from(g.const_b),
            u64::from(matches!(g.c, CFrom::Constant(_))),
            if g.const_a { u64::from(m) } else { 0 },
            if g.const_b { u64::from(n) } else { 0 },
            if g.const_a || g.const_b {
                u64::from(k)
            } else {
                0
            },
            if let CFrom::Constant(t) = g.c {
                t as u64
            } else {
                0
            },
            u64::from(g.n1m),
            0,
            0,
            u64::from(g.transpose),
        ]),
    ]);
    let push = [
        m,
        n,
        k,
        c_type as u32,
        2,
        hstep(&ma) as u32,
        2,
        hstep(&mb) as u32,
        mout.dims,
        outhstep as u32,
        oe,
        ma.elempack,
        mb.elempack,
    ];
    let local = if mode.local_memory() {
        ncnn_local_size([8, 8, 1], device.limits.subgroup_size)
    } else {
        optimal_local_size([0, 0, 0], &device.limits)
    };
    let step = Step::new(
        "gemm.comp",
        local,
        spec,
        push.to_vec(),
        &[0, 1, 2, 3, 0],
        [n.div_ceil(4), m.div_ceil(4), 1],
    );
    let alpha = f64::from(g.alpha);
    let beta = f64::from(g.beta);
    let want = |i: u32, j: u32| {
        let mut sum = 0.0;
        let mut mag = 0.0;
        for kk in 0..k {
            let v = f64::from(a_at(i, kk)) * f64::from(b_at(kk, j));
            sum += v;
            mag += v.abs();
        }
        // ncnn's Gemm: alpha * (beta * C + A B)
        let cv = beta * c_at(i, j);
        let r = alpha * (cv + sum);
        (r, alpha.abs() * (cv.abs() + mag))
    };
    let expect = expect_blob(mode, 0, &mout, &out_shape, |x, y, _, q| {
        let outer = if g.n1m { q } else { y };
        if g.transpose {
            want(x, outer)
        } else {
            want(outer, x)
        }
    });
    let c_data = Data::Floats(blocks(c.values.clone(), f32::NAN));
    Run {
        name: format!(
            "gemm M{m} N{n} K{k} tA{} tB{} cA{} cB{} C {:?} a{} b{} oT{} N1M{}",
            u8::from(g.trans_a),
            u8::from(g.trans_b),
            u8::from(g.const_a),
            u8::from(g.const_b),
            g.c,
            g.alpha,
            g.beta,
            u8::from(g.transpose),
            u8::from(g.n1m)
        ),
        buffers: vec![
            poison_blob(mode, &mout),
            blob(&a, &ma),
            blob(&b, &mb),
            c_data,
        ],
        steps: vec![step],
        expect: vec![expect],
        untouched: Vec::new(),
    }
}

/// Gemm: A and B in both orientations and packings (element-wise and
/// vector reads, `hstep` a multiple of 4 or not), constant A and B, C absent
/// and in every broadcast, constant C, alpha and beta, a transposed output,
/// an `N1M` output (its `cstep` pushed as `outhstep`), K below, at and past
/// a local-memory tile.
pub(crate) fn gemm(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let base = GemmCfg {
        m: 8,
        n: 6,
        k: 5,
        trans_a: false,
        trans_b: false,
        const_a: false,
        const_b: false,
        c: CFrom::Constant(3),
        alpha: 1.0,
        beta: 1.0,
        transpose: false,
        n1m: false,
    };
    [
        base,
        GemmCfg {
            m: 6,
            n: 8,
            k: 8,
            trans_a: true,
            trans_b: true,
            c: CFrom::Blob(2),
            alpha: 1.5,
            beta: 0.5,
            ..base
        },
        GemmCfg {
            m: 5,
            n: 9,
            k: 12,
            trans_b: true,
            const_a: true,
            const_b: true,
            c: CFrom::Blob(4),
            ..base
        },
        GemmCfg {
            m: 4,
            n: 8,
            k: 6,
            c: CFrom::Blob(0),
            alpha: 0.5,
            beta: 2.0,
            transpose: true,
            ..base
        },
        GemmCfg {
            m: 8,
            n: 3,
            k: 4,
            c: CFrom::None,
            n1m: true,
            ..base
        },
        GemmCfg {
            m: 5,
            n: 7,
            k: 19,
            trans_a: true,
            trans_b: true,
            c: CFrom::Constant(1),
            ..base
        },
    ]
    .iter()
    .map(|g| gemm_run(device, mode, rng, g))
    .collect()
}
