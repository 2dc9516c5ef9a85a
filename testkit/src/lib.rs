//! What the workspace's tests and examples share, in one dev-only crate:
//!
//! - [`Rng`]: the seeded generator every test and example draws its inputs
//!   from (fresh each run, the seed printed so a failure can be repeated);
//! - [`gpu`]: the GPU test harness (a test declares what it needs; the
//!   harness opens a validated context, skips with the reason outside CI and
//!   fails under CI when the device lacks it, and checks the validation log
//!   after the test body);
//! - [`tools`]: the reference tools (`spirv-val`, `glslangValidator`), which
//!   fail a test under CI when missing;
//! - [`shaders`]: the test shaders under `tests/shaders/`;
//! - [`coopmat`]: the cooperative matrix GEMM of the corpus, for a run on a
//!   device that has them: its set, specialization, dispatch, reference;
//! - [`differential`]: one shader built by naga (ours) and by glslang, run on
//!   the same inputs, every output byte compared.

pub mod coopmat;
pub mod differential;
pub mod fuzz;
pub mod gpu;
pub mod ncnn_layers;
pub mod rng;
pub mod shaders;
pub mod tools;

pub use rng::Rng;

/// The repository's revision for a result file: `git rev-parse HEAD`, marked
/// where the tree has uncommitted changes (empty without git).
pub fn revision() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    };
    let dirty = if git(&["status", "--porcelain"]).is_empty() {
        ""
    } else {
        " (with uncommitted changes)"
    };
    format!("{}{dirty}", git(&["rev-parse", "HEAD"]))
}
