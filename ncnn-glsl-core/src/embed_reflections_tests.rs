//! [`Reflections`]: a set's table decodes to what was packed, and a table
//! that does not decode leaves its blobs without reflection and SPIR-V.

use std::borrow::Cow;

use crate::reflection::{Access, Binding, BindingKind, Reflection, ScalarValue, SpecConstant};
use crate::variant::reflections::{pack, Reflections};

fn sample() -> Vec<Reflection> {
    let mut r = Reflection {
        bindings: Cow::Owned(vec![Binding {
            set: 0,
            binding: 1,
            kind: BindingKind::StorageBuffer,
            access: Access::ReadOnly,
            name: "bottom_blob".into(),
            instance: Some("b".into()),
            min_size: 16,
            array_stride: 16,
        }]),
        push_constant_size: 8,
        local_size: [64, 1, 1],
        local_size_spec_ids: [Some(233), None, None],
        ..Reflection::default()
    };
    r.spec_constants = Cow::Owned(vec![SpecConstant {
        id: 0,
        name: "alpha".into(),
        ty: "float".into(),
        default: Some(ScalarValue::Float(f64::from_bits(0x7ff8_0000_0000_0001))),
    }]);
    vec![r, Reflection::default()]
}

#[test]
fn a_table_decodes_to_what_was_packed() {
    let reflections = sample();
    let (bytes, len) = pack(&reflections);
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    // SAFETY: a test table; no blob runs with it.
    let table = unsafe { Reflections::compressed(bytes, len) };
    let got = table.get(0).expect("first reflection");
    assert_eq!(got.bindings, reflections[0].bindings);
    assert_eq!(got.local_size_spec_ids, reflections[0].local_size_spec_ids);
    let default = got.spec_constants[0].default;
    assert!(matches!(default, Some(ScalarValue::Float(f)) if f.is_nan()));
    assert_eq!(table.get(1), Some(&reflections[1]));
    assert_eq!(table.get(2), None);
}

#[test]
fn damaged_tables_give_no_reflection() {
    let (bytes, len) = pack(&sample());
    let cases: Vec<(Vec<u8>, usize)> = vec![
        (b"not deflate".to_vec(), len),
        (bytes.clone(), len - 1),
        (bytes.clone(), len + 1),
        (bytes[..bytes.len() / 2].to_vec(), len),
        (miniz_oxide::deflate::compress_to_vec(b"[{\"x\":1}]", 6), 9),
        (Vec::new(), 0),
    ];
    for (bytes, len) in cases {
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        // SAFETY: as above.
        let table = unsafe { Reflections::compressed(bytes, len) };
        assert_eq!(table.get(0), None, "{bytes:?}");
    }
}

#[test]
fn a_blob_of_a_damaged_table_has_no_spirv() {
    let words: Vec<u32> = vec![0x0723_0203, 0x0001_0000, 0, 1, 0];
    let packed: &'static [u8] = Box::leak(crate::variant::packed::pack(&words).into_boxed_slice());
    let (good, len) = pack(&sample());
    let good: &'static [u8] = Box::leak(good.into_boxed_slice());
    // SAFETY: test tables and blobs, never run.
    let (table, damaged) = unsafe {
        (
            Box::leak(Box::new(Reflections::compressed(good, len))),
            Box::leak(Box::new(Reflections::compressed(b"not deflate", len))),
        )
    };
    // SAFETY: as above.
    let (ok, out_of_range, bad) = unsafe {
        (
            crate::variant::Blob::embedded(packed, words.len(), table, 1),
            crate::variant::Blob::embedded(packed, words.len(), table, 2),
            crate::variant::Blob::embedded(packed, words.len(), damaged, 0),
        )
    };
    assert_eq!(ok.spirv(), &words[..]);
    assert_eq!(ok.reflection(), &sample()[1]);
    for blob in [out_of_range, bad] {
        assert_eq!(blob.spirv(), &[] as &[u32]);
        assert_eq!(blob.reflection(), &Reflection::default());
        assert_eq!(blob.spirv_len(), words.len());
    }
}
