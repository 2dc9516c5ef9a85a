//! The test shaders (`tests/shaders/` at the workspace root) and shaders held
//! in strings, as the core's expansion takes them.

use std::path::PathBuf;

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
    expand(
        source,
        &target,
        None,
        &MemoryLoader::default(),
        &Default::default(),
    )
    .map_err(|d| d.to_string())
}
