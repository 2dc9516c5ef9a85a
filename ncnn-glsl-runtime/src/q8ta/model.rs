//! Models of the pixel shuffle shaders' per-invocation logic, written to
//! follow the GLSL line for line (32-bit ints, the same word-index function,
//! the same bounds checks and padding writes), plus the push-constant block
//! both shaders declare. The shuffle shaders loop over their y and z axes
//! (grid-stride, steps in the push constants) because the host clamps the
//! launched grid to `maxComputeWorkGroupCount`. Running a model over a rounded-up grid and comparing
//! with [`super::reference`] catches indexing bugs before any GPU run; the
//! recorded reads and writes show that input padding is never read and every
//! output word is written exactly once.

use ncnn_glsl_core::DeviceType;

use super::layout::{Layout, Shape};
use super::quant::{QuantParams, QuantizeConsts, Requant};

/// The push-constant block of `q8ta_pixel_shuffle.comp` and
/// `q8ta_pixel_shuffle_baseline.comp`: twelve 32-bit scalars, std430, 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct ShufflePush {
    /// Offset 0: batch.
    pub n: i32,
    /// Offset 4: output channels (input channels = 4 * c_out).
    pub c_out: i32,
    /// Offset 8: input height.
    pub h: i32,
    /// Offset 12: input width.
    pub w: i32,
    /// Offset 16: input zero point.
    pub zp_in: i32,
    /// Offset 20: output zero point.
    pub zp_out: i32,
    /// Offset 24: [`Requant::mult_hi`].
    pub mult_hi: u32,
    /// Offset 28: [`Requant::mult_lo`].
    pub mult_lo: u32,
    /// Offset 32: [`Requant::shift`].
    pub shift: u32,
    /// Offset 36: invocations launched on y (the grid-stride loop's step).
    pub y_stride: i32,
    /// Offset 40: invocations launched on z.
    pub z_stride: i32,
    /// Offset 44: invocations per workgroup (the new kernel fills its
    /// requantization table with this stride).
    pub local_count: u32,
}

impl ShufflePush {
    /// Size of the block in bytes.
    pub const SIZE: usize = 48;

    /// The block for an input shape (validated by the caller), a
    /// requantization, the invocations launched per axis (workgroups times
    /// local size, see [`launch`]) and the local size.
    pub fn new(input: Shape, r: &Requant, launched: [u32; 3], local: [u32; 3]) -> Self {
        ShufflePush {
            n: input.n as i32,
            c_out: (input.c / 4) as i32,
            h: input.h as i32,
            w: input.w as i32,
            zp_in: r.zp_in,
            zp_out: r.zp_out,
            mult_hi: r.mult_hi,
            mult_lo: r.mult_lo,
            shift: r.shift,
            y_stride: launched[1] as i32,
            z_stride: launched[2] as i32,
            local_count: local.iter().product(),
        }
    }

    /// The bytes to hand `vkCmdPushConstants` (little-endian, as every Vulkan device).
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let v = [
            self.n as u32,
            self.c_out as u32,
            self.h as u32,
            self.w as u32,
            self.zp_in as u32,
            self.zp_out as u32,
            self.mult_hi,
            self.mult_lo,
            self.shift,
            self.y_stride as u32,
            self.z_stride as u32,
            self.local_count,
        ];
        let mut b = [0u8; Self::SIZE];
        for (i, x) in v.iter().enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
        b
    }

    fn requant(&self, passthrough: bool) -> Requant {
        Requant {
            zp_in: self.zp_in,
            zp_out: self.zp_out,
            mult_hi: self.mult_hi,
            mult_lo: self.mult_lo,
            shift: self.shift,
            passthrough,
        }
    }
}

/// The new kernel's ways through a tensor (the shader's specialization
/// constant `PATH`, id 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShufflePath {
    /// One invocation per (output channel block, input pixel), word by word.
    Words = 0,
    /// One per (4 output channel blocks, 4 input pixels): 16-byte loads and stores.
    Tile = 1,
    /// One per (output channel block, 4 input pixels): 16-byte loads and stores,
    /// neighbouring blocks in neighbouring invocations.
    Quad = 2,
}

