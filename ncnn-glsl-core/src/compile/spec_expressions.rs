//! Specialization constants in array sizes and global `const` initializers
//! (`shared lfp tmp[UNROLL * 4];`, `const int N = size * 2;`). glslang
//! writes them as `OpSpecConstantOp` expressions, so the array is sized and
//! the constant computed by the value the pipeline sets. naga needs a
//! constant in both places, and this compiler keeps specialization
//! constants as variables until the SPIR-V is written (`spec_constants.rs`),
//! so the expressions are read here and written as `OpSpecConstantOp`
//! into the words:
//!
//! 1. text ([`rewrite`]): the expression is parsed (`expr.rs`: integer
//!    expressions of `int`/`uint` specialization constants, constants and
//!    literals: `+ - * / % << >> & | ^ ~`, comparisons `< <= > >= == !=`,
//!    logic `&& || ^^ !`, `?:`, `min`, `max`, `int()`, `uint()`, `bool()`,
//!    parentheses; what GLSL allows in a specialization-constant expression
//!    whose value is an integer, `min` and `max` besides). A derived `const`
//!    loses its `const` and its initializer becomes `0`: a private global,
//!    as a specialization constant is. An array size becomes a placeholder
//!    length ([`PLACEHOLDER`] + k, inserted for naga only, one per distinct
//!    expression) that no other array has.
//! 2. SPIR-V ([`write`]): each derived global's `OpVariable` becomes its
//!    expression's `OpSpecConstantOp`s (its loads copies of the constant);
//!    each array type of a placeholder length takes its expression's
//!    instead. `?:` is `OpSelect` and a comparison `OpSLessThan`,
//!    `OpULessThan`, ... by its operands' signedness, as glslang writes
//!    them; `&&`, `||`, `^^`, `!` are `OpLogicalAnd`, `OpLogicalOr`,
//!    `OpLogicalNotEqual`, `OpLogicalNot` (glslang 12 writes `&&` and `||`
//!    as a short-circuit in `main` that the global reads, which spirv-val
//!    rejects); `min` and `max`, which no `OpSpecConstantOp` computes, a
//!    select of a comparison. An array of arrays of such a length loses the
//!    `ArrayStride` naga gave it from the placeholder (outside blocks no
//!    stride is needed, and glslang writes none). The declarations are then
//!    put in an order where each comes after what it uses
//!    ([`super::spirv_edit::Rewrite::order_globals`]).
//!
//! What this cannot read (a float, `true`/`false`, a `bool` specialization
//! constant, another call) stays refused (`reject.rs`), as do a block's or
//! struct's member sized so (the reflection reads buffer and push-constant
//! sizes from naga's types), an array naga cannot lay out at the
//! placeholder (two specialized dimensions, or other dimensions and
//! element past [`MAX_OTHER_BYTES`]) and the `length()` of such an array
//! (naga folds it to the placeholder).

use std::collections::{HashMap, HashSet};

use super::naga_run::Insert;
use super::source_text::{brace_depths, matching, opening, overwrite};
use super::spec_constants::SpecDecl;
use super::spirv_edit::{inst, Rewrite};
use super::tokens::{is_type_name, Kind, Token};
use crate::spirv::op;

mod clamps;
mod expr;
mod words;

use expr::{eval, has_bool, is_uint, parse, parts, specialized, Expr, Named};
use words::{bool_type, drop_outer_strides, emit, Ids};

/// The first placeholder array length: large enough that no real array of
/// ncnn's has it, small enough that naga can lay out an array of it of
/// elements up to 341 bytes.
pub(crate) const PLACEHOLDER: u32 = 0x00C0_0000;

/// The value of tokens `t` as an integer constant expression of literals
/// and the constants `known` names with their value and whether they are
/// `uint` (`8 * 2`, `TILE * 2`), as the words would compute it (signed
/// operations on `int`s); `None` for anything else.
pub(crate) fn constant_value(
    src: &str,
    t: &[Token],
    known: &HashMap<String, (u32, bool)>,
) -> Option<u32> {
    let scope: HashMap<&str, Named> = known
        .iter()
        .map(|(name, &(v, uint))| (name.as_str(), Named::Value(v, uint)))
        .collect();
    let e = parse(src, t, &scope)?;
    eval(&e, &|_| None, &|_| true)
}

