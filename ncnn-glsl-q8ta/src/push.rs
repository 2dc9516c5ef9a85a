//! The push-constant blocks of the q8ta shaders, as the host writes them:
//! one struct per block, its fields at the shader's std430 offsets, and the
//! little-endian bytes `vkCmdPushConstants` takes.

use super::quant::{QuantParams, QuantizeConsts, Requant};
use super::shape::Shape;

/// The push-constant block of `q8ta_pixel_shuffle.comp` and
/// `q8ta_pixel_shuffle_baseline.comp`: thirteen 32-bit scalars, std430, 52 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct ShufflePush {
    /// Offset 0: batch.
    pub n: i32,
    /// Offset 4: output channels (input channels = 4 * c_out).
    pub c_out: i32,
    /// Offset 8: input height.
    pub h: i32,
    /// Offset 12: input width.
    pub w: i32,
    /// Offset 16: input zero point.
    pub zp_in: i32,
    /// Offset 20: output zero point.
    pub zp_out: i32,
    /// Offset 24: [`Requant::mult_hi`].
    pub mult_hi: u32,
    /// Offset 28: [`Requant::mult_lo`].
    pub mult_lo: u32,
    /// Offset 32: [`Requant::shift`].
    pub shift: u32,
    /// Offset 36: invocations launched on y (the grid-stride loop's step);
    /// the new kernel's width axis, x when its blocks are on y.
    pub y_stride: i32,
    /// Offset 40: invocations launched on z.
    pub z_stride: i32,
    /// Offset 44: invocations per workgroup (the new kernel fills its
    /// requantization table with this stride).
    pub local_count: u32,
    /// Offset 48: [`Requant::ratio`] (the new kernel's f32 requantization).
    pub ratio: f32,
}

impl ShufflePush {
    /// Size of the block in bytes.
    pub const SIZE: usize = 52;

    /// The block for an input shape (validated by the caller), a
    /// requantization, the invocations launched per axis (workgroups times
    /// local size, see [`launch`](super::launch); for the new kernel with its
    /// blocks on y, x and y swapped back) and the local size.
    pub fn new(input: Shape, r: &Requant, launched: [u32; 3], local: [u32; 3]) -> Self {
        ShufflePush {
            n: input.n as i32,
            c_out: (input.c / 4) as i32,
            h: input.h as i32,
            w: input.w as i32,
            zp_in: r.zp_in,
            zp_out: r.zp_out,
            mult_hi: r.mult_hi,
            mult_lo: r.mult_lo,
            shift: r.shift,
            y_stride: launched[1] as i32,
            z_stride: launched[2] as i32,
            local_count: local.iter().fold(1u32, |a, &l| a.saturating_mul(l)),
            ratio: r.ratio,
        }
    }

    /// The bytes to hand `vkCmdPushConstants` (little-endian, as every Vulkan device).
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        words_to_bytes([
            self.n as u32,
            self.c_out as u32,
            self.h as u32,
            self.w as u32,
            self.zp_in as u32,
            self.zp_out as u32,
            self.mult_hi,
            self.mult_lo,
            self.shift,
            self.y_stride as u32,
            self.z_stride as u32,
            self.local_count,
            self.ratio.to_bits(),
        ])
    }
}

/// The push-constant block of `q8ta_quantize.comp`: 8 32-bit scalars, 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct QuantizePush {
    /// Offsets 0, 4, 8, 12: the NCHW shape `n, c, h, w`.
    pub shape: [i32; 4],
    /// Offset 16: the zero point.
    pub zp: i32,
    /// Offset 20: [`QuantizeConsts::inv_scale`].
    pub inv_scale: f32,
    /// Offset 24: [`QuantizeConsts::scale_hi`].
    pub scale_hi: f32,
    /// Offset 28: [`QuantizeConsts::scale_lo`].
    pub scale_lo: f32,
}

impl QuantizePush {
    /// Size of the block in bytes.
    pub const SIZE: usize = 32;

    /// The block for a tensor shape and validated parameters.
    pub fn new(shape: Shape, p: QuantParams) -> Self {
        let k = QuantizeConsts::new(p.scale);
        QuantizePush {
            shape: shape_i32(shape),
            zp: p.zero_point,
            inv_scale: k.inv_scale,
            scale_hi: k.scale_hi,
            scale_lo: k.scale_lo,
        }
    }

    /// The bytes to hand `vkCmdPushConstants`.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let s = self.shape.map(|x| x as u32);
        words_to_bytes([
            s[0],
            s[1],
            s[2],
            s[3],
            self.zp as u32,
            self.inv_scale.to_bits(),
            self.scale_hi.to_bits(),
            self.scale_lo.to_bits(),
        ])
    }
}

/// The push-constant block of `q8ta_dequantize.comp`: 6 32-bit scalars, 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct DequantizePush {
    /// Offsets 0, 4, 8, 12: the NCHW shape `n, c, h, w`.
    pub shape: [i32; 4],
    /// Offset 16: the zero point.
    pub zp: i32,
    /// Offset 20: the scale.
    pub scale: f32,
}

impl DequantizePush {
    /// Size of the block in bytes.
    pub const SIZE: usize = 24;

    /// The block for a tensor shape and validated parameters.
    pub fn new(shape: Shape, p: QuantParams) -> Self {
        DequantizePush {
            shape: shape_i32(shape),
            zp: p.zero_point,
            scale: p.scale,
        }
    }

    /// The bytes to hand `vkCmdPushConstants`.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let s = self.shape.map(|x| x as u32);
        words_to_bytes([s[0], s[1], s[2], s[3], self.zp as u32, self.scale.to_bits()])
    }
}

fn shape_i32(s: Shape) -> [i32; 4] {
    [s.n as i32, s.c as i32, s.h as i32, s.w as i32]
}

fn words_to_bytes<const W: usize, const B: usize>(v: [u32; W]) -> [u8; B] {
    let mut b = [0u8; B];
    for (i, x) in v.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    b
}
