//! Finished text to checked SPIR-V through naga, in three stages, each a
//! module that hands the next a typed product (as naga's frontend hands its
//! validator a `Module`, and the validator its backend a `ModuleInfo`).
//!
//! The stage map names every pass module of this folder in the stage that
//! runs it, in the order it runs; docs/naga.md ("Kinds of handling, by
//! stage") names the same ones in the same stages, and a test
//! (`tests/tests/naga_doc.rs`) fails where the two disagree. The modules
//! that are no pass are listed last.
//!
//! ```text
//! finished GLSL
//!  -> text stage (text_stage.rs): refusals (reject.rs, with the call
//!     cycles of recursion.rs) -> integer literals past 32 bits (int_literals.rs)
//!     and local sizes out of range (local_size_id.rs) refused -> names
//!     declared twice refused (declarations.rs)
//!     -> in-place passes (local_scopes.rs, drop_writeonly.rs, local_size_id.rs,
//!     array_dims.rs, spec_constants.rs, coopmat.rs, spec_expressions.rs,
//!     subgroups.rs)
//!     -> naga-only prototypes (coopmat.rs, atomics.rs, memory_barriers.rs,
//!     dot_product.rs, subgroups.rs, subgroup_calls.rs)
//!     => EditedText: text, tokens, writeonly set, local-size spec ids,
//!        spec-constant declarations, moved declarations, spec expressions,
//!        prototypes
//!  -> IR stage (ir_stage.rs): naga parse (again with fp16_builtins.rs
//!     prototypes if it fails, and with the calls naga
//!     cannot fold to NaN or infinity unfolded by unfold.rs; again, round by
//!     round, with the `float16_t` operands GLSL promotes beside a `float`
//!     wrapped by fp16_promotion.rs) -> statements after a `break`,
//!     `continue` or `return` dropped (unreachable.rs) -> cooperative
//!     matrices lowered (coopmat.rs) -> push-constant layout check
//!     (push_constant_layout.rs) -> layout-only copies refused (layout_copies.rs)
//!     -> atomics.rs, dot_product.rs lowered -> reads of writeonly buffers
//!     refused (writeonly_reads.rs) -> spec_constants.rs and
//!     spec_expressions.rs checks -> IR passes (barrier_scope.rs,
//!     memory_barriers.rs, fp16_builtins.rs, fp16_widening.rs,
//!     vector_modulo.rs, subgroups.rs, subgroup_calls.rs) -> switch_fallthrough.rs refusal
//!     -> validation -> declared resources (reflect.rs) -> compaction
//!     => CheckedModule: module, info, spec-constant defaults, local size,
//!        bindings, push-constant size
//!  -> word stage (word_stage.rs): SPIR-V (writer options in naga_run.rs)
//!     -> word passes (subgroup_calls.rs, spec_constants.rs, spec_expressions.rs,
//!     workgroup_size.rs, component_loads.rs, subgroup_broadcast.rs,
//!     trim_capabilities.rs, coopmat.rs, writeonly_decoration.rs,
//!     round_half_away.rs)
//!     -> SPIR-V's universal limits checked (spirv_limits.rs)
//!     => words
//!  -> reflection (requirements read from the words, reflect.rs) => Compiled
//! not passes: the stages (text_stage.rs, ir_stage.rs, word_stage.rs), the
//!     calls into naga and its messages (naga_run.rs, naga_words.rs,
//!     validation_words.rs), what
//!     the passes share (tokens.rs, source_text.rs, ir_walk.rs,
//!     spirv_edit.rs), reflection (reflect.rs), the columns naga cannot
//!     express (inexpressible.rs, read by the variant sets)
//! ```
//!
//! Each step belongs to one stage; a repair that needs several (a
//! specialization constant is text, IR and words) has a step in each, in one
//! module. Text passes keep every byte offset (they
//! blank or overwrite in place), so naga's spans index the finished text and
//! map back to the user's file through [`Expanded::span_of`]. naga is never
//! allowed to panic through.

mod array_dims;
mod atomics;
mod barrier_scope;
mod component_loads;
mod coopmat;
mod declarations;
mod dot_product;
mod drop_writeonly;
mod fp16_builtins;
mod fp16_promotion;
mod fp16_widening;
pub mod inexpressible;
mod int_literals;
mod ir_stage;
mod ir_walk;
mod layout_copies;
mod local_scopes;
mod local_size_id;
mod memory_barriers;
mod naga_run;
mod naga_words;
mod push_constant_layout;
mod recursion;
pub mod reflect;
pub mod reject;
mod round_half_away;
mod source_text;
mod spec_constants;
mod spec_expressions;
mod spirv_edit;
mod spirv_limits;
mod subgroup_broadcast;
mod subgroup_calls;
mod subgroups;
mod switch_fallthrough;
mod text_stage;
mod tokens;
mod trim_capabilities;
mod unfold;
mod unreachable;
mod validation_words;
mod vector_modulo;
mod word_stage;
mod workgroup_size;
mod writeonly_decoration;
mod writeonly_reads;

