//! The universal limits of SPIR-V (the specification's section 2.17) that a
//! shader can push a module past, checked on the words after every pass: a
//! module past one is invalid (spirv-val refuses it) though naga writes it,
//! and a driver handed one may do anything. Shaders within the statement and
//! bracket budgets of the refusal table reach them: structs nested 254 deep
//! (the block naga wraps around a buffer adds a level), `if`s nested 1100
//! deep without braces.

use std::collections::HashMap;

use crate::spirv::{instructions, op};

/// `OpFunctionParameter`, `OpFunctionEnd`, `OpPtrAccessChain`.
const FUNCTION_PARAMETER: u16 = 55;
const FUNCTION_END: u16 = 56;
const PTR_ACCESS_CHAIN: u16 = 67;
/// `OpLoopMerge`, `OpSelectionMerge`, `OpLabel`, `OpSwitch`.
const LOOP_MERGE: u16 = 246;
const SELECTION_MERGE: u16 = 247;
const LABEL: u16 = 248;
const SWITCH: u16 = 251;
/// The `Function` storage class: local variables.
const FUNCTION_STORAGE: u32 = 7;

/// One limit: its name as the specification writes it, and the most allowed.
struct Limit {
    name: &'static str,
    max: usize,
}

const STRUCT_NESTING: Limit = Limit {
    name: "structure nesting depth",
    max: 255,
};
const ACCESS_CHAIN_INDEXES: Limit = Limit {
    name: "indexes of one access chain",
    max: 255,
};
const FUNCTION_PARAMETERS: Limit = Limit {
    name: "parameters of one function",
    max: 255,
};
const STRUCT_MEMBERS: Limit = Limit {
    name: "members of one struct",
    max: 16383,
};
const GLOBALS: Limit = Limit {
    name: "global variables",
    max: 65535,
};
const LOCALS: Limit = Limit {
    name: "local variables",
    max: 524287,
};
const CONTROL_NESTING: Limit = Limit {
    name:
        "structured control-flow nesting depth (`if`, `for`, `while`, `switch` inside each other)",
    max: 1023,
};
const SWITCH_PAIRS: Limit = Limit {
    name: "`case` labels of one `switch`",
    max: 16383,
};
const ID_BOUND: Limit = Limit {
    name: "result id bound",
    max: 4_194_303,
};

