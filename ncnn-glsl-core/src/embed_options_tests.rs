//! `include_shader` with the macro's `defines` and `include` directories.

use std::path::PathBuf;

use super::include_shader;
use crate::{Define, ExpandOptions};

const SHADER: &str = "#version 450
#include \"common.glsl\"
#include <lib.glsl>
layout (local_size_x = 1) in;
layout (binding = 0) buffer A { float a[]; };
void main() { a[0] = float(FOO + BAR + LIBV); }
";

/// A crate directory with the shader and `shaders/common/common.glsl`, and
/// a library directory beside it.
fn scratch() -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("ncnn-glsl-embed-options-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (krate, lib) = (dir.join("crate"), dir.join("lib"));
    std::fs::create_dir_all(krate.join("shaders/common")).unwrap();
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(krate.join("s.comp"), SHADER).unwrap();
    std::fs::write(krate.join("shaders/common/common.glsl"), "#define BAR 2\n").unwrap();
    std::fs::write(lib.join("lib.glsl"), "#define LIBV 3\n").unwrap();
    (dir, krate, lib)
}

fn options(defines: &[&str], include: &[&str]) -> ExpandOptions {
    ExpandOptions {
        defines: defines.iter().map(|d| Define::parse(d).unwrap()).collect(),
        include_dirs: include.iter().map(PathBuf::from).collect(),
    }
}

#[test]
fn defines_and_include_directories_reach_the_build_and_its_rebuild_list() {
    let (dir, krate, lib) = scratch();
    let path = proc_macro2::TokenStream::new();
    let o = options(&["FOO", "UNUSED=x"], &["shaders/common"]);
    let t = include_shader("s.comp", &krate, &lib, &o, &path)
        .unwrap()
        .to_string();
    // Cargo watches the shader and what it includes, found through the
    // caller's directory and through the library.
    for f in [
        krate.join("s.comp"),
        krate.join("shaders/common/common.glsl"),
        lib.join("lib.glsl"),
    ] {
        let lit = format!("include_bytes ! ({:?})", f.display().to_string());
        assert!(t.contains(&lit), "no `{lit}` in {t}");
    }
    // The caller's directories come before the library.
    std::fs::write(lib.join("common.glsl"), "#define BAR oops\n").unwrap();
    assert!(include_shader("s.comp", &krate, &lib, &o, &path).is_ok());
    // Without the define, or the directory: errors naming them.
    let e = include_shader(
        "s.comp",
        &krate,
        &lib,
        &options(&[], &["shaders/common"]),
        &path,
    )
    .unwrap_err();
    assert!(
        e.contains("s.comp:6:28: error: Unknown variable: FOO"),
        "{e}"
    );
    let e = include_shader("s.comp", &krate, &lib, &options(&["FOO"], &[]), &path).unwrap_err();
    assert!(
        e.contains("s.comp:6:34: error: Unknown variable: oops"),
        "{e}"
    );
    std::fs::remove_file(lib.join("common.glsl")).unwrap();
    let e = include_shader("s.comp", &krate, &lib, &options(&["FOO"], &[]), &path).unwrap_err();
    assert!(
        e.contains("s.comp:2:10: error: cannot find `common.glsl`"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