impl ShufflePath {
    /// Every path.
    pub const ALL: [ShufflePath; 3] = [ShufflePath::Words, ShufflePath::Tile, ShufflePath::Quad];

    /// Its name in benchmarks and errors.
    pub const fn name(self) -> &'static str {
        match self {
            ShufflePath::Words => "words",
            ShufflePath::Tile => "tile",
            ShufflePath::Quad => "quad",
        }
    }

    /// `Ok` where this path can run `input` (into any layout), else what it
    /// needs: the tiled paths read and write whole aligned word quads.
    pub fn check(self, input: Shape) -> Result<(), &'static str> {
        let c_out = input.c / 4;
        match self {
            ShufflePath::Words => Ok(()),
            ShufflePath::Tile if input.w % 4 != 0 || c_out % 16 != 0 => {
                Err("W % 4 == 0 and C_out % 16 == 0")
            }
            ShufflePath::Quad if input.w % 4 != 0 || c_out % 4 != 0 => {
                Err("W % 4 == 0 and C_out % 4 == 0")
            }
            _ => Ok(()),
        }
    }
}

/// The path the runtime takes for `input` shuffled as `axes` says. On a GPU,
/// the tiled paths only where the tensor is large enough that their 16 or 4
/// times fewer invocations still fill it: the quad path from 2^19 input
/// elements (`[1,256,48,48]`), the tile path from 4C1W into 4C from 2^21
/// (`[1,256,96,96]`); and word by word from 4C1W or 4W4C into 4C1W without
/// requantization from 2^25 (tensors past the L2 cache, with whole rows per
/// workgroup: [`super::shuffle_local_size`]). These are where each became
/// the fastest on an H200 (`BENCHMARKS.md`, `bench/h200-raw.json`). On a CPU device
/// (lavapipe) every invocation costs, and the tile path was the fastest on
/// nearly every case (`bench/lavapipe.json`): tile, else quad, wherever
/// allowed.
pub fn shuffle_path(input: Shape, axes: Axes, device: DeviceType) -> ShufflePath {
    if device == DeviceType::Cpu {
        return [ShufflePath::Tile, ShufflePath::Quad]
            .into_iter()
            .find(|p| p.check(input).is_ok())
            .unwrap_or(ShufflePath::Words);
    }
    let elements = input.elements();
    use Layout::{Packed4C as C, Packed4C1W as C1W, Packed4W4C as W4C};
    let path = match (axes.in_layout, axes.out_layout) {
        (C1W | W4C, C1W) if axes.passthrough && elements >= 1 << 25 => ShufflePath::Words,
        (C1W, C) if elements >= 1 << 21 => ShufflePath::Tile,
        _ if elements >= 1 << 19 => ShufflePath::Quad,
        _ => ShufflePath::Words,
    };
    if path.check(input).is_ok() {
        path
    } else {
        ShufflePath::Words
    }
}

/// The new kernel's global grid in invocations for `path` (which must be
/// allowed, [`ShufflePath::check`]): (output channel blocks, input width,
/// input height x batch), with quads of blocks (tile) and of width (tile, quad).
pub fn shuffle_grid(input: Shape, path: ShufflePath) -> [u32; 3] {
    let c4_out = (input.c / 4).div_ceil(4) as u32;
    let rows = (input.h * input.n) as u32;
    let w = input.w as u32;
    match path {
        ShufflePath::Words => [c4_out, w, rows],
        ShufflePath::Tile => [c4_out / 4, w / 4, rows],
        ShufflePath::Quad => [c4_out, w / 4, rows],
    }
}

