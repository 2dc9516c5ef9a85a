//! ncnn's normalization, pooling and reduction layers, run as their
//! `*_vulkan.cpp` runs them (`ncnn_glsl_testkit::ncnn_layers`): Softmax's
//! four-pipeline chain over every axis, LayerNorm, GroupNorm, RMSNorm and
//! InstanceNorm with their reduce-sum chains, BatchNorm, Pooling (max and
//! average through ncnn's padding layer, the global reduce chain, adaptive)
//! and Reduction. Every temporary a layer allocates is a poisoned buffer of the
//! size the layer gives it, and the steps run in one sequence in the order
//! the layer records them.
//!
//! Where a layer keeps an intermediate (a coefficient, a square, an
//! exponential) in the mode's storage, its rounding is part of the error
//! model: the tolerance adds one storage unit of the magnitude that passed
//! through storage (`Mode::tol_stored`).

#[path = "norm/batchnorm.rs"]
mod batchnorm;
#[path = "norm/common.rs"]
mod common;
#[path = "norm/groupnorm.rs"]
mod groupnorm;
#[path = "norm/layernorm.rs"]
mod layernorm;
#[path = "norm/pooling.rs"]
mod pooling;
#[path = "norm/reduction.rs"]
mod reduction;
#[path = "norm/softmax.rs"]
mod softmax;

use ncnn_glsl_testkit::ncnn_layers::suite;

/// Softmax over every axis of one to four dimensions, pack 1 and 4.
#[test]
fn softmax_layer() {
    suite(&[("softmax", softmax::softmax)]);
}

/// LayerNorm per row, per `d`-slice and per channel.
#[test]
fn layernorm_layer() {
    suite(&[("layernorm", layernorm::layernorm)]);
}

/// GroupNorm in one to four dimensions.
#[test]
fn groupnorm_layer() {
    suite(&[("groupnorm", groupnorm::groupnorm)]);
}

/// RMSNorm per row and per channel.
#[test]
fn rmsnorm_layer() {
    suite(&[("rmsnorm", layernorm::rmsnorm)]);
}

/// BatchNorm in one to four dimensions.
#[test]
fn batchnorm_layer() {
    suite(&[("batchnorm", batchnorm::batchnorm)]);
}

/// InstanceNorm in three and four dimensions.
#[test]
fn instancenorm_layer() {
    suite(&[("instancenorm", groupnorm::instancenorm)]);
}

/// Pooling: windowed max and average through the padding layer, the global
/// reduce chain, and adaptive pooling.
#[test]
fn pooling_layer() {
    suite(&[
        ("pooling", pooling::pooling),
        ("global_pooling", pooling::global_pooling),
        ("adaptive_pooling", pooling::adaptive_pooling),
    ]);
}

/// Reduction: sums, means, extrema, products, norms and log-sums over axis
/// sets of one to four dimensions.
#[test]
fn reduction_layer() {
    suite(&[("reduction", reduction::reduction)]);
}

/// Reduction of four-dimensional blobs with padded channels
/// ([`reduction::REDUCTIONS_PADDED_CSTEP`]): the `d`-slices after the first are read
/// from and written to the channel padding.
#[test]
#[ignore = "reduction.comp steps d-slices by cstep / d, past w * h where the channel is padded (ncnn bug)"]
fn reduction_padded_cstep() {
    suite(&[("reduction", |d, m, r| {
        reduction::reduction_runs_of(reduction::REDUCTIONS_PADDED_CSTEP, d, m, r)
    })]);
}
