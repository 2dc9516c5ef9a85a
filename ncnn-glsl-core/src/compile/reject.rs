//! Constructs naga's GLSL frontend lacks or compiles wrong, as a table.
//!
//! Each is found in the tokens of the finished text (outside comments and
//! directives) before naga runs, so the user gets one clear error per use,
//! all at once, at the construct's own line and column, with why and what to
//! do, instead of naga's "Unknown function" or, worse, wrong code. The project
//! rule is that no known miscompile passes silently.

use std::collections::{HashMap, HashSet};

use super::source_text::{brace_depths, matching, opening};
use super::tokens::{is_type_name, tokenize, Kind, Token, NOT_TYPES};

/// How a rule finds its construct.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pattern {
    /// Any identifier in the list (types, qualifiers, variables).
    Ident(&'static [&'static str]),
    /// A call (identifier then `(`) of a function in the list.
    Call(&'static [&'static str]),
    /// An identifier starting with one of the prefixes.
    IdentPrefix(&'static [&'static str]),
    /// Any string literal.
    StringLiteral,
    /// A number with a float16 suffix (`1.0hf`).
    Float16Literal,
    /// A declaration with two or more array dimensions (`T a[8][64]`).
    MultiDimArray,
    /// Brackets nested deeper than [`MAX_NESTING`].
    DeepNesting,
    /// A statement of more than [`MAX_STATEMENT_TOKENS`] tokens.
    LongStatement,
    /// A function of more than [`MAX_FUNCTION_STATEMENTS`] statements.
    LongFunction,
    /// More than [`MAX_GLOBALS`] declarations at global scope.
    ManyGlobals,
    /// A specialization constant where naga needs a constant (a `const`
    /// initializer, an array size) that `spec_expressions.rs` cannot write,
    /// and the `length()` of an array it sizes.
    SpecConstantInConstExpr,
    /// A member of a block with an instance name that has the name of a
    /// constant declared before the block and is used bare after it.
    ShadowedBlockMember,
    /// A call of `round` in a text that also calls `roundEven`.
    RoundBesideRoundEven,
    /// A call on a cycle of the call graph (a function calling itself,
    /// directly or through others).
    Recursion,
}

impl Pattern {
    /// Whether this is a budget: a size past which the other rules and the
    /// passes after them could take too long.
    fn is_budget(self) -> bool {
        matches!(
            self,
            Pattern::DeepNesting
                | Pattern::LongStatement
                | Pattern::LongFunction
                | Pattern::ManyGlobals
        )
    }
}

/// One construct that is refused, with the reason and the way out.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// What to look for.
    pub pattern: Pattern,
    /// Why it is refused: what naga lacks or gets wrong.
    pub reason: &'static str,
    /// What the user can do instead.
    pub advice: &'static str,
}

