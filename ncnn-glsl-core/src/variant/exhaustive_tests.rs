//! The exhaustive selection test: for every device the narrowing can tell
//! apart and every wanted option set, the chosen variant runs on the device,
//! is the exact effective target when the set holds it, and no variant of the
//! set is strictly better.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use super::select::select_target;
use super::space::{canonical, feature_combinations, space, Usage};
use crate::device::DeviceCaps;
use crate::options::{Flag, Options};
use crate::target::Target;

/// Packed forms every device supports, by their native form.
const PACKED_FOR: [(Flag, Flag); 4] = [
    (Flag::Bf16Storage, Flag::Bf16Packed),
    (Flag::Fp16Storage, Flag::Fp16Packed),
    (Flag::Int8Storage, Flag::Int8Packed),
    (Flag::Int16Storage, Flag::Int16Packed),
];

/// Every device the narrowing can tell apart, one of each; built once, for
/// every check walks them all.
fn devices() -> &'static [DeviceCaps] {
    static DEVICES: OnceLock<Vec<DeviceCaps>> = OnceLock::new();
    DEVICES.get_or_init(|| {
        let mut seen = BTreeSet::new();
        feature_combinations()
            .filter(|d| seen.insert((d.supported_options(), d.expansion_bits())))
            .collect()
    })
}

/// Walks every device and every wanted option set through the real
/// narrowing and reduction, and checks the choice for each effective target
/// they reach; returns how many pairs it walked.
fn check(usage: Usage, set: &BTreeSet<Target>) -> usize {
    let relevant = usage.flags().bits();
    // What is asserted of a choice depends on the effective target alone,
    // which millions of pairs share: each is chosen and checked once (the
    // fallback order of a target is costly to walk).
    let mut done: BTreeSet<Target> = BTreeSet::new();
    let mut checked = 0;
    for device in devices() {
        let mut sub = relevant;
        loop {
            let wanted = Options::from_bits_truncate(sub);
            let t = Target::for_device(wanted, device);
            let eff = canonical(t, usage);
            if done.insert(eff) {
                check_choice(set, eff, t, wanted);
            }
            checked += 1;
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & relevant;
        }
    }
    checked
}

/// The choice in `set` for the effective target `eff` (of `t`, narrowed
/// from `wanted`) runs on the device and no variant of the set is better.
fn check_choice(set: &BTreeSet<Target>, eff: Target, t: Target, wanted: Options) {
    let choice = select_target(eff, |c| set.get(&c))
        .unwrap_or_else(|| panic!("no choice for {t} in {set:?}"));
    let chosen = *choice.variant;
    // It runs on the device: every flag is effective, or the packed
    // form of an effective native flag; device bits are the device's.
    for f in chosen.options.flags() {
        let demoted = PACKED_FOR
            .iter()
            .any(|(n, p)| *p == f && eff.options.has(*n));
        assert!(
            eff.options.has(f) || demoted,
            "{chosen} on {eff} (wanted {wanted})"
        );
    }
    let b = chosen.bits;
    let d = eff.bits;
    assert!(
        (!b.storage16 || d.storage16)
            && (!b.uniform16 || d.uniform16)
            && (!b.int16 || d.int16)
            && (!b.int64 || d.int64),
        "{chosen} needs bits the device lacks ({eff})"
    );
    if set.contains(&eff) {
        assert_eq!(chosen, eff, "the exact target is in the set");
    }
    // No strictly better variant: one that keeps more of the effective
    // flags without needing anything the device lacks.
    for v in set {
        let runnable = v.options.is_subset_of(eff.options) && v.bits == chosen.bits;
        let better =
            runnable && chosen.options.is_subset_of(v.options) && v.options != chosen.options;
        assert!(!better, "{v} is better than {chosen} for {eff}");
    }
}

fn usages() -> Vec<Usage> {
    vec![
        Usage::default(),
        Usage {
            float: true,
            ..Usage::default()
        },
        Usage {
            int8: true,
            ..Usage::default()
        },
        Usage::of_names(["sfpvec4", "i8buffer_ld4", "NCNN_fp16_arithmetic"]),
        Usage {
            float: true,
            int8: true,
            int16: true,
            macros: Options::FP32,
        },
    ]
}

