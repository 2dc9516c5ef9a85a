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
    cooperative_matrix_types: Cow::Borrowed(&[]),
    spec_arrays: Cow::Borrowed(&[]),
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
