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
    /// The push-constant block's members, in offset order (std430): what a
    /// typed host struct must hold (`include_ncnn_shader!(pub mod ...)`).
    #[serde(default)]
    pub push_constants: Cow<'static, [PushMember]>,
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
    /// Each distinct cooperative matrix multiply-add the blob does
    /// (`coopMatMulAdd`, `coopMatMulAddNV`), in text order: its element
    /// types, scope and M, N, K, each a constant, a specialization
    /// constant or computed from them ([`CoopMatDim::Derived`], which the
    /// words give). The device must list the shape: evaluate M, N, K at the
    /// pipeline's specialization values ([`CoopMatMulAdd::shape`]) and look
    /// the multiply-add up in `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR`
    /// (`...NV` for [`CoopMatFlavor::Nv`]); the feature and extension are in
    /// [`Requirements`]. Empty for a blob without cooperative matrices (and
    /// then left out of the JSON: every other reflection reads as before).
    #[serde(default, skip_serializing_if = "no_multiply_adds")]
    pub cooperative_matrices: Cow<'static, [CoopMatMulAdd]>,
    /// Each distinct cooperative matrix type the blob declares, in a
    /// multiply-add or not (a matrix that is only loaded, converted and
    /// stored): its element type, scope, rows, columns and use. Without
    /// `cooperativeMatrixFlexibleDimensions` each must match a row of the
    /// device's list, by its use ([`coop_mat_admitted`]). Empty for a blob
    /// without cooperative matrices (and then left out of the JSON).
    #[serde(default, skip_serializing_if = "no_types")]
    pub cooperative_matrix_types: Cow<'static, [CoopMatType]>,
    /// Each array whose length specialization constants give (`shared
    /// float tmp[UNROLL * 32];`, a local or an `inout` parameter), in text
    /// order. A runtime evaluates each length in the words at the
    /// pipeline's values and refuses one below 1 or past its limit before
    /// the driver sees it (a length of 0 wraps the bounds clamp, a negative
    /// one is invalid SPIR-V). Empty without such arrays (and then left out
    /// of the JSON).
    #[serde(default, skip_serializing_if = "no_spec_arrays")]
    pub spec_arrays: Cow<'static, [SpecArray]>,
}

/// An array whose length specialization constants give.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecArray {
    /// The array's name.
    pub name: Str,
    /// Its size as the finished text writes it (`N - 4`, `UNROLL * 32`).
    pub size: Str,
    /// The id of the length in the blob's words (an `OpSpecConstant` or
    /// `OpSpecConstantOp`; arrays of one size share it).
    pub length_id: u32,
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
    /// The smallest buffer the block may be given, in bytes: its fixed-size
    /// part and one element of its runtime-sized array (the index clamps
    /// need one), or the whole block. 0 for images and samplers.
    #[serde(default)]
    pub min_size: u64,
    /// The stride of the block's runtime-sized array in bytes, 0 without
    /// one: a buffer holds the fixed part and whole elements, since an index
    /// into an element past the last whole one is clamped into that one.
    #[serde(default)]
    pub array_stride: u64,
}

/// One member of a push-constant block, where the host writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushMember {
    /// The member's name.
    pub name: Str,
    /// Byte offset in the block.
    pub offset: u32,
    /// Bytes it occupies (an array: its length times its stride).
    pub size: u32,
    /// Its type.
    pub ty: MemberType,
}

/// The type of a push-constant member, as far as a host struct needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberType {
    /// The scalar of a scalar, vector, matrix or array.
    pub scalar: MemberScalar,
    /// Components of a vector, rows of a matrix; 1 for a scalar.
    pub rows: u32,
    /// Columns of a matrix; 1 otherwise.
    pub columns: u32,
    /// Bytes between a matrix's columns (0 when it is not a matrix).
    pub column_stride: u32,
    /// Array length; 0 when it is not an array.
    pub array_len: u32,
    /// Bytes between array elements (0 when it is not an array).
    pub array_stride: u32,
    /// The GLSL spelling, for messages: `int`, `vec4`, `mat2`, `uint[4]`, ...
    pub glsl: Str,
}

/// The scalar kinds a push-constant member can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberScalar {
    /// `bool`: 4 bytes in a block, 0 or 1.
    Bool,
    /// 32-bit `int`.
    Int,
    /// 32-bit `uint`.
    Uint,
    /// 32-bit `float`.
    Float,
    /// `float16_t`.
    Float16,
    /// `double`.
    Double,
    /// A struct, or anything else a host struct has no plain field for.
    Other,
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
    /// A float of any width. (JSON has no NaN or infinity: those are
    /// written as their bits, `"0x7ff8000000000000"`.)
    Float(#[serde(with = "float_json")] f64),
}

