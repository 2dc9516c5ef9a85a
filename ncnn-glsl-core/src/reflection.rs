//! What a compiled blob needs from the pipeline and the device: bindings,
//! push constants, local size, specialization constants, device features.
//!
//! Plain data, without naga: built by the compiler, embedded as `'static`
//! data by `include_ncnn_shader!` (hence `Cow`: owned when built, borrowed
//! when embedded), read by the runtime.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// A string that is owned when built and `'static` when embedded.
pub type Str = Cow<'static, str>;

/// Everything a runtime needs to build a pipeline for one compiled shader.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    /// Descriptor bindings, by set then binding.
    pub bindings: Cow<'static, [Binding]>,
    /// Bytes of the push-constant block the host must provide (the end of
    /// its last member, std430); 0 when there is none.
    pub push_constant_size: u32,
    /// `local_size_x/y/z` as compiled into `OpExecutionMode LocalSize`
    /// (a dimension given only by `local_size_*_id` is 1).
    pub local_size: [u32; 3],
    /// The spec id of each `local_size_*_id`: when the runtime specializes
    /// one, it must patch the matching literal of `OpExecutionMode LocalSize`,
    /// since naga writes no WorkgroupSize specialization constant.
    pub local_size_spec_ids: [Option<u32>; 3],
    /// `layout(constant_id = N) const` declarations, kept in the blob as
    /// `OpSpecConstant` with their SpecId: a pipeline can specialize them
    /// (the runtime's `PipelineOptions::specialization`).
    pub spec_constants: Cow<'static, [SpecConstant]>,
    /// Device features, capabilities and extensions the blob needs.
    pub requirements: Requirements,
}

/// One descriptor binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// Descriptor set.
    pub set: u32,
    /// Binding number in the set.
    pub binding: u32,
    /// What kind of descriptor.
    pub kind: BindingKind,
    /// The access the user declared (`readonly`, `writeonly`, neither).
    pub access: Access,
    /// The block's name for buffers (`buffer bottom_blob { ... }`), else the variable's name.
    pub name: Str,
    /// The instance name of a block, if it has one.
    pub instance: Option<Str>,
}

/// Descriptor kinds a compute shader can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BindingKind {
    /// `buffer` block (`VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`).
    StorageBuffer,
    /// `uniform` block (`VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER`).
    UniformBuffer,
    /// `imageND` (`VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`).
    StorageImage,
    /// `textureND` (`VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`).
    SampledImage,
    /// `sampler` (`VK_DESCRIPTOR_TYPE_SAMPLER`).
    Sampler,
}

/// Declared access to a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// `readonly`, or a uniform block, texture or sampler.
    ReadOnly,
    /// `writeonly` (naga never sees the qualifier; it is reported here).
    WriteOnly,
    /// Neither.
    ReadWrite,
}

/// One specialization constant, as declared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpecConstant {
    /// `constant_id`.
    pub id: u32,
    /// The constant's name.
    pub name: Str,
    /// GLSL scalar type: `bool`, `int`, `uint`, `float`, `float16_t`, `double`.
    pub ty: Str,
    /// The declared default.
    pub default: Option<ScalarValue>,
}

/// A scalar value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScalarValue {
    /// A `bool`.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    Uint(u64),
    /// A float of any width.
    Float(f64),
}

/// What a device must have to run the blob.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requirements {
    /// Vulkan feature names (`shaderFloat16`, `storageBuffer16BitAccess`, ...), sorted.
    pub features: Cow<'static, [Str]>,
    /// Vulkan device extensions (before promotion to core), sorted.
    pub extensions: Cow<'static, [Str]>,
    /// The SPIR-V capabilities declared (`Shader`, `Float16`, ...), in module order.
    pub spirv_capabilities: Cow<'static, [Str]>,
    /// The SPIR-V extensions declared, in module order.
    pub spirv_extensions: Cow<'static, [Str]>,
}
