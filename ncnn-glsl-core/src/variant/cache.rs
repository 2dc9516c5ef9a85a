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
//! **Trust.** The blobs read back are embedded as compiled code (SPIR-V
//! that runs on the GPU, the tokens of a shader's expansion), so a writer
//! of the cache directory could otherwise choose what a build embeds. Each
//! entry is authenticated: its header holds a keyed BLAKE3 hash of the key
//! and payload, under a secret of 32 random bytes kept in a key file
//! ([`KEY_FILE`] in cargo's target directory for the macro's cache, made
//! on first use, readable by its owner only). An entry whose hash does not
//! verify is a miss, so a writer of the cache directory alone, who cannot
//! read the key file, can make a build compile again but not embed
//! anything it did not compile. Whoever can read the key file (or write
//! the target directory, whose compiled artifacts cargo uses as they are)
//! is trusted, as cargo trusts them. The other checks catch what goes
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
use std::sync::OnceLock;

use crate::compile::{CompileOptions, Compiled, Reflection};

/// The version of the entry format and of what goes into a key; changed
/// whenever either changes, so older entries are misses.
pub const FORMAT: u32 = 2;

/// The most bytes read from one entry: far past any blob the compiler
/// makes (the largest shipped ones are tens of KiB), and a bound on what a
/// damaged file makes a build read. A larger [`Compiled`] is not stored.
pub const MAX_ENTRY_BYTES: u64 = 16 << 20;

/// The environment variable that names the cache directory of
/// [`default_cache_dir`]; set and empty, the cache is off.
pub const CACHE_DIR_ENV: &str = "NCNN_GLSL_CACHE_DIR";

/// The cache directory's name inside cargo's target directory.
pub const CACHE_SUBDIR: &str = "ncnn-glsl-cache";

/// The key file's name inside cargo's target directory: the secret that
/// authenticates the entries of the macro's cache, wherever
/// [`CACHE_DIR_ENV`] puts them.
pub const KEY_FILE: &str = "ncnn-glsl-cache.key";

/// A secret key's bytes.
type Secret = [u8; 32];

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
    key_file: PathBuf,
    /// The secret, read (or made) at the first use; `None` where the key
    /// file can be neither read nor made: then every lookup is a miss and
    /// nothing is written.
    secret: OnceLock<Option<Secret>>,
    hits: AtomicUsize,
    misses: AtomicUsize,
    writes: AtomicUsize,
}

impl Cache {
    /// The cache in `dir`, made on the first write, its entries
    /// authenticated with the secret in `key_file` (made at the first use
    /// where missing); nothing is read yet. The key file belongs where
    /// writers of `dir` cannot read it (the macro's is in the target
    /// directory, [`default_cache`]).
    pub fn new(dir: impl Into<PathBuf>, key_file: impl Into<PathBuf>) -> Cache {
        Cache {
            dir: dir.into(),
            key_file: key_file.into(),
            secret: OnceLock::new(),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            writes: AtomicUsize::new(0),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key file.
    pub fn key_file(&self) -> &Path {
        &self.key_file
    }

    /// The secret, read or made once.
    fn secret(&self) -> Option<&Secret> {
        self.secret
            .get_or_init(|| read_or_make_secret(&self.key_file))
            .as_ref()
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
        let found = self.secret().and_then(|secret| {
            crate::source::is_regular_file(&path)
                .then(|| crate::source::read_bounded(&path, MAX_ENTRY_BYTES).ok())
                .flatten()
                .and_then(|bytes| unframe(bytes, key, secret))
        });
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
        let Some(secret) = self.secret() else {
            return;
        };
        let bytes = frame(key, payload, secret);
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

/// The cache `include_ncnn_shader!` uses: its directory is
/// [`CACHE_DIR_ENV`] where that is set (empty: no cache), else
/// [`CACHE_SUBDIR`] in cargo's target directory; its key file is
/// [`KEY_FILE`] in the target directory either way. The target directory
/// is `CARGO_TARGET_DIR` where that is set, else the first `target`
/// directory with cargo's `CACHEDIR.TAG` beside the calling crate's
/// manifest or above it. `None` (no cache) where none is found, as for a
/// crate built from the registry without `CARGO_TARGET_DIR`.
pub fn default_cache() -> Option<Cache> {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let (dir, key_file) = cache_paths_for(
        std::env::var_os(CACHE_DIR_ENV),
        std::env::var_os("CARGO_TARGET_DIR"),
        manifest.as_deref(),
    )?;
    Some(Cache::new(dir, key_file))
}

/// The rule of [`default_cache`] over the variables' values: the cache
/// directory and the key file. A relative `CARGO_TARGET_DIR` is relative
/// to where cargo was started, which a macro does not know: it is used
/// only where it holds `CACHEDIR.TAG` seen from here.
pub fn cache_paths_for(
    own: Option<OsString>,
    target: Option<OsString>,
    manifest_dir: Option<&Path>,
) -> Option<(PathBuf, PathBuf)> {
    if own.as_ref().is_some_and(|d| d.is_empty()) {
        return None;
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
    let dir = own.map_or_else(|| target.join(CACHE_SUBDIR), PathBuf::from);
    Some((dir, target.join(KEY_FILE)))
}

/// The secret in `path`: its 32 bytes where it is a regular file of them,
/// else 32 fresh random bytes written there (readable by the owner only)
/// and read back, so that racing builds agree on whichever landed. `None`
/// where neither works (no random bytes, a read-only directory).
fn read_or_make_secret(path: &Path) -> Option<Secret> {
    let read = || -> Option<Secret> {
        if !crate::source::is_regular_file(path) {
            return None;
        }
        crate::source::read_bounded(path, 64).ok()?.try_into().ok()
    };
    if let Some(secret) = read() {
        return Some(secret);
    }
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).ok()?;
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    write_private(path, &fresh).ok()?;
    read()
}

/// [`crate::source::replace_file`] for a file only its owner may read: the
/// temporary file is made so from the start.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    let written = open
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The keyed hash that authenticates an entry: of its key and payload.
fn mac(secret: &Secret, key: &Key, payload: &[u8]) -> blake3::Hash {
    let mut h = blake3::Hasher::new_keyed(secret);
    h.update(&key.0);
    h.update(payload);
    h.finalize()
}

/// The entry of `payload` under `key`: magic, format, key, length,
/// keyed hash, payload.
fn frame(key: &Key, payload: &[u8], secret: &Secret) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(mac(secret, key, payload).as_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of `bytes`, if they are a whole entry of this format for
/// `key`, authenticated by `secret` (the hash compared in constant time).
fn unframe(mut bytes: Vec<u8>, key: &Key, secret: &Secret) -> Option<Vec<u8>> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (format, rest) = rest.split_first_chunk::<4>()?;
    let (stored_key, rest) = rest.split_first_chunk::<32>()?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let (sum, payload) = rest.split_first_chunk::<32>()?;
    if u32::from_le_bytes(*format) != FORMAT
        || stored_key != &key.0
        || u64::from_le_bytes(*len) != payload.len() as u64
        || mac(secret, key, payload) != blake3::Hash::from_bytes(*sum)
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
