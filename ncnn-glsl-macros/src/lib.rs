//! The proc-macro crate: `include_ncnn_shader!` will live here as a thin shim
//! over `ncnn-glsl-core`. Nothing is exported yet (issue 3).
