//! The IR stage: naga parses the edited text, the IR passes repair what its
//! frontend gets wrong and refuse what they cannot repair, naga validates,
//! and compaction drops what `main` does not use. The stage hands on the
//! module ready for the writer, and what reflection needs of the module as
//! the user declared it, in [`CheckedModule`].

use naga::valid::ModuleInfo;
use naga::{GlobalVariable, Handle, Module};

use super::naga_run::{self, Insert, Origin};
use super::reflect::{self, Binding, ScalarValue};
use super::text_stage::EditedText;
use super::{
    atomics, barrier_scope, coopmat, dot_product, fp16_builtins, fp16_promotion, fp16_widening,
    layout_copies, memory_barriers, push_constant_layout, reject, spec_constants, spec_expressions,
    subgroup_calls, subgroups, switch_fallthrough, unfold, unreachable, validation_words,
    vector_modulo, writeonly_reads,
};
use crate::diag::{Diagnostic, Diagnostics, MAX_ERRORS};
use crate::expand::Expanded;

/// The module after the IR passes, validation and compaction, and what
/// reflection needs.
#[derive(Debug)]
pub(crate) struct CheckedModule {
    /// The compacted module, for the writer.
    pub module: Module,
    /// Its validation info, for the writer.
    pub info: ModuleInfo,
    /// The global and the default of each specialization constant, in the
    /// order of [`EditedText::spec_decls`].
    pub spec_values: Vec<(Handle<GlobalVariable>, ScalarValue)>,
    /// The local size of `main` (1, 1, 1 without one).
    pub local_size: [u32; 3],
    /// Every declared binding, used or not (a pipeline layout may hold
    /// bindings a shader does not use).
    pub bindings: Vec<Binding>,
    /// The push-constant bytes the host provides.
    pub push_constant_size: u32,
    /// The push-constant block's members.
    pub push_constants: Vec<reflect::PushMember>,
    /// The `writeonly` buffers atomics read (one-element stores into packed
    /// storage): not decorated `NonReadable`.
    pub read_by_atomics: Vec<(u32, u32)>,
    /// The cooperative matrix multiply-adds and placeholder pointers.
    pub coopmat: coopmat::IrFound,
}

