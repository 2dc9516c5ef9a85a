//! One error type for everything the runtime can fail at. Nothing in the
//! runtime panics on a device, a blob or an argument: each failure is a
//! variant here, with the names and numbers needed to act on it.

use std::fmt;

use ash::vk;
use ncnn_glsl_core::variant::SelectError;

/// Everything that can go wrong between loading Vulkan and reading results back.
#[derive(Debug)]
pub enum Error {
    /// The Vulkan loader (`libvulkan.so.1`) could not be loaded.
    NoLoader(String),
    /// The Khronos validation layer was asked for and is not installed.
    NoValidationLayer,
    /// The loader lists no Vulkan device at all (or none with Vulkan 1.1 and a compute queue).
    NoDevice,
    /// No device matches the selector; every device seen is listed.
    NoMatchingDevice {
        /// The selector, as written.
        selector: String,
        /// `index: name (type)` of every device.
        devices: Vec<String>,
    },
    /// A shader needs a device feature that the device lacks, or that the
    /// context did not enable.
    FeatureMissing {
        /// The Vulkan feature name (`shaderFloat16`, ...).
        feature: String,
        /// The shader and the variant's target.
        shader: String,
        /// Whether the device has it but the context was opened without it
        /// (the variant set was not named in [`crate::ContextOptions::variant_sets`]).
        not_enabled: bool,
    },
    /// A shader uses subgroup operations the device does not support in
    /// compute shaders (`VkPhysicalDeviceSubgroupProperties`).
    SubgroupOperationsMissing {
        /// The shader and the variant's target.
        shader: String,
        /// The operations missing (`arithmetic`, `ballot`, ...), `, `-joined.
        missing: String,
        /// Whether the device has subgroup operations in compute shaders at all.
        in_compute: bool,
    },
    /// The variant set holds no variant for this device and these arguments.
    NoVariant {
        /// The shader's name.
        shader: &'static str,
        /// Why.
        cause: SelectError,
    },
    /// Not enough device memory for an allocation.
    OutOfDeviceMemory {
        /// Bytes asked for.
        requested: u64,
        /// What is known of the limit (the heap size, or the driver's answer).
        detail: String,
    },
    /// The device was lost (a crash or a reset of the GPU).
    DeviceLost,
    /// A blob that is not valid SPIR-V, or that the driver refused.
    BlobRejected {
        /// The shader and the variant's target.
        shader: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An argument out of range: what it is, its value, and the limit.
    BadArgument {
        /// What the argument is.
        what: String,
        /// The value given.
        value: String,
        /// The limit it breaks.
        limit: String,
    },
    /// Any other Vulkan call that failed.
    Vulkan {
        /// The Vulkan function.
        call: &'static str,
        /// Its result code.
        result: vk::Result,
    },
    /// The memory allocator failed for another reason than memory.
    Allocator(String),
}

/// The runtime's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Maps a failed Vulkan call, turning the results with their own variant
    /// (memory, device lost) into it.
    pub(crate) fn vk(call: &'static str, result: vk::Result) -> Error {
        match result {
            vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost,
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
                Error::OutOfDeviceMemory {
                    requested: 0,
                    detail: format!("{call} returned {result:?}"),
                }
            }
            _ => Error::Vulkan { call, result },
        }
    }

    /// A [`Error::BadArgument`].
    pub(crate) fn bad(
        what: impl Into<String>,
        value: impl fmt::Display,
        limit: impl Into<String>,
    ) -> Error {
        Error::BadArgument {
            what: what.into(),
            value: value.to_string(),
            limit: limit.into(),
        }
    }
}

impl fmt::Display for Error {
    /// The message, its control characters escaped: device names come from
    /// the driver, paths and shader names from the user, and none of them may
    /// move the cursor or recolour the terminal that shows the message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = Plain(self).to_string();
        f.write_str(&ncnn_glsl_core::diag::escape_controls(&text))
    }
}

/// An [`Error`] as text, before escaping.
struct Plain<'a>(&'a Error);

