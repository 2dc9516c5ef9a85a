//! A file's tokens as the driver reads them: line by line for directives,
//! token by token as the base of macro expansion.

use super::lex::{Kind, Token};
use super::macros::Base;

/// A file's tokens being read, as the base of macro expansion.
pub(crate) struct Cursor {
    pub toks: Vec<Token>,
    pub pos: usize,
    /// End (line, column) of the last token consumed.
    pub last: (u32, u32),
}

impl Cursor {
    /// Index of the token `next(skip_nl)` would return, if any.
    fn find(&self, skip_nl: bool) -> Option<usize> {
        let mut i = self.pos;
        loop {
            let t = self.toks.get(i)?;
            if skip_nl {
                if t.kind == Kind::Newline {
                    i += 1;
                    continue;
                }
                // A directive cannot be part of a macro invocation.
                if t.bol && t.is("#") {
                    return None;
                }
            }
            return Some(i);
        }
    }

    /// The tokens of the current line, its line end consumed.
    pub fn take_line(&mut self) -> Vec<Token> {
        let mut line = Vec::new();
        while let Some(t) = self.toks.get(self.pos) {
            self.pos += 1;
            if t.kind == Kind::Newline {
                break;
            }
            self.last = (t.end_line, t.end_col);
            line.push(t.clone());
        }
        line
    }

    /// After an error inside a line: continue at the next line (unless already at one).
    pub fn recover(&mut self) {
        if self.toks.get(self.pos).is_some_and(|t| t.bol) {
            return;
        }
        let _ = self.take_line();
    }
}

impl Base for Cursor {
    fn next(&mut self, skip_nl: bool) -> Option<Token> {
        let i = self.find(skip_nl)?;
        let mut t = self.toks.get(i)?.clone();
        if i > self.pos {
            // Skipped line ends separate tokens like spaces do.
            t.space = true;
        }
        self.pos = i + 1;
        if t.kind != Kind::Newline {
            self.last = (t.end_line, t.end_col);
        }
        Some(t)
    }

    fn peek_lparen(&self, skip_nl: bool) -> bool {
        self.find(skip_nl)
            .and_then(|i| self.toks.get(i))
            .is_some_and(|t| t.is("("))
    }
}
