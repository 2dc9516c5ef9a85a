//! Differences already found and reported, not yet fixed: a program that
//! differs this way is counted as explained and shown, so the standing run
//! keeps looking for new ones instead of failing on these every time.
//!
//! Each entry has a seed that shows it with the generator as it is; every
//! run checks those seeds first, and one that no longer differs is counted
//! as fixed and fails the run, so the entry is removed (or, if the
//! generator changed what the seed makes, given a new seed).

use super::run::{Difference, What};
use super::Features;

/// The features the seeds below were recorded with (lavapipe's): a program
/// depends on them, so on another device the seeds are not replayed.
pub const RECORDED_WITH: Features = Features {
    subgroups: true,
    fp16_storage: true,
    fp16_arithmetic: true,
};

/// A known difference.
#[derive(Clone, Copy, Debug)]
pub struct Known {
    /// Its class.
    pub what: What,
    /// A piece of the difference's detail that identifies it.
    pub detail: &'static str,
    /// A seed that shows it (`NCNN_FUZZ_SEED`).
    pub seed: u64,
    /// What it is, in a line.
    pub note: &'static str,
}

/// The known differences.
pub static KNOWN: &[Known] = &[
    Known {
        what: What::OursRefused,
        detail: "operation overflowed",
        seed: 1796669016897322258,
        note: "a constant expression that overflows (`6 << 31`, `2147483648u << 29u`): \
               naga's constant evaluator refuses it (`<< operation overflowed`); GLSL wraps, \
               glslang folds it",
    },
    Known {
        what: What::OursRefused,
        detail: "naga's GLSL frontend converts this `float` to `float16_t`",
        seed: 1796669016897321410,
        note: "fp16 arithmetic without any `float` operand refused as if it had one: \
               `afpvec4(0.0).z * afp(4.0)` (fp16s+fp16a), `(f16vec4(1) * float16_t(2u)).y * \
               float16_t(4.0)`: a constructor's literal is an explicit conversion",
    },
];

/// The known difference `d` is, if any. A bad-size program refused for a
/// known reason before its lengths are looked at is that known difference
/// too (its error names something else).
pub fn known(d: &Difference) -> Option<&'static Known> {
    KNOWN.iter().find(|k| {
        (k.what == d.what || d.what == What::BadSizeUnnamed) && d.detail.contains(k.detail)
    })
}
