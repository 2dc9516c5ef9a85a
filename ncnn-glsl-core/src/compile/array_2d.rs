//! 2-D array declarations: naga's GLSL frontend reverses the dimensions of
//! `T a[4][16]` (it builds 16 arrays of 4), so every access is wrong (2,304
//! of 4,096 words, measured). It reads `T[16] a[4]`, the same GLSL type,
//! right. This pass rewrites a declaration `T a[N][M];` to `T[M] a[N];`,
//! accesses unchanged. Anything else with two or more dimensions (three or
//! more, `T[N][M] a`, a list `T a[2][3], b;`, parameters, comments inside)
//! stays refused by the table (`reject.rs`).

use super::source_text::{matching, overwrite};
use super::tokens::{Kind, Token, NOT_TYPES};

/// A rewritable declaration: byte range to rewrite and its replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rewrite {
    pub range: std::ops::Range<usize>,
    pub with: String,
}

/// Every `T a[N][M];` declaration of `src`, with its rewrite.
pub(crate) fn rewrites(src: &str, toks: &[Token]) -> Vec<Rewrite> {
    let mut out = Vec::new();
    for i in 2..toks.len() {
        let (ty, name, open) = (toks[i - 2], toks[i - 1], toks[i]);
        if !open.is_punct(src, '[')
            || name.kind != Kind::Ident
            || ty.kind != Kind::Ident
            || NOT_TYPES.contains(&ty.text(src))
        {
            continue;
        }
        let Some(close_a) = matching(src, toks, i, '[', ']') else {
            continue;
        };
        if !toks.get(close_a + 1).is_some_and(|t| t.is_punct(src, '[')) {
            continue;
        }
        let Some(close_b) = matching(src, toks, close_a + 1, '[', ']') else {
            continue;
        };
        let ends = toks.get(close_b + 1).is_some_and(|t| t.is_punct(src, ';'));
        let empty = close_a == i + 1 || close_b == close_a + 2;
        let range = ty.end..toks[close_b].end;
        // Only tokens and plain spaces: no comment or line break to scramble.
        let covered: usize = toks[i - 1..=close_b].iter().map(|t| t.end - t.start).sum();
        let gaps = &src[range.clone()];
        let plain =
            gaps.bytes().filter(|b| *b == b' ' || *b == b'\t').count() + covered == range.len();
        if !ends || empty || !plain {
            continue;
        }
        let dim = |a: usize, b: usize| &src[toks[a].start..toks[b].end];
        let with = format!(
            "{} {}{}",
            dim(close_a + 1, close_b),
            name.text(src),
            dim(i, close_a)
        );
        if with.len() > range.len() {
            continue;
        }
        out.push(Rewrite { range, with });
    }
    out
}

/// Rewrites them in place (same length); returns how many.
pub(crate) fn rewrite_2d_arrays(text: &mut String, toks: &[Token]) -> usize {
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
        rewrite_2d_arrays(&mut t, &tokenize(src));
        assert_eq!(t.len(), src.len());
        t.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn two_dims_swap_into_the_type() {
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
    fn other_forms_are_left_for_the_refusal() {
        for src in [
            "shared uint t[2][3][4];",
            "float[2][3] b;",
            "float a[2][3], b;",
            "void f(float a[2][3]) {}",
            "float a[2][/* x */ 3];",
            "float a[2]\n[3];",
            "float a[][3];",
            "x = a[1][2];",
            "return a[1][2];",
        ] {
            assert_eq!(
                rewritten(src),
                src.split_whitespace().collect::<Vec<_>>().join(" "),
                "{src}"
            );
        }
    }
}
