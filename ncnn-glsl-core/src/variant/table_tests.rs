//! [`VariantTable`]: a table decodes to the variants and blobs encoded, and
//! a damaged one gives a set without variants, never a panic.

use super::*;
use crate::reflection::Reflection;
use crate::variant::packed::pack;
use crate::variant::reflections::pack as pack_reflections;
use crate::variant::{AxisInfo, Reflections, Usage, VariantSet, VariantTable};
use crate::Flag;

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn reflections() -> &'static Reflections {
    let r = [
        Reflection {
            local_size: [64, 1, 1],
            ..Reflection::default()
        },
        Reflection::default(),
    ];
    let (bytes, len) = pack_reflections(&r);
    // SAFETY: a test table; no blob runs with it.
    Box::leak(Box::new(unsafe {
        Reflections::compressed(leak(bytes), len)
    }))
}

/// Two blobs and three variants over one axis, encoded.
fn sample() -> (Vec<Vec<u32>>, Vec<u8>, Vec<u8>) {
    let words = vec![vec![0x0723_0203, 1, 2, 3], [0x0723_0203].repeat(40)];
    let packed: Vec<Vec<u8>> = words.iter().map(|w| pack(w)).collect();
    let blobs: Vec<BlobEntry> = packed
        .iter()
        .zip(&words)
        .enumerate()
        .map(|(i, (bytes, w))| BlobEntry {
            bytes,
            words: w.len(),
            reflection: i,
        })
        .collect();
    let fp16 = Target {
        options: Options::from_flags(&[Flag::Fp16Storage]),
        bits: DeviceBits {
            storage16: true,
            int64: true,
            ..DeviceBits::default()
        },
    };
    let variants = [
        VariantEntry {
            target: Target::default(),
            axes: &[i64::MIN],
            blob: 0,
        },
        VariantEntry {
            target: Target::default(),
            axes: &[4],
            blob: 1,
        },
        VariantEntry {
            target: fp16,
            axes: &[-3],
            blob: 1,
        },
    ];
    let (table, bytes) = encode(1, &blobs, &variants).expect("encodes");
    (words, table, bytes)
}

fn table_of(table: Vec<u8>, bytes: Vec<u8>) -> &'static VariantTable {
    // SAFETY: test blobs, decompressed and compared, never run.
    Box::leak(Box::new(unsafe {
        VariantTable::new(leak(table), leak(bytes), reflections())
    }))
}

fn set_of(table: &'static VariantTable, axes: usize) -> VariantSet {
    let axes: Vec<AxisInfo> = (0..axes)
        .map(|_| AxisInfo {
            name: "A",
            values: &[4, -3],
            device: false,
            outcomes: None,
        })
        .collect();
    VariantSet::embedded("t", Usage::default(), leak(axes), table)
}

#[test]
fn a_table_decodes_to_what_was_encoded() {
    let (words, table, bytes) = sample();
    let set = set_of(table_of(table, bytes), 1);
    let v = set.variants();
    assert_eq!(v.len(), 3);
    assert_eq!(v[0].axes, [i64::MIN]);
    assert_eq!(v[1].axes, [4]);
    assert_eq!(v[2].axes, [-3]);
    assert_eq!(v[0].target, Target::default());
    assert!(v[2].target.options.has(Flag::Fp16Storage));
    assert!(v[2].target.bits.storage16 && v[2].target.bits.int64);
    assert!(!v[2].target.bits.uniform16 && !v[2].target.bits.int16);
    assert_eq!(v[0].blob.spirv(), words[0]);
    assert_eq!(v[1].blob.spirv(), words[1]);
    // One blob for the variants that share it.
    assert!(std::ptr::eq(v[1].blob, v[2].blob));
    assert_eq!(v[0].blob.reflection().local_size, [64, 1, 1]);
    // Decoded once: the same slice again.
    assert!(std::ptr::eq(set.variants(), v));
    assert!(set.find(Target::default(), &[4]).is_some());
    assert!(set.find(Target::default(), &[5]).is_none());
}

#[test]
fn a_table_for_other_axes_gives_no_variants() {
    let (_, table, bytes) = sample();
    assert!(set_of(table_of(table.clone(), bytes.clone()), 0)
        .variants()
        .is_empty());
    assert!(set_of(table_of(table, bytes), 2).variants().is_empty());
}

#[test]
fn damaged_tables_give_no_variants_or_empty_blobs() {
    let (_, table, bytes) = sample();
    // Every truncation, and one byte more, decode to nothing.
    for n in 0..table.len() {
        let t = table_of(table[..n].to_vec(), bytes.clone());
        assert!(set_of(t, 1).variants().is_empty(), "table cut at {n}");
    }
    let mut longer = table.clone();
    longer.push(0);
    assert!(set_of(table_of(longer, bytes.clone()), 1)
        .variants()
        .is_empty());
    // Blob bytes cut short: the entry's range is outside them.
    let t = table_of(table.clone(), bytes[..bytes.len() - 1].to_vec());
    assert!(set_of(t, 1).variants().is_empty());
    // Counts past the table's length allocate nothing large.
    let mut huge = table.clone();
    huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(set_of(table_of(huge, bytes.clone()), 1)
        .variants()
        .is_empty());
    // A blob index past the blobs.
    let mut bad = table.clone();
    let first_variant = 8 + 2 * 16 + 4;
    bad[first_variant + 3..first_variant + 7].copy_from_slice(&2u32.to_le_bytes());
    assert!(set_of(table_of(bad, bytes.clone()), 1)
        .variants()
        .is_empty());
    // Flipped bytes anywhere: no panic, and what decodes has in-range parts.
    for i in 0..table.len() {
        let mut t = table.clone();
        t[i] ^= 0xa5;
        let set = set_of(table_of(t, bytes.clone()), 1);
        for v in set.variants() {
            assert_eq!(v.axes.len(), 1);
            let _ = v.blob.spirv();
        }
    }
    // Bytes that are not the codec's: the blob has no SPIR-V.
    let mut garbled = bytes.clone();
    for b in &mut garbled {
        *b ^= 0xff;
    }
    let set = set_of(table_of(table, garbled), 1);
    assert_eq!(set.variants().len(), 3);
    for v in set.variants() {
        assert!(v.blob.spirv().is_empty(), "{:?}", v.blob.spirv());
    }
}

#[test]
fn encoding_refuses_variants_with_other_axes() {
    let v = [VariantEntry {
        target: Target::default(),
        axes: &[1, 2],
        blob: 0,
    }];
    assert!(encode(1, &[], &v).is_none());
}
