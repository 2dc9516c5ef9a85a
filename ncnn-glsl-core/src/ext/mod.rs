//! The ncnn GLSL extension: the text injected after `#version` for a target
//! (docs/extension.md sections 1 to 7), built from tables.
//!
//! Each name of the extension is one `Row` of a table, with one cell per
//! mode class ([`FloatClass`], [`Int8Class`], [`Int16Class`]); the prelude
//! holds only the cells of the target's classes, so the text of a mode reads
//! like what that mode means, with no `#if` in it.
//!
//! The text is meant for a C preprocessor (ours, or glslang's). Constructs
//! naga cannot parse are written in correct glslang GLSL where no naga-able
//! equivalent exists (atomic compare-and-swap for shared-word stores,
//! 8/16/64-bit integer and bfloat16 types); the compiler rejects those.

mod device_macros;
mod functions;
mod macros;
mod row;
mod types;

use row::Row;

pub use device_macros::{
    device_macros, format_property, subgroup_size, PropKind, CORE_FEATURES, EXTENSION_FEATURES,
    FLOAT_PROPERTIES, LIMITS, OTHER_PROPERTIES, SUBGROUP_SHORTHANDS, SUBGROUP_SIZE_BY_VENDOR,
};
pub use macros::{
    extension_lines, option_macros, OptionsTest, TargetTest, EXTENSIONS, OPTION_MACROS,
};
pub use types::{Column, FloatClass, Int16Class, Int8Class};

use crate::device::{DeviceBits, DeviceCaps};
use crate::options::Options;
use crate::target::Target;

/// Writes `#define`s of `rows` for the column `bit`.
fn emit_rows(rows: &[Row], bit: u32, out: &mut String) {
    for row in rows {
        if let Some(body) = row.body(bit) {
            out.push_str(&format!("#define {}{} {}\n", row.name, row.params, body));
        }
    }
}

/// The extension's own definitions for `target` (sections 3 to 6),
/// without `#extension` lines or option and device macros.
pub fn definitions(target: &Target) -> String {
    let mut out = definitions_without_helpers(target);
    out.push_str("// private helpers\n");
    out.push_str(&helpers(&out, |_| true));
    out
}

fn definitions_without_helpers(target: &Target) -> String {
    let f = FloatClass::of(target).bit();
    let i8 = Int8Class::of(target).bit();
    let i16 = Int16Class::of(target).bit();
    let mut out = String::new();
    out.push_str("// storage, arithmetic and local types\n");
    emit_rows(types::FLOAT_TYPES, f, &mut out);
    out.push_str("// buffer functions\n");
    emit_rows(functions::BUFFER_FUNCTIONS, f, &mut out);
    out.push_str("// local memory functions\n");
    emit_rows(functions::LOCAL_FUNCTIONS, f, &mut out);
    out.push_str("// int8\n");
    emit_rows(types::INT8_TYPES, i8, &mut out);
    emit_rows(functions::INT8_FUNCTIONS, i8, &mut out);
    emit_rows(functions::INT_PACKING, i8, &mut out);
    out.push_str("// int16\n");
    emit_rows(types::INT16_TYPES, i16, &mut out);
    emit_rows(functions::INT16_FUNCTIONS, i16, &mut out);
    out.push_str("// specialization constant, else push constant\n");
    emit_rows(functions::MISC, 1, &mut out);
    out
}

/// Every name of the tables of `column`'s kind with its definition there
/// (`None`: not defined there), in table order; then the private helpers,
/// which every column may call. For checks that read the tables (the
/// compiler's list of columns naga cannot express, `compile/inexpressible.rs`).
pub fn column_definitions(column: Column) -> Vec<(&'static str, Option<&'static str>)> {
    let (tables, bit): (&[&[Row]], u32) = match column {
        Column::Float(c) => (
            &[
                types::FLOAT_TYPES,
                functions::BUFFER_FUNCTIONS,
                functions::LOCAL_FUNCTIONS,
            ],
            c.bit(),
        ),
        Column::Int8(c) => (
            &[
                types::INT8_TYPES,
                functions::INT8_FUNCTIONS,
                functions::INT_PACKING,
            ],
            c.bit(),
        ),
        Column::Int16(c) => (&[types::INT16_TYPES, functions::INT16_FUNCTIONS], c.bit()),
    };
    let rows = tables.iter().flat_map(|t| t.iter());
    let helpers = functions::HELPERS.iter().map(|h| (h.name, Some(h.text)));
    rows.map(|r| (r.name, r.body(bit)))
        .chain(std::iter::once(("psc", functions::MISC[0].body(1))))
        .chain(helpers)
        .collect()
}