/// Every refused construct. Keep this the single place that knows them.
pub const RULES: &[Rule] = &[
    Rule {
        pattern: Pattern::Call(&[
            "atomicLoad", "atomicStore", "atomicCounter", "atomicCounterIncrement",
            "atomicCounterDecrement", "imageAtomicAdd", "imageAtomicCompSwap",
            "imageAtomicExchange", "imageAtomicMin", "imageAtomicMax", "imageAtomicAnd",
            "imageAtomicOr", "imageAtomicXor",
        ]),
        reason: "naga's GLSL frontend has no atomics, and this compiler provides only `atomicAdd`, \
                 `atomicAnd`, `atomicOr`, `atomicXor`, `atomicMin`, `atomicMax`, `atomicExchange` \
                 and `atomicCompSwap` on `int`/`uint` elements of buffers and `shared` variables",
        advice: "use one of those (`atomicAdd(x, 0)` reads atomically, `atomicExchange` writes)",
    },
    Rule {
        pattern: Pattern::Ident(&[
            "gl_SubgroupEqMask", "gl_SubgroupGeMask", "gl_SubgroupGtMask", "gl_SubgroupLeMask",
            "gl_SubgroupLtMask",
        ]),
        reason: "naga's IR has no subgroup mask built-ins (this compiler provides \
                 `gl_SubgroupSize`, `gl_SubgroupInvocationID`, `gl_NumSubgroups` and `gl_SubgroupID`)",
        advice: "build the mask from `gl_SubgroupInvocationID` (lanes below it: bits `0..id` of \
                 the `uvec4` a ballot returns)",
    },
    Rule {
        pattern: Pattern::Call(&["subgroupPartitionNV", "subgroupRotate", "subgroupClusteredRotate"]),
        reason: "naga's IR has no partitioned or rotate subgroup operations, and this compiler \
                 writes none (`subgroupPartitionNV` needs `GL_NV_shader_subgroup_partitioned`, \
                 the rotates `SPV_KHR_subgroup_rotate`, extensions the runtime does not ask the \
                 device for)",
        advice: "write it with the subgroup functions this compiler provides: a rotate by `d` \
                 is `subgroupShuffle(x, (gl_SubgroupInvocationID + d) % gl_SubgroupSize)`",
    },
    Rule {
        pattern: Pattern::Ident(&[
            "int8_t", "uint8_t", "i8vec2", "i8vec3", "i8vec4", "u8vec2", "u8vec3", "u8vec4",
            "int16_t", "uint16_t", "i16vec2", "i16vec3", "i16vec4", "u16vec2", "u16vec3",
            "u16vec4", "int64_t", "uint64_t", "i64vec2", "i64vec3", "i64vec4", "u64vec2",
            "u64vec3", "u64vec4", "int32_t", "uint32_t", "i32vec2", "i32vec3", "i32vec4",
            "u32vec2", "u32vec3", "u32vec4",
        ]),
        reason: "naga's GLSL frontend has no 8-, 16- or 64-bit integer types (nor the sized 32-bit names)",
        advice: "use `int`/`uint` and pack narrow values with shifts and `bitfieldExtract`; the \
                 extension's int8p and int16p modes do this for buffers",
    },
    Rule {
        pattern: Pattern::Call(&[
            "pack8", "pack16", "pack32", "pack64", "unpack8", "unpack16", "unpack32",
        ]),
        reason: "naga's GLSL frontend has no 8-, 16- or 64-bit integer types, so no packing functions for them",
        advice: "pack with shifts and `bitfieldInsert` on `uint`",
    },
    Rule {
        pattern: Pattern::Ident(&["bfloat16_t", "bf16vec2", "bf16vec3", "bf16vec4"]),
        reason: "naga's GLSL frontend has no bfloat16 types",
        advice: "use the bf16p mode, which keeps bf16 values as bits in `uint`",
    },
    Rule {
        pattern: Pattern::Call(&["debugPrintfEXT"]),
        reason: "naga's GLSL frontend has no `debugPrintfEXT`",
        advice: "remove the call (and its string literal)",
    },
    Rule {
        pattern: Pattern::Call(&["unpackFloat2x16", "packFloat2x16"]),
        reason: "naga's GLSL frontend has no `packFloat2x16`/`unpackFloat2x16`",
        advice: "use `unpackHalf2x16`/`packHalf2x16` (fp32 vectors) and convert to `f16vec2` if needed",
    },
    Rule {
        pattern: Pattern::Ident(&["coherent", "volatile"]),
        reason: "naga's GLSL frontend does not implement the `coherent` and `volatile` qualifiers",
        advice: "remove the qualifier; make writes visible across the workgroup with `barrier()`",
    },
    Rule {
        pattern: Pattern::StringLiteral,
        reason: "naga's GLSL lexer fails on any string literal",
        advice: "remove it (GLSL code has no strings; `#include` is resolved before naga)",
    },
    Rule {
        pattern: Pattern::MultiDimArray,
        reason: "naga's GLSL frontend reverses the dimensions of multi-dimensional arrays \
                 (`T a[8][64]` becomes 64 arrays of 8), which compiles to wrong code; this compiler \
                 repairs a declaration of one name with sized dimensions (on the name, the type or \
                 both), ending at its `;` on one line, and refuses the other forms (lists, \
                 parameters, initializers, comments or line breaks inside)",
        advice: "declare it alone, `T a[8][64][4];` on one line, and assign the elements after \
                 (indexing stays `a[i][j][k]`); a parameter can be flattened to `T a[8 * 64]`",
    },
    Rule {
        pattern: Pattern::Call(&["bitCount"]),
        reason: "naga types `bitCount` as `uint` (GLSL: `int`) and the result fails validation",
        advice: "count bits by hand, e.g. `x -= (x >> 1) & 0x55555555u; ...` (SWAR popcount)",
    },
    Rule {
        pattern: Pattern::Call(&[
            "coopMatLoadTensorNV", "coopMatStoreTensorNV", "coopMatPerElementNV",
            "coopMatReduceNV", "coopMatTransposeNV", "createTensorLayoutNV",
            "createTensorViewNV",
        ]),
        reason: "naga's IR has cooperative matrix loads, stores and multiply-adds only, and this \
                 compiler writes none of GL_NV_cooperative_matrix2's tensor, per-element, \
                 reduction or transpose operations (it provides `GL_KHR_cooperative_matrix` and \
                 `GL_NV_cooperative_matrix`)",
        advice: "load and store with `coopMatLoad`/`coopMatStore` (a stride and a layout), \
                 reduce or transpose through `shared` memory",
    },
    Rule {
        pattern: Pattern::Call(&["uaddCarry", "usubBorrow"]),
        reason: "naga's GLSL frontend has no `uaddCarry`/`usubBorrow`",
        advice: "compute the carry by hand: `uint s = a + b; uint carry = s < a ? 1u : 0u;`",
    },
    Rule {
        pattern: Pattern::RoundBesideRoundEven,
        reason: "naga compiles `round()` and `roundEven()` to one function; this compiler gives it \
                 `round()`'s meaning (halfway cases away from zero, as glslang) in a shader that \
                 calls only `round`, and `roundEven()`'s in one that calls only `roundEven`, not \
                 both in one shader",
        advice: "write one of the two: `roundEven(x)` for ties to even, or round halves away from \
                 zero by hand: `trunc(x + sign(x) * 0.5)` where `x + 0.5` is exact",
    },
    Rule {
        pattern: Pattern::Call(&["dotPacked4x8AccSatEXT"]),
        reason: "naga's IR has no saturating packed dot product (`OpSDotAccSat`); this compiler \
                 provides `dotPacked4x8EXT` of two `int` or two `uint` words",
        advice: "add the accumulator yourself: `dotPacked4x8EXT(a, b) + acc` where the sum cannot \
                 overflow (four products of 8-bit lanes fit in 17 bits), with `clamp` where it can",
    },
    Rule {
        pattern: Pattern::Recursion,
        reason: "recursion: this call makes a function call itself, directly or through others, \
                 which GLSL forbids (glslang: \"Recursion detected\"); naga would report an \
                 unknown function or functions out of order",
        advice: "write it as a loop (with a small array as the stack where it must remember)",
    },
    Rule {
        pattern: Pattern::Float16Literal,
        reason: "naga's GLSL frontend has no float16 literals (`hf` suffix)",
        advice: "write `float16_t(1.0)`",
    },
    Rule {
        pattern: Pattern::DeepNesting,
        reason: "brackets nest deeper than 256 levels; naga's parser recurses per level and would \
                 overflow its stack, which aborts the build",
        advice: "split the expression with local variables",
    },
    Rule {
        pattern: Pattern::LongStatement,
        reason: "a statement of more than 10000 tokens; naga recurses per operand of a chain and \
                 would overflow its stack, which aborts the build",
        advice: "split the expression with local variables",
    },
    Rule {
        pattern: Pattern::LongFunction,
        reason: "a function of more than 10000 statements; the compile's time grows with the square of a function's length (16000 statements: 1.3 s with naga optimized, minutes without), so a build could take hours",
        advice: "split the function, or loop where the text repeats",
    },
    Rule {
        pattern: Pattern::ManyGlobals,
        reason: "more than 2000 global declarations; the compile's time grows with the square of their number (4000 buffers: 1.3 s with naga optimized, minutes without), so a build could take hours",
        advice: "gather the declarations into blocks or arrays",
    },
    Rule {
        pattern: Pattern::ShadowedBlockMember,
        reason: "naga puts the members of a block with an instance name into the global scope, so \
                 after this block a bare use of the name reads the member, not the global \
                 declared before it (glslang reads the global): wrong code",
        advice: "declare the global after the block, or rename one of them",
    },
    Rule {
        pattern: Pattern::SpecConstantInConstExpr,
        reason: "a specialization constant in a global `const` initializer or an array size \
                 other than in an integer expression (`+ - * / % << >> & | ^ ~`, `< <= > >= == \
                 !=`, `&& || ^^ !`, `?:`, `min`, `max`, `int()`, `uint()`, `bool()` and \
                 parentheses over `int`/`uint` specialization constants, constants and integer \
                 literals; no float, no `true`/`false`, no `bool` specialization constant), in \
                 the size of a block's or struct's member, in two dimensions of one array or in \
                 one whose other dimensions and element (a scalar or vector) take more than 169 \
                 bytes (naga lays the array out at a length of 12582912 first), or the \
                 `length()` of an array it sizes: this compiler writes those as \
                 `OpSpecConstantOp` for `shared` and local arrays and global constants only \
                 (naga needs a constant)",
        advice: "compute it in `main` (a plain or `const` local is fine), write the size as such \
                 an expression (`b ? 1 : 0` for a `bool`, integers for floats), or use a \
                 `#define` or a build-time axis (`#pragma ncnn_glsl axis NAME v1 v2`); for \
                 `length()`, use the size's expression",
    },
];

