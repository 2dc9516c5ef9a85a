//! Multi-dimensional array declarations. naga's GLSL frontend wraps the
//! type once per `[N]` in the order written, so the last dimension written
//! becomes the outermost: `T a[4][16]` is 16 arrays of 4, where GLSL means 4
//! arrays of 16, and every access is wrong (2,304 of 4,096 words, measured).
//! With dimensions on both the type and the name, naga reads each side
//! reversed, the type's first (`T[K] a[N][M]`: M arrays of N arrays of
//! K-arrays), where GLSL means the name's dimensions, then the type's, in
//! order (N of M of K).
//!
//! This pass rewrites a declaration with two or more dimensions to the form
//! naga reads right, accesses unchanged: the GLSL dimensions `d1..dk`
//! (outermost first) become `T[dk] a[dk-1]...[d1]`. naga wraps `dk` first,
//! then `dk-1` up to `d1`, the outermost; `T a[N][M];` becomes
//! `T[M] a[N];`, `T a[N][M][K];` becomes `T[K] a[M][N];`. Only a declaration
//! of one name ending at its `;`, on one line, without comments inside,
//! sized dimensions: the rest (a list `T a[2][3], b;`, parameters, an
//! initializer, `T a[][3]`) stays refused by the table (`reject.rs`).

use super::source_text::{matching, overwrite};
use super::tokens::{Kind, Token, NOT_TYPES};

/// A rewritable declaration: byte range to rewrite and its replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rewrite {
    pub range: std::ops::Range<usize>,
    pub with: String,
}

/// The `[ ... ]` groups from token `at` on: their (open, close) indices.
fn dims(src: &str, toks: &[Token], mut at: usize) -> Option<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    while toks.get(at).is_some_and(|t| t.is_punct(src, '[')) {
        let close = matching(src, toks, at, '[', ']')?;
        out.push((at, close));
        at = close + 1;
    }
    Some(out)
}

/// Every declaration of `src` with two or more array dimensions that naga
/// would read in another order, with its rewrite.
pub(crate) fn rewrites(src: &str, toks: &[Token]) -> Vec<Rewrite> {
    let mut out = Vec::new();
    for i in 0..toks.len() {
        let ty = toks[i];
        if ty.kind != Kind::Ident || NOT_TYPES.contains(&ty.text(src)) {
            continue;
        }
        // Where the type's dimensions follow a `]`, the type is the token
        // before them; a name after `]` alone is an access (`a[i] b`).
        if i > 0 && toks[i - 1].is_punct(src, ']') {
            continue;
        }
        let Some(type_dims) = dims(src, toks, i + 1) else {
            continue;
        };
        let at = type_dims.last().map_or(i + 1, |&(_, c)| c + 1);
        let Some(name) = toks.get(at).filter(|t| t.kind == Kind::Ident) else {
            continue;
        };
        let Some(name_dims) = dims(src, toks, at + 1) else {
            continue;
        };
        let end = name_dims.last().map_or(at + 1, |&(_, c)| c + 1);
        let ends = toks.get(end).is_some_and(|t| t.is_punct(src, ';'));
        // One dimension on each side, or on one only, naga reads right.
        if !ends || (type_dims.len() < 2 && name_dims.len() < 2) {
            continue;
        }
        // GLSL's order: the name's dimensions, then the type's.
        let all: Vec<(usize, usize)> = name_dims.iter().chain(&type_dims).copied().collect();
        if all.iter().any(|&(o, c)| c == o + 1) {
            continue;
        }
        let range = ty.end..toks[end - 1].end;
        // Only tokens and plain spaces: no comment or line break to scramble.
        let covered: usize = toks[i + 1..end].iter().map(|t| t.end - t.start).sum();
        let gaps = &src[range.clone()];
        let plain =
            gaps.bytes().filter(|b| *b == b' ' || *b == b'\t').count() + covered == range.len();
        if !plain {
            continue;
        }
        let dim = |&(o, c): &(usize, usize)| &src[toks[o].start..toks[c].end];
        let (last, rest) = all.split_last().expect("two or more dimensions");
        let outer: String = rest.iter().rev().map(dim).collect();
        let with = format!("{} {}{}", dim(last), name.text(src), outer);
        if with.len() > range.len() {
            continue;
        }
        out.push(Rewrite { range, with });
    }
    out
}

/// Rewrites them in place (same length); returns how many.
pub(crate) fn rewrite_array_dims(text: &mut String, toks: &[Token]) -> usize {
    let src = text.clone();
    let all = rewrites(&src, toks);
    for r in &all {
        overwrite(text, r.range.clone(), &r.with);
    }
    all.len()
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    fn rewritten(src: &str) -> String {
        let mut t = src.to_string();
        rewrite_array_dims(&mut t, &tokenize(src));
        assert_eq!(t.len(), src.len());
        t.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn two_dims_on_the_name_move_one_into_the_type() {
        assert_eq!(
            rewritten("shared uvec2 tmp[4][16];"),
            "shared uvec2[16] tmp[4];"
        );
        assert_eq!(
            rewritten("void main() { float a [2] [N * 3]; a[1][2] = 0.0; }"),
            "void main() { float[N * 3] a[2] ; a[1][2] = 0.0; }"
        );
    }

    #[test]
    fn three_and_more_dims_and_dims_on_both_sides() {
        for (src, want) in [
            ("shared uint t[2][3][4];", "shared uint[4] t[3][2];"),
            ("shared float[4] t[2][3];", "shared float[4] t[3][2];"),
            ("float[2][3] b;", "float[3] b[2];"),
            ("shared vec4[5][6] t[2];", "shared vec4[6] t[5][2];"),
            ("uint t[2][3][4][5];", "uint[5] t[4][3][2];"),
        ] {
            assert_eq!(rewritten(src), want, "{src}");
        }
    }

    #[test]
    fn other_forms_are_left_for_the_refusal() {
        for src in [
            "float[4] a[2];",
            "float a[2];",
            "float a[2][3], b;",
            "void f(float a[2][3]) {}",
            "float a[2][/* x */ 3];",
            "float a[2]\n[3];",
            "float a[][3];",
            "float a[2][3] = float[2][3](float[3](0.0, 0.0, 0.0), float[3](0.0, 0.0, 0.0));",
            "x = a[1][2];",
            "return a[1][2];",
            "x = a[1][2] [3];",
        ] {
            assert_eq!(
                rewritten(src),
                src.split_whitespace().collect::<Vec<_>>().join(" "),
                "{src}"
            );
        }
    }
}