/// Parses `edited`, then runs the IR passes, validation and compaction.
pub(crate) fn run(expanded: &Expanded, edited: &EditedText) -> Result<CheckedModule, Diagnostics> {
    let (mut module, naga_text, origin, promotions) = parse(expanded, edited)?;
    unreachable::drop_unreachable(&mut module);
    // First: the calls it lowers take loads of the elements they name,
    // which are no reads (the checks below would see them as such).
    let coopmat = match coopmat::ir::lower(&mut module, &edited.coopmat) {
        Ok(found) => found,
        Err(unsupported) => {
            none_unsupported(&origin, unsupported)?;
            coopmat::IrFound::default()
        }
    };
    if let Some(d) = push_constant_layout::check(&origin, &naga_text, &module) {
        return Err(d.into());
    }
    let copies = layout_copies::find(&module);
    if !copies.is_empty() {
        return Err(refused(reject::LAYOUT_COPY, copies, &origin, &naga_text));
    }
    let mut unsupported = atomics::lower(&mut module);
    unsupported.extend(dot_product::refused_calls(&module));
    dot_product::lower(&mut module);
    none_unsupported(&origin, unsupported)?;
    // After the atomics are statements: the buffers they reach are read (by
    // the atomics only: a plain load of one is still refused).
    let read_by_atomics = writeonly_reads::atomic_targets(&module, &edited.writeonly);
    let reads: Vec<Diagnostic> = writeonly_reads::reads(&module, &edited.writeonly)
        .into_iter()
        .take(MAX_ERRORS)
        .map(|span| {
            naga_run::at(
                &origin,
                span.to_range(),
                "a read of a `writeonly` buffer".into(),
            )
            .note("drop `writeonly` from the buffer to read it (glslang refuses the read too)")
        })
        .collect();
    if !reads.is_empty() {
        return Err(Diagnostics(reads));
    }
    if let Some((h, o)) = module.overrides.iter().next() {
        let name = o.name.clone().unwrap_or_default();
        return Err(naga_run::at(
            &origin,
            module.overrides.get_span(h).to_range(),
            format!("internal error: specialization constant `{name}` was not rewritten; please report the shader"),
        )
        .into());
    }
    let derived: Vec<&str> = edited
        .spec_exprs
        .derived
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    let spec_values =
        spec_constants::check_ir(&module, &edited.spec_decls, &derived).map_err(|problems| {
            Diagnostics(
                problems
                    .into_iter()
                    .take(MAX_ERRORS)
                    .map(|p| naga_run::at(&origin, p.span.to_range(), p.what))
                    .collect(),
            )
        })?;
    let defaults: Vec<(&str, u32, bool)> = edited
        .spec_decls
        .iter()
        .zip(&spec_values)
        .filter_map(|(d, (_, v))| match *v {
            ScalarValue::Int(x) => Some((d.name.as_str(), x as i32 as u32, false)),
            ScalarValue::Uint(x) => Some((d.name.as_str(), x as u32, true)),
            _ => None,
        })
        .collect();
    let bad: Vec<Diagnostic> = spec_expressions::bad_sizes(&edited.spec_exprs, &defaults)
        .into_iter()
        .take(MAX_ERRORS)
        .map(|(range, what)| {
            naga_run::at(&Origin::new(expanded), Some(range), what)
                .note("glslang refuses an array size that is not positive too")
        })
        .collect();
    if !bad.is_empty() {
        return Err(Diagnostics(bad));
    }
    spec_expressions::check_placeholders(&module, &edited.spec_exprs)
        .map_err(|what| Diagnostics::from(Diagnostic::new(what)))?;
    barrier_scope::fix_barrier_scope(&mut module);
    memory_barriers::lower(&mut module);
    fp16_builtins::lower(&mut module);
    let mut demoted = fp16_widening::demotions(&module, &naga_text);
    for span in fp16_promotion::refused_conversions(&module, &naga_text) {
        if !demoted.contains(&span) {
            demoted.push(span);
        }
    }
    if !demoted.is_empty() {
        // At the user's text, without the conversions of fp16_promotion.rs.
        let finished: Option<Vec<naga::Span>> = demoted
            .iter()
            .map(|s| promotions.finished(&naga_text, *s))
            .map(|r| r.map(|r| naga::Span::new(r.start as u32, r.end as u32)))
            .collect();
        return Err(match finished {
            Some(spans) if !promotions.wraps.is_empty() => refused(
                reject::FLOAT16_DEMOTION,
                spans,
                &Origin::new(expanded),
                &edited.text,
            ),
            _ => refused(reject::FLOAT16_DEMOTION, demoted, &origin, &naga_text),
        });
    }
    fp16_widening::widen_stores(&mut module);
    let splatted = vector_modulo::splat_scalar_operands(&mut module);
    // After the scope fix (`subgroupBarrier()` is the one control barrier
    // whose execution scope must stay the subgroup) and after the passes
    // that rebuild blocks knowing naga's frontend's statements only.
    if edited.subgroups {
        none_unsupported(&origin, subgroups::lower(&mut module))?;
    }
    let sizes = subgroup_calls::cluster_sizes(&mut module, &edited.subgroup_calls);
    none_unsupported(&origin, sizes)?;
    let bad_switches = switch_fallthrough::check(&origin, &module);
    if !bad_switches.is_empty() {
        return Err(Diagnostics(bad_switches));
    }
    naga_run::validate(&origin, &module).map_err(|naga| {
        let naga = validation_words::reword(&origin, &module, naga);
        if splatted.scalar_left.is_empty() {
            return Diagnostics::from(naga);
        }
        // naga typed each `scalar % vector` as a scalar while parsing.
        Diagnostics(
            splatted
                .scalar_left
                .iter()
                .take(MAX_ERRORS)
                .map(|span| {
                    naga_run::at(
                        &origin,
                        span.to_range(),
                        "naga's GLSL frontend gives `scalar % vector` the scalar's type, so an \
                         expression built on its result does not compile"
                            .into(),
                    )
                    .note("write the scalar as a vector: `ivec4(s) % v`")
                    .note(format!("naga: {}", naga.message))
                })
                .collect(),
        )
    })?;
    // Reflection describes what the user declared, before compaction drops the unused.
    let resources = reflect::resources(&module, &edited.writeonly);
    let info = naga_run::compact(&origin, &mut module)?;
    let local_size = module
        .entry_points
        .iter()
        .find(|e| e.name == "main")
        .map_or([1, 1, 1], |e| e.workgroup_size);
    Ok(CheckedModule {
        module,
        info,
        spec_values,
        local_size,
        bindings: resources.bindings,
        push_constant_size: resources.push_constant_size,
        push_constants: resources.push_constants,
        read_by_atomics,
        coopmat,
    })
}

/// `Ok` when a pass found nothing it cannot lower; else an error at each
/// construct.
fn none_unsupported(
    origin: &Origin,
    unsupported: Vec<atomics::Unsupported>,
) -> Result<(), Diagnostics> {
    let d: Vec<Diagnostic> = unsupported
        .into_iter()
        .take(MAX_ERRORS)
        .map(|u| naga_run::at(origin, u.span.to_range(), u.what))
        .collect();
    if d.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(d))
    }
}

