//! The C-style preprocessor that hands naga finished text.
//!
//! naga's own preprocessor lacks `#include`, `##`, `#x` and `#error` text, and
//! panics on some defines (docs/naga.md), so we expand everything
//! ourselves and keep a map from every position of the finished text back to
//! the file, line and column it came from.
//!
//! Written here rather than taken from `glsl-lang-pp`: that crate yields a token
//! stream without a column map back to macro use sites, and we must never panic.
//!
//! The output keeps the user's lines and columns where it can: comments become
//! spaces, dropped directives leave no line (`#version`, `#extension` and
//! `#pragma` stay), runs of blank lines shrink to one, and a macro's expansion
//! sits where its use was. `#line` is accepted and ignored: the map always
//! points at real lines. `__FILE__` is 0 (GLSL's source-string number).

mod directives;
mod expr;
mod lex;
mod macros;
mod output;

use std::path::PathBuf;

use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::source::{FileId, Loader, Location, SourceMap};

/// The finished text of one shader and how to map it back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preprocessed {
    /// The text naga is given.
    pub text: String,
    /// Positions of `text` back to sources.
    pub map: LineMap,
    /// Every file `#include` read from disk, in first-read order (for rebuilds).
    pub included: Vec<PathBuf>,
    /// Every macro name tested by `#if`, `#elif`, `#ifdef`, `#ifndef` or `defined`, where it was tested.
    pub tested: Vec<MacroTest>,
}

/// A macro name tested in a conditional directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroTest {
    /// The macro's name.
    pub name: String,
    /// Where the name appears.
    pub at: Location,
}

/// For each line of the finished text, which source position each run of columns came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineMap {
    /// `lines[i]` describes output line `i + 1`: segments sorted by `out_column`.
    pub lines: Vec<Vec<Segment>>,
}

/// A run of output columns starting at `out_column` that maps to `source`
/// (text copied verbatim advances the source column with the output column;
/// a macro expansion maps every column to the macro's use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// First output column (1-based) of the run.
    pub out_column: u32,
    /// Source position of that first column.
    pub source: Location,
    /// Whether later columns of the run advance the source column (verbatim text)
    /// or all map to `source` (a macro expansion).
    pub verbatim: bool,
}

impl LineMap {
    /// The source position of output `line`:`column` (both 1-based).
    pub fn locate(&self, line: u32, column: u32) -> Option<Location> {
        let segs = self.lines.get(line.checked_sub(1)? as usize)?;
        let seg = segs
            .iter()
            .rev()
            .find(|s| s.out_column <= column)
            .or_else(|| segs.first())?;
        let mut loc = seg.source;
        if seg.verbatim && column >= seg.out_column {
            loc.column += column - seg.out_column;
        }
        Some(loc)
    }
}

/// Preprocesses `main`, injecting the text of `prelude` right after `main`'s
/// `#version` line (docs/extension.md section 1). Included files are added to
/// `sources`. Never panics; every error points at a source position.
pub fn preprocess(
    sources: &mut SourceMap,
    main: FileId,
    prelude: Option<FileId>,
    loader: &dyn Loader,
    search_paths: &[PathBuf],
) -> Result<Preprocessed, Diagnostics> {
    let mut d = directives::Driver::new(sources, main, prelude, loader, search_paths);
    d.run();
    let directives::Driver {
        sources,
        out,
        included,
        tested,
        errors,
        ..
    } = d;
    if !errors.is_empty() {
        return Err(Diagnostics(
            errors
                .into_iter()
                .map(|e| Diagnostic::at(Span::at(sources, e.loc, e.len), e.msg))
                .collect(),
        ));
    }
    let (text, map) = out.finish();
    Ok(Preprocessed {
        text,
        map,
        included,
        tested,
    })
}

/// An error found while preprocessing, before it is resolved into a [`Diagnostic`].
#[derive(Clone, Debug)]
pub(crate) struct PpError {
    loc: Location,
    len: u32,
    msg: String,
    /// Processing cannot sensibly go on (limits hit, no `#version`).
    fatal: bool,
}

impl PpError {
    fn new(loc: Location, len: u32, msg: String) -> PpError {
        PpError {
            loc,
            len,
            msg,
            fatal: false,
        }
    }

    /// An error at `t`, underlining it (at the macro use when `t` came from an expansion).
    fn at(t: &lex::Token, msg: String) -> PpError {
        let len = if t.site.is_some() { 1 } else { t.width() };
        PpError::new(t.at(), len, msg)
    }

    fn fatal(mut self) -> PpError {
        self.fatal = true;
        self
    }
}

#[cfg(test)]
mod tests;
