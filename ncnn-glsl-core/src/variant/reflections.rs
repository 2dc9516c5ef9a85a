//! The reflections of one set's blobs as the macro embeds them: one
//! compressed byte string per set, decoded the first time a blob's
//! reflection is asked for.
//!
//! A reflection written out as a Rust literal is hundreds of tokens
//! (bindings, strings, `Cow`s), and rustc type-checks every one of them on
//! every build of the crate that holds the set: at library scale that was
//! most of a rebuild. One byte string per set is one token, and the distinct
//! reflections of a set are stored once.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::reflection::{Reflection, Requirements};

/// The distinct reflections of a set's blobs: JSON, deflated.
pub struct Reflections {
    bytes: &'static [u8],
    json_len: usize,
    decoded: OnceLock<Option<Box<[Reflection]>>>,
}

/// The reflection of nothing: what a blob reports when its table does not
/// decode (its SPIR-V is then empty too, and a runtime refuses it).
pub(super) static NONE: Reflection = Reflection {
    bindings: Cow::Borrowed(&[]),
    push_constant_size: 0,
    push_constants: Cow::Borrowed(&[]),
    local_size: [0; 3],
    local_size_spec_ids: [None; 3],
    spec_constants: Cow::Borrowed(&[]),
    requirements: Requirements {
        features: Cow::Borrowed(&[]),
        extensions: Cow::Borrowed(&[]),
        spirv_capabilities: Cow::Borrowed(&[]),
        spirv_extensions: Cow::Borrowed(&[]),
    },
    cooperative_matrices: Cow::Borrowed(&[]),
};

impl Reflections {
    /// The table [`pack`] wrote: `bytes`, which inflate to `json_len`
    /// bytes of JSON. Safe code cannot make one:
    ///
    /// ```compile_fail,E0133
    /// let r = ncnn_glsl_core::variant::Reflections::compressed(b"", 0);
    /// ```
    ///
    /// # Safety
    ///
    /// Each reflection the bytes hold describes the blobs that name it
    /// exactly, as [`super::Blob::new`] asks. (Bytes that do not decode give
    /// no reflections, and the blobs that name them no SPIR-V.)
    pub const unsafe fn compressed(bytes: &'static [u8], json_len: usize) -> Reflections {
        Reflections {
            bytes,
            json_len,
            decoded: OnceLock::new(),
        }
    }

    /// Reflection `index`, decoding the table on the first call; `None`
    /// when the bytes do not decode or hold fewer reflections.
    pub fn get(&self, index: usize) -> Option<&Reflection> {
        self.decoded
            .get_or_init(|| unpack(self.bytes, self.json_len))
            .as_deref()?
            .get(index)
    }

    /// The bytes the table takes in the binary.
    pub fn embedded_bytes(&self) -> usize {
        self.bytes.len()
    }
}

impl std::fmt::Debug for Reflections {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reflections")
            .field("embedded_bytes", &self.bytes.len())
            .field("json_len", &self.json_len)
            .finish()
    }
}

/// `reflections` as [`Reflections::compressed`] takes them: the deflated
/// JSON and its length.
#[cfg(feature = "compile")]
pub fn pack(reflections: &[Reflection]) -> (Vec<u8>, usize) {
    // Serializing plain data (strings, numbers, finite or bit-cast floats)
    // cannot fail.
    let json = serde_json::to_vec(reflections).unwrap_or_default();
    (miniz_oxide::deflate::compress_to_vec(&json, 10), json.len())
}

/// The reflections `bytes` hold, or `None` where they do not inflate to
/// exactly `json_len` bytes of a JSON list of reflections.
fn unpack(bytes: &[u8], json_len: usize) -> Option<Box<[Reflection]>> {
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(bytes, json_len).ok()?;
    if json.len() != json_len {
        return None;
    }
    serde_json::from_slice::<Vec<Reflection>>(&json)
        .ok()
        .map(Vec::into_boxed_slice)
}

#[cfg(all(test, feature = "compile"))]
mod tests {
    use super::*;
    use crate::reflection::{Access, Binding, BindingKind, ScalarValue, SpecConstant};

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
        let packed: &'static [u8] =
            Box::leak(crate::variant::packed::pack(&words).into_boxed_slice());
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
            assert_eq!(blob.reflection(), &NONE);
            assert_eq!(blob.spirv_len(), words.len());
        }
    }
}
