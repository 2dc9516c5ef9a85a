//! The word step: what naga's IR could not say, written as glslang writes
//! it (see the module doc of `coopmat.rs`). Each choice, against glslang 13
//! (`glslangValidator -V`) on the same text:
//!
//! - sizes: naga writes 8 or 16 from its IR; the type gets the constant or
//!   the `OpSpecConstant` the user wrote (a specialization constant used
//!   nowhere else is declared here, with its `SpecId`), and the globals are
//!   put back in an order where the type follows them, as glslang's does.
//! - scope: the user's (`gl_ScopeSubgroup`: 3), as a `uint` constant.
//! - NV: `OpTypeCooperativeMatrixNV` (no use operand),
//!   `OpCooperativeMatrixLoadNV` / `StoreNV` (stride, then a `bool` constant
//!   for column-major), `OpCooperativeMatrixMulAddNV`, the capability
//!   `CooperativeMatrixNV` and extension `SPV_NV_cooperative_matrix`: a
//!   device with only `VK_NV_cooperative_matrix` runs it.
//! - construction from a scalar: `OpCompositeConstruct` of the (converted)
//!   scalar, or `OpConstantComposite` when it is a constant, as glslang.
//! - conversion: `OpFConvert` between the two matrix types (glslang's).
//! - a load or store through an array of another element type (ncnn's
//!   `uvec2` holding four halves): the pointer operand is the access chain
//!   to the array's element, as glslang's, whose stride then counts those
//!   elements (the GLSL meaning).
//! - `Float16` is declared where a matrix has `float16_t` elements (glslang
//!   declares it; 16-bit storage alone allows halves in buffers only).

use std::collections::{HashMap, HashSet};

use super::super::spirv_edit::{inst, is_type, Rewrite};
use super::{CoopType, Size, Use};
use crate::spirv::{decoration, op};

/// Opcodes and numbers this step writes or reads, beyond `crate::spirv`'s.
pub(crate) mod ops {
    pub const NAME: u16 = 5;
    pub const TYPE_BOOL: u16 = 20;
    pub const CONSTANT_TRUE: u16 = 41;
    pub const CONSTANT_FALSE: u16 = 42;
    pub const CONSTANT_NULL: u16 = 46;
    pub const FUNCTION_END: u16 = 56;
    pub const FUNCTION_CALL: u16 = 57;
    pub const COMPOSITE_CONSTRUCT: u16 = 80;
    pub const TYPE_COOP_KHR: u16 = 4456;
    pub const COOP_LOAD_KHR: u16 = 4457;
    pub const COOP_STORE_KHR: u16 = 4458;
    pub const TYPE_COOP_NV: u16 = 5358;
    pub const COOP_LOAD_NV: u16 = 5359;
    pub const COOP_STORE_NV: u16 = 5360;
    pub const COOP_MUL_ADD_NV: u16 = 5361;
    pub const CAP_COOP_KHR: u32 = 6022;
    pub const CAP_COOP_NV: u32 = 5357;
    pub const CAP_VULKAN_MEMORY_MODEL: u32 = 5345;
}

/// What the step needs to know of the module naga wrote.
#[derive(Clone, Debug, Default)]
pub(crate) struct Input<'a> {
    /// The placeholders.
    pub types: &'a [CoopType],
    /// The default of each specialization constant, by `constant_id`.
    pub spec_defaults: HashMap<u32, u32>,
    /// The `OpSpecConstantOp` id of each computed `const`
    /// ([`super::TextFound::derived`]), where `spec_expressions.rs` wrote one.
    pub derived_ids: Vec<Option<u32>>,
    /// How many functions naga wrote for prototypes whose calls survive.
    pub survivors: usize,
    /// The placeholder pointers: the variable ids of the placeholder array
    /// and of the sink, and whether it is a load.
    pub pointers: Vec<(u32, u32, bool)>,
}

/// A `uint` (or `int`) type and constants, found or declared at the end of
/// the globals (put in order at the end).
pub(super) struct Globals<'m> {
    pub m: &'m mut Rewrite,
}

