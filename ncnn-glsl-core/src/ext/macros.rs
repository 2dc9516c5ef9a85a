//! The `#extension` lines (section 1, item 2) and the option macros
//! (section 2), as tables of (name, condition).

use crate::options::{Flag, Options};
use crate::target::Target;

/// A condition on a target.
pub type TargetTest = fn(&Target) -> bool;

/// A condition on a set of options.
pub type OptionsTest = fn(Options) -> bool;

/// `#extension <name> : require` lines in spec order, each with its condition.
///
/// The arithmetic-type extensions for int64 and int16 follow the device
/// bits; the others follow the option flags as given, so a flag that loses
/// to another one by precedence (fp16s under bf16p) still enables its
/// extension, as in ncnn. `GL_EXT_debug_printf` (validation builds only) is
/// not here: a [`Target`] has no validation switch.
pub const EXTENSIONS: &[(&str, TargetTest)] = &[
    ("GL_EXT_shader_explicit_arithmetic_types_int64", |t| {
        t.bits.int64
    }),
    ("GL_EXT_shader_explicit_arithmetic_types_int16", |t| {
        t.bits.int16
    }),
    ("GL_EXT_bfloat16", |t| t.options.has(Flag::Bf16Storage)),
    ("GL_EXT_shader_16bit_storage", |t| {
        let o = t.options;
        o.has(Flag::Fp16Storage) || o.has(Flag::Bf16Storage) || o.has(Flag::Int16Storage)
    }),
    ("GL_EXT_shader_explicit_arithmetic_types_float16", |t| {
        t.options.has(Flag::Fp16Arithmetic)
    }),
    ("GL_EXT_shader_8bit_storage", |t| {
        t.options.has(Flag::Int8Storage)
    }),
    ("GL_EXT_shader_explicit_arithmetic_types_int8", |t| {
        t.options.has(Flag::Int8Arithmetic)
    }),
];

/// The option macros of section 2, in its table's order, each defined
/// to 1 when its condition holds and not defined otherwise.
pub const OPTION_MACROS: &[(&str, OptionsTest)] = &[
    ("NCNN_bf16_storage", |o| o.has(Flag::Bf16Storage)),
    ("NCNN_bf16_packed", |o| {
        o.has(Flag::Bf16Packed) && !o.has(Flag::Bf16Storage)
    }),
    ("NCNN_fp16_storage", |o| {
        o.has(Flag::Fp16Storage) && !any_bf16(o)
    }),
    ("NCNN_fp16_packed", |o| {
        o.has(Flag::Fp16Packed) && !o.has(Flag::Fp16Storage) && !any_bf16(o)
    }),
    ("NCNN_fp16_arithmetic", |o| o.has(Flag::Fp16Arithmetic)),
    ("NCNN_fp16_uniform", |o| o.has(Flag::Fp16Uniform)),
    ("NCNN_int8_storage", |o| o.has(Flag::Int8Storage)),
    ("NCNN_int8_packed", |o| {
        o.has(Flag::Int8Packed) && !o.has(Flag::Int8Storage)
    }),
    ("NCNN_int8_arithmetic", |o| o.has(Flag::Int8Arithmetic)),
    ("NCNN_int8_uniform", |o| o.has(Flag::Int8Uniform)),
    ("NCNN_int16_storage", |o| o.has(Flag::Int16Storage)),
    ("NCNN_int16_packed", |o| {
        o.has(Flag::Int16Packed) && !o.has(Flag::Int16Storage)
    }),
    ("NCNN_shader_local_memory", |o| {
        o.has(Flag::ShaderLocalMemory)
    }),
];

fn any_bf16(o: Options) -> bool {
    o.has(Flag::Bf16Packed) || o.has(Flag::Bf16Storage)
}

/// The `#extension` lines for `target`.
pub fn extension_lines(target: &Target, out: &mut String) {
    for (name, on) in EXTENSIONS {
        if on(target) {
            out.push_str(&format!("#extension {name} : require\n"));
        }
    }
}

/// The option macros for `options`, then `ncnn_glsl_version`.
///
/// `NCNN_moltenvk` (Apple only in ncnn) is never defined: a build-time
/// target does not know the platform it will run on.
pub fn option_macros(options: Options, out: &mut String) {
    for (name, on) in OPTION_MACROS {
        if on(options) {
            out.push_str(&format!("#define {name} 1\n"));
        }
    }
    out.push_str("#define ncnn_glsl_version 1\n");
}
