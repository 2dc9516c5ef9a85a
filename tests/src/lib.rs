//! Helpers shared by the integration tests under `tests/tests/`: running the
//! external reference tools (`spirv-val`, `glslangValidator`) and loading the
//! test shaders.
//!
//! A missing tool fails the test when `CI` is set (CI installs them), and
//! skips it with a message otherwise, so a developer without them still gets
//! the rest of the suite.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use ncnn_glsl_core::{expand, Expanded, MemoryLoader, SourceFile, Target};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The text of `tests/shaders/NAME`.
pub fn test_shader(name: &str) -> SourceFile {
    let path = workspace_root().join("tests/shaders").join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    SourceFile {
        name: format!("tests/shaders/{name}"),
        path: Some(path),
        text,
    }
}

/// A shader held in a string, named `name` in diagnostics.
pub fn inline_shader(name: &str, text: &str) -> SourceFile {
    SourceFile {
        name: name.to_string(),
        path: None,
        text: text.to_string(),
    }
}

/// Expands `source` for `target` with no device and no include files.
pub fn expand_for(source: SourceFile, target: Target) -> Result<Expanded, String> {
    expand(source, &target, None, &MemoryLoader::default(), &[]).map_err(|d| d.to_string())
}

/// Whether an external tool can be run; panics when it is missing in CI.
pub fn tool_available(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "`{tool}` is required in CI but is not installed"
        );
        eprintln!("note: `{tool}` is not installed; skipping the checks that need it");
    }
    found
}

fn scratch_file(ext: &str, bytes: &[u8]) -> tempfile_lite::TempPath {
    tempfile_lite::write(ext, bytes)
}

/// Runs `spirv-val --target-env vulkan1.1` on `words`; `Err` holds its output.
pub fn spirv_val(words: &[u32]) -> Result<(), String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let file = scratch_file("spv", &bytes);
    run_tool(
        Command::new("spirv-val")
            .args(["--target-env", "vulkan1.1"])
            .arg(file.path()),
    )
}

/// The `spirv-val --target-env` a blob needs, from the SPIR-V version in its
/// header: the oldest Vulkan environment that accepts that version (1.0 to 1.3:
/// `vulkan1.1`, the runtime's minimum; 1.4: `vulkan1.1spv1.4`; 1.5: `vulkan1.2`;
/// 1.6: `vulkan1.3`). Extensions and capabilities need no flag: spirv-val
/// accepts an `OpExtension`/`OpCapability` pair that the environment allows.
pub fn spirv_target_env(words: &[u32]) -> Result<&'static str, String> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(format!(
            "not a SPIR-V module (header {:08x?})",
            &words[..words.len().min(5)]
        ));
    }
    match (words[1] >> 16) & 0xff {
        1 => match (words[1] >> 8) & 0xff {
            0..=3 => Ok("vulkan1.1"),
            4 => Ok("vulkan1.1spv1.4"),
            5 => Ok("vulkan1.2"),
            6 => Ok("vulkan1.3"),
            minor => Err(format!(
                "SPIR-V 1.{minor} is newer than any Vulkan env known here"
            )),
        },
        major => Err(format!("SPIR-V major version {major}")),
    }
}

/// Runs `spirv-val` on `words` with the environment [`spirv_target_env`]
/// picks for it; `Ok` holds the environment, `Err` the tool's output.
pub fn spirv_val_auto(words: &[u32]) -> Result<&'static str, String> {
    let env = spirv_target_env(words)?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let file = scratch_file("spv", &bytes);
    run_tool(
        Command::new("spirv-val")
            .args(["--target-env", env])
            .arg(file.path()),
    )
    .map(|()| env)
    .map_err(|e| format!("spirv-val --target-env {env}: {e}"))
}

/// Runs a tool; `Err` holds its output when it fails.
fn run_tool(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Compiles finished GLSL `text` with `glslangValidator -V` for Vulkan 1.1;
/// `Err` holds its output.
pub fn glslang(text: &str) -> Result<(), String> {
    let file = scratch_file("comp", text.as_bytes());
    let spv = file.path().with_extension("spv");
    let result = run_tool(
        Command::new("glslangValidator")
            .args(["-V", "--target-env", "vulkan1.1", "-o"])
            .arg(&spv)
            .arg(file.path()),
    );
    let _ = std::fs::remove_file(&spv);
    result
}

/// Unique scratch files removed on drop (no dependency needed for this).
mod tempfile_lite {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A scratch file, removed on drop.
    pub struct TempPath(PathBuf);

    impl TempPath {
        pub fn path(&self) -> &std::path::Path {
            &self.0
        }
    }

    impl Drop for TempPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    pub fn write(ext: &str, bytes: &[u8]) -> TempPath {
        static N: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "ncnn-glsl-test-{}-{}.{ext}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let mut f = std::fs::File::create(&path).expect("create scratch file");
        f.write_all(bytes).expect("write scratch file");
        TempPath(path)
    }
}
