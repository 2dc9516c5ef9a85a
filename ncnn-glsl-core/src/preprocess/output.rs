//! Writes the finished text and its [`LineMap`] together, so they cannot disagree.
//!
//! Text copied from a source keeps its line structure and columns (comments
//! become spaces, indentation is kept), a directive that is dropped leaves no
//! line, and runs of blank lines shrink to one, so snapshots stay readable.

use super::lex::{Kind, Token};
use super::preprocessed::{LineMap, Segment};
use crate::source::{FileId, Location};

/// The finished text may not grow beyond this.
pub(crate) const MAX_OUTPUT: usize = 64 << 20;

#[derive(Default)]
pub(crate) struct Emitter {
    pub text: String,
    lines: Vec<Vec<Segment>>,
    /// Next output column on the current line (1-based).
    col: u32,
    /// End of the last source token consumed: file, line, column after it.
    last: Option<(FileId, u32, u32)>,
    /// Use site of the last emitted token when it came from an expansion.
    prev_site: Option<Location>,
    /// Where the last emitted token ended in its own text, and whether it was a number.
    prev_end: Option<(FileId, u32, u32)>,
    prev_number: bool,
}

impl Emitter {
    pub fn new() -> Emitter {
        Emitter {
            lines: vec![Vec::new()],
            col: 1,
            ..Emitter::default()
        }
    }

    /// Records that source text up to `line`:`col` of `file` was consumed
    /// (emitted, or dropped as a directive), so the next token knows whether it
    /// continues this line, starts the next one, or follows blank lines.
    pub fn touch(&mut self, file: FileId, line: u32, col: u32) {
        self.last = Some((file, line, col));
    }

    fn newline(&mut self) {
        self.text.push('\n');
        self.lines.push(Vec::new());
        self.col = 1;
    }

    fn push_segment(&mut self, seg: Segment) {
        let Some(segs) = self.lines.last_mut() else {
            return;
        };
        if let Some(last) = segs.last() {
            let continues = if seg.verbatim {
                last.verbatim
                    && last.source.file == seg.source.file
                    && last.source.line == seg.source.line
                    && seg.out_column.checked_sub(last.out_column)
                        == seg.source.column.checked_sub(last.source.column)
            } else {
                !last.verbatim && last.source == seg.source
            };
            if continues {
                return;
            }
            if last.out_column == seg.out_column {
                segs.pop();
            }
        }
        segs.push(seg);
    }

    /// Appends `t`: verbatim at its own position, or (when it came from a
    /// macro expansion) mapped to the macro's use. Errs when the text is too big.
    pub fn emit(&mut self, t: &Token) -> Result<(), String> {
        let anchor = t.site.unwrap_or(t.loc);
        let continuing = t.site.is_some() && self.prev_site == t.site;
        let mut pad = u32::from(t.space);
        if !continuing {
            match self.last {
                Some((f, l, end)) if f == anchor.file && l == anchor.line && self.col > 1 => {
                    pad = anchor.column.saturating_sub(end);
                }
                Some((f, l, _)) if f == anchor.file && l == anchor.line => {}
                Some((f, l, _)) => {
                    if self.col > 1 {
                        self.newline();
                    }
                    let gap = f == anchor.file && anchor.line > l.saturating_add(1);
                    if gap && !self.text.is_empty() && !self.text.ends_with("\n\n") {
                        self.newline();
                    }
                }
                None => {}
            }
        }
        if self.col == 1 {
            pad = anchor.column.saturating_sub(1);
            if pad > 0 {
                self.push_segment(Segment {
                    out_column: 1,
                    source: Location {
                        column: 1,
                        ..anchor
                    },
                    verbatim: true,
                });
            }
        } else if pad == 0
            && self.prev_end != Some((t.loc.file, t.loc.line, t.loc.column))
            && self.text.chars().next_back().is_some_and(|p| {
                t.text
                    .chars()
                    .next()
                    .is_some_and(|n| would_join(self.prev_number, p, n))
            })
        {
            // Tokens that were apart in their sources must not fuse in the output (`- -1`).
            pad = 1;
        }
        // Indentation is capped so a token at column 10000 does not cost 10000 spaces.
        let pad = pad.min(256);
        self.text.extend(std::iter::repeat_n(' ', pad as usize));
        self.col = self.col.saturating_add(pad);
        // Laid out at its use, but mapped to where the user sees it: a token
        // of a macro argument maps to the argument.
        let (source, verbatim) = t.place();
        self.push_segment(Segment {
            out_column: self.col,
            source,
            verbatim,
        });
        self.text.push_str(&t.text);
        self.col = self.col.saturating_add(t.width());
        self.prev_site = t.site;
        self.prev_end = Some((t.loc.file, t.end_line, t.end_col));
        self.prev_number = t.kind == Kind::Number;
        if self.text.len() > MAX_OUTPUT {
            return Err(format!(
                "the preprocessed text is larger than {} MiB",
                MAX_OUTPUT >> 20
            ));
        }
        Ok(())
    }

    /// The text (ending with a line break) and one map entry per line.
    pub fn finish(mut self) -> (String, LineMap) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.newline();
        }
        (self.text, LineMap { lines: self.lines })
    }
}

/// Whether a token ending in `a` (a number if `number`) and one starting with
/// `b` could lex differently when written together.
fn would_join(number: bool, a: char, b: char) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let op = |c: char| "+-*/%<>=!&|^".contains(c);
    (word(a) && word(b))
        || (op(a) && op(b))
        || (a == '.' && b.is_ascii_digit())
        || (number && b == '.')
        || (a == '#' && b == '#')
}
