//! Editing SPIR-V words, for the word passes: an instruction built from its
//! operands, and a module taken apart into instructions, edited, and put
//! back together. Reading goes through the crate's one walk
//! ([`crate::spirv::walk`]), which checks the framing first.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use crate::spirv::{instructions, op, HEADER_WORDS};

/// One instruction's words.
pub(crate) fn inst(op: u16, operands: &[u32]) -> Vec<u32> {
    let mut v = Vec::with_capacity(operands.len() + 1);
    v.push(((operands.len() as u32 + 1) << 16) | u32::from(op));
    v.extend_from_slice(operands);
    v
}

/// A module being rewritten instruction by instruction.
pub(crate) struct Rewrite {
    /// The header, its bound updated by [`Rewrite::fresh_id`].
    pub header: Vec<u32>,
    /// The instructions' words, one entry each.
    pub insts: Vec<Vec<u32>>,
}

impl Rewrite {
    /// `words` taken apart; `Err` when their framing is broken.
    pub fn new(words: &[u32]) -> Result<Rewrite, String> {
        let insts = instructions(words)?
            .iter()
            .map(|i| i.words.to_vec())
            .collect();
        Ok(Rewrite {
            header: words[..HEADER_WORDS].to_vec(),
            insts,
        })
    }

    /// The opcode of one instruction's words.
    pub fn op(w: &[u32]) -> u16 {
        (w[0] & 0xffff) as u16
    }

    /// A new result id.
    pub fn fresh_id(&mut self) -> u32 {
        let id = self.header[3];
        self.header[3] += 1;
        id
    }

    /// The instruction that defines `id` (result id at operand 1 or 0).
    pub fn def(&self, id: u32) -> Option<&Vec<u32>> {
        self.insts.iter().find(|w| {
            let op = Rewrite::op(w);
            match op {
                // Types have their result at operand 0.
                o if is_type(o) => w.get(1) == Some(&id),
                _ => w.get(2) == Some(&id) && has_result_type(op),
            }
        })
    }

    /// The type `ptr` points to, when `ptr` is a pointer type.
    pub fn pointee(&self, ptr: u32) -> Option<u32> {
        self.def(ptr)
            .filter(|w| Rewrite::op(w) == op::TYPE_POINTER)
            .and_then(|w| w.get(3).copied())
    }

    /// Inserts annotations before the first type declaration.
    pub fn decorate(&mut self, decorations: Vec<Vec<u32>>) {
        let at = self
            .insts
            .iter()
            .position(|w| (19..=39).contains(&Rewrite::op(w)))
            .unwrap_or(self.insts.len());
        self.insts.splice(at..at, decorations);
    }

    /// Finishes turning the variable `var` into a constant of the same id,
    /// once its `OpVariable` is replaced: its loads become copies of the
    /// constant, and it leaves every entry point's interface. `false` when
    /// something still uses it as a pointer (a store, an access chain), which
    /// a constant cannot serve.
    pub fn variable_to_constant(&mut self, var: u32) -> bool {
        self.drop_from_interface(var);
        self.loads_to_copies(var);
        !self.insts.iter().any(|w| match Rewrite::op(w) {
            op::STORE => w.get(1) == Some(&var),
            op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN => w.get(3) == Some(&var),
            _ => false,
        })
    }

    /// Drops `id` from every `OpEntryPoint` interface.
    pub fn drop_from_interface(&mut self, id: u32) {
        for w in self.insts.iter_mut() {
            if Rewrite::op(w) != op::ENTRY_POINT {
                continue;
            }
            // Operands: model, entry id, name (nul-terminated words), interface ids.
            // A name without its nul (never from naga) keeps every operand.
            let Some(name_words) = w
                .get(3..)
                .and_then(|ops| ops.iter().position(|x| x.to_le_bytes().contains(&0)))
            else {
                continue;
            };
            let start = 4 + name_words;
            let kept: Vec<u32> = w[start..].iter().copied().filter(|x| *x != id).collect();
            w.truncate(start);
            w.extend(kept);
            w[0] = ((w.len() as u32) << 16) | u32::from(op::ENTRY_POINT);
        }
    }

    /// Every `OpLoad` from `id` becomes `OpCopyObject` of `id`.
    fn loads_to_copies(&mut self, id: u32) {
        for w in self.insts.iter_mut() {
            if Rewrite::op(w) == op::LOAD && w.get(3) == Some(&id) {
                *w = inst(op::COPY_OBJECT, &[w[1], w[2], id]);
            }
        }
    }

