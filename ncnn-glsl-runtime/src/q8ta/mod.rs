//! q8ta pixel shuffle (upscale factor 2) on int8 tensors in ExecuTorch's
//! channels-packed layouts: the host side of `shaders/q8ta_*.comp`.
//!
//! Everything a dispatch needs that is not Vulkan lives here, and runs on the
//! CPU: the three word layouts ([`Layout`]), quantization parameters
//! ([`QuantParams`]) and the fixed-point requantization the shader computes
//! ([`Requant`], byte for byte), packing between NCHW and a layout, the
//! validation of shapes and buffers ([`Q8taError`]), the CPU reference of the
//! four operations ([`mod@reference`]) and a model of each shader's
//! per-invocation logic ([`model`]) that the tests run before any GPU does.
//!
//! The contract is `shared/spec/q8ta-pixel-shuffle.md`.
//!
//! # The shaders (`shaders/` at the workspace root)
//!
//! Layout codes are [`Layout`]'s discriminants: 0 = 4W4C, 1 = 4C, 2 = 4C1W.
//! Binding 0 is the input (read-only), binding 1 the output (written whole).
//!
//! | shader | axes | push constants | local size | grid (invocations) |
//! |---|---|---|---|---|
//! | `q8ta_pixel_shuffle.comp` | none: one blob; `IN_LAYOUT`, `OUT_LAYOUT`, `PASSTHROUGH`, `PATH` are specialization constants 3, 4, 5, 6 ([`shuffle_specialization`]) | [`model::ShufflePush`], 48 B | `local_size_*_id` 0, 1, 2 (default 4x16x1), set per pair and path: [`shuffle_local_size`] | [`model::shuffle_grid`] |
//! | `q8ta_pixel_shuffle_baseline.comp` | `IN_LAYOUT`, `OUT_LAYOUT`, `PASSTHROUGH` | the same | 64x1x1 | [`model::baseline_grid`] |
//! | `q8ta_quantize.comp` | `OUT_LAYOUT` | [`model::QuantizePush`], 32 B | 64x1x1 | [`model::quantize_grid`] |
//! | `q8ta_dequantize.comp` | `IN_LAYOUT`, `VEC` ([`model::dequantize_vec_width`]) | [`model::DequantizePush`], 24 B | 64x1x1 | [`model::dequantize_grid`] |
//!
//! Every shader checks bounds against its push constants, so rounded-up grids
//! are correct. The runtime cannot split a grid past `maxComputeWorkGroupCount`
//! (`vkCmdDispatchBase` is bounded by the same limit), so the shuffle shaders
//! loop over their y and z axes (grid-stride, the launched invocation counts in
//! the push constants) and the host clamps those axes ([`PixelShuffle::launch`]);
//! the quantize and dequantize grids must fit the limit.
//!
//! The GPU side is [`Q8taOps`] (module [`gpu`]).

mod error;
pub mod gpu;
mod layout;
pub mod model;
mod op;
mod quant;
pub mod reference;
#[cfg(test)]
mod tests;
pub mod vectors;

pub use error::Q8taError;
pub use gpu::{OpError, Q8taOps, QTensor, ShuffleRun, Storage};
pub use layout::{pack, unpack, Layout, Shape};
pub use model::ShufflePath;
pub use op::{shuffle_local_size, shuffle_specialization, Launch, PixelShuffle};
pub use quant::{
    dequantize_value, quantize_value, round_half_away, QuantParams, QuantizeConsts, Requant,
};

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