impl Globals<'_> {
    /// Where new declarations go: before the first function.
    fn end(&self) -> usize {
        self.m
            .insts
            .iter()
            .position(|w| Rewrite::op(w) == op::FUNCTION)
            .unwrap_or(self.m.insts.len())
    }

    pub fn declare(&mut self, w: Vec<u32>) {
        let at = self.end();
        self.m.insts.insert(at, w);
    }

    fn int(&mut self, signed: bool) -> u32 {
        self.m.int_type(signed)
    }

    fn constant(&mut self, v: u32, signed: bool) -> u32 {
        let ty = self.int(signed);
        if let Some(w) = self
            .m
            .insts
            .iter()
            .find(|w| Rewrite::op(w) == op::CONSTANT && w.len() == 4 && w[1] == ty && w[3] == v)
        {
            return w[2];
        }
        let id = self.m.fresh_id();
        self.declare(inst(op::CONSTANT, &[ty, id, v]));
        id
    }

    fn bool_constant(&mut self, v: bool) -> u32 {
        let ty = match self
            .m
            .insts
            .iter()
            .find(|w| Rewrite::op(w) == ops::TYPE_BOOL)
        {
            Some(w) => w[1],
            None => {
                let id = self.m.fresh_id();
                self.declare(inst(ops::TYPE_BOOL, &[id]));
                id
            }
        };
        let want = if v {
            ops::CONSTANT_TRUE
        } else {
            ops::CONSTANT_FALSE
        };
        if let Some(w) = self
            .m
            .insts
            .iter()
            .find(|w| Rewrite::op(w) == want && w.get(1) == Some(&ty))
        {
            return w[2];
        }
        let id = self.m.fresh_id();
        self.declare(inst(want, &[ty, id]));
        id
    }

    /// The `OpSpecConstant` of `constant_id = spec_id`, declared (with its
    /// `SpecId`) when the module has none.
    fn spec(&mut self, spec_id: u32, signed: bool, default: u32) -> u32 {
        if let Some(w) = self.m.insts.iter().find(|w| {
            Rewrite::op(w) == op::DECORATE
                && w.get(2) == Some(&decoration::SPEC_ID)
                && w.get(3) == Some(&spec_id)
        }) {
            return w[1];
        }
        let ty = self.int(signed);
        let id = self.m.fresh_id();
        self.declare(inst(op::SPEC_CONSTANT, &[ty, id, default]));
        self.m.decorate(vec![inst(
            op::DECORATE,
            &[id, decoration::SPEC_ID, spec_id],
        )]);
        id
    }

    fn size(&mut self, s: Size, input: &Input) -> Result<u32, String> {
        Ok(match s {
            Size::Lit(v) => self.constant(v, false),
            Size::Spec { id, signed } => {
                let default = input.spec_defaults.get(&id).copied().unwrap_or(1);
                self.spec(id, signed, default)
            }
            Size::Derived(k) => input
                .derived_ids
                .get(k)
                .copied()
                .flatten()
                .ok_or("a computed matrix size has no constant in the words")?,
        })
    }
}

/// The value of a 32-bit integer constant `id`.
fn constant_value(m: &Rewrite, id: u32) -> Option<u32> {
    m.insts
        .iter()
        .find(|w| Rewrite::op(w) == op::CONSTANT && w.len() == 4 && w[2] == id)
        .map(|w| w[3])
}

/// The width of the float type `id`.
fn float_width(m: &Rewrite, id: u32) -> Option<u32> {
    m.insts
        .iter()
        .find(|w| Rewrite::op(w) == op::TYPE_FLOAT && w.get(1) == Some(&id))
        .and_then(|w| w.get(2).copied())
}

/// The sizes, scope and flavor of every matrix type; returns their ids.
pub(super) fn types(m: &mut Rewrite, input: &Input, nv: bool) -> Result<HashSet<u32>, String> {
    let found: Vec<Vec<u32>> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == ops::TYPE_COOP_KHR)
        .cloned()
        .collect();
    let mut ids = HashSet::new();
    for w in found {
        let [_, id, scalar, _scope, rows, cols, use_] = w[..] else {
            return Err("a cooperative matrix type of an unexpected form".into());
        };
        let half = float_width(m, scalar) == Some(16);
        let (rows, cols, use_) = (
            constant_value(m, rows),
            constant_value(m, cols),
            constant_value(m, use_),
        );
        let slot_of = |v: Option<u32>| match v {
            Some(8) => Some(naga::CooperativeSize::Eight),
            Some(16) => Some(naga::CooperativeSize::Sixteen),
            _ => None,
        };
        let role = match use_ {
            Some(0) => naga::CooperativeRole::A,
            Some(1) => naga::CooperativeRole::B,
            _ => naga::CooperativeRole::C,
        };
        let slot = (slot_of(rows), slot_of(cols));
        let Some(t) = input.types.iter().find(|t| {
            t.key.half == half && t.role() == role && (Some(t.slot.0), Some(t.slot.1)) == slot
        }) else {
            return Err("a cooperative matrix type naga wrote matches no placeholder".into());
        };
        let mut g = Globals { m: &mut *m };
        let scope = g.constant(t.key.scope, false);
        let rows = g.size(t.key.rows, input)?;
        let cols = g.size(t.key.cols, input)?;
        let new = if nv {
            inst(ops::TYPE_COOP_NV, &[id, scalar, scope, rows, cols])
        } else {
            let u = t.key.use_.unwrap_or(Use::Accumulator).spirv();
            let u = g.constant(u, false);
            inst(ops::TYPE_COOP_KHR, &[id, scalar, scope, rows, cols, u])
        };
        if let Some(at) = m
            .insts
            .iter()
            .position(|w| Rewrite::op(w) == ops::TYPE_COOP_KHR && w.get(1) == Some(&id))
        {
            m.insts[at] = new;
        }
        ids.insert(id);
    }
    Ok(ids)
}

