//! The permutation space of one shader: every effective target a device can
//! end with after narrowing, reduced to the targets that can give the shader a
//! different text.
//!
//! The extension's names fall into groups whose meaning depends on one group
//! of options (the float names on the fp16/bf16 flags, the int8 names on the
//! int8 flags, ...). A shader that uses no name of a group cannot change with
//! that group's flags, so those flags are cleared: a shader with no fp16 names
//! does not pay for fp16 modes. Inside a group, flags shadowed by precedence
//! (fp16p under fp16s, everything under bf16) and device bits that no name of a
//! used group reads are cleared too. The result, [`canonical`], is what a
//! variant is keyed by; the runtime applies the same function to a device's
//! target before looking a variant up.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::device::{narrow_to, DeviceBits, DeviceCaps, DeviceType};
use crate::options::{Flag, Options};
use crate::target::Target;

/// What of the extension a shader uses: which groups of type and function
/// names it expands, and which option flags its tested option macros read.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Usage {
    /// Uses `sfp*`, `afp*`, `lfp*` or `buffer_*`.
    pub float: bool,
    /// Uses `sint8*`, `aint8*` or `i8buffer_*`.
    pub int8: bool,
    /// Uses `sint16*`, `aint16*`, `lint16*`, `i16buffer_*` or `lint162aint16*`.
    pub int16: bool,
    /// The flags read by the option macros (`NCNN_fp16_storage`, ...) it tests.
    pub macros: Options,
}

/// A group of the extension's type and function names.
#[derive(Clone, Copy)]
enum Group {
    Float,
    Int8,
    Int16,
}

/// Name prefixes of the extension's types and functions, by group. Names of
/// no group (`psc`, `packInt4x8`, `float2int8`, ...) mean the same in every mode.
const NAME_GROUPS: &[(&str, Group)] = &[
    ("sfp", Group::Float),
    ("afp", Group::Float),
    ("lfp", Group::Float),
    ("buffer_", Group::Float),
    ("sint8", Group::Int8),
    ("aint8", Group::Int8),
    ("i8buffer_", Group::Int8),
    ("sint16", Group::Int16),
    ("aint16", Group::Int16),
    ("lint16", Group::Int16),
    ("i16buffer_", Group::Int16),
];

use Flag::*;

/// Each option macro and the flags its definition reads (section 2).
const OPTION_MACROS: &[(&str, &[Flag])] = &[
    ("NCNN_bf16_storage", &[Bf16Storage]),
    ("NCNN_bf16_packed", &[Bf16Packed, Bf16Storage]),
    ("NCNN_fp16_storage", &[Fp16Storage, Bf16Packed, Bf16Storage]),
    (
        "NCNN_fp16_packed",
        &[Fp16Packed, Fp16Storage, Bf16Packed, Bf16Storage],
    ),
    ("NCNN_fp16_arithmetic", &[Fp16Arithmetic]),
    ("NCNN_fp16_uniform", &[Fp16Uniform]),
    ("NCNN_int8_storage", &[Int8Storage]),
    ("NCNN_int8_packed", &[Int8Packed, Int8Storage]),
    ("NCNN_int8_arithmetic", &[Int8Arithmetic]),
    ("NCNN_int8_uniform", &[Int8Uniform]),
    ("NCNN_int16_storage", &[Int16Storage]),
    ("NCNN_int16_packed", &[Int16Packed, Int16Storage]),
    ("NCNN_shader_local_memory", &[ShaderLocalMemory]),
];

const FLOAT_FLAGS: &[Flag] = &[
    Fp16Packed,
    Fp16Storage,
    Fp16Arithmetic,
    Fp16Uniform,
    Bf16Packed,
    Bf16Storage,
];
const INT8_FLAGS: &[Flag] = &[Int8Packed, Int8Storage, Int8Arithmetic, Int8Uniform];
const INT16_FLAGS: &[Flag] = &[Int16Packed, Int16Storage];

impl Usage {
    /// A shader that uses everything.
    pub const ALL: Usage = Usage {
        float: true,
        int8: true,
        int16: true,
        macros: Options::ALL,
    };

    /// The usage of a shader that expanded or tested the macro names `names`.
    pub fn of_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Usage {
        let mut u = Usage::default();
        for name in names {
            for (prefix, group) in NAME_GROUPS {
                if name.starts_with(prefix) {
                    match group {
                        Group::Float => u.float = true,
                        Group::Int8 => u.int8 = true,
                        Group::Int16 => u.int16 = true,
                    }
                }
            }
            for (m, flags) in OPTION_MACROS {
                if name == *m {
                    u.macros = flags.iter().fold(u.macros, |o, &f| o.with(f));
                }
            }
        }
        u
    }

