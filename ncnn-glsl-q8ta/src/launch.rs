//! The launch geometry of the q8ta shaders: the new kernel's paths and
//! choices ([`Rewrite`]), the grids of every shader in invocations, and the
//! workgroups a grid takes on a device (y and z clamped, the shuffle shaders
//! loop over them). Which choices a shuffle gets is [`super::plan`]'s.

use super::layout::Layout;
use super::requantization::Requantization;
use super::shape::Shape;

/// The new kernel's ways through a tensor (the shader's specialization
/// constant `PATH`, id 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShufflePath {
    /// One invocation per (output channel block, input pixel), word by word.
    Words = 0,
    /// One per (4 output channel blocks, 4 input pixels): 16-byte loads and stores.
    Tile = 1,
    /// One per (output channel block, 4 input pixels): 16-byte loads and stores,
    /// neighbouring blocks in neighbouring invocations.
    Quad = 2,
    /// One per (output channel block, 2 input pixels): a 16-byte store per
    /// output row into 4C1W and 4W4C, the width's neighbours storing
    /// neighbouring 16 bytes; 16-byte loads from 4C.
    Pairs = 3,
}

/// The grid axis that carries the new kernel's output channel blocks (the
/// shader's specialization constant `BLOCKS_ON_Y`, id 8); the width takes the
/// other of x and y.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BlockAxis {
    /// Blocks on x, width on y.
    X = 0,
    /// Width on x, blocks on y.
    Y = 1,
}

impl BlockAxis {
    /// Both.
    pub const ALL: [BlockAxis; 2] = [BlockAxis::X, BlockAxis::Y];

    /// Its name in benchmarks.
    pub const fn name(self) -> &'static str {
        match self {
            BlockAxis::X => "blocks-x",
            BlockAxis::Y => "blocks-y",
        }
    }

    /// The index of the axis (0 or 1) that carries the blocks.
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// The new kernel's choices for one shuffle beyond its layouts and
/// passthrough: the specialization constants `PATH`, `REQUANT_TABLE` and
/// `BLOCKS_ON_Y`, and how many rows each invocation loops over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rewrite {
    /// The way through the tensor.
    pub path: ShufflePath,
    /// How it requantizes.
    pub requant: Requantization,
    /// The grid axis of the output channel blocks.
    pub blocks: BlockAxis,
    /// Rows (z: input height x batch) per invocation, at least: the launch
    /// takes at most `ceil(rows of the tensor / (local z * rows))` workgroups
    /// on z and the kernel's grid-stride loop covers the rest, so that a
    /// workgroup's requantization table serves more data. 1: one row each.
    pub rows: u32,
}

impl ShufflePath {
    /// Every path.
    pub const ALL: [ShufflePath; 4] = [
        ShufflePath::Words,
        ShufflePath::Tile,
        ShufflePath::Quad,
        ShufflePath::Pairs,
    ];

    /// Its name in benchmarks and errors.
    pub const fn name(self) -> &'static str {
        match self {
            ShufflePath::Words => "words",
            ShufflePath::Tile => "tile",
            ShufflePath::Quad => "quad",
            ShufflePath::Pairs => "pairs",
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
            ShufflePath::Pairs if input.w % 2 != 0 || c_out % 4 != 0 => {
                Err("W % 2 == 0 and C_out % 4 == 0")
            }
            _ => Ok(()),
        }
    }
}

/// The new kernel's global grid in invocations for `path` (which must be
/// allowed, [`ShufflePath::check`]): (output channel blocks, input width,
/// input height x batch), with quads of blocks (tile) and of width (tile,
/// quad); the first two swapped when the blocks are on y.
pub fn shuffle_grid(input: Shape, path: ShufflePath, blocks: BlockAxis) -> [u32; 3] {
    let c4_out = dim((input.c / 4).div_ceil(4));
    let rows = dim(input.h.saturating_mul(input.n));
    let w = dim(input.w);
    let [b, x, z] = match path {
        ShufflePath::Words => [c4_out, w, rows],
        ShufflePath::Tile => [c4_out / 4, w / 4, rows],
        ShufflePath::Quad => [c4_out, w / 4, rows],
        ShufflePath::Pairs => [c4_out, w / 2, rows],
    };
    match blocks {
        BlockAxis::X => [b, x, z],
        BlockAxis::Y => [x, b, z],
    }
}

/// The baseline's global grid: (output width incl. 4W4C padding, output
/// height, output channel blocks x batch), output width fastest.
pub fn baseline_grid(input: Shape, out_layout: Layout) -> [u32; 3] {
    let ow = input.w.saturating_mul(2);
    let ow = if out_layout == Layout::Packed4W4C {
        ow.div_ceil(4).saturating_mul(4)
    } else {
        ow
    };
    let c4 = (input.c / 4).div_ceil(4);
    [
        dim(ow),
        dim(input.h.saturating_mul(2)),
        dim(c4.saturating_mul(input.n)),
    ]
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

/// Workgroups to launch for a grid of `grid` invocations at `local`, each
/// axis clamped to `max_groups` (`maxComputeWorkGroupCount`), and the
/// invocations that launches per axis (the shuffle shaders' loop steps).
pub fn launch(grid: [u32; 3], local: [u32; 3], max_groups: [u32; 3]) -> ([u32; 3], [u32; 3]) {
    // A local size of 0 counts as 1; launched counts saturate (no pipeline
    // has such a size: the pipeline checks it against the device's limits).
    let local = local.map(|l| l.max(1));
    let groups: [u32; 3] =
        std::array::from_fn(|i| grid[i].div_ceil(local[i]).clamp(1, max_groups[i].max(1)));
    let launched = std::array::from_fn(|i| groups[i].saturating_mul(local[i]));
    (groups, launched)
}

/// [`launch`] for a shuffle kernel whose `blocks` axis the shader does not
/// loop over (the baseline's: x): that axis is never clamped, and the
/// launched invocations come back with the width's (the loop's) step second,
/// as the push constants take them.
pub fn launch_shuffle(
    grid: [u32; 3],
    local: [u32; 3],
    max_groups: [u32; 3],
    blocks: BlockAxis,
) -> ([u32; 3], [u32; 3]) {
    let mut max = max_groups;
    max[blocks.index()] = u32::MAX;
    let (groups, mut launched) = launch(grid, local, max);
    if blocks == BlockAxis::Y {
        launched.swap(0, 1);
    }
    (groups, launched)
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
        shape.w4().saturating_mul(4)
    } else {
        shape.w
    };
    [
        dim(w),
        dim(shape.h),
        dim(shape.c4().saturating_mul(shape.n)),
    ]
}

/// The dequantize shader's grid: (`ceil(W / vec)`, height, channels x batch).
pub fn dequantize_grid(shape: Shape) -> [u32; 3] {
    let v = dequantize_vec_width(shape.w);
    [
        dim(shape.w.div_ceil(v)),
        dim(shape.h),
        dim(shape.c.saturating_mul(shape.n)),
    ]
}

/// A grid extent, saturated: past `u32::MAX` workgroups no device takes
/// it, and the dispatch's check against the device's limits refuses it
/// with the value (a cast would wrap to a small grid, silently).
fn dim(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
