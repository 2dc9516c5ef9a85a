//! What of a generated program the compiled module keeps: the functions
//! `main` reaches and their arrays (naga and glslang leave the others out),
//! for the lengths a bad specialization can break.

use super::ast::{Expr, Kind};
use super::program::{Array, Param, Shader, Stmt, Storage};

impl Shader {
    /// The functions `main` calls, directly or through others: the compiled
    /// module keeps those only (naga and glslang leave the others out).
    pub fn reached(&self) -> Vec<String> {
        let calls = |body: &[Stmt], value: Option<&Expr>| {
            let mut names = Vec::new();
            let mut note = |e: &mut Expr| {
                if let Kind::Call(n, _) = &e.kind {
                    names.push(n.clone());
                }
            };
            for s in body {
                s.clone().visit_exprs(&mut note);
            }
            if let Some(v) = value {
                v.clone().visit_mut(&mut note);
            }
            names
        };
        let mut reached: Vec<String> = Vec::new();
        let mut todo = calls(&self.main, None);
        while let Some(n) = todo.pop() {
            if reached.contains(&n) {
                continue;
            }
            if let Some(f) = self.funcs.iter().find(|f| f.name == n) {
                reached.push(n);
                todo.extend(calls(&f.body, Some(&f.value)));
            }
        }
        reached
    }

    /// Whether the compiled module keeps `a`: a global, or an array of
    /// `main` or of a function it reaches (a parameter, or a local it
    /// declares).
    pub fn keeps(&self, a: &Array, reached: &[String]) -> bool {
        let declares = |body: &[Stmt]| declared(body).contains(&a.name);
        match a.storage {
            Storage::Private | Storage::Shared => true,
            Storage::Param { .. } => self.funcs.iter().any(|f| {
                reached.contains(&f.name)
                    && f.params
                        .iter()
                        .any(|p| matches!(p, Param::Array(x) if x.name == a.name))
            }),
            Storage::Local => {
                declares(&self.main)
                    || self
                        .funcs
                        .iter()
                        .any(|f| reached.contains(&f.name) && declares(&f.body))
            }
        }
    }
}

impl Shader {
    /// Every array it declares: globals, parameters and locals.
    pub fn arrays(&self) -> Vec<Array> {
        let mut out = self.globals.clone();
        for f in &self.funcs {
            for p in &f.params {
                if let Param::Array(a) = p {
                    out.push(a.clone());
                }
            }
            out.extend(declared_arrays(&f.body));
        }
        out.extend(declared_arrays(&self.main));
        out
    }
}

/// The names of the arrays `body` declares, at any depth.
fn declared(body: &[Stmt]) -> Vec<String> {
    declared_arrays(body).into_iter().map(|a| a.name).collect()
}

/// The arrays `body` declares, at any depth.
fn declared_arrays(body: &[Stmt]) -> Vec<Array> {
    let mut out = Vec::new();
    for s in body {
        match s {
            Stmt::Fill {
                arr, declare: true, ..
            } => out.push(arr.clone()),
            Stmt::If { then, els, .. } => {
                out.extend(declared_arrays(then));
                out.extend(declared_arrays(els));
            }
            Stmt::For { body, .. } | Stmt::Block(body) => out.extend(declared_arrays(body)),
            _ => {}
        }
    }
    out
}
