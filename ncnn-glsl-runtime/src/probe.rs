//! Fills a [`DeviceCaps`] from a physical device: every field that the
//! device macros (`ncnn_glsl_core::ext::device_macros`) and the variant choice
//! read, under the Vulkan field names of the core's tables.
//!
//! Extension feature structs are all `sType, pNext, VkBool32...` with the
//! fields in the order of [`EXTENSION_FEATURES`], so one raw struct serves
//! them all; this also covers structs that ash 0.38 lacks (bfloat16, float8,
//! NV cooperative matrix 2 / vector), whose `sType` is written here by hand.

use std::collections::BTreeMap;
use std::ffi::c_void;

use ash::vk;
use ncnn_glsl_core::ext::{PropKind, CORE_FEATURES, EXTENSION_FEATURES, LIMITS};
use ncnn_glsl_core::{DeviceCaps, DeviceType};

use crate::error::{Error, Result};

/// `VK_API_VERSION_1_1`, `_1_2`, `_1_3`.
const V11: u32 = vk::make_api_version(0, 1, 1, 0);
const V12: u32 = vk::make_api_version(0, 1, 2, 0);
const V13: u32 = vk::make_api_version(0, 1, 3, 0);

/// Each extension that has a feature struct in [`EXTENSION_FEATURES`]: its
/// `sType` and the core version it was promoted to (0: not promoted as far
/// as the instance we create, 1.3, can see), when the struct can be chained
/// without the extension being listed.
pub(crate) const FEATURE_STRUCTS: &[(&str, i32, u32)] = &[
    ("VK_KHR_8bit_storage", 1_000_177_000, V12),
    ("VK_KHR_16bit_storage", 1_000_083_000, V11),
    ("VK_KHR_robustness2", 1_000_286_000, 0),
    ("VK_EXT_robustness2", 1_000_286_000, 0),
    ("VK_KHR_shader_float16_int8", 1_000_082_000, V12),
    ("VK_KHR_sampler_ycbcr_conversion", 1_000_156_004, V11),
    ("VK_KHR_cooperative_matrix", 1_000_506_000, 0),
    ("VK_NV_cooperative_matrix", 1_000_249_000, 0),
    ("VK_NV_cooperative_matrix2", 1_000_593_000, 0),
    ("VK_NV_cooperative_vector", 1_000_491_000, 0),
    ("VK_EXT_subgroup_size_control", 1_000_225_002, V13),
    // VK_KHR_shader_bfloat16: not in ash 0.38 (headers 1.3.281).
    ("VK_KHR_shader_bfloat16", 1_000_141_000, 0),
    ("VK_EXT_shader_float8", 1_000_567_000, 0),
    ("VK_KHR_shader_float_controls2", 1_000_528_000, 0),
    ("VK_KHR_shader_integer_dot_product", 1_000_280_000, V13),
    ("VK_KHR_shader_subgroup_extended_types", 1_000_175_000, V12),
    ("VK_KHR_shader_subgroup_rotate", 1_000_416_000, 0),
    ("VK_EXT_shader_atomic_float", 1_000_260_000, 0),
    ("VK_EXT_shader_atomic_float2", 1_000_273_000, 0),
    ("VK_KHR_vulkan_memory_model", 1_000_211_000, V12),
];

/// `VkPhysicalDeviceShaderIntegerDotProductProperties`: 30 `VkBool32`.
const INT_DOT_PROPERTIES: i32 = 1_000_280_001;
/// `VkPhysicalDeviceCooperativeMatrix2PropertiesNV` (not in ash 0.38): three `uint32_t`.
const COOPERATIVE_MATRIX_2_PROPERTIES_NV: i32 = 1_000_593_002;
const COOPERATIVE_MATRIX_2_PROPERTY_NAMES: [&str; 3] = [
    "cooperativeMatrixWorkgroupScopeMaxWorkgroupSize",
    "cooperativeMatrixFlexibleDimensionsMaxDimension",
    "cooperativeMatrixWorkgroupScopeReservedSharedMemory",
];
/// `VkPhysicalDeviceCooperativeVectorPropertiesNV` (not in ash 0.38): stage
/// flags, two `VkBool32`, one `uint32_t`.
const COOPERATIVE_VECTOR_PROPERTIES_NV: i32 = 1_000_491_001;
const COOPERATIVE_VECTOR_PROPERTY_NAMES: [&str; 4] = [
    "cooperativeVectorSupportedStages",
    "cooperativeVectorTrainingFloat16Accumulation",
    "cooperativeVectorTrainingFloat32Accumulation",
    "maxCooperativeVectorComponents",
];