/// A refusal after parsing at each of `spans` (offsets into `naga_text`),
/// naming the construct there.
fn refused(
    rule: reject::AfterParsing,
    spans: Vec<naga::Span>,
    origin: &Origin,
    naga_text: &str,
) -> Diagnostics {
    Diagnostics(
        spans
            .into_iter()
            .take(MAX_ERRORS)
            .map(|span| {
                let r = span.to_range();
                let construct = r.clone().and_then(|r| naga_text.get(r)).unwrap_or("");
                naga_run::at(origin, r, format!("{} (`{construct}`)", rule.reason))
                    .note(rule.advice)
            })
            .collect(),
    )
}

/// naga's parse of the edited text with our inserts (the moved
/// specialization constants, the naga-only prototypes), the text it was
/// given and where that text's offsets come from.
fn parse<'a>(
    expanded: &'a Expanded,
    edited: &EditedText,
) -> Result<(Module, String, Origin<'a>, fp16_promotion::Promotions), Diagnostics> {
    let text = &edited.text;
    let list = |prototypes: &str, extra: &[Insert]| {
        let mut inserts = edited.moved.clone();
        inserts.extend(edited.spec_exprs.inserts.iter().cloned());
        inserts.extend(edited.coopmat.inserts.iter().cloned());
        if !prototypes.is_empty() {
            inserts.push(Insert {
                at: atomics::insert_point(text),
                text: prototypes.to_string(),
                stands_for: None,
            });
        }
        inserts.extend(extra.iter().cloned());
        inserts
    };
    let build = |prototypes: &str, extra: &[Insert]| {
        Origin::with_inserts(expanded, text, list(prototypes, extra))
    };
    let mut prototypes = edited.prototypes.clone();
    let (mut naga_text, mut origin) = build(&prototypes, &[]);
    let mut parsed = naga_run::parse(&origin, &naga_text);
    // float16 builtins: only when naga misses them, so that a shader that
    // compiled without the prototypes gets the very same SPIR-V (their
    // types would otherwise renumber the module's ids).
    let fp16 = fp16_builtins::wanted(text, &edited.toks);
    if parsed.is_err() && fp16 {
        prototypes += &fp16_builtins::prototypes();
        (naga_text, origin) = build(&prototypes, &[]);
        parsed = naga_run::parse(&origin, &naga_text);
    }
    // An error without a place may be a constant naga cannot fold.
    let mut extra = Vec::new();
    if parsed
        .as_ref()
        .is_err_and(|d| d.iter().any(|d| d.span.is_none()))
    {
        let at = atomics::insert_point(text);
        extra = unfold::unfold(|extra| build(&prototypes, extra), at)?;
        if !extra.is_empty() {
            (naga_text, origin) = build(&prototypes, &extra);
            parsed = naga_run::parse(&origin, &naga_text);
        }
    }
    let mut module = parsed.map_err(|d| {
        // The placeholders of the cooperative matrices, named as written.
        let types = &edited.coopmat.types;
        Diagnostics(
            d.into_iter()
                .map(|mut d| {
                    let frontend = (!types.is_empty())
                        .then(|| coopmat::protos::frontend_message(&d.message))
                        .flatten();
                    d.message = match frontend {
                        Some(m) => m.to_string(),
                        None => coopmat::protos::reword(&d.message, types),
                    };
                    for n in d.notes.iter_mut() {
                        *n = coopmat::protos::reword(n, types);
                    }
                    d
                })
                .collect(),
        )
    })?;
    // `float16_t` operands GLSL promotes beside a `float`: wrapped in a
    // conversion and parsed again, round by round; a round whose text does
    // not parse leaves the last module, whose demotions are refused.
    let mut promotions = fp16_promotion::Promotions::new(list(&prototypes, &extra));
    let mut parsed_with = promotions.clone();
    for _ in 0..fp16_promotion::MAX_ROUNDS {
        let found = promotions.find(&module, &naga_text);
        if found.is_empty() {
            break;
        }
        promotions.wraps.extend(found);
        let mut with_wraps = extra.clone();
        with_wraps.extend(promotions.inserts());
        let (t, o) = build(&prototypes, &with_wraps);
        match naga_run::parse(&o, &t) {
            Ok(m) => {
                (module, naga_text, origin) = (m, t, o);
                parsed_with = promotions.clone();
            }
            Err(_) => break,
        }
    }
    Ok((module, naga_text, origin, parsed_with))
}
