//! Macro definitions and their expansion.
//!
//! Expansion keeps a stack of contexts (one per macro being expanded, as GCC
//! does): a macro is disabled while its context is on the stack, and a name
//! met while disabled is painted so it never expands later. Reading past the
//! top context falls through to the contexts below and then to the base input
//! (the file, or a token list), which is how rescanning picks up a `(` that
//! follows a macro's expansion.

use std::collections::HashMap;
use std::rc::Rc;

use super::error::PpError;
use super::lex::{single_token, Kind, Token};
use crate::source::Location;

/// Most macro contexts open at once (each one is a nested expansion).
const MAX_CONTEXTS: usize = 256;
/// Most nested argument pre-expansions (these recurse on the Rust stack).
const MAX_ARG_NESTING: u32 = 32;

/// A `#define`d macro.
#[derive(Clone, Debug)]
pub(crate) struct Macro {
    /// `None` for object-like macros; names of the parameters otherwise
    /// (`__VA_ARGS__` last when variadic).
    pub params: Option<Vec<Rc<str>>>,
    pub variadic: bool,
    pub body: Vec<Token>,
}

/// Every macro in effect, by name.
pub(crate) type Macros = HashMap<Rc<str>, Macro>;

/// Where an expansion reads tokens once its contexts are exhausted.
pub(crate) trait Base {
    /// The next token. With `skip_nl` (inside an argument list, or looking for
    /// its `(`), line ends are skipped but a directive line ends the input.
    fn next(&mut self, skip_nl: bool) -> Option<Token>;
    /// Whether `next(skip_nl)` would return `(`.
    fn peek_lparen(&self, skip_nl: bool) -> bool;
}

/// A plain token list as a base: a `#if` line or a macro argument.
pub(crate) struct ListBase {
    toks: std::vec::IntoIter<Token>,
}

impl ListBase {
    pub fn new(toks: Vec<Token>) -> ListBase {
        ListBase {
            toks: toks.into_iter(),
        }
    }
}

impl Base for ListBase {
    fn next(&mut self, _: bool) -> Option<Token> {
        self.toks.next()
    }
    fn peek_lparen(&self, _: bool) -> bool {
        self.toks.as_slice().first().is_some_and(|t| t.is("("))
    }
}

struct Context {
    toks: Vec<Token>,
    pos: usize,
    name: Rc<str>,
}

/// Expands macros over a base input. One per line of text (or directive).
pub(crate) struct Expander<'m> {
    macros: &'m Macros,
    /// The number of `#version`, for `__VERSION__`.
    version: i64,
    /// Tokens that substitutions may still produce in this whole run, so
    /// exponential definitions end in an error instead of eating memory.
    budget: &'m mut usize,
    ctx: Vec<Context>,
    arg_nesting: u32,
    /// Expanding a `#if` line: the operand of a `defined` that a macro produced must not expand.
    pub in_condition: bool,
}

