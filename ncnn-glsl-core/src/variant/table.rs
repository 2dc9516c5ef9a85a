//! The byte table of a set's variants and blobs as `include_ncnn_shader!`
//! embeds them (with one byte string of compressed blobs per set), which
//! [`super::VariantTable`] decodes the first time the set is asked for its
//! variants, once. rustc sees two literals per set however many variants it
//! holds: it type-checks and const-evaluates what the macro emits on every
//! build of the calling crate, so a variant written as a literal would cost
//! every edit of a library (BENCHMARKS.md, "A library of 255 shaders").
//!
//! The table, little-endian: the number of axes, the number of blobs, then
//! per blob its start and length in the blob bytes, its word count and its
//! reflection's index (four `u32`); the number of variants, then per
//! variant its options (`u16`), device bits (`u8`), blob (`u32`) and one
//! `i64` per axis.

use crate::device::DeviceBits;
use crate::options::Options;
use crate::target::Target;

/// One blob as [`encode`] takes it.
pub struct BlobEntry<'a> {
    /// [`super::packed::pack`]'s bytes.
    pub bytes: &'a [u8],
    /// The word count they hold.
    pub words: usize,
    /// Its reflection's index in the set's [`super::Reflections`].
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

/// Where one blob is in a set's blob bytes, and what it holds.
pub struct BlobRange {
    /// Its first byte.
    pub start: usize,
    /// Its length in bytes.
    pub len: usize,
    /// The word count its bytes decompress to.
    pub words: usize,
    /// Its reflection's index.
    pub reflection: usize,
}

/// A decoded table: every blob's range, every variant's target and blob,
/// and the variants' axis values, `axes` per variant, in order.
pub struct Decoded {
    /// Values per variant.
    pub axes: usize,
    /// The blobs.
    pub blobs: Vec<BlobRange>,
    /// Each variant's target and blob index (below `blobs.len()`).
    pub variants: Vec<(Target, usize)>,
    /// `axes` values per variant.
    pub values: Vec<i64>,
}

/// The number of axes a table's variants have values for (its head).
pub fn axis_count(table: &[u8]) -> Option<usize> {
    Reader(table).u32()
}

/// `table` decoded; `None` unless every count, range and index holds and
/// nothing is left over. Allocation is bounded by the table's length.
pub fn decode(table: &[u8]) -> Option<Decoded> {
    let mut r = Reader(table);
    let axes = r.u32()?;
    let n_blobs = r.u32()?;
    // Each entry takes bytes of the table: its length bounds the counts.
    let mut blobs = Vec::with_capacity(n_blobs.min(r.0.len() / 16));
    for _ in 0..n_blobs {
        let (start, len, words, reflection) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
        start.checked_add(len)?;
        blobs.push(BlobRange {
            start,
            len,
            words,
            reflection,
        });
    }
    let n = r.u32()?;
    let entry = 7usize.checked_add(axes.checked_mul(8)?)?;
    let mut variants = Vec::with_capacity(n.min(r.0.len() / entry));
    let mut values = Vec::with_capacity(variants.capacity().saturating_mul(axes));
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
        let bits = byte_bits(bits);
        variants.push((Target { options, bits }, blob));
    }
    r.0.is_empty().then_some(Decoded {
        axes,
        blobs,
        variants,
        values,
    })
}

#[cfg(all(test, feature = "compile"))]
#[path = "table_tests.rs"]
mod tests;
