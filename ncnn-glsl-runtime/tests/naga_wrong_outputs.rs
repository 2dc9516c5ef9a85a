//! Shaders written to hit the constructs naga's GLSL frontend compiles to
//! valid SPIR-V that computes the wrong thing (docs/naga.md, "Gaps, and
//! what is done about each"): `barrier()`, multi-dimensional arrays,
//! `round()`, and members of an instance-named block shadowing earlier
//! declarations. Each form either runs here against glslang (same finished
//! GLSL, same random inputs, lavapipe) or must be refused at build time
//! with the construct's line and the reason.
//!
//! Already covered elsewhere, not repeated: the 2-D `shared` and local
//! arrays of `repairs.rs` (`two_dimensional_arrays`); barrier scopes in
//! `main` and the refusal of `round()`, of a 3-D array list and of a constant
//! shadowed by a push-constant member, each at its line and column
//! (`ncnn-glsl-core/src/compile/tests.rs`: `barrier_is_glslangs_workgroup_barrier`,
//! `each_refused_construct_is_reported_at_its_place`); `psc()` with the
//! specialization constant declared before the block (`repairs.rs`,
//! `specialization_constants`). lavapipe runs any barrier as a full one, so
//! a run cannot show the barrier bug: its form in the SPIR-V is checked.

use ncnn_glsl_core::CompileOptions;
use ncnn_glsl_testkit::differential::{finished, run, Case, Cmp, Fill, Io};

/// A case of 64 invocations in one workgroup writing `o` (binding 0, 64
/// ints), plus any inputs, with push constant `w = 5` where declared.
fn case64(name: &str, body: &str, inputs: Vec<Io>) -> Case {
    let src = format!("#version 450\nlayout(local_size_x = 64) in;\n{body}");
    let mut io = vec![Io::Out(4 * 64, Cmp::Exact)];
    io.extend(inputs);
    let mut case = Case::new(name, &src, "fp32", io);
    if body.contains("push_constant") {
        case.push_constants = 5i32.to_le_bytes().to_vec();
    }
    case
}

/// Our compiler refuses `body` (after the two header lines of [`case64`]):
/// the first error is at line `line` (1-based, in the whole file), at the
/// first `construct` on that line, and its message starts with `reason`.
fn refused(body: &str, line: u32, construct: &str, reason: &str) {
    let src = format!("#version 450\nlayout(local_size_x = 64) in;\n{body}");
    let column = src
        .lines()
        .nth(line as usize - 1)
        .unwrap()
        .find(construct)
        .unwrap()
        + 1;
    let e = finished(&src, "fp32");
    let Err(d) = ncnn_glsl_core::compile(&e, &CompileOptions::default()) else {
        panic!("compiled, but must be refused:\n{src}");
    };
    let text = d.to_string();
    let first = text.lines().next().unwrap_or_default();
    let want = format!("case.comp:{line}:{column}: error: {reason}");
    assert!(
        first.starts_with(&want),
        "want `{want}...`, got:\n{text}\nfor:\n{src}"
    );
    // glslang accepts every one of these: the refusal is ours, not an
    // invalid shader.
    ncnn_glsl_testkit::differential::glslang(e.text());
}

const MULTI_DIM: &str = "naga's GLSL frontend reverses the dimensions of multi-dimensional arrays";

