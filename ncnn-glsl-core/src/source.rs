//! Source files, positions in them, how `#include` finds files, and how
//! every file from outside is read (regular files only, with a size cap).

use std::io::Read;
use std::path::{Path, PathBuf};

/// The most bytes read from one shader, included file or device
/// description: far past any real shader (ncnn's largest are under 100 KB),
/// and a bound on what a hostile path can make a build read.
pub const MAX_FILE_BYTES: u64 = 8 << 20;

/// `O_NONBLOCK` of the platform's `open(2)`, where known.
#[cfg(any(target_os = "linux", target_os = "android"))]
const O_NONBLOCK: Option<i32> = Some(0o4000);
#[cfg(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
))]
const O_NONBLOCK: Option<i32> = Some(0x4);
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
)))]
const O_NONBLOCK: Option<i32> = None;

/// The bytes of the regular file `path`, at most `max`. A FIFO, a device
/// (`/dev/zero`), a directory or a larger file is an error that says so,
/// before or instead of reading it: no read hangs or fills memory.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    if !meta.is_file() {
        return Err(format!("`{shown}` is not a regular file"));
    }
    // Opened without blocking (a FIFO put in the file's place after the
    // check would block an open forever), then checked again on the handle.
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    if let Some(flag) = O_NONBLOCK {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(flag);
    }
    let f = options
        .open(path)
        .map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return Err(format!("`{shown}` is not a regular file"));
    }
    let mut bytes = Vec::new();
    // `take` bounds files whose metadata says 0 (`/proc`) or that grow.
    f.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(format!("`{shown}` is larger than {max} bytes"));
    }
    Ok(bytes)
}

/// Whether `path` is a regular file itself, not a link to one elsewhere:
/// a cache that reads only such files reads nothing a planted link points at.
pub fn is_regular_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Replaces the file `path` by one holding `bytes`, whole or not at all: the
/// bytes go to a temporary file created exclusively beside it
/// (`O_CREAT | O_EXCL`, which follows no link; a name unique to the process
/// and the call), which is then renamed over `path`. A link planted at
/// `path` is replaced, never written through; a reader never sees half a
/// file. A directory at `path` makes it an error.
pub fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The text of the regular file `path` ([`read_bounded`] to
/// [`MAX_FILE_BYTES`]): UTF-8 without NUL bytes. A binary file is an error
/// that names the first bad byte's offset and shows none of the file, so
/// that naming one (`/proc/self/environ`) cannot print it into a log.
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes = read_bounded(path, MAX_FILE_BYTES)?;
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        return Err(format!(
            "`{}` is not a text file (a NUL byte at offset {at})",
            path.display()
        ));
    }
    String::from_utf8(bytes)
        .map(normalize_line_ends)
        .map_err(|e| {
            format!(
                "`{}` is not UTF-8 text (a bad byte at offset {})",
                path.display(),
                e.utf8_error().valid_up_to()
            )
        })
}

