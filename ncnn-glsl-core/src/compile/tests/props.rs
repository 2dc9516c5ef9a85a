//! Whatever text comes in, `compile` returns: never a panic of ours, and
//! naga's panics become errors.

use proptest::prelude::*;

use super::{expanded, LOOPS, REFLECTED};
use crate::compile::{compile, CompileOptions};

/// Tokens that steer mutations toward the passes and naga's corners.
const PIECES: &[&str] = &[
    "writeonly",
    "local_size_x_id",
    "=",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ".",
    "\"",
    "/*",
    "*/",
    "//",
    "\n",
    "#",
    "barrier();",
    "float16_t",
    "f16vec4",
    "layout(",
    "uniform",
    "buffer",
    "const",
    "round(",
    "1.0hf",
    "0x",
    "é",
    "\u{0}",
    "[2][3]",
    "constant_id = 1",
    "max(",
    "int",
    "uint",
    "return",
    " ",
    "\\\n",
];

fn mutate(base: &str, edits: &[(usize, usize, usize)]) -> String {
    let mut s = base.to_string();
    for &(at, del, piece) in edits {
        let mut at = at % (s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        let mut end = (at + del % 8).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s.replace_range(at..end, PIECES[piece % PIECES.len()]);
    }
    s
}

fn never_panics(text: &str, mode: &str) {
    let e = expanded(text, mode);
    let _ = compile(&e, &CompileOptions::default());
    let _ = compile(&e, &CompileOptions { debug_names: true });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(body in "[ -~\n\té]{0,300}") {
        never_panics(&format!("#version 450\n{body}"), "fp32");
        never_panics(&body, "fp16s+fp16a");
    }

    #[test]
    fn mutated_shaders_never_panic(
        which in 0usize..3,
        edits in prop::collection::vec((any::<usize>(), any::<usize>(), any::<usize>()), 1..6),
    ) {
        let base = [LOOPS, REFLECTED, super::COPY][which];
        never_panics(&mutate(base, &edits), if which == 1 { "fp16s+fp16a" } else { "fp32" });
    }
}
