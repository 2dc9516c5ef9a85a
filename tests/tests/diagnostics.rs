//! Errors point at the user's file, line and column, whatever the mode and
//! the size of the prelude injected before the user's text.

use std::path::PathBuf;

use ncnn_glsl_core::{
    compile, expand, CompileOptions, Diagnostics, MemoryLoader, Options, SourceFile, Target,
};

const MODES: [&str; 9] = [
    "fp32",
    "fp16p",
    "fp16p+fp16a",
    "fp16s",
    "fp16s+fp16a",
    "bf16p",
    "int8p",
    "int16p",
    "fp16s+fp16a+int8p+int16p+local",
];

fn shader(body_line: &str) -> String {
    format!(
        "#version 450
// a comment
layout (binding = 0) readonly buffer a_blob {{ sfpvec4 a_blob_data[]; }};
layout (binding = 1) writeonly buffer b_blob {{ sfpvec4 b_blob_data[]; }};

void main()
{{
    const int i = int(gl_GlobalInvocationID.x);
{body_line}
    afpvec4 v = buffer_ld4(a_blob_data, i);
    buffer_st4(b_blob_data, i, v);
}}
"
    )
}

/// Expands and compiles; the first diagnostic's `file:line:column`.
fn first_error_position(files: &[(&str, &str)], mode: &str) -> (String, Diagnostics) {
    let loader = MemoryLoader {
        files: files[1..]
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect(),
    };
    let main = SourceFile {
        name: files[0].0.to_string(),
        path: Some(PathBuf::from(files[0].0)),
        text: files[0].1.to_string(),
    };
    let target = Target::for_mode(mode.parse::<Options>().unwrap());
    let result = expand(main, &target, None, &loader, &Default::default())
        .and_then(|e| compile(&e, &CompileOptions::default()).map(|_| ()));
    let diags = result.expect_err("the shader has an error");
    let span = diags.0[0]
        .span
        .clone()
        .unwrap_or_else(|| panic!("{mode}: no position in\n{diags}"));
    (
        format!("{}:{}:{}", span.file, span.line, span.column),
        diags,
    )
}

#[test]
fn an_unknown_name_is_reported_at_its_line_and_column_in_every_mode() {
    let text = shader("    afpvec4 w = not_declared_anywhere;");
    for mode in MODES {
        let (pos, diags) = first_error_position(&[("/src/user.comp", &text)], mode);
        assert_eq!(pos, "/src/user.comp:9:17", "{mode}:\n{diags}");
        let rendered = diags.to_string();
        assert!(
            rendered.contains("afpvec4 w = not_declared_anywhere;"),
            "{rendered}"
        );
    }
}

#[test]
fn a_syntax_error_is_reported_at_its_line_and_column_in_every_mode() {
    let text = shader("    int k = (3 + ;");
    for mode in MODES {
        let (pos, diags) = first_error_position(&[("/src/user.comp", &text)], mode);
        assert_eq!(pos, "/src/user.comp:9:18", "{mode}:\n{diags}");
    }
}

#[test]
fn an_error_in_an_included_file_points_into_that_file() {
    let main = shader("").replacen("\nvoid main()", "\n#include \"helpers.h\"\nvoid main()", 1);
    let helpers = "// helpers\n\nint twice(int x)\n{\n    return x * undefined_factor;\n}\n";
    for mode in MODES {
        let (pos, diags) = first_error_position(
            &[("/src/user.comp", &main), ("/src/helpers.h", helpers)],
            mode,
        );
        assert_eq!(pos, "/src/helpers.h:5:16", "{mode}:\n{diags}");
    }
}

#[test]
fn a_misused_extension_macro_points_at_the_use() {
    let text = shader("    afpvec4 w = buffer_ld4(a_blob_data);");
    for mode in MODES {
        let (pos, diags) = first_error_position(&[("/src/user.comp", &text)], mode);
        assert!(
            pos.starts_with("/src/user.comp:9:"),
            "{mode}: {pos}\n{diags}"
        );
        assert!(diags.to_string().contains("buffer_ld4"), "{mode}:\n{diags}");
    }
}

#[test]
fn error_directive_text_is_reported_at_its_line() {
    let text = shader("#error this shader needs a newer ncnn");
    for mode in MODES {
        let (pos, diags) = first_error_position(&[("/src/user.comp", &text)], mode);
        assert_eq!(pos, "/src/user.comp:9:1", "{mode}:\n{diags}");
        assert!(
            diags.to_string().contains("this shader needs a newer ncnn"),
            "{diags}"
        );
    }
}

/// The errors of building `text` as a variant set, every mode.
fn set_errors(text: String) -> ncnn_glsl_core::Diagnostics {
    let source = SourceFile {
        name: "/src/user.comp".into(),
        path: Some(PathBuf::from("/src/user.comp")),
        text,
    };
    ncnn_glsl_core::variant::build::build(
        source,
        &MemoryLoader::default(),
        &Default::default(),
        &CompileOptions::default(),
    )
    .map(|_| ())
    .expect_err("the shader has an error")
}

/// A mistake that fails every mode of a variant set is reported once, at
/// its place, in GLSL's terms: no list of modes to exclude, no naga handles.
#[test]
fn a_type_error_in_every_mode_of_a_set_is_reported_once() {
    let text = shader("    float x = 1.0;\n    x = vec4(2.0);");
    let diags = set_errors(text);
    let shown = diags.to_string();
    assert_eq!(diags.0.len(), 1, "{shown}");
    let d = &diags.0[0];
    assert_eq!(
        d.message, "the value stored has type `vec4`, the variable `x` has type `float`",
        "{shown}"
    );
    let s = d.span.as_ref().expect("a place");
    assert_eq!((s.line, s.column), (10, 9), "{shown}");
    assert!(
        !shown.contains("exclude") && !shown.contains("[1"),
        "{shown}"
    );
}

/// Every variant fails, but not alike (fp16 arithmetic also refuses the
/// `float` beside a `float16_t`): the first variant's errors alone, without
/// the summary of failing modes or advice to exclude one.
#[test]
fn a_set_whose_every_variant_fails_reports_the_first_variants_errors() {
    let text = shader(
        "    float x = 1.0;\n    x = vec4(2.0);\n    afpvec4 w = buffer_ld4(a_blob_data, i) * x;",
    );
    let diags = set_errors(text);
    let shown = diags.to_string();
    assert_eq!(diags.0.len(), 1, "{shown}");
    assert_eq!(
        diags.0[0].message, "the value stored has type `vec4`, the variable `x` has type `float`",
        "{shown}"
    );
    assert!(
        !shown.contains("exclude") && !shown.contains("fail to compile"),
        "{shown}"
    );
}
