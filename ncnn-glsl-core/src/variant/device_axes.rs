//! Device macros a shader tests without declaring them become device axes
//! of its set, so that ncnn-style shaders build unmodified.
//!
//! A variant cannot know its device, but a test can only tell some values
//! apart: `#if ncnn_subgroupSize >= 32` has two outcomes, whatever the
//! subgroup size. The shader's files are read for every use of such a macro;
//! where each use is a test of one of the forms
//!
//! - `defined(X)`, `defined X`, `#ifdef X`, `#ifndef X`;
//! - `X` as a truth value (an operand of `&&`, `||`, `!`, `?:`'s condition,
//!   or the whole condition);
//! - `X OP N` or `N OP X`, with `OP` one of `== != < <= > >=` and `N` an
//!   integer literal,
//!
//! the values the macro can take (undefined, or an integer in the range the
//! extension gives it) are split by the outcome of every test, and one value
//! of each outcome is built: [`Outcomes`] maps a device's value to it. Any
//! other use (the value in code, in a `#define`, under arithmetic) needs the
//! values declared with `#pragma ncnn_glsl device`, except for a macro that
//! is 0 or 1 (a feature), whose values are both built. A declared device
//! axis keeps its declared values: the pragma narrows.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diagnostic, Span};
use crate::ext::{
    PropKind, CORE_FEATURES, EXTENSION_FEATURES, LIMITS, OTHER_PROPERTIES, SUBGROUP_SHORTHANDS,
};
use crate::preprocess::lex::{lex, Kind, Token};
use crate::source::{FileId, Location, SourceMap};

use super::decl::Axis;
use super::device_value::{Outcomes, OwnedOutcomes, UNDEFINED};

