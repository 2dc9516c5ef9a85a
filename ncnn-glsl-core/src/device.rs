//! A description of a Vulkan device: what the extension and the variant
//! choice need to know about it (docs/extension.md sections 2 and 7).
//!
//! It is plain data with a JSON form, so a real device's description can be
//! saved by the runtime's probe and reused in tests and builds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::options::{Flag, Options};

/// `VkPhysicalDeviceType`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceType {
    /// None of the others; also what a description without a type means.
    #[default]
    Other,
    /// A GPU that shares memory with the host.
    IntegratedGpu,
    /// A GPU with its own memory: the only kind ncnn lets use shader local memory.
    DiscreteGpu,
    /// A GPU seen through a virtual machine.
    VirtualGpu,
    /// A software implementation on the CPU (lavapipe, SwiftShader).
    Cpu,
}

impl DeviceType {
    /// The `VkPhysicalDeviceType` value.
    pub const fn vk_value(self) -> u32 {
        match self {
            DeviceType::Other => 0,
            DeviceType::IntegratedGpu => 1,
            DeviceType::DiscreteGpu => 2,
            DeviceType::VirtualGpu => 3,
            DeviceType::Cpu => 4,
        }
    }
}

/// What is known of one Vulkan device.
///
/// Features and properties are keyed by their Vulkan field names
/// (`storageBuffer16BitAccess`, `subgroupSize`, `maxComputeWorkGroupCount_0`),
/// so the JSON reads like the Vulkan spec and device macros are a lookup.
/// A feature that is absent is false; a property that is absent is unknown.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceCaps {
    /// `deviceName`.
    pub name: String,
    /// `apiVersion`, as Vulkan packs it.
    pub api_version: u32,
    /// `driverVersion`, as the vendor packs it.
    pub driver_version: u32,
    /// `vendorID` (4318 is NVIDIA).
    pub vendor_id: u32,
    /// `deviceID`.
    pub device_id: u32,
    /// `deviceType`.
    pub device_type: DeviceType,
    /// Device extensions and their spec versions.
    #[serde(default)]
    pub extensions: BTreeMap<String, u32>,
    /// Core and extension feature bits that are known, by field name.
    #[serde(default)]
    pub features: BTreeMap<String, bool>,
    /// Limits and properties, by field name (array fields as `name_0`, `name_1`, ...).
    #[serde(default)]
    pub properties: BTreeMap<String, u64>,
    /// The cooperative matrix multiply-adds the device runs
    /// (`vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR`, `...NV`);
    /// empty without the extensions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cooperative_matrix_shapes: Vec<CoopMatShape>,
}

/// One row of `VkCooperativeMatrixPropertiesKHR` (or `...NV`): a shape and
/// element types of `result = A * B + C` the device runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoopMatShape {
    /// Which extension listed it.
    pub flavor: crate::reflection::CoopMatFlavor,
    /// `MSize`: rows of A, C and the result.
    pub m: u32,
    /// `NSize`: columns of B, C and the result.
    pub n: u32,
    /// `KSize`: columns of A, rows of B.
    pub k: u32,
    /// `AType`, a `VkComponentTypeKHR` (0 is `FLOAT16`, 1 `FLOAT32`).
    pub a_type: u32,
    /// `BType`.
    pub b_type: u32,
    /// `CType`.
    pub c_type: u32,
    /// `ResultType` (`DType` for NV).
    pub result_type: u32,
    /// `saturatingAccumulation` (false for NV).
    pub saturating_accumulation: bool,
    /// `scope`, a `VkScopeKHR` (3 is subgroup).
    pub scope: u32,
}

impl DeviceCaps {
    /// Whether the feature `name` is present and true.
    pub fn feature(&self, name: &str) -> bool {
        self.features.get(name).copied().unwrap_or(false)
    }

    /// The property `name`, if known.
    pub fn property(&self, name: &str) -> Option<u64> {
        self.properties.get(name).copied()
    }

