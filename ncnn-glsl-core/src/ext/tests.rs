use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use super::types::{i16col, i8col};
use super::*;
use crate::device::DeviceType;
use crate::options::Flag;

fn slug(t: &Target) -> String {
    t.to_string().replace(' ', "_").replace(['[', ']'], "")
}

/// A shader of the workspace's `tests/shaders/`, through the link
/// `test-shaders` that makes `cargo package` carry them, so these tests run
/// from the packaged crate too.
fn shader(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("test-shaders")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `src` with `prelude` after its `#version` line, as section 1 assembles it.
fn with_prelude(src: &str, prelude: &str) -> String {
    let at = src.find("#version").expect("a #version line");
    let end = src[at..].find('\n').map_or(src.len(), |n| at + n + 1);
    format!("{}{}{}", &src[..end], prelude, &src[end..])
}

fn defined_names(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("#define "))
        .map(|r| r.split([' ', '(']).next().unwrap().to_string())
        .collect()
}

#[test]
fn every_row_covers_every_column_once() {
    let families: [(&[Row], u32); 8] = [
        (types::FLOAT_TYPES, types::fcol::ALL),
        (functions::BUFFER_FUNCTIONS, types::fcol::ALL),
        (functions::LOCAL_FUNCTIONS, types::fcol::ALL),
        (types::INT8_TYPES, i8col::ALL),
        (functions::INT8_FUNCTIONS, i8col::ALL),
        (functions::INT_PACKING, i8col::ALL),
        (types::INT16_TYPES, i16col::ALL),
        (functions::INT16_FUNCTIONS, i16col::ALL),
    ];
    let mut names = BTreeSet::new();
    for (rows, all) in families {
        for row in rows {
            assert!(names.insert(row.name), "{} twice", row.name);
            let mut seen = 0u32;
            for (mask, _) in row.defs {
                assert_eq!(seen & mask, 0, "{}: a column twice", row.name);
                assert_eq!(mask & !all, 0, "{}: a column outside the class", row.name);
                seen |= mask;
            }
            assert_eq!(seen, all, "{}: a column missing", row.name);
        }
    }
}

/// Section 2's table, written again independently of `OPTION_MACROS`.
fn spec_option_macros(o: Options) -> BTreeSet<String> {
    let h = |f| o.has(f);
    let bf16 = h(Flag::Bf16Packed) || h(Flag::Bf16Storage);
    let mut s = BTreeSet::new();
    let mut put = |on: bool, name: &str| {
        if on {
            s.insert(name.to_string());
        }
    };
    put(h(Flag::Bf16Storage), "NCNN_bf16_storage");
    put(
        h(Flag::Bf16Packed) && !h(Flag::Bf16Storage),
        "NCNN_bf16_packed",
    );
    put(h(Flag::Fp16Storage) && !bf16, "NCNN_fp16_storage");
    put(
        h(Flag::Fp16Packed) && !h(Flag::Fp16Storage) && !bf16,
        "NCNN_fp16_packed",
    );
    put(h(Flag::Fp16Arithmetic), "NCNN_fp16_arithmetic");
    put(h(Flag::Fp16Uniform), "NCNN_fp16_uniform");
    put(h(Flag::Int8Storage), "NCNN_int8_storage");
    put(
        h(Flag::Int8Packed) && !h(Flag::Int8Storage),
        "NCNN_int8_packed",
    );
    put(h(Flag::Int8Arithmetic), "NCNN_int8_arithmetic");
    put(h(Flag::Int8Uniform), "NCNN_int8_uniform");
    put(h(Flag::Int16Storage), "NCNN_int16_storage");
    put(
        h(Flag::Int16Packed) && !h(Flag::Int16Storage),
        "NCNN_int16_packed",
    );
    put(h(Flag::ShaderLocalMemory), "NCNN_shader_local_memory");
    s
}

#[test]
fn option_macros_follow_section_2_for_all_option_sets() {
    for o in Options::every() {
        let mut text = String::new();
        option_macros(o, &mut text);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.last(), Some(&"#define ncnn_glsl_version 1"), "{o}");
        let got: BTreeSet<String> = lines[..lines.len() - 1]
            .iter()
            .map(|l| {
                let name = l
                    .strip_prefix("#define ")
                    .and_then(|r| r.strip_suffix(" 1"));
                name.unwrap_or_else(|| panic!("{o}: {l}")).to_string()
            })
            .collect();
        assert_eq!(got.len(), lines.len() - 1, "{o}: a macro twice");
        assert_eq!(got, spec_option_macros(o), "{o}");
        // The prelude carries the same macros, whatever the device bits.
        let p = prelude(&Target::for_mode(o), None);
        assert!(p.contains(&text), "{o}");
    }
}

