//! A module's interface as its SPIR-V words declare it: the descriptor
//! bindings, the push-constant block's size and the workgroup memory. The
//! runtime checks a [`crate::reflection::Reflection`] against it before any Vulkan call,
//! so that a blob whose reflection disagrees with its words (a hand-made
//! [`crate::variant::Blob`], a stale one) is an error, not a pipeline layout
//! the shader overruns (a crash in the driver).
//!
//! With the values a pipeline specializes ([`read_specialized`]), array
//! lengths given by specialization constants are measured at those values,
//! and the `WorkgroupSize` constant (which overrides `LocalSize`) is read as
//! the pipeline will see it.
//!
//! Sizes follow the module's explicit layout (`Offset`, `ArrayStride`,
//! `MatrixStride`) where it has one, and natural sizes elsewhere (workgroup
//! memory without explicit layout): what a driver must allocate at least.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::spirv::{instructions, op};

mod coop_matrices;
pub(crate) mod spec_ops;

use spec_ops::spec_op_partial;

pub use coop_matrices::WordCoopMatType;

/// What kind of descriptor a binding of the words is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DescriptorKind {
    /// A storage buffer (`StorageBuffer`, or `Uniform` with `BufferBlock`).
    StorageBuffer,
    /// A uniform buffer (`Uniform` with `Block`).
    UniformBuffer,
    /// An image, a sampler, or an array of descriptors.
    Other,
}

/// Decorations the interface reads (SPIR-V spec, "Decoration").
mod decoration {
    pub const BLOCK: u32 = 2;
    pub const ROW_MAJOR: u32 = 4;
    pub const BUFFER_BLOCK: u32 = 3;
    pub const ARRAY_STRIDE: u32 = 6;
    pub const MATRIX_STRIDE: u32 = 7;
    pub const BINDING: u32 = 33;
    pub const DESCRIPTOR_SET: u32 = 34;
    pub const OFFSET: u32 = 35;
    pub const SPEC_ID: u32 = 1;
    pub const BUILTIN: u32 = 11;
}

/// `BuiltIn WorkgroupSize`.
const BUILTIN_WORKGROUP_SIZE: u32 = 25;

/// Storage classes the interface reads (SPIR-V spec, "Storage Class").
mod storage {
    pub const UNIFORM_CONSTANT: u32 = 0;
    pub const UNIFORM: u32 = 2;
    pub const WORKGROUP: u32 = 4;
    pub const PRIVATE: u32 = 6;
    pub const FUNCTION: u32 = 7;
    pub const PUSH_CONSTANT: u32 = 9;
    pub const STORAGE_BUFFER: u32 = 12;
}

/// `OpDecorationGroup`, `OpGroupDecorate`, `OpGroupMemberDecorate`: what
/// they decorate is not read here, so a module with them is refused.
const DECORATION_GROUPS: [u16; 3] = [73, 74, 75];

/// `OpTypeBool`, `OpTypeImage`, `OpTypeSampler`, `OpTypeSampledImage`.
const TYPE_BOOL: u16 = 20;
const TYPE_OPAQUE: [u16; 3] = [25, 26, 27];

/// One descriptor binding the words declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct WordBinding {
    /// `DescriptorSet`.
    pub set: u32,
    /// `Binding`.
    pub binding: u32,
    /// Storage buffer, uniform buffer, or another kind of descriptor.
    pub kind: DescriptorKind,
    /// Bytes of the block's fixed part (a runtime array counts 0); 0 for
    /// other descriptors.
    pub fixed_bytes: u64,
}

/// What the words declare.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// Every descriptor binding, sorted by set and binding.
    pub bindings: Vec<WordBinding>,
    /// Bytes from 0 to the end of the push-constant block's last member (0
    /// without one).
    pub push_constant_bytes: u64,
    /// Bytes of every `Workgroup` variable together.
    pub workgroup_bytes: u64,
    /// The constant decorated `BuiltIn WorkgroupSize`, where the module has
    /// one whose parts are 32-bit constants: the local size it runs with.
    pub workgroup_size: Option<[u32; 3]>,
    /// Every scalar specialization constant, sorted by its `SpecId`.
    pub spec_constants: Vec<WordSpecConstant>,
    /// Every cooperative matrix type, in module order, its operands at the
    /// specialized values.
    pub cooperative_matrix_types: Vec<WordCoopMatType>,
    /// Every cooperative matrix multiply-add, in module order: the types of
    /// A, B, C and the result (`None` where an operand's type cannot be
    /// read: it comes from an instruction this reader does not type).
    pub cooperative_matrix_mul_adds: Vec<[Option<WordCoopMatType>; 4]>,
    /// Every array type whose length is a specialization constant or
    /// computed from them, by type id, at the specialized values.
    pub spec_arrays: Vec<WordSpecArray>,
    /// Bytes of the `Private` and `Function` variables whose type holds one
    /// of [`Interface::spec_arrays`], together, at the specialized values:
    /// what each invocation keeps of them.
    pub spec_invocation_bytes: u64,
}

