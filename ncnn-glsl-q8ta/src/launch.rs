//! The launch geometry of the q8ta shaders: the new kernel's paths and the
//! rule that picks one, the grids of every shader in invocations, and the
//! workgroups a grid takes on a device (y and z clamped, the shuffle shaders
//! loop over them).

use ncnn_glsl_runtime::DeviceType;

use super::layout::Layout;
use super::shape::Shape;

pub use super::requantization::{Requantization, BANKED_SHARED_BYTES};

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

/// The requantization for `input` shuffled as `axes` on `path` on a device of
/// type `device`, for scales the f32 requantization is exact for
/// (`float_exact`, [`super::Requant::float_exact`]) or not. The pair's first
/// row of [`LARGE_ON_DISCRETE`] on this path where it has one
/// ([`large_on_path`]; the banked table in its place where the row's needs
/// f32 and the scales do not allow it); else in f32 where it is exact and
/// [`float_is_faster`]; otherwise per lane on a CPU device, where lavapipe's
/// shared-memory lookups and barrier cost more than the arithmetic (the
/// table made the requantizing shuffle 0.5x the baseline on `[1,64,64,64]`,
/// per lane 2.4-3.2x; `bench/lavapipe.json`); the table elsewhere (per lane
/// the kernel was ALU-bound on an H200). A device without
/// [`BANKED_SHARED_BYTES`] of shared memory takes the table instead of the
/// banked or mixed one ([`super::Q8taOps`] checks).
pub fn requantization(
    input: Shape,
    axes: Axes,
    path: ShufflePath,
    device: DeviceType,
    float_exact: bool,
) -> Requantization {
    if let Some(r) = large_on_path(input, axes, device, path).filter(|r| !r.passthrough) {
        return if r.requant.uses_float() && !float_exact {
            Requantization::Banked
        } else {
            r.requant
        };
    }
    if float_exact && !axes.passthrough && float_is_faster(input, device) {
        Requantization::Float
    } else if device == DeviceType::Cpu {
        Requantization::Lanes
    } else {
        Requantization::Table
    }
}

/// Where the f32 requantization was measured faster than the other ways
/// (BENCHMARKS.md, "The f32 requantization"), [`LARGE_ON_DISCRETE`]'s
/// tensors aside: on a CPU device (lavapipe, than per lane: 1.2x in the
/// geometric mean of 36 cases), and on a discrete GPU from
/// [`FLOAT_ELEMENTS`] (an H200, than the table: at `[1,256,256,256]`
/// 1.09-1.46x, `[1,256,96,96]` 0.95-1.13x; below it within 7% either way, the
/// dispatch's cost).
pub fn float_is_faster(input: Shape, device: DeviceType) -> bool {
    match device {
        DeviceType::Cpu => true,
        DeviceType::DiscreteGpu => input.elements() >= FLOAT_ELEMENTS,
        _ => false,
    }
}

/// The tensors from which a discrete GPU requantizes in f32: 2^21 elements
/// (`[1,256,96,96]` is the first of the seed's sizes).
pub const FLOAT_ELEMENTS: usize = 1 << 21;

/// One row of [`LARGE_ON_DISCRETE`]: a layout pair and quantization, and
/// what a discrete GPU runs it with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LargeRow {
    /// The input layout.
    pub in_layout: Layout,
    /// The output layout.
    pub out_layout: Layout,
    /// Whether the row is for passthrough (else requantizing).
    pub passthrough: bool,
    /// The path.
    pub path: ShufflePath,
    /// The blocks' axis.
    pub blocks: BlockAxis,
    /// The workgroup shape (fitted to the grid on x, as every GPU shape).
    pub local: [u32; 3],
    /// The requantization where the scales allow f32 (requantizing rows;
    /// unused in passthrough ones).
    pub requant: Requantization,
    /// Rows per invocation with a table (banked or mixed; [`Rewrite::rows`]):
    /// one table serves that many rows of the workgroup. A row in f32 runs
    /// one row per invocation, and its rows are those of the banked table
    /// that stands in for it where f32 is not exact; passthrough rows, 1.
    pub rows: u32,
    /// Whether the runtime takes the row only for scales the f32
    /// requantization is exact for; for others it takes the pair's next row,
    /// which is on another path (a test checks), and the row's path forced
    /// (`ShuffleKernel::RewriteOn`) runs the banked table in place of f32. A
    /// row without it runs the banked table in place of f32 where f32 is not
    /// exact, on the same path and shape.
    pub float_only: bool,
}

