//! A differential fuzzer against glslang: random compute shaders in the
//! subset this project accepts ([`gen`]), each compiled by this project and
//! by `glslangValidator` from the same finished text and run on the device
//! between poisoned guard buffers ([`run`]); a difference is shrunk by the
//! minimizer ([`minimize`]) and reported with the seed that makes it again.
//!
//! Every program comes from one `u64` seed (and the device's features):
//! `NCNN_FUZZ_SEED=N` replays program `N` alone. docs/fuzzing.md says how
//! to run it short (CI) and long, and how to replay and minimize a seed.

pub mod ast;
mod case;
pub mod gen;
mod gen_calls;
mod gen_consts;
mod gen_expr;
pub mod known;
pub mod minimize;
pub mod program;
mod reach;
pub mod run;
#[cfg(test)]
mod tests;

use std::fmt::Write;
use std::time::{Duration, Instant};

use ncnn_glsl_core::CompileOptions;
use ncnn_glsl_runtime::{ContextOptions, DeviceCaps, SpecValue, Variant, VariantSet};

use crate::differential::{finished, leak_blob, leak_set, target_of};
use crate::gpu::{Gpu, GpuTest};
use program::Shader;
use run::{Difference, Runner, Verdict};

/// What the device offers that a program may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Subgroup basic, vote, arithmetic and ballot operations in compute.
    pub subgroups: bool,
    /// 16-bit storage buffers (`fp16s`).
    pub fp16_storage: bool,
    /// 16-bit float arithmetic (`fp16a`).
    pub fp16_arithmetic: bool,
}

impl Features {
    /// What `caps` has and `enabled` (the context's) enabled.
    pub fn of(caps: &DeviceCaps, enabled: &DeviceCaps) -> Features {
        const COMPUTE: u64 = 0x20;
        // basic, vote, arithmetic, ballot
        const OPS: u64 = 0x1 | 0x2 | 0x4 | 0x8;
        let stages = caps.property("supportedStages").unwrap_or(0);
        let ops = caps.property("supportedOperations").unwrap_or(0);
        Features {
            subgroups: stages & COMPUTE != 0 && ops & OPS == OPS,
            fp16_storage: enabled.feature("storageBuffer16BitAccess"),
            fp16_arithmetic: enabled.feature("shaderFloat16"),
        }
    }
}

/// What a program is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Every index in range by construction: both blobs run, outputs compared.
    InRange,
    /// Indices may leave their arrays: ours runs twice, alone.
    MayIndexOutOfRange,
    /// A specialization breaks an array's length: `Pipeline::new` must refuse it.
    BadSize,
}

/// A generated program and its case.
#[derive(Clone, Debug)]
pub struct Program {
    /// Its seed.
    pub seed: u64,
    /// The shader.
    pub shader: Shader,
    /// The mode (`fp32`, `fp16s+fp16a`, ...).
    pub mode: String,
    /// Workgroups.
    pub groups: [u32; 3],
    /// The local size given to the pipeline (with `local_size_x_id`).
    pub local_size: Option<[u32; 3]>,
    /// Specialization values.
    pub specialization: Vec<(u32, SpecValue)>,
    /// Push-constant bytes.
    pub push_constants: Vec<u8>,
    /// What it is for.
    pub class: Class,
    /// For [`Class::BadSize`]: the names an error may give.
    pub bad_names: Vec<String>,
}

impl Program {
    /// Everything about it but its text, on one line.
    pub fn case_line(&self) -> String {
        format!(
            "seed {} class {:?} mode {} groups {:?} local size {:?} specialization {:?} push {:02x?} bindings {:?}",
            self.seed,
            self.class,
            self.mode,
            self.groups,
            self.local_size,
            self.specialization,
            self.push_constants,
            self.binding_bytes()
        )
    }
}

/// Whether bad-size programs run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadSizes {
    /// Skipped.
    Off,
    /// Run with the others.
    On,
    /// Run alone (the others skipped).
    Only,
}

