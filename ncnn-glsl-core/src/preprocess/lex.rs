//! Splits a source text into preprocessing tokens, each with its position.
//!
//! Backslash-newline splices and comments are removed here, so later stages
//! only see tokens and explicit line ends; every token keeps the file, line
//! and column of its first char so the output can be mapped back.

use std::rc::Rc;

use crate::source::{FileId, Location};

/// What a token is, as far as the preprocessor cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Ident,
    /// A C "pp-number": integer or floating literal with any suffix.
    Number,
    Punct,
    /// `"..."`; GLSL has none, but `#include` and `#x` need them.
    Str,
    /// Any other char (non-ASCII, `@`, `$`, ...); passed through for naga to reject.
    Other,
    /// The end of a logical line (outside comments and splices).
    Newline,
    /// An empty macro argument next to `##` (C's placemarker); never emitted.
    Placemarker,
}

/// One preprocessing token.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub kind: Kind,
    /// Shared because macro expansion copies tokens a lot.
    pub text: Rc<str>,
    /// Where the first char is (for a macro body token: in the `#define`).
    pub loc: Location,
    /// Line and column just after the last char (differs from `loc.line` only across splices).
    pub end_line: u32,
    pub end_col: u32,
    /// Whitespace or a comment precedes it on its line.
    pub space: bool,
    /// First token of a logical line (where `#` starts a directive).
    pub bol: bool,
    /// Named a macro that was disabled when it was met: it never expands again (C's "painted blue").
    pub noexpand: bool,
    /// For tokens produced by a macro expansion: the user's use of the outermost macro.
    /// The output is laid out by it (the expansion sits where the use was).
    pub site: Option<Location>,
    /// For tokens that reached an expansion through a macro argument: where
    /// the user wrote them, and whether exactly (`false`: the use of an inner
    /// macro that produced them), so the output maps an error inside an
    /// argument to the argument rather than to the macro's name.
    pub origin: Option<(Location, bool)>,
}

impl Token {
    /// Whether this is punctuation `p`.
    pub fn is(&self, p: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == p
    }

    /// The use site that lays this token out: the macro use for expanded tokens.
    pub fn at(&self) -> Location {
        self.site.unwrap_or(self.loc)
    }

    /// Where the user sees this token, and whether its own text is there
    /// (`false`: a macro use stands for it): where the argument it came
    /// through was written, else its macro's use, else itself.
    pub fn place(&self) -> (Location, bool) {
        match (self.origin, self.site) {
            (Some(o), _) => o,
            (None, Some(site)) => (site, false),
            (None, None) => (self.loc, true),
        }
    }

    /// Chars to underline.
    pub fn width(&self) -> u32 {
        self.text.chars().count().max(1) as u32
    }

    /// A token made by the preprocessor itself (a number for `__LINE__`, a string for `#x`).
    pub fn synthetic(kind: Kind, text: &str, loc: Location) -> Token {
        Token {
            kind,
            text: Rc::from(text),
            loc,
            end_line: loc.line,
            end_col: loc.column,
            space: false,
            bol: false,
            noexpand: false,
            site: None,
            origin: None,
        }
    }
}

/// A lexing problem: where, how many chars, what.
#[derive(Clone, Debug)]
pub(crate) struct LexError {
    pub loc: Location,
    pub msg: String,
}

