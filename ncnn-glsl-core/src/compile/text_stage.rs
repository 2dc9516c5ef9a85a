//! The text stage: the refusal table over the finished text, then the passes
//! that edit it in place before naga sees it. Each pass learns something a
//! later stage needs (what `writeonly` was on, the local-size spec ids, the
//! specialization constants); the stage hands all of it on in [`EditedText`].

use super::naga_run::{self, Insert, Origin};
use super::spec_constants::{self, SpecDecl};
use super::spec_expressions::{self, SpecExprs};
use super::tokens::{tokenize, Token};
use super::{
    array_dims, atomics, coopmat, declarations, dot_product, drop_writeonly, int_literals,
    local_scopes, local_size_id, memory_barriers, reject, subgroup_calls, subgroups,
};
use crate::diag::{Diagnostic, Diagnostics, MAX_ERRORS};
use crate::expand::Expanded;

/// The finished text after the text passes, and what they learned.
#[derive(Clone, Debug)]
pub(crate) struct EditedText {
    /// The text, edited in place: its byte offsets are the finished text's.
    pub text: String,
    /// Its tokens.
    pub toks: Vec<Token>,
    /// The `(set, binding)` of the storage buffers declared `writeonly`
    /// (the qualifier is blanked: naga refuses it).
    pub writeonly: Vec<(u32, u32)>,
    /// The spec id of each `local_size_*_id` dimension.
    pub local_size_spec_ids: [Option<u32>; 3],
    /// The specialization constants, in text order.
    pub spec_decls: Vec<SpecDecl>,
    /// Specialization constants moved past the block that shadows them.
    pub moved: Vec<Insert>,
    /// The array sizes and global constants computed from specialization
    /// constants (their placeholders are inserts too).
    pub spec_exprs: SpecExprs,
    /// Whether the text uses subgroups (its built-ins were renamed and the
    /// prototypes inserted).
    pub subgroups: bool,
    /// The subgroup functions given to naga as placeholders, which the word
    /// stage writes as their instructions (`subgroup_calls.rs`).
    pub subgroup_calls: Vec<&'static str>,
    /// The cooperative matrix types found and the `]` inserts of their loads
    /// and stores (`coopmat.rs`).
    pub coopmat: coopmat::TextFound,
    /// The naga-only prototypes of the atomics, memory barriers, dot
    /// products and subgroup functions (and the globals of the subgroup
    /// built-ins) the text uses, to go after `#version`; empty when none.
    pub prototypes: String,
}

/// `Ok` where no two specialization constants share a `constant_id`, nor one
/// a `local_size_*_id`: the pipeline's value for that id would set both
/// (glslang refuses the first too).
fn duplicate_spec_ids(
    expanded: &Expanded,
    decls: &[SpecDecl],
    local_size: [Option<u32>; 3],
) -> Result<(), Diagnostics> {
    let mut errors = Vec::new();
    for (k, d) in decls.iter().enumerate() {
        if let Some(dim) = local_size.iter().position(|&l| l == Some(d.id)) {
            errors.push(
                naga_run::at(
                    &Origin::new(expanded),
                    Some(d.range.clone()),
                    format!(
                        "`constant_id = {}` of `{}` is also `local_size_{}_id`",
                        d.id,
                        d.name,
                        ["x", "y", "z"][dim]
                    ),
                )
                .note(if local_size_id::NCNN_IDS.contains(&d.id) {
                    "the local size the pipeline sets would set the constant too: give it its own id \
                     (a shader that declares no local size takes the pipeline's through ncnn's \
                     ids 233, 234, 235)"
                } else {
                    "the local size the pipeline sets would set the constant too: give it its own id"
                }),
            );
        }
        if let Some(first) = decls[..k].iter().find(|e| e.id == d.id) {
            errors.push(
                naga_run::at(
                    &Origin::new(expanded),
                    Some(d.range.clone()),
                    format!(
                        "`constant_id = {}` is given twice: to `{}` and to `{}`",
                        d.id, first.name, d.name
                    ),
                )
                .note("a value the pipeline sets for the id would set both: give each its own id"),
            );
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(errors))
    }
}

