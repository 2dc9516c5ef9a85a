//! ncnn's element-wise layers, run as their `*_vulkan.cpp` runs them (see
//! `ncnn_glsl_testkit::ncnn_layers`): BinaryOp (same shape, scalar, and the
//! three broadcast shaders, the reversed operations included), Eltwise,
//! UnaryOp (every operation of `unaryop.comp`), Sigmoid, HardSigmoid, PReLU,
//! Clip, TanH, Swish, Mish, GELU, ELU, HardSwish, Cast (fp32 <-> the
//! storage) and Packing (pack1to4, pack4to1, same packing, with and without
//! a cast). ReLU is in `ncnn_layers/activation.rs`.
//!
//! Blobs are laid out as ncnn does (`NcnnMat`: `cstep` padded to 16 bytes in
//! every dimension count), which the flat shaders (`n = total * elempack /
//! 4`) and Packing's same-packing path depend on for one- and
//! two-dimensional blobs whose size is not a multiple of four.
//!
//! Tolerances: `Mode::tol(want, mag)` with `mag = |want| + err / 8`, `err`
//! being the error bound of the shader's own expression in units of the
//! arithmetic's epsilon, propagated through each operation
//! ([`error_bounds::E`]): exact inputs, correctly rounded `+ - *`, the
//! Vulkan spec's bounds for division, `inversesqrt`, `exp`, `log`, `pow`,
//! `atan`, and the functions it defines by inheritance (`tanh` from `sinh /
//! cosh`, `asin` from `atan2`, ...). `sin` and `cos`, which the spec bounds
//! only by an absolute 2^-11 but lavapipe computes within a few ulps, are
//! held to their conditioning instead ([`error_bounds::Prec`]).
//!
//! The cases live in `ncnn_layers_elementwise/`, one module per layer (the
//! flat activations together), with `common.rs` for the blob layout and
//! dispatch helpers and `error_bounds.rs` for the error bounds.

#[path = "elementwise/activation.rs"]
mod activation;
#[path = "elementwise/binaryop.rs"]
mod binaryop;
#[path = "elementwise/cast.rs"]
mod cast;
#[path = "elementwise/common.rs"]
mod common;
#[path = "elementwise/eltwise.rs"]
mod eltwise;
#[path = "elementwise/error_bounds.rs"]
mod error_bounds;
#[path = "elementwise/packing.rs"]
mod packing;
#[path = "elementwise/prelu.rs"]
mod prelu;
#[path = "elementwise/unaryop.rs"]
mod unaryop;

use ncnn_glsl_testkit::ncnn_layers::suite;

/// BinaryOp.
#[test]
fn binaryop_layer() {
    suite(&[("binaryop", binaryop::binaryop)]);
}

/// Eltwise.
#[test]
fn eltwise_layer() {
    suite(&[("eltwise", eltwise::eltwise)]);
}

/// UnaryOp.
#[test]
fn unaryop_layer() {
    suite(&[("unaryop", unaryop::unaryop)]);
}

/// Sigmoid.
#[test]
fn sigmoid_layer() {
    suite(&[("sigmoid", activation::sigmoid)]);
}

/// HardSigmoid.
#[test]
fn hardsigmoid_layer() {
    suite(&[("hardsigmoid", activation::hardsigmoid)]);
}

/// PReLU.
#[test]
fn prelu_layer() {
    suite(&[("prelu", prelu::prelu)]);
}

/// Clip.
#[test]
fn clip_layer() {
    suite(&[("clip", activation::clip)]);
}

/// TanH.
#[test]
fn tanh_layer() {
    suite(&[("tanh", activation::tanh)]);
}

/// Swish.
#[test]
fn swish_layer() {
    suite(&[("swish", activation::swish)]);
}

/// Mish.
#[test]
fn mish_layer() {
    suite(&[("mish", activation::mish)]);
}

/// GELU.
#[test]
fn gelu_layer() {
    suite(&[("gelu", activation::gelu)]);
}

/// GELU with `fast_gelu` 0 against its erf definition.
#[test]
#[ignore = "gelu_vulkan.cpp runs the tanh approximation whatever fast_gelu says: up to 4.7e-4 from the erf definition, past fp32's tolerance"]
fn gelu_erf_layer() {
    suite(&[("gelu_erf", activation::gelu_erf)]);
}

/// ELU.
#[test]
fn elu_layer() {
    suite(&[("elu", activation::elu)]);
}

/// HardSwish.
#[test]
fn hardswish_layer() {
    suite(&[("hardswish", activation::hardswish)]);
}

/// Cast.
#[test]
fn cast_layer() {
    suite(&[("cast", cast::cast)]);
}

/// Packing.
#[test]
fn packing_layer() {
    suite(&[("packing", packing::packing)]);
}
