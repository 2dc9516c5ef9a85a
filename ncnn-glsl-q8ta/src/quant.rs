//! Per-tensor quantization parameters and the fixed-point requantization.
//!
//! `requant(q) = clamp(round_half_away((q - zp_in) * scale_in / scale_out) + zp_out, -128, 127)`
//! must come out byte-identical on every device, so the shader computes it in
//! integers from a multiplier and shift made here once; [`Requant::apply`] is
//! the shader's arithmetic step for step (32-bit wrapping operations included).
//!
//! Why 48 bits of multiplier, not the ~22 the spec sketches: with `|q - zp_in| <= 255`
//! a 22-bit multiplier is within one step of the real value, but not always equal to
//! it. Two 24-bit limbs, each multiplied by the 8-bit `|q - zp_in|` in 32 bits, make
//! the result equal the exact real-valued formula for every pair of f32 scales:
//! - the multiplier is rounded up, `M / 2^S >= r`, by less than `r * 2^-47`;
//! - for `r = p / q` in lowest terms, `x * r` is either exactly a half integer (a tie,
//!   which `M / 2^S >= r` rounds away from zero as it should) or at least `1 / (2q)`
//!   from one, and `q < 2^34` in the range that neither saturates nor vanishes
//!   (`2^-10 <= r <= 2^8`), while the overshoot is below `256 * 2^-47 = 2^-39`:
//!   the rounding never moves.
//!
//! The tests check this against an exact rational oracle.

use super::error::Q8taError;

/// Scale and zero point of a per-tensor quantized int8 tensor:
/// The smallest scale: the smallest normal f32. A subnormal scale, or a
/// subnormal `1 / scale`, is flushed to zero by GPUs that flush denormals,
/// where the reference keeps it (quantized zeros became zero point + 1).
pub const MIN_SCALE: f32 = f32::MIN_POSITIVE;
/// The largest scale: `1 / MIN_SCALE`, so that `1 / scale` is normal too.
pub const MAX_SCALE: f32 = 1.0 / f32::MIN_POSITIVE;

/// `real = (q - zero_point) * scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantParams {
    /// Finite and > 0.
    pub scale: f32,
    /// In `[-128, 127]`.
    pub zero_point: i32,
}

impl QuantParams {
    /// Validated parameters; `what` names the tensor in the error
    /// ("input", "output", ...).
    pub fn new(scale: f32, zero_point: i32, what: &'static str) -> Result<Self, Q8taError> {
        let p = QuantParams { scale, zero_point };
        p.validate(what)?;
        Ok(p)
    }

    /// Checks the scale (finite, > 0) and the zero point (`[-128, 127]`):
    /// what the integer requantization computes exactly.
    pub fn validate(&self, what: &'static str) -> Result<(), Q8taError> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(Q8taError::Scale {
                what,
                scale: self.scale,
            });
        }
        if !(-128..=127).contains(&self.zero_point) {
            return Err(Q8taError::ZeroPoint {
                what,
                zero_point: self.zero_point,
            });
        }
        Ok(())
    }

    /// [`QuantParams::validate`], and a scale in [`MIN_SCALE`, `MAX_SCALE`]:
    /// what the GPU's float conversions (quantize, dequantize) honour.
    pub fn validate_for_floats(&self, what: &'static str) -> Result<(), Q8taError> {
        self.validate(what)?;
        if !(MIN_SCALE..=MAX_SCALE).contains(&self.scale) {
            return Err(Q8taError::FloatScale {
                what,
                scale: self.scale,
            });
        }
        Ok(())
    }

    /// The zero point as a byte (valid parameters only).
    pub fn zp_i8(&self) -> i8 {
        self.zero_point as i8
    }
}

/// Round half away from zero, without `round()`'s implementation-defined ties
/// (the shaders cannot use GLSL `round()`: naga lowers it to round-half-even).
pub fn round_half_away(x: f64) -> f64 {
    let t = x.abs().floor();
    let r = if x.abs() - t >= 0.5 { t + 1.0 } else { t };
    r.copysign(x)
}

