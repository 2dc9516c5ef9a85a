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

mod cursor;
mod directives;
mod error;
mod expr;
pub(crate) mod lex;
mod macros;
mod output;
mod preprocessed;

pub use preprocessed::{LineMap, MacroTest, Preprocessed, Segment};

use std::path::PathBuf;

use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::source::{FileId, Loader, SourceMap};

/// Preprocesses `main`, injecting the text of `prelude` right after `main`'s
/// `#version` line (docs/extension.md section 1), then defining each of
/// `defines`: files whose whole text is one define as `-D` takes it, `NAME`
/// or `NAME=VALUE` (see [`crate::define`]). Included files are added to
/// `sources`. Never panics; every error points at a source position.
pub fn preprocess(
    sources: &mut SourceMap,
    main: FileId,
    prelude: Option<FileId>,
    defines: &[FileId],
    loader: &dyn Loader,
    search_paths: &[PathBuf],
) -> Result<Preprocessed, Diagnostics> {
    let mut d = directives::Driver::new(sources, main, prelude, defines, loader, search_paths);
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

/// Why `value` cannot be the body of an object-like macro defined from
/// outside the shader (`-D NAME=VALUE`), if it cannot: what the `#define` of
/// it would refuse, and line breaks, which would end the define early.
pub(crate) fn object_body_problem(value: &str) -> Option<String> {
    if value.contains(['\n', '\r']) {
        return Some("spans lines (a define is one line)".into());
    }
    let (toks, errors) = lex::lex(FileId(0), value);
    if !errors.is_empty() {
        return Some("has an unterminated comment".into());
    }
    let ends = [toks.first(), toks.last()];
    if ends.iter().flatten().any(|t| t.is("##")) {
        return Some("has `##` at an end (`##` joins two tokens)".into());
    }
    None
}

#[cfg(test)]
mod tests;
