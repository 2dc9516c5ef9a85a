//! The item form, `include_ncnn_shader!(pub mod NAME = "FILE");`: a module
//! with the set and a typed host side generated from the reflection, so a
//! wrong member name or type is a compile error in the user's crate.
//!
//! - `SET`: the `&'static VariantSet` of the expression form;
//! - `PushConstants`: the push-constant block as a `#[repr(C)]` struct, std430
//!   offsets asserted at compile time, `bytemuck::Pod` (so `&[u8]` without
//!   unsafe code);
//! - `Specialization`: the specialization constants by name, `Option`s that
//!   default to the shader's defaults, `values()` for `PipelineOptions`;
//! - `Buffers`: the buffer bindings by name, `bind()` for `Dispatch::typed`,
//!   which checks the names against the pipeline's slots.
//!
//! Every variant of a set must agree on these (they do unless a block member
//! or a constant's type is an extension type such as `afp`); where they do
//! not, the item form is refused with the variants and the difference. A
//! name that would not make a Rust field (`self`, a name that is not plain
//! ASCII, a push-constant member named like the padding, two buffer blocks
//! of one name) is a shader error at its declaration, never a compiler
//! error inside the generated module.

use std::collections::HashMap;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::compile::{declarations_of, HostName};
use crate::diag::{Diagnostic, Diagnostics};
use crate::expand::Expanded;
use crate::reflection::{BindingKind, MemberScalar, MemberType, PushMember, Reflection};
use crate::variant::build::BuiltSet;

/// The items of the module for `set`, around the set expression `set_expr`;
/// `Err` is the whole message for `compile_error!`.
pub fn module_items(
    name: &str,
    set: &BuiltSet,
    set_expr: TokenStream,
    krate: &TokenStream,
) -> Result<TokenStream, String> {
    let first = common_reflection(name, set)?;
    let refused = refused_names(set);
    if !refused.is_empty() {
        return Err(placed(&refused, None).to_string());
    }
    let push = push_struct(&first.push_constants, first.push_constant_size, krate)?;
    let spec = specialization(first, krate);
    let buffers = buffers(first, krate);
    let doc = format!("Every variant of `{name}`, compiled at build time.");
    Ok(quote! {
        #[doc = #doc]
        pub static SET: &'static #krate::VariantSet = #set_expr;
        #push
        #spec
        #buffers
    })
}

/// The reflection every blob shares for the host side; an error names two
/// variants that differ.
fn common_reflection<'s>(name: &str, set: &'s BuiltSet) -> Result<&'s Reflection, String> {
    let Some(first) = set.variants.first() else {
        return Err("the shader has no variants".into());
    };
    let r0 = &set.blobs[first.blob].reflection;
    for v in &set.variants[1..] {
        let r = &set.blobs[v.blob].reflection;
        let what = if r.push_constants != r0.push_constants {
            Some("push-constant block")
        } else if buffer_keys(r) != buffer_keys(r0) {
            Some("buffer bindings")
        } else if spec_keys(r) != spec_keys(r0) {
            Some("specialization constants")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(format!(
                "the typed form needs one host layout, but the {what} of variant `{}` differs \
                 from that of `{}` (a member under `#if` of a mode macro, or of an extension \
                 type, changes with the mode); declare it the same in every mode, or use the \
                 expression form `include_ncnn_shader!(\"{}\")`",
                v.key.target, first.key.target, name
            ));
        }
    }
    Ok(r0)
}

fn buffer_keys(r: &Reflection) -> Vec<(u32, u32, BindingKind, &str)> {
    r.bindings
        .iter()
        .map(|b| (b.set, b.binding, b.kind, &*b.name))
        .collect()
}

fn spec_keys(r: &Reflection) -> Vec<(u32, &str, &str)> {
    r.spec_constants
        .iter()
        .map(|c| (c.id, &*c.name, &*c.ty))
        .collect()
}

/// A name of the host side that cannot be a Rust field: the declaration
/// it comes from, and why.
#[derive(Clone, Debug)]
pub(crate) struct NameRefusal {
    what: HostName,
    name: String,
    /// Which declaration of the name is at fault (0: the first).
    nth: usize,
    message: String,
    note: &'static str,
}

