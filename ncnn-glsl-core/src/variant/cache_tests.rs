//! The compile cache: what it returns is what was stored, every damaged or
//! foreign entry is a miss (never a panic), and concurrent writers of one
//! key leave a whole entry.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::compile::compile;
use crate::expand::Expanded;
use crate::source::SourceFile;
use crate::target::Target;

/// A fresh directory under the system's temporary one; a test that passes
/// removes it ([`tidy`]), one that fails leaves it to be looked at.
fn scratch(what: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir =
        std::env::temp_dir().join(format!("ncnn-glsl-cache-{what}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A cache in `dir`, its key file beside the directory.
fn cache_in(dir: impl Into<PathBuf>) -> Cache {
    let dir = dir.into();
    let key = dir.with_extension("key");
    Cache::new(dir, key)
}

/// Removes what [`scratch`] made for `cache`.
fn tidy(cache: &Cache) {
    let top = cache.dir().ancestors().find(|d| {
        d.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("ncnn-glsl-cache-"))
    });
    if let Some(top) = top {
        let _ = std::fs::remove_dir_all(top);
    }
}

const SHADER: &str = "#version 450
layout (constant_id = 0) const float scale = 0.5;
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer a_blob { float a[]; };
layout (binding = 1) writeonly buffer b_blob { float b[]; };
layout (push_constant) uniform parameter { int n; float bias; } p;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n) return;
    b[i] = a[i] * scale + p.bias;
}
";

/// The compiled [`SHADER`] (bindings, push constants and a spec constant
/// in its reflection), and its key.
fn compiled() -> (Compiled, Key) {
    let source = SourceFile {
        name: "scale.comp".into(),
        path: None,
        text: SHADER.into(),
    };
    let c = compile(
        &Expanded::verbatim(source, Target::default()),
        &CompileOptions::default(),
    )
    .unwrap();
    assert!(!c.reflection.bindings.is_empty() && !c.reflection.spec_constants.is_empty());
    (c, Key::of(SHADER, &CompileOptions::default()))
}

#[test]
fn an_entry_reads_back_as_it_was_stored() {
    let (c, key) = compiled();
    let cache = cache_in(scratch("roundtrip").join("made/on/write"));
    assert_eq!(cache.get(&key), None);
    cache.put(&key, &c);
    assert_eq!(cache.get(&key), Some(c.clone()));
    // Another process's cache over the same directory reads it too.
    assert_eq!(cache_in(cache.dir()).get(&key), Some(c));
    let stats = cache.stats();
    assert_eq!((stats.hits, stats.misses, stats.writes), (1, 1, 1));
    tidy(&cache);
}

#[test]
fn keys_hold_the_text_and_the_options() {
    let plain = CompileOptions::default();
    let names = CompileOptions { debug_names: true };
    let k = Key::of("void main() {}", &plain);
    assert_eq!(k, Key::of("void main() {}", &plain));
    assert_ne!(k, Key::of("void main() { }", &plain));
    assert_ne!(k, Key::of("void main() {}", &names));
    assert_eq!(k.hex().len(), 64);
    assert!(k.hex().bytes().all(|b| b.is_ascii_hexdigit()));
}

#[test]
fn get_or_compile_compiles_only_on_a_miss_and_stores_no_error() {
    let (c, key) = compiled();
    let cache = cache_in(scratch("get-or-compile"));
    let calls = AtomicUsize::new(0);
    let failing = || {
        calls.fetch_add(1, Ordering::Relaxed);
        Err::<Compiled, _>("naga failed")
    };
    assert_eq!(cache.get_or_compile(&key, failing), Err("naga failed"));
    assert_eq!(cache.get_or_compile(&key, failing), Err("naga failed"));
    assert_eq!(calls.load(Ordering::Relaxed), 2, "an error is not cached");
    let working = || {
        calls.fetch_add(1, Ordering::Relaxed);
        Ok::<_, ()>(c.clone())
    };
    assert_eq!(cache.get_or_compile(&key, working), Ok(c.clone()));
    assert_eq!(cache.get_or_compile(&key, working), Ok(c.clone()));
    assert_eq!(
        calls.load(Ordering::Relaxed),
        3,
        "the second came from the cache"
    );
    tidy(&cache);
}

