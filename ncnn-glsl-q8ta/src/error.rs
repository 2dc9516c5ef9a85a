//! Errors of the q8ta host side: each names the bad value.

use std::fmt;

use super::shape::Shape;

/// What is wrong with a q8ta operation's inputs. Nothing is dispatched or
/// written when one is returned.
#[derive(Clone, Debug, PartialEq)]
pub enum Q8taError {
    /// A scale that is NaN, infinite, zero or negative.
    Scale {
        /// Which tensor's scale.
        what: &'static str,
        /// The value given.
        scale: f32,
    },
    /// A scale the GPU's float conversions cannot honour: subnormal, or with
    /// a subnormal reciprocal (outside `MIN_SCALE..=MAX_SCALE`).
    FloatScale {
        /// Which operation's scale.
        what: &'static str,
        /// The value given.
        scale: f32,
    },
    /// A zero point outside `[-128, 127]`.
    ZeroPoint {
        /// Which tensor's zero point.
        what: &'static str,
        /// The value given.
        zero_point: i32,
    },
    /// An upscale factor other than 2.
    UpscaleFactor(usize),
    /// `C_in != 4 * C_out`.
    Channels {
        /// Input channels.
        c_in: usize,
        /// Output channels.
        c_out: usize,
    },
    /// The output shape is not `[N, C_in / 4, 2H, 2W]`.
    ShapeMismatch {
        /// The input shape.
        input: Shape,
        /// The output shape given.
        output: Shape,
        /// The output shape the input implies.
        expected: Shape,
    },
    /// A shape with a zero dimension.
    Empty {
        /// Which tensor.
        what: &'static str,
        /// Its shape.
        shape: Shape,
    },
    /// A tensor whose word or element count does not fit the shaders' 32-bit indices.
    TooLarge {
        /// Which tensor.
        what: &'static str,
        /// Its shape.
        shape: Shape,
    },
    /// A grid axis that the shader does not loop over needs more workgroups
    /// than `maxComputeWorkGroupCount` allows.
    GridTooLarge {
        /// The axis (`x`, `y`, `z`).
        axis: &'static str,
        /// Workgroups it needs.
        groups: u64,
        /// The device's limit on that axis.
        max: u32,
    },
    /// A path of the kernel that this shape or output layout cannot take.
    Path {
        /// The path ([`super::ShufflePath::name`]).
        path: &'static str,
        /// What it needs.
        needs: &'static str,
    },
    /// The context was opened without a q8ta variant set, so the features
    /// its variants use may be off ([`super::context_options`]).
    ContextWithoutSets {
        /// The set the context's options do not name.
        missing: &'static str,
    },
    /// A requantization whose table needs more shared memory than the
    /// device's `maxComputeSharedMemorySize` ([`super::Requantization::Banked`],
    /// [`super::Requantization::Mixed`], [`super::Requantization::MixedQuarter`]).
    SharedMemory {
        /// The requantization ([`super::Requantization::name`]).
        requantization: &'static str,
        /// Bytes it needs.
        needs: u32,
        /// The device's limit.
        max: u32,
    },
    /// A requantization in f32 (`float`, `mixed`, `mixed-quarter`) asked for scales it is not
    /// proven exact for ([`super::Requant::float_exact`]).
    FloatInexact {
        /// The requantization's name ([`super::Requantization::name`]).
        requantization: &'static str,
        /// `scale_in / scale_out` as an f32.
        ratio: f32,
    },
    /// A buffer shorter than its tensor needs.
    BufferTooSmall {
        /// Which buffer.
        what: &'static str,
        /// Elements (words or values) it needs.
        needed: usize,
        /// Elements it has.
        len: usize,
    },
}

impl fmt::Display for Q8taError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Q8taError::Scale { what, scale } => write!(
                f,
                "{what} scale {scale:?} is invalid: a scale must be finite and > 0"
            ),
            Q8taError::FloatScale { what, scale } => write!(
                f,
                "{what} scale {scale:?} cannot convert floats on the GPU: a scale there must be \
                 a normal f32 from {:e} to {:e} (GPUs may flush a subnormal scale or its \
                 reciprocal to zero)",
                // quant::MIN_SCALE and MAX_SCALE, which are defined so.
                f32::MIN_POSITIVE,
                1.0 / f32::MIN_POSITIVE
            ),
            Q8taError::ZeroPoint { what, zero_point } => write!(
                f,
                "{what} zero point {zero_point} is out of range [-128, 127]"
            ),
            Q8taError::UpscaleFactor(u) => write!(
                f,
                "upscale factor {u} is not supported: the q8ta pixel shuffle supports only 2"
            ),
            Q8taError::Channels { c_in, c_out } => write!(
                f,
                "input channels {c_in} != 4 * output channels {c_out} (upscale factor 2 needs C_in = 4 * C_out)"
            ),
            Q8taError::ShapeMismatch {
                input,
                output,
                expected,
            } => write!(
                f,
                "output shape {output} does not match input shape {input}: expected {expected}"
            ),
            Q8taError::Empty { what, shape } => {
                write!(f, "{what} shape {shape} has a zero dimension")
            }
            Q8taError::TooLarge { what, shape } => {
                let n = shape
                    .padded_elements()
                    .map_or("more than 2^128".to_string(), |n| n.to_string());
                write!(
                    f,
                    "{what} shape {shape} is too large for the shaders' 32-bit indices: {n} \
                     elements with its padding, at most {}",
                    i32::MAX
                )
            }
            Q8taError::GridTooLarge { axis, groups, max } => write!(
                f,
                "the grid needs {groups} workgroups on {axis}, maxComputeWorkGroupCount is {max}"
            ),
            Q8taError::SharedMemory {
                requantization,
                needs,
                max,
            } => write!(
                f,
                "the `{requantization}` requantization needs {needs} bytes of shared memory, \
                 maxComputeSharedMemorySize is {max}"
            ),
            Q8taError::FloatInexact {
                requantization,
                ratio,
            } => write!(
                f,
                "the `{requantization}` requantization is not exact for the scale ratio {ratio:e} \
                 (some input byte lies within the f32 rounding of a rounding boundary, or the \
                 ratio is out of its range): use `table`, `banked` or `lanes`"
            ),
            Q8taError::Path { path, needs } => {
                write!(f, "the kernel's `{path}` path needs {needs}")
            }
            Q8taError::ContextWithoutSets { missing } => write!(
                f,
                "the context was not opened for the q8ta shaders (`{missing}` is not in its \
                 ContextOptions::variant_sets): open it with ncnn_glsl_q8ta::context_options()"
            ),
            Q8taError::BufferTooSmall { what, needed, len } => write!(
                f,
                "{what} buffer holds {len} elements, the tensor needs {needed}"
            ),
        }
    }
}

impl std::error::Error for Q8taError {}
