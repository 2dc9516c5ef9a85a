//! SPIR-V words: the one walk over a module's instructions, and the numbers
//! of the SPIR-V specification this crate names.
//!
//! The walk checks the framing (the header, the magic number, every
//! instruction's word count) and says where it breaks, so the compiler's
//! word passes never edit a blob they misread and the runtime never hands a
//! driver one (a driver is not required to validate SPIR-V, and some crash
//! on garbage). Built without the `compile` feature too, for the runtime.

/// The first word of every SPIR-V module.
pub const MAGIC: u32 = 0x0723_0203;

/// Words before the first instruction: magic, version, generator, id bound, schema.
pub const HEADER_WORDS: usize = 5;

// The word passes of `compile` name most of these; without it only the
// walk and `patch_local_size` are built.

/// Opcodes.
#[cfg_attr(not(feature = "compile"), allow(dead_code))]
pub(crate) mod op {
    pub const EXTENSION: u16 = 10;
    pub const EXT_INST_IMPORT: u16 = 11;
    pub const EXT_INST: u16 = 12;
    pub const ENTRY_POINT: u16 = 15;
    pub const EXECUTION_MODE: u16 = 16;
    pub const CAPABILITY: u16 = 17;
    pub const TYPE_INT: u16 = 21;
    pub const TYPE_FLOAT: u16 = 22;
    pub const TYPE_VECTOR: u16 = 23;
    pub const TYPE_MATRIX: u16 = 24;
    pub const TYPE_ARRAY: u16 = 28;
    pub const TYPE_RUNTIME_ARRAY: u16 = 29;
    pub const TYPE_STRUCT: u16 = 30;
    pub const TYPE_POINTER: u16 = 32;
    pub const CONSTANT: u16 = 43;
    pub const CONSTANT_COMPOSITE: u16 = 44;
    pub const SPEC_CONSTANT_TRUE: u16 = 48;
    pub const SPEC_CONSTANT_FALSE: u16 = 49;
    pub const SPEC_CONSTANT: u16 = 50;
    pub const SPEC_CONSTANT_COMPOSITE: u16 = 51;
    pub const SPEC_CONSTANT_OP: u16 = 52;
    pub const FUNCTION: u16 = 54;
    pub const VARIABLE: u16 = 59;
    pub const LOAD: u16 = 61;
    pub const STORE: u16 = 62;
    pub const ACCESS_CHAIN: u16 = 65;
    pub const IN_BOUNDS_ACCESS_CHAIN: u16 = 66;
    pub const DECORATE: u16 = 71;
    pub const MEMBER_DECORATE: u16 = 72;
    pub const COPY_OBJECT: u16 = 83;
    pub const F_CONVERT: u16 = 115;
}

/// Storage classes.
#[cfg_attr(not(feature = "compile"), allow(dead_code))]
pub(crate) mod storage {
    pub const INPUT: u32 = 1;
    pub const UNIFORM: u32 = 2;
    pub const OUTPUT: u32 = 3;
    pub const PRIVATE: u32 = 6;
    pub const PUSH_CONSTANT: u32 = 9;
    pub const STORAGE_BUFFER: u32 = 12;
}

/// Capabilities.
#[cfg_attr(not(feature = "compile"), allow(dead_code))]
pub(crate) mod cap {
    pub const FLOAT16: u32 = 9;
    pub const STORAGE_BUFFER_16BIT_ACCESS: u32 = 4433;
    pub const UNIFORM_AND_STORAGE_BUFFER_16BIT_ACCESS: u32 = 4434;
    pub const STORAGE_PUSH_CONSTANT_16: u32 = 4435;
    pub const STORAGE_INPUT_OUTPUT_16: u32 = 4436;
}

/// Decorations.
#[cfg_attr(not(feature = "compile"), allow(dead_code))]
pub(crate) mod decoration {
    pub const SPEC_ID: u32 = 1;
    pub const BUILTIN: u32 = 11;
    pub const NON_READABLE: u32 = 25;
    pub const BINDING: u32 = 33;
    pub const DESCRIPTOR_SET: u32 = 34;
}

/// Built-in variables.
#[cfg_attr(not(feature = "compile"), allow(dead_code))]
pub(crate) mod builtin {
    pub const WORKGROUP_SIZE: u32 = 25;
}

/// Execution models and modes.
pub(crate) mod execution {
    pub const MODEL_GLCOMPUTE: u32 = 5;
    pub const MODE_LOCAL_SIZE: u32 = 17;
}

/// One instruction of a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inst<'a> {
    /// The index of its first word in the module.
    pub at: usize,
    /// Its opcode (the low half of its first word).
    pub op: u16,
    /// All its words, the opcode word first.
    pub words: &'a [u32],
}

impl Inst<'_> {
    /// Operand `i` (0 is the first word after the opcode word); `None` past the end.
    pub fn operand(&self, i: usize) -> Option<u32> {
        self.words.get(i + 1).copied()
    }

    /// The nul-terminated literal string starting at operand `i` (names,
    /// extensions), lossily decoded so a bad byte cannot stop a pass.
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

/// The walk over a module's instructions: [`walk`].
#[derive(Clone, Debug)]
pub struct Walk<'a> {
    words: &'a [u32],
    /// The next instruction's first word; 0 before the header is checked.
    at: usize,
    /// Set after an error: the rest of the words cannot be framed.
    done: bool,
}

/// Walks the instructions of `words`, in order. A framing error (fewer
/// words than a header, a wrong magic number, an instruction whose word
/// count is 0 or runs past the end) is the last item: what follows it cannot
/// be told apart. Callers that need the whole module use [`instructions`].
pub fn walk(words: &[u32]) -> Walk<'_> {
    Walk {
        words,
        at: 0,
        done: false,
    }
}

