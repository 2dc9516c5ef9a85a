//! The GPU test harness, after wgpu's: a test declares what it needs of the
//! device (its context's options, features, extensions, limits, the blobs it
//! will run), and [`GpuTest::run`] does the rest:
//!
//! - opens the context with the Khronos validation layer and synchronization
//!   validation on, every warning and error message kept;
//! - where Vulkan, the layer or something the test needs is missing, skips
//!   with the reason, or fails when `CI` is set (CI runs on lavapipe, which
//!   has what the suite needs: a skip there would be a test that passes
//!   without testing);
//! - runs the body, then drops the context (destruction can be reported
//!   too) and fails if the layer said anything the body did not take
//!   ([`Gpu::take_messages`]), so no test can forget the check.
//!
//! ```no_run
//! use ncnn_glsl_runtime::ContextOptions;
//! use ncnn_glsl_testkit::gpu::GpuTest;
//!
//! #[test]
//! fn something_runs() {
//!     GpuTest::new(ContextOptions::default())
//!         .feature("shaderFloat16")
//!         .run(|gpu| {
//!             let ctx = gpu.ctx();
//!             // ... dispatches on `ctx`, every byte checked ...
//!         });
//! }
//! ```

use std::collections::BTreeSet;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use ncnn_glsl_runtime::{Blob, Context, ContextOptions, Error, Message, VariantSet};

/// What a GPU test needs; [`GpuTest::run`] checks it before the body.
#[derive(Clone, Debug)]
pub struct GpuTest {
    options: ContextOptions,
    features: Vec<String>,
    extensions: Vec<String>,
    limits: Vec<(String, u64)>,
    blobs: Vec<&'static Blob>,
}

impl GpuTest {
    /// A test on a context opened with `options` (the harness turns
    /// validation on and collects the messages; name the variant sets the
    /// test runs, so the context enables their features).
    pub fn new(options: ContextOptions) -> GpuTest {
        GpuTest {
            options,
            features: Vec::new(),
            extensions: Vec::new(),
            limits: Vec::new(),
            blobs: Vec::new(),
        }
    }

    /// The device must have this feature (a name of the device description,
    /// e.g. `shaderFloat16`).
    pub fn feature(mut self, name: &str) -> GpuTest {
        self.features.push(name.to_string());
        self
    }

    /// The device must list this extension.
    pub fn extension(mut self, name: &str) -> GpuTest {
        self.extensions.push(name.to_string());
        self
    }

    /// The device's property or limit `name` (as the description names it,
    /// e.g. `maxComputeWorkGroupCount_0`) must be at least `min`.
    pub fn limit(mut self, name: &str, min: u64) -> GpuTest {
        self.limits.push((name.to_string(), min));
        self
    }

    /// The test runs these blobs: the device must have the features and
    /// extensions each requires, and the context must enable them (a test
    /// whose options forget the set of a blob fails, wherever it runs).
    pub fn blobs(mut self, blobs: impl IntoIterator<Item = &'static Blob>) -> GpuTest {
        self.blobs.extend(blobs);
        self
    }

    /// Opens the context, checks the needs, runs `body`, then checks the
    /// validation log (see the module docs).
    pub fn run(self, body: impl FnOnce(&Gpu)) {
        let log: Log = Arc::default();
        let ctx = match open(&self.options, &log) {
            Ok(ctx) => ctx,
            Err(e @ (Error::NoLoader(_) | Error::NoValidationLayer | Error::NoDevice)) => {
                return unavailable(&format!("no Vulkan with the validation layer here: {e}"));
            }
            Err(e) => panic!("cannot open a Vulkan context: {e}"),
        };
        let missing = self.missing(&ctx);
        if !missing.is_empty() {
            let device = ctx.caps().name.clone();
            drop(ctx);
            return unavailable(&format!("{device} lacks {}", missing.join(", ")));
        }
        let gpu = Gpu {
            ctx: Some(ctx),
            log,
            options: self.options,
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| body(&gpu)));
        let Gpu { ctx, log, .. } = gpu;
        drop(ctx);
        if let Err(panic) = outcome {
            let messages = take(&log);
            if !messages.is_empty() {
                eprintln!(
                    "validation messages before the failure:\n{}",
                    show(&messages)
                );
            }
            resume_unwind(panic);
        }
        assert_none(&take(&log));
    }

    /// What the device lacks of the needs. A blob feature the device has but
    /// the context did not enable is the test's own mistake: a panic.
    fn missing(&self, ctx: &Context) -> Vec<String> {
        let caps = ctx.caps();
        let mut missing = Vec::new();
        let mut features: Vec<&str> = self.features.iter().map(String::as_str).collect();
        let mut extensions: Vec<&str> = self.extensions.iter().map(String::as_str).collect();
        for blob in &self.blobs {
            let r = &blob.reflection().requirements;
            features.extend(r.features.iter().map(|f| f.as_ref()));
            extensions.extend(r.extensions.iter().map(|e| e.as_ref()));
        }
        for f in features {
            if !caps.feature(f) {
                missing.push(format!("the feature `{f}`"));
            } else if self.blobs_need(f) && !ctx.enabled_caps().feature(f) {
                panic!(
                    "the test runs a blob that needs `{f}`, which the device has but the \
                     context did not enable: name the blob's variant set in its options"
                );
            }
        }
        for e in extensions {
            if !caps.has_extension(e) {
                missing.push(format!("the extension `{e}`"));
            }
        }
        for (name, min) in &self.limits {
            match caps.property(name) {
                Some(v) if v >= *min => {}
                v => missing.push(format!("`{name}` >= {min} (it has {v:?})")),
            }
        }
        missing.dedup();
        missing
    }

    fn blobs_need(&self, feature: &str) -> bool {
        self.blobs.iter().any(|b| {
            b.reflection()
                .requirements
                .features
                .iter()
                .any(|f| f.as_ref() == feature)
        })
    }
}