/// `text` with a lone carriage return (old Mac line ends) written as a line
/// feed, so that every line count sees the lines an editor shows; `\r\n`
/// stays (the lexer and [`SourceMap::line_text`] read it as one line end).
pub fn normalize_line_ends(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if c == '\r' && b.get(i + 1) != Some(&b'\n') {
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

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

    /// [`Loader::load`], where a loader that confines what it reads (as
    /// [`FsLoader`] does) also allows the files under `roots`: the
    /// preprocessor passes the shader's own directory, so that a header in a
    /// subdirectory may include `"../common.h"` beside the shader.
    fn load_within(
        &self,
        name: &str,
        includer: Option<&Path>,
        search_paths: &[PathBuf],
        roots: &[PathBuf],
    ) -> Result<SourceFile, String> {
        let _ = roots;
        self.load(name, includer, search_paths)
    }
}

/// Reads included files from the file system: only files under the
/// including file's directory or an include directory (after resolving `..`
/// and symbolic links), read with [`read_text`]. A path outside them is an
/// error naming the path as written, the same whether anything is there or
/// not: nothing outside them is looked at.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsLoader;

impl Loader for FsLoader {
    fn load(
        &self,
        name: &str,
        includer: Option<&Path>,
        search_paths: &[PathBuf],
    ) -> Result<SourceFile, String> {
        self.load_within(name, includer, search_paths, &[])
    }

    fn load_within(
        &self,
        name: &str,
        includer: Option<&Path>,
        search_paths: &[PathBuf],
        roots: &[PathBuf],
    ) -> Result<SourceFile, String> {
        let dir = includer.and_then(Path::parent);
        // The includer's real directory (a header reached through a link
        // confines to where it is, not to the link's directory), the roots
        // and the search paths.
        let real_dir = includer
            .and_then(|f| std::fs::canonicalize(f).ok())
            .and_then(|f| f.parent().map(Path::to_path_buf))
            .or_else(|| dir.map(Path::to_path_buf));
        let mut allowed: Vec<PathBuf> = Vec::new();
        for d in real_dir.iter().chain(roots).chain(search_paths) {
            if let Ok(real) = std::fs::canonicalize(or_dot(d)) {
                if !allowed.contains(&real) {
                    allowed.push(real);
                }
            }
        }
        let mut tried = Vec::new();
        let mut outside = false;
        let bases = dir
            .into_iter()
            .chain(search_paths.iter().map(PathBuf::as_path));
        for base in bases {
            let candidate = base.join(name);
            match resolve_beneath(base, Path::new(name), &allowed) {
                // Read what was checked: the resolved path, not the name again.
                Resolved::File(real) => {
                    return read_text(&real).map(|text| SourceFile {
                        name: candidate.display().to_string(),
                        path: Some(candidate),
                        text,
                    })
                }
                Resolved::Missing => tried.push(candidate.display().to_string()),
                Resolved::Outside => outside = true,
            }
        }
        if outside {
            let listed: Vec<String> = allowed
                .iter()
                .map(|r| format!("`{}`", r.display()))
                .collect();
            let listed = if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join(", ")
            };
            return Err(format!(
                "`{name}` is outside the including file's directory and the include \
                 directories ({listed}): an `#include` reads only files under them"
            ));
        }
        if tried.is_empty() {
            Err(format!("cannot find `{name}`: no include directory is set"))
        } else {
            Err(format!("cannot find `{name}` (tried {})", tried.join(", ")))
        }
    }
}

/// `.` for the empty path (a relative base with no directory part).
fn or_dot(p: &Path) -> &Path {
    if p.as_os_str().is_empty() {
        Path::new(".")
    } else {
        p
    }
}

/// Where an `#include` path leads.
#[derive(Debug, PartialEq, Eq)]
enum Resolved {
    /// A regular file under an allowed directory: its real path.
    File(PathBuf),
    /// Under an allowed directory, but no regular file is there.
    Missing,
    /// Outside every allowed directory.
    Outside,
}

/// The most symbolic links followed in one path, as Linux's `ELOOP` limit.
const MAX_LINKS: usize = 40;

/// `name` resolved from the directory `base`, `..` and symbolic links
/// followed one component at a time, against `allowed` (real paths). The
/// file system is asked about a component only while the path so far is
/// under an allowed directory, so whatever lies outside them (a file, a
/// link's target, nothing) gives the same answer.
fn resolve_beneath(base: &Path, name: &Path, allowed: &[PathBuf]) -> Resolved {
    let beneath = |p: &Path| allowed.iter().any(|r| p.starts_with(r));
    let Ok(mut path) = std::fs::canonicalize(or_dot(base)) else {
        return Resolved::Missing;
    };
    let mut pending: std::collections::VecDeque<std::ffi::OsString> = name
        .components()
        .map(|c| c.as_os_str().to_os_string())
        .collect();
    let (mut links, mut missing) = (0, false);
    while let Some(part) = pending.pop_front() {
        match Path::new(&part).components().next() {
            Some(std::path::Component::ParentDir) => {
                path.pop();
            }
            Some(std::path::Component::Normal(_)) => {
                path.push(&part);
                if missing || !beneath(&path) {
                    continue;
                }
                match std::fs::symlink_metadata(&path) {
                    Ok(m) if m.file_type().is_symlink() => {
                        links += 1;
                        let Ok(target) = std::fs::read_link(&path) else {
                            return Resolved::Missing;
                        };
                        if links > MAX_LINKS {
                            return Resolved::Missing;
                        }
                        path.pop();
                        for c in target.components().rev() {
                            pending.push_front(c.as_os_str().to_os_string());
                        }
                    }
                    Ok(_) => {}
                    Err(_) => missing = true,
                }
            }
            // The root (an absolute name or link target) replaces the path.
            Some(std::path::Component::RootDir | std::path::Component::Prefix(_)) => {
                path.push(&part);
            }
            Some(std::path::Component::CurDir) | None => {}
        }
    }
    if !beneath(&path) {
        Resolved::Outside
    } else if missing || !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
        Resolved::Missing
    } else {
        Resolved::File(path)
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
