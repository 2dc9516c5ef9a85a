//! The fp16 arithmetic repairs of the compiler on ncnn-style shaders
//! (`ncnn-glsl-core/src/compile/fp16_promotion.rs`, `fp16_builtins.rs`):
//! `afp` values beside `float` ones (`v.x * 0.5`, `h > 0.1`, `c ? h : 0.1`,
//! `sum += h * w`, `pow(h, 0.5)`, a global `const float`) and `round` on
//! `afpvec4`, as glslang accepts them. Ours and glslang's builds of the same
//! finished text run on the Vulkan device (lavapipe where there is no GPU)
//! on the same random inputs; the outputs must be identical: both compute
//! each operation at the same width, in the same order.

use ncnn_glsl_testkit::differential::{run, Case, Cmp, Fill, Io};

/// An activation in the style of ncnn's shaders, with the forms glslang
/// reads as 32-bit arithmetic on `afp` operands.
const PROMOTED: &str = "#version 450
layout (constant_id = 0) const float slope = 0.1f;
const float scale = 0.3f;
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { vec4 top_blob_data[]; };
float leaky(afp x) { return x > 0.0 ? x : x * slope; }
void main() {
    int gx = int(gl_GlobalInvocationID.x);
    afpvec4 v = buffer_ld4(bottom_blob_data, gx);
    afp h = v.x;
    float sum = 0.f;
    sum += h * 0.5 + v.y * scale;
    sum += v[2] / 3.0 - v.w;
    float t = h > 0.1 ? h : 0.1;
    vec4 w = v * 0.3 + v;
    float p = pow(abs(h), 0.5) + atan(sum, h);
    bool small = v.z * 2.0 < 0.25;
    top_blob_data[gx] = vec4(sum + t, leaky(v.y), p, small ? 1.0 : 0.0) + w;
}
";

/// `round` on `afp` and `afpvec4`: exact halves included (the inputs are
/// multiples of 0.25 around zero).
const ROUNDED: &str = "#version 450
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
void main() {
    int gx = int(gl_GlobalInvocationID.x);
    afpvec4 v = buffer_ld4(bottom_blob_data, gx);
    afpvec4 q = afpvec4(float(gx - 32) * 0.25);
    afpvec4 r = round(v * afp(4.0)) + round(q) + afpvec4(round(v.x));
    buffer_st4(top_blob_data, gx, r);
}
";

#[test]
fn float16_operands_beside_floats_run_as_glslangs_build() {
    for mode in ["fp16s+fp16a", "fp16p+fp16a"] {
        let mut case = Case::new(
            &format!("promoted {mode}"),
            PROMOTED,
            mode,
            vec![
                Io::In(8 * 256, Fill::F16(-2.0, 2.0)),
                Io::Out(16 * 256, Cmp::Exact),
            ],
        );
        case.groups = [4, 1, 1];
        run(&case);
    }
}

#[test]
fn round_on_float16_runs_as_glslangs_build() {
    for mode in ["fp16s+fp16a", "fp16p+fp16a"] {
        let case = Case::new(
            &format!("round {mode}"),
            ROUNDED,
            mode,
            vec![
                Io::In(8 * 64, Fill::F16(-4.0, 4.0)),
                Io::Out(8 * 64, Cmp::Exact),
            ],
        );
        run(&case);
    }
}
