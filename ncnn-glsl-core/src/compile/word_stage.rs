//! The word stage: naga's SPIR-V writer, then the passes over its words that
//! make the blob what glslang's would be where naga's differs (real
//! specialization constants, a constant `gl_WorkGroupSize`, the capabilities
//! the code uses, `NonReadable` on `writeonly` buffers, `Round` for `round()`).

use super::ir_stage::CheckedModule;
use super::naga_run;
use super::reflect::ScalarValue;
use super::spec_expressions::SpecWord;
use super::text_stage::EditedText;
use super::CompileOptions;
use super::{
    component_loads, coopmat, round_half_away, spec_constants, spec_expressions, spirv_limits,
    subgroup_broadcast, subgroup_calls, trim_capabilities, workgroup_size, writeonly_decoration,
};
use crate::diag::{Diagnostic, Diagnostics};
use std::collections::HashMap;

/// The finished words, and what the reflection needs of their ids.
pub(crate) struct Words {
    pub spirv: Vec<u32>,
    /// Each specialized array length's id, by its placeholder.
    pub lengths: HashMap<u32, u32>,
}

/// Writes the SPIR-V of `checked` and runs the word passes over it.
pub(crate) fn run(
    edited: &EditedText,
    checked: &CheckedModule,
    options: &CompileOptions,
) -> Result<Words, Diagnostics> {
    let (module, info) = (&checked.module, &checked.info);
    // The subgroup placeholders are found by their debug names, dropped
    // again right after unless asked for (the writer names nothing else).
    let placeholders = !edited.subgroup_calls.is_empty();
    let names = options.debug_names || placeholders;
    let mut spirv = naga_run::write(module, info, &naga_run::writer_options(names))?;
    if placeholders {
        subgroup_calls::write_calls(&mut spirv, &edited.subgroup_calls, options.debug_names)
            .map_err(internal)?;
    }
    // The Private globals the writer wrote, in order, and which are specialization constants.
    let ep = info.get_entry_point(0);
    let private: Vec<Option<(u32, ScalarValue)>> = module
        .global_variables
        .iter()
        .filter(|(h, g)| g.space == naga::AddressSpace::Private && !ep[*h].is_empty())
        .map(|(_, g)| {
            let k = edited
                .spec_decls
                .iter()
                .position(|d| g.name.as_deref() == Some(d.name.as_str()))?;
            Some((edited.spec_decls[k].id, checked.spec_values[k].1))
        })
        .collect();
    let names: Vec<Option<&str>> = module
        .global_variables
        .iter()
        .filter(|(h, g)| g.space == naga::AddressSpace::Private && !ep[*h].is_empty())
        .map(|(_, g)| g.name.as_deref())
        .collect();
    let var_ids = private_variable_ids(&spirv).map_err(internal)?;
    let var_of = |name: &str| {
        names
            .iter()
            .position(|n| *n == Some(name))
            .and_then(|k| var_ids.get(k).copied())
    };
    let spec_words: HashMap<String, SpecWord> = edited
        .spec_decls
        .iter()
        .zip(&checked.spec_values)
        .filter(|(d, _)| d.ty == "int" || d.ty == "uint")
        .map(|(d, (_, v))| {
            let default = match *v {
                ScalarValue::Int(x) => x as i32 as u32,
                ScalarValue::Uint(x) => x as u32,
                _ => 0,
            };
            let w = SpecWord {
                id: var_of(&d.name),
                spec_id: d.id,
                default,
                uint: d.ty == "uint",
            };
            (d.name.clone(), w)
        })
        .collect();
    let derived_vars: Vec<Option<u32>> = edited
        .spec_exprs
        .derived
        .iter()
        .map(|d| var_of(&d.name))
        .collect();
    spec_constants::to_spec_constants(&mut spirv, &private).map_err(internal)?;
    let written =
        spec_expressions::write(&mut spirv, &edited.spec_exprs, &spec_words, &derived_vars)
            .map_err(internal)?;
    let derived_ids = &written.derived_ids;
    workgroup_size::fix_workgroup_size(&mut spirv, checked.local_size, edited.local_size_spec_ids)
        .map_err(internal)?;
    component_loads::load_components(&mut spirv).map_err(internal)?;
    subgroup_broadcast::write_broadcasts(&mut spirv, &subgroup_broadcast::gathers(module))
        .map_err(internal)?;
    subgroup_broadcast::basic_capability(&mut spirv).map_err(internal)?;
    trim_capabilities::trim_capabilities(&mut spirv).map_err(internal)?;
    // After the capabilities are trimmed: it declares `Float16` for
    // `float16_t` matrices, which the trim cannot see as arithmetic.
    if edited.coopmat.used() {
        let pointers = checked
            .coopmat
            .pointers
            .iter()
            .map(|(array, sink, load)| Some((var_of(array)?, var_of(sink)?, *load)))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| internal("a placeholder pointer was not written".into()))?;
        let input = coopmat::words::Input {
            types: &edited.coopmat.types,
            spec_defaults: coopmat::spec_defaults(&edited.spec_decls, &checked.spec_values),
            derived_ids: (edited.coopmat.derived.iter())
                .map(|name| derived_ids.get(name).copied())
                .collect(),
            survivors: coopmat::ir::survivors(module),
            pointers,
        };
        coopmat::write_words(&mut spirv, &input).map_err(internal)?;
        coopmat::memory_model::fix(&mut spirv).map_err(internal)?;
        coopmat::extent::bound(&mut spirv).map_err(internal)?;
        coopmat::workgroup_layout::strip(&mut spirv).map_err(internal)?;
        coopmat::words::tidy(&mut spirv).map_err(internal)?;
    }
    // Not on a buffer atomics read (compare-and-swap stores of packed lanes).
    let never_read: Vec<(u32, u32)> = edited
        .writeonly
        .iter()
        .copied()
        .filter(|b| !checked.read_by_atomics.contains(b))
        .collect();
    writeonly_decoration::decorate_writeonly(&mut spirv, &never_read).map_err(internal)?;
    if round_half_away::calls(&edited.text, &edited.toks, "round") {
        round_half_away::round_half_away(&mut spirv).map_err(internal)?;
    }
    spirv_limits::check(&spirv).map_err(|e| {
        Diagnostic::new(format!("the shader is too large for SPIR-V: {e}"))
            .note("a module past a universal limit of SPIR-V is invalid: split what the limit counts (the functions, the nested conditions and loops, the types)")
    })?;
    Ok(Words {
        spirv,
        lengths: written.lengths,
    })
}

/// The ids of the `Private` variables, in module order.
fn private_variable_ids(words: &[u32]) -> Result<Vec<u32>, String> {
    Ok(crate::spirv::instructions(words)?
        .iter()
        .filter(|i| {
            i.op == crate::spirv::op::VARIABLE
                && i.operand(2) == Some(crate::spirv::storage::PRIVATE)
        })
        .filter_map(|i| i.operand(1))
        .collect())
}

/// A word pass's error: naga wrote something the pass did not expect.
fn internal(e: String) -> Diagnostic {
    Diagnostic::new(format!("internal error: {e}; please report the shader"))
}
