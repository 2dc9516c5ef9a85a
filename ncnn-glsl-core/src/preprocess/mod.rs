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
mod error;
mod expr;
mod lex;
mod macros;
mod output;
mod preprocessed;

pub use preprocessed::{LineMap, MacroTest, Preprocessed, Segment};

use std::path::PathBuf;

use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::source::{FileId, Loader, SourceMap};

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

#[cfg(test)]
mod tests;