/// An f32 as `m * 2^e` with an integer mantissa `m` (0 for zero).
fn decompose(x: f32) -> (u64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32;
    let frac = (bits & 0x7f_ffff) as u64;
    if exp == 0 {
        (frac, -149)
    } else {
        (frac | 0x80_0000, exp - 150)
    }
}

/// `floor(log2(a / b))` for positive integers.
fn floor_log2_ratio(a: u64, b: u64) -> i32 {
    let t = (64 - a.leading_zeros()) as i32 - (64 - b.leading_zeros()) as i32;
    let (aa, bb) = if t >= 0 {
        (a as u128, (b as u128) << t)
    } else {
        ((a as u128) << -t, b as u128)
    };
    if aa >= bb {
        t
    } else {
        t - 1
    }
}

/// The smallest shift: `r` clamped to `2^8` (any larger ratio saturates every
/// nonzero `q - zp_in`) gives `S = 47 - 8`.
const MIN_SHIFT: u32 = 39;
/// Ratios below `2^-10` map every `|q - zp_in| <= 255` below one half.
const MIN_LOG2: i32 = -10;
const MAX_LOG2: i32 = 8;

/// What the shader's f32 requantization adds to a result `y0` before adding
/// `256 * y1`: `2^23 + 128 + 256 * 128`, so that the sum is an exact f32
/// integer whose low 16 bits are the two bytes offset by 128 (`requant_float`).
pub(crate) const FLOAT_PACK_BIAS: f32 = 8_421_504.0;

/// The host side of the shader's requantization: multiplier, shift and zero
/// points, as the shader's push constants carry them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Requant {
    /// Input zero point.
    pub zp_in: i32,
    /// Output zero point.
    pub zp_out: i32,
    /// Multiplier bits 24..47 (`M = mult_hi * 2^24 + mult_lo`, `M / 2^S ~ scale_in / scale_out`).
    pub mult_hi: u32,
    /// Multiplier bits 0..23.
    pub mult_lo: u32,
    /// The shift `S`, in `39..=57`.
    pub shift: u32,
    /// `scale_in == scale_out` and `zp_in == zp_out`: the identity, and the
    /// shaders' `PASSTHROUGH = 1` variant.
    pub passthrough: bool,
    /// `scale_in / scale_out` rounded to f32: the multiplier of the shader's
    /// f32 requantization ([`Requant::apply_float`]).
    pub ratio: f32,
    /// Whether the f32 requantization gives [`Requant::apply`]'s byte for
    /// every input byte on every Vulkan device ([`Requant::float_is_exact`]),
    /// which the runtime's `Requantization::Float` needs.
    pub float_exact: bool,
}

impl Requant {
    /// Validates both parameter sets and computes the fixed-point form.
    pub fn new(input: QuantParams, output: QuantParams) -> Result<Self, Q8taError> {
        input.validate("input")?;
        output.validate("output")?;
        let (m_in, e_in) = decompose(input.scale);
        let (m_out, e_out) = decompose(output.scale);
        let log2 = floor_log2_ratio(m_in, m_out) + e_in - e_out;
        let (m, shift): (u64, u32) = if log2 < MIN_LOG2 {
            (0, 47)
        } else if log2 >= MAX_LOG2 {
            (1 << 47, MIN_SHIFT)
        } else {
            let shift = (47 - log2) as u32;
            // M = ceil(m_in * 2^(e_in - e_out + S) / m_out), exponent in [23, 71]:
            // rounded up so that exact ties (x * r = k + 1/2) still round away from zero.
            let k = e_in - e_out + shift as i32;
            debug_assert!((0..100).contains(&k));
            let num = (m_in as u128) << k;
            let den = m_out as u128;
            let m = num.div_ceil(den) as u64;
            if m == 1 << 48 {
                // Rounded up to the next power of two: renormalize.
                (1 << 47, shift - 1)
            } else {
                (m, shift)
            }
        };
        debug_assert!((MIN_SHIFT..=57).contains(&shift) && m < 1 << 48);
        let mut r = Requant {
            zp_in: input.zero_point,
            zp_out: output.zero_point,
            mult_hi: (m >> 24) as u32,
            mult_lo: (m & 0xff_ffff) as u32,
            shift,
            passthrough: input.scale == output.scale && input.zero_point == output.zero_point,
            ratio: (input.scale as f64 / output.scale as f64) as f32,
            float_exact: false,
        };
        r.float_exact = r.float_is_exact();
        Ok(r)
    }