#[test]
fn extension_lines_follow_section_1_order_and_conditions() {
    let order = [
        "GL_EXT_shader_explicit_arithmetic_types_int64",
        "GL_EXT_shader_explicit_arithmetic_types_int16",
        "GL_EXT_bfloat16",
        "GL_EXT_shader_16bit_storage",
        "GL_EXT_shader_explicit_arithmetic_types_float16",
        "GL_EXT_shader_8bit_storage",
        "GL_EXT_shader_explicit_arithmetic_types_int8",
    ];
    for o in Options::every() {
        for b in 0..16u8 {
            let bits = DeviceBits {
                storage16: b & 1 != 0,
                uniform16: b & 2 != 0,
                int16: b & 4 != 0,
                int64: b & 8 != 0,
            };
            let t = Target { options: o, bits };
            let h = |f| o.has(f);
            let want = [
                bits.int64,
                bits.int16,
                h(Flag::Bf16Storage),
                h(Flag::Fp16Storage) || h(Flag::Bf16Storage) || h(Flag::Int16Storage),
                h(Flag::Fp16Arithmetic),
                h(Flag::Int8Storage),
                h(Flag::Int8Arithmetic),
            ];
            let want: String = order
                .iter()
                .zip(want)
                .filter(|(_, on)| *on)
                .map(|(e, _)| format!("#extension {e} : require\n"))
                .collect();
            let mut got = String::new();
            extension_lines(&t, &mut got);
            assert_eq!(got, want, "{t}");
            if b == 0 && o.bits() % 97 == 0 {
                assert!(prelude(&t, None).starts_with(&want), "{t}");
            }
        }
    }
}

#[test]
fn spec_targets_are_distinct_and_cover_every_class() {
    let targets = spec_targets();
    let names: BTreeSet<String> = targets.iter().map(|t| t.to_string()).collect();
    assert_eq!(names.len(), targets.len());
    for c in FloatClass::ALL {
        assert!(targets.iter().any(|t| FloatClass::of(t) == c), "{c:?}");
    }
    for c in Int8Class::ALL {
        assert!(targets.iter().any(|t| Int8Class::of(t) == c), "{c:?}");
    }
    // Int16Class::Storage (int16s without shaderInt16) does not survive narrowing.
    for c in Int16Class::ALL
        .into_iter()
        .filter(|c| *c != Int16Class::Storage)
    {
        assert!(targets.iter().any(|t| Int16Class::of(t) == c), "{c:?}");
    }
}

/// Every name of sections 3 to 6.
const SPEC_NAMES: &[&str] = &[
    "sfp",
    "sfpvec2",
    "sfpvec4",
    "afp",
    "afpvec2",
    "afpvec4",
    "afpmat4",
    "lfp",
    "lfpvec4",
    "sint8",
    "sint8vec4",
    "aint8",
    "aint8vec4",
    "sint16",
    "sint16vec4",
    "lint16",
    "lint16vec4",
    "aint16",
    "aint16vec4",
    "buffer_ld1",
    "buffer_ld2",
    "buffer_ld4",
    "buffer_st1",
    "buffer_st2",
    "buffer_st4",
    "buffer_cp1",
    "buffer_cp2",
    "buffer_cp4",
    "buffer_cp1to4",
    "buffer_cp4to1",
    "buffer_sm1",
    "buffer_sm4",
    "lfp2afp",
    "lfp2afpvec4",
    "afp2lfp",
    "afp2lfpvec4",
    "i8buffer_ld1",
    "i8buffer_st1",
    "i8buffer_cp1",
    "i8buffer_ld4",
    "i8buffer_sm4",
    "i8buffer_st4",
    "i8buffer_cp4",
    "i8buffer_cp1to4",
    "i8buffer_cp4to1",
    "packInt4x8",
    "unpackInt4x8",
    "packInt2x16",
    "unpackInt2x16",
    "float2int8",
    "float2int8vec4",
    "i16buffer_ld1",
    "i16buffer_ld2",
    "i16buffer_ld4",
    "i16buffer_st1",
    "i16buffer_st2",
    "i16buffer_st4",
    "i16buffer_sm4",
    "lint162aint16",
    "lint162aint16vec4",
    "psc",
];

