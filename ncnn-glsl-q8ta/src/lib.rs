//! q8ta pixel shuffle (upscale factor 2) on int8 tensors in ExecuTorch's
//! channels-packed layouts: the operator, its shaders' variant sets and its
//! host side, on the generic runtime (`ncnn-glsl-runtime`): a context runs
//! the q8ta operations when it was opened with [`context_options`] (the
//! [`SETS`] among its variant sets), and [`Q8taOps`] checks that it was.
//!
//! ```no_run
//! use ncnn_glsl_q8ta::{Layout, Q8taOps, QuantParams, Shape};
//! use ncnn_glsl_runtime::{Context, Options};
//!
//! let ctx = Context::new(ncnn_glsl_q8ta::context_options())?;
//! let ops = Q8taOps::new(&ctx, Options::NCNN_DEFAULT)?;
//! let q = QuantParams { scale: 0.05, zero_point: 3 };
//! let shape = Shape::new(1, 64, 8, 8);
//! let x = vec![0.5f32; shape.elements()];
//! let input = ops.quantize(&x, shape, Layout::Packed4C, q)?;
//! let mut output = ops.tensor(Shape::new(1, 16, 16, 16), Layout::Packed4C1W, q)?;
//! ops.pixel_shuffle(&input, &mut output, 2)?;
//! let y = ops.dequantize(&output)?;
//! # let _ = y;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What is not Vulkan runs on the CPU and is tested there first: the three
//! word layouts ([`Layout`]), quantization parameters ([`QuantParams`]) and
//! the fixed-point requantization the shader computes ([`Requant`], byte for
//! byte), packing between NCHW and a layout, the checks of shapes and
//! buffers ([`Q8taError`]), the CPU reference of the four operations
//! ([`mod@reference`]), and (in the unit tests) a model of each shader's
//! per-invocation logic. The operator's contract is
//! `docs/q8ta-pixel-shuffle.md`.
//!
//! Modules, lowest first: `shape`, `error`, `layout`, `quant`, [`push`] (the
//! push-constant blocks), `requantization` ([`Requantization`]), [`launch`]
//! (paths, grids, clamped launches), [`plan`] (the launch plan: every tuned
//! rule of the operator, [`Plan`]),
//! `check`, `op` ([`PixelShuffle`]: a validated shuffle), [`mod@reference`],
//! [`vectors`] (golden-vector files), [`sets`] (the variant sets), [`gpu`]
//! ([`Q8taOps`]).
//!
//! # The shaders (`shaders/` at the workspace root)
//!
//! Layout codes are [`Layout`]'s discriminants: 0 = 4W4C, 1 = 4C, 2 = 4C1W.
//! Binding 0 is the input (read-only), binding 1 the output (written whole).
//!
//! | shader | axes | push constants | local size | grid (invocations) |
//! |---|---|---|---|---|
//! | `q8ta_pixel_shuffle.comp` | `LUT_COPIES` 1, 32 (the requantization table's copies: [`shuffle_axes`]), a blob each; `IN_LAYOUT`, `OUT_LAYOUT`, `PASSTHROUGH`, `PATH`, `REQUANT_TABLE`, `BLOCKS_ON_Y` are specialization constants 3 to 8 ([`shuffle_specialization`]) | [`push::ShufflePush`], 52 B | `local_size_*_id` 0, 1, 2 (default 4x16x1), set per shuffle: [`Plan::local`] | [`launch::shuffle_grid`] |
//! | `q8ta_pixel_shuffle_baseline.comp` | `IN_LAYOUT`, `OUT_LAYOUT`, `PASSTHROUGH` | the same | 64x1x1 | [`launch::baseline_grid`] |
//! | `q8ta_quantize.comp` | `OUT_LAYOUT` | [`push::QuantizePush`], 32 B | 64x1x1 | [`launch::quantize_grid`] |
//! | `q8ta_dequantize.comp` | `IN_LAYOUT`, `VEC` ([`launch::dequantize_vec_width`]) | [`push::DequantizePush`], 24 B | 64x1x1 | [`launch::dequantize_grid`] |
//!
//! Every shader checks bounds against its push constants, so rounded-up grids
//! are correct. The runtime cannot split a grid past `maxComputeWorkGroupCount`
//! (`vkCmdDispatchBase` is bounded by the same limit), so the shuffle shaders
//! loop over their y and z axes (grid-stride, the launched invocation counts in
//! the push constants) and the host clamps those axes ([`PixelShuffle::launch`]);
//! the quantize and dequantize grids must fit the limit.

mod check;
mod error;
pub mod gpu;
pub mod launch;
mod layout;
#[cfg(test)]
mod model;
mod op;
pub mod plan;
pub mod push;
mod quant;
pub mod reference;
mod requantization;
pub mod sets;
mod shape;
#[cfg(test)]
mod tests;
pub mod vectors;

pub use check::{check_shuffle_shapes, UPSCALE_FACTOR};
pub use error::Q8taError;
pub use gpu::{OpError, Q8taOps, QTensor, ShuffleKernel, ShuffleRun};
pub use launch::{Axes, BlockAxis, Rewrite, ShufflePath};
pub use layout::{pack, unpack, Layout};
pub use op::{shuffle_axes, shuffle_specialization, Launch, PixelShuffle};
pub use plan::{Device, Plan};
pub use quant::{
    dequantize_value, quantize_value, round_half_away, QuantParams, QuantizeConsts, Requant,
    MAX_SCALE, MIN_SCALE,
};
pub use requantization::Requantization;
pub use sets::{context_options, SETS};
pub use shape::Shape;
