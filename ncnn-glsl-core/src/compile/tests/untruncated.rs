//! What naga lets through silently and glslang refuses: integer
//! literals past 32 bits (wrapped), two specialization constants on one id
//! (one value set both), reads of `writeonly` buffers (an `OpLoad` from a
//! `NonReadable` variable), local sizes naga's validator refuses without a
//! place, a spec id shared by a constant and the local size, two
//! declarations of one member, block or specialization constant name; and a
//! panic of naga's parser placed at its line. Each is an error at its place.

use super::{errs, ok};

fn first(text: &str) -> (String, u32, u32) {
    let d = errs(text, "fp32");
    let e = &d.0[0];
    let s = e.span.as_ref().unwrap_or_else(|| panic!("no place: {e}"));
    (e.message.clone(), s.line, s.column)
}

#[test]
fn literals_past_32_bits_are_refused_at_their_token() {
    for (line, col, lit) in [
        (
            "layout (binding = 4294967297) buffer b { uint d[]; };",
            19,
            "4294967297",
        ),
        ("layout (local_size_x = 4294967360) in;", 24, "4294967360"),
        ("const uint k = 0x1ffffffffu;", 16, "0x1ffffffffu"),
    ] {
        let text = format!(
            "#version 450\n{line}\nlayout (binding = 0) buffer o {{ uint x[]; }};\nvoid main()\n{{\n    x[0] = 1u;\n}}\n"
        );
        let (m, l, c) = first(&text);
        assert_eq!(
            m,
            format!("integer literal `{lit}` does not fit in 32 bits (at most 4294967295)")
        );
        assert_eq!((l, c), (2, col), "{line}");
    }
    // The largest 32-bit value is a literal like any other.
    ok("#version 450\nlayout (binding = 0) buffer o { uint x[]; };\nvoid main()\n{\n    x[0] = 4294967295u;\n}\n");
}

#[test]
fn duplicate_constant_ids_are_refused() {
    let (m, l, c) = first(
        "#version 450\nlayout (constant_id = 3) const int a = 1;\nlayout (constant_id = 3) const int b = 2;\n\
         layout (binding = 0) buffer o { int x[]; };\nvoid main()\n{\n    x[0] = a + b;\n}\n",
    );
    assert_eq!(m, "`constant_id = 3` is given twice: to `a` and to `b`");
    assert_eq!((l, c), (3, 1));
}

/// Every error of `text` in fp32, as (message, line, column).
fn all(text: &str) -> Vec<(String, u32, u32)> {
    errs(text, "fp32")
        .0
        .iter()
        .map(|e| {
            let s = e.span.as_ref().unwrap_or_else(|| panic!("no place: {e}"));
            (e.message.clone(), s.line, s.column)
        })
        .collect()
}

#[test]
fn duplicate_member_names_are_refused_at_the_second() {
    let shader = |decls: &str, body: &str| {
        format!("#version 450\n{decls}\nvoid main()\n{{\n    {body}\n}}\n")
    };
    for (decls, body, message, col) in [
        (
            "layout (binding = 0) buffer b_blob { float d[]; float d[]; };",
            "d[0] = 1.0;",
            "the member `d` is declared twice in the block `b_blob`",
            55,
        ),
        (
            "layout (push_constant) uniform parameter { int w; int h; float w; } p;\n\
             layout (binding = 0) buffer o { float x[]; };",
            "x[0] = float(p.w);",
            "the member `w` is declared twice in the block `parameter`",
            64,
        ),
        (
            "layout (binding = 0) buffer b_blob { int a, b, a; int x[]; };",
            "x[0] = a + b;",
            "the member `a` is declared twice in the block `b_blob`",
            48,
        ),
        (
            "struct S { int a; vec4 v[2]; float a; };\n\
             layout (binding = 0) buffer o { S s[]; };",
            "s[0].a = 1;",
            "the member `a` is declared twice in the struct `S`",
            36,
        ),
    ] {
        let e = all(&shader(decls, body));
        assert_eq!(e, [(message.to_string(), 2, col)], "{decls}");
    }
    // One name in two blocks or structs, or a member named like its block, is fine.
    ok(&shader(
        "struct S { int a; };\nstruct T { int a; };\n\
         layout (binding = 0) buffer a { int a; S s; T t; } x;\n\
         layout (binding = 1) buffer b { int a; } y;",
        "x.a = x.s.a + x.t.a + y.a;",
    ));
}

