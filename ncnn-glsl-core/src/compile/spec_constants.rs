//! Specialization constants kept as real `OpSpecConstant`s. naga turns
//! `layout(constant_id = N) const T x = D;` into an override its SPIR-V
//! writer cannot write; baking it (`process_overrides`) folds every
//! expression that depends on it, so a pipeline could no longer specialize.
//! The recipe of docs/naga.md, measured against glslang:
//!
//! 1. text (this file): `layout(constant_id = E) const` is blanked, leaving a
//!    private global `T x = D;` (E may be any integer expression a macro
//!    left). A constant that an instance-named block declared after it
//!    shadows (naga puts block members in the global scope: ncnn's `psc(w)`)
//!    is moved after that block instead, when nothing uses it in between.
//! 2. IR ([`check_ir`]): the global's initializer is the default; a store to
//!    it is refused (GLSL forbids it; glslang would refuse too).
//! 3. SPIR-V ([`to_spec_constants`]): the `OpVariable` becomes `OpSpecConstant`
//!    with `OpDecorate SpecId`, its `OpLoad`s `OpCopyObject`s, and it leaves
//!    the entry point's interface. naga cannot fold loads, so every use stays
//!    specializable.
//!
//! A specialization constant in a global `const` initializer or an array
//! size cannot be a variable: `spec_expressions.rs` writes those as
//! `OpSpecConstantOp`s, and refuses what it cannot read.

use std::collections::{HashMap, HashSet};

use naga::{Expression, Handle, Literal, Module, Statement};

use super::naga_run::Insert;
use super::source_text::{brace_depths, matching, overwrite};
use super::spirv_edit::{inst, Rewrite};
use super::tokens::{Kind, Token};
use crate::reflection::ScalarValue;
use crate::spirv::{decoration, op, storage};

/// One declaration found in the text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SpecDecl {
    pub id: u32,
    pub ty: String,
    pub name: String,
    /// The whole declaration in the finished text (`layout` to `;`).
    pub range: std::ops::Range<usize>,
}

/// A declaration found, with where its `T x = D;` starts and whether it
/// must move past a block (the byte offset in the finished text to insert at).
struct Found {
    decl: SpecDecl,
    body_start: usize,
    move_to: Option<usize>,
}

/// Evaluates an integer constant expression of tokens (`+ - * / % << >> ( )`).
fn eval(src: &str, toks: &[Token]) -> Option<i64> {
    fn expr(src: &str, t: &[Token], i: &mut usize, prec: u8) -> Option<i64> {
        let mut lhs = unary(src, t, i)?;
        while let Some(tok) = t.get(*i) {
            let s = tok.text(src);
            let two = t.get(*i + 1).map(|n| n.text(src)).unwrap_or("");
            let (op, p, len) = match (s, two) {
                ("<", "<") => ("<<", 1, 2),
                (">", ">") => (">>", 1, 2),
                ("+", _) => ("+", 2, 1),
                ("-", _) => ("-", 2, 1),
                ("*", _) => ("*", 3, 1),
                ("/", _) => ("/", 3, 1),
                ("%", _) => ("%", 3, 1),
                _ => break,
            };
            if p < prec {
                break;
            }
            *i += len;
            let rhs = expr(src, t, i, p + 1)?;
            lhs = match op {
                "<<" => lhs.checked_shl(u32::try_from(rhs).ok()?)?,
                ">>" => lhs.checked_shr(u32::try_from(rhs).ok()?)?,
                "+" => lhs.checked_add(rhs)?,
                "-" => lhs.checked_sub(rhs)?,
                "*" => lhs.checked_mul(rhs)?,
                "/" => lhs.checked_div(rhs)?,
                _ => lhs.checked_rem(rhs)?,
            };
        }
        Some(lhs)
    }
    fn unary(src: &str, t: &[Token], i: &mut usize) -> Option<i64> {
        let tok = t.get(*i)?;
        *i += 1;
        match tok.text(src) {
            "-" => unary(src, t, i)?.checked_neg(),
            "+" => unary(src, t, i),
            "(" => {
                let v = expr(src, t, i, 0)?;
                t.get(*i).filter(|c| c.is_punct(src, ')'))?;
                *i += 1;
                Some(v)
            }
            _ => super::source_text::int_literal(src, tok).map(i64::from),
        }
    }
    let mut i = 0;
    let v = expr(src, toks, &mut i, 0)?;
    (i == toks.len()).then_some(v)
}

