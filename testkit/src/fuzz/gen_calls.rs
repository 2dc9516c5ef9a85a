//! Calls of the program's own functions: in expressions (functions without
//! `inout` parameters only, so no argument changes under the expression's
//! feet) and as statements (with `inout` scalars and arrays, each argument a
//! distinct variable, never `shared` memory: a copy-out from every
//! invocation would race).

use super::ast::{Expr, Ty};
use super::gen::{Gen, Var};
use super::program::{Array, Param, Stmt, Storage};

impl Gen {
    /// A call of a function returning `ty` with no `inout` parameter, its
    /// arguments `depth` deep; `None` where there is none to call.
    pub fn call_user(&mut self, ty: Ty, depth: u32) -> Option<Expr> {
        let candidates: Vec<usize> = (0..self.shader.funcs.len())
            .filter(|&k| {
                let f = &self.shader.funcs[k];
                f.ret == ty
                    && f.params.iter().all(|p| match p {
                        Param::Scalar { inout, .. } => !inout,
                        Param::Array(a) => a.storage == Storage::Param { inout: false },
                    })
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let f =
            self.shader.funcs[candidates[self.rng.below(candidates.len() as u64) as usize]].clone();
        let mut args = Vec::new();
        for p in &f.params {
            match p {
                Param::Scalar { ty, .. } => args.push(self.stored(*ty, depth)),
                Param::Array(a) => {
                    let name = self.array_like(a, true)?;
                    args.push(Expr::name(a.elem, &name));
                }
            }
        }
        Some(Expr::call(ty, &f.name, args))
    }

    /// An array in scope of the same element type and lengths as the
    /// parameter `p` (`shared` ones only where `readable_shared`).
    fn array_like(&mut self, p: &Array, readable_shared: bool) -> Option<String> {
        let names: Vec<String> = self
            .scope
            .arrays
            .iter()
            .filter(|a| a.elem == p.elem && a.dims == p.dims)
            // `shared` floats are `lfp`, which need not be `afp`.
            .filter(|a| a.storage != Storage::Shared || (readable_shared && a.elem != Ty::Float))
            .map(|a| a.name.clone())
            .collect();
        if names.is_empty() {
            return None;
        }
        Some(names[self.rng.below(names.len() as u64) as usize].clone())
    }

    /// A call as a statement, after the declarations its `inout` arguments
    /// need where the scope has none to give.
    pub fn call_statement(&mut self) -> Vec<Stmt> {
        if self.shader.funcs.is_empty() {
            return Vec::new();
        }
        let k = self.rng.below(self.shader.funcs.len() as u64) as usize;
        let f = self.shader.funcs[k].clone();
        let mut before = Vec::new();
        let mut taken: Vec<String> = Vec::new();
        let mut args = Vec::new();
        for p in &f.params {
            match p {
                Param::Scalar {
                    ty, inout: false, ..
                } => args.push(self.stored(*ty, 2)),
                Param::Scalar { ty, .. } => {
                    let free: Vec<String> = self
                        .scope
                        .vars
                        .iter()
                        .filter(|v| v.mutable && v.ty == *ty && !taken.contains(&v.name))
                        .map(|v| v.name.clone())
                        .collect();
                    let name = if free.is_empty() || self.rng.below(3) == 0 {
                        let init = self.stored(*ty, 2);
                        let name = self.fresh_name("v");
                        before.push(Stmt::Decl {
                            name: name.clone(),
                            ty: *ty,
                            init,
                        });
                        self.scope.vars.push(Var {
                            name: name.clone(),
                            ty: *ty,
                            mutable: true,
                        });
                        name
                    } else {
                        free[self.rng.below(free.len() as u64) as usize].clone()
                    };
                    taken.push(name.clone());
                    args.push(Expr::name(*ty, &name));
                }
                Param::Array(a) => {
                    let inout = a.storage == Storage::Param { inout: true };
                    let found = self.array_like(a, !inout).filter(|n| !taken.contains(n));
                    let name = match found {
                        Some(n) => n,
                        None => {
                            let local = Array {
                                name: self.fresh_name("a"),
                                elem: a.elem,
                                dims: a.dims.clone(),
                                storage: Storage::Local,
                            };
                            let init = self.fill_value_of(&local);
                            before.push(Stmt::Fill {
                                arr: local.clone(),
                                declare: true,
                                init,
                            });
                            self.scope.arrays.push(local.clone());
                            self.arrays_made.push(local.clone());
                            local.name
                        }
                    };
                    taken.push(name.clone());
                    args.push(Expr::name(a.elem, &name));
                }
            }
        }
        let targets: Vec<String> = self
            .scope
            .vars
            .iter()
            .filter(|v| v.mutable && v.ty == f.ret && !taken.contains(&v.name))
            .map(|v| v.name.clone())
            .collect();
        let target = if targets.is_empty() || self.rng.below(3) == 0 {
            None
        } else {
            Some(targets[self.rng.below(targets.len() as u64) as usize].clone())
        };
        before.push(Stmt::Call {
            target,
            call: Expr::call(f.ret, &f.name, args),
        });
        before
    }
}