#[test]
fn every_spec_name_is_defined_in_every_target_and_helpers_are_complete() {
    for t in spec_targets() {
        let text = prelude(&t, None);
        let names = defined_names(&text);
        for n in SPEC_NAMES {
            assert!(names.contains(*n), "{t}: {n} missing");
        }
        let fp16sa = matches!(
            FloatClass::of(&t),
            FloatClass::Fp16StorageArith
                | FloatClass::Fp16StorageArithInt64
                | FloatClass::Fp16StorageArithUniform
        );
        assert_eq!(
            names.contains("sfpmat4"),
            FloatClass::of(&t) == FloatClass::Fp32 || fp16sa,
            "{t}"
        );
        // Every helper that is called is defined, and none is defined unused.
        for h in functions::HELPERS {
            let calls = text.matches(&format!("{}(", h.name)).count();
            let defined = text.contains(h.text);
            if defined {
                assert!(calls > 1, "{t}: {} defined but unused", h.name);
            } else {
                assert_eq!(calls, 0, "{t}: {} used but undefined", h.name);
            }
        }
        assert!(!text.contains("#if"), "{t}: the text is for one mode only");
        // `ncnn_` is the device macros' namespace (section 7); nothing else may use it.
        let ours: Vec<&String> = names.iter().filter(|n| n.starts_with("ncnn_")).collect();
        assert_eq!(ours, ["ncnn_glsl_version"], "{t}");
    }
}

#[test]
fn text_per_mode_reads_like_the_spec_tables() {
    let get = |mode: &str, bits: Option<DeviceBits>, name: &str| -> String {
        let mut t = Target::for_mode(mode.parse().unwrap());
        if let Some(b) = bits {
            t.bits = b;
        }
        let text = prelude(&t, None);
        let key = format!("#define {name} ");
        let key_fn = format!("#define {name}(");
        text.lines()
            .find(|l| l.starts_with(&key) || l.starts_with(&key_fn))
            .unwrap_or_else(|| panic!("{t}: {name}"))
            .to_string()
    };
    assert_eq!(get("fp16p", None, "sfp"), "#define sfp uint");
    assert_eq!(get("fp16p+fp16a", None, "afp"), "#define afp float16_t");
    assert_eq!(get("fp16p+fp16a+bf16p", None, "afp"), "#define afp float");
    let s16_i16 = DeviceBits {
        storage16: true,
        int16: true,
        ..DeviceBits::default()
    };
    assert_eq!(get("bf16p", Some(s16_i16), "sfp"), "#define sfp uint16_t");
    assert_eq!(get("bf16p", None, "sfp"), "#define sfp uint");
    let all16 = DeviceBits {
        uniform16: true,
        ..s16_i16
    };
    assert_eq!(get("bf16p", Some(all16), "lfp"), "#define lfp uint16_t");
    assert_eq!(get("bf16p", Some(s16_i16), "lfp"), "#define lfp float");
    let i64 = DeviceBits {
        storage16: true,
        int16: true,
        int64: true,
        uniform16: false,
    };
    assert_eq!(
        get("fp16s+fp16a", Some(i64), "lfpvec4"),
        "#define lfpvec4 f16vec4"
    );
    assert_eq!(get("fp16s+fp16a", None, "lfpvec4"), "#define lfpvec4 uvec2");
    assert_eq!(
        get("fp16s+fp16a+fp16u", None, "lfp"),
        "#define lfp float16_t"
    );
    assert_eq!(get("fp16p+fp16u", None, "lfp"), "#define lfp float");
    assert_eq!(get("int16p", None, "aint16"), "#define aint16 int");
    let i16 = DeviceBits {
        int16: true,
        ..DeviceBits::default()
    };
    assert_eq!(get("int16p", Some(i16), "aint16"), "#define aint16 int16_t");
    assert_eq!(get("fp32", Some(i16), "aint16"), "#define aint16 int");
    assert_eq!(get("int8s", None, "sint8"), "#define sint8 int8_t");
    assert_eq!(get("int8s", None, "sint8vec4"), "#define sint8vec4 int");
    assert_eq!(get("fp32", None, "psc"), "#define psc(x) ((x)==0?p.x:(x))");
    // The fp16p+fp16a store that ncnn leaves without a semicolon.
    assert_eq!(
        get("fp16p+fp16a", None, "buffer_st2"),
        "#define buffer_st2(buf,i,v) {buf[i]=packHalf2x16(vec2(v));}"
    );
}