/// A derived constant: a global `const` computed from specialization constants.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Derived {
    pub name: String,
    /// Whether it is declared `uint` (else `int`).
    pub uint: bool,
    pub expr: Expr,
    /// Its initializer in the finished text.
    pub range: std::ops::Range<usize>,
}

/// An array length given by an expression over specialization constants.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sized {
    /// The array's name.
    pub name: String,
    /// The placeholder naga is given.
    pub placeholder: u32,
    pub expr: Expr,
    /// The expression in the finished text.
    pub range: std::ops::Range<usize>,
}

/// What the text pass found and changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SpecExprs {
    pub derived: Vec<Derived>,
    pub sized: Vec<Sized>,
    /// The placeholders, inserted where the sizes were blanked.
    pub inserts: Vec<Insert>,
}

/// The global `const` declarations and declared array sizes of the text
/// that read a specialization constant: `(range of the initializer or the
/// size, its tokens, the `const`'s name and type when a `const`)`.
struct Use<'a> {
    range: std::ops::Range<usize>,
    /// Whether it is inside a block or a struct (a member's size, which
    /// the reflection reads from naga's types): refused.
    in_block: bool,
    /// For an array size: the first `[` of its run of dimensions and its
    /// own (the declaration is read only for a specialized size).
    dim: Option<(usize, usize)>,
    toks: &'a [Token],
    /// For a `const`: its name, its type and the token of `const`.
    decl: Option<(&'a str, &'a str, usize)>,
}

/// A dimension of an array declaration.
struct ArrayDim<'a> {
    /// The array's name (for its `length()`).
    name: &'a str,
    /// The element type's name (`uvec2`).
    elem: &'a str,
    /// The tokens of the declaration's other dimensions.
    others: Vec<&'a [Token]>,
}

/// The most bytes the other dimensions and the element of an array with a
/// specialized dimension may take: naga lays the array out at a placeholder
/// length, and refuses (panics on) a type past `i32::MAX` bytes.
const MAX_OTHER_BYTES: u64 = i32::MAX as u64 / (PLACEHOLDER as u64 + PLACEHOLDER_WINDOW as u64);

/// The dimension opening at token `k` of the declaration one of whose runs
/// of dimensions opens at `first`, with the declaration's every other
/// dimension, the type's and the name's, whether written as GLSL has it
/// (`T a[4][n]`) or as `array_dims.rs` writes it for naga (`T[n] a[4]`), so
/// both texts decide alike.
fn declaration<'a>(
    src: &'a str,
    toks: &'a [Token],
    first: usize,
    k: usize,
) -> Option<ArrayDim<'a>> {
    let dim = |name: &'a Token, elem: &'a Token, dims: Vec<(usize, usize)>| ArrayDim {
        name: name.text(src),
        elem: elem.text(src),
        others: dims
            .into_iter()
            .filter(|&(o, _)| o != k)
            .map(|(o, c)| &toks[o + 1..c])
            .collect(),
    };
    // More dimensions than this are refused whatever their sizes (3-D
    // arrays are, `reject.rs`): reading them all per dimension is quadratic.
    const MAX_DIMS: usize = 4;
    let run = |mut at: usize| {
        let mut out = Vec::new();
        while toks.get(at).is_some_and(|t| t.is_punct(src, '[')) {
            if out.len() == MAX_DIMS {
                return None;
            }
            let c = matching(src, toks, at, '[', ']')?;
            out.push((at, c));
            at = c + 1;
        }
        Some(out)
    };
    let here = run(first)?;
    let after = here.last()?.1 + 1;
    let before = first.checked_sub(1)?;
    if toks.get(after).is_some_and(|t| t.kind == Kind::Ident) {
        // `T[..] a[..]`: this run is the type's.
        let named = run(after + 1)?;
        return Some(dim(&toks[after], &toks[before], [here, named].concat()));
    }
    // `T a[..]`, `T[..] a[..]`: this run is the name's.
    let mut start = before;
    while start >= 1 && toks[start - 1].is_punct(src, ']') {
        start = opening(src, toks, start - 1, '[', ']')?;
    }
    let typed = if start < before {
        run(start)?
    } else {
        Vec::new()
    };
    let elem = toks.get(start.checked_sub(1)?)?;
    Some(dim(&toks[before], elem, [typed, here].concat()))
}

