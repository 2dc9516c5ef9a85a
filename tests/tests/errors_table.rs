//! `docs/errors.md`, the table of every error a user can get: each test it
//! names exists, and every variant of the public error enums has a row; the
//! README's table of refused constructs names every refusal. Also the tests
//! that provoke the errors no other test did (variant selection, the macro's
//! file lookup).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ncnn_glsl_core::compile::reject;
use ncnn_glsl_runtime::{
    AxisInfo, Blob, DeviceCaps, Options, SelectError, Usage, Variant, VariantSet,
};
use ncnn_glsl_testkit::shaders::workspace_root;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if !matches!(name.as_str(), "target" | ".git" | "snapshots") {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// The variants of `pub enum NAME` in `file`: the lines at one indent level
/// inside its body that start with a capital.
fn enum_variants(file: &str, name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(workspace_root().join(file)).unwrap();
    let start = text
        .find(&format!("pub enum {name} {{"))
        .unwrap_or_else(|| panic!("no `pub enum {name}` in {file}"));
    let body = &text[start..];
    let body = &body[..body.find("\n}").unwrap()];
    body.lines()
        .skip(1)
        .filter(|l| l.starts_with("    ") && !l.starts_with("     "))
        .map(|l| l.trim())
        .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|l| {
            l.split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn the_error_table_names_only_tests_that_exist_and_every_error_variant() {
    let table = std::fs::read_to_string(workspace_root().join("docs/errors.md")).unwrap();
    // Every `fn NAME(` of the workspace's Rust files, and every `mod NAME`
    // (a module whose doc comment holds doctests, `compile_fail` ones too).
    let mut files = Vec::new();
    rust_files(&workspace_root(), &mut files);
    let mut fns = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for keyword in ["fn ", "mod "] {
            for part in text.split(keyword).skip(1) {
                let name: String = part
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                fns.insert(name);
            }
        }
    }
    let mut rows = 0;
    let mut named = 0;
    for line in table.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | where | error | message shape | test |
        let Some(test_cell) = cells.get(cells.len().saturating_sub(2)) else {
            continue;
        };
        if test_cell.starts_with("---") || *test_cell == "test" {
            continue;
        }
        rows += 1;
        let tests: Vec<&str> = test_cell
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|t| !t.is_empty())
            .collect();
        assert!(
            !tests.is_empty() || test_cell.starts_with("none:"),
            "a row names no test and says no reason (`none: why`): {line}"
        );
        for t in tests {
            named += 1;
            let name = t.rsplit("::").next().unwrap();
            assert!(
                fns.contains(name),
                "docs/errors.md names `{t}`, which is no test: {line}"
            );
        }
    }
    assert!(
        rows > 40 && named > 40,
        "{rows} rows, {named} tests: the table did not parse"
    );
    for (file, name, prefix) in [
        ("ncnn-glsl-runtime/src/error.rs", "Error", "Error::"),
        ("ncnn-glsl-q8ta/src/error.rs", "Q8taError", "Q8taError::"),
        (
            "ncnn-glsl-core/src/variant/set.rs",
            "SelectError",
            "SelectError::",
        ),
        (
            "ncnn-glsl-core/src/define.rs",
            "DefineError",
            "DefineError::",
        ),
    ] {
        let variants = enum_variants(file, name);
        assert!(variants.len() >= 4, "{name}: {variants:?}");
        for v in variants {
            assert!(
                table.contains(&format!("`{prefix}{v}`")),
                "docs/errors.md has no row for `{prefix}{v}` ({file})"
            );
        }
    }
}

/// The README's table of refused constructs names every rule. (Here, not in
/// the core: the README is outside the core's package.)
#[test]
fn readme_lists_every_refusal() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    for rule in reject::RULES {
        let line = format!("| {} |", rule.reason.replace('|', "\\|"));
        assert!(readme.contains(&line), "README.md lacks the row:\n{line}");
    }
    for rule in reject::AFTER_PARSING {
        let line = format!("| (after parsing) {} |", rule.reason.replace('|', "\\|"));
        assert!(readme.contains(&line), "README.md lacks the row:\n{line}");
    }
}

/// A set of one variant with a device axis, for selection errors.
fn device_axis_set() -> &'static VariantSet {
    static AXES: [AxisInfo; 1] = [AxisInfo {
        name: "ncnn_subgroupSize",
        values: &[32, 64],
        device: true,
        outcomes: None,
    }];
    let blob: &'static Blob = ncnn_glsl_q8ta::SETS[0].variants()[0].blob;
    let variants = Box::leak(Box::new([Variant {
        target: Default::default(),
        axes: &[32],
        blob,
    }]));
    Box::leak(Box::new(VariantSet::new(
        "device_axis.comp",
        Usage::default(),
        &AXES,
        variants,
    )))
}

