//! Locals declared in a scope naga's GLSL frontend does not open, renamed
//! in place so that they cannot clash with, or hide, a name outside it.
//!
//! GLSL gives the body of an `if`, `else`, `while` or `do` its own scope
//! when it is a single statement (`if (c) const int k = 4;`), and a `switch`
//! its own scope; naga's frontend opens a scope only for `{ }` blocks, `for`
//! loops and functions. A local declared in one of those scopes stays
//! visible after it in naga: a later declaration of the name in the
//! enclosing block is refused ("Variable already declared"), and a later use
//! of the name reads the leaked local instead of the variable, parameter or
//! global GLSL reads there (wrong code, silently).
//!
//! This pass resolves the names of every function body by GLSL's scopes
//! and renames each local declared in such a scope whose name also occurs
//! outside it, with every use that reads it, to a name of the same length
//! that occurs nowhere in the text (`gx4` becomes `_x4`). The text keeps
//! its length, so naga's spans still map to the user's file, line and
//! column; a debug name (`OpName`) is the new name. Where the body cannot
//! be read (unbalanced, identifiers in other scripts), nothing is renamed
//! and naga reports what it finds.
//!
//! The same walk finds the locals GLSL calls redeclared and naga takes as
//! a new variable hiding the first: a `for` loop's header and its body
//! share one scope, a function's parameters and its body too (GLSL 4.60,
//! 4.2.2 and 6.3). glslang refuses them ("redefinition"), and so does
//! [`redeclared`].

use std::collections::{HashMap, HashSet};

use super::source_text::{matching, opening};
use super::tokens::{Kind, Token, NOT_TYPES};

/// Qualifiers that can start a local declaration (`const int k = 4;`).
const QUALIFIERS: &[&str] = &[
    "const",
    "highp",
    "mediump",
    "lowp",
    "precise",
    "invariant",
    "in",
    "out",
    "inout",
];

/// Most candidates tried for one new name before giving up on it.
const MAX_TRIES: usize = 100_000;

/// The scopes the walk keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// A function's parameters.
    Function,
    /// A `{ }` block (a function's body too).
    Block,
    /// A `for` loop: its header's declarations and its body.
    For,
    /// A `switch` body (naga opens no scope).
    Switch,
    /// The single-statement body of an `if`, `else`, `while` or `do`
    /// (naga opens no scope).
    If,
    Else,
    While,
    Do,
}

impl Scope {
    /// Whether naga's frontend opens no scope for it.
    fn leaks(self) -> bool {
        matches!(
            self,
            Scope::Switch | Scope::If | Scope::Else | Scope::While | Scope::Do
        )
    }
}

/// One open scope: its kind, its first token, its declarations, and
/// whether GLSL counts it as one scope with the frame below it (the body of
/// a function or of a `for` loop).
struct Frame {
    scope: Scope,
    start: usize,
    decls: Vec<usize>,
    joined: bool,
}

/// One local declaration: the token of its name, the tokens that read it,
/// and, for one in a scope naga does not open, that scope's token range.
struct Decl {
    name: usize,
    uses: Vec<usize>,
    leaked_from: Option<(usize, usize)>,
}

/// The walk over the function bodies of one text.
struct Walk<'a> {
    src: &'a str,
    toks: &'a [Token],
    decls: Vec<Decl>,
    frames: Vec<Frame>,
    /// The declarations in force for each name, innermost last, with the
    /// depth of the frame each belongs to.
    visible: HashMap<&'a str, Vec<(usize, usize)>>,
    /// Each declaration of a name already declared in the same GLSL scope,
    /// with the one it repeats and the scope that holds both.
    twice: Vec<(usize, usize, Scope)>,
}

/// What the walk finds in one text.
struct Found {
    decls: Vec<Decl>,
    twice: Vec<(usize, usize, Scope)>,
}

/// A rename: the token ranges to overwrite, all with `to` (same length).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rename {
    pub from: String,
    pub to: String,
    pub at: Vec<std::ops::Range<usize>>,
}

