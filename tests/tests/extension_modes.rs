//! A shader using every type and function of the extension, expanded in every
//! mode of the spec. The snapshots hold, per mode, the finished GLSL and the
//! outcome of compiling it through naga: SPIR-V that spirv-val accepts, or the
//! errors that say which construct naga cannot compile and why.

use std::fmt::Write;

use ncnn_glsl_core::{compile, ext, CompileOptions};
use ncnn_glsl_testkit::shaders::{expand_for, test_shader};
use ncnn_glsl_testkit::tools::{spirv_val, tool_available};

fn snapshot_name(target: &ncnn_glsl_core::Target) -> String {
    target
        .to_string()
        .replace(['[', ']'], "")
        .replace([' ', '+'], "_")
}

#[test]
fn every_mode_expands_and_compiles_or_is_rejected_with_reasons() {
    let check = tool_available("spirv-val");
    let mut compiled_modes = Vec::new();
    for target in ext::spec_targets() {
        let name = snapshot_name(&target);
        let expanded = expand_for(test_shader("extension_everything.comp"), target)
            .unwrap_or_else(|e| panic!("{target}: expand failed:\n{e}"));
        let mut outcome = String::new();
        match compile(&expanded, &CompileOptions::default()) {
            Ok(c) => {
                if check {
                    spirv_val(&c.spirv)
                        .unwrap_or_else(|e| panic!("{target}: spirv-val rejects the blob:\n{e}"));
                }
                compiled_modes.push(target.to_string());
                writeln!(outcome, "compiled by naga; spirv-val accepts it").unwrap();
            }
            Err(diags) => {
                for d in &diags.0 {
                    assert!(d.span.is_some(), "{target}: error without a position: {d}");
                }
                writeln!(outcome, "rejected:\n{diags}").unwrap();
            }
        }
        insta::assert_snapshot!(format!("{name}.glsl"), expanded.text());
        insta::assert_snapshot!(format!("{name}.outcome"), outcome);
    }
    assert!(
        compiled_modes.iter().any(|m| m == "fp32"),
        "fp32 must compile: {compiled_modes:?}"
    );
}
