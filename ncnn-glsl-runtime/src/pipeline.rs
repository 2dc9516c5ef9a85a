//! Compute pipelines from a compiled blob: the shader module, layouts from
//! the blob's reflection, the local size patched into the SPIR-V, the
//! specialization constants checked against the reflection (the driver's
//! cache on disk is `pipeline_cache.rs`'s).

use std::sync::Arc;

use ash::vk;
use ncnn_glsl_core::reflection::{BindingKind, SUBGROUP_OPERATIONS};
use ncnn_glsl_core::spirv;
use ncnn_glsl_core::variant::{Blob, Variant, VariantSet};
use ncnn_glsl_core::DeviceCaps;

use crate::blob_check;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::pipeline_cache::PipelineCache;

/// A value for one specialization constant (`layout(constant_id = N) const`).
/// Its type must be the constant's declared type: `bool`, `int`, `uint`, `float`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpecValue {
    /// For a `bool`.
    Bool(bool),
    /// For an `int`.
    Int(i32),
    /// For a `uint`.
    Uint(u32),
    /// For a `float`.
    Float(f32),
}

impl SpecValue {
    /// The GLSL type it is for.
    pub fn type_name(self) -> &'static str {
        match self {
            SpecValue::Bool(_) => "bool",
            SpecValue::Int(_) => "int",
            SpecValue::Uint(_) => "uint",
            SpecValue::Float(_) => "float",
        }
    }

    /// The 4 bytes Vulkan reads (`VkBool32` for a bool).
    fn bytes(self) -> [u8; 4] {
        match self {
            SpecValue::Bool(b) => u32::from(b).to_ne_bytes(),
            SpecValue::Int(v) => v.to_ne_bytes(),
            SpecValue::Uint(v) => v.to_ne_bytes(),
            SpecValue::Float(v) => v.to_ne_bytes(),
        }
    }
}

impl std::fmt::Display for SpecValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpecValue::Bool(v) => write!(f, "{v} (bool)"),
            SpecValue::Int(v) => write!(f, "{v} (int)"),
            SpecValue::Uint(v) => write!(f, "{v}u (uint)"),
            SpecValue::Float(v) => write!(f, "{v:?} (float)"),
        }
    }
}

/// What a pipeline is built with besides its blob.
#[derive(Clone, Copy, Debug, Default)]
pub struct PipelineOptions<'a> {
    /// The local size: every dimension of a shader that declares none (as
    /// ncnn's shaders, whose layers set it per pipeline:
    /// [`ncnn_local_size`](crate::ncnn_local_size),
    /// [`optimal_local_size`](crate::optimal_local_size)), and those a shader
    /// declares with `local_size_*_id`. Other dimensions must equal the
    /// compiled size; `None` keeps the compiled one (1 where not declared).
    pub local_size: Option<[u32; 3]>,
    /// Values for specialization constants, by `constant_id`: each id must be
    /// one the blob's reflection lists, with a value of its type. Constants
    /// not given keep their defaults.
    pub specialization: &'a [(u32, SpecValue)],
}

/// One descriptor of a pipeline, in the order buffers are passed to a dispatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Descriptor set.
    pub set: u32,
    /// Binding in the set.
    pub binding: u32,
    /// Storage or uniform buffer.
    pub kind: BindingKind,
    /// The block's name, for error messages.
    pub name: String,
    /// Bytes of the block's fixed-size part: a smaller buffer is refused.
    pub min_size: u64,
    /// The stride of the block's runtime-sized array (0 without one): the
    /// buffer holds whole elements of it.
    pub array_stride: u64,
}

/// A compute pipeline and its layouts.
pub struct Pipeline {
    pub(crate) ctx: Arc<Context>,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    pub(crate) set_layouts: Vec<vk::DescriptorSetLayout>,
    pub(crate) slots: Vec<Slot>,
    pub(crate) push_constant_size: u32,
    pub(crate) local_size: [u32; 3],
    pub(crate) name: String,
    cache_loaded: bool,
    /// The address of the blob it was made from: its identity, which typed
    /// dispatches are checked against.
    blob: usize,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("name", &self.name)
            .field("slots", &self.slots)
            .field("push_constant_size", &self.push_constant_size)
            .field("local_size", &self.local_size)
            .finish()
    }
}

