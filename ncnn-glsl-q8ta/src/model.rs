//! Models of the q8ta shaders' per-invocation logic, for the tests: written
//! to follow the GLSL line for line (32-bit ints, the same word-index
//! function, the same bounds checks and padding writes). The shuffle shaders
//! loop over their y and z axes (grid-stride, steps in the push constants)
//! because the host clamps the launched grid to `maxComputeWorkGroupCount`.
//! Running a model over a rounded-up grid and comparing with
//! [`super::reference`] catches indexing bugs before any GPU run; the
//! recorded reads and writes show that input padding is never read and every
//! output word is written exactly once.

use super::launch::{dequantize_vec_width, launch, Axes, BlockAxis, ShufflePath};
use super::layout::Layout;
use super::push::{DequantizePush, QuantizePush, ShufflePush};
use super::quant::{QuantizeConsts, Requant};

/// The requantization a shuffle's push constants describe.
fn requant(p: &ShufflePush, passthrough: bool) -> Requant {
    Requant {
        zp_in: p.zp_in,
        zp_out: p.zp_out,
        mult_hi: p.mult_hi,
        mult_lo: p.mult_lo,
        shift: p.shift,
        passthrough,
        ratio: p.ratio,
        float_exact: false,
    }
}

/// Memory seen by a modelled dispatch: the buffers plus a count of the
/// reads of each input word and the writes of each output word.
pub struct Memory<'a> {
    /// The input words.
    pub input: &'a [u32],
    /// Reads of each input word.
    pub reads: Vec<u32>,
    /// The output words.
    pub output: Vec<u32>,
    /// Writes of each output word.
    pub writes: Vec<u32>,
}

impl<'a> Memory<'a> {
    /// Input buffer, and an output of `out_words` words filled with `poison`.
    pub fn new(input: &'a [u32], out_words: usize, poison: u32) -> Self {
        Memory {
            input,
            reads: vec![0; input.len()],
            output: vec![poison; out_words],
            writes: vec![0; out_words],
        }
    }

    // An index out of range panics, as a robust-buffer-access-free GPU would corrupt.
    fn sm4(&mut self, i: i32) -> i32 {
        let i = usize::try_from(i).expect("negative input index");
        self.reads[i] += 1;
        self.input[i] as i32
    }

    fn st4(&mut self, i: i32, v: [i32; 4]) {
        let i = usize::try_from(i).expect("negative output index");
        // packInt4x8: each lane masked to 8 bits.
        let w = (v[0] & 255) | (v[1] & 255) << 8 | (v[2] & 255) << 16 | (v[3] & 255) << 24;
        self.output[i] = w as u32;
        self.writes[i] += 1;
    }
}

/// The GLSL `word_index()` (32-bit ints as the shader; its argument list too).
#[allow(clippy::too_many_arguments)]
fn word_index(lay: i32, n: i32, cb: i32, y: i32, x: i32, hh: i32, ww: i32, cc4: i32) -> i32 {
    let row = n * hh + y;
    if lay == 0 {
        let ww4 = (ww + 3) / 4;
        return ((row * ww4 + x / 4) * cc4 + cb) * 4 + x % 4;
    }
    if lay == 1 {
        return (row * ww + x) * cc4 + cb;
    }
    (row * cc4 + cb) * ww + x
}

/// GLSL `bitfieldExtract(int, offset, 8)`: sign-extended byte.
fn byte(w: i32, s: i32) -> i32 {
    (w >> (8 * s)) as i8 as i32
}