/// Names Rust cannot take as they are, for a shader error instead of a
/// compiler error inside the generated module.
const NOT_FIELDS: &[&str] = &["self", "Self", "super", "crate", "_", ""];

/// Rust's keywords, which become raw identifiers.
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// Every name of the host side of `set` (its first variant's reflection,
/// which all share) that would not make a field of its struct: a name Rust
/// cannot take, a name that is not plain ASCII (Rust compares identifiers
/// after Unicode normalization), a push-constant member named like the
/// padding fields, two buffer blocks of one name (a `uniform` and a
/// `buffer` block may share one in GLSL).
pub(crate) fn refused_names(set: &BuiltSet) -> Vec<NameRefusal> {
    let Some(v) = set.variants.first() else {
        return Vec::new();
    };
    let r = &set.blobs[v.blob].reflection;
    let push = r
        .push_constants
        .iter()
        .map(|m| (HostName::PushMember, &*m.name));
    let specs = r
        .spec_constants
        .iter()
        .filter(|c| spec_type(&c.ty).is_some())
        .map(|c| (HostName::SpecConstant, &*c.name));
    let buffers = r
        .bindings
        .iter()
        .filter(|b| is_buffer(b.kind))
        .map(|b| (HostName::BufferBlock, &*b.name));
    let mut out = Vec::new();
    let mut seen = HashMap::new();
    for (what, name) in push.chain(specs).chain(buffers) {
        let label = match what {
            HostName::PushMember => "push-constant member",
            HostName::SpecConstant => "specialization constant",
            HostName::BufferBlock => "buffer block",
        };
        let refuse = |nth, message: String, note| NameRefusal {
            what,
            name: name.to_string(),
            nth,
            message,
            note,
        };
        let count = seen.entry((what, name)).or_insert(0);
        *count += 1;
        if NOT_FIELDS.contains(&name) {
            out.push(refuse(
                0,
                format!("{label} `{name}` cannot be a Rust field name"),
                "rename it in the shader",
            ));
        } else if !is_ascii_identifier(name) {
            out.push(refuse(
                0,
                format!("{label} `{name}` is not an ASCII name, which the typed form needs"),
                "Rust compares identifiers after Unicode normalization (NFC), so names that \
                 differ here could be one field there; GLSL names are ASCII (glslang refuses \
                 others): rename it",
            ));
        } else if what == HostName::PushMember && is_padding_name(name) {
            out.push(refuse(
                0,
                format!(
                    "{label} `{name}` is named like the padding fields the typed form adds \
                     (`__pad0`, `__pad1`, ...)"
                ),
                "rename it in the shader",
            ));
        } else if *count == 2 {
            // Only buffer blocks get here: the compiler refuses the others.
            let kinds = r
                .bindings
                .iter()
                .filter(|b| *b.name == *name && is_buffer(b.kind));
            let uniform = kinds.clone().any(|b| b.kind == BindingKind::UniformBuffer);
            let storage = kinds.clone().any(|b| b.kind == BindingKind::StorageBuffer);
            let both = if uniform && storage {
                " (a `uniform` and a `buffer` block)"
            } else {
                ""
            };
            out.push(refuse(
                1,
                format!("{label} `{name}` is declared twice{both}"),
                "the typed form's `Buffers` has one field per block name: rename one of them",
            ));
        }
    }
    out
}

/// `refused` as shader errors, each at its declaration in `expanded` (the
/// first variant's expansion) where it is found there.
pub(crate) fn placed(refused: &[NameRefusal], expanded: Option<&Expanded>) -> Diagnostics {
    let at = |r: &NameRefusal| {
        let e = expanded?;
        let found = declarations_of(e.text(), r.what, &r.name);
        let range = found.get(r.nth).or(found.last())?;
        e.span_of(range.start, range.len())
    };
    Diagnostics(
        refused
            .iter()
            .map(|r| {
                let d = match at(r) {
                    Some(span) => Diagnostic::at(span, r.message.clone()),
                    None => Diagnostic::new(r.message.clone()),
                };
                d.note(r.note)
            })
            .collect(),
    )
}