/// A refusal that needs naga's types, so it is made after parsing, at the
/// construct (its README row is the reason after "(after parsing) ").
#[derive(Clone, Copy, Debug)]
pub struct AfterParsing {
    /// Why it is refused.
    pub reason: &'static str,
    /// What the user can do instead.
    pub advice: &'static str,
}

/// A whole struct or array copied between a std430 block and a variable
/// (`layout_copies.rs`).
pub const LAYOUT_COPY: AfterParsing = AfterParsing {
    reason: "a whole copy of a struct or array between a std430 block and a \
             variable: naga gives a struct or array inside a std430 block (a buffer, or `std430` \
             push constants) the block's array strides as a second type, and the variable keeps \
             its own, so the copy does not compile",
    advice: "copy member by member, and arrays element by element \
             (`for (int k = 0; k < 4; k++) s.v[k] = buf.items[i].v[k];`), or read the block \
             directly (`buf.items[i].v[k]`)",
};

/// A `float` converted to `float16_t` where GLSL converts the other way
/// (`fp16_widening.rs`).
pub const FLOAT16_DEMOTION: AfterParsing = AfterParsing {
    reason: "naga's GLSL frontend converts this `float` to `float16_t`, where GLSL converts the \
             `float16_t` operand to `float` (or refuses the conversion), so the arithmetic \
             would run in 16 bits instead of 32",
    advice: "convert explicitly: `float(h)` for 32-bit arithmetic, `afp(x)` or `float16_t(x)` \
             for 16-bit (`afp(0.5)` for a literal)",
};

