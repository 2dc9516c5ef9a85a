//! The names a shader declares in blocks, structs and specialization
//! constants, found in the tokens of the finished text.
//!
//! glslang refuses a second member of one name in a block or struct, a
//! second block of one name in one interface (`uniform`, `buffer`) and a
//! second specialization constant of one name; naga takes them silently (the
//! second specialization constant vanishes from the SPIR-V while the
//! reflection lists it, so a pipeline would set a value nothing reads). They
//! are refused here, at the second declaration. The item form of the macro
//! finds its declarations here too, to place its errors.

use std::collections::HashSet;
use std::ops::Range;

use super::source_text::{matching, opening};
use super::spec_constants;
use super::tokens::{tokenize, Token};

/// A block or struct and the members it declares.
struct Aggregate<'s> {
    /// `uniform`, `buffer` or `struct`.
    keyword: &'s str,
    /// Its name and where it is; `None` for an anonymous struct.
    name: Option<(&'s str, Range<usize>)>,
    /// Whether its layout says `push_constant`.
    push_constant: bool,
    /// Each member's name and where it is, in text order.
    members: Vec<(&'s str, Range<usize>)>,
}

/// One refusal: where, what, and the note.
pub(crate) struct Duplicate {
    pub range: Range<usize>,
    pub message: String,
    pub note: &'static str,
}

/// The second declaration of every name declared twice: a member of one
/// block or struct, a block name of one interface, a specialization constant.
pub(crate) fn duplicates(src: &str, toks: &[Token]) -> Vec<Duplicate> {
    let mut out = Vec::new();
    let aggregates = aggregates(src, toks);
    for a in &aggregates {
        let mut seen = HashSet::new();
        for (name, range) in &a.members {
            if !seen.insert(*name) {
                let owner = match (&a.name, a.keyword) {
                    (Some((n, _)), "struct") => format!("the struct `{n}`"),
                    (Some((n, _)), _) => format!("the block `{n}`"),
                    (None, _) => "a struct".to_string(),
                };
                out.push(Duplicate {
                    range: range.clone(),
                    message: format!("the member `{name}` is declared twice in {owner}"),
                    note: "glslang refuses it (\"duplicate member name\"); naga would take it \
                           silently: rename one of them",
                });
            }
        }
    }
    let mut blocks = HashSet::new();
    for a in aggregates.iter().filter(|a| a.keyword != "struct") {
        let Some((name, range)) = &a.name else {
            continue;
        };
        if !blocks.insert((a.keyword, *name)) {
            out.push(Duplicate {
                range: range.clone(),
                message: format!("the `{}` block name `{name}` is declared twice", a.keyword),
                note: "glslang refuses it (a block name is used once per interface, `uniform` \
                       or `buffer`): rename one of the blocks",
            });
        }
    }
    let specs = spec_constants::decls(src, toks);
    for (k, d) in specs.iter().enumerate() {
        if let Some(first) = specs[..k].iter().find(|e| e.name == d.name) {
            out.push(Duplicate {
                range: spec_name(src, toks, &d.range, &d.name).unwrap_or(d.range.clone()),
                message: format!(
                    "the specialization constant `{}` is declared twice: with `constant_id = {}` \
                     and `constant_id = {}`",
                    d.name, first.id, d.id
                ),
                note: "naga keeps one of them, so a value the pipeline sets for the other would \
                       reach nothing; glslang refuses it (\"redefinition\")",
            });
        }
    }
    out.sort_by_key(|d| d.range.start);
    out
}

/// What the item form names a host field after.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum HostName {
    /// A member of the push-constant block.
    PushMember,
    /// A specialization constant.
    SpecConstant,
    /// A `uniform` or `buffer` block other than the push constants.
    BufferBlock,
}

/// Where `name` is declared as `what` in `src`, each declaration in text order.
pub(crate) fn declarations_of(src: &str, what: HostName, name: &str) -> Vec<Range<usize>> {
    let toks = tokenize(src);
    match what {
        HostName::SpecConstant => spec_constants::decls(src, &toks)
            .iter()
            .filter(|d| d.name == name)
            .filter_map(|d| spec_name(src, &toks, &d.range, name))
            .collect(),
        HostName::PushMember => aggregates(src, &toks)
            .into_iter()
            .filter(|a| a.push_constant)
            .flat_map(|a| a.members)
            .filter(|(n, _)| *n == name)
            .map(|(_, r)| r)
            .collect(),
        HostName::BufferBlock => aggregates(src, &toks)
            .into_iter()
            .filter(|a| a.keyword != "struct" && !a.push_constant)
            .filter_map(|a| a.name.filter(|(n, _)| *n == name))
            .map(|(_, r)| r)
            .collect(),
    }
}