/// 2-D arrays where the compiler accepts them, against glslang: members of
/// a buffer block and of a struct (std430 strides), a private global, a
/// declaration that comes out of a macro, the form `T[3] a[2]` the refusal
/// advises, and `.length()` of both dimensions.
#[test]
fn accepted_two_dimensional_arrays_match_glslang() {
    let words = |n: u64| Io::In(4 * n, Fill::Words);
    let cases = [
        case64(
            "2-D member of a buffer block",
            "layout(binding = 0) writeonly buffer O { int o[]; };
layout(binding = 1) readonly buffer B { int m[4][8]; int tail; };
void main() {
    uint l = gl_LocalInvocationID.x;
    o[l] = m[l % 4u][l % 8u] + m[l / 16u][7 - l / 8u] * 3 + m[3][7] + tail;
}
",
            vec![words(33)],
        ),
        case64(
            "2-D member of a struct, in a buffer and in a local",
            "struct S { int a; int m[2][3]; int b; };
layout(binding = 0) writeonly buffer O { int o[]; };
layout(binding = 1) readonly buffer B { S s[2]; };
void main() {
    uint l = gl_LocalInvocationID.x;
    S t;
    t.a = s[0].a;
    t.b = s[1].b;
    for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) t.m[i][j] = s[i].m[1 - i][j] + i * 10 + j;
    o[l] = s[l % 2u].m[l % 2u][l % 3u] * 7 + s[1].m[1][2] + t.m[l % 2u][2u - l % 3u] + t.a - t.b;
}
",
            vec![words(16)],
        ),
        case64(
            "2-D private global, written and read",
            "layout(binding = 0) writeonly buffer O { int o[]; };
layout(binding = 1) readonly buffer B { int a[]; };
int g[2][32];
void main() {
    uint l = gl_LocalInvocationID.x;
    for (int i = 0; i < 2; i++) for (int j = 0; j < 32; j++) g[i][j] = a[i * 32 + j] + i;
    o[l] = g[l / 32u][l % 32u] - g[1u - l / 32u][31u - l % 32u] + g[1][0];
}
",
            vec![words(64)],
        ),
        case64(
            "2-D shared array from a macro",
            "#define DECL(T, n) shared T n[2][32];
DECL(int, t)
layout(binding = 0) writeonly buffer O { int o[]; };
layout(binding = 1) readonly buffer B { int a[]; };
void main() {
    uint l = gl_LocalInvocationID.x;
    t[l / 32u][l % 32u] = a[l];
    barrier();
    o[l] = t[1u - l / 32u][l % 32u] * 2 + t[l % 2u][31u - l / 2u];
}
",
            vec![words(64)],
        ),
        case64(
            "the advised form T[3] a[2], and .length()",
            "layout(binding = 0) writeonly buffer O { int o[]; };
layout(binding = 1) readonly buffer B { int a[]; };
shared int s[2][32];
void main() {
    uint l = gl_LocalInvocationID.x;
    int[3] t[2];
    for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) t[i][j] = a[i * 3 + j] + 10 * i + j;
    o[l] = t[l % 2u][l % 3u] + t.length() * 1000 + t[0].length() * 100 + s.length() * 10 + s[1].length();
}
",
            vec![words(6)],
        ),
        case64(
            "the type form int[2][3] t",
            "layout(binding = 0) writeonly buffer O { int o[]; };
layout(binding = 1) readonly buffer B { int a[]; };
void main() {
    uint l = gl_LocalInvocationID.x;
    int[2][3] t;
    for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) t[i][j] = a[i * 3 + j] + 10 * i + j;
    o[l] = t[l % 2u][l % 3u] + t.length() * 1000 + t[0].length() * 100;
}
",
            vec![words(6)],
        ),
    ];
    for case in &cases {
        run(case);
    }
}

/// The 2-D forms the compiler cannot repair are refused at their line,
/// with the reason (3-D and deeper ones: `repairs.rs`, `multi_dimensional_arrays`).
#[test]
fn unrepaired_two_dimensional_arrays_are_refused_at_their_line() {
    let main = "void main() { o[0] = 0; }\n";
    let o = "layout(binding = 0) buffer O { int o[]; };\n";
    for (body, line, construct) in [
        (
            format!("{o}const int t[2][3] = int[2][3](int[3](1, 2, 3), int[3](4, 5, 6));\n{main}"),
            4,
            "t[2][3]",
        ),
        (
            format!("{o}void main() {{\n    int t[2][3] = int[2][3](int[3](1, 2, 3), int[3](4, 5, 6));\n    o[0] = t[1][2];\n}}\n"),
            5,
            "t[2][3]",
        ),
        (
            format!("{o}int f(int a[2][3]) {{ return a[1][2]; }}\n{main}"),
            4,
            "a[2][3]",
        ),
        (format!("{o}shared int a[2][32], b[4][16];\n{main}"), 4, "a[2][32]"),
        (format!("{o}shared int a[2]\n    [32];\n{main}"), 4, "a[2]"),
        (
            format!("{o}layout(binding = 1) buffer M {{ int m[][4]; }};\nvoid main() {{ o[0] = m[1][2]; }}\n"),
            4,
            "m[][4]",
        ),
    ] {
        refused(&body, line, construct, MULTI_DIM);
    }
}