/// Every refusal made after parsing with a reason of this module.
pub const AFTER_PARSING: &[AfterParsing] = &[LAYOUT_COPY, FLOAT16_DEMOTION];

/// Deepest nesting of `(`, `[` and `{` accepted.
pub const MAX_NESTING: usize = 256;

/// Most tokens in one statement (between `;`, `{` and `}`) accepted.
pub const MAX_STATEMENT_TOKENS: usize = 10_000;

/// Most statements (`;` inside its body) in one function. Measured with the
/// release CLI (`ncnn-glsl compile`, naga optimized) on `x[i] = x[j] + k;`
/// repeated: 4000 statements 0.11 s, 8000 0.37 s, 16000 1.27 s, each doubling
/// 3-3.5 times slower; a proc-macro's naga at opt-level 0 is some 20 times
/// slower again. ncnn's longest kernels have a few hundred.
pub const MAX_FUNCTION_STATEMENTS: usize = 10_000;

/// Most declarations (`;` at global scope) in one shader. Measured as above
/// with one storage buffer each: 1000 0.07 s, 2000 0.27 s, 4000 1.27 s
/// (`shared` scalars stayed linear: 16000 in 0.06 s). ncnn's shaders declare
/// a few dozen.
pub const MAX_GLOBALS: usize = 2_000;

/// One use of a refused construct: which rule and where in the finished text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Index into [`RULES`].
    pub rule: usize,
    /// Byte range in the finished text.
    pub start: usize,
    pub end: usize,
    /// The construct as written.
    pub text: String,
}