/// The helpers that `text` names, directly or through other helpers, among
/// those `wanted` accepts, in definition order.
fn helpers(text: &str, wanted: impl Fn(&functions::Helper) -> bool) -> String {
    let mut needed = vec![false; functions::HELPERS.len()];
    loop {
        let mut seen = text.to_string();
        for (h, _) in functions::HELPERS.iter().zip(&needed).filter(|(_, n)| **n) {
            seen.push_str(h.text);
        }
        let mut changed = false;
        for (h, n) in functions::HELPERS.iter().zip(needed.iter_mut()) {
            if !*n && wanted(h) && seen.contains(&format!("{}(", h.name)) {
                *n = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = String::new();
    for (h, _) in functions::HELPERS.iter().zip(&needed).filter(|(_, n)| **n) {
        out.push_str(h.text);
        out.push('\n');
    }
    out
}

fn is_macro(h: &functions::Helper) -> bool {
    h.text.starts_with("#define")
}

/// The prelude our preprocessor is given: as [`prelude`], but of the private
/// helpers only the macros; the helper functions a shader calls are added
/// after expansion by [`helper_functions`], so a mode's finished text holds
/// only the functions the shader uses.
pub fn macro_prelude(target: &Target, device: Option<&DeviceCaps>) -> String {
    let mut out = String::new();
    extension_lines(target, &mut out);
    option_macros(target.options, &mut out);
    if let Some(d) = device {
        device_macros(d, &mut out);
    }
    let defs = definitions_without_helpers(target);
    out.push_str(&defs);
    out.push_str(&helpers(&defs, is_macro));
    out
}

/// The helper functions that finished text `text` calls, with the helpers
/// they call, in an order GLSL accepts.
pub fn helper_functions(text: &str) -> String {
    helpers(text, |h| !is_macro(h))
}

/// The prelude for `target`: `#extension` lines, option macros,
/// `ncnn_glsl_version`, device macros (when a device is given), and the
/// extension's type and function definitions, in the order of section 1,
/// items 2 to 5.
pub fn prelude(target: &Target, device: Option<&DeviceCaps>) -> String {
    let mut out = String::new();
    extension_lines(target, &mut out);
    option_macros(target.options, &mut out);
    if let Some(d) = device {
        device_macros(d, &mut out);
    }
    out.push_str(&definitions(target));
    out
}

/// The targets the snapshots and conformance tests cover: every column of
/// the spec's tables (sections 3 and 5), each on the least device that keeps
/// it, plus the device-bit variants that change the text (bf16p with and
/// without 16-bit storage and uniform access, fp16s+fp16a with and without
/// int64+int16, int16p with and without `shaderInt16`) and a few combinations.
/// Names are [`Target`]'s `Display`.
pub fn spec_targets() -> Vec<Target> {
    let bits = |s16: bool, u16: bool, i16: bool, i64: bool| DeviceBits {
        storage16: s16,
        uniform16: u16,
        int16: i16,
        int64: i64,
    };
    let t = |mode: &str, b: Option<DeviceBits>| {
        let options: Options = mode.parse().expect("a spec target's mode parses");
        let mut target = Target::for_mode(options);
        if let Some(b) = b {
            target.bits = b;
        }
        target
    };
    let s16 = bits(true, false, false, false);
    vec![
        t("fp32", None),
        t("fp16p", None),
        t("fp16p+fp16a", None),
        t("fp16s", None),
        t("fp16s+fp16a", None),
        t("fp16s+fp16a", Some(bits(true, false, true, true))),
        t("fp16s+fp16a+fp16u", None),
        t("bf16p", None),
        t("bf16p", Some(s16)),
        t("bf16p", Some(bits(true, false, true, false))),
        t("bf16p", Some(bits(true, true, true, false))),
        t("bf16s", None),
        t("fp16p+fp16a+bf16p", None),
        t("int8p", None),
        t("int8p+int8a", None),
        t("int8s", None),
        t("int8s+int8a", None),
        t("int16p", None),
        t("int16p", Some(bits(false, false, true, false))),
        t("int16s", None),
        t("local", None),
        t("fp16s+fp16a+int8s+int8a+int16s", None),
        t(
            "fp16p+fp16s+fp16a+fp16u+int8p+int8s+int8a+int8u+int16p+int16s+local",
            Some(bits(true, true, true, true)),
        ),
    ]
}

#[cfg(test)]
mod tests;