    /// The id of the 32-bit integer type of that signedness, declared
    /// before the first type when the module has none.
    pub fn int_type(&mut self, signed: bool) -> u32 {
        let want = u32::from(signed);
        if let Some(w) = self.insts.iter().find(|w| {
            Rewrite::op(w) == op::TYPE_INT && w.get(2) == Some(&32) && w.get(3) == Some(&want)
        }) {
            return w[1];
        }
        let id = self.fresh_id();
        let at = self
            .insts
            .iter()
            .position(|w| (19..=39).contains(&Rewrite::op(w)))
            .unwrap_or(self.insts.len());
        self.insts.insert(at, inst(op::TYPE_INT, &[id, 32, want]));
        id
    }

    /// Puts the declarations before the first function (types, constants,
    /// global variables) in an order where each comes after every id it
    /// uses, keeping the module's order otherwise: a pass that gave an early
    /// type a later constant (an array length) needs that. `Err` on a cycle.
    pub fn order_globals(&mut self) -> Result<(), String> {
        let start = self
            .insts
            .iter()
            .position(|w| (19..=39).contains(&Rewrite::op(w)))
            .unwrap_or(self.insts.len());
        let end = self.insts[start..]
            .iter()
            .position(|w| Rewrite::op(w) == op::FUNCTION)
            .map_or(self.insts.len(), |k| start + k);
        let section: Vec<Vec<u32>> = self.insts.drain(start..end).collect();
        let defined: HashSet<u32> = section.iter().filter_map(|w| result_id(w)).collect();
        // Kahn's order, by position where there is a choice: each
        // declaration waits for the ids it uses that are declared here
        // and not yet placed.
        let mut missing: Vec<usize> = vec![0; section.len()];
        let mut waiting_on: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut placed: HashSet<u32> = HashSet::new();
        let mut ready: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
        for (k, w) in section.iter().enumerate() {
            let mut uses = id_operands(w);
            uses.sort_unstable();
            uses.dedup();
            for id in uses.into_iter().filter(|id| defined.contains(id)) {
                missing[k] += 1;
                waiting_on.entry(id).or_default().push(k);
            }
        }
        // A declaration whose ids are all before it in the module needs
        // nothing it has not seen: count only the ids not placed yet, in
        // module order.
        let mut out_order: Vec<usize> = Vec::with_capacity(section.len());
        let mut next = 0;
        let mut done = vec![false; section.len()];
        while out_order.len() < section.len() {
            let k = match ready.pop() {
                Some(Reverse(k)) => k,
                None => {
                    while next < section.len() && (done[next] || missing[next] > 0) {
                        next += 1;
                    }
                    if next == section.len() {
                        return Err("the module's declarations use each other in a cycle".into());
                    }
                    next
                }
            };
            if done[k] {
                continue;
            }
            done[k] = true;
            out_order.push(k);
            if let Some(id) = result_id(&section[k]) {
                if placed.insert(id) {
                    for &d in waiting_on.get(&id).map_or(&[][..], Vec::as_slice) {
                        missing[d] -= 1;
                        // Placed as soon as it can be when it waited (it
                        // was passed over), else in its turn.
                        if missing[d] == 0 && d < next {
                            ready.push(Reverse(d));
                        }
                    }
                }
            }
        }
        let mut section: Vec<Option<Vec<u32>>> = section.into_iter().map(Some).collect();
        let out: Vec<Vec<u32>> = out_order
            .into_iter()
            .filter_map(|k| section[k].take())
            .collect();
        self.insts.splice(start..start, out);
        Ok(())
    }

    /// The module put back together.
    pub fn words(self) -> Vec<u32> {
        let mut out = self.header;
        for w in self.insts {
            out.extend(w);
        }
        out
    }
}

/// The cooperative matrix types (`OpTypeCooperativeMatrixKHR`, `...NV`):
/// types outside the core range.
const COOPERATIVE_MATRIX_TYPES: [u16; 2] = [4456, 5358];

/// Whether `op` declares a type (result id at operand 0).
pub(crate) fn is_type(op: u16) -> bool {
    (19..=39).contains(&op) || COOPERATIVE_MATRIX_TYPES.contains(&op)
}