/// One invocation of `q8ta_pixel_shuffle.comp` on `path`, its blocks on
/// `blocks`, at global id `gid`: the grid-stride loops of its `main()` over
/// `shuffle_one()`, `shuffle_tile()` or `shuffle_quad()`.
pub fn shuffle_invocation(
    gid: [u32; 3],
    p: &ShufflePush,
    a: Axes,
    path: ShufflePath,
    blocks: BlockAxis,
    m: &mut Memory,
) {
    let gid = match blocks {
        BlockAxis::X => gid,
        BlockAxis::Y => [gid[1], gid[0], gid[2]],
    };
    let k = gid[0] as i32;
    let c4_out = (p.c_out + 3) / 4;
    if k >= if path == ShufflePath::Tile {
        c4_out / 4
    } else {
        c4_out
    } {
        return;
    }
    let hn = p.h * p.n;
    let xs = match path {
        ShufflePath::Words => p.w,
        ShufflePath::Pairs => p.w / 2,
        ShufflePath::Tile | ShufflePath::Quad => p.w / 4,
    };
    let mut z = gid[2] as i32;
    while z < hn {
        let mut x = gid[1] as i32;
        while x < xs {
            match path {
                ShufflePath::Tile => shuffle_tile(k, z, x, 0..4, c4_out, p, a, m),
                ShufflePath::Quad => shuffle_tile(
                    k / 4,
                    z,
                    x,
                    (k % 4) as usize..(k % 4) as usize + 1,
                    c4_out,
                    p,
                    a,
                    m,
                ),
                ShufflePath::Words => shuffle_one(k, z, x, c4_out, p, a, m),
                ShufflePath::Pairs => shuffle_pair(k, z, x, c4_out, p, a, m),
            }
            x += p.y_stride;
        }
        z += p.z_stride;
    }
}

/// The shader's `shuffle_tile()` (`qs` = 0..4) and `shuffle_quad()` (one
/// block `q` of quad `kq`): output channel blocks `4kq + q` at 4 input pixels
/// (`xq`), each access a whole aligned word quad (modelled as its 4 words: the
/// counts in [`Memory`] are per word). Indexed loops on purpose: they mirror
/// the shader's indices.
#[allow(clippy::needless_range_loop, clippy::too_many_arguments)]
fn shuffle_tile(
    kq: i32,
    z: i32,
    xq: i32,
    qs: std::ops::Range<usize>,
    c4_out: i32,
    p: &ShufflePush,
    a: Axes,
    m: &mut Memory,
) {
    let (in_l, out_l) = (
        a.in_layout.axis_value() as i32,
        a.out_layout.axis_value() as i32,
    );
    let rq = requant(p, false);
    let n = z / p.h;
    let y = z % p.h;
    let c4_in = p.c_out;
    let mut quad = |first: i32| load_quad(m, first);
    // w[q][i][j]: input word of block 16kq + 4q + j at pixel 4xq + i.
    let mut w = [[[0i32; 4]; 4]; 4];
    for (q, wq) in w.iter_mut().enumerate() {
        if !qs.contains(&q) {
            continue;
        }
        let q = q as i32;
        if in_l == 1 {
            for (i, wi) in wq.iter_mut().enumerate() {
                *wi = quad(word_index(
                    1,
                    n,
                    16 * kq + 4 * q,
                    y,
                    4 * xq + i as i32,
                    p.h,
                    p.w,
                    c4_in,
                ));
            }
        } else {
            for j in 0..4 {
                let b = quad(word_index(
                    in_l,
                    n,
                    16 * kq + 4 * q + j,
                    y,
                    4 * xq,
                    p.h,
                    p.w,
                    c4_in,
                ));
                for (i, wi) in wq.iter_mut().enumerate() {
                    wi[j as usize] = b[i];
                }
            }
        }
    }
    let (oh, ow) = (2 * p.h, 2 * p.w);
    // out[q][i][s]: output word s = 2dy + dx of block 4kq + q at input pixel 4xq + i.
    let out: [[[i32; 4]; 4]; 4] =
        std::array::from_fn(|q| std::array::from_fn(|i| shuffle_pixel(w[q][i], a, &rq)));
    for dy in 0..2 {
        let oy = 2 * y + dy;
        if out_l == 1 && qs.len() == 1 {
            // 4C, one block (the quad path): a word per output pixel.
            let q = qs.start;
            for i in 0..4 {
                for dx in 0..2 {
                    let ox = 8 * xq + 2 * i as i32 + dx;
                    let s = (2 * dy + dx) as usize;
                    let at = word_index(1, n, 4 * kq + q as i32, oy, ox, oh, ow, c4_out);
                    m.st4(at, bytes(out[q][i][s]));
                }
            }
            continue;
        }
        if out_l == 1 {
            // 4C: blocks 4kq .. 4kq + 3 of one output pixel are one quad.
            assert_eq!(qs, 0..4, "a 4C output takes whole tiles or one block");
            for i in 0..4 {
                for dx in 0..2 {
                    let ox = 8 * xq + 2 * i as i32 + dx;
                    let s = (2 * dy + dx) as usize;
                    let first = word_index(1, n, 4 * kq, oy, ox, oh, ow, c4_out);
                    store_quad(m, first, std::array::from_fn(|qq| out[qq][i][s]));
                }
            }
            continue;
        }
        for q in qs.clone() {
            {
                for hh in 0..2 {
                    let first = word_index(
                        out_l,
                        n,
                        4 * kq + q as i32,
                        oy,
                        8 * xq + 4 * hh as i32,
                        oh,
                        ow,
                        c4_out,
                    );
                    let s0 = (2 * dy) as usize;
                    store_quad(
                        m,
                        first,
                        [
                            out[q][2 * hh][s0],
                            out[q][2 * hh][s0 + 1],
                            out[q][2 * hh + 1][s0],
                            out[q][2 * hh + 1][s0 + 1],
                        ],
                    );
                }
            }
        }
    }
}

