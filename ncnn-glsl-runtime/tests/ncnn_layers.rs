//! ncnn's layers, run as ncnn runs them: ncnn's own shaders, unmodified,
//! from the folder `NCNN_SHADER_DIR` names (`.ci/run` names ncnn's snapshot
//! beside the repository where there is one), with what each layer's
//! `*_vulkan.cpp` binds, specializes, pushes, sizes and dispatches, against f64 references written
//! from the layer's definition, in every mode the device offers
//! (`ncnn_glsl_testkit::ncnn_layers`; `docs/ncnn-layers.md` lists the
//! layers). Without the variable the tests say so and pass.
//!
//! One module per family of layers, one test per layer:
//! `cargo test -p ncnn-glsl-runtime --test ncnn_layers conv::` runs one
//! family.

#[path = "ncnn_layers/conv.rs"]
mod conv;
#[path = "ncnn_layers/elementwise.rs"]
mod elementwise;
#[path = "ncnn_layers/movement.rs"]
mod movement;
#[path = "ncnn_layers/norm.rs"]
mod norm;
#[path = "ncnn_layers/relu.rs"]
mod relu;
