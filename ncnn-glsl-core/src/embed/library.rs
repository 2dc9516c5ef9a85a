//! What `include_ncnn_library!` expands to: a directory or glob of shaders
//! as one module, a module per shader (the typed item form), an enum of the
//! shaders and a `Library` that the runtime asks by index or name.
//!
//! A macro rather than a build-script API: it needs no `build.rs` and no
//! generated file, reports a shader's error at the call like
//! `include_ncnn_shader!`, and every file it reads (each shader and what it
//! includes) makes Cargo rebuild the crate when it changes. What a macro
//! cannot watch is a directory: a shader added to it is seen at the
//! crate's next build, or at once with a one-line `build.rs` that prints
//! `cargo:rerun-if-changed=DIR` (docs/library.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::expansion_cache::Call;
use super::{expand_call, prepare, Form};
use crate::expand::ExpandOptions;
use crate::variant::cache::default_cache;
use crate::variant::jobs;

/// The most shaders one library may hold.
pub const MAX_SHADERS: usize = 4096;

/// The most directory entries a pattern may look through.
const MAX_ENTRIES: usize = 100_000;

/// The deepest directory a `**` pattern descends into.
const MAX_DEPTH: usize = 16;

/// The shaders `pattern` names, relative to `caller_dir` (or from the root
/// where it is absolute, as `include_ncnn_shader!`'s paths are), each with
/// its name in the library (its path below the pattern's directory,
/// without the extension, `/`-separated), sorted by name.
///
/// `pattern` is a directory (every `*.comp` in it), or a path whose last
/// component holds `*` wildcards (`shaders/*.comp`), optionally after a
/// `**` component that matches any depth of directories
/// (`shaders/**/*.comp`). Symbolic links to directories are not followed.
/// Two files of one name (`x.comp` and `x.glsl`) and a matching file or
/// searched directory whose name is not UTF-8 are errors naming the files.
pub fn library_files(caller_dir: &Path, pattern: &str) -> Result<Vec<(String, PathBuf)>, String> {
    let parts: Vec<&str> = pattern
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let wild = parts.iter().position(|p| p.contains('*'));
    let (base, recursive, file_pattern) = match wild {
        None => (parts.as_slice(), false, "*.comp"),
        Some(i) if i + 1 == parts.len() && parts[i] != "**" => (&parts[..i], false, parts[i]),
        Some(i) if i + 2 == parts.len() && parts[i] == "**" && !parts[i + 1].contains("**") => {
            (&parts[..i], true, parts[i + 1])
        }
        Some(_) => {
            return Err(format!(
                "library pattern `{pattern}`: a `*` may stand only in the last component, after \
                 an optional `**/` (`dir/*.comp`, `dir/**/*.comp`)"
            ))
        }
    };
    let mut dir = if Path::new(pattern).is_absolute() {
        Path::new(pattern)
            .ancestors()
            .last()
            .unwrap_or(Path::new("/"))
            .to_path_buf()
    } else {
        caller_dir.to_path_buf()
    };
    for p in base {
        dir.push(p);
    }
    if !dir.is_dir() {
        return Err(format!(
            "library pattern `{pattern}`: `{}` is not a directory",
            dir.display()
        ));
    }
    let mut found = Vec::new();
    let mut entries = 0usize;
    walk(
        &dir,
        "",
        recursive,
        file_pattern,
        0,
        &mut entries,
        &mut found,
    )
    .map_err(|e| format!("library pattern `{pattern}`: {e}"))?;
    if found.is_empty() {
        return Err(format!(
            "library pattern `{pattern}` names no shader (looked in `{}`)",
            dir.display()
        ));
    }
    found.sort();
    if let Some(w) = found.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!(
            "library pattern `{pattern}`: `{}` and `{}` are both the shader `{}`; rename one or \
             narrow the pattern",
            w[0].1.display(),
            w[1].1.display(),
            w[0].0
        ));
    }
    Ok(found)
}

fn walk(
    dir: &Path,
    prefix: &str,
    recursive: bool,
    pattern: &str,
    depth: usize,
    entries: &mut usize,
    found: &mut Vec<(String, PathBuf)>,
) -> Result<(), String> {
    let read =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
    for entry in read {
        *entries += 1;
        if *entries > MAX_ENTRIES {
            return Err(format!(
                "more than {MAX_ENTRIES} directory entries to look through"
            ));
        }
        let entry = entry.map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let file_name = match entry.file_name().into_string() {
            Ok(name) => name,
            Err(raw) => {
                // A shader cannot be named by it: an error where it would
                // be one (or hold some), never a file silently left out.
                let lossy = raw.to_string_lossy().into_owned();
                if kind.is_dir() && recursive || !kind.is_dir() && matches(pattern, &lossy) {
                    return Err(format!(
                        "`{}` has a name that is not UTF-8: a library's shaders are named by \
                         their paths",
                        path.display()
                    ));
                }
                continue;
            }
        };
        if kind.is_dir() {
            if recursive {
                if depth + 1 > MAX_DEPTH {
                    return Err(format!(
                        "`{}` is deeper than {MAX_DEPTH} directories",
                        path.display()
                    ));
                }
                let sub = format!("{prefix}{file_name}/");
                walk(&path, &sub, recursive, pattern, depth + 1, entries, found)?;
            }
            continue;
        }
        // A link to a file counts; a link to a directory is not followed.
        if !path.is_file() || !matches(pattern, &file_name) {
            continue;
        }
        let stem = match file_name.rsplit_once('.') {
            Some((stem, _)) if !stem.is_empty() => stem,
            _ => file_name.as_str(),
        };
        found.push((format!("{prefix}{stem}"), path));
        if found.len() > MAX_SHADERS {
            return Err(format!("more than {MAX_SHADERS} shaders"));
        }
    }
    Ok(())
}