#[test]
fn duplicate_block_names_are_refused_at_the_second() {
    let text = "#version 450\nlayout (binding = 0) buffer b_blob { float d[]; };\n\
                layout (binding = 1) readonly buffer b_blob { float e[]; };\n\
                void main()\n{\n    d[0] = e[0];\n}\n";
    assert_eq!(
        all(text),
        [(
            "the `buffer` block name `b_blob` is declared twice".to_string(),
            3,
            38
        )]
    );
    // A `uniform` and a `buffer` block may share a name, as in glslang
    // (a block name is unique per interface).
    ok(
        "#version 450\nlayout (binding = 0) uniform X { float u; } ux;\n\
        layout (binding = 1) buffer X { float e[]; } bx;\nvoid main()\n{\n    bx.e[0] = ux.u;\n}\n",
    );
}

#[test]
fn duplicate_specialization_constant_names_are_refused_at_the_second() {
    let text = "#version 450\nlayout (constant_id = 0) const int w = 1;\n\
                layout (constant_id = 1) const int w = 2;\n\
                layout (binding = 0) buffer o { int x[]; };\nvoid main()\n{\n    x[0] = w;\n}\n";
    assert_eq!(
        all(text),
        [(
            "the specialization constant `w` is declared twice: with `constant_id = 0` and \
             `constant_id = 1`"
                .to_string(),
            3,
            36
        )]
    );
}

#[test]
fn reads_of_writeonly_buffers_are_refused_at_the_read() {
    let shader = |body: &str| {
        format!(
            "#version 450\nlayout (binding = 0) writeonly buffer o {{ uint x[]; }};\n\
             layout (binding = 1) readonly buffer i {{ uint y[]; }};\nvoid main()\n{{\n{body}\n}}\n"
        )
    };
    for (body, col) in [
        ("    x[1] = x[0];", 13),
        ("    x[0] += 1u;", 6),
        ("    uint v = x[2] * y[0];", 15),
        // An atomic on the buffer does not let plain loads of it through.
        ("    uint v = x[3]; atomicAdd(x[0], 1u);", 15),
    ] {
        let (m, l, c) = first(&shader(body));
        assert_eq!(m, "a read of a `writeonly` buffer", "{body}");
        assert_eq!((l, c), (6, col), "{body}");
    }
    // Writes and reads of the readonly one stay fine; atomics too (glslang
    // takes them on a writeonly buffer).
    ok(&shader("    x[0] = y[0] + y[1];"));
    ok(&shader("    atomicAdd(x[0], y[0]);"));
}

#[test]
fn local_sizes_naga_cannot_take_are_refused_at_their_token() {
    for (layout, col, m) in [
        (
            "layout (local_size_x = 0) in;",
            9,
            "`local_size_x = 0`: a workgroup dimension must be at least 1",
        ),
        (
            "layout (local_size_x = 1, local_size_z = 16385) in;",
            27,
            "`local_size_z = 16385` is past 16384, the most naga accepts in one dimension",
        ),
    ] {
        let text = format!(
            "#version 450\n{layout}\nlayout (binding = 0) buffer o {{ uint x[]; }};\nvoid main()\n{{\n    x[0] = 1u;\n}}\n"
        );
        assert_eq!(first(&text), (m.to_string(), 2, col), "{layout}");
    }
    ok("#version 450\nlayout (local_size_x = 16384) in;\nlayout (binding = 0) buffer o { uint x[]; };\nvoid main()\n{\n    x[0] = 1u;\n}\n");
}

