//! Device macros (section 7): `ncnn_<name>` for a device's extensions,
//! features and properties, from a [`DeviceCaps`].
//!
//! The field lists are the Vulkan structs' fields in declaration order (the
//! order ncnn emits them), kept as tables so a test can count them.
//!
//! Value encoding, since [`DeviceCaps::properties`] holds `u64`s:
//! - integer and `VkBool32` fields: the value, plain decimal (a value past
//!   32 bits, which no device reports, clamped to 4294967295);
//! - `int32_t` fields ([`PropKind::I32`]): the low 32 bits read as signed, so
//!   a probe may store them sign- or zero-extended;
//! - `VkDeviceSize` fields ([`PropKind::U64`]): plain decimal up to
//!   `u32::MAX`; above it `<n>ul` when the device has `shaderInt64` (the
//!   spec says `ull`, which glslang rejects as a literal; `ul` is the GLSL
//!   `uint64_t` suffix), else clamped to 4294967295 as ncnn does. No suffix
//!   on small values keeps them usable in `#if`, where no suffix is allowed;
//! - `float` fields ([`PropKind::F32`], listed in [`FLOAT_PROPERTIES`]): the
//!   probe stores the IEEE-754 bit pattern (`f32::to_bits`); the macro is a
//!   GLSL float literal that round-trips (ncnn also emits floats), usable in
//!   code but not in `#if`. Non-finite values, and patterns past 32 bits,
//!   are left undefined.

use crate::device::DeviceCaps;

/// How a property's `u64` is written as a macro value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropKind {
    /// `uint32_t`, `VkBool32`, flags, enums.
    U32,
    /// `int32_t`.
    I32,
    /// `VkDeviceSize` (64-bit).
    U64,
    /// `float`, stored as its bit pattern.
    F32,
}

use PropKind::{F32, I32, U32, U64};

/// The 55 fields of `VkPhysicalDeviceFeatures`: always defined, 0 or 1.
pub const CORE_FEATURES: [&str; 55] = [
    "robustBufferAccess",
    "fullDrawIndexUint32",
    "imageCubeArray",
    "independentBlend",
    "geometryShader",
    "tessellationShader",
    "sampleRateShading",
    "dualSrcBlend",
    "logicOp",
    "multiDrawIndirect",
    "drawIndirectFirstInstance",
    "depthClamp",
    "depthBiasClamp",
    "fillModeNonSolid",
    "depthBounds",
    "wideLines",
    "largePoints",
    "alphaToOne",
    "multiViewport",
    "samplerAnisotropy",
    "textureCompressionETC2",
    "textureCompressionASTC_LDR",
    "textureCompressionBC",
    "occlusionQueryPrecise",
    "pipelineStatisticsQuery",
    "vertexPipelineStoresAndAtomics",
    "fragmentStoresAndAtomics",
    "shaderTessellationAndGeometryPointSize",
    "shaderImageGatherExtended",
    "shaderStorageImageExtendedFormats",
    "shaderStorageImageMultisample",
    "shaderStorageImageReadWithoutFormat",
    "shaderStorageImageWriteWithoutFormat",
    "shaderUniformBufferArrayDynamicIndexing",
    "shaderSampledImageArrayDynamicIndexing",
    "shaderStorageBufferArrayDynamicIndexing",
    "shaderStorageImageArrayDynamicIndexing",
    "shaderClipDistance",
    "shaderCullDistance",
    "shaderFloat64",
    "shaderInt64",
    "shaderInt16",
    "shaderResourceResidency",
    "shaderResourceMinLod",
    "sparseBinding",
    "sparseResidencyBuffer",
    "sparseResidencyImage2D",
    "sparseResidencyImage3D",
    "sparseResidency2Samples",
    "sparseResidency4Samples",
    "sparseResidency8Samples",
    "sparseResidency16Samples",
    "sparseResidencyAliased",
    "variableMultisampleRate",
    "inheritedQueries",
];

