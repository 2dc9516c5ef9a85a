//! ncnn's option flags (`Option::use_*`), mode strings, and the narrowing of
//! wanted options by a device (docs/extension.md section 2).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of ncnn's `Option::use_*` switches that changes how the extension expands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flag {
    /// `fp16p`: fp16 data two halves to a 32-bit word, for any device.
    Fp16Packed,
    /// `fp16s`: fp16 buffer elements (`storageBuffer16BitAccess`).
    Fp16Storage,
    /// `fp16a`: fp16 arithmetic (`shaderFloat16`).
    Fp16Arithmetic,
    /// `fp16u`: fp16 in uniform blocks and shared memory too
    /// (`uniformAndStorageBuffer16BitAccess`).
    Fp16Uniform,
    /// `bf16p`: bf16 data as bits in integers, fp32 arithmetic, for any device.
    Bf16Packed,
    /// `bf16s`: the bf16 type itself (`shaderBFloat16Type`).
    Bf16Storage,
    /// `int8p`: int8 data four lanes to a 32-bit word, for any device.
    Int8Packed,
    /// `int8s`: int8 buffer elements (`storageBuffer8BitAccess`).
    Int8Storage,
    /// `int8a`: int8 arithmetic (`shaderInt8`).
    Int8Arithmetic,
    /// `int8u`: int8 in uniform blocks too (`uniformAndStorageBuffer8BitAccess`).
    Int8Uniform,
    /// `int16p`: int16 data two lanes to a 32-bit word, for any device.
    Int16Packed,
    /// `int16s`: int16 buffer elements (16-bit storage and `shaderInt16`).
    Int16Storage,
    /// `local`: shaders may stage data in shared memory (discrete GPUs only).
    ShaderLocalMemory,
}

impl Flag {
    /// Every flag, in the order mode strings print them.
    pub const ALL: [Flag; 13] = [
        Flag::Fp16Packed,
        Flag::Fp16Storage,
        Flag::Fp16Arithmetic,
        Flag::Fp16Uniform,
        Flag::Bf16Packed,
        Flag::Bf16Storage,
        Flag::Int8Packed,
        Flag::Int8Storage,
        Flag::Int8Arithmetic,
        Flag::Int8Uniform,
        Flag::Int16Packed,
        Flag::Int16Storage,
        Flag::ShaderLocalMemory,
    ];

    /// The short name used in mode strings (`fp16s`, `int8a`, `local`, ...).
    pub const fn short_name(self) -> &'static str {
        match self {
            Flag::Fp16Packed => "fp16p",
            Flag::Fp16Storage => "fp16s",
            Flag::Fp16Arithmetic => "fp16a",
            Flag::Fp16Uniform => "fp16u",
            Flag::Bf16Packed => "bf16p",
            Flag::Bf16Storage => "bf16s",
            Flag::Int8Packed => "int8p",
            Flag::Int8Storage => "int8s",
            Flag::Int8Arithmetic => "int8a",
            Flag::Int8Uniform => "int8u",
            Flag::Int16Packed => "int16p",
            Flag::Int16Storage => "int16s",
            Flag::ShaderLocalMemory => "local",
        }
    }

    /// ncnn's name for the switch (`use_fp16_storage`, ...).
    pub const fn ncnn_name(self) -> &'static str {
        match self {
            Flag::Fp16Packed => "use_fp16_packed",
            Flag::Fp16Storage => "use_fp16_storage",
            Flag::Fp16Arithmetic => "use_fp16_arithmetic",
            Flag::Fp16Uniform => "use_fp16_uniform",
            Flag::Bf16Packed => "use_bf16_packed",
            Flag::Bf16Storage => "use_bf16_storage",
            Flag::Int8Packed => "use_int8_packed",
            Flag::Int8Storage => "use_int8_storage",
            Flag::Int8Arithmetic => "use_int8_arithmetic",
            Flag::Int8Uniform => "use_int8_uniform",
            Flag::Int16Packed => "use_int16_packed",
            Flag::Int16Storage => "use_int16_storage",
            Flag::ShaderLocalMemory => "use_shader_local_memory",
        }
    }

    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of option flags. `Options::FP32` (the empty set) is plain fp32.
///
/// Prints and parses as a mode string: short names joined with `+` in the
/// order of [`Flag::ALL`], `fp32` for the empty set. Serializes as that string.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Options(u16);

impl Options {
    /// No flag: fp32 storage and arithmetic.
    pub const FP32: Options = Options(0);
    /// What ncnn wants by default: everything except bf16.
    pub const NCNN_DEFAULT: Options = Options(
        Flag::Fp16Packed.bit()
            | Flag::Fp16Storage.bit()
            | Flag::Fp16Arithmetic.bit()
            | Flag::Fp16Uniform.bit()
            | Flag::Int8Packed.bit()
            | Flag::Int8Storage.bit()
            | Flag::Int8Arithmetic.bit()
            | Flag::Int8Uniform.bit()
            | Flag::Int16Packed.bit()
            | Flag::Int16Storage.bit()
            | Flag::ShaderLocalMemory.bit(),
    );
    /// Every flag.
    pub const ALL: Options = Options((1 << Flag::ALL.len()) - 1);

