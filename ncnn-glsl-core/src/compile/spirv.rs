//! Reading SPIR-V words: just enough to walk instructions, for the word
//! passes and reflection. Malformed input ends the walk instead of panicking.

/// SPIR-V opcodes this module looks at.
pub(crate) mod op {
    pub const EXTENSION: u16 = 10;
    pub const CAPABILITY: u16 = 17;
    pub const TYPE_INT: u16 = 21;
    pub const TYPE_FLOAT: u16 = 22;
    pub const TYPE_VECTOR: u16 = 23;
    pub const TYPE_MATRIX: u16 = 24;
    pub const TYPE_ARRAY: u16 = 28;
    pub const TYPE_RUNTIME_ARRAY: u16 = 29;
    pub const TYPE_STRUCT: u16 = 30;
    pub const TYPE_POINTER: u16 = 32;
    pub const VARIABLE: u16 = 59;
    pub const LOAD: u16 = 61;
    pub const STORE: u16 = 62;
    pub const ACCESS_CHAIN: u16 = 65;
    pub const IN_BOUNDS_ACCESS_CHAIN: u16 = 66;
    pub const COPY_OBJECT: u16 = 83;
    pub const F_CONVERT: u16 = 115;
    pub const DECORATE: u16 = 71;
    pub const MEMBER_DECORATE: u16 = 72;
}

/// SPIR-V storage classes this module looks at.
pub(crate) mod storage {
    pub const INPUT: u32 = 1;
    pub const UNIFORM: u32 = 2;
    pub const OUTPUT: u32 = 3;
    pub const PUSH_CONSTANT: u32 = 9;
}

/// SPIR-V capabilities this module looks at.
pub(crate) mod cap {
    pub const FLOAT16: u32 = 9;
    pub const STORAGE_BUFFER_16BIT_ACCESS: u32 = 4433;
    pub const UNIFORM_AND_STORAGE_BUFFER_16BIT_ACCESS: u32 = 4434;
    pub const STORAGE_PUSH_CONSTANT_16: u32 = 4435;
    pub const STORAGE_INPUT_OUTPUT_16: u32 = 4436;
}

/// One instruction: where it starts in the module and its words (opcode word first).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inst<'a> {
    pub at: usize,
    pub op: u16,
    pub words: &'a [u32],
}

impl Inst<'_> {
    /// Operand `i` (0 is the first word after the opcode word).
    pub fn operand(&self, i: usize) -> Option<u32> {
        self.words.get(i + 1).copied()
    }

    /// The literal string starting at operand `i`.
    pub fn string(&self, i: usize) -> String {
        let bytes: Vec<u8> = self
            .words
            .iter()
            .skip(i + 1)
            .flat_map(|w| w.to_le_bytes())
            .take_while(|&b| b != 0)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// The instructions after the 5-word header.
pub(crate) fn instructions(words: &[u32]) -> Vec<Inst<'_>> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            break;
        }
        out.push(Inst {
            at,
            op: (words[at] & 0xffff) as u16,
            words: &words[at..at + count],
        });
        at += count;
    }
    out
}

/// The capabilities the module declares.
pub(crate) fn capabilities(words: &[u32]) -> Vec<u32> {
    instructions(words)
        .iter()
        .filter(|i| i.op == op::CAPABILITY)
        .filter_map(|i| i.operand(0))
        .collect()
}

/// The extensions the module declares.
pub(crate) fn extensions(words: &[u32]) -> Vec<String> {
    instructions(words)
        .iter()
        .filter(|i| i.op == op::EXTENSION)
        .map(|i| i.string(0))
        .collect()
}

/// More opcodes and enumerants for the word passes that rewrite globals.
pub(crate) mod more {
    pub const ENTRY_POINT: u16 = 15;
    pub const CONSTANT: u16 = 43;
    pub const CONSTANT_COMPOSITE: u16 = 44;
    pub const SPEC_CONSTANT: u16 = 50;
    pub const SPEC_CONSTANT_COMPOSITE: u16 = 51;
    pub const DECORATION_BUILTIN: u32 = 11;
    pub const DECORATION_SPEC_ID: u32 = 1;
    pub const BUILTIN_WORKGROUP_SIZE: u32 = 25;
}

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
    pub fn new(words: &[u32]) -> Rewrite {
        Rewrite {
            header: words[..5.min(words.len())].to_vec(),
            insts: instructions(words)
                .iter()
                .map(|i| i.words.to_vec())
                .collect(),
        }
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
            if Rewrite::op(w) != more::ENTRY_POINT {
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
            w[0] = ((w.len() as u32) << 16) | u32::from(more::ENTRY_POINT);
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
