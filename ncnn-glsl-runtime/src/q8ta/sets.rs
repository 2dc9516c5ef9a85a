//! The shaders this crate ships, as variant sets: the one table that
//! `ncnn-glsl probe` lists and whose features every [`crate::Context`]
//! enables.

use ncnn_glsl_core::variant::VariantSet;
use ncnn_glsl_macros::include_ncnn_shader;

/// `shaders/q8ta_pixel_shuffle.comp`: the seed's pixel shuffle (one
/// invocation per channel block and input pixel, a 4x4 byte transpose).
pub static Q8TA_PIXEL_SHUFFLE: &VariantSet =
    include_ncnn_shader!("../shaders/q8ta_pixel_shuffle.comp");
/// `shaders/q8ta_pixel_shuffle_baseline.comp`: the kernel the seed replaces.
pub static Q8TA_PIXEL_SHUFFLE_BASELINE: &VariantSet =
    include_ncnn_shader!("../shaders/q8ta_pixel_shuffle_baseline.comp");
/// `shaders/q8ta_quantize.comp`: float NCHW (sfp) to an int8 layout.
pub static Q8TA_QUANTIZE: &VariantSet = include_ncnn_shader!("../shaders/q8ta_quantize.comp");
/// `shaders/q8ta_dequantize.comp`: an int8 layout to float NCHW (sfp).
pub static Q8TA_DEQUANTIZE: &VariantSet = include_ncnn_shader!("../shaders/q8ta_dequantize.comp");

/// Every shipped shader's variant set.
pub static SHIPPED: &[&VariantSet] = &[
    Q8TA_PIXEL_SHUFFLE,
    Q8TA_PIXEL_SHUFFLE_BASELINE,
    Q8TA_QUANTIZE,
    Q8TA_DEQUANTIZE,
];