/// The name's token inside the specialization constant declared at `decl`.
fn spec_name(src: &str, toks: &[Token], decl: &Range<usize>, name: &str) -> Option<Range<usize>> {
    let first = toks.partition_point(|t| t.start < decl.start);
    toks[first..]
        .windows(2)
        .take_while(|w| w[0].end <= decl.end)
        .find(|w| w[0].text(src) == name && w[1].is_punct(src, '='))
        .map(|w| w[0].start..w[0].end)
}

/// Every block (`uniform`/`buffer` at global scope) and struct of `src`.
fn aggregates<'s>(src: &'s str, toks: &[Token]) -> Vec<Aggregate<'s>> {
    let mut out = Vec::new();
    let mut depth = 0u32;
    // The first token of the statement being read.
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        let is = |c| t.is_punct(src, c);
        if is('}') {
            depth = depth.saturating_sub(1);
        }
        if is(';') || is('}') {
            start = i + 1;
            continue;
        }
        if !is('{') {
            continue;
        }
        let head = &toks[start..i];
        start = i + 1;
        depth += 1;
        let Some(close) = matching(src, toks, i, '{', '}') else {
            continue;
        };
        let word = |w: &str| head.iter().position(|h| h.text(src) == w);
        let (keyword, at) = match (word("struct"), word("uniform").or(word("buffer"))) {
            (Some(k), _) => ("struct", k),
            (None, Some(k)) if depth == 1 => (head[k].text(src), k),
            _ => continue,
        };
        let name = word_in(src, head[at].end..t.start);
        if name.is_none() && keyword != "struct" {
            continue;
        }
        out.push(Aggregate {
            keyword,
            name,
            push_constant: word("push_constant").is_some(),
            members: members(src, &toks[i + 1..close]),
        });
    }
    out
}

/// The names the member declarations `toks` declare (`T a, b[2];` declares
/// `a` and `b`), with their ranges.
fn members<'s>(src: &'s str, toks: &[Token]) -> Vec<(&'s str, Range<usize>)> {
    let mut out = Vec::new();
    let mut piece = 0;
    let mut k = 0;
    while k < toks.len() {
        let t = toks[k];
        if t.is_punct(src, ';') || t.is_punct(src, ',') {
            out.extend(declarator(src, &toks[piece..k]));
            piece = k + 1;
        }
        // Over brackets whole: a `,` in `layout(...)`, a nested struct's `;`.
        let opens = t.is_punct(src, '(') || t.is_punct(src, '[') || t.is_punct(src, '{');
        k += if opens && t.partner > 0 { t.partner } else { 1 };
    }
    out
}

/// The name a declarator declares: its last word, array sizes after it left out.
fn declarator<'s>(src: &'s str, toks: &[Token]) -> Option<(&'s str, Range<usize>)> {
    let mut end = toks.len();
    while end > 0 && toks[end - 1].is_punct(src, ']') {
        end = opening(src, toks, end - 1, '[', ']')?;
    }
    let (first, last) = (toks.first()?, toks[..end].last()?);
    word_in(src, first.start..last.end)
}

/// The word (ASCII letters, digits and `_`, and any other character but
/// blanks, as naga takes identifiers of any script; not starting with a
/// digit) that ends `src[range]`, blanks after it aside.
fn word_in(src: &str, range: Range<usize>) -> Option<(&str, Range<usize>)> {
    let text = src[range.clone()].trim_end();
    let end = range.start + text.len();
    let start = text
        .char_indices()
        .rev()
        .take_while(|(_, c)| {
            c.is_ascii_alphanumeric() || *c == '_' || !(c.is_ascii() || c.is_whitespace())
        })
        .last()
        .map(|(i, _)| range.start + i)?;
    let name = &src[start..end];
    (!name.starts_with(|c: char| c.is_ascii_digit())).then_some((name, start..end))
}
