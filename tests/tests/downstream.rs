//! The crates as a registry serves them, used by a real downstream crate.
//!
//! `cargo package` packs `ncnn-glsl-core`, `ncnn-glsl-macros`,
//! `ncnn-glsl-runtime` and `ncnn-glsl-q8ta` (and `ncnn-glsl-cli`, only packed
//! and looked at) from
//! the working tree (`--no-verify`: the downstream build below is the
//! verification, and more of one). The `.crate` files are extracted under
//! `target/`; each holds the license files and a README, the macros crate the
//! shipped shader library. A crate outside the workspace (`tests/downstream/`,
//! with a `Cargo.toml` written here) depends on `ncnn-glsl-runtime = "0.1.0"`
//! and `ncnn-glsl-q8ta = "0.1.0"` from crates.io, patched to the extracted
//! packages: no path into the
//! checkout. It is built `--offline` with the workspace's `Cargo.lock` (the
//! dependencies CI has already fetched, at the versions the workspace tests).
//! Then:
//!
//! - it builds without warnings and runs: its own shader's set, and the
//!   shipped `q8ta_pixel_shuffle.comp` included by name from the packaged
//!   library, identical to the packaged `ncnn-glsl-q8ta`'s;
//! - the q8ta pixel shuffle runs through the packaged operator on the local
//!   Vulkan device with the validation layer, every byte checked against the
//!   CPU reference (a failure under `CI` if there is no device): every layout
//!   in and out with each quantization, six pairs (`PAIRS` in its
//!   `main.rs`; `ncnn-glsl-q8ta`'s GPU tests run all nine from the
//!   workspace);
//! - every crate of ours resolves to its extracted package, and the normal
//!   dependency tree holds no naga;
//! - editing the shader or a file it includes rebuilds it with the new code;
//!   each kind of shader error fails its build at the shader's file and line;
//!   a missing shader names both places looked at, the second inside the
//!   packaged macros crate.
//!
//! One crate is built several times in one test (one target directory),
//! since each build of a fresh crate would compile naga again.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use ncnn_glsl_testkit::shaders::workspace_root;

/// The downstream crate's sources (its `Cargo.toml` is written by [`Crate::new`]).
const MAIN_RS: &str = include_str!("../downstream/src/main.rs");
const SHADER: &str = include_str!("../downstream/shaders/scale.comp");
const COMMON: &str = include_str!("../downstream/shaders/common.glsl");
const TYPED: &str = include_str!("../downstream/shaders/typed.comp");

/// What a user's `Cargo.toml` names, and what it brings.
const PUBLISHED: [&str; 4] = [
    "ncnn-glsl-core",
    "ncnn-glsl-macros",
    "ncnn-glsl-runtime",
    "ncnn-glsl-q8ta",
];
/// Published too, but not a library: packed (its manifest must stay
/// publishable), not built here.
const PACKED_ONLY: &str = "ncnn-glsl-cli";
/// The workspace's version, which the packages carry.
const VERSION: &str = env!("CARGO_PKG_VERSION");

fn cargo_command(dir: &Path) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut c = Command::new(cargo);
    c.current_dir(dir).env_remove("RUSTFLAGS");
    c
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Packs the published crates and extracts them into `work/src/NAME-VERSION`;
/// the directory of the extracted packages (the CLI's is only looked at).
///
/// The `.crate` files hold one fixed modification time for every file, so
/// plain extraction over the last run's packages would leave cargo's
/// fingerprints (which compare times) blind to a change. The new files are
/// extracted with the current time (`tar -m`) beside the old ones and copied
/// over them only where their content differs: a changed file rebuilds, an
/// unchanged package does not.
fn package(root: &Path, work: &Path) -> PathBuf {
    let mut c = cargo_command(root);
    c.args(["package", "--no-verify", "--offline", "--allow-dirty"])
        .arg("--target-dir")
        .arg(work.join("target"));
    for p in PUBLISHED.iter().chain([&PACKED_ONLY]) {
        c.args(["-p", p]);
    }
    let out = c.output().expect("run cargo package");
    assert!(
        out.status.success(),
        "cargo package failed:\n{}",
        stderr(&out)
    );
    let fresh = work.join("fresh");
    let _ = std::fs::remove_dir_all(&fresh);
    std::fs::create_dir_all(&fresh).unwrap();
    let src = work.join("src");
    for p in PUBLISHED.iter().chain([&PACKED_ONLY]) {
        let name = format!("{p}-{VERSION}");
        let file = work.join(format!("target/package/{name}.crate"));
        let out = Command::new("tar")
            .arg("-xzmf")
            .arg(&file)
            .arg("-C")
            .arg(&fresh)
            .output()
            .expect("run tar");
        assert!(
            out.status.success(),
            "tar cannot extract {}:\n{}",
            file.display(),
            stderr(&out)
        );
        sync(&fresh.join(&name), &src.join(&name));
    }
    let _ = std::fs::remove_dir_all(&fresh);
    src
}

