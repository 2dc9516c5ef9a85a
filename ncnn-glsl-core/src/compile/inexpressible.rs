//! Columns of the extension that naga cannot express, as a table.
//!
//! Some columns of docs/extension.md sections 3 and 5 define a name with a
//! type naga's GLSL frontend does not have (bfloat16, 8- and 16-bit
//! integers). A shader that uses such a name cannot compile in that column,
//! and that is no fault of the shader: the extension chose the type. So a
//! variant set leaves those variants out, with the row's reason in its
//! manifest, and the fallback order (section 8) runs a column that stores the
//! same bytes instead; a device is never refused for it. Refusals caused by
//! the shader's own text (`reject.rs`) stay errors.
//!
//! A row names the column and the names whose definitions there naga cannot
//! compile; a shader that uses none of them keeps the column, whose text
//! naga then compiles. The tests check each row against the extension's
//! tables: every name listed has a refused construct in its definition there
//! (directly or through another name), no name left unlisted does, and no
//! other column has one; and the mode a row says runs instead is the one the
//! fallback order picks.
//!
//! Where a column's type is only ncnn's choice of a representation of
//! workgroup memory, the extension uses one naga can compile instead of
//! leaving the column out: `lfpvec4` in fp16s+fp16a with `shaderInt64` and
//! `shaderInt16` is `f16vec4`, the four halves ncnn keeps in a `uint64_t`.

use crate::ext::{Column, FloatClass, Int16Class, Int8Class};
use crate::target::Target;

/// One column that naga cannot compile for a shader that uses one of `names`.
#[derive(Clone, Copy, Debug)]
pub struct Inexpressible {
    /// The column (one mode class).
    pub column: Column,
    /// The names whose definitions in the column naga cannot compile.
    pub names: &'static [&'static str],
    /// Why: the type naga lacks.
    pub reason: &'static str,
    /// What a device that would run the column runs instead, and why that
    /// means the same.
    pub instead: &'static str,
}

const NO_BFLOAT16: &str = "naga's GLSL frontend has no bfloat16 types";

/// Every column left out of variant sets, and why. Keep this the single
/// place that knows them.
pub const INEXPRESSIBLE: &[Inexpressible] = &[
    Inexpressible {
        column: Column::Float(FloatClass::Bf16Storage),
        names: &[
            "sfp",
            "sfpvec2",
            "sfpvec4",
            "lfp",
            "lfpvec4",
            "buffer_st1",
            "buffer_st2",
            "buffer_st4",
            "afp2lfp",
            "afp2lfpvec4",
        ],
        reason: NO_BFLOAT16,
        instead: "bf16p: the same bf16 bits, two per 32-bit word",
    },
    Inexpressible {
        column: Column::Float(FloatClass::Bf16Packed16),
        names: &["sfp", "buffer_st1", "buffer_cp4to1"],
        reason: "`sfp` is `uint16_t` here, and naga's GLSL frontend has no 16-bit integer types",
        instead: "bf16p without 16-bit storage: the same bytes, two bf16 per `uint`",
    },
    Inexpressible {
        column: Column::Float(FloatClass::Bf16Packed16Local),
        names: &["sfp", "lfp", "buffer_st1", "buffer_cp4to1", "afp2lfp"],
        reason: "`sfp` and `lfp` are `uint16_t` here, and naga's GLSL frontend has no 16-bit \
                 integer types",
        instead: "bf16p without 16-bit storage: the same bytes, two bf16 per `uint`; `lfp` is \
                  `float` there, so values kept in workgroup memory are not rounded to bf16",
    },
    Inexpressible {
        column: Column::Int8(Int8Class::Storage),
        names: &["sint8", "i8buffer_st1", "i8buffer_cp4to1"],
        reason: "`sint8` is `int8_t` here, and naga's GLSL frontend has no 8-bit integer types",
        instead: "int8p: the same bytes, four lanes per `int`",
    },
    Inexpressible {
        column: Column::Int16(Int16Class::PackedI16),
        names: &[
            "aint16",
            "aint16vec4",
            "i16buffer_ld4",
            "lint162aint16",
            "lint162aint16vec4",
        ],
        reason: "`aint16` is `int16_t` here, and naga's GLSL frontend has no 16-bit integer types",
        instead: "int16p without `shaderInt16`: the same storage, arithmetic in `int`",
    },
    Inexpressible {
        column: Column::Int16(Int16Class::Storage),
        names: &[
            "sint16",
            "sint16vec4",
            "lint16",
            "lint16vec4",
            "i16buffer_st1",
            "i16buffer_st2",
            "i16buffer_st4",
        ],
        reason: "`sint16` is `int16_t` here, and naga's GLSL frontend has no 16-bit integer types",
        instead: "int16p: the same bytes, two lanes per `int`",
    },
    Inexpressible {
        column: Column::Int16(Int16Class::StorageI16),
        names: &[
            "sint16",
            "sint16vec4",
            "lint16",
            "lint16vec4",
            "aint16",
            "aint16vec4",
            "i16buffer_st1",
            "i16buffer_st2",
            "i16buffer_st4",
            "lint162aint16",
            "lint162aint16vec4",
        ],
        reason: "`sint16` and `aint16` are `int16_t` here, and naga's GLSL frontend has no 16-bit \
                 integer types",
        instead: "int16p: the same bytes, two lanes per `int`",
    },
];

