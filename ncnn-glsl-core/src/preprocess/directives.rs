//! The driver: walks each file line by line, runs directives, expands text
//! lines and hands the result to the emitter.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use super::cursor::Cursor;
use super::error::PpError;
use super::expr;
use super::lex::{lex, Kind, Token};
use super::macros::{Expander, Macro, Macros};
use super::output::Emitter;
use super::preprocessed::MacroTest;
use crate::source::{FileId, Loader, Location, SourceFile, SourceMap};

/// Deepest `#include` nesting, so a file including itself under new names ends
/// (and the recursion fits a 1 MiB stack in a debug build).
const MAX_INCLUDE_DEPTH: usize = 32;
/// Inclusions in one shader, counted each time (guarded or not): headers
/// that each include the next twice, 30 deep, would otherwise run 2^30
/// inclusions. ncnn's shaders include a handful.
const MAX_INCLUSIONS: usize = 1024;
/// Bytes of included text lexed in one shader, counted at each inclusion:
/// 1024 inclusions of an 8 MiB header would lex 8 GiB.
const MAX_INCLUDED_BYTES: usize = 64 << 20;
/// Tokens macro substitution may produce in one run (about 10x ncnn's largest shader).
const MAX_EXPANDED_TOKENS: usize = 1 << 21;

const BUILTINS: [&str; 3] = ["__LINE__", "__FILE__", "__VERSION__"];

/// One open `#if` group.
struct Cond {
    /// The directive name (`if`, `ifdef`, `ifndef`), for "unterminated" errors.
    opener: Token,
    /// Lines of the current branch are kept.
    active: bool,
    /// Some branch was (or, in a skipped group, counts as) taken: later `#elif`/`#else` are skipped.
    taken: bool,
    else_seen: bool,
}

/// State of one `preprocess` run.
pub(crate) struct Driver<'a> {
    pub sources: &'a mut SourceMap,
    loader: &'a dyn Loader,
    search_paths: &'a [PathBuf],
    main: FileId,
    prelude: Option<FileId>,
    /// Files of one define each (`NAME` or `NAME=VALUE`), defined after the prelude.
    defines: &'a [FileId],
    prelude_done: bool,
    macros: Macros,
    budget: usize,
    version: i64,
    pub out: Emitter,
    pub included: Vec<PathBuf>,
    loaded: HashMap<PathBuf, FileId>,
    /// Each `#include` request (name, `<>`, including file) resolved once:
    /// a file is read once however often it is included.
    resolved: HashMap<(String, bool, Option<PathBuf>), FileId>,
    inclusions: usize,
    included_bytes: usize,
    pub tested: Vec<MacroTest>,
    tested_seen: HashSet<(Rc<str>, Location)>,
    pub errors: Vec<PpError>,
    stack: Vec<FileId>,
    fatal: bool,
}

