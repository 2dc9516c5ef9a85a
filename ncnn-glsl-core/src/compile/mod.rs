//! Finished text to checked SPIR-V through naga.
//!
//! ```text
//! finished GLSL -> refusals (reject.rs) -> text passes (drop_writeonly.rs,
//! local_size_id.rs, array_2d.rs, spec_constants.rs) -> naga-only prototypes
//! (atomics, memory barriers, fp16 builtins) -> naga parse -> push-constant layout check
//! (push_constant_layout.rs) -> layout-only copies refused (layout_copies.rs) -> IR passes (spec_constants.rs checks, atomics.rs,
//! barrier_scope.rs, memory_barriers.rs, fp16_builtins.rs, vector_modulo.rs,
//! switch_fallthrough.rs) -> validation
//! -> compaction -> SPIR-V (writer options in naga_run.rs) -> word passes (spec_constants.rs,
//! workgroup_size.rs, trim_capabilities.rs, writeonly_decoration.rs) -> reflection (reflect.rs)
//! ```
//!
//! Text passes keep every byte offset (they blank or overwrite in place), so
//! naga's spans index the finished text and map back to the user's file
//! through [`Expanded::span_of`]. naga is never allowed to panic through.

mod array_2d;
mod atomics;
mod barrier_scope;
mod drop_writeonly;
mod fp16_builtins;
mod layout_copies;
mod local_size_id;
mod memory_barriers;
mod naga_run;
mod push_constant_layout;
pub mod reflect;
pub mod reject;
mod source_text;
mod spec_constants;
mod spirv_edit;
mod switch_fallthrough;
mod tokens;
mod trim_capabilities;
mod vector_modulo;
mod workgroup_size;
mod writeonly_decoration;

#[cfg(test)]
mod tests;

pub use reflect::{
    Access, Binding, BindingKind, Reflection, Requirements, ScalarValue, SpecConstant,
};

use crate::diag::{Diagnostic, Diagnostics};
use crate::expand::Expanded;

/// Choices for the SPIR-V writer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Keep debug names (`OpName`) in the SPIR-V.
    pub debug_names: bool,
}

/// A compiled shader.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    /// The SPIR-V words (SPIR-V 1.3, valid for `spirv-val --target-env vulkan1.1`).
    pub spirv: Vec<u32>,
    /// What the blob needs from the pipeline and the device.
    pub reflection: Reflection,
}

/// Compiles the finished text of `expanded` for the entry point `main`.
///
/// Every error points at the user's file, line and column where the finished
/// text maps back; a use of a construct naga lacks or miscompiles is refused
/// ([`reject::RULES`]) with the reason and a way out, all uses at once.
/// Specialization constants stay `OpSpecConstant`s (see
/// [`Reflection::spec_constants`]). `atomicAdd`/`And`/`Or`/`Xor`/`Min`/
/// `Max`/`Exchange`/`CompSwap` on `int`/`uint` buffer and `shared` elements
/// are supported (naga's frontend lacks them; see `atomics.rs`).
///
/// naga's parser and validator recurse once per nesting level and per
/// operand of a chain; a stack overflow aborts the process, which no
/// `catch_unwind` can stop. So the work runs on its own thread with a
/// [`STACK_BYTES`] stack, and the refusal table bounds nesting and statement
/// length well inside it.
pub fn compile(expanded: &Expanded, options: &CompileOptions) -> Result<Compiled, Diagnostics> {
    #[cfg(test)]
    let hook = naga_run::PANIC_AT.with(|p| p.get());
    let work = || {
        #[cfg(test)]
        naga_run::PANIC_AT.with(|p| p.set(hook));
        compile_here(expanded, options)
    };
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("ncnn-glsl-compile".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, work);
        match spawned {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(Diagnostic::new(
                    "internal error: the compiler panicked; this is a bug in ncnn-glsl-core, please report the shader",
                )
                .into())
            }),
            // No thread to be had: the default stack still fits every shader the limits allow in practice.
            Err(_) => compile_here(expanded, options),
        }
    })
}

/// The stack of the compiling thread: address space only, touched as used.
pub const STACK_BYTES: usize = 64 << 20;