/// Whether `name` matches `pattern`, where `*` matches any run of characters.
fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return name == pattern;
    }
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// The module name of the shader `name`: snake case, `_` for anything else.
pub fn module_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) || s.is_empty() {
        s.insert(0, '_');
    }
    if syn_keyword(&s) {
        s.push('_');
    }
    s
}

/// The enum variant of the shader `name`: camel case.
pub fn variant_name(name: &str) -> String {
    let mut s = String::new();
    let mut upper = true;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(if upper { c.to_ascii_uppercase() } else { c });
            upper = false;
        } else {
            upper = true;
        }
    }
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'S');
    }
    // `Self`, and the enum's associated items a variant would clash with
    // (the methods are lower case, a variant never is).
    if matches!(s.as_str(), "Self" | "ALL") {
        s.push('_');
    }
    s
}

/// Rust's keywords that a module name may not be.
fn syn_keyword(s: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "box", "break", "const", "continue", "crate", "do", "dyn", "else",
        "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop",
        "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return", "self",
        "static", "struct", "super", "trait", "true", "try", "type", "typeof", "unsafe", "unsized",
        "use", "virtual", "where", "while", "yield", "_",
    ];
    KEYWORDS.contains(&s)
}

/// The items of the library module for the shaders `pattern` names (see
/// [`library_files`]), each built as `include_ncnn_shader!` builds one, with
/// `options`; several shaders build at once. `Err` holds every shader's
/// errors, one after another.
pub fn include_library(
    pattern: &str,
    caller_dir: &Path,
    library_dir: &Path,
    options: &ExpandOptions,
    krate: &TokenStream,
) -> Result<TokenStream, String> {
    let files = library_files(caller_dir, pattern)?;
    let mut idents: BTreeMap<String, &str> = BTreeMap::new();
    let mut variants: BTreeMap<String, &str> = BTreeMap::new();
    for (name, _) in &files {
        for (map, id) in [
            (&mut idents, module_name(name)),
            (&mut variants, variant_name(name)),
        ] {
            if let Some(other) = map.insert(id.clone(), name) {
                let path_of = |n: &str| {
                    files
                        .iter()
                        .find(|(f, _)| f == n)
                        .map_or(String::new(), |(_, p)| format!(" (`{}`)", p.display()))
                };
                return Err(format!(
                    "library pattern `{pattern}`: the shaders `{other}`{} and `{name}`{} both \
                     make the Rust name `{id}`; rename one",
                    path_of(other),
                    path_of(name)
                ));
            }
        }
    }
    // Sets build side by side, their variants too (`jobs::workers`); the
    // tokens are made on this thread (a macro's tokens stay on its thread).
    let krate_text = krate.to_string();
    let calls: Vec<Call> = files
        .iter()
        .map(|(name, path)| Call {
            form: Form::Module.name(),
            name,
            path,
            caller_dir,
            library_dir,
            options,
            krate: &krate_text,
        })
        .collect();
    let cache = default_cache();
    let work = |i: usize| prepare(&calls[i], cache.as_ref());
    let workers = jobs::workers(files.len());
    let ((), prepared) = jobs::pipeline(workers, work, |push| {
        (0..calls.len()).for_each(&mut *push);
        Ok::<(), String>(())
    })?;
    let mut errors = Vec::new();
    let mut modules = Vec::new();
    for (call, prepared) in calls.iter().zip(prepared) {
        let name = call.name;
        let items =
            prepared.and_then(|p| expand_call(Form::Module, call, cache.as_ref(), p, krate));
        match items {
            Ok(items) => {
                let m = format_ident!("{}", module_name(name));
                let doc = format!("The shader `{name}`: its variant set and typed host side.");
                modules.push(quote! {
                    #[doc = #doc]
                    #[allow(dead_code)]
                    pub mod #m { #items }
                });
            }
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let mods = names.iter().map(|n| format_ident!("{}", module_name(n)));
    let vars: Vec<_> = names
        .iter()
        .map(|n| format_ident!("{}", variant_name(n)))
        .collect();
    let docs = names.iter().map(|n| format!("`{n}`"));
    let n = names.len();
    let index = (0..n).map(proc_macro2::Literal::usize_unsuffixed);
    Ok(quote! {
        #(#modules)*

        /// The library's shaders, in the order of [`LIBRARY`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Shader {
            #(#[doc = #docs] #vars = #index,)*
        }

        impl Shader {
            /// Every shader, by index.
            pub const ALL: [Shader; #n] = [#(Shader::#vars),*];

            /// Its index in [`LIBRARY`].
            pub const fn index(self) -> usize {
                self as usize
            }

            /// Its name: its path below the library's directory, without the extension.
            pub fn name(self) -> &'static str {
                LIBRARY.names[self as usize]
            }

            /// Its variant set.
            pub fn set(self) -> &'static #krate::VariantSet {
                LIBRARY.sets[self as usize]
            }

            /// The shader named `name`.
            pub fn from_name(name: &str) -> ::std::option::Option<Shader> {
                LIBRARY.index_of(name).ok().map(|i| Shader::ALL[i])
            }
        }

        /// Every shader's variant set, by index ([`Shader`]) or by name.
        pub static LIBRARY: #krate::Library = #krate::Library {
            names: &[#(#names),*],
            sets: &[#(#mods::SET),*],
        };
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_rust_names() {
        assert_eq!(module_name("conv/3x3_pack4"), "conv_3x3_pack4");
        assert_eq!(module_name("3x3"), "_3x3");
        assert_eq!(module_name("Loop"), "loop_");
        assert_eq!(variant_name("conv/3x3_pack4"), "Conv3x3Pack4");
        assert_eq!(variant_name("q8ta_pixel_shuffle"), "Q8taPixelShuffle");
        assert_eq!(variant_name("1x1"), "S1x1");
        assert_eq!(variant_name("self"), "Self_");
        assert_eq!(variant_name("ALL"), "ALL_");
    }

    #[test]
    fn wildcards_match_in_the_last_component() {
        assert!(matches("*.comp", "a.comp"));
        assert!(matches("conv*.comp", "conv_3x3.comp"));
        assert!(!matches("conv*.comp", "pool.comp"));
        assert!(matches("*_pack4*", "relu_pack4.comp"));
        assert!(!matches("*.comp", "a.comp.bak"));
        assert!(matches("a.comp", "a.comp"));
    }

    #[test]
    fn patterns_find_files_sorted_and_refuse_what_they_cannot_take() {
        let dir = std::env::temp_dir().join(format!("ncnn-glsl-library-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for f in [
            "lib/b.comp",
            "lib/a.comp",
            "lib/x.glsl",
            "lib/sub/c.comp",
            "lib/sub/deep/d.comp",
        ] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "").unwrap();
        }
        let names = |pattern: &str| -> Result<Vec<String>, String> {
            library_files(&dir, pattern).map(|v| v.into_iter().map(|(n, _)| n).collect())
        };
        assert_eq!(names("lib").unwrap(), ["a", "b"]);
        assert_eq!(names("lib/*.comp").unwrap(), ["a", "b"]);
        assert_eq!(names("./lib/*.glsl").unwrap(), ["x"]);
        assert_eq!(
            names("lib/**/*.comp").unwrap(),
            ["a", "b", "sub/c", "sub/deep/d"]
        );
        let e = names("lib/*/c.comp").unwrap_err();
        assert!(
            e.contains("a `*` may stand only in the last component"),
            "{e}"
        );
        let e = names("nowhere/*.comp").unwrap_err();
        assert!(e.contains("is not a directory"), "{e}");
        let e = names("lib/*.frag").unwrap_err();
        assert!(e.contains("names no shader"), "{e}");
        // An absolute pattern is that directory, not one below the caller's.
        let absolute = format!("{}/lib/*.comp", dir.display());
        assert_eq!(
            library_files(Path::new("/nowhere"), &absolute)
                .unwrap()
                .into_iter()
                .map(|(n, p)| (n, p.starts_with(&dir)))
                .collect::<Vec<_>>(),
            [("a".to_string(), true), ("b".to_string(), true)]
        );
        // Two files of one name: both named.
        std::fs::create_dir_all(dir.join("two")).unwrap();
        for f in ["two/x.comp", "two/x.glsl"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let e = names("two/*").unwrap_err();
        assert!(
            e.contains("two/x.comp`") && e.contains("two/x.glsl`") && e.contains("shader `x`"),
            "{e}"
        );
        // A name that is not UTF-8: an error where the pattern would take it.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = std::ffi::OsStr::from_bytes(b"odd\xff.comp");
            std::fs::create_dir_all(dir.join("odd")).unwrap();
            std::fs::write(dir.join("odd").join(odd), "").unwrap();
            std::fs::write(dir.join("odd/fine.comp"), "").unwrap();
            let e = names("odd").unwrap_err();
            assert!(
                e.contains("odd\u{fffd}.comp") && e.contains("not UTF-8"),
                "{e}"
            );
            assert_eq!(names("odd/fine*").unwrap(), ["fine"]);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
