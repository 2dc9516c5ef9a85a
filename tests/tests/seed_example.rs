//! The seed's own example (`sfpvec4` in and out, `v = v + 123`) through the
//! whole pipeline in the modes the seed talks about.

use ncnn_glsl_core::{compile, CompileOptions, Options, Target};
use ncnn_glsl_testkit::shaders::{expand_for, inline_shader};
use ncnn_glsl_testkit::tools::{glslang, spirv_val, tool_available};

const SEED: &str = r#"#version 450

layout (binding = 0) readonly buffer a_blob { sfpvec4 a_blob_data[]; };
layout (binding = 1) writeonly buffer b_blob { sfpvec4 b_blob_data[]; };

void main()
{
    const int i = int(gl_GlobalInvocationID.x);

    afpvec4 v = buffer_ld4(a_blob_data, i);

    v = v + 123;

    buffer_st4(b_blob_data, i, v);
}
"#;

const MODES: [&str; 6] = [
    "fp32",
    "fp16p",
    "fp16p+fp16a",
    "fp16s",
    "fp16s+fp16a",
    "bf16p",
];

fn target(mode: &str) -> Target {
    Target::for_mode(mode.parse::<Options>().unwrap())
}

#[test]
fn seed_example_compiles_through_naga_in_every_seed_mode() {
    let check = tool_available("spirv-val");
    for mode in MODES {
        let expanded = expand_for(inline_shader("seed.comp", SEED), target(mode))
            .unwrap_or_else(|e| panic!("{mode}: expand failed:\n{e}"));
        let compiled = compile(&expanded, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{mode}: compile failed:\n{e}\n\n{}", expanded.text()));
        assert_eq!(
            compiled.spirv.first(),
            Some(&0x0723_0203),
            "{mode}: not SPIR-V"
        );
        if check {
            spirv_val(&compiled.spirv)
                .unwrap_or_else(|e| panic!("{mode}: spirv-val rejects the blob:\n{e}"));
        }
    }
}

#[test]
fn expanded_seed_example_is_valid_glsl_for_glslang() {
    if !tool_available("glslangValidator") {
        return;
    }
    // glslang does not turn an int into a float16 implicitly, so the literal
    // is written as the arithmetic type.
    let text = SEED.replace("v + 123", "v + afpvec4(123)");
    for mode in MODES {
        let expanded = expand_for(inline_shader("seed.comp", &text), target(mode))
            .unwrap_or_else(|e| panic!("{mode}: expand failed:\n{e}"));
        glslang(expanded.text()).unwrap_or_else(|e| {
            panic!(
                "{mode}: glslang rejects our expansion:\n{e}\n\n{}",
                expanded.text()
            )
        });
    }
}