/// An entry with `payload` under `key`, authenticated by `secret`.
fn entry_of(key: &Key, payload: &[u8], secret: &Secret) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(mac(secret, key, payload).as_bytes());
    out.extend_from_slice(payload);
    out
}

#[test]
fn a_damaged_or_foreign_entry_is_a_miss_and_is_written_anew() {
    let (c, key) = compiled();
    let cache = cache_in(scratch("damaged"));
    let secret = *cache.secret().expect("a secret");
    let other = Key::of("another text", &CompileOptions::default());
    let good = frame(&key, &encode_compiled(&c).unwrap(), &secret);
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        ("header only".into(), good[..HEADER_BYTES].to_vec()),
        ("truncated".into(), good[..good.len() - 1].to_vec()),
        ("a byte more".into(), [&good[..], b" "].concat()),
        (
            "another key's entry".into(),
            frame(&other, &encode_compiled(&c).unwrap(), &secret),
        ),
        // Whole and well formed, but not made with this cache's secret:
        // another key file's, or none (a plain checksum).
        (
            "another secret's entry".into(),
            frame(&key, &encode_compiled(&c).unwrap(), &[7; 32]),
        ),
        ("an unkeyed checksum".into(), {
            let payload = encode_compiled(&c).unwrap();
            let mut e = good[..HEADER_BYTES - 32].to_vec();
            e.extend_from_slice(blake3::hash(&payload).as_bytes());
            e.extend_from_slice(&payload);
            e
        }),
    ];
    // One flipped bit in each field: magic, format, key, length, checksum,
    // word count, words, reflection.
    let payload = HEADER_BYTES;
    let words = payload + 8;
    for at in [
        0,
        8,
        12,
        43,
        44,
        52,
        83,
        payload,
        words,
        words + 20,
        good.len() - 2,
    ] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        cases.push((format!("bit flipped at {at}"), bad));
    }
    let mut huge = good.clone();
    huge[44..52].copy_from_slice(&u64::MAX.to_le_bytes());
    cases.push(("huge length".into(), huge));
    // Checksums right, payloads wrong: a word count past the end or huge,
    // no reflection, a reflection of the wrong shape, deep JSON.
    let mut count = u64::MAX.to_le_bytes().to_vec();
    count.extend_from_slice(&[0; 16]);
    cases.push(("huge word count".into(), entry_of(&key, &count, &secret)));
    let mut past = 5u64.to_le_bytes().to_vec();
    past.extend_from_slice(&[0; 8]);
    cases.push(("words past the end".into(), entry_of(&key, &past, &secret)));
    cases.push(("no payload".into(), entry_of(&key, &[], &secret)));
    let no_reflection = 0u64.to_le_bytes().to_vec();
    cases.push((
        "no reflection".into(),
        entry_of(&key, &no_reflection, &secret),
    ));
    let mut wrong = 0u64.to_le_bytes().to_vec();
    wrong.extend_from_slice(br#"{"bindings": 7}"#);
    cases.push(("wrong reflection".into(), entry_of(&key, &wrong, &secret)));
    let mut deep = 0u64.to_le_bytes().to_vec();
    deep.extend(std::iter::repeat_n(b'[', 100_000));
    cases.push(("deep reflection".into(), entry_of(&key, &deep, &secret)));

    for (what, bytes) in cases {
        std::fs::write(cache.path(&key), &bytes).unwrap();
        assert_eq!(cache.get(&key), None, "{what}");
        let rebuilt = cache.get_or_compile(&key, || Ok::<_, ()>(c.clone()));
        assert_eq!(rebuilt, Ok(c.clone()), "{what}");
        assert_eq!(std::fs::read(cache.path(&key)).unwrap(), good, "{what}");
    }
    // Past the size cap: not read, whatever it holds.
    let f = std::fs::File::create(cache.path(&key)).unwrap();
    f.set_len(MAX_ENTRY_BYTES + 1).unwrap();
    assert_eq!(cache.get(&key), None);
    tidy(&cache);
}