/// A test of a device macro, as far as its outcome goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Test {
    /// Whether it is defined.
    Defined,
    /// Whether its value (0 when undefined) is not 0.
    Truth,
    /// Its value (0 when undefined) compared with a constant: `X OP N`.
    Compare(Cmp, i64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Test {
    fn outcome(self, value: Option<i64>) -> bool {
        let v = value.unwrap_or(0);
        match self {
            Test::Defined => value.is_some(),
            Test::Truth => v != 0,
            Test::Compare(c, n) => match c {
                Cmp::Eq => v == n,
                Cmp::Ne => v != n,
                Cmp::Lt => v < n,
                Cmp::Le => v <= n,
                Cmp::Gt => v > n,
                Cmp::Ge => v >= n,
            },
        }
    }
}

/// How one file uses one undeclared device macro.
#[derive(Clone, Debug)]
pub struct Uses {
    /// Where it is first used, in the expansion that read the file.
    first_at: Location,
    /// An error there, for a macro that cannot become an axis.
    first: Diagnostic,
    /// Its tests.
    tests: BTreeSet<Test>,
    /// Its first use other than a test, with why it is not one.
    value: Option<Diagnostic>,
}

/// Whether `name` is a device macro (`ncnn_...`, not the extension's own).
pub fn is_device_macro(name: &str) -> bool {
    name.starts_with("ncnn_") && !matches!(name, "ncnn_glsl" | "ncnn_glsl_version")
}

/// The device macros file `id` of `sources` uses that `declared` lacks, and how.
pub fn uses_in(
    sources: &SourceMap,
    id: FileId,
    declared: &BTreeSet<&str>,
) -> BTreeMap<String, Uses> {
    let (tokens, _) = lex(id, &sources.get(id).text);
    let mut out: BTreeMap<String, Uses> = BTreeMap::new();
    let lines = tokens.split(|t| t.kind == Kind::Newline);
    for line in lines {
        let (condition, kind) = match line {
            [hash, word, rest @ ..] if hash.is("#") && word.kind == Kind::Ident => {
                match &*word.text {
                    "if" | "elif" => (rest, Some(false)),
                    "ifdef" | "ifndef" => (rest, Some(true)),
                    // The set's own declarations.
                    "pragma" => continue,
                    _ => (line, None),
                }
            }
            _ => (line, None),
        };
        for (i, t) in condition.iter().enumerate() {
            if t.kind != Kind::Ident || !is_device_macro(&t.text) || declared.contains(&*t.text) {
                continue;
            }
            let test = match kind {
                Some(true) if i == 0 && condition.len() == 1 => Ok(Test::Defined),
                Some(false) => test_at(condition, i),
                _ => Err("used as a value"),
            };
            let name = t.text.to_string();
            let entry = out.entry(name.clone()).or_insert_with(|| Uses {
                first_at: t.loc,
                first: undeclared(sources, t, &name, None),
                tests: BTreeSet::new(),
                value: None,
            });
            match test {
                Ok(test) => {
                    entry.tests.insert(test);
                }
                Err(why) => {
                    if entry.value.is_none() {
                        entry.value = Some(undeclared(sources, t, &name, Some(why)));
                    }
                }
            }
        }
    }
    out
}

/// The error for a device macro that no axis can stand for.
fn undeclared(sources: &SourceMap, t: &Token, name: &str, why: Option<&str>) -> Diagnostic {
    let how = why.map_or(String::new(), |w| {
        format!(" ({w}, not tested against a constant)")
    });
    Diagnostic::at(
        Span::at(sources, t.loc, name.chars().count() as u32),
        format!(
            "the shader uses the device macro `{name}`{how}, which its variant set does not declare"
        ),
    )
    .note(format!(
        "a precompiled variant cannot know its device: declare the values to build, e.g. \
         `#pragma ncnn_glsl device {name} 32 64`; a macro only tested with `defined`, as a \
         truth value or against integer constants needs no declaration"
    ))
}

/// The test the device macro at `condition[i]` of an `#if` stands in, or why it is none.
fn test_at(c: &[Token], i: usize) -> Result<Test, &'static str> {
    let punct = |k: usize, p: &str| c.get(k).is_some_and(|t| t.is(p));
    // `defined X`, `defined ( X )`.
    let defined = |k: Option<usize>| {
        k.and_then(|k| c.get(k))
            .is_some_and(|t| &*t.text == "defined")
    };
    if defined(i.checked_sub(1))
        || (i >= 2 && punct(i - 1, "(") && defined(i.checked_sub(2)) && punct(i + 1, ")"))
    {
        return Ok(Test::Defined);
    }
    // `X OP N` and `N OP X`, as a whole operand of the logical operators.
    let compare = |op: usize, n: usize, flip: bool| -> Option<Test> {
        let cmp = cmp_of(c.get(op)?, flip)?;
        let n = c.get(n).filter(|t| t.kind == Kind::Number)?;
        Some(Test::Compare(cmp, int_literal(&n.text)?))
    };
    let candidates = [
        (i, i + 2, compare(i + 1, i + 2, false)),
        (
            i.saturating_sub(2),
            i,
            i.checked_sub(2).and_then(|n| compare(i - 1, n, true)),
        ),
    ];
    for (lo, hi, test) in candidates {
        if let Some(test) = test {
            let (lo2, hi2) = unwrap_parens(c, lo, hi);
            // `!X == 1` is `(!X) == 1`: the `!` takes `X` alone.
            let bare_not = lo2 == lo && lo > 0 && punct(lo - 1, "!");
            if !bare_not && operand_of_logic(c, lo2, hi2) {
                return Ok(test);
            }
        }
    }
    let (lo, hi) = unwrap_parens(c, i, i);
    if (lo > 0 && punct(lo - 1, "!")) || operand_of_logic(c, lo, hi) {
        return Ok(Test::Truth);
    }
    Err("in an expression other than a comparison")
}

/// `c[lo..=hi]` widened over the parentheses that enclose exactly it.
fn unwrap_parens(c: &[Token], mut lo: usize, mut hi: usize) -> (usize, usize) {
    while lo > 0
        && c.get(lo - 1).is_some_and(|t| t.is("("))
        && c.get(hi + 1).is_some_and(|t| t.is(")"))
    {
        lo -= 1;
        hi += 1;
    }
    (lo, hi)
}