impl Pipeline {
    /// The pipeline of `variant`, a variant of `set` (chosen with
    /// [`Context::select`]), with `options` (local size, specialization
    /// constants; `&PipelineOptions::default()` keeps the compiled ones).
    pub fn for_variant(
        ctx: &Arc<Context>,
        set: &VariantSet,
        variant: &Variant,
        options: &PipelineOptions,
    ) -> Result<Pipeline> {
        let name = format!("`{}` ({})", set.name, variant.target);
        Pipeline::new(ctx, &name, variant.blob, options)
    }

    /// The pipeline of one blob, with `options`; `name` appears in error
    /// messages.
    pub fn new(
        ctx: &Arc<Context>,
        name: &str,
        blob: &Blob,
        options: &PipelineOptions,
    ) -> Result<Pipeline> {
        let local_size = options.local_size;
        let r = &blob.reflection();
        // Features first: creating a module for a device that cannot run it
        // is invalid usage, which a driver may answer with anything.
        for f in r.requirements.features.iter() {
            if !ctx.enabled_caps().feature(f) {
                return Err(Error::FeatureMissing {
                    feature: f.to_string(),
                    shader: name.to_string(),
                    not_enabled: ctx.caps().feature(f),
                });
            }
        }
        subgroup_operations(ctx.caps(), name, r.requirements.subgroup_operations())?;
        // The reflection against the words, the words against the limits:
        // a pipeline layout the shader overruns crashes drivers.
        let size = resolve_local_size(r.local_size, r.local_size_spec_ids, local_size)?;
        let spec = specialization(name, r, options.specialization, size)?;
        let spec_words: Vec<(u32, &'static str, u32)> = spec
            .iter()
            .map(|(id, v)| (*id, v.type_name(), u32::from_ne_bytes(v.bytes())))
            .collect();
        // The first use of an embedded blob decompresses its words (once).
        let words = blob.spirv();
        let read = blob_check::check(name, words, r, ctx.limits(), &spec_words, size)?;
        crate::coopmat::check(name, &read, ctx.caps())?;
        let (spec_entries, spec_data) = spec_map(&spec);
        let mut spirv = words.to_vec();
        // The walk is also the runtime's own check of the blob: a driver is
        // not required to validate SPIR-V, and some crash on garbage, so what
        // is not well-framed SPIR-V with a compute entry point never reaches it.
        spirv::patch_local_size(&mut spirv, size).map_err(|reason| Error::BlobRejected {
            shader: name.to_string(),
            reason,
        })?;
        check_local_size(size, ctx.limits())?;
        if r.push_constant_size > ctx.limits().max_push_constants_size {
            return Err(Error::bad(
                format!("push-constant size of {name}"),
                r.push_constant_size,
                format!(
                    "maxPushConstantsSize is {}",
                    ctx.limits().max_push_constants_size
                ),
            ));
        }

        let mut slots: Vec<Slot> = Vec::new();
        for b in r.bindings.iter() {
            let kind = match b.kind {
                BindingKind::StorageBuffer | BindingKind::UniformBuffer => b.kind,
                other => {
                    return Err(Error::BlobRejected {
                        shader: name.to_string(),
                        reason: format!(
                            "binding {}.{} `{}` is a {other:?}; this runtime binds buffers only",
                            b.set, b.binding, b.name
                        ),
                    })
                }
            };
            slots.push(Slot {
                set: b.set,
                binding: b.binding,
                kind,
                name: b.name.to_string(),
                min_size: b.min_size,
                array_stride: b.array_stride,
            });
        }
        slots.sort_by_key(|s| (s.set, s.binding));

        let d = ctx.device();
        let mut p = Pipeline {
            ctx: ctx.clone(),
            pipeline: vk::Pipeline::null(),
            layout: vk::PipelineLayout::null(),
            set_layouts: Vec::new(),
            slots,
            push_constant_size: r.push_constant_size,
            local_size: size,
            name: name.to_string(),
            cache_loaded: false,
            blob: blob as *const Blob as usize,
        };
        // From here, `p`'s Drop destroys whatever was made on an early return.
        // A pipeline layout names every set below the highest; the sets no
        // binding uses share one empty layout.
        let set_count = p.slots.iter().map(|s| s.set + 1).max().unwrap_or(0);
        let mut empty = None;
        for set in 0..set_count {
            let bindings: Vec<vk::DescriptorSetLayoutBinding> = p
                .slots
                .iter()
                .filter(|s| s.set == set)
                .map(|s| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(s.binding)
                        .descriptor_type(descriptor_type(s.kind))
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            if let (true, Some(l)) = (bindings.is_empty(), empty) {
                p.set_layouts.push(l);
                continue;
            }
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            // SAFETY: `bindings` outlives the call; their numbers are distinct
            // (`blob_check` refuses a binding listed twice).
            let l = unsafe { d.create_descriptor_set_layout(&info, None) }
                .map_err(|e| Error::vk("vkCreateDescriptorSetLayout", e))?;
            if bindings.is_empty() {
                empty = Some(l);
            }
            p.set_layouts.push(l);
        }
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(r.push_constant_size)];
        let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&p.set_layouts);
        if r.push_constant_size > 0 {
            layout_info = layout_info.push_constant_ranges(&ranges);
        }
        // SAFETY: the set layouts are this device's and alive, at most
        // maxBoundDescriptorSets; the push range is a multiple of 4 within
        // maxPushConstantsSize (both checked above).
        p.layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
            .map_err(|e| Error::vk("vkCreatePipelineLayout", e))?;

        let module_info = vk::ShaderModuleCreateInfo::default().code(&spirv);
        // SAFETY: `spirv` outlives the call: the words of a `Blob`, valid SPIR-V
        // by the contract of `Blob::new` or `Blob::compressed` and framed by
        // our own walk, whose features are enabled (checked first).
        let module = unsafe { d.create_shader_module(&module_info, None) }
            .map_err(|e| rejected(name, "vkCreateShaderModule", e))?;

        let cache = PipelineCache::open(ctx, &spirv);
        p.cache_loaded = cache.loaded();

        let spec_info = vk::SpecializationInfo::default()
            .map_entries(&spec_entries)
            .data(&spec_data);
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        if !spec_entries.is_empty() {
            stage = stage.specialization_info(&spec_info);
        }
        // DISPATCH_BASE: `vkCmdDispatchBase` needs it, to run a grid as
        // several pieces (`Dispatch::max_piece`).
        let mut flags = vk::PipelineCreateFlags::DISPATCH_BASE;
        if ctx.options().pipeline_statistics {
            flags |= vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
                | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
        }
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(p.layout)
            .flags(flags)];
        // SAFETY: module, layout, stage, `c"main"` and the specialization data
        // outlive the call; the cache is this device's or null; `blob_check`
        // matched the interface to the layout and the limits.
        let created = unsafe { d.create_compute_pipelines(cache.handle(), &info, None) };
        // SAFETY: creation has returned, and nothing else uses the module.
        unsafe { d.destroy_shader_module(module, None) };
        match created {
            Ok(v) => p.pipeline = v[0],
            Err((_, e)) => return Err(rejected(name, "vkCreateComputePipelines", e)),
        }
        cache.save();
        Ok(p)
    }

    /// Whether it was made from `blob`.
    pub(crate) fn is_blob(&self, blob: &Blob) -> bool {
        self.blob == blob as *const Blob as usize
    }

    /// The buffers a dispatch binds, in order.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The local size the pipeline was made with.
    pub fn local_size(&self) -> [u32; 3] {
        self.local_size
    }

    /// Bytes of push constants a dispatch must give.
    pub fn push_constant_size(&self) -> u32 {
        self.push_constant_size
    }

    /// Whether a saved pipeline cache passed the checks and was handed to the driver.
    pub fn cache_loaded(&self) -> bool {
        self.cache_loaded
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        let d = self.ctx.device();
        // SAFETY: these are this device's (null where `new` stopped early); no
        // pending work uses them, as every submission binding the pipeline was
        // waited for; the shared empty layout is destroyed once.
        unsafe {
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            // The empty layout may stand for several sets: destroyed once.
            let mut destroyed = Vec::new();
            for l in &self.set_layouts {
                if !destroyed.contains(l) {
                    destroyed.push(*l);
                    d.destroy_descriptor_set_layout(*l, None);
                }
            }
        }
    }
}