impl fmt::Display for Plain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Error::NoLoader(e) => write!(
                f,
                "no Vulkan loader: {e} (install libvulkan1 and a driver, e.g. mesa-vulkan-drivers)"
            ),
            Error::NoValidationLayer => write!(
                f,
                "VK_LAYER_KHRONOS_validation is not installed (install vulkan-validationlayers)"
            ),
            Error::NoDevice => write!(
                f,
                "no Vulkan device with Vulkan 1.1 and a compute queue was found"
            ),
            Error::NoMatchingDevice { selector, devices } => write!(
                f,
                "no Vulkan device matches `{selector}`; devices: [{}]",
                devices.join("; ")
            ),
            Error::SubgroupOperationsMissing {
                shader,
                missing,
                in_compute,
            } => write!(
                f,
                "{shader} needs the subgroup operations {missing}, which the device {} \
                 (VkPhysicalDeviceSubgroupProperties::supported{})",
                if *in_compute {
                    "does not support"
                } else {
                    "does not support in compute shaders"
                },
                if *in_compute { "Operations" } else { "Stages" }
            ),
            Error::FeatureMissing {
                feature,
                shader,
                not_enabled: false,
            } => write!(
                f,
                "{shader} needs the device feature `{feature}`, which the device lacks"
            ),
            Error::FeatureMissing {
                feature,
                shader,
                not_enabled: true,
            } => write!(
                f,
                "{shader} needs the device feature `{feature}`, which the device has but the \
                 context did not enable (name the variant set in ContextOptions::variant_sets)"
            ),
            Error::NoVariant { shader, cause } => {
                write!(f, "no variant of `{shader}` for this device: {cause}")
            }
            Error::OutOfDeviceMemory { requested, detail } => write!(
                f,
                "out of device memory: {requested} bytes requested ({detail})"
            ),
            Error::DeviceLost => write!(f, "the Vulkan device was lost"),
            Error::BlobRejected { shader, reason } => {
                write!(f, "the SPIR-V of {shader} was rejected: {reason}")
            }
            Error::BadArgument { what, value, limit } => {
                write!(f, "bad argument: {what} = {value}, but {limit}")
            }
            Error::Vulkan { call, result } => write!(f, "{call} failed: {result:?}"),
            Error::Allocator(e) => write!(f, "memory allocator: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::NoVariant { cause, .. } => Some(cause),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vulkan_results_map_to_their_variants() {
        assert!(matches!(
            Error::vk("vkQueueSubmit", vk::Result::ERROR_DEVICE_LOST),
            Error::DeviceLost
        ));
        let e = Error::vk("vkAllocateMemory", vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        assert!(matches!(e, Error::OutOfDeviceMemory { .. }));
        assert!(e.to_string().contains("vkAllocateMemory returned"), "{e}");
        let e = Error::vk("vkCreateFence", vk::Result::ERROR_UNKNOWN);
        assert_eq!(e.to_string(), "vkCreateFence failed: ERROR_UNKNOWN");
    }

    #[test]
    fn control_characters_from_outside_are_escaped() {
        let e = Error::NoMatchingDevice {
            selector: "gpu\u{1b}]0;owned\u{7}".into(),
            devices: vec!["0: evil\u{1b}[31m (cpu)".into()],
        };
        let s = e.to_string();
        assert!(!s.contains('\u{1b}') && !s.contains('\u{7}'), "{s:?}");
        assert!(s.contains("evil\\u{1b}[31m"), "{s}");
    }

    #[test]
    fn messages_that_cannot_be_provoked_on_lavapipe() {
        assert_eq!(Error::DeviceLost.to_string(), "the Vulkan device was lost");
        assert!(Error::NoValidationLayer
            .to_string()
            .contains("install vulkan-validationlayers"));
        assert!(Error::NoDevice.to_string().contains("no Vulkan device"));
        assert_eq!(
            Error::Allocator("out of blocks".into()).to_string(),
            "memory allocator: out of blocks"
        );
    }
}
