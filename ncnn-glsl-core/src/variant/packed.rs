//! The embedded form of a blob's SPIR-V: the words re-encoded by
//! [`model`] (each as its difference from a prediction, mostly one byte),
//! then deflated (pure Rust, `miniz_oxide`, at its best level).
//! `bench/src/bin/blob_compression.rs` chose it over zstd (`ruzstd`, whose
//! encoder has only its fastest level), lz4 and other layouts
//! (`bench/results/cpu/blob-compression.json`): deflate alone takes the
//! words to a third, zstd's fastest level to half, the model and deflate
//! to under a fifth.
//!
//! [`unpack`] is always there (a binary that embeds sets decompresses them
//! at run time without naga); [`pack`] only with the `compile` feature.

pub mod model;

/// Deflate's level: `miniz_oxide`'s 10 wrote the same bytes per blob in the
/// measurement.
#[cfg(feature = "compile")]
const LEVEL: u8 = 9;

/// The raw deflate stream of `words` as [`model::encode`] writes them.
#[cfg(feature = "compile")]
pub fn pack(words: &[u32]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(&model::encode(words), LEVEL)
}

/// The `words` words `bytes` holds ([`pack`]'s output), or `None` when the
/// bytes are not that. The inflated bytes grow to at most
/// [`model::max_encoded_len`] of `words`: a corrupt stream or word count
/// cannot make it allocate more than the blob's size bounds.
pub fn unpack(bytes: &[u8], words: usize) -> Option<Vec<u32>> {
    let cap = model::max_encoded_len(words)?;
    let modelled = miniz_oxide::inflate::decompress_to_vec_with_limit(bytes, cap).ok()?;
    model::decode(&modelled, words)
}

#[cfg(all(test, feature = "compile"))]
mod tests {
    use super::{pack, unpack};
    use proptest::prelude::*;

    /// SPIR-V-like words: a header, then small ids and opcodes with a few
    /// large literals, repeated with variations as real modules are.
    fn spirv_like(n: usize, seed: u32) -> Vec<u32> {
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, 400, 0];
        let mut x = seed | 1;
        while words.len() < n {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            words.push(match x % 8 {
                0 => x,
                1..=3 => x % 400,
                _ => ((x % 6 + 2) << 16) | (x % 300),
            });
        }
        words
    }

    #[test]
    fn round_trips_and_compresses() {
        // Past one block (128 KiB) and past the window: 100 000 words.
        for n in [0, 1, 5, 1000, 40_000, 100_000] {
            let words = spirv_like(n, n as u32 + 7);
            let packed = pack(&words);
            assert_eq!(unpack(&packed, words.len()).as_deref(), Some(&words[..]));
            if n >= 1000 {
                assert!(packed.len() < n * 4, "{n} words: {} bytes", packed.len());
            }
        }
    }

    #[test]
    fn a_wrong_word_count_is_refused() {
        let words = spirv_like(1000, 3);
        let packed = pack(&words);
        assert_eq!(unpack(&packed, 999), None);
        assert_eq!(unpack(&packed, 1001), None);
        assert_eq!(unpack(&packed, 0), None);
        assert_eq!(unpack(&packed[..packed.len() - 1], 1000), None);
        assert_eq!(unpack(b"", 1000), None);
        assert_eq!(unpack(&packed, usize::MAX), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The model is lossless for any words, SPIR-V or not: word
        /// counts of 0 or past the end, unknown opcodes, any operand.
        #[test]
        fn any_words_round_trip(
            words in prop::collection::vec(any::<u32>(), 0..300),
            small in prop::collection::vec(0u32..0x0004_0040, 0..300),
        ) {
            for w in [&words, &small] {
                prop_assert_eq!(unpack(&pack(w), w.len()), Some(w.clone()));
            }
        }

        /// Corrupt bytes never panic: they give `None` or exactly the
        /// words asked for (no checksum is kept, so a flipped literal byte
        /// can decode to other words of the right length).
        #[test]
        fn corrupt_frames_do_not_panic(
            at in 0usize..4000,
            xor in 1u8..=255,
            cut in 0usize..4000,
        ) {
            let words = spirv_like(2000, 11);
            let mut packed = pack(&words);
            let at = at % packed.len();
            packed[at] ^= xor;
            packed.truncate(packed.len() - cut % packed.len());
            if let Some(w) = unpack(&packed, words.len()) {
                prop_assert_eq!(w.len(), words.len());
            }
        }
    }
}
