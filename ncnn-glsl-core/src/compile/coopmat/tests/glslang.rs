//! Our blobs against glslang's of the same finished text: the same
//! capabilities, extensions and memory model, the same matrix types (element
//! width, scope, sizes as the same specialization constants or constants,
//! use), and the same cooperative operations with the same memory operands,
//! counted. What differs on purpose is left out and said here:
//!
//! - the SPIR-V version: ours is 1.3 (Vulkan 1.1, the project's floor), so
//!   the extensions are compared with glslang's `--target-env vulkan1.1`
//!   blob (1.3 too: `SPV_KHR_vulkan_memory_model` and `SPV_KHR_16bit_storage`
//!   are extensions there, core in 1.6); the rest with `vulkan1.3` as well;
//! - `SPV_KHR_16bit_storage`: naga declares it in every blob with 16-bit
//!   storage, though the capability is core in SPIR-V 1.3;
//! - the layout operand: glslang's is an `int` constant, naga's a `uint` one
//!   (the value is compared);
//! - a plain buffer access: glslang writes the memory operand `None`, naga
//!   none (the same);
//! - expressions of specialization constants in a function: glslang folds
//!   them into `OpSpecConstantOp`s, this compiler computes them in the
//!   function (`spec_constants.rs`), so their counts are not compared.

use std::collections::{BTreeMap, HashMap};

use super::super::tools;
use super::{finished, FP32_GEMM, KHR_GEMM, NV_GEMM};
use crate::compile::{compile, CompileOptions};
use crate::spirv::{instructions, op};

/// What is compared of a blob.
#[derive(Debug, PartialEq, Eq)]
struct Shape {
    capabilities: Vec<u32>,
    extensions: Vec<String>,
    memory_model: Vec<u32>,
    /// Each matrix type: (element width, scope, rows, columns, use or
    /// "NV"), the sizes as `spec N` or `const V`; sorted.
    types: Vec<String>,
    /// Each cooperative operation, by what it does and on what; counted.
    ops: BTreeMap<String, usize>,
}