/// Every use of a refused construct in `src`, in text order.
pub(crate) fn scan(src: &str) -> Vec<Hit> {
    let toks = tokenize(src);
    let mut hits = Vec::new();
    let push = |hits: &mut Vec<Hit>, rule: usize, start: usize, end: usize| {
        hits.push(Hit {
            rule,
            start,
            end,
            text: src[start..end].to_string(),
        });
    };
    // The budgets first: past one, only they are reported, so the other
    // rules (and every later pass) only ever see a text within them.
    let rules = RULES.iter().enumerate();
    let (budgets, others): (Vec<_>, Vec<_>) = rules.partition(|(_, r)| r.pattern.is_budget());
    let mut budgets_done = false;
    for (r, rule) in budgets.into_iter().chain(others) {
        if !rule.pattern.is_budget() && !budgets_done {
            budgets_done = true;
            if !hits.is_empty() {
                break;
            }
        }
        match rule.pattern {
            Pattern::Ident(names) => {
                for t in toks
                    .iter()
                    .filter(|t| t.kind == Kind::Ident && names.contains(&t.text(src)))
                {
                    push(&mut hits, r, t.start, t.end);
                }
            }
            Pattern::Call(names) => {
                for (i, t) in toks.iter().enumerate() {
                    let call = toks.get(i + 1).is_some_and(|n| n.is_punct(src, '('));
                    if t.kind == Kind::Ident && call && names.contains(&t.text(src)) {
                        push(&mut hits, r, t.start, t.end);
                    }
                }
            }
            Pattern::RoundBesideRoundEven => {
                let call = |name: &str| super::round_half_away::calls(src, &toks, name);
                if call("round") && call("roundEven") {
                    for (i, t) in toks.iter().enumerate() {
                        let called = toks.get(i + 1).is_some_and(|n| n.is_punct(src, '('));
                        if t.kind == Kind::Ident && called && t.text(src) == "round" {
                            push(&mut hits, r, t.start, t.end);
                        }
                    }
                }
            }
            Pattern::Recursion => {
                for t in super::recursion::recursive_calls(src, &toks) {
                    push(&mut hits, r, t.start, t.end);
                }
            }
            Pattern::IdentPrefix(prefixes) => {
                for t in &toks {
                    if t.kind == Kind::Ident && prefixes.iter().any(|p| t.text(src).starts_with(p))
                    {
                        push(&mut hits, r, t.start, t.end);
                    }
                }
            }
            Pattern::StringLiteral => {
                for t in toks.iter().filter(|t| t.kind == Kind::Str) {
                    push(&mut hits, r, t.start, t.end);
                }
            }
            Pattern::Float16Literal => {
                for t in toks.iter().filter(|t| t.kind == Kind::Number) {
                    let s = t.text(src).to_ascii_lowercase();
                    if s.ends_with("hf") && !s.starts_with("0x") {
                        push(&mut hits, r, t.start, t.end);
                    }
                }
            }
            Pattern::MultiDimArray => {
                // `T a[N][M];` is repaired (array_dims.rs); the rest is refused.
                let repaired = super::array_dims::rewrites(src, &toks);
                for (start, end) in multi_dim_arrays(src, &toks) {
                    let covered = |rw: &super::array_dims::Rewrite| {
                        rw.range.start < end && start < rw.range.end
                    };
                    if !repaired.iter().any(covered) {
                        push(&mut hits, r, start, end);
                    }
                }
            }
            Pattern::DeepNesting => {
                let mut depth = 0usize;
                for t in &toks {
                    if t.kind != Kind::Punct {
                        continue;
                    }
                    match &src[t.start..t.end] {
                        "(" | "[" | "{" => {
                            depth += 1;
                            if depth == MAX_NESTING + 1 {
                                push(&mut hits, r, t.start, t.end);
                            }
                        }
                        ")" | "]" | "}" => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                }
            }
            Pattern::LongStatement => {
                let mut count = 0usize;
                for t in &toks {
                    if t.is_punct(src, ';') || t.is_punct(src, '{') || t.is_punct(src, '}') {
                        count = 0;
                        continue;
                    }
                    count += 1;
                    if count == MAX_STATEMENT_TOKENS + 1 {
                        push(&mut hits, r, t.start, t.end);
                    }
                }
            }
            Pattern::LongFunction | Pattern::ManyGlobals => {
                // `;` per brace depth: at depth 0 a global declaration ends,
                // inside a body a statement (a `for`'s count too).
                let (mut depth, mut globals, mut statements) = (0usize, 0usize, 0usize);
                for t in &toks {
                    if t.is_punct(src, '{') {
                        depth += 1;
                    } else if t.is_punct(src, '}') {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            statements = 0;
                        }
                    } else if t.is_punct(src, ';') {
                        let (count, max) = if depth == 0 {
                            (&mut globals, MAX_GLOBALS)
                        } else {
                            (&mut statements, MAX_FUNCTION_STATEMENTS)
                        };
                        *count += 1;
                        let mine = (depth == 0) == (rule.pattern == Pattern::ManyGlobals);
                        if *count == max + 1 && mine {
                            push(&mut hits, r, t.start, t.end);
                        }
                    }
                }
            }
            Pattern::SpecConstantInConstExpr => {
                let decls = super::spec_constants::decls(src, &toks);
                for (start, end) in super::spec_expressions::refused(src, &toks, &decls) {
                    push(&mut hits, r, start, end);
                }
            }
            Pattern::ShadowedBlockMember => {
                for t in shadowed_block_members(src, &toks) {
                    push(&mut hits, r, t.start, t.end);
                }
            }
        }
    }
    hits.sort_by_key(|h| (h.start, h.rule));
    hits
}

