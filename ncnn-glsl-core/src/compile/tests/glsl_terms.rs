//! naga's validation errors in GLSL's terms: the types and the code the
//! user wrote, never naga's expression and type handles (`[151]`).

use super::{errs, span};

fn shader(decls: &str, body: &str) -> String {
    format!(
        "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer A {{ float a[]; }};
{decls}
void main() {{
{body}
}}
"
    )
}

/// The first error's message, checked to name no handle of naga's IR.
fn message(src: &str) -> (String, (u32, u32)) {
    let d = errs(src, "fp32");
    let shown = d.to_string();
    assert!(
        !shown.contains("naga::ir") && !shown.contains(" [") && !shown.contains("Some("),
        "naga's handles in:\n{shown}"
    );
    (d.0[0].message.clone(), span(&d.0[0]))
}

#[test]
fn a_store_of_the_wrong_type_names_both_types() {
    let (m, at) = message(&shader(
        "",
        "    float x = 1.0;\n    x = vec4(2.0);\n    a[0] = x;",
    ));
    assert_eq!(
        m,
        "the value stored has type `vec4`, the variable `x` has type `float`"
    );
    assert_eq!(at, (7, 9));
    let (m, at) = message(&shader("", "    a[0] = vec2(1.0);"));
    assert_eq!(
        m,
        "the value stored has type `vec2`, `a[0]` has type `float`"
    );
    assert_eq!(at, (6, 12));
}

#[test]
fn other_type_errors_name_types_and_code() {
    let cases = [
        (
            shader("float f() { return vec4(1.0); }", "    a[0] = f();"),
            "`return` of a value of type `vec4` in `f`, which returns `float`",
            (4, 20),
        ),
        (
            shader("", "    float x = a[1];\n    if (x) a[0] = 1.0;"),
            "the `if` condition has type `float`, not `bool`",
            (7, 9),
        ),
        (
            shader(
                "",
                "    vec3 p = vec3(1.0);\n    vec4 q = vec4(2.0);\n    a[0] = (p + q).x;",
            ),
            "`p + q`: no `+` for `vec3` and `vec4`",
            (8, 13),
        ),
        (
            shader("", "    bool b = a[1] > 0.0;\n    a[0] = float(!(-b));"),
            "`-b`: no `-` for `bool`",
            (7, 20),
        ),
        (
            shader("", "    int i = 1.5;\n    a[0] = float(i);"),
            "the variable `i` has type `int`, its initial value `1.5` has type `float`",
            (6, 9),
        ),
    ];
    for (src, want, at) in cases {
        let (m, place) = message(&src);
        assert_eq!(m, want, "{src}");
        assert_eq!(place, at, "{src}");
    }
}
