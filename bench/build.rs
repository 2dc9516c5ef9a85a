//! Records the git revision the programs are built from (`stamp::REVISION`):
//! every result file names it. A working tree with uncommitted changes to
//! tracked files is marked `-dirty`; outside a checkout it is `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let revision = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(rev) => match git(&["status", "--porcelain", "--untracked-files=no"]) {
            Some(changes) if !changes.is_empty() => format!("{rev}-dirty"),
            _ => rev,
        },
        None => "unknown".to_string(),
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
