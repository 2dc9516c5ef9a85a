//! The expansion cache: a call whose shader and includes did not change
//! gets the tokens of the build before without building; any change to
//! what the build read, a header added earlier in the search path
//! included, or a damaged entry is a miss that builds again.

use std::path::{Path, PathBuf};

use quote::quote;

use super::super::{include_one, Form};
use crate::expand::ExpandOptions;
use crate::variant::cache::{Cache, Stats};

const SHADER: &str = r#"#version 450
#include "value.h"
layout (local_size_x = 64) in;
layout (binding = 0) buffer top_blob { float data[]; };
void main() { data[gl_GlobalInvocationID.x] = VALUE; }
"#;

fn scratch() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "ncnn-glsl-expansion-cache-{}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["inc1", "inc2", "library", "cache"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("a.comp"), SHADER).unwrap();
    std::fs::write(dir.join("inc2/value.h"), "#define VALUE 1.0\n").unwrap();
    dir
}

/// The tokens of `a.comp` in `form` as text, and what the cache did.
fn expand(dir: &Path, form: Form, cache: &Cache) -> (String, Stats) {
    let before = cache.stats();
    let options = ExpandOptions::include([PathBuf::from("inc1"), PathBuf::from("inc2")]);
    let tokens = include_one(
        form,
        "a.comp",
        dir,
        &dir.join("library"),
        &options,
        &quote!(::ncnn_glsl_runtime::__private),
        Some(cache),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let after = cache.stats();
    let delta = Stats {
        hits: after.hits - before.hits,
        misses: after.misses - before.misses,
        writes: after.writes - before.writes,
    };
    (tokens.to_string(), delta)
}

/// One lookup, the expansion's own, and it hit.
fn hit(s: Stats) -> bool {
    s == Stats {
        hits: 1,
        misses: 0,
        writes: 0,
    }
}

#[test]
fn an_unchanged_call_is_not_built_again_and_any_change_is() {
    let dir = scratch();
    let cache = Cache::new(dir.join("cache"), dir.join("cache.key"));
    let (first, built) = expand(&dir, Form::Expression, &cache);
    assert!(
        built.writes >= 2,
        "the variants and the expansion: {built:?}"
    );
    let (again, s) = expand(&dir, Form::Expression, &cache);
    assert!(hit(s), "{s:?}");
    assert_eq!(again, first);

    // The other form of the same shader is an entry of its own.
    let (module, s) = expand(&dir, Form::Module, &cache);
    assert!(!hit(s) && module != first, "{s:?}");
    assert!(hit(expand(&dir, Form::Module, &cache).1));

    // The header the build read, edited.
    std::fs::write(dir.join("inc2/value.h"), "#define VALUE 2.0\n").unwrap();
    let (edited, s) = expand(&dir, Form::Expression, &cache);
    assert!(!hit(s) && edited != first, "{s:?}");
    assert!(hit(expand(&dir, Form::Expression, &cache).1));

    // A header of that name added earlier in the search path.
    std::fs::write(dir.join("inc1/value.h"), "#define VALUE 3.0\n").unwrap();
    let (shadowed, s) = expand(&dir, Form::Expression, &cache);
    assert!(!hit(s) && shadowed != edited, "{s:?}");

    // Removed again: the build before it is what the files say.
    std::fs::remove_file(dir.join("inc1/value.h")).unwrap();
    let (back, s) = expand(&dir, Form::Expression, &cache);
    assert!(!hit(s), "{s:?}");
    assert_eq!(back, edited);

    // The shader itself edited.
    std::fs::write(dir.join("a.comp"), SHADER.replace("VALUE;", "VALUE + 1.0;")).unwrap();
    let (changed, s) = expand(&dir, Form::Expression, &cache);
    assert!(!hit(s) && changed != back, "{s:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_entry_is_a_miss_and_the_tokens_are_built_again() {
    let dir = scratch();
    let cache = Cache::new(dir.join("cache"), dir.join("cache.key"));
    let (first, _) = expand(&dir, Form::Expression, &cache);
    let entries: Vec<PathBuf> = std::fs::read_dir(dir.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    // Every entry damaged alike: whichever is the expansion's, it misses,
    // and so does every variant it then looks up.
    for e in &entries {
        let mut bytes = std::fs::read(e).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(e, bytes).unwrap();
    }
    let (again, s) = expand(&dir, Form::Expression, &cache);
    assert_eq!(s.hits, 0, "{s:?}");
    assert!(s.writes >= 2, "{s:?}");
    assert_eq!(again, first);
    assert!(hit(expand(&dir, Form::Expression, &cache).1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A writer of the cache directory who cannot read the key file cannot put
/// tokens of its choosing into the crate: the expansion's entry rewritten
/// to other tokens (a set named by a string of the writer's), framed whole
/// with a plain checksum (as entries were before they were keyed) or with
/// another secret, is a miss, and the tokens are built again.
#[test]
fn tokens_planted_in_the_cache_are_not_used() {
    const HEADER: usize = 8 + 4 + 32 + 8 + 32;
    /// A forger's hash of an entry's key and payload.
    type Sum = fn(&[u8], &[u8]) -> blake3::Hash;
    let forgeries: [(&str, Sum); 2] = [
        ("a plain checksum", |_, payload| blake3::hash(payload)),
        ("another secret", |key, payload| {
            let mut h = blake3::Hasher::new_keyed(&[9; 32]);
            h.update(key);
            h.update(payload);
            h.finalize()
        }),
    ];
    for (how, sum) in forgeries {
        let dir = scratch();
        let cache = Cache::new(dir.join("cache"), dir.join("cache.key"));
        let (first, _) = expand(&dir, Form::Expression, &cache);
        let mut planted = 0;
        for e in std::fs::read_dir(dir.join("cache")).unwrap() {
            let path = e.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let Ok(mut entry) = serde_json::from_slice::<serde_json::Value>(&bytes[HEADER..])
            else {
                continue; // a compiled variant's entry
            };
            entry["tokens"] = serde_json::Value::String(first.replace("a.comp", "planted"));
            let payload = serde_json::to_vec(&entry).unwrap();
            let mut forged = bytes[..HEADER - 40].to_vec();
            forged.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            forged.extend_from_slice(sum(&bytes[12..44], &payload).as_bytes());
            forged.extend_from_slice(&payload);
            std::fs::write(&path, forged).unwrap();
            planted += 1;
        }
        assert_eq!(planted, 1, "one expansion entry");
        let (again, s) = expand(&dir, Form::Expression, &cache);
        assert_eq!(again, first, "planted tokens were used ({how})");
        assert!(s.writes >= 1, "built and stored again ({how}): {s:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
