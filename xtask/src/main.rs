//! `cargo xtask`: the project's maintenance commands.
//!
//! `cargo xtask regen-variants [--check]`: for every shader in `shaders/`,
//! write the reviewed artifacts under `shaders/variants/<shader>/`: the
//! finished GLSL of each variant and `manifest.json` (each variant's key,
//! requirements, SPIR-V size and hash). With `--check`, regenerate into a
//! scratch directory and fail on any difference from what is committed.
//!
//! `cargo xtask glslang-variants [--out DIR]`: compile every committed
//! artifact (`shaders/variants/<shader>/*.glsl`) with `glslangValidator -V`
//! into `DIR/<shader>/<variant>.spv` (default `target/glslang`): the second
//! way to the same SPIR-V that the q8ta benchmark times against ours.
//!
//! `cargo xtask module-graph [--check]`: each crate's module import graph
//! and its circles (`module_graph.rs`); `--check` fails on one.
//!
//! Both `--check`s are also this crate's tests
//! (`the_committed_variant_artifacts_are_current`,
//! `no_crate_has_a_module_circle`), which is how `cargo test --workspace`,
//! and so CI, runs them.
//!
//! The artifacts are computed from the library, not through the macro (a
//! macro only re-expands when its crate recompiles, so it cannot be trusted
//! to regenerate anything).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ncnn_glsl_core::variant::build::build;
use ncnn_glsl_core::variant::manifest::artifacts;
use ncnn_glsl_core::{CompileOptions, ExpandOptions, FsLoader, SourceFile};

mod module_graph;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("regen-variants") => match &args[1..] {
            [] => regen(false),
            [flag] if flag == "--check" => regen(true),
            other => Err(format!(
                "regen-variants: unexpected arguments {other:?} (only --check)"
            )),
        },
        Some("time-variants") => time_variants(),
        Some("module-graph") => match &args[1..] {
            [] => module_graph::module_graph(&workspace_root(), false),
            [flag] if flag == "--check" => module_graph::module_graph(&workspace_root(), true),
            other => Err(format!(
                "module-graph: unexpected arguments {other:?} (only --check)"
            )),
        },
        Some("glslang-variants") => match &args[1..] {
            [] => glslang_variants(&workspace_root().join("target/glslang")),
            [flag, dir] if flag == "--out" => glslang_variants(Path::new(dir)),
            other => Err(format!(
                "glslang-variants: unexpected arguments {other:?} (only --out DIR)"
            )),
        },
        Some(other) => Err(format!(
            "unknown command `{other}` (known: regen-variants, time-variants, glslang-variants, module-graph)"
        )),
        None => Err("usage: cargo xtask regen-variants [--check]".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// See the crate docs: every artifact's GLSL through `glslangValidator`.
fn glslang_variants(out: &Path) -> Result<(), String> {
    let variants = workspace_root().join("shaders/variants");
    let mut count = 0;
    for shader in list(&variants)
        .iter()
        .filter(|f| f.extension().is_some_and(|x| x == "glsl"))
    {
        let spv = out.join(shader).with_extension("spv");
        let dir = spv.parent().expect("a file under a shader directory");
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        let status = std::process::Command::new("glslangValidator")
            .args(["-V", "--target-env", "vulkan1.1", "-S", "comp", "-o"])
            .arg(&spv)
            .arg(variants.join(shader))
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| format!("cannot run glslangValidator (install glslang-tools): {e}"))?;
        if !status.success() {
            return Err(format!(
                "glslangValidator failed on `{}`",
                variants.join(shader).display()
            ));
        }
        count += 1;
    }
    println!("compiled {count} artifacts into {}", out.display());
    Ok(())
}

fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

/// The shipped shaders, sorted.
fn shaders(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "comp"))
        .collect();
    out.sort();
    Ok(out)
}