/// How a run is set, from the environment.
#[derive(Clone, Debug)]
pub struct Settings {
    /// `NCNN_FUZZ_SECONDS`: the budget (default 40: CI runs it in its 15 minutes).
    pub seconds: f64,
    /// `NCNN_FUZZ_SEED`: replay this program alone.
    pub one: Option<u64>,
    /// `NCNN_FUZZ_BAD_SIZES`: `0` skips the bad-size programs, `only` runs
    /// nothing else.
    pub bad_sizes: BadSizes,
    /// `NCNN_FUZZ_OUT`: where the result file goes.
    pub out: Option<String>,
    /// `NCNN_FUZZ_MINIMIZE_SECONDS`: the minimizer's budget per difference
    /// (default 120).
    pub minimize_seconds: f64,
    /// The first seed: the clock's, or `NCNN_SEED`.
    pub base: u64,
}

impl Settings {
    /// The settings the environment gives.
    pub fn from_env() -> Settings {
        let var = |n: &str| std::env::var(n).ok();
        let num = |n: &str| {
            var(n).map(|v| {
                v.parse::<f64>()
                    .unwrap_or_else(|_| panic!("{n}={v}: not a number"))
            })
        };
        Settings {
            seconds: num("NCNN_FUZZ_SECONDS").unwrap_or(40.0),
            one: var("NCNN_FUZZ_SEED").map(|v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("NCNN_FUZZ_SEED={v}: not a u64"))
            }),
            bad_sizes: match var("NCNN_FUZZ_BAD_SIZES").as_deref() {
                None | Some("1") => BadSizes::On,
                Some("0") => BadSizes::Off,
                Some("only") => BadSizes::Only,
                Some(v) => panic!("NCNN_FUZZ_BAD_SIZES={v}: 0, 1 or only"),
            },
            out: var("NCNN_FUZZ_OUT"),
            minimize_seconds: num("NCNN_FUZZ_MINIMIZE_SECONDS").unwrap_or(120.0),
            base: crate::rng::fresh_seed(),
        }
    }
}

/// A difference found, minimized.
#[derive(Clone, Debug)]
pub struct Found {
    /// The program as generated.
    pub program: Program,
    /// What differed.
    pub difference: Difference,
    /// The smallest program that still differs the same way (the program
    /// itself where one that differed the same way was minimized before).
    pub minimized: Program,
    /// Whether one that differed the same way was minimized before.
    pub repeat: bool,
}

/// What a run counted.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The repository's revision when the run began (a long run outlives
    /// the tree it was built from).
    pub revision: String,
    /// The device, as the context names it, and its driver version.
    pub device: String,
    /// Seeds from `first_seed` to `last_seed`.
    pub first_seed: u64,
    /// The last seed run.
    pub last_seed: u64,
    /// Programs generated.
    pub programs: u64,
    /// Compiled by both.
    pub compiled_both: u64,
    /// Run on the device (or, bad-size programs, given to `Pipeline::new`).
    pub ran: u64,
    /// Programs skipped (`NCNN_FUZZ_BAD_SIZES`).
    pub skipped: u64,
    /// Programs per class: in range, may index out of range, bad size.
    pub per_class: [u64; 3],
    /// Texts glslang refused (a generator bug each).
    pub glslang_refused: Vec<(u64, String)>,
    /// Our documented refusals and the known differences (seed, reason).
    pub explained: Vec<(u64, String)>,
    /// Known differences whose seed no longer shows them (seed, note).
    pub fixed: Vec<(u64, &'static str)>,
    /// The differences.
    pub found: Vec<Found>,
    /// Seconds spent.
    pub seconds: f64,
}

/// The carrier shader: compiled in each 16-bit mode, its blobs make the
/// context enable the features those modes need.
const CARRIER: &str = "#version 450
layout (local_size_x = 1) in;
layout (binding = 0) buffer b { sfpvec4 d[]; };
void main() { afpvec4 v = buffer_ld4(d, 0); buffer_st4(d, 0, v * afp(2)); }
";

/// A variant set whose blobs need what the generated programs' modes need.
fn carriers() -> &'static VariantSet {
    let variants: Vec<Variant> = ["fp16s+fp16a", "fp16p+fp16a", "fp16s"]
        .iter()
        .map(|mode| {
            let e = finished(CARRIER, mode);
            let c = ncnn_glsl_core::compile(&e, &CompileOptions::default())
                .unwrap_or_else(|d| panic!("the carrier in {mode}: {d}"));
            Variant {
                target: target_of(mode),
                axes: &[],
                // SAFETY: our compiler's blob; it is never run.
                blob: unsafe { leak_blob(c.spirv, c.reflection) },
            }
        })
        .collect();
    leak_set(Box::leak(variants.into_boxed_slice()))
}

