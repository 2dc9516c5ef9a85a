//! The launch plan: the one decision from a pixel shuffle (shape, layouts,
//! quantization) and a device to what the new kernel runs ([`Plan`]: path,
//! requantization, block axis, rows per invocation, workgroup shape).
//!
//! Every tuned number of the operator is here, named, and every table row
//! says in one line why and which result file chose it (paths under
//! `bench/results/`; `bench/results/RULES.md` has the figures). The rules
//! were measured per device class: a discrete GPU (NVIDIA H200 and H100), a
//! CPU device (lavapipe); other GPUs take the discrete GPU's rules for small
//! tensors and none of its large-tensor rows. Whatever a rule picks, the
//! plan fits the device's limits ([`Device`]).

use ncnn_glsl_runtime::{Context, DeviceType};

use super::launch::{shuffle_grid, Axes, BlockAxis, Rewrite, ShufflePath};
use super::layout::Layout;
use super::requantization::Requantization;
use super::shape::Shape;

/// What a plan depends on of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    /// Its class: the rules were measured per class.
    pub class: DeviceType,
    /// `maxComputeSharedMemorySize`: a requantization table that does not
    /// fit is replaced by one that does.
    pub max_shared_memory: u32,
    /// `maxComputeWorkGroupSize`.
    pub max_local_size: [u32; 3],
    /// `maxComputeWorkGroupInvocations`.
    pub max_invocations: u32,
}

impl Device {
    /// The device of `ctx`.
    pub fn of(ctx: &Context) -> Device {
        let l = ctx.limits();
        Device {
            class: ctx.caps().device_type,
            max_shared_memory: l.max_compute_shared_memory_size,
            max_local_size: l.max_compute_work_group_size,
            max_invocations: l.max_compute_work_group_invocations,
        }
    }

    /// A device of `class` whose limits bind no plan: the rule alone, where
    /// there is no device (`q8ta_bench --from-json`, tests of the rule).
    pub const fn unlimited(class: DeviceType) -> Device {
        Device {
            class,
            max_shared_memory: u32::MAX,
            max_local_size: [u32::MAX; 3],
            max_invocations: u32::MAX,
        }
    }
}

/// What the new kernel runs for one shuffle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Path, requantization, block axis and rows per invocation: the
    /// kernel's specialization constants.
    pub rewrite: Rewrite,
    /// The workgroup shape (the shader's `local_size_*_id`), fitted to the
    /// grid and to the device's limits.
    pub local: [u32; 3],
}

/// The plan the runtime runs for `input` shuffled as `axes` on `device`,
/// where the f32 requantization is exact for the scales (`float_exact`,
/// [`super::Requant::float_exact`]) or not.
pub fn plan(input: Shape, axes: Axes, float_exact: bool, device: &Device) -> Plan {
    plan_on(
        choose_path(input, axes, device.class, float_exact),
        input,
        axes,
        float_exact,
        device,
    )
}

/// The plan on `path`, forced (experiments, tests): the requantization,
/// block axis, rows and workgroup shape the runtime takes with that path.
/// Whether the path can take the shape is the launch's check
/// ([`super::PixelShuffle::launch`]).
pub fn plan_on(
    path: ShufflePath,
    input: Shape,
    axes: Axes,
    float_exact: bool,
    device: &Device,
) -> Plan {
    let row = large_row_on(path, input, axes, device.class);
    let blocks = match row {
        Some(r) => r.blocks,
        None if device.class == DeviceType::Cpu
            && shuffle_grid(input, path, BlockAxis::X)[0] < CPU_LANES =>
        {
            BlockAxis::Y
        }
        None => BlockAxis::X,
    };
    let requant = fit_requantization(
        requantization(row, input, axes, device.class, float_exact),
        device,
    );
    let rows = match (requant, row) {
        // f32 has no table to share between rows.
        (Requantization::Float, _) => 1,
        (_, Some(r)) => r.rows,
        (_, None) if large_rows(input, axes, device.class).next().is_some() => 1,
        (_, None) => rows_into_4c(path, input, axes, device.class),
    };
    plan_with(
        Rewrite {
            path,
            requant,
            blocks,
            rows,
        },
        input,
        axes,
        device,
    )
}