/// `Err` naming the first limit `words` exceed, its value and the maximum.
pub(crate) fn check(words: &[u32]) -> Result<(), String> {
    let over = |l: &Limit, n: usize| -> Result<(), String> {
        if n > l.max {
            Err(format!(
                "the module's {} is {n}, and SPIR-V allows at most {}",
                l.name, l.max
            ))
        } else {
            Ok(())
        }
    };
    over(&ID_BOUND, words.get(3).copied().unwrap_or(0) as usize)?;
    let insts = instructions(words)?;
    let mut structs: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut arrays: HashMap<u32, u32> = HashMap::new();
    let (mut globals, mut locals, mut params) = (0usize, 0usize, 0usize);
    // The merge blocks of the constructs open at this point: naga writes
    // each construct's blocks before its merge block, so a construct ends
    // where its merge block's label comes.
    let mut open: Vec<u32> = Vec::new();
    for i in &insts {
        let w = &i.words[1..];
        match i.op {
            LOOP_MERGE | SELECTION_MERGE if !w.is_empty() => {
                open.push(w[0]);
                over(&CONTROL_NESTING, open.len())?;
            }
            LABEL if !w.is_empty() => {
                while open.last() == Some(&w[0]) {
                    open.pop();
                }
            }
            SWITCH => over(&SWITCH_PAIRS, w.len().saturating_sub(2) / 2)?,
            op::TYPE_STRUCT if !w.is_empty() => {
                over(&STRUCT_MEMBERS, w.len() - 1)?;
                structs.insert(w[0], w[1..].to_vec());
            }
            op::TYPE_ARRAY | op::TYPE_RUNTIME_ARRAY if w.len() >= 2 => {
                arrays.insert(w[0], w[1]);
            }
            op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN => {
                over(&ACCESS_CHAIN_INDEXES, w.len().saturating_sub(3))?
            }
            PTR_ACCESS_CHAIN => over(&ACCESS_CHAIN_INDEXES, w.len().saturating_sub(4))?,
            op::VARIABLE if w.len() >= 3 => {
                if w[2] == FUNCTION_STORAGE {
                    locals += 1;
                } else {
                    globals += 1;
                }
            }
            FUNCTION_PARAMETER => {
                params += 1;
                over(&FUNCTION_PARAMETERS, params)?;
            }
            FUNCTION_END => {
                params = 0;
                open.clear();
            }
            _ => {}
        }
    }
    over(&GLOBALS, globals)?;
    over(&LOCALS, locals)?;
    // Depth of each struct: 1 + its deepest member (arrays of structs count
    // their element). Types precede their uses, so one pass in order will do.
    let mut depth: HashMap<u32, usize> = HashMap::new();
    let of = |mut t: u32, depth: &HashMap<u32, usize>| {
        // Arrays of arrays of structs: down to the element (bounded: a
        // cycle of arrays is invalid SPIR-V, and ends here too).
        for _ in 0..arrays.len() {
            match arrays.get(&t) {
                Some(&e) => t = e,
                None => break,
            }
        }
        depth.get(&t).copied().unwrap_or(0)
    };
    for i in insts.iter().filter(|i| i.op == op::TYPE_STRUCT) {
        let Some(id) = i.operand(0) else { continue };
        let members = &structs[&id];
        let d = 1 + members.iter().map(|&m| of(m, &depth)).max().unwrap_or(0);
        over(&STRUCT_NESTING, d)?;
        depth.insert(id, d);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &[Vec<u32>], bound: u32) -> Vec<u32> {
        let mut w = vec![crate::spirv::MAGIC, 0x0001_0300, 0, bound, 0];
        for inst in body {
            let (op, operands) = inst.split_first().unwrap();
            w.push(((operands.len() as u32 + 1) << 16) | op);
            w.extend_from_slice(operands);
        }
        w
    }

    #[test]
    fn each_limit_is_named_with_its_value() {
        // Structs nested 256 deep: %2 = struct{uint}, %3 = struct{%2}, ...
        let mut body = vec![vec![21, 1, 32, 0], vec![30, 2, 1]];
        for k in 3..=257 {
            body.push(vec![30, k, k - 1]);
        }
        let e = check(&module(&body, 300)).unwrap_err();
        assert_eq!(
            e,
            "the module's structure nesting depth is 256, and SPIR-V allows at most 255"
        );
        body.pop();
        assert_eq!(check(&module(&body, 300)), Ok(()));
        // An access chain of 256 indexes.
        let mut chain = vec![65, 1, 2, 3];
        chain.extend(std::iter::repeat_n(4, 256));
        let e = check(&module(&[chain], 10)).unwrap_err();
        assert!(e.contains("indexes of one access chain is 256"), "{e}");
        // Selections nested 1024 deep: each header's merge block comes
        // after the inner ones'.
        let nested = |n: u32| {
            let mut body: Vec<Vec<u32>> = (0..n).map(|k| vec![247, 1000 + k, 0]).collect();
            body.extend((0..n).rev().map(|k| vec![248, 1000 + k]));
            body.push(vec![56]);
            module(&body, 3000)
        };
        let e = check(&nested(1024)).unwrap_err();
        assert!(e.contains("nesting depth (`if`, `for`, `while`, `switch` inside each other) is 1024, and SPIR-V allows at most 1023"), "{e}");
        assert_eq!(check(&nested(1023)), Ok(()));
        let mut switch = vec![251, 1, 2];
        for k in 0..16384 {
            switch.extend([k, 3]);
        }
        let e = check(&module(&[switch], 10)).unwrap_err();
        assert!(e.contains("`case` labels of one `switch` is 16384"), "{e}");
        let e = check(&module(&[], 5_000_000)).unwrap_err();
        assert!(e.contains("result id bound is 5000000"), "{e}");
    }
}
