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
    // The shaders index words with 32-bit signed ints.
    for (what, s) in [("input", input), ("output", output)] {
        s.check_index_range(what)?;
    }
    Ok(want)
}

impl Shape {
    /// A shape with a zero dimension is refused: there is nothing to run.
    pub(crate) fn check_nonempty(self, what: &'static str) -> Result<(), Q8taError> {
        if self.elements() == 0 {
            return Err(Q8taError::Empty { what, shape: self });
        }
        Ok(())
    }

    /// The shaders index elements and words with 32-bit signed ints.
    pub(crate) fn check_index_range(self, what: &'static str) -> Result<(), Q8taError> {
        let most = self
            .n
            .checked_mul(self.c4() * 4)
            .and_then(|x| x.checked_mul(self.h))
            .and_then(|x| x.checked_mul(self.w4() * 4));
        match most {
            Some(m) if m <= i32::MAX as usize => Ok(()),
            _ => Err(Q8taError::TooLarge { what, shape: self }),
        }
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