/// The renames [`rename_leaked_locals`] makes, without making them.
pub(crate) fn renames(src: &str, toks: &[Token]) -> Vec<Rename> {
    let Some(Found { decls, .. }) = walk(src, toks) else {
        return Vec::new();
    };
    let mut places: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, t) in toks.iter().enumerate() {
        if t.kind == Kind::Ident {
            places.entry(t.text(src)).or_default().push(k);
        }
    }
    let mut taken: HashSet<String> = places.keys().map(|n| n.to_string()).collect();
    // Where the count of each length's `_` names goes on from.
    let mut next: HashMap<usize, usize> = HashMap::new();
    let mut out = Vec::new();
    for d in decls {
        let Some((start, end)) = d.leaked_from else {
            continue;
        };
        let name = toks[d.name].text(src);
        // In text order: the first and the last occurrence tell.
        let outside = places.get(name).is_some_and(|at| {
            at.first().is_some_and(|&k| k < start) || at.last().is_some_and(|&k| k >= end)
        });
        if !outside {
            continue;
        }
        let Some(to) = fresh(name, &taken, &mut next) else {
            continue;
        };
        taken.insert(to.clone());
        let mut at: Vec<std::ops::Range<usize>> = std::iter::once(d.name)
            .chain(d.uses)
            .map(|k| toks[k].start..toks[k].end)
            .collect();
        at.sort_by_key(|r| r.start);
        out.push(Rename {
            from: name.to_string(),
            to,
            at,
        });
    }
    out
}

/// A local declared again in the GLSL scope of an earlier declaration of
/// its name: the name and where each declaration is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Redeclared {
    pub name: String,
    pub first: std::ops::Range<usize>,
    pub again: std::ops::Range<usize>,
    /// Where GLSL's scope holds both, where naga's does not.
    pub why: Option<&'static str>,
}

impl Redeclared {
    /// What to do.
    pub const NOTE: &'static str = "glslang refuses it (\"redefinition\"): rename one of the two";

    /// The error's message.
    pub fn message(&self) -> String {
        format!(
            "`{}` is declared again in the scope of its first declaration",
            self.name
        )
    }
}

/// Each local declared again in the GLSL scope of an earlier declaration
/// of its name; nothing where a body cannot be read (naga reports what it
/// finds there).
pub(crate) fn redeclared(src: &str, toks: &[Token]) -> Vec<Redeclared> {
    let Some(found) = walk(src, toks) else {
        return Vec::new();
    };
    found
        .twice
        .iter()
        .map(|&(again, first, scope)| {
            let (a, b) = (
                &toks[found.decls[first].name],
                &toks[found.decls[again].name],
            );
            Redeclared {
                name: b.text(src).to_string(),
                first: a.start..a.end,
                again: b.start..b.end,
                why: match scope {
                    Scope::Function => Some(
                        "a function's parameters and its body are one scope in GLSL \
                         (naga would take a second variable that hides the first)",
                    ),
                    Scope::For => Some(
                        "a `for` loop's header and its body are one scope in GLSL \
                         (naga would take a second variable that hides the first)",
                    ),
                    _ => None,
                },
            }
        })
        .collect()
}

/// Renames, in place, each local declared in a scope naga's frontend does
/// not open whose name occurs outside that scope, and the uses that read
/// it. Returns the renames made.
pub(crate) fn rename_leaked_locals(text: &mut String, toks: &[Token]) -> Vec<Rename> {
    let renames = renames(text, toks);
    for r in &renames {
        for range in &r.at {
            if range.len() == r.to.len() && text.is_char_boundary(range.start) {
                text.replace_range(range.clone(), &r.to);
            }
        }
    }
    renames
}

/// A name of `name`'s length that is not in `taken` and cannot be a
/// keyword or a built-in: a single letter for a one-letter name, else `_`
/// and `name` without its first character, then `_` and a count (for two
/// characters, then two letters other than the keywords `do`, `if`, `in`).
/// `next` keeps, per length, where the count goes on from: names only get
/// taken, so many renames stay linear.
fn fresh(name: &str, taken: &HashSet<String>, next: &mut HashMap<usize, usize>) -> Option<String> {
    let n = name.len();
    let free = |s: &String| !taken.contains(s);
    if n == 1 {
        return LETTERS.iter().map(|&c| (c as char).to_string()).find(free);
    }
    // `__` starts names GLSL reserves: the second character is no `_`.
    let tail = &name[1..];
    let first = format!("_{tail}");
    if !tail.starts_with('_') && free(&first) {
        return Some(first);
    }
    let from = next.entry(n).or_insert(0);
    let end = from.saturating_add(MAX_TRIES);
    let mut c = *from;
    while c < end {
        let Some(s) = candidate(n, c) else {
            break;
        };
        c += 1;
        if free(&s) {
            *from = c;
            return Some(s);
        }
    }
    *from = c;
    None
}

const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const REST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";