pub(crate) fn descriptor_type(kind: BindingKind) -> vk::DescriptorType {
    match kind {
        BindingKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        _ => vk::DescriptorType::STORAGE_BUFFER,
    }
}

fn rejected(name: &str, call: &'static str, e: vk::Result) -> Error {
    match Error::vk(call, e) {
        Error::Vulkan { call, result } => Error::BlobRejected {
            shader: name.to_string(),
            reason: format!("{call} returned {result:?}"),
        },
        other => other,
    }
}

/// The local size to build: `wanted` where the shader has a `local_size_*_id`
/// for that dimension, else it must equal the compiled one (the shader's code
/// may depend on a literal size, e.g. shared arrays).
pub(crate) fn resolve_local_size(
    compiled: [u32; 3],
    spec_ids: [Option<u32>; 3],
    wanted: Option<[u32; 3]>,
) -> Result<[u32; 3]> {
    let Some(wanted) = wanted else {
        return Ok(compiled);
    };
    for i in 0..3 {
        if spec_ids[i].is_none() && wanted[i] != compiled[i] {
            return Err(Error::bad(
                format!("local size {}", ["x", "y", "z"][i]),
                wanted[i],
                format!(
                    "the shader fixes it at {} (only a dimension it declares with \
                     local_size_*_id, or any of a shader that declares no local size, can be set)",
                    compiled[i]
                ),
            ));
        }
    }
    Ok(wanted)
}