/// Whether `id` is used by an instruction other than its own declaration
/// and its names and decorations (a literal that equals it counts: safe).
pub(super) fn used(m: &Rewrite, id: u32) -> bool {
    m.insts.iter().any(|w| {
        let o = Rewrite::op(w);
        let declares = if is_type(o) {
            w.get(1) == Some(&id)
        } else {
            w.get(2) == Some(&id)
        };
        let about =
            matches!(o, ops::NAME | op::DECORATE | op::MEMBER_DECORATE) && w.get(1) == Some(&id);
        !declares && !about && w[1..].contains(&id)
    })
}

/// Removes the names and decorations of `id`.
pub(super) fn drop_names(m: &mut Rewrite, id: u32) {
    m.insts.retain(|w| {
        !(matches!(Rewrite::op(w), ops::NAME | op::DECORATE | 6) && w.get(1) == Some(&id))
    });
}

/// The loads and stores through a placeholder pointer: the real access
/// chain (to the element the call named) as their pointer.
pub(super) fn pointers(m: &mut Rewrite, input: &Input) -> Result<(), String> {
    for &(array, sink, load) in &input.pointers {
        let find = |m: &Rewrite, pred: &dyn Fn(&Vec<u32>) -> bool| m.insts.iter().position(pred);
        // The element's access chain, through the sink.
        let chain = if load {
            // `OpStore %sink %v`, `%v = OpLoad %T %chain`.
            let st = find(m, &|w| {
                Rewrite::op(w) == op::STORE && w.get(1) == Some(&sink)
            })
            .ok_or("a placeholder load without its sink store")?;
            let v = m.insts[st][2];
            let ld = find(m, &|w| Rewrite::op(w) == op::LOAD && w.get(2) == Some(&v))
                .ok_or("a placeholder load without its element load")?;
            let chain = m.insts[ld][3];
            m.insts.remove(st);
            if !used(m, v) {
                m.insts
                    .retain(|w| !(Rewrite::op(w) == op::LOAD && w.get(2) == Some(&v)));
            }
            chain
        } else {
            // `%v = OpLoad %T %sink`, `OpStore %chain %v`.
            let ld = find(m, &|w| {
                Rewrite::op(w) == op::LOAD && w.get(3) == Some(&sink)
            })
            .ok_or("a placeholder store without its sink load")?;
            let v = m.insts[ld][2];
            let st = find(m, &|w| Rewrite::op(w) == op::STORE && w.get(2) == Some(&v))
                .ok_or("a placeholder store without its element store")?;
            let chain = m.insts[st][1];
            m.insts.remove(st);
            m.insts
                .retain(|w| !(Rewrite::op(w) == op::LOAD && w.get(2) == Some(&v)));
            chain
        };
        // The placeholder's access chain, and the operation using it.
        let pc = find(m, &|w| {
            matches!(
                Rewrite::op(w),
                op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN
            ) && w.get(3) == Some(&array)
        })
        .ok_or("a placeholder pointer without its access chain")?;
        let p = m.insts[pc][2];
        let mut patched = false;
        for w in m.insts.iter_mut() {
            let at = match Rewrite::op(w) {
                ops::COOP_LOAD_KHR => 3,
                ops::COOP_STORE_KHR => 1,
                _ => continue,
            };
            if w.get(at) == Some(&p) {
                w[at] = chain;
                patched = true;
            }
        }
        if !patched {
            return Err("a placeholder pointer that no cooperative load or store uses".into());
        }
        m.insts.remove(pc);
        for var in [array, sink] {
            m.drop_from_interface(var);
            drop_names(m, var);
            m.insts
                .retain(|w| !(Rewrite::op(w) == op::VARIABLE && w.get(2) == Some(&var)));
        }
    }
    Ok(())
}

