//! The large-tensor table's own invariants (its rows are private); the
//! plans' invariants over every shuffle are `crate::tests::plans`.

use super::*;

/// A pair and quantization has at most one row per path (so a chosen
/// path's row is the one chosen), and a row taken only where f32 is exact
/// has another row on another path for the other scales.
#[test]
fn the_large_table_has_one_row_per_pair_quantization_and_path() {
    for (i, a) in LARGE.iter().enumerate() {
        let key = |r: &Row| (r.in_layout, r.out_layout, r.passthrough);
        for b in &LARGE[i + 1..] {
            assert!(
                key(a) != key(b) || a.path != b.path,
                "two rows for {:?} on {:?}",
                key(a),
                a.path
            );
        }
        if a.float_only {
            assert!(
                LARGE
                    .iter()
                    .any(|b| key(b) == key(a) && b.path != a.path && !b.float_only),
                "{:?}: no row for scales f32 is not exact for",
                key(a)
            );
        }
        assert!(a.rows >= 1 && a.local.iter().all(|&l| l >= 1), "{a:?}");
        // What every discrete GPU measured allows.
        assert!(a.local.iter().product::<u32>() <= 1024, "{a:?}");
        assert!(!a.passthrough || a.rows == 1, "{a:?}");
    }
}

/// Every requantizing pair has a row (the large tensors' rules cover them
/// all), three passthrough pairs do.
#[test]
fn every_requantizing_pair_has_a_large_row() {
    for i in Layout::ALL {
        for o in Layout::ALL {
            assert!(
                LARGE
                    .iter()
                    .any(|r| (r.in_layout, r.out_layout, r.passthrough) == (i, o, false)),
                "{i} -> {o}"
            );
        }
    }
    assert_eq!(LARGE.iter().filter(|r| r.passthrough).count(), 3);
}

#[test]
fn fit_to_grid_halves_idle_axes_and_keeps_covering_shapes() {
    assert_eq!(fit_to_grid([8, 8, 1], [1, 16, 64], 2), [1, 16, 4]);
    assert_eq!(fit_to_grid([8, 8, 1], [1, 16, 64], 1), [1, 64, 1]);
    assert_eq!(fit_to_grid([8, 8, 1], [16, 1, 64], 2), [8, 1, 4]);
    assert_eq!(fit_to_grid([8, 8, 1], [8, 8, 1], 2), [8, 8, 1]);
    assert_eq!(fit_to_grid([4, 16, 4], [5, 9, 1], 2), [4, 16, 4]);
}
