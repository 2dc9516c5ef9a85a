//! Calls whose constant arguments GLSL folds to NaN or infinity
//! (`sqrt(-1.0)`, `acos(2.0)`, `exp(100.0)`, `clamp(5, 10, 0)`,
//! `inversesqrt(0.0)`, `mod(1.0, 0.0)`): glslang accepts them, while naga's
//! constant evaluator refuses them and fails the parse with no place (its
//! built-ins give their expressions no span); its IR can hold no NaN or
//! infinite constant either.
//!
//! On that failure only, the first argument of such a call is passed
//! through an identity function given to naga only (`ncnnext_unfolded`,
//! one overload per type), which naga does not fold, so the call is
//! computed when the shader runs, to the NaN or infinity GLSL folds it to.
//! First every call of a function body whose arguments look constant
//! (literals, constructors, calls, `const` names) is wrapped at once: one
//! more parse. Where that is not enough, the calls are found one at a time:
//! naga folds an expression when it ends, so the text is cut after each
//! call's `)` and closed (`)`, `]`, `;`), and the first call whose cut
//! fails the same way is found by bisection. Where a call must stay a
//! constant (a global `const`, an array size) or the identity has no
//! overload for its type, it is an error at the call. Shaders naga parses
//! are never touched: their SPIR-V stays the same.

use std::collections::HashSet;
use std::ops::Range;

use naga::front::glsl::{Error, ErrorKind, Frontend, Options};
use naga::ShaderStage;

use super::fp16_builtins;
use super::naga_run::{self, guarded, Insert, Origin, Step};
use super::source_text::brace_depths;
use super::tokens::{is_type_name, tokenize, Kind, Token};
use crate::diag::Diagnostic;

/// The most calls unfolded one at a time in one shader: each costs a
/// bisection of parses, and a real shader has a few at most.
const MAX_UNFOLDED: usize = 8;

/// The identity naga is given, as a name.
const IDENTITY: &str = "ncnnext_unfolded";

/// naga's constant evaluator's messages for what GLSL folds to NaN or
/// infinity (a division by zero included: `mod(1.0, 0.0)` is `x - y *
/// floor(x / y)`).
const FOLDS_TO_NAN_OR_INFINITY: &[&str] = &[
    "out of valid range",
    "overflowed",
    "Float literal is",
    "greater than `high`",
    "Division by zero",
    "Remainder by zero",
];

/// Words followed by `(` that are not calls.
const NOT_CALLS: &[&str] = &["if", "for", "while", "switch", "return", "layout"];

/// The inserts that let naga parse a text whose parse fails on a constant
/// it cannot fold: for each such call, its first argument wrapped in the
/// identity, and the identity's overloads. `build` gives the text naga
/// parses with extra inserts and its origin; `at` is where the overloads
/// go (after `#version`). Empty when there is nothing to unfold; an error at
/// the call where a call cannot be unfolded.
pub(crate) fn unfold<'a>(
    build: impl Fn(&[Insert]) -> (String, Origin<'a>),
    at: usize,
) -> Result<Vec<Insert>, Diagnostic> {
    let (text, origin) = build(&[]);
    if !matches!(parse(&text), Some(Err(e)) if first_unplaced(&e).is_some()) {
        return Ok(Vec::new());
    }
    let toks = tokenize(&text);
    let fp16 = fp16_builtins::wanted(&text, &toks);
    let fp64 = toks.iter().any(|t| {
        t.kind == Kind::Ident && matches!(t.text(&text), "double" | "dvec2" | "dvec3" | "dvec4")
    });
    let mut batch = Vec::new();
    let mut wholes = Vec::new();
    for call in constant_looking(&text, &toks) {
        let whole = origin.finished_range(call.whole.clone());
        let arg = origin.finished_range(call.first_arg.clone());
        if let (Some(whole), Some(arg)) = (whole, arg) {
            wrap(&mut batch, &whole, &arg, at, fp16, fp64);
            wholes.push(whole);
        }
    }
    if batch.is_empty() {
        return one_at_a_time(build, Vec::new(), at, fp16, fp64);
    }
    let (text, origin) = build(&batch);
    let errors = match parse(&text) {
        Some(Ok(())) => return Ok(batch),
        Some(Err(errors)) => errors,
        None => return one_at_a_time(build, Vec::new(), at, fp16, fp64),
    };
    let on_a_wrap = |r: Range<usize>| {
        origin
            .finished_range(r)
            .is_some_and(|f| wholes.iter().any(|w| overlap(&f, w)))
    };
    if errors
        .iter()
        .filter_map(|e| e.meta.to_range())
        .any(on_a_wrap)
    {
        // A wrapped call that must stay constant: one at a time instead.
        return one_at_a_time(build, Vec::new(), at, fp16, fp64);
    }
    if first_unplaced(&errors).is_none() {
        return Ok(batch);
    }
    one_at_a_time(build, batch, at, fp16, fp64)
}