/// Bytes of a scalar or vector in an array, as naga lays it out (a
/// 3-vector takes four components); `None` for another type (a matrix, a
/// struct), whose size this pass does not know.
fn element_bytes(ty: &str) -> Option<u64> {
    let scalar = match ty {
        "float" | "int" | "uint" | "bool" => Some(4),
        "double" | "int64_t" | "uint64_t" => Some(8),
        "float16_t" | "int16_t" | "uint16_t" => Some(2),
        "int8_t" | "uint8_t" => Some(1),
        _ => None,
    };
    if scalar.is_some() {
        return scalar;
    }
    let (prefix, n) = [('2', 2), ('3', 4), ('4', 4)]
        .into_iter()
        .find_map(|(c, n)| Some((ty.strip_suffix(c)?, n)))?;
    let per = match prefix {
        "vec" | "ivec" | "uvec" | "bvec" => 4,
        "dvec" | "i64vec" | "u64vec" => 8,
        "f16vec" | "i16vec" | "u16vec" => 2,
        "i8vec" | "u8vec" => 1,
        _ => return None,
    };
    Some(per * n)
}

/// Whether naga can lay out at the placeholder length the array `dim` is a
/// dimension of: its other dimensions constant, and with its element
/// taking at most [`MAX_OTHER_BYTES`] (one specialized dimension of
/// several, of a scalar or vector).
fn lays_out(src: &str, dim: &ArrayDim, scope: &HashMap<&str, Named>) -> bool {
    if dim.others.is_empty() {
        return true;
    }
    let Some(mut bytes) = element_bytes(dim.elem) else {
        return false;
    };
    for t in &dim.others {
        let value = parse(src, t, scope)
            .filter(|e| !specialized(e))
            .and_then(|e| eval(&e, &|_| None, &|_| false));
        match value {
            Some(v) => bytes = bytes.saturating_mul(u64::from(v)),
            None => return false,
        }
    }
    bytes <= MAX_OTHER_BYTES
}

/// Every global `const T N = E;` and every declared array size `[E]`, in
/// text order, whether or not it reads a specialization constant.
fn uses<'a>(src: &'a str, toks: &'a [Token]) -> Vec<Use<'a>> {
    let depth = brace_depths(src, toks);
    // Per token: the first `;`, `{` or `}` at or after it (one backward
    // pass, not a scan per `const`; a `}` ends the slice too, so slices
    // never overlap).
    let mut end = vec![None; toks.len() + 1];
    for k in (0..toks.len()).rev() {
        let stop =
            toks[k].is_punct(src, ';') || toks[k].is_punct(src, '{') || toks[k].is_punct(src, '}');
        end[k] = if stop { Some(k) } else { end[k + 1] };
    }
    // Per token: whether it is inside the braces of a block or a struct at
    // global scope (not a function's body, whose `{` follows a `)`).
    let mut in_block = vec![false; toks.len()];
    let mut inside = false;
    for (k, t) in toks.iter().enumerate() {
        if depth[k] == 0 && t.is_punct(src, '{') {
            inside = !(k > 0 && toks[k - 1].is_punct(src, ')'));
        }
        in_block[k] = inside && depth[k] > 0;
    }
    let mut run_start: Vec<usize> = (0..toks.len()).collect();
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let s = t.text(src);
        if s == "const" && depth[k] == 0 && !(k > 0 && toks[k - 1].is_punct(src, ')')) {
            // const T N = E ;
            let shape = toks.get(k + 1).is_some_and(|t| t.kind == Kind::Ident)
                && toks.get(k + 2).is_some_and(|t| t.kind == Kind::Ident)
                && toks.get(k + 3).is_some_and(|t| t.is_punct(src, '='));
            if !shape {
                continue;
            }
            let Some(semi) = end[k + 4] else {
                continue;
            };
            if !toks[semi].is_punct(src, ';') || semi == k + 4 {
                continue;
            }
            out.push(Use {
                range: toks[k + 4].start..toks[semi - 1].end,
                in_block: false,
                dim: None,
                toks: &toks[k + 4..semi],
                decl: Some((toks[k + 2].text(src), toks[k + 1].text(src), k)),
            });
        } else if t.is_punct(src, '[') {
            let after_type = |j: usize| {
                toks[j].kind == Kind::Ident
                    && !["return", "else", "case", "do"].contains(&toks[j].text(src))
                    || toks[j].is_punct(src, ']')
            };
            let decl = |k: usize| k >= 2 && toks[k - 1].kind == Kind::Ident && after_type(k - 2);
            let type_array = |k: usize| {
                k >= 1 && toks[k - 1].kind == Kind::Ident && is_type_name(toks[k - 1].text(src))
            };
            // A dimension after another of a declaration (`t[4][N]`): the
            // first `[` of the run declares (remembered per `[`, so a run
            // of many costs one step each).
            let first = match k
                .checked_sub(1)
                .filter(|&j| toks[j].is_punct(src, ']'))
                .and_then(|j| opening(src, toks, j, '[', ']'))
            {
                Some(o) => run_start[o],
                None => k,
            };
            run_start[k] = first;
            let next_dim = first != k && (decl(first) || type_array(first));
            let (decl, type_array) = (decl(k), type_array(k));
            if !(decl || type_array || next_dim) {
                continue;
            }
            let Some(close) = matching(src, toks, k, '[', ']') else {
                continue;
            };
            if close > k + 1 {
                out.push(Use {
                    range: toks[k + 1].start..toks[close - 1].end,
                    in_block: in_block[k],
                    dim: Some((first, k)),
                    toks: &toks[k + 1..close],
                    decl: None,
                });
            }
        }
    }
    out
}