/// The `c`-th name of length `n` (at least 2) that [`fresh`] tries; `None`
/// past the last.
fn candidate(n: usize, c: usize) -> Option<String> {
    let (l, r) = (LETTERS.len(), REST.len());
    if n == 2 {
        let s = match c.checked_sub(l) {
            None => format!("_{}", LETTERS[c] as char),
            Some(k) if k < l * r => format!("{}{}", LETTERS[k / r] as char, REST[k % r] as char),
            Some(_) => return None,
        };
        // A keyword is never free: its place is taken by the next name.
        return Some(if matches!(s.as_str(), "do" | "if" | "in") {
            "_a".to_string()
        } else {
            s
        });
    }
    let mut k = c;
    let mut s = String::with_capacity(n);
    s.push('_');
    s.push(LETTERS[k % l] as char);
    k /= l;
    for _ in 2..n {
        s.push(REST[k % r] as char);
        k /= r;
    }
    // Past the last name the count wraps: stop there.
    (k == 0).then_some(s)
}

/// The local declarations of every function body of `src`, resolved by
/// GLSL's scopes; `None` where a body cannot be read, or the text has
/// identifiers in other scripts (naga takes them; this tokenizer splits
/// them).
fn walk<'a>(src: &'a str, toks: &'a [Token]) -> Option<Found> {
    if toks
        .iter()
        .any(|t| t.kind == Kind::Punct && t.end - t.start > 1)
    {
        return None;
    }
    let mut w = Walk {
        src,
        toks,
        decls: Vec::new(),
        frames: Vec::new(),
        visible: HashMap::new(),
        twice: Vec::new(),
    };
    let mut i = 0;
    while i < toks.len() {
        if !toks[i].is_punct(src, '{') {
            i += 1;
            continue;
        }
        // A function body: `{` after the `)` of `name (...)`; any other
        // brace at global scope (a block, a struct) is skipped whole.
        let params = i
            .checked_sub(1)
            .and_then(|c| opening(src, toks, c, '(', ')').map(|o| (o, c)))
            .filter(|&(o, _)| o >= 1 && toks[o - 1].kind == Kind::Ident);
        i = match params {
            Some((open, close)) => w.function(open, close, i)?,
            None => matching(src, toks, i, '{', '}')? + 1,
        };
    }
    Some(Found {
        decls: w.decls,
        twice: w.twice,
    })
}