/// The tensors [`LARGE_ON_DISCRETE`] is for: 2^27 elements (128 MiB) and more,
/// where the input and output are far past an H200's 50 MB L2 cache.
pub const LARGE_ELEMENTS: usize = 1 << 27;

/// What a discrete GPU runs on tensors of [`LARGE_ELEMENTS`] or more, where
/// it differs from the rules for smaller tensors: every requantizing pair and
/// three passthrough pairs (two with the blocks on y, where consecutive
/// invocations then write consecutive 32 bytes of a 4C1W or 4W4C row; 4C ->
/// 4C1W on the pairs path). From `q8ta_bench --sweep` on an H200 at
/// `[8,256,256,256]` and `[16,256,256,256]` (BENCHMARKS.md: "The pairs path
/// on the H200", "The word path and the quarter split", "Requantizing into
/// 4C1W", "The f32 requantization", "Requantizing on the H200"), % of a copy
/// shader's bandwidth at 128 / 256 MiB:
/// - 4C -> 4C1W on the pairs path at `8x8x1`, blocks on x: passthrough 98 /
///   101% (at `8x4x1` 80 / 80%, word by word at `4x16x2` 90 / 90%);
///   requantizing in f32 94 / 95%, only where f32 is exact (the quad path's
///   mixed requantization at 3 rows, the next row: 89-90 / 91%; the pairs
///   path with a table rebuilds it for every 32-64 pixel pairs: 10%). An
///   H100 agrees (98-99 / 99-100% both ways).
/// - into 4C1W from 4W4C a quarter from the table (4 rows: 89-91 / 92-94%,
///   mixed 83-85 / 86%), from 4C1W the banked table (16 rows: 92-93 /
///   91-93%);
/// - from 4C1W into 4C the tile path in f32 (88-90 / 89-90%, the quad path
///   82-83 / 86%; the banked table, where f32 is not exact, was measured on
///   the quad path only: 77 / 80%), the quad path where the tile path cannot
///   take the shape;
/// - elsewhere in f32 on the quad path (92-97 / 95-100%), the banked table at
///   8 rows where f32 is not exact;
/// - passthrough 4W4C -> 4C1W 97% (blocks on x: 92%), 4C1W -> 4W4C 99.6%
///   (94.5%).
pub const LARGE_ON_DISCRETE: [LargeRow; 14] = {
    use BlockAxis::{X, Y};
    use Layout::{Packed4C as C, Packed4C1W as C1W, Packed4W4C as W4C};
    use Requantization::{Banked, Float, Mixed, MixedQuarter};
    use ShufflePath::{Pairs, Quad, Tile};
    // `requant`: the requantization and rows of a requantizing row, `None`
    // for passthrough.
    const fn row(
        (i, o): (Layout, Layout),
        path: ShufflePath,
        b: BlockAxis,
        local: [u32; 3],
        requant: Option<(Requantization, u32)>,
    ) -> LargeRow {
        let (passthrough, (requant, rows)) = match requant {
            Some(r) => (false, r),
            None => (true, (Banked, 1)),
        };
        LargeRow {
            in_layout: i,
            out_layout: o,
            passthrough,
            path,
            blocks: b,
            local,
            requant,
            rows,
            float_only: false,
        }
    }
    // The row only where f32 is exact (its table fallback would be slow on
    // its path and shape).
    const fn float_only(r: LargeRow) -> LargeRow {
        LargeRow {
            float_only: true,
            ..r
        }
    }
    const PASS: Option<(Requantization, u32)> = None;
    [
        row((C, C), Quad, X, [16, 4, 4], Some((Float, 8))),
        float_only(row((C, C1W), Pairs, X, [8, 8, 1], Some((Float, 1)))),
        row((C, C1W), Quad, X, [8, 32, 1], Some((Mixed, 3))),
        row((C, W4C), Quad, X, [16, 4, 4], Some((Float, 8))),
        row((C1W, C), Tile, X, [4, 8, 2], Some((Float, 8))),
        // Where the tile path cannot take the shape (C_out % 16 != 0).
        row((C1W, C), Quad, X, [16, 4, 4], Some((Float, 8))),
        row((C1W, C1W), Quad, Y, [16, 4, 4], Some((Banked, 16))),
        row((C1W, W4C), Quad, Y, [16, 16, 1], Some((Float, 8))),
        row((W4C, C), Quad, X, [16, 4, 4], Some((Float, 8))),
        row((W4C, C1W), Quad, X, [4, 64, 1], Some((MixedQuarter, 4))),
        row((W4C, W4C), Quad, X, [16, 16, 1], Some((Float, 8))),
        row((W4C, C1W), Quad, Y, [8, 4, 1], PASS),
        row((C1W, W4C), Quad, Y, [8, 32, 1], PASS),
        row((C, C1W), Pairs, X, [8, 8, 1], PASS),
    ]
};