    /// Every flag that can change the shader's text.
    pub fn flags(self) -> Options {
        let groups: [(bool, &[Flag]); 3] = [
            (self.float, FLOAT_FLAGS),
            (self.int8, INT8_FLAGS),
            (self.int16, INT16_FLAGS),
        ];
        groups
            .into_iter()
            .filter(|(used, _)| *used)
            .flat_map(|(_, flags)| flags.iter().copied())
            .fold(self.macros, |o, f| o.with(f))
    }
}

/// `target` reduced to what can change a shader with `usage`.
pub fn canonical(target: Target, usage: Usage) -> Target {
    let mut o = target.options.intersect(usage.flags());
    // Storage precedence (section 2): bf16s over bf16p over fp16s over
    // fp16p; a shadowed flag changes neither a type nor an option macro.
    let shadows: [(Flag, &[Flag]); 5] = [
        (Bf16Storage, &[Bf16Packed, Fp16Storage, Fp16Packed]),
        (Bf16Packed, &[Fp16Storage, Fp16Packed]),
        (Fp16Storage, &[Fp16Packed]),
        (Int8Storage, &[Int8Packed]),
        (Int16Storage, &[Int16Packed]),
    ];
    for (winner, losers) in shadows {
        if o.has(winner) {
            o = losers.iter().fold(o, |o, &l| o.without(l));
        }
    }
    // Flags that change no type or function, only their own option macro:
    // fp16a under bf16 (afp stays fp32), fp16u outside fp16s+fp16a, int8a and
    // int8u (the int8 types do not depend on them).
    let bf16 = o.has(Bf16Packed) || o.has(Bf16Storage);
    let fp16sa = o.has(Fp16Storage) && o.has(Fp16Arithmetic) && !bf16;
    let macro_only = [
        (Fp16Arithmetic, bf16),
        (Fp16Uniform, !fp16sa),
        (Int8Arithmetic, true),
        (Int8Uniform, true),
    ];
    for (flag, names_ignore_it) in macro_only {
        if names_ignore_it && !usage.macros.has(flag) {
            o = o.without(flag);
        }
    }
    // Which names read which device bits (sections 3 and 5, and ext):
    // bf16p storage is `uint16_t` only with shaderInt16 and S16, and the
    // local type then with U16 too; the fp16s+fp16a local vec4 (without
    // fp16u) is `f16vec4` with shaderInt64 and shaderInt16; shaderInt16
    // makes the int16 arithmetic types 16-bit.
    let b = target.bits;
    let bf16p16 = usage.float && o.has(Bf16Packed) && b.int16 && b.storage16;
    let lfp64 = usage.float && fp16sa && !o.has(Fp16Uniform) && b.int64 && b.int16;
    let int16_names = usage.int16 && (o.has(Int16Packed) || o.has(Int16Storage));
    let bits = DeviceBits {
        storage16: b.storage16 && bf16p16,
        uniform16: b.uniform16 && bf16p16,
        int16: b.int16 && (int16_names || lfp64 || bf16p16),
        int64: lfp64,
    };
    Target { options: o, bits }
}

/// The device features that decide narrowing and expansion, in the order of
/// [`feature_combinations`]'s bits.
const DEVICE_FEATURES: [&str; 9] = [
    "storageBuffer16BitAccess",
    "uniformAndStorageBuffer16BitAccess",
    "shaderFloat16",
    "storageBuffer8BitAccess",
    "uniformAndStorageBuffer8BitAccess",
    "shaderInt8",
    "shaderBFloat16Type",
    "shaderInt16",
    "shaderInt64",
];

/// Every distinct device, as far as narrowing and expansion can tell: each
/// combination of the features above, on a discrete GPU and on another kind.
pub fn feature_combinations() -> impl Iterator<Item = DeviceCaps> {
    (0u32..1 << (DEVICE_FEATURES.len() + 1)).map(|bits| DeviceCaps {
        device_type: if bits & 1 != 0 {
            DeviceType::DiscreteGpu
        } else {
            DeviceType::IntegratedGpu
        },
        features: DEVICE_FEATURES
            .iter()
            .enumerate()
            .map(|(i, f)| (f.to_string(), bits & (2 << i) != 0))
            .collect(),
        ..DeviceCaps::default()
    })
}

