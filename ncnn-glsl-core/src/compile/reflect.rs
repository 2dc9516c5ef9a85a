//! What a compiled blob needs from the pipeline and the device, read from the
//! naga module (resources, sizes) and from the final SPIR-V words
//! (capabilities, extensions), so it is true of the blob that ships.

use naga::{AddressSpace, ArraySize, Handle, ImageClass, Module, StorageAccess, Type, TypeInner};

pub use crate::reflection::{
    Access, Binding, BindingKind, MemberScalar, MemberType, PushMember, Reflection, Requirements,
    ScalarValue, SpecConstant, Str,
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
    (
        5357,
        "CooperativeMatrixNV",
        Some("cooperativeMatrix"),
        Some("VK_NV_cooperative_matrix"),
    ),
    (
        6016,
        "DotProductInputAll",
        Some("shaderIntegerDotProduct"),
        Some("VK_KHR_shader_integer_dot_product"),
    ),
    (
        6017,
        "DotProductInput4x8Bit",
        Some("shaderIntegerDotProduct"),
        Some("VK_KHR_shader_integer_dot_product"),
    ),
    (
        6018,
        "DotProductInput4x8BitPacked",
        Some("shaderIntegerDotProduct"),
        Some("VK_KHR_shader_integer_dot_product"),
    ),
    (
        6019,
        "DotProduct",
        Some("shaderIntegerDotProduct"),
        Some("VK_KHR_shader_integer_dot_product"),
    ),
    (
        6022,
        "CooperativeMatrixKHR",
        Some("cooperativeMatrix"),
        Some("VK_KHR_cooperative_matrix"),
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
    if subgroup_operations_on_narrow_types(&insts) {
        features.push("shaderSubgroupExtendedTypes".into());
        extensions.push("VK_KHR_shader_subgroup_extended_types".into());
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

/// Whether a subgroup operation (`OpGroupNonUniform*`) yields an 8-, 16-
/// or 64-bit value, or compares one across the subgroup
/// (`subgroupAllEqual`, whose result is a `bool`): Vulkan asks
/// `shaderSubgroupExtendedTypes` for those (no capability says it).
fn subgroup_operations_on_narrow_types(insts: &[crate::spirv::Inst]) -> bool {
    const GROUP_NON_UNIFORM: std::ops::RangeInclusive<u16> = 333..=366;
    const ALL_EQUAL: u16 = 336;
    // Instructions whose first operand is not a result type.
    const NOT_VALUES: [u16; 15] = [5, 6, 7, 8, 15, 16, 71, 72, 73, 74, 75, 331, 332, 5632, 5633];
    let mut width = std::collections::HashMap::new();
    for i in insts {
        match (i.op, i.operand(0), i.operand(1)) {
            // Vulkan's extended types: 8, 16, 64-bit integers, 16-bit floats.
            (op::TYPE_INT, Some(id), Some(w)) => {
                width.insert(id, w);
            }
            (op::TYPE_FLOAT, Some(id), Some(w)) if w != 64 => {
                width.insert(id, w);
            }
            (op::TYPE_VECTOR, Some(id), Some(component)) => {
                if let Some(&w) = width.get(&component) {
                    width.insert(id, w);
                }
            }
            _ => {}
        }
    }
    let narrow = |ty: Option<u32>| ty.and_then(|t| width.get(&t)).is_some_and(|&w| w != 32);
    // The type of every value of a scalar or vector type.
    let value_type: std::collections::HashMap<u32, u32> = insts
        .iter()
        .filter(|i| !NOT_VALUES.contains(&i.op))
        .filter_map(|i| Some((i.operand(1)?, i.operand(0)?)))
        .filter(|(_, ty)| width.contains_key(ty))
        .collect();
    insts.iter().any(|i| {
        GROUP_NON_UNIFORM.contains(&i.op)
            && (narrow(i.operand(0))
                || (i.op == ALL_EQUAL
                    && narrow(i.operand(3).and_then(|v| value_type.get(&v).copied()))))
    })
}

/// The resources a module declares.
pub(crate) struct Resources {
    /// Every binding, by set then binding.
    pub bindings: Vec<Binding>,
    /// The push-constant bytes the host provides.
    pub push_constant_size: u32,
    /// The push-constant block's members.
    pub push_constants: Vec<PushMember>,
}

/// The resources of `module`; `writeonly` holds the `(set, binding)` of
/// buffers declared `writeonly` before the qualifier was dropped.
pub(crate) fn resources(module: &Module, writeonly: &[(u32, u32)]) -> Resources {
    let mut bindings = Vec::new();
    let mut push = 0;
    let mut push_constants = Vec::new();
    for (_, var) in module.global_variables.iter() {
        let ty = &module.types[var.ty];
        if var.space == AddressSpace::Immediate {
            // The bytes the host must provide: the end of the last member
            // (the struct's span is rounded up to its alignment; glslang's
            // reflection and ncnn's host structs are not).
            let end = match &ty.inner {
                TypeInner::Struct { members, .. } => {
                    for m in members {
                        let ty = member_type(module, m.ty);
                        push_constants.push(PushMember {
                            name: m.name.clone().unwrap_or_default().into(),
                            offset: m.offset,
                            size: module.types[m.ty].inner.size(module.to_ctx()),
                            ty,
                        });
                    }
                    members
                        .iter()
                        .map(|m| m.offset + module.types[m.ty].inner.size(module.to_ctx()))
                        .max()
                        .unwrap_or(0)
                }
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
        let (min_size, array_stride) = match kind {
            BindingKind::StorageBuffer | BindingKind::UniformBuffer => buffer_sizes(module, var.ty),
            _ => (0, 0),
        };
        bindings.push(Binding {
            set: rb.group,
            binding: rb.binding,
            kind,
            access,
            name: name.into(),
            instance: instance.map(Str::from),
            min_size,
            array_stride,
        });
    }
    bindings.sort_by_key(|b| (b.set, b.binding));
    push_constants.sort_by_key(|m| m.offset);
    Resources {
        bindings,
        push_constant_size: push,
        push_constants,
    }
}

/// The smallest buffer a block may be given, and the stride of its
/// runtime-sized last member (0 without one): the fixed-size part and one
/// element, or the whole block. The element counts because the bounds clamp
/// is `min(i, length - 1)`, which an empty array would wrap to no clamp.
fn buffer_sizes(module: &Module, ty: Handle<Type>) -> (u64, u64) {
    let stride_of = |t: Handle<Type>| match module.types[t].inner {
        TypeInner::Array {
            size: ArraySize::Dynamic,
            stride,
            ..
        } => Some(u64::from(stride)),
        _ => None,
    };
    let inner = &module.types[ty].inner;
    let runtime_sized = match inner {
        TypeInner::Struct { members, .. } => members
            .last()
            .and_then(|m| Some((u64::from(m.offset), stride_of(m.ty)?))),
        _ => stride_of(ty).map(|s| (0, s)),
    };
    match runtime_sized {
        Some((offset, stride)) => (offset + stride, stride),
        None => (u64::from(inner.size(module.to_ctx())), 0),
    }
}

/// A push-constant member's type as a host struct sees it.
fn member_type(module: &Module, ty: Handle<Type>) -> MemberType {
    let scalar_of = |s: naga::Scalar| match (s.kind, s.width) {
        (naga::ScalarKind::Bool, _) => MemberScalar::Bool,
        (naga::ScalarKind::Sint, 4) => MemberScalar::Int,
        (naga::ScalarKind::Uint, 4) => MemberScalar::Uint,
        (naga::ScalarKind::Float, 4) => MemberScalar::Float,
        (naga::ScalarKind::Float, 2) => MemberScalar::Float16,
        (naga::ScalarKind::Float, 8) => MemberScalar::Double,
        _ => MemberScalar::Other,
    };
    let plain = |scalar, rows: u32, columns: u32, column_stride: u32| MemberType {
        scalar,
        rows,
        columns,
        column_stride,
        array_len: 0,
        array_stride: 0,
        glsl: "".into(),
    };
    let mut t = match &module.types[ty].inner {
        TypeInner::Scalar(s) => plain(scalar_of(*s), 1, 1, 0),
        TypeInner::Vector { size, scalar } => plain(scalar_of(*scalar), *size as u32, 1, 0),
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => {
            // naga sizes a matrix as its columns times the column stride.
            let size = module.types[ty].inner.size(module.to_ctx());
            plain(
                scalar_of(*scalar),
                *rows as u32,
                *columns as u32,
                size / *columns as u32,
            )
        }
        TypeInner::Array {
            base,
            size: ArraySize::Constant(n),
            stride,
        } => {
            let mut e = member_type(module, *base);
            if e.array_len != 0 {
                e.scalar = MemberScalar::Other;
            }
            e.array_len = n.get();
            e.array_stride = *stride;
            e
        }
        _ => plain(MemberScalar::Other, 1, 1, 0),
    };
    t.glsl = glsl_name(module, ty).into();
    t
}

/// The GLSL spelling of a type, for messages.
fn glsl_name(module: &Module, ty: Handle<Type>) -> String {
    let t = &module.types[ty];
    let prefix = |s: naga::Scalar| match (s.kind, s.width) {
        (naga::ScalarKind::Bool, _) => "b",
        (naga::ScalarKind::Sint, _) => "i",
        (naga::ScalarKind::Uint, _) => "u",
        (naga::ScalarKind::Float, 2) => "f16",
        (naga::ScalarKind::Float, 8) => "d",
        _ => "",
    };
    let scalar = |s: naga::Scalar| {
        match (s.kind, s.width) {
            (naga::ScalarKind::Bool, _) => "bool",
            (naga::ScalarKind::Sint, _) => "int",
            (naga::ScalarKind::Uint, _) => "uint",
            (naga::ScalarKind::Float, 2) => "float16_t",
            (naga::ScalarKind::Float, 8) => "double",
            _ => "float",
        }
        .to_string()
    };
    match &t.inner {
        TypeInner::Scalar(s) => scalar(*s),
        TypeInner::Vector { size, scalar } => format!("{}vec{}", prefix(*scalar), *size as u32),
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } if columns == rows => format!("{}mat{}", prefix(*scalar), *columns as u32),
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => format!("{}mat{}x{}", prefix(*scalar), *columns as u32, *rows as u32),
        TypeInner::Array {
            base,
            size: ArraySize::Constant(n),
            ..
        } => format!("{}[{n}]", glsl_name(module, *base)),
        _ => t.name.clone().unwrap_or_else(|| "struct".into()),
    }
}