/// Every `layout(constant_id = E) const T x = D;` at global scope. `Err`:
/// the range of a `constant_id` of any other shape.
fn find(src: &str, toks: &[Token]) -> Result<Vec<Found>, std::ops::Range<usize>> {
    let depth = brace_depths(src, toks);
    let blocks = UniformBlocks::new(src, toks, &depth);
    let mut out = Vec::new();
    for i in 0..toks.len() {
        if toks[i].text(src) != "constant_id" || depth[i] != 0 {
            continue;
        }
        let bad = toks[i].start..toks[i].end;
        // layout ( constant_id = E ) const T x = D ;
        let open = i.checked_sub(1).ok_or(bad.clone())?;
        if open == 0 || !toks[open].is_punct(src, '(') || toks[open - 1].text(src) != "layout" {
            return Err(bad);
        }
        let close = matching(src, toks, open, '(', ')').ok_or(bad.clone())?;
        if !toks.get(i + 1).is_some_and(|t| t.is_punct(src, '=')) {
            return Err(bad);
        }
        let id = eval(src, &toks[i + 2..close])
            .and_then(|v| u32::try_from(v).ok())
            .ok_or(bad.clone())?;
        let k = close + 1;
        let ok_shape = toks.get(k).is_some_and(|t| t.text(src) == "const")
            && toks.get(k + 1).is_some_and(|t| t.kind == Kind::Ident)
            && toks.get(k + 2).is_some_and(|t| t.kind == Kind::Ident)
            && toks.get(k + 3).is_some_and(|t| t.is_punct(src, '='));
        if !ok_shape {
            return Err(bad);
        }
        let semi = blocks.next_semi(k + 4).ok_or(bad.clone())?;
        let name = toks[k + 2].text(src).to_string();
        out.push(Found {
            decl: SpecDecl {
                id,
                ty: toks[k + 1].text(src).to_string(),
                name: name.clone(),
                range: toks[open - 1].start..toks[semi].end,
            },
            body_start: toks[k + 1].start,
            move_to: blocks.shadowing_end(toks, semi, &name),
        });
    }
    Ok(out)
}

/// The instance-named `uniform` blocks at global scope, indexed once so that
/// each specialization constant looks its shadowing block up instead of
/// scanning the rest of the text (a scan per constant is quadratic).
struct UniformBlocks<'s> {
    /// Per member name: the `;` ending each instance-named block that
    /// declares it (`None`: no `;` after the block), in text order, with
    /// the block's first token.
    shadowing: HashMap<&'s str, Vec<(usize, Option<usize>)>>,
    /// The first token of a block whose `}` is missing, if any.
    unclosed: Option<usize>,
    /// Per name: where it is used bare (not `.name`, not a member
    /// declaration inside a `uniform` block), in text order.
    bare_uses: HashMap<&'s str, Vec<usize>>,
    /// Per token: the first `;` at or after it.
    next_semi: Vec<Option<usize>>,
}

impl<'s> UniformBlocks<'s> {
    fn new(src: &'s str, toks: &[Token], depth: &[u32]) -> Self {
        let mut next_semi = vec![None; toks.len() + 1];
        for k in (0..toks.len()).rev() {
            next_semi[k] = if toks[k].is_punct(src, ';') {
                Some(k)
            } else {
                next_semi[k + 1]
            };
        }
        let mut shadowing: HashMap<&str, Vec<(usize, Option<usize>)>> = HashMap::new();
        let mut unclosed = None;
        let mut in_block = vec![false; toks.len()];
        let mut i = 0;
        while i < toks.len() {
            let block = depth[i] == 0
                && toks[i].text(src) == "uniform"
                && toks.get(i + 1).is_some_and(|n| n.kind == Kind::Ident)
                && toks.get(i + 2).is_some_and(|n| n.is_punct(src, '{'));
            if !block {
                i += 1;
                continue;
            }
            let Some(close) = (i + 2..toks.len()).find(|&k| toks[k].is_punct(src, '}')) else {
                unclosed = Some(i);
                break;
            };
            in_block[i + 3..close].fill(true);
            if toks.get(close + 1).is_some_and(|n| n.kind == Kind::Ident) {
                let semi = next_semi[close + 1];
                for k in i + 3..close {
                    let member = toks
                        .get(k + 1)
                        .is_some_and(|n| n.is_punct(src, ';') || n.is_punct(src, '['));
                    if member {
                        shadowing
                            .entry(toks[k].text(src))
                            .or_default()
                            .push((i, semi));
                    }
                }
            }
            i = close + 1;
        }
        let mut bare_uses: HashMap<&str, Vec<usize>> = HashMap::new();
        for (k, t) in toks.iter().enumerate() {
            let after_dot = k > 0 && toks[k - 1].is_punct(src, '.');
            if t.kind == Kind::Ident && !after_dot && !(depth[k] == 1 && in_block[k]) {
                bare_uses.entry(t.text(src)).or_default().push(k);
            }
        }
        UniformBlocks {
            shadowing,
            unclosed,
            bare_uses,
            next_semi,
        }
    }

