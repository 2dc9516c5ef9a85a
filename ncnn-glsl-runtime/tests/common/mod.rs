//! The Vulkan test harness: contexts with the Khronos validation layer and
//! synchronization validation on, every warning and error message kept, and
//! a check that none came.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use ncnn_glsl_runtime::{Context, ContextOptions, Error, Message};

/// Messages a context's layer emitted.
pub type Log = Arc<Mutex<Vec<Message>>>;

/// A context on the default device with validation, or `None` (and a note)
/// where this machine has no Vulkan or no layer. Under `CI` that is a failure.
pub fn context(mut options: ContextOptions) -> Option<(Arc<Context>, Log)> {
    let log: Log = Arc::default();
    let sink = log.clone();
    options.validation = true;
    options.messages = Some(Arc::new(move |m: Message| sink.lock().unwrap().push(m)));
    match Context::new(options) {
        Ok(ctx) => Some((ctx, log)),
        Err(e @ (Error::NoLoader(_) | Error::NoValidationLayer | Error::NoDevice)) => {
            if std::env::var_os("CI").is_some() {
                panic!("CI needs Vulkan and the validation layer: {e}");
            }
            eprintln!("note: skipped, no Vulkan here: {e}");
            None
        }
        Err(e) => panic!("cannot open a Vulkan context: {e}"),
    }
}

/// Fails when the layer said anything.
pub fn assert_clean(log: &Log) {
    let msgs = log.lock().unwrap();
    assert!(
        msgs.is_empty(),
        "validation messages:\n{}",
        msgs.iter()
            .map(|m| format!("[{:?}] {}: {}", m.severity, m.id, m.text))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A small seeded generator (xorshift64*): tests print the seed on failure.
pub struct Rng(pub u64);

impl Rng {
    /// Seeded from the clock, so each run sees fresh inputs.
    pub fn fresh() -> Rng {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        Rng(t | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in [lo, hi).
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
}
