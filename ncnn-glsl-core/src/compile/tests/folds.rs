//! Calls whose constant arguments GLSL folds to NaN or infinity (glslang
//! accepts them all) and naga's constant evaluator refuses, with no place.

use super::{errs, ok, ok_mode, span};

fn shader(body: &str) -> String {
    format!(
        "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer A {{ float a[]; }};
layout(binding = 1) buffer B {{ ivec4 b[]; }};
void main() {{
{body}
}}
"
    )
}

#[test]
fn calls_glsl_folds_to_nan_or_infinity_compile() {
    for call in [
        "sqrt(-1.0)",
        "acos(2.0)",
        "exp(100.0)",
        "float(clamp(5, 10, 0))",
        "inversesqrt(0.0)",
        "mod(1.0, 0.0)",
        "log(0.0)",
        "pow(-1.0, 0.5)",
        "sqrt(vec4(-1.0)).y",
    ] {
        ok(&shader(&format!("    a[0] = {call};")));
    }
    // Several in one shader, in a helper function and through a constant.
    let many = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { float a[]; };
layout(binding = 1) buffer B { ivec4 b[]; };
const float minus_one = -1.0;
float f(float x) { return x + acos(2.0); }
void main() {
    a[0] = sqrt(minus_one) + exp(100.0);
    a[1] = f(a[2]) * inversesqrt(0.0);
    b[0] = clamp(ivec4(5), ivec4(10), ivec4(0));
}
";
    ok(many);
    // One that may have to stay constant is tried on its own: a local
    // `const` takes a value computed when the shader runs.
    ok(&shader("    const float k = sqrt(-1.0);\n    a[0] = k;"));
    // Beside float16 arithmetic (the identity has its overloads too).
    let fp16 = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { float a[]; };
void main() {
    float16_t h = float16_t(a[1]);
    a[0] = float(h * float16_t(2.0)) + log2(-1.0);
}
";
    ok_mode(fp16, "fp16s+fp16a");
}

#[test]
fn folds_that_must_stay_constant_are_placed_at_the_call() {
    let global = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { float a[]; };
const float k = 2.0 * sqrt(-1.0);
void main() { a[0] = k; }
";
    let d = errs(global, "fp32");
    assert_eq!(span(&d.0[0]), (4, 23), "{d}");
    let m = &d.0[0].message;
    assert!(m.contains("`sqrt(-1.0)`"), "{d}");
    assert!(
        m.contains("sqrt built-in function argument is out of valid range"),
        "{d}"
    );
    let size = shader("    float t[int(exp(100.0))];\n    a[0] = t[0];");
    let d = errs(&size, "fp32");
    assert_eq!(span(&d.0[0]), (6, 17), "{d}");
    assert!(d.0[0].message.contains("`exp(100.0)`"), "{d}");
}

#[test]
fn an_error_after_an_unfolded_call_is_still_reported_at_its_place() {
    let d = errs(
        &shader("    a[0] = sqrt(-1.0);\n    a[1] = not_declared;"),
        "fp32",
    );
    assert_eq!(span(&d.0[0]), (7, 12), "{d}");
    assert!(d.0[0].message.contains("not_declared"), "{d}");
}