/// Byte ranges of `name[..][..]` (or `type[..][..]`) in declarations. An
/// access `a[i][j]` is not a declaration: the name must follow a type name
/// (or an array type, `T[4] a[2][3]`).
fn multi_dim_arrays(src: &str, toks: &[Token]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 1..toks.len() {
        if !toks[i].is_punct(src, '[') || toks[i - 1].kind != Kind::Ident {
            continue;
        }
        let Some(close) = matching(src, toks, i, '[', ']') else {
            continue;
        };
        if !toks.get(close + 1).is_some_and(|t| t.is_punct(src, '[')) {
            continue;
        }
        let name = toks[i - 1];
        let type_array = is_type_name(name.text(src));
        let declared = i >= 2
            && toks[i - 2].kind == Kind::Ident
            && !NOT_TYPES.contains(&toks[i - 2].text(src));
        // `T[4] a[2][3]`: the name follows an array type.
        let after_array_type = i >= 2
            && toks[i - 2].is_punct(src, ']')
            && opening(src, toks, i - 2, '[', ']').is_some_and(|o| {
                o >= 1
                    && toks[o - 1].kind == Kind::Ident
                    && !NOT_TYPES.contains(&toks[o - 1].text(src))
            });
        if type_array || declared || after_array_type {
            let last = matching(src, toks, close + 1, '[', ']').unwrap_or(close + 1);
            out.push((name.start, toks[last].end));
        }
    }
    out
}

