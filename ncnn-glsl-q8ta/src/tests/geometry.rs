//! The launch geometry's rules and checks: paths, block axes, workgroup
//! shapes, rows per invocation, grids, specialization constants.

use super::*;

#[test]
fn the_runtime_takes_the_tiled_paths_on_large_tensors_only() {
    use Layout::{Packed4C as C, Packed4C1W as C1W, Packed4W4C as W4C};
    const GPU: DeviceType = DeviceType::DiscreteGpu;
    let axes = |in_layout, out_layout, passthrough| Axes {
        in_layout,
        out_layout,
        passthrough,
    };
    let path =
        |s: Shape, i: Layout, o: Layout| launch::shuffle_path(s, axes(i, o, true), GPU, true);
    let big = Shape::new(8, 256, 256, 256);
    assert_eq!(path(big, C1W, C), ShufflePath::Tile);
    assert_eq!(path(big, W4C, C), ShufflePath::Quad);
    assert_eq!(path(big, C, C), ShufflePath::Quad);
    assert_eq!(path(big, C, W4C), ShufflePath::Quad);
    assert_eq!(path(big, C1W, C1W), ShufflePath::Words);
    // A row of the large-tensor table (discrete GPUs): quad, the blocks on y.
    assert_eq!(path(big, W4C, C1W), ShufflePath::Quad);
    let integrated =
        launch::shuffle_path(big, axes(W4C, C1W, true), DeviceType::IntegratedGpu, true);
    assert_eq!(integrated, ShufflePath::Words);
    // Passthrough from 4C into 4C1W on the pairs path (a row of the table),
    // the quad path below it; an odd width takes neither.
    assert_eq!(path(big, C, C1W), ShufflePath::Pairs);
    assert_eq!(
        path(Shape::new(16, 256, 256, 254), C, C1W),
        ShufflePath::Pairs
    );
    assert_eq!(
        path(Shape::new(16, 256, 256, 255), C, C1W),
        ShufflePath::Words
    );
    let below = Shape::new(4, 256, 256, 256);
    assert_eq!(path(below, C, C1W), ShufflePath::Quad);
    // Requantizing, the quad path stays the faster one into 4C1W.
    let requant = launch::shuffle_path(big, axes(C1W, C1W, false), GPU, true);
    assert_eq!(requant, ShufflePath::Quad);
    // Small tensors: the pairs path passthrough on a discrete GPU, word by
    // word requantizing, on other GPUs and where the pairs path cannot take
    // the shape.
    let small = Shape::new(1, 256, 16, 16);
    assert_eq!(path(small, W4C, C), ShufflePath::Pairs);
    let small_requant = launch::shuffle_path(small, axes(W4C, C, false), GPU, true);
    assert_eq!(small_requant, ShufflePath::Words);
    let small_integrated =
        launch::shuffle_path(small, axes(W4C, C, true), DeviceType::IntegratedGpu, true);
    assert_eq!(small_integrated, ShufflePath::Words);
    assert_eq!(path(Shape::new(1, 256, 16, 15), C, C), ShufflePath::Words);
    // The measured thresholds: quad from [1,256,48,48], tile from 4C1W into 4C from
    // [1,256,96,96], words into 4C1W from [8,256,128,128].
    let s256 = Shape::new(1, 256, 256, 256);
    let s96 = Shape::new(1, 256, 96, 96);
    let s48 = Shape::new(1, 256, 48, 48);
    let s32 = Shape::new(1, 256, 32, 32);
    assert_eq!(path(s96, C1W, C), ShufflePath::Tile);
    assert_eq!(path(s48, C1W, C), ShufflePath::Quad);
    assert_eq!(path(s48, W4C, C), ShufflePath::Quad);
    assert_eq!(path(s256, C, C1W), ShufflePath::Quad);
    assert_eq!(
        path(Shape::new(8, 256, 128, 128), W4C, C1W),
        ShufflePath::Words
    );
    assert_eq!(path(s32, C, W4C), ShufflePath::Pairs);
    // Not a multiple of 4 wide: words, however large.
    let odd = Shape::new(8, 256, 256, 255);
    assert_eq!(path(odd, C, C), ShufflePath::Words);
    // Word by word into 4C1W past the cache: whole rows of 128 pixels per workgroup where
    // the rows are that wide.
    let words =
        |s: Shape, i: Layout, o: Layout| super::shuffle_local_size(s, i, o, ShufflePath::Words);
    assert_eq!(words(big, C1W, C1W), [1, 128, 1]);
    assert_eq!(words(big, W4C, C1W), [1, 128, 1]);
    assert_eq!(words(big, C, C1W), [4, 32, 2]);
    assert_eq!(words(Shape::new(32, 256, 256, 64), C1W, C1W), [4, 16, 4]);
    assert_eq!(words(s256, C1W, C1W), [4, 16, 4]);
    assert_eq!(words(big, C1W, W4C), [4, 16, 4]);
    // A CPU device takes the quad path wherever it may, however small or
    // large, at 8x8x1, and requantizes per lane; a GPU keeps the table.
    let cpu = |s: Shape, i: Layout, o: Layout| {
        launch::shuffle_path(s, axes(i, o, true), DeviceType::Cpu, true)
    };
    assert_eq!(cpu(small, W4C, C), ShufflePath::Quad);
    assert_eq!(cpu(big, C1W, C), ShufflePath::Quad);
    let c8 = Shape::new(1, 32, 2, 4);
    assert_eq!(cpu(c8, C, C1W), ShufflePath::Quad);
    assert_eq!(cpu(odd, C, C1W), ShufflePath::Words);
    let local_on = |d, s, p| {
        let a = axes(C1W, W4C, true);
        let b = launch::block_axis(s, a, p, d);
        launch::shuffle_local_size_on(d, s, a, p, b)
    };
    assert_eq!(local_on(DeviceType::Cpu, big, ShufflePath::Quad), [8, 8, 1]);
    assert_eq!(
        local_on(DeviceType::Cpu, big, ShufflePath::Words),
        [8, 8, 1]
    );
    assert_eq!(
        local_on(DeviceType::IntegratedGpu, big, ShufflePath::Quad),
        [8, 16, 1]
    );
    // The large-tensor table's row for this pair.
    assert_eq!(
        local_on(DeviceType::DiscreteGpu, big, ShufflePath::Quad),
        [8, 32, 1]
    );
    // Fewer than 8 output channel blocks: on a CPU device the blocks go to y
    // and the workgroup follows them to z (4 deep at most, then shrinks); a
    // GPU keeps them on x and moves the idle x invocations to y.
    let one_block = Shape::new(1, 16, 64, 64);
    let half_block = Shape::new(1, 8, 64, 64);
    for (s, p) in [
        (one_block, ShufflePath::Quad),
        (half_block, ShufflePath::Words),
    ] {
        let a = axes(C1W, W4C, true);
        assert_eq!(launch::block_axis(s, a, p, DeviceType::Cpu), BlockAxis::Y);
        assert_eq!(local_on(DeviceType::Cpu, s, p), [8, 1, 4]);
        assert_eq!(
            launch::block_axis(s, a, p, DeviceType::DiscreteGpu),
            BlockAxis::X
        );
    }
    assert_eq!(
        local_on(DeviceType::DiscreteGpu, one_block, ShufflePath::Quad),
        [1, 128, 1]
    );
    let block_axis = |s, p, d| launch::block_axis(s, axes(C, C, false), p, d);
    assert_eq!(
        block_axis(big, ShufflePath::Quad, DeviceType::Cpu),
        BlockAxis::X
    );
    // 8 block quads or more stay on x; the tile path counts quads of blocks.
    let c128 = Shape::new(1, 128, 4, 4);
    assert_eq!(
        block_axis(c128, ShufflePath::Quad, DeviceType::Cpu),
        BlockAxis::X
    );
    assert_eq!(
        block_axis(c128, ShufflePath::Tile, DeviceType::Cpu),
        BlockAxis::Y
    );
    assert_eq!(launch::fit_to_grid([8, 8, 1], [1, 16, 64], 2), [1, 16, 4]);
    assert_eq!(launch::fit_to_grid([8, 8, 1], [1, 16, 64], 1), [1, 64, 1]);
    assert_eq!(launch::fit_to_grid([8, 8, 1], [16, 1, 64], 2), [8, 1, 4]);
    assert_eq!(launch::fit_to_grid([8, 8, 1], [8, 8, 1], 2), [8, 8, 1]);
    assert_eq!(launch::fit_to_grid([4, 16, 4], [5, 9, 1], 2), [4, 16, 4]);
    assert_eq!(
        launch::shuffle_grid(one_block, ShufflePath::Quad, BlockAxis::Y),
        [16, 1, 64]
    );
    // Rows per invocation: the large-tensor table's on a discrete GPU, for
    // its requantizing rows on their path; on other GPUs 8 for the
    // requantizing quad path into 4C from 4C or 4W4C, from 2^27 elements.
    const OTHER: DeviceType = DeviceType::IntegratedGpu;
    let rows = |s: Shape, i: Layout, o: Layout, pass: bool, d: DeviceType| {
        launch::rows_per_invocation(s, axes(i, o, pass), ShufflePath::Quad, d)
    };
    let huge = Shape::new(8, 256, 256, 256);
    for (i, o) in [(C, C), (W4C, C), (C, W4C)] {
        assert_eq!(rows(huge, i, o, false, GPU), 8);
    }
    assert_eq!(rows(huge, C1W, C1W, false, GPU), 16);
    assert_eq!(rows(huge, C, C1W, false, GPU), 3);
    assert_eq!(rows(huge, W4C, C1W, false, GPU), 4);
    // 4C1W -> 4C on the quad path: its own row's (the row the runtime takes
    // where the tile path cannot take the shape).
    assert_eq!(rows(huge, C1W, C, false, GPU), 8);
    let c1w_c = axes(C1W, C, false);
    assert_eq!(
        launch::rows_per_invocation(huge, c1w_c, ShufflePath::Tile, GPU),
        8
    );
    let k = Rewrite::choose(huge, c1w_c, GPU, true);
    assert_eq!(
        (k.path, k.requant, k.rows),
        (ShufflePath::Tile, Requantization::Float, 1)
    );
    // Where the tile path cannot take the shape (C_out % 16 != 0): the quad
    // path's row, not the rules for smaller tensors.
    let narrow = Shape::new(1, 32, 2048, 2048);
    assert!(ShufflePath::Tile.check(narrow).is_err());
    let k = Rewrite::choose(narrow, c1w_c, GPU, false);
    assert_eq!(
        (k.path, k.requant, k.rows),
        (ShufflePath::Quad, Requantization::Banked, 8)
    );
    assert_eq!(rows(huge, C, C, false, OTHER), 8);
    assert_eq!(rows(huge, W4C, C, false, OTHER), 8);
    assert_eq!(rows(huge, C1W, C, false, OTHER), 1);
    assert_eq!(rows(huge, C, W4C, false, OTHER), 1);
    assert_eq!(rows(huge, C, C, true, GPU), 1);
    assert_eq!(rows(huge, C, C, false, DeviceType::Cpu), 1);
    assert_eq!(rows(Shape::new(1, 256, 256, 256), C, C, false, GPU), 1);
    assert_eq!(Rewrite::choose(huge, axes(C, C, false), GPU, false).rows, 8);
    // In f32 (scales it is exact for), one row: it has no table to share.
    let k = Rewrite::choose(huge, axes(C, C, false), GPU, true);
    assert_eq!((k.requant, k.rows), (Requantization::Float, 1));
    // What the runtime runs on a discrete GPU: path, requantization, block
    // axis, rows and workgroup shape.
    let chosen = |s: Shape, a: Axes, exact: bool| {
        let k = Rewrite::choose(s, a, GPU, exact);
        let local = launch::shuffle_local_size_on(GPU, s, a, k.path, k.blocks);
        (k.path, k.requant, k.blocks, k.rows, local)
    };
    use BlockAxis::X;
    use Requantization::{Banked, Float, Table};
    use ShufflePath::{Pairs, Quad, Words};
    // Into 4C1W from 4C: f32 on the pairs path where f32 is exact (a row
    // only for such scales); elsewhere the next row, the quad path with the
    // banked table in mixed's place.
    let req = axes(C, C1W, false);
    assert_eq!(chosen(huge, req, true), (Pairs, Float, X, 1, [8, 8, 1]));
    assert_eq!(chosen(huge, req, false), (Quad, Banked, X, 3, [8, 32, 1]));
    // An odd width, which the pairs path cannot take: the quad path neither.
    let odd = Rewrite::choose(Shape::new(16, 256, 256, 255), req, GPU, true);
    assert_eq!(odd.path, Words);
    // W % 4 == 2: the pairs path where f32 is exact; elsewhere its row is
    // passed over, the quad path cannot take the shape, and the word path
    // runs by the rules for smaller tensors.
    let w254 = Shape::new(16, 256, 256, 254);
    assert_eq!(chosen(w254, req, true), (Pairs, Float, X, 1, [8, 8, 1]));
    let (path, requant, _, rows, _) = chosen(w254, req, false);
    assert_eq!((path, requant, rows), (Words, Table, 1));
    // A quarter from the table from 4W4C, the banked table where f32 is not
    // exact.
    let k = Rewrite::choose(huge, axes(W4C, C1W, false), GPU, true);
    assert_eq!((k.requant, k.rows), (Requantization::MixedQuarter, 4));
    let k = Rewrite::choose(huge, axes(W4C, C1W, false), GPU, false);
    assert_eq!((k.requant, k.rows), (Requantization::Banked, 4));
    // 4C -> 4C1W passthrough on the pairs path, at the row's shape.
    let (path, _, blocks, rows, local) = chosen(huge, axes(C, C1W, true), true);
    assert_eq!((path, blocks, rows, local), (Pairs, X, 1, [8, 8, 1]));
    let k = Rewrite::choose(huge, axes(C1W, C1W, false), GPU, true);
    assert_eq!((k.requant, k.rows), (Requantization::Banked, 16));
    // The tile path is not the row's: one row per invocation.
    let tile = launch::rows_per_invocation(huge, axes(C, C, false), ShufflePath::Tile, GPU);
    assert_eq!(tile, 1);
    // Each path with its own row's requantization: into 4C1W from 4C the
    // quad path mixed, the pairs path in f32 (the banked table where f32 is
    // not exact, if the path is forced), the word path, which has no row, by
    // the rules below.
    let on = |path, exact| launch::requantization(huge, req, path, GPU, exact);
    assert_eq!(on(ShufflePath::Quad, true), Requantization::Mixed);
    assert_eq!(on(ShufflePath::Quad, false), Requantization::Banked);
    assert_eq!(on(ShufflePath::Pairs, true), Requantization::Float);
    assert_eq!(on(ShufflePath::Pairs, false), Requantization::Banked);
    assert_eq!(on(ShufflePath::Words, true), Requantization::Float);
    assert_eq!(on(ShufflePath::Words, false), Requantization::Table);
    // Where f32 was measured faster, for scales it is exact for only (on the
    // path the runtime takes).
    let float = |s, o, d| {
        let a = axes(C, o, false);
        launch::requantization(s, a, launch::shuffle_path(s, a, d, true), d, true)
    };
    assert_eq!(float(huge, C, DeviceType::Cpu), Requantization::Float);
    assert_eq!(
        float(Shape::new(1, 8, 4, 4), C, DeviceType::Cpu),
        Requantization::Float
    );
    assert_eq!(float(huge, C, GPU), Requantization::Float);
    assert_eq!(float(huge, C1W, GPU), Requantization::Float);
    assert_eq!(
        float(Shape::new(1, 256, 96, 96), C1W, GPU),
        Requantization::Float
    );
    assert_eq!(
        float(Shape::new(1, 256, 64, 64), C, GPU),
        Requantization::Table
    );
    assert_eq!(
        float(huge, C, DeviceType::IntegratedGpu),
        Requantization::Table
    );
    let quad = ShufflePath::Quad;
    let pass = launch::requantization(huge, axes(C, C, true), quad, DeviceType::Cpu, true);
    assert_eq!(pass, Requantization::Lanes);
    let requantization = |s, pass, d| launch::requantization(s, axes(C, C, pass), quad, d, false);
    assert_eq!(
        requantization(huge, false, DeviceType::Cpu),
        Requantization::Lanes
    );
    assert_eq!(requantization(huge, false, GPU), Requantization::Banked);
    for (s, d) in [
        (Shape::new(1, 256, 256, 256), GPU),
        (huge, DeviceType::IntegratedGpu),
        (huge, DeviceType::Other),
        (huge, DeviceType::VirtualGpu),
    ] {
        assert_eq!(requantization(s, false, d), Requantization::Table);
    }
    // The banked table needs 32 KiB: on a device with the 16 KiB every
    // Vulkan device has, an error with both numbers; the one table fits.
    let e = Requantization::Banked
        .check_shared_memory(16384)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the `banked` requantization needs 32768 bytes of shared memory, \
         maxComputeSharedMemorySize is 16384"
    );
    assert_eq!(Requantization::Banked.check_shared_memory(32768), Ok(()));
    assert_eq!(Requantization::Table.check_shared_memory(16384), Ok(()));
    assert_eq!(ShufflePath::Quad.check(big), Ok(()));
    assert!(ShufflePath::Tile.check(Shape::new(1, 32, 4, 4)).is_err());
    // The pairs path: an even width and whole output block quads.
    assert_eq!(ShufflePath::Pairs.check(Shape::new(1, 16, 3, 2)), Ok(()));
    assert!(ShufflePath::Pairs.check(Shape::new(1, 16, 2, 3)).is_err());
    assert!(ShufflePath::Pairs.check(Shape::new(1, 8, 2, 2)).is_err());
}

