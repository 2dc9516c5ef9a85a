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
