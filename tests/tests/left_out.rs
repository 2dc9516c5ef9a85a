//! Ordinary shaders build by default: a column naga cannot express
//! (`ncnn_glsl_core::compile::inexpressible`) is left out of a variant set
//! with a note, never an error, and the choice falls back to a column with
//! the same bytes; refusals caused by the shader's own text stay errors;
//! `#pragma ncnn_glsl exclude` still removes what it names, modes and device
//! bits.

use ncnn_glsl_core::variant::build::{build, BuiltSet};
use ncnn_glsl_core::variant::manifest::Manifest;
use ncnn_glsl_core::{CompileOptions, DeviceCaps, MemoryLoader, Options, SourceFile, Target};
use ncnn_glsl_testkit::shaders::{inline_shader, test_shader, workspace_root};

fn built(source: SourceFile) -> BuiltSet {
    let name = source.name.clone();
    build(
        source,
        &MemoryLoader::default(),
        &Default::default(),
        &CompileOptions::default(),
    )
    .unwrap_or_else(|d| panic!("{name} does not build:\n{d}"))
}

fn device(file: &str) -> DeviceCaps {
    let path = workspace_root().join("devices").join(file);
    DeviceCaps::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// `device` with the listed features switched on.
fn with(mut d: DeviceCaps, features: &[&str]) -> DeviceCaps {
    for f in features {
        d.features.insert(f.to_string(), true);
    }
    d
}

fn chosen(set: &BuiltSet, d: &DeviceCaps, wanted: &str) -> String {
    let c = set
        .select(d, wanted.parse::<Options>().unwrap(), &[])
        .expect("a choice");
    assert_eq!(c.variant.key.target, c.chosen);
    c.chosen.to_string()
}

fn keys(set: &BuiltSet) -> Vec<String> {
    set.variants
        .iter()
        .map(|v| v.key.target.to_string())
        .collect()
}

/// The seed's example builds with no declaration: bf16s is left out with
/// the reason and runs bf16p, on a device that has bfloat16 too.
#[test]
fn the_seed_example_builds_without_a_declaration() {
    let source = test_shader("seed_example.comp");
    assert!(
        !source.text.contains("#pragma ncnn_glsl"),
        "the seed example declares nothing"
    );
    let set = built(source);
    assert!(set.excluded.is_empty());
    let left: Vec<(String, &str, String)> = set
        .left_out
        .iter()
        .map(|l| (l.key.target.to_string(), l.why.reason, l.runs.to_string()))
        .collect();
    assert_eq!(
        left,
        [(
            "bf16s".to_string(),
            "naga's GLSL frontend has no bfloat16 types",
            "bf16p".to_string()
        )]
    );
    assert!(!keys(&set).iter().any(|k| k.starts_with("bf16s")));
    let m = Manifest::of("seed_example.comp", &set);
    assert_eq!(m.left_out.len(), 1);
    assert_eq!(
        m.left_out[0].note(),
        "left out: naga's GLSL frontend has no bfloat16 types; runs bf16p"
    );
    let json = m.to_json();
    assert!(json.contains("\"left_out\""), "{json}");
    assert_eq!(serde_json::from_str::<Manifest>(&json).unwrap(), m);
    // A device with bfloat16 storage ends with bf16s and runs bf16p, the same bytes.
    let h200 = device("h200.json");
    assert!(ncnn_glsl_core::narrow(Options::ALL, &h200).has(ncnn_glsl_core::Flag::Bf16Storage));
    assert_eq!(chosen(&set, &h200, "bf16p+bf16s"), "bf16p");
    assert_eq!(chosen(&set, &h200, "bf16s"), "bf16p");
}

/// The ncnn reduction through `shared lfpvec4`, which ncnn keeps in a
/// `uint64_t` on devices with int64 and int16 (lavapipe and the H200): the
/// variant builds (as `f16vec4`) and is what such a device runs.
#[test]
fn a_shared_lfpvec4_reduction_builds_for_int64_devices() {
    let src =
        std::fs::read_to_string(workspace_root().join("tests/corpus/reduction_sum_pack4.comp"))
            .unwrap();
    let set = built(inline_shader("reduction.comp", &src));
    assert!(set.left_out.iter().all(|l| l
        .key
        .target
        .options
        .has(ncnn_glsl_core::Flag::Bf16Storage)));
    let k = keys(&set);
    assert!(k.iter().any(|k| k == "fp16s+fp16a [I16 I64]"), "{k:?}");
    let lavapipe = device("lavapipe.json");
    assert!(lavapipe.feature("shaderInt64") && lavapipe.feature("shaderInt16"));
    assert_eq!(
        chosen(&set, &lavapipe, "fp16s+fp16a"),
        "fp16s+fp16a [I16 I64]"
    );
    let v = set
        .variants
        .iter()
        .find(|v| v.key.target.to_string() == "fp16s+fp16a [I16 I64]")
        .unwrap();
    let text = &set.texts[v.text];
    assert!(text.contains("shared f16vec4 tmp[64];"), "{text}");
    assert!(!text.contains("uint64_t"), "{text}");
    // It needs no int64 or int16 of the device.
    let needs = &set.blobs[v.blob].reflection.requirements.features;
    assert!(
        !needs
            .iter()
            .any(|f| f.contains("Int64") || f.contains("Int16")),
        "{needs:?}"
    );

    // `exclude [I64]` takes the variant out; the same device then runs the
    // uvec2 form.
    let excluded = src.replacen("\n", "\n#pragma ncnn_glsl exclude [I64]\n", 1);
    let set = built(inline_shader("reduction.comp", &excluded));
    let k = keys(&set);
    assert!(!k.iter().any(|k| k.contains("I64")), "{k:?}");
    assert!(set
        .excluded
        .iter()
        .any(|e| e.target.to_string() == "fp16s+fp16a [I16 I64]"));
    assert_eq!(chosen(&set, &lavapipe, "fp16s+fp16a"), "fp16s+fp16a");
    // So does the key as `ncnn-glsl variants` prints it.
    let excluded = src.replacen(
        "\n",
        "\n#pragma ncnn_glsl exclude fp16s+fp16a [I16 I64]\n",
        1,
    );
    let set = built(inline_shader("reduction.comp", &excluded));
    assert!(!keys(&set).iter().any(|k| k.contains("I64")));
    assert_eq!(
        chosen(&set, &lavapipe, "fp16s+fp16a+fp16u"),
        "fp16s+fp16a+fp16u"
    );
}

/// bf16p on a device with 16-bit storage and int16 declares `sfp` as
/// `uint16_t`: left out, and the device runs bf16p in words (the same bytes).
/// int8s (`sint8` is `int8_t`) and int16s run their packed forms.
#[test]
fn native_narrow_integer_columns_fall_back_to_their_packed_form() {
    let src = "#version 450
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { sfp a[]; };
layout (binding = 1) buffer b_blob { sint8 b[]; };
layout (binding = 2) buffer c_blob { sint16vec4 c[]; };
void main()
{
    int i = int(gl_GlobalInvocationID.x);
    buffer_st1(a, i, buffer_ld1(a, i) * afp(2));
    i8buffer_st1(b, i, i8buffer_ld1(b, i) + 1);
    i16buffer_st4(c, i, i16buffer_ld4(c, i) + ivec4(1));
}
";
    let set = built(inline_shader("narrow.comp", src));
    let reasons: std::collections::BTreeSet<&str> =
        set.left_out.iter().map(|l| l.why.reason).collect();
    for want in [
        "naga's GLSL frontend has no bfloat16 types",
        "`sfp` is `uint16_t` here, and naga's GLSL frontend has no 16-bit integer types",
        "`sint8` is `int8_t` here, and naga's GLSL frontend has no 8-bit integer types",
        "`sint16` and `aint16` are `int16_t` here, and naga's GLSL frontend has no 16-bit integer types",
    ] {
        assert!(reasons.contains(want), "{want} not among {reasons:?}");
    }
    for l in &set.left_out {
        // What runs instead is built, and keeps each kind's bytes.
        assert!(
            set.variants.iter().any(|v| v.key.target == l.runs),
            "{}",
            l.key.target
        );
        let runs = l.runs.options;
        let was = l.key.target.options;
        for (native, packed) in [
            (
                ncnn_glsl_core::Flag::Bf16Storage,
                ncnn_glsl_core::Flag::Bf16Packed,
            ),
            (
                ncnn_glsl_core::Flag::Bf16Packed,
                ncnn_glsl_core::Flag::Bf16Packed,
            ),
            (
                ncnn_glsl_core::Flag::Int8Storage,
                ncnn_glsl_core::Flag::Int8Packed,
            ),
            (
                ncnn_glsl_core::Flag::Int16Storage,
                ncnn_glsl_core::Flag::Int16Packed,
            ),
        ] {
            if was.has(native) {
                assert!(
                    runs.has(packed) || runs.has(native),
                    "{} runs {}",
                    l.key.target,
                    l.runs
                );
            }
        }
    }
    let s16_i16 = with(
        DeviceCaps::default(),
        &["storageBuffer16BitAccess", "shaderInt16"],
    );
    assert_eq!(chosen(&set, &s16_i16, "bf16p"), "bf16p");
    let int8 = with(DeviceCaps::default(), &["storageBuffer8BitAccess"]);
    assert_eq!(chosen(&set, &int8, "int8p+int8s"), "int8p");
    assert_eq!(chosen(&set, &s16_i16, "int16p+int16s"), "int16p");
    assert_eq!(chosen(&set, &s16_i16, "int16p"), "int16p");
    // The same columns stay for a shader that does not use those names.
    let vec4_only = built(test_shader("seed_example.comp"));
    assert!(vec4_only
        .left_out
        .iter()
        .all(|l| l.key.target.to_string() == "bf16s"));
    let mut t = Target::for_mode("bf16p".parse().unwrap());
    t.bits.storage16 = true;
    t.bits.int16 = true;
    assert!(vec4_only.variants.iter().any(|v| v.key.target == t));
}

/// A type the shader names itself is the shader's own refusal: an error at
/// its line, with the modes; excluding the modes makes it build.
#[test]
fn the_shaders_own_refusals_stay_errors() {
    let src = "#version 450
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { sfpvec4 a[]; };
void main()
{
    int i = int(gl_GlobalInvocationID.x);
#if NCNN_fp16_storage
    uint16_t h = uint16_t(i);
#endif
    buffer_st4(a, i, buffer_ld4(a, i));
}
";
    let e = build(
        inline_shader("own.comp", src),
        &MemoryLoader::default(),
        &Default::default(),
        &CompileOptions::default(),
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(e.contains("fail to compile, in the mode(s): fp16s"), "{e}");
    assert!(
        e.contains(
            "own.comp:8:5: error: naga's GLSL frontend has no 8-, 16- or 64-bit integer types"
        ),
        "{e}"
    );
    let fixed = src.replacen("\n", "\n#pragma ncnn_glsl exclude fp16s\n", 1);
    let set = built(inline_shader("own.comp", &fixed));
    assert!(!keys(&set).iter().any(|k| k.contains("fp16s")));
    assert!(!set.excluded.is_empty());
}
