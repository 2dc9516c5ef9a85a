//! Editing SPIR-V words, for the word passes: an instruction built from its
//! operands, and a module taken apart into instructions, edited, and put
//! back together. Reading goes through the crate's one walk
//! ([`crate::spirv::walk`]), which checks the framing first.

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
                19..=39 => w.get(1) == Some(&id),
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
    fn drop_from_interface(&mut self, id: u32) {
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

    /// The module put back together.
    pub fn words(self) -> Vec<u32> {
        let mut out = self.header;
        for w in self.insts {
            out.extend(w);
        }
        out
    }
}

/// Whether `op` (not a type) has a result type and result id (operands 0, 1).
fn has_result_type(op: u16) -> bool {
    matches!(op, 41..=52 | 59 | 61 | 65 | 66 | 83)
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