/// An array type of the words whose length specialization constants give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordSpecArray {
    /// The array type's id.
    pub type_id: u32,
    /// The length's id.
    pub length_id: u32,
    /// The length at the specialized values, sign-extended where its type
    /// is signed; `None` where it cannot be computed (a division by zero).
    pub length: Option<i64>,
    /// Bytes of one element (natural size, or the `ArrayStride`).
    pub element_bytes: u64,
    /// Where variables holding it live.
    pub storage: ArrayStorage,
    /// The `SpecId`s of the specialization constants its length reads,
    /// sorted.
    pub spec_ids: Vec<u32>,
}

/// Where the variables holding an array live.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArrayStorage {
    /// `Workgroup` (`shared`).
    pub workgroup: bool,
    /// `Private` or `Function`: one copy per invocation (a global, a local
    /// or a parameter).
    pub invocation: bool,
}

/// A specialization constant as the words declare it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct WordSpecConstant {
    /// Its `SpecId`.
    pub spec_id: u32,
    /// `"bool"`, `"int"`, `"uint"` or `"float"` (GLSL's names).
    pub kind: &'static str,
    /// Bits of its type (32 for `bool`, whose specialization data is a `VkBool32`).
    pub bits: u32,
}

/// `OpTypeInt` / `OpTypeFloat` / bool, as GLSL names them, with their width.
fn scalar_kind(t: Option<&(u16, Vec<u32>)>) -> Option<(&'static str, u32)> {
    match t? {
        (op::TYPE_INT, w) => Some((
            if w.get(1) == Some(&1) { "int" } else { "uint" },
            *w.first()?,
        )),
        (op::TYPE_FLOAT, w) => Some(("float", *w.first()?)),
        (TYPE_BOOL, _) => Some(("bool", 32)),
        _ => None,
    }
}

/// The interface of the module `words`, or why it cannot be read (a framing
/// error, a binding without its set or number, a type it cannot size).
pub fn read(words: &[u32]) -> Result<Interface, String> {
    read_specialized(words, &[])
}