/// Runs the fuzzer as `settings` say, on the default device under the
/// validation layer (a skip without Vulkan, a failure under `CI`); `None`
/// when it could not run.
pub fn fuzz(settings: &Settings) -> Option<Report> {
    let glslang = crate::tools::tool_available("glslangValidator");
    let spirv_val = crate::tools::tool_available("spirv-val");
    if !glslang || !spirv_val {
        return None;
    }
    let options = ContextOptions {
        variant_sets: vec![carriers()],
        ..ContextOptions::default()
    };
    let mut report = None;
    GpuTest::new(options).run(|gpu| report = Some(fuzz_on(gpu, settings)));
    report
}

fn fuzz_on(gpu: &Gpu, settings: &Settings) -> Report {
    let ctx = gpu.ctx();
    let features = Features::of(ctx.caps(), ctx.enabled_caps());
    let runner = Runner {
        gpu,
        bad_sizes: settings.bad_sizes,
    };
    let caps = ctx.caps();
    let mut report = Report {
        revision: crate::revision(),
        device: format!("{} (driver version {:#x})", caps.name, caps.driver_version),
        first_seed: settings.one.unwrap_or(settings.base),
        ..Report::default()
    };
    eprintln!(
        "fuzz: {} with {features:?}; {}",
        report.device,
        match settings.one {
            Some(s) => format!("replaying seed {s}"),
            None => format!(
                "seeds from {} for {} s (NCNN_FUZZ_SEED=N replays one)",
                settings.base, settings.seconds
            ),
        }
    );
    let start = Instant::now();
    if settings.one.is_none() && features == known::RECORDED_WITH {
        for k in known::KNOWN {
            let p = gen::generate(k.seed, &features);
            let still = match runner.check(&p) {
                Verdict::Differs(d) => known::known(&d).is_some_and(|m| m.detail == k.detail),
                _ => false,
            };
            if !still {
                report.fixed.push((k.seed, k.note));
            }
        }
    }
    let budget = Duration::from_secs_f64(settings.seconds);
    let mut minimized_kinds: Vec<String> = Vec::new();
    let mut k = 0u64;
    loop {
        let seed = match settings.one {
            Some(s) if k == 0 => s,
            Some(_) => break,
            None if start.elapsed() >= budget => break,
            None => settings.base.wrapping_add(k),
        };
        k += 1;
        report.last_seed = seed;
        let p = gen::generate(seed, &features);
        if settings.one.is_some() {
            eprintln!("{}\n{}", p.case_line(), p.shader.text());
        }
        if p.class == Class::BadSize && settings.bad_sizes != BadSizes::Off {
            // A crash of the driver ends the process: the seed is on record.
            eprintln!(
                "fuzz: bad-size program, seed {seed}: {:?}",
                p.specialization
            );
        }
        report.programs += 1;
        report.per_class[p.class as usize] += 1;
        let verdict = runner.check(&p);
        count(&mut report, &verdict, seed);
        if let Verdict::Differs(d) = verdict {
            let known = known::known(&d);
            if let Some(k) = known {
                report.explained.push((seed, format!("known: {}", k.note)));
                // A replay shows it minimized all the same.
                if settings.one.is_none() {
                    continue;
                }
            }
            // One of a kind is minimized; the same failure again is listed
            // as it is (a run with one broken thing would spend its budget
            // minimizing it over and over).
            let want = run::signature(&d);
            let repeat = minimized_kinds.contains(&want);
            let minimized = if repeat {
                eprintln!(
                    "fuzz: seed {seed} differs ({:?}) as one minimized before: {}",
                    d.what, d.detail
                );
                p.clone()
            } else {
                eprintln!(
                    "fuzz: seed {seed} differs ({:?}): {}; minimizing",
                    d.what, d.detail
                );
                minimized_kinds.push(want.clone());
                let deadline = Instant::now() + Duration::from_secs_f64(settings.minimize_seconds);
                let mut still = |c: &Program| matches!(runner.check(c), Verdict::Differs(e) if run::signature(&e) == want);
                let minimized = minimize::minimize(&p, &mut still, deadline);
                eprintln!("{}", found_text(&p, &d, &minimized));
                minimized
            };
            if known.is_some() {
                continue;
            }
            report.found.push(Found {
                program: p,
                difference: d,
                minimized,
                repeat,
            });
        }
    }
    report.seconds = start.elapsed().as_secs_f64();
    report
}

