//! Where errors of the expanded text point: inside an extension macro's
//! argument at the argument, not at the macro's name; naga's parse errors in
//! GLSL's words, not its lexer's token names; defines from outside.

use crate::compile::{compile, CompileOptions};
use crate::diag::Diagnostics;
use crate::expand::{expand, ExpandOptions};
use crate::source::{MemoryLoader, SourceFile};
use crate::target::Target;
use crate::Define;

const MODES: [&str; 4] = ["fp32", "fp16p", "fp16s+fp16a", "fp16p+fp16a"];

fn shader(load: &str, store: &str) -> String {
    format!(
        "#version 450
layout (binding = 0) readonly buffer a_blob {{ sfpvec4 a_blob_data[]; }};
layout (binding = 1) writeonly buffer b_blob {{ sfpvec4 b_blob_data[]; }};
void main()
{{
    const int i = int(gl_GlobalInvocationID.x);
    afpvec4 v = {load};
    {store};
}}
"
    )
}

fn build(text: &str, mode: &str, defines: &[&str]) -> Result<Vec<u32>, Diagnostics> {
    let options = ExpandOptions {
        defines: defines.iter().map(|d| Define::parse(d).unwrap()).collect(),
        include_dirs: Vec::new(),
    };
    let source = SourceFile {
        name: "t.comp".into(),
        path: None,
        text: text.into(),
    };
    let target = Target::for_mode(mode.parse().unwrap());
    let e = expand(source, &target, None, &MemoryLoader::default(), &options)?;
    compile(&e, &CompileOptions::default()).map(|c| c.spirv)
}

/// `file:line:column: message` of the first error.
fn first(text: &str, mode: &str, defines: &[&str]) -> String {
    let d = build(text, mode, defines).expect_err("an error");
    let d = &d.0[0];
    let s = d.span.as_ref().unwrap_or_else(|| panic!("no place: {d}"));
    format!("{}:{}:{}: {}", s.file, s.line, s.column, d.message)
}

#[test]
fn a_naga_error_inside_a_macro_argument_points_at_the_argument() {
    let text = shader(
        "buffer_ld4(a_blob_data, oops)",
        "buffer_st4(b_blob_data, i, v)",
    );
    for mode in MODES {
        assert_eq!(
            first(&text, mode, &[]),
            "t.comp:7:41: Unknown variable: oops",
            "{mode}"
        );
    }
    // Through a macro of the user's inside the argument: at that macro's use.
    let text = text.replace("#version 450\n", "#version 450\n#define IDX oops\n");
    let text = text.replace("a_blob_data, oops)", "a_blob_data, IDX)");
    for mode in MODES {
        assert_eq!(
            first(&text, mode, &[]),
            "t.comp:8:41: Unknown variable: oops",
            "{mode}"
        );
    }
}

#[test]
fn a_syntax_error_inside_a_macro_argument_points_at_it_in_glsl_words() {
    let text = shader(
        "buffer_ld4(a_blob_data, i)",
        "buffer_st4(b_blob_data, i, v +* 1)",
    );
    for mode in MODES {
        let got = first(&text, mode, &[]);
        assert!(got.starts_with("t.comp:8:35: expected "), "{mode}: {got}");
        assert!(got.ends_with(", found `*`"), "{mode}: {got}");
        assert!(!got.contains("Star"), "{mode}: {got}");
    }
    // Outside any macro: the token as written, the expected ones in GLSL.
    let text = shader("buffer_ld4(a_blob_data, i)", "v = v + { 1 }");
    assert_eq!(
        first(&text, "fp32", &[]),
        "t.comp:8:13: expected `(`, an integer, a floating-point number or a boolean, found `{`"
    );
}

#[test]
fn defines_reach_the_shader_and_name_their_origin() {
    let text = shader(
        "buffer_ld4(a_blob_data, i) * afp(FACTOR)",
        "buffer_st4(b_blob_data, i, v)",
    );
    let two = build(&text, "fp32", &["FACTOR=2"]).unwrap();
    let three = build(&text, "fp32", &["FACTOR=3"]).unwrap();
    assert_ne!(two, three);
    // `NAME` alone is 1.
    let one = build(&text, "fp32", &["FACTOR"]).unwrap();
    assert_eq!(one, build(&text, "fp32", &["FACTOR=1"]).unwrap());
    // Undefined, the name is unknown at its use.
    assert_eq!(
        first(&text, "fp32", &[]),
        "t.comp:7:50: Unknown variable: FACTOR"
    );
    // A define's value is mapped to its use in the shader, where naga sees it.
    assert_eq!(
        first(&text, "fp32", &["FACTOR=nope"]),
        "t.comp:7:50: Unknown variable: nope"
    );
    // Two of one name.
    let d = build(&text, "fp32", &["FACTOR=2", "FACTOR=3"]).unwrap_err();
    assert_eq!(
        d.to_string(),
        "error: `FACTOR` is defined twice: `FACTOR=2` and `FACTOR=3`"
    );
}

#[test]
fn a_define_may_not_name_an_axis() {
    let text = shader(
        "buffer_ld4(a_blob_data, i)",
        "buffer_st4(b_blob_data, i, v)",
    );
    let options = ExpandOptions {
        defines: vec![Define::parse("LAYOUT=1").unwrap()],
        include_dirs: Vec::new(),
    };
    let source = SourceFile {
        name: "t.comp".into(),
        path: None,
        text,
    };
    let target = Target::for_mode("fp32".parse().unwrap());
    let loader = MemoryLoader::default();
    let e =
        crate::expand_with(source, &target, None, &[("LAYOUT", 0)], &loader, &options).unwrap_err();
    assert_eq!(
        e.to_string(),
        "error: `LAYOUT` is defined (`LAYOUT=1`), but it is an axis of the shader's variant set \
         (`#pragma ncnn_glsl axis`), which takes each of its declared values in turn"
    );
}