/// The plan for exactly `rewrite` (experiments): its workgroup shape.
pub fn plan_with(rewrite: Rewrite, input: Shape, axes: Axes, device: &Device) -> Plan {
    let grid = shuffle_grid(input, rewrite.path, rewrite.blocks);
    let local = if device.class == DeviceType::Cpu {
        // x and y: a CPU device runs 8 invocations of x at a time.
        fit_to_grid(CPU_LOCAL, grid, 2)
    } else {
        let local = match large_row_on(rewrite.path, input, axes, device.class) {
            Some(r) if r.blocks == rewrite.blocks => r.local,
            _ => gpu_local(input, axes, rewrite.path),
        };
        // x only: some of the best shapes are taller than their grid.
        fit_to_grid(local, grid, 1)
    };
    Plan {
        rewrite,
        local: fit_to_device(local, device),
    }
}

/// Tensors from which the large-tensor rows ([`LARGE`]) and the 8-row rule
/// apply on a GPU: 2^27 elements (128 MiB), far past an H200's 50 MB L2
/// cache; every large row was chosen at 2^27 and 2^28.
const LARGE_FROM: usize = 1 << 27;
/// Tensors from which a discrete GPU requantizes in f32 where exact:
/// `[1,256,96,96]`, the first seed size where f32 beat the table on the
/// H200 (`h200/seed-requant-{float,table}-{1,2}.json`).
const FLOAT_FROM: usize = 1 << 21;
/// Tensors from which a GPU takes the quad path (`[1,256,48,48]`): below it
/// its 4 times fewer invocations do not fill the GPU
/// (`h200/whole-run-fe0cf12.json`).
const QUAD_FROM: usize = 1 << 19;
/// Tensors from which a GPU takes the tile path from 4C1W into 4C
/// (`h200/whole-run-fe0cf12.json`; RULES.md: the current run puts the
/// crossing nearer 2^24).
const TILE_FROM: usize = 1 << 21;
/// Tensors from which input and output no longer fit an H200's L2 cache
/// (32 MiB): word by word into 4C1W passthrough, whole rows per workgroup
/// (`h200/whole-run-fe0cf12.json`, `h200/sweep-words-into-4c1w.json`).
const PAST_L2_FROM: usize = 1 << 25;
/// Widths from which a whole row of 128 pixels fills a workgroup on the
/// word path into 4C1W past the L2 cache.
const WHOLE_ROW: usize = 128;
/// A CPU device's workgroup: 8x8x1 beat the H200's shapes and 16x4x1 on
/// every pair on lavapipe (a sweep not kept; RULES.md, "CPU devices").
const CPU_LOCAL: [u32; 3] = [8, 8, 1];
/// A CPU device runs this many invocations of x at a time: with fewer
/// channel blocks across x the blocks go on y (`[1,16,64,64]` requantizing
/// 0.48-0.91x the baseline on x, 3.2-4.9x on y:
/// `lavapipe/whole-run-f653f0a.json`, `lavapipe/whole-run-70a5232.json`).
const CPU_LANES: u32 = 8;
/// Rows per invocation for a GPU's requantizing quad path into 4C on large
/// tensors: one table built per 8 rows was 5-7% faster on an H200
/// (`h200/whole-run-70a5232.json`).
const ROWS_INTO_4C: u32 = 8;
/// The deepest z [`fit_to_grid`] grows a workgroup to: at `[1,16,64,64]`
/// on lavapipe `8x1x8`, `8x1x4` and `8x1x1` ran within 5% of each other and
/// faster than `8x2x4` (a sweep not kept; RULES.md); each row of z
/// multiplies the rows a clamped grid needs.
const MAX_FIT_Z: u32 = 4;

/// The path for `input` shuffled as `axes` on a device of class `class`.
fn choose_path(input: Shape, axes: Axes, class: DeviceType, float_exact: bool) -> ShufflePath {
    use Layout::{Packed4C as C, Packed4C1W as C1W, Packed4W4C as W4C};
    if let Some(r) = large_rows(input, axes, class).find(|r| float_exact || !r.float_only) {
        return r.path;
    }
    let elements = input.elements();
    let path = match (axes.in_layout, axes.out_layout) {
        // Every case measured on lavapipe, passthrough and requantizing
        // (`lavapipe/whole-run-f653f0a.json`).
        _ if class == DeviceType::Cpu => ShufflePath::Quad,
        (C1W | W4C, C1W) if axes.passthrough && elements >= PAST_L2_FROM => ShufflePath::Words,
        (C1W, C) if elements >= TILE_FROM => ShufflePath::Tile,
        _ if elements >= QUAD_FROM => ShufflePath::Quad,
        // 5-7% faster than word by word on the H200 and the H100, 52 of 54
        // cases (`h200/whole-run.json`, `h100/whole-run-5aa7bd3.json`);
        // requantizing the two are within 2%.
        _ if axes.passthrough && class == DeviceType::DiscreteGpu => ShufflePath::Pairs,
        _ => ShufflePath::Words,
    };
    if path.check(input).is_ok() {
        path
    } else {
        ShufflePath::Words
    }
}

