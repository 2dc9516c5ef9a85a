//! Source files, positions in them, and how `#include` finds files.

use std::path::{Path, PathBuf};

/// One loaded source text: a user's file, an included file, or a virtual
/// text of our own (the extension prelude).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The name diagnostics print: the path as the user gave it, or `<...>` for virtual texts.
    pub name: String,
    /// Where it was read from, if from disk (includes resolve relative to it).
    pub path: Option<PathBuf>,
    /// The whole text.
    pub text: String,
}

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A position in a source file: 1-based line, 1-based column counted in chars.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// The file, in the expansion's [`SourceMap`].
    pub file: FileId,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1, in chars (as an editor counts them, not bytes).
    pub column: u32,
}

/// Every file that took part in one expansion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    /// The file `id`.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Every file, in the order they were added.
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// The text of line `line` (1-based) of `file`, without its line break.
    pub fn line_text(&self, file: FileId, line: u32) -> &str {
        self.get(file)
            .text
            .split('\n')
            .nth(line.saturating_sub(1) as usize)
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .unwrap_or("")
    }
}

/// Finds and reads the file an `#include` names.
///
/// The default, [`FsLoader`], reads from disk; tests use an in-memory one.
pub trait Loader {
    /// Resolves `name` (as written between the quotes or angle brackets),
    /// first relative to the directory of `includer` (for `"..."` includes),
    /// then in each of `search_paths`, and reads it. The error is a sentence
    /// naming what was tried.
    fn load(
        &self,
        name: &str,
        includer: Option<&Path>,
        search_paths: &[PathBuf],
    ) -> Result<SourceFile, String>;
}

/// Reads included files from the file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsLoader;

impl Loader for FsLoader {
    fn load(
        &self,
        name: &str,
        includer: Option<&Path>,
        search_paths: &[PathBuf],
    ) -> Result<SourceFile, String> {
        let mut tried = Vec::new();
        let local = includer.and_then(Path::parent).map(|d| d.join(name));
        for candidate in local
            .into_iter()
            .chain(search_paths.iter().map(|d| d.join(name)))
        {
            if candidate.is_file() {
                return std::fs::read_to_string(&candidate)
                    .map(|text| SourceFile {
                        name: candidate.display().to_string(),
                        path: Some(candidate.clone()),
                        text,
                    })
                    .map_err(|e| format!("cannot read `{}`: {e}", candidate.display()));
            }
            tried.push(candidate.display().to_string());
        }
        if tried.is_empty() {
            Err(format!("cannot find `{name}`: no include directory is set"))
        } else {
            Err(format!("cannot find `{name}` (tried {})", tried.join(", ")))
        }
    }
}

/// An in-memory loader: file names map to texts. For tests and for shaders
/// held as strings.
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader {
    /// `(path, text)` pairs; paths are compared after joining like the file system would.
    pub files: Vec<(PathBuf, String)>,
}

impl Loader for MemoryLoader {
    fn load(
        &self,
        name: &str,
        includer: Option<&Path>,
        search_paths: &[PathBuf],
    ) -> Result<SourceFile, String> {
        let local = includer
            .and_then(Path::parent)
            .map(|d| d.join(name))
            .or_else(|| Some(PathBuf::from(name)));
        for candidate in local
            .into_iter()
            .chain(search_paths.iter().map(|d| d.join(name)))
        {
            if let Some((p, t)) = self.files.iter().find(|(p, _)| *p == candidate) {
                return Ok(SourceFile {
                    name: p.display().to_string(),
                    path: Some(p.clone()),
                    text: t.clone(),
                });
            }
        }
        Err(format!("cannot find `{name}`"))
    }
}