/// The channel blocks' axis is not looped over: a launch that needs more
/// workgroups there than the device allows is an error naming the axis, the
/// count and the limit; the other axes are clamped.
#[test]
fn a_grid_wider_than_the_device_allows_is_an_error() {
    let (a, b) = (qp(0.02, 3), qp(0.04, -5));
    let i = Shape::new(1, 256, 2, 2);
    let ps = PixelShuffle::new(
        i,
        Shape::new(1, 64, 4, 4),
        2,
        Layout::Packed4C,
        Layout::Packed4C,
        a,
        b,
    )
    .unwrap();
    let on = |blocks| {
        Some(Rewrite {
            path: ShufflePath::Words,
            requant: Requantization::Table,
            blocks,
            rows: 1,
        })
    };
    let e = ps
        .launch(on(BlockAxis::X), [1, 1, 1], [8, 65535, 65535])
        .unwrap_err();
    assert_eq!(
        e,
        Q8taError::GridTooLarge {
            axis: "x",
            groups: 16,
            max: 8
        }
    );
    assert_eq!(
        e.to_string(),
        "the grid needs 16 workgroups on x, maxComputeWorkGroupCount is 8"
    );
    // Within the limit it launches.
    assert!(ps
        .launch(on(BlockAxis::X), [1, 1, 1], [16, 65535, 65535])
        .is_ok());
    // Blocks on y: y must fit; x (the width, 2 pixels) is clamped, and the
    // width loop's step is what x launched.
    let e = ps
        .launch(on(BlockAxis::Y), [1, 1, 1], [65535, 8, 65535])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the grid needs 16 workgroups on y, maxComputeWorkGroupCount is 8"
    );
    let l = ps
        .launch(on(BlockAxis::Y), [1, 1, 1], [1, 16, 65535])
        .unwrap();
    assert_eq!(l.groups, [1, 16, 2]);
    assert_eq!(l.push.y_stride, 1);
    // Rows per invocation cap the z workgroups: 2 rows (height x batch) at
    // 2 per invocation take one, its invocations loop over both.
    let two_rows = Rewrite {
        rows: 2,
        ..on(BlockAxis::X).unwrap()
    };
    let l = ps.launch(Some(two_rows), [1, 1, 1], [65535; 3]).unwrap();
    assert_eq!(l.groups, [16, 2, 1]);
    assert_eq!(l.push.z_stride, 1);
}