fn shape(words: &[u32]) -> Shape {
    let insts = instructions(words).expect("a framed module");
    let mut constants: HashMap<u32, u32> = HashMap::new();
    let mut spec_ids: HashMap<u32, u32> = HashMap::new();
    let mut widths: HashMap<u32, u32> = HashMap::new();
    let mut pointer_class: HashMap<u32, u32> = HashMap::new();
    let mut value_type: HashMap<u32, u32> = HashMap::new();
    let mut coop: HashMap<u32, String> = HashMap::new();
    let mut spec_ops: HashMap<u32, Vec<u32>> = HashMap::new();
    for i in &insts {
        let o = |k| i.operand(k).unwrap_or(0);
        match i.op {
            op::CONSTANT => {
                constants.insert(o(1), o(2));
            }
            op::SPEC_CONSTANT_OP => {
                spec_ops.insert(o(1), i.words[3..].to_vec());
            }
            op::DECORATE if o(1) == 1 => {
                spec_ids.insert(o(0), o(2));
            }
            op::TYPE_FLOAT => {
                widths.insert(o(0), o(1));
            }
            op::TYPE_POINTER => {
                pointer_class.insert(o(0), o(1));
            }
            _ => {}
        }
    }
    // A computed size as its operation over the sizes it reads:
    // `op 132 (spec 18, const 2)`.
    fn size(
        id: u32,
        depth: usize,
        spec_ids: &HashMap<u32, u32>,
        constants: &HashMap<u32, u32>,
        spec_ops: &HashMap<u32, Vec<u32>>,
    ) -> String {
        match (spec_ids.get(&id), constants.get(&id), spec_ops.get(&id)) {
            (Some(s), _, _) => format!("spec {s}"),
            (None, Some(v), _) => format!("const {v}"),
            (None, None, Some(w)) if depth < 8 && !w.is_empty() => {
                let args: Vec<String> = w[1..]
                    .iter()
                    .map(|&a| size(a, depth + 1, spec_ids, constants, spec_ops))
                    .collect();
                format!("op {} ({})", w[0], args.join(", "))
            }
            _ => "?".into(),
        }
    }
    let size = |id: u32| size(id, 0, &spec_ids, &constants, &spec_ops);
    let mut types = Vec::new();
    for i in &insts {
        let o = |k| i.operand(k).unwrap_or(0);
        match i.op {
            4456 | 5358 => {
                let u = if i.op == 4456 {
                    format!("use {}", constants.get(&o(5)).copied().unwrap_or(99))
                } else {
                    "NV".into()
                };
                let t = format!(
                    "f{} scope {} {} x {} {u}",
                    widths.get(&o(1)).copied().unwrap_or(0),
                    constants.get(&o(2)).copied().unwrap_or(0),
                    size(o(3)),
                    size(o(4))
                );
                coop.insert(o(0), t.clone());
                types.push(t);
            }
            // Values and pointers: their types.
            op::VARIABLE | op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN => {
                value_type.insert(o(1), o(0));
            }
            _ => {
                if i.words.len() > 2 && coop.contains_key(&o(0)) {
                    value_type.insert(o(1), o(0));
                }
            }
        }
    }
    types.sort();
    let class = |ptr: u32| {
        let c = value_type
            .get(&ptr)
            .and_then(|t| pointer_class.get(t))
            .copied()
            .unwrap_or(0);
        match c {
            4 => "shared",
            12 => "buffer",
            _ => "other",
        }
    };
    let memory = |mask: Option<u32>, scope: Option<u32>| {
        let mask = mask.unwrap_or(0);
        if mask == 0 {
            "plain".to_string()
        } else {
            format!(
                "mask {mask:#x} scope {}",
                scope.and_then(|s| constants.get(&s)).copied().unwrap_or(99)
            )
        }
    };
    // The zero matrices of the extent checks (`extent.rs`): constants only
    // an `OpPhi` reads, which glslang's blob (no checks) has none of.
    let operands = |phi: bool| -> std::collections::HashSet<u32> {
        insts
            .iter()
            .filter(|i| (i.op == 245) == phi && i.op != op::CONSTANT_COMPOSITE)
            .flat_map(|i| i.words[1..].iter().copied())
            .collect()
    };
    let (by_phis, by_others) = (operands(true), operands(false));
    let guard_zero =
        |id: Option<u32>| id.is_some_and(|id| by_phis.contains(&id) && !by_others.contains(&id));
    let mut ops: BTreeMap<String, usize> = BTreeMap::new();
    for i in &insts {
        let o = |k| i.operand(k);
        if i.op == op::CONSTANT_COMPOSITE && guard_zero(o(1)) {
            continue;
        }
        let name = match i.op {
            4457 => Some(format!(
                "load {} layout {} {}",
                class(o(2).unwrap_or(0)),
                o(3).and_then(|l| constants.get(&l)).copied().unwrap_or(99),
                memory(o(5), o(6))
            )),
            4458 => Some(format!(
                "store {} layout {} {}",
                class(o(0).unwrap_or(0)),
                o(2).and_then(|l| constants.get(&l)).copied().unwrap_or(99),
                memory(o(4), o(5))
            )),
            5359 => Some(format!(
                "load NV {} {}",
                class(o(2).unwrap_or(0)),
                memory(o(5), o(6))
            )),
            5360 => Some(format!(
                "store NV {} {}",
                class(o(0).unwrap_or(0)),
                memory(o(4), o(5))
            )),
            4459 => Some("multiply-add".into()),
            5361 => Some("multiply-add NV".into()),
            // Construction, conversion, arithmetic on matrices.
            op::CONSTANT_COMPOSITE | 80 | op::F_CONVERT | 143 | 129 | 131 | 136
                if o(0).is_some_and(|t| coop.contains_key(&t)) =>
            {
                let what = match i.op {
                    op::CONSTANT_COMPOSITE | 80 => "construct",
                    op::F_CONVERT => "convert",
                    143 => "times scalar",
                    129 => "add",
                    131 => "subtract",
                    _ => "divide",
                };
                Some(format!("{what} {}", coop[&o(0).unwrap_or(0)]))
            }
            _ => None,
        };
        if let Some(n) = name {
            *ops.entry(n).or_default() += 1;
        }
    }
    let mut capabilities: Vec<u32> = insts
        .iter()
        .filter(|i| i.op == op::CAPABILITY)
        .filter_map(|i| i.operand(0))
        .collect();
    capabilities.sort_unstable();
    let mut extensions: Vec<String> = insts
        .iter()
        .filter(|i| i.op == op::EXTENSION)
        .map(|i| i.string(0))
        .collect();
    extensions.sort();
    let memory_model = insts
        .iter()
        .find(|i| i.op == 14)
        .map(|i| i.words[1..].to_vec())
        .unwrap_or_default();
    Shape {
        capabilities,
        extensions,
        memory_model,
        types,
        ops,
    }
}

