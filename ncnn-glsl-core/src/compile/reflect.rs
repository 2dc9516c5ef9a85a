//! What a compiled blob needs from the pipeline and the device, read from the
//! naga module (resources, sizes) and from the final SPIR-V words
//! (capabilities, extensions), so it is true of the blob that ships.

use naga::{AddressSpace, ImageClass, Module, StorageAccess, TypeInner};

pub use crate::reflection::{
    Access, Binding, BindingKind, Reflection, Requirements, ScalarValue, SpecConstant, Str,
};
use crate::spirv::{op, walk};

/// SPIR-V capability: its name, the Vulkan feature it needs, the Vulkan extension that brings it.
const CAPABILITIES: &[(u32, &str, Option<&str>, Option<&str>)] = &[
    (0, "Matrix", None, None),
    (1, "Shader", None, None),
    (
        9,
        "Float16",
        Some("shaderFloat16"),
        Some("VK_KHR_shader_float16_int8"),
    ),
    (10, "Float64", Some("shaderFloat64"), None),
    (11, "Int64", Some("shaderInt64"), None),
    (
        12,
        "Int64Atomics",
        Some("shaderBufferInt64Atomics"),
        Some("VK_KHR_shader_atomic_int64"),
    ),
    (22, "Int16", Some("shaderInt16"), None),
    (
        25,
        "ImageGatherExtended",
        Some("shaderImageGatherExtended"),
        None,
    ),
    (
        27,
        "StorageImageMultisample",
        Some("shaderStorageImageMultisample"),
        None,
    ),
    (
        28,
        "UniformBufferArrayDynamicIndexing",
        Some("shaderUniformBufferArrayDynamicIndexing"),
        None,
    ),
    (
        29,
        "SampledImageArrayDynamicIndexing",
        Some("shaderSampledImageArrayDynamicIndexing"),
        None,
    ),
    (
        30,
        "StorageBufferArrayDynamicIndexing",
        Some("shaderStorageBufferArrayDynamicIndexing"),
        None,
    ),
    (
        31,
        "StorageImageArrayDynamicIndexing",
        Some("shaderStorageImageArrayDynamicIndexing"),
        None,
    ),
    (34, "ImageCubeArray", Some("imageCubeArray"), None),
    (
        39,
        "Int8",
        Some("shaderInt8"),
        Some("VK_KHR_shader_float16_int8"),
    ),
    (41, "SparseResidency", Some("shaderResourceResidency"), None),
    (42, "MinLod", Some("shaderResourceMinLod"), None),
    (43, "Sampled1D", None, None),
    (44, "Image1D", None, None),
    (45, "SampledCubeArray", Some("imageCubeArray"), None),
    (46, "SampledBuffer", None, None),
    (47, "ImageBuffer", None, None),
    (
        49,
        "StorageImageExtendedFormats",
        Some("shaderStorageImageExtendedFormats"),
        None,
    ),
    (50, "ImageQuery", None, None),
    (
        55,
        "StorageImageReadWithoutFormat",
        Some("shaderStorageImageReadWithoutFormat"),
        None,
    ),
    (
        56,
        "StorageImageWriteWithoutFormat",
        Some("shaderStorageImageWriteWithoutFormat"),
        None,
    ),
    // Subgroup operations are properties (`subgroupSupportedOperations`), not features.
    (61, "GroupNonUniform", None, None),
    (62, "GroupNonUniformVote", None, None),
    (63, "GroupNonUniformArithmetic", None, None),
    (64, "GroupNonUniformBallot", None, None),
    (65, "GroupNonUniformShuffle", None, None),
    (66, "GroupNonUniformShuffleRelative", None, None),
    (67, "GroupNonUniformClustered", None, None),
    (68, "GroupNonUniformQuad", None, None),
    (
        4433,
        "StorageBuffer16BitAccess",
        Some("storageBuffer16BitAccess"),
        Some("VK_KHR_16bit_storage"),
    ),
    (
        4434,
        "UniformAndStorageBuffer16BitAccess",
        Some("uniformAndStorageBuffer16BitAccess"),
        Some("VK_KHR_16bit_storage"),
    ),
    (
        4435,
        "StoragePushConstant16",
        Some("storagePushConstant16"),
        Some("VK_KHR_16bit_storage"),
    ),
    (
        4436,
        "StorageInputOutput16",
        Some("storageInputOutput16"),
        Some("VK_KHR_16bit_storage"),
    ),
    (
        4448,
        "StorageBuffer8BitAccess",
        Some("storageBuffer8BitAccess"),
        Some("VK_KHR_8bit_storage"),
    ),
    (
        4449,
        "UniformAndStorageBuffer8BitAccess",
        Some("uniformAndStorageBuffer8BitAccess"),
        Some("VK_KHR_8bit_storage"),
    ),
    (
        4450,
        "StoragePushConstant8",
        Some("storagePushConstant8"),
        Some("VK_KHR_8bit_storage"),
    ),
    (
        5345,
        "VulkanMemoryModel",
        Some("vulkanMemoryModel"),
        Some("VK_KHR_vulkan_memory_model"),
    ),
];