/// Extension feature structs: the fields are defined (0 or 1) when the
/// device lists the first extension of the group that it has. A group with
/// two names is "KHR, else NV/EXT" (same field names in both structs).
pub const EXTENSION_FEATURES: &[(&[&str], &[&str])] = &[
    (
        &["VK_KHR_8bit_storage"],
        &[
            "storageBuffer8BitAccess",
            "uniformAndStorageBuffer8BitAccess",
            "storagePushConstant8",
        ],
    ),
    (
        &["VK_KHR_16bit_storage"],
        &[
            "storageBuffer16BitAccess",
            "uniformAndStorageBuffer16BitAccess",
            "storagePushConstant16",
            "storageInputOutput16",
        ],
    ),
    (
        &["VK_KHR_robustness2", "VK_EXT_robustness2"],
        &[
            "robustBufferAccess2",
            "robustImageAccess2",
            "nullDescriptor",
        ],
    ),
    (
        &["VK_KHR_shader_float16_int8"],
        &["shaderFloat16", "shaderInt8"],
    ),
    (
        &["VK_KHR_sampler_ycbcr_conversion"],
        &["samplerYcbcrConversion"],
    ),
    (
        &["VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix"],
        &["cooperativeMatrix", "cooperativeMatrixRobustBufferAccess"],
    ),
    (
        &["VK_NV_cooperative_matrix2"],
        &[
            "cooperativeMatrixWorkgroupScope",
            "cooperativeMatrixFlexibleDimensions",
            "cooperativeMatrixReductions",
            "cooperativeMatrixConversions",
            "cooperativeMatrixPerElementOperations",
            "cooperativeMatrixTensorAddressing",
            "cooperativeMatrixBlockLoads",
        ],
    ),
    (
        &["VK_NV_cooperative_vector"],
        &["cooperativeVector", "cooperativeVectorTraining"],
    ),
    (
        &["VK_EXT_subgroup_size_control"],
        &["subgroupSizeControl", "computeFullSubgroups"],
    ),
    (
        &["VK_KHR_shader_bfloat16"],
        &[
            "shaderBFloat16Type",
            "shaderBFloat16DotProduct",
            "shaderBFloat16CooperativeMatrix",
        ],
    ),
    (
        &["VK_EXT_shader_float8"],
        &["shaderFloat8", "shaderFloat8CooperativeMatrix"],
    ),
    (
        &["VK_KHR_shader_float_controls2"],
        &["shaderFloatControls2"],
    ),
    (
        &["VK_KHR_shader_integer_dot_product"],
        &["shaderIntegerDotProduct"],
    ),
    (
        &["VK_KHR_shader_subgroup_extended_types"],
        &["shaderSubgroupExtendedTypes"],
    ),
    (
        &["VK_KHR_shader_subgroup_rotate"],
        &["shaderSubgroupRotate", "shaderSubgroupRotateClustered"],
    ),
    (
        &["VK_EXT_shader_atomic_float"],
        &[
            "shaderBufferFloat32Atomics",
            "shaderBufferFloat32AtomicAdd",
            "shaderBufferFloat64Atomics",
            "shaderBufferFloat64AtomicAdd",
            "shaderSharedFloat32Atomics",
            "shaderSharedFloat32AtomicAdd",
            "shaderSharedFloat64Atomics",
            "shaderSharedFloat64AtomicAdd",
            "shaderImageFloat32Atomics",
            "shaderImageFloat32AtomicAdd",
            "sparseImageFloat32Atomics",
            "sparseImageFloat32AtomicAdd",
        ],
    ),
    (
        &["VK_EXT_shader_atomic_float2"],
        &[
            "shaderBufferFloat16Atomics",
            "shaderBufferFloat16AtomicAdd",
            "shaderBufferFloat16AtomicMinMax",
            "shaderBufferFloat32AtomicMinMax",
            "shaderBufferFloat64AtomicMinMax",
            "shaderSharedFloat16Atomics",
            "shaderSharedFloat16AtomicAdd",
            "shaderSharedFloat16AtomicMinMax",
            "shaderSharedFloat32AtomicMinMax",
            "shaderSharedFloat64AtomicMinMax",
            "shaderImageFloat32AtomicMinMax",
            "sparseImageFloat32AtomicMinMax",
        ],
    ),
    (
        &["VK_KHR_vulkan_memory_model"],
        &[
            "vulkanMemoryModel",
            "vulkanMemoryModelDeviceScope",
            "vulkanMemoryModelAvailabilityVisibilityChains",
        ],
    ),
];

