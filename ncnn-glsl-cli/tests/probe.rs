//! `ncnn-glsl probe` on this machine's Vulkan devices (lavapipe in CI).

use std::process::Command;

use ncnn_glsl_core::DeviceCaps;

fn probe(args: &[&str]) -> Option<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_ncnn-glsl"))
        .arg("probe")
        .args(args)
        .output()
        .expect("run ncnn-glsl");
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        if std::env::var_os("CI").is_some() {
            panic!("probe failed under CI: {err}");
        }
        eprintln!("note: skipped, no Vulkan here: {err}");
        return None;
    }
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn json_is_a_device_description() {
    let Some(text) = probe(&["--json"]) else {
        return;
    };
    // One device: an object; several: an array of them.
    let devices: Vec<DeviceCaps> = if text.trim_start().starts_with('[') {
        serde_json::from_str(&text).unwrap()
    } else {
        vec![DeviceCaps::from_json(&text).unwrap()]
    };
    assert!(!devices.is_empty());
    for d in &devices {
        assert!(d.features.contains_key("robustBufferAccess"), "{}", d.name);
        assert!(
            d.properties.contains_key("maxComputeWorkGroupCount_0"),
            "{}",
            d.name
        );
    }
}

#[test]
fn text_names_the_device_and_its_options() {
    let Some(text) = probe(&[]) else {
        return;
    };
    assert!(text.starts_with("0: "), "{text}");
    assert!(
        text.contains("ncnn's default options narrow to: "),
        "{text}"
    );
    // The shipped q8ta sets, each with the mode the device runs.
    for name in [
        "q8ta_pixel_shuffle",
        "q8ta_pixel_shuffle_baseline",
        "q8ta_quantize",
        "q8ta_dequantize",
    ] {
        assert!(
            text.contains(&format!(" {name}.comp: ")),
            "{name} missing:\n{text}"
        );
    }
}
