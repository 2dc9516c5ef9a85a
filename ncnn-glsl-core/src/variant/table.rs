//! A set's variants and blobs as `include_ncnn_shader!` embeds them: one
//! byte table and one byte string of compressed blobs per set, decoded the
//! first time the set is asked for its variants, once. rustc sees two
//! literals per set however many variants it holds: it type-checks and
//! const-evaluates what the macro emits on every build of the calling crate,
//! so a variant written as a literal would cost every edit of a library
//! (BENCHMARKS.md, "A library of 255 shaders").
//!
//! The table, little-endian: the number of axes, the number of blobs, then
//! per blob its start and length in the blob bytes, its word count and its
//! reflection's index (four `u32`); the number of variants, then per
//! variant its options (`u16`), device bits (`u8`), blob (`u32`) and one
//! `i64` per axis.

use std::fmt;
use std::sync::OnceLock;

use crate::device::DeviceBits;
use crate::options::Options;
use crate::target::Target;

use super::reflections::Reflections;
use super::set::{Blob, Variant};

/// The variants of one embedded set ([`super::VariantSet::embedded`]).
pub struct VariantTable {
    table: &'static [u8],
    blob_bytes: &'static [u8],
    reflections: &'static Reflections,
    blobs: OnceLock<Box<[Blob]>>,
    values: OnceLock<Box<[i64]>>,
    variants: OnceLock<Box<[Variant]>>,
}

/// One blob as [`encode`] takes it.
pub struct BlobEntry<'a> {
    /// [`super::packed::pack`]'s bytes.
    pub bytes: &'a [u8],
    /// The word count they hold.
    pub words: usize,
    /// Its reflection's index in the set's [`Reflections`].
    pub reflection: usize,
}

/// One variant as [`encode`] takes it.
pub struct VariantEntry<'a> {
    /// Its target.
    pub target: Target,
    /// One value per axis.
    pub axes: &'a [i64],
    /// Its blob's index.
    pub blob: usize,
}

/// The table and the blob bytes of a set with `axes` axes. `None` when a
/// count or an offset does not fit in a `u32` (far past any set's budget).
pub fn encode(
    axes: usize,
    blobs: &[BlobEntry],
    variants: &[VariantEntry],
) -> Option<(Vec<u8>, Vec<u8>)> {
    let u32_of = |v: usize| u32::try_from(v).ok().map(u32::to_le_bytes);
    let mut table = Vec::new();
    let mut bytes = Vec::new();
    table.extend(u32_of(axes)?);
    table.extend(u32_of(blobs.len())?);
    for b in blobs {
        table.extend(u32_of(bytes.len())?);
        table.extend(u32_of(b.bytes.len())?);
        table.extend(u32_of(b.words)?);
        table.extend(u32_of(b.reflection)?);
        bytes.extend_from_slice(b.bytes);
    }
    table.extend(u32_of(variants.len())?);
    for v in variants {
        if v.axes.len() != axes {
            return None;
        }
        table.extend(v.target.options.bits().to_le_bytes());
        table.push(bits_byte(v.target.bits));
        table.extend(u32_of(v.blob)?);
        for a in v.axes {
            table.extend(a.to_le_bytes());
        }
    }
    Some((table, bytes))
}

fn bits_byte(b: DeviceBits) -> u8 {
    u8::from(b.storage16)
        | u8::from(b.uniform16) << 1
        | u8::from(b.int16) << 2
        | u8::from(b.int64) << 3
}

fn byte_bits(b: u8) -> DeviceBits {
    DeviceBits {
        storage16: b & 1 != 0,
        uniform16: b & 2 != 0,
        int16: b & 4 != 0,
        int64: b & 8 != 0,
    }
}

/// Reads the table; every read is bounded by what is left.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    fn u32(&mut self) -> Option<usize> {
        self.take::<4>()
            .and_then(|b| usize::try_from(u32::from_le_bytes(b)).ok())
    }
}

impl VariantTable {
    /// What the macro embeds: the table and blob bytes [`encode`] wrote
    /// for a set's blobs, whose reflections are `reflections`. Safe code
    /// cannot call it:
    ///
    /// ```compile_fail,E0133
    /// static R: ncnn_glsl_core::variant::Reflections =
    ///     unsafe { ncnn_glsl_core::variant::Reflections::compressed(b"", 0) };
    /// let t = ncnn_glsl_core::variant::VariantTable::new(b"", b"", &R);
    /// ```
    ///
    /// # Safety
    ///
    /// Every blob the table names meets what [`Blob::embedded`] asks of its
    /// bytes, word count and reflection index. (A table that does not
    /// decode gives a set without variants, which selection refuses.)
    pub const unsafe fn new(
        table: &'static [u8],
        blob_bytes: &'static [u8],
        reflections: &'static Reflections,
    ) -> VariantTable {
        VariantTable {
            table,
            blob_bytes,
            reflections,
            blobs: OnceLock::new(),
            values: OnceLock::new(),
            variants: OnceLock::new(),
        }
    }

    /// The axes each variant has values for, from the table's head.
    pub fn axis_count(&self) -> Option<usize> {
        Reader(self.table).u32()
    }

    /// The variants, decoded on the first call (once); none when the table
    /// does not decode.
    pub fn variants(&'static self) -> &'static [Variant] {
        self.variants
            .get_or_init(|| self.decode().unwrap_or_default())
    }

    fn decode(&'static self) -> Option<Box<[Variant]>> {
        let mut r = Reader(self.table);
        let axes = r.u32()?;
        let n_blobs = r.u32()?;
        // Each entry takes bytes of the table: its length bounds the counts.
        let mut blobs = Vec::with_capacity(n_blobs.min(r.0.len() / 16));
        for _ in 0..n_blobs {
            let (start, len, words, reflection) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
            let bytes = self.blob_bytes.get(start..start.checked_add(len)?)?;
            // SAFETY: `new`'s caller promised these entries meet
            // `Blob::embedded`'s contract.
            blobs.push(unsafe { Blob::embedded(bytes, words, self.reflections, reflection) });
        }
        let n = r.u32()?;
        let entry = 7usize.checked_add(axes.checked_mul(8)?)?;
        let mut heads = Vec::with_capacity(n.min(r.0.len() / entry));
        let mut values = Vec::with_capacity(heads.capacity().saturating_mul(axes));
        for _ in 0..n {
            let options = Options::from_bits_truncate(u16::from_le_bytes(r.take()?));
            let [bits] = r.take::<1>()?;
            let blob = r.u32()?;
            if blob >= blobs.len() {
                return None;
            }
            for _ in 0..axes {
                values.push(i64::from_le_bytes(r.take()?));
            }
            heads.push((
                Target {
                    options,
                    bits: byte_bits(bits),
                },
                blob,
            ));
        }
        if !r.0.is_empty() {
            return None;
        }
        let blobs: &'static [Blob] = self.blobs.get_or_init(|| blobs.into_boxed_slice());
        let values: &'static [i64] = self.values.get_or_init(|| values.into_boxed_slice());
        Some(
            heads
                .into_iter()
                .enumerate()
                .map(|(i, (target, blob))| Variant {
                    target,
                    axes: &values[i * axes..(i + 1) * axes],
                    blob: &blobs[blob],
                })
                .collect(),
        )
    }
}

impl fmt::Debug for VariantTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VariantTable")
            .field("table_bytes", &self.table.len())
            .field("blob_bytes", &self.blob_bytes.len())
            .finish()
    }
}

#[cfg(all(test, feature = "compile"))]
#[path = "table_tests.rs"]
mod tests;
