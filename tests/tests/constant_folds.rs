//! Calls whose constant arguments GLSL folds to NaN or infinity (naga's
//! constant evaluator refuses them): they compile, and compute on the
//! device what glslang folds them to (same finished GLSL, lavapipe).
//!
//! They are computed when the shader runs, so the device's float rules
//! apply: Vulkan does not make a driver keep NaN and infinity without the
//! float-controls execution modes, and lavapipe turns `0.0 * x` into `0.0`,
//! so `mod(1.0, 0.0)` (`x - y * floor(x / y)`) is 1.0 there where glslang
//! folds NaN. It is left out of the comparison (it compiles: the core's
//! `calls_glsl_folds_to_nan_or_infinity_compile`).

use ncnn_glsl_testkit::differential::{run, Case, Cmp, Io};

#[test]
fn calls_folded_to_nan_or_infinity_compute_what_glslang_folds() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) writeonly buffer F { float f[]; };
layout(binding = 1) writeonly buffer I { int i[]; };
void main() {
    f[0] = sqrt(-1.0);
    f[1] = acos(2.0);
    f[2] = exp(100.0);
    f[3] = inversesqrt(0.0);
    f[4] = -exp2(200.0);
    f[5] = log(0.0);
    i[0] = clamp(5, 10, 0);
}
";
    let io = vec![Io::Out(4 * 6, Cmp::F32Ulps(0)), Io::Out(4, Cmp::Exact)];
    run(&Case::new("NaN and infinity", src, "fp32", io));
}