/// The rule's requantization on the path whose large row is `row`, before
/// the device's shared memory is considered.
fn requantization(
    row: Option<Row>,
    input: Shape,
    axes: Axes,
    class: DeviceType,
    float_exact: bool,
) -> Requantization {
    if let Some(r) = row.filter(|r| !r.passthrough) {
        return if r.requant.uses_float() && !float_exact {
            Requantization::Banked
        } else {
            r.requant
        };
    }
    let float_is_faster = match class {
        // Than per lane, 1.19x in the geometric mean of 36 cases
        // (`lavapipe/requant-{float,lanes}-{1,2}.json`).
        DeviceType::Cpu => true,
        DeviceType::DiscreteGpu => input.elements() >= FLOAT_FROM,
        _ => false,
    };
    if float_exact && !axes.passthrough && float_is_faster {
        Requantization::Float
    } else if class == DeviceType::Cpu {
        // lavapipe's shared-memory lookups and barrier cost more than the
        // arithmetic (RULES.md, "CPU devices").
        Requantization::Lanes
    } else {
        Requantization::Table
    }
}

/// `r`, or where its table does not fit the device's shared memory, the one
/// table (f32 for the mixed ways, which are chosen only where f32 is exact).
fn fit_requantization(r: Requantization, device: &Device) -> Requantization {
    match r {
        _ if r.check_shared_memory(device.max_shared_memory).is_ok() => r,
        _ if r.uses_float() => Requantization::Float,
        _ => Requantization::Table,
    }
}

/// [`ROWS_INTO_4C`] for a GPU's requantizing quad path from 4C or 4W4C into
/// 4C from [`LARGE_FROM`], else 1 (passthrough was slower with rows
/// everywhere).
fn rows_into_4c(path: ShufflePath, input: Shape, axes: Axes, class: DeviceType) -> u32 {
    use Layout::{Packed4C as C, Packed4W4C as W4C};
    let into_4c = matches!((axes.in_layout, axes.out_layout), (C | W4C, C));
    if class != DeviceType::Cpu
        && !axes.passthrough
        && path == ShufflePath::Quad
        && into_4c
        && input.elements() >= LARGE_FROM
    {
        ROWS_INTO_4C
    } else {
        1
    }
}

/// A GPU's workgroup shape for `path`, before the fit. Passthrough sweeps on
/// an H200 at `[8,256,256,256]` unless a row says otherwise; a GPU runs the
/// tile path only from 4C1W into 4C, the other tile rows serve CPU drivers.
fn gpu_local(input: Shape, axes: Axes, path: ShufflePath) -> [u32; 3] {
    use Layout::{Packed4C as C, Packed4C1W as C1W, Packed4W4C as W4C};
    let past_l2 = input.elements() >= PAST_L2_FROM;
    match (path, axes.in_layout, axes.out_layout) {
        // 95.4% of the copy shader (`h200/sweep-tile.json`).
        (ShufflePath::Tile, C1W, C) => [4, 8, 2],
        // 88.1%, 4x8x1 84.6% (`h200/sweep-tile.json`).
        (ShufflePath::Tile, W4C, C) => [4, 2, 8],
        // The best on 6 of the 7 other pairs (`h200/sweep-tile.json`).
        (ShufflePath::Tile, _, _) => [4, 8, 1],
        // 100.9 / 100.3% (`h200/sweep-quad.json`).
        (ShufflePath::Quad, C | W4C, W4C) => [16, 1, 4],
        // 95.6% (`h200/sweep-quad.json`).
        (ShufflePath::Quad, C1W, W4C) => [8, 16, 1],
        // 93.1%, 2x32x1 90.4% (`h200/sweep-quad.json`).
        (ShufflePath::Quad, C1W, C1W) => [1, 128, 1],
        // The best at 128 and 256 MiB (`h200/sweep-quad-into-4c.json`).
        (ShufflePath::Quad, C | W4C, C) => [16, 2, 1],
        // 90.8 / 87.2%, 16x4x1 89.2 / 86.5% (`h200/sweep-quad-into-4c.json`).
        (ShufflePath::Quad, C1W, C) => [16, 8, 1],
        // 91.4 / 93.6% (`h200/sweep-quad.json`).
        (ShufflePath::Quad, _, _) => [8, 4, 1],
        // Whole rows: 100.3 / 93.5% against 4x16x4's 88.6 / 91.7%
        // (`h200/sweep-words-into-4c1w.json`).
        (ShufflePath::Words, C1W | W4C, C1W) if past_l2 && input.w >= WHOLE_ROW => [1, 128, 1],
        // 90.3%, 4x16x4 88.9% (`h200/sweep-words-into-4c1w.json`).
        (ShufflePath::Words, C, C1W) if past_l2 => [4, 32, 2],
        // The best worst case of 8 shapes at the seed's sizes
        // (`h200/sweep-words-seed-sizes.json`).
        (ShufflePath::Words, _, _) => [4, 16, 4],
        // 98.8 / 100.1% on an H100 (`h100/4c-4c1w-paths-364c1aa.json`).
        (ShufflePath::Pairs, _, _) => [8, 4, 1],
    }
}