/// The shader's `shuffle_pixel()`: the 4 output words (s = 2dy + dx) of one
/// input pixel whose 4 input words (lane j = channel block 4k + j) are `v`,
/// requantized unless passthrough.
fn shuffle_pixel(v: [i32; 4], a: Axes, rq: &Requant) -> [i32; 4] {
    std::array::from_fn(|s| {
        let mut b = v.map(|wj| byte(wj, s as i32));
        if !a.passthrough {
            b = b.map(|q| rq.apply(q as i8) as i32);
        }
        (b[0] & 255) | (b[1] & 255) << 8 | (b[2] & 255) << 16 | (b[3] & 255) << 24
    })
}

/// A 16-byte load of the words `first .. first + 4`.
fn load_quad(m: &mut Memory, first: i32) -> [i32; 4] {
    assert_eq!(first % 4, 0, "unaligned quad load");
    std::array::from_fn(|l| m.sm4(first + l as i32))
}

/// A 16-byte store of `v` at the words `first .. first + 4`.
fn store_quad(m: &mut Memory, first: i32, v: [i32; 4]) {
    assert_eq!(first % 4, 0, "unaligned quad store");
    for (l, x) in v.iter().enumerate() {
        m.st4(first + l as i32, bytes(*x));
    }
}

/// The lanes of a word, for [`Memory`]'s packing store.
fn bytes(w: i32) -> [i32; 4] {
    std::array::from_fn(|l| byte(w, l as i32))
}

/// The shader's `shuffle_one()`: one (channel block, input pixel).
fn shuffle_one(k: i32, z: i32, x: i32, c4_out: i32, p: &ShufflePush, a: Axes, m: &mut Memory) {
    let (in_l, out_l) = (
        a.in_layout.axis_value() as i32,
        a.out_layout.axis_value() as i32,
    );
    let rq = requant(p, false);
    let n = z / p.h;
    let y = z % p.h;
    let c4_in = p.c_out;
    let zp_word = (p.zp_in & 255).wrapping_mul(0x0101_0101);
    let mut w = [zp_word; 4];
    let cb = 4 * k;
    w[0] = m.sm4(word_index(in_l, n, cb, y, x, p.h, p.w, c4_in));
    for (j, wj) in w.iter_mut().enumerate().skip(1) {
        if cb + (j as i32) < c4_in {
            *wj = m.sm4(word_index(in_l, n, cb + j as i32, y, x, p.h, p.w, c4_in));
        }
    }
    let oh = 2 * p.h;
    let ow = 2 * p.w;
    for (s, o) in (0..).zip(shuffle_pixel(w, a, &rq)) {
        let (dy, dx) = (s / 2, s % 2);
        m.st4(
            word_index(out_l, n, k, 2 * y + dy, 2 * x + dx, oh, ow, c4_out),
            bytes(o),
        );
    }
    if out_l == 0 && x == p.w - 1 && ow % 4 != 0 {
        for s in 0..4 {
            let (dy, dx) = (s / 2, s % 2);
            m.st4(
                word_index(0, n, k, 2 * y + dy, ow + dx, oh, ow, c4_out),
                [p.zp_out; 4],
            );
        }
    }
}