impl<'a> Driver<'a> {
    pub fn new(
        sources: &'a mut SourceMap,
        main: FileId,
        prelude: Option<FileId>,
        defines: &'a [FileId],
        loader: &'a dyn Loader,
        search_paths: &'a [PathBuf],
    ) -> Driver<'a> {
        Driver {
            sources,
            loader,
            search_paths,
            main,
            prelude,
            defines,
            prelude_done: false,
            macros: Macros::new(),
            budget: MAX_EXPANDED_TOKENS,
            version: 0,
            out: Emitter::new(),
            included: Vec::new(),
            loaded: HashMap::new(),
            resolved: HashMap::new(),
            inclusions: 0,
            included_bytes: 0,
            tested: Vec::new(),
            tested_seen: HashSet::new(),
            errors: Vec::new(),
            stack: Vec::new(),
            fatal: false,
        }
    }

    /// Records an error; past [`crate::diag::MAX_ERRORS`] the rest are
    /// dropped (60000 unterminated `#if`s would each look up their line).
    fn error(&mut self, e: PpError) {
        if e.fatal || self.errors.len() + 1 >= crate::diag::MAX_ERRORS {
            self.fatal = true;
        }
        if self.errors.len() < crate::diag::MAX_ERRORS {
            self.errors.push(e);
        }
    }

    /// Preprocesses the main file (and through it the prelude and includes).
    pub fn run(&mut self) {
        self.stack.push(self.main);
        self.run_file(self.main);
        self.stack.pop();
    }

    fn run_file(&mut self, file: FileId) {
        let (toks, lex_errors) = lex(file, &self.sources.get(file).text);
        for e in lex_errors {
            self.error(PpError::new(e.loc, 2, e.msg));
        }
        let mut cur = Cursor {
            toks,
            pos: 0,
            last: (1, 1),
        };
        if file == self.main && self.stack.len() == 1 {
            let mut first = cur.toks.iter().skip_while(|t| t.kind == Kind::Newline);
            let ok = first.next().is_some_and(|t| t.is("#"))
                && first
                    .next()
                    .is_some_and(|t| t.kind == Kind::Ident && &*t.text == "version");
            if !ok {
                let at = Location {
                    file,
                    line: 1,
                    column: 1,
                };
                self.error(
                    PpError::new(at, 1, "the shader must start with `#version`".into()).fatal(),
                );
                return;
            }
        }
        let mut conds: Vec<Cond> = Vec::new();
        while !self.fatal {
            let Some(t) = cur.toks.get(cur.pos) else {
                break;
            };
            if t.kind == Kind::Newline {
                cur.pos += 1;
                continue;
            }
            let active = conds.last().is_none_or(|c| c.active);
            if t.bol && t.is("#") {
                let line = cur.take_line();
                self.directive(file, &line, &mut conds, active);
                self.out.touch(file, cur.last.0, cur.last.1);
            } else if active {
                self.text_line(file, &mut cur);
            } else {
                let _ = cur.take_line();
                self.out.touch(file, cur.last.0, cur.last.1);
            }
        }
        if !self.fatal {
            for c in conds {
                self.error(PpError::at(
                    &c.opener,
                    format!("unterminated `#{}` (no matching `#endif`)", c.opener.text),
                ));
            }
        }
    }

    /// Expands and emits one line of text (more when a macro call spans lines).
    fn text_line(&mut self, file: FileId, cur: &mut Cursor) {
        let mut failed = None;
        {
            let mut ex = Expander::new(&self.macros, self.version, &mut self.budget);
            loop {
                match ex.expand_next(0, cur) {
                    Ok(Some(t)) if t.kind != Kind::Newline => {
                        if let Err(m) = self.out.emit(&t) {
                            failed = Some(PpError::at(&t, m).fatal());
                            break;
                        }
                        self.out.touch(file, cur.last.0, cur.last.1);
                    }
                    Ok(_) => break,
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
        }
        if let Some(e) = failed {
            self.error(e);
            cur.recover();
        }
    }

    fn directive(&mut self, file: FileId, line: &[Token], conds: &mut Vec<Cond>, active: bool) {
        // A lone `#` is C's null directive.
        let Some(name) = line.get(1) else {
            return;
        };
        let args = line.get(2..).unwrap_or(&[]);
        if name.kind != Kind::Ident {
            if active {
                self.error(PpError::at(
                    name,
                    format!("`{}` is not a directive name", name.text),
                ));
            }
            return;
        }
        match &*name.text {
            "if" | "ifdef" | "ifndef" => {
                let v = active && self.condition(name, args);
                conds.push(Cond {
                    opener: name.clone(),
                    active: v,
                    // In a skipped group no branch may be taken.
                    taken: v || !active,
                    else_seen: false,
                });
            }
            "elif" | "else" => {
                let Some(c) = conds.last_mut() else {
                    self.error(PpError::at(name, format!("`#{}` without `#if`", name.text)));
                    return;
                };
                if c.else_seen {
                    self.error(PpError::at(name, format!("`#{}` after `#else`", name.text)));
                    return;
                }
                if c.taken {
                    c.active = false;
                } else {
                    c.active = &*name.text == "else" || self.condition(name, args);
                    c.taken = c.active;
                }
                c.else_seen = &*name.text == "else";
            }
            "endif" => {
                if conds.pop().is_none() {
                    self.error(PpError::at(name, "`#endif` without `#if`".into()));
                }
            }
            _ if !active => {}
            "define" => {
                if let Err(e) = self.define(name, args) {
                    self.error(e);
                }
            }
            "undef" => match args.first() {
                Some(n) if n.kind == Kind::Ident => {
                    self.macros.remove(&*n.text);
                }
                _ => self.error(PpError::at(name, "`#undef` needs a macro name".into())),
            },
            "include" => {
                if let Err(e) = self.include(file, name, args) {
                    self.error(e);
                }
            }
            "error" => {
                let hash = &line[0];
                let end = line.last().map_or(hash.end_col, |t| t.end_col);
                let len = if line.last().is_some_and(|t| t.end_line == hash.loc.line) {
                    end.saturating_sub(hash.loc.column)
                } else {
                    1
                };
                self.error(PpError::new(
                    hash.loc,
                    len,
                    format!("#error: {}", spell(args)),
                ));
            }
            // Accepted; positions keep mapping to the real lines.
            "line" => {}
            // Our own declarations (variant axes, exclusions) are read from the
            // shader's own file by `variant::decl`; the compiler never sees
            // them. One in an included file would be ignored: an error.
            "pragma" if args.first().is_some_and(|t| &*t.text == "ncnn_glsl") => {
                if file != self.main {
                    let main = self.sources.get(self.main).name.clone();
                    self.error(PpError::at(
                        &args[0],
                        format!(
                            "`#pragma ncnn_glsl` in an included file is not read: a variant set \
                             is declared in the shader's own file (`{main}`)"
                        ),
                    ));
                }
            }
            "version" | "extension" | "pragma" => {
                for t in line {
                    if let Err(m) = self.out.emit(t) {
                        self.error(PpError::at(t, m).fatal());
                        return;
                    }
                    self.out.touch(file, t.end_line, t.end_col);
                }
                if &*name.text == "version" {
                    self.version = args.first().and_then(|t| t.text.parse().ok()).unwrap_or(0);
                    if file == self.main && !self.prelude_done {
                        self.prelude_done = true;
                        if let Some(p) = self.prelude {
                            self.stack.push(p);
                            self.run_file(p);
                            self.stack.pop();
                        }
                        for &d in self.defines {
                            self.predefine(d);
                        }
                    }
                }
            }
            other => self.error(PpError::at(name, format!("unknown directive `#{other}`"))),
        }
    }

    fn record_test(&mut self, t: &Token) {
        if t.kind != Kind::Ident || &*t.text == "defined" {
            return;
        }
        let at = t.at();
        if self.tested_seen.insert((t.text.clone(), at)) {
            self.tested.push(MacroTest {
                name: t.text.to_string(),
                at,
            });
        }
    }

    fn is_defined(&self, name: &str) -> bool {
        self.macros.contains_key(name) || BUILTINS.contains(&name)
    }

    /// The value of an `#if`, `#elif`, `#ifdef` or `#ifndef` (false after an error).
    fn condition(&mut self, name: &Token, args: &[Token]) -> bool {
        match self.try_condition(name, args) {
            Ok(v) => v,
            Err(e) => {
                self.error(e);
                false
            }
        }
    }

    fn try_condition(&mut self, name: &Token, args: &[Token]) -> Result<bool, PpError> {
        if &*name.text == "ifdef" || &*name.text == "ifndef" {
            let n = match args.first() {
                Some(n) if n.kind == Kind::Ident => n,
                _ => {
                    return Err(PpError::at(
                        name,
                        format!("`#{}` needs a macro name", name.text),
                    ))
                }
            };
            self.record_test(n);
            return Ok(self.is_defined(&n.text) == (&*name.text == "ifdef"));
        }
        if args.is_empty() {
            return Err(PpError::at(
                name,
                format!("`#{}` with no expression", name.text),
            ));
        }
        // `defined X` is decided before expansion, so X itself never expands.
        let mut pre = Vec::with_capacity(args.len());
        let mut i = 0;
        while let Some(t) = args.get(i) {
            self.record_test(t);
            i += 1;
            if t.kind != Kind::Ident || &*t.text != "defined" {
                pre.push(t.clone());
                continue;
            }
            let paren = args.get(i).is_some_and(|p| p.is("("));
            let operand = args.get(i + usize::from(paren));
            let Some(n) = operand.filter(|n| n.kind == Kind::Ident) else {
                return Err(PpError::at(t, "`defined` needs a macro name".into()));
            };
            self.record_test(n);
            i += 1 + usize::from(paren);
            if paren {
                if !args.get(i).is_some_and(|p| p.is(")")) {
                    return Err(PpError::at(n, "missing `)` after `defined(`".into()));
                }
                i += 1;
            }
            let v = if self.is_defined(&n.text) { "1" } else { "0" };
            let mut num = Token::synthetic(Kind::Number, v, t.loc);
            num.space = t.space;
            pre.push(num);
        }
        let mut ex = Expander::new(&self.macros, self.version, &mut self.budget);
        ex.in_condition = true;
        let expanded = ex.expand_all(pre)?;
        for t in &expanded {
            self.record_test(t);
        }
        let end = args.last().map_or(name.loc, Token::at);
        let v = expr::eval(&expanded, &|n| self.is_defined(n), end)?;
        Ok(v != 0)
    }

    fn define(&mut self, directive: &Token, args: &[Token]) -> Result<(), PpError> {
        let name = match args.first() {
            Some(n) if n.kind == Kind::Ident => n,
            Some(n) => {
                return Err(PpError::at(
                    n,
                    format!("macro name must be an identifier, not `{}`", n.text),
                ))
            }
            None => {
                return Err(PpError::at(
                    directive,
                    "`#define` needs a macro name".into(),
                ))
            }
        };
        if &*name.text == "defined" || BUILTINS.contains(&&*name.text) {
            return Err(PpError::at(
                name,
                format!("`{}` cannot be defined as a macro", name.text),
            ));
        }
        let mut i = 1;
        let mut params = None;
        let mut variadic = false;
        // Function-like only when `(` touches the name.
        if args.get(1).is_some_and(|t| t.is("(") && !t.space) {
            let mut ps: Vec<Rc<str>> = Vec::new();
            i = 2;
            if args.get(i).is_some_and(|t| t.is(")")) {
                i += 1;
            } else {
                loop {
                    let Some(t) = args.get(i) else {
                        return Err(PpError::at(
                            name,
                            format!("missing `)` in the parameter list of macro `{}`", name.text),
                        ));
                    };
                    i += 1;
                    if t.is("...") {
                        variadic = true;
                        ps.push(Rc::from("__VA_ARGS__"));
                    } else if t.kind == Kind::Ident && &*t.text != "__VA_ARGS__" {
                        if ps.contains(&t.text) {
                            return Err(PpError::at(
                                t,
                                format!("duplicate macro parameter `{}`", t.text),
                            ));
                        }
                        ps.push(t.text.clone());
                    } else {
                        return Err(PpError::at(
                            t,
                            format!("expected a parameter name, found `{}`", t.text),
                        ));
                    }
                    match args.get(i) {
                        Some(t) if t.is(")") => {
                            i += 1;
                            break;
                        }
                        Some(t) if t.is(",") && !variadic => i += 1,
                        Some(t) => {
                            return Err(PpError::at(
                                t,
                                format!(
                                    "expected `,` or `)` in the parameter list of macro `{}`, found `{}`",
                                    name.text, t.text
                                ),
                            ))
                        }
                        None => {
                            return Err(PpError::at(
                                name,
                                format!("missing `)` in the parameter list of macro `{}`", name.text),
                            ))
                        }
                    }
                }
            }
            params = Some(ps);
        }
        let mut body: Vec<Token> = args.get(i..).unwrap_or(&[]).to_vec();
        for t in &mut body {
            t.bol = false;
        }
        if let Some(f) = body.first_mut() {
            f.space = false;
        }
        if let Some(t) = body
            .first()
            .filter(|t| t.is("##"))
            .or(body.last().filter(|t| t.is("##")))
        {
            return Err(PpError::at(
                t,
                "`##` cannot be at either end of a macro body".into(),
            ));
        }
        if let Some(ps) = &params {
            for (k, t) in body.iter().enumerate() {
                if t.is("#") {
                    let next = body.get(k + 1);
                    if !next.is_some_and(|n| n.kind == Kind::Ident && ps.contains(&n.text)) {
                        return Err(PpError::at(
                            t,
                            "`#` must be followed by a macro parameter".into(),
                        ));
                    }
                }
            }
        }
        self.macros.insert(
            name.text.clone(),
            Macro {
                params,
                variadic,
                body,
            },
        );
        Ok(())
    }

    /// Defines the macro of `file`, whose whole text is `NAME` (defined as
    /// `1`) or `NAME=VALUE`. Its tokens keep their columns in that text, so an
    /// error in it shows the define as the user gave it.
    fn predefine(&mut self, file: FileId) {
        let text = self.sources.get(file).text.clone();
        let (name_part, value) = match text.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (text.as_str(), None),
        };
        let at = Location {
            file,
            line: 1,
            column: 1,
        };
        let (name_toks, mut lex_errors) = lex(file, name_part);
        let name = match name_toks.as_slice() {
            [n] if n.kind == Kind::Ident => n.clone(),
            _ => {
                let len = name_part.chars().count().max(1) as u32;
                let msg = format!("`{name_part}` is not a macro name");
                self.error(PpError::new(at, len, msg));
                return;
            }
        };
        let mut body = match value {
            Some(v) => {
                let (mut toks, errors) = lex(file, v);
                lex_errors.extend(errors);
                // Columns of the value's text, counted from the start of the define.
                let shift = name_part.chars().count() as u32 + 1;
                for t in &mut toks {
                    t.loc.column = t.loc.column.saturating_add(shift);
                    t.end_col = t.end_col.saturating_add(shift);
                }
                for e in &mut lex_errors {
                    e.loc.column = e.loc.column.saturating_add(shift);
                }
                toks
            }
            None => vec![Token::synthetic(Kind::Number, "1", name.loc)],
        };
        for e in lex_errors {
            self.error(PpError::new(e.loc, 2, e.msg));
        }
        if let Some(nl) = body.iter().find(|t| t.kind == Kind::Newline) {
            let msg = "a define is one line, but this one spans lines".into();
            self.error(PpError::new(nl.loc, 1, msg));
            return;
        }
        // `NAME=(x)` is an object-like macro whose body starts with `(`.
        if let Some(first) = body.first_mut() {
            first.space = true;
        }
        let mut args = vec![name.clone()];
        args.append(&mut body);
        if let Err(e) = self.define(&name, &args) {
            self.error(e);
        }
    }

    fn include(&mut self, file: FileId, directive: &Token, args: &[Token]) -> Result<(), PpError> {
        let direct = args
            .first()
            .is_some_and(|t| t.kind == Kind::Str || t.is("<"));
        let args = if direct {
            args.to_vec()
        } else {
            Expander::new(&self.macros, self.version, &mut self.budget).expand_all(args.to_vec())?
        };
        let bad = || PpError::at(directive, "`#include` expects \"file\" or <file>".into());
        let first = args.first().ok_or_else(bad)?;
        let (spec, angled) = if first.kind == Kind::Str {
            let s = first
                .text
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'));
            (s.ok_or_else(bad)?.to_string(), false)
        } else if first.is("<") {
            let close = args.iter().position(|t| t.is(">")).ok_or_else(bad)?;
            (spell(args.get(1..close).unwrap_or(&[])), true)
        } else {
            return Err(bad());
        };
        let at = first.at();
        let len = args
            .last()
            .map_or(1, |l| l.end_col.saturating_sub(first.loc.column).max(1));
        if spec.is_empty() {
            return Err(PpError::new(
                at,
                len,
                "empty file name in `#include`".into(),
            ));
        }
        if self.stack.len() > MAX_INCLUDE_DEPTH {
            return Err(PpError::new(
                at,
                len,
                format!("`#include` nested more than {MAX_INCLUDE_DEPTH} levels deep"),
            ));
        }
        self.inclusions += 1;
        if self.inclusions > MAX_INCLUSIONS {
            return Err(PpError::new(
                at,
                len,
                format!(
                    "more than {MAX_INCLUSIONS} `#include`s in one shader (each counts, guarded or not)"
                ),
            ));
        }
        let includer = if angled {
            None
        } else {
            self.sources.get(file).path.clone()
        };
        let request = (spec, angled, includer);
        let id = match self.resolved.get(&request) {
            Some(&id) => id,
            None => {
                // The shader's own directory is a root of what may be read.
                let roots: Vec<PathBuf> = self
                    .sources
                    .get(self.main)
                    .path
                    .as_deref()
                    .and_then(|p| {
                        let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
                        real.parent().map(Path::to_path_buf)
                    })
                    .into_iter()
                    .collect();
                let loaded = self
                    .loader
                    .load_within(&request.0, request.2.as_deref(), self.search_paths, &roots)
                    .map_err(|m| PpError::new(at, len, m))?;
                let id = self.add_loaded(loaded);
                self.resolved.insert(request, id);
                id
            }
        };
        self.included_bytes += self.sources.get(id).text.len();
        if self.included_bytes > MAX_INCLUDED_BYTES {
            return Err(PpError::new(
                at,
                len,
                format!(
                    "more than {} MiB of included text in one shader (each inclusion counts)",
                    MAX_INCLUDED_BYTES >> 20
                ),
            ));
        }
        if let Some(key) = self.sources.get(id).path.as_deref().map(normalize) {
            if let Some(k) = self.stack.iter().position(|f| {
                self.sources.get(*f).path.as_deref().map(normalize).as_ref() == Some(&key)
            }) {
                let mut chain: Vec<String> = self.stack[k..]
                    .iter()
                    .map(|f| self.sources.get(*f).name.clone())
                    .collect();
                chain.push(self.sources.get(id).name.clone());
                return Err(PpError::new(
                    at,
                    len,
                    format!("`#include` cycle: {}", chain.join(" -> ")),
                ));
            }
        }
        self.stack.push(id);
        self.run_file(id);
        self.stack.pop();
        Ok(())
    }
}

impl Driver<'_> {
    /// The id of a loaded file: one per path, however it was named.
    fn add_loaded(&mut self, loaded: SourceFile) -> FileId {
        let Some(p) = loaded.path.clone() else {
            return self.sources.add(loaded);
        };
        let key = normalize(&p);
        if !self.included.iter().any(|q| normalize(q) == key) {
            self.included.push(p);
        }
        match self.loaded.get(&key) {
            Some(id) => *id,
            None => {
                let id = self.sources.add(loaded);
                self.loaded.insert(key, id);
                id
            }
        }
    }
}

/// Tokens written back as text, one space where the source had any.
fn spell(toks: &[Token]) -> String {
    let mut s = String::new();
    for (k, t) in toks.iter().enumerate() {
        if k > 0 && t.space {
            s.push(' ');
        }
        s.push_str(&t.text);
    }
    s
}

/// `a/./b/../c` as `a/c`, without touching the file system, so two spellings
/// of one include compare equal.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}
