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

/// ncnn's GEMM tile: a 2-D `shared` array sized by `?:` of products of
/// specialization constants, a derived constant of comparisons and logic,
/// `min`/`max`, and conversions from and to `bool`.
const SELECTS: &str = "#version 450
layout (constant_id = 0) const uint M = 16;
layout (constant_id = 1) const uint K = 8;
layout (constant_id = 2) const uint Kd4p = 4;
layout (constant_id = 3) const uint Md4p = 4;
layout (constant_id = 4) const int S = 3;
const uint T = M * Kd4p > K * Md4p ? M * Kd4p : K * Md4p;
const int C = S > 2 && !(S == 5) || S < -7 ? min(S, 4) : max(S, -1) * 2;
layout (local_size_x = 64) in;
layout (binding = 0) buffer A { uint a[]; };
shared uvec2 tmp_a[2][2 * (M * Kd4p > K * Md4p ? M * Kd4p : K * Md4p)];
shared float tmp_c[uint(S < 0) + uint(C + 10) + (bool(S) ? 1u : 2u) + min(M, K)];
void main()
{
    uint l = gl_LocalInvocationID.x;
    tmp_a[l % 2u][l] = uvec2(l, T);
    tmp_c[l % 4u] = float(C);
    barrier();
    a[l] = tmp_a[(l + 1u) % 2u][l].x + uint(tmp_c[0]) + T;
}
";

#[test]
fn selects_comparisons_and_logic_size_arrays_as_specialized() {
    let c = ok(SELECTS);
    assert_valid(&c.spirv);
    let at = |values: &[(u32, u32)]| read_specialized(&c.spirv, values).unwrap().workgroup_bytes;
    // tmp_a: 2 * 2 * max(M * Kd4p, K * Md4p) uvec2; tmp_c: the floats of
    // (S < 0) + (C + 10) + (S != 0 ? 1 : 2) + min(M, K).
    let tile = |m: u64, k: u64, kd: u64, md: u64| 2 * 2 * (m * kd).max(k * md) * 8;
    assert_eq!(at(&[]), tile(16, 8, 4, 4) + 4 * (13 + 1 + 8));
    // The other branch of the tile's select, and `min` taking M.
    assert_eq!(at(&[(0, 4)]), tile(4, 8, 4, 4) + 4 * (13 + 1 + 4));
    assert_eq!(
        at(&[(0, 4), (1, 8), (2, 8), (3, 4)]),
        tile(4, 8, 8, 4) + 4 * (13 + 1 + 4)
    );
    // C at other values of S: max(-1, -1) * 2, max(0, -1) * 2, min(-9, 4),
    // max(5, -1) * 2.
    let s = |v: i32| at(&[(4, v as u32)]) - tile(16, 8, 4, 4);
    assert_eq!(s(-1), 4 * (1 + 8 + 1 + 8));
    assert_eq!(s(0), 4 * (10 + 2 + 8));
    assert_eq!(s(-9), 4 * (1 + 1 + 1 + 8));
    assert_eq!(s(5), 4 * (20 + 1 + 8));
    let Some(d) = disassemble(&c.spirv) else {
        return;
    };
    for op in [
        " Select ",
        " UGreaterThan ",
        " SGreaterThan ",
        " SLessThan ",
        " ULessThan ",
        " IEqual ",
        " INotEqual ",
        " LogicalAnd ",
        " LogicalOr ",
        " LogicalNot ",
    ] {
        assert!(d.contains(op), "no{op}in\n{d}");
    }
    // No array keeps its placeholder length, nor an outer array its stride.
    assert!(!d.contains("12582912"), "{d}");
    assert_eq!(d.matches("ArrayStride").count(), 3, "{d}");
}