/// Compiles `src` in `mode` with us and with glslang and compares the shapes.
fn compare(src: &str, mode: &str) {
    compare_expanded(&finished(src, mode), mode);
}

/// [`compare`] for a finished text (a variant of a set).
pub(super) fn compare_text(text: &str, what: &str) {
    let e = crate::expand::Expanded::verbatim(
        crate::source::SourceFile {
            name: "t.comp".into(),
            path: None,
            text: text.into(),
        },
        crate::target::Target::for_mode("fp32".parse().unwrap()),
    );
    compare_expanded(&e, what);
}

fn compare_expanded(e: &crate::expand::Expanded, mode: &str) {
    let ours = compile(e, &CompileOptions::default()).unwrap_or_else(|d| panic!("{d}"));
    let (Some(g11), Some(g13)) = (
        tools::glslang_blob(e.text(), "vulkan1.1"),
        tools::glslang_blob(e.text(), "vulkan1.3"),
    ) else {
        return;
    };
    let (g11, g13) = match (g11, g13) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(log), _) | (_, Err(log)) => {
            // glslang refuses what this compiler takes (a `float16_t`
            // array without fp16 arithmetic's extension): nothing to compare.
            eprintln!("glslang refuses the text in {mode}: {log}");
            return;
        }
    };
    tools::assert_valid(&g11);
    let (ours, g11, g13) = (shape(&ours.spirv), shape(&g11), shape(&g13));
    let dis = || tools::disassemble(&compile(e, &CompileOptions::default()).unwrap().spirv);
    assert_eq!(
        ours.capabilities,
        g13.capabilities,
        "capabilities in {mode}\n{:?}",
        dis()
    );
    // naga declares `SPV_KHR_16bit_storage`, core since SPIR-V 1.3, in
    // every blob with 16-bit storage; glslang does not.
    let ext: Vec<&String> = ours
        .extensions
        .iter()
        .filter(|e| *e != "SPV_KHR_16bit_storage")
        .collect();
    assert_eq!(
        ext,
        g11.extensions.iter().collect::<Vec<_>>(),
        "extensions in {mode}"
    );
    assert_eq!(
        ours.memory_model, g13.memory_model,
        "memory model in {mode}"
    );
    assert_eq!(ours.types, g13.types, "matrix types in {mode}");
    assert_eq!(ours.ops, g13.ops, "cooperative operations in {mode}");
    assert_eq!(g11.types, g13.types);
    assert_eq!(g11.ops, g13.ops);
}

#[test]
fn the_khr_gemm_is_glslangs() {
    compare(KHR_GEMM, "fp16s");
}

#[test]
fn computed_sizes_are_glslangs() {
    compare(super::DERIVED_SIZES, "fp16s");
    // Compared as operations (`op 132 (spec 0, const 2)`), not as unknowns.
    let ours = compile(
        &finished(super::DERIVED_SIZES, "fp16s"),
        &CompileOptions::default(),
    )
    .unwrap();
    let types = shape(&ours.spirv).types;
    assert!(
        types.iter().any(|t| t.contains("op 132 (spec 0, const 2)")),
        "{types:?}"
    );
    assert!(
        types.iter().any(|t| t.contains("op 128 (spec 1, spec 1)")),
        "{types:?}"
    );
    assert!(!types.iter().any(|t| t.contains('?')), "{types:?}");
}

#[test]
fn the_nv_gemm_is_glslangs() {
    compare(NV_GEMM, "fp16s");
}

#[test]
fn the_fp32_gemm_is_glslangs_in_every_mode() {
    for mode in ["fp32", "fp16p", "fp16s", "fp16p+fp16a", "fp16s+fp16a"] {
        compare(FP32_GEMM, mode);
    }
}