/// The specialization of a pipeline: the values given, each checked against
/// the reflection (known id, declared type, given once, not a local-size id),
/// then the local size of each `local_size_*_id` dimension (a blob can hold a
/// WorkgroupSize specialization composite built from those ids, which must
/// agree with the patched `LocalSize`).
pub(crate) fn specialization(
    name: &str,
    r: &ncnn_glsl_core::reflection::Reflection,
    given: &[(u32, SpecValue)],
    size: [u32; 3],
) -> Result<Vec<(u32, SpecValue)>> {
    let mut out: Vec<(u32, SpecValue)> = Vec::new();
    for &(id, value) in given {
        let what = format!("specialization constant {id} of {name}");
        if r.local_size_spec_ids.contains(&Some(id)) {
            return Err(Error::bad(
                what,
                value,
                "it is a local_size_*_id: set it with the local size",
            ));
        }
        let Some(decl) = r.spec_constants.iter().find(|s| s.id == id) else {
            let known: Vec<String> = r
                .spec_constants
                .iter()
                .map(|s| format!("{} `{}` {}", s.id, s.name, s.ty))
                .collect();
            return Err(Error::bad(
                what,
                value,
                format!(
                    "the shader declares no constant_id {id} (it declares: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
        };
        if decl.ty != value.type_name() {
            return Err(Error::bad(
                format!("specialization constant {id} `{}` of {name}", decl.name),
                value,
                format!("it is declared `{}`", decl.ty),
            ));
        }
        if out.iter().any(|(i, _)| *i == id) {
            return Err(Error::bad(what, value, "it is given twice"));
        }
        out.push((id, value));
    }
    for (dim, id) in r.local_size_spec_ids.iter().enumerate() {
        if let Some(id) = id {
            out.push((*id, SpecValue::Uint(size[dim])));
        }
    }
    Ok(out)
}

/// Vulkan's map entries and data for `spec`.
fn spec_map(spec: &[(u32, SpecValue)]) -> (Vec<vk::SpecializationMapEntry>, Vec<u8>) {
    let mut entries = Vec::new();
    let mut data = Vec::new();
    for (id, v) in spec {
        entries.push(
            vk::SpecializationMapEntry::default()
                .constant_id(*id)
                .offset(data.len() as u32)
                .size(4),
        );
        data.extend_from_slice(&v.bytes());
    }
    (entries, data)
}

/// Checks a local size against `maxComputeWorkGroupSize` and `...Invocations`.
pub(crate) fn check_local_size(size: [u32; 3], l: &vk::PhysicalDeviceLimits) -> Result<()> {
    for i in 0..3 {
        let max = l.max_compute_work_group_size[i];
        if size[i] == 0 || size[i] > max {
            return Err(Error::bad(
                format!("local size {}", ["x", "y", "z"][i]),
                size[i],
                format!("it must be 1..={max} (maxComputeWorkGroupSize[{i}])"),
            ));
        }
    }
    let n = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
    if n > u64::from(l.max_compute_work_group_invocations) {
        return Err(Error::bad(
            "local size x*y*z",
            n,
            format!(
                "maxComputeWorkGroupInvocations is {}",
                l.max_compute_work_group_invocations
            ),
        ));
    }
    Ok(())
}

/// `VK_SHADER_STAGE_COMPUTE_BIT`, as `supportedStages` holds it.
const COMPUTE_STAGE: u64 = 0x20;

/// `Ok` where the device supports the subgroup operations `needed`
/// (`VkSubgroupFeatureFlagBits`) in compute shaders: like a missing feature,
/// a module that uses more is invalid usage.
fn subgroup_operations(caps: &DeviceCaps, shader: &str, needed: u32) -> Result<()> {
    if needed == 0 {
        return Ok(());
    }
    let supported = caps.property("supportedOperations").unwrap_or(0);
    let in_compute = caps.property("supportedStages").unwrap_or(0) & COMPUTE_STAGE != 0;
    let missing: Vec<&str> = SUBGROUP_OPERATIONS
        .iter()
        .filter(|(_, bit, _)| {
            needed & bit != 0 && (!in_compute || supported & u64::from(*bit) == 0)
        })
        .map(|(_, _, name)| *name)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::SubgroupOperationsMissing {
        shader: shader.to_string(),
        missing: missing.join(", "),
        in_compute,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subgroup_operations_are_checked_against_the_device() {
        let mut caps = DeviceCaps::default();
        assert!(subgroup_operations(&caps, "s", 0).is_ok());
        let e = subgroup_operations(&caps, "s", 0x1 | 0x4).unwrap_err();
        assert!(e.to_string().contains("in compute shaders"), "{e}");
        caps.properties
            .insert("supportedStages".into(), COMPUTE_STAGE);
        caps.properties
            .insert("supportedOperations".into(), 0x1 | 0x8);
        assert!(subgroup_operations(&caps, "s", 0x1 | 0x8).is_ok());
        let e = subgroup_operations(&caps, "s", 0x1 | 0x4 | 0x10).unwrap_err();
        assert!(
            e.to_string()
                .contains("needs the subgroup operations arithmetic, shuffle, which the device does not support"),
            "{e}"
        );
    }

    #[test]
    fn local_size_rules() {
        assert_eq!(
            resolve_local_size([64, 1, 1], [None; 3], None).unwrap(),
            [64, 1, 1]
        );
        let e = resolve_local_size([64, 1, 1], [None; 3], Some([32, 1, 1])).unwrap_err();
        assert!(e.to_string().contains("local size x = 32"), "{e}");
        let ids = [Some(233), Some(234), None];
        assert_eq!(
            resolve_local_size([1, 1, 1], ids, Some([8, 8, 1])).unwrap(),
            [8, 8, 1]
        );
        let l = vk::PhysicalDeviceLimits {
            max_compute_work_group_size: [1024, 1024, 64],
            max_compute_work_group_invocations: 1024,
            ..Default::default()
        };
        check_local_size([1024, 1, 1], &l).unwrap();
        let e = check_local_size([1, 1, 65], &l).unwrap_err();
        assert!(e.to_string().contains("local size z = 65"), "{e}");
        assert!(e.to_string().contains("maxComputeWorkGroupSize[2]"), "{e}");
        let e = check_local_size([64, 32, 1], &l).unwrap_err();
        assert!(e.to_string().contains("2048"), "{e}");
        assert!(
            e.to_string()
                .contains("maxComputeWorkGroupInvocations is 1024"),
            "{e}"
        );
    }

    #[test]
    fn specialization_values_are_checked_against_the_reflection() {
        use ncnn_glsl_core::reflection::{Reflection, SpecConstant};
        let r = Reflection {
            local_size_spec_ids: [Some(233), None, None],
            spec_constants: vec![SpecConstant {
                id: 0,
                name: "w".into(),
                ty: "int".into(),
                default: None,
            }]
            .into(),
            ..Default::default()
        };
        let ok = specialization("s", &r, &[(0, SpecValue::Int(3))], [8, 1, 1]).unwrap();
        assert_eq!(ok, [(0, SpecValue::Int(3)), (233, SpecValue::Uint(8))]);
        let e = specialization("s", &r, &[(5, SpecValue::Int(3))], [8, 1, 1]).unwrap_err();
        assert!(
            e.to_string()
                .contains("no constant_id 5 (it declares: 0 `w` int)"),
            "{e}"
        );
        let e = specialization("s", &r, &[(0, SpecValue::Float(1.5))], [8, 1, 1]).unwrap_err();
        assert!(e.to_string().contains("constant 0 `w`"), "{e}");
        assert!(e.to_string().contains("1.5 (float)"), "{e}");
        assert!(e.to_string().contains("declared `int`"), "{e}");
        let e = specialization("s", &r, &[(233, SpecValue::Uint(4))], [8, 1, 1]).unwrap_err();
        assert!(e.to_string().contains("local_size_*_id"), "{e}");
        let twice = [(0, SpecValue::Int(1)), (0, SpecValue::Int(2))];
        assert!(specialization("s", &r, &twice, [8, 1, 1]).is_err());
    }
}