#[test]
fn selection_errors_name_the_axis_the_value_and_what_was_built() {
    let device = DeviceCaps::default();
    let set = ncnn_glsl_q8ta::SETS
        .iter()
        .find(|s| s.name.ends_with("q8ta_quantize.comp"))
        .unwrap();
    let e = set
        .select(&device, Options::FP32, &[("OUT_LAYOUT", 7)])
        .unwrap_err();
    assert!(matches!(e, SelectError::AxisValue { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "axis `OUT_LAYOUT` = 7 was not built (built: [0, 1, 2])"
    );
    let e = set.select(&device, Options::FP32, &[]).unwrap_err();
    assert!(matches!(e, SelectError::Axes { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("the shader's axes are [OUT_LAYOUT], but values were given for []"),
        "{e}"
    );

    let set = device_axis_set();
    let mut device = DeviceCaps::default();
    device.properties.insert("subgroupSize".into(), 16);
    let e = set.select(&device, Options::FP32, &[]).unwrap_err();
    assert!(
        matches!(
            e,
            SelectError::DeviceValue {
                value: Some(16),
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "the device has `ncnn_subgroupSize` = 16, for which the set holds no variant (built: [32, 64])"
    );
    let e = SelectError::DeviceValue {
        axis: "ncnn_subgroupSize",
        value: None,
        built: &[32],
    };
    assert!(
        e.to_string()
            .contains("the device does not report `ncnn_subgroupSize`"),
        "{e}"
    );
    device.properties.insert("subgroupSize".into(), 32);
    assert!(set.select(&device, Options::FP32, &[]).is_ok());

    // A set without its fp32 variant (the macro never builds one).
    let empty: &'static VariantSet = Box::leak(Box::new(VariantSet::new(
        "empty.comp",
        Usage::default(),
        &[],
        &[],
    )));
    let e = empty.select(&device, Options::FP32, &[]).unwrap_err();
    assert!(matches!(e, SelectError::NoVariant));
    assert_eq!(
        e.to_string(),
        "the set holds no variant at all for this device"
    );
}

#[test]
fn the_macro_names_a_missing_or_unreadable_shader() {
    use ncnn_glsl_core::embed::include_shader;
    let dir = std::env::temp_dir().join(format!("ncnn-glsl-embed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    let krate = proc_macro2::TokenStream::new();
    let none = ncnn_glsl_core::ExpandOptions::default();
    let e = include_shader("nope.comp", &dir, &dir.join("lib"), &none, &krate).unwrap_err();
    assert!(
        e.starts_with("cannot find shader `nope.comp`: looked for `"),
        "{e}"
    );
    assert!(e.contains("lib/nope.comp"), "{e}");
    // Not UTF-8, or binary: the file is named with the reason, none of it shown.
    std::fs::write(dir.join("bad.comp"), [b'#', 0xff, 0xfe]).unwrap();
    let e = include_shader("bad.comp", &dir, &dir.join("lib"), &none, &krate).unwrap_err();
    assert!(e.starts_with("cannot read shader: `"), "{e}");
    assert!(
        e.contains("bad.comp` is not UTF-8 text (a bad byte at offset 1)"),
        "{e}"
    );
    std::fs::write(dir.join("nul.comp"), b"#version 450\0SECRET=1").unwrap();
    let e = include_shader("nul.comp", &dir, &dir.join("lib"), &none, &krate).unwrap_err();
    assert!(
        e.contains("nul.comp` is not a text file (a NUL byte at offset 12)")
            && !e.contains("SECRET"),
        "{e}"
    );
    // rustc's environment, NUL-separated: refused, never printed.
    if std::path::Path::new("/proc/self/environ").exists() {
        let e = include_shader("/proc/self/environ", &dir, &dir.join("lib"), &none, &krate)
            .unwrap_err();
        assert!(e.contains("is not a text file"), "{e}");
        assert!(!e.contains("PATH="), "{e}");
    }
    // Not a regular file: a directory, a device (which a read would never finish).
    std::fs::create_dir_all(dir.join("d.comp")).unwrap();
    let e = include_shader("d.comp", &dir, &dir.join("lib"), &none, &krate).unwrap_err();
    assert!(e.contains("cannot find shader `d.comp`"), "{e}");
    for device in ["/dev/zero", "/dev/urandom"] {
        let e = ncnn_glsl_core::source::read_text(std::path::Path::new(device)).unwrap_err();
        assert_eq!(e, format!("`{device}` is not a regular file"));
    }
    // Larger than the cap.
    let big = dir.join("big.comp");
    std::fs::write(
        &big,
        vec![b' '; ncnn_glsl_core::source::MAX_FILE_BYTES as usize + 1],
    )
    .unwrap();
    let e = include_shader("big.comp", &dir, &dir.join("lib"), &none, &krate).unwrap_err();
    assert!(e.contains("big.comp` is larger than 8388608 bytes"), "{e}");
    // A shader error is the whole diagnostic, at the file's line.
    std::fs::write(
        dir.join("err.comp"),
        "#version 450\nvoid main() { oops; }\n",
    )
    .unwrap();
    let e = include_shader("err.comp", &dir, &dir.join("lib"), &none, &krate).unwrap_err();
    assert!(e.contains("err.comp:2:15: error:"), "{e}");
    // Lone carriage returns end lines too (the error was reported on line 1).
    std::fs::write(
        dir.join("cr.comp"),
        "#version 450\r\rvoid main() { oops; }\r",
    )
    .unwrap();
    let e = include_shader("cr.comp", &dir, &dir.join("lib"), &none, &krate).unwrap_err();
    assert!(e.contains("cr.comp:3:15: error:"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
