//! Choosing the variant to run: the effective options of the device, then a
//! fixed fallback order when that exact variant is not in the set.
//!
//! The fallback order gives up, one step at a time and cumulatively:
//!
//! 1. `fp16u`, 2. `fp16a`, 3. `int8u`, 4. `int8a`, 5. `local`,
//! 6. native storage for packed storage: `bf16s` -> `bf16p`, `fp16s` -> `fp16p`,
//!    `int8s` -> `int8p`, `int16s` -> `int16p`,
//! 7. packed storage: `bf16p`, `fp16p`, `int8p`, `int16p` (down to plain fp32 / int32).
//!
//! Each candidate is tried in that order and the first one the set holds wins,
//! so `fp16s+fp16a` falls back to `fp16s`, then `fp16p`, then `fp32`. Every
//! step only removes a flag or trades native storage for the packed form, which
//! every device supports, so each candidate still runs on the device. The
//! storage format of the chosen variant decides how the host lays out buffers,
//! which is why the choice reports the variant's own options.

use crate::device::{DeviceBits, DeviceCaps};
use crate::options::{Flag, Options};
use crate::target::Target;

/// One step of the fallback order: flags removed, flags added.
struct Step {
    remove: &'static [Flag],
    add_if_removed: Option<Flag>,
}

const STEPS: &[Step] = &[
    Step {
        remove: &[Flag::Fp16Uniform],
        add_if_removed: None,
    },
    Step {
        remove: &[Flag::Fp16Arithmetic],
        add_if_removed: None,
    },
    Step {
        remove: &[Flag::Int8Uniform],
        add_if_removed: None,
    },
    Step {
        remove: &[Flag::Int8Arithmetic],
        add_if_removed: None,
    },
    Step {
        remove: &[Flag::ShaderLocalMemory],
        add_if_removed: None,
    },
    Step {
        remove: &[Flag::Bf16Storage],
        add_if_removed: Some(Flag::Bf16Packed),
    },
    Step {
        remove: &[Flag::Fp16Storage],
        add_if_removed: Some(Flag::Fp16Packed),
    },
    Step {
        remove: &[Flag::Int8Storage],
        add_if_removed: Some(Flag::Int8Packed),
    },
    Step {
        remove: &[Flag::Int16Storage],
        add_if_removed: Some(Flag::Int16Packed),
    },
    Step {
        remove: &[Flag::Bf16Packed],
        add_if_removed: None,
    },
    Step {
        remove: &[Flag::Fp16Packed],
        add_if_removed: None,
    },
    Step {
        remove: &[Flag::Int8Packed],
        add_if_removed: None,
    },
    Step {
        remove: &[Flag::Int16Packed],
        add_if_removed: None,
    },
];

/// The candidates for effective options `options`, best first: `options`
/// itself, then each distinct set the fallback order reaches.
pub fn fallback_chain(options: Options) -> Vec<Options> {
    let mut chain = vec![options];
    let mut current = options;
    for step in STEPS {
        let mut next = current;
        let mut removed = false;
        for &f in step.remove {
            removed |= next.has(f);
            next = next.without(f);
        }
        if let (true, Some(f)) = (removed, step.add_if_removed) {
            next = next.with(f);
        }
        if next != current {
            chain.push(next);
            current = next;
        }
    }
    chain
}

/// The chosen variant and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice<'a, V> {
    /// The variant to run.
    pub variant: &'a V,
    /// The effective options of the device (what it would run ideally).
    pub effective: Options,
    /// The options of the chosen variant; differs from `effective` after a fallback.
    pub chosen: Options,
}

/// Chooses from `variants` for `device` and `wanted` options: the first
/// candidate of [`fallback_chain`] (of the device's effective options) that
/// `lookup` finds, given the device's expansion bits. `None` when even the
/// plain fp32 candidate is missing.
pub fn select<'a, V>(
    device: &DeviceCaps,
    wanted: Options,
    lookup: impl Fn(Target) -> Option<&'a V>,
) -> Option<Choice<'a, V>> {
    let target = Target::for_device(wanted, device);
    select_target(target.options, target.bits, lookup)
}

/// [`select`] given the effective options and device bits directly.
pub fn select_target<'a, V>(
    effective: Options,
    bits: DeviceBits,
    lookup: impl Fn(Target) -> Option<&'a V>,
) -> Option<Choice<'a, V>> {
    fallback_chain(effective).into_iter().find_map(|options| {
        lookup(Target { options, bits }).map(|variant| Choice {
            variant,
            effective,
            chosen: options,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_example_order() {
        let chain: Vec<String> = fallback_chain("fp16s+fp16a".parse().unwrap())
            .iter()
            .map(|o| o.to_string())
            .collect();
        assert_eq!(chain, ["fp16s+fp16a", "fp16s", "fp16p", "fp32"]);
    }

    #[test]
    fn every_chain_ends_in_fp32_and_only_demotes() {
        for o in Options::every() {
            let chain = fallback_chain(o);
            assert_eq!(chain[0], o);
            assert_eq!(*chain.last().unwrap(), Options::FP32, "{o}");
            for w in chain.windows(2) {
                let (a, b) = (w[0], w[1]);
                // Only packed forms may appear, and only in place of their native form.
                for f in b.flags() {
                    let native = match f {
                        Flag::Bf16Packed => Some(Flag::Bf16Storage),
                        Flag::Fp16Packed => Some(Flag::Fp16Storage),
                        Flag::Int8Packed => Some(Flag::Int8Storage),
                        Flag::Int16Packed => Some(Flag::Int16Storage),
                        _ => None,
                    };
                    assert!(a.has(f) || native.is_some_and(|n| a.has(n)), "{a} -> {b}");
                }
            }
        }
    }
}