/// The shader's `shuffle_pair()`: output block `k` at the 2 input pixels of
/// pair `xp`; into 4C1W and 4W4C each output row's 4 words one aligned quad.
fn shuffle_pair(k: i32, z: i32, xp: i32, c4_out: i32, p: &ShufflePush, a: Axes, m: &mut Memory) {
    let (in_l, out_l) = (
        a.in_layout.axis_value() as i32,
        a.out_layout.axis_value() as i32,
    );
    let rq = requant(p, false);
    let (n, y) = (z / p.h, z % p.h);
    let c4_in = p.c_out;
    // o[i][s]: output word s = 2dy + dx at input pixel 2xp + i.
    let o: [[i32; 4]; 2] = std::array::from_fn(|i| {
        let x = 2 * xp + i as i32;
        let v = if in_l == 1 {
            load_quad(m, word_index(1, n, 4 * k, y, x, p.h, p.w, c4_in))
        } else {
            std::array::from_fn(|j| {
                m.sm4(word_index(in_l, n, 4 * k + j as i32, y, x, p.h, p.w, c4_in))
            })
        };
        shuffle_pixel(v, a, &rq)
    });
    let (oh, ow) = (2 * p.h, 2 * p.w);
    for dy in 0..2 {
        let oy = 2 * y + dy;
        let s0 = (2 * dy) as usize;
        let row = [o[0][s0], o[0][s0 + 1], o[1][s0], o[1][s0 + 1]];
        if out_l == 1 {
            for (dx, w) in (0..).zip(row) {
                m.st4(
                    word_index(1, n, k, oy, 4 * xp + dx, oh, ow, c4_out),
                    bytes(w),
                );
            }
        } else {
            store_quad(m, word_index(out_l, n, k, oy, 4 * xp, oh, ow, c4_out), row);
        }
    }
}

/// One invocation of `q8ta_pixel_shuffle_baseline.comp` at global id `gid`:
/// the grid-stride loops of its `main()` over `baseline_one()`.
pub fn baseline_invocation(gid: [u32; 3], p: &ShufflePush, a: Axes, m: &mut Memory) {
    let ox = gid[0] as i32;
    let c4_out = (p.c_out + 3) / 4;
    let oh = 2 * p.h;
    let ow = 2 * p.w;
    let ow_padded = if a.out_layout == Layout::Packed4W4C {
        (ow + 3) / 4 * 4
    } else {
        ow
    };
    if ox >= ow_padded {
        return;
    }
    let zn = c4_out * p.n;
    let mut z = gid[2] as i32;
    while z < zn {
        let mut oy = gid[1] as i32;
        while oy < oh {
            baseline_one(ox, oy, z, c4_out, p, a, m);
            oy += p.y_stride;
        }
        z += p.z_stride;
    }
}

/// The shader's `baseline_one()`: one output word.
fn baseline_one(ox: i32, oy: i32, z: i32, c4_out: i32, p: &ShufflePush, a: Axes, m: &mut Memory) {
    let (in_l, out_l) = (
        a.in_layout.axis_value() as i32,
        a.out_layout.axis_value() as i32,
    );
    let rq = requant(p, false);
    let oh = 2 * p.h;
    let ow = 2 * p.w;
    // Channel block slowest: z = k * N + n.
    let k = z / p.n;
    let n = z % p.n;
    let out_i = word_index(out_l, n, k, oy, ox, oh, ow, c4_out);
    if ox >= ow {
        m.st4(out_i, [p.zp_out; 4]);
        return;
    }
    let (y, dy, x, dx) = (oy / 2, oy % 2, ox / 2, ox % 2);
    let s = 2 * dy + dx;
    let mut v = [p.zp_out; 4];
    for (j, vj) in v.iter_mut().enumerate() {
        let c = 4 * k + j as i32;
        if c < p.c_out {
            // Input channel 4c + s is lane s of input channel block c.
            let q = byte(m.sm4(word_index(in_l, n, c, y, x, p.h, p.w, p.c_out)), s);
            *vj = if a.passthrough {
                q
            } else {
                rq.apply(q as i8) as i32
            };
        }
    }
    m.st4(out_i, v);
}