    fn next_semi(&self, from: usize) -> Option<usize> {
        self.next_semi.get(from).copied().flatten()
    }

    /// The end (after `;`) of the last instance-named `uniform` block after
    /// token `from` with a member named `name`, when `name` is not used
    /// between `from` and that block's end; `None` when no block shadows it
    /// (or a block after `from` is not closed). `Some(usize::MAX)`:
    /// shadowed, but used in between (cannot move).
    fn shadowing_end(&self, toks: &[Token], from: usize, name: &str) -> Option<usize> {
        if self.unclosed.is_some_and(|u| u > from) {
            return None;
        }
        let &(start, semi) = self.shadowing.get(name)?.last()?;
        if start <= from {
            return None;
        }
        let semi = semi?;
        let uses = self.bare_uses.get(name).map_or(&[][..], Vec::as_slice);
        let first_after = uses.partition_point(|&k| k <= from);
        let used = uses.get(first_after).is_some_and(|&k| k < semi);
        Some(if used { usize::MAX } else { toks[semi].end })
    }
}

/// Names of the specialization constants of `src` (for the refusal table).
pub(crate) fn names(src: &str, toks: &[Token]) -> Vec<String> {
    decls(src, toks).into_iter().map(|d| d.name).collect()
}

/// The specialization constants of `src` (none where one cannot be read:
/// [`rewrite`] reports that).
pub(crate) fn decls(src: &str, toks: &[Token]) -> Vec<SpecDecl> {
    find(src, toks)
        .map(|v| v.into_iter().map(|f| f.decl).collect())
        .unwrap_or_default()
}

/// Specialization constants shadowed by a later block that can be moved
/// past it (so the refusal of shadowed members does not apply to them).
pub(crate) fn movable(src: &str, toks: &[Token]) -> Vec<String> {
    find(src, toks)
        .map(|v| {
            v.into_iter()
                .filter(|f| f.move_to.is_some_and(|m| m != usize::MAX))
                .map(|f| f.decl.name)
                .collect()
        })
        .unwrap_or_default()
}

/// A local `const` whose initializer reads a specialization constant
/// (`const int n = psc(w);`) loses its `const`: the value is only known at
/// pipeline creation, and naga wants a constant initializer for a `const`.
/// The same local without `const` computes the same value.
pub(crate) fn drop_local_consts(text: &mut String, toks: &[Token]) {
    let names = names(text, toks);
    drop_local_consts_reading(text, toks, &names);
}

/// [`drop_local_consts`] for the local `const`s that read one of `names`
/// (the constants `spec_expressions` derives are specialization constants
/// too).
pub(crate) fn drop_local_consts_reading(text: &mut String, toks: &[Token], names: &[String]) {
    if names.is_empty() {
        return;
    }
    let src = text.clone();
    let names: HashSet<&str> = names.iter().map(String::as_str).collect();
    let depth = brace_depths(&src, toks);
    // Per token: whether a specialization constant is named from it to the
    // next `;` (one pass backwards, not a scan per `const`).
    let mut reads = vec![false; toks.len() + 1];
    for k in (0..toks.len()).rev() {
        let u = &toks[k];
        reads[k] = !u.is_punct(&src, ';')
            && ((u.kind == Kind::Ident && names.contains(u.text(&src))) || reads[k + 1]);
    }
    for (k, t) in toks.iter().enumerate() {
        if t.text(&src) == "const" && depth[k] != 0 && reads[k] {
            overwrite(text, t.start..t.end, "");
        }
    }
}