/// A feature or property struct seen as `sType, pNext, u32...`: large enough
/// for every struct of [`FEATURE_STRUCTS`] and the integer dot product
/// properties, which are all 32-bit fields after the header.
#[repr(C)]
pub(crate) struct RawStruct {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub words: [u32; 32],
}

impl RawStruct {
    pub(crate) fn new(s_type: i32) -> Box<RawStruct> {
        Box::new(RawStruct {
            s_type: vk::StructureType::from_raw(s_type),
            p_next: std::ptr::null_mut(),
            words: [0; 32],
        })
    }
}

/// Links `structs` into a `pNext` chain and returns its head (null when empty).
/// The boxes must outlive every use of the chain.
pub(crate) fn link(structs: &mut [Box<RawStruct>]) -> *mut c_void {
    let mut next: *mut c_void = std::ptr::null_mut();
    for s in structs.iter_mut().rev() {
        s.p_next = next;
        next = (&mut **s) as *mut RawStruct as *mut c_void;
    }
    next
}

/// The extension feature groups this device can report: for each group of
/// [`EXTENSION_FEATURES`], the extension it is known by (the first the device
/// lists, or the group's first name when the struct is core), the `sType`,
/// and the field names.
pub(crate) fn feature_groups(
    extensions: &BTreeMap<String, u32>,
    api_version: u32,
) -> Vec<(&'static str, i32, &'static [&'static str])> {
    let mut out = Vec::new();
    for (exts, fields) in EXTENSION_FEATURES {
        let listed = exts.iter().find(|e| extensions.contains_key(**e));
        let pick = listed.copied().or_else(|| {
            exts.iter().copied().find(|e| {
                FEATURE_STRUCTS
                    .iter()
                    .any(|(n, _, core)| n == e && *core != 0 && api_version >= *core)
            })
        });
        if let Some(ext) = pick {
            if let Some(&(_, s_type, _)) = FEATURE_STRUCTS.iter().find(|(n, _, _)| *n == ext) {
                out.push((ext, s_type, *fields));
            }
        }
    }
    out
}

/// Describes `physical` as a [`DeviceCaps`].
///
/// # Safety
///
/// `physical` must come from `instance`, made from `entry`, and both the
/// instance (its `apiVersion`) and the device must be Vulkan 1.1 or later
/// (`vkGetPhysicalDeviceFeatures2` is core there).
pub unsafe fn probe(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> Result<DeviceCaps> {
    // SAFETY: `physical` belongs to `instance` (the caller's promise).
    let props = unsafe { instance.get_physical_device_properties(physical) };
    // SAFETY: as above.
    let ext_list = unsafe { instance.enumerate_device_extension_properties(physical) }
        .map_err(|e| Error::vk("vkEnumerateDeviceExtensionProperties", e))?;
    let extensions: BTreeMap<String, u32> = ext_list
        .iter()
        .filter_map(|e| {
            let name = e.extension_name_as_c_str().ok()?.to_str().ok()?;
            Some((name.to_string(), e.spec_version))
        })
        .collect();
    let api = props.api_version;
    let mut caps = DeviceCaps {
        name: props
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default(),
        api_version: api,
        driver_version: props.driver_version,
        vendor_id: props.vendor_id,
        device_id: props.device_id,
        device_type: device_type(props.device_type),
        extensions,
        ..DeviceCaps::default()
    };

    // Features: the core struct, then one raw struct per group.
    let groups = feature_groups(&caps.extensions, api);
    let mut raws: Vec<Box<RawStruct>> = groups.iter().map(|g| RawStruct::new(g.1)).collect();
    let mut f2 = vk::PhysicalDeviceFeatures2 {
        p_next: link(&mut raws),
        ..Default::default()
    };
    // SAFETY: as above, and both are 1.1+; the chained `raws` (boxed) outlive
    // the call, each at least as large as the struct its sType names, and each
    // of an extension the device lists or of its core version.
    unsafe { instance.get_physical_device_features2(physical, &mut f2) };
    for (name, on) in CORE_FEATURES.iter().zip(core_feature_words(&f2.features)) {
        caps.features.insert(name.to_string(), on != 0);
    }
    for ((_, _, fields), raw) in groups.iter().zip(&raws) {
        for (name, w) in fields.iter().zip(raw.words) {
            caps.features.insert(name.to_string(), w != 0);
        }
    }

    // Properties.
    let p = &mut caps.properties;
    for (name, value) in limit_values(&props.limits) {
        p.insert(name.to_string(), value);
    }
    let sp = props.sparse_properties;
    for (name, v) in [
        (
            "residencyStandard2DBlockShape",
            sp.residency_standard2_d_block_shape,
        ),
        (
            "residencyStandard2DMultisampleBlockShape",
            sp.residency_standard2_d_multisample_block_shape,
        ),
        (
            "residencyStandard3DBlockShape",
            sp.residency_standard3_d_block_shape,
        ),
        ("residencyAlignedMipSize", sp.residency_aligned_mip_size),
        (
            "residencyNonResidentStrict",
            sp.residency_non_resident_strict,
        ),
    ] {
        p.insert(name.into(), u64::from(v));
    }
    let has = |ext: &str, core: u32| caps.extensions.contains_key(ext) || api >= core;
    let want_driver = has("VK_KHR_driver_properties", V12);
    let want_dot = has("VK_KHR_shader_integer_dot_product", V13);
    let want_ssc = has("VK_EXT_subgroup_size_control", V13);
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut ssc = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    // The all-u32 property structs, each with the names of its fields in
    // order, chained when the device can know them.
    let dot_names: Vec<&'static str> = ncnn_glsl_core::ext::OTHER_PROPERTIES
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| n.starts_with("integerDotProduct"))
        .collect();
    let raw_props: Vec<(i32, &[&'static str])> = [
        (want_dot, INT_DOT_PROPERTIES, &dot_names[..]),
        (
            caps.extensions.contains_key("VK_NV_cooperative_matrix2"),
            COOPERATIVE_MATRIX_2_PROPERTIES_NV,
            &COOPERATIVE_MATRIX_2_PROPERTY_NAMES[..],
        ),
        (
            caps.extensions.contains_key("VK_NV_cooperative_vector"),
            COOPERATIVE_VECTOR_PROPERTIES_NV,
            &COOPERATIVE_VECTOR_PROPERTY_NAMES[..],
        ),
    ]
    .into_iter()
    .filter(|(want, _, _)| *want)
    .map(|(_, s, names)| (s, names))
    .collect();
    let mut raws: Vec<Box<RawStruct>> = raw_props.iter().map(|(s, _)| RawStruct::new(*s)).collect();
    let mut p2 = vk::PhysicalDeviceProperties2::default();
    // Built by hand (not push_next) so that optional structs stay out of the
    // chain when the device cannot know them.
    let mut head: *mut c_void = link(&mut raws);
    if want_ssc {
        ssc.p_next = head;
        head = (&mut ssc) as *mut _ as *mut c_void;
    }
    if want_driver {
        driver.p_next = head;
        head = (&mut driver) as *mut _ as *mut c_void;
    }
    subgroup.p_next = head;
    p2.p_next = (&mut subgroup) as *mut _ as *mut c_void;
    // SAFETY: as for the features: `subgroup`, `driver`, `ssc` and `raws`
    // outlive the call, each chained only where the device can know it.
    unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
    let p = &mut caps.properties;
    p.insert("subgroupSize".into(), subgroup.subgroup_size.into());
    p.insert(
        "supportedStages".into(),
        subgroup.supported_stages.as_raw().into(),
    );
    p.insert(
        "supportedOperations".into(),
        subgroup.supported_operations.as_raw().into(),
    );
    p.insert(
        "quadOperationsInAllStages".into(),
        subgroup.quad_operations_in_all_stages.into(),
    );
    if want_driver {
        p.insert("driverID".into(), driver.driver_id.as_raw() as u32 as u64);
        let c = driver.conformance_version;
        p.insert("conformanceVersion_major".into(), c.major.into());
        p.insert("conformanceVersion_minor".into(), c.minor.into());
        p.insert("conformanceVersion_subminor".into(), c.subminor.into());
        p.insert("conformanceVersion_patch".into(), c.patch.into());
    }
    for ((_, names), raw) in raw_props.iter().zip(&raws) {
        for (name, w) in names.iter().zip(raw.words) {
            p.insert(name.to_string(), u64::from(w));
        }
    }
    if want_ssc {
        p.insert("minSubgroupSize".into(), ssc.min_subgroup_size.into());
        p.insert("maxSubgroupSize".into(), ssc.max_subgroup_size.into());
        p.insert(
            "maxComputeWorkgroupSubgroups".into(),
            ssc.max_compute_workgroup_subgroups.into(),
        );
        p.insert(
            "requiredSubgroupSizeStages".into(),
            ssc.required_subgroup_size_stages.as_raw().into(),
        );
    }
    // SAFETY: `physical` is `instance`'s, made from `entry` (the caller's
    // promise); each extension is queried only where the device lists it.
    caps.cooperative_matrix_shapes =
        unsafe { crate::coopmat::shapes(entry, instance, physical, |e| caps.has_extension(e)) }?;
    Ok(caps)
}

/// `VkPhysicalDeviceType` as the core names it.
pub(crate) fn device_type(t: vk::PhysicalDeviceType) -> DeviceType {
    match t {
        vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
        vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
        vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
        vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
        _ => DeviceType::Other,
    }
}

const _: () = assert!(std::mem::size_of::<vk::PhysicalDeviceFeatures>() == 55 * 4);

/// The 55 `VkBool32`s of `VkPhysicalDeviceFeatures`, in declaration order
/// (the order of [`CORE_FEATURES`]).
pub(crate) fn core_feature_words(f: &vk::PhysicalDeviceFeatures) -> [u32; 55] {
    // SAFETY: the struct is `repr(C)` and exactly 55 `u32`s (asserted above).
    unsafe { *(f as *const vk::PhysicalDeviceFeatures as *const [u32; 55]) }
}

/// Mutable view of the same 55 words, to enable features by name.
pub(crate) fn core_feature_words_mut(f: &mut vk::PhysicalDeviceFeatures) -> &mut [u32; 55] {
    // SAFETY: as in `core_feature_words`.
    unsafe { &mut *(f as *mut vk::PhysicalDeviceFeatures as *mut [u32; 55]) }
}

/// Every field of `VkPhysicalDeviceLimits`, walked in declaration order with
/// the kinds of the core's [`LIMITS`] table (a test checks the walk against
/// ash's named fields and the struct's size). Floats are stored as
/// `f32::to_bits`, `int32_t` zero-extended from its bits.
pub(crate) fn limit_values(l: &vk::PhysicalDeviceLimits) -> Vec<(&'static str, u64)> {
    let base = l as *const vk::PhysicalDeviceLimits as *const u8;
    let mut offset = 0usize;
    let mut out = Vec::with_capacity(LIMITS.len());
    for (name, kind) in LIMITS {
        let size = match kind {
            PropKind::U64 if *name == "minMemoryMapAlignment" => std::mem::size_of::<usize>(),
            PropKind::U64 => 8,
            _ => 4,
        };
        offset = offset.next_multiple_of(size);
        // In release builds too: the table is the core crate's, the struct ash's.
        assert!(offset + size <= std::mem::size_of::<vk::PhysicalDeviceLimits>());
        // SAFETY: the read is inside the struct (asserted) and aligned for its
        // size; a test checks that the walk lands on ash's fields.
        let value = unsafe {
            match size {
                8 => std::ptr::read(base.add(offset) as *const u64),
                _ => u64::from(std::ptr::read(base.add(offset) as *const u32)),
            }
        };
        out.push((*name, value));
        offset += size;
    }
    out
}

/// The end of the walk of [`limit_values`], for the test against the struct's size.
#[cfg(test)]
fn limits_walk_end() -> usize {
    let mut offset = 0usize;
    for (name, kind) in LIMITS {
        let size = match kind {
            PropKind::U64 if *name == "minMemoryMapAlignment" => std::mem::size_of::<usize>(),
            PropKind::U64 => 8,
            _ => 4,
        };
        offset = offset.next_multiple_of(size) + size;
    }
    offset.next_multiple_of(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_walk_matches_ash_fields() {
        assert_eq!(
            limits_walk_end(),
            std::mem::size_of::<vk::PhysicalDeviceLimits>()
        );
        let l = vk::PhysicalDeviceLimits {
            max_image_dimension1_d: 11,
            buffer_image_granularity: 1 << 40,
            max_compute_work_group_count: [65535, 7, 9],
            max_compute_work_group_size: [1024, 512, 64],
            timestamp_period: 1.5,
            min_memory_map_alignment: 64,
            min_texel_offset: -8,
            max_storage_buffer_range: 1 << 27,
            non_coherent_atom_size: 256,
            point_size_range: [1.0, 2.0],
            ..Default::default()
        };
        let v: BTreeMap<_, _> = limit_values(&l).into_iter().collect();
        assert_eq!(v["maxImageDimension1D"], 11);
        assert_eq!(v["bufferImageGranularity"], 1 << 40);
        assert_eq!(v["maxComputeWorkGroupCount_0"], 65535);
        assert_eq!(v["maxComputeWorkGroupCount_2"], 9);
        assert_eq!(v["maxComputeWorkGroupSize_1"], 512);
        assert_eq!(v["timestampPeriod"], u64::from(1.5f32.to_bits()));
        assert_eq!(v["minMemoryMapAlignment"], 64);
        assert_eq!(v["minTexelOffset"] as u32 as i32, -8);
        assert_eq!(v["maxStorageBufferRange"], 1 << 27);
        assert_eq!(v["nonCoherentAtomSize"], 256);
        assert_eq!(v["pointSizeRange_1"], u64::from(2.0f32.to_bits()));
    }

    #[test]
    fn hand_written_stypes_match_ash_where_ash_has_them() {
        use vk::StructureType as S;
        let known = [
            (
                "VK_KHR_8bit_storage",
                S::PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
            ),
            (
                "VK_KHR_16bit_storage",
                S::PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
            ),
            (
                "VK_EXT_robustness2",
                S::PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT,
            ),
            (
                "VK_KHR_shader_float16_int8",
                S::PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
            ),
            (
                "VK_KHR_sampler_ycbcr_conversion",
                S::PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES,
            ),
            (
                "VK_KHR_cooperative_matrix",
                S::PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
            ),
            (
                "VK_NV_cooperative_matrix",
                S::PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
            ),
            (
                "VK_EXT_subgroup_size_control",
                S::PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
            ),
            (
                "VK_KHR_shader_integer_dot_product",
                S::PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES,
            ),
            (
                "VK_KHR_shader_subgroup_extended_types",
                S::PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES,
            ),
            (
                "VK_EXT_shader_atomic_float",
                S::PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT,
            ),
            (
                "VK_EXT_shader_atomic_float2",
                S::PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_2_FEATURES_EXT,
            ),
            (
                "VK_KHR_vulkan_memory_model",
                S::PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
            ),
        ];
        for (ext, s) in known {
            let (_, raw, _) = FEATURE_STRUCTS.iter().find(|e| e.0 == ext).unwrap();
            assert_eq!(*raw, s.as_raw(), "{ext}");
        }
        assert_eq!(
            INT_DOT_PROPERTIES,
            S::PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES.as_raw()
        );
        for n in COOPERATIVE_MATRIX_2_PROPERTY_NAMES
            .iter()
            .chain(&COOPERATIVE_VECTOR_PROPERTY_NAMES)
        {
            assert!(
                ncnn_glsl_core::ext::OTHER_PROPERTIES
                    .iter()
                    .any(|(p, _)| p == n),
                "{n}"
            );
        }
        // Every group of the core's table has an sType here.
        for (exts, _) in EXTENSION_FEATURES {
            for e in *exts {
                assert!(FEATURE_STRUCTS.iter().any(|f| f.0 == *e), "{e}");
            }
        }
    }
}