/// Runs `invocation` over the workgroups [`launch`] gives (every axis but
/// `fixed` clamped to `max_groups`, as the host does; `fixed`, the shuffle's
/// block axis, never is: the host refuses such a grid), with
/// `gl_GlobalInvocationID = group * local + local id`. Only shaders that loop
/// over a clamped axis (the shuffle shaders) cover a grid past the clamp.
pub fn dispatch(
    grid: [u32; 3],
    local: [u32; 3],
    max_groups: u32,
    fixed: usize,
    mut invocation: impl FnMut([u32; 3]),
) {
    let mut max = [max_groups; 3];
    max[fixed] = u32::MAX;
    let (groups, _) = launch(grid, local, max);
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                for lz in 0..local[2] {
                    for ly in 0..local[1] {
                        for lx in 0..local[0] {
                            invocation([
                                gx * local[0] + lx,
                                gy * local[1] + ly,
                                gz * local[2] + lz,
                            ]);
                        }
                    }
                }
            }
        }
    }
}

/// One invocation of `q8ta_quantize.comp`: reads `input` (NCHW floats),
/// writes one word of `m.output` (the `input` words of `m` are unused).
pub fn quantize_invocation(
    gid: [u32; 3],
    p: &QuantizePush,
    layout: Layout,
    input: &[f32],
    m: &mut Memory,
) {
    let [pn, pc, ph, pw] = p.shape;
    let k = QuantizeConsts {
        inv_scale: p.inv_scale,
        scale_hi: p.scale_hi,
        scale_lo: p.scale_lo,
    };
    let (x, y, z) = (gid[0] as i32, gid[1] as i32, gid[2] as i32);
    let c4 = (pc + 3) / 4;
    let lay = layout.axis_value() as i32;
    let w_padded = if lay == 0 { (pw + 3) / 4 * 4 } else { pw };
    if x >= w_padded || y >= ph || z >= c4 * pn {
        return;
    }
    let n = z / c4;
    let cb = z % c4;
    let mut v = [p.zp; 4];
    if x < pw {
        for (j, vj) in v.iter_mut().enumerate() {
            let c = 4 * cb + j as i32;
            if c < pc {
                let f = input[(((n * pc + c) * ph + y) * pw + x) as usize];
                *vj = (k.rounded(f) + p.zp).clamp(-128, 127);
            }
        }
    }
    m.st4(word_index(lay, n, cb, y, x, ph, pw, c4), v);
}

/// One invocation of `q8ta_dequantize.comp` (`VEC` = [`dequantize_vec_width`]):
/// reads words of `m.input`, writes f32 elements of `out` (the storage
/// conversion to fp16 is the device's) and counts their writes.
pub fn dequantize_invocation(
    gid: [u32; 3],
    p: &DequantizePush,
    layout: Layout,
    m: &mut Memory,
    out: &mut [f32],
    out_writes: &mut [u32],
) {
    let [pn, pc, ph, pw] = p.shape;
    let vec = dequantize_vec_width(pw as usize) as i32;
    let lay = layout.axis_value() as i32;
    let (gx, y, z) = (gid[0] as i32, gid[1] as i32, gid[2] as i32);
    let x = gx * vec;
    if x >= pw || y >= ph || z >= pc * pn {
        return;
    }
    let n = z / pc;
    let c = z % pc;
    let c4 = (pc + 3) / 4;
    let i = (z * ph + y) * pw + x;
    // buffer_st4 / st2 write vector i / vec: the element index must be aligned.
    assert_eq!(i % vec, 0);
    for e in 0..vec {
        let word = m.sm4(word_index(lay, n, c / 4, y, x + e, ph, pw, c4));
        let q = byte(word, c % 4);
        out[(i + e) as usize] = (q - p.zp) as f32 * p.scale;
        out_writes[(i + e) as usize] += 1;
    }
}
