//! The checks every q8ta operation makes on the host before anything is
//! recorded: shapes (the pixel shuffle's rule, nothing empty, indices that
//! fit the shaders' 32-bit ints) and buffer sizes.

use super::error::Q8taError;
use super::shape::Shape;

/// The only upscale factor the operator supports (spec: any other is an error).
pub const UPSCALE_FACTOR: usize = 2;

/// Checks a pixel shuffle's shapes: factor 2, `C_in = 4 * C_out`, the output
/// shape `[N, C_out, 2H, 2W]`, and nothing empty. Returns the output shape.
pub fn check_shuffle_shapes(
    input: Shape,
    output: Shape,
    upscale_factor: usize,
) -> Result<Shape, Q8taError> {
    if upscale_factor != UPSCALE_FACTOR {
        return Err(Q8taError::UpscaleFactor(upscale_factor));
    }
    input.check_nonempty("input")?;
    output.check_nonempty("output")?;
    // Bounded first: the products below cannot overflow.
    input.check_index_range("input")?;
    output.check_index_range("output")?;
    if input.c != 4 * output.c {
        return Err(Q8taError::Channels {
            c_in: input.c,
            c_out: output.c,
        });
    }
    let want = Shape::new(input.n, output.c, 2 * input.h, 2 * input.w);
    if output != want {
        return Err(Q8taError::ShapeMismatch {
            input,
            output,
            expected: want,
        });
    }
    Ok(want)
}

impl Shape {
    /// A shape with a zero dimension is refused: there is nothing to run.
    /// (Each dimension is tested: their product may overflow.)
    pub(crate) fn check_nonempty(self, what: &'static str) -> Result<(), Q8taError> {
        if [self.n, self.c, self.h, self.w].contains(&0) {
            return Err(Q8taError::Empty { what, shape: self });
        }
        Ok(())
    }

    /// The shaders index elements and words with 32-bit signed ints.
    pub(crate) fn check_index_range(self, what: &'static str) -> Result<(), Q8taError> {
        match self.padded_elements() {
            Some(m) if m <= i32::MAX as u128 => Ok(()),
            _ => Err(Q8taError::TooLarge { what, shape: self }),
        }
    }

    /// `N * 4ceil(C/4) * H * 4ceil(W/4)`, the most elements any layout pads
    /// the shape to; `None` past `u128`.
    pub(crate) fn padded_elements(self) -> Option<u128> {
        let c = (self.c4() as u128) * 4;
        let w = (self.w4() as u128) * 4;
        (self.n as u128)
            .checked_mul(c)?
            .checked_mul(self.h as u128)?
            .checked_mul(w)
    }
}

/// `len` bytes (or elements) hold the `needed` of `what`.
pub(crate) fn check_size(what: &'static str, needed: usize, len: u64) -> Result<(), Q8taError> {
    if (len as usize) < needed {
        return Err(Q8taError::BufferTooSmall {
            what,
            needed,
            len: len as usize,
        });
    }
    Ok(())
}