fn is_ascii_identifier(name: &str) -> bool {
    name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// `__pad` and digits: the names [`push_struct`] gives its padding.
fn is_padding_name(name: &str) -> bool {
    name.strip_prefix("__pad")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn is_buffer(kind: BindingKind) -> bool {
    matches!(
        kind,
        BindingKind::StorageBuffer | BindingKind::UniformBuffer
    )
}

/// A Rust identifier for a GLSL name that [`refused_names`] passed (raw
/// where it is a Rust keyword).
fn field_ident(name: &str) -> Ident {
    if KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// A member's Rust type and its size in bytes.
fn rust_type(m: &PushMember) -> Result<(TokenStream, u32), String> {
    let t: &MemberType = &m.ty;
    let refuse = |why: &str| {
        Err(format!(
            "push-constant member `{}` is a `{}`: {why}; the typed form has no field for it \
             (use the expression form and write the bytes yourself)",
            m.name, t.glsl
        ))
    };
    let scalar = match t.scalar {
        MemberScalar::Int => quote!(i32),
        MemberScalar::Uint | MemberScalar::Bool => quote!(u32),
        MemberScalar::Float => quote!(f32),
        MemberScalar::Float16 | MemberScalar::Double => {
            return refuse("only 32-bit scalars have host fields")
        }
        MemberScalar::Other => return refuse("structs and nested arrays have no host field"),
    };
    let rows = Literal::u32_unsuffixed(t.rows);
    let (mut ty, mut size) = match (t.rows, t.columns) {
        (1, 1) => (scalar, 4),
        (_, 1) => (quote!([#scalar; #rows]), 4 * t.rows),
        (_, c) => {
            if t.column_stride != 4 * t.rows {
                return refuse(&format!(
                    "its columns are {} bytes apart in std430 and hold {}",
                    t.column_stride,
                    4 * t.rows
                ));
            }
            let c = Literal::u32_unsuffixed(c);
            (quote!([[#scalar; #rows]; #c]), 4 * t.rows * t.columns)
        }
    };
    if t.array_len > 0 {
        if t.array_stride != size {
            return refuse(&format!(
                "its elements are {} bytes apart in std430 and hold {size} \
                 (a `vec3` array: use `vec4`)",
                t.array_stride
            ));
        }
        let n = Literal::u32_unsuffixed(t.array_len);
        ty = quote!([#ty; #n]);
        size *= t.array_len;
    }
    Ok((ty, size))
}

/// `PushConstants`, with explicit padding fields where std430 leaves a gap
/// (so the struct has no implicit padding and can be `Pod`).
fn push_struct(
    members: &[PushMember],
    size: u32,
    krate: &TokenStream,
) -> Result<TokenStream, String> {
    let mut fields = Vec::new();
    let mut asserts = Vec::new();
    let mut field_types = Vec::new();
    let mut cursor = 0u32;
    let mut pads = 0u32;
    for m in members {
        let (ty, bytes) = rust_type(m)?;
        if m.offset < cursor {
            return Err(format!(
                "push-constant member `{}` at offset {} overlaps the member before it",
                m.name, m.offset
            ));
        }
        if m.offset > cursor {
            let pad = format_ident!("__pad{}", pads);
            let n = Literal::u32_unsuffixed(m.offset - cursor);
            pads += 1;
            fields.push(quote! {
                /// std430 leaves these bytes unused.
                pub #pad: [u8; #n]
            });
            field_types.push(quote!([u8; #n]));
        }
        let ident = field_ident(&m.name);
        let doc = format!("`{} {}`, at byte {}.", m.ty.glsl, m.name, m.offset);
        let offset = m.offset as usize;
        fields.push(quote! { #[doc = #doc] pub #ident: #ty });
        asserts.push(quote! {
            assert!(::core::mem::offset_of!(PushConstants, #ident) == #offset);
        });
        field_types.push(ty.clone());
        cursor = m.offset + bytes;
    }
    if cursor != size {
        return Err(format!(
            "the push-constant block ends at byte {size}, its members at {cursor}"
        ));
    }
    let size = size as usize;
    Ok(quote! {
        /// The push-constant block, laid out as the shader reads it (std430).
        /// `bytemuck::bytes_of` (or [`Dispatch::typed`]) gives its bytes;
        /// `..Default::default()` fills the padding.
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        #[allow(non_snake_case)]
        pub struct PushConstants { #(#fields),* }

        // SAFETY: `repr(C)`, every field an integer, a float or an array of
        // them (`rust_type`'s types, each `Pod`), and no padding: the
        // offsets and the size are checked below against the fields'.
        // Written out, not derived: the derive's checks cost rustc time in
        // every module of a library.
        unsafe impl #krate::bytemuck::Zeroable for PushConstants {}
        // SAFETY: as above.
        unsafe impl #krate::bytemuck::Pod for PushConstants {}

        impl ::core::default::Default for PushConstants {
            fn default() -> Self {
                #krate::bytemuck::Zeroable::zeroed()
            }
        }

        impl #krate::OfSet for PushConstants {
            fn set() -> &'static #krate::VariantSet {
                SET
            }
        }

        // The offsets the shader reads, checked by the compiler.
        const _: () = {
            #(#asserts)*
            assert!(::core::mem::size_of::<PushConstants>() == #size);
            assert!(#size == 0 #(+ ::core::mem::size_of::<#field_types>())*);
        };
    })
}

/// The Rust type and `SpecValue` variant of a constant of GLSL type `ty`;
/// `None` for a type the runtime's `SpecValue` lacks.
fn spec_type(ty: &str) -> Option<(TokenStream, TokenStream)> {
    Some(match ty {
        "bool" => (quote!(bool), quote!(Bool)),
        "int" => (quote!(i32), quote!(Int)),
        "uint" => (quote!(u32), quote!(Uint)),
        "float" => (quote!(f32), quote!(Float)),
        _ => return None,
    })
}

/// `Specialization`: one `Option` per constant of a type the runtime can set.
fn specialization(r: &Reflection, krate: &TokenStream) -> TokenStream {
    let mut fields = Vec::new();
    let mut values = Vec::new();
    for c in r.spec_constants.iter() {
        let Some((ty, variant)) = spec_type(&c.ty) else {
            continue;
        };
        let ident = field_ident(&c.name);
        let id = c.id;
        let doc = format!(
            "`layout(constant_id = {id}) const {} {}`; `None` keeps the shader's default.",
            c.ty, c.name
        );
        fields.push(quote! { #[doc = #doc] pub #ident: ::core::option::Option<#ty> });
        values.push(quote! {
            if let ::core::option::Option::Some(v) = self.#ident {
                out.push((#id, #krate::SpecValue::#variant(v)));
            }
        });
    }
    quote! {
        /// Values for the shader's specialization constants, by name.
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        #[allow(non_snake_case)]
        pub struct Specialization { #(#fields),* }

        impl Specialization {
            /// The values given, by `constant_id`, for `PipelineOptions::specialization`.
            pub fn values(&self) -> ::std::vec::Vec<(u32, #krate::SpecValue)> {
                #[allow(unused_mut)]
                let mut out = ::std::vec::Vec::new();
                #(#values)*
                out
            }
        }
    }
}

/// `Buffers`: the buffer bindings by name, in the pipeline's slot order.
fn buffers(r: &Reflection, krate: &TokenStream) -> TokenStream {
    let mut fields = Vec::new();
    let mut idents = Vec::new();
    let mut names = Vec::new();
    for b in r.bindings.iter() {
        if !is_buffer(b.kind) {
            continue;
        }
        let ident = field_ident(&b.name);
        let doc = format!("`{}`: set {}, binding {}.", b.name, b.set, b.binding);
        fields.push(quote! { #[doc = #doc] pub #ident: &'a #krate::Buffer });
        names.push(b.name.to_string());
        idents.push(ident);
    }
    let n = names.len();
    let lifetime_use = if n == 0 {
        quote! { #[doc(hidden)] pub _unused: ::core::marker::PhantomData<&'a ()> }
    } else {
        quote! {}
    };
    quote! {
        /// The shader's buffers, by block name.
        #[derive(Clone, Copy, Debug)]
        #[allow(non_snake_case)]
        pub struct Buffers<'a> { #(#fields,)* #lifetime_use }

        /// The buffer blocks' names, in the pipeline's slot order.
        pub const BUFFER_NAMES: [&str; #n] = [#(#names),*];

        impl<'a> Buffers<'a> {
            /// The buffers in slot order, with their names and set for
            /// `Dispatch::typed` to check against the pipeline.
            pub fn bind(&self) -> #krate::Bound<'a, #n> {
                #krate::Bound::of_set(SET, [#(self.#idents),*], &BUFFER_NAMES)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::CompileOptions;
    use crate::source::{FsLoader, SourceFile};
    use crate::variant::build::build;

    fn items(text: &str) -> Result<String, String> {
        let source = SourceFile {
            name: "t.comp".into(),
            path: None,
            text: format!("#version 450\n{text}"),
        };
        let set = build(
            source,
            &FsLoader,
            &Default::default(),
            &CompileOptions::default(),
        )
        .unwrap();
        module_items("t.comp", &set, quote!(SET_EXPR), &quote!(k)).map(|t| t.to_string())
    }

    const MAIN: &str = "layout (binding = 0) buffer b_blob { float d[]; };\n\
                        void main() { d[0] = float(p.a); }\n";

    #[test]
    fn members_become_fields_with_padding_where_std430_leaves_a_gap() {
        let t = items(&format!(
            "layout (push_constant, std430) uniform P {{ int a; float f; uvec2 u; vec4 v; mat2 m; \
             ivec4 arr[2]; int type; }} p;\n{MAIN}"
        ))
        .unwrap();
        for field in [
            "pub a : i32",
            "pub f : f32",
            "pub u : [u32 ; 2]",
            "pub v : [f32 ; 4]",
            "pub m : [[f32 ; 2] ; 2]",
            "pub arr : [[i32 ; 4] ; 2]",
            "pub r#type : i32",
        ] {
            assert!(t.contains(field), "no `{field}` in {t}");
        }
        // `vec4 v` is 16-aligned: 16 bytes of members before it, none missing.
        assert!(!t.contains("__pad"), "{t}");
        let t = items(&format!(
            "layout (push_constant, std430) uniform P {{ int a; vec4 v; }} p;\n{MAIN}"
        ))
        .unwrap();
        assert!(t.contains("pub __pad0 : [u8 ; 12]"), "{t}");
        assert!(
            t.contains("offset_of ! (PushConstants , v) == 16usize"),
            "{t}"
        );
        assert!(
            t.contains("size_of :: < PushConstants > () == 32usize"),
            "{t}"
        );
    }

    #[test]
    fn members_without_a_plain_host_field_are_refused_with_the_member() {
        for (decl, member, why) in [
            ("vec3 a[2];", "`a` is a `vec3[2]`", "use `vec4`"),
            ("mat3 a;", "`a` is a `mat3`", "columns are 16 bytes apart"),
            ("float a[2][2];", "`a`", "nested arrays"),
        ] {
            let e = items(&format!(
                "layout (push_constant, std430) uniform P {{ {decl} }} p;\n\
                 layout (binding = 0) buffer b_blob {{ float d[]; }};\nvoid main() {{ d[0] = 1.0; }}\n"
            ))
            .unwrap_err();
            assert!(e.contains(member) && e.contains(why), "{decl}: {e}");
            assert!(e.contains("expression form"), "{e}");
        }
    }

    #[test]
    fn a_block_that_changes_with_the_mode_is_refused_naming_two_variants() {
        let e = items(
            "layout (push_constant) uniform P {\n float a;\n#if NCNN_fp16_storage\n int b;\n#endif\n} p;\n\
             layout (binding = 0) buffer b_blob { sfp d[]; };\nvoid main() { d[0] = sfp(p.a); }\n",
        )
        .unwrap_err();
        assert!(e.contains("push-constant block of variant"), "{e}");
        assert!(e.contains("`fp16s") && e.contains("`fp32`"), "{e}");
    }

    /// The item form of `text` (after `#version 450`) through
    /// `include_module`, from a directory of its own.
    fn typed(text: &str) -> Result<String, String> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ncnn-glsl-module-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("t.comp"), format!("#version 450\n{text}")).unwrap();
        let options = Default::default();
        let r = crate::embed::include_module("t.comp", &dir, &dir, &options, &quote!(k));
        let _ = std::fs::remove_dir_all(&dir);
        r.map(|t| t.to_string())
    }

    #[test]
    fn names_that_would_clash_in_rust_are_shader_errors_at_the_declaration() {
        let main =
            "layout (binding = 0) buffer b_blob { float d[]; };\nvoid main() { d[0] = 1.0; }\n";
        for (decl, at, message) in [
            (
                "layout (push_constant) uniform P { int a; vec4 __pad0; } p;",
                "2:48",
                "push-constant member `__pad0` is named like the padding fields the typed form \
                 adds (`__pad0`, `__pad1`, ...)",
            ),
            (
                "layout (push_constant) uniform P { int __pad7; } p;",
                "2:40",
                "push-constant member `__pad7` is named like the padding fields",
            ),
            (
                "layout (push_constant) uniform P { int self; } p;",
                "2:40",
                "push-constant member `self` cannot be a Rust field name",
            ),
            (
                "layout (constant_id = 0) const int crate = 1;",
                "2:36",
                "specialization constant `crate` cannot be a Rust field name",
            ),
            (
                "layout (binding = 1) buffer super { float e[]; };",
                "2:29",
                "buffer block `super` cannot be a Rust field name",
            ),
            // Rust would see one name: it compares identifiers in NFC.
            (
                "layout (push_constant) uniform P { int caf\u{e9}; int cafe\u{301}; } p;",
                "2:40",
                "push-constant member `caf\u{e9}` is not an ASCII name",
            ),
            // A `uniform` and a `buffer` block of one name: GLSL takes them,
            // `Buffers` would have two fields of one name.
            (
                "layout (binding = 1) uniform b_blob { float u; } ub;",
                "3:29",
                "buffer block `b_blob` is declared twice (a `uniform` and a `buffer` block)",
            ),
        ] {
            let e = typed(&format!("{decl}\n{main}")).unwrap_err();
            let want = format!("t.comp:{at}: error: {message}");
            assert!(e.contains(&want), "{decl}:\nwant {want}\ngot {e}");
        }
        // Each at its own declaration.
        let e = typed(&format!(
            "layout (push_constant) uniform P {{ int caf\u{e9}; int cafe\u{301}; }} p;\n{main}"
        ))
        .unwrap_err();
        assert!(
            e.contains("t.comp:2:50: error: push-constant member `cafe\u{301}` is not an ASCII"),
            "{e}"
        );
        // Keywords become raw identifiers, other names stay as they are.
        let t = typed(&format!(
            "layout (push_constant) uniform P {{ int type; int pad0; int __pad; }} p;\n{main}"
        ))
        .unwrap();
        assert!(
            t.contains("pub r#type : i32") && t.contains("pub __pad : i32"),
            "{t}"
        );
    }

    #[test]
    fn constants_and_buffers_are_named() {
        let t = items(
            "layout (constant_id = 3) const int w = 4;\n\
             layout (constant_id = 4) const bool on = true;\n\
             layout (binding = 1) readonly buffer in_blob { float x[]; };\n\
             layout (binding = 0) buffer out_blob { float y[]; };\n\
             void main() { if (on) y[0] = x[0] * float(w); }\n",
        )
        .unwrap();
        assert!(
            t.contains("pub w : :: core :: option :: Option < i32 >"),
            "{t}"
        );
        assert!(
            t.contains("pub on : :: core :: option :: Option < bool >"),
            "{t}"
        );
        assert!(
            t.contains("out . push ((3u32 , k :: SpecValue :: Int (v)))"),
            "{t}"
        );
        // Slot order (set, binding), not declaration order.
        assert!(t.contains("[\"out_blob\" , \"in_blob\"]"), "{t}");
        assert!(t.contains("pub struct PushConstants { }"), "{t}");
    }
}