#[test]
fn a_constant_id_that_is_also_a_local_size_id_is_refused() {
    let (m, l, c) = first(
        "#version 450\nlayout (local_size_x_id = 233) in;\nlayout (constant_id = 233) const int w = 1;\n\
         layout (binding = 0) buffer o { int x[]; };\nvoid main()\n{\n    x[0] = w;\n}\n",
    );
    assert_eq!(m, "`constant_id = 233` of `w` is also `local_size_x_id`");
    assert_eq!((l, c), (3, 1));
    // Without a local size, the pipeline's takes ncnn's ids 233-235.
    let (m, l, c) = first(
        "#version 450\nlayout (constant_id = 234) const int w = 1;\n\
         layout (binding = 0) buffer o { int x[]; };\nvoid main()\n{\n    x[0] = w;\n}\n",
    );
    assert_eq!(m, "`constant_id = 234` of `w` is also `local_size_y_id`");
    assert_eq!((l, c), (2, 1));
}

#[test]
fn a_naga_parser_panic_is_placed_at_its_line() {
    // naga multiplies the array's size by its stride in 32 bits (a panic
    // with overflow checks, a layout error without): either way a panic.
    let d = errs(
        "#version 450\nlayout (local_size_x = 1) in;\n\
         layout (binding = 0) buffer b { vec4 d[268435456]; vec4 e[4]; };\nvoid main()\n{\n    e[0] = vec4(1.0);\n}\n",
        "fp32",
    );
    let e = &d.0[0];
    assert!(
        e.message
            .starts_with("naga panicked while parsing the shader"),
        "{e}"
    );
    let s = e.span.as_ref().unwrap_or_else(|| panic!("no place: {e}"));
    assert_eq!((s.line, s.column), (3, 1), "{e}");
    assert!(
        e.notes.iter().any(|n| n.contains("2147483647 bytes")),
        "{e}"
    );
}

#[test]
fn control_flow_nested_past_spirvs_limit_is_refused() {
    // Without braces 1100 `if`s stay inside the bracket and statement budgets.
    let deep = |n: usize| {
        format!(
            "#version 450\nlayout (binding = 0) buffer o {{ int x[]; }};\nvoid main()\n{{\n    int v = x[0];\n    {}v++;\n    x[0] = v;\n}}\n",
            "if (v > 0) ".repeat(n)
        )
    };
    let d = errs(&deep(1100), "fp32");
    assert!(
        d.0[0]
            .message
            .contains("structured control-flow nesting depth (`if`, `for`, `while`, `switch` inside each other) is 1024, and SPIR-V allows at most 1023"),
        "{d}"
    );
    // 1023 deep is valid (spirv-val takes 18 s to say so: checked by hand,
    // `spirv-val --target-env vulkan1.1`).
}

#[test]
fn a_type_naga_refuses_is_placed_at_its_declaration() {
    // Three arrays of 2^31 - 16 bytes: the block's size wraps in naga's
    // 32-bit offsets, which its validator catches with no place.
    let d = errs(
        "#version 450\nlayout (local_size_x = 1) in;\n\
         layout (binding = 0) buffer big { vec4 a[134217727]; vec4 b[134217727]; vec4 c[134217727]; float last; };\n\
         void main()\n{\n    last = 1.0;\n}\n",
        "fp32",
    );
    // With overflow checks (a proc-macro's dev build) naga panics on the
    // addition while parsing instead: placed at the line as well.
    let e = &d.0[0];
    let s = e.span.as_ref().unwrap_or_else(|| panic!("no place: {e}"));
    let panicked = e.message.starts_with("naga panicked");
    assert_eq!(
        (s.line, s.column),
        (3, if panicked { 1 } else { 29 }),
        "{e}"
    );
}