/// Runs the refusal table and the text passes over `expanded`'s finished text.
pub(crate) fn run(expanded: &Expanded) -> Result<EditedText, Diagnostics> {
    let finished = expanded.text();
    // Every function is checked, called or not, as glslang would; the
    // extension's helper functions are in the text only when called (expand).
    let mut text = finished.to_string();
    let refused: Vec<Diagnostic> = reject::scan(&text)
        .into_iter()
        .take(MAX_ERRORS)
        .map(|hit| {
            let rule = &reject::RULES[hit.rule];
            naga_run::at(
                &Origin::new(expanded),
                Some(hit.start..hit.end),
                format!("{} (`{}`)", rule.reason, hit.text),
            )
            .note(rule.advice)
        })
        .collect();
    if !refused.is_empty() {
        return Err(Diagnostics(refused));
    }
    let toks = tokenize(&text);
    let too_large: Vec<Diagnostic> = int_literals::scan(&text, &toks)
        .into_iter()
        .take(MAX_ERRORS)
        .map(|t| {
            naga_run::at(
                &Origin::new(expanded),
                Some(t.range),
                format!(
                    "integer literal `{}` does not fit in 32 bits (at most 4294967295)",
                    t.text
                ),
            )
            .note("naga would wrap it silently; glslang refuses it")
        })
        .collect();
    let out_of_range =
        local_size_id::out_of_range(&text, &toks)
            .into_iter()
            .map(|(range, message)| {
                naga_run::at(&Origin::new(expanded), Some(range), message).note(
                "glslang refuses it too; the device's limits are checked when the pipeline is made",
            )
            });
    let too_large: Vec<Diagnostic> = too_large
        .into_iter()
        .chain(out_of_range)
        .take(MAX_ERRORS)
        .collect();
    if !too_large.is_empty() {
        return Err(Diagnostics(too_large));
    }
    let origin = Origin::new(expanded);
    let again = local_scopes::redeclared(&text, &toks).into_iter().map(|r| {
        let first = origin.span(r.first.clone()).map_or_else(
            || {
                format!(
                    "first declared at byte {} of the text given to naga",
                    r.first.start
                )
            },
            |s| format!("first declared at {}:{}:{}", s.file, s.line, s.column),
        );
        let d = naga_run::at(&origin, Some(r.again.clone()), r.message()).note(first);
        match r.why {
            Some(why) => d.note(why),
            None => d,
        }
        .note(local_scopes::Redeclared::NOTE)
    });
    let twice: Vec<Diagnostic> = declarations::duplicates(&text, &toks)
        .into_iter()
        .map(|d| naga_run::at(&origin, Some(d.range), d.message).note(d.note))
        .chain(again)
        .take(MAX_ERRORS)
        .collect();
    if !twice.is_empty() {
        return Err(Diagnostics(twice));
    }
    // Locals GLSL scopes where naga does not: renamed before any pass reads names.
    local_scopes::rename_leaked_locals(&mut text, &toks);
    let toks = tokenize(&text);
    let writeonly = drop_writeonly::drop_writeonly(&mut text, &toks);
    let toks = tokenize(&text);
    let local_size_spec_ids = local_size_id::local_size_ids(&mut text, &toks);
    let toks = tokenize(&text);
    array_dims::rewrite_array_dims(&mut text, &toks);
    let toks = tokenize(&text);
    spec_constants::drop_local_consts(&mut text, &toks);
    let toks = tokenize(&text);
    let (spec_decls, moved) = spec_constants::rewrite(&mut text, &toks).map_err(|r| {
        naga_run::at(
            &Origin::new(expanded),
            Some(r),
            "this compiler reads a specialization constant only as \
             `layout(constant_id = N) const T name = D;` at global scope (N an integer expression)"
                .into(),
        )
    })?;
    duplicate_spec_ids(expanded, &spec_decls, local_size_spec_ids)?;
    // Before the specialization expressions: the sizes of the matrix types
    // name specialization constants, and are no array sizes.
    let toks = tokenize(&text);
    let coopmat_problems = |problems: Vec<coopmat::text::Problem>| {
        Diagnostics(
            problems
                .into_iter()
                .take(MAX_ERRORS)
                .map(|p| {
                    naga_run::at(&Origin::new(expanded), Some(p.range), p.message).note(p.note)
                })
                .collect(),
        )
    };
    let (coopmat, coopmat_decls) =
        coopmat::text::rewrite(&mut text, &toks, &spec_decls).map_err(coopmat_problems)?;
    let toks = tokenize(&text);
    let spec_exprs = spec_expressions::rewrite(&mut text, &toks, &spec_decls);
    let derived: Vec<String> = spec_exprs.derived.iter().map(|d| d.name.clone()).collect();
    let unwritten = coopmat::text::unwritten_sizes(&coopmat, &derived);
    if !unwritten.is_empty() {
        return Err(coopmat_problems(unwritten));
    }
    let toks = tokenize(&text);
    spec_constants::drop_local_consts_reading(&mut text, &toks, &derived);
    let toks = tokenize(&text);
    let uses_subgroups = subgroups::used(&text, &toks);
    if uses_subgroups {
        subgroups::rename_built_ins(&mut text, &toks);
    }
    if text.len() != finished.len() {
        // The passes promise in-place edits; a broken promise would point errors at wrong places.
        return Err(Diagnostic::new(
            "internal error: a text pass changed byte offsets; please report the shader",
        )
        .into());
    }

    // Naga-only prototypes (atomics, memory barriers) go after `#version`;
    // glslang never sees them (they would clash with its built-ins).
    let toks = tokenize(&text);
    // The matrix structs first: the user's functions name them.
    let mut prototypes = coopmat_decls;
    if atomics::called(&text, &toks) {
        prototypes += &atomics::prototypes();
    }
    if memory_barriers::called(&text, &toks) {
        prototypes += &memory_barriers::prototypes();
    }
    if dot_product::called(&text, &toks) {
        prototypes += &dot_product::prototypes();
    }
    if uses_subgroups {
        prototypes += &subgroups::prototypes(&text, &toks);
    }
    let subgroup_calls = subgroup_calls::called(&text, &toks);
    prototypes += &subgroup_calls::prototypes(&subgroup_calls, &text, &toks);
    Ok(EditedText {
        text,
        toks,
        writeonly,
        local_size_spec_ids,
        spec_decls,
        moved,
        spec_exprs,
        subgroups: uses_subgroups,
        subgroup_calls,
        coopmat,
        prototypes,
    })
}