/// Every field of `VkPhysicalDeviceLimits`, arrays as `_0`, `_1`, `_2`.
pub const LIMITS: &[(&str, PropKind)] = &[
    ("maxImageDimension1D", U32),
    ("maxImageDimension2D", U32),
    ("maxImageDimension3D", U32),
    ("maxImageDimensionCube", U32),
    ("maxImageArrayLayers", U32),
    ("maxTexelBufferElements", U32),
    ("maxUniformBufferRange", U32),
    ("maxStorageBufferRange", U32),
    ("maxPushConstantsSize", U32),
    ("maxMemoryAllocationCount", U32),
    ("maxSamplerAllocationCount", U32),
    ("bufferImageGranularity", U64),
    ("sparseAddressSpaceSize", U64),
    ("maxBoundDescriptorSets", U32),
    ("maxPerStageDescriptorSamplers", U32),
    ("maxPerStageDescriptorUniformBuffers", U32),
    ("maxPerStageDescriptorStorageBuffers", U32),
    ("maxPerStageDescriptorSampledImages", U32),
    ("maxPerStageDescriptorStorageImages", U32),
    ("maxPerStageDescriptorInputAttachments", U32),
    ("maxPerStageResources", U32),
    ("maxDescriptorSetSamplers", U32),
    ("maxDescriptorSetUniformBuffers", U32),
    ("maxDescriptorSetUniformBuffersDynamic", U32),
    ("maxDescriptorSetStorageBuffers", U32),
    ("maxDescriptorSetStorageBuffersDynamic", U32),
    ("maxDescriptorSetSampledImages", U32),
    ("maxDescriptorSetStorageImages", U32),
    ("maxDescriptorSetInputAttachments", U32),
    ("maxVertexInputAttributes", U32),
    ("maxVertexInputBindings", U32),
    ("maxVertexInputAttributeOffset", U32),
    ("maxVertexInputBindingStride", U32),
    ("maxVertexOutputComponents", U32),
    ("maxTessellationGenerationLevel", U32),
    ("maxTessellationPatchSize", U32),
    ("maxTessellationControlPerVertexInputComponents", U32),
    ("maxTessellationControlPerVertexOutputComponents", U32),
    ("maxTessellationControlPerPatchOutputComponents", U32),
    ("maxTessellationControlTotalOutputComponents", U32),
    ("maxTessellationEvaluationInputComponents", U32),
    ("maxTessellationEvaluationOutputComponents", U32),
    ("maxGeometryShaderInvocations", U32),
    ("maxGeometryInputComponents", U32),
    ("maxGeometryOutputComponents", U32),
    ("maxGeometryOutputVertices", U32),
    ("maxGeometryTotalOutputComponents", U32),
    ("maxFragmentInputComponents", U32),
    ("maxFragmentOutputAttachments", U32),
    ("maxFragmentDualSrcAttachments", U32),
    ("maxFragmentCombinedOutputResources", U32),
    ("maxComputeSharedMemorySize", U32),
    ("maxComputeWorkGroupCount_0", U32),
    ("maxComputeWorkGroupCount_1", U32),
    ("maxComputeWorkGroupCount_2", U32),
    ("maxComputeWorkGroupInvocations", U32),
    ("maxComputeWorkGroupSize_0", U32),
    ("maxComputeWorkGroupSize_1", U32),
    ("maxComputeWorkGroupSize_2", U32),
    ("subPixelPrecisionBits", U32),
    ("subTexelPrecisionBits", U32),
    ("mipmapPrecisionBits", U32),
    ("maxDrawIndexedIndexValue", U32),
    ("maxDrawIndirectCount", U32),
    ("maxSamplerLodBias", F32),
    ("maxSamplerAnisotropy", F32),
    ("maxViewports", U32),
    ("maxViewportDimensions_0", U32),
    ("maxViewportDimensions_1", U32),
    ("viewportBoundsRange_0", F32),
    ("viewportBoundsRange_1", F32),
    ("viewportSubPixelBits", U32),
    // `size_t` in Vulkan; ncnn narrows it to 32 bits, a small power of two.
    ("minMemoryMapAlignment", U64),
    ("minTexelBufferOffsetAlignment", U64),
    ("minUniformBufferOffsetAlignment", U64),
    ("minStorageBufferOffsetAlignment", U64),
    ("minTexelOffset", I32),
    ("maxTexelOffset", U32),
    ("minTexelGatherOffset", I32),
    ("maxTexelGatherOffset", U32),
    ("minInterpolationOffset", F32),
    ("maxInterpolationOffset", F32),
    ("subPixelInterpolationOffsetBits", U32),
    ("maxFramebufferWidth", U32),
    ("maxFramebufferHeight", U32),
    ("maxFramebufferLayers", U32),
    ("framebufferColorSampleCounts", U32),
    ("framebufferDepthSampleCounts", U32),
    ("framebufferStencilSampleCounts", U32),
    ("framebufferNoAttachmentsSampleCounts", U32),
    ("maxColorAttachments", U32),
    ("sampledImageColorSampleCounts", U32),
    ("sampledImageIntegerSampleCounts", U32),
    ("sampledImageDepthSampleCounts", U32),
    ("sampledImageStencilSampleCounts", U32),
    ("storageImageSampleCounts", U32),
    ("maxSampleMaskWords", U32),
    ("timestampComputeAndGraphics", U32),
    ("timestampPeriod", F32),
    ("maxClipDistances", U32),
    ("maxCullDistances", U32),
    ("maxCombinedClipAndCullDistances", U32),
    ("discreteQueuePriorities", U32),
    ("pointSizeRange_0", F32),
    ("pointSizeRange_1", F32),
    ("lineWidthRange_0", F32),
    ("lineWidthRange_1", F32),
    ("pointSizeGranularity", F32),
    ("lineWidthGranularity", F32),
    ("strictLines", U32),
    ("standardSampleLocations", U32),
    ("optimalBufferCopyOffsetAlignment", U64),
    ("optimalBufferCopyRowPitchAlignment", U64),
    ("nonCoherentAtomSize", U64),
];