/// An `f64` in JSON: a number when finite (exact both ways, with
/// serde_json's `float_roundtrip`), else a string of its bits.
mod float_json {
    use serde::{de, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_str(&format!("{:#018x}", v.to_bits()))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = f64;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number, or the bits of a float as \"0x...\"")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
                Ok(v)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
                v.strip_prefix("0x")
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
                    .map(f64::from_bits)
                    .ok_or_else(|| E::custom(format!("`{v}` is not the bits of a float")))
            }
        }
        d.deserialize_any(Visitor)
    }
}

// serde hands `skip_serializing_if` the field itself.
#[allow(clippy::ptr_arg)]
fn no_multiply_adds(v: &Cow<'static, [CoopMatMulAdd]>) -> bool {
    v.is_empty()
}

#[allow(clippy::ptr_arg)]
fn no_types(v: &Cow<'static, [CoopMatType]>) -> bool {
    v.is_empty()
}

#[allow(clippy::ptr_arg)]
fn no_spec_arrays(v: &Cow<'static, [SpecArray]>) -> bool {
    v.is_empty()
}

/// One cooperative matrix type: `coopmat<T, scope, rows, columns, use>`
/// (`fcoopmatNV<bits, scope, rows, columns>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoopMatType {
    /// `GL_KHR_cooperative_matrix` or `GL_NV_cooperative_matrix`.
    pub flavor: CoopMatFlavor,
    /// Its element type.
    pub element: CoopMatElement,
    /// The scope, as `VkScopeKHR`.
    pub scope: u32,
    /// Rows.
    pub rows: CoopMatDim,
    /// Columns.
    pub cols: CoopMatDim,
    /// A, B or the accumulator; `None` for an NV type, which has no use.
    pub role: Option<CoopMatUse>,
}

/// A KHR matrix's use (SPIR-V's `MatrixAKHR`, `MatrixBKHR`,
/// `MatrixAccumulatorKHR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoopMatUse {
    /// `gl_MatrixUseA`: M x K.
    A,
    /// `gl_MatrixUseB`: K x N.
    B,
    /// `gl_MatrixUseAccumulator`: M x N.
    Accumulator,
}

impl CoopMatUse {
    /// SPIR-V's `CooperativeMatrixUse` value (what the words' type holds).
    pub fn spirv(self) -> u32 {
        match self {
            CoopMatUse::A => 0,
            CoopMatUse::B => 1,
            CoopMatUse::Accumulator => 2,
        }
    }

    /// The use of SPIR-V's `CooperativeMatrixUse` value `v`.
    pub fn from_spirv(v: u32) -> Option<CoopMatUse> {
        [CoopMatUse::A, CoopMatUse::B, CoopMatUse::Accumulator]
            .into_iter()
            .find(|u| u.spirv() == v)
    }
}

/// Whether a row of a device's list, `(M, N, K)` with its
/// `VkComponentTypeKHR`s `(A, B, C, result)`, admits a matrix of `role`
/// (`None`: an NV matrix, which has none) with elements of `component` at
/// `(rows, columns)`: A is M x K of A's type, B K x N of B's, the
/// accumulator M x N of C's or the result's; an NV matrix any of them.
pub fn coop_mat_admitted(
    role: Option<CoopMatUse>,
    component: u32,
    size: (u32, u32),
    (m, n, k): (u32, u32, u32),
    (a, b, c, result): (u32, u32, u32, u32),
) -> bool {
    let as_a = size == (m, k) && component == a;
    let as_b = size == (k, n) && component == b;
    let as_acc = size == (m, n) && (component == c || component == result);
    match role {
        Some(CoopMatUse::A) => as_a,
        Some(CoopMatUse::B) => as_b,
        Some(CoopMatUse::Accumulator) => as_acc,
        None => as_a || as_b || as_acc,
    }
}

impl CoopMatType {
    /// `(rows, columns)` at the pipeline's specialization values, as
    /// [`CoopMatMulAdd::shape`].
    pub fn size(&self, spec: impl Fn(u32) -> Option<u32>) -> [Option<u32>; 2] {
        [self.rows.value(&spec), self.cols.value(&spec)]
    }
}

/// One cooperative matrix multiply-add, `result = A * B + C` with A of
/// M x K, B of K x N, C and the result of M x N: what a row of
/// `VkCooperativeMatrixPropertiesKHR` (`...NV`) must say for the device to
/// run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoopMatMulAdd {
    /// `GL_KHR_cooperative_matrix` or `GL_NV_cooperative_matrix`.
    pub flavor: CoopMatFlavor,
    /// Element type of A (`AType`).
    pub a_type: CoopMatElement,
    /// Element type of B (`BType`).
    pub b_type: CoopMatElement,
    /// Element type of C (`CType`).
    pub c_type: CoopMatElement,
    /// Element type of the result (`ResultType`; `DType` for NV): C's.
    pub result_type: CoopMatElement,
    /// The scope, as `VkScopeKHR` (the same numbers as SPIR-V's): 3 for
    /// `gl_ScopeSubgroup`, 2 for `gl_ScopeWorkgroup`.
    pub scope: u32,
    /// Rows of A, C and the result (`MSize`).
    pub m: CoopMatDim,
    /// Columns of B, C and the result (`NSize`).
    pub n: CoopMatDim,
    /// Columns of A, rows of B (`KSize`).
    pub k: CoopMatDim,
}