#[cfg(unix)]
#[test]
fn links_and_other_files_in_an_entry_s_place_are_misses() {
    let (c, key) = compiled();
    let dir = scratch("planted");
    let cache = cache_in(dir.join("cache"));
    // A link to a whole entry of the same key, elsewhere: not followed.
    let elsewhere = cache_in(dir.join("elsewhere"));
    elsewhere.put(&key, &c);
    assert_eq!(elsewhere.get(&key), Some(c.clone()));
    std::fs::create_dir_all(cache.dir()).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(&key), cache.path(&key)).unwrap();
    assert_eq!(cache.get(&key), None);
    // Writing replaces the link, never its target.
    cache.put(&key, &c);
    assert!(std::fs::symlink_metadata(cache.path(&key))
        .unwrap()
        .is_file());
    assert_eq!(cache.get(&key), Some(c.clone()));
    assert_eq!(elsewhere.get(&key), Some(c.clone()));
    // A directory there: a miss, and writing fails quietly.
    let key2 = Key::of("a directory", &CompileOptions::default());
    std::fs::create_dir(cache.path(&key2)).unwrap();
    assert_eq!(cache.get(&key2), None);
    cache.put(&key2, &c);
    assert_eq!(cache.get(&key2), None);
    // A FIFO there: a miss, not a hang (an open of it would wait for a writer).
    let key3 = Key::of("a fifo", &CompileOptions::default());
    let made = std::process::Command::new("mkfifo")
        .arg(cache.path(&key3))
        .status();
    if made.is_ok_and(|s| s.success()) {
        assert!(std::fs::symlink_metadata(cache.path(&key3)).is_ok());
        assert_eq!(cache.get(&key3), None);
    }
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(cache.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    tidy(&cache);
}

/// Writers of one key race while a reader reads: every read is the whole
/// entry or none, and a whole entry is left.
#[test]
fn concurrent_writers_of_one_key_leave_a_whole_entry() {
    let (c, key) = compiled();
    let dir = scratch("race");
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..8 {
            // Each thread a cache of its own, as each rustc process has.
            s.spawn(|| {
                let cache = cache_in(&dir);
                for _ in 0..25 {
                    cache.put(&key, &c);
                }
            });
        }
        s.spawn(|| {
            let cache = cache_in(&dir);
            while !done.load(Ordering::Relaxed) {
                let got = cache.get(&key);
                assert!(got.is_none() || got.as_ref() == Some(&c));
            }
        });
        // The writers end first (the scope joins them), then the reader.
        std::thread::sleep(std::time::Duration::from_millis(200));
        done.store(true, Ordering::Relaxed);
    });
    let cache = cache_in(&dir);
    assert_eq!(cache.get(&key), Some(c));
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(files.len(), 1, "one entry, no temporary file left");
    tidy(&cache);
}

