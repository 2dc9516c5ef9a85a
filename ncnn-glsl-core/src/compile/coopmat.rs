//! Cooperative matrices (`GL_KHR_cooperative_matrix`, `GL_NV_cooperative_matrix`):
//! naga's IR and SPIR-V writer have them (`TypeInner::CooperativeMatrix`,
//! `CooperativeLoad`, `CooperativeMultiplyAdd`, `CooperativeStore`), its GLSL
//! frontend has none, and its IR says less than GLSL does. One step per
//! stage, each in its own file:
//!
//! 1. text ([`text`], [`protos`]): every `coopmat<T, scope, R, C, use>` and
//!    `fcoopmatNV<bits, scope, R, C>` becomes a placeholder struct
//!    `ncnnext_cmN` (one per distinct type), a constructor a call of
//!    `ncnnext_cmcN`, `coopMatLoad(m, buf, i, stride, layout)` a call
//!    `ncnnext_cml(m, buf[i], stride, layout)` (the comma before `i` becomes
//!    `[`, a `]` is inserted after it), `coopMatStore`, `coopMatMulAdd` and
//!    the NV forms likewise; the layouts become `0`/`1`. In place: the text
//!    keeps its offsets, so errors stay at the user's file, line and column.
//!    naga is given the structs and the prototypes (naga-only text).
//! 2. IR ([`ir`]): the structs become naga's cooperative matrix types (a
//!    placeholder size of 8 or 16 each), the calls `CooperativeLoad`,
//!    `CooperativeStore` and `CooperativeMultiplyAdd`; what the IR cannot
//!    say stays a call of a body-less function (construction from a scalar,
//!    conversion, NV's multiply-add) or goes through a placeholder pointer
//!    (an array whose elements are not the matrix's element type: ncnn's
//!    `uvec2` of four halves).
//! 3. words ([`words`], [`memory_model`]): the sizes become the
//!    specialization constants or constants the user wrote, the NV types and
//!    operations NV's, the surviving calls `OpCompositeConstruct` /
//!    `OpConstantComposite`, `OpFConvert`, `OpCooperativeMatrixMulAddNV`, the
//!    placeholder pointers the real access chains; and, since cooperative
//!    matrices bring the Vulkan memory model (naga's writer declares it, as
//!    glslang does), `shared` accesses get glslang's `NonPrivatePointer`
//!    operands and Device scopes become QueueFamily ones.
//!
//! The reflection ([`reflection`]) lists every multiply-add with its element
//! types and M, N, K, so a runtime can check the device's list of shapes.

pub(crate) mod extent;
pub(crate) mod ir;
pub(crate) mod memory_model;
mod operators;
pub(crate) mod protos;
pub(crate) mod reflection;
pub(crate) mod survivors;
pub(crate) mod text;
pub(crate) mod words;
pub(crate) mod workgroup_layout;

#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod tools;

use naga::{CooperativeRole, CooperativeSize};

/// Which extension a type or call comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Flavor {
    /// `GL_KHR_cooperative_matrix`.
    Khr,
    /// `GL_NV_cooperative_matrix`.
    Nv,
}

/// A row or column count as written: a literal (or a `const` initialized by
/// one), a specialization constant, or a `const` computed from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Size {
    /// A constant value.
    Lit(u32),
    /// A specialization constant: its `constant_id`, whether it is `int`
    /// (its default is the IR's).
    Spec { id: u32, signed: bool },
    /// A global `const` computed from specialization constants (`const
    /// uint M2 = M * 2;`), which glslang writes as `OpSpecConstantOp`s:
    /// its index in [`TextFound::derived`].
    Derived(usize),
}

/// A matrix use (KHR); NV types have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Use {
    A,
    B,
    Accumulator,
}

/// SPIR-V's `MatrixAKHR`, `MatrixBKHR`, `MatrixAccumulatorKHR`.
impl Use {
    pub fn spirv(self) -> u32 {
        match self {
            Use::A => 0,
            Use::B => 1,
            Use::Accumulator => 2,
        }
    }
}

/// What identifies a type: two spellings with the same key are one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub flavor: Flavor,
    /// `float16_t` (else `float`).
    pub half: bool,
    /// SPIR-V scope: 3 subgroup, 2 workgroup.
    pub scope: u32,
    pub rows: Size,
    pub cols: Size,
    /// `None` for NV.
    pub use_: Option<Use>,
}

/// One distinct cooperative matrix type of the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CoopType {
    pub key: Key,
    /// As first written (`coopmat<float16_t, gl_ScopeSubgroup, M, K,
    /// gl_MatrixUseA>`), for messages.
    pub text: String,
    /// Where it is first written, in the finished text.
    pub at: std::ops::Range<usize>,
    /// The placeholder sizes naga's type gets: (rows, columns). Types that
    /// share an element type and IR role each get their own pair, so that
    /// naga keeps them apart; the word pass writes the real sizes.
    pub slot: (CooperativeSize, CooperativeSize),
}

