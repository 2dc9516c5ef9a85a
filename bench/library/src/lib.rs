//! The project's generated library of ncnn-style shaders
//! (`tests/library/shaders/`), every shader with every variant, embedded
//! through one macro call.

ncnn_glsl_runtime::include_ncnn_library!(pub mod kernels = "../../tests/library/shaders/**/*.comp");