/// Every artifact of every shipped shader: (path under `shaders/variants/`, contents).
fn all_artifacts(shader_dir: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let mut out = Vec::new();
    for path in shaders(shader_dir)? {
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = path
            .file_stem()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let source = SourceFile {
            name: format!("shaders/{file}"),
            path: Some(path.clone()),
            text,
        };
        let set = build(
            source,
            &FsLoader,
            &ExpandOptions::include([shader_dir.to_path_buf()]),
            &CompileOptions::default(),
        )
        .map_err(|d| format!("`{file}` does not build:\n{d}"))?;
        for (name, contents) in artifacts(&file, &set) {
            out.push((Path::new(&stem).join(name), contents));
        }
        eprintln!(
            "{file}: {} variants, {} blobs",
            set.variants.len(),
            set.blobs.len()
        );
    }
    Ok(out)
}

/// Times building each shipped shader's whole variant set in process (what
/// `include_ncnn_shader!` does), median of 5, against `glslangValidator -V`
/// compiling the same distinct finished texts one process each. The profile
/// this xtask was built with decides the optimization of naga and the core:
/// `cargo xtask time-variants` (the workspace's dev profile: naga and the core
/// optimized, as `build-override` does for the macro) and
/// `cargo run -p xtask --profile unopt -- time-variants` (both at opt-level 0,
/// what a proc-macro's dependencies get without an override).
fn time_variants() -> Result<(), String> {
    use std::time::Instant;
    let shader_dir = workspace_root().join("shaders");
    println!("| shader | variants | distinct texts | blobs | build set (ms, median of 5) | glslangValidator on the texts (ms) |");
    println!("|---|---|---|---|---|---|");
    for path in shaders(&shader_dir)? {
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        let source = SourceFile {
            name: format!("shaders/{file}"),
            path: Some(path.clone()),
            text,
        };
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..5 {
            let t = Instant::now();
            let set = build(
                source.clone(),
                &FsLoader,
                &ExpandOptions::include([shader_dir.clone()]),
                &CompileOptions::default(),
            )
            .map_err(|d| format!("`{file}` does not build:\n{d}"))?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
            last = Some(set);
        }
        times.sort_by(f64::total_cmp);
        let set = last.expect("five builds ran");
        let scratch = std::env::temp_dir().join(format!("ncnn-glsl-time-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
        let t = Instant::now();
        for (i, text) in set.texts.iter().enumerate() {
            let f = scratch.join(format!("{i}.comp"));
            std::fs::write(&f, text).map_err(|e| e.to_string())?;
            let out = std::process::Command::new("glslangValidator")
                .args(["-V", "--target-env", "vulkan1.1", "-o"])
                .arg(scratch.join(format!("{i}.spv")))
                .arg(&f)
                .output()
                .map_err(|e| format!("cannot run glslangValidator: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "glslangValidator rejects a finished text of `{file}`:\n{}",
                    String::from_utf8_lossy(&out.stdout)
                ));
            }
        }
        let glslang_ms = t.elapsed().as_secs_f64() * 1e3;
        let _ = std::fs::remove_dir_all(&scratch);
        println!(
            "| {file} | {} | {} | {} | {:.0} | {:.0} |",
            set.variants.len(),
            set.texts.len(),
            set.blobs.len(),
            times[2],
            glslang_ms
        );
    }
    Ok(())
}

fn write_all(root: &Path, files: &[(PathBuf, String)]) -> Result<(), String> {
    if root.exists() {
        std::fs::remove_dir_all(root)
            .map_err(|e| format!("cannot clear `{}`: {e}", root.display()))?;
    }
    for (rel, contents) in files {
        let p = root.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)
                .map_err(|e| format!("cannot create `{}`: {e}", d.display()))?;
        }
        std::fs::write(&p, contents).map_err(|e| format!("cannot write `{}`: {e}", p.display()))?;
    }
    Ok(())
}

/// Every file under `root`, relative to it.
fn list(root: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if let Ok(rel) = p.strip_prefix(root) {
                out.insert(rel.to_path_buf());
            }
        }
    }
    out
}

fn regen(check: bool) -> Result<(), String> {
    regen_in(&workspace_root().join("shaders"), check)
}