/// The baseline's global grid: (output width incl. 4W4C padding, output
/// height, output channel blocks x batch), output width fastest.
pub fn baseline_grid(input: Shape, out_layout: Layout) -> [u32; 3] {
    let ow = 2 * input.w;
    let ow = if out_layout == Layout::Packed4W4C {
        ow.div_ceil(4) * 4
    } else {
        ow
    };
    let c4 = (input.c / 4).div_ceil(4);
    [ow as u32, (2 * input.h) as u32, (c4 * input.n) as u32]
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

/// The layouts and passthrough of one shuffle: the new kernel's
/// specialization constants, the baseline's build-time axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axes {
    /// `IN_LAYOUT`.
    pub in_layout: Layout,
    /// `OUT_LAYOUT`.
    pub out_layout: Layout,
    /// `PASSTHROUGH`.
    pub passthrough: bool,
}

/// One invocation of `q8ta_pixel_shuffle.comp` on `path` at global id
/// `gid`: the grid-stride loops of its `main()` over `shuffle_one()`,
/// `shuffle_tile()` or `shuffle_quad()`.
pub fn shuffle_invocation(
    gid: [u32; 3],
    p: &ShufflePush,
    a: Axes,
    path: ShufflePath,
    m: &mut Memory,
) {
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
    let xs = if path != ShufflePath::Words {
        p.w / 4
    } else {
        p.w
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
    let rq = p.requant(false);
    let n = z / p.h;
    let y = z % p.h;
    let c4_in = p.c_out;
    let mut quad = |first: i32| -> [i32; 4] {
        assert_eq!(first % 4, 0, "unaligned quad load");
        std::array::from_fn(|l| m.sm4(first + l as i32))
    };
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
    let out: [[[i32; 4]; 4]; 4] = std::array::from_fn(|q| {
        std::array::from_fn(|i| {
            let mut o = [0i32; 4];
            for (s, os) in o.iter_mut().enumerate() {
                let mut v = w[q][i].map(|wj| byte(wj, s as i32));
                if !a.passthrough {
                    v = v.map(|b| rq.apply(b as i8) as i32);
                }
                *os = (v[0] & 255) | (v[1] & 255) << 8 | (v[2] & 255) << 16 | (v[3] & 255) << 24;
            }
            o
        })
    });
    fn store_quad(m: &mut Memory, first: i32, v: [i32; 4]) {
        assert_eq!(first % 4, 0, "unaligned quad store");
        for (l, x) in v.iter().enumerate() {
            m.st4(first + l as i32, bytes(*x));
        }
    }
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
    let rq = p.requant(false);
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
    for s in 0..4 {
        let mut v = [byte(w[0], s), byte(w[1], s), byte(w[2], s), byte(w[3], s)];
        if !a.passthrough {
            v = v.map(|q| rq.apply(q as i8) as i32);
        }
        let (dy, dx) = (s / 2, s % 2);
        m.st4(
            word_index(out_l, n, k, 2 * y + dy, 2 * x + dx, oh, ow, c4_out),
            v,
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
    let rq = p.requant(false);
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

/// Workgroups to launch for a grid of `grid` invocations at `local`, each
/// axis clamped to `max_groups` (`maxComputeWorkGroupCount`), and the
/// invocations that launches per axis (the shuffle shaders' loop steps).
pub fn launch(grid: [u32; 3], local: [u32; 3], max_groups: [u32; 3]) -> ([u32; 3], [u32; 3]) {
    let groups: [u32; 3] =
        std::array::from_fn(|i| grid[i].div_ceil(local[i]).clamp(1, max_groups[i].max(1)));
    let launched = std::array::from_fn(|i| groups[i] * local[i]);
    (groups, launched)
}

/// Runs `invocation` over the workgroups [`launch`] gives (y and z clamped
/// to `max_groups`, as the host does; x never is: the host refuses such a
/// grid), with
/// `gl_GlobalInvocationID = group * local + local id`. Only shaders that loop
/// over a clamped axis (the shuffle shaders) cover a grid past the clamp.
pub fn dispatch(
    grid: [u32; 3],
    local: [u32; 3],
    max_groups: u32,
    mut invocation: impl FnMut([u32; 3]),
) {
    let (groups, _) = launch(grid, local, [u32::MAX, max_groups, max_groups]);
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

/// The push-constant block of `q8ta_quantize.comp`: 8 32-bit scalars, 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct QuantizePush {
    /// Offsets 0, 4, 8, 12: the NCHW shape `n, c, h, w`.
    pub shape: [i32; 4],
    /// Offset 16: the zero point.
    pub zp: i32,
    /// Offset 20: [`QuantizeConsts::inv_scale`].
    pub inv_scale: f32,
    /// Offset 24: [`QuantizeConsts::scale_hi`].
    pub scale_hi: f32,
    /// Offset 28: [`QuantizeConsts::scale_lo`].
    pub scale_lo: f32,
}

impl QuantizePush {
    /// Size of the block in bytes.
    pub const SIZE: usize = 32;

    /// The block for a tensor shape and validated parameters.
    pub fn new(shape: Shape, p: QuantParams) -> Self {
        let k = QuantizeConsts::new(p.scale);
        QuantizePush {
            shape: shape_i32(shape),
            zp: p.zero_point,
            inv_scale: k.inv_scale,
            scale_hi: k.scale_hi,
            scale_lo: k.scale_lo,
        }
    }

    /// The bytes to hand `vkCmdPushConstants`.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let s = self.shape.map(|x| x as u32);
        words_to_bytes([
            s[0],
            s[1],
            s[2],
            s[3],
            self.zp as u32,
            self.inv_scale.to_bits(),
            self.scale_hi.to_bits(),
            self.scale_lo.to_bits(),
        ])
    }
}

/// The push-constant block of `q8ta_dequantize.comp`: 6 32-bit scalars, 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct DequantizePush {
    /// Offsets 0, 4, 8, 12: the NCHW shape `n, c, h, w`.
    pub shape: [i32; 4],
    /// Offset 16: the zero point.
    pub zp: i32,
    /// Offset 20: the scale.
    pub scale: f32,
}

impl DequantizePush {
    /// Size of the block in bytes.
    pub const SIZE: usize = 24;

    /// The block for a tensor shape and validated parameters.
    pub fn new(shape: Shape, p: QuantParams) -> Self {
        DequantizePush {
            shape: shape_i32(shape),
            zp: p.zero_point,
            scale: p.scale,
        }
    }

    /// The bytes to hand `vkCmdPushConstants`.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let s = self.shape.map(|x| x as u32);
        words_to_bytes([s[0], s[1], s[2], s[3], self.zp as u32, self.scale.to_bits()])
    }
}

fn shape_i32(s: Shape) -> [i32; 4] {
    [s.n as i32, s.c as i32, s.h as i32, s.w as i32]
}

fn words_to_bytes<const W: usize, const B: usize>(v: [u32; W]) -> [u8; B] {
    let mut b = [0u8; B];
    for (i, x) in v.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    b
}

/// The dequantize shader's `VEC` axis value for a width: 4 elements per
/// invocation (`buffer_st4`) when `W % 4 == 0`, 2 when `W % 2 == 0`, else 1.
/// Vector stores need the NCHW element index of `(n, c, h, 0)` to be a
/// multiple of the vector width, which holds for every row exactly then.
pub fn dequantize_vec_width(w: usize) -> usize {
    if w % 4 == 0 {
        4
    } else if w % 2 == 0 {
        2
    } else {
        1
    }
}

/// The quantize shader's grid: (width, padded to 4 for 4W4C; height; channel blocks x batch).
pub fn quantize_grid(shape: Shape, layout: Layout) -> [u32; 3] {
    let w = if layout == Layout::Packed4W4C {
        shape.w4() * 4
    } else {
        shape.w
    };
    [w as u32, shape.h as u32, (shape.c4() * shape.n) as u32]
}

/// The dequantize shader's grid: (`ceil(W / vec)`, height, channels x batch).
pub fn dequantize_grid(shape: Shape) -> [u32; 3] {
    let v = dequantize_vec_width(shape.w);
    [
        shape.w.div_ceil(v) as u32,
        shape.h as u32,
        (shape.c * shape.n) as u32,
    ]
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