/// Every canonical target a device can end with for a shader with `usage`, for any wanted options: the permutation space, sorted.
pub fn space(usage: Usage) -> Vec<Target> {
    let relevant = usage.flags();
    let mut pairs = BTreeSet::new();
    for dev in feature_combinations() {
        pairs.insert((
            dev.supported_options().intersect(relevant),
            dev.expansion_bits(),
        ));
    }
    let mut out = BTreeSet::new();
    for (supported, bits) in pairs {
        // Every effective set is the narrowing of some wanted set; the
        // narrowings of the subsets of `supported` are all of them.
        let s = supported.bits();
        let mut sub = s;
        loop {
            let wanted = Options::from_bits_truncate(sub);
            let options = narrow_to(wanted, supported);
            out.insert(canonical(Target { options, bits }, usage));
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & s;
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes(usage: Usage) -> Vec<String> {
        space(usage).iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn usage_comes_from_names() {
        let u = Usage::of_names(["sfpvec4", "buffer_ld4", "psc", "main"]);
        assert_eq!(
            u,
            Usage {
                float: true,
                ..Usage::default()
            }
        );
        let u = Usage::of_names([
            "i8buffer_sm4",
            "NCNN_int16_storage",
            "NCNN_shader_local_memory",
        ]);
        assert!(u.int8 && !u.int16 && !u.float);
        assert_eq!(u.macros.to_string(), "int16s+local");
    }

    #[test]
    fn a_shader_without_extension_names_has_one_variant() {
        assert_eq!(space(Usage::default()), [Target::default()]);
    }

    #[test]
    fn float_names_give_the_spec_columns() {
        let m = modes(Usage {
            float: true,
            ..Usage::default()
        });
        assert_eq!(
            m,
            [
                "fp32",
                "fp16p",
                "fp16s",
                "fp16p+fp16a",
                "fp16s+fp16a",
                "fp16s+fp16a [I16 I64]",
                "fp16s+fp16a+fp16u",
                "bf16p",
                "bf16p [S16 I16]",
                "bf16p [S16 U16 I16]",
                "bf16s"
            ]
        );
    }

    #[test]
    fn int8_names_need_only_storage_forms_unless_macros_are_tested() {
        assert_eq!(
            modes(Usage {
                int8: true,
                ..Usage::default()
            }),
            ["fp32", "int8p", "int8s"]
        );
        let u = Usage::of_names(["i8buffer_ld4", "NCNN_int8_arithmetic"]);
        assert_eq!(
            modes(u),
            ["fp32", "int8p", "int8s", "int8p+int8a", "int8s+int8a"]
        );
    }

    #[test]
    fn testing_one_macro_splits_on_its_flags_only() {
        assert_eq!(
            modes(Usage::of_names(["NCNN_fp16_storage"])),
            ["fp32", "fp16s", "bf16p", "bf16s"]
        );
    }

    #[test]
    fn canonical_is_idempotent_over_the_whole_space() {
        for t in space(Usage::ALL) {
            assert_eq!(canonical(t, Usage::ALL), t);
        }
    }

    /// The reduction keeps exactly the device bits that change a column:
    /// every target of every device keeps its columns, and clearing any bit
    /// the reduction kept changes one.
    #[test]
    fn canonical_keeps_the_columns_and_only_the_bits_they_read() {
        use crate::ext::Column;
        let usage = Usage {
            float: true,
            int8: true,
            int16: true,
            macros: Options::FP32,
        };
        let mut seen = BTreeSet::new();
        for dev in feature_combinations() {
            let supported = dev.supported_options();
            let s = supported.bits();
            let mut sub = s;
            loop {
                let t = Target {
                    options: narrow_to(Options::from_bits_truncate(sub), supported),
                    bits: dev.expansion_bits(),
                };
                if seen.insert(t) {
                    let c = canonical(t, usage);
                    assert_eq!(Column::of(&t), Column::of(&c), "{t} -> {c}");
                    let b = c.bits;
                    for (on, clear) in [
                        (
                            b.storage16,
                            DeviceBits {
                                storage16: false,
                                ..b
                            },
                        ),
                        (
                            b.uniform16,
                            DeviceBits {
                                uniform16: false,
                                ..b
                            },
                        ),
                        (b.int16, DeviceBits { int16: false, ..b }),
                        (b.int64, DeviceBits { int64: false, ..b }),
                    ] {
                        if on {
                            let fewer = Target { bits: clear, ..c };
                            assert_ne!(
                                Column::of(&fewer),
                                Column::of(&c),
                                "{c}: a bit no column reads"
                            );
                        }
                    }
                }
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & s;
            }
        }
    }
}