/// `local` with its first `axes` extents (x, then y) halved in turn while at
/// least half of that axis's invocations would fall past `grid`. What x
/// gives up goes to y; what y gives up goes to z up to [`MAX_FIT_Z`], then
/// the workgroup shrinks. Shapes whose grid covers the workgroup are
/// unchanged.
fn fit_to_grid(local: [u32; 3], grid: [u32; 3], axes: usize) -> [u32; 3] {
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

/// `local` within the device's `maxComputeWorkGroupSize` and
/// `maxComputeWorkGroupInvocations`: each axis clamped, then the largest
/// halved until the invocations fit.
fn fit_to_device(local: [u32; 3], device: &Device) -> [u32; 3] {
    let mut s: [u32; 3] = std::array::from_fn(|i| local[i].min(device.max_local_size[i]).max(1));
    while s.iter().map(|&d| u64::from(d)).product::<u64>()
        > u64::from(device.max_invocations.max(1))
    {
        let i = (0..3).max_by_key(|&i| s[i]).unwrap_or(0);
        s[i] = (s[i] / 2).max(1);
    }
    s
}

/// One row of [`LARGE`]: what a discrete GPU runs a layout pair and
/// quantization with on tensors of [`LARGE_FROM`] or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    in_layout: Layout,
    out_layout: Layout,
    passthrough: bool,
    path: ShufflePath,
    blocks: BlockAxis,
    local: [u32; 3],
    /// Where the scales allow f32 (requantizing rows); where a row's
    /// requantization uses f32 and they do not, the banked table.
    requant: Requantization,
    /// Rows per invocation with a table (the banked fallback's too).
    rows: u32,
    /// Taken only where f32 is exact; otherwise the pair's next row (on
    /// another path) is.
    float_only: bool,
}

/// The rows of [`LARGE`] for the pair and quantization whose path can take
/// `input`, on a discrete GPU at [`LARGE_FROM`] or more.
fn large_rows(input: Shape, axes: Axes, class: DeviceType) -> impl Iterator<Item = Row> {
    let large = class == DeviceType::DiscreteGpu && input.elements() >= LARGE_FROM;
    LARGE.into_iter().filter(move |r| {
        large
            && (r.in_layout, r.out_layout, r.passthrough)
                == (axes.in_layout, axes.out_layout, axes.passthrough)
            && r.path.check(input).is_ok()
    })
}

/// The row of [`LARGE`] on `path`, whatever its `float_only`: a pair has at
/// most one row per path (a test checks), so a chosen path's row is the one
/// chosen.
fn large_row_on(path: ShufflePath, input: Shape, axes: Axes, class: DeviceType) -> Option<Row> {
    large_rows(input, axes, class).find(|r| r.path == path)
}

