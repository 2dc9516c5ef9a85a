//! `float16_t` beside `float` in fp16 arithmetic (`fp16_promotion.rs`) and
//! `round`/`mod` on `float16_t` (`fp16_builtins.rs`): what glslang
//! (`glslangValidator -V --target-env vulkan1.1`) accepts compiles, with its
//! arithmetic at glslang's widths; what it refuses stays refused, at the
//! user's text.

use std::collections::BTreeSet;
use std::process::Command;

use super::{errs, ok_mode};
use crate::spirv::{instructions, op};

/// A compute shader whose `main` has a `float16_t h`, an `f16vec4 v`, a
/// `float y`, a `vec4 fv` and a `bool c` from a buffer, then `body`.
fn shader(globals: &str, body: &str) -> String {
    format!(
        "#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer A {{ float a[]; }};
{globals}
void main() {{
    float16_t h = float16_t(a[0]); f16vec4 v = f16vec4(a[1]); float y = a[2];
    vec4 fv = vec4(a[3]); bool c = a[4] > 0.0;
{body}
}}
"
    )
}

/// glslang's SPIR-V of `text`; `None` without glslang (a failure under CI).
fn glslang(text: &str) -> Option<Result<Vec<u32>, String>> {
    let dir = std::env::temp_dir().join(format!("ncnn-glsl-core-fp16-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (src, spv) = (dir.join(format!("{n}.comp")), dir.join(format!("{n}.spv")));
    std::fs::write(&src, text).unwrap();
    let out = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.1", "-o"])
        .arg(&spv)
        .arg(&src)
        .output();
    let Ok(out) = out else {
        assert!(
            std::env::var_os("CI").is_none(),
            "glslangValidator is not installed but CI is set"
        );
        return None;
    };
    let result = if out.status.success() {
        let bytes = std::fs::read(&spv).unwrap();
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    } else {
        Err(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&spv);
    Some(result)
}

/// The float operations of a module at their widths: `("mul", 32)` for an
/// `OpFMul` of `float`s (a comparison at its operands' width), `("round",
/// 16)` for GLSL.std.450 `Round` of `float16_t`s. The widths of the
/// arithmetic, not its order: what says in how many bits each runs.
fn operations(words: &[u32]) -> BTreeSet<(&'static str, u32)> {
    let insts = instructions(words).unwrap();
    let mut width = std::collections::HashMap::new();
    for i in &insts {
        match i.op {
            op::TYPE_FLOAT => {
                width.insert(i.operand(0).unwrap(), i.operand(1).unwrap());
            }
            op::TYPE_VECTOR => {
                if let Some(&w) = width.get(&i.operand(1).unwrap()) {
                    width.insert(i.operand(0).unwrap(), w);
                }
            }
            _ => {}
        }
    }
    // The width of each float value: its result type's.
    let mut value = std::collections::HashMap::new();
    for i in &insts {
        if let (Some(ty), Some(id)) = (i.operand(0), i.operand(1)) {
            if let Some(&w) = width.get(&ty) {
                value.insert(id, w);
            }
        }
    }
    let mut out = BTreeSet::new();
    for i in &insts {
        let of = |k: usize| i.operand(k).and_then(|id| value.get(&id).copied());
        let found = match i.op {
            129 => Some(("add", of(1))),
            131 => Some(("sub", of(1))),
            133 => Some(("mul", of(1))),
            136 => Some(("div", of(1))),
            180..=191 => Some(("compare", of(2))),
            op::EXT_INST if i.operand(3) == Some(1) => Some(("round", of(1))),
            op::EXT_INST if i.operand(3) == Some(2) => Some(("roundEven", of(1))),
            op::EXT_INST if i.operand(3) == Some(26) => Some(("pow", of(1))),
            op::EXT_INST if i.operand(3) == Some(25) => Some(("atan2", of(1))),
            _ => None,
        };
        if let Some((name, Some(w))) = found {
            out.insert((name, w));
        }
    }
    out
}

/// What glslang accepts and naga alone refused (a `float` demoted) or
/// could not compile (`round`, `mod` on `float16_t`): ours compiles, and
/// runs each operation at glslang's width.
#[test]
fn float16_beside_float_runs_at_glslangs_widths() {
    let cases: &[(&str, &str)] = &[
        ("", "    a[5] = h * 0.5;"),
        ("", "    float r = h * y + 0.5 * h;\n    a[5] = r;"),
        ("", "    a[5] = (h > 0.1 && v.x <= 0.25 && y < h) ? 1.0 : 0.0;"),
        ("", "    a[5] = float(h * 0.1) + float(c ? h : 0.1);"),
        ("", "    float16_t r = float16_t(h * y);\n    a[5] = float(r);"),
        ("", "    float r = v.y * 0.5 + v.z;\n    a[5] = r;"),
        ("", "    vec4 r = v * 0.5 + v - fv;\n    a[5] = r.w;"),
        ("", "    float r = y;\n    r += h;\n    r *= v.x;\n    a[5] = r;"),
        ("", "    float r = (h * 0.5 + h) * (h - 0.25) / 3.0 + v[1];\n    a[5] = r;"),
        ("", "    a[5] = pow(h, 0.5) + atan(y, h) + exp(h * -0.5);"),
        ("const float K = 0.1;", "    a[5] = h * K + (v * vec4(0.5)).x;"),
        (
            "float half_of(float16_t x) { return x * 0.5; }",
            "    a[5] = half_of(h);",
        ),
        (
            "",
            "    f16vec4 r = round(v) + f16vec4(round(h)) + mod(v, h) + mod(v, v);\n    a[5] = float(r.x + mod(h, h));",
        ),
    ];
    for (globals, body) in cases {
        let text = shader(globals, body);
        let ours = ok_mode(&text, "fp16s+fp16a");
        let Some(theirs) = glslang(&text) else {
            continue;
        };
        let theirs = theirs.unwrap_or_else(|e| panic!("glslang refuses:\n{e}\n{text}"));
        let mut ours = operations(&ours.spirv);
        // `mod` is `x - y * floor(x / y)` in ours, as naga writes `float`'s;
        // glslang's is one `OpFMod`.
        if body.contains("mod(") {
            for op in ["div", "mul", "sub"] {
                ours.remove(&(op, 16));
            }
        }
        assert_eq!(ours, operations(&theirs), "{body}");
    }
}

/// `round` on `float16_t` is GLSL.std.450 `Round`, as glslang writes it and
/// as ours is for `float`; `roundEven` stays `RoundEven`.
#[test]
fn round_on_float16_is_round() {
    let ours = ok_mode(
        &shader("", "    a[5] = float(round(h)) + float(round(v).y);"),
        "fp16s+fp16a",
    );
    let found = operations(&ours.spirv);
    assert!(found.contains(&("round", 16)), "{found:?}");
    assert!(!found.contains(&("roundEven", 16)), "{found:?}");
    let ours = ok_mode(
        &shader("", "    a[5] = float(roundEven(h) + roundEven(v).y);"),
        "fp16s+fp16a",
    );
    let found = operations(&ours.spirv);
    assert!(found.contains(&("roundEven", 16)), "{found:?}");
    assert!(!found.contains(&("round", 16)), "{found:?}");
}

/// What glslang refuses stays refused (a `float` result stored into a
/// `float16_t`, a `float16_t` assigned a `float` by `*=`, a builtin glslang
/// finds ambiguous), at the user's text, without the conversions of the
/// repair.
#[test]
fn what_glslang_refuses_stays_refused_at_the_users_text() {
    for (body, column, construct) in [
        (
            "    float16_t r = h * 0.5;\n    a[5] = float(r);",
            19,
            "h * 0.5",
        ),
        (
            "    float16_t r = c ? h : 0.1;\n    a[5] = float(r);",
            19,
            "c ? h : 0.1",
        ),
        (
            "    f16vec4 r = v * y;\n    a[5] = float(r.x);",
            17,
            "v * y",
        ),
        ("    h *= 0.5;\n    a[5] = float(h);", 10, "0.5"),
        ("    a[5] = clamp(h, 0.1, 6.0);", 21, "0.1"),
    ] {
        let text = shader("", body);
        if let Some(theirs) = glslang(&text) {
            assert!(theirs.is_err(), "glslang accepts it:\n{text}");
        }
        let d = errs(&text, "fp16s+fp16a");
        let e = &d.0[0];
        let at = e.span.as_ref().map(|s| (s.line, s.column));
        assert_eq!(at, Some((10, column)), "{d}");
        assert!(
            e.message
                .ends_with(&format!("instead of 32 (`{construct}`)")),
            "{d}"
        );
    }
}