impl<'a> Walk<'a> {
    fn text(&self, k: usize) -> &'a str {
        self.toks.get(k).map_or("", |t| t.text(self.src))
    }

    fn is(&self, k: usize, c: char) -> bool {
        self.toks.get(k).is_some_and(|t| t.is_punct(self.src, c))
    }

    fn ident(&self, k: usize) -> bool {
        self.toks.get(k).is_some_and(|t| t.kind == Kind::Ident)
    }

    fn close(&self, k: usize, o: char, c: char) -> Option<usize> {
        matching(self.src, self.toks, k, o, c)
    }

    fn push(&mut self, scope: Scope, start: usize) {
        self.frames.push(Frame {
            scope,
            start,
            decls: Vec::new(),
            joined: false,
        });
    }

    /// Opens a block GLSL counts as one scope with the frame below it.
    fn push_joined(&mut self, start: usize) {
        self.push(Scope::Block, start);
        if let Some(frame) = self.frames.last_mut() {
            frame.joined = true;
        }
    }

    /// Closes the innermost scope, which ends before token `end`.
    fn pop(&mut self, end: usize) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        let depth = self.frames.len();
        for &d in &frame.decls {
            if frame.scope.leaks() {
                self.decls[d].leaked_from = Some((frame.start, end));
            }
            let name = self.text(self.decls[d].name);
            if let Some(stack) = self.visible.get_mut(name) {
                if stack.last().is_some_and(|&(f, _)| f == depth) {
                    stack.pop();
                }
            }
        }
    }

    /// Declares the name at token `k` in the innermost scope.
    fn declare(&mut self, k: usize) {
        let d = self.decls.len();
        self.decls.push(Decl {
            name: k,
            uses: Vec::new(),
            leaked_from: None,
        });
        let depth = self.frames.len() - 1;
        let joined = self.frames.last().is_some_and(|f| f.joined);
        let scope_at = |f: usize| self.frames.get(f).map_or(Scope::Block, |f| f.scope);
        let (here, below) = (scope_at(depth), scope_at(depth.wrapping_sub(1)));
        if let Some(frame) = self.frames.last_mut() {
            frame.decls.push(d);
        }
        let name = self.text(k);
        let stack = self.visible.entry(name).or_default();
        if let Some(&(at, first)) = stack.last() {
            if at == depth {
                self.twice.push((d, first, here));
            } else if joined && at + 1 == depth {
                self.twice.push((d, first, below));
            }
        }
        stack.push((depth, d));
    }

    /// Resolves the names read in tokens `from..to`: an identifier neither
    /// after a `.` (a member, a swizzle) nor before a `(` (a call).
    fn uses(&mut self, from: usize, to: usize) {
        for k in from..to.min(self.toks.len()) {
            let member = k > 0 && self.is(k - 1, '.');
            if !self.ident(k) || member || self.is(k + 1, '(') {
                continue;
            }
            let name = self.text(k);
            if let Some(&(_, d)) = self.visible.get(name).and_then(|s| s.last()) {
                self.decls[d].uses.push(k);
            }
        }
    }

    /// The index of the `;` that ends the statement starting at `k`, over
    /// brackets whole; `None` when a `}` or the end comes first.
    fn statement_end(&self, mut k: usize) -> Option<usize> {
        loop {
            let t = self.toks.get(k)?;
            if t.is_punct(self.src, ';') {
                return Some(k);
            }
            if t.is_punct(self.src, '}') || t.is_punct(self.src, ')') || t.is_punct(self.src, ']') {
                return None;
            }
            let opens =
                t.is_punct(self.src, '(') || t.is_punct(self.src, '[') || t.is_punct(self.src, '{');
            k += if opens {
                if t.partner == 0 {
                    return None;
                }
                t.partner + 1
            } else {
                1
            };
        }
    }

    /// The `:` that ends a `case` label starting at `k`; `None` when a
    /// `;`, a brace or the end comes first.
    fn label_end(&self, mut k: usize) -> Option<usize> {
        loop {
            let t = self.toks.get(k)?;
            if t.is_punct(self.src, ':') {
                return Some(k);
            }
            if [';', '{', '}', ')', ']']
                .iter()
                .any(|&c| t.is_punct(self.src, c))
            {
                return None;
            }
            let opens = t.is_punct(self.src, '(') || t.is_punct(self.src, '[');
            k += if opens && t.partner > 0 {
                t.partner + 1
            } else {
                1
            };
        }
    }

    /// The first token at bracket depth 0 in `from..to` that is `c`.
    fn find(&self, mut k: usize, to: usize, c: char) -> Option<usize> {
        while k < to {
            let t = self.toks.get(k)?;
            if t.is_punct(self.src, c) {
                return Some(k);
            }
            let opens =
                t.is_punct(self.src, '(') || t.is_punct(self.src, '[') || t.is_punct(self.src, '{');
            k += if opens && t.partner > 0 {
                t.partner + 1
            } else {
                1
            };
        }
        None
    }

    /// A simple statement, tokens `from..to` (its `;` left out): a
    /// declaration declares its names after their initializers, anything
    /// else only reads names.
    fn simple(&mut self, from: usize, to: usize) -> Option<()> {
        let mut k = from;
        while k < to && QUALIFIERS.contains(&self.text(k)) {
            k += 1;
        }
        if self.text(from) == "precision" {
            // `precision highp float;` declares no name.
            return Some(());
        }
        if self.text(k) == "struct" {
            // `struct S { ... } s;`: the declarators follow the body.
            let open = self.find(k, to, '{')?;
            let close = self.close(open, '{', '}')?;
            return self.declarators(close + 1, to);
        }
        let mut n = k + 1;
        while n < to && self.is(n, '[') {
            let close = self.close(n, '[', ']')?;
            n = close + 1;
        }
        let declares = k < to
            && self.ident(k)
            && !NOT_TYPES.contains(&self.text(k))
            && n < to
            && self.ident(n);
        if !declares {
            self.uses(from, to);
            return Some(());
        }
        // Array sizes of the type are read before any name is declared.
        self.uses(k + 1, n);
        self.declarators(n, to)
    }

    /// `a[2] = x, b` in tokens `from..to`: each name is declared after its
    /// sizes and initializer are read.
    fn declarators(&mut self, mut k: usize, to: usize) -> Option<()> {
        while k < to {
            if !self.ident(k) {
                return None;
            }
            let name = k;
            k += 1;
            while k < to && self.is(k, '[') {
                let close = self.close(k, '[', ']')?;
                self.uses(k + 1, close);
                k = close + 1;
            }
            if k < to && self.is(k, '=') {
                let end = self.find(k + 1, to, ',').unwrap_or(to);
                self.uses(k + 1, end);
                k = end;
            }
            self.declare(name);
            if k < to && !self.is(k, ',') {
                // Anything else after a declarator: not read.
                return None;
            }
            k += 1;
        }
        Some(())
    }

    /// A function: parameters in `open..close` (the parentheses), body
    /// opened at `body`. Returns the token after the body.
    fn function(&mut self, open: usize, close: usize, body: usize) -> Option<usize> {
        self.push(Scope::Function, open);
        let mut k = open + 1;
        while k < close {
            let end = self.find(k, close, ',').unwrap_or(close);
            // The name is the last identifier before any array sizes, and
            // follows a type after the qualifiers (`void`, `in float`
            // alone declare nothing).
            let mut last = end;
            while last > k && self.is(last - 1, ']') {
                last = opening(self.src, self.toks, last - 1, '[', ']')?;
            }
            let mut ty = k;
            while ty < last && QUALIFIERS.contains(&self.text(ty)) {
                ty += 1;
            }
            if last > ty + 1 && self.ident(last - 1) {
                self.uses(last, end);
                self.declare(last - 1);
            }
            k = end + 1;
        }
        let after = self.body(body)?;
        self.pop(after);
        Some(after)
    }

    /// The statements of the block opened at `open`, one token at a time,
    /// the nesting kept in `frames` (no recursion: unbraced `if`s nest as
    /// deep as the text goes). Returns the token after its `}`.
    fn body(&mut self, open: usize) -> Option<usize> {
        let base = self.frames.len();
        // The function's parameters and its body are one scope.
        self.push_joined(open + 1);
        let mut i = open + 1;
        loop {
            let t = *self.toks.get(i)?;
            if t.is_punct(self.src, '}') {
                if !matches!(
                    self.frames.last().map(|f| f.scope),
                    Some(Scope::Block | Scope::Switch)
                ) {
                    return None;
                }
                self.pop(i);
                i += 1;
                if self.frames.len() == base {
                    return Some(i);
                }
                i = self.complete(i)?;
                continue;
            }
            match self.text(i) {
                "{" => {
                    self.push(Scope::Block, i + 1);
                    i += 1;
                }
                "if" | "while" | "switch" => {
                    let word = self.text(i);
                    let close = self.close(i + 1, '(', ')')?;
                    self.uses(i + 2, close);
                    i = close + 1;
                    match word {
                        "if" => self.push(Scope::If, i),
                        "while" => self.push(Scope::While, i),
                        _ => {
                            if !self.is(i, '{') {
                                return None;
                            }
                            self.push(Scope::Switch, i + 1);
                            i += 1;
                        }
                    }
                }
                "do" => {
                    self.push(Scope::Do, i + 1);
                    i += 1;
                }
                "for" => {
                    let close = self.close(i + 1, '(', ')')?;
                    self.push(Scope::For, i);
                    let first = self.find(i + 2, close, ';')?;
                    let second = self.find(first + 1, close, ';')?;
                    self.simple(i + 2, first)?;
                    self.simple(first + 1, second)?;
                    self.uses(second + 1, close);
                    i = close + 1;
                    // The header and a braced body are one scope.
                    if self.is(i, '{') {
                        self.push_joined(i + 1);
                        i += 1;
                    }
                }
                "case" => {
                    let colon = self.label_end(i + 1)?;
                    self.uses(i + 1, colon);
                    i = colon + 1;
                }
                "default" if self.is(i + 1, ':') => i += 2,
                "else" => return None,
                ";" => i = self.complete(i + 1)?,
                _ => {
                    let end = self.statement_end(i)?;
                    self.simple(i, end)?;
                    i = self.complete(end + 1)?;
                }
            }
        }
    }

    /// A statement ended before token `i`: closes the `if`, `else`, `while`,
    /// `do` and `for` bodies it completes (reading an `else` or a `do`'s
    /// `while (...);` on the way). Returns where the next statement starts.
    fn complete(&mut self, mut i: usize) -> Option<usize> {
        loop {
            match self.frames.last()?.scope {
                Scope::If => {
                    self.pop(i);
                    if self.text(i) == "else" {
                        self.push(Scope::Else, i + 1);
                        return Some(i + 1);
                    }
                }
                Scope::Else | Scope::While | Scope::For => self.pop(i),
                Scope::Do => {
                    self.pop(i);
                    if self.text(i) != "while" {
                        return None;
                    }
                    let close = self.close(i + 1, '(', ')')?;
                    self.uses(i + 2, close);
                    if !self.is(close + 1, ';') {
                        return None;
                    }
                    i = close + 2;
                }
                Scope::Block | Scope::Switch | Scope::Function => return Some(i),
            }
        }
    }
}

#[cfg(test)]
mod tests;
