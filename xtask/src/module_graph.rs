//! `cargo xtask module-graph [--check]`: the import graph of each crate's
//! modules, and its circles.
//!
//! A module's dependencies are the `crate::` and `super::` paths of its
//! file (test code excluded: `tests.rs`, `tests/`, and a trailing
//! `#[cfg(test)] mod tests`). A path names the deepest module it walks
//! through; a name that a module re-exports from a child (`pub use
//! child::Name`) counts as that child. Between the children of one module,
//! a dependency of `a` (or anything inside it) on `b` (or anything inside
//! it) is an edge `a -> b`; a module that uses an item its own parent
//! defines (not re-exports) is an edge up the tree. Either kind of circle
//! is reported with the lines that make it; `--check` fails on any.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates (and multi-file programs) whose module graphs are checked, by
/// source folder.
const CRATES: &[&str] = &[
    "ncnn-glsl-core/src",
    "ncnn-glsl-macros/src",
    "ncnn-glsl-runtime/src",
    "ncnn-glsl-q8ta/src",
    "bench/src",
    "bench/src/bin/q8ta_bench",
    "ncnn-glsl-cli/src",
    "testkit/src",
    "xtask/src",
];

/// A module path below the crate root (`[]` is the root).
type ModPath = Vec<String>;

/// Where a name another crate defines leads: no module of this one.
const EXTERNAL: [&str; 1] = ["<external>"];

/// One dependency, with the line that makes it.
struct Use {
    from: ModPath,
    to: ModPath,
    file: PathBuf,
    line: usize,
    text: String,
}

/// Prints each crate's sibling edges that form circles; with `check`, fails
/// when there is one.
pub fn module_graph(root: &Path, check: bool) -> Result<(), String> {
    let mut circles = Vec::new();
    for dir in CRATES {
        let src = root.join(dir);
        let files = module_files(&src)?;
        let uses = dependencies(&files)?;
        let found = find_circles(&uses);
        println!(
            "{dir}: {} modules, {} dependencies, {} circles",
            files.len(),
            uses.len(),
            found.len()
        );
        for c in &found {
            println!("  circle: {c}");
        }
        circles.extend(found.into_iter().map(|c| format!("{dir}: {c}")));
    }
    if check && !circles.is_empty() {
        return Err(format!(
            "{} circles in the module graph:\n{}",
            circles.len(),
            circles.join("\n")
        ));
    }
    Ok(())
}

/// Every non-test module file under `src`, by module path.
fn module_files(src: &Path) -> Result<BTreeMap<ModPath, PathBuf>, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                // Test modules, and binaries (each a crate of its own).
                if name != "tests" && name != "bin" {
                    stack.push(path);
                }
                continue;
            }
            let Some(stem) = name.strip_suffix(".rs") else {
                continue;
            };
            if stem == "tests" || stem.ends_with("_tests") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("below src");
            let mut m: ModPath = rel
                .parent()
                .into_iter()
                .flat_map(|p| p.iter())
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            if !matches!(stem, "mod" | "lib" | "main") {
                m.push(stem.to_string());
            }
            out.insert(m, path);
        }
    }
    Ok(out)
}

/// The code of a file without comments, string contents and its trailing
/// test module, line breaks kept.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            while i < b.len() && !b[i..].starts_with(b"*/") {
                if b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                if i < b.len() && b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// The `crate::`/`super::`/`self::` paths of `code`, and those that start