    /// Whether the device lists the extension `name`.
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions.contains_key(name)
    }

    /// The option flags this device can honour on their own (section 2,
    /// first list); [`narrow`] adds the rules between flags.
    pub fn supported_options(&self) -> Options {
        let s16 = self.feature("storageBuffer16BitAccess");
        let table: [(Flag, bool); 13] = [
            (Flag::Fp16Packed, true),
            (Flag::Bf16Packed, true),
            (Flag::Int8Packed, true),
            (Flag::Int16Packed, true),
            (Flag::Fp16Storage, s16),
            (Flag::Int16Storage, s16 && self.feature("shaderInt16")),
            (
                Flag::Fp16Uniform,
                self.feature("uniformAndStorageBuffer16BitAccess"),
            ),
            (Flag::Fp16Arithmetic, self.feature("shaderFloat16")),
            (Flag::Int8Storage, self.feature("storageBuffer8BitAccess")),
            (
                Flag::Int8Uniform,
                self.feature("uniformAndStorageBuffer8BitAccess"),
            ),
            (Flag::Int8Arithmetic, self.feature("shaderInt8")),
            (Flag::Bf16Storage, self.feature("shaderBFloat16Type")),
            (
                Flag::ShaderLocalMemory,
                self.device_type == DeviceType::DiscreteGpu,
            ),
        ];
        table
            .into_iter()
            .filter(|(_, ok)| *ok)
            .fold(Options::FP32, |o, (f, _)| o.with(f))
    }

    /// The device bits that change how the extension expands.
    pub fn expansion_bits(&self) -> DeviceBits {
        DeviceBits {
            storage16: self.feature("storageBuffer16BitAccess"),
            uniform16: self.feature("uniformAndStorageBuffer16BitAccess"),
            int16: self.feature("shaderInt16"),
            int64: self.feature("shaderInt64"),
        }
    }

    /// Parses a description from JSON, naming the field that is wrong. Every
    /// extension, feature and property name must be an identifier: the
    /// names become macros (`ncnn_NAME`), and a name with spaces, quotes or
    /// a newline would put text of the file's choosing into the shader.
    pub fn from_json(text: &str) -> Result<DeviceCaps, serde_json::Error> {
        let caps: DeviceCaps = serde_json::from_str(text)?;
        caps.check_names()
            .map_err(<serde_json::Error as serde::de::Error>::custom)?;
        Ok(caps)
    }

    /// `Ok` where every extension, feature and property name is an
    /// identifier (a letter or `_`, then letters, digits or `_`), else the
    /// first that is not.
    pub fn check_names(&self) -> Result<(), String> {
        let names = [
            ("extension", self.extensions.keys().collect::<Vec<_>>()),
            ("feature", self.features.keys().collect()),
            ("property", self.properties.keys().collect()),
        ];
        for (what, list) in names {
            if let Some(bad) = list.into_iter().find(|n| !is_identifier(n)) {
                return Err(format!(
                    "{what} name {bad:?} is not an identifier (a letter or `_`, then letters, \
                     digits or `_`): device names become macros"
                ));
            }
        }
        Ok(())
    }

    /// The description as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a DeviceCaps always serializes")
    }
}

/// Whether `name` is an identifier: a letter or `_`, then letters, digits or `_`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The effective options: the wanted ones, narrowed to what `device` supports
/// (docs/extension.md section 2). Pure; ncnn does the same at pipeline creation.
pub fn narrow(wanted: Options, device: &DeviceCaps) -> Options {
    narrow_to(wanted, device.supported_options())
}

/// [`narrow`] given the set of individually supported flags.
pub fn narrow_to(wanted: Options, supported: Options) -> Options {
    let mut o = wanted.intersect(supported);
    if !o.has(Flag::Fp16Packed) && !o.has(Flag::Fp16Storage) {
        o = o.without(Flag::Fp16Arithmetic);
    }
    if !o.has(Flag::Int8Packed) && !o.has(Flag::Int8Storage) {
        o = o.without(Flag::Int8Arithmetic);
    }
    if !o.has(Flag::Fp16Arithmetic) {
        o = o.without(Flag::Fp16Uniform);
    }
    o
}

/// The device features that change the text of an expansion besides the
/// options (sections 3 and 5: `S16`, `U16`, `shaderInt16`, `shaderInt64`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct DeviceBits {
    /// `storageBuffer16BitAccess`.
    pub storage16: bool,
    /// `uniformAndStorageBuffer16BitAccess`.
    pub uniform16: bool,
    /// `shaderInt16`.
    pub int16: bool,
    /// `shaderInt64`.
    pub int64: bool,
}