/// Whether `op` (not a type) has a result type and result id (operands 0, 1).
fn has_result_type(op: u16) -> bool {
    matches!(op, 41..=52 | 59 | 61 | 65 | 66 | 83)
}

/// The result id of a declaration (a type's operand 0, a constant's or a
/// variable's operand 1).
fn result_id(w: &[u32]) -> Option<u32> {
    match Rewrite::op(w) {
        o if is_type(o) => w.get(1).copied(),
        o if has_result_type(o) => w.get(2).copied(),
        _ => None,
    }
}

/// The ids a declaration uses (its literals left out).
fn id_operands(w: &[u32]) -> Vec<u32> {
    let ops = &w[1..];
    let from = |k: usize| ops.get(k..).unwrap_or(&[]).to_vec();
    let at = |k: usize| ops.get(k).copied().into_iter().collect::<Vec<_>>();
    match Rewrite::op(w) {
        // Vector, matrix, runtime array, sampled image: the component type.
        23 | 24 | 27 | 29 => at(1),
        // Image: the sampled type.
        25 => at(1),
        // Array: element type and length.
        28 => [at(1), at(2)].concat(),
        // Struct, function, cooperative matrix (component type, scope,
        // rows, columns, use): every operand after the result.
        30 | 33 | 4456 | 5358 => from(1),
        // Pointer: storage class, then the pointee.
        32 => at(2),
        // Constants with literal values: the type.
        41 | 42 | 43 | 46 | 48 | 49 | 50 => at(0),
        // Composites: the type and the parts.
        44 | 51 => [at(0), from(2)].concat(),
        // Spec-constant op: the type, the opcode literal, the operands.
        52 => [at(0), from(3)].concat(),
        // Variable: the type, and an initializer after the storage class.
        59 => [at(0), from(3)].concat(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::MAGIC;

    /// Entry point %1 "main" with interface %5; %5 loaded into %6, then (when
    /// `store`) stored to.
    fn module(store: bool) -> Vec<u32> {
        let mut w = vec![MAGIC, 0x10300, 0, 10, 0];
        w.extend(inst(
            op::ENTRY_POINT,
            &[5, 1, u32::from_le_bytes(*b"main"), 0, 5],
        ));
        w.extend(inst(op::LOAD, &[2, 6, 5]));
        if store {
            w.extend(inst(op::STORE, &[5, 6]));
        }
        w
    }

    #[test]
    fn declarations_are_put_after_what_they_use() {
        // %3 = array of %2 with length %4, declared before %4; then a cycle.
        let mut w = vec![MAGIC, 0x10300, 0, 10, 0];
        w.extend(inst(op::TYPE_INT, &[2, 32, 1]));
        w.extend(inst(op::TYPE_ARRAY, &[3, 2, 4]));
        w.extend(inst(op::CONSTANT, &[2, 5, 7]));
        w.extend(inst(op::SPEC_CONSTANT_OP, &[2, 4, 132, 5, 5]));
        w.extend(inst(op::FUNCTION, &[2, 6, 0, 3]));
        let mut m = Rewrite::new(&w).unwrap();
        m.order_globals().unwrap();
        let order: Vec<u32> = m.insts.iter().map(|w| w[0] & 0xffff).collect();
        let (int, array, constant, spec_op, function) = (21, 28, 43, 52, 54);
        assert_eq!(order, [int, constant, spec_op, array, function]);
        let mut cyclic = vec![MAGIC, 0x10300, 0, 10, 0];
        cyclic.extend(inst(op::TYPE_ARRAY, &[3, 4, 4]));
        cyclic.extend(inst(op::SPEC_CONSTANT_OP, &[3, 4, 132, 3, 3]));
        assert!(Rewrite::new(&cyclic).unwrap().order_globals().is_err());
    }

    #[test]
    fn a_variable_becomes_a_constant() {
        let mut m = Rewrite::new(&module(false)).unwrap();
        assert!(m.variable_to_constant(5));
        assert_eq!(
            m.insts[0],
            inst(op::ENTRY_POINT, &[5, 1, u32::from_le_bytes(*b"main"), 0])
        );
        assert_eq!(m.insts[1], inst(op::COPY_OBJECT, &[2, 6, 5]));
        // A store needs the variable.
        let mut m = Rewrite::new(&module(true)).unwrap();
        assert!(!m.variable_to_constant(5));
    }
}
