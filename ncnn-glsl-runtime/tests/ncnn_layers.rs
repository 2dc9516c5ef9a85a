//! ncnn's layers, run as ncnn runs them: ncnn's own shaders, unmodified,
//! from the folder `NCNN_SHADER_DIR` names (`.ci/run` names the snapshot in
//! `../shared/ncnn`), with what each layer's `*_vulkan.cpp` binds,
//! specializes, pushes, sizes and dispatches, against f64 references written
//! from the layer's definition, in every mode the device offers
//! (`ncnn_glsl_testkit::ncnn_layers`). Without the variable the tests say
//! so and pass.

#[path = "ncnn_layers/activation.rs"]
mod activation;

use ncnn_glsl_testkit::ncnn_layers::suite;

#[test]
fn activations() {
    suite(activation::CASES);
}
