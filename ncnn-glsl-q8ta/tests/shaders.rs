//! The q8ta shaders build in every variant the macro enumerates, with the
//! axes (or, for the pixel shuffle, specialization constants), bindings,
//! push-constant sizes and local sizes the host side relies on.

use std::collections::BTreeSet;

use ncnn_glsl_q8ta::push::{DequantizePush, QuantizePush, ShufflePush};
use ncnn_glsl_q8ta::sets::{
    DEQUANTIZE, PIXEL_SHUFFLE as SHUFFLE, PIXEL_SHUFFLE_BASELINE as BASELINE, QUANTIZE,
};
use ncnn_glsl_q8ta::{
    shuffle_specialization, BlockAxis, Layout, Requantization, Rewrite, ShufflePath,
};
use ncnn_glsl_runtime::reflection::Access;
use ncnn_glsl_runtime::VariantSet;

/// (variants, distinct blobs, SPIR-V bytes of the distinct blobs), printed
/// for the report with the bytes they take in the binary, compressed.
fn summary(name: &str, set: &VariantSet) -> (usize, usize, usize) {
    let mut seen = BTreeSet::new();
    let distinct: Vec<_> = set
        .variants()
        .iter()
        .filter(|v| seen.insert(std::ptr::from_ref(v.blob)))
        .collect();
    let bytes: usize = distinct.iter().map(|v| v.blob.spirv_len() * 4).sum();
    let embedded: usize = distinct.iter().map(|v| v.blob.embedded_bytes()).sum();
    eprintln!(
        "{name}: {} variants, {} blobs, {bytes} SPIR-V bytes, {embedded} embedded",
        set.variants().len(),
        seen.len()
    );
    (set.variants().len(), seen.len(), bytes)
}

fn check(set: &VariantSet, axes: &[(&str, &[i64])], push: usize, local: [u32; 3]) {
    let declared: Vec<(&str, &[i64])> = set.axes.iter().map(|a| (a.name, a.values)).collect();
    assert_eq!(declared, axes);
    for v in set.variants() {
        assert_eq!(v.blob.spirv()[0], 0x0723_0203, "{}", v.target);
        let r = &v.blob.reflection();
        assert_eq!(r.push_constant_size as usize, push, "{}", v.target);
        assert_eq!(r.local_size, local, "{}", v.target);
        let b: Vec<(u32, Access)> = r.bindings.iter().map(|b| (b.binding, b.access)).collect();
        assert_eq!(
            b,
            [(0, Access::ReadOnly), (1, Access::WriteOnly)],
            "{}",
            v.target
        );
    }
    // Every axis combination is built for every mode.
    let combos: BTreeSet<Vec<i64>> = set.variants().iter().map(|v| v.axes.to_vec()).collect();
    let want: usize = axes.iter().map(|a| a.1.len()).product();
    assert_eq!(combos.len(), want);
}

const LAYOUTS: &[i64] = &[0, 1, 2];

#[test]
fn pixel_shuffle_sets() {
    assert_eq!(
        Layout::ALL.map(|l| l.axis_value()).to_vec(),
        LAYOUTS.to_vec()
    );
    let axes: &[(&str, &[i64])] = &[
        ("IN_LAYOUT", LAYOUTS),
        ("OUT_LAYOUT", LAYOUTS),
        ("PASSTHROUGH", &[0, 1]),
    ];
    // The new kernel: one axis, the requantization table's copies (1 or 32:
    // `shuffle_axes`), one blob each; the layouts and passthrough are
    // specialization constants 3, 4, 5 (int, default 0), which
    // `shuffle_specialization` sets.
    check(
        SHUFFLE,
        &[("LUT_COPIES", &[1, 32])],
        ShufflePush::SIZE,
        [4, 16, 1],
    );
    let (variants, blobs, _) = summary("q8ta_pixel_shuffle", SHUFFLE);
    assert_eq!((variants, blobs), (2, 2));
    let r = &SHUFFLE.variants()[0].blob.reflection();
    let consts: Vec<(u32, &str, &str)> = r
        .spec_constants
        .iter()
        .filter(|c| c.id >= 3)
        .map(|c| (c.id, &*c.name, &*c.ty))
        .collect();
    assert_eq!(
        consts,
        [
            (3, "IN_LAYOUT", "int"),
            (4, "OUT_LAYOUT", "int"),
            (5, "PASSTHROUGH", "int"),
            (6, "PATH", "int"),
            (7, "REQUANT_TABLE", "int"),
            (8, "BLOCKS_ON_Y", "int")
        ]
    );
    let ids: Vec<u32> = shuffle_specialization(
        Layout::Packed4C,
        Layout::Packed4C1W,
        true,
        Rewrite {
            path: ShufflePath::Quad,
            requant: Requantization::Table,
            blocks: BlockAxis::Y,
            rows: 1,
        },
    )
    .iter()
    .map(|s| s.0)
    .collect();
    assert_eq!(ids, [3, 4, 5, 6, 7, 8]);
    // The baseline keeps its build-time axes: one blob per combination.
    check(BASELINE, axes, ShufflePush::SIZE, [64, 1, 1]);
    let (_, blobs, _) = summary("q8ta_pixel_shuffle_baseline", BASELINE);
    assert_eq!(blobs, 18);
    // int8 words only: no device feature needed.
    for v in SHUFFLE.variants().iter().chain(BASELINE.variants()) {
        assert!(
            v.blob.reflection().requirements.features.is_empty(),
            "{}",
            v.target
        );
    }
}

#[test]
fn quantize_and_dequantize_sets() {
    check(
        QUANTIZE,
        &[("OUT_LAYOUT", LAYOUTS)],
        QuantizePush::SIZE,
        [64, 1, 1],
    );
    check(
        DEQUANTIZE,
        &[("IN_LAYOUT", LAYOUTS), ("VEC", &[1, 2, 4])],
        DequantizePush::SIZE,
        [64, 1, 1],
    );
    for set in [QUANTIZE, DEQUANTIZE] {
        let modes: BTreeSet<String> = set
            .variants()
            .iter()
            .map(|v| v.target.options.to_string())
            .collect();
        for m in ["fp32", "fp16p", "fp16s"] {
            assert!(modes.contains(m), "{m} missing from {modes:?}");
        }
    }
    summary("q8ta_quantize", QUANTIZE);
    summary("q8ta_dequantize", DEQUANTIZE);
}
