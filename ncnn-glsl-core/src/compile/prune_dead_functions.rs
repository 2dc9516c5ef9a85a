//! Functions that `main` never reaches are blanked before anything else.
//!
//! The extension's prelude defines every helper of a mode, used or not; in
//! packed modes some (`buffer_st1`'s compare-and-swap) need atomics, and in
//! fp16a some call builtins naga has no float16 overloads for. Blanked, an
//! unused helper can neither be refused nor fail in naga, and a shader pays
//! only for what it calls. Dead code never runs, so nothing is miscompiled;
//! the cost is that naga no longer checks unused user functions either.

use std::collections::{HashMap, HashSet};

use super::source_text::{brace_depths, overwrite};
use super::tokens::{Kind, Token};

/// One function definition or prototype at global scope.
struct Function {
    name: String,
    /// Byte range of the whole definition (return type to `}` or `;`).
    range: std::ops::Range<usize>,
    /// Token index range of the body, empty for a prototype.
    body: std::ops::Range<usize>,
}

/// Blanks the definitions and prototypes of functions unreachable from
/// `main` (and from calls in global initializers). Returns their names.
pub(crate) fn prune_dead_functions(text: &mut String, toks: &[Token]) -> Vec<String> {
    let src = text.clone();
    let depth = brace_depths(&src, toks);
    let functions = find_functions(&src, toks, &depth);
    if functions.is_empty() {
        return Vec::new();
    }
    let called_in = |range: std::ops::Range<usize>| -> Vec<&str> {
        range
            .filter(|&k| {
                toks[k].kind == Kind::Ident
                    && toks.get(k + 1).is_some_and(|n| n.is_punct(&src, '('))
            })
            .map(|k| toks[k].text(&src))
            .collect()
    };
    let mut calls: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut inside = vec![false; toks.len()];
    for f in &functions {
        calls
            .entry(f.name.as_str())
            .or_default()
            .extend(called_in(f.body.clone()));
        for k in f.body.clone() {
            inside[k] = true;
        }
    }
    // Roots: `main` and calls outside every function body (global initializers).
    let mut live: HashSet<&str> = HashSet::new();
    let mut todo: Vec<&str> = vec!["main"];
    todo.extend(
        (0..toks.len())
            .filter(|&k| !inside[k] && depth[k] == 0)
            .filter(|&k| {
                toks[k].kind == Kind::Ident
                    && toks.get(k + 1).is_some_and(|n| n.is_punct(&src, '('))
                    && !functions
                        .iter()
                        .any(|f| f.range.start <= toks[k].start && toks[k].end <= f.range.end)
            })
            .map(|k| toks[k].text(&src)),
    );
    while let Some(name) = todo.pop() {
        if live.insert(name) {
            todo.extend(calls.get(name).into_iter().flatten().copied());
        }
    }
    let mut pruned = Vec::new();
    for f in functions.iter().rev() {
        if !live.contains(f.name.as_str()) {
            overwrite(text, f.range.clone(), "");
            if !pruned.contains(&f.name) {
                pruned.push(f.name.clone());
            }
        }
    }
    pruned.reverse();
    pruned
}

/// Function definitions and prototypes at global scope: an identifier, `(`,
/// a parameter list, `)`, then `{ body }` or `;`, after a return type.
fn find_functions(src: &str, toks: &[Token], depth: &[u32]) -> Vec<Function> {
    let mut out = Vec::new();
    let mut start = 0; // first token of the current global declaration
    let mut k = 0;
    while k < toks.len() {
        let t = toks[k];
        if depth[k] == 0 && (t.is_punct(src, ';') || t.is_punct(src, '}')) {
            start = k + 1;
            k += 1;
            continue;
        }
        let candidate = depth[k] == 0
            && t.kind == Kind::Ident
            && k > start
            && toks[k - 1].kind == Kind::Ident
            && toks.get(k + 1).is_some_and(|n| n.is_punct(src, '('));
        if !candidate {
            k += 1;
            continue;
        }
        // The head must be type-like: no `=` (a global initializer calling a function).
        if toks[start..k]
            .iter()
            .any(|h| h.kind == Kind::Punct && !h.is_punct(src, '[') && !h.is_punct(src, ']'))
        {
            k += 1;
            continue;
        }
        let Some(close) = matching(src, toks, k + 1, '(', ')') else {
            break;
        };
        let Some(next) = toks.get(close + 1) else {
            break;
        };
        if next.is_punct(src, ';') {
            out.push(Function {
                name: t.text(src).to_string(),
                range: toks[start].start..next.end,
                body: 0..0,
            });
            start = close + 2;
            k = close + 2;
        } else if next.is_punct(src, '{') {
            let Some(end) = matching(src, toks, close + 1, '{', '}') else {
                break;
            };
            out.push(Function {
                name: t.text(src).to_string(),
                range: toks[start].start..toks[end].end,
                body: close + 2..end,
            });
            start = end + 1;
            k = end + 1;
        } else {
            k += 1;
        }
    }
    out
}

fn matching(src: &str, toks: &[Token], open: usize, o: char, c: char) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.is_punct(src, o) {
            depth += 1;
        } else if t.is_punct(src, c) {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    #[test]
    fn blanks_what_main_does_not_reach() {
        let src = "#version 450\n\
                   layout(binding = 0) buffer A { uint a[]; };\n\
                   void st1(uint i, uint v) { atomicCompSwap(a[i], 0u, v); }\n\
                   uint helper(uint x);\n\
                   uint helper(uint x) { return x + 1u; }\n\
                   uint twice(uint x) { return helper(helper(x)); }\n\
                   const uint k = 3u;\n\
                   void main() { a[0] = twice(k); }\n";
        let mut text = src.to_string();
        let pruned = prune_dead_functions(&mut text, &tokenize(src));
        assert_eq!(pruned, ["st1"]);
        assert_eq!(text.len(), src.len());
        assert_eq!(text.lines().count(), src.lines().count());
        assert!(!text.contains("atomicCompSwap") && text.contains("uint helper(uint x);"));
    }
}
