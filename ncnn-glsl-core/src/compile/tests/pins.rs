//! Pins of naga 30.0.2's gaps (docs/naga.md) that the passes and
//! the refusal table work around. When naga changes, one of these fails and
//! says which workaround to revisit.

use naga::front::glsl;
use naga::valid::{ValidationFlags, Validator};
use naga::{Module, ShaderStage};

use super::{assert_valid, disassemble, tool};
use crate::compile::naga_run;

fn parse(src: &str) -> Result<Module, String> {
    glsl::Frontend::default()
        .parse(&glsl::Options::from(ShaderStage::Compute), src)
        .map_err(|e| format!("{e:?}"))
}

/// naga alone, no passes: parse, validate, write with our writer options.
fn raw(src: &str) -> Result<Vec<u32>, String> {
    let m = parse(src)?;
    let info = Validator::new(
        ValidationFlags::all(),
        naga::back::spv::supported_capabilities(),
    )
    .validate(&m)
    .map_err(|e| format!("{:?}", e.into_inner()))?;
    naga_run::write(&m, &info, &naga_run::writer_options(false)).map_err(|d| d.message)
}

fn shader(decls: &str, body: &str) -> String {
    format!("#version 450\nlayout(local_size_x = 1) in;\n{decls}\nvoid main() {{\n{body}\n}}\n")
}

const BUF: &str = "layout(binding = 0) buffer A { uint a[]; };";

#[test]
fn naga_rejects_writeonly_buffers() {
    let e = raw(&shader(
        "layout(binding = 0) writeonly buffer A { uint a[]; };",
        "a[0] = 1u;",
    ))
    .unwrap_err();
    assert!(e.contains("WriteOnly"), "{e}");
}

#[test]
fn naga_rejects_local_size_x_id() {
    assert!(parse("#version 450\nlayout(local_size_x_id = 0) in;\nvoid main() {}\n").is_err());
}

#[test]
fn naga_has_no_atomics_subgroups_memory_barriers_or_small_ints() {
    for body in [
        "atomicAdd(a[0], 1u);",
        "a[0] = gl_SubgroupSize;",
        "a[0] = subgroupAdd(1u);",
        "memoryBarrierShared();",
        "memoryBarrierBuffer();",
        "groupMemoryBarrier();",
        "uint8_t x = uint8_t(1); a[0] = uint(x);",
        "uint64_t x = 1ul; a[0] = uint(x);",
        "int32_t x = 1; a[0] = uint(x);",
        "u32vec2 x = u32vec2(1u); a[0] = x.x;",
        "uint c; a[0] = uaddCarry(1u, 2u, c);",
        "a[0] = packFloat2x16(f16vec2(1.0));",
        "debugPrintfEXT(\"x\");",
    ] {
        assert!(
            raw(&shader(BUF, body)).is_err(),
            "naga now accepts `{body}`"
        );
    }
    assert!(raw(&shader(
        "layout(binding = 0) coherent buffer A { uint a[]; };",
        "a[0] = 1u;"
    ))
    .is_err());
}

#[test]
fn naga_has_no_float16_builtins() {
    let decls = "layout(binding = 0) buffer A { float16_t a[]; };";
    let e = raw(&shader(decls, "a[0] = max(a[1], a[2]);")).unwrap_err();
    assert!(e.contains("Unknown function"), "{e}");
    let decls = "layout(binding = 0) buffer A { f16vec4 a[]; };";
    for body in [
        "a[0] = f16vec4(lessThan(a[1], a[2]));",
        "a[0] = f16vec4(notEqual(a[1], a[2]));",
        "a[0] = mix(a[1], a[2], bvec4(true));",
    ] {
        let e = raw(&shader(decls, body)).unwrap_err();
        assert!(e.contains("Unknown function"), "`{body}`: {e}");
    }
}

/// naga splats the scalar of `ivec4 / int` but not of `ivec4 % int`
/// (`vector_modulo.rs`), and types `int % ivec4` as `int`.
#[test]
fn naga_rejects_vector_modulo_scalar() {
    let decls = "layout(binding = 0) buffer A { ivec4 a[]; };";
    assert!(raw(&shader(decls, "a[0] = a[1] / a[2].x;")).is_ok());
    for body in ["a[0] = a[1] % a[2].x;", "a[0] = a[2].x % a[1] + a[3];"] {
        let e = raw(&shader(decls, body)).unwrap_err();
        assert!(
            e.contains("InvalidBinaryOperandTypes { op: Modulo"),
            "`{body}`: {e}"
        );
    }
}

#[test]
fn naga_refuses_constants_glsl_folds_to_nan_or_infinity_without_a_place() {
    for call in ["sqrt(-1.0)", "exp(100.0)", "inversesqrt(0.0)"] {
        let src = shader(
            "layout(binding = 0) buffer A { float a[]; };",
            &format!("a[0] = {call};"),
        );
        let e = glsl::Frontend::default()
            .parse(&glsl::Options::from(ShaderStage::Compute), &src)
            .unwrap_err();
        assert!(e.errors[0].meta.to_range().is_none(), "{call}: {e:?}");
    }
}

