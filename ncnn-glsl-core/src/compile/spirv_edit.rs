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

    /// Inserts annotations before the first type declaration.
    pub fn decorate(&mut self, decorations: Vec<Vec<u32>>) {
        let at = self
            .insts
            .iter()
            .position(|w| (19..=39).contains(&Rewrite::op(w)))
            .unwrap_or(self.insts.len());
        self.insts.splice(at..at, decorations);
    }

    /// Drops `id` from every `OpEntryPoint` interface.
    pub fn drop_from_interface(&mut self, id: u32) {
        for w in self.insts.iter_mut() {
            if Rewrite::op(w) != op::ENTRY_POINT {
                continue;
            }
            // Operands: model, entry id, name (nul-terminated words), interface ids.
            let name_words = w[3..]
                .iter()
                .position(|x| x.to_le_bytes().contains(&0))
                .map_or(w.len(), |p| p + 1);
            let start = 3 + name_words;
            let kept: Vec<u32> = w[start..].iter().copied().filter(|x| *x != id).collect();
            w.truncate(start);
            w.extend(kept);
            w[0] = ((w.len() as u32) << 16) | u32::from(op::ENTRY_POINT);
        }
    }

    /// Every `OpLoad` from `id` becomes `OpCopyObject` of `id`.
    pub fn loads_to_copies(&mut self, id: u32) {
        for w in self.insts.iter_mut() {
            if Rewrite::op(w) == op::LOAD && w.get(3) == Some(&id) {
                *w = inst(op::COPY_OBJECT, &[w[1], w[2], id]);
            }
        }
    }

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