/// [`read`], with the specialization constants of each `(SpecId, value)` of
/// `values` taking that value (32-bit data, as the runtime passes it).
pub fn read_specialized(words: &[u32], values: &[(u32, u32)]) -> Result<Interface, String> {
    let insts = instructions(words)?;
    let mut m = Module::default();
    // (result id, type, low word, high word) of each OpSpecConstant, and the
    // (result id, default) of each OpSpecConstantTrue/False, resolved after
    // the decorations are all read.
    let mut spec: Vec<(u32, u32, u32, u32)> = Vec::new();
    let mut spec_bools: Vec<(u32, bool)> = Vec::new();
    let mut composites: Vec<(u32, Vec<u32>)> = Vec::new();
    // (type, result, opcode, operands...) of each OpSpecConstantOp, in order.
    let mut spec_ops: Vec<Vec<u32>> = Vec::new();
    let mut matrices = coop_matrices::Found::default();
    // The type of each specialization constant and operation, by id.
    let mut spec_types: HashMap<u32, u32> = HashMap::new();
    for i in &insts {
        let w = &i.words[1..];
        matrices.see(i.op, w);
        if DECORATION_GROUPS.contains(&i.op) {
            return Err("decoration groups are not read by this runtime".into());
        }
        match i.op {
            op::DECORATE if w.len() >= 2 => {
                m.decorations
                    .entry(w[0])
                    .or_default()
                    .push((w[1], w.get(2).copied()));
            }
            op::MEMBER_DECORATE if w.len() >= 3 => {
                let literal = w.get(3).copied().unwrap_or(0);
                m.member_decorations.insert((w[0], w[1], w[2]), literal);
            }
            op::CONSTANT if w.len() >= 3 => {
                // A 64-bit length past 32 bits counts as the largest.
                let high = w.get(3).copied().unwrap_or(0);
                m.constants
                    .insert(w[1], if high != 0 { u32::MAX } else { w[2] });
            }
            op::SPEC_CONSTANT if w.len() >= 3 => {
                spec.push((w[1], w[0], w[2], w.get(3).copied().unwrap_or(0)));
                spec_types.insert(w[1], w[0]);
            }
            SPEC_CONSTANT_OP if w.len() >= 4 => {
                spec_types.insert(w[1], w[0]);
                spec_ops.push(w.to_vec());
            }
            op::SPEC_CONSTANT_TRUE | op::SPEC_CONSTANT_FALSE if w.len() >= 2 => {
                spec_bools.push((w[1], i.op == op::SPEC_CONSTANT_TRUE));
            }
            // OpConstantTrue, OpConstantFalse: operands of `?:` and logic.
            41 | 42 if w.len() >= 2 => {
                m.constants.insert(w[1], u32::from(i.op == 41));
            }
            op::CONSTANT_COMPOSITE | op::SPEC_CONSTANT_COMPOSITE if w.len() >= 2 => {
                composites.push((w[1], w[2..].to_vec()));
            }
            op::VARIABLE if w.len() >= 3 => m.variables.push((w[0], w[1], w[2])),
            o if (op::TYPE_INT..=op::TYPE_POINTER).contains(&o) || o == TYPE_BOOL => {
                if let Some(&id) = w.first() {
                    m.types.insert(id, (o, w[1..].to_vec()));
                }
            }
            _ => {}
        }
    }
    let mut out = Interface::default();
    let mut lengths = Vec::new();
    {
        let spec_id = |id: u32| m.decoration(id, decoration::SPEC_ID);
        for &(id, ty, low, high) in &spec {
            let given = spec_id(id).and_then(|s| values.iter().find(|(v, _)| *v == s));
            let value = match given {
                Some(&(_, v)) => v,
                None if high != 0 => u32::MAX,
                None => low,
            };
            lengths.push((id, value));
            if let (Some(s), Some((kind, bits))) = (spec_id(id), scalar_kind(m.types.get(&ty))) {
                out.spec_constants.push(WordSpecConstant {
                    spec_id: s,
                    kind,
                    bits,
                });
            }
        }
        for &(id, default) in &spec_bools {
            let given = spec_id(id).and_then(|s| values.iter().find(|(v, _)| *v == s));
            lengths.push((
                id,
                given.map_or(u32::from(default), |&(_, v)| u32::from(v != 0)),
            ));
            if let Some(s) = spec_id(id) {
                out.spec_constants.push(WordSpecConstant {
                    spec_id: s,
                    kind: "bool",
                    bits: 32,
                });
            }
        }
    }
    m.constants.extend(lengths);
    // Integer arithmetic, comparisons, logic and selects of specialization
    // constants (array lengths computed from them), at the values above, in
    // module order (an operation's operands come before it); a `bool` is 0
    // or 1. One this runtime cannot evaluate leaves its result unknown: an
    // array of that length is not sized.
    for w in &spec_ops {
        let args: Vec<Option<u32>> = w[3..]
            .iter()
            .map(|id| m.constants.get(id).copied())
            .collect();
        if let Some(v) = spec_op_partial(w[2], &args) {
            m.constants.insert(w[1], v);
        }
    }
    out.spec_constants.sort();
    out.spec_arrays = spec_arrays(&m, &spec_types, &spec_ops);
    out.spec_invocation_bytes = spec_invocation_bytes(&m, &out.spec_arrays);
    (
        out.cooperative_matrix_types,
        out.cooperative_matrix_mul_adds,
    ) = matrices.resolve(&m.types, &m.constants);
    out.workgroup_size = composites
        .iter()
        .find(|(id, _)| {
            m.decorations
                .get(id)
                .is_some_and(|ds| ds.contains(&(decoration::BUILTIN, Some(BUILTIN_WORKGROUP_SIZE))))
        })
        .and_then(|(_, parts)| match parts.as_slice() {
            [x, y, z] => Some([
                *m.constants.get(x)?,
                *m.constants.get(y)?,
                *m.constants.get(z)?,
            ]),
            _ => None,
        });
    for &(pointer, id, class) in &m.variables {
        let pointee = m.pointee(pointer)?;
        match class {
            storage::WORKGROUP => {
                let bytes = m.size(pointee, None, 0)?;
                out.workgroup_bytes = out.workgroup_bytes.saturating_add(bytes);
            }
            storage::PUSH_CONSTANT => {
                out.push_constant_bytes = out.push_constant_bytes.max(m.size(pointee, None, 0)?);
            }
            storage::UNIFORM | storage::STORAGE_BUFFER | storage::UNIFORM_CONSTANT => {
                let (set, binding) = (
                    m.decoration(id, decoration::DESCRIPTOR_SET),
                    m.decoration(id, decoration::BINDING),
                );
                let (Some(set), Some(binding)) = (set, binding) else {
                    if class == storage::UNIFORM_CONSTANT && !m.is_opaque(pointee) {
                        continue;
                    }
                    return Err(format!(
                        "variable %{id} is a descriptor without a descriptor set and binding"
                    ));
                };
                let kind = m.kind(class, pointee);
                let fixed_bytes = match kind {
                    DescriptorKind::Other => 0,
                    _ => m.size(pointee, None, 0)?,
                };
                out.bindings.push(WordBinding {
                    set,
                    binding,
                    kind,
                    fixed_bytes,
                });
            }
            _ => {}
        }
    }
    out.bindings.sort();
    Ok(out)
}

