//! A content-addressed cache of compiled variants across builds: a crate
//! with hundreds of `include_ncnn_shader!` calls runs every one of them
//! again on any edit, and a call whose shader did not change should not
//! run naga again.
//!
//! An entry is keyed on a BLAKE3 hash of the finished text, the
//! [`CompileOptions`], the core's version, a fingerprint of the core's
//! sources (made by its build script, so an edited compiler never reads
//! the blobs of an older one) and [`FORMAT`]; it holds one [`Compiled`]
//! (SPIR-V words and reflection) in one file, `<key in hex>.entry`. Failed
//! compiles are not stored: their diagnostics point into the expansion.
//!
//! **Trust.** The blobs read back are embedded as compiled code, so the
//! cache directory is trusted as much as the rest of cargo's target
//! directory, whose compiled artifacts are used as they are; that is why it
//! lives there ([`default_cache_dir`]). What the checks catch is what goes
//! wrong by accident: a torn or truncated write, a flipped byte, an entry
//! of another key, format or compiler, a huge length, a link, a directory
//! or a FIFO in an entry's place. Each is a miss: the variant is compiled
//! again and the entry written anew. Nothing read here can panic or make a
//! build read more than [`MAX_ENTRY_BYTES`].
//!
//! Writers never collide: an entry is written to a temporary file created
//! exclusively in the same directory and renamed over the entry, so a
//! reader sees a whole old entry, a whole new one or none, and two rustc
//! processes writing the same key both leave a whole entry. Entries are
//! never removed; `cargo clean` removes them with the target directory.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::compile::{CompileOptions, Compiled, Reflection};

/// The version of the entry format and of what goes into a key; changed
/// whenever either changes, so older entries are misses.
pub const FORMAT: u32 = 1;

/// The most bytes read from one entry: far past any blob the compiler
/// makes (the largest shipped ones are tens of KiB), and a bound on what a
/// damaged file makes a build read. A larger [`Compiled`] is not stored.
pub const MAX_ENTRY_BYTES: u64 = 16 << 20;

/// The environment variable that names the cache directory of
/// [`default_cache_dir`]; set and empty, the cache is off.
pub const CACHE_DIR_ENV: &str = "NCNN_GLSL_CACHE_DIR";

/// The cache directory's name inside cargo's target directory.
pub const CACHE_SUBDIR: &str = "ncnn-glsl-cache";

/// The first bytes of every entry.
const MAGIC: &[u8; 8] = b"NCNNGLC\0";

/// Magic, format, key, payload length, payload checksum.
const HEADER_BYTES: usize = 8 + 4 + 32 + 8 + 32;

/// The fingerprint of the core's sources, from `build.rs`.
pub(crate) const SOURCES: &str = env!("NCNN_GLSL_CORE_SOURCES");

/// The key of one entry: a BLAKE3 hash of what the blob depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key(pub [u8; 32]);

impl Key {
    /// The key of compiling `text` with `options` by this build of the core.
    pub fn of(text: &str, options: &CompileOptions) -> Key {
        // Destructured, so a new option cannot be left out of the key.
        let CompileOptions { debug_names } = *options;
        let mut h = blake3::Hasher::new();
        h.update(b"ncnn-glsl-core compile cache\0");
        h.update(&FORMAT.to_le_bytes());
        for field in [env!("CARGO_PKG_VERSION"), SOURCES, text] {
            h.update(&(field.len() as u64).to_le_bytes());
            h.update(field.as_bytes());
        }
        h.update(&[u8::from(debug_names)]);
        Key(*h.finalize().as_bytes())
    }

    /// The key in lower-case hex, the entry's file name without extension.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// How a cache was used, counted since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Entries found whole and returned.
    pub hits: usize,
    /// Lookups that found no usable entry.
    pub misses: usize,
    /// Entries written.
    pub writes: usize,
}

/// A cache directory of compiled variants (see the module's doc for what
/// it trusts and checks). Shared by the workers of a build: every method
/// takes `&self`.
#[derive(Debug)]
pub struct Cache {
    dir: PathBuf,
    hits: AtomicUsize,
    misses: AtomicUsize,
    writes: AtomicUsize,
}