/// The row of [`LARGE_ON_DISCRETE`] for `input` shuffled as `axes` on a device
/// of type `device`, for scales the f32 requantization is exact for or not
/// (`float_exact`): only on a discrete GPU (the class measured), a tensor of
/// [`LARGE_ELEMENTS`] or more; the first of the pair's rows whose path can
/// take the shape and, if [`LargeRow::float_only`], where f32 is exact.
pub fn large_on_discrete(
    input: Shape,
    axes: Axes,
    device: DeviceType,
    float_exact: bool,
) -> Option<LargeRow> {
    large_rows(input, axes, device).find(|r| float_exact || !r.float_only)
}

/// The first row of [`LARGE_ON_DISCRETE`] on `path` for `input` shuffled as
/// `axes` on a device of type `device`, whatever its
/// [`LargeRow::float_only`]: what the path runs with, chosen or forced. A
/// pair has at most one row per path that the runtime may take for given
/// scales (a test checks), so the chosen path's row is the one chosen.
pub fn large_on_path(
    input: Shape,
    axes: Axes,
    device: DeviceType,
    path: ShufflePath,
) -> Option<LargeRow> {
    large_rows(input, axes, device).find(|r| r.path == path)
}

/// The rows of [`LARGE_ON_DISCRETE`] for the pair and quantization whose path
/// can take `input`, on a discrete GPU at [`LARGE_ELEMENTS`] or more.
fn large_rows(input: Shape, axes: Axes, device: DeviceType) -> impl Iterator<Item = LargeRow> {
    let large = device == DeviceType::DiscreteGpu && input.elements() >= LARGE_ELEMENTS;
    LARGE_ON_DISCRETE.into_iter().filter(move |r| {
        large
            && (r.in_layout, r.out_layout, r.passthrough)
                == (axes.in_layout, axes.out_layout, axes.passthrough)
            && r.path.check(input).is_ok()
    })
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

/// The blocks' axis for `input` shuffled as `axes` on `path` on a device of
/// type `device`: [`LARGE_ON_DISCRETE`]'s where it has a row for this path; y
/// on a CPU device when fewer than 8 blocks (or block quads, tile path) span
/// x; else x. lavapipe runs a workgroup 8 invocations of x at a time, so a
/// grid one or two blocks wide left 7 of 8 lanes idle: at `[1,16,64,64]`
/// the quad path ran at 0.7-0.9x the baseline requantizing, whatever the
/// workgroup shape, and as fast as at `[1,256,16,16]` (3x) with the width on x
/// (BENCHMARKS.md). A GPU's subgroups take consecutive invocations of the
/// whole workgroup, which [`fit_to_grid`] keeps busy.
pub fn block_axis(input: Shape, axes: Axes, path: ShufflePath, device: DeviceType) -> BlockAxis {
    if let Some(r) = large_on_path(input, axes, device, path) {
        r.blocks
    } else if device == DeviceType::Cpu && shuffle_grid(input, path, BlockAxis::X)[0] < 8 {
        BlockAxis::Y
    } else {
        BlockAxis::X
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

impl Rewrite {
    /// What the runtime runs for `input` shuffled as `axes` on a device of
    /// type `device`, for scales the f32 requantization is exact for or not
    /// (`float_exact`): [`shuffle_path`], [`requantization`], [`block_axis`],
    /// [`rows_per_invocation`].
    pub fn choose(input: Shape, axes: Axes, device: DeviceType, float_exact: bool) -> Self {
        Rewrite::on(
            shuffle_path(input, axes, device, float_exact),
            input,
            axes,
            device,
            float_exact,
        )
    }

    /// `path` with the requantization, block axis and rows the runtime takes
    /// with it for `input` shuffled as `axes` on a device of type `device`;
    /// one row per invocation in f32, which has no table to share (8 rows
    /// made it 8-18% slower on an H200 at 256 MiB, BENCHMARKS.md).
    pub fn on(
        path: ShufflePath,
        input: Shape,
        axes: Axes,
        device: DeviceType,
        float_exact: bool,
    ) -> Self {
        Rewrite {
            path,
            requant: Requantization::Table,
            blocks: block_axis(input, axes, path, device),
            rows: rows_per_invocation(input, axes, path, device),
        }
        .with_requant(requantization(input, axes, path, device, float_exact))
    }

    /// The same with `requant` instead, and one row per invocation if that
    /// is f32.
    pub fn with_requant(self, requant: Requantization) -> Self {
        Rewrite {
            requant,
            rows: if requant == Requantization::Float {
                1
            } else {
                self.rows
            },
            ..self
        }
    }
}

/// The rows per invocation ([`Rewrite::rows`]) for `input` shuffled as
/// `axes` on `path` on a device of type `device`: the row's for
/// [`LARGE_ON_DISCRETE`]'s requantizing rows on their path; on another GPU 8
/// for the requantizing quad path from 4C or 4W4C into 4C on tensors of
/// [`LARGE_ELEMENTS`] or more, where the table built once per 8 rows made the
/// kernel 5-7% faster on an H200 (`bench/h200.json` of 2026-12-02: 4C -> 4C
/// 81.6 -> 77.0 us and 154.7 -> 143.4 us, beyond either's p10-p90);
/// elsewhere 1. At `[1,256,256,256]` 8 rows were slower on every pair,
/// passthrough slower everywhere.
pub fn rows_per_invocation(input: Shape, axes: Axes, path: ShufflePath, device: DeviceType) -> u32 {
    use Layout::{Packed4C as C, Packed4W4C as W4C};
    if large_rows(input, axes, device).next().is_some() {
        return match large_on_path(input, axes, device, path) {
            Some(r) if !r.passthrough => r.rows,
            _ => 1,
        };
    }
    let into_4c = matches!((axes.in_layout, axes.out_layout), (C | W4C, C));
    let gpu = device != DeviceType::Cpu;
    if gpu
        && !axes.passthrough
        && path == ShufflePath::Quad
        && into_4c
        && input.elements() >= LARGE_ELEMENTS
    {
        8
    } else {
        1
    }
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

/// The path the runtime takes for `input` shuffled as `axes` says. On a GPU,
/// the tiled paths only where the tensor is large enough that their 16 or 4
/// times fewer invocations still fill it: the quad path from 2^19 input
/// elements (`[1,256,48,48]`), the tile path from 4C1W into 4C from 2^21
/// (`[1,256,96,96]`); and word by word from 4C1W or 4W4C into 4C1W without
/// requantization from 2^25 (tensors past the L2 cache, with whole rows per
/// workgroup: [`super::shuffle_local_size`]). These are where each became
/// the fastest on an H200 (`BENCHMARKS.md`, `bench/h200-raw.json`). Below
/// 2^19 a discrete GPU shuffles without requantization on the pairs path,
/// elsewhere word by word: at `[1,256,16..32,16..32]` the pairs path was 5-7%
/// faster than word by word in the geometric mean of the 9 pairs on an H200
/// and on an H100 alike, and faster case by case on 27 of 27 (H200) and 25
/// of 27 (H100: one equal, one 0.07 us slower; `bench/h200-raw.json`,
/// `bench/h100-raw.json`);
/// requantizing, the two were within 2%. On a CPU device
/// (lavapipe) the quad path at 8x8x1 ([`shuffle_local_size_on`]) with the
/// requantization per lane was the fastest on every case measured, from
/// `[1,16,64,64]` to `[1,256,256,256]`, passthrough and requantizing
/// (`bench/lavapipe.json`): quad wherever allowed, else word by word.
/// [`LARGE_ON_DISCRETE`]'s rows come first, for scales the f32
/// requantization is exact for or not (`float_exact`: some rows are only for
/// the former, [`LargeRow::float_only`]).
pub fn shuffle_path(
    input: Shape,
    axes: Axes,
    device: DeviceType,
    float_exact: bool,
) -> ShufflePath {
    if let Some(r) = large_on_discrete(input, axes, device, float_exact) {
        return r.path;
    }
    if device == DeviceType::Cpu {
        return if ShufflePath::Quad.check(input).is_ok() {
            ShufflePath::Quad
        } else {
            ShufflePath::Words
        };
    }
    let elements = input.elements();
    use Layout::{Packed4C as C, Packed4C1W as C1W, Packed4W4C as W4C};
    let path = match (axes.in_layout, axes.out_layout) {
        (C1W | W4C, C1W) if axes.passthrough && elements >= 1 << 25 => ShufflePath::Words,
        (C1W, C) if elements >= 1 << 21 => ShufflePath::Tile,
        _ if elements >= 1 << 19 => ShufflePath::Quad,
        _ if axes.passthrough && device == DeviceType::DiscreteGpu => ShufflePath::Pairs,
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

/// The new kernel's workgroup shape for `input` shuffled as `axes` on `path`
/// on a device of type `device` with the blocks on `blocks`: on a CPU device
/// `8x8x1` fitted to the grid on x and y ([`fit_to_grid`]); elsewhere
/// [`LARGE_ON_DISCRETE`]'s where it has a row for this path and axis, else
/// [`shuffle_local_size`]'s table, fitted on x.
pub fn shuffle_local_size_on(
    device: DeviceType,
    input: Shape,
    axes: Axes,
    path: ShufflePath,
    blocks: BlockAxis,
) -> [u32; 3] {
    let grid = shuffle_grid(input, path, blocks);
    if device == DeviceType::Cpu {
        // lavapipe, every pair: 8x8x1 beat the H200's shapes below and 16x4x1
        // (`bench/lavapipe.json`, BENCHMARKS.md).
        return fit_to_grid([8, 8, 1], grid, 2);
    }
    let local = match large_on_path(input, axes, device, path) {
        Some(r) if r.blocks == blocks => r.local,
        _ => gpu_local_size(input, axes.in_layout, axes.out_layout, path),
    };
    // x only: some of the H200's best shapes are taller than their grid.
    fit_to_grid(local, grid, 1)
}

/// `local` with its first `axes` extents (x, then y) halved in turn while at
/// least half of that axis's invocations would fall past `grid`, fewer idle
/// for want of channel blocks or width (a tensor of one output channel
/// block at `8x8x1` left 7 of 8 idle). What x gives up goes to y; what y gives
/// up goes to z up to 4 ([`MAX_FIT_Z`]), then the workgroup shrinks. Shapes
/// whose grid covers the workgroup are unchanged.
pub fn fit_to_grid(local: [u32; 3], grid: [u32; 3], axes: usize) -> [u32; 3] {
    let mut l = local;
    for axis in 0..axes.min(2) {
        while l[axis] > 1 && l[axis] / 2 >= grid[axis].max(1) {
            l[axis] /= 2;
            if axis == 0 || l[2] < MAX_FIT_Z {
                l[axis + 1] *= 2;
            }
        }
    }
    l
}

/// The deepest z [`fit_to_grid`] grows a workgroup to. On lavapipe, at
/// `[1,16,64,64]` (one channel block on y), `8x1x8`, `8x1x4` and `8x1x1` ran
/// within 5% of each other and 40% faster than `8x2x4` (BENCHMARKS.md);
/// each row of z multiplies the rows a grid past `maxComputeWorkGroupCount`
/// needs before it is clamped.
pub const MAX_FIT_Z: u32 = 4;

/// The new kernel's workgroup shape for `input` shuffled between these
/// layouts on `path` ([`super::PixelShuffle::local_size`]). The tiled and quad paths' shapes were
/// chosen on an NVIDIA H200 by `q8ta_bench --sweep` at `[8,256,256,256]`,
/// passthrough, with the GPU at full clocks (the sweeps and choices are
/// `bench/h200-sweep-{tile,quad}.json` and `bench/h200-best-{tile,quad}.json`;
/// the quad path into 4C, `bench/h200-sweep-quad-4c.json`, at both large sizes).
/// A GPU runs the tile path only from 4C1W into 4C; elsewhere it serves CPU drivers,
/// so those pairs take the compact `4x8x1` (best or within 3% of it on the
/// H200 for every such pair but 4C1W -> 4C1W, whose best, `2x128x1`, leaves
/// most of a 16-wide row's invocations idle). The word-by-word path takes
/// `4x16x4` (of 8 shapes swept on the H200 from `[1,256,16,16]` to
/// `[1,256,128,128]`, `bench/h200-sweep-words.json`, it had the best or
/// nearly the best speedup over the baseline at every size, and the best worst
/// case; the seed's Adreno 830 shapes were 1-10% slower), except into 4C1W
/// on tensors of 2^25 elements or more (32 MiB: input and output no longer
/// fit the H200's 50 MB L2), where whole rows of 128 pixels per workgroup
/// (`1x128x1`, from 4C1W or 4W4C, W >= 128) or `4x32x2` (from 4C) moved
/// 95-100% and 90-92% of a copy's bandwidth, against 89-93% for `4x16x4`
/// (`bench/h200-sweep-words-4c1w.json`).
pub fn shuffle_local_size(
    input: Shape,
    in_layout: Layout,
    out_layout: Layout,
    path: ShufflePath,
) -> [u32; 3] {
    let local = gpu_local_size(input, in_layout, out_layout, path);
    fit_to_grid(local, shuffle_grid(input, path, BlockAxis::X), 1)
}

/// The table behind [`shuffle_local_size`], before the fit.
fn gpu_local_size(
    input: Shape,
    in_layout: Layout,
    out_layout: Layout,
    path: ShufflePath,
) -> [u32; 3] {
    use Layout::{Packed4C as C, Packed4C1W as C1W, Packed4W4C as W4C};
    match path {
        ShufflePath::Tile => match (in_layout, out_layout) {
            (C1W, C) => [4, 8, 2],
            (W4C, C) => [4, 2, 8],
            _ => [4, 8, 1],
        },
        ShufflePath::Quad => match (in_layout, out_layout) {
            (C | W4C, W4C) => [16, 1, 4],
            (C1W, W4C) => [8, 16, 1],
            (C1W, C1W) => [1, 128, 1],
            (C | W4C, C) => [16, 2, 1],
            (C1W, C) => [16, 8, 1],
            _ => [8, 4, 1],
        },
        ShufflePath::Words => match (in_layout, out_layout) {
            (C1W | W4C, C1W) if input.elements() >= 1 << 25 && input.w >= 128 => [1, 128, 1],
            (C, C1W) if input.elements() >= 1 << 25 => [4, 32, 2],
            _ => [4, 16, 4],
        },
        ShufflePath::Pairs => [8, 4, 1],
    }
}