#[test]
fn shared_word_stores_are_atomic() {
    let shared_word = ["fp16p", "fp16p+fp16a", "bf16p", "int8p", "int16p", "fp32"];
    for mode in shared_word {
        let t = Target::for_mode(mode.parse().unwrap());
        let text = prelude(&t, None);
        let line = |name: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("#define {name}(")))
                .unwrap()
                .to_string()
        };
        let float_shared = matches!(mode, "fp16p" | "fp16p+fp16a" | "bf16p");
        for name in ["buffer_st1", "buffer_cp1", "buffer_cp4to1"] {
            assert_eq!(
                line(name).contains("ncnnext_st_lane("),
                float_shared,
                "{mode} {name}"
            );
        }
        // int8 without int8s: every fp32 target packs int8 too.
        for name in ["i8buffer_st1", "i8buffer_cp1"] {
            assert!(line(name).contains("ncnnext_st_lane("), "{mode} {name}");
        }
        assert_eq!(
            line("i16buffer_st1").contains("ncnnext_st_lane("),
            mode == "int16p",
            "{mode}"
        );
        if text.contains("ncnnext_st_lane(") {
            let def = functions::HELPERS
                .iter()
                .find(|h| h.name == "ncnnext_st_lane")
                .unwrap();
            assert!(def.text.contains("atomicCompSwap"));
        }
    }
}

#[test]
fn device_macros_only_with_a_device_and_before_the_definitions() {
    let t = Target::for_mode("fp16s".parse().unwrap());
    let without = prelude(&t, None);
    assert!(!without.contains("#define ncnn_robustBufferAccess"));
    let d = DeviceCaps {
        vendor_id: 0x1002,
        device_type: DeviceType::DiscreteGpu,
        ..DeviceCaps::default()
    };
    let with = prelude(&t, Some(&d));
    let version = with.find("#define ncnn_glsl_version 1").unwrap();
    let dev = with.find("#define ncnn_robustBufferAccess 0").unwrap();
    let defs = with.find("#define sfp ").unwrap();
    assert!(version < dev && dev < defs);
    assert!(with.contains("#define ncnn_subgroupSize 64\n"));
}

/// The GLSL formula of `ncnnext_float2int8`, in f32 arithmetic.
fn float2int8(v: f32) -> i32 {
    let t = v.trunc();
    let step = if (v - t).abs() >= 0.5 { 1.0 } else { 0.0 };
    let sign = if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    };
    (t + sign * step).clamp(-127.0, 127.0) as i32
}

#[test]
fn float2int8_rounds_half_away_and_saturates() {
    for (v, want) in [
        (0.49999997, 0),
        (0.5, 1),
        (-0.5, -1),
        (-0.49999997, 0),
        (1.5, 2),
        (2.5, 3),
        (-2.5, -3),
        (126.5, 127),
        (127.4, 127),
        (-128.0, -127),
        (1e9, 127),
        (8388607.5, 127),
        (0.0, 0),
    ] {
        assert_eq!(float2int8(v), want, "{v}");
    }
}

enum Glslang {
    Ok,
    MissingBf16,
    Failed(String),
}

/// Whether glslang runs here; without it the glslang tests skip, except on
/// CI (`CI` set), where they fail.
fn have_glslang() -> bool {
    let ok = Command::new("glslangValidator")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "glslangValidator is missing and CI is set"
        );
        eprintln!("glslangValidator not found: skipped");
    }
    ok
}