/// KHR's loads and stores as NV's: stride, then column-major as a `bool`.
pub(super) fn nv_memory_ops(m: &mut Rewrite, _types: &HashSet<u32>) -> Result<(), String> {
    let layout_of = |m: &Rewrite, id: u32| constant_value(m, id).map(|v| v == 1);
    let mut k = 0;
    while k < m.insts.len() {
        let w = m.insts[k].clone();
        let new = match Rewrite::op(&w) {
            ops::COOP_LOAD_KHR => {
                let [_, ty, id, ptr, layout, stride] = w[..] else {
                    return Err("a cooperative load of an unexpected form".into());
                };
                let col = layout_of(m, layout).ok_or("a layout that is no constant")?;
                let col = Globals { m: &mut *m }.bool_constant(col);
                Some(inst(ops::COOP_LOAD_NV, &[ty, id, ptr, stride, col]))
            }
            ops::COOP_STORE_KHR => {
                let [_, ptr, obj, layout, stride] = w[..] else {
                    return Err("a cooperative store of an unexpected form".into());
                };
                let col = layout_of(m, layout).ok_or("a layout that is no constant")?;
                let col = Globals { m: &mut *m }.bool_constant(col);
                Some(inst(ops::COOP_STORE_NV, &[ptr, obj, stride, col]))
            }
            _ => None,
        };
        if let Some(new) = new {
            // Declarations may have been added before the functions.
            let at = m.insts.iter().position(|x| *x == w).unwrap_or(k);
            m.insts[at] = new;
            k = at;
        }
        k += 1;
    }
    Ok(())
}

/// NV's capability and extension for KHR's; `Float16` for `float16_t`
/// matrices.
pub(super) fn capabilities(m: &mut Rewrite, input: &Input, nv: bool) {
    let ext = |s: &str| {
        let mut bytes = s.as_bytes().to_vec();
        bytes.resize((bytes.len() / 4 + 1) * 4, 0);
        let words: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        inst(op::EXTENSION, &words)
    };
    if nv {
        for w in m.insts.iter_mut() {
            if Rewrite::op(w) == op::CAPABILITY && w.get(1) == Some(&ops::CAP_COOP_KHR) {
                w[1] = ops::CAP_COOP_NV;
            }
            if *w == ext("SPV_KHR_cooperative_matrix") {
                *w = ext("SPV_NV_cooperative_matrix");
            }
        }
    }
    let half = input.types.iter().any(|t| t.key.half);
    let declared = |m: &Rewrite, c: u32| {
        m.insts
            .iter()
            .any(|w| Rewrite::op(w) == op::CAPABILITY && w.get(1) == Some(&c))
    };
    if half && !declared(m, crate::spirv::cap::FLOAT16) {
        let last = m
            .insts
            .iter()
            .rposition(|w| Rewrite::op(w) == op::CAPABILITY)
            .map_or(0, |k| k + 1);
        m.insts
            .insert(last, inst(op::CAPABILITY, &[crate::spirv::cap::FLOAT16]));
    }
}

/// `ArrayStride` on an array of matrices (naga decorates every array;
/// glslang decorates none of these: they live in `Function` memory only).
pub(super) fn drop_array_strides(m: &mut Rewrite, coop: &HashSet<u32>) {
    let mut arrays: HashSet<u32> = HashSet::new();
    loop {
        let more: Vec<u32> = m
            .insts
            .iter()
            .filter(|w| Rewrite::op(w) == op::TYPE_ARRAY)
            .filter(|w| {
                w.get(2)
                    .is_some_and(|e| coop.contains(e) || arrays.contains(e))
            })
            .filter_map(|w| w.get(1).copied())
            .filter(|a| !arrays.contains(a))
            .collect();
        if more.is_empty() {
            break;
        }
        arrays.extend(more);
    }
    const ARRAY_STRIDE: u32 = 6;
    m.insts.retain(|w| {
        !(Rewrite::op(w) == op::DECORATE
            && w.get(2) == Some(&ARRAY_STRIDE)
            && w.get(1).is_some_and(|a| arrays.contains(a)))
    });
}