impl CoopType {
    /// The role of naga's type: the use (NV: the accumulator, for all; NV's
    /// multiply-add is no IR expression, so its roles are never checked).
    pub fn role(&self) -> CooperativeRole {
        match self.key.use_ {
            Some(Use::A) => CooperativeRole::A,
            Some(Use::B) => CooperativeRole::B,
            Some(Use::Accumulator) | None => CooperativeRole::C,
        }
    }

    /// naga's scalar of the elements.
    pub fn scalar(&self) -> naga::Scalar {
        if self.key.half {
            naga::Scalar::F16
        } else {
            naga::Scalar::F32
        }
    }
}

/// The placeholder (rows, columns) pairs, in the order they are handed out.
pub(crate) const SLOTS: [(CooperativeSize, CooperativeSize); 4] = [
    (CooperativeSize::Sixteen, CooperativeSize::Sixteen),
    (CooperativeSize::Sixteen, CooperativeSize::Eight),
    (CooperativeSize::Eight, CooperativeSize::Sixteen),
    (CooperativeSize::Eight, CooperativeSize::Eight),
];

/// What the text pass found and did.
#[derive(Clone, Debug, Default)]
pub(crate) struct TextFound {
    /// The distinct types, placeholder `ncnnext_cmN` is `types[N]`.
    pub types: Vec<CoopType>,
    /// The `]` after each load's or store's element index.
    pub inserts: Vec<super::naga_run::Insert>,
    /// The global `const` integers not initialized by one literal, by name:
    /// [`Size::Derived`]'s index. `spec_expressions.rs` writes those that
    /// specialization constants compute; a size naming another is refused.
    pub derived: Vec<String>,
}

impl TextFound {
    /// Whether the text uses cooperative matrices.
    pub fn used(&self) -> bool {
        !self.types.is_empty()
    }
}

/// A multiply-add found in the IR: the placeholder indices of A, B, C (the
/// result has C's type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MulAdd {
    pub a: usize,
    pub b: usize,
    pub c: usize,
}

/// What the IR pass leaves for the word pass and the reflection.
#[derive(Clone, Debug, Default)]
pub(crate) struct IrFound {
    /// The multiply-adds, in the order the IR walk meets them.
    pub mul_adds: Vec<MulAdd>,
    /// The names of the placeholder globals of each load or store through a
    /// placeholder pointer: (the placeholder array, the element's sink,
    /// whether it is a load).
    pub pointers: Vec<(String, String, bool)>,
}

/// What a body-less function whose calls survive to the words becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Survivor {
    /// `coopmat<...>(scalar)`: `OpCompositeConstruct` (`OpConstantComposite`
    /// from a constant), the scalar already of the element type.
    Construct,
    /// `coopmat<...>(m)` of the same type: the value.
    Copy,
    /// `coopmat<...>(m)` of another element type: `OpFConvert`.
    Convert,
    /// `coopMatMulAddNV(a, b, c)`: `OpCooperativeMatrixMulAddNV`.
    MulAddNv,
}

/// The default of each integer specialization constant, by `constant_id`
/// (a negative `int` as its bits, as `OpSpecConstant` holds it).
pub(crate) fn spec_defaults(
    decls: &[super::spec_constants::SpecDecl],
    values: &[(
        naga::Handle<naga::GlobalVariable>,
        crate::reflection::ScalarValue,
    )],
) -> std::collections::HashMap<u32, u32> {
    use crate::reflection::ScalarValue;
    decls
        .iter()
        .zip(values)
        .filter_map(|(d, (_, v))| match *v {
            ScalarValue::Int(x) => Some((d.id, x as i32 as u32)),
            ScalarValue::Uint(x) => Some((d.id, x as u32)),
            _ => None,
        })
        .collect()
}

/// A refusal of a cooperative-matrix construct at `span`.
fn unsupported(span: naga::Span, what: impl Into<String>) -> crate::compile::atomics::Unsupported {
    crate::compile::atomics::Unsupported {
        span,
        what: what.into(),
    }
}

/// Rewrites naga's words of a module with cooperative matrices
/// ([`words`], then [`survivors`] for what the IR step left).
pub(crate) fn write_words(words: &mut Vec<u32>, input: &words::Input) -> Result<(), String> {
    if input.types.is_empty() {
        return Ok(());
    }
    let nv = input.types.iter().all(|t| t.key.flavor == Flavor::Nv);
    let mut m = super::spirv_edit::Rewrite::new(words)?;
    let coop_types = words::types(&mut m, input, nv)?;
    survivors::rewrite(&mut m, input.survivors, &coop_types)?;
    words::pointers(&mut m, input)?;
    if nv {
        words::nv_memory_ops(&mut m, &coop_types)?;
    }
    words::capabilities(&mut m, input, nv);
    words::drop_array_strides(&mut m, &coop_types);
    words::drop_initializers(&mut m, &coop_types);
    m.order_globals()?;
    *words = m.words();
    Ok(())
}
