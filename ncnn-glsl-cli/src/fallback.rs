//! A single-mode compile falls back as a variant set does: where the asked
//! target's column cannot be built for the shader (a name it uses is
//! defined there with a type naga lacks, `compile/inexpressible.rs`), the
//! set leaves that variant out and a device that would run it runs the
//! first target of the fallback order the set holds; `compile` builds that
//! one instead, so the CLI's blob for a device is the one the macro ships.

use ncnn_glsl_core::compile::inexpressible::Inexpressible;
use ncnn_glsl_core::expand::PRELUDE_NAME;
use ncnn_glsl_core::source::SourceMap;
use ncnn_glsl_core::variant::build::{left_out_of, text_usage};
use ncnn_glsl_core::variant::{canonical, decl, fallback_order, space, Usage};
use ncnn_glsl_core::{Expanded, Target};

/// What the set runs instead of a left-out variant: the expansion, and the
/// table row that left the asked one out.
pub struct Instead {
    /// The expansion of the target the set runs.
    pub expanded: Expanded,
    /// Why the asked target is left out.
    pub why: &'static Inexpressible,
}

impl Instead {
    /// The note for stderr, on one line: the target asked for, the one
    /// built, and why.
    pub fn note(&self, asked: Target) -> String {
        format!(
            "note: `{asked}` cannot be built for this shader ({}), and its variant set leaves it \
             out; compiling `{}`, the variant the set runs instead ({})",
            self.why.reason, self.expanded.target, self.why.instead
        )
    }
}

/// `None` where `asked` can be built; else the expansion of the target the
/// shader's variant set runs in its place: the first of the fallback order
/// (from `asked` reduced to what the shader can tell apart) that the set
/// holds, that is, one of its targets that the declaration does not exclude
/// and that is not left out itself. `expand` expands `source` for a target,
/// with the same defines, axes and device as `asked`.
pub fn instead(
    source: &ncnn_glsl_core::SourceFile,
    asked: &Expanded,
    expand: impl Fn(Target) -> Result<Expanded, String>,
) -> Result<Option<Instead>, String> {
    let Some(why) = left_out_of(asked) else {
        return Ok(None);
    };
    let mut sources = SourceMap::new();
    let id = sources.add(source.clone());
    let declaration = decl::parse(&sources, id).map_err(|d| d.to_string())?;
    // What the shader and the files it includes use, as the set surveys it.
    let usage = asked
        .sources
        .files()
        .filter(|(_, f)| f.name != PRELUDE_NAME)
        .map(|(_, f)| text_usage(&f.text))
        .fold(text_usage(&source.text), merge);
    let held = space(usage);
    for t in fallback_order(canonical(asked.target, usage)) {
        if !held.contains(&t) || declaration.excludes(t) {
            continue;
        }
        let expanded = expand(t)?;
        if left_out_of(&expanded).is_none() {
            return Ok(Some(Instead { expanded, why }));
        }
    }
    Ok(None)
}

/// Usage that holds everything `a` or `b` holds.
fn merge(a: Usage, b: Usage) -> Usage {
    Usage {
        float: a.float || b.float,
        int8: a.int8 || b.int8,
        int16: a.int16 || b.int16,
        macros: ncnn_glsl_core::Options::from_bits_truncate(a.macros.bits() | b.macros.bits()),
    }
}