/// The scope the expressions see: the specialization constants of `decls`
/// (`int`/`uint` ones), then each global `const` as it is declared.
fn scope_of(decls: &[SpecDecl]) -> HashMap<&str, Named> {
    decls
        .iter()
        .filter(|d| d.ty == "int" || d.ty == "uint")
        .map(|d| (d.name.as_str(), Named::Specialized))
        .collect()
}

/// The uses of a specialization constant in a `const` initializer or an
/// array size that the pass cannot write, and the `length()` of an array
/// it sizes: byte ranges, for the refusal table.
pub(crate) fn refused(src: &str, toks: &[Token], decls: &[SpecDecl]) -> Vec<(usize, usize)> {
    if decls.is_empty() {
        return Vec::new();
    }
    let analysis = analyse(src, toks, decls);
    let mut out = analysis.refused;
    let sized: std::collections::HashSet<&str> = analysis.sized_names.iter().copied().collect();
    // `a.length()`, `a[i].length()` of an array sized here.
    for w in 0..toks.len() {
        if toks[w].kind != Kind::Ident || !sized.contains(toks[w].text(src)) {
            continue;
        }
        let mut j = w + 1;
        while let Some(c) = toks
            .get(j)
            .filter(|t| t.is_punct(src, '['))
            .and_then(|_| matching(src, toks, j, '[', ']'))
        {
            j = c + 1;
        }
        if toks.get(j).is_some_and(|t| t.is_punct(src, '.'))
            && toks.get(j + 1).is_some_and(|t| t.text(src) == "length")
            && toks.get(j + 2).is_some_and(|t| t.is_punct(src, '('))
        {
            out.push((toks[w].start, toks[j + 1].end));
        }
    }
    out.sort_unstable();
    out
}

/// What [`analyse`] found.
struct Analysis<'a> {
    derived: Vec<Derived>,
    /// Each size: its range and expression.
    sizes: Vec<(std::ops::Range<usize>, Expr)>,
    /// The names of the arrays sized by a specialization constant.
    sized_names: Vec<&'a str>,
    /// The uses it cannot write.
    refused: Vec<(usize, usize)>,
    /// The token of each derived constant's `const`.
    const_tokens: Vec<usize>,
    /// The value of every other array size it could compute: no
    /// placeholder may equal one (naga would share the array type).
    taken: HashSet<u32>,
    /// Each global integer `const` initializer and array size of literals
    /// and constants that holds a `?:`, which naga cannot fold ("Unexpected
    /// runtime-expression"; glslang folds it): its range, its value and
    /// whether it is a `uint`.
    folded: Vec<(std::ops::Range<usize>, u32, bool)>,
}

