//! A CPU model of the extension (docs/extension.md), written from
//! the spec, not from the extension's GLSL: element encodings, packing order,
//! bf16 rounding, float2int8's round-half-away and saturation, sign extension.
//!
//! Every buffer the extension reads or writes is, byte for byte, a
//! little-endian array of its elements: element `2k` in the low half of word
//! `k` is the little-endian order of a `u16` array, and lane 0 of an int8 word
//! in bits 0..7 is the byte order. So the model works on element arrays.

#![allow(dead_code)]

use half::f16;
use ncnn_glsl_runtime::{Flag, Options};

/// How a mode stores a float element (`sfp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatStorage {
    F32,
    F16,
    Bf16,
}

impl FloatStorage {
    /// Spec section 2's precedence: bf16s over bf16p over fp16s over fp16p over fp32.
    pub fn of(o: Options) -> FloatStorage {
        if o.has(Flag::Bf16Storage) || o.has(Flag::Bf16Packed) {
            FloatStorage::Bf16
        } else if o.has(Flag::Fp16Storage) || o.has(Flag::Fp16Packed) {
            FloatStorage::F16
        } else {
            FloatStorage::F32
        }
    }

    pub fn bytes(self) -> usize {
        match self {
            FloatStorage::F32 => 4,
            _ => 2,
        }
    }

    /// The fp32 value of a stored element (exact in every format).
    pub fn decode(self, bits: u32) -> f32 {
        match self {
            FloatStorage::F32 => f32::from_bits(bits),
            FloatStorage::F16 => f16::from_bits(bits as u16).to_f32(),
            FloatStorage::Bf16 => f32::from_bits(bits << 16),
        }
    }

    /// What storing fp32 `v` may give: (the spec's result, another result
    /// the spec allows). bf16: round to nearest on the bits, exact. fp16: the
    /// spec names no rounding for the conversion (packHalf2x16, OpFConvert)
    /// and Vulkan lets it be to nearest even or toward zero, so both.
    pub fn encode(self, v: f32) -> [u32; 2] {
        match self {
            FloatStorage::F32 => [v.to_bits(); 2],
            FloatStorage::F16 => {
                let (rne, rtz) = half_roundings(v);
                [u32::from(rne), u32::from(rtz)]
            }
            FloatStorage::Bf16 => [u32::from(bf16_round(v)); 2],
        }
    }
}

/// The arithmetic type `afp`: fp16 only with fp16a and fp16 storage (in bf16
/// modes `afp` stays fp32 even with fp16a).
pub fn afp_is_half(o: Options) -> bool {
    o.has(Flag::Fp16Arithmetic) && FloatStorage::of(o) == FloatStorage::F16
}

/// fp32 to bf16 bits: add 0x8000 to the bit pattern, keep the high half.
pub fn bf16_round(v: f32) -> u16 {
    (v.to_bits().wrapping_add(0x8000) >> 16) as u16
}

/// fp32 to fp16 bits, rounded to nearest even and toward zero.
pub fn half_roundings(v: f32) -> (u16, u16) {
    let rne = f16::from_f32(v);
    let mut rtz = rne.to_bits();
    if rne.to_f32().abs() > v.abs() {
        rtz -= 1; // one step toward zero in sign-magnitude
    }
    (rne.to_bits(), rtz)
}

/// fp32 `v` through fp16 (either allowed rounding), back to fp32 bits.
pub fn through_half(v: f32) -> [u32; 2] {
    let (a, b) = half_roundings(v);
    [
        f16::from_bits(a).to_f32().to_bits(),
        f16::from_bits(b).to_f32().to_bits(),
    ]
}

/// fp32 `v` through bf16, back to fp32 bits.
pub fn through_bf16(v: f32) -> u32 {
    u32::from(bf16_round(v)) << 16
}

/// `float2int8`: round half away from zero, saturate to [-127, 127].
pub fn float2int8(v: f32) -> i32 {
    // f32::round rounds half away from zero.
    (v.round() as i32).clamp(-127, 127)
}

/// `packInt4x8`: lane k (`.r` = 0) in bits 8k..8k+7, each masked to 8 bits.
pub fn pack_int4x8(v: [i32; 4]) -> i32 {
    v.iter()
        .enumerate()
        .fold(0u32, |w, (k, x)| w | ((*x as u32 & 0xff) << (8 * k))) as i32
}

/// `unpackInt4x8`: lanes low to high, sign-extended.
pub fn unpack_int4x8(w: i32) -> [i32; 4] {
    std::array::from_fn(|k| i32::from((w >> (8 * k)) as i8))
}

/// `packInt2x16`: `.r` in the low 16 bits.
pub fn pack_int2x16(v: [i32; 2]) -> i32 {
    ((v[0] as u32 & 0xffff) | ((v[1] as u32 & 0xffff) << 16)) as i32
}

/// `unpackInt2x16`: sign-extended 16-bit lanes, `.r` low.
pub fn unpack_int2x16(w: i32) -> [i32; 2] {
    [i32::from(w as i16), i32::from((w >> 16) as i16)]
}

/// The bytes of an element array, each element `size` bytes little-endian.
pub fn to_bytes(elems: &[u32], size: usize) -> Vec<u8> {
    elems
        .iter()
        .flat_map(|e| e.to_le_bytes()[..size].to_vec())
        .collect()
}

/// The elements of a little-endian byte array.
pub fn from_bytes(bytes: &[u8], size: usize) -> Vec<u32> {
    bytes
        .chunks(size)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..size].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

#[cfg(test)]
mod self_check {
    use super::*;

    #[test]
    fn the_model_matches_the_spec_examples() {
        assert_eq!(bf16_round(1.0), 0x3f80);
        // Halfway and above round up, below rounds down (on the bits).
        assert_eq!(bf16_round(f32::from_bits(0x3f80_8000)), 0x3f81);
        assert_eq!(bf16_round(f32::from_bits(0x3f80_7fff)), 0x3f80);
        assert_eq!(float2int8(2.5), 3);
        assert_eq!(float2int8(-2.5), -3);
        assert_eq!(float2int8(0.49999997), 0);
        assert_eq!(float2int8(-1000.0), -127);
        assert_eq!(float2int8(127.5), 127);
        assert_eq!(pack_int4x8([1, -1, 2, -128]), 0x80_02_ff_01_u32 as i32);
        assert_eq!(unpack_int4x8(0x80_02_ff_01_u32 as i32), [1, -1, 2, -128]);
        assert_eq!(pack_int2x16([-1, 2]), 0x0002_ffff);
        assert_eq!(unpack_int2x16(0x8000_7fff_u32 as i32), [32767, -32768]);
        let (rne, rtz) = half_roundings(1.0 + 1.0 / 1024.0 * 0.75);
        assert_eq!((rne, rtz), (0x3c01, 0x3c00));
    }
}
