//! SPIR-V words re-encoded, losslessly, as bytes a general compressor does
//! well on (after SMOL-V's idea): each word is written as its difference
//! from a prediction, zigzag LEB128, so the usual word takes one byte.
//!
//! - an instruction's first word (opcode, word count): the opcode, and the
//!   count's difference from the last count of that opcode, in a stream of
//!   their own (the head) before the operands;
//! - a result id: from the last result id plus one (ids are mostly given
//!   in order);
//! - a result type, and an operand that is a literal (constants, enums,
//!   decorations, indices): from the operand at the same place of the last
//!   instruction with the same opcode;
//! - any other operand (an id): from the instruction's result id, or the
//!   last result id where it has none (operands name recent values).
//!
//! Which operand is which comes from a small table of opcodes; an opcode
//! it does not know is read as "result type, result id, ids". A wrong
//! guess costs bytes, never a word: the decoder makes the same guess.

use std::collections::HashMap;

/// What the last instruction of an opcode held.
#[derive(Default)]
struct Last {
    count: u32,
    operands: Vec<u32>,
}

/// The last instruction of each opcode: core opcodes (under [`DIRECT`]) by
/// index, which is most of a module and twice as fast to decode as a hash
/// map, extensions' by hash.
#[derive(Default)]
struct Table {
    direct: Vec<Last>,
    other: HashMap<u16, Last>,
}

/// The opcodes [`Table`] indexes directly.
const DIRECT: u16 = 512;

impl Table {
    fn get(&mut self, op: u16) -> &mut Last {
        if op < DIRECT {
            let i = usize::from(op);
            if self.direct.len() <= i {
                self.direct.resize_with(i + 1, Last::default);
            }
            &mut self.direct[i]
        } else {
            self.other.entry(op).or_default()
        }
    }
}

/// Whether opcode `op` has a result type and a result id.
fn shape(op: u16) -> (bool, bool) {
    match op {
        // No result: debug, mode and decoration instructions, stores,
        // barriers, control flow.
        0
        | 2..=6
        | 8
        | 10
        | 14..=17
        | 39
        | 56
        | 62
        | 63
        | 71
        | 72
        | 74
        | 75
        | 99
        | 224
        | 225
        | 228
        | 246
        | 247
        | 249..=255
        | 317
        | 331
        | 332
        | 4416
        | 5632
        | 5633 => (false, false),
        // A result id without a type: strings, imports, types, labels.
        7 | 11 | 19..=38 | 73 | 248 => (false, true),
        _ => (true, true),
    }
}

/// Whether operand `j` (counted after the result type and id) of opcode
/// `op` is a literal rather than an id.
fn literal(op: u16, j: usize) -> bool {
    match op {
        // Every operand: sources, names, extensions, modes, capabilities,
        // integer and float types, constants, decorations (whose targets
        // step like the previous decoration's), switches.
        3..=7 | 10 | 11 | 14..=17 | 21 | 22 | 43 | 50 | 71 | 72 | 251 | 331 | 332 => true,
        // ExtInst's instruction number; a vector's or matrix's size.
        12 | 23 | 24 => j == 1,
        // A storage class, a function control.
        32 | 54 | 59 => j == 0,
        // Memory operands of loads; indices of CompositeExtract; selection
        // merge control.
        61 | 81 | 247 => j >= 1,
        // Memory operands of stores; shuffle and insert indices; loop control.
        62 | 79 | 82 | 246 => j >= 2,
        _ => false,
    }
}

/// Where operand `k` of an instruction of opcode `op` is predicted from:
/// `previous`, that opcode's last operands; `anchor`, the instruction's
/// result id once read, else the last one. The second value says whether
/// the operand is the result id.
fn predict(op: u16, k: usize, previous: &[u32], result: u32, anchor: u32) -> (u32, bool) {
    let (has_type, has_result) = shape(op);
    let previous = || previous.get(k).copied().unwrap_or(0);
    let result_at = usize::from(has_type);
    if has_type && k == 0 {
        (previous(), false)
    } else if has_result && k == result_at {
        (result.wrapping_add(1), true)
    } else if literal(op, k - result_at - usize::from(has_result)) {
        (previous(), false)
    } else {
        (anchor, false)
    }
}