/// The other property groups, after the limits, in ncnn's order:
/// sparse, subgroup, NV cooperative matrix 2, NV cooperative vector,
/// driver, integer dot product, subgroup size control. Each is defined when
/// [`DeviceCaps::properties`] holds it. `subgroupSize` is handled apart (vendor fallback).
pub const OTHER_PROPERTIES: &[(&str, PropKind)] = &[
    ("residencyStandard2DBlockShape", U32),
    ("residencyStandard2DMultisampleBlockShape", U32),
    ("residencyStandard3DBlockShape", U32),
    ("residencyAlignedMipSize", U32),
    ("residencyNonResidentStrict", U32),
    ("subgroupSize", U32),
    ("supportedStages", U32),
    ("supportedOperations", U32),
    ("quadOperationsInAllStages", U32),
    ("cooperativeMatrixWorkgroupScopeMaxWorkgroupSize", U32),
    ("cooperativeMatrixFlexibleDimensionsMaxDimension", U32),
    ("cooperativeMatrixWorkgroupScopeReservedSharedMemory", U32),
    ("cooperativeVectorSupportedStages", U32),
    ("cooperativeVectorTrainingFloat16Accumulation", U32),
    ("cooperativeVectorTrainingFloat32Accumulation", U32),
    ("maxCooperativeVectorComponents", U32),
    ("driverID", U32),
    ("conformanceVersion_major", U32),
    ("conformanceVersion_minor", U32),
    ("conformanceVersion_subminor", U32),
    ("conformanceVersion_patch", U32),
    ("integerDotProduct8BitUnsignedAccelerated", U32),
    ("integerDotProduct8BitSignedAccelerated", U32),
    ("integerDotProduct8BitMixedSignednessAccelerated", U32),
    ("integerDotProduct4x8BitPackedUnsignedAccelerated", U32),
    ("integerDotProduct4x8BitPackedSignedAccelerated", U32),
    (
        "integerDotProduct4x8BitPackedMixedSignednessAccelerated",
        U32,
    ),
    ("integerDotProduct16BitUnsignedAccelerated", U32),
    ("integerDotProduct16BitSignedAccelerated", U32),
    ("integerDotProduct16BitMixedSignednessAccelerated", U32),
    ("integerDotProduct32BitUnsignedAccelerated", U32),
    ("integerDotProduct32BitSignedAccelerated", U32),
    ("integerDotProduct32BitMixedSignednessAccelerated", U32),
    ("integerDotProduct64BitUnsignedAccelerated", U32),
    ("integerDotProduct64BitSignedAccelerated", U32),
    ("integerDotProduct64BitMixedSignednessAccelerated", U32),
    (
        "integerDotProductAccumulatingSaturating8BitUnsignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating8BitSignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating8BitMixedSignednessAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating4x8BitPackedUnsignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating4x8BitPackedSignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating4x8BitPackedMixedSignednessAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating16BitUnsignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating16BitSignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating16BitMixedSignednessAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating32BitUnsignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating32BitSignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating32BitMixedSignednessAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating64BitUnsignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating64BitSignedAccelerated",
        U32,
    ),
    (
        "integerDotProductAccumulatingSaturating64BitMixedSignednessAccelerated",
        U32,
    ),
    ("minSubgroupSize", U32),
    ("maxSubgroupSize", U32),
    ("maxComputeWorkgroupSubgroups", U32),
    ("requiredSubgroupSizeStages", U32),
];

