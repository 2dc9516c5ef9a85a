//! The reference tools the tests compare against: `spirv-val` (is our
//! SPIR-V valid?) and `glslangValidator` (does the reference compiler accept
//! the finished text, and what does it build?).
//!
//! A missing tool fails the test when `CI` is set (CI installs them) and
//! skips the checks that need it otherwise, with a note, so a developer
//! without them still gets the rest of the suite.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// Whether `tool` can be run; panics when it is missing under `CI`.
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

/// Runs `spirv-val --target-env vulkan1.1` on `words`; `Err` holds its output.
pub fn spirv_val(words: &[u32]) -> Result<(), String> {
    let file = ScratchFile::new("spv", &words_to_bytes(words));
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
    let file = ScratchFile::new("spv", &words_to_bytes(words));
    run_tool(
        Command::new("spirv-val")
            .args(["--target-env", env])
            .arg(file.path()),
    )
    .map(|_| env)
    .map_err(|e| format!("spirv-val --target-env {env}: {e}"))
}

/// Compiles finished GLSL `text` with `glslangValidator -V` for Vulkan 1.1;
/// `Err` holds its output.
pub fn glslang(text: &str) -> Result<(), String> {
    glslang_spirv(text).map(|_| ())
}

/// `glslangValidator -V` of finished GLSL `text` for Vulkan 1.1: its SPIR-V,
/// or its messages.
pub fn glslang_spirv(text: &str) -> Result<Vec<u32>, String> {
    let src = ScratchFile::new("comp", text.as_bytes());
    let out = ScratchFile::named("spv");
    run_tool(
        Command::new("glslangValidator")
            .args(["-V", "--target-env", "vulkan1.1", "-o"])
            .arg(out.path())
            .arg(src.path()),
    )?;
    let bytes = std::fs::read(out.path()).map_err(|e| format!("glslang wrote no SPIR-V: {e}"))?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
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

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A scratch file of a unique name in the temporary folder, removed on drop.
struct ScratchFile(PathBuf);

impl ScratchFile {
    /// A name, no file yet (for a tool's output).
    fn named(ext: &str) -> ScratchFile {
        static N: AtomicU64 = AtomicU64::new(0);
        ScratchFile(std::env::temp_dir().join(format!(
            "ncnn-glsl-test-{}-{}.{ext}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        )))
    }

    /// A file holding `bytes`.
    fn new(ext: &str, bytes: &[u8]) -> ScratchFile {
        let file = ScratchFile::named(ext);
        let mut f = std::fs::File::create(&file.0).expect("create a scratch file");
        f.write_all(bytes).expect("write a scratch file");
        file
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