impl<'m> Expander<'m> {
    pub fn new(macros: &'m Macros, version: i64, budget: &'m mut usize) -> Expander<'m> {
        Expander {
            macros,
            version,
            budget,
            ctx: Vec::new(),
            arg_nesting: 0,
            in_condition: false,
        }
    }

    /// Expands a whole token list (a `#if` or `#include` line).
    pub fn expand_all(&mut self, toks: Vec<Token>) -> Result<Vec<Token>, PpError> {
        let floor = self.ctx.len();
        let mut base = ListBase::new(toks);
        let mut out = Vec::new();
        let r = loop {
            match self.expand_next(floor, &mut base) {
                Ok(Some(t)) => out.push(t),
                Ok(None) => break Ok(out),
                Err(e) => break Err(e),
            }
        };
        self.ctx.truncate(floor);
        r
    }

    /// The next token, read through open contexts down to `floor`, then the base.
    fn next_raw(&mut self, floor: usize, base: &mut dyn Base, skip_nl: bool) -> Option<Token> {
        while self.ctx.len() > floor {
            if let Some(c) = self.ctx.last_mut() {
                if let Some(t) = c.toks.get(c.pos) {
                    c.pos += 1;
                    return Some(t.clone());
                }
            }
            self.ctx.pop();
        }
        base.next(skip_nl)
    }

    fn peek_lparen(&self, floor: usize, base: &dyn Base) -> bool {
        for c in self.ctx.get(floor..).unwrap_or(&[]).iter().rev() {
            if let Some(t) = c.toks.get(c.pos) {
                return t.is("(");
            }
        }
        base.peek_lparen(true)
    }

    fn disabled(&self, name: &str) -> bool {
        self.ctx.iter().any(|c| &*c.name == name)
    }

    /// The next token after macro expansion, `None` at the end of the base.
    /// At the top level (reading a file) a `Newline` token is returned as is.
    pub fn expand_next(
        &mut self,
        floor: usize,
        base: &mut dyn Base,
    ) -> Result<Option<Token>, PpError> {
        loop {
            let Some(mut t) = self.next_raw(floor, base, false) else {
                return Ok(None);
            };
            if t.kind != Kind::Ident || t.noexpand {
                return Ok(Some(t));
            }
            if self.in_condition && &*t.text == "defined" {
                self.protect_defined_operand(floor, base);
                return Ok(Some(t));
            }
            let site = t.at();
            let builtin = match &*t.text {
                "__LINE__" => Some(site.line as i64),
                "__FILE__" => Some(0),
                "__VERSION__" => Some(self.version),
                _ => None,
            };
            if let Some(v) = builtin {
                let mut n = Token::synthetic(Kind::Number, &v.to_string(), t.loc);
                n.site = Some(site);
                n.space = t.space;
                return Ok(Some(n));
            }
            let Some(m) = self.macros.get(&*t.text) else {
                return Ok(Some(t));
            };
            if self.disabled(&t.text) {
                t.noexpand = true;
                return Ok(Some(t));
            }
            let body = match &m.params {
                None => self.substitute(m, &t, site, Vec::new())?,
                Some(_) => {
                    if !self.peek_lparen(floor, base) {
                        return Ok(Some(t));
                    }
                    let _ = self.next_raw(floor, base, true);
                    let args = self.collect_args(floor, base, &t, m)?;
                    self.substitute(m, &t, site, args)?
                }
            };
            if self.ctx.len() >= MAX_CONTEXTS {
                return Err(PpError::at(
                    &t,
                    format!(
                        "macro `{}` expands more than {MAX_CONTEXTS} levels deep",
                        t.text
                    ),
                ));
            }
            self.ctx.push(Context {
                toks: body,
                pos: 0,
                name: t.text.clone(),
            });
        }
    }

    /// Paints the name in `X` or `( X )` after a `defined`, so it reaches the evaluator as written.
    fn protect_defined_operand(&mut self, floor: usize, base: &mut dyn Base) {
        let mut toks = Vec::new();
        while let Some(mut t) = self.next_raw(floor, base, false) {
            let done = t.kind != Kind::Punct || !t.is("(");
            if t.kind == Kind::Ident {
                t.noexpand = true;
            }
            toks.push(t);
            if done {
                break;
            }
        }
        self.ctx.push(Context {
            toks,
            pos: 0,
            name: Rc::from(""),
        });
    }

    /// Reads the arguments after the `(` of an invocation of `m` (named by `name`).
    fn collect_args(
        &mut self,
        floor: usize,
        base: &mut dyn Base,
        name: &Token,
        m: &Macro,
    ) -> Result<Vec<Vec<Token>>, PpError> {
        let nparams = m.params.as_ref().map_or(0, Vec::len);
        let mut args: Vec<Vec<Token>> = vec![Vec::new()];
        let mut depth = 0usize;
        loop {
            let Some(t) = self.next_raw(floor, base, true) else {
                return Err(PpError::at(
                    name,
                    format!("unterminated argument list for macro `{}`", name.text),
                ));
            };
            if t.kind == Kind::Punct {
                match &*t.text {
                    "(" => depth += 1,
                    ")" if depth == 0 => break,
                    ")" => depth -= 1,
                    "," if depth == 0 && !(m.variadic && args.len() == nparams) => {
                        args.push(Vec::new());
                        continue;
                    }
                    _ => {}
                }
            }
            if let Some(a) = args.last_mut() {
                a.push(t);
            }
        }
        if nparams == 0 && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        if m.variadic && args.len() + 1 == nparams {
            args.push(Vec::new());
        }
        if args.len() != nparams {
            let (named, at_least) = if m.variadic {
                (nparams - 1, "at least ")
            } else {
                (nparams, "")
            };
            let s = |n: usize| if n == 1 { "" } else { "s" };
            return Err(PpError::at(
                name,
                format!(
                    "macro `{}` expects {at_least}{named} argument{}, got {}",
                    name.text,
                    s(named),
                    args.len()
                ),
            ));
        }
        Ok(args)
    }

    /// Counts `n` tokens of work against the budget of the whole run.
    fn charge(&mut self, n: usize, name: &Token) -> Result<(), PpError> {
        match self.budget.checked_sub(n) {
            Some(left) => {
                *self.budget = left;
                Ok(())
            }
            None => Err(PpError::at(
                name,
                format!("expanding macro `{}` produces too much text", name.text),
            )
            .fatal()),
        }
    }

    /// A fully macro-expanded copy of an argument, expanded on its own as C requires.
    fn pre_expand(&mut self, arg: &[Token], name: &Token) -> Result<Vec<Token>, PpError> {
        if self.arg_nesting >= MAX_ARG_NESTING {
            return Err(PpError::at(
                name,
                format!("macro arguments nested more than {MAX_ARG_NESTING} levels deep"),
            ));
        }
        self.arg_nesting += 1;
        let r = self.expand_all(arg.to_vec());
        self.arg_nesting -= 1;
        r
    }

    /// The body of `m` with arguments substituted, `#` and `##` applied, and
    /// every token marked as coming from `site`.
    fn substitute(
        &mut self,
        m: &Macro,
        name: &Token,
        site: Location,
        args: Vec<Vec<Token>>,
    ) -> Result<Vec<Token>, PpError> {
        let params: &[Rc<str>] = m.params.as_deref().unwrap_or(&[]);
        let param = |t: &Token| {
            if t.kind == Kind::Ident {
                params.iter().position(|p| *p == t.text)
            } else {
                None
            }
        };
        let mut expanded: Vec<Option<Vec<Token>>> = vec![None; args.len()];
        let mut out: Vec<Token> = Vec::with_capacity(m.body.len());
        let mut paste = false;
        let mut i = 0;
        while let Some(t) = m.body.get(i) {
            i += 1;
            if t.is("##") {
                paste = true;
                continue;
            }
            let next_pastes = m.body.get(i).is_some_and(|n| n.is("##"));
            let mut piece: Vec<Token> = if m.params.is_some() && t.is("#") {
                // `#param` (checked at the `#define`); stringizes the raw argument.
                let p = m.body.get(i).and_then(param);
                i += 1;
                let arg = p.and_then(|p| args.get(p)).map_or(&[][..], Vec::as_slice);
                self.charge(arg.len(), name)?;
                let mut s = Token::synthetic(Kind::Str, &stringize(arg), t.loc);
                s.space = t.space;
                vec![s]
            } else if let Some(p) = param(t) {
                let raw = args.get(p).map_or(&[][..], Vec::as_slice);
                let mut v = if paste || next_pastes {
                    raw.to_vec()
                } else {
                    if expanded.get(p).is_some_and(Option::is_none) {
                        let e = self.pre_expand(raw, name)?;
                        self.charge(e.len(), name)?;
                        expanded[p] = Some(e);
                    }
                    expanded.get(p).cloned().flatten().unwrap_or_default()
                };
                if v.is_empty() && (paste || next_pastes) {
                    v.push(Token::synthetic(Kind::Placemarker, "", t.loc));
                }
                if let Some(f) = v.first_mut() {
                    f.space = t.space;
                }
                // Before `site` is overwritten below: where the argument is.
                for a in &mut v {
                    a.origin = Some(a.place());
                }
                v
            } else {
                vec![t.clone()]
            };
            // Charged before it is copied, so a blowup stops before memory runs out.
            self.charge(piece.len(), name)?;
            if paste && !piece.is_empty() {
                if let Some(left) = out.pop() {
                    let right = piece.remove(0);
                    out.push(paste_tokens(left, right, name)?);
                }
            }
            paste = false;
            out.append(&mut piece);
        }
        out.retain(|t| t.kind != Kind::Placemarker);
        for t in &mut out {
            t.site = Some(site);
        }
        if let Some(f) = out.first_mut() {
            f.space = name.space;
        }
        Ok(out)
    }
}

/// `a ## b`: one token made of both texts, which must lex as one token.
fn paste_tokens(left: Token, right: Token, name: &Token) -> Result<Token, PpError> {
    if left.kind == Kind::Placemarker {
        return Ok(right);
    }
    if right.kind == Kind::Placemarker {
        return Ok(left);
    }
    let text = format!("{}{}", left.text, right.text);
    let Some(kind) = single_token(&text) else {
        return Err(PpError::at(
            name,
            format!(
                "pasting `{}` and `{}` in macro `{}` does not give a valid token",
                left.text, right.text, name.text
            ),
        ));
    };
    // Two tokens' text in one: no single place in the source is its text.
    let origin = left.origin.map(|(loc, _)| (loc, false));
    Ok(Token {
        kind,
        text: Rc::from(text),
        noexpand: false,
        origin,
        ..left
    })
}

/// `#x`: the argument's spelling as a string literal.
fn stringize(arg: &[Token]) -> String {
    let mut s = String::from("\"");
    for (k, t) in arg.iter().enumerate() {
        if k > 0 && t.space {
            s.push(' ');
        }
        if t.kind == Kind::Str {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    s
}