/// Whether `c[lo..=hi]` is a whole operand of `&&`, `||`, `!`, the
/// condition of `?:`, or the whole expression.
fn operand_of_logic(c: &[Token], lo: usize, hi: usize) -> bool {
    let before = lo.checked_sub(1).map(|k| &*c[k].text);
    let after = c.get(hi + 1).map(|t| &*t.text);
    matches!(before, None | Some("(" | "&&" | "||" | "!"))
        && matches!(after, None | Some(")" | "&&" | "||" | "?"))
}

fn cmp_of(t: &Token, flip: bool) -> Option<Cmp> {
    if t.kind != Kind::Punct {
        return None;
    }
    let c = match &*t.text {
        "==" => Cmp::Eq,
        "!=" => Cmp::Ne,
        "<" => Cmp::Lt,
        "<=" => Cmp::Le,
        ">" => Cmp::Gt,
        ">=" => Cmp::Ge,
        _ => return None,
    };
    // `N < X` is `X > N`.
    Some(match (flip, c) {
        (true, Cmp::Lt) => Cmp::Gt,
        (true, Cmp::Le) => Cmp::Ge,
        (true, Cmp::Gt) => Cmp::Lt,
        (true, Cmp::Ge) => Cmp::Le,
        (_, c) => c,
    })
}

/// An integer literal as `#if` reads it (decimal, hex, octal; `u`/`l` suffixes).
fn int_literal(text: &str) -> Option<i64> {
    let t = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()?
    } else {
        t.parse::<u64>().ok()?
    };
    i64::try_from(v).ok()
}

/// The values a device macro can have on any device, as the extension
/// defines them (`ext/device_macros.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Domain {
    /// Whether some devices leave it undefined.
    undefined: bool,
    min: i64,
    max: i64,
}

const U32_MAX: i64 = u32::MAX as i64;

fn domain(name: &str) -> Domain {
    let n = name.strip_prefix("ncnn_").unwrap_or(name);
    let d = |undefined, min, max| Domain {
        undefined,
        min,
        max,
    };
    let in_list = |list: &[&str]| list.contains(&n);
    if n.starts_with("VK_") {
        // An extension's spec version, where the device has it.
        return d(true, 1, U32_MAX);
    }
    if in_list(&CORE_FEATURES) || SUBGROUP_SHORTHANDS.iter().any(|(s, _)| *s == n) {
        return d(false, 0, 1);
    }
    if EXTENSION_FEATURES.iter().any(|(_, fields)| in_list(fields)) {
        return d(true, 0, 1);
    }
    match n {
        "apiVersion" | "driverVersion" | "vendorID" | "deviceID" => return d(false, 0, U32_MAX),
        "deviceType" => return d(false, 0, 4),
        // A power of two, with a vendor's value where the device reports none.
        "subgroupSize" => return d(false, 1, 128),
        _ => {}
    }
    match LIMITS.iter().chain(OTHER_PROPERTIES).find(|(p, _)| *p == n) {
        Some((_, PropKind::I32)) => d(true, i64::from(i32::MIN), i64::from(i32::MAX)),
        Some((_, PropKind::U64)) => d(true, 0, i64::MAX),
        Some(_) => d(true, 0, U32_MAX),
        // i64::MIN is UNDEFINED.
        None => d(true, i64::MIN + 1, i64::MAX),
    }
}

/// The most values one macro's tests may split it into.
const MAX_OUTCOMES: usize = 64;

/// The device axes of the undeclared macros used across a set's files
/// (`uses` merged over every file read), or the errors of those that
/// cannot be one, each at its first use.
pub fn axes(uses: &BTreeMap<String, Uses>) -> Result<Vec<Axis>, Vec<Diagnostic>> {
    let mut axes = Vec::new();
    let mut errors = Vec::new();
    for (name, u) in uses {
        let dom = domain(name);
        let (map, values) = match &u.value {
            // A feature's both values: any use, any test, is covered.
            Some(_) if dom.min == 0 && dom.max == 1 => every_value(dom),
            Some(e) => {
                errors.push(e.clone());
                continue;
            }
            None => split(&u.tests.iter().copied().collect::<Vec<_>>(), dom),
        };
        if values.len() > MAX_OUTCOMES {
            errors.push(u.first.clone().note(format!(
                "its tests split it into {} values, more than {MAX_OUTCOMES}: declare the \
                 values to build with `#pragma ncnn_glsl device {name} ...`",
                values.len()
            )));
            continue;
        }
        axes.push(Axis {
            name: name.clone(),
            values,
            at: u.first_at,
            outcomes: Some(map),
        });
    }
    if errors.is_empty() {
        Ok(axes)
    } else {
        Err(errors)
    }
}