impl DeviceBits {
    /// The short names of the bits that are set (`S16`, `U16`, `I16`,
    /// `I64`), as variant keys and manifests print them.
    pub fn names(self) -> Vec<&'static str> {
        [
            (self.storage16, "S16"),
            (self.uniform16, "U16"),
            (self.int16, "I16"),
            (self.int64, "I64"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| n)
        .collect()
    }

    /// The least a device must have for `options` to survive narrowing:
    /// what `expand --mode` assumes when no device is given.
    pub fn implied_by(options: Options) -> DeviceBits {
        DeviceBits {
            storage16: options.has(Flag::Fp16Storage) || options.has(Flag::Int16Storage),
            uniform16: options.has(Flag::Fp16Uniform),
            int16: options.has(Flag::Int16Storage),
            int64: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(features: &[&str], device_type: DeviceType) -> DeviceCaps {
        DeviceCaps {
            device_type,
            features: features.iter().map(|f| (f.to_string(), true)).collect(),
            ..DeviceCaps::default()
        }
    }

    #[test]
    fn bare_device_keeps_only_packed_modes() {
        let d = dev(&[], DeviceType::IntegratedGpu);
        assert_eq!(
            narrow(Options::NCNN_DEFAULT, &d).to_string(),
            "fp16p+int8p+int16p"
        );
        assert_eq!(
            narrow(Options::ALL, &d).to_string(),
            "fp16p+bf16p+int8p+int16p"
        );
    }

    #[test]
    fn arithmetic_needs_a_storage_form() {
        let d = dev(&["shaderFloat16", "shaderInt8"], DeviceType::DiscreteGpu);
        let o = narrow("fp16a+fp16u+int8a".parse().unwrap(), &d);
        assert_eq!(o, Options::FP32);
        let o = narrow("fp16p+fp16a+int8p+int8a+local".parse().unwrap(), &d);
        assert_eq!(o.to_string(), "fp16p+fp16a+int8p+int8a+local");
    }

    #[test]
    fn fp16u_follows_fp16a_and_int16s_needs_int16() {
        let d = dev(
            &[
                "storageBuffer16BitAccess",
                "uniformAndStorageBuffer16BitAccess",
            ],
            DeviceType::Cpu,
        );
        let o = narrow("fp16s+fp16u+int16s+local".parse().unwrap(), &d);
        assert_eq!(o.to_string(), "fp16s");
    }

    #[test]
    fn narrowing_never_adds_and_is_idempotent() {
        let d = dev(
            &["storageBuffer16BitAccess", "shaderFloat16"],
            DeviceType::DiscreteGpu,
        );
        for o in Options::every() {
            let n = narrow(o, &d);
            assert!(n.is_subset_of(o), "{o} -> {n}");
            assert_eq!(narrow(n, &d), n, "{o}");
        }
    }

    #[test]
    fn json_round_trip_and_unknown_fields_are_errors() {
        let mut d = dev(&["shaderInt16"], DeviceType::DiscreteGpu);
        d.extensions.insert("VK_KHR_16bit_storage".into(), 1);
        d.properties.insert("subgroupSize".into(), 32);
        let j = d.to_json();
        assert_eq!(DeviceCaps::from_json(&j).unwrap(), d);
        // A name that is not an identifier would write text into the shader.
        for bad in ["VK_X 1\n#include \"/etc/passwd\"", "1x", "", "a-b", "é"] {
            let mut e = d.clone();
            e.extensions.insert(bad.to_string(), 1);
            let err = DeviceCaps::from_json(&e.to_json()).unwrap_err().to_string();
            assert!(
                err.contains(&format!("extension name {bad:?} is not an identifier")),
                "{err}"
            );
        }
        let mut e = d.clone();
        e.properties.insert("limit x".into(), 1);
        let err = DeviceCaps::from_json(&e.to_json()).unwrap_err().to_string();
        assert!(err.contains("property name \"limit x\""), "{err}");
        let e = DeviceCaps::from_json(r#"{"name":"x","api_version":0,"driver_version":0,"vendor_id":0,"device_id":0,"device_type":"cpu","featurs":{}}"#).unwrap_err();
        assert!(e.to_string().contains("featurs"), "{e}");
    }
}
