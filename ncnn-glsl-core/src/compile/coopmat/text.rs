//! The text step: cooperative matrix types, constructors and functions
//! rewritten in place into names naga parses (see the module doc of
//! `coopmat.rs`), and the naga-only declarations they need.

use std::collections::HashMap;

use super::super::naga_run::Insert;
use super::super::source_text::{brace_depths, int_literal, matching, overwrite};
use super::super::spec_constants::SpecDecl;
use super::super::spec_expressions::constant_value;
use super::super::tokens::{Kind, Token};
use super::protos::{self, Called, CALLS};
use super::{CoopType, Flavor, Key, Size, TextFound, Use, SLOTS};

/// A construct the step cannot take, at bytes `range` of the finished text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub range: std::ops::Range<usize>,
    pub message: String,
    pub note: String,
}

fn problem(range: std::ops::Range<usize>, message: String, note: &str) -> Problem {
    Problem {
        range,
        message,
        note: note.into(),
    }
}

/// The type names: KHR's, NV's float one, NV's integer ones (refused).
const KHR_TYPE: &str = "coopmat";
const NV_TYPE: &str = "fcoopmatNV";
const NV_INT_TYPES: &[&str] = &["icoopmatNV", "ucoopmatNV"];

/// `gl_CooperativeMatrixLayout*`: the ones naga's IR has, as the `int` the
/// calls take.
const LAYOUTS: &[(&str, &str)] = &[
    ("gl_CooperativeMatrixLayoutRowMajor", "0"),
    ("gl_CooperativeMatrixLayoutColumnMajor", "1"),
];

const SIZE_NOTE: &str = "write an integer literal, a specialization constant \
     (`layout(constant_id = N) const uint M = 16;`), or a `const` integer initialized by a literal \
     or computed from specialization constants (`const uint M2 = M * 2;`)";

/// Whether the text names anything of the extensions.
pub(crate) fn used(src: &str, toks: &[Token]) -> bool {
    toks.iter().any(|t| {
        t.kind == Kind::Ident && {
            let s = t.text(src);
            s == KHR_TYPE
                || s == NV_TYPE
                || NV_INT_TYPES.contains(&s)
                || CALLS.iter().any(|(g, _)| *g == s)
                || s.starts_with("gl_CooperativeMatrixLayout")
        }
    })
}

