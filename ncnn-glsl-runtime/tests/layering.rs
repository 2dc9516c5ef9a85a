//! The generic runtime knows no application: no module outside `src/q8ta/`
//! names the q8ta operator or its sets (the crate root only declares the
//! module). A context enables what the sets it is opened for need, which
//! `vulkan.rs` shows on a device.

#[test]
fn no_generic_module_names_q8ta() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut read = 0;
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("lib.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        read += 1;
        for (i, line) in text.lines().enumerate() {
            assert!(
                !line.to_lowercase().contains("q8ta"),
                "{}:{}: a generic module names q8ta: {line}",
                path.display(),
                i + 1
            );
        }
    }
    assert!(
        read >= 10,
        "only {read} modules read from {}",
        src.display()
    );
}
