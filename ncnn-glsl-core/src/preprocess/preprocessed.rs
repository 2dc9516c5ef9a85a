//! What preprocessing yields: the finished text, the map from every
//! position of it back to a source, the files read and the macros tested.

use std::path::PathBuf;

use crate::source::Location;

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