impl<'a> Iterator for Walk<'a> {
    type Item = Result<Inst<'a>, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let words = self.words;
        if self.at == 0 {
            if words.len() < HEADER_WORDS {
                self.done = true;
                return Some(Err(format!(
                    "{} words is shorter than a SPIR-V header",
                    words.len()
                )));
            }
            if words[0] != MAGIC {
                self.done = true;
                return Some(Err(format!(
                    "magic number {:#010x}, expected {MAGIC:#010x}",
                    words[0]
                )));
            }
            self.at = HEADER_WORDS;
        }
        let at = self.at;
        let first = *words.get(at)?;
        let count = (first >> 16) as usize;
        let op = (first & 0xffff) as u16;
        if count == 0 || at + count > words.len() {
            self.done = true;
            return Some(Err(format!(
                "instruction at word {at} (opcode {op}) has a bad word count {count}"
            )));
        }
        self.at += count;
        Some(Ok(Inst {
            at,
            op,
            words: &words[at..at + count],
        }))
    }
}

/// Every instruction of `words`, or the first framing error ([`walk`]).
pub fn instructions(words: &[u32]) -> Result<Vec<Inst<'_>>, String> {
    walk(words).collect()
}

/// Writes `size` into the `OpExecutionMode LocalSize` of the module's
/// GLCompute entry point `main` (the one a pipeline runs; exactly one), after
/// checking the framing of the whole module: the runtime's check of a blob
/// and its choice of workgroup shape in one walk.
pub fn patch_local_size(words: &mut [u32], size: [u32; 3]) -> Result<(), String> {
    let mut entry = None;
    let mut local_size_at = Vec::new();
    for i in instructions(words)? {
        if i.op == op::ENTRY_POINT
            && i.words.len() >= 3
            && i.operand(0) == Some(execution::MODEL_GLCOMPUTE)
            && i.string(2) == "main"
        {
            if entry.is_some() {
                return Err("two GLCompute entry points named `main`".into());
            }
            entry = i.operand(1);
        }
        if i.op == op::EXECUTION_MODE
            && i.words.len() == 6
            && i.operand(1) == Some(execution::MODE_LOCAL_SIZE)
        {
            local_size_at.push((i.words[1], i.at + 3));
        }
    }
    let entry = entry.ok_or("no GLCompute entry point named `main`")?;
    let (_, lit) = local_size_at
        .into_iter()
        .find(|(e, _)| *e == entry)
        .ok_or("no OpExecutionMode LocalSize for the entry point")?;
    words[lit..lit + 3].copy_from_slice(&size);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal well-framed module: entry point %1 "main", LocalSize 4 2 1.
    fn module() -> Vec<u32> {
        vec![
            MAGIC,
            0x10000,
            0,
            10,
            0,
            (5 << 16) | u32::from(op::ENTRY_POINT),
            execution::MODEL_GLCOMPUTE,
            1,
            u32::from_le_bytes(*b"main"),
            0,
            (6 << 16) | u32::from(op::EXECUTION_MODE),
            1,
            execution::MODE_LOCAL_SIZE,
            4,
            2,
            1,
        ]
    }

    #[test]
    fn framing_is_checked() {
        assert_eq!(
            patch_local_size(&mut [1, 2, 3], [1, 1, 1]).unwrap_err(),
            "3 words is shorter than a SPIR-V header"
        );
        assert_eq!(
            patch_local_size(&mut [0xdead_beef, 0, 0, 0, 0], [1, 1, 1]).unwrap_err(),
            "magic number 0xdeadbeef, expected 0x07230203"
        );
        // An instruction claiming more words than there are.
        let mut m = vec![MAGIC, 0x10000, 0, 10, 0, (9 << 16) | 15];
        assert_eq!(
            patch_local_size(&mut m, [1, 1, 1]).unwrap_err(),
            "instruction at word 5 (opcode 15) has a bad word count 9"
        );
        // A word count of 0 would never advance.
        let mut m = module();
        m[10] = u32::from(op::EXECUTION_MODE);
        assert_eq!(
            patch_local_size(&mut m, [1, 1, 1]).unwrap_err(),
            "instruction at word 10 (opcode 16) has a bad word count 0"
        );
    }

    #[test]
    fn local_size_is_patched() {
        let mut m = module();
        patch_local_size(&mut m, [16, 4, 1]).unwrap();
        assert_eq!(m[13..16], [16, 4, 1]);
        // The entry point must be GLCompute, and its LocalSize must be there.
        let mut m = module();
        m[6] = 0;
        assert_eq!(
            patch_local_size(&mut m, [1, 1, 1]).unwrap_err(),
            "no GLCompute entry point named `main`"
        );
        // One named otherwise is not the one a pipeline runs.
        let mut m = module();
        m[8] = u32::from_le_bytes(*b"mair");
        assert!(patch_local_size(&mut m, [1, 1, 1]).is_err());
        let mut m = module();
        m[11] = 2;
        assert_eq!(
            patch_local_size(&mut m, [1, 1, 1]).unwrap_err(),
            "no OpExecutionMode LocalSize for the entry point"
        );
    }

    #[test]
    fn the_walk_ends_at_the_first_framing_error() {
        let mut m = module();
        m.push(0);
        let walked: Vec<_> = walk(&m).collect();
        assert_eq!(walked.len(), 3);
        assert_eq!(walked[0].as_ref().unwrap().op, op::ENTRY_POINT);
        assert_eq!(walked[0].as_ref().unwrap().string(2), "main");
        assert_eq!(walked[1].as_ref().unwrap().words, &m[10..16]);
        assert!(walked[2].as_ref().unwrap_err().contains("word 16"));
        assert!(instructions(&m).is_err());
        assert_eq!(instructions(&module()).unwrap().len(), 2);
    }
}