/// The `float` properties, whose `u64` is an `f32` bit pattern.
pub const FLOAT_PROPERTIES: &[&str] = &[
    "maxSamplerLodBias",
    "maxSamplerAnisotropy",
    "viewportBoundsRange_0",
    "viewportBoundsRange_1",
    "minInterpolationOffset",
    "maxInterpolationOffset",
    "timestampPeriod",
    "pointSizeRange_0",
    "pointSizeRange_1",
    "lineWidthRange_0",
    "lineWidthRange_1",
    "pointSizeGranularity",
    "lineWidthGranularity",
];

/// Subgroup shorthands and their `VkSubgroupFeatureFlagBits`. ncnn maps
/// `_rotate_relative` to the clustered-rotate bit, and so do we.
pub const SUBGROUP_SHORTHANDS: &[(&str, u64)] = &[
    ("subgroup_basic", 0x1),             // VK_SUBGROUP_FEATURE_BASIC_BIT
    ("subgroup_vote", 0x2),              // VK_SUBGROUP_FEATURE_VOTE_BIT
    ("subgroup_arithmetic", 0x4),        // VK_SUBGROUP_FEATURE_ARITHMETIC_BIT
    ("subgroup_ballot", 0x8),            // VK_SUBGROUP_FEATURE_BALLOT_BIT
    ("subgroup_shuffle", 0x10),          // VK_SUBGROUP_FEATURE_SHUFFLE_BIT
    ("subgroup_shuffle_relative", 0x20), // VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT
    ("subgroup_clustered", 0x40),        // VK_SUBGROUP_FEATURE_CLUSTERED_BIT
    ("subgroup_quad", 0x80),             // VK_SUBGROUP_FEATURE_QUAD_BIT
    ("subgroup_rotate", 0x200),          // VK_SUBGROUP_FEATURE_ROTATE_BIT_KHR
    ("subgroup_rotate_relative", 0x400), // VK_SUBGROUP_FEATURE_ROTATE_CLUSTERED_BIT_KHR
    ("subgroup_partitioned", 0x100),     // VK_SUBGROUP_FEATURE_PARTITIONED_BIT_NV
];