/// Adds the uses of one file to those of the set.
pub fn merge_uses(all: &mut BTreeMap<String, Uses>, file: BTreeMap<String, Uses>) {
    for (name, u) in file {
        match all.get_mut(&name) {
            None => {
                all.insert(name, u);
            }
            Some(a) => {
                a.tests.extend(u.tests);
                if a.value.is_none() {
                    a.value = u.value;
                }
            }
        }
    }
}

/// An axis's map and values.
type Split = (OwnedOutcomes, Vec<i64>);

/// The values of `dom` split by the outcomes of `tests`, one built per outcome.
fn split(tests: &[Test], dom: Domain) -> Split {
    // Between two neighbours of the constants (and of 0, where a truth
    // value turns) every test has one outcome; the domain's ends stand for
    // the values that lie past them.
    let mut points = BTreeSet::from([dom.min, dom.max]);
    let constants: BTreeSet<i64> = tests
        .iter()
        .filter_map(|t| match t {
            Test::Compare(_, n) => Some(*n),
            _ => None,
        })
        .collect();
    for n in constants.iter().chain(&[0]) {
        points.extend(
            [n.checked_sub(1), Some(*n), n.checked_add(1)]
                .into_iter()
                .flatten(),
        );
    }
    let candidates: Vec<Option<i64>> = std::iter::once(None)
        .chain(points.into_iter().map(Some))
        .collect();
    let in_domain = |v: Option<i64>| match v {
        None => dom.undefined,
        Some(v) => (dom.min..=dom.max).contains(&v),
    };
    let mut classes: BTreeMap<Vec<bool>, Vec<Option<i64>>> = BTreeMap::new();
    for &v in &candidates {
        let outcome = tests.iter().map(|t| t.outcome(v)).collect();
        classes.entry(outcome).or_default().push(v);
    }
    // One value per outcome that some device can have: a constant the
    // shader names, else the one nearest 0; undefined when only that is left.
    let rep_of = |members: &[Option<i64>]| -> Option<i64> {
        let defined = || {
            members
                .iter()
                .flatten()
                .copied()
                .filter(|v| in_domain(Some(*v)))
        };
        defined()
            .find(|v| constants.contains(v))
            .or_else(|| defined().min_by_key(|v| v.unsigned_abs()))
            .or_else(|| (members.contains(&None) && dom.undefined).then_some(UNDEFINED))
    };
    let mut rep: BTreeMap<Option<i64>, Option<i64>> = BTreeMap::new();
    for members in classes.values() {
        let r = rep_of(members);
        for &m in members {
            rep.insert(m, r);
        }
    }
    let mut from: Vec<(i64, Option<i64>)> = Vec::new();
    for (v, r) in &rep {
        if let Some(v) = v {
            if from.last().is_none_or(|(_, last)| last != r) {
                from.push((*v, *r));
            }
        }
    }
    let values: BTreeSet<i64> = rep.values().flatten().copied().collect();
    let outcomes = Outcomes {
        undefined: rep.get(&None).copied().flatten(),
        from,
    };
    (outcomes, values.into_iter().collect())
}

/// Every value of a 0-or-1 macro, each its own variant.
fn every_value(dom: Domain) -> Split {
    let undefined = dom.undefined.then_some(UNDEFINED);
    let outcomes = Outcomes {
        undefined,
        from: vec![(0, Some(0)), (1, Some(1))],
    };
    (outcomes, undefined.into_iter().chain([0, 1]).collect())
}

#[cfg(test)]
mod tests;