/// Unfolds the calls that still fail after `extra`, one at a time.
fn one_at_a_time<'a>(
    build: impl Fn(&[Insert]) -> (String, Origin<'a>),
    mut extra: Vec<Insert>,
    at: usize,
    fp16: bool,
    fp64: bool,
) -> Result<Vec<Insert>, Diagnostic> {
    // The call unfolded last (finished offsets), and its error should the
    // identity not take it out of naga's folding.
    let mut last: Option<(Range<usize>, Diagnostic)> = None;
    for n in 0..=MAX_UNFOLDED {
        let (text, origin) = build(&extra);
        let errors = match parse(&text) {
            Some(Ok(())) => return Ok(extra),
            Some(Err(errors)) => errors,
            None => return last.map_or(Ok(extra), |(_, refusal)| Err(refusal)),
        };
        // Still failing on the call unfolded last: it must stay constant.
        let on_last = |r: Range<usize>| {
            let f = origin.finished_range(r)?;
            let (w, refusal) = last.as_ref()?;
            overlap(&f, w).then(|| refusal.clone())
        };
        if let Some(refusal) = errors
            .iter()
            .filter_map(|e| on_last(e.meta.to_range()?))
            .next()
        {
            return Err(refusal);
        }
        let Some(reason) = first_unplaced(&errors) else {
            return Ok(extra);
        };
        let toks = tokenize(&text);
        let Some(call) = failing_call(&text, &toks, &reason) else {
            return Ok(extra);
        };
        if let Some(refusal) = on_last(call.whole.clone()) {
            return Err(refusal);
        }
        let (Some(whole), Some(arg)) = (
            origin.finished_range(call.whole.clone()),
            origin.finished_range(call.first_arg.clone()),
        ) else {
            return Ok(extra);
        };
        let written = origin.expanded.text().get(whole.clone()).unwrap_or("");
        let mut refusal = naga_run::at(
            &origin,
            Some(call.whole.clone()),
            format!("naga cannot fold `{written}`: {reason}"),
        );
        if FOLDS_TO_NAN_OR_INFINITY.iter().any(|m| reason.contains(m)) {
            refusal = refusal.note(
                "GLSL folds it to NaN or infinity (glslang does), which naga's IR cannot hold \
                 as a constant; outside a constant expression (a global `const`, an array \
                 size, a `case` label) it is computed when the shader runs",
            );
        }
        if n == MAX_UNFOLDED {
            return Err(refusal.note(format!(
                "naga is given at most {MAX_UNFOLDED} such calls unfolded in one shader"
            )));
        }
        wrap(&mut extra, &whole, &arg, at, fp16, fp64);
        last = Some((whole, refusal));
    }
    Ok(extra)
}

/// Wraps the argument at `arg` of the call at `whole` (finished offsets)
/// in the identity, whose overloads go first.
fn wrap(
    extra: &mut Vec<Insert>,
    whole: &Range<usize>,
    arg: &Range<usize>,
    at: usize,
    fp16: bool,
    fp64: bool,
) {
    if extra.is_empty() {
        extra.push(Insert {
            at,
            text: identities(fp16, fp64),
            stands_for: None,
        });
    }
    extra.push(Insert {
        at: arg.start,
        text: format!("{IDENTITY}("),
        stands_for: Some(whole.clone()),
    });
    extra.push(Insert {
        at: arg.end,
        text: ")".into(),
        stands_for: Some(whole.clone()),
    });
}

/// Whether the range `f` touches `w` (an empty `f` counts as one byte).
fn overlap(f: &Range<usize>, w: &Range<usize>) -> bool {
    f.start < w.end && w.start < f.end.max(f.start + 1)
}

/// naga's parse of `text`: `Ok` or its errors; `None` where it panics (the
/// caller's own parse reports that).
fn parse(text: &str) -> Option<Result<(), Vec<Error>>> {
    let parsed = guarded(Step::Parse, || {
        Frontend::default().parse(&Options::from(ShaderStage::Compute), text)
    })
    .ok()?;
    Some(parsed.map(|_| ()).map_err(|e| e.errors))
}

/// The message of the first of `errors` without a place, but the end of
/// the text and a missing `main` (a cut text's).
fn first_unplaced(errors: &[Error]) -> Option<String> {
    errors
        .iter()
        .filter(|e| e.meta.to_range().is_none())
        .map(|e| e.kind.to_string())
        .find(|m| *m != ErrorKind::EndOfFile.to_string() && m != "Missing entry point")
}

/// A call in the text naga parses, by token indices and byte ranges.
struct Call {
    /// The token of its `)`.
    close: usize,
    /// From its name to its `)`.
    whole: Range<usize>,
    /// Its first argument.
    first_arg: Range<usize>,
}