/// `subgroupSize` when the device reports 0, a non-power of two, or nothing:
/// by `vendorID`, as section 7 lists them; 64 for any other vendor.
pub const SUBGROUP_SIZE_BY_VENDOR: &[(u32, u64)] = &[
    (0x10de, 32),  // NVIDIA
    (0x1002, 64),  // AMD
    (0x8086, 32),  // Intel
    (0x13b5, 16),  // ARM Mali
    (0x5143, 128), // Qualcomm Adreno
    (0x1010, 32),  // Imagination PowerVR
];

/// The subgroup size the device macros report for `device`.
pub fn subgroup_size(device: &DeviceCaps) -> u64 {
    match device.property("subgroupSize") {
        Some(n) if n.is_power_of_two() => n,
        _ => SUBGROUP_SIZE_BY_VENDOR
            .iter()
            .find(|(v, _)| *v == device.vendor_id)
            .map_or(64, |(_, n)| *n),
    }
}

/// The value text of a property, or `None` where it cannot be written (a
/// non-finite float).
pub fn format_property(value: u64, kind: PropKind, int64: bool) -> Option<String> {
    Some(match kind {
        // Past 32 bits a description is wrong; clamped as `VkDeviceSize` is.
        U32 => value.min(u64::from(u32::MAX)).to_string(),
        I32 => (value as u32 as i32).to_string(),
        U64 if value <= u64::from(u32::MAX) => value.to_string(),
        U64 if int64 => format!("{value}ul"),
        U64 => u32::MAX.to_string(),
        F32 => {
            let f = f32::from_bits(u32::try_from(value).ok()?);
            if !f.is_finite() {
                return None;
            }
            // Debug prints the shortest text that round-trips, always with a
            // `.` or an exponent, which is what GLSL needs for a float literal.
            format!("{f:?}")
        }
    })
}