/// What every published package must carry, beside its sources: the license
/// files (the root's, as real files), a README, and for the macros crate the
/// shipped shader library without the review artifacts.
fn check_contents(root: &Path, packages: &Path) {
    for p in PUBLISHED.iter().chain([&PACKED_ONLY]) {
        let dir = packages.join(format!("{p}-{VERSION}"));
        for file in ["LICENSE-MIT", "LICENSE-APACHE"] {
            let got = std::fs::read(dir.join(file))
                .unwrap_or_else(|e| panic!("the {p} package has no {file}: {e}"));
            let want = std::fs::read(root.join(file)).unwrap();
            assert!(got == want, "the {p} package's {file} is not the root's");
        }
        assert!(
            dir.join("README.md").is_file(),
            "the {p} package has no README.md"
        );
    }
    let library = packages.join(format!("ncnn-glsl-macros-{VERSION}/shaders"));
    let mut packed: Vec<PathBuf> = files(&library);
    packed.sort();
    let mut shipped: Vec<PathBuf> = std::fs::read_dir(root.join("shaders"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| PathBuf::from(p.file_name().unwrap()))
        .collect();
    shipped.sort();
    assert!(
        !shipped.is_empty() && packed == shipped,
        "the macros package's shaders/ holds {packed:?}, not the shipped {shipped:?}"
    );
    for f in &shipped {
        assert!(
            std::fs::read(library.join(f)).unwrap()
                == std::fs::read(root.join("shaders").join(f)).unwrap(),
            "the macros package's shaders/{} is not the shipped one",
            f.display()
        );
    }
}

/// Makes `to` hold what `from` holds, writing only the files that differ.
fn sync(from: &Path, to: &Path) {
    let (new, old) = (files(from), files(to));
    for rel in &old {
        if !new.contains(rel) {
            std::fs::remove_file(to.join(rel)).unwrap();
        }
    }
    for rel in &new {
        let (a, b) = (from.join(rel), to.join(rel));
        let text = std::fs::read(&a).unwrap();
        if std::fs::read(&b).ok().as_ref() != Some(&text) {
            std::fs::create_dir_all(b.parent().unwrap()).unwrap();
            std::fs::write(&b, text).unwrap();
        }
    }
}

/// Every file under `dir`, relative to it (none if it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out
}

/// `(name, version)` of every `[[package]]` of a `Cargo.lock`.
fn locked(lock: &str) -> Vec<(String, String)> {
    let value = |l: &str, key: &str| {
        l.strip_prefix(key).map(|v| {
            v.trim_matches(|c| c == ' ' || c == '=' || c == '"')
                .to_string()
        })
    };
    let mut out = Vec::new();
    let mut name = None;
    for l in lock.lines() {
        if let Some(n) = value(l, "name") {
            name = Some(n);
        } else if let (Some(v), Some(n)) = (value(l, "version"), name.take()) {
            out.push((n, v));
        }
    }
    out
}

struct Crate {
    dir: PathBuf,
    target: PathBuf,
}