fn analyse<'a>(src: &'a str, toks: &'a [Token], decls: &[SpecDecl]) -> Analysis<'a> {
    let mut scope = scope_of(decls);
    let all_spec: HashSet<&str> = decls.iter().map(|d| d.name.as_str()).collect();
    let mut a = Analysis {
        derived: Vec::new(),
        sizes: Vec::new(),
        sized_names: Vec::new(),
        refused: Vec::new(),
        const_tokens: Vec::new(),
        taken: HashSet::new(),
        folded: Vec::new(),
    };
    let mut derived_names: HashSet<String> = HashSet::new();
    for u in uses(src, toks) {
        let reads_spec = u.toks.iter().any(|t| {
            t.kind == Kind::Ident
                && (all_spec.contains(t.text(src)) || derived_names.contains(t.text(src)))
        });
        let parsed = parse(src, u.toks, &scope);
        match u.decl {
            Some((name, ty, k)) => {
                let integer = ty == "int" || ty == "uint";
                match parsed {
                    Some(e) if integer && specialized(&e) => {
                        scope.insert(name, Named::Specialized);
                        derived_names.insert(name.to_string());
                        a.derived.push(Derived {
                            name: name.to_string(),
                            uint: ty == "uint",
                            expr: e,
                            range: u.range.clone(),
                        });
                        a.const_tokens.push(k);
                    }
                    Some(e) if integer => {
                        let uint = ty == "uint";
                        if let Some(v) = eval(&e, &|_| None, &|_| false) {
                            scope.insert(name, Named::Value(v, uint));
                            if has_select(&e) {
                                a.folded.push((u.range.clone(), v, uint));
                            }
                        }
                    }
                    _ if reads_spec => {
                        a.refused
                            .push(first_spec_use(src, u.toks, &all_spec, &derived_names))
                    }
                    _ => {}
                }
            }
            None => match parsed {
                // One of several dimensions is written too (`write` drops
                // the outer arrays' strides) where naga can lay the array out.
                Some(e) if specialized(&e) && !u.in_block => {
                    let dim = u
                        .dim
                        .and_then(|(first, k)| declaration(src, toks, first, k));
                    match dim.filter(|d| lays_out(src, d, &scope)) {
                        Some(d) => {
                            a.sizes.push((u.range.clone(), e));
                            a.sized_names.push(d.name);
                        }
                        None => {
                            a.refused
                                .push(first_spec_use(src, u.toks, &all_spec, &derived_names))
                        }
                    }
                }
                _ if reads_spec => {
                    a.refused
                        .push(first_spec_use(src, u.toks, &all_spec, &derived_names))
                }
                Some(e) => {
                    if let Some(v) = eval(&e, &|_| None, &|_| false) {
                        a.taken.insert(v);
                        if has_select(&e) {
                            a.folded.push((u.range.clone(), v, true));
                        }
                    }
                }
                None => {}
            },
        }
    }
    a
}

/// Whether `e` holds a `?:`.
fn has_select(e: &Expr) -> bool {
    matches!(e, Expr::Select(..)) || parts(e).into_iter().any(has_select)
}

fn first_spec_use(
    src: &str,
    toks: &[Token],
    spec: &HashSet<&str>,
    derived: &HashSet<String>,
) -> (usize, usize) {
    toks.iter()
        .find(|t| {
            t.kind == Kind::Ident && (spec.contains(t.text(src)) || derived.contains(t.text(src)))
        })
        .map_or((0, 0), |t| (t.start, t.end))
}

/// The text pass (after `spec_constants::rewrite`, which found `decls`):
/// each derived `const` becomes a private global initialized to `0`, each
/// size is blanked and its placeholder inserted for naga.
pub(crate) fn rewrite(text: &mut String, toks: &[Token], decls: &[SpecDecl]) -> SpecExprs {
    let src = text.clone();
    let a = analyse(&src, toks, decls);
    let mut out = SpecExprs::default();
    for (d, &k) in a.derived.into_iter().zip(&a.const_tokens) {
        overwrite(text, toks[k].start..toks[k].end, "");
        overwrite(text, d.range.clone(), "0");
        out.derived.push(d);
    }
    // A `?:` of constants: its value, for naga only.
    for (range, v, uint) in a.folded {
        overwrite(text, range.clone(), "");
        let value = if uint {
            format!("{v}u")
        } else {
            format!("({})", v as i32)
        };
        out.inserts.push(Insert {
            at: range.start,
            text: value,
            stands_for: Some(range),
        });
    }
    let distinct: HashSet<&Expr> = a.sizes.iter().map(|(_, e)| e).collect();
    let base = placeholder_base(&a.taken, distinct.len() as u32);
    let mut placeholders: HashMap<Expr, u32> = HashMap::new();
    for ((range, expr), name) in a.sizes.into_iter().zip(a.sized_names) {
        let next = base + placeholders.len() as u32;
        let placeholder = *placeholders.entry(expr.clone()).or_insert(next);
        overwrite(text, range.clone(), "");
        out.inserts.push(Insert {
            at: range.start,
            text: format!("{placeholder}u"),
            stands_for: Some(range.clone()),
        });
        out.sized.push(Sized {
            name: name.to_string(),
            placeholder,
            expr,
            range,
        });
    }
    out
}