#[cfg(test)]
mod tests;

pub use reflect::{
    Access, Binding, BindingKind, Reflection, Requirements, ScalarValue, SpecConstant,
};

pub(crate) use declarations::{declarations_of, HostName};

use crate::diag::{Diagnostic, Diagnostics};
use crate::expand::Expanded;
use ir_stage::CheckedModule;
use text_stage::EditedText;

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
        // Quiet: a panic of ours becomes the diagnostic below, not hook text.
        naga_run::quiet(|| compile_here(expanded, options))
    };
    let result = std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("ncnn-glsl-compile".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, work);
        match spawned {
            Ok(handle) => handle.join().unwrap_or_else(|payload| {
                Err(Diagnostic::new(format!(
                    "internal error: the compiler panicked ({}); this is a bug in ncnn-glsl-core, \
                     please report the shader",
                    naga_run::panic_message(&*payload)
                ))
                .into())
            }),
            // No thread to be had: the default stack still fits every shader the limits allow in practice.
            Err(_) => compile_here(expanded, options),
        }
    });
    // Every blob this crate's tests build passes spirv-val: a module that
    // passes our compile and fails it is our bug.
    #[cfg(test)]
    if let Ok(c) = &result {
        tests::assert_valid(&c.spirv);
    }
    result
}

/// The stack of the compiling thread: address space only, touched as used.
pub const STACK_BYTES: usize = 64 << 20;

/// The three stages, each handing the next what it learned.
fn compile_here(expanded: &Expanded, options: &CompileOptions) -> Result<Compiled, Diagnostics> {
    let edited = text_stage::run(expanded)?;
    let checked = ir_stage::run(expanded, &edited)?;
    let words = word_stage::run(&edited, &checked, options)?;
    let reflection = reflection(expanded, &edited, checked, &words);
    Ok(Compiled {
        spirv: words.spirv,
        reflection,
    })
}

/// What the blob needs: resources and sizes as the user declared them, and
/// the requirements of the words that ship.
fn reflection(
    expanded: &Expanded,
    edited: &EditedText,
    checked: CheckedModule,
    words: &word_stage::Words,
) -> Reflection {
    let spirv = &words.spirv;
    let spec_constants: Vec<SpecConstant> = edited
        .spec_decls
        .iter()
        .zip(&checked.spec_values)
        .map(|(d, (_, v))| SpecConstant {
            id: d.id,
            name: d.name.clone().into(),
            ty: d.ty.clone().into(),
            default: Some(*v),
        })
        .collect();
    let defaults = coopmat::spec_defaults(&edited.spec_decls, &checked.spec_values);
    let cooperative_matrices =
        coopmat::reflection::mul_adds(&edited.coopmat.types, &checked.coopmat.mul_adds, &defaults);
    let cooperative_matrix_types = coopmat::reflection::types(&edited.coopmat.types, &defaults);
    Reflection {
        bindings: checked.bindings.into(),
        push_constant_size: checked.push_constant_size,
        push_constants: checked.push_constants.into(),
        local_size: checked.local_size,
        local_size_spec_ids: edited.local_size_spec_ids,
        spec_constants: spec_constants.into(),
        requirements: reflect::requirements(spirv),
        cooperative_matrices: cooperative_matrices.into(),
        cooperative_matrix_types: cooperative_matrix_types.into(),
        spec_arrays: spec_arrays(expanded, edited, words),
    }
}

/// Each array specialization constants size, with its length's id in
/// `words`: those the words still hold (naga drops an uncalled function
/// and its parameters' types with it).
fn spec_arrays(
    expanded: &Expanded,
    edited: &EditedText,
    words: &word_stage::Words,
) -> std::borrow::Cow<'static, [crate::reflection::SpecArray]> {
    let text = expanded.text();
    let lengths: std::collections::HashSet<u32> = crate::spirv::walk(&words.spirv)
        .map_while(Result::ok)
        .filter(|i| i.op == crate::spirv::op::TYPE_ARRAY)
        .filter_map(|i| i.operand(2))
        .collect();
    edited
        .spec_exprs
        .sized
        .iter()
        .filter_map(|s| {
            let length_id = *words.lengths.get(&s.placeholder)?;
            lengths.contains(&length_id).then_some(())?;
            Some(crate::reflection::SpecArray {
                name: s.name.clone().into(),
                size: text.get(s.range.clone())?.trim().to_string().into(),
                length_id,
            })
        })
        .collect::<Vec<_>>()
        .into()
}