impl Cache {
    /// The cache in `dir`, made on the first write; nothing is read yet.
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache {
            dir: dir.into(),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            writes: AtomicUsize::new(0),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `key`'s entry.
    pub fn path(&self, key: &Key) -> PathBuf {
        self.dir.join(format!("{}.entry", key.hex()))
    }

    /// The entry of `key`, if it is a regular file (not a link to one) that
    /// passes every check; anything else is a miss.
    pub fn get(&self, key: &Key) -> Option<Compiled> {
        self.get_payload(key).and_then(|p| decode_compiled(&p))
    }

    /// Stores `compiled` under `key`, replacing what is there. Failure only
    /// costs a later build its compile time, so it is not an error; an
    /// entry that would not read back equal is not written.
    pub fn put(&self, key: &Key, compiled: &Compiled) {
        if let Some(payload) = encode_compiled(compiled) {
            if decode_compiled(&payload).as_ref() == Some(compiled) {
                self.put_payload(key, &payload);
            }
        }
    }

    /// The payload of `key`'s entry, whatever it holds (a compiled variant,
    /// or a shader's expansion, `embed::expansion_cache`, whose keys are
    /// made apart), if the entry passes every check; counted as a hit or a
    /// miss.
    pub fn get_payload(&self, key: &Key) -> Option<Vec<u8>> {
        let path = self.path(key);
        let found = crate::source::is_regular_file(&path)
            .then(|| crate::source::read_bounded(&path, MAX_ENTRY_BYTES).ok())
            .flatten()
            .and_then(|bytes| unframe(bytes, key));
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Stores `payload` under `key`, replacing what is there; not stored
    /// where the entry would pass [`MAX_ENTRY_BYTES`].
    pub fn put_payload(&self, key: &Key, payload: &[u8]) {
        let bytes = frame(key, payload);
        if bytes.len() as u64 > MAX_ENTRY_BYTES {
            return;
        }
        let _ = std::fs::create_dir_all(&self.dir);
        // A link planted at the entry is replaced, not written through; a
        // directory there stays a miss.
        if crate::source::replace_file(&self.path(key), &bytes).is_ok() {
            self.writes.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The compiled variant of `key`: the entry where it is whole, else
    /// what `compile` makes, stored when it compiled.
    pub fn get_or_compile<E>(
        &self,
        key: &Key,
        compile: impl FnOnce() -> Result<Compiled, E>,
    ) -> Result<Compiled, E> {
        if let Some(c) = self.get(key) {
            return Ok(c);
        }
        let c = compile()?;
        self.put(key, &c);
        Ok(c)
    }

    /// What this cache has done so far.
    pub fn stats(&self) -> Stats {
        Stats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
        }
    }
}

/// Where `include_ncnn_shader!` keeps its cache: [`CACHE_DIR_ENV`] where it
/// is set (empty: no cache), else [`CACHE_SUBDIR`] in cargo's target
/// directory, which is `CARGO_TARGET_DIR` where that is set, else the first
/// `target` directory with cargo's `CACHEDIR.TAG` beside the calling crate's
/// manifest or above it. `None` (no cache) where none is found, as for a
/// crate built from the registry without `CARGO_TARGET_DIR`.
pub fn default_cache_dir() -> Option<PathBuf> {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    cache_dir_for(
        std::env::var_os(CACHE_DIR_ENV),
        std::env::var_os("CARGO_TARGET_DIR"),
        manifest.as_deref(),
    )
}

/// The rule of [`default_cache_dir`] over the variables' values. A relative
/// `CARGO_TARGET_DIR` is relative to where cargo was started, which a
/// macro does not know: it is used only where it holds `CACHEDIR.TAG` seen
/// from here.
pub fn cache_dir_for(
    own: Option<OsString>,
    target: Option<OsString>,
    manifest_dir: Option<&Path>,
) -> Option<PathBuf> {
    if let Some(dir) = own {
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    let tagged = |dir: &Path| dir.join("CACHEDIR.TAG").is_file();
    let target = target
        .filter(|t| !t.is_empty())
        .map(PathBuf::from)
        .filter(|t| t.is_absolute() || tagged(t))
        .or_else(|| {
            manifest_dir?
                .ancestors()
                .map(|d| d.join("target"))
                .find(|t| tagged(t))
        })?;
    Some(target.join(CACHE_SUBDIR))
}

/// The entry of `payload` under `key`: magic, format, key, length,
/// checksum, payload.
fn frame(key: &Key, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(blake3::hash(payload).as_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of `bytes`, if they are a whole entry of this format for
/// `key`.
fn unframe(mut bytes: Vec<u8>, key: &Key) -> Option<Vec<u8>> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (format, rest) = rest.split_first_chunk::<4>()?;
    let (stored_key, rest) = rest.split_first_chunk::<32>()?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let (sum, payload) = rest.split_first_chunk::<32>()?;
    if u32::from_le_bytes(*format) != FORMAT
        || stored_key != &key.0
        || u64::from_le_bytes(*len) != payload.len() as u64
        || blake3::hash(payload) != blake3::Hash::from_bytes(*sum)
    {
        return None;
    }
    bytes.drain(..HEADER_BYTES);
    Some(bytes)
}

/// The payload of `compiled`; `None` where its reflection does not
/// serialize.
fn encode_compiled(compiled: &Compiled) -> Option<Vec<u8>> {
    let reflection = serde_json::to_vec(&compiled.reflection).ok()?;
    let mut payload = Vec::with_capacity(8 + compiled.spirv.len() * 4 + reflection.len());
    payload.extend_from_slice(&(compiled.spirv.len() as u64).to_le_bytes());
    for w in &compiled.spirv {
        payload.extend_from_slice(&w.to_le_bytes());
    }
    payload.extend_from_slice(&reflection);
    Some(payload)
}

/// The [`Compiled`] a payload holds.
fn decode_compiled(payload: &[u8]) -> Option<Compiled> {
    let (count, rest) = payload.split_first_chunk::<8>()?;
    let words = usize::try_from(u64::from_le_bytes(*count)).ok()?;
    let (spirv, reflection) = rest.split_at_checked(words.checked_mul(4)?)?;
    let spirv = spirv
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let reflection: Reflection = serde_json::from_slice(reflection).ok()?;
    Some(Compiled { spirv, reflection })
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
