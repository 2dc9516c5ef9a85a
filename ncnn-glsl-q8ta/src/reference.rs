//! CPU reference of the four q8ta operations. These are the results the
//! shaders must reproduce byte for byte (quantize: up to the spec's tolerance
//! near rounding ties); they are written from the operator's definition, not
//! from the shaders' index arithmetic, so they check it.

use super::check::check_shuffle_shapes;
use super::error::Q8taError;
use super::layout::{pack, unpack, Layout};
use super::quant::{dequantize_value, quantize_value, QuantParams, Requant};
use super::shape::Shape;

/// The output shape of a pixel shuffle of `input` (factor 2), validated.
pub fn shuffle_output_shape(input: Shape) -> Result<Shape, Q8taError> {
    input.check_nonempty("input")?;
    input.check_index_range("input")?;
    if input.c % 4 != 0 {
        return Err(Q8taError::Channels {
            c_in: input.c,
            c_out: input.c / 4,
        });
    }
    let out = Shape::new(input.n, input.c / 4, 2 * input.h, 2 * input.w);
    check_shuffle_shapes(input, out, 2)
}

/// `out[n, c, 2h + dy, 2w + dx] = requant(in[n, 4c + 2dy + dx, h, w])` on NCHW
/// tensors. Returns the output shape and tensor.
pub fn pixel_shuffle_nchw(
    input: &[i8],
    in_shape: Shape,
    requant: &Requant,
) -> Result<(Shape, Vec<i8>), Q8taError> {
    let os = shuffle_output_shape(in_shape)?;
    if input.len() < in_shape.elements() {
        return Err(Q8taError::BufferTooSmall {
            what: "input",
            needed: in_shape.elements(),
            len: input.len(),
        });
    }
    let mut out = vec![0i8; os.elements()];
    for n in 0..os.n {
        for c in 0..os.c {
            for oh in 0..os.h {
                for ow in 0..os.w {
                    let (h, dy, w, dx) = (oh / 2, oh % 2, ow / 2, ow % 2);
                    let q = input[in_shape.nchw_index(n, 4 * c + 2 * dy + dx, h, w)];
                    out[os.nchw_index(n, c, oh, ow)] = requant.apply(q);
                }
            }
        }
    }
    Ok((os, out))
}

/// The pixel shuffle from one layout to another: the whole output buffer,
/// padding included (`zp_out`). Input padding is never read.
pub fn pixel_shuffle(
    input: &[u32],
    in_layout: Layout,
    in_shape: Shape,
    out_layout: Layout,
    requant: &Requant,
) -> Result<Vec<u32>, Q8taError> {
    let x = unpack(in_layout, in_shape, input)?;
    let (os, y) = pixel_shuffle_nchw(&x, in_shape, requant)?;
    pack(out_layout, os, &y, requant.zp_out as i8)
}

/// Quantizes a float NCHW tensor into `layout` (padding lanes = the zero point).
pub fn quantize(
    x: &[f32],
    shape: Shape,
    layout: Layout,
    p: QuantParams,
) -> Result<Vec<u32>, Q8taError> {
    p.validate("quantize")?;
    shape.check_nonempty("quantize")?;
    if x.len() < shape.elements() {
        return Err(Q8taError::BufferTooSmall {
            what: "float input",
            needed: shape.elements(),
            len: x.len(),
        });
    }
    let q: Vec<i8> = x[..shape.elements()]
        .iter()
        .map(|&v| quantize_value(v, p))
        .collect();
    pack(layout, shape, &q, p.zp_i8())
}

/// Dequantizes `layout` words into a float NCHW tensor (padding not read).
pub fn dequantize(
    words: &[u32],
    shape: Shape,
    layout: Layout,
    p: QuantParams,
) -> Result<Vec<f32>, Q8taError> {
    p.validate("dequantize")?;
    shape.check_nonempty("dequantize")?;
    Ok(unpack(layout, shape, words)?
        .into_iter()
        .map(|q| dequantize_value(q, p))
        .collect())
}
