//! The shaders this crate ships, as variant sets: the one table that
//! `ncnn-glsl probe` lists and whose features every [`crate::Context`]
//! enables. Empty until shaders land in `shaders/`.

use ncnn_glsl_core::variant::VariantSet;

/// Every shipped shader's variant set.
pub static SHIPPED: &[&VariantSet] = &[];