/// Length in chars of the punctuator starting with `a`, `b`, `c` (1 for any other punctuation).
fn punct_len(a: char, b: Option<char>, c: Option<char>) -> usize {
    match (a, b, c) {
        ('<', Some('<'), Some('=')) | ('>', Some('>'), Some('=')) | ('.', Some('.'), Some('.')) => {
            3
        }
        ('#', Some('#'), _)
        | ('<', Some('<'), _)
        | ('>', Some('>'), _)
        | ('&', Some('&'), _)
        | ('|', Some('|'), _)
        | ('^', Some('^'), _)
        | ('+', Some('+'), _)
        | ('-', Some('-' | '>'), _)
        | ('<' | '>' | '=' | '!' | '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^', Some('='), _) => {
            2
        }
        _ => 1,
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0b' | '\x0c' | '\r' | '\u{feff}')
}

/// The text of `file` as chars with their positions, splices and the `\r` of
/// `\r\n` removed, so the scanner below never has to think about either.
fn spliced(text: &str) -> Vec<(char, u32, u32, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(text.len());
    let (mut line, mut col) = (1u32, 1u32);
    let mut b = 0;
    while b < bytes.len() {
        let byte = bytes[b];
        let c = if byte.is_ascii() {
            byte as char
        } else {
            text.get(b..)
                .and_then(|r| r.chars().next())
                .unwrap_or('\u{fffd}')
        };
        let next = bytes.get(b + 1).copied();
        if c == '\\' {
            // A backslash followed by (optional \r and) \n disappears.
            let skip = match (next, bytes.get(b + 2)) {
                (Some(b'\n'), _) => 2,
                (Some(b'\r'), Some(b'\n')) => 3,
                _ => 0,
            };
            if skip > 0 {
                b += skip;
                line = line.saturating_add(1);
                col = 1;
                continue;
            }
        }
        if c == '\r' && next == Some(b'\n') {
            b += 1;
            col = col.saturating_add(1);
            continue;
        }
        out.push((c, line, col, b));
        if c == '\n' {
            line = line.saturating_add(1);
            col = 1;
        } else {
            col = col.saturating_add(1);
        }
        b += c.len_utf8();
    }
    out
}

/// Lexes `text` of `file`: tokens with a `Newline` token at the end of every
/// logical line, plus any errors (an unterminated block comment).
pub(crate) fn lex(file: FileId, text: &str) -> (Vec<Token>, Vec<LexError>) {
    let chars = spliced(text);
    let mut toks: Vec<Token> = Vec::with_capacity(chars.len() / 4 + 16);
    let mut errors = Vec::new();
    let mut i = 0;
    let mut space = false;
    let mut bol = true;
    // Shared spellings of line ends and one-char punctuation: fewer allocations.
    let newline: Rc<str> = Rc::from("\n");
    let mut puncts: Vec<Option<Rc<str>>> = vec![None; 128];
    let at = |i: usize| chars.get(i).map(|c| c.0);
    let loc_of = |i: usize| {
        let (_, line, column, _) = chars.get(i).copied().unwrap_or(('\0', 1, 1, 0));
        Location { file, line, column }
    };
    while i < chars.len() {
        let c = chars[i].0;
        if c == '\n' {
            let mut nl = Token::synthetic(Kind::Newline, "", loc_of(i));
            nl.text = newline.clone();
            toks.push(nl);
            i += 1;
            space = false;
            bol = true;
            continue;
        }
        if is_space(c) {
            i += 1;
            space = true;
            continue;
        }
        if c == '/' && at(i + 1) == Some('/') {
            while i < chars.len() && chars[i].0 != '\n' {
                i += 1;
            }
            space = true;
            continue;
        }
        if c == '/' && at(i + 1) == Some('*') {
            let start = i;
            i += 2;
            loop {
                match at(i) {
                    None => {
                        errors.push(LexError {
                            loc: loc_of(start),
                            msg: "unterminated comment".into(),
                        });
                        break;
                    }
                    Some('*') if at(i + 1) == Some('/') => {
                        i += 2;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
            space = true;
            continue;
        }
        let start = i;
        let kind;
        if is_ident_start(c) {
            while at(i).is_some_and(is_ident_continue) {
                i += 1;
            }
            kind = Kind::Ident;
        } else if c.is_ascii_digit() || (c == '.' && at(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            i += 1;
            while let Some(d) = at(i) {
                if matches!(d, 'e' | 'E' | 'p' | 'P') && matches!(at(i + 1), Some('+' | '-')) {
                    i += 2;
                } else if is_ident_continue(d) || d == '.' {
                    i += 1;
                } else {
                    break;
                }
            }
            kind = Kind::Number;
        } else if c == '"' {
            i += 1;
            loop {
                match at(i) {
                    None | Some('\n') => break,
                    Some('\\') if at(i + 1).is_some_and(|n| n != '\n') => i += 2,
                    Some('"') => {
                        i += 1;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
            kind = Kind::Str;
        } else if c.is_ascii_punctuation() {
            i += punct_len(c, at(i + 1), at(i + 2));
            kind = Kind::Punct;
        } else {
            i += 1;
            kind = Kind::Other;
        }
        let spelled = chars.get(start..i.min(chars.len())).unwrap_or(&[]);
        // Slice the source unless a splice runs through the token.
        let spelling: Rc<str> = match (spelled.first(), spelled.last()) {
            (Some(f), _) if kind == Kind::Punct && spelled.len() == 1 && f.0.is_ascii() => puncts
                .get_mut(f.0 as usize)
                .map(|slot| {
                    slot.get_or_insert_with(|| Rc::from(f.0.to_string()))
                        .clone()
                })
                .unwrap_or_else(|| Rc::from(f.0.to_string())),
            (Some(f), Some(l))
                if l.1 == f.1
                    && l.2.checked_sub(f.2).map(|d| d as usize + 1) == Some(spelled.len()) =>
            {
                let end = l.3 + l.0.len_utf8();
                Rc::from(text.get(f.3..end).unwrap_or(""))
            }
            _ => Rc::from(spelled.iter().map(|c| c.0).collect::<String>()),
        };
        let last = loc_of(i.saturating_sub(1).max(start));
        let end = Location {
            column: last.column.saturating_add(1),
            ..last
        };
        toks.push(Token {
            kind,
            text: spelling,
            loc: loc_of(start),
            end_line: end.line,
            end_col: end.column,
            space,
            bol,
            noexpand: false,
            site: None,
            origin: None,
        });
        space = false;
        bol = false;
    }
    (toks, errors)
}

/// The kind of `text` if it is exactly one token (the result of `##` must be).
pub(crate) fn single_token(text: &str) -> Option<Kind> {
    let (toks, errors) = lex(FileId(0), text);
    match toks.as_slice() {
        [t] if errors.is_empty() && !t.space && t.kind != Kind::Newline => Some(t.kind),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, String, u32, u32)> {
        lex(FileId(0), text)
            .0
            .into_iter()
            .map(|t| (t.kind, t.text.to_string(), t.loc.line, t.loc.column))
            .collect()
    }

    #[test]
    fn tokens_positions_and_comments() {
        let k = kinds("a /* x\n y */ b>>=1.5e-3 // c\n\"s\\\"\"");
        assert_eq!(
            k,
            vec![
                (Kind::Ident, "a".into(), 1, 1),
                (Kind::Ident, "b".into(), 2, 7),
                (Kind::Punct, ">>=".into(), 2, 8),
                (Kind::Number, "1.5e-3".into(), 2, 11),
                (Kind::Newline, "\n".into(), 2, 22),
                (Kind::Str, "\"s\\\"\"".into(), 3, 1),
            ]
        );
    }

    #[test]
    fn splices_and_crlf() {
        let k = kinds("ab\\\r\ncd\r\nx");
        assert_eq!(k[0], (Kind::Ident, "abcd".into(), 1, 1));
        assert_eq!(k[1].0, Kind::Newline);
        assert_eq!(k[2], (Kind::Ident, "x".into(), 3, 1));
    }

    #[test]
    fn unterminated_comment_is_an_error() {
        let (_, e) = lex(FileId(0), "x /* y");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].loc.column, 3);
    }

    #[test]
    fn single_tokens() {
        assert_eq!(single_token("ab"), Some(Kind::Ident));
        assert_eq!(single_token("<<="), Some(Kind::Punct));
        assert_eq!(single_token("a+"), None);
        assert_eq!(single_token("//"), None);
        assert_eq!(single_token(""), None);
    }
}