/// The device macros of `device`, one `#define` per line, in ncnn's order:
/// extensions, core features, extension features, header properties,
/// limits, the other property groups, subgroup shorthands.
pub fn device_macros(device: &DeviceCaps, out: &mut String) {
    let mut def = |name: &str, value: &str| {
        // A description read from a file is checked (`DeviceCaps::from_json`);
        // one built in code may hold any string, which must not become text.
        if crate::device::is_identifier(name) {
            out.push_str(&format!("#define ncnn_{name} {value}\n"));
        }
    };
    for (ext, version) in &device.extensions {
        def(ext, &version.to_string());
    }
    let flag = |name: &str| if device.feature(name) { "1" } else { "0" };
    for name in CORE_FEATURES {
        def(name, flag(name));
    }
    for (exts, fields) in EXTENSION_FEATURES {
        if exts.iter().any(|e| device.has_extension(e)) {
            for name in *fields {
                def(name, flag(name));
            }
        }
    }
    def("apiVersion", &device.api_version.to_string());
    def("driverVersion", &device.driver_version.to_string());
    def("vendorID", &device.vendor_id.to_string());
    def("deviceID", &device.device_id.to_string());
    def("deviceType", &device.device_type.vk_value().to_string());
    let int64 = device.feature("shaderInt64");
    for (name, kind) in LIMITS.iter().chain(OTHER_PROPERTIES) {
        let value = if *name == "subgroupSize" {
            Some(subgroup_size(device))
        } else {
            device.property(name)
        };
        if let Some(text) = value.and_then(|v| format_property(v, *kind, int64)) {
            def(name, &text);
        }
    }
    let ops = device.property("supportedOperations").unwrap_or(0);
    for (name, bit) in SUBGROUP_SHORTHANDS {
        def(name, if ops & bit != 0 { "1" } else { "0" });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceType;

    fn fake() -> DeviceCaps {
        let mut d = DeviceCaps {
            name: "fake".into(),
            api_version: (1 << 22) | (3 << 12),
            driver_version: 7,
            vendor_id: 0x10de,
            device_id: 0x2684,
            device_type: DeviceType::DiscreteGpu,
            ..DeviceCaps::default()
        };
        for (e, v) in [
            ("VK_KHR_16bit_storage", 1),
            ("VK_NV_cooperative_matrix", 1),
            ("VK_KHR_sampler_ycbcr_conversion", 14),
        ] {
            d.extensions.insert(e.into(), v);
        }
        for f in [
            "robustBufferAccess",
            "shaderInt16",
            "storageBuffer16BitAccess",
            "cooperativeMatrix",
            "shaderFloat16",
        ] {
            d.features.insert(f.into(), true);
        }
        for (p, v) in [
            ("maxComputeWorkGroupSize_1", 1024),
            ("minTexelOffset", (-8i64) as u64),
            ("minTexelGatherOffset", u64::from((-32i32) as u32)),
            ("sparseAddressSpaceSize", 1 << 40),
            ("nonCoherentAtomSize", 64),
            ("timestampPeriod", u64::from(1.0f32.to_bits())),
            ("maxSamplerAnisotropy", u64::from(16.0f32.to_bits())),
            ("pointSizeRange_1", u64::from(f32::INFINITY.to_bits())),
            ("subgroupSize", 32),
            ("supportedOperations", 0x1 | 0x4 | 0x400),
            ("driverID", 4),
        ] {
            d.properties.insert(p.into(), v);
        }
        d
    }

    fn macros(d: &DeviceCaps) -> Vec<(String, String)> {
        let mut s = String::new();
        device_macros(d, &mut s);
        s.lines()
            .map(|l| {
                let rest = l.strip_prefix("#define ncnn_").expect(l);
                let (n, v) = rest.split_once(' ').expect(l);
                (n.to_string(), v.to_string())
            })
            .collect()
    }

    fn get<'a>(m: &'a [(String, String)], name: &str) -> Option<&'a str> {
        m.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn table_sizes_match_vulkan() {
        assert_eq!(CORE_FEATURES.len(), 55);
        // 106 fields of VkPhysicalDeviceLimits, 3 of them float[2]/uint32_t[2]/[3] arrays
        // spread: 2 arrays of 3, 4 arrays of 2 -> 106 - 6 + 6 + 8 = 114 entries.
        assert_eq!(LIMITS.len(), 114);
        let ints = OTHER_PROPERTIES
            .iter()
            .filter(|(n, _)| n.starts_with("integerDotProduct"))
            .count();
        assert_eq!(ints, 30);
        let floats: Vec<&str> = LIMITS
            .iter()
            .filter(|(_, k)| *k == F32)
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(floats, FLOAT_PROPERTIES);
        let mut all: Vec<&str> = CORE_FEATURES.to_vec();
        all.extend(
            EXTENSION_FEATURES
                .iter()
                .flat_map(|(_, f)| f.iter().copied()),
        );
        all.extend(LIMITS.iter().chain(OTHER_PROPERTIES).map(|(n, _)| *n));
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a name appears twice");
    }

    #[test]
    fn fake_device() {
        let m = macros(&fake());
        assert_eq!(get(&m, "VK_KHR_16bit_storage"), Some("1"));
        assert_eq!(get(&m, "VK_KHR_sampler_ycbcr_conversion"), Some("14"));
        for f in CORE_FEATURES {
            assert!(get(&m, f).is_some(), "{f}");
        }
        assert_eq!(get(&m, "robustBufferAccess"), Some("1"));
        assert_eq!(get(&m, "shaderInt64"), Some("0"));
        // Extension feature structs only for listed extensions.
        assert_eq!(get(&m, "storageBuffer16BitAccess"), Some("1"));
        assert_eq!(get(&m, "storagePushConstant16"), Some("0"));
        assert_eq!(get(&m, "cooperativeMatrix"), Some("1"));
        assert_eq!(get(&m, "samplerYcbcrConversion"), Some("0"));
        assert_eq!(
            get(&m, "shaderFloat16"),
            None,
            "no VK_KHR_shader_float16_int8"
        );
        assert_eq!(get(&m, "storageBuffer8BitAccess"), None);
        // Header.
        assert_eq!(get(&m, "vendorID"), Some("4318"));
        assert_eq!(get(&m, "deviceType"), Some("2"));
        assert_eq!(
            get(&m, "apiVersion"),
            Some(&*((1u32 << 22) | (3 << 12)).to_string())
        );
        // Properties: present ones only, with their encodings.
        assert_eq!(get(&m, "maxComputeWorkGroupSize_1"), Some("1024"));
        assert_eq!(get(&m, "maxComputeWorkGroupSize_0"), None);
        assert_eq!(get(&m, "minTexelOffset"), Some("-8"));
        assert_eq!(get(&m, "minTexelGatherOffset"), Some("-32"));
        assert_eq!(
            get(&m, "sparseAddressSpaceSize"),
            Some("4294967295"),
            "clamped without int64"
        );
        assert_eq!(get(&m, "nonCoherentAtomSize"), Some("64"));
        assert_eq!(get(&m, "timestampPeriod"), Some("1.0"));
        assert_eq!(get(&m, "maxSamplerAnisotropy"), Some("16.0"));
        assert_eq!(get(&m, "pointSizeRange_1"), None, "infinity has no literal");
        assert_eq!(get(&m, "driverID"), Some("4"));
        assert_eq!(get(&m, "subgroupSize"), Some("32"));
        // Shorthands.
        assert_eq!(get(&m, "subgroup_basic"), Some("1"));
        assert_eq!(get(&m, "subgroup_vote"), Some("0"));
        assert_eq!(get(&m, "subgroup_arithmetic"), Some("1"));
        assert_eq!(get(&m, "subgroup_rotate"), Some("0"));
        assert_eq!(get(&m, "subgroup_rotate_relative"), Some("1"));
        assert_eq!(get(&m, "subgroup_partitioned"), Some("0"));
        // Every name is defined once.
        let mut names: Vec<&str> = m.iter().map(|(n, _)| n.as_str()).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn int64_devices_get_64_bit_literals() {
        let mut d = fake();
        d.features.insert("shaderInt64".into(), true);
        let m = macros(&d);
        assert_eq!(get(&m, "sparseAddressSpaceSize"), Some("1099511627776ul"));
        assert_eq!(get(&m, "nonCoherentAtomSize"), Some("64"));
    }

    #[test]
    fn khr_cooperative_matrix_wins_and_robustness2_has_either_name() {
        let mut d = fake();
        d.extensions.insert("VK_KHR_cooperative_matrix".into(), 2);
        d.extensions.insert("VK_EXT_robustness2".into(), 1);
        let m = macros(&d);
        assert_eq!(
            m.iter().filter(|(n, _)| n == "cooperativeMatrix").count(),
            1
        );
        assert_eq!(get(&m, "nullDescriptor"), Some("0"));
    }

    #[test]
    fn subgroup_size_falls_back_by_vendor() {
        let mut d = fake();
        for (reported, vendor, want) in [
            (Some(0), 0x13b5, 16),
            (Some(48), 0x5143, 128),
            (None, 0x1002, 64),
            (Some(0), 0x1234, 64),
            (Some(8), 0x1234, 8),
            (Some(24), 0x8086, 32),
        ] {
            d.vendor_id = vendor;
            match reported {
                Some(v) => d.properties.insert("subgroupSize".into(), v),
                None => d.properties.remove("subgroupSize"),
            };
            assert_eq!(
                get(&macros(&d), "subgroupSize"),
                Some(&*want.to_string()),
                "{reported:?} {vendor:#x}"
            );
        }
    }
}
