//! The rules for tensors past a discrete GPU's cache: one row per layout
//! pair, quantization and path, measured on an H200 (and checked on an H100),
//! and the lookups the launch rules make in them.

use ncnn_glsl_core::DeviceType;

use super::{Axes, BlockAxis, Layout, Requantization, ShufflePath};
use crate::q8ta::Shape;

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
    /// Rows per invocation with a table (banked or mixed; [`super::Rewrite::rows`]):
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
pub(super) fn large_rows(
    input: Shape,
    axes: Axes,
    device: DeviceType,
) -> impl Iterator<Item = LargeRow> {
    let large = device == DeviceType::DiscreteGpu && input.elements() >= LARGE_ELEMENTS;
    LARGE_ON_DISCRETE.into_iter().filter(move |r| {
        large
            && (r.in_layout, r.out_layout, r.passthrough)
                == (axes.in_layout, axes.out_layout, axes.passthrough)
            && r.path.check(input).is_ok()
    })
}