#[test]
fn the_cache_lives_in_the_target_directory_unless_told() {
    let root = scratch("where");
    let tagged = root.join("ws/target");
    std::fs::create_dir_all(&tagged).unwrap();
    std::fs::write(
        tagged.join("CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55",
    )
    .unwrap();
    let member = root.join("ws/crates/user");
    std::fs::create_dir_all(member.join("target")).unwrap(); // untagged: not cargo's
    let os = |p: &Path| Some(p.as_os_str().to_owned());
    // The cache directory and the key file, in the target directory `t`.
    let at = |t: &Path| Some((t.join(CACHE_SUBDIR), t.join(KEY_FILE)));
    // Our own variable moves the entries, not the key; set and empty, no
    // cache.
    let own = root.join("mine");
    assert_eq!(
        cache_paths_for(os(&own), os(&tagged), Some(&member)),
        Some((own.clone(), tagged.join(KEY_FILE)))
    );
    assert_eq!(
        cache_paths_for(Some("".into()), os(&tagged), Some(&member)),
        None
    );
    // Then CARGO_TARGET_DIR, where absolute.
    let elsewhere = root.join("elsewhere");
    assert_eq!(
        cache_paths_for(None, os(&elsewhere), Some(&member)),
        at(&elsewhere)
    );
    // Then the first tagged `target` above the manifest.
    assert_eq!(cache_paths_for(None, None, Some(&member)), at(&tagged));
    assert_eq!(
        cache_paths_for(None, Some("".into()), Some(&member)),
        at(&tagged)
    );
    // A relative CARGO_TARGET_DIR that holds no tag from here is not used.
    let relative = Some("no-such-target-dir".into());
    assert_eq!(cache_paths_for(None, relative, Some(&member)), at(&tagged));
    // Nothing found: no cache, even with a directory named (no place for
    // the key that a writer of that directory cannot read).
    assert_eq!(cache_paths_for(None, None, Some(&root.join("x"))), None);
    assert_eq!(cache_paths_for(None, None, None), None);
    assert_eq!(cache_paths_for(os(&own), None, None), None);
    let _ = std::fs::remove_dir_all(&root);
}

/// A writer of the cache directory who cannot read the key file cannot
/// make a build embed what it did not compile: an entry copied from
/// another cache (another secret), or one another shader's key names, is a
/// miss. The key file is made once, private to its owner, and read back
/// by every cache that names it.
#[test]
fn entries_are_authenticated_by_the_key_file() {
    let (c, key) = compiled();
    let dir = scratch("keyed");
    let ours = Cache::new(dir.join("cache"), dir.join("ours.key"));
    let theirs = Cache::new(dir.join("theirs"), dir.join("theirs.key"));
    // What another key file's cache wrote, planted in ours: a miss.
    let source = SourceFile {
        name: "other.comp".into(),
        path: None,
        text: SHADER.replace("0.5", "0.25"),
    };
    let other = compile(
        &Expanded::verbatim(source, Target::default()),
        &CompileOptions::default(),
    )
    .unwrap();
    theirs.put(&key, &other);
    assert_eq!(theirs.get(&key), Some(other.clone()));
    std::fs::create_dir_all(ours.dir()).unwrap();
    std::fs::copy(theirs.path(&key), ours.path(&key)).unwrap();
    assert_eq!(ours.get(&key), None, "an entry of another secret was used");
    // Ours, made with its secret, reads back; another cache on the same
    // key file reads it too.
    ours.put(&key, &c);
    assert_eq!(ours.get(&key), Some(c.clone()));
    let again = Cache::new(dir.join("cache"), dir.join("ours.key"));
    assert_eq!(again.get(&key), Some(c.clone()));
    let secret = std::fs::read(dir.join("ours.key")).unwrap();
    assert_eq!(secret.len(), 32);
    assert_ne!(secret, std::fs::read(dir.join("theirs.key")).unwrap());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("ours.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o077,
            0,
            "the key file is readable by others: {mode:o}"
        );
    }
    // A key file that cannot be had (a directory in its place): no cache,
    // every lookup a miss, nothing written.
    std::fs::create_dir_all(dir.join("blocked.key")).unwrap();
    let blocked = Cache::new(dir.join("blocked"), dir.join("blocked.key"));
    blocked.put(&key, &c);
    assert_eq!(blocked.get(&key), None);
    assert!(!blocked.path(&key).exists());
    let _ = std::fs::remove_dir_all(&dir);
}