#[test]
fn a_specialized_dimension_of_two_is_written_at_either_place() {
    let text = SELECTS
        .replace(
            "shared uvec2 tmp_a[2][2 * (M * Kd4p > K * Md4p ? M * Kd4p : K * Md4p)];",
            "shared uvec2 tmp_a[M > K ? 2u : 3u][8];",
        )
        .replace(
            "tmp_a[(l + 1u) % 2u][l]",
            "tmp_a[(l + 1u) % (M > K ? 2u : 3u)][l]",
        );
    let c = ok(&text);
    assert_valid(&c.spirv);
    let at = |values: &[(u32, u32)]| read_specialized(&c.spirv, values).unwrap().workgroup_bytes;
    let c_bytes = 4 * (13 + 1 + 8);
    assert_eq!(at(&[]), 2 * 8 * 8 + c_bytes);
    assert_eq!(at(&[(1, 16)]), 3 * 8 * 8 + 4 * (13 + 1 + 16));
    // Rows of 64 `uvec2` (512 bytes) at the placeholder length are past what
    // naga lays out: refused at the size, not a panic of naga's.
    let d = errs(
        &text.replace("[M > K ? 2u : 3u][8]", "[M > K ? 2u : 3u][64]"),
        "fp32",
    );
    let e = &d.0[0];
    assert!(e.message.contains("169 bytes"), "{e}");
    assert_eq!(
        e.span.as_ref().map(|s| (s.line, s.column)),
        Some((11, 20)),
        "{e}"
    );
}

#[test]
fn a_select_that_divides_by_zero_is_refused_at_the_defaults_and_at_specialization() {
    // At the defaults: an error at the size (line 12, column 20).
    let text = SELECTS.replace(
        "shared float tmp_c[uint(S < 0)",
        "shared float tmp_c[(S == 3 ? 8u / (K - 8u) : 1u) + uint(S < 0)",
    );
    let d = errs(&text, "fp32");
    let e = &d.0[0];
    assert!(e.message.contains("divides by zero"), "{e}");
    assert_eq!(
        e.span.as_ref().map(|s| (s.line, s.column)),
        Some((12, 20)),
        "{e}"
    );
    // The branch not taken may divide by zero (GLSL evaluates one branch);
    // where the one taken does at the pipeline's values, the words' reader
    // says the length is unknown and why.
    let text = SELECTS.replace(
        "shared float tmp_c[uint(S < 0)",
        "shared float tmp_c[(S == 3 ? 1u : 8u / (K - 8u)) + uint(S < 0)",
    );
    let c = ok(&text);
    assert_valid(&c.spirv);
    assert!(read_specialized(&c.spirv, &[]).is_ok());
    let e = read_specialized(&c.spirv, &[(4, 2)]).unwrap_err();
    assert!(e.contains("divides by zero"), "{e}");
}

#[test]
fn what_stays_unsupported_is_refused_at_its_place() {
    for (size, column) in [
        ("S > 2.5 ? 4 : 8", 20),
        ("true ? S : 4", 27),
        ("abs(S)", 24),
        ("S ? 4 : 8", 20),
    ] {
        let text = SELECTS.replace(
            "shared float tmp_c[uint(S < 0) + uint(C + 10) + (bool(S) ? 1u : 2u) + min(M, K)];",
            &format!("shared float tmp_c[{size}];"),
        );
        let d = errs(&text, "fp32");
        let e = &d.0[0];
        assert!(
            e.message.contains("other than in an integer expression"),
            "{size}: {e}"
        );
        assert_eq!(
            e.span.as_ref().map(|s| (s.line, s.column)),
            Some((12, column)),
            "{size}: {e}"
        );
    }
}

/// An array whose own length is one a placeholder would take (a buffer's
/// fixed array of `0xC00000` and `0xC00001` elements) keeps it: naga would
/// give it the type of a specialized array of the same element, and the
/// word pass would specialize both. The placeholders move past it.
#[test]
fn an_array_of_a_placeholder_length_keeps_it() {
    let text = "#version 450
layout (constant_id = 0) const uint N = 4u;
layout (local_size_x = 64) in;
layout (binding = 0) buffer B { uint big[0xC00000]; uint more[12582913]; };
layout (binding = 1) buffer C { uint c[]; };
shared uint s[N];
shared uint t[N * 2u];
void main() {
    uint l = gl_LocalInvocationID.x;
    s[l % N] = l;
    t[l % (N * 2u)] = l;
    barrier();
    big[l] = s[l % N];
    more[l] = t[l % (N * 2u)];
    c[l] = big[l + 1u] + more[l + 2u];
}
";
    let c = ok(text);
    assert_valid(&c.spirv);
    for n in [1u32, 4, 100] {
        let i = read_specialized(&c.spirv, &[(0, n)]).unwrap();
        let block = i.bindings.iter().find(|b| b.binding == 0).unwrap();
        assert_eq!(block.fixed_bytes, 4 * (0xC00000 + 12582913), "N = {n}");
        assert_eq!(i.workgroup_bytes, u64::from(4 * 3 * n), "N = {n}");
    }
}

