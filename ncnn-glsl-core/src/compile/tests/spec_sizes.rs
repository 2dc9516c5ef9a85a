//! Specialization constants in array sizes and global constants
//! (spec_expressions.rs): the blob computes them with `OpSpecConstantOp`,
//! so the words' interface sizes `shared` memory at the pipeline's values.
//! What the blob computes is checked on lavapipe against glslang
//! (ncnn-glsl-runtime/tests/language_features.rs).

use super::{assert_valid, disassemble, errs, ok};
use crate::spirv_interface::read_specialized;

const SHADER: &str = "#version 450
layout (constant_id = 0) const int UNROLL = 4;
layout (constant_id = 7) const uint only_in_a_size = 2u;
const int N = UNROLL * 2;
layout (local_size_x = 64) in;
layout (binding = 0) buffer A { float a[]; };
shared float tmp[N * 8];
shared vec4 other[only_in_a_size];
void main()
{
    uint i = gl_GlobalInvocationID.x;
    tmp[i % 64u] = a[i];
    other[0] = vec4(1.0);
    barrier();
    a[i] = tmp[(i + 1u) % 64u] + float(N) + other[0].x;
}
";

#[test]
fn sizes_follow_the_specialization() {
    let c = ok(SHADER);
    // 4 * 2 * 8 floats and 2 vec4 at the defaults.
    let at = |values: &[(u32, u32)]| read_specialized(&c.spirv, values).unwrap().workgroup_bytes;
    assert_eq!(at(&[]), 4 * 64 + 16 * 2);
    assert_eq!(at(&[(0, 1)]), 4 * 16 + 16 * 2);
    assert_eq!(at(&[(0, 8), (7, 5)]), 4 * 128 + 16 * 5);
    // Both constants are in the words, the one no code reads too.
    let ids: Vec<u32> = read_specialized(&c.spirv, &[])
        .unwrap()
        .spec_constants
        .iter()
        .map(|s| s.spec_id)
        .collect();
    assert_eq!(ids, [0, 7]);
    let Some(d) = disassemble(&c.spirv) else {
        return;
    };
    assert!(d.contains(" IMul "), "{d}");
    // No array keeps its placeholder length.
    assert!(!d.contains("12582912"), "{d}");
}

#[test]
fn an_assignment_to_a_derived_constant_is_refused() {
    let text = SHADER.replace("    barrier();", "    N = 3;\n    barrier();");
    let d = errs(&text, "fp32");
    assert!(d.to_string().contains("assignment to constant `N`"), "{d}");
}

#[test]
fn a_size_not_positive_at_the_defaults_is_refused_at_the_size() {
    let text = SHADER.replace("shared float tmp[N * 8];", "shared float tmp[N - 8];");
    let d = errs(&text, "fp32");
    let e = &d.0[0];
    assert!(e.message.contains("this array size is 0"), "{e}");
    assert_eq!(
        e.span.as_ref().map(|s| (s.line, s.column)),
        Some((7, 18)),
        "{e}"
    );
}

#[test]
fn mixed_signedness_and_local_constants_compile_to_valid_words() {
    // `UNROLL / 2u`: OpUDiv takes `uint` operands, so the `int` constant is
    // converted first; a local `const` reading a derived one loses its `const`.
    let text = SHADER
        .replace(
            "shared vec4 other[only_in_a_size];",
            "shared vec4 other[UNROLL / 2u];",
        )
        .replace(
            "    uint i = gl_GlobalInvocationID.x;",
            "    uint i = gl_GlobalInvocationID.x;\n    const int j = N + 1;",
        )
        .replace("+ float(N)", "+ float(j)");
    let c = ok(&text);
    assert_valid(&c.spirv);
    assert_eq!(
        read_specialized(&c.spirv, &[(0, 6)])
            .unwrap()
            .workgroup_bytes,
        4 * 96 + 16 * 3
    );
}
