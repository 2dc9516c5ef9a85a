//! naga lays out a `layout(push_constant)` block with std140 rules; Vulkan
//! GLSL (glslang) uses std430. For scalars and vectors both agree, but an
//! array (stride 16 instead of 4), a `mat2`, or a struct member moves: the
//! shader then reads other bytes than the host wrote, silently.
//!
//! The same text with `std430` added to the block's layout is parsed again and
//! the two layouts are compared; where they differ the block is refused with
//! the one-word fix. (Inserting the word ourselves would shift every byte
//! offset after it and break the map back to the user's file.)

use naga::{AddressSpace, Handle, Module, Type, TypeInner};

use super::naga_run::{at, guarded, Origin, Step};
use super::tokens::tokenize;
use crate::diag::Diagnostic;

/// A refusal when the push-constant block of `module` (parsed from `text`)
/// is laid out differently from std430.
pub(crate) fn check(origin: &Origin, text: &str, module: &Module) -> Option<Diagnostic> {
    let (_, var) = module
        .global_variables
        .iter()
        .find(|(_, v)| v.space == AddressSpace::Immediate)?;
    let toks = tokenize(text);
    let pc = toks.iter().position(|t| t.text(text) == "push_constant")?;
    // The qualifier list the keyword is in: back to `layout (`, on to `)`.
    let open = (0..pc).rev().find(|&k| toks[k].is_punct(text, '('))?;
    let close = (pc..toks.len()).find(|&k| toks[k].is_punct(text, ')'))?;
    if toks[open..close]
        .iter()
        .any(|t| matches!(t.text(text), "std430" | "std140" | "scalar"))
    {
        return None;
    }
    let mut std430 = text.to_string();
    std430.insert_str(toks[pc].end, ", std430");
    let other = guarded(Step::Parse, || {
        naga::front::glsl::Frontend::default()
            .parse(
                &naga::front::glsl::Options::from(naga::ShaderStage::Compute),
                &std430,
            )
            .ok()
    })
    .ok()
    .flatten()?;
    let (_, other_var) = other
        .global_variables
        .iter()
        .find(|(_, v)| v.space == AddressSpace::Immediate)?;
    let naga_layout = layout(module, var.ty);
    let glslang_layout = layout(&other, other_var.ty);
    if naga_layout == glslang_layout {
        return None;
    }
    Some(
        at(
            origin,
            Some(toks[pc].start..toks[pc].end),
            "naga lays out push-constant blocks with std140 rules where Vulkan GLSL uses std430, \
             and this block's members land at different offsets"
                .into(),
        )
        .note(format!("naga (std140): {naga_layout}"))
        .note(format!("glslang (std430): {glslang_layout}"))
        .note("write `layout(push_constant, std430)` to get the standard layout"),
    )
}

/// Offsets, strides and sizes of a type, as text to compare and show
/// (a matrix's own layout shows in the offsets after it and the struct size).
fn layout(module: &Module, ty: Handle<Type>) -> String {
    match &module.types[ty].inner {
        TypeInner::Struct { members, span } => {
            let inner: Vec<String> = members
                .iter()
                .map(|m| {
                    let name = m.name.as_deref().unwrap_or("_");
                    format!("{name}@{}{}", m.offset, layout(module, m.ty))
                })
                .collect();
            format!("{{{}}} size {span}", inner.join(", "))
        }
        TypeInner::Array { base, stride, .. } => {
            format!("[stride {stride}{}]", layout(module, *base))
        }
        _ => String::new(),
    }
}