/// `OpSpecConstantOp`.
const SPEC_CONSTANT_OP: u16 = 52;

/// [`Interface::spec_invocation_bytes`] of `m`, whose specialized arrays
/// are `arrays`.
fn spec_invocation_bytes(m: &Module, arrays: &[WordSpecArray]) -> u64 {
    let spec: std::collections::HashSet<u32> = arrays.iter().map(|a| a.type_id).collect();
    // Whether a type holds a specialized array, each type decided once.
    let mut holds: HashMap<u32, bool> = HashMap::new();
    let mut total = 0u64;
    for &(pointer, _, class) in &m.variables {
        if class != storage::PRIVATE && class != storage::FUNCTION {
            continue;
        }
        let Ok(pointee) = m.pointee(pointer) else {
            continue;
        };
        if m.holds(pointee, &spec, &mut holds, 0) {
            total = total.saturating_add(m.size(pointee, None, 0).unwrap_or(u64::MAX));
        }
    }
    total
}

/// The arrays of `m` whose length is one of `spec_types` (id: type), with
/// where they live: the storage class of every pointer type whose pointee
/// holds them (through arrays and structs).
fn spec_arrays(
    m: &Module,
    spec_types: &HashMap<u32, u32>,
    spec_ops: &[Vec<u32>],
) -> Vec<WordSpecArray> {
    // The operands of each operation (type, result, opcode, operands...).
    let operands: HashMap<u32, &[u32]> = spec_ops.iter().map(|w| (w[1], &w[3..])).collect();
    // The SpecIds a length reads, through its operations (each id once).
    let spec_ids = |length: u32| {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![length];
        let mut ids = Vec::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            if let Some(s) = m.decoration(id, decoration::SPEC_ID) {
                ids.push(s);
            }
            stack.extend(operands.get(&id).copied().unwrap_or(&[]));
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    // The types reachable from the pointees of pointers of one of
    // `classes`: one walk per kind of storage, each type visited once.
    let reachable = |classes: &[u32]| {
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<u32> = m
            .types
            .values()
            .filter_map(|(o, w)| match (*o, w.as_slice()) {
                (op::TYPE_POINTER, [class, pointee, ..]) if classes.contains(class) => {
                    Some(*pointee)
                }
                _ => None,
            })
            .collect();
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            match m.types.get(&t) {
                Some((op::TYPE_ARRAY | op::TYPE_RUNTIME_ARRAY, a)) => stack.extend(a.first()),
                Some((op::TYPE_STRUCT, members)) => stack.extend(members),
                _ => {}
            }
        }
        seen
    };
    let workgroup = reachable(&[storage::WORKGROUP]);
    let invocation = reachable(&[storage::PRIVATE, storage::FUNCTION]);
    let mut out: Vec<WordSpecArray> = m
        .types
        .iter()
        .filter_map(|(&type_id, (o, w))| {
            let (op::TYPE_ARRAY, [element, length_id, ..]) = (*o, w.as_slice()) else {
                return None;
            };
            let ty = spec_types.get(length_id)?;
            let signed = matches!(m.types.get(ty), Some((op::TYPE_INT, t)) if t.get(1) == Some(&1));
            let length = m.constants.get(length_id).map(|&v| {
                if signed {
                    i64::from(v as i32)
                } else {
                    i64::from(v)
                }
            });
            let element_bytes = match m.decoration(type_id, decoration::ARRAY_STRIDE) {
                Some(s) => u64::from(s),
                None => m.size(*element, None, 0).unwrap_or(u64::MAX),
            };
            Some(WordSpecArray {
                type_id,
                length_id: *length_id,
                length,
                element_bytes,
                storage: ArrayStorage {
                    workgroup: workgroup.contains(&type_id),
                    invocation: invocation.contains(&type_id),
                },
                spec_ids: spec_ids(*length_id),
            })
        })
        .collect();
    out.sort_by_key(|a| a.type_id);
    out
}

/// A type as a member sizes it: (type, `MatrixStride`, `RowMajor`).
type SizeKey = (u32, Option<u32>, bool);

/// The declarations [`read`] needs, by id.
#[derive(Default)]
struct Module {
    /// Type id: its opcode and operands after the result id.
    types: HashMap<u32, (u16, Vec<u32>)>,
    /// Target id: (decoration, first literal).
    decorations: HashMap<u32, Vec<(u32, Option<u32>)>>,
    /// (struct, member, decoration): first literal.
    member_decorations: HashMap<(u32, u32, u32), u32>,
    /// Constant id: its low word (array lengths).
    constants: HashMap<u32, u32>,
    /// (pointer type, id, storage class).
    variables: Vec<(u32, u32, u32)>,
    /// Sizes already computed, by (type, matrix stride, row major): each
    /// type is sized once, so that a type used many times (a struct of two
    /// of the last, 100 deep) costs no more than one.
    sizes: RefCell<HashMap<SizeKey, u64>>,
}

