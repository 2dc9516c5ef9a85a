//! The variant choice on saved device descriptions (`devices/`), without a
//! device: lavapipe, the H200 (from the notes), and lavapipe without 16-bit
//! storage. `Context::select` is `VariantSet::select` on the context's
//! description, so this is the choice those devices make.

use ncnn_glsl_runtime::{include_ncnn_shader, DeviceCaps, Options, VariantSet};

static SEED: &VariantSet = include_ncnn_shader!("../tests/shaders/seed_example.comp");

fn device(file: &str) -> DeviceCaps {
    let path = format!("{}/../devices/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    DeviceCaps::from_json(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn without_16bit_storage() -> DeviceCaps {
    let mut d = device("lavapipe.json");
    for f in [
        "storageBuffer16BitAccess",
        "uniformAndStorageBuffer16BitAccess",
        "storagePushConstant16",
        "storageInputOutput16",
    ] {
        d.features.insert(f.into(), false);
    }
    d
}

fn chosen(d: &DeviceCaps, wanted: &str) -> String {
    let wanted: Options = wanted.parse().unwrap();
    let c = SEED.select(d, wanted, &[]).unwrap();
    assert_eq!(c.variant.target, c.chosen);
    c.chosen.options.to_string()
}

#[test]
fn lavapipe_picks_fp16_storage_arithmetic_and_uniform() {
    let d = device("lavapipe.json");
    assert!(d.name.contains("llvmpipe"), "{}", d.name);
    let all = Options::NCNN_DEFAULT.to_string();
    assert_eq!(chosen(&d, &all), "fp16s+fp16a+fp16u");
    assert_eq!(chosen(&d, "fp16s+fp16a"), "fp16s+fp16a");
    assert_eq!(chosen(&d, "fp32"), "fp32");
    assert_eq!(chosen(&d, "fp16p"), "fp16p");
    assert_eq!(chosen(&d, "fp16s"), "fp16s");
    // No bfloat16 on lavapipe: bf16s narrows away, bf16p stays.
    assert_eq!(chosen(&d, "bf16p+bf16s"), "bf16p");
    assert_eq!(
        ncnn_glsl_core::narrow(Options::NCNN_DEFAULT, &d).to_string(),
        "fp16p+fp16s+fp16a+fp16u+int8p+int8s+int8a+int8u+int16p+int16s"
    );
}

#[test]
fn h200_picks_fp16_storage_and_bf16p_for_bf16() {
    let d = device("h200.json");
    let all = Options::NCNN_DEFAULT.to_string();
    assert_eq!(chosen(&d, &all), "fp16s+fp16a+fp16u");
    // bf16s is supported by the device but left out of the set (naga has no
    // bfloat16 types): bf16p, the same bytes.
    assert!(ncnn_glsl_core::narrow(Options::ALL, &d).has(ncnn_glsl_runtime::Flag::Bf16Storage));
    assert_eq!(chosen(&d, "bf16p+bf16s"), "bf16p");
    // Discrete: local memory survives narrowing (the seed does not use it).
    assert!(ncnn_glsl_core::narrow(Options::NCNN_DEFAULT, &d)
        .has(ncnn_glsl_runtime::Flag::ShaderLocalMemory));
    assert_eq!(
        ncnn_glsl_core::variant::device_axis_value(&d, "ncnn_subgroupSize"),
        Some(32)
    );
}

#[test]
fn no_16bit_storage_falls_back_to_packed_fp16() {
    let d = without_16bit_storage();
    let all = Options::NCNN_DEFAULT.to_string();
    assert_eq!(chosen(&d, &all), "fp16p+fp16a");
    assert_eq!(chosen(&d, "fp16s"), "fp32");
    assert_eq!(chosen(&d, "fp16p+fp16s"), "fp16p");
}

#[test]
fn saved_descriptions_round_trip() {
    for f in ["lavapipe.json", "h200.json"] {
        let d = device(f);
        assert_eq!(DeviceCaps::from_json(&d.to_json()).unwrap(), d, "{f}");
    }
    assert_eq!(
        ncnn_glsl_core::variant::device_axis_value(&device("lavapipe.json"), "ncnn_subgroupSize"),
        Some(8)
    );
}
