//! A shader's whole expansion (the tokens of its set or module) kept
//! across builds: rustc runs every macro call of a crate again on any edit
//! of it, and a call whose files did not change should cost a file read
//! and a hash, not preprocessing every variant to look up its blobs.
//!
//! An entry lives in the compile cache's directory ([`Cache`], same
//! framing and trust) under a key made apart from the compiled variants'
//! keys: the call (form, name, path, directories, options, the path the
//! tokens name), the core's version and the fingerprint of its sources.
//! It holds the hash of the shader's text, every include the build
//! resolved (what was asked, from where, and the file and hash it found,
//! or that none was found), and the tokens as text. It is used only where
//! the shader's text and every one of those lookups give the same again:
//! a header edited, added earlier in the search path or removed is a miss.
//! Failed builds are not stored.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use serde::{Deserialize, Serialize};

use crate::expand::ExpandOptions;
use crate::source::{FsLoader, Loader, SourceFile};
use crate::variant::cache::{Cache, Key, FORMAT, SOURCES};

/// One include the build resolved, and what it found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Lookup {
    name: String,
    includer: Option<PathBuf>,
    search_paths: Vec<PathBuf>,
    roots: Vec<PathBuf>,
    /// The file found and the hash of its text; `None` where none was.
    found: Option<(Option<PathBuf>, String)>,
}

impl Lookup {
    /// The same lookup, made again through [`FsLoader`].
    fn again(&self) -> Lookup {
        let found = FsLoader.load_within(
            &self.name,
            self.includer.as_deref(),
            &self.search_paths,
            &self.roots,
        );
        Lookup {
            found: found.ok().map(|f| (f.path, hash(&f.text))),
            ..self.clone()
        }
    }
}

/// A [`Loader`] that notes every lookup it passes on.
pub(super) struct Recorder<'a> {
    inner: &'a dyn Loader,
    lookups: RefCell<Vec<Lookup>>,
}

impl<'a> Recorder<'a> {
    /// Records what `inner` is asked.
    pub(super) fn new(inner: &'a dyn Loader) -> Recorder<'a> {
        Recorder {
            inner,
            lookups: RefCell::new(Vec::new()),
        }
    }

    /// The lookups made, each once.
    pub(super) fn into_lookups(self) -> Vec<Lookup> {
        self.lookups.into_inner()
    }
}

impl Loader for Recorder<'_> {
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
        let result = self.inner.load_within(name, includer, search_paths, roots);
        let lookup = Lookup {
            name: name.to_string(),
            includer: includer.map(Path::to_path_buf),
            search_paths: search_paths.to_vec(),
            roots: roots.to_vec(),
            found: result
                .as_ref()
                .ok()
                .map(|f| (f.path.clone(), hash(&f.text))),
        };
        let mut lookups = self.lookups.borrow_mut();
        if !lookups.contains(&lookup) {
            lookups.push(lookup);
        }
        result
    }
}

/// What an entry holds.
#[derive(Serialize, Deserialize)]
struct Entry {
    /// The hash of the shader's text.
    text: String,
    lookups: Vec<Lookup>,
    tokens: String,
}

/// One macro call's shader, as far as its expansion depends on it.
pub(super) struct Call<'a> {
    /// `"expression"` or `"module"`: what the tokens are.
    pub form: &'a str,
    /// The shader's name as the tokens print it.
    pub name: &'a str,
    /// Where the shader was found.
    pub path: &'a Path,
    /// The directories the call resolves against.
    pub caller_dir: &'a Path,
    /// The shipped library's directory.
    pub library_dir: &'a Path,
    /// The call's defines and include directories.
    pub options: &'a ExpandOptions,
    /// The path of the crate the tokens name, as text.
    pub krate: &'a str,
}

impl Call<'_> {
    /// The entry's key.
    pub(super) fn key(&self) -> Key {
        let mut h = blake3::Hasher::new();
        h.update(b"ncnn-glsl-core expansion cache\0");
        h.update(&FORMAT.to_le_bytes());
        let (caller, library, path) = (
            self.caller_dir.display().to_string(),
            self.library_dir.display().to_string(),
            self.path.display().to_string(),
        );
        let options = format!("{:?}", self.options);
        for field in [
            env!("CARGO_PKG_VERSION"),
            SOURCES,
            self.form,
            self.name,
            &path,
            &caller,
            &library,
            &options,
            self.krate,
        ] {
            h.update(&(field.len() as u64).to_le_bytes());
            h.update(field.as_bytes());
        }
        Key(*h.finalize().as_bytes())
    }
}

/// The tokens stored for `call`, as text (tokens are parsed on the macro's
/// own thread), if its shader's text and every include lookup its build
/// made give the same again.
pub(super) fn lookup(cache: &Cache, call: &Call) -> Option<String> {
    let payload = cache.get_payload(&call.key())?;
    let entry: Entry = serde_json::from_slice(&payload).ok()?;
    let text = crate::source::read_text(call.path).ok()?;
    if hash(&text) != entry.text || entry.lookups.iter().any(|l| l.again() != *l) {
        return None;
    }
    Some(entry.tokens)
}

/// Stores `tokens` for `call`, built from `text` with `lookups`.
pub(super) fn store(
    cache: &Cache,
    call: &Call,
    text: &str,
    lookups: Vec<Lookup>,
    tokens: &TokenStream,
) {
    let entry = Entry {
        text: hash(text),
        lookups,
        tokens: tokens.to_string(),
    };
    if let Ok(payload) = serde_json::to_vec(&entry) {
        cache.put_payload(&call.key(), &payload);
    }
}

fn hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

#[cfg(test)]
#[path = "expansion_cache_tests.rs"]
mod tests;