/// A length the text pass cannot compute (a float conversion) that equals
/// a placeholder is refused by name, never specialized with the array it
/// shares a type with.
#[test]
fn an_uncomputed_length_equal_to_a_placeholder_is_refused() {
    let text = "#version 450
layout (constant_id = 0) const uint N = 4u;
layout (local_size_x = 64) in;
layout (binding = 0) buffer B { uint big[uint(12582912.0)]; };
shared uint s[N];
void main() {
    uint l = gl_LocalInvocationID.x;
    s[l % N] = l;
    barrier();
    big[l] = s[l % N];
}
";
    let e = errs(text, "fp32").to_string();
    assert!(e.contains("`big`") && e.contains("another length"), "{e}");
}

/// Every array a specialization constant sizes is in the reflection (name,
/// size as written, the length's id) and in the words' interface (its
/// length at the pipeline's values, signed where the constant is, and
/// where it lives), so a runtime can refuse a length below 1 or past its
/// limit before a driver sees it.
#[test]
fn specialized_arrays_are_listed_for_the_runtime() {
    let text = "#version 450
layout (constant_id = 0) const int N = 8;
layout (constant_id = 1) const uint S = 8u;
layout (local_size_x = 64) in;
layout (binding = 0) buffer B { int b[]; };
shared int sh[S - 4u];
int priv[N * 2];
int total(inout int a[N]) { int t = 0; for (int k = 0; k < N; k++) t += a[k]; return t; }
int uncalled(int q[N * 3]) { return q[0]; }
void main() {
    int l = int(gl_LocalInvocationID.x);
    int loc[N];
    for (int k = 0; k < N; k++) loc[k] = k + l;
    priv[l % (N * 2)] = l;
    sh[uint(l) % (S - 4u)] = l;
    barrier();
    b[l] = total(loc) + priv[0] + sh[0];
}
";
    let c = ok(text);
    let names: Vec<(&str, &str)> = c
        .reflection
        .spec_arrays
        .iter()
        .map(|a| (a.name.as_ref(), a.size.as_ref()))
        .collect();
    assert_eq!(
        names,
        [
            ("sh", "S - 4u"),
            ("priv", "N * 2"),
            ("a", "N"),
            ("loc", "N")
        ]
    );
    let read = read_specialized(&c.spirv, &[(0, -3i32 as u32), (1, 4)]).unwrap();
    let length_of = |name: &str| {
        let id = c
            .reflection
            .spec_arrays
            .iter()
            .find(|a| a.name == name)
            .unwrap()
            .length_id;
        read.spec_arrays
            .iter()
            .find(|a| a.length_id == id)
            .unwrap()
            .clone()
    };
    // `N` is an `int`: -3 is -3, not 4294967293.
    assert_eq!(length_of("loc").length, Some(-3));
    assert_eq!(length_of("priv").length, Some(-6));
    assert_eq!(length_of("sh").length, Some(0));
    assert!(length_of("sh").storage.workgroup && !length_of("sh").storage.invocation);
    assert!(length_of("loc").storage.invocation && !length_of("loc").storage.workgroup);
    assert!(length_of("priv").storage.invocation);
    // At N = 10: `priv` (80 bytes) and `loc` (40), and nothing else.
    let read = read_specialized(&c.spirv, &[(0, 10)]).unwrap();
    assert_eq!(read.spec_invocation_bytes, 120);
}