/// The first call, in the order naga folds them (by their `)`), whose cut
/// text fails without a place with `reason`. naga parses in order and stops
/// at its first error, so every later cut fails so too and every earlier
/// one does not.
fn failing_call(text: &str, toks: &[Token], reason: &str) -> Option<Call> {
    let mut calls = calls(text, toks);
    let fails = |c: &Call| {
        let cut = cut_after(text, toks, c.close);
        matches!(parse(&cut), Some(Err(e)) if first_unplaced(&e).as_deref() == Some(reason))
    };
    let (mut lo, mut hi) = (0, calls.len().checked_sub(1)?);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if fails(&calls[mid]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    fails(&calls[hi]).then(|| calls.swap_remove(hi))
}

/// Every call `name(args)` with at least one argument, by its `)`.
fn calls(text: &str, toks: &[Token]) -> Vec<Call> {
    let mut out = Vec::new();
    for (close, t) in toks.iter().enumerate() {
        if !t.is_punct(text, ')') || t.partner == 0 || t.partner == 1 {
            continue;
        }
        let open = close - t.partner;
        let Some(name) = open.checked_sub(1).map(|i| toks[i]) else {
            continue;
        };
        if name.kind != Kind::Ident || NOT_CALLS.contains(&name.text(text)) {
            continue;
        }
        // The first argument ends at a `,` outside brackets, or at the `)`.
        let mut i = open + 1;
        while i < close && !toks[i].is_punct(text, ',') {
            let opens = ['(', '[', '{'].iter().any(|&c| toks[i].is_punct(text, c));
            i += if opens && toks[i].partner > 0 {
                toks[i].partner + 1
            } else {
                1
            };
        }
        out.push(Call {
            close,
            whole: name.start..t.end,
            first_arg: toks[open + 1].start..toks[i.min(close) - 1].end,
        });
    }
    out
}

/// The calls of function bodies whose arguments look constant (numbers,
/// operators, type names, calls, names declared `const`, members): not
/// constructors, nor calls in brackets, `case` labels and `const`
/// declarations, which may have to stay constant (an array size, a label).
fn constant_looking(text: &str, toks: &[Token]) -> Vec<Call> {
    let braces = brace_depths(text, toks);
    // Before each token: the `[` open there, and where its statement starts.
    let mut squares = Vec::with_capacity(toks.len());
    let mut statements = Vec::with_capacity(toks.len());
    let (mut open, mut statement) = (0u32, 0);
    for (i, t) in toks.iter().enumerate() {
        if t.is_punct(text, ']') {
            open = open.saturating_sub(1);
        }
        squares.push(open);
        statements.push(statement);
        if t.is_punct(text, '[') {
            open += 1;
        }
        if [';', '{', '}'].iter().any(|&p| t.is_punct(text, p)) {
            statement = i + 1;
        }
    }
    let consts: HashSet<&str> = toks
        .windows(4)
        .filter(|w| w[0].kind == Kind::Ident && w[0].text(text) == "const")
        .filter_map(|w| w[1..].iter().take_while(|t| t.kind == Kind::Ident).last())
        .map(|t| t.text(text))
        .collect();
    let constant = |i: usize| {
        let t = toks[i];
        let after_dot = i > 0 && toks[i - 1].is_punct(text, '.');
        let called = toks.get(i + 1).is_some_and(|n| n.is_punct(text, '('));
        match t.kind {
            Kind::Number | Kind::Punct => true,
            Kind::Ident => {
                after_dot || called || is_type_name(t.text(text)) || consts.contains(t.text(text))
            }
            Kind::Str => false,
        }
    };
    calls(text, toks)
        .into_iter()
        .filter(|c| {
            let open = c.close - toks[c.close].partner;
            let name = open - 1;
            braces[name] > 0
                && squares[name] == 0
                && !is_type_name(toks[name].text(text))
                && !["case", "const"].contains(&toks[statements[name]].text(text))
                && (open + 1..c.close).all(constant)
        })
        .collect()
}

/// `text` up to token `close`, with the `(` and `[` still open there closed
/// and a `;`: the expression ends there, and naga folds it.
fn cut_after(text: &str, toks: &[Token], close: usize) -> String {
    let mut cut = text[..toks[close].end].to_string();
    let open = toks[..=close]
        .iter()
        .enumerate()
        .filter(|(j, t)| t.partner == 0 || j + t.partner > close)
        .filter_map(|(_, t)| match text.as_bytes()[t.start] {
            b'(' if t.kind == Kind::Punct => Some(')'),
            b'[' if t.kind == Kind::Punct => Some(']'),
            _ => None,
        })
        .collect::<Vec<char>>();
    cut.extend(open.iter().rev());
    cut.push(';');
    cut
}

/// The identity's overloads, on one line: 32-bit scalars and vectors, and
/// 16- and 64-bit floats where the text uses them (naga's validator wants
/// their capabilities only then).
fn identities(fp16: bool, fp64: bool) -> String {
    let mut types = vec![
        "float", "vec2", "vec3", "vec4", "int", "ivec2", "ivec3", "ivec4", "uint", "uvec2",
        "uvec3", "uvec4",
    ];
    if fp16 {
        types.extend(["float16_t", "f16vec2", "f16vec3", "f16vec4"]);
    }
    if fp64 {
        types.extend(["double", "dvec2", "dvec3", "dvec4"]);
    }
    let mut s: String = types
        .iter()
        .map(|t| format!("{t} {IDENTITY}({t} x) {{ return x; }} "))
        .collect();
    s.push('\n');
    s
}
