//! The `ncnn-glsl` command as a user runs it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ncnn_glsl_testkit::tools::{spirv_val_auto, tool_available};

fn ncnn_glsl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ncnn-glsl"))
        .args(args)
        .output()
        .expect("run ncnn-glsl")
}

/// Runs with `stdin` as its standard input, in directory `cwd`.
fn ncnn_glsl_in(args: &[&str], stdin: &str, cwd: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ncnn-glsl"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ncnn-glsl");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
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

/// Hostile paths end in exit status 1 and a message within seconds: a
/// device (a read of it never ends), a FIFO, a binary file (shown nowhere).
#[test]
fn files_that_are_not_regular_text_are_refused_without_reading_them() {
    let f = scratch("ok5.comp", SHADER);
    let t = std::time::Instant::now();
    for (args, want) in [
        (
            vec!["expand", "/dev/zero"],
            "`/dev/zero` is not a regular file",
        ),
        (
            vec![
                "expand",
                f.to_str().unwrap(),
                "--device-caps",
                "/dev/urandom",
            ],
            "device description: `/dev/urandom` is not a regular file",
        ),
    ] {
        let out = ncnn_glsl(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(want), "{err}");
    }
    let bin = scratch("env.comp", "#version 450\0TOKEN=secret\n");
    let out = ncnn_glsl(&["expand", bin.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("is not a text file (a NUL byte at offset 12)"),
        "{err}"
    );
    assert!(!err.contains("secret"), "{err}");
    #[cfg(unix)]
    {
        let fifo = std::env::temp_dir().join(format!("ncnn-glsl-fifo-{}", std::process::id()));
        let _ = std::fs::remove_file(&fifo);
        let made = Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            let out = ncnn_glsl(&["expand", fifo.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(1));
            assert!(String::from_utf8_lossy(&out.stderr).contains("is not a regular file"));
            let _ = std::fs::remove_file(&fifo);
        }
    }
    // A path with escape sequences is shown escaped.
    let out = ncnn_glsl(&["expand", "/nonexistent/\u{1b}[2J\u{1b}]0;x\u{7}.comp"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(err.contains("\\u{1b}[2J"), "{err}");
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
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
fn a_dash_reads_the_shader_from_stdin_with_includes_from_the_current_dir() {
    let f = scratch("stdin_inc.glsl", "#define ONE afpvec4(1)\n");
    let dir = f.parent().unwrap();
    let text = SHADER
        .replace(
            "#version 450\n",
            "#version 450\n#include \"stdin_inc.glsl\"\n",
        )
        .replace("afpvec4(1)", "ONE");
    let out = ok(ncnn_glsl_in(
        &["expand", "-", "--mode", "fp16p"],
        &text,
        dir,
    ));
    let expanded = String::from_utf8(out.stdout).unwrap();
    assert!(expanded.contains("vec4(1)"), "{expanded}");
    // Errors name `<stdin>`, at its line and column.
    let out = ncnn_glsl_in(
        &["compile", "-", "-o", "-"],
        &SHADER.replace("v + afpvec4(1)", "v + nope"),
        dir,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing is written on error");
    let err = stderr(&out);
    assert!(
        err.starts_with("<stdin>:7:36: error: Unknown variable: nope"),
        "{err}"
    );
    let out = ncnn_glsl_in(
        &["expand", "-"],
        "#version 450\n#include \"missing.h\"\n",
        dir,
    );
    let err = stderr(&out);
    assert!(
        err.starts_with("<stdin>:2:10: error: cannot find `missing.h` (tried ./missing.h)"),
        "{err}"
    );
}

#[test]
fn compile_to_dash_writes_valid_spirv_to_stdout() {
    let f = scratch("stdout.comp", SHADER);
    let out = ok(ncnn_glsl(&[
        "compile",
        f.to_str().unwrap(),
        "--mode",
        "fp16s+fp16a",
        "-o",
        "-",
    ]));
    assert!(!f.parent().unwrap().join("-").exists(), "no file named `-`");
    let bytes = out.stdout;
    assert_eq!(bytes.len() % 4, 0);
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(words.first(), Some(&0x0723_0203));
    if tool_available("spirv-val") {
        spirv_val_auto(&words).unwrap();
    }
    // The same bytes as through a file.
    let spv = f.with_extension("spv");
    ok(ncnn_glsl(&[
        "compile",
        f.to_str().unwrap(),
        "--mode",
        "fp16s+fp16a",
        "-o",
        spv.to_str().unwrap(),
    ]));
    assert_eq!(std::fs::read(&spv).unwrap(), bytes);
}

#[test]
fn dash_d_defines_a_macro_before_the_shader() {
    let f = scratch(
        "define.comp",
        &SHADER.replace("afpvec4(1)", "afpvec4(FACTOR)"),
    );
    let file = f.to_str().unwrap();
    let expand = |args: &[&str]| {
        let mut all = vec!["expand", file];
        all.extend_from_slice(args);
        String::from_utf8(ok(ncnn_glsl(&all)).stdout).unwrap()
    };
    let two = expand(&["-D", "FACTOR=2"]);
    assert!(two.contains("vec4(2)"), "{two}");
    assert!(expand(&["-DFACTOR=3"]).contains("vec4(3)"));
    // `NAME` alone is 1; the define's text is not in the output.
    let one = expand(&["-D", "FACTOR", "-D", "OTHER=x"]);
    assert!(one.contains("vec4(1)") && !one.contains("OTHER"), "{one}");
    // compile and variants take it too; the SPIR-V differs.
    let spirv = |define: &str| ok(ncnn_glsl(&["compile", file, "-D", define, "-o", "-"])).stdout;
    assert_ne!(spirv("FACTOR=2"), spirv("FACTOR=3"));
    let set = scratch(
        "define_set.comp",
        &SHADER.replace("afpvec4(1)", "afpvec4(FACTOR)"),
    );
    let set = set.to_str().unwrap();
    let out = ok(ncnn_glsl(&["variants", set, "-D", "FACTOR=2"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("variants"));
    let out = ncnn_glsl(&["variants", set]);
    assert!(
        stderr(&out).contains("Unknown variable: FACTOR"),
        "{}",
        stderr(&out)
    );
    // Without it: an error at the use.
    let out = ncnn_glsl(&["compile", file, "-o", "-"]);
    assert!(
        stderr(&out).contains(":7:44: error: Unknown variable: FACTOR"),
        "{}",
        stderr(&out)
    );
    // A name the extension defines, or no name: a usage error naming the argument.
    let out = ncnn_glsl(&["expand", file, "-D", "NCNN_fp16_storage"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("'NCNN_fp16_storage'")
            && err.contains("the extension defines it from the mode"),
        "{err}"
    );
    let out = ncnn_glsl(&["expand", file, "-D", "2X=1"]);
    assert!(
        stderr(&out).contains("`2X` is not a macro name"),
        "{}",
        stderr(&out)
    );
    // Twice: an error naming both.
    let out = ncnn_glsl(&["expand", file, "-D", "FACTOR=1", "-D", "FACTOR=2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("`FACTOR` is defined twice: `FACTOR=1` and `FACTOR=2`"),
        "{}",
        stderr(&out)
    );
}

const AXES: &str = "#version 450
#pragma ncnn_glsl axis LAYOUT 0 1
layout (binding = 0) buffer a_blob { sfpvec4 a_blob_data[]; };
void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    afpvec4 v = buffer_ld4(a_blob_data, i);
#if LAYOUT == 1
    v = v * afpvec4(2);
#endif
    buffer_st4(a_blob_data, i, v);
}
";

#[test]
fn axis_picks_one_variant_and_names_the_declared_values() {
    let f = scratch("axes.comp", AXES);
    let file = f.to_str().unwrap();
    let spirv = |axis: &str| ok(ncnn_glsl(&["compile", file, "--axis", axis, "-o", "-"])).stdout;
    assert_ne!(spirv("LAYOUT=0"), spirv("LAYOUT=1"));
    let one = ok(ncnn_glsl(&["expand", file, "--axis", "LAYOUT=1"]));
    assert!(String::from_utf8_lossy(&one.stdout).contains("v * vec4(2)"));
    let err = |args: &[&str]| {
        let mut all = vec!["compile", file, "-o", "-"];
        all.extend_from_slice(args);
        let out = ncnn_glsl(&all);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        stderr(&out)
    };
    let declared = format!("`LAYOUT` (values 0, 1, declared at {file}:2)");
    // Every axis needs a value: no variant of the set has it undefined.
    assert_eq!(
        err(&[]).trim_end(),
        format!("error: the shader declares the axis {declared}: choose one variant with `--axis LAYOUT=VALUE`")
    );
    assert_eq!(
        err(&["--axis", "LAYOUT=2"]).trim_end(),
        format!("error: `--axis LAYOUT=2`: 2 is not a declared value of {declared}")
    );
    assert_eq!(
        err(&["--axis", "LAYUOT=1"]).trim_end(),
        format!(
            "error: `--axis LAYUOT`: the shader declares no axis `LAYUOT`; its axes: {declared}"
        )
    );
    assert_eq!(
        err(&["--axis", "LAYOUT=0", "--axis", "LAYOUT=1"]).trim_end(),
        "error: `--axis LAYOUT` is given twice: an axis takes one value"
    );
    assert_eq!(
        err(&["-D", "LAYOUT=1"]).trim_end(),
        format!("error: `-D LAYOUT=1` names an axis of the shader, {declared}: choose its value with `--axis LAYOUT=VALUE`")
    );
    // A shader without axes.
    let plain = scratch("no_axes.comp", SHADER);
    let out = ncnn_glsl(&["expand", plain.to_str().unwrap(), "--axis", "X=1"]);
    assert_eq!(
        stderr(&out).trim_end(),
        "error: `--axis X`: the shader declares no axis"
    );
    // Not NAME=integer: a usage error.
    let out = ncnn_glsl(&["expand", file, "--axis", "LAYOUT=one"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`one` is not an integer value for `LAYOUT`"),
        "{}",
        stderr(&out)
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

/// A reader that stops early (`ncnn-glsl expand x.comp | head -1`) gets a
/// clean error, not `println!`'s panic: the text is larger than a pipe's
/// buffer, so the write that meets the closed pipe is certain.
#[test]
fn a_closed_stdout_is_an_error_not_a_panic() {
    let body = "    x = x + 1.0;\n".repeat(20_000);
    let text = format!("#version 450\nvoid main()\n{{\n    float x = 0.0;\n{body}}}\n");
    let file = scratch("closed_stdout.comp", &text);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ncnn-glsl"))
        .args(["expand", file.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ncnn-glsl");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write to stdout"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// `compile --mode bf16p` for a device with 16-bit storage and `shaderInt16`:
/// the extension's `sfp` is `uint16_t` in that column, which naga lacks, so
/// the variant set leaves it out and the device runs bf16p without 16-bit
/// storage; the single-mode compile builds that same variant (the set's
/// bytes), with a note naming both targets and the reason.
#[test]
fn compile_builds_what_the_set_runs_where_the_asked_column_is_left_out() {
    use ncnn_glsl_core::variant::build::build;
    use ncnn_glsl_core::{CompileOptions, DeviceCaps, DeviceType, FsLoader, Options, SourceFile};

    let shader = "#version 450
layout (binding = 0) buffer a_blob { sfp a_blob_data[]; };
void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    afp v = buffer_ld1(a_blob_data, i);
    buffer_st1(a_blob_data, i, v + afp(1));
}
";
    let f = scratch("left_out.comp", shader);
    let device = DeviceCaps {
        name: "16-bit storage and int16".into(),
        api_version: 1 << 22 | 1 << 12,
        driver_version: 1,
        vendor_id: 0x10de,
        device_id: 1,
        device_type: DeviceType::DiscreteGpu,
        extensions: Default::default(),
        features: [("storageBuffer16BitAccess", true), ("shaderInt16", true)]
            .into_iter()
            .map(|(n, on)| (n.to_string(), on))
            .collect(),
        properties: Default::default(),
        cooperative_matrix_shapes: Vec::new(),
    };
    let caps = scratch("int16_device.json", &device.to_json());
    let spv = f.with_extension("spv");
    let out = ok(ncnn_glsl(&[
        "compile",
        f.to_str().unwrap(),
        "--mode",
        "bf16p",
        "--device-caps",
        caps.to_str().unwrap(),
        "-o",
        spv.to_str().unwrap(),
    ]));
    let err = stderr(&out);
    let note: Vec<&str> = err.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(note.len(), 1, "{err}");
    assert!(
        note[0].contains("`bf16p [S16 I16]` cannot be built")
            && note[0].contains("compiling `bf16p`")
            && note[0].contains("naga's GLSL frontend has no 16-bit integer types"),
        "{err}"
    );
    // The bytes the shader's variant set runs on that device.
    let set = build(
        SourceFile {
            name: f.display().to_string(),
            path: Some(f.clone()),
            text: shader.into(),
        },
        &FsLoader,
        &Default::default(),
        &CompileOptions::default(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let wanted: Options = "bf16p".parse().unwrap();
    let choice = set.select(&device, wanted, &[]).expect("a variant");
    assert_eq!(choice.chosen.to_string(), "bf16p");
    assert_ne!(choice.effective, choice.chosen);
    let theirs: Vec<u8> = set.blobs[choice.variant.blob]
        .spirv
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert_eq!(std::fs::read(&spv).unwrap(), theirs);
    // A column the device keeps is compiled as asked, without a note.
    let out = ok(ncnn_glsl(&[
        "compile",
        f.to_str().unwrap(),
        "--mode",
        "fp32",
        "--device-caps",
        caps.to_str().unwrap(),
        "-o",
        spv.to_str().unwrap(),
    ]));
    assert_eq!(stderr(&out), "");
}