fn compile_here(expanded: &Expanded, options: &CompileOptions) -> Result<Compiled, Diagnostics> {
    let finished = expanded.text();
    // Every function is checked, called or not, as glslang would; the
    // extension's helper functions are in the text only when called (expand).
    let mut text = finished.to_string();
    let refused: Vec<Diagnostic> = reject::scan(&text)
        .into_iter()
        .map(|hit| {
            let rule = &reject::RULES[hit.rule];
            naga_run::at(
                &naga_run::Origin::new(expanded),
                Some(hit.start..hit.end),
                format!("{} (`{}`)", rule.reason, hit.text),
            )
            .note(rule.advice)
        })
        .collect();
    if !refused.is_empty() {
        return Err(Diagnostics(refused));
    }
    let toks = tokens::tokenize(&text);
    let writeonly = drop_writeonly::drop_writeonly(&mut text, &toks);
    let toks = tokens::tokenize(&text);
    let local_size_spec_ids = local_size_id::rewrite_local_size_ids(&mut text, &toks);
    let toks = tokens::tokenize(&text);
    array_2d::rewrite_2d_arrays(&mut text, &toks);
    let toks = tokens::tokenize(&text);
    spec_constants::drop_local_consts(&mut text, &toks);
    let toks = tokens::tokenize(&text);
    let (spec_decls, moved) = spec_constants::rewrite(&mut text, &toks).map_err(|r| {
        naga_run::at(
            &naga_run::Origin::new(expanded),
            Some(r),
            "this compiler reads a specialization constant only as \
             `layout(constant_id = N) const T name = D;` at global scope (N an integer expression)"
                .into(),
        )
    })?;
    if text.len() != finished.len() {
        // The passes promise in-place edits; a broken promise would point errors at wrong places.
        return Err(Diagnostic::new(
            "internal error: a text pass changed byte offsets; please report the shader",
        )
        .into());
    }

    // Naga-only prototypes (atomics, memory barriers) go after `#version`;
    // glslang never sees them (they would clash with its built-ins).
    let toks = tokens::tokenize(&text);
    let mut prototypes = String::new();
    if atomics::called(&text, &toks) {
        prototypes += &atomics::prototypes();
    }
    if memory_barriers::called(&text, &toks) {
        prototypes += &memory_barriers::prototypes();
    }
    let build = |prototypes: String| {
        let mut inserts = moved.clone();
        if !prototypes.is_empty() {
            inserts.push(naga_run::Insert {
                at: atomics::insert_point(&text),
                text: prototypes,
                stands_for: None,
            });
        }
        naga_run::Origin::with_inserts(expanded, &text, inserts)
    };
    let (mut naga_text, mut origin) = build(prototypes.clone());
    let mut parsed = naga_run::parse(&origin, &naga_text);
    // float16 builtins: only when naga misses them, so that a shader that
    // compiled without the prototypes gets the very same SPIR-V (their
    // types would otherwise renumber the module's ids).
    if parsed.is_err() && fp16_builtins::wanted(&text, &toks) {
        (naga_text, origin) = build(prototypes + &fp16_builtins::prototypes());
        parsed = naga_run::parse(&origin, &naga_text);
    }
    let mut module = parsed.map_err(Diagnostics)?;
    if let Some(d) = push_constant_layout::check(&origin, &naga_text, &module) {
        return Err(d.into());
    }
    let copies = layout_copies::find(&module);
    if !copies.is_empty() {
        let rule = reject::LAYOUT_COPY;
        return Err(Diagnostics(
            copies
                .into_iter()
                .map(|span| {
                    let r = span.to_range();
                    let construct = r.clone().and_then(|r| naga_text.get(r)).unwrap_or("");
                    naga_run::at(&origin, r, format!("{} (`{construct}`)", rule.reason))
                        .note(rule.advice)
                })
                .collect(),
        ));
    }
    let unsupported: Vec<Diagnostic> = atomics::lower(&mut module)
        .into_iter()
        .map(|u| naga_run::at(&origin, u.span.to_range(), u.what))
        .collect();
    if !unsupported.is_empty() {
        return Err(Diagnostics(unsupported));
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
    let spec_values = spec_constants::check_ir(&module, &spec_decls).map_err(|problems| {
        Diagnostics(
            problems
                .into_iter()
                .map(|p| naga_run::at(&origin, p.span.to_range(), p.what))
                .collect(),
        )
    })?;
    barrier_scope::fix_barrier_scope(&mut module);
    memory_barriers::lower(&mut module);
    fp16_builtins::lower(&mut module);
    let splatted = vector_modulo::splat_scalar_operands(&mut module);
    let bad_switches = switch_fallthrough::check(&origin, &module);
    if !bad_switches.is_empty() {
        return Err(Diagnostics(bad_switches));
    }
    naga_run::validate(&origin, &module).map_err(|naga| {
        if splatted.scalar_left.is_empty() {
            return Diagnostics::from(naga);
        }
        // naga typed each `scalar % vector` as a scalar while parsing.
        Diagnostics(
            splatted
                .scalar_left
                .iter()
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
    let declared = module.clone();
    let info = naga_run::compact(&origin, &mut module)?;
    let spec_constants: Vec<SpecConstant> = spec_decls
        .iter()
        .zip(&spec_values)
        .map(|(d, (_, v))| SpecConstant {
            id: d.id,
            name: d.name.clone().into(),
            ty: d.ty.clone().into(),
            default: Some(*v),
        })
        .collect();
    let mut spirv = naga_run::write(
        &module,
        &info,
        &naga_run::writer_options(options.debug_names),
    )?;
    // The Private globals the writer wrote, in order, and which are specialization constants.
    let ep = info.get_entry_point(0);
    let private: Vec<Option<(u32, ScalarValue)>> = module
        .global_variables
        .iter()
        .filter(|(h, g)| g.space == naga::AddressSpace::Private && !ep[*h].is_empty())
        .map(|(_, g)| {
            let k = spec_decls
                .iter()
                .position(|d| g.name.as_deref() == Some(d.name.as_str()))?;
            Some((spec_decls[k].id, spec_values[k].1))
        })
        .collect();
    spec_constants::to_spec_constants(&mut spirv, &private)
        .map_err(|e| Diagnostic::new(format!("internal error: {e}; please report the shader")))?;
    let local_size = module
        .entry_points
        .iter()
        .find(|e| e.name == "main")
        .map_or([1, 1, 1], |e| e.workgroup_size);
    workgroup_size::fix_workgroup_size(&mut spirv, local_size, local_size_spec_ids)
        .map_err(|e| Diagnostic::new(format!("internal error: {e}; please report the shader")))?;
    trim_capabilities::trim_capabilities(&mut spirv)
        .map_err(|e| Diagnostic::new(format!("internal error: {e}; please report the shader")))?;
    writeonly_decoration::decorate_writeonly(&mut spirv, &writeonly)
        .map_err(|e| Diagnostic::new(format!("internal error: {e}; please report the shader")))?;

    let (bindings, push_constant_size) = reflect::resources(&declared, &writeonly);
    let reflection = Reflection {
        bindings: bindings.into(),
        push_constant_size,
        local_size,
        local_size_spec_ids,
        spec_constants: spec_constants.into(),
        requirements: reflect::requirements(&spirv),
    };
    Ok(Compiled { spirv, reflection })
}