    /// The multiplier `M` (48 bits).
    pub fn multiplier(&self) -> u64 {
        ((self.mult_hi as u64) << 24) | self.mult_lo as u64
    }

    /// Requantizes one value exactly as the shader does (the same 32-bit
    /// operations; the shader's `requant()`). Identity when passthrough.
    pub fn apply(&self, q: i8) -> i8 {
        if self.passthrough {
            return q;
        }
        // Wrapping and checked shifts: the fields are public, and a value
        // `new` never makes gives a wrong byte, not a panic. Within the
        // documented ranges none of them wraps.
        let d = (q as i32).wrapping_sub(self.zp_in);
        let x = d.unsigned_abs();
        let a = x.wrapping_mul(self.mult_lo);
        let b = x.wrapping_mul(self.mult_hi);
        let lo = (b << 24).wrapping_add(a);
        let carry = (lo < a) as u32;
        let round = 1u32.checked_shl(self.shift.wrapping_sub(33)).unwrap_or(0);
        let hi = (b >> 8).wrapping_add(carry).wrapping_add(round);
        let y = hi
            .checked_shr(self.shift.wrapping_sub(32))
            .unwrap_or(0)
            .min(255) as i32;
        let r = if d < 0 {
            self.zp_out.saturating_sub(y)
        } else {
            self.zp_out.saturating_add(y)
        };
        r.clamp(-128, 127) as i8
    }

    /// The 256-entry table of [`Requant::apply`], indexed by `q as u8`.
    pub fn table(&self) -> [i8; 256] {
        std::array::from_fn(|i| self.apply(i as u8 as i8))
    }

    /// The shader's f32 requantization of one value (`requant_float`), its
    /// product and sum rounded to nearest each (`fused == false`) or once
    /// (`fused`). `q - zp_in` is exact, `floor`, the clamp and the packing
    /// too: `clamp(floor((q - zp_in) * ratio + zp_out + 1/2), -128,
    /// 127)`, which is [`Requant::apply`]'s byte wherever
    /// [`Requant::float_is_exact`] holds.
    pub fn apply_float(&self, q: i8, fused: bool) -> i8 {
        let u = (i32::from(q) + 128) as u32;
        let d = f32::from_bits(u | 0x4B00_0000) - (8_388_736.0 + self.zp_in as f32);
        let c = self.zp_out as f32 + 0.5;
        let t = if fused {
            d.mul_add(self.ratio, c)
        } else {
            d * self.ratio + c
        };
        let y = t.floor().clamp(-128.0, 127.0);
        // One result of the shader's packing: its low 8 bits, the offset
        // flipped off by the sign bit.
        (((y + FLOAT_PACK_BIAS).to_bits() & 255) as u8 ^ 0x80) as i8
    }

    /// Whether the f32 requantization ([`Requant::apply_float`]) gives
    /// [`Requant::apply`]'s byte for every input byte, whatever a Vulkan
    /// device does with its two rounded steps: round to nearest or toward
    /// zero, the multiply-add fused or not (Vulkan allows each), each an
    /// error of at most one ulp. For each byte the value before `floor` lies
    /// within that bound of the exact `(q - zp_in) * ratio + zp_out + 1/2`
    /// (computed here in f64, exactly up to 2^-52 of its size); both ends of
    /// the interval must floor and clamp to the exact byte. False where the
    /// ratio is not a normal f32 of at most 2^17, and where an exact value is
    /// a tie below zero: `floor(x + 1/2)` rounds it up, not away from zero
    /// (equal exponents of the two scales, for example, make such ties).
    pub fn float_is_exact(&self) -> bool {
        if !self.ratio.is_normal() || self.ratio > 131_072.0 {
            return false;
        }
        let c = self.zp_out as f64 + 0.5;
        (-128..=127i32).all(|q| {
            let x = (f64::from(q) - f64::from(self.zp_in)) * f64::from(self.ratio);
            let e = (2.0 * x.abs() + c.abs() + 1.0) * 2f64.powi(-22);
            let at = |t: f64| t.floor().clamp(-128.0, 127.0);
            let want = f64::from(self.apply(q as i8));
            at(x + c - e) == want && at(x + c + e) == want
        })
    }
}