/// The row that leaves `target` out of the variant set of a shader whose
/// files use the identifiers `uses` accepts; `None` when naga can compile
/// the extension's definitions of every name it uses there.
pub fn left_out(target: &Target, uses: impl Fn(&str) -> bool) -> Option<&'static Inexpressible> {
    let columns = Column::of(target);
    INEXPRESSIBLE
        .iter()
        .find(|row| columns.contains(&row.column) && row.names.iter().any(|n| uses(n)))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::ext::column_definitions;

    /// The names whose definitions in `column` hold a construct the
    /// compiler refuses, directly or through another such name.
    fn refused_names(column: Column) -> BTreeSet<&'static str> {
        // Helper macros are `#define` lines, which the scan skips as directives.
        let defs: Vec<(&'static str, Option<&'static str>)> = column_definitions(column)
            .into_iter()
            .map(|(n, b)| (n, b.map(|b| b.strip_prefix("#define ").unwrap_or(b))))
            .collect();
        let mut out: BTreeSet<&'static str> = defs
            .iter()
            .filter(|(_, body)| body.is_some_and(|b| !super::super::reject::scan(b).is_empty()))
            .map(|(n, _)| *n)
            .collect();
        loop {
            let before = out.len();
            for (name, body) in &defs {
                let Some(body) = body else { continue };
                let idents = super::super::tokens::tokenize(body);
                let calls_refused = idents
                    .iter()
                    .any(|t| out.contains(t.text(body)) && t.text(body) != *name);
                if calls_refused {
                    out.insert(name);
                }
            }
            if out.len() == before {
                return out;
            }
        }
    }

    #[test]
    fn the_table_is_exactly_what_the_extension_refuses() {
        for column in Column::all() {
            let want = refused_names(column);
            let rows: Vec<&Inexpressible> = INEXPRESSIBLE
                .iter()
                .filter(|r| r.column == column)
                .collect();
            assert!(rows.len() <= 1, "{column:?} is listed twice");
            let listed: BTreeSet<&str> =
                rows.iter().flat_map(|r| r.names.iter().copied()).collect();
            assert_eq!(
                listed, want,
                "{column:?}: listed names vs refused definitions"
            );
        }
    }

    #[test]
    fn the_last_fallback_is_never_left_out() {
        // fp32 (and the columns every device has) must compile for any shader.
        let fp32 = Target::default();
        assert!(left_out(&fp32, |_| true).is_none());
        for row in INEXPRESSIBLE {
            assert!(
                !matches!(
                    row.column,
                    Column::Float(FloatClass::Fp32 | FloatClass::Bf16PackedWord)
                        | Column::Int8(Int8Class::Packed)
                        | Column::Int16(Int16Class::Plain | Int16Class::Packed)
                ),
                "{:?} is what others fall back to",
                row.column
            );
        }
    }

    /// Each row says what runs instead: the mode it names is what the
    /// fallback order picks, for every target of the column, from a set
    /// without the columns of the table.
    #[test]
    fn what_runs_instead_is_what_the_fallback_order_picks() {
        use crate::options::Options;
        use crate::variant::space::{space, Usage};
        let all = Usage {
            float: true,
            int8: true,
            int16: true,
            macros: Options::FP32,
        };
        let set: BTreeSet<Target> = space(all)
            .into_iter()
            .filter(|t| left_out(t, |_| true).is_none())
            .collect();
        for row in INEXPRESSIBLE {
            let mode: Options = row
                .instead
                .split([' ', ':'])
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let targets: Vec<Target> = space(all)
                .into_iter()
                .filter(|t| Column::of(t).contains(&row.column))
                .collect();
            // The unreachable int16s-without-shaderInt16 column has none.
            if row.column != Column::Int16(Int16Class::Storage) {
                assert!(!targets.is_empty(), "{:?}", row.column);
            }
            for t in targets {
                let chosen = *crate::variant::select::select_target(t, |c| set.get(&c))
                    .expect("a choice")
                    .variant;
                assert!(
                    mode.is_subset_of(chosen.options),
                    "{t} runs {chosen}, not {mode}"
                );
                assert!(
                    !Column::of(&chosen).contains(&row.column),
                    "{t} runs {chosen}"
                );
            }
        }
    }

    #[test]
    fn only_a_used_name_leaves_a_column_out() {
        let t = |mode: &str| Target::for_mode(mode.parse().unwrap());
        let bf16s = t("bf16s");
        let row = left_out(&bf16s, |n| n == "sfpvec4").expect("bf16s with sfpvec4");
        assert_eq!(row.reason, NO_BFLOAT16);
        // `afpvec4` is `vec4` in bf16s: naga compiles it.
        assert!(left_out(&bf16s, |n| n == "afpvec4").is_none());
        // The int8 names of int8s are left out only for the shader that uses them.
        assert!(left_out(&t("int8s"), |n| n == "sint8").is_some());
        assert!(left_out(&t("int8s"), |n| n == "sint8vec4").is_none());
        assert!(left_out(&t("int8p"), |n| n == "sint8").is_none());
        assert!(left_out(&t("int16s"), |n| n == "lint16vec4").is_some());
    }
}
