//! ncnn's data-movement layers, run as ncnn runs them (see
//! `ncnn_glsl_testkit::ncnn_layers`): Concat, Slice, Crop, Padding, Interp,
//! PixelShuffle, Reshape, Permute and Flatten, each through the shaders its
//! `*_vulkan.cpp` picks for the packing of its blobs (pack1, pack4, pack1to4,
//! pack4to1, the 3-D padding shaders, the bicubic coefficient pass), with the
//! shapes specialized or pushed.
//!
//! Every blob is sub-allocated as ncnn's blob allocator does it: inputs,
//! outputs and workspaces of a run share one buffer, each bound at an
//! aligned offset with other bytes (NaN) at least 16 bytes either side, and
//! every byte outside the output ranges must keep its value.
//!
//! Configurations where ncnn would first run `convert_packing` (a packing
//! layer of its own) are left out: the input is given in the packing the
//! layer's shader reads.

#[path = "movement/common.rs"]
mod common;
#[path = "movement/concat_slice.rs"]
mod concat_slice;
#[path = "movement/crop.rs"]
mod crop;
#[path = "movement/interp.rs"]
mod interp;
#[path = "movement/padding.rs"]
mod padding;
#[path = "movement/permute.rs"]
mod permute;
#[path = "movement/pixelshuffle.rs"]
mod pixelshuffle;
#[path = "movement/reshape.rs"]
mod reshape;

use ncnn_glsl_testkit::ncnn_layers::suite;

/// Concat along every axis of 1-D to 4-D blobs.
#[test]
fn concat_layer() {
    suite(&[("concat", concat_slice::concat)]);
}

/// Slice along every axis of 1-D to 4-D blobs.
#[test]
fn slice_layer() {
    suite(&[("slice", concat_slice::slice)]);
}

/// Crop of 1-D to 4-D blobs.
#[test]
fn crop_layer() {
    suite(&[("crop", crop::crop)]);
}

/// Padding: constant, replicate, reflect.
#[test]
fn padding_layer() {
    suite(&[("padding", padding::padding)]);
}

/// Interp: nearest, bilinear, bicubic.
#[test]
fn interp_layer() {
    suite(&[("interp", interp::interp)]);
}

/// PixelShuffle in both modes.
#[test]
fn pixelshuffle_layer() {
    suite(&[("pixelshuffle", pixelshuffle::pixelshuffle)]);
}

/// Reshape between 1-D to 4-D shapes.
#[test]
fn reshape_layer() {
    suite(&[("reshape", reshape::reshape)]);
}

/// Permute of 2-D to 4-D blobs.
#[test]
fn permute_layer() {
    suite(&[("permute", permute::permute)]);
}

/// Flatten of 2-D to 4-D blobs.
#[test]
fn flatten_layer() {
    suite(&[("flatten", reshape::flatten)]);
}