/// The placeholders' first value, for `n` of them: the first run of `n`
/// values from [`PLACEHOLDER`] that no other array's length (`taken`) is
/// in, within the window naga lays out. Where none is (more arrays than the
/// window holds), [`PLACEHOLDER`]: [`check_placeholders`] then refuses the
/// module rather than let two arrays share a type.
fn placeholder_base(taken: &HashSet<u32>, n: u32) -> u32 {
    let end = PLACEHOLDER + PLACEHOLDER_WINDOW;
    let mut base = PLACEHOLDER;
    while base.saturating_add(n) <= end {
        match (base..base + n).rev().find(|v| taken.contains(v)) {
            None => return base,
            Some(v) => base = v + 1,
        }
    }
    PLACEHOLDER
}

/// How many values from [`PLACEHOLDER`] the placeholders may take:
/// [`MAX_OTHER_BYTES`] allows for this many above it.
const PLACEHOLDER_WINDOW: u32 = 0x1_0000;

/// `Err` naming an array that is not one the text sized by specialization
/// constants but whose type holds an array of a placeholder length: naga
/// gave both one type, and the word pass would specialize both. The text
/// pass chose placeholders no array size it could compute has; this check
/// covers the ones it could not compute.
pub(crate) fn check_placeholders(module: &naga::Module, found: &SpecExprs) -> Result<(), String> {
    use naga::{ArraySize, TypeInner};
    if found.sized.is_empty() {
        return Ok(());
    }
    let placeholders: HashSet<u32> = found.sized.iter().map(|s| s.placeholder).collect();
    let names: HashSet<&str> = found.sized.iter().map(|s| s.name.as_str()).collect();
    // Whether a type is, or is an array or pointer of, a placeholder-length
    // array (each step goes to a type declared before it: it ends).
    let holds = |mut ty: naga::Handle<naga::Type>| loop {
        match module.types[ty].inner {
            TypeInner::Array { size, base, .. } => {
                if let ArraySize::Constant(n) = size {
                    if placeholders.contains(&n.get()) {
                        return true;
                    }
                }
                ty = base;
            }
            TypeInner::Pointer { base, .. } => ty = base,
            _ => return false,
        }
    };
    let clash = |name: Option<&str>| {
        let name = name.unwrap_or("?");
        Err(format!(
            "the array `{name}` has a length this compiler gives arrays sized by              specialization constants while naga compiles them ({}..{}); give it              another length",
            PLACEHOLDER,
            PLACEHOLDER + PLACEHOLDER_WINDOW
        ))
    };
    for (_, t) in module.types.iter() {
        if let TypeInner::Struct { members, .. } = &t.inner {
            if let Some(m) = members.iter().find(|m| holds(m.ty)) {
                return clash(m.name.as_deref());
            }
        }
    }
    // naga's own temporaries (an `inout` argument's copy) have no name; a
    // declared array always has one.
    let ours = |name: Option<&str>| name.is_none_or(|n| names.contains(n));
    for (_, g) in module.global_variables.iter() {
        if holds(g.ty) && !ours(g.name.as_deref()) {
            return clash(g.name.as_deref());
        }
    }
    let functions = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .chain(module.entry_points.iter().map(|e| &e.function));
    for f in functions {
        for (_, v) in f.local_variables.iter() {
            if holds(v.ty) && !ours(v.name.as_deref()) {
                return clash(v.name.as_deref());
            }
        }
        for a in &f.arguments {
            if holds(a.ty) && !ours(a.name.as_deref()) {
                return clash(a.name.as_deref());
            }
        }
    }
    Ok(())
}