/// Rewrites the cooperative matrix constructs of `text` in place. `spec`:
/// the specialization constants (sizes may name them). Returns what it
/// found and the naga-only declarations, or every construct it cannot take.
pub(crate) fn rewrite(
    text: &mut String,
    toks: &[Token],
    spec: &[SpecDecl],
) -> Result<(TextFound, String), Vec<Problem>> {
    if !used(text, toks) {
        return Ok((TextFound::default(), String::new()));
    }
    let src = text.clone();
    let (consts, derived) = global_consts(&src, toks);
    let mut found = TextFound {
        derived,
        ..TextFound::default()
    };
    let mut problems = Vec::new();
    let mut called = Called::default();
    let mut ctors: Vec<bool> = Vec::new();
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        if t.kind != Kind::Ident {
            i += 1;
            continue;
        }
        let word = t.text(&src);
        let next_is = |c: char| toks.get(i + 1).is_some_and(|n| n.is_punct(&src, c));
        if NV_INT_TYPES.contains(&word) {
            problems.push(problem(
                t.start..t.end,
                format!("`{word}`: naga's IR has cooperative matrices of `float16_t` and `float` elements only"),
                "use `fcoopmatNV<16, ...>` or `fcoopmatNV<32, ...>`",
            ));
            i += 1;
            continue;
        }
        if (word == KHR_TYPE || word == NV_TYPE) && next_is('<') {
            let flavor = if word == KHR_TYPE {
                Flavor::Khr
            } else {
                Flavor::Nv
            };
            let Some(close) = (i + 2..toks.len().min(i + 64))
                .find(|&k| toks[k].is_punct(&src, '>') || toks[k].is_punct(&src, ';'))
                .filter(|&k| toks[k].is_punct(&src, '>'))
            else {
                problems.push(problem(
                    t.start..toks[i + 1].end,
                    format!("`{word}<` is not closed by `>`"),
                    "write the type as `coopmat<T, gl_ScopeSubgroup, ROWS, COLUMNS, USE>` \
                     (`fcoopmatNV<BITS, gl_ScopeSubgroup, ROWS, COLUMNS>`)",
                ));
                i += 2;
                continue;
            };
            let range = t.start..toks[close].end;
            let names = Names {
                spec,
                consts: &consts,
                derived: &found.derived,
            };
            match key(&src, &toks[i + 2..close], flavor, &names, &range) {
                Ok(key) => match index_of(&mut found, key, &src, &range) {
                    Ok(n) => {
                        let ctor = toks.get(close + 1).is_some_and(|n| n.is_punct(&src, '('));
                        let name = if ctor {
                            if ctors.len() <= n {
                                ctors.resize(n + 1, false);
                            }
                            ctors[n] = true;
                            protos::ctor_name(n)
                        } else {
                            protos::type_name(n)
                        };
                        if name.len() > range.len() {
                            // Never for a well-formed type (at least 20 bytes).
                            problems.push(problem(
                                range.clone(),
                                format!(
                                    "`{}` is too short to be a cooperative matrix type",
                                    &src[range.clone()]
                                ),
                                "write the whole type",
                            ));
                        } else {
                            edits.push((range, name));
                        }
                    }
                    Err(p) => problems.push(p),
                },
                Err(p) => problems.push(p),
            }
            i = close + 1;
            continue;
        }
        if let Some(&(glsl, ours)) = CALLS.iter().find(|(g, _)| *g == word) {
            if next_is('(') {
                match call(&src, toks, i, glsl, ours, &mut edits, &mut found.inserts) {
                    Ok(()) => match glsl {
                        "coopMatLoad" => called.load = true,
                        "coopMatStore" => called.store = true,
                        "coopMatMulAdd" => called.mul_add = true,
                        "coopMatLoadNV" => called.load_nv = true,
                        "coopMatStoreNV" => called.store_nv = true,
                        _ => called.mul_add_nv = true,
                    },
                    Err(p) => problems.push(p),
                }
            }
            i += 1;
            continue;
        }
        if let Some(rest) = word.strip_prefix("gl_CooperativeMatrixLayout") {
            match LAYOUTS.iter().find(|(l, _)| *l == word) {
                Some((_, v)) => edits.push((t.start..t.end, v.to_string())),
                None => problems.push(problem(
                    t.start..t.end,
                    format!("the layout `{word}` is none naga's IR has (`{rest}`)"),
                    "use `gl_CooperativeMatrixLayoutRowMajor` or `gl_CooperativeMatrixLayoutColumnMajor`",
                )),
            }
        }
        i += 1;
    }
    // One extension per shader: the word step writes one flavor's words.
    if let Some(first) = found.types.first() {
        if let Some(other) = found
            .types
            .iter()
            .find(|t| t.key.flavor != first.key.flavor)
        {
            problems.push(problem(
                other.at.clone(),
                format!(
                    "`{}` beside `{}`: a shader uses either GL_KHR_cooperative_matrix or \
                     GL_NV_cooperative_matrix",
                    other.text, first.text
                ),
                "choose one with `#if ncnn_VK_KHR_cooperative_matrix` ... `#elif \
                 ncnn_VK_NV_cooperative_matrix`, as ncnn's shaders do",
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    for (range, with) in edits {
        overwrite(text, range, &with);
    }
    let decls = protos::prototypes(&found.types, called, &ctors);
    Ok((found, decls))
}

/// The problems of sizes naming a computed `const` that is not among
/// `written`, the ones computed from specialization constants that
/// `spec_expressions.rs` writes: one per name, at its first type.
pub(crate) fn unwritten_sizes(found: &TextFound, written: &[String]) -> Vec<Problem> {
    let mut reported = vec![false; found.derived.len()];
    let mut out = Vec::new();
    for t in &found.types {
        for size in [t.key.rows, t.key.cols] {
            let Size::Derived(k) = size else { continue };
            let name = &found.derived[k];
            if written.contains(name) || std::mem::replace(&mut reported[k], true) {
                continue;
            }
            out.push(problem(
                t.at.clone(),
                format!(
                    "`{name}` is no integer expression of constants and specialization \
                     constants: no cooperative matrix size"
                ),
                SIZE_NOTE,
            ));
        }
    }
    out
}

/// The most tokens of a global `const`'s initializer read for its value.
const MAX_INITIALIZER: usize = 256;

/// The `const` integers of the global scope: those of a constant value
/// (`const uint TILE = 16;`, `const uint T2 = TILE * 2;`) with it and
/// whether it is a `uint`, and the others (`const uint M2 = M * 2;`), in
/// text order.
fn global_consts(src: &str, toks: &[Token]) -> (HashMap<String, (u32, bool)>, Vec<String>) {
    let depth = brace_depths(src, toks);
    let mut literal = HashMap::new();
    let mut computed = Vec::new();
    for k in 0..toks.len().saturating_sub(5) {
        let w: Vec<&str> = toks[k..k + 4].iter().map(|t| t.text(src)).collect();
        if depth[k] == 0
            && w[0] == "const"
            && matches!(w[1], "int" | "uint")
            && toks[k + 2].kind == Kind::Ident
            && w[3] == "="
        {
            let init = &toks[k + 4..toks.len().min(k + 4 + MAX_INITIALIZER)];
            let value = init
                .iter()
                .position(|t| t.is_punct(src, ';'))
                .and_then(|end| constant_value(src, &init[..end], &literal));
            match value {
                Some(v) => {
                    literal.insert(w[2].to_string(), (v, w[1] == "uint"));
                }
                None => computed.push(w[2].to_string()),
            }
        }
    }
    (literal, computed)
}

/// What a size may name: specialization constants, literal `const`s and
/// computed ones.
struct Names<'a> {
    spec: &'a [SpecDecl],
    consts: &'a HashMap<String, (u32, bool)>,
    derived: &'a [String],
}

/// The key of the type whose parameters are `params` (the tokens between
/// `<` and `>`).
fn key(
    src: &str,
    params: &[Token],
    flavor: Flavor,
    names: &Names,
    range: &std::ops::Range<usize>,
) -> Result<Key, Problem> {
    let parts: Vec<&[Token]> = params.split(|t| t.is_punct(src, ',')).collect();
    let (want, form) = match flavor {
        Flavor::Khr => (5, "coopmat<T, gl_ScopeSubgroup, ROWS, COLUMNS, USE>"),
        Flavor::Nv => (4, "fcoopmatNV<BITS, gl_ScopeSubgroup, ROWS, COLUMNS>"),
    };
    if parts.len() != want || parts.iter().any(|p| p.len() != 1) {
        return Err(problem(
            range.clone(),
            format!(
                "`{}`: a cooperative matrix type takes {want} parameters, each one word or number",
                &src[range.clone()]
            ),
            &format!("write `{form}`"),
        ));
    }
    let p: Vec<Token> = parts.iter().map(|p| p[0]).collect();
    let word = |k: usize| p[k].text(src);
    let at = |k: usize| p[k].start..p[k].end;
    let half = match (flavor, word(0)) {
        (Flavor::Khr, "float16_t") | (Flavor::Nv, "16") => true,
        (Flavor::Khr, "float") | (Flavor::Nv, "32") => false,
        (_, other) => {
            return Err(problem(
                at(0),
                format!(
                    "`{other}`: naga's IR has cooperative matrices of `float16_t` and `float` elements only"
                ),
                match flavor {
                    Flavor::Khr => "use `float16_t` or `float` (ncnn's `afp`, `sfp` are one of them)",
                    Flavor::Nv => "use 16 or 32 bits",
                },
            ))
        }
    };
    let scope = match word(1) {
        "gl_ScopeSubgroup" | "3" => 3,
        "gl_ScopeWorkgroup" | "2" => 2,
        other => {
            return Err(problem(
                at(1),
                format!("`{other}` is no scope a cooperative matrix can have"),
                "use `gl_ScopeSubgroup`",
            ))
        }
    };
    let size = |k: usize| -> Result<Size, Problem> {
        let t = &p[k];
        let s = t.text(src);
        let v = if t.kind == Kind::Number {
            int_literal(src, t).map(Size::Lit)
        } else if let Some(d) = names.spec.iter().find(|d| d.name == s) {
            matches!(d.ty.as_str(), "int" | "uint").then_some(Size::Spec {
                id: d.id,
                signed: d.ty == "int",
            })
        } else if let Some(&(v, _)) = names.consts.get(s) {
            Some(Size::Lit(v))
        } else {
            names.derived.iter().position(|d| d == s).map(Size::Derived)
        };
        match v {
            Some(Size::Lit(0)) | None => Err(problem(
                at(k),
                format!("`{s}` is no size a cooperative matrix can have"),
                SIZE_NOTE,
            )),
            Some(v) => Ok(v),
        }
    };
    let (rows, cols) = (size(2)?, size(3)?);
    let use_ = match flavor {
        Flavor::Nv => None,
        Flavor::Khr => Some(match word(4) {
            "gl_MatrixUseA" => Use::A,
            "gl_MatrixUseB" => Use::B,
            "gl_MatrixUseAccumulator" => Use::Accumulator,
            other => {
                return Err(problem(
                    at(4),
                    format!("`{other}` is no matrix use"),
                    "use `gl_MatrixUseA`, `gl_MatrixUseB` or `gl_MatrixUseAccumulator`",
                ))
            }
        }),
    };
    Ok(Key {
        flavor,
        half,
        scope,
        rows,
        cols,
        use_,
    })
}

/// The placeholder of `key`, a new one (with its sizes) the first time.
fn index_of(
    found: &mut TextFound,
    key: Key,
    src: &str,
    range: &std::ops::Range<usize>,
) -> Result<usize, Problem> {
    if let Some(n) = found.types.iter().position(|t| t.key == key) {
        return Ok(n);
    }
    let mut t = CoopType {
        key,
        text: src[range.clone()]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        at: range.clone(),
        slot: SLOTS[0],
    };
    let taken = found
        .types
        .iter()
        .filter(|o| o.key.half == key.half && o.role() == t.role())
        .count();
    let Some(&slot) = SLOTS.get(taken) else {
        return Err(problem(
            range.clone(),
            format!(
                "`{}` is the fifth cooperative matrix type with `{}` elements and this use: \
                 naga's IR tells them apart by sizes of 8 or 16 only, so this compiler handles \
                 four of each",
                t.text,
                if key.half { "float16_t" } else { "float" }
            ),
            "use fewer distinct shapes (for example one size constant where two are equal)",
        ));
    };
    t.slot = slot;
    found.types.push(t);
    Ok(found.types.len() - 1)
}

/// Rewrites the call of `glsl` at token `at` (its name, followed by `(`).
fn call(
    src: &str,
    toks: &[Token],
    at: usize,
    glsl: &str,
    ours: &str,
    edits: &mut Vec<(std::ops::Range<usize>, String)>,
    inserts: &mut Vec<Insert>,
) -> Result<(), Problem> {
    let name = toks[at];
    let Some(close) = matching(src, toks, at + 1, '(', ')') else {
        return Err(problem(
            name.start..name.end,
            format!("`{glsl}(` is not closed"),
            "close the call",
        ));
    };
    // The top-level commas.
    let mut commas = Vec::new();
    let mut k = at + 2;
    while k < close {
        let t = &toks[k];
        if t.is_punct(src, '(') || t.is_punct(src, '[') || t.is_punct(src, '{') {
            k += t.partner.max(1);
            continue;
        }
        if t.is_punct(src, ',') {
            commas.push(k);
        }
        k += 1;
    }
    let args = commas.len() + 1;
    let memory = glsl.starts_with("coopMatLoad") || glsl.starts_with("coopMatStore");
    let want = if memory { 5 } else { 3 };
    let bounds: Vec<usize> = std::iter::once(at + 1)
        .chain(commas.iter().copied())
        .chain(std::iter::once(close))
        .collect();
    let empty = bounds.windows(2).any(|w| w[1] == w[0] + 1);
    if args != want || empty {
        let what = if memory {
            "the matrix, the array, the element index, the stride and the layout"
        } else {
            "the matrices A, B and C"
        };
        let note = if !memory && args == 4 {
            "matrix operands (saturation, signedness) are not supported: naga's IR \
             multiply-add has none, and float matrices need none"
        } else {
            "pass exactly these"
        };
        return Err(problem(
            name.start..toks[close].end,
            format!("`{glsl}` takes {want} arguments ({what}), not {args}"),
            note,
        ));
    }
    edits.push((name.start..name.end, ours.to_string()));
    if memory {
        // `buf, i` becomes `buf[ i]`: the comma before the index opens the
        // bracket, an inserted `]` closes it before the stride's comma.
        let (open, shut) = (toks[commas[1]], toks[commas[2]]);
        edits.push((open.start..open.end, "[".into()));
        inserts.push(Insert {
            at: shut.start,
            text: "]".into(),
            stands_for: Some(open.end..shut.start),
        });
        // The stride as a `uint`: an `int` one would need a conversion,
        // which makes naga's overload resolution ambiguous between the
        // element types the array could convert to.
        let next = toks[commas[3]];
        let stride = shut.end..next.start;
        inserts.push(Insert {
            at: shut.end,
            text: "uint(".into(),
            stands_for: Some(stride.clone()),
        });
        inserts.push(Insert {
            at: next.start,
            text: ")".into(),
            stands_for: Some(stride),
        });
    }
    Ok(())
}