/// with the name of one of its `children` (`child::x`, as `self::child::x`),
/// with their lines, `use` groups expanded (`use crate::{a, b::c}` is
/// `crate::a` and `crate::b::c`).
fn paths_of(code: &str, children: &BTreeSet<&str>) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut line = 1;
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        let at_word = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let after_path = i >= 2 && &b[i - 2..i] == b"::";
        let head = ["crate::", "super::", "self::"]
            .into_iter()
            .map(|h| (h, h.trim_end_matches(':')))
            .find(|(h, _)| b[i..].starts_with(h.as_bytes()))
            .or_else(|| {
                children
                    .iter()
                    .find(|c| b[i..].starts_with(format!("{c}::").as_bytes()))
                    .map(|_| ("", "self"))
            });
        match head {
            Some((h, start)) if at_word && !after_path => {
                let (paths, end) = tree(code, i + h.len(), vec![start.to_string()]);
                out.extend(paths.into_iter().map(|p| (line, p)));
                line += code[i..end].matches('\n').count();
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// Reads a path (or a `{...}` group of them) after `prefix::` at `i`.
fn tree(code: &str, mut i: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let b = code.as_bytes();
    let mut path = prefix;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < b.len() && b[i] == b'{' {
            let mut out = Vec::new();
            i += 1;
            loop {
                while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
                    i += 1;
                }
                if i >= b.len() || b[i] == b'}' {
                    return (out, i + 1);
                }
                let (sub, end) = tree(code, i, path.clone());
                out.extend(sub);
                if end <= i {
                    return (out, i + 1);
                }
                i = end;
            }
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        if start == i {
            return (vec![path], i);
        }
        path.push(code[start..i].to_string());
        if b[i..].starts_with(b"::") {
            i += 2;
            continue;
        }
        // `name as alias`: the alias names nothing new.
        if code[i..].trim_start().starts_with("as ") {
            let rest = i + code[i..].find("as ").unwrap_or(0) + 3;
            let mut j = rest;
            while j < b.len() && (b[j].is_ascii_whitespace()) {
                j += 1;
            }
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            return (vec![path], j);
        }
        return (vec![path], i);
    }
}

/// What a name a module re-exports stands for.
#[derive(Clone, Debug, PartialEq)]
enum Reexport {
    /// An item of this child module.
    Child(String),
    /// An item of another crate: no dependency inside this one.
    External,
}

/// The names each module re-exports (`pub use child::{A, B}` makes `A` and
/// `B` stand for `child`; `pub use other_crate::C` makes `C` external).
fn reexports(
    files: &BTreeMap<ModPath, PathBuf>,
) -> Result<BTreeMap<ModPath, BTreeMap<String, Reexport>>, String> {
    let mut out = BTreeMap::new();
    for (m, file) in files {
        let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
        let code = code_of(&text);
        let mut names = BTreeMap::new();
        for stmt in code.split(';') {
            let s = stmt.trim();
            let Some(rest) = s
                .strip_prefix("pub use ")
                .or_else(|| s.strip_prefix("pub(crate) use "))
            else {
                continue;
            };
            let rest = rest.trim_start_matches("self::");
            let (first, _) = rest.split_once("::").unwrap_or((rest, ""));
            let mut sub = m.clone();
            sub.push(first.to_string());
            let what = if files.contains_key(&sub) {
                Reexport::Child(first.to_string())
            } else if matches!(first, "crate" | "super") {
                continue;
            } else {
                Reexport::External
            };
            let (paths, _) = tree(rest, 0, Vec::new());
            for p in paths {
                if let Some(last) = p.last() {
                    names.insert(last.clone(), what.clone());
                }
            }
        }
        out.insert(m.clone(), names);
    }
    Ok(out)
}

/// Every dependency of every module file.
fn dependencies(files: &BTreeMap<ModPath, PathBuf>) -> Result<Vec<Use>, String> {
    let reexports = reexports(files)?;
    let mut uses = Vec::new();
    for (m, file) in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let code = code_of(&text);
        let children: BTreeSet<&str> = files
            .keys()
            .filter(|k| k.len() == m.len() + 1 && k.starts_with(m))
            .map(|k| k[m.len()].as_str())
            .collect();
        for (line, path) in paths_of(&code, &children) {
            let mut at: ModPath = match path[0].as_str() {
                "crate" => Vec::new(),
                "super" => {
                    let mut p = m.clone();
                    p.pop();
                    p
                }
                _ => m.clone(),
            };
            let mut rest = &path[1..];
            while let Some((first, tail)) = rest.split_first() {
                if first == "super" {
                    at.pop();
                    rest = tail;
                    continue;
                }
                let mut next = at.clone();
                next.push(first.clone());
                if files.contains_key(&next) {
                    at = next;
                    rest = tail;
                    continue;
                }
                match reexports.get(&at).and_then(|r| r.get(first)) {
                    Some(Reexport::Child(child)) => at.push(child.clone()),
                    Some(Reexport::External) => {
                        at = EXTERNAL.iter().map(|s| s.to_string()).collect()
                    }
                    None => {}
                }
                break;
            }
            // A name the module itself defines, or another crate's.
            if at == *m || at == EXTERNAL {
                continue;
            }
            uses.push(Use {
                from: m.clone(),
                to: at,
                file: file.clone(),
                line,
                text: text.lines().nth(line - 1).unwrap_or("").trim().to_string(),
            });
        }
    }
    Ok(uses)
}

