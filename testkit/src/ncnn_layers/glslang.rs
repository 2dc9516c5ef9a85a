//! The suite against glslang's blob of the same finished text, on request
//! (`NCNN_LAYERS_GLSLANG=FILE`): every run also runs glslang's blob on the
//! same inputs, which must meet the same references, and both are timed on
//! the device (the median of a few submissions of the run's dispatches); the
//! times and their ratio per layer and mode are appended to `FILE`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

use ncnn_glsl_runtime::Blob;

use crate::differential::{glslang, glslang_blob};

/// The environment variable naming the result file.
pub const GLSLANG_VAR: &str = "NCNN_LAYERS_GLSLANG";

/// Timed submissions of each run per blob.
pub(super) const REPS: usize = 7;

/// The result file, when the comparison is asked for.
pub(super) fn wanted() -> Option<PathBuf> {
    std::env::var_os(GLSLANG_VAR).map(PathBuf::from)
}

/// glslang's blob of the finished `text`, with `ours`'s interface (the
/// requirements read from glslang's own words).
pub(super) fn blob(text: &str, ours: &Blob) -> &'static Blob {
    let words = glslang(text).unwrap_or_else(|| panic!("{GLSLANG_VAR} needs glslangValidator"));
    // SAFETY: ncnn's layers index inside the blobs the cases size for them
    // (every run meets its reference with our clamped blob first).
    unsafe { glslang_blob(words, ours.reflection()) }
}

/// One run's times.
#[derive(Clone, Debug)]
pub(super) struct Row {
    /// The layer (the run's first word).
    pub layer: String,
    /// The mode.
    pub mode: String,
    /// Median GPU ns of our blob's dispatches.
    pub ours: f64,
    /// Median GPU ns of glslang's.
    pub theirs: f64,
}

/// The median of `v` (not empty).
pub(super) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Appends the rows' summary (per layer and mode: runs, total times, ratio)
/// to `path`, with the revision, `device` and command first where the file
/// is new.
pub(super) fn write(path: &PathBuf, device: &str, rows: &[Row]) {
    static FILE: Mutex<()> = Mutex::new(());
    let _one_writer = FILE.lock().unwrap_or_else(|p| p.into_inner());
    let mut s = String::new();
    if !path.exists() {
        let _ = writeln!(s, "revision: {}", crate::revision());
        let _ = writeln!(s, "device: {device}");
        let args: Vec<String> = std::env::args().collect();
        let _ = writeln!(
            s,
            "command: {GLSLANG_VAR}={} {} (cargo test -p ncnn-glsl-runtime --test ncnn_layers -- --test-threads=1)",
            path.display(),
            args.join(" ")
        );
        let _ = writeln!(
            s,
            "times: GPU ns of each run's dispatches, median of {REPS} submissions, summed over the runs of a layer in a mode"
        );
        let _ = writeln!(
            s,
            "\n| layer | mode | runs | ours ns | glslang ns | ours / glslang |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
    }
    let mut by: BTreeMap<(String, String), (usize, f64, f64)> = BTreeMap::new();
    for r in rows {
        let e = by.entry((r.layer.clone(), r.mode.clone())).or_default();
        e.0 += 1;
        e.1 += r.ours;
        e.2 += r.theirs;
    }
    for ((layer, mode), (n, ours, theirs)) in by {
        let _ = writeln!(
            s,
            "| {layer} | {mode} | {n} | {ours:.0} | {theirs:.0} | {:.3} |",
            ours / theirs
        );
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    f.write_all(s.as_bytes())
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
