//! `round()`: naga's GLSL frontend reads `round` and `roundEven` as one IR
//! function, which its SPIR-V writer emits as GLSL.std.450 `RoundEven`
//! (halfway cases to even), where glslang emits `Round` for `round()`
//! (halfway cases away from zero, what ncnn's results come from). When the
//! text calls `round` (and, by the refusal table, not `roundEven` too), this
//! pass turns every `RoundEven` of the module into `Round`: naga writes
//! `RoundEven` for nothing else.

use crate::compile::tokens::{Kind, Token};
use crate::spirv::{instructions, op};

/// GLSL.std.450's `Round` and `RoundEven`.
const ROUND: u32 = 1;
const ROUND_EVEN: u32 = 2;

/// Whether `src` calls `name` (an identifier followed by `(`).
pub(crate) fn calls(src: &str, toks: &[Token], name: &str) -> bool {
    toks.windows(2)
        .any(|w| w[0].kind == Kind::Ident && w[0].text(src) == name && w[1].is_punct(src, '('))
}

/// Rewrites each GLSL.std.450 `RoundEven` of `words` into `Round`; returns
/// how many. `Err` when the framing of `words` is broken.
pub(crate) fn round_half_away(words: &mut [u32]) -> Result<usize, String> {
    let insts = instructions(words)?;
    let glsl: Vec<u32> = insts
        .iter()
        .filter(|i| i.op == op::EXT_INST_IMPORT && i.string(1) == "GLSL.std.450")
        .filter_map(|i| i.operand(0))
        .collect();
    // OpExtInst: result type, result, set, instruction, operands.
    let at: Vec<usize> = insts
        .iter()
        .filter(|i| i.op == op::EXT_INST)
        .filter(|i| {
            i.operand(2).is_some_and(|s| glsl.contains(&s)) && i.operand(3) == Some(ROUND_EVEN)
        })
        .map(|i| i.at + 4)
        .collect();
    for &k in &at {
        words[k] = ROUND;
    }
    Ok(at.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::tokens::tokenize as tokens;

    #[test]
    fn finds_calls_not_names() {
        let src = "float round = 1.0; x = roundEven(y); z = round (w);";
        let t = tokens(src);
        assert!(calls(src, &t, "round"));
        assert!(calls(src, &t, "roundEven"));
        let src = "float round = 1.0;";
        assert!(!calls(src, &tokens(src), "round"));
    }
}
