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
    let graph: Vec<Vec<usize>> = calls
        .iter()
        .map(|l| l.iter().map(|(c, _)| *c).collect())
        .collect();
    let component = components(&graph);
    // A call lies on a cycle exactly when its callee is in its caller's
    // strongly connected component (a call of itself included).
    let mut out: Vec<Token> = Vec::new();
    for (f, list) in calls.iter().enumerate() {
        if once(defs[f].name).is_none() {
            continue;
        }
        for (callee, tok) in list {
            if component[*callee] == component[f] {
                out.push(*tok);
            }
        }
    }
    out.sort_by_key(|t| t.start);
    out
}

/// The strongly connected component of each node of `graph` (Kosaraju's
/// two passes, without recursion: a shader may define tens of thousands of
/// functions), in time linear in its nodes and edges.
fn components(graph: &[Vec<usize>]) -> Vec<usize> {
    let n = graph.len();
    // Pass 1: the nodes in the order their depth-first visits finish.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for root in 0..n {
        if std::mem::replace(&mut seen[root], true) {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        while let Some(top) = stack.len().checked_sub(1) {
            let (node, next) = stack[top];
            match graph[node].get(next) {
                Some(&m) => {
                    stack[top].1 += 1;
                    if !std::mem::replace(&mut seen[m], true) {
                        stack.push((m, 0));
                    }
                }
                None => {
                    order.push(node);
                    stack.pop();
                }
            }
        }
    }
    // Pass 2: over the reversed edges, latest finish first.
    let mut reversed = vec![Vec::new(); n];
    for (from, list) in graph.iter().enumerate() {
        for &to in list {
            reversed[to].push(from);
        }
    }
    let mut component = vec![usize::MAX; n];
    for (c, &root) in order.iter().rev().enumerate() {
        if component[root] != usize::MAX {
            continue;
        }
        component[root] = c;
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            for &m in &reversed[node] {
                if component[m] == usize::MAX {
                    component[m] = c;
                    stack.push(m);
                }
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::tokens::tokenize;

    /// The lines of the recursive calls. The calls come in text order: the
    /// newlines are counted once over the whole text, not once per call (a
    /// count from the start per call made the chain test quadratic).
    fn found(src: &str) -> Vec<usize> {
        let toks = tokenize(src);
        let (mut line, mut at) = (1, 0);
        recursive_calls(src, &toks)
            .into_iter()
            .map(|t| {
                line += src[at..t.start].matches('\n').count();
                at = t.start;
                line
            })
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
    fn a_long_chain_is_checked_in_linear_time() {
        // f1 calls f0, f2 calls f1, ...: each call's cycle check once
        // walked the chain below it. Timed as a ratio within the run (the
        // machine may be busy): 10 times the chain, about 10 times the time
        // when linear, 100 when quadratic. The best of 3 runs of each.
        let time = |n: usize| {
            let mut src: String = (1..n)
                .map(|k| format!("int f{k}(int x) {{ return f{}(x); }}\n", k - 1))
                .collect();
            src = format!("int f0(int x) {{ return x; }}\n{src}");
            let back = src.replace(
                "int f0(int x) { return x; }",
                &format!("int f0(int x) {{ return f{}(x); }}", n - 1),
            );
            (0..3)
                .map(|_| {
                    let t = std::time::Instant::now();
                    assert!(found(&src).is_empty());
                    assert_eq!(found(&back).len(), n);
                    t.elapsed()
                })
                .min()
                .unwrap()
        };
        let (short, long) = (time(2_000), time(20_000));
        let ratio = long.as_secs_f64() / short.as_secs_f64().max(1e-6);
        assert!(
            ratio < 35.0,
            "{short:?} for 2000, {long:?} for 20000: x{ratio:.1}"
        );
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
