//! How a variant stores the extension's `sfp` floats in buffers, so the host
//! can write and read them: fp32, or 16-bit fp16 / bf16 bits.
//!
//! The packed modes (`fp16p`, `bf16p`) hold two values per 32-bit word,
//! element `i` in half `i % 2`; the storage modes (`fp16s`, `bf16s`) hold
//! one 16-bit value per element. On a little-endian device (every Vulkan
//! device) both are the same bytes, so one encoding serves each width.

use half::f16;
use ncnn_glsl_core::{Flag, Options};

/// The host encoding of a variant's `sfp` values (the extension's storage
/// precedence: bf16 over fp16 over fp32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatStorage {
    /// 32-bit floats (`fp32`, and modes without fp16 or bf16 storage).
    F32,
    /// IEEE half-precision bits (`fp16p`, `fp16s`).
    F16,
    /// bfloat16 bits, the high half of an f32 (`bf16p`, `bf16s`).
    Bf16,
}

impl FloatStorage {
    /// The storage of a variant built with options `o` (its
    /// `variant.target.options`).
    pub fn of(o: Options) -> FloatStorage {
        if o.has(Flag::Bf16Packed) || o.has(Flag::Bf16Storage) {
            FloatStorage::Bf16
        } else if o.has(Flag::Fp16Packed) || o.has(Flag::Fp16Storage) {
            FloatStorage::F16
        } else {
            FloatStorage::F32
        }
    }

    /// Bytes per element.
    pub fn element_bytes(self) -> usize {
        match self {
            FloatStorage::F32 => 4,
            FloatStorage::F16 | FloatStorage::Bf16 => 2,
        }
    }

    /// Bytes of a buffer holding `n` elements: a whole number of 32-bit
    /// words, as the packed modes read them.
    pub fn buffer_bytes(self, n: usize) -> usize {
        // Saturated: past `usize` no allocation can succeed, and the
        // buffer's own size check says so.
        n.saturating_mul(self.element_bytes())
            .div_ceil(4)
            .saturating_mul(4)
    }

    /// The elements as buffer bytes ([`FloatStorage::buffer_bytes`] long,
    /// zero-padded). fp16 rounds to nearest even; bf16 rounds as the
    /// extension's packing does (`(bits + 0x8000) >> 16`).
    pub fn encode(self, x: &[f32]) -> Vec<u8> {
        let mut b: Vec<u8> = match self {
            FloatStorage::F32 => x.iter().flat_map(|v| v.to_le_bytes()).collect(),
            FloatStorage::F16 => x
                .iter()
                .flat_map(|v| f16::from_f32(*v).to_le_bytes())
                .collect(),
            FloatStorage::Bf16 => x.iter().flat_map(|v| bf16_bits(*v).to_le_bytes()).collect(),
        };
        b.resize(self.buffer_bytes(x.len()), 0);
        b
    }

    /// The first `n` elements of buffer bytes `b`; `None` when `b` holds
    /// fewer than `n` elements.
    pub fn decode(self, b: &[u8], n: usize) -> Option<Vec<f32>> {
        let e = self.element_bytes();
        let bytes = b.get(..n.checked_mul(e)?)?;
        Some(
            bytes
                .chunks_exact(e)
                .map(|c| match self {
                    FloatStorage::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                    FloatStorage::F16 => f16::from_le_bytes([c[0], c[1]]).to_f32(),
                    FloatStorage::Bf16 => bf16_to_f32(u16::from_le_bytes([c[0], c[1]])),
                })
                .collect(),
        )
    }

    /// The value the storage holds for `x`: what a shader reads back after
    /// the host wrote `x`.
    pub fn round(self, x: f32) -> f32 {
        match self {
            FloatStorage::F32 => x,
            FloatStorage::F16 => f16::from_f32(x).to_f32(),
            FloatStorage::Bf16 => bf16_to_f32(bf16_bits(x)),
        }
    }
}

/// bfloat16 bits of `v`, rounded as the extension packs them: to nearest,
/// ties away from zero. A NaN stays a NaN (quieted, its sign kept), where the
/// rounding would carry its payload into the exponent: `0x7fffffff` to -0,
/// `0x7f800001` to +inf.
fn bf16_bits(v: f32) -> u16 {
    if v.is_nan() {
        return (v.to_bits() >> 16) as u16 | 0x0040;
    }
    (v.to_bits().wrapping_add(0x8000) >> 16) as u16
}

fn bf16_to_f32(b: u16) -> f32 {
    f32::from_bits(u32::from(b) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip_and_pad_to_words() {
        let x = [1.0f32, -2.5, 65504.0];
        for s in [FloatStorage::F32, FloatStorage::F16, FloatStorage::Bf16] {
            let b = s.encode(&x);
            assert_eq!(b.len() % 4, 0, "{s:?}");
            assert_eq!(b.len(), s.buffer_bytes(3), "{s:?}");
            let back = s.decode(&b, 3).unwrap();
            assert_eq!(back, x.map(|v| s.round(v)), "{s:?}");
            assert_eq!(s.decode(&b, 1000), None, "{s:?}");
        }
        assert_eq!(FloatStorage::F16.encode(&[1.0]), [0x00, 0x3c, 0, 0]);
        // 1 + 2^-8 is a bf16 midpoint: it rounds up, as the extension's packing does.
        let mid = f32::from_bits(0x3f80_8000);
        assert_eq!(FloatStorage::Bf16.encode(&[mid])[..2], [0x81, 0x3f]);
    }

    #[test]
    fn bf16_keeps_nans_nan() {
        for bits in [
            0x7fff_ffffu32,
            0x7f80_0001,
            0xffff_ffff,
            0xff80_0001,
            0x7fc0_0000,
        ] {
            let x = f32::from_bits(bits);
            let back = FloatStorage::Bf16.round(x);
            assert!(back.is_nan(), "{bits:#x} became {back}");
            assert_eq!(back.is_sign_negative(), x.is_sign_negative(), "{bits:#x}");
        }
        assert_eq!(FloatStorage::Bf16.round(f32::INFINITY), f32::INFINITY);
    }

    #[test]
    fn storage_follows_the_precedence_of_the_options() {
        let of = |s: &str| FloatStorage::of(s.parse().unwrap());
        assert_eq!(of("fp32"), FloatStorage::F32);
        assert_eq!(of("fp16p"), FloatStorage::F16);
        assert_eq!(of("fp16s+fp16a"), FloatStorage::F16);
        assert_eq!(of("bf16p"), FloatStorage::Bf16);
        assert_eq!(of("int8s+int8a"), FloatStorage::F32);
    }
}