/// The array sizes that are not positive with the specialization
/// constants' `defaults` (name, 32 bits, `uint`), or that divide by zero:
/// the size's range and what is wrong.
pub(crate) fn bad_sizes(
    found: &SpecExprs,
    defaults: &[(&str, u32, bool)],
) -> Vec<(std::ops::Range<usize>, String)> {
    let mut values: HashMap<&str, (u32, bool)> =
        defaults.iter().map(|&(n, v, u)| (n, (v, u))).collect();
    for d in &found.derived {
        let value = {
            let get = |n: &str| values.get(n).map(|x| x.0);
            let uint = |n: &str| values.get(n).is_some_and(|x| x.1);
            eval(&d.expr, &get, &uint)
        };
        if let Some(v) = value {
            values.insert(&d.name, (v, d.uint));
        }
    }
    let get = |n: &str| values.get(n).map(|x| x.0);
    let uint = |n: &str| values.get(n).is_some_and(|x| x.1);
    let mut out = Vec::new();
    for s in &found.sized {
        let unsigned = is_uint(&s.expr, &uint);
        let what = match eval(&s.expr, &get, &uint) {
            None => "divides by zero or shifts past 31 bits".to_string(),
            Some(0) => "is 0".to_string(),
            Some(v) if !unsigned && (v as i32) < 0 => format!("is {}", v as i32),
            Some(_) => continue,
        };
        out.push((
            s.range.clone(),
            format!("this array size {what} with the specialization constants' defaults"),
        ));
    }
    out
}

/// A specialization constant as the word pass sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpecWord {
    /// Its result id, where the writer kept it (naga drops one that no
    /// code reads, though a size may).
    pub id: Option<u32>,
    pub spec_id: u32,
    /// Its default's 32 bits.
    pub default: u32,
    pub uint: bool,
}

fn names_in<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    if let Expr::Name(n) = e {
        out.push(n);
    }
    for x in parts(e) {
        names_in(x, out);
    }
}

