//! Choosing the variant to run: the device's effective target, or, when the
//! set does not hold it, the best target that the device can run and the set
//! holds.
//!
//! Giving up a feature is ranked by how much it costs, least first:
//!
//! | rank | step |
//! |---|---|
//! | 0 | a device bit the variant then does not use (S16, U16, shaderInt16, shaderInt64): same storage format |
//! | 1-5 | `fp16u`, `fp16a`, `int8u`, `int8a`, `local` |
//! | 6-9 | native storage for its packed form: `bf16s`->`bf16p`, `fp16s`->`fp16p`, `int8s`->`int8p`, `int16s`->`int16p` (same bytes per element) |
//! | 10-13 | packed storage: `bf16p`, `fp16p`, `int8p`, `int16p` (down to fp32 / int32) |
//!
//! A candidate is any combination of these steps; candidates are tried in
//! the order of the most costly step they take, then the next most costly,
//! and so on, so `fp16s+fp16a` falls back to `fp16s`, then `fp16p+fp16a`,
//! then `fp16p`, then `fp32`. No candidate the set holds and the device runs
//! is skipped for a worse one (a test checks it over every device and wanted
//! set). The chosen variant's own options decide how the host lays out
//! buffers, which is why the choice reports them.

use crate::device::{DeviceBits, DeviceCaps};
use crate::options::{Flag, Options};
use crate::target::Target;

use super::space::{canonical, Usage};

/// Flags given up outright, with their rank.
const DROP: [(Flag, u32); 9] = [
    (Flag::Fp16Uniform, 1),
    (Flag::Fp16Arithmetic, 2),
    (Flag::Int8Uniform, 3),
    (Flag::Int8Arithmetic, 4),
    (Flag::ShaderLocalMemory, 5),
    (Flag::Bf16Packed, 10),
    (Flag::Fp16Packed, 11),
    (Flag::Int8Packed, 12),
    (Flag::Int16Packed, 13),
];

/// Native storage flags, their packed form, and the rank of trading one for the other.
const DEMOTE: [(Flag, Flag, u32); 4] = [
    (Flag::Bf16Storage, Flag::Bf16Packed, 6),
    (Flag::Fp16Storage, Flag::Fp16Packed, 7),
    (Flag::Int8Storage, Flag::Int8Packed, 8),
    (Flag::Int16Storage, Flag::Int16Packed, 9),
];

/// Every target `effective` can fall back to, best first, `effective` itself first.
pub fn fallback_order(effective: Target) -> Vec<Target> {
    // Each entry: (cost mask, options, bits). Bit `r` of the cost is set when
    // a step of rank `r` is taken; comparing masks as integers compares the
    // most costly steps first.
    let mut candidates: Vec<(u32, Options, DeviceBits)> = vec![(0, Options::FP32, effective.bits)];
    for flag in effective.options.flags() {
        let mut next = Vec::with_capacity(candidates.len() * 3);
        for &(cost, o, b) in &candidates {
            next.push((cost, o.with(flag), b));
            if let Some(&(_, packed, rank)) = DEMOTE.iter().find(|(n, _, _)| *n == flag) {
                let drop_rank = DROP.iter().find(|(f, _)| *f == packed).map_or(0, |d| d.1);
                next.push((cost | 1 << rank, o.with(packed), b));
                next.push((cost | 1 << rank | 1 << drop_rank, o, b));
            } else if let Some(&(_, rank)) = DROP.iter().find(|(f, _)| *f == flag) {
                next.push((cost | 1 << rank, o, b));
            }
        }
        candidates = next;
    }
    let bits = effective.bits;
    let bit_subsets = (0u8..16).filter_map(|m| {
        let sub = DeviceBits {
            storage16: bits.storage16 && m & 1 != 0,
            uniform16: bits.uniform16 && m & 2 != 0,
            int16: bits.int16 && m & 4 != 0,
            int64: bits.int64 && m & 8 != 0,
        };
        (m == 0 || sub != DeviceBits::default() || bits == DeviceBits::default()).then_some(sub)
    });
    let mut all: Vec<(u32, u8, Options, DeviceBits)> = Vec::new();
    for sub in bit_subsets.collect::<std::collections::BTreeSet<_>>() {
        let dropped = (bits.storage16 && !sub.storage16) as u8
            + (bits.uniform16 && !sub.uniform16) as u8
            + (bits.int16 && !sub.int16) as u8
            + (bits.int64 && !sub.int64) as u8;
        for &(cost, o, _) in &candidates {
            all.push((cost | (dropped > 0) as u32, dropped, o, sub));
        }
    }
    all.sort_by_key(|&(cost, dropped, o, _)| {
        (cost, dropped, std::cmp::Reverse(o.bits().count_ones()))
    });
    let mut seen = std::collections::BTreeSet::new();
    all.into_iter()
        .map(|(_, _, options, bits)| Target { options, bits })
        .filter(|t| seen.insert(*t))
        .collect()
}

