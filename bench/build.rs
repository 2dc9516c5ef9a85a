//! Records the git revision the programs are built from (`stamp::REVISION`):
//! every result file names it. Uncommitted changes to what they are built
//! from ([`SOURCES`]) mark it `-dirty`; outside a checkout it is `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// What the programs are built from, relative to the workspace root.
const SOURCES: [&str; 9] = [
    "bench",
    "ncnn-glsl-q8ta",
    "ncnn-glsl-runtime",
    "ncnn-glsl-core",
    "ncnn-glsl-macros",
    "shaders",
    "testkit",
    "Cargo.toml",
    "Cargo.lock",
];

fn main() {
    let mut status: Vec<String> = ["status", "--porcelain", "--untracked-files=no", "--"]
        .map(String::from)
        .to_vec();
    status.extend(SOURCES.map(|p| format!("../{p}")));
    let status: Vec<&str> = status.iter().map(String::as_str).collect();
    let revision = match (git(&["rev-parse", "--short=12", "HEAD"]), git(&status)) {
        (Some(rev), Some(changes)) if !changes.is_empty() => format!("{rev}-dirty"),
        (Some(rev), _) => rev,
        (None, _) => "unknown".to_string(),
    };
    println!("cargo:rustc-env=NCNN_BENCH_REVISION={revision}");
    // A new commit or a change to the index: stamp again.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
        println!("cargo:rerun-if-changed={dir}/refs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
