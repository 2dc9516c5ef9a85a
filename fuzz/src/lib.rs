//! Fuzz targets of ncnn-glsl-core; the entry points live in `entry.rs`,
//! which the regression tests include as well.

#[path = "entry.rs"]
pub mod entry;

/// Runs an entry point as a fuzz target: a contract violation panics (a crash
/// for libFuzzer); a naga panic caught at the boundary is printed once per place.
pub fn fuzz(data: &[u8], run: fn(&[u8]) -> Result<entry::Notes, String>) {
    match run(data) {
        Ok(notes) => {
            use std::collections::BTreeSet;
            use std::sync::Mutex;
            static SEEN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
            for p in notes.naga_panics {
                let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
                if seen.insert(p.location.clone()) {
                    eprintln!("NAGA PANIC (caught) at {}: {}", p.location, p.message);
                    save_naga_input(data, &p.location);
                }
            }
        }
        Err(violation) => panic!("contract violation: {violation}"),
    }
}

/// Keeps an input that panics naga under `naga-panics/` (for the report).
fn save_naga_input(data: &[u8], location: &str) {
    let name: String = location
        .rsplit("/src/")
        .next()
        .unwrap_or(location)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let _ = std::fs::create_dir_all("naga-panics");
    let _ = std::fs::write(format!("naga-panics/{name}"), data);
}