/// `round()` beside `roundEven()` is refused; the replacement its error
/// advises, and the other rounding functions, give glslang's results on
/// exact ties and their neighbours.
#[test]
fn rounding_replacements_match_glslang_on_ties() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { int k[]; };
layout(binding = 1) writeonly buffer B { float o[]; };
void main() {
    int i = int(gl_GlobalInvocationID.x);
    // Exact ties and integers from -256 to 255.5, and the floats next to them.
    float t = float(k[i] % 1024 - 512) * 0.5;
    uint u = floatBitsToUint(t);
    float e[3] = float[3](t, uintBitsToFloat(u + 1u), t == 0.0 ? -t : uintBitsToFloat(u - 1u));
    for (int j = 0; j < 3; j++) {
        float x = e[j];
        int b = (i * 3 + j) * 6;
        o[b] = roundEven(x);
        o[b + 1] = floor(x + 0.5);
        o[b + 2] = trunc(x);
        o[b + 3] = ceil(x);
        o[b + 4] = fract(x);
        o[b + 5] = trunc(x + sign(x) * 0.5);
    }
}
";
    let mut case = Case::new(
        "rounding",
        src,
        "fp32",
        vec![
            Io::In(4 * 256, Fill::Below(1 << 20)),
            Io::Out(4 * 256 * 18, Cmp::Exact),
        ],
    );
    case.groups = [4, 1, 1];
    run(&case);
    refused(
        "layout(binding = 0) buffer O { float o[]; };\nvoid main() {\n    o[0] = round(o[1]) + roundEven(o[2]);\n}\n",
        5,
        "round",
        "naga compiles `round()` and `roundEven()` to one function",
    );
}

/// The execution and memory scopes of every `OpControlBarrier` in `spirv`
/// (constants resolved), in order.
fn control_barriers(spirv: &[u32]) -> Vec<[u32; 3]> {
    const OP_CONSTANT: u32 = 43;
    const OP_CONTROL_BARRIER: u32 = 224;
    let mut consts = std::collections::HashMap::new();
    let mut barriers = Vec::new();
    let mut i = 5;
    while i < spirv.len() {
        let (count, op) = ((spirv[i] >> 16) as usize, spirv[i] & 0xffff);
        let w = &spirv[i..i + count];
        if op == OP_CONSTANT && count == 4 {
            consts.insert(w[2], w[3]);
        }
        if op == OP_CONTROL_BARRIER {
            barriers.push([consts[&w[1]], consts[&w[2]], consts[&w[3]]]);
        }
        i += count.max(1);
    }
    barriers
}

/// `barrier()` outside `main`'s own body (a helper function, a loop, a
/// switch): every one becomes glslang's workgroup barrier, and the shader
/// gives glslang's results.
#[test]
fn barriers_in_functions_loops_and_switches_are_workgroup_barriers() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { uint a[]; };
layout(binding = 1) writeonly buffer B { uint b[]; };
shared uint tmp[64];
uint exchange(uint v, uint l) {
    tmp[l] = v;
    barrier();
    uint r = tmp[63u - l];
    barrier();
    return r;
}
void main() {
    uint l = gl_LocalInvocationID.x;
    uint v = a[gl_GlobalInvocationID.x];
    for (int s = 0; s < 3; s++) {
        v = exchange(v, l) * 3u + uint(s);
        tmp[l] = v;
        barrier();
        v ^= tmp[(l + 1u) % 64u];
        barrier();
    }
    switch (int(a[0] % 2u)) {
    case 0:
        tmp[l] = v + 1u;
        barrier();
        break;
    default:
        tmp[l] = v + 2u;
        barrier();
        break;
    }
    b[gl_GlobalInvocationID.x] = tmp[(l + 7u) % 64u];
}
";
    let mut case = Case::new(
        "barriers",
        src,
        "fp32",
        vec![Io::In(4 * 256, Fill::Words), Io::Out(4 * 256, Cmp::Exact)],
    );
    case.groups = [4, 1, 1];
    if let Some((ours, _, theirs)) = ncnn_glsl_testkit::differential::compile_both(&case) {
        // Scope Workgroup = 2; semantics AcquireRelease | WorkgroupMemory = 0x108.
        let want = vec![[2, 2, 0x108]; 6];
        assert_eq!(control_barriers(&theirs), want, "glslang's form");
        assert_eq!(control_barriers(&ours), want, "ours");
    }
    run(&case);
}

