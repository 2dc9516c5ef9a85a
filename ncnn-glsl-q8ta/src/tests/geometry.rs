//! The launch geometry's checks: grids, clamped launches, specialization
//! constants (the plan's invariants are `plans.rs`).

use super::*;

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
    assert_eq!(ps.grid(ShufflePath::Words, BlockAxis::X), [2, 5, 6]);
    assert_eq!(ps.grid(ShufflePath::Words, BlockAxis::Y), [5, 2, 6]);
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
    let blobs: std::collections::HashSet<*const ncnn_glsl_runtime::Blob> = set
        .variants()
        .iter()
        .map(|v| std::ptr::from_ref(v.blob))
        .collect();
    assert_eq!(blobs.len(), 2, "one blob per table size for every target");
    for v in set.variants().iter() {
        let consts = &v.blob.reflection().spec_constants;
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
