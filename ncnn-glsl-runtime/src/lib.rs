//! Runs ncnn-extension compute shaders from precompiled variant sets.
//!
//! `include_ncnn_shader!("name.comp")` compiles every variant of a shader at
//! build time; [`VariantSet::select`] picks the one a device runs. The Vulkan
//! probe and dispatch come with issue 4.

pub use ncnn_glsl_core::reflection;
pub use ncnn_glsl_core::variant::{
    AxisInfo, Blob, Choice, SelectError, Usage, Variant, VariantSet,
};
pub use ncnn_glsl_core::{DeviceBits, DeviceCaps, DeviceType, Flag, Options, Target};
pub use ncnn_glsl_macros::include_ncnn_shader;

pub mod q8ta;

/// What `include_ncnn_shader!` expands to names these paths; not an API.
#[doc(hidden)]
pub mod __private {
    pub use ncnn_glsl_core::variant::{AxisInfo, Blob, Usage, Variant, VariantSet};
    pub use ncnn_glsl_core::{reflection, DeviceBits, Options, Target};
}