/// The body's view of a GPU test: its context, more contexts on the same
/// log, and the messages so far.
pub struct Gpu {
    ctx: Option<Arc<Context>>,
    log: Log,
    options: ContextOptions,
}

impl Gpu {
    /// The test's context.
    pub fn ctx(&self) -> &Arc<Context> {
        self.ctx
            .as_ref()
            .expect("the context lives as long as the body")
    }

    /// The options the test's context was opened with (validation and the
    /// message sink included).
    pub fn options(&self) -> ContextOptions {
        with_log(self.options.clone(), &self.log)
    }

    /// Another context, with validation on and its messages in the same log
    /// (`options` as the test gives them: e.g. `..gpu.options()` with a
    /// field changed).
    pub fn open(&self, options: ContextOptions) -> Result<Arc<Context>, Error> {
        open(&options, &self.log)
    }

    /// The messages so far, taken out of the log: a test that provokes
    /// messages on purpose checks them here, and the harness's final check
    /// sees only what comes after.
    pub fn take_messages(&self) -> Vec<Message> {
        take(&self.log)
    }

    /// Fails now if the layer has said anything (the harness checks again
    /// at the end).
    pub fn assert_clean(&self) {
        assert_none(&take(&self.log));
    }
}

/// Messages a context's layer emitted.
type Log = Arc<Mutex<Vec<Message>>>;

fn with_log(mut options: ContextOptions, log: &Log) -> ContextOptions {
    let sink = log.clone();
    options.validation = true;
    options.messages = Some(Arc::new(move |m: Message| {
        sink.lock().unwrap_or_else(|p| p.into_inner()).push(m)
    }));
    options
}

fn open(options: &ContextOptions, log: &Log) -> Result<Arc<Context>, Error> {
    Context::new(with_log(options.clone(), log))
}

fn take(log: &Log) -> Vec<Message> {
    std::mem::take(&mut *log.lock().unwrap_or_else(|p| p.into_inner()))
}

fn show(messages: &[Message]) -> String {
    messages
        .iter()
        .map(|m| format!("[{:?}] {}: {}", m.severity, m.id, m.text))
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_none(messages: &[Message]) {
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        show(messages)
    );
}

/// A test that cannot run here: a failure under `CI`, else a note.
fn unavailable(reason: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("CI must run every GPU test, but {reason}");
    }
    eprintln!("note: skipped: {reason}");
}

/// The device features `ctx` enabled, and those the variants of `sets` name
/// that the device has: a context opened for `sets` must enable exactly the
/// latter.
pub fn enabled_and_wanted(
    ctx: &Context,
    sets: &[&VariantSet],
) -> (BTreeSet<String>, BTreeSet<String>) {
    let wanted = sets
        .iter()
        .flat_map(|s| s.variants().iter())
        .flat_map(|v| v.blob.reflection().requirements.features.iter())
        .filter(|f| ctx.caps().feature(f))
        .map(|f| f.to_string())
        .collect();
    let enabled = ctx
        .enabled_caps()
        .features
        .iter()
        .filter(|(_, on)| **on)
        .map(|(name, _)| name.clone())
        .collect();
    (enabled, wanted)
}