#[test]
fn the_full_set_always_gives_the_exact_target() {
    for usage in usages() {
        let set: BTreeSet<Target> = space(usage).into_iter().collect();
        assert!(check(usage, &set) > 0);
    }
}

#[test]
fn sets_with_excluded_modes_fall_back_to_the_best_remaining() {
    let exclusions: [&[&str]; 4] = [
        &["fp16a"],
        &["fp16s", "bf16s"],
        &["int8s", "fp16p"],
        &["bf16p", "fp16s", "fp16p", "int8p", "int8s"],
    ];
    for usage in usages() {
        for ex in exclusions {
            let ex: Vec<Options> = ex.iter().map(|m| m.parse().unwrap()).collect();
            let set: BTreeSet<Target> = space(usage)
                .into_iter()
                .filter(|t| !ex.iter().any(|e| e.is_subset_of(t.options)))
                .collect();
            check(usage, &set);
        }
    }
}

/// The sets the builder makes for a shader that uses every name of a group:
/// each column naga cannot express left out (`compile/inexpressible.rs`).
/// No better variant is skipped, and a device whose column is left out runs
/// the packed column of the same kind, which stores the same bytes: bf16s
/// and bf16p with 16-bit storage run bf16p in words, int8s runs int8p,
/// int16s and int16p with `shaderInt16` run int16p.
#[cfg(feature = "compile")]
#[test]
fn sets_without_the_columns_naga_cannot_express_fall_back_to_the_same_bytes() {
    use crate::compile::inexpressible::left_out;
    use crate::ext::{Column, FloatClass, Int16Class, Int8Class};

    let mut bf16s_seen = 0;
    for usage in usages() {
        let set: BTreeSet<Target> = space(usage)
            .into_iter()
            .filter(|t| left_out(t, |_| true).is_none())
            .collect();
        assert!(check(usage, &set) > 0);
        let mut done = BTreeSet::new();
        for device in devices() {
            let relevant = usage.flags().bits();
            let mut sub = relevant;
            loop {
                let wanted = Options::from_bits_truncate(sub);
                let eff = canonical(Target::for_device(wanted, device), usage);
                if done.insert(eff) && left_out(&eff, |_| true).is_some() {
                    let chosen = *select_target(eff, |c| set.get(&c))
                        .expect("a choice")
                        .variant;
                    let [f, i8, i16] = Column::of(&chosen);
                    for (kind, col) in Column::of(&eff).into_iter().enumerate() {
                        let expect = match col {
                            Column::Float(
                                FloatClass::Bf16Storage
                                | FloatClass::Bf16Packed16
                                | FloatClass::Bf16Packed16Local,
                            ) if usage.float => {
                                Some(f == Column::Float(FloatClass::Bf16PackedWord))
                            }
                            Column::Int8(Int8Class::Storage) if usage.int8 => {
                                Some(i8 == Column::Int8(Int8Class::Packed))
                            }
                            Column::Int16(Int16Class::StorageI16 | Int16Class::PackedI16)
                                if usage.int16 =>
                            {
                                Some(i16 == Column::Int16(Int16Class::Packed))
                            }
                            _ => None,
                        };
                        assert_ne!(
                            expect,
                            Some(false),
                            "{eff} runs {chosen}: kind {kind} does not keep its bytes"
                        );
                    }
                    if eff.options.has(Flag::Bf16Storage) && usage.float {
                        bf16s_seen += 1;
                        let o = chosen.options;
                        assert!(
                            o.has(Flag::Bf16Packed) && !o.has(Flag::Bf16Storage),
                            "{eff} runs {chosen}"
                        );
                        if !usage.int8 && !usage.int16 && usage.macros == Options::FP32 {
                            assert_eq!(chosen.to_string(), "bf16p", "{eff}");
                        }
                    }
                }
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & relevant;
            }
        }
        // A user's exclusion on top of what is left out.
        let fewer: BTreeSet<Target> = set
            .iter()
            .filter(|t| !t.options.has(Flag::Fp16Arithmetic))
            .copied()
            .collect();
        check(usage, &fewer);
    }
    assert!(bf16s_seen > 0, "some device ends with bf16s");
}
