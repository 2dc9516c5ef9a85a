//! The `ncnn-glsl` command as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn ncnn_glsl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ncnn-glsl"))
        .args(args)
        .output()
        .expect("run ncnn-glsl")
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ncnn-glsl-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const SHADER: &str = "#version 450
layout (binding = 0) buffer a_blob { sfpvec4 a_blob_data[]; };
void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    afpvec4 v = buffer_ld4(a_blob_data, i);
    buffer_st4(a_blob_data, i, v + afpvec4(1));
}
";

#[test]
fn expand_prints_finished_glsl_with_the_mode_macros() {
    let f = scratch("ok.comp", SHADER);
    let out = ncnn_glsl(&["expand", f.to_str().unwrap(), "--mode", "fp16s+fp16a"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("#version 450"), "{text}");
    assert!(text.contains("GL_EXT_shader_16bit_storage"), "{text}");
    assert!(!text.contains("buffer_ld4"), "macros are expanded:\n{text}");
}

#[test]
fn compile_writes_spirv() {
    let f = scratch("ok2.comp", SHADER);
    let spv = f.with_extension("spv");
    let out = ncnn_glsl(&[
        "compile",
        f.to_str().unwrap(),
        "--mode",
        "fp16p",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&spv).unwrap();
    assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes());
}

#[test]
fn errors_go_to_stderr_with_file_line_column_and_status_1() {
    let f = scratch("bad.comp", &SHADER.replace("v + afpvec4(1)", "v + nope"));
    let spv = f.with_extension("spv");
    let out = ncnn_glsl(&["compile", f.to_str().unwrap(), "-o", spv.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&format!("{}:7:", f.display())), "{err}");
    assert!(!spv.exists(), "nothing is written on error");
}

#[test]
fn a_bad_mode_is_a_usage_error_naming_the_part() {
    let f = scratch("ok3.comp", SHADER);
    let out = ncnn_glsl(&["expand", f.to_str().unwrap(), "--mode", "fp16s+fp61a"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("`fp61a` is not an option"), "{err}");
}

#[test]
fn a_bad_device_file_names_the_file_and_the_problem() {
    let f = scratch("ok4.comp", SHADER);
    let caps = scratch("caps.json", "{\"name\": 3}");
    let out = ncnn_glsl(&[
        "expand",
        f.to_str().unwrap(),
        "--device-caps",
        caps.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("caps.json") && err.contains("not a device description"),
        "{err}"
    );
}

#[test]
fn variants_notes_what_naga_cannot_express_and_what_runs_instead() {
    let f = scratch("variants.comp", SHADER);
    let out = ncnn_glsl(&["variants", f.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("bf16s "))
        .unwrap_or_else(|| panic!("no bf16s line:\n{text}"));
    assert!(
        line.ends_with("left out: naga's GLSL frontend has no bfloat16 types; runs bf16p"),
        "{text}"
    );
    let out = ncnn_glsl(&["variants", f.to_str().unwrap(), "--json"]);
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(
        json.contains("\"left_out\": [")
            && json.contains("\"reason\": \"naga's GLSL frontend has no bfloat16 types\"")
            && json.contains("\"runs\": \"bf16p\""),
        "{json}"
    );
}
