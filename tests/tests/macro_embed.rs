//! `include_ncnn_shader!` in a crate: the embedded set is static, complete,
//! and selection picks the device's variant from it.

use ncnn_glsl_runtime::{include_ncnn_shader, DeviceCaps, DeviceType, Options, VariantSet};

static SEED: &VariantSet = include_ncnn_shader!("shaders/seed_example.comp");

fn device(features: &[&str]) -> DeviceCaps {
    DeviceCaps {
        device_type: DeviceType::DiscreteGpu,
        features: features.iter().map(|f| (f.to_string(), true)).collect(),
        ..DeviceCaps::default()
    }
}

#[test]
fn the_seed_example_embeds_every_float_storage_form() {
    let modes: Vec<String> = SEED
        .variants()
        .iter()
        .map(|v| v.target.to_string())
        .collect();
    for m in [
        "fp32",
        "fp16p",
        "fp16p+fp16a",
        "fp16s",
        "fp16s+fp16a",
        "bf16p",
    ] {
        assert!(modes.iter().any(|x| x == m), "{m} missing from {modes:?}");
    }
    assert!(SEED.usage.float && !SEED.usage.int8);
    for v in SEED.variants() {
        assert_eq!(v.blob.spirv()[0], 0x0723_0203, "{}", v.target);
    }
}

/// Identical SPIR-V is stored once: variants whose words are equal point at
/// one `Blob` static (statics are never merged, so this is the macro's doing).
#[test]
fn identical_spirv_is_embedded_once() {
    let mut shared = 0;
    for (i, a) in SEED.variants().iter().enumerate() {
        for b in &SEED.variants()[i + 1..] {
            if a.blob.spirv() == b.blob.spirv() {
                assert!(
                    std::ptr::eq(a.blob, b.blob),
                    "{} and {} have the same SPIR-V in two blobs",
                    a.target,
                    b.target
                );
                shared += 1;
            }
        }
    }
    // The seed has modes that compile alike, so the check above is exercised.
    assert!(shared > 0, "no two variants of the seed share a blob");
}

#[test]
fn selection_follows_the_device() {
    let all = Options::NCNN_DEFAULT;
    let cases: [(&[&str], &str); 4] = [
        (&[], "fp16p"),
        (&["shaderFloat16"], "fp16p+fp16a"),
        (&["storageBuffer16BitAccess"], "fp16s"),
        (
            &["storageBuffer16BitAccess", "shaderFloat16"],
            "fp16s+fp16a",
        ),
    ];
    for (features, want) in cases {
        let c = SEED.select(&device(features), all, &[]).unwrap();
        assert_eq!(c.chosen.options.to_string(), want, "{features:?}");
        assert_eq!(c.variant.target, c.chosen);
    }
    let c = SEED.select(&device(&[]), Options::FP32, &[]).unwrap();
    assert_eq!(c.chosen.options, Options::FP32);
}

#[test]
fn wrong_axes_are_errors_naming_them() {
    let e = SEED
        .select(&device(&[]), Options::FP32, &[("X", 1)])
        .unwrap_err();
    assert!(e.to_string().contains("values were given for [X]"), "{e}");
}

#[test]
fn reflection_is_embedded_with_each_blob() {
    use ncnn_glsl_runtime::reflection::{Access, BindingKind};
    for v in SEED.variants() {
        let r = &v.blob.reflection();
        let b: Vec<(u32, BindingKind, Access, &str)> = r
            .bindings
            .iter()
            .map(|b| (b.binding, b.kind, b.access, b.name.as_ref()))
            .collect();
        assert_eq!(
            b,
            [
                (0, BindingKind::StorageBuffer, Access::ReadOnly, "a_blob"),
                (1, BindingKind::StorageBuffer, Access::WriteOnly, "b_blob"),
            ],
            "{}",
            v.target
        );
        let fp16s = v.target.options.has(ncnn_glsl_runtime::Flag::Fp16Storage);
        assert_eq!(
            r.requirements
                .features
                .iter()
                .any(|f| f == "storageBuffer16BitAccess"),
            fp16s,
            "{}: {:?}",
            v.target,
            r.requirements
        );
    }
}
