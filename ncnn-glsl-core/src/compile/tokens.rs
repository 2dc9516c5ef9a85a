//! A small GLSL tokenizer for the passes that run before naga.
//!
//! The passes only need identifiers, numbers, string literals and single
//! punctuation characters with their byte ranges, outside comments and
//! directive lines, so this is far simpler than a real lexer and never fails:
//! anything it does not know becomes a one-character punctuation token.

/// What kind of token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An identifier or keyword.
    Ident,
    /// A number literal, suffix included (`1.0hf`, `3u`).
    Number,
    /// A string literal, quotes included (GLSL has none; naga chokes on them).
    Str,
    /// One character of anything else.
    Punct,
}

/// One token: its kind and byte range in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
    /// For a bracket (`(`, `[`, `{` and their closers): the distance in
    /// tokens to its partner of the same kind, forward from an opener and
    /// backward from a closer; 0 for an unmatched bracket and any other
    /// token. Found once by [`tokenize`], so that the passes look a partner
    /// up instead of scanning for it (a scan per unclosed bracket is
    /// quadratic: 65536 unclosed `(` took 55 s).
    pub partner: usize,
}

impl Token {
    /// The token's text.
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }

    /// Whether this is the punctuation `c`.
    pub fn is_punct(&self, src: &str, c: char) -> bool {
        self.kind == Kind::Punct && src[self.start..].starts_with(c)
    }
}

/// Tokens of `src`, skipping comments, white space and whole directive lines
/// (`#version`, `#extension`: their words are not code).
pub(crate) fn tokenize(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // A `#` is a directive only as the first non-blank of a line.
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' && line_start {
            // To the end of the line, following backslash continuations.
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        line_start = false;
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i = (i + 2).min(b.len());
            continue;
        }
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            while i < b.len() {
                let d = b[i];
                let exp_sign = (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E');
                if d.is_ascii_alphanumeric() || d == b'.' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            Kind::Number
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            Kind::Str
        } else {
            // One char, whole (the text is UTF-8; never split a code point).
            i += src[i..].chars().next().map_or(1, char::len_utf8);
            Kind::Punct
        };
        // A string's closing quote or an escape may run past a line's end; keep ranges on char boundaries.
        while !src.is_char_boundary(i.min(b.len())) {
            i += 1;
        }
        i = i.min(b.len());
        out.push(Token {
            kind,
            start,
            end: i,
            partner: 0,
        });
    }
    pair_brackets(src, &mut out);
    out
}

/// Fills [`Token::partner`]: one stack per bracket kind, so each kind pairs
/// on its own, as a scan that counts only that kind would.
fn pair_brackets(src: &str, toks: &mut [Token]) {
    const PAIRS: [(u8, u8); 3] = [(b'(', b')'), (b'[', b']'), (b'{', b'}')];
    let mut open: [Vec<usize>; 3] = Default::default();
    for k in 0..toks.len() {
        if toks[k].kind != Kind::Punct {
            continue;
        }
        let c = src.as_bytes()[toks[k].start];
        for (p, &(o, cl)) in PAIRS.iter().enumerate() {
            if c == o {
                open[p].push(k);
            } else if c == cl {
                if let Some(j) = open[p].pop() {
                    toks[j].partner = k - j;
                    toks[k].partner = k - j;
                }
            }
        }
    }
}

/// The GLSL type names a declaration can start with (`float a[4][2]`
/// declares; `a[4][2]` after anything else indexes).
const TYPE_NAMES: &[&str] = &[
    "float",
    "double",
    "int",
    "uint",
    "bool",
    "float16_t",
    "vec2",
    "vec3",
    "vec4",
    "ivec2",
    "ivec3",
    "ivec4",
    "uvec2",
    "uvec3",
    "uvec4",
    "bvec2",
    "bvec3",
    "bvec4",
    "dvec2",
    "dvec3",
    "dvec4",
    "f16vec2",
    "f16vec3",
    "f16vec4",
    "mat2",
    "mat3",
    "mat4",
    "f16mat2",
    "f16mat3",
    "f16mat4",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
];

/// Whether `s` is a GLSL type name.
pub(crate) fn is_type_name(s: &str) -> bool {
    TYPE_NAMES.contains(&s)
}

/// Keywords that can stand before a name without being its type
/// (`return a[1][2];` indexes, it does not declare).
pub(crate) const NOT_TYPES: &[&str] = &[
    "return", "else", "case", "do", "if", "while", "for", "switch", "default", "break", "continue",
    "discard",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The partner found once is the one a scan that counts only that
    /// kind of bracket finds, in both directions, for every bracket of
    /// every string over `( ) [ ] { } x` up to length 7.
    #[test]
    fn partners_are_what_a_scan_finds() {
        let alphabet = ['(', ')', '[', ']', '{', '}', 'x'];
        let scan = |s: &[char], from: usize, step: isize| -> Option<usize> {
            let (o, c) = match s[from] {
                '(' | ')' => ('(', ')'),
                '[' | ']' => ('[', ']'),
                _ => ('{', '}'),
            };
            let (inc, dec) = if step > 0 { (o, c) } else { (c, o) };
            let mut depth = 0usize;
            let mut k = from as isize;
            while k >= 0 && (k as usize) < s.len() {
                let ch = s[k as usize];
                if ch == inc {
                    depth += 1;
                } else if ch == dec {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k as usize);
                    }
                }
                k += step;
            }
            None
        };
        for len in 1..=7u32 {
            for n in 0..7usize.pow(len) {
                let s: Vec<char> = (0..len).map(|d| alphabet[n / 7usize.pow(d) % 7]).collect();
                let src: String = s.iter().flat_map(|c| [*c, ' ']).collect();
                let toks = tokenize(&src);
                for (k, t) in toks.iter().enumerate() {
                    let want = match s[k] {
                        '(' | '[' | '{' => scan(&s, k, 1),
                        ')' | ']' | '}' => scan(&s, k, -1),
                        _ => None,
                    };
                    let got = (t.partner > 0).then(|| {
                        if "([{".contains(s[k]) {
                            k + t.partner
                        } else {
                            k - t.partner
                        }
                    });
                    assert_eq!(got, want, "{src:?} at {k}");
                }
            }
        }
    }

    #[test]
    fn skips_comments_and_directives() {
        let src = "#version 450\n#extension GL_EXT_x : require\n/* atomicAdd */ int a; // uint8_t\nfloat b = 1.5e-3hf;\"s\"";
        let toks: Vec<&str> = tokenize(src).iter().map(|t| t.text(src)).collect();
        assert_eq!(
            toks,
            ["int", "a", ";", "float", "b", "=", "1.5e-3hf", ";", "\"s\""]
        );
    }

    #[test]
    fn hash_inside_a_line_is_punctuation() {
        let src = "a # b";
        assert_eq!(tokenize(src).len(), 3);
    }
}