/// Deeper nesting than this is refused: SPIR-V's universal limit on struct
/// nesting is 255, and the recursion must end on a cyclic module.
const MAX_DEPTH: usize = 256;

impl Module {
    /// Whether type `t` is or holds (through arrays and structs) one of
    /// `spec`, remembered in `known`.
    fn holds(
        &self,
        t: u32,
        spec: &std::collections::HashSet<u32>,
        known: &mut HashMap<u32, bool>,
        depth: usize,
    ) -> bool {
        if let Some(&k) = known.get(&t) {
            return k;
        }
        let found = spec.contains(&t)
            || depth <= MAX_DEPTH
                && match self.types.get(&t) {
                    Some((op::TYPE_ARRAY | op::TYPE_RUNTIME_ARRAY, a)) => a
                        .first()
                        .is_some_and(|&e| self.holds(e, spec, known, depth + 1)),
                    Some((op::TYPE_STRUCT, members)) => members
                        .iter()
                        .any(|&e| self.holds(e, spec, known, depth + 1)),
                    _ => false,
                };
        known.insert(t, found);
        found
    }

    fn decoration(&self, id: u32, which: u32) -> Option<u32> {
        self.decorations
            .get(&id)?
            .iter()
            .find(|(d, _)| *d == which)
            .and_then(|(_, v)| *v)
    }

    fn decorated(&self, id: u32, which: u32) -> bool {
        self.decorations
            .get(&id)
            .is_some_and(|ds| ds.iter().any(|(d, _)| *d == which))
    }

    /// Images, samplers, and arrays of anything (descriptor arrays).
    fn is_opaque(&self, t: u32) -> bool {
        matches!(self.types.get(&t), Some((o, _)) if TYPE_OPAQUE.contains(o) || *o == op::TYPE_ARRAY || *o == op::TYPE_RUNTIME_ARRAY)
    }

    fn pointee(&self, pointer: u32) -> Result<u32, String> {
        match self.types.get(&pointer) {
            Some((op::TYPE_POINTER, w)) if w.len() >= 2 => Ok(w[1]),
            _ => Err(format!("variable type %{pointer} is not a pointer type")),
        }
    }

    /// A buffer's kind: storage (`StorageBuffer`, or `Uniform` with a
    /// `BufferBlock` struct), uniform (`Uniform` with a `Block` struct), or
    /// another descriptor (images, samplers, arrays of them).
    fn kind(&self, class: u32, pointee: u32) -> DescriptorKind {
        let opaque = self.is_opaque(pointee);
        match class {
            storage::STORAGE_BUFFER if !opaque => DescriptorKind::StorageBuffer,
            storage::UNIFORM if self.decorated(pointee, decoration::BUFFER_BLOCK) && !opaque => {
                DescriptorKind::StorageBuffer
            }
            storage::UNIFORM if self.decorated(pointee, decoration::BLOCK) && !opaque => {
                DescriptorKind::UniformBuffer
            }
            _ => DescriptorKind::Other,
        }
    }

    /// Bytes of type `id`: `matrix_stride` is its member's `MatrixStride`
    /// where it is a matrix member of a struct.
    fn size(&self, id: u32, matrix_stride: Option<u32>, depth: usize) -> Result<u64, String> {
        self.sized(id, matrix_stride, false, depth)
    }

    /// [`Module::size`], remembered per (type, stride, `RowMajor`): each type
    /// is measured once however often it is used.
    fn sized(
        &self,
        id: u32,
        matrix_stride: Option<u32>,
        row_major: bool,
        depth: usize,
    ) -> Result<u64, String> {
        if depth > MAX_DEPTH {
            return Err(format!("types nest more than {MAX_DEPTH} deep"));
        }
        let key = (id, matrix_stride, row_major);
        if let Some(&n) = self.sizes.borrow().get(&key) {
            return Ok(n);
        }
        let n = self.measure(id, matrix_stride, row_major, depth)?;
        self.sizes.borrow_mut().insert(key, n);
        Ok(n)
    }