fn count(report: &mut Report, verdict: &Verdict, seed: u64) {
    match verdict {
        Verdict::Pass => {
            report.compiled_both += 1;
            report.ran += 1;
        }
        Verdict::GlslangRefused(e) => {
            report.glslang_refused.push((seed, e.clone()));
        }
        Verdict::Explained(e) => report.explained.push((seed, e.clone())),
        Verdict::Skipped => report.skipped += 1,
        Verdict::Differs(d) => {
            if !matches!(d.what, run::What::OursRefused | run::What::OursInvalid) {
                report.compiled_both += 1;
                report.ran += 1;
            }
        }
    }
}

/// One difference as the report prints it: the seed, the class, what
/// differed and the minimized program.
pub fn found_text(p: &Program, d: &Difference, min: &Program) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "DIFFERENCE seed {} class {:?} what {:?}: {}\n  replay: NCNN_FUZZ_SEED={} cargo test -p ncnn-glsl-runtime --test differential_fuzz -- --nocapture\n  minimized ({}):\n{}",
        p.seed,
        p.class,
        d.what,
        d.detail,
        p.seed,
        min.case_line(),
        min.shader.text()
    );
    s
}

impl Report {
    /// The counts, the glslang refusals and the differences, as text.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "fuzz: {} programs in {:.0} s on {} (seeds {}..={}; in range {}, may index out of range {}, bad size {}): compiled by both {}, ran {}, skipped {}, glslang refused {}, explained {}, differences {}, fixed {}",
            self.programs,
            self.seconds,
            self.device,
            self.first_seed,
            self.last_seed,
            self.per_class[0],
            self.per_class[1],
            self.per_class[2],
            self.compiled_both,
            self.ran,
            self.skipped,
            self.glslang_refused.len(),
            self.explained.len(),
            self.found.len(),
            self.fixed.len()
        );
        for (seed, e) in &self.explained {
            let _ = writeln!(s, "explained: seed {seed}: {e}");
        }
        for (seed, note) in &self.fixed {
            let _ = writeln!(
                s,
                "FIXED: known seed {seed} no longer differs; remove it from fuzz/known.rs (or give it a seed that shows it): {note}"
            );
        }
        for (seed, e) in &self.glslang_refused {
            let _ = writeln!(s, "GLSLANG REFUSED seed {seed} (a generator bug): {e}");
        }
        for f in &self.found {
            let _ = writeln!(
                s,
                "DIFFERENCE seed {} class {:?} what {:?}: {}",
                f.program.seed, f.program.class, f.difference.what, f.difference.detail
            );
        }
        s
    }

    /// The result file of a long run: revision, device, command, seeds and counts.
    pub fn result_file(&self, command: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "revision: {} (when the run began)", self.revision);
        let _ = writeln!(s, "device: {}", self.device);
        let _ = writeln!(s, "command: {command}");
        let _ = writeln!(s, "seeds: {}..={}", self.first_seed, self.last_seed);
        let _ = writeln!(s, "seconds: {:.0}", self.seconds);
        let _ = writeln!(s, "programs: {}", self.programs);
        let _ = writeln!(s, "compiled by both: {}", self.compiled_both);
        let _ = writeln!(s, "ran: {}", self.ran);
        let _ = writeln!(s, "glslang refused: {}", self.glslang_refused.len());
        let _ = writeln!(s, "differences: {}", self.found.len());
        let _ = writeln!(s, "explained: {}", self.explained.len());
        let _ = writeln!(s, "fixed: {}", self.fixed.len());
        s.push('\n');
        s.push_str(&self.summary());
        for f in self.found.iter().filter(|f| !f.repeat) {
            s.push('\n');
            s.push_str(&found_text(&f.program, &f.difference, &f.minimized));
        }
        s
    }
}
