//! Assembly: a user's shader, a target and (optionally) a device become the
//! finished text naga is given, with the way back to the user's files.

use std::path::PathBuf;

use crate::define::{Define, DEFINE_FILE_NAME};
use crate::device::DeviceCaps;
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::ext;
use crate::preprocess::{preprocess, Preprocessed};
use crate::source::{FileId, Loader, SourceFile, SourceMap};
use crate::target::Target;

/// The finished text of one shader for one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expanded {
    /// What it was expanded for.
    pub target: Target,
    /// The user's file, every file it included, and the extension prelude.
    pub sources: SourceMap,
    /// The user's file.
    pub main: FileId,
    /// The finished text and its map.
    pub pp: Preprocessed,
}

/// The display name of the virtual file that holds the extension prelude.
pub const PRELUDE_NAME: &str = "<ncnn glsl extension>";

impl Expanded {
    /// Text that is already finished (no extension, no preprocessing), mapped
    /// one to one onto `source`. For tests and for GLSL written without the extension.
    pub fn verbatim(source: SourceFile, target: Target) -> Expanded {
        use crate::preprocess::{LineMap, Segment};
        use crate::source::Location;
        let mut sources = SourceMap::new();
        let main = sources.add(source);
        let text = sources.get(main).text.clone();
        let lines = (1..=text.split('\n').count() as u32)
            .map(|line| {
                vec![Segment {
                    out_column: 1,
                    source: Location {
                        file: main,
                        line,
                        column: 1,
                    },
                    verbatim: true,
                }]
            })
            .collect();
        Expanded {
            target,
            sources,
            main,
            pp: Preprocessed {
                text,
                map: LineMap { lines },
                included: Vec::new(),
                tested: Vec::new(),
            },
        }
    }

    /// The finished GLSL.
    pub fn text(&self) -> &str {
        &self.pp.text
    }

    /// The source span of bytes `start..start + len` of the finished text
    /// (a naga span), mapped back through the preprocessor.
    pub fn span_of(&self, start: usize, len: usize) -> Option<Span> {
        let text = self.text();
        let start = start.min(text.len());
        let before = text.get(..start)?;
        let line = before.matches('\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = text.get(line_start..start)?.chars().count() as u32 + 1;
        let loc = self.pp.map.locate(line, column)?;
        let end = (start + len).min(text.len());
        let len = text
            .get(start..end)
            .map_or(1, |s| s.split('\n').next().unwrap_or("").chars().count())
            as u32;
        Some(Span::at(&self.sources, loc, len))
    }
}

/// What a caller adds to a shader besides its text: macros defined before
/// it (as `-D`) and the directories its `#include`s are looked for in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpandOptions {
    /// Defined after the extension's prelude, before the shader's text, in
    /// this order; no two may share a name.
    pub defines: Vec<Define>,
    /// Searched in order for `#include` files after the including file's own
    /// directory (for `"..."`), or alone (for `<...>`).
    pub include_dirs: Vec<PathBuf>,
}

impl ExpandOptions {
    /// No defines; `include_dirs` searched for includes.
    pub fn include(include_dirs: impl IntoIterator<Item = PathBuf>) -> ExpandOptions {
        ExpandOptions {
            defines: Vec::new(),
            include_dirs: include_dirs.into_iter().collect(),
        }
    }
}

/// Expands `source` for `target`: the prelude of the extension goes after the
/// `#version` line, then `options.defines`, then everything is preprocessed
/// into finished text. With `device`, its device macros are defined too.
pub fn expand(
    source: SourceFile,
    target: &Target,
    device: Option<&DeviceCaps>,
    loader: &dyn Loader,
    options: &ExpandOptions,
) -> Result<Expanded, Diagnostics> {
    expand_with(source, target, device, &[], loader, options)
}

/// [`expand`] with a variant's axis values defined after the option macros
/// (as the extension's own, before `options.defines`, which may not name
/// them: an axis takes each of its values in turn).
///
/// Preprocessing runs twice when the shader calls helper functions of the
/// extension: once to see which it calls, once with exactly those in the
/// prelude, so the finished text of a mode holds only the functions it uses.
pub fn expand_with(
    source: SourceFile,
    target: &Target,
    device: Option<&DeviceCaps>,
    axes: &[(&str, i64)],
    loader: &dyn Loader,
    options: &ExpandOptions,
) -> Result<Expanded, Diagnostics> {
    Define::check_unique(&options.defines).map_err(|e| Diagnostic::new(e.to_string()))?;
    if let Some(d) = options
        .defines
        .iter()
        .find(|d| axes.iter().any(|(a, _)| *a == d.name()))
    {
        return Err(Diagnostic::new(format!(
            "`{}` is defined (`{d}`), but it is an axis of the shader's variant set \
             (`#pragma ncnn_glsl axis`), which takes each of its declared values in turn",
            d.name()
        ))
        .into());
    }
    let mut prelude_text = ext::macro_prelude(target, device);
    for (name, value) in axes {
        prelude_text.push_str(&format!("#define {name} {value}\n"));
    }
    let first = run(
        source.clone(),
        *target,
        prelude_text.clone(),
        loader,
        options,
    )?;
    let helpers = ext::helper_functions(first.text());
    if helpers.is_empty() {
        return Ok(first);
    }
    prelude_text.push_str(&helpers);
    run(source, *target, prelude_text, loader, options)
}

fn run(
    source: SourceFile,
    target: Target,
    prelude_text: String,
    loader: &dyn Loader,
    options: &ExpandOptions,
) -> Result<Expanded, Diagnostics> {
    let mut sources = SourceMap::new();
    let main = sources.add(source);
    let prelude = sources.add(SourceFile {
        name: PRELUDE_NAME.to_string(),
        path: None,
        text: prelude_text,
    });
    let defines: Vec<FileId> = options
        .defines
        .iter()
        .map(|d| {
            sources.add(SourceFile {
                name: DEFINE_FILE_NAME.to_string(),
                path: None,
                text: d.spelling(),
            })
        })
        .collect();
    let pp = preprocess(
        &mut sources,
        main,
        Some(prelude),
        &defines,
        loader,
        &options.include_dirs,
    )?;
    Ok(Expanded {
        target,
        sources,
        main,
        pp,
    })
}