/// Requirements of a SPIR-V module, from its `OpCapability` and `OpExtension`
/// words. Of a module whose framing breaks, those before the break (none when
/// the header is bad).
pub fn requirements(words: &[u32]) -> Requirements {
    // Capabilities and extensions come first in a module; a break after them
    // does not change what it asks for.
    let insts: Vec<_> = walk(words).map_while(Result::ok).collect();
    let mut capabilities: Vec<Str> = Vec::new();
    let mut features: Vec<Str> = Vec::new();
    let mut extensions: Vec<Str> = Vec::new();
    let declared = insts
        .iter()
        .filter(|i| i.op == op::CAPABILITY)
        .filter_map(|i| i.operand(0));
    for c in declared {
        match CAPABILITIES.iter().find(|e| e.0 == c) {
            Some(&(_, name, feature, ext)) => {
                capabilities.push(name.into());
                features.extend(feature.map(Str::from));
                extensions.extend(ext.map(Str::from));
            }
            None => capabilities.push(format!("Capability{c}").into()),
        }
    }
    features.sort();
    features.dedup();
    extensions.sort();
    extensions.dedup();
    Requirements {
        features: features.into(),
        extensions: extensions.into(),
        spirv_capabilities: capabilities.into(),
        spirv_extensions: insts
            .iter()
            .filter(|i| i.op == op::EXTENSION)
            .map(|i| Str::from(i.string(0)))
            .collect::<Vec<_>>()
            .into(),
    }
}

/// Bindings and the push-constant size of `module`; `writeonly` holds the
/// `(set, binding)` of buffers declared `writeonly` before the qualifier was dropped.
pub(crate) fn resources(module: &Module, writeonly: &[(u32, u32)]) -> (Vec<Binding>, u32) {
    let mut bindings = Vec::new();
    let mut push = 0;
    for (_, var) in module.global_variables.iter() {
        let ty = &module.types[var.ty];
        if var.space == AddressSpace::Immediate {
            // The bytes the host must provide: the end of the last member
            // (the struct's span is rounded up to its alignment; glslang's
            // reflection and ncnn's host structs are not).
            let end = match &ty.inner {
                TypeInner::Struct { members, .. } => members
                    .iter()
                    .map(|m| m.offset + module.types[m.ty].inner.size(module.to_ctx()))
                    .max()
                    .unwrap_or(0),
                other => other.size(module.to_ctx()),
            };
            push = push.max(end);
            continue;
        }
        let Some(rb) = var.binding else { continue };
        let image_access = |a: StorageAccess| match (
            a.contains(StorageAccess::LOAD),
            a.contains(StorageAccess::STORE),
        ) {
            (true, false) => Access::ReadOnly,
            (false, true) => Access::WriteOnly,
            _ => Access::ReadWrite,
        };
        let block = || {
            ty.name
                .clone()
                .or_else(|| var.name.clone())
                .unwrap_or_default()
        };
        let (kind, access, name, instance) = match (var.space, &ty.inner) {
            (AddressSpace::Storage { access }, _) => {
                let a = if writeonly.contains(&(rb.group, rb.binding)) {
                    Access::WriteOnly
                } else {
                    image_access(access)
                };
                (BindingKind::StorageBuffer, a, block(), var.name.clone())
            }
            (AddressSpace::Uniform, _) => (
                BindingKind::UniformBuffer,
                Access::ReadOnly,
                block(),
                var.name.clone(),
            ),
            (
                AddressSpace::Handle,
                TypeInner::Image {
                    class: ImageClass::Storage { access, .. },
                    ..
                },
            ) => (
                BindingKind::StorageImage,
                image_access(*access),
                var.name.clone().unwrap_or_default(),
                None,
            ),
            (AddressSpace::Handle, TypeInner::Image { .. }) => (
                BindingKind::SampledImage,
                Access::ReadOnly,
                var.name.clone().unwrap_or_default(),
                None,
            ),
            (AddressSpace::Handle, TypeInner::Sampler { .. }) => (
                BindingKind::Sampler,
                Access::ReadOnly,
                var.name.clone().unwrap_or_default(),
                None,
            ),
            _ => continue,
        };
        bindings.push(Binding {
            set: rb.group,
            binding: rb.binding,
            kind,
            access,
            name: name.into(),
            instance: instance.map(Str::from),
        });
    }
    bindings.sort_by_key(|b| (b.set, b.binding));
    (bindings, push)
}
