//! What naga let through silently and glslang refuses (issue 18): integer
//! literals past 32 bits (wrapped), two specialization constants on one id
//! (one value set both), reads of `writeonly` buffers (an `OpLoad` from a
//! `NonReadable` variable). Each is an error at its place.

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
    ] {
        let (m, l, c) = first(&shader(body));
        assert_eq!(m, "a read of a `writeonly` buffer", "{body}");
        assert_eq!((l, c), (6, col), "{body}");
    }
    // Writes and reads of the readonly one stay fine.
    ok(&shader("    x[0] = y[0] + y[1];"));
}