/// Constants of the quantize shader's deterministic float path, made once on
/// the host from the scale (see `shaders/q8ta_quantize.comp`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantizeConsts {
    /// `1 / scale` rounded to f32 (clamped to `f32::MAX`), for the estimate.
    pub inv_scale: f32,
    /// `scale` with its 9 low mantissa bits cleared: `c * 0.5 * scale_hi` is exact in f32
    /// for integers `c <= 511`.
    pub scale_hi: f32,
    /// `scale - scale_hi` (exact, at most 9 significant bits).
    pub scale_lo: f32,
}

impl QuantizeConsts {
    /// For a validated scale.
    pub fn new(scale: f32) -> Self {
        let inv = (1.0f64 / scale as f64).min(f32::MAX as f64) as f32;
        let scale_hi = f32::from_bits(scale.to_bits() & !0x1ff);
        QuantizeConsts {
            inv_scale: inv,
            scale_hi,
            scale_lo: scale - scale_hi,
        }
    }

    /// `round_half_away(x / scale)` capped to `[-255, 255]` (enough: larger
    /// magnitudes saturate with any zero point), computed in f32 exactly as the
    /// quantize shader does. An estimate through the reciprocal is corrected by
    /// an exact comparison of `|x|` with `(y +- 0.5) * scale`: the products with
    /// `scale_hi` and `scale_lo` are exact, and `|x| - (y + 0.5) * scale_hi` is
    /// exact whenever it is near `(y + 0.5) * scale_lo` (Sterbenz), so the
    /// comparison is exact and a fused multiply-add changes nothing.
    pub fn rounded(&self, x: f32) -> i32 {
        if x.is_nan() {
            return 0;
        }
        let ax = x.abs();
        let t = ax * self.inv_scale + 0.5;
        let mut y: u32 = if t < 255.0 { t as u32 } else { 255 };
        if y < 255 {
            let c = y as f32 + 0.5;
            if ax - c * self.scale_hi >= c * self.scale_lo {
                y += 1;
            } else if y > 0 {
                let c = y as f32 - 0.5;
                if ax - c * self.scale_hi < c * self.scale_lo {
                    y -= 1;
                }
            }
        } else {
            let c = y as f32 - 0.5;
            if ax - c * self.scale_hi < c * self.scale_lo {
                y -= 1;
            }
        }
        if x < 0.0 {
            -(y as i32)
        } else {
            y as i32
        }
    }

    /// The quantize shader's byte for `x`: `clamp(rounded(x) + zp, -128, 127)`.
    pub fn quantize(&self, x: f32, zero_point: i32) -> i8 {
        self.rounded(x).saturating_add(zero_point).clamp(-128, 127) as i8
    }
}

/// Reference quantization of one value: `clamp(round_half_away(x / scale) + zp, -128, 127)`
/// with the division in f64 (exact at ties of two f32 values; NaN maps to `zp`).
pub fn quantize_value(x: f32, p: QuantParams) -> i8 {
    if x.is_nan() {
        return p.zp_i8();
    }
    let v = round_half_away(x as f64 / p.scale as f64);
    (v + p.zero_point as f64).clamp(-128.0, 127.0) as i8
}

/// Reference dequantization of one value: `(q - zp) * scale` in f32 (one
/// rounding: the integer factor is exact).
pub fn dequantize_value(q: i8, p: QuantParams) -> f32 {
    (i64::from(q) - i64::from(p.zero_point)) as f32 * p.scale
}