/// Names shared by a member of an instance-named block and something else,
/// in the forms the compiler accepts: each reads what glslang reads (push
/// constant `w = 5`).
#[test]
fn block_member_names_resolve_as_glslang() {
    let o = "layout(binding = 0) writeonly buffer O { int o[]; };\n";
    let pc = "layout(push_constant) uniform P { int w; } p;\n";
    let l = "uint l = gl_LocalInvocationID.x;";
    let one = |n: u64| vec![Io::In(4 * n, Fill::Below(1000))];
    let cases = [
        case64(
            "constant after the block",
            &format!("{o}{pc}const int w = 3;\nvoid main() {{ {l} o[l] = w * 100 + p.w; }}\n"),
            vec![],
        ),
        case64(
            "local variable, nested scope, function parameter",
            &format!("{o}{pc}int f(int w) {{ return w * 10; }}\nvoid main() {{ {l} int w = 4; int v = 0; {{ int w = 6; v = w; }} o[l] = v + w * 100 + f(int(l)) + p.w; }}\n"),
            vec![],
        ),
        case64(
            "function named like the member",
            &format!("{o}int w() {{ return 9; }}\n{pc}void main() {{ {l} o[l] = w() * 100 + p.w; }}\n"),
            vec![],
        ),
        case64(
            "two instance-named blocks with the same member",
            &format!("{o}layout(binding = 1) readonly buffer A {{ int w; }} a;\n{pc}void main() {{ {l} o[l] = a.w * 100 + p.w; }}\n"),
            one(1),
        ),
        case64(
            "struct constant with a member of that name",
            &format!("struct S {{ int w; }};\nconst S s = S(3);\n{o}{pc}void main() {{ {l} o[l] = s.w * 100 + p.w; }}\n"),
            vec![],
        ),
    ];
    for case in &cases {
        run(case);
    }
}

/// Names shared by a member of an instance-named block and a global declared
/// before it, in the forms that used to slip past the refusal and compile to
/// wrong code (a private global, an anonymous buffer block's member, a
/// constant before an instance-named *buffer* block): now refused at the
/// member.
#[test]
fn block_members_shadowing_any_earlier_global_are_refused() {
    let o = "layout(binding = 0) writeonly buffer O { int o[]; };\n";
    let pc = "layout(push_constant) uniform P { int w; } p;\n";
    let l = "uint l = gl_LocalInvocationID.x;";
    let reason = "naga puts the members of a block with an instance name into the global scope";
    refused(
        &format!("int w = 3;\n{o}{pc}void main() {{ {l} o[l] = w * 100 + p.w; }}\n"),
        5,
        "w",
        reason,
    );
    refused(
        &format!(
            "layout(binding = 1) readonly buffer A {{ int w; }};\n{o}{pc}\
             void main() {{ {l} o[l] = w * 100 + p.w; }}\n"
        ),
        5,
        "w",
        reason,
    );
    refused(
        &format!(
            "const int w = 3;\n{o}layout(binding = 1) readonly buffer A {{ int w; }} a;\n\
             void main() {{ {l} o[l] = w * 100 + a.w; }}\n"
        ),
        5,
        "w",
        reason,
    );
}