/// The null initializer of a local or private matrix (or array of them):
/// naga initializes every local and private global; GLSL leaves them
/// undefined, glslang writes none, and a null matrix constant is one thing
/// fewer for a driver to get wrong.
pub(super) fn drop_initializers(m: &mut Rewrite, coop: &HashSet<u32>) {
    let mut holds: HashSet<u32> = coop.clone();
    loop {
        let more: Vec<u32> = m
            .insts
            .iter()
            .filter(|w| Rewrite::op(w) == op::TYPE_ARRAY)
            .filter(|w| w.get(2).is_some_and(|e| holds.contains(e)))
            .filter_map(|w| w.get(1).copied())
            .filter(|a| !holds.contains(a))
            .collect();
        if more.is_empty() {
            break;
        }
        holds.extend(more);
    }
    let pointers: HashSet<u32> = m
        .insts
        .iter()
        .filter(|w| {
            Rewrite::op(w) == op::TYPE_POINTER && w.get(3).is_some_and(|p| holds.contains(p))
        })
        .filter_map(|w| w.get(1).copied())
        .collect();
    const PRIVATE_STORAGE: u32 = 6;
    const FUNCTION_STORAGE: u32 = 7;
    for w in m.insts.iter_mut() {
        if Rewrite::op(w) == op::VARIABLE
            && w.len() == 5
            && matches!(w[3], PRIVATE_STORAGE | FUNCTION_STORAGE)
            && pointers.contains(&w[1])
        {
            w.truncate(4);
            w[0] = (4 << 16) | u32::from(op::VARIABLE);
        }
    }
}

/// The last step: what the steps before left unused removed, the globals
/// in order.
pub(crate) fn tidy(words: &mut Vec<u32>) -> Result<(), String> {
    let mut m = Rewrite::new(words)?;
    sweep(&mut m);
    m.order_globals()?;
    *words = m.words();
    Ok(())
}

/// Removes the pointer, array and function types and the constants nothing
/// uses any more (the placeholders' leftovers), with their names and
/// decorations, until none is left.
fn sweep(m: &mut Rewrite) {
    const KINDS: [u16; 5] = [
        op::TYPE_POINTER,
        op::TYPE_ARRAY,
        33,
        op::CONSTANT,
        ops::CONSTANT_NULL,
    ];
    let result_at = |o: u16| if is_type(o) { 1 } else { 2 };
    loop {
        let mut uses: HashMap<u32, usize> = HashMap::new();
        for w in &m.insts {
            let o = Rewrite::op(w);
            let skip = if matches!(o, ops::NAME | 6 | op::DECORATE | op::MEMBER_DECORATE) {
                Some(1)
            } else if KINDS.contains(&o) {
                Some(result_at(o))
            } else {
                None
            };
            for (k, x) in w.iter().enumerate().skip(1) {
                if Some(k) != skip && !literal(o, k) {
                    *uses.entry(*x).or_default() += 1;
                }
            }
        }
        let dead: HashSet<u32> = m
            .insts
            .iter()
            .filter(|w| KINDS.contains(&Rewrite::op(w)))
            .filter_map(|w| w.get(result_at(Rewrite::op(w))).copied())
            .filter(|id| !uses.contains_key(id))
            .collect();
        if dead.is_empty() {
            return;
        }
        m.insts.retain(|w| {
            let o = Rewrite::op(w);
            let about = matches!(o, ops::NAME | 6 | op::DECORATE | op::MEMBER_DECORATE)
                && w.get(1).is_some_and(|id| dead.contains(id));
            let is_dead =
                KINDS.contains(&o) && w.get(result_at(o)).is_some_and(|id| dead.contains(id));
            !(about || is_dead)
        });
    }
}

/// Whether word `k` of an instruction `o` is a literal (no id), for the
/// instructions whose literals could equal an id; anything else counts as
/// an id, which only keeps a declaration.
pub(super) fn literal(o: u16, k: usize) -> bool {
    match o {
        // Debug, annotations' literals handled by the caller; strings,
        // capabilities, the memory model, execution modes: no ids past 1.
        3 | 4 | 5 | 6 | 7 | 10 | 11 | 14 | 16 | 17 => k >= 2 || o != 16,
        op::TYPE_INT => k >= 2,
        op::TYPE_FLOAT | op::TYPE_POINTER => k == 2,
        op::TYPE_VECTOR | op::TYPE_MATRIX | op::VARIABLE | op::FUNCTION => k == 3,
        op::CONSTANT | op::SPEC_CONSTANT => k >= 3,
        // OpExtInst: the instruction number.
        12 => k == 4,
        // OpVectorShuffle, OpCompositeExtract, OpCompositeInsert: indexes.
        79 => k >= 5,
        81 => k >= 4,
        82 => k >= 5,
        // OpLoad's and OpStore's memory operand mask.
        op::LOAD => k == 4,
        op::STORE => k == 3,
        // Merges, branch weights, switch literals.
        246 => k >= 3,
        247 => k >= 2,
        250 => k >= 4,
        251 => k >= 3 && k % 2 == 1,
        _ => false,
    }
}