/// Regenerates (or checks) the artifacts of the shaders in `shader_dir`.
fn regen_in(shader_dir: &Path, check: bool) -> Result<(), String> {
    let shader_dir = shader_dir.to_path_buf();
    let committed = shader_dir.join("variants");
    let files = all_artifacts(&shader_dir)?;
    if !check {
        write_all(&committed, &files)?;
        eprintln!("wrote {} files under {}", files.len(), committed.display());
        return Ok(());
    }
    // One scratch directory per call: the tests run several checks at once.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let scratch =
        std::env::temp_dir().join(format!("ncnn-glsl-regen-{}-{call}", std::process::id()));
    write_all(&scratch, &files)?;
    let (want, have) = (list(&scratch), list(&committed));
    let mut problems = Vec::new();
    for p in want.difference(&have) {
        problems.push(format!("missing: shaders/variants/{}", p.display()));
    }
    for p in have.difference(&want) {
        problems.push(format!("stale: shaders/variants/{}", p.display()));
    }
    for p in want.intersection(&have) {
        if std::fs::read(scratch.join(p)).ok() != std::fs::read(committed.join(p)).ok() {
            problems.push(format!("differs: shaders/variants/{}", p.display()));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if problems.is_empty() {
        eprintln!("shaders/variants is up to date ({} files)", want.len());
        Ok(())
    } else {
        Err(format!(
            "shaders/variants is out of date; run `cargo xtask regen-variants` and review the diff:\n  {}",
            problems.join("\n  ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHADER: &str = "#version 450
#pragma ncnn_glsl axis SCALE 1 2
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { sfpvec4 a_blob_data[]; };
void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    buffer_st4(a_blob_data, i, buffer_ld4(a_blob_data, i) * afp(SCALE));
}
";

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("xtask-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn check_passes_after_regen_and_fails_after_an_edit() {
        let dir = scratch("edit");
        std::fs::write(dir.join("scale.comp"), SHADER).unwrap();
        assert!(regen_in(&dir, true)
            .unwrap_err()
            .contains("missing: shaders/variants/scale/manifest.json"));
        regen_in(&dir, false).unwrap();
        let files = list(&dir.join("variants"));
        assert!(
            files.contains(Path::new("scale/manifest.json")),
            "{files:?}"
        );
        assert!(
            files.contains(Path::new("scale/fp16s+fp16a.SCALE-2.glsl")),
            "{files:?}"
        );
        regen_in(&dir, true).unwrap();

        std::fs::write(
            dir.join("scale.comp"),
            SHADER.replace("* afp(SCALE)", "+ afp(SCALE)"),
        )
        .unwrap();
        let e = regen_in(&dir, true).unwrap_err();
        assert!(
            e.contains("differs: shaders/variants/scale/fp32.SCALE-1.glsl"),
            "{e}"
        );
        assert!(
            e.contains("differs: shaders/variants/scale/manifest.json"),
            "{e}"
        );

        std::fs::write(
            dir.join("scale.comp"),
            SHADER.replace("axis SCALE 1 2", "axis SCALE 1 3"),
        )
        .unwrap();
        let e = regen_in(&dir, true).unwrap_err();
        assert!(
            e.contains("stale: shaders/variants/scale/fp32.SCALE-2.glsl"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `cargo xtask regen-variants --check` as a test: `cargo test --workspace`
    /// (CI's `.ci/run`) runs it, with the naga and core that build compiles
    /// anyway (a separate `cargo xtask` would compile them again, for
    /// `-p xtask`'s features). The one build of each shipped set through the
    /// core in a run: the other tests read the macro's embedded sets.
    #[test]
    fn the_committed_variant_artifacts_are_current() {
        if let Err(e) = regen(true) {
            panic!("{e}");
        }
    }

    /// `cargo xtask module-graph --check` as a test, for the same reason.
    #[test]
    fn no_crate_has_a_module_circle() {
        if let Err(e) = module_graph::module_graph(&workspace_root(), true) {
            panic!("{e}");
        }
    }

    #[test]
    fn a_shader_that_does_not_build_fails_with_its_diagnostics() {
        let dir = scratch("bad");
        std::fs::write(
            dir.join("bad.comp"),
            SHADER.replace("afp(SCALE)", "afp(NOPE)"),
        )
        .unwrap();
        let e = regen_in(&dir, false).unwrap_err();
        assert!(
            e.contains("`bad.comp` does not build") && e.contains("shaders/bad.comp:8:"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