    fn measure(
        &self,
        id: u32,
        matrix_stride: Option<u32>,
        row_major: bool,
        depth: usize,
    ) -> Result<u64, String> {
        let Some((o, w)) = self.types.get(&id) else {
            return Err(format!("type %{id} is not declared"));
        };
        let operand = |i: usize| {
            w.get(i)
                .copied()
                .ok_or_else(|| format!("type %{id} is cut short"))
        };
        Ok(match *o {
            TYPE_BOOL => 4,
            op::TYPE_INT | op::TYPE_FLOAT => u64::from(operand(0)?.div_ceil(8)),
            op::TYPE_VECTOR => self
                .size(operand(0)?, None, depth + 1)?
                .saturating_mul(u64::from(operand(1)?)),
            op::TYPE_MATRIX => {
                let (column, columns) = (operand(0)?, u64::from(operand(1)?));
                let rows = match self.types.get(&column) {
                    Some((op::TYPE_VECTOR, c)) => u64::from(c.get(1).copied().unwrap_or(0)),
                    _ => return Err(format!("matrix type %{id} has no vector columns")),
                };
                // `MatrixStride` steps over rows of a `RowMajor` matrix.
                match (matrix_stride, row_major) {
                    (Some(s), true) => u64::from(s).saturating_mul(rows),
                    (Some(s), false) => u64::from(s).saturating_mul(columns),
                    (None, _) => self.size(column, None, depth + 1)?.saturating_mul(columns),
                }
            }
            op::TYPE_ARRAY => {
                let length = *self.constants.get(&operand(1)?).ok_or_else(|| {
                    format!(
                        "array type %{id} has no constant length (a length computed from \
                             specialization constants that divides by zero or shifts past 31 \
                             bits at the pipeline's values, or an operation this reader does \
                             not evaluate)"
                    )
                })?;
                let stride = match self.decoration(id, decoration::ARRAY_STRIDE) {
                    Some(s) => u64::from(s),
                    None => self.sized(operand(0)?, matrix_stride, row_major, depth + 1)?,
                };
                stride.saturating_mul(u64::from(length))
            }
            op::TYPE_RUNTIME_ARRAY => 0,
            op::TYPE_STRUCT => {
                let mut end = 0u64;
                let mut natural = 0u64;
                for (m, &member) in w.iter().enumerate() {
                    let key = |d| self.member_decorations.get(&(id, m as u32, d)).copied();
                    let row_major = key(decoration::ROW_MAJOR).is_some();
                    let stride = key(decoration::MATRIX_STRIDE);
                    let size = self.sized(member, stride, row_major, depth + 1)?;
                    let offset = key(decoration::OFFSET).map_or(natural, u64::from);
                    natural = offset.saturating_add(size);
                    end = end.max(natural);
                }
                end
            }
            _ => return Err(format!("type %{id} (opcode {o}) has no size")),
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn spec_constant_ops_compute_as_spirv_does() {
        use super::spec_ops::spec_op;
        assert_eq!(spec_op(132, &[6, 7]), Some(42));
        assert_eq!(spec_op(128, &[u32::MAX, 2]), Some(1));
        // SRem takes the dividend's sign, SMod the divisor's.
        assert_eq!(spec_op(138, &[(-7i32) as u32, 3]), Some((-1i32) as u32));
        assert_eq!(spec_op(139, &[(-7i32) as u32, 3]), Some(2));
        assert_eq!(spec_op(135, &[7, 0]), None);
        assert_eq!(spec_op(196, &[1, 32]), None);
        assert_eq!(spec_op(195, &[(-8i32) as u32, 1]), Some((-4i32) as u32));
        // Not an operation this reads (OpFOrdLessThan), or the wrong arity.
        assert_eq!(spec_op(184, &[1, 2]), None);
        assert_eq!(spec_op(169, &[1, 2]), None);
        // Comparisons by signedness, logic, select; a bool is 0 or 1.
        let m1 = u32::MAX;
        assert_eq!(spec_op(176, &[m1, 1]), Some(0));
        assert_eq!(spec_op(177, &[m1, 1]), Some(1));
        assert_eq!(spec_op(172, &[m1, 1]), Some(1));
        assert_eq!(spec_op(173, &[m1, 1]), Some(0));
        assert_eq!(spec_op(174, &[3, 3]), Some(1));
        assert_eq!(spec_op(179, &[m1, 0]), Some(1));
        assert_eq!(spec_op(170, &[4, 4]), Some(1));
        assert_eq!(spec_op(171, &[4, 4]), Some(0));
        assert_eq!(spec_op(167, &[1, 5]), Some(1));
        assert_eq!(spec_op(166, &[0, 0]), Some(0));
        assert_eq!(spec_op(168, &[0]), Some(1));
        assert_eq!(spec_op(165, &[1, 7]), Some(0));
        assert_eq!(spec_op(169, &[1, 10, 20]), Some(10));
        assert_eq!(spec_op(169, &[0, 10, 20]), Some(20));
        // Only what decides needs a value.
        use super::spec_op_partial;
        assert_eq!(spec_op_partial(169, &[Some(0), None, Some(20)]), Some(20));
        assert_eq!(spec_op_partial(169, &[Some(1), None, Some(20)]), None);
        assert_eq!(spec_op_partial(169, &[None, Some(1), Some(1)]), None);
        assert_eq!(spec_op_partial(167, &[None, Some(0)]), Some(0));
        assert_eq!(spec_op_partial(167, &[None, Some(1)]), None);
        assert_eq!(spec_op_partial(166, &[Some(1), None]), Some(1));
        assert_eq!(spec_op_partial(166, &[Some(0), None]), None);
        assert_eq!(spec_op_partial(128, &[Some(1), Some(2)]), Some(3));
    }

    /// glslang's words for `shared uint t[M > K ? M : K + uint(flag)]` with
    /// a `bool` specialization constant `flag`, at several values.
    #[test]
    fn selects_of_comparisons_size_arrays() {
        const BOOL: u32 = 2;
        let words = module(&[
            &[71, 3, 1, 0],                 // M: SpecId 0
            &[71, 4, 1, 1],                 // K: SpecId 1
            &[71, 5, 1, 2],                 // flag: SpecId 2
            &[21, UINT, 32, 0],             // %1 = uint
            &[20, BOOL],                    // %2 = bool
            &[50, UINT, 3, 16],             // M = 16
            &[50, UINT, 4, 8],              // K = 8
            &[49, BOOL, 5],                 // flag = false
            &[43, UINT, 6, 1],              // 1
            &[43, UINT, 7, 0],              // 0
            &[41, BOOL, 8],                 // true
            &[52, BOOL, 9, 172, 3, 4],      // M > K
            &[52, UINT, 10, 169, 5, 6, 7],  // uint(flag)
            &[52, UINT, 11, 128, 4, 10],    // K + uint(flag)
            &[52, UINT, 12, 169, 9, 3, 11], // M > K ? M : K + uint(flag)
            &[52, BOOL, 13, 167, 8, 9],     // true && M > K (unused)
            &[28, 14, UINT, 12],            // uint[%12]
            &[32, 15, 4, 14],               // Workgroup *
            &[59, 15, 16, 4],               // shared
        ]);
        let at = |values: &[(u32, u32)]| read_specialized(&words, values).unwrap().workgroup_bytes;
        assert_eq!(at(&[]), 4 * 16);
        assert_eq!(at(&[(0, 4)]), 4 * 8);
        assert_eq!(at(&[(0, 4), (2, 1)]), 4 * 9);
        // Any nonzero `VkBool32` is true.
        assert_eq!(at(&[(0, 4), (2, 7)]), 4 * 9);
        assert_eq!(at(&[(1, 3), (2, 1)]), 4 * 16);
        let kinds: Vec<&str> = read(&words)
            .unwrap()
            .spec_constants
            .iter()
            .map(|c| c.kind)
            .collect();
        assert_eq!(kinds, ["uint", "uint", "bool"]);
    }

    use super::*;

    /// A module of `body` after a header (id bound 100).
    fn module(body: &[&[u32]]) -> Vec<u32> {
        let mut w = vec![crate::spirv::MAGIC, 0x0001_0000, 0, 100, 0];
        for inst in body {
            let (op, operands) = inst.split_first().unwrap();
            w.push(((operands.len() as u32 + 1) << 16) | op);
            w.extend_from_slice(operands);
        }
        w
    }

    const UINT: u32 = 1;
    const VEC4: u32 = 2;

    #[test]
    fn bindings_push_constants_and_workgroup_memory_are_read() {
        let words = module(&[
            &[21, UINT, 32, 0],   // %1 = uint
            &[23, VEC4, UINT, 4], // %2 = uvec4
            &[43, UINT, 3, 256],  // %3 = 256
            &[28, 4, UINT, 3],    // %4 = uint[256]
            &[29, 5, VEC4],       // %5 = uvec4[]
            &[30, 6, 5],          // %6 = struct { uvec4[] }
            &[30, 7, UINT, VEC4], // %7 = struct { uint; uvec4 }
            &[32, 8, 12, 6],      // %8 = StorageBuffer *%6
            &[32, 9, 9, 7],       // %9 = PushConstant *%7
            &[32, 10, 4, 4],      // %10 = Workgroup *%4
            &[59, 8, 11, 12],     // %11 storage buffer
            &[59, 8, 12, 12],     // %12 storage buffer
            &[59, 9, 13, 9],      // %13 push constants
            &[59, 10, 14, 4],     // %14 shared
            &[71, 11, 34, 0],
            &[71, 11, 33, 1],
            &[71, 12, 34, 2],
            &[71, 12, 33, 0],
            &[72, 7, 0, 35, 0],
            &[72, 7, 1, 35, 16],
        ]);
        let i = read(&words).unwrap();
        let sb = DescriptorKind::StorageBuffer;
        let b = |set, binding| WordBinding {
            set,
            binding,
            kind: sb,
            fixed_bytes: 0,
        };
        assert_eq!(i.bindings, [b(0, 1), b(2, 0)]);
        assert_eq!(i.push_constant_bytes, 32);
        assert_eq!(i.workgroup_bytes, 1024);
    }

    #[test]
    fn specialization_sizes_arrays_and_the_workgroup_size() {
        let words = module(&[
            &[71, 3, 1, 7],            // %3 SpecId 7
            &[71, 20, 1, 233],         // %20 SpecId 233
            &[71, 23, 11, 25],         // %23 BuiltIn WorkgroupSize
            &[71, 24, 1, 9],           // %24 SpecId 9
            &[21, UINT, 32, 0],        // %1 = uint
            &[50, UINT, 3, 64],        // %3 = spec 64
            &[28, 4, UINT, 3],         // %4 = uint[%3]
            &[32, 10, 4, 4],           // %10 = Workgroup *%4
            &[59, 10, 14, 4],          // %14 shared
            &[50, UINT, 20, 32],       // %20 = spec 32 (local size x)
            &[43, UINT, 21, 1],        // %21 = 1
            &[23, 22, UINT, 3],        // %22 = uvec3
            &[51, 22, 23, 20, 21, 21], // %23 = spec composite (%20, 1, 1)
            &[22, 25, 64],             // %25 = double
            &[50, 25, 24, 0, 0],       // %24 = spec double
        ]);
        let i = read(&words).unwrap();
        assert_eq!(i.workgroup_bytes, 256);
        assert_eq!(i.workgroup_size, Some([32, 1, 1]));
        let kinds: Vec<(u32, &str, u32)> = i
            .spec_constants
            .iter()
            .map(|c| (c.spec_id, c.kind, c.bits))
            .collect();
        assert_eq!(
            kinds,
            [(7, "uint", 32), (9, "float", 64), (233, "uint", 32)]
        );
        let i = read_specialized(&words, &[(7, 4096), (233, 128)]).unwrap();
        assert_eq!(i.workgroup_bytes, 16384);
        assert_eq!(i.workgroup_size, Some([128, 1, 1]));
    }

    #[test]
    fn a_buffer_without_its_set_is_an_error_and_cycles_end() {
        let words = module(&[
            &[21, UINT, 32, 0],
            &[30, 6, UINT],
            &[32, 8, 12, 6],
            &[59, 8, 11, 12],
            &[71, 11, 33, 1],
        ]);
        assert!(read(&words)
            .unwrap_err()
            .contains("without a descriptor set"));
        // A struct that contains itself (invalid SPIR-V) ends in an error.
        let words = module(&[&[30, 6, 6], &[32, 8, 9, 6], &[59, 8, 11, 9]]);
        assert!(read(&words).unwrap_err().contains("nest more than"));
        // Two members of itself: the error comes at once, not after 2^256 steps.
        let words = module(&[&[30, 6, 6, 6], &[32, 8, 9, 6], &[59, 8, 11, 9]]);
        assert!(read(&words).unwrap_err().contains("nest more than"));
        assert!(read(&[1, 2]).is_err());
        // Decoration groups are not read: refused.
        assert!(read(&module(&[&[73, 5]]))
            .unwrap_err()
            .contains("decoration groups"));
    }

    #[test]
    fn each_type_is_sized_once_and_sizes_saturate() {
        // T(k+1) = struct { Tk, Tk }, 100 deep: 2^100 walks without memory.
        let mut body: Vec<Vec<u32>> = vec![vec![21, 1, 32, 0]];
        for k in 2..=101 {
            body.push(vec![30, k, k - 1, k - 1]);
        }
        body.push(vec![32, 200, 4, 101]);
        body.push(vec![59, 200, 201, 4]);
        let refs: Vec<&[u32]> = body.iter().map(|v| v.as_slice()).collect();
        let t = std::time::Instant::now();
        let i = read(&module(&refs)).unwrap();
        assert!(t.elapsed().as_secs() < 1);
        assert_eq!(i.workgroup_bytes, u64::MAX);
        // A huge array in a vector saturates instead of wrapping to 0.
        let words = module(&[
            &[21, UINT, 32, 0],
            &[43, UINT, 3, 0x8000_0000],
            &[28, 4, UINT, 3],
            &[71, 4, 6, 0x8000_0000],
            &[23, 5, 4, 4],
            &[32, 8, 4, 5],
            &[59, 8, 11, 4],
        ]);
        assert_eq!(read(&words).unwrap().workgroup_bytes, u64::MAX);
    }

    #[test]
    fn row_major_matrices_step_over_rows() {
        // struct { layout(row_major) mat2x4 m; } with MatrixStride 16: 4 rows.
        let words = module(&[
            &[22, 1, 32],
            &[23, 2, 1, 4],
            &[24, 3, 2, 2],
            &[30, 4, 3],
            &[72, 4, 0, 35, 0],
            &[72, 4, 0, 7, 16],
            &[72, 4, 0, 4],
            &[32, 5, 9, 4],
            &[59, 5, 6, 9],
        ]);
        assert_eq!(read(&words).unwrap().push_constant_bytes, 64);
    }
}