impl Crate {
    fn new(root: &Path, packages: &Path) -> Crate {
        let dir = root.join("target/downstream-crate");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::create_dir_all(dir.join("shaders")).unwrap();
        let patches: String = PUBLISHED
            .iter()
            .map(|p| {
                let path = packages.join(format!("{p}-{VERSION}"));
                format!("{p} = {{ path = {:?} }}\n", path.display().to_string())
            })
            .collect();
        // naga is not optimized here, as the README advises users: the macro
        // runs on a few small sets, where compiling naga optimized costs more
        // than it saves.
        std::fs::write(
            dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"downstream\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                 publish = false\n\n\
                 [dependencies]\nncnn-glsl-runtime = \"{VERSION}\"\n\
                 ncnn-glsl-q8ta = \"{VERSION}\"\n\n\
                 # The packages as crates.io would serve them.\n\
                 [patch.crates-io]\n{patches}\n\
                 [workspace]\n"
            ),
        )
        .unwrap();
        // The workspace's versions of every dependency, resolvable offline.
        std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        let c = Crate {
            dir,
            target: root.join("target/downstream"),
        };
        c.write("src/main.rs", MAIN_RS);
        c.write("shaders/scale.comp", SHADER);
        c.write("shaders/common.glsl", COMMON);
        c.write("shaders/typed.comp", TYPED);
        c
    }

    fn write(&self, rel: &str, text: &str) {
        // Cargo compares modification times; make each edit visibly newer.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(self.dir.join(rel), text).unwrap();
    }

    fn cargo(&self, args: &[&str]) -> Output {
        cargo_command(&self.dir)
            .args(args)
            .arg("--offline")
            .env("CARGO_TARGET_DIR", &self.target)
            .output()
            .expect("run cargo")
    }

    /// Builds and runs the program without arguments; its output.
    fn run_ok(&self) -> String {
        let out = self.cargo(&["run", "--quiet"]);
        assert!(
            out.status.success(),
            "downstream build or run failed:\n{}{}",
            stderr(&out),
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Builds, expecting failure; the compiler's output.
    fn build_err(&self) -> String {
        let out = self.cargo(&["build", "--quiet"]);
        assert!(!out.status.success(), "the build should have failed");
        String::from_utf8(out.stderr).unwrap()
    }

    /// `cargo tree --prefix none` with these edge kinds.
    fn tree(&self, edges: &str) -> String {
        let out = self.cargo(&["tree", "-e", edges, "--prefix", "none"]);
        assert!(out.status.success(), "cargo tree failed:\n{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
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

/// A check that cannot run here: a failure under `CI`, else a note.
fn unavailable(reason: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("CI must run the downstream crate on Vulkan, but {reason}");
    }
    eprintln!("note: skipped the Vulkan run: {reason}");
}

/// Prints how long the step since `*t` took, for the test's log.
fn step(t: &mut Instant, what: &str) {
    eprintln!("{what}: {:.1} s", t.elapsed().as_secs_f64());
    *t = Instant::now();
}

#[test]
fn a_downstream_crate_builds_rebuilds_and_reports_shader_errors() {
    let root = workspace_root().canonicalize().unwrap();
    let mut t = Instant::now();
    let packages = package(&root, &root.join("target/downstream-packages"));
    check_contents(&root, &packages);
    step(&mut t, "cargo package and extraction");
    let c = Crate::new(&root, &packages);

    // It builds without a warning (an unused patch, a lint in a package)
    // and runs: the whole float variant set of its shader embedded, and the
    // shipped shader found by name in the packaged library.
    let out = c.cargo(&["build"]);
    let log = stderr(&out);
    assert!(out.status.success(), "downstream build failed:\n{log}");
    assert!(!log.contains("warning"), "the build warns:\n{log}");
    step(&mut t, "first build");
    let first = c.run_ok();
    assert!(first.starts_with("10 variants "), "{first}");
    assert_contains(&first, "library q8ta_pixel_shuffle.comp: ");
    assert_contains(&first, "as ncnn-glsl-q8ta's");

    // The versions are the workspace's: each locked package is one the
    // workspace's lock holds.
    let ours = locked(&std::fs::read_to_string(root.join("Cargo.lock")).unwrap());
    let theirs = locked(&std::fs::read_to_string(c.dir.join("Cargo.lock")).unwrap());
    assert!(theirs.len() > 20, "too few locked packages: {theirs:?}");
    for p in &theirs {
        assert!(
            p.0 == "downstream" || ours.contains(p),
            "{} {} is not in the workspace's Cargo.lock",
            p.0,
            p.1
        );
    }

    // The q8ta pixel shuffle on this machine's Vulkan device, through the
    // packaged runtime, under the validation layer.
    let out = c.cargo(&["run", "--quiet", "--", "q8ta"]);
    let text = String::from_utf8_lossy(&out.stdout);
    match out.status.code() {
        Some(0) => {
            assert_contains(&text, "all OK");
            assert_contains(&text, "elements OK");
            eprint!("{text}");
        }
        Some(77) => unavailable(text.trim().trim_start_matches("unavailable: ")),
        _ => panic!(
            "the q8ta run failed ({}):\n{text}{}",
            out.status,
            stderr(&out)
        ),
    }
    step(&mut t, "q8ta on Vulkan");

    // Every crate of ours is its extracted package, none the checkout's.
    let tree = c.tree("normal");
    for p in PUBLISHED {
        let (name, path) = (
            format!("{p} v{VERSION} "),
            format!("({})", packages.join(format!("{p}-{VERSION}")).display()),
        );
        assert!(
            tree.lines()
                .any(|l| l.starts_with(&name) && l.ends_with(&path)),
            "expected `{name}... {path}` in:\n{tree}"
        );
    }
    for p in PUBLISHED {
        let checkout = root.join(p).display().to_string();
        assert!(
            !tree.contains(&format!("({checkout})")),
            "{p} resolves into the checkout:\n{tree}"
        );
    }
    // Its normal dependencies hold no naga: only the proc-macro (a build-time
    // dependency, not linked into the binary) uses it.
    let linked = c.tree("normal,no-proc-macro");
    assert_contains(&linked, "ncnn-glsl-runtime");
    assert!(!linked.contains("naga"), "naga is linked:\n{linked}");

    // Editing an included file rebuilds with the new code.
    c.write("shaders/common.glsl", &COMMON.replace("2", "3"));
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
    step(&mut t, "rebuilds");

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

    // A device macro used as a value and not declared: named, with its
    // place (one only tested in `#if` is a device axis of its own).
    c.write(
        "shaders/scale.comp",
        &SHADER.replace(
            "void main()",
            "const int sg = ncnn_subgroupSize;\nvoid main()",
        ),
    );
    let e = c.build_err();
    assert_contains(&e, &format!("{}:5:16", c.shader_path()));
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
    let call = "include_ncnn_shader!(\"shaders/scale.comp\")";
    assert_contains(MAIN_RS, call);
    c.write(
        "src/main.rs",
        &MAIN_RS.replace(call, "include_ncnn_shader!(42)"),
    );
    let e = c.build_err();
    assert_contains(&e, "expected a shader file name");
    c.write("src/main.rs", MAIN_RS);

    // The typed host side: a push-constant member the block does not have,
    // or of another type, fails the user's build at that field.
    for (field, bad, error) in [
        (
            "scale: -0.75,",
            "scael: -0.75,",
            "struct `PushConstants` has no field named `scael`",
        ),
        ("scale: -0.75,", "scale: 3,", "mismatched types"),
        ("n: Some(n) }", "n: Some(true) }", "mismatched types"),
    ] {
        assert_contains(MAIN_RS, field);
        c.write("src/main.rs", &MAIN_RS.replace(field, bad));
        let e = c.build_err();
        assert_contains(&e, error);
        assert_contains(&e, bad.trim_end_matches([',', ' ', '}']));
    }
    c.write("src/main.rs", MAIN_RS);
    step(&mut t, "typed host errors");

    // A missing file: both places looked at, the library's inside the
    // packaged macros crate.
    std::fs::remove_file(c.dir.join("shaders/scale.comp")).unwrap();
    let e = c.build_err();
    assert_contains(&e, "cannot find shader `shaders/scale.comp`");
    let library = packages.join(format!(
        "ncnn-glsl-macros-{VERSION}/shaders/shaders/scale.comp"
    ));
    assert_contains(&e, &format!("`{}`", library.display()));
    step(&mut t, "shader errors");

    let _ = std::fs::remove_dir_all(&c.dir);
}