/// What a discrete GPU runs on tensors of [`LARGE_FROM`] or more, where it
/// differs from the rules for smaller tensors: every requantizing pair and
/// three passthrough pairs, first row first. Swept on an H200 at 128 and
/// 256 MiB; the percentages are of the copy shader's bandwidth there.
const LARGE: [Row; 14] = {
    use BlockAxis::{X, Y};
    use Layout::{Packed4C as C, Packed4C1W as C1W, Packed4W4C as W4C};
    use Requantization::{Banked, Float, Mixed, MixedQuarter};
    use ShufflePath::{Pairs, Quad, Tile};
    const fn row(
        (in_layout, out_layout): (Layout, Layout),
        path: ShufflePath,
        blocks: BlockAxis,
        local: [u32; 3],
        requant: Option<(Requantization, u32)>,
    ) -> Row {
        let (passthrough, (requant, rows)) = match requant {
            Some(r) => (false, r),
            None => (true, (Banked, 1)),
        };
        Row {
            in_layout,
            out_layout,
            passthrough,
            path,
            blocks,
            local,
            requant,
            rows,
            float_only: false,
        }
    }
    const fn float_only(r: Row) -> Row {
        Row {
            float_only: true,
            ..r
        }
    }
    const PASS: Option<(Requantization, u32)> = None;
    [
        // f32 95 / 97%, banked 94 / 94% (`h200/large-requant-{float,banked}.json`).
        row((C, C), Quad, X, [16, 4, 4], Some((Float, 8))),
        // 94 / 95%; with a table this path rebuilds it per 32-64 pixel pairs,
        // 10% (`h200/sweep-pairs-4c-4c1w-requant-float.json`).
        float_only(row((C, C1W), Pairs, X, [8, 8, 1], Some((Float, 1)))),
        // Mixed at 3 rows 88 / 90%
        // (`h200/sweep-4c-4c1w-requant-mixed-rows-{1,2}.json`).
        row((C, C1W), Quad, X, [8, 32, 1], Some((Mixed, 3))),
        // f32 97 / 99%, banked 94 / 95% (`h200/large-requant-{float,banked}.json`).
        row((C, W4C), Quad, X, [16, 4, 4], Some((Float, 8))),
        // The tile path in f32 88 / 89%, the quad path 82 / 86%
        // (`h200/4c1w-4c-requant-tile-float-rows.json`).
        row((C1W, C), Tile, X, [4, 8, 2], Some((Float, 8))),
        // Where the tile path cannot take the shape (C_out % 16 != 0): f32
        // 83 / 87%, banked 77 / 78% (`h200/large-requant-{float,banked}.json`).
        row((C1W, C), Quad, X, [16, 4, 4], Some((Float, 8))),
        // Blocks on y 90% against 80% on x; banked 88 / 89% against f32
        // 77 / 79%; 16 rows 93 / 91% (`h200/sweep-large-requant-banked-blocks-y.json`,
        // `h200/sweep-into-4c1w-requant-banked-rows.json`).
        row((C1W, C1W), Quad, Y, [16, 4, 4], Some((Banked, 16))),
        // Blocks on y 83% against 82% on x; f32 92 / 94%, banked 87 / 85%
        // (`h200/sweep-large-requant-banked-blocks-y.json`, `h200/large-requant-*.json`).
        row((C1W, W4C), Quad, Y, [16, 16, 1], Some((Float, 8))),
        // f32 93 / 95%, banked 91 / 93% (`h200/large-requant-{float,banked}.json`).
        row((W4C, C), Quad, X, [16, 4, 4], Some((Float, 8))),
        // A quarter from the table at 4 rows 90 / 92%, half 83 / 86%
        // (`h200/sweep-4w4c-4c1w-requant-mixed-quarter-rows-{1,2}.json`).
        row((W4C, C1W), Quad, X, [4, 64, 1], Some((MixedQuarter, 4))),
        // f32 95 / 98%, banked 92 / 93% (`h200/large-requant-{float,banked}.json`).
        row((W4C, W4C), Quad, X, [16, 16, 1], Some((Float, 8))),
        // Blocks on y 97%, on x 94% (`h200/sweep-large-passthrough-blocks-y.json`).
        row((W4C, C1W), Quad, Y, [8, 4, 1], PASS),
        // Blocks on y 99.6%, on x 95.6% (`h200/sweep-large-passthrough-blocks-y.json`).
        row((C1W, W4C), Quad, Y, [8, 32, 1], PASS),
        // 98.5 / 100.9%, 8x4x1 80% (`h200/sweep-pairs-4c-4c1w-passthrough.json`).
        row((C, C1W), Pairs, X, [8, 8, 1], PASS),
    ]
};

#[cfg(test)]
mod tests;