#[test]
fn pixel_shuffle_plan_validates_and_splits() {
    let i = Shape::new(2, 24, 3, 5);
    let o = Shape::new(2, 6, 6, 10);
    let (a, b) = (qp(0.02, 3), qp(0.04, -5));
    let ps = PixelShuffle::new(i, o, 2, Layout::Packed4W4C, Layout::Packed4C, a, b).unwrap();
    assert_eq!(ps.input_bytes(), 4 * 2 * 3 * 2 * 6 * 4);
    assert_eq!(ps.output_bytes(), 4 * 2 * 6 * 10 * 2);
    assert_eq!(
        ps.axis_values(),
        [("IN_LAYOUT", 0), ("OUT_LAYOUT", 1), ("PASSTHROUGH", 0)]
    );
    assert_eq!(
        ps.specialization(Rewrite {
            path: ShufflePath::Quad,
            requant: Requantization::Lanes,
            blocks: BlockAxis::Y,
            rows: 1,
        }),
        [
            (3, SpecValue::Int(0)),
            (4, SpecValue::Int(1)),
            (5, SpecValue::Int(0)),
            (6, SpecValue::Int(2)),
            (7, SpecValue::Int(0)),
            (8, SpecValue::Int(1))
        ]
    );
    assert_eq!(ps.path(DeviceType::DiscreteGpu), ShufflePath::Words);
    // Two output channel blocks: the table's 4x16x4 with x fitted to them.
    assert_eq!(ps.local_size(ShufflePath::Words), [2, 32, 4]);
    assert_eq!(ps.grid(ShufflePath::Words, BlockAxis::X), [2, 5, 6]);
    assert_eq!(ps.grid(ShufflePath::Words, BlockAxis::Y), [5, 2, 6]);
    assert_eq!(
        ps.rewrite(DeviceType::Cpu),
        Rewrite {
            path: ShufflePath::Words,
            requant: Requantization::Lanes,
            blocks: BlockAxis::Y,
            rows: 1,
        }
    );
    assert!(ps
        .check_buffers(ps.input_bytes(), ps.output_bytes())
        .is_ok());
    let e = ps
        .check_buffers(ps.input_bytes(), ps.output_bytes() - 1)
        .unwrap_err();
    assert!(e.to_string().contains("output buffer holds"), "{e}");
    let e = PixelShuffle::new(i, o, 4, Layout::Packed4C, Layout::Packed4C, a, b).unwrap_err();
    assert_eq!(e, Q8taError::UpscaleFactor(4));
    let e = PixelShuffle::new(
        i,
        o,
        2,
        Layout::Packed4C,
        Layout::Packed4C,
        qp(f32::NAN, 0),
        b,
    );
    assert!(e.unwrap_err().to_string().contains("input scale NaN"));

    // A grid past 65535 workgroups on z (height x batch) is launched clamped; the shaders loop.
    let (groups, launched) = launch::launch([1, 1, 70_000 * 3], [1, 1, 1], [65535; 3]);
    assert_eq!(groups, [1, 1, 65535]);
    assert_eq!(launched, [1, 1, 65535]);
    let (groups, launched) = launch::launch([5, 7, 9], [4, 16, 1], [65535; 3]);
    assert_eq!(groups, [2, 1, 9]);
    assert_eq!(launched, [8, 16, 9]);
    // The model over such a clamped grid: a tall input whose height x batch exceeds the limit
    // (small max_groups stand in for 65535, to keep the test fast).
    let shape = Shape::new(2, 4, 300, 1);
    let c = random_case(
        &mut Rng::new(7),
        shape,
        Layout::Packed4C1W,
        Layout::Packed4W4C,
        Requant::new(a, b).unwrap(),
    );
    let (out, writes, _) = run_model(&c, Some((ShufflePath::Words, BlockAxis::X)), [1, 1, 1], 255);
    assert_eq!(out, c.expected);
    assert!(writes.iter().all(|&w| w == 1));
}