fn glslang(text: &str, tag: &str) -> Glslang {
    let dir = std::env::temp_dir();
    let base = dir.join(format!("ncnnext_{}_{}", std::process::id(), tag));
    let comp = base.with_extension("comp");
    let spv = base.with_extension("spv");
    std::fs::write(&comp, text).unwrap();
    let out = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.1", "-o"])
        .arg(&spv)
        .arg(&comp)
        .output()
        .expect("glslangValidator runs");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let result = if out.status.success() {
        // glslang validates as it writes; spirv-val, when present, checks the rest.
        match Command::new("spirv-val")
            .args(["--target-env", "vulkan1.1"])
            .arg(&spv)
            .output()
        {
            Ok(v) if !v.status.success() => Glslang::Failed(format!(
                "spirv-val: {}{}",
                String::from_utf8_lossy(&v.stdout),
                String::from_utf8_lossy(&v.stderr)
            )),
            _ => Glslang::Ok,
        }
    } else if log.contains("extension not supported: GL_EXT_bfloat16") {
        Glslang::MissingBf16
    } else {
        Glslang::Failed(log)
    };
    if std::env::var_os("NCNN_EXT_KEEP").is_none() {
        let _ = std::fs::remove_file(&comp);
    }
    let _ = std::fs::remove_file(&spv);
    result
}

