//! A real downstream crate, outside the workspace, that depends on
//! `ncnn-glsl-runtime` by path and calls `include_ncnn_shader!` on its own
//! shader: it builds and runs; its normal dependency tree holds no naga;
//! editing the shader or a file it includes rebuilds it with the new code;
//! and each kind of shader error fails its build with a message at the
//! shader's file and line.
//!
//! One crate is built several times in one test (shared target directory),
//! since each build of a fresh crate would compile naga again.

use std::path::PathBuf;
use std::process::{Command, Output};

use ncnn_glsl_testkit::shaders::workspace_root;

const MAIN_RS: &str = r#"use ncnn_glsl_runtime::{include_ncnn_shader, VariantSet};

static SET: &VariantSet = include_ncnn_shader!("shaders/scale.comp");

fn main() {
    // A fingerprint of everything embedded, to see a rebuild take effect.
    let mut h: u64 = 0xcbf29ce484222325;
    for v in SET.variants {
        for w in v.blob.spirv {
            h = (h ^ u64::from(*w)).wrapping_mul(0x100000001b3);
        }
    }
    println!("{} variants {:016x}", SET.variants.len(), h);
}
"#;

const SHADER: &str = "#version 450
#include \"common.glsl\"
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { sfpvec4 a_blob_data[]; };
void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    buffer_st4(a_blob_data, i, buffer_ld4(a_blob_data, i) * afp(FACTOR));
}
";

struct Crate {
    dir: PathBuf,
    target: PathBuf,
}

impl Crate {
    fn new() -> Crate {
        let root = workspace_root().canonicalize().unwrap();
        let dir = root.join("target/downstream-crate");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::create_dir_all(dir.join("shaders")).unwrap();
        let runtime = root.join("ncnn-glsl-runtime").canonicalize().unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"downstream\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
                 [dependencies]\nncnn-glsl-runtime = {{ path = {:?} }}\n\n[workspace]\n",
                runtime.display().to_string()
            ),
        )
        .unwrap();
        std::fs::write(dir.join("src/main.rs"), MAIN_RS).unwrap();
        let c = Crate {
            dir,
            target: root.join("target/downstream"),
        };
        c.write("shaders/scale.comp", SHADER);
        c.write("shaders/common.glsl", "#define FACTOR 2\n");
        c
    }

    fn write(&self, rel: &str, text: &str) {
        // Cargo compares modification times; make each edit visibly newer.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(self.dir.join(rel), text).unwrap();
    }

    fn cargo(&self, args: &[&str]) -> Output {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        Command::new(cargo)
            .args(args)
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("RUSTFLAGS")
            .output()
            .expect("run cargo")
    }

    /// Builds and runs; the program's output.
    fn run_ok(&self) -> String {
        let out = self.cargo(&["run", "--quiet"]);
        assert!(
            out.status.success(),
            "downstream build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Builds, expecting failure; the compiler's output.
    fn build_err(&self) -> String {
        let out = self.cargo(&["build", "--quiet"]);
        assert!(!out.status.success(), "the build should have failed");
        String::from_utf8(out.stderr).unwrap()
    }

    fn shader_path(&self) -> String {
        self.dir.join("shaders/scale.comp").display().to_string()
    }
}

fn assert_contains(haystack: &str, needle: &str) {
    assert!(
        haystack.contains(needle),
        "expected `{needle}` in:\n{haystack}"
    );
}

#[test]
fn a_downstream_crate_builds_rebuilds_and_reports_shader_errors() {
    let c = Crate::new();

    // It builds and runs, with the whole float variant set embedded.
    let first = c.run_ok();
    assert!(first.starts_with("10 variants "), "{first}");

    // Its normal dependencies hold no naga: only the proc-macro (a build-time
    // dependency, not linked into the binary) uses it.
    let tree = c.cargo(&["tree", "-e", "normal", "--prefix", "none"]);
    let tree = String::from_utf8(tree.stdout).unwrap();
    assert_contains(&tree, "ncnn-glsl-runtime");
    let linked = c.cargo(&["tree", "-e", "normal,no-proc-macro", "--prefix", "none"]);
    let linked = String::from_utf8(linked.stdout).unwrap();
    assert!(!linked.contains("naga"), "naga is linked:\n{linked}");

    // Editing an included file rebuilds with the new code.
    c.write("shaders/common.glsl", "#define FACTOR 3\n");
    let second = c.run_ok();
    assert_ne!(
        first, second,
        "the edit of the included file did not take effect"
    );

    // Editing the shader itself too.
    c.write(
        "shaders/scale.comp",
        &SHADER.replace("* afp(FACTOR)", "+ afp(FACTOR)"),
    );
    let third = c.run_ok();
    assert_ne!(second, third, "the edit of the shader did not take effect");

    // A syntax error: at the shader's file, line and column.
    c.write(
        "shaders/scale.comp",
        &SHADER.replace("* afp(FACTOR));", "* afp(FACTOR)) oops;"),
    );
    let e = c.build_err();
    assert_contains(
        &e,
        &format!("{}:8:74: error: Unknown variable: oops", c.shader_path()),
    );
    assert!(
        !e.contains("fail to compile, in the mode"),
        "a plain error, not a mode list:\n{e}"
    );

    // An undeclared device macro: named, with its line.
    c.write(
        "shaders/scale.comp",
        &SHADER.replace(
            "void main()",
            "#if ncnn_subgroupSize == 32\n#endif\nvoid main()",
        ),
    );
    let e = c.build_err();
    assert_contains(&e, &format!("{}:5:5", c.shader_path()));
    assert_contains(&e, "device macro `ncnn_subgroupSize`");

    // A construct naga cannot compile, in the shader's own text of some
    // modes: the modes and the reason (bf16s, which the extension's own
    // bfloat16 types keep from naga, is left out, not an error).
    c.write(
        "shaders/scale.comp",
        &SHADER.replace(
            "    const int i",
            "#if NCNN_fp16_storage\n    uint16_t h = uint16_t(0);\n#endif\n    const int i",
        ),
    );
    let e = c.build_err();
    assert_contains(&e, "fail to compile, in the mode(s): fp16s");
    assert_contains(&e, &format!("{}:8:5", c.shader_path()));
    assert_contains(&e, "no 8-, 16- or 64-bit integer types");
    assert!(
        !e.contains("bf16s"),
        "bf16s is left out, not an error:\n{e}"
    );

    // An argument that is not a string literal: the macro says so.
    c.write(
        "src/main.rs",
        &MAIN_RS.replace(
            "include_ncnn_shader!(\"shaders/scale.comp\")",
            "include_ncnn_shader!(42)",
        ),
    );
    let e = c.build_err();
    assert_contains(&e, "expected string literal");
    c.write("src/main.rs", MAIN_RS);

    // A missing file: both places looked at.
    std::fs::remove_file(c.dir.join("shaders/scale.comp")).unwrap();
    let e = c.build_err();
    assert_contains(&e, "cannot find shader `shaders/scale.comp`");

    let _ = std::fs::remove_dir_all(&c.dir);
}
