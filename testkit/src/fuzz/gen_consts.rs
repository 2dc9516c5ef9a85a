//! The generator's constants: specialization constants, global constants
//! derived from them (the expressions array lengths take), and their values
//! at the defaults and at a pipeline's specialization.

use ncnn_glsl_runtime::SpecValue;

use super::ast::{Size, Ty};
use super::gen::{pick, Gen};
use super::program::{CExpr, Const, Spec};

impl Gen {
    /// Specialization constants and global constants derived from them;
    /// the ones with a length between 1 and 64 at their defaults become
    /// [`Gen::sizes`].
    pub fn constants(&mut self, need_one: bool) {
        let n = self.rng.below(4) + u64::from(need_one);
        for id in 0..n {
            let uint = self.rng.below(2) == 0;
            let default = 1 + self.rng.below(6) as i64;
            let name = format!("S{id}");
            self.shader.specs.push(Spec {
                id: id as u32,
                name: name.clone(),
                uint,
                default,
                psc: false,
            });
            self.sizes.push(Size {
                text: name,
                uint,
                literal: false,
            });
        }
        if self.rng.below(3) == 0 {
            self.shader.specs.push(Spec {
                id: n as u32,
                name: "w0".into(),
                uint: false,
                default: 0,
                psc: true,
            });
            self.shader.push.push(("w0".into(), Ty::Int));
        }
        for k in 0..self.rng.below(4) {
            let uint = self.rng.below(2) == 0;
            let mut expr = self.cexpr(uint, 2);
            // naga refuses `?:` in a constant of no specialization constant
            // (fuzz/known.rs): mostly such constants are drawn again.
            for _ in 0..4 {
                if !self.has_select(&expr) || self.reads_spec(&expr) || self.rng.below(8) == 0 {
                    break;
                }
                expr = self.cexpr(uint, 2);
            }
            let name = format!("C{k}");
            let c = Const {
                name: name.clone(),
                uint,
                expr,
            };
            let v = c.expr.eval(uint, &|n| self.default_of(n));
            self.shader.consts.push(c);
            if v.is_some_and(|v| (1..=64).contains(&v)) {
                self.sizes.push(Size {
                    text: name,
                    uint,
                    literal: false,
                });
            }
        }
    }

    fn has_select(&self, e: &CExpr) -> bool {
        match e {
            CExpr::Lit(_) | CExpr::Name(_) => false,
            CExpr::Select(..) => true,
            CExpr::Bin(_, a, b) => self.has_select(a) || self.has_select(b),
            CExpr::Cast(_, a) => self.has_select(a),
        }
    }

    /// Whether `e` reads a specialization constant, directly or through a
    /// global constant.
    fn reads_spec(&self, e: &CExpr) -> bool {
        let mut names = Vec::new();
        e.names(&mut names);
        names.iter().any(|n| {
            self.shader.specs.iter().any(|s| &s.name == n)
                || self
                    .shader
                    .consts
                    .iter()
                    .any(|c| &c.name == n && self.reads_spec(&c.expr))
        })
    }

    /// The value of a constant at the declared defaults.
    fn default_of(&self, name: &str) -> Option<i64> {
        self.value_of(name, &[])
    }

    /// The value of a constant with specialization values `spec`.
    pub fn value_of(&self, name: &str, spec: &[(u32, SpecValue)]) -> Option<i64> {
        if let Some(s) = self.shader.specs.iter().find(|s| s.name == name) {
            return Some(match spec.iter().find(|(id, _)| *id == s.id) {
                Some((_, SpecValue::Int(v))) => i64::from(*v),
                Some((_, SpecValue::Uint(v))) => i64::from(*v),
                _ => s.default,
            });
        }
        let c = self.shader.consts.iter().find(|c| c.name == name)?;
        c.expr.eval(c.uint, &|n| self.value_of(n, spec))
    }

    fn cexpr(&mut self, uint: bool, depth: u32) -> CExpr {
        let names: Vec<(String, bool)> = self
            .shader
            .specs
            .iter()
            .filter(|s| !s.psc)
            .map(|s| (s.name.clone(), s.uint))
            .chain(self.shader.consts.iter().map(|c| (c.name.clone(), c.uint)))
            .collect();
        if depth == 0 || self.rng.below(4) == 0 {
            if names.is_empty() || self.rng.below(4) == 0 {
                return CExpr::Lit(1 + self.rng.below(8) as i64);
            }
            let (n, u) = pick(&mut self.rng, &names);
            let e = CExpr::Name(n);
            return if u == uint {
                e
            } else {
                CExpr::Cast(uint, Box::new(e))
            };
        }
        let d = depth - 1;
        // `?:` mostly where it reads a specialization constant: naga
        // refuses it in a constant of literals alone (fuzz/known.rs).
        let select = !names.is_empty() && self.rng.below(6) == 0 || self.rng.below(30) == 0;
        match self.rng.below(5) {
            _ if select => {
                let e = [
                    self.cexpr(uint, d),
                    self.cexpr(uint, d),
                    self.cexpr(uint, d),
                    self.cexpr(uint, d),
                ];
                CExpr::Select(pick(&mut self.rng, &["<", ">", "=="]), Box::new(e))
            }
            0 => {
                let shift = CExpr::Lit(self.rng.below(3) as i64);
                CExpr::Bin(
                    pick(&mut self.rng, &["<<", ">>"]),
                    Box::new(self.cexpr(uint, d)),
                    Box::new(shift),
                )
            }
            _ => {
                // `%` of a negative `int` is undefined in GLSL.
                let ops: &[&'static str] = if uint {
                    &["+", "-", "*", "/", "%", "&", "|", "^"]
                } else {
                    &["+", "-", "*", "/", "&", "|", "^"]
                };
                let op = pick(&mut self.rng, ops);
                let a = self.cexpr(uint, d);
                let b = if op == "/" || op == "%" {
                    CExpr::Lit(1 + self.rng.below(4) as i64)
                } else {
                    self.cexpr(uint, d)
                };
                CExpr::Bin(op, Box::new(a), Box::new(b))
            }
        }
    }
}