fn check_with_glslang(shader_name: &str, targets: &[Target]) {
    if !have_glslang() {
        return;
    }
    let src = shader(shader_name);
    let mut failures = Vec::new();
    for t in targets {
        let text = with_prelude(&src, &prelude(t, None));
        let tag = format!(
            "{}_{}",
            shader_name.replace('.', "_"),
            slug(t).replace('+', "_")
        );
        match glslang(&text, &tag) {
            Glslang::Ok => {}
            // glslang 12 predates GL_EXT_bfloat16; only bf16s may meet that.
            Glslang::MissingBf16 => {
                assert!(
                    t.options.has(Flag::Bf16Storage),
                    "{t}: GL_EXT_bfloat16 without bf16s"
                );
                eprintln!("{t}: skipped, this glslang lacks GL_EXT_bfloat16");
            }
            Glslang::Failed(log) => failures.push(format!("== {t}\n{log}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn extension_everything_compiles_with_glslang_in_every_spec_target() {
    check_with_glslang("extension_everything.comp", &spec_targets());
}

#[test]
fn seed_example_compiles_with_glslang() {
    let targets: Vec<Target> = [
        "fp32",
        "fp16p",
        "fp16p+fp16a",
        "fp16s",
        "fp16s+fp16a",
        "bf16p",
    ]
    .iter()
    .map(|m| Target::for_mode(m.parse().unwrap()))
    .collect();
    check_with_glslang("seed_example.comp", &targets);
}

#[test]
fn prelude_snapshots() {
    for t in spec_targets() {
        let name = format!("prelude_{}", slug(&t));
        insta::assert_snapshot!(name.as_str(), prelude(&t, None));
    }
}

#[cfg(feature = "compile")]
/// naga's own preprocessor, parser and validator on `src` with the prelude:
/// shows the extension's text is naga-clean wherever the spec allows it.
fn naga_check(src: &str, t: &Target) -> Result<(), String> {
    let text = with_prelude(src, &prelude(t, None));
    let module = naga::front::glsl::Frontend::default()
        .parse(
            &naga::front::glsl::Options::from(naga::ShaderStage::Compute),
            &text,
        )
        .map_err(|e| e.emit_to_string(&text))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string(&text))?;
    // Down to SPIR-V and spirv-val, when it is installed: naga may accept
    // what it then writes wrongly.
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        None,
        &naga::back::PipelineConstants::default(),
    )
    .map_err(|e| format!("{e:?}"))?;
    let options = naga::back::spv::Options {
        lang_version: (1, 3),
        ..Default::default()
    };
    let words =
        naga::back::spv::write_vec(&module, &info, &options, None).map_err(|e| format!("{e:?}"))?;
    let path = std::env::temp_dir().join(format!(
        "ncnnext_naga_{}_{}.spv",
        std::process::id(),
        slug(t).replace('+', "_")
    ));
    std::fs::write(
        &path,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let out = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1"])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match out {
        Ok(o) if !o.status.success() => Err(format!(
            "spirv-val: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )),
        _ => Ok(()),
    }
}

#[cfg(feature = "compile")]
/// The targets whose types naga knows: no 8/16/64-bit integer or bfloat16 type.
fn naga_targets() -> Vec<Target> {
    [
        "fp32",
        "fp16p",
        "fp16p+fp16a",
        "fp16s",
        "fp16s+fp16a",
        "fp16s+fp16a+fp16u",
        "bf16p",
        "int8p+int8a",
        "int16p",
        "local",
    ]
    .iter()
    .map(|m| Target::for_mode(m.parse().unwrap()))
    .collect()
}

#[cfg(feature = "compile")]
#[test]
fn naga_accepts_the_extension_where_it_can() {
    let src = shader("extension_naga.comp");
    let seed = shader("seed_example.comp").replace("writeonly ", "");
    let mut failures = Vec::new();
    for t in naga_targets() {
        for (name, s) in [("extension_naga", &src), ("seed_example", &seed)] {
            if let Err(e) = naga_check(s, &t) {
                failures.push(format!("== {name} {t}\n{e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[cfg(feature = "compile")]
#[test]
fn naga_rejects_what_the_compiler_must_reject() {
    // Pins docs/naga.md: shared-word stores need atomics, which naga's GLSL
    // frontend lacks, so the compiler must name them; the text stays correct GLSL.
    let src = shader("extension_everything.comp");
    let e = naga_check(&src, &Target::for_mode("fp16p".parse().unwrap())).unwrap_err();
    assert!(e.contains("atomicCompSwap"), "{e}");
    let e = naga_check(&src, &Target::for_mode("int8s".parse().unwrap())).unwrap_err();
    assert!(e.contains("int8_t"), "{e}");
}

/// A device that has everything the tables name, with odd values where the
/// encodings differ (negative, 64-bit, float).
fn full_device() -> DeviceCaps {
    let mut d = DeviceCaps {
        name: "full".into(),
        api_version: 4206898,
        driver_version: 2_400_000_000,
        vendor_id: 0x10de,
        device_id: 0x2331,
        device_type: DeviceType::DiscreteGpu,
        ..DeviceCaps::default()
    };
    for (exts, fields) in EXTENSION_FEATURES {
        d.extensions.insert(exts[0].to_string(), 3);
        for f in *fields {
            d.features.insert(f.to_string(), f.len() % 2 == 0);
        }
    }
    for f in CORE_FEATURES {
        d.features.insert(f.to_string(), true);
    }
    for (i, (name, kind)) in LIMITS.iter().chain(OTHER_PROPERTIES).enumerate() {
        let v = match kind {
            PropKind::U32 => 1 + i as u64,
            PropKind::I32 => (-(i as i64)) as u64,
            PropKind::U64 => (i as u64) << 33,
            PropKind::F32 => u64::from((i as f32 * 0.37).to_bits()),
        };
        d.properties.insert(name.to_string(), v);
    }
    d.properties.insert("supportedOperations".into(), 0x7ff);
    d
}

#[test]
fn device_macros_are_valid_glsl_in_if_and_in_code() {
    if !have_glslang() {
        return;
    }
    let d = full_device();
    let t = Target::for_device(Options::NCNN_DEFAULT, &d);
    let p = prelude(&t, Some(&d));
    let mut macros = String::new();
    device_macros(&d, &mut macros);
    assert!(p.contains(&macros));
    let mut body = String::new();
    for line in macros.lines() {
        let mut parts = line.split(' ');
        let name = parts.nth(1).unwrap();
        let value = parts.next().unwrap();
        if value.ends_with("ul") {
            body.push_str(&format!("    big += {name};\n"));
        } else if value.contains(['.', 'e']) {
            body.push_str(&format!("    f += {name};\n"));
        } else {
            body.push_str(&format!("#if {name} >= 0\n    n += int({name});\n#endif\n"));
        }
    }
    let src = format!(
        "#version 450\nlayout (local_size_x = 1) in;\nlayout (binding = 0) buffer o {{ float out_f; int out_n; uint64_t out_big; }};\nvoid main()\n{{\n    float f = 0.0;\n    int n = 0;\n    uint64_t big = 0ul;\n{body}    out_f = f;\n    out_n = n;\n    out_big = big;\n}}\n"
    );
    assert!(src.contains("big += ncnn_sparseAddressSpaceSize"), "{src}");
    assert!(src.contains("f += ncnn_timestampPeriod"), "{src}");
    match glslang(&with_prelude(&src, &p), "device_macros") {
        Glslang::Ok => {}
        Glslang::MissingBf16 => panic!("no bf16s here"),
        Glslang::Failed(log) => panic!("{log}"),
    }
}