/// Which extension a cooperative matrix comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoopMatFlavor {
    /// `GL_KHR_cooperative_matrix`: `VK_KHR_cooperative_matrix`,
    /// `VkPhysicalDeviceCooperativeMatrixFeaturesKHR::cooperativeMatrix`.
    Khr,
    /// `GL_NV_cooperative_matrix`: `VK_NV_cooperative_matrix`,
    /// `VkPhysicalDeviceCooperativeMatrixFeaturesNV::cooperativeMatrix`.
    Nv,
}

/// The element type of a cooperative matrix (`VkComponentTypeKHR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoopMatElement {
    /// `float16_t`: `VK_COMPONENT_TYPE_FLOAT16_KHR` (0).
    Float16,
    /// `float`: `VK_COMPONENT_TYPE_FLOAT32_KHR` (1).
    Float32,
}

impl CoopMatElement {
    /// Its `VkComponentTypeKHR` (the NV enum has the same values).
    pub fn vk_component_type(self) -> u32 {
        match self {
            CoopMatElement::Float16 => 0,
            CoopMatElement::Float32 => 1,
        }
    }
}

/// One of M, N, K.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoopMatDim {
    /// An integer literal or a `const` of the shader.
    Constant(u32),
    /// A specialization constant: its `constant_id` and declared default.
    Spec {
        /// `constant_id`.
        id: u32,
        /// The default, when the pipeline does not set it.
        default: u32,
    },
    /// A `const` computed from specialization constants (`const uint M2 =
    /// M * 2;`): an `OpSpecConstantOp` in the words, whose value at the
    /// pipeline's specialization values
    /// [`spirv_interface::read_specialized`](crate::spirv_interface::read_specialized)
    /// gives.
    Derived,
}

impl CoopMatDim {
    /// The value, with `spec` giving the pipeline's value of a
    /// specialization constant it sets (`None`: the default); `None` for a
    /// [`CoopMatDim::Derived`] size, which the words give.
    pub fn value(self, spec: impl Fn(u32) -> Option<u32>) -> Option<u32> {
        match self {
            CoopMatDim::Constant(v) => Some(v),
            CoopMatDim::Spec { id, default } => Some(spec(id).unwrap_or(default)),
            CoopMatDim::Derived => None,
        }
    }
}

impl CoopMatMulAdd {
    /// `(M, N, K)` at the pipeline's specialization values (`spec` gives
    /// the value the pipeline sets for a `constant_id`, `None` where it
    /// sets none); each `None` where it is [`CoopMatDim::Derived`].
    pub fn shape(&self, spec: impl Fn(u32) -> Option<u32>) -> [Option<u32>; 3] {
        [
            self.m.value(&spec),
            self.n.value(&spec),
            self.k.value(&spec),
        ]
    }
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

/// The subgroup operations each SPIR-V capability needs of the device: the
/// capability, its `VkSubgroupFeatureFlagBits` bit, the bit's short name.
/// Subgroup operations are properties (`supportedOperations` of
/// `VkPhysicalDeviceSubgroupProperties`), not features.
pub const SUBGROUP_OPERATIONS: &[(&str, u32, &str)] = &[
    ("GroupNonUniform", 0x1, "basic"),
    ("GroupNonUniformVote", 0x2, "vote"),
    ("GroupNonUniformArithmetic", 0x4, "arithmetic"),
    ("GroupNonUniformBallot", 0x8, "ballot"),
    ("GroupNonUniformShuffle", 0x10, "shuffle"),
    ("GroupNonUniformShuffleRelative", 0x20, "shuffle_relative"),
    ("GroupNonUniformClustered", 0x40, "clustered"),
    ("GroupNonUniformQuad", 0x80, "quad"),
];

impl Requirements {
    /// The subgroup operations (`VkSubgroupFeatureFlagBits`) the device must
    /// support in compute shaders, from the declared capabilities; 0 for a
    /// blob without subgroup operations.
    pub fn subgroup_operations(&self) -> u32 {
        self.spirv_capabilities
            .iter()
            .filter_map(|c| SUBGROUP_OPERATIONS.iter().find(|o| o.0 == &**c))
            .fold(0, |bits, o| bits | o.1)
    }
}