/// The word pass, after `spec_constants::to_spec_constants`: `spec` holds
/// the `int`/`uint` specialization constants by name, `derived_vars` the
/// `OpVariable` id of each derived constant where the writer kept it (in
/// `found.derived`'s order).
pub(crate) fn write(
    words: &mut Vec<u32>,
    found: &SpecExprs,
    spec: &HashMap<String, SpecWord>,
    derived_vars: &[Option<u32>],
) -> Result<Written, String> {
    if found.derived.is_empty() && found.sized.is_empty() {
        return Ok(Written::default());
    }
    let mut m = Rewrite::new(words)?;
    let int = m.int_type(true);
    let uint = m.int_type(false);
    let exprs = || {
        found
            .derived
            .iter()
            .map(|d| &d.expr)
            .chain(found.sized.iter().map(|s| &s.expr))
    };
    let boolean = if exprs().any(has_bool) {
        bool_type(&mut m)
    } else {
        0
    };
    let first_function = |m: &Rewrite| {
        m.insts
            .iter()
            .position(|w| Rewrite::op(w) == op::FUNCTION)
            .unwrap_or(m.insts.len())
    };
    // Every name an expression reads has a constant: one the writer dropped
    // is declared again, with its SpecId.
    let mut read = Vec::new();
    for e in exprs() {
        names_in(e, &mut read);
    }
    let mut names: HashMap<String, (u32, bool)> = HashMap::new();
    let mut decorations = Vec::new();
    // In SpecId order: the ids given to re-declared constants, and so the
    // blob, are the same on every run.
    let mut in_order: Vec<(&String, &SpecWord)> = spec.iter().collect();
    in_order.sort_by_key(|(_, w)| w.spec_id);
    for (name, w) in in_order {
        let id = match w.id {
            Some(id) => id,
            None if read.contains(&name.as_str()) => {
                let id = m.fresh_id();
                let ty = if w.uint { uint } else { int };
                let at = first_function(&m);
                m.insts
                    .insert(at, inst(op::SPEC_CONSTANT, &[ty, id, w.default]));
                decorations.push(inst(
                    op::DECORATE,
                    &[id, crate::spirv::decoration::SPEC_ID, w.spec_id],
                ));
                id
            }
            None => continue,
        };
        names.insert(name.clone(), (id, w.uint));
    }
    m.decorate(decorations);
    let mut derived_ids = HashMap::new();
    for (d, var) in found.derived.iter().zip(derived_vars) {
        let ids = Ids {
            int,
            uint,
            boolean,
            names: &names,
        };
        let mut chain = Vec::new();
        let id = match var {
            Some(var) => {
                let at = m
                    .insts
                    .iter()
                    .position(|w| Rewrite::op(w) == op::VARIABLE && w.get(2) == Some(var))
                    .ok_or_else(|| format!("derived constant `{}` not written", d.name))?;
                emit(&mut m, &d.expr, Some(*var), d.uint, &ids, &mut chain)?;
                m.insts.splice(at..=at, chain);
                if !m.variable_to_constant(*var) {
                    return Err(format!(
                        "derived constant `{}` is used other than by loads",
                        d.name
                    ));
                }
                *var
            }
            None => {
                let fresh = m.fresh_id();
                emit(&mut m, &d.expr, Some(fresh), d.uint, &ids, &mut chain)?;
                let at = first_function(&m);
                m.insts.splice(at..at, chain);
                fresh
            }
        };
        names.insert(d.name.clone(), (id, d.uint));
        derived_ids.insert(d.name.clone(), id);
    }
    let ids = Ids {
        int,
        uint,
        boolean,
        names: &names,
    };
    let uint_of = |n: &str| names.get(n).is_some_and(|x| x.1);
    // One chain per placeholder, in the text's order, all before the first
    // function (order_globals puts them in place); each pass over the
    // module is one pass, whatever the number of sizes.
    let mut length_of: HashMap<u32, u32> = HashMap::new();
    let mut chains = Vec::new();
    for s in &found.sized {
        if length_of.contains_key(&s.placeholder) {
            continue;
        }
        let unsigned = is_uint(&s.expr, &uint_of);
        let length = emit(&mut m, &s.expr, None, unsigned, &ids, &mut chains)?;
        length_of.insert(s.placeholder, length);
    }
    let at = first_function(&m);
    m.insts.splice(at..at, chains);
    // The placeholders' constants, and the array types of those lengths.
    let placeholder_of: HashMap<u32, u32> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == op::CONSTANT && w.len() == 4)
        .filter(|w| length_of.contains_key(&w[3]))
        .map(|w| (w[2], w[3]))
        .collect();
    for w in m.insts.iter_mut() {
        if Rewrite::op(w) == op::TYPE_ARRAY && w.len() == 4 {
            if let Some(p) = placeholder_of.get(&w[3]) {
                w[3] = length_of[p];
            }
        }
    }
    drop_outer_strides(&mut m, &length_of.values().copied().collect());
    // The bounds clamps of these arrays bound the specialized lengths.
    clamps::rewrite(&mut m, &length_of, uint)?;
    // A placeholder's constant, and the clamps' `placeholder - 1`, go
    // unless something else names their ids (the user's equal literals).
    let lasts: HashSet<u32> = length_of.keys().map(|p| p - 1).collect();
    let is_placeholder = |w: &[u32]| {
        Rewrite::op(w) == op::CONSTANT
            && w.len() == 4
            && (placeholder_of.contains_key(&w[2]) || w[1] == uint && lasts.contains(&w[3]))
    };
    let dropped: HashSet<u32> = m
        .insts
        .iter()
        .filter(|w| is_placeholder(w))
        .map(|w| w[2])
        .collect();
    let named: HashSet<u32> = m
        .insts
        .iter()
        .filter(|w| !is_placeholder(w))
        .flat_map(|w| w[1..].iter().copied())
        .filter(|x| dropped.contains(x))
        .collect();
    m.insts
        .retain(|w| !is_placeholder(w) || w.get(2).is_some_and(|id| named.contains(id)));
    m.order_globals()?;
    *words = m.words();
    Ok(Written {
        derived_ids,
        lengths: length_of,
    })
}

/// What [`write`] gave ids to.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Each derived constant's id, by name (a cooperative matrix type may
    /// be sized by one).
    pub derived_ids: HashMap<String, u32>,
    /// Each specialized array length's id, by its placeholder (for the
    /// reflection's [`crate::reflection::SpecArray`]s).
    pub lengths: HashMap<u32, u32>,
}

#[cfg(test)]
mod tests;
