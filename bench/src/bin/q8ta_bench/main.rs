//! The q8ta pixel shuffle benchmark (`BENCHMARKS.md`): the seed's kernel (the
//! "rewrite"), the baseline it replaces and `vkCmdCopyBuffer` of the same
//! bytes (the ceiling), side by side in one run on any Vulkan device, with GPU
//! timestamps; optionally the same finished GLSL compiled by glslangValidator.
//!
//! ```text
//! cargo run --release -p ncnn-glsl-bench --bin q8ta_bench -- \
//!     [--cases seed|large|all|N,C,H,W;...] [--quant passthrough|requant|both] \
//!     [--reps R] [--warmup W] [--device SELECTOR] [--validation] \
//!     [--glslang DIR] [--sweep X,Y,Z;...] [--json FILE] [--svg FILE] \
//!     [--cold] [--pairs IN->OUT,...]
//! ```
//!
//! `--help` lists every flag with its default (`args.rs`).
//!
//! Cases: `seed` is the seed's 81 (9 layout pairs x `[1,256,H,H]`, H = 16 ..
//! 256), `large` the tensors that exceed the GPU's cache (`[8,256,256,256]`,
//! `[16,256,256,256]`: 128 and 256 MiB per side); `all` (the default) both.
//! Bytes moved = input bytes + output bytes (padding included); the copy
//! moves the same number. Each repetition runs every kernel once, in turn,
//! so drift on a shared machine hits all of them alike; the median and the
//! 10th/90th percentiles are over the repetitions after the warm-up. All
//! repetitions of a case run in one submission (`Sequence`), after
//! `--heat-ms` (default 500 on a GPU, 0 on a CPU driver) of other GPU work,
//! so the GPU runs them at the clocks of a busy device. Every
//! output is poisoned first and checked byte for byte against the CPU
//! reference afterwards; a mismatch fails the run. The inputs come from
//! the testkit's seeded generator: the seed is printed (in hex) and recorded
//! in the JSON (in decimal), and `NCNN_SEED=<decimal seed>` with the same
//! arguments draws the same inputs again.
//!
//! `--executables FILE` times nothing: it writes what the driver compiled
//! for each kernel (`VK_KHR_pipeline_executable_properties`).
//! `--glslang DIR` (from `cargo xtask glslang-variants --out DIR`) adds each
//! path of the rewrite built by `glslangValidator` from the same committed
//! finished GLSL, specialized the same way (one blob; the layouts,
//! passthrough, path, requantization and block axis are specialization
//! constants 3 to 8). `--requantization lanes|table|banked|float|mixed|mixed-quarter`
//! replaces the device's requantization. Each path runs at the runtime's
//! rows per invocation (`q8ta::Rewrite::rows`), named `path NAME` at one
//! row and `path NAME rows R` at more; `--rows R,...` adds it at those rows
//! too (and each `--sweep` shape, as `rewrite XxYxZ rows R`).
//! `--from-json FILE` re-reads an earlier run's JSON and derives "rewrite"
//! (the path the runtime takes for each case) again by this build's rule,
//! without a device: the kernel's paths are measured separately, so a
//! changed choice of path needs no new run, nor one of rows per invocation
//! where the run timed the path at those rows.
//! `--sweep` times the rewrite at each listed workgroup shape instead of the
//! runtime's choice, the baseline and the copy beside it, and prints the best
//! shape per pair.
//! `--pairs 4W4C->4C,...` limits the run to those layout pairs.
//! `--cold` gives each kernel and each copy its own copy of the input, so
//! that none reads what the kernel before it left in the GPU's cache (by
//! default they share one input: a tensor that fits the cache stays there
//! from one kernel to the next).
//!
//! The program, one job a file:
//!
//! - `args.rs`: the command line (every flag, its default and its syntax);
//! - `cases.rs`: the shapes, layout pairs and quantizations, and their names;
//! - `kernels.rs`: the kernels under test and their pipelines;
//! - `startup.rs`: the wall-clock start-up the JSON records;
//! - `timed.rs`: a timed run, case after case, and its outputs;
//! - `measure.rs`: one case, timed and checked;
//! - `record.rs`: one measurement, and the rule that names "rewrite";
//! - `report.rs`: the text table and the JSON records;
//! - `sweep.rs`: the best workgroup shape per pair (`--sweep`, `--best`);
//! - `svg.rs`: the chart (`--svg`);
//! - `from_json.rs`: `--from-json`;
//! - `executables.rs`: `--executables`;
//! - `error.rs`: the one error type every step returns.
//!
//! The copy shader and the heater are `ncnn_glsl_bench::copy`.

use std::process::ExitCode;

use ncnn_glsl_q8ta::Q8taOps;
use ncnn_glsl_runtime::Options;

mod args;
mod cases;
mod error;
mod executables;
mod from_json;
mod kernels;
mod measure;
mod record;
mod report;
mod startup;
mod svg;
mod sweep;
mod timed;

use error::Fail;

fn main() -> ExitCode {
    let a = args::from_command_line();
    match run(&a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("q8ta_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--from-json` needs no device; the others open one and time its start-up
/// first.
fn run(a: &args::Args) -> Result<(), Fail> {
    if let Some(path) = &a.from_json {
        return from_json::rederive(a, path);
    }
    let (ctx, start) = startup::startup(a)?;
    let ops = Q8taOps::new(&ctx, Options::NCNN_DEFAULT)?;
    let kernels = kernels::Kernels::new(&ops, a)?;
    if let Some(path) = &a.executables {
        return executables::write(&kernels, &a.cases, &a.quant, path);
    }
    timed::run(a, &kernels, start)
}