/// The chosen variant and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice<'a, V> {
    /// The variant to run.
    pub variant: &'a V,
    /// The device's effective target (what it would run ideally).
    pub effective: Target,
    /// The target of the chosen variant; differs from `effective` after a fallback.
    pub chosen: Target,
}

/// Chooses, for the device's effective target `effective` (already reduced to
/// what the shader can tell apart), the first candidate of [`fallback_order`]
/// that `lookup` finds. `None` when not even plain fp32 is there.
pub fn select_target<'a, V>(
    effective: Target,
    lookup: impl Fn(Target) -> Option<&'a V>,
) -> Option<Choice<'a, V>> {
    if let Some(variant) = lookup(effective) {
        return Some(Choice {
            variant,
            effective,
            chosen: effective,
        });
    }
    fallback_order(effective).into_iter().skip(1).find_map(|t| {
        lookup(t).map(|variant| Choice {
            variant,
            effective,
            chosen: t,
        })
    })
}

/// The variant `device` runs for `wanted` options in a set whose shader has
/// `usage`: the device's target is narrowed, reduced to what the shader can
/// tell apart, then looked up along [`fallback_order`]. `lookup` finds the
/// set's variant for a canonical target (with the caller's axis values).
pub fn choose<'a, V>(
    usage: Usage,
    device: &DeviceCaps,
    wanted: Options,
    lookup: impl Fn(Target) -> Option<&'a V>,
) -> Option<Choice<'a, V>> {
    select_target(canonical(Target::for_device(wanted, device), usage), lookup)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(mode: &str) -> Vec<String> {
        let t = Target {
            options: mode.parse().unwrap(),
            bits: DeviceBits::default(),
        };
        // Candidates narrowing cannot produce (fp16a alone) are never in a set.
        fallback_order(t)
            .iter()
            .filter(|t| crate::device::narrow_to(t.options, Options::ALL) == t.options)
            .map(|t| t.options.to_string())
            .collect()
    }

    #[test]
    fn fp16_storage_and_arithmetic_falls_back_step_by_step() {
        let o = order("fp16s+fp16a");
        assert_eq!(
            o[..5],
            ["fp16s+fp16a", "fp16s", "fp16p+fp16a", "fp16p", "fp32"]
        );
    }

    #[test]
    fn every_order_starts_with_the_target_and_holds_fp32() {
        for o in Options::every().step_by(7) {
            let t = Target::for_mode(o);
            let order = fallback_order(t);
            assert_eq!(order[0], t);
            assert!(order.iter().any(|c| c.options == Options::FP32), "{o}");
            let set: std::collections::BTreeSet<_> = order.iter().collect();
            assert_eq!(set.len(), order.len(), "no duplicates for {o}");
            assert!(order.iter().all(|c| c.options.is_subset_of(Options::ALL)));
        }
    }

    #[test]
    fn dropping_a_device_bit_comes_before_dropping_a_flag() {
        let t = Target {
            options: "bf16p".parse().unwrap(),
            bits: DeviceBits {
                storage16: true,
                uniform16: false,
                int16: true,
                int64: false,
            },
        };
        let order = fallback_order(t);
        assert_eq!(order[0], t);
        assert_eq!(order.last().unwrap().options, Options::FP32);
        let first_fp32 = order
            .iter()
            .position(|c| c.options == Options::FP32)
            .unwrap();
        assert!(order[..first_fp32]
            .iter()
            .any(|c| c.bits == DeviceBits::default()));
    }
}
