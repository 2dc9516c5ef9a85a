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
        match &self.span {
            None => write!(f, "error: {}", self.message)?,
            Some(s) => {
                write!(
                    f,
                    "{}:{}:{}: error: {}",
                    s.file, s.line, s.column, self.message
                )?;
                let gutter = s.line.to_string().len();
                let text = s.line_text.replace('\t', " ");
                write!(f, "\n{:gutter$} |\n{} | {}", "", s.line, text)?;
                let pad: String = text
                    .chars()
                    .take(s.column.saturating_sub(1) as usize)
                    .map(|_| ' ')
                    .collect();
                let carets = "^".repeat(s.len.max(1) as usize);
                write!(f, "\n{:gutter$} | {pad}{carets}", "")?;
            }
        }
        for n in &self.notes {
            write!(f, "\n  = note: {n}")?;
        }
        Ok(())
    }
}

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
