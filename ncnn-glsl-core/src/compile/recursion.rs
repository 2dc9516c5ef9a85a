//! Recursion, found in the tokens: GLSL forbids a function that calls itself,
//! directly or through others (glslang: "Recursion detected"), and naga's
//! GLSL frontend reports it as an unknown function (a call from its own
//! body) or as a module whose functions are out of order (through a
//! prototype), neither with the reason.

use std::collections::HashMap;

use super::source_text::{brace_depths, matching};
use super::tokens::{Kind, Token};

/// One function definition: its name and the token range of its body.
struct Definition<'s> {
    name: &'s str,
    body: std::ops::Range<usize>,
}

/// Definitions at global scope: `name ( ... ) {` with the `{` at depth 0.
fn definitions<'s>(src: &'s str, toks: &[Token]) -> Vec<Definition<'s>> {
    let depth = brace_depths(src, toks);
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < toks.len() {
        let named = depth[i] == 0 && toks[i].kind == Kind::Ident && toks[i + 1].is_punct(src, '(');
        let Some(close) = named
            .then(|| matching(src, toks, i + 1, '(', ')'))
            .flatten()
        else {
            i += 1;
            continue;
        };
        let open = close + 1;
        if !toks.get(open).is_some_and(|t| t.is_punct(src, '{')) {
            i = close + 1;
            continue;
        }
        let end = matching(src, toks, open, '{', '}').unwrap_or(toks.len() - 1);
        out.push(Definition {
            name: toks[i].text(src),
            body: open..end,
        });
        i = end + 1;
    }
    out
}

/// Every call that lies on a cycle of the call graph, in text order. Names
/// defined more than once (overloads) are left out: which one a call means
/// takes the argument types, and a call between overloads is no recursion.
pub(crate) fn recursive_calls(src: &str, toks: &[Token]) -> Vec<Token> {
    let defs = definitions(src, toks);
    // Each name defined once, with its definition.
    let mut by_name: HashMap<&str, Option<usize>> = HashMap::new();
    for (k, d) in defs.iter().enumerate() {
        by_name
            .entry(d.name)
            .and_modify(|e| *e = None)
            .or_insert(Some(k));
    }
    let once = |name: &str| by_name.get(name).copied().flatten();
    // For each definition: the definitions its body calls, with the call token.
    let calls: Vec<Vec<(usize, Token)>> = defs
        .iter()
        .map(|d| {
            d.body
                .clone()
                .filter(|&k| toks[k].kind == Kind::Ident)
                .filter(|&k| toks.get(k + 1).is_some_and(|n| n.is_punct(src, '(')))
                .filter_map(|k| Some((once(toks[k].text(src))?, toks[k])))
                .collect()
        })
        .collect();
    let reaches = |from: usize, to: usize| {
        let mut seen = vec![false; defs.len()];
        let mut stack = vec![from];
        while let Some(f) = stack.pop() {
            if f == to {
                return true;
            }
            if !std::mem::replace(&mut seen[f], true) {
                stack.extend(calls[f].iter().map(|(c, _)| *c));
            }
        }
        false
    };
    let mut out: Vec<Token> = Vec::new();
    for (f, list) in calls.iter().enumerate() {
        if once(defs[f].name).is_none() {
            continue;
        }
        for (callee, tok) in list {
            if reaches(*callee, f) {
                out.push(*tok);
            }
        }
    }
    out.sort_by_key(|t| t.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::tokens::tokenize;

    fn found(src: &str) -> Vec<usize> {
        let toks = tokenize(src);
        recursive_calls(src, &toks)
            .into_iter()
            .map(|t| src[..t.start].matches('\n').count() + 1)
            .collect()
    }

    #[test]
    fn direct_and_mutual_recursion_at_the_calls() {
        let direct = "int f(int x) {\n if (x <= 0) return 0;\n return f(x - 1) + 1;\n}\nvoid main() { int y = f(3); }";
        assert_eq!(found(direct), [3]);
        let mutual = "int g(int x);\nint f(int x) {\n return g(x);\n}\nint g(int x) {\n return f(x) + h(x);\n}\nint h(int x) { return x; }\nvoid main() { int y = f(3); }";
        assert_eq!(found(mutual), [3, 6]);
    }

    #[test]
    fn no_recursion_no_hits() {
        // Calls of earlier functions, constructors, builtins, a prototype, a
        // name shared by a variable, and overloads calling each other.
        let src = "int g(int x);\nint h(int x) { return max(x, 0); }\nint f(int x) { int f2 = h(x); return g(f2); }\n\
                   int g(int x) { return int(vec4(x).x); }\nfloat o(float x) { return x; }\nint o(int x) { return int(o(float(x))); }\n\
                   layout(binding = 0) buffer b { int d[]; };\nvoid main() { d[0] = f(1) + o(2); }";
        assert!(found(src).is_empty());
    }
}