#[test]
fn naga_types_bitcount_wrongly() {
    assert!(raw(&shader(BUF, "int n = bitCount(a[1]); a[0] = uint(n);")).is_err());
}

#[test]
fn naga_writes_barrier_with_subgroup_scope() {
    let m = parse(&shader(BUF, "barrier();")).unwrap();
    let (_, main) = m
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some("main"))
        .unwrap();
    assert!(main
        .body
        .iter()
        .any(|s| matches!(s, naga::Statement::ControlBarrier(b) if *b == naga::Barrier::all())));
}

#[test]
fn naga_lowers_round_to_round_even() {
    let words = raw(&shader(
        "layout(binding = 0) buffer A { float a[]; };",
        "a[0] = round(a[1]);",
    ))
    .unwrap();
    if let Some(d) = disassemble(&words) {
        assert!(d.contains("RoundEven") && !d.contains(" Round "), "{d}");
    }
}

#[test]
fn naga_reverses_multi_dimensional_arrays() {
    let m = parse(&shader(
        "shared uint t[2][8];\nlayout(binding = 0) buffer A { uint a[]; };",
        "a[0] = t[1][7];",
    ))
    .unwrap();
    let (_, var) = m
        .global_variables
        .iter()
        .find(|(_, v)| v.name.as_deref() == Some("t"))
        .unwrap();
    let naga::TypeInner::Array {
        size: naga::ArraySize::Constant(outer),
        ..
    } = m.types[var.ty].inner
    else {
        panic!("not an array")
    };
    // GLSL: 2 arrays of 8. naga: 8 arrays of 2.
    assert_eq!(outer.get(), 8);
    // The form the refusal advises is read right.
    let m = parse(&shader(
        "shared uint[8] t[2];\nlayout(binding = 0) buffer A { uint a[]; };",
        "a[0] = t[1][7];",
    ))
    .unwrap();
    let (_, var) = m
        .global_variables
        .iter()
        .find(|(_, v)| v.name.as_deref() == Some("t"))
        .unwrap();
    let naga::TypeInner::Array {
        size: naga::ArraySize::Constant(outer),
        ..
    } = m.types[var.ty].inner
    else {
        panic!("not an array")
    };
    assert_eq!(outer.get(), 2);
}

#[test]
fn naga_output_with_gl_workgroupsize_is_invalid() {
    let Ok(words) = raw(&shader(BUF, "a[0] = gl_WorkGroupSize.x;")) else {
        return;
    };
    if let Some((ok, _)) = tool("spirv-val", &["--target-env", "vulkan1.1"], &words) {
        assert!(!ok, "naga's gl_WorkGroupSize now validates");
    }
}

#[test]
fn naga_fails_on_string_literals_and_hf_literals() {
    assert!(parse("#version 450\n#if 0\n\"x\"\n#endif\nvoid main() {}\n").is_err());
    assert!(raw(&shader(
        "layout(binding = 0) buffer A { float16_t a[]; };",
        "a[0] = 1.0hf;"
    ))
    .is_err());
}

#[test]
fn naga_lets_an_instance_named_block_member_shadow_an_earlier_constant() {
    let m = parse(
        "#version 450\nlayout(local_size_x = 1) in;\nconst int w = 3;\n\
         layout(push_constant) uniform parameter { int w; } p;\n\
         layout(binding = 0) buffer A { int a[]; };\nvoid main() { a[0] = w; }\n",
    )
    .unwrap();
    // The store's value is a load through the push-constant block, not the constant 3.
    let (_, main) = m
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some("main"))
        .unwrap();
    let reads_block = main.expressions.iter().any(|(_, e)| {
        matches!(e, naga::Expression::GlobalVariable(g) if m.global_variables[*g].space == naga::AddressSpace::Immediate)
    });
    assert!(reads_block);
}

#[test]
fn fp16_storage_without_arithmetic_validates_without_float16() {
    // The trimmed capability set must stay valid: 16-bit storage alone
    // allows float16 loads, stores and conversions.
    let src = "#version 450
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { float16_t a[]; };
layout(binding = 1) buffer B { f16vec4 b[]; };
void main() { a[0] = float16_t(float(a[1]) * 2.0); b[0] = f16vec4(vec4(b[1]) + 1.0); }
";
    let c = super::ok_mode(src, "fp16s");
    assert_eq!(
        *c.reflection.requirements.spirv_capabilities,
        ["Shader", "StorageBuffer16BitAccess"]
    );
    assert_valid(&c.spirv);
}

#[test]
fn naga_lays_out_push_constants_with_std140() {
    let m = parse(&shader(
        "layout(push_constant) uniform P { int w; float s[3]; } p;\nlayout(binding = 0) buffer A { float a[]; };",
        "a[0] = p.s[2] + float(p.w);",
    ))
    .unwrap();
    let (_, var) = m
        .global_variables
        .iter()
        .find(|(_, v)| v.space == naga::AddressSpace::Immediate)
        .unwrap();
    let naga::TypeInner::Struct { ref members, .. } = m.types[var.ty].inner else {
        panic!()
    };
    // std430 (glslang) would put `s` at 4.
    assert_eq!(members[1].offset, 16);
}