/// The circles among siblings, and between a module and one it contains
/// (the inner one uses an item the outer one defines, which uses the
/// inner one).
fn find_circles(uses: &[Use]) -> Vec<String> {
    let mut out = Vec::new();
    let mut up_seen: BTreeSet<(&ModPath, &ModPath)> = BTreeSet::new();
    // Edges between the children of each module: (parent, a, b) -> evidence.
    let mut edges: BTreeMap<(ModPath, String, String), &Use> = BTreeMap::new();
    for u in uses {
        let common = u.from.iter().zip(&u.to).take_while(|(a, b)| a == b).count();
        if common == u.from.len() {
            // Down into a module `from` contains: an edge only with one back up.
            continue;
        }
        if common == u.to.len() {
            // Up to an enclosing module's own item: a circle if that module
            // uses the branch `from` is in.
            let branch = &u.from[..=common];
            if !up_seen.insert((&u.from, &u.to)) {
                continue;
            }
            if let Some(down) = uses
                .iter()
                .find(|d| d.from == u.to && d.to.starts_with(branch))
            {
                out.push(format!(
                    "`{}` uses an item of `{}` ({}:{}: {}), which uses it ({}:{}: {})",
                    name(&u.from),
                    name(&u.to),
                    u.file.display(),
                    u.line,
                    u.text,
                    down.file.display(),
                    down.line,
                    down.text
                ));
            }
            continue;
        }
        let parent = u.from[..common].to_vec();
        let (a, b) = (u.from[common].clone(), u.to[common].clone());
        edges.entry((parent, a, b)).or_insert(u);
    }
    let parents: BTreeSet<ModPath> = edges.keys().map(|(p, _, _)| p.clone()).collect();
    for parent in parents {
        let graph: BTreeMap<&str, Vec<&str>> = edges.keys().filter(|(p, _, _)| *p == parent).fold(
            BTreeMap::new(),
            |mut g, (_, a, b)| {
                g.entry(a.as_str()).or_default().push(b.as_str());
                g
            },
        );
        for scc in strongly_connected(&graph) {
            let lines: Vec<String> = edges
                .iter()
                .filter(|((p, a, b), _)| {
                    *p == parent && scc.contains(&a.as_str()) && scc.contains(&b.as_str())
                })
                .map(|((_, a, b), u)| {
                    format!("{a} -> {b} ({}:{}: {})", u.file.display(), u.line, u.text)
                })
                .collect();
            out.push(format!("in `{}`: {}", name(&parent), lines.join("; ")));
        }
    }
    out
}

fn name(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        m.join("::")
    }
}

/// The strongly connected components of more than one node (Tarjan).
fn strongly_connected<'a>(graph: &BTreeMap<&'a str, Vec<&'a str>>) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(v: &'a str, g: &BTreeMap<&'a str, Vec<&'a str>>, s: &mut State<'a>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in g.get(v).map(Vec::as_slice).unwrap_or(&[]) {
            if !s.index.contains_key(w) {
                visit(w, g, s);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                s.out.push(scc);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(v, graph, &mut s);
        }
    }
    s.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_groups_and_paths_are_read() {
        let code = code_of(
            "use crate::a::{b, c::{d, e as f}};\n// crate::x\nfn g() { super::h::i(); \"crate::y\"; h::j(); x::h::k(); }\n",
        );
        let got: Vec<(usize, String)> = paths_of(&code, &BTreeSet::from(["h"]))
            .into_iter()
            .map(|(l, p)| (l, p.join("::")))
            .collect();
        assert_eq!(
            got,
            [
                (1, "crate::a::b".to_string()),
                (1, "crate::a::c::d".to_string()),
                (1, "crate::a::c::e".to_string()),
                (3, "super::h::i".to_string()),
                (3, "self::h::j".to_string()),
            ]
        );
    }

    #[test]
    fn a_circle_between_siblings_is_found() {
        let u = |from: &[&str], to: &[&str]| Use {
            from: from.iter().map(|s| s.to_string()).collect(),
            to: to.iter().map(|s| s.to_string()).collect(),
            file: PathBuf::from("f.rs"),
            line: 1,
            text: String::new(),
        };
        let uses = [u(&["a"], &["b"]), u(&["b", "x"], &["a"]), u(&["c"], &["a"])];
        let found = find_circles(&uses);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("a -> b") && found[0].contains("b -> a"),
            "{found:?}"
        );
        assert!(find_circles(&uses[..1]).is_empty());
        // An enclosing module's own item: a circle only when it uses the branch.
        assert!(find_circles(&[u(&["q", "op"], &["q"])]).is_empty());
        let up = find_circles(&[u(&["q", "op"], &["q"]), u(&["q"], &["q", "op"])]);
        assert_eq!(up.len(), 1, "{up:?}");
    }
}