/// The words of the module header, written plain.
const HEADER: usize = 5;

#[cfg(feature = "compile")]
fn zigzag(d: u32) -> u32 {
    let d = d as i32;
    ((d << 1) ^ (d >> 31)) as u32
}

fn unzigzag(z: u32) -> u32 {
    (z >> 1) ^ (z & 1).wrapping_neg()
}

#[cfg(feature = "compile")]
fn push(out: &mut Vec<u8>, mut w: u32) {
    while w >= 0x80 {
        out.push((w as u8) | 0x80);
        w >>= 7;
    }
    out.push(w as u8);
}

fn read(it: &mut std::slice::Iter<'_, u8>) -> Option<u32> {
    let mut w = 0u64;
    for shift in (0..35).step_by(7) {
        let b = *it.next()?;
        w |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return u32::try_from(w).ok();
        }
    }
    None
}

/// At most how many bytes [`encode`] writes for `words` words: five per
/// word, six for an instruction's first word, and the head's length.
pub fn max_encoded_len(words: usize) -> Option<usize> {
    words.checked_mul(6)?.checked_add(5)
}

/// The bytes of `words`: the head's length, the head, the operands.
#[cfg(feature = "compile")]
pub fn encode(words: &[u32]) -> Vec<u8> {
    let (mut head, mut body) = (Vec::new(), Vec::with_capacity(words.len() * 2));
    let start = words.len().min(HEADER);
    for &w in &words[..start] {
        push(&mut head, w);
    }
    let mut last = Table::default();
    let mut result = 0u32;
    let mut i = start;
    while i < words.len() {
        let (op, count) = ((words[i] & 0xffff) as u16, words[i] >> 16);
        let previous = last.get(op);
        push(&mut head, u32::from(op));
        push(&mut head, zigzag(count.wrapping_sub(previous.count)));
        let end = (i + (count as usize).max(1)).min(words.len());
        let operands = &words[i + 1..end];
        let mut anchor = result;
        for (k, &w) in operands.iter().enumerate() {
            let (predicted, is_result) = predict(op, k, &previous.operands, result, anchor);
            push(&mut body, zigzag(w.wrapping_sub(predicted)));
            if is_result {
                (result, anchor) = (w, w);
            }
        }
        previous.count = count;
        previous.operands.clear();
        previous.operands.extend_from_slice(operands);
        i = end;
    }
    let mut out = Vec::with_capacity(head.len() + body.len() + 5);
    push(&mut out, head.len() as u32);
    out.extend(head);
    out.extend(body);
    out
}

/// The `words` words [`encode`] wrote into `bytes`, or `None` where the
/// bytes are not exactly that. It holds no more than `words` words.
pub fn decode(bytes: &[u8], words: usize) -> Option<Vec<u32>> {
    let mut it = bytes.iter();
    let head_len = read(&mut it)? as usize;
    let rest = it.as_slice();
    let (head, body) = (rest.get(..head_len)?, &rest[head_len..]);
    let (mut head, mut body) = (head.iter(), body.iter());
    let mut out = Vec::with_capacity(words.min(bytes.len()));
    while out.len() < words.min(HEADER) {
        out.push(read(&mut head)?);
    }
    let mut last = Table::default();
    let mut result = 0u32;
    while out.len() < words {
        let op = u16::try_from(read(&mut head)?).ok()?;
        let previous = last.get(op);
        let count = previous.count.wrapping_add(unzigzag(read(&mut head)?));
        out.push(u32::from(op) | count << 16);
        let start = out.len();
        let operands = ((count as usize).max(1) - 1).min(words - start);
        let mut anchor = result;
        for k in 0..operands {
            let (predicted, is_result) = predict(op, k, &previous.operands, result, anchor);
            let w = predicted.wrapping_add(unzigzag(read(&mut body)?));
            out.push(w);
            if is_result {
                (result, anchor) = (w, w);
            }
        }
        previous.count = count;
        previous.operands.clear();
        previous.operands.extend_from_slice(&out[start..]);
    }
    (head.as_slice().is_empty() && body.as_slice().is_empty()).then_some(out)
}
