//! Diagnostics: errors that point at the user's file, line and column,
//! with the source line and a caret, never at the assembled text.

use std::fmt;

use crate::source::{Location, SourceMap};

/// Where a diagnostic points, resolved to text so it can be printed alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The file's display name.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in chars.
    pub column: u32,
    /// Number of chars to underline (at least 1 when printed).
    pub len: u32,
    /// The text of the line.
    pub line_text: String,
}

impl Span {
    /// Resolves `loc` in `sources`, underlining `len` chars.
    pub fn at(sources: &SourceMap, loc: Location, len: u32) -> Span {
        Span {
            file: sources.get(loc.file).name.clone(),
            line: loc.line,
            column: loc.column,
            len,
            line_text: sources.line_text(loc.file, loc.line).to_string(),
        }
    }
}

/// One error, with where it is and any notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong, as one sentence.
    pub message: String,
    /// Where; `None` for errors about no place in particular (a bad mode, a missing file).
    pub span: Option<Span>,
    /// Extra lines: why, and what to do.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at no particular place.
    pub fn new(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span: None,
            notes: Vec::new(),
        }
    }

    /// An error at `span`.
    pub fn at(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span: Some(span),
            notes: Vec::new(),
        }
    }

    /// Adds a note.
    #[must_use]
    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line:column: error: message`, the line, a caret under the place, notes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = printable(&self.message, true);
        match &self.span {
            None => write!(f, "error: {message}")?,
            Some(s) => {
                write!(
                    f,
                    "{}:{}:{}: error: {message}",
                    printable(&s.file, false),
                    s.line,
                    s.column
                )?;
                let gutter = s.line.to_string().len();
                let line = s.line_text.replace('\t', " ");
                let text = printable(&line, false);
                write!(f, "\n{:gutter$} |\n{} | {}", "", s.line, text)?;
                let before: String = line
                    .chars()
                    .take(s.column.saturating_sub(1) as usize)
                    .collect();
                let pad = " ".repeat(printable(&before, false).chars().count());
                let carets = "^".repeat(s.len.max(1) as usize);
                write!(f, "\n{:gutter$} | {pad}{carets}", "")?;
            }
        }
        for n in &self.notes {
            write!(f, "\n  = note: {}", printable(n, true))?;
        }
        Ok(())
    }
}

/// `s` with its control characters (but line feeds, where `newlines`)
/// written as `\u{..}` escapes: a message, a file name or a line of a
/// hostile file (`#error` text with escape sequences) cannot move the cursor,
/// recolour or retitle the terminal that shows it.
fn printable(s: &str, newlines: bool) -> std::borrow::Cow<'_, str> {
    // Cc, and the format characters that reorder or break what is shown
    // (bidirectional overrides and isolates, line and paragraph separators).
    let bad = |c: char| {
        (c.is_control() && !(newlines && c == '\n'))
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
    };
    if !s.chars().any(bad) {
        return s.into();
    }
    s.chars()
        .map(|c| {
            if bad(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// `s` with its control characters but line feeds (and the format
/// characters that reorder text) written as `\u{..}` escapes: for messages
/// that hold text from outside (a driver's device name, a path), printed by
/// the runtime and the command line as diagnostics are.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    printable(s, true)
}

/// The most errors one step reports: after this many the rest would mostly
/// be noise, and each costs a look-up of its line (65536 refused string
/// literals in one shader took a minute to report).
pub const MAX_ERRORS: usize = 50;

/// Every error of one failed step, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// One error.
    pub fn one(d: Diagnostic) -> Diagnostics {
        Diagnostics(vec![d])
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Diagnostics {
        Diagnostics::one(d)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_caret_follows() {
        let d = Diagnostic::at(
            Span {
                file: "a.comp".into(),
                line: 2,
                column: 12,
                len: 1,
                line_text: "#error \u{1b}]0;x\u{7}!".into(),
            },
            "#error: \u{1b}]0;pwned\u{7}\u{1b}[2J",
        )
        .note("\u{1b}[31mred");
        let out = d.to_string();
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
        assert!(
            out.contains("#error: \\u{1b}]0;pwned\\u{7}\\u{1b}[2J"),
            "{out}"
        );
        assert!(out.contains("note: \\u{1b}[31mred"), "{out}");
        // The caret sits under the `x` after the escape (6 chars wide).
        let lines: Vec<&str> = out.lines().collect();
        let col = |l: &str, c: char| l.find(c).unwrap();
        assert_eq!(col(lines[2], 'x'), col(lines[3], '^'), "{out}");
    }

    #[test]
    fn renders_file_line_column_and_caret() {
        let d = Diagnostic::at(
            Span {
                file: "a.comp".into(),
                line: 12,
                column: 5,
                len: 3,
                line_text: "    foo(x);".into(),
            },
            "unknown function `foo`",
        )
        .note("did you mean `floor`?");
        assert_eq!(
            d.to_string(),
            "a.comp:12:5: error: unknown function `foo`\n   |\n12 |     foo(x);\n   |     ^^^\n  = note: did you mean `floor`?"
        );
    }
}