    /// The set holding exactly `flags`.
    pub fn from_flags(flags: &[Flag]) -> Options {
        flags.iter().fold(Options::FP32, |o, &f| o.with(f))
    }

    /// Whether `flag` is set.
    pub const fn has(self, flag: Flag) -> bool {
        self.0 & flag.bit() != 0
    }

    /// This set with `flag` added.
    #[must_use]
    pub const fn with(self, flag: Flag) -> Options {
        Options(self.0 | flag.bit())
    }

    /// This set with `flag` removed.
    #[must_use]
    pub const fn without(self, flag: Flag) -> Options {
        Options(self.0 & !flag.bit())
    }

    /// The flags in both sets.
    #[must_use]
    pub const fn intersect(self, other: Options) -> Options {
        Options(self.0 & other.0)
    }

    /// Whether every flag of `self` is in `other`.
    pub const fn is_subset_of(self, other: Options) -> bool {
        self.0 & !other.0 == 0
    }

    /// The flags that are set, in [`Flag::ALL`] order.
    pub fn flags(self) -> impl Iterator<Item = Flag> {
        Flag::ALL.into_iter().filter(move |f| self.has(*f))
    }

    /// The raw bits (flag `i` of [`Flag::ALL`] is bit `i`).
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// The set with raw `bits`, ignoring bits past the last flag.
    pub const fn from_bits_truncate(bits: u16) -> Options {
        Options(bits & Options::ALL.0)
    }

    /// Every one of the 2^13 sets, for exhaustive tests.
    pub fn every() -> impl Iterator<Item = Options> {
        (0..=Options::ALL.0).map(Options)
    }
}

impl fmt::Display for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("fp32");
        }
        for (i, flag) in self.flags().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(flag.short_name())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Options({self})")
    }
}

/// A mode string that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeError {
    /// The whole string given.
    pub mode: String,
    /// The part that is not a known short name.
    pub bad_part: String,
}

impl fmt::Display for ModeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Flag::ALL.iter().map(|f| f.short_name()).collect();
        write!(
            f,
            "invalid mode `{}`: `{}` is not an option (expected `fp32` or short names joined with `+`: {})",
            self.mode,
            self.bad_part,
            known.join(", ")
        )
    }
}

impl std::error::Error for ModeError {}

impl FromStr for Options {
    type Err = ModeError;

    fn from_str(s: &str) -> Result<Options, ModeError> {
        let s_trim = s.trim();
        if s_trim == "fp32" {
            return Ok(Options::FP32);
        }
        let mut out = Options::FP32;
        for part in s_trim.split('+') {
            let part = part.trim();
            let flag = Flag::ALL
                .into_iter()
                .find(|f| f.short_name() == part)
                .ok_or_else(|| ModeError {
                    mode: s.to_string(),
                    bad_part: part.to_string(),
                })?;
            out = out.with(flag);
        }
        Ok(out)
    }
}

impl Serialize for Options {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Options {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Options, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_strings_round_trip_for_every_set() {
        for o in Options::every() {
            let s = o.to_string();
            assert_eq!(s.parse::<Options>().unwrap(), o, "{s}");
        }
    }

    #[test]
    fn spec_spellings_parse() {
        assert_eq!("fp32".parse::<Options>().unwrap(), Options::FP32);
        let o: Options = "fp16s+fp16a".parse().unwrap();
        assert!(o.has(Flag::Fp16Storage) && o.has(Flag::Fp16Arithmetic));
        assert_eq!(o.flags().count(), 2);
        assert_eq!(
            "fp16a+fp16s".parse::<Options>().unwrap().to_string(),
            "fp16s+fp16a"
        );
        assert_eq!(
            "int8s+int8a".parse::<Options>().unwrap().to_string(),
            "int8s+int8a"
        );
    }

    #[test]
    fn bad_mode_names_the_part() {
        let e = "fp16s+fp61a".parse::<Options>().unwrap_err();
        assert_eq!(e.bad_part, "fp61a");
        assert!(e.to_string().contains("`fp61a` is not an option"));
        assert!("".parse::<Options>().is_err());
        assert!("fp16s+".parse::<Options>().is_err());
    }

    #[test]
    fn serde_uses_the_mode_string() {
        let o: Options = "bf16p+int8p".parse().unwrap();
        let j = serde_json::to_string(&o).unwrap();
        assert_eq!(j, "\"bf16p+int8p\"");
        assert_eq!(serde_json::from_str::<Options>(&j).unwrap(), o);
        assert!(serde_json::from_str::<Options>("\"nope\"").is_err());
    }
}