/// The shipped shuffle is one blob per requantization table size
/// (`LUT_COPIES`, [`super::shuffle_axes`]) whose specialization constants 3
/// to 8 are the `int`s `shuffle_specialization` sets, for every layout pair,
/// passthrough, path, requantization and block axis.
#[test]
fn shuffle_specialization_matches_the_shipped_blob() {
    let set = super::sets::PIXEL_SHUFFLE;
    assert_eq!(set.axes.len(), 1, "the shipped shuffle has one axis");
    assert_eq!(
        (set.axes[0].name, set.axes[0].values),
        ("LUT_COPIES", &[1, 32][..])
    );
    let blobs: std::collections::HashSet<*const u32> =
        set.variants.iter().map(|v| v.blob.spirv.as_ptr()).collect();
    assert_eq!(blobs.len(), 2, "one blob per table size for every target");
    for v in set.variants.iter() {
        let consts = &v.blob.reflection.spec_constants;
        for (i, name) in [
            "IN_LAYOUT",
            "OUT_LAYOUT",
            "PASSTHROUGH",
            "PATH",
            "REQUANT_TABLE",
            "BLOCKS_ON_Y",
        ]
        .iter()
        .enumerate()
        {
            let c = consts
                .iter()
                .find(|c| c.id == 3 + i as u32)
                .unwrap_or_else(|| panic!("{}: no constant_id {}", v.target, 3 + i));
            assert_eq!((&*c.name, &*c.ty), (*name, "int"), "{}", v.target);
        }
    }
    for inl in Layout::ALL {
        for outl in Layout::ALL {
            for pass in [false, true] {
                for path in ShufflePath::ALL {
                    for requant in Requantization::ALL {
                        for blocks in BlockAxis::ALL {
                            let k = Rewrite {
                                path,
                                requant,
                                blocks,
                                rows: 1,
                            };
                            assert_eq!(
                                super::shuffle_specialization(inl, outl, pass, k),
                                [
                                    (3, SpecValue::Int(inl as i32)),
                                    (4, SpecValue::Int(outl as i32)),
                                    (5, SpecValue::Int(pass as i32)),
                                    (6, SpecValue::Int(path as i32)),
                                    (7, SpecValue::Int(requant.spec_value())),
                                    (8, SpecValue::Int(blocks as i32))
                                ]
                            );
                            let banked = matches!(
                                requant,
                                Requantization::Banked
                                    | Requantization::Mixed
                                    | Requantization::MixedQuarter
                            );
                            let copies = if banked { 32 } else { 1 };
                            assert_eq!(super::shuffle_axes(k), [("LUT_COPIES", copies)]);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn the_large_tensor_table_has_one_row_per_pair_quantization_and_path() {
    // `launch::large_on_path` takes a path's first row for the pair, so a
    // second row on the same path would never run, and a row only for f32
    // (`LargeRow::float_only`) would lend its setup to the row chosen in its
    // place for other scales.
    let rows = launch::LARGE_ON_DISCRETE;
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            let key = |r: &launch::LargeRow| (r.in_layout, r.out_layout, r.passthrough, r.path);
            assert_ne!(key(a), key(b), "two rows for {:?}", key(a));
        }
    }
}