/// The text pass: blanks `layout(constant_id = E) const` (or moves the
/// declaration past the block that shadows it). Returns the declarations
/// and the inserts of moved ones; `Err` with the byte range of a
/// declaration it cannot read.
pub(crate) fn rewrite(
    text: &mut String,
    toks: &[Token],
) -> Result<(Vec<SpecDecl>, Vec<Insert>), std::ops::Range<usize>> {
    let src = text.clone();
    let found = find(&src, toks)?;
    let mut decls = Vec::new();
    let mut inserts = Vec::new();
    for f in found {
        match f.move_to {
            Some(at) if at != usize::MAX => {
                let body = &src[f.body_start..f.decl.range.end];
                inserts.push(Insert {
                    at,
                    text: format!(" {body}"),
                    stands_for: Some(f.decl.range.clone()),
                });
                overwrite(text, f.decl.range.clone(), "");
            }
            _ => overwrite(text, f.decl.range.start..f.body_start, ""),
        }
        decls.push(f.decl);
    }
    Ok((decls, inserts))
}

/// A problem found in the IR, at a span of the text naga was given.
pub(crate) struct Problem {
    pub span: naga::Span,
    pub what: String,
}

/// The global of each declaration with its default; stores to them, and
/// to the globals named in `derived` (constants computed from them), are
/// problems.
pub(crate) fn check_ir(
    module: &Module,
    decls: &[SpecDecl],
    derived: &[&str],
) -> Result<Vec<(Handle<naga::GlobalVariable>, ScalarValue)>, Vec<Problem>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for d in decls {
        let Some((h, g)) = module.global_variables.iter().find(|(_, g)| {
            g.name.as_deref() == Some(&d.name) && g.space == naga::AddressSpace::Private
        }) else {
            problems.push(Problem {
                span: naga::Span::UNDEFINED,
                what: format!(
                    "internal error: specialization constant `{}` not found after parsing",
                    d.name
                ),
            });
            continue;
        };
        let value = g.init.and_then(|e| match module.global_expressions[e] {
            Expression::Literal(l) => literal(l, &d.ty),
            _ => None,
        });
        match value {
            Some(v) => out.push((h, v)),
            None => problems.push(Problem {
                span: module.global_variables.get_span(h),
                what: format!(
                    "the default of specialization constant `{}` must be a `bool`, `int`, `uint` or `float` literal of its type",
                    d.name
                ),
            }),
        }
    }
    let mut globals: Vec<_> = out.iter().map(|(h, _)| *h).collect();
    globals.extend(module.global_variables.iter().filter_map(|(h, g)| {
        (g.space == naga::AddressSpace::Private && derived.contains(&g.name.as_deref()?))
            .then_some(h)
    }));
    let mut check = |f: &naga::Function| {
        stores(
            &f.body,
            &f.expressions,
            &globals,
            derived,
            module,
            &mut problems,
        );
    };
    for (_, f) in module.functions.iter() {
        check(f);
    }
    for ep in &module.entry_points {
        check(&ep.function);
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn literal(l: Literal, ty: &str) -> Option<ScalarValue> {
    Some(match (l, ty) {
        (Literal::Bool(b), "bool") => ScalarValue::Bool(b),
        (Literal::I32(v), "int") => ScalarValue::Int(v.into()),
        (Literal::U32(v), "uint") => ScalarValue::Uint(v.into()),
        (Literal::F32(v), "float") => ScalarValue::Float(v.into()),
        _ => return None,
    })
}

fn stores(
    block: &naga::Block,
    exprs: &naga::Arena<Expression>,
    globals: &[Handle<naga::GlobalVariable>],
    derived: &[&str],
    module: &Module,
    problems: &mut Vec<Problem>,
) {
    super::ir_walk::each(block, &mut |s, span| {
        let Statement::Store { pointer, .. } = s else {
            return;
        };
        let Expression::GlobalVariable(g) = exprs[*pointer] else {
            return;
        };
        if globals.contains(&g) {
            let name = module.global_variables[g].name.clone().unwrap_or_default();
            problems.push(Problem {
                span: *span,
                what: if derived.contains(&name.as_str()) {
                    format!("assignment to constant `{name}`")
                } else {
                    format!("assignment to specialization constant `{name}`")
                },
            });
        }
    });
}

/// The word pass. `private` lists, in module order, whether each `Private`
/// global the writer wrote is a specialization constant (its id and default).
pub(crate) fn to_spec_constants(
    words: &mut Vec<u32>,
    private: &[Option<(u32, ScalarValue)>],
) -> Result<(), String> {
    if private.iter().all(Option::is_none) {
        return Ok(());
    }
    let mut m = Rewrite::new(words)?;
    let vars: Vec<usize> = m
        .insts
        .iter()
        .enumerate()
        .filter(|(_, w)| Rewrite::op(w) == op::VARIABLE && w.get(3) == Some(&storage::PRIVATE))
        .map(|(i, _)| i)
        .collect();
    if vars.len() != private.len() {
        return Err(format!(
            "{} private variables written, {} expected",
            vars.len(),
            private.len()
        ));
    }
    let mut decorations = Vec::new();
    let mut ids = Vec::new();
    for (at, spec) in vars.into_iter().zip(private) {
        let Some((spec_id, value)) = spec else {
            continue;
        };
        let (ptr, var) = (m.insts[at][1], m.insts[at][2]);
        let ty = m
            .pointee(ptr)
            .ok_or("a specialization constant's type is not a pointer")?;
        m.insts[at] = match *value {
            ScalarValue::Bool(true) => inst(op::SPEC_CONSTANT_TRUE, &[ty, var]),
            ScalarValue::Bool(false) => inst(op::SPEC_CONSTANT_FALSE, &[ty, var]),
            ScalarValue::Int(v) => inst(op::SPEC_CONSTANT, &[ty, var, v as i32 as u32]),
            ScalarValue::Uint(v) => inst(op::SPEC_CONSTANT, &[ty, var, v as u32]),
            ScalarValue::Float(v) => inst(op::SPEC_CONSTANT, &[ty, var, (v as f32).to_bits()]),
        };
        decorations.push(inst(op::DECORATE, &[var, decoration::SPEC_ID, *spec_id]));
        ids.push(var);
    }
    m.decorate(decorations);
    for var in ids {
        if !m.variable_to_constant(var) {
            return Err("a specialization constant is used other than by loads".into());
        }
    }
    *words = m.words();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    #[test]
    fn ids_from_macro_expressions() {
        let src = "layout (constant_id = (3 + 1) * 2) const int w = 0;\nlayout(constant_id = 1 << 4) const float a = 0.5;";
        let mut t = src.to_string();
        let (decls, inserts) = rewrite(&mut t, &tokenize(src)).unwrap();
        assert_eq!(
            decls
                .iter()
                .map(|d| (d.id, d.ty.as_str(), d.name.as_str()))
                .collect::<Vec<_>>(),
            [(8, "int", "w"), (16, "float", "a")]
        );
        assert!(inserts.is_empty());
        assert_eq!(t.len(), src.len());
        assert_eq!(
            t.split_whitespace().collect::<Vec<_>>().join(" "),
            "int w = 0; float a = 0.5;"
        );
    }

    #[test]
    fn shadowed_ones_move_past_the_block() {
        let src = "layout(constant_id = 0) const int w = 0;\nlayout(push_constant) uniform parameter { int w; } p;\nvoid main() { int x = w == 0 ? p.w : w; }";
        let mut t = src.to_string();
        let (_, inserts) = rewrite(&mut t, &tokenize(src)).unwrap();
        assert_eq!(inserts.len(), 1);
        assert_eq!(inserts[0].text, " int w = 0;");
        assert_eq!(
            &src[inserts[0].at - 3..inserts[0].at],
            "} p;".get(1..).unwrap()
        );
        assert!(t.starts_with("   "));
    }

    #[test]
    fn evaluator() {
        let v = |s: &str| eval(s, &tokenize(s));
        assert_eq!(v("1 + 2 * 3"), Some(7));
        assert_eq!(v("(1 + 2) * 3 - -1"), Some(10));
        assert_eq!(v("1 << 3 + 1"), Some(16));
        assert_eq!(v("x"), None);
        assert_eq!(v("1 / 0"), None);
    }
}