/// Members of an instance-named block at global scope that shadow a global
/// declared earlier (a constant, a private or shared variable, a member of
/// an anonymous block) and are then used bare: naga reads the member.
fn shadowed_block_members(src: &str, toks: &[Token]) -> Vec<Token> {
    let depth = brace_depths(src, toks);
    // Specialization constants that can move past the block are repaired.
    let movable = super::spec_constants::movable(src, toks);
    // `T name =`, `T name;` or `T name[`: the name a declaration introduces.
    let declared = |k: usize| -> Option<&str> {
        let (t, n, after) = (toks.get(k)?, toks.get(k + 1)?, toks.get(k + 2)?);
        let ends = after.is_punct(src, '=') || after.is_punct(src, ';') || after.is_punct(src, '[');
        (t.kind == Kind::Ident && n.kind == Kind::Ident && ends).then(|| n.text(src))
    };
    // Where each name last occurs bare (not after a `.`): looked up per
    // member instead of a scan of the rest per member, which is quadratic.
    let mut last_bare: HashMap<&str, usize> = HashMap::new();
    for (k, u) in toks.iter().enumerate() {
        if u.kind == Kind::Ident && !(k > 0 && toks[k - 1].is_punct(src, '.')) {
            last_bare.insert(u.text(src), k);
        }
    }
    let movable: HashSet<&str> = movable.iter().map(String::as_str).collect();
    let mut earlier: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        let block_open = depth[i] == 0
            && matches!(t.text(src), "uniform" | "buffer")
            && toks.get(i + 1).is_some_and(|n| n.kind == Kind::Ident)
            && toks.get(i + 2).is_some_and(|n| n.is_punct(src, '{'));
        if block_open {
            let Some(close) = matching(src, toks, i + 2, '{', '}') else {
                break;
            };
            let has_instance = toks.get(close + 1).is_some_and(|n| n.kind == Kind::Ident);
            for k in i + 3..close {
                let ends = toks
                    .get(k + 1)
                    .is_some_and(|n| n.is_punct(src, ';') || n.is_punct(src, '['));
                if toks[k].kind != Kind::Ident || !ends {
                    continue;
                }
                let name = toks[k].text(src);
                if !has_instance {
                    // An anonymous block's members are globals.
                    earlier.insert(name);
                    continue;
                }
                if !earlier.contains(name) || movable.contains(name) {
                    continue;
                }
                if last_bare.get(name).is_some_and(|&k| k >= close + 2) {
                    out.push(toks[k]);
                }
            }
            i = close + 1;
            continue;
        }
        if depth[i] == 0 {
            if let Some(name) = declared(i) {
                earlier.insert(name);
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(src: &str) -> Vec<String> {
        scan(src).into_iter().map(|h| h.text).collect()
    }

    #[test]
    fn multi_dim_declarations_not_accesses() {
        let src = "shared uvec2 tmp[8][64][2], u;\nvoid main() { float a[2][3], z; void f(float[2][3] b); float c[2][3] = d; x = tmp[1][2]; return c[1][2]; }";
        assert_eq!(
            found(src),
            ["tmp[8][64]", "a[2][3]", "float[2][3]", "c[2][3]"]
        );
        // Dimensions on the type and two on the name, in a list: refused.
        assert_eq!(found("shared float[4] t[2][3], u;"), ["t[2][3]"]);
        // An access after an indexed name is not a declaration.
        assert!(found("void main() { x = a[1] [2]; y = b[i][j]; }").is_empty());
        // A declaration of one name, any dimensions on either side, is
        // repaired (array_dims.rs), not refused.
        for ok in [
            "shared uvec2 tmp[8][64];",
            "shared uvec2[64] tmp[8];",
            "shared uvec2 tmp[8][64][2];",
            "shared float[4] t[2][3];",
            "void main() { float[2][3] b; float[4] t[2][3]; t[1][2][0] = 1.0; }",
        ] {
            assert!(found(ok).is_empty(), "{ok}");
        }
    }

    #[test]
    fn shadowed_member_only_when_declared_before_and_used_bare() {
        let before = "const int w = 0;\n\
                      layout(push_constant) uniform parameter { int w; int h; } p;\n\
                      void main() { int x = w == 0 ? p.w : w; }";
        assert_eq!(found(before), ["w"]);
        // A specialization constant moves past the block instead (spec_constants.rs),
        // unless it is used before the block ends.
        let spec = before.replace("const int w", "layout(constant_id = 0) const int w");
        assert!(found(&spec).is_empty());
        let used = spec.replace("layout(push_constant)", "int q = w;\nlayout(push_constant)");
        assert_eq!(found(&used), ["w"]);
        let after = "layout(push_constant) uniform parameter { int w; } p;\n\
                     layout(constant_id = 0) const int w = 0;\nvoid main() { int x = w; }";
        assert!(found(after).is_empty());
        let only_member = "const int w = 0;\nlayout(push_constant) uniform parameter { int w; } p;\nvoid main() { int x = p.w; }";
        assert!(found(only_member).is_empty());
        // Any global declared before the block, and instance-named buffer blocks too.
        let private =
            "int w = 3;\nlayout(push_constant) uniform P { int w; } p;\nvoid main() { int x = w; }";
        assert_eq!(found(private), ["w"]);
        let shared =
            "shared int w;\nlayout(push_constant) uniform P { int w; } p;\nvoid main() { w = 1; }";
        assert_eq!(found(shared), ["w"]);
        let anonymous = "layout(binding = 1) buffer A { int w; };\n\
                         layout(push_constant) uniform P { int w; } p;\nvoid main() { int x = w; }";
        assert_eq!(found(anonymous), ["w"]);
        let buffer = "const int w = 3;\nlayout(binding = 1) buffer A { int w; } a;\nvoid main() { int x = w; }";
        assert_eq!(found(buffer), ["w"]);
        // Locals, parameters and function names are not globals.
        let local = "void f(int w) { int v = w; }\nlayout(push_constant) uniform P { int w; } p;\nvoid main() { int x = p.w; }";
        assert!(found(local).is_empty());
    }

    #[test]
    fn calls_not_names() {
        assert!(found("float round = 1.0; int bitCount;").is_empty());
        assert!(found("x = round(y);").is_empty());
        assert_eq!(found("x = round(y); z = roundEven(y);"), ["round"]);
    }
}
