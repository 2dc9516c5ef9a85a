//! The generator: from a seed (and what the device offers), one random
//! compute shader in the subset this project accepts, with its case.
//!
//! What keeps a program comparable between two compilers, by construction:
//! no data race (each invocation writes only its own output elements;
//! `shared` memory is written one element per invocation between barriers,
//! never passed `inout`); nothing read before it is written (every array is
//! filled right where it is declared); no undefined arithmetic (guarded
//! shifts and divisions, `%` of `uint` only, exact floats: `gen_expr.rs`);
//! subgroup operations and barriers only where control flow is uniform (the
//! top level of `main`); bounded loops. Indices are wrapped into their
//! array unless the program's class lets them run free.

use super::ast::{Expr, Kind, Op, Place, Size, Ty};
use super::program::{Access, Array, Binding, Bound, BufElem, Func, Param, Shader, Stmt, Storage};
use super::{Class, Features, Program};
use crate::Rng;

/// A variable in scope.
#[derive(Clone, Debug)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Whether it may be assigned (loop counters may not).
    pub mutable: bool,
}

/// What the code being generated can see.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Scalars.
    pub vars: Vec<Var>,
    /// Arrays (filled).
    pub arrays: Vec<Array>,
    /// Enclosing loops' counters and bounds.
    pub loops: Vec<(String, Bound)>,
}

/// The generator's state while it writes one program.
pub struct Gen {
    /// The program's stream.
    pub rng: Rng,
    /// What the device offers.
    pub features: Features,
    /// Whether every index must stay in range.
    pub in_range: bool,
    /// The shader so far.
    pub shader: Shader,
    /// Lengths other than literals: specialization and global constants.
    pub sizes: Vec<Size>,
    /// What is visible.
    pub scope: Scope,
    /// Control flow is uniform here (the top level of `main`).
    pub uniform: bool,
    /// Inside a function other than `main`.
    pub in_func: bool,
    /// Subscripts being generated inside subscripts.
    pub index_depth: u32,
    /// Whether `gl_SubgroupID` and `gl_SubgroupInvocationID` may be read:
    /// mostly not with two dimensions, where naga refuses them
    /// (fuzz/known.rs).
    pub subgroup_ids: bool,
    names: u32,
    budget: u32,
    /// Every array declared, for the lengths a bad specialization breaks.
    pub arrays_made: Vec<Array>,
    /// Invocations of the whole dispatch.
    total: u32,
}

/// Picks one of `xs`.
pub fn pick<T: Clone>(rng: &mut Rng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u64) as usize].clone()
}

/// One program of `seed` for a device that offers `features`.
pub fn generate(seed: u64, features: &Features) -> Program {
    let mut rng = Rng::new(seed);
    let class = match rng.below(100) {
        0..=5 => Class::BadSize,
        6..=35 => Class::MayIndexOutOfRange,
        _ => Class::InRange,
    };
    let mut modes = vec!["fp32", "fp16p"];
    if features.fp16_arithmetic {
        modes.push("fp16p+fp16a");
    }
    if features.fp16_storage {
        modes.push("fp16s");
        if features.fp16_arithmetic {
            modes.push("fp16s+fp16a");
        }
    }
    let mode = if rng.below(2) == 0 {
        "fp32"
    } else {
        pick(&mut rng, &modes)
    };
    let x = pick(&mut rng, &[1u32, 2, 3, 4, 8, 16, 32, 64]);
    // Two dimensions now and then: naga refuses the subgroup ids there
    // (fuzz/known.rs), which would hide the rest of the program.
    let y = if x <= 16 && rng.below(8) == 0 { 2 } else { 1 };
    let groups = 1 + rng.below(3) as u32;
    let mut g = Gen {
        rng,
        features: *features,
        in_range: class != Class::MayIndexOutOfRange,
        shader: Shader {
            subgroups: false,
            specs: Vec::new(),
            consts: Vec::new(),
            local_size: [x, y],
            local_size_id: false,
            bindings: Vec::new(),
            push: Vec::new(),
            globals: Vec::new(),
            funcs: Vec::new(),
            main: Vec::new(),
        },
        sizes: Vec::new(),
        scope: Scope::default(),
        uniform: false,
        in_func: false,
        index_depth: 0,
        subgroup_ids: true,
        names: 0,
        budget: 0,
        arrays_made: Vec::new(),
        total: x * y * groups,
    };
    g.shader.local_size_id = g.rng.below(5) == 0;
    g.subgroup_ids = y == 1 || g.rng.below(8) == 0;
    g.constants(class == Class::BadSize);
    g.bindings();
    g.push_constants();
    g.globals(class == Class::BadSize);
    for k in 0..g.rng.below(4) {
        g.function(k as usize);
    }
    g.main();
    let (specialization, bad_names) = g.spec_values(class);
    // No value broke a length (none depends on one): an ordinary program.
    let class = if class == Class::BadSize && bad_names.is_empty() {
        Class::InRange
    } else {
        class
    };
    let push_constants = g.push_bytes();
    Program {
        seed,
        mode: mode.to_string(),
        groups: [groups, 1, 1],
        local_size: g.shader.local_size_id.then_some([x, y, 1]),
        specialization,
        push_constants,
        class,
        bad_names,
        shader: g.shader,
    }
}

impl Gen {
    /// A name not used before in the program.
    pub fn fresh_name(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn bindings(&mut self) {
        let elems = [BufElem::Int, BufElem::Uint, BufElem::Sfp, BufElem::Sfpvec4];
        for k in 0..1 + self.rng.below(2) {
            let elem = pick(&mut self.rng, &elems);
            let n = if self.rng.below(3) == 0 {
                1 + self.rng.below(4)
            } else {
                1 + self.rng.below(64)
            };
            self.shader.bindings.push(Binding {
                name: format!("in{k}"),
                elem,
                access: Access::In,
                elems: n as u32,
                std430: self.rng.below(3) == 0,
            });
        }
        for k in 0..1 + self.rng.below(2) {
            let elem = pick(&mut self.rng, &elems);
            let per = 1 + self.rng.below(3) as u32;
            self.shader.bindings.push(Binding {
                name: format!("out{k}"),
                elem,
                access: Access::Out,
                elems: self.total * per,
                std430: self.rng.below(3) == 0,
            });
        }
    }

    fn push_constants(&mut self) {
        for k in 0..self.rng.below(4) {
            let ty = pick(&mut self.rng, &[Ty::Int, Ty::Uint]);
            self.shader.push.push((format!("n{k}"), ty));
        }
    }

    /// Lengths for a new array: a literal or a constant; two of them, one a
    /// literal, now and then (the compiler takes one specialized length
    /// among several).
    fn dims(&mut self, two: bool) -> Vec<Size> {
        let one = |g: &mut Gen| {
            if g.sizes.is_empty() || g.rng.below(2) == 0 {
                Size::lit(pick(&mut g.rng, &[1, 2, 3, 4, 5, 8, 16]))
            } else {
                pick(&mut g.rng, &g.sizes.clone())
            }
        };
        let first = one(self);
        if two && self.rng.below(3) == 0 {
            let lit = Size::lit(pick(&mut self.rng, &[2, 3, 4]));
            if self.rng.below(2) == 0 || !first.literal {
                vec![lit, first]
            } else {
                vec![first, lit]
            }
        } else {
            vec![first]
        }
    }

    fn globals(&mut self, bad_size: bool) {
        let elems = [Ty::Int, Ty::Uint, Ty::Float];
        for k in 0..self.rng.below(3) + u64::from(bad_size) {
            let mut dims = self.dims(true);
            if bad_size && k == 0 {
                dims[0] = pick(&mut self.rng, &self.sizes.clone());
            }
            let a = Array {
                name: format!("g{k}"),
                elem: pick(&mut self.rng, &elems),
                dims,
                storage: Storage::Private,
            };
            self.shader.globals.push(a);
        }
        for k in 0..self.rng.below(3) {
            let a = Array {
                name: format!("s{k}"),
                elem: pick(&mut self.rng, &elems),
                dims: self.dims(true),
                storage: Storage::Shared,
            };
            self.shader.globals.push(a);
        }
        self.arrays_made.extend(self.shader.globals.iter().cloned());
    }

    fn function(&mut self, k: usize) {
        let name = format!("f{k}");
        let ret = pick(&mut self.rng, &[Ty::Int, Ty::Uint, Ty::Float]);
        let mut params = Vec::new();
        let mut scope = Scope::default();
        for j in 0..1 + self.rng.below(3) {
            let pname = format!("{name}_p{j}");
            if self.rng.below(3) == 0 {
                let inout = self.rng.below(2) == 0;
                let a = Array {
                    name: pname,
                    elem: pick(&mut self.rng, &[Ty::Int, Ty::Uint, Ty::Float]),
                    dims: self.dims(false),
                    storage: Storage::Param { inout },
                };
                scope.arrays.push(a.clone());
                self.arrays_made.push(a.clone());
                params.push(Param::Array(a));
            } else {
                let ty = pick(&mut self.rng, &[Ty::Int, Ty::Uint, Ty::Float, Ty::Vec4]);
                let inout = ty != Ty::Vec4 && self.rng.below(4) == 0;
                scope.vars.push(Var {
                    name: pname.clone(),
                    ty,
                    mutable: true,
                });
                params.push(Param::Scalar {
                    name: pname,
                    ty,
                    inout,
                });
            }
        }
        self.scope = scope;
        self.in_func = true;
        self.uniform = false;
        self.budget = 2 + self.rng.below(5) as u32;
        let body = self.block(1);
        let value = self.stored(ret, 3);
        self.in_func = false;
        self.shader.funcs.push(Func {
            name,
            ret,
            params,
            body,
            value,
        });
    }

    fn main(&mut self) {
        self.scope = Scope::default();
        self.uniform = true;
        let mut body = Vec::new();
        // Private arrays first: functions and code read them from here on.
        for a in self.shader.globals.clone() {
            if a.storage == Storage::Private {
                let init = self.fill_value_of(&a);
                body.push(Stmt::Fill {
                    arr: a.clone(),
                    declare: false,
                    init,
                });
                self.scope.arrays.push(a);
            }
        }
        // Each input read once at the start, mostly: naga drops a binding
        // nothing reads (fuzz/known.rs), and a program that reads them all
        // keeps its outputs comparable.
        if self.rng.below(10) != 0 {
            let inputs: Vec<Binding> = self
                .shader
                .bindings
                .iter()
                .filter(|b| b.access == Access::In)
                .cloned()
                .collect();
            for b in inputs {
                let idx = self.index(&Size::lit(b.elems));
                let ty = b.elem.ty();
                let init = match b.elem {
                    BufElem::Int | BufElem::Uint => Expr {
                        ty,
                        kind: Kind::Load(Place::Elem(b.data(), vec![idx])),
                    },
                    BufElem::Sfp | BufElem::Sfpvec4 => Expr {
                        ty,
                        kind: Kind::BufLoad(b.data(), idx),
                    },
                };
                let name = self.fresh_name("v");
                self.scope.vars.push(Var {
                    name: name.clone(),
                    ty,
                    mutable: true,
                });
                body.push(Stmt::Decl { name, ty, init });
            }
        }
        let mut shared: Vec<Array> = self
            .shader
            .globals
            .iter()
            .filter(|a| a.storage == Storage::Shared)
            .cloned()
            .collect();
        self.budget = 8 + self.rng.below(20) as u32;
        while self.budget > 0 {
            if !shared.is_empty() && self.rng.below(4) == 0 {
                let a = shared.remove(0);
                body.push(self.shared_fill(a));
                continue;
            }
            if self.rng.below(20) == 0 {
                let f = pick(&mut self.rng, &["barrier", "memoryBarrierShared"]);
                body.push(Stmt::Barrier(f));
                continue;
            }
            let s = self.statement(0);
            body.extend(s);
        }
        for a in shared {
            body.push(self.shared_fill(a));
        }
        // Every output element this invocation owns, last.
        let outs: Vec<Binding> = self
            .shader
            .bindings
            .iter()
            .filter(|b| b.access == Access::Out)
            .cloned()
            .collect();
        for b in outs {
            let per = b.elems / self.total;
            for slot in 0..per {
                let value = self.stored(b.elem.ty(), 4);
                body.push(Stmt::Store {
                    data: b.data(),
                    elem: b.elem,
                    slot,
                    per,
                    value,
                });
            }
        }
        self.shader.main = body;
    }

    fn shared_fill(&mut self, a: Array) -> Stmt {
        let mut inner = self.scope.clone();
        inner.vars.push(Var {
            name: a.counter(0),
            ty: Ty::Int,
            mutable: false,
        });
        let outer = std::mem::replace(&mut self.scope, inner);
        let uniform = std::mem::replace(&mut self.uniform, false);
        let value = self.stored(a.elem, 2);
        self.uniform = uniform;
        self.scope = outer;
        self.scope.arrays.push(a.clone());
        Stmt::SharedFill { arr: a, value }
    }

    /// The value of each element of `a` in its fill loops (its counters in
    /// scope).
    pub fn fill_value_of(&mut self, a: &Array) -> Expr {
        let mut inner = self.scope.clone();
        for k in 0..a.dims.len() {
            inner.vars.push(Var {
                name: a.counter(k),
                ty: Ty::Int,
                mutable: false,
            });
        }
        let outer = std::mem::replace(&mut self.scope, inner);
        let uniform = std::mem::replace(&mut self.uniform, false);
        let v = self.stored(a.elem, 2);
        self.uniform = uniform;
        self.scope = outer;
        v
    }

    fn block(&mut self, depth: u32) -> Vec<Stmt> {
        let saved = (
            self.scope.vars.len(),
            self.scope.arrays.len(),
            self.scope.loops.len(),
        );
        let uniform = std::mem::replace(&mut self.uniform, false);
        let mut out = Vec::new();
        for _ in 0..1 + self.rng.below(4) {
            if self.budget == 0 {
                break;
            }
            out.extend(self.statement(depth));
            // Code after a `break` is dead; now and then it stays (naga
            // rejects some of it, fuzz/known.rs).
            let jumped = matches!(out.last(), Some(Stmt::Break | Stmt::Continue));
            if jumped && self.rng.below(8) != 0 {
                break;
            }
        }
        self.uniform = uniform;
        self.scope.vars.truncate(saved.0);
        self.scope.arrays.truncate(saved.1);
        self.scope.loops.truncate(saved.2);
        out
    }

    /// One statement (or a few: a call may need its arrays declared first).
    fn statement(&mut self, depth: u32) -> Vec<Stmt> {
        self.budget = self.budget.saturating_sub(1);
        let in_loop = !self.scope.loops.is_empty();
        match self.rng.below(22) {
            0..=4 => {
                let ty = pick(
                    &mut self.rng,
                    &[Ty::Int, Ty::Int, Ty::Uint, Ty::Float, Ty::Vec4, Ty::Bool],
                );
                let init = self.stored(ty, 3);
                let name = self.fresh_name("v");
                self.scope.vars.push(Var {
                    name: name.clone(),
                    ty,
                    mutable: true,
                });
                vec![Stmt::Decl { name, ty, init }]
            }
            5..=8 => self.assign_var().into_iter().collect(),
            9..=10 => {
                let elem = pick(&mut self.rng, &[Ty::Int, Ty::Uint, Ty::Float]);
                let a = Array {
                    name: self.fresh_name("a"),
                    elem,
                    dims: self.dims(true),
                    storage: Storage::Local,
                };
                let init = self.fill_value_of(&a);
                self.scope.arrays.push(a.clone());
                self.arrays_made.push(a.clone());
                vec![Stmt::Fill {
                    arr: a,
                    declare: true,
                    init,
                }]
            }
            11..=12 => self.assign_element().into_iter().collect(),
            13..=14 if depth < 3 => {
                let cond = self.boolean(2);
                let then = self.block(depth + 1);
                let els = if self.rng.below(2) == 0 {
                    self.block(depth + 1)
                } else {
                    Vec::new()
                };
                vec![Stmt::If { cond, then, els }]
            }
            15..=16 if depth < 3 => {
                let bound = match self.rng.below(3) {
                    0 => Bound::Lit(1 + self.rng.below(6) as u32),
                    1 if !self.sizes.is_empty() || !self.scope.arrays.is_empty() => {
                        let mut lens = self.sizes.clone();
                        lens.extend(self.scope.arrays.iter().flat_map(|a| a.dims.clone()));
                        Bound::Size(pick(&mut self.rng, &lens))
                    }
                    _ => {
                        let uniform = std::mem::replace(&mut self.uniform, false);
                        let e = self.expr(Ty::Int, 2);
                        self.uniform = uniform;
                        Bound::Dyn(e, 1 + self.rng.below(6) as u32)
                    }
                };
                let var = self.fresh_name("k");
                self.scope.loops.push((var.clone(), bound.clone()));
                self.scope.vars.push(Var {
                    name: var.clone(),
                    ty: Ty::Int,
                    mutable: false,
                });
                let body = self.block(depth + 1);
                self.scope.vars.retain(|v| v.name != var);
                self.scope.loops.pop();
                vec![Stmt::For { var, bound, body }]
            }
            17..=18 => self.call_statement(),
            19 if in_loop && depth > 0 => {
                vec![if self.rng.below(2) == 0 {
                    Stmt::Break
                } else {
                    Stmt::Continue
                }]
            }
            20 if !self.in_func => self.store().into_iter().collect(),
            _ => self.assign_var().into_iter().collect(),
        }
    }

    fn assign_var(&mut self) -> Option<Stmt> {
        let vars: Vec<Var> = self
            .scope
            .vars
            .iter()
            .filter(|v| v.mutable)
            .cloned()
            .collect();
        if vars.is_empty() {
            return None;
        }
        let v = pick(&mut self.rng, &vars);
        let op = self.compound(v.ty);
        let value = self.stored(v.ty, 3);
        Some(Stmt::Assign {
            place: Place::Var(v.name),
            op,
            value,
        })
    }

    /// `None` (`=`) or a compound operator for `ty` (integers only: a float
    /// compound could leave the stored range).
    fn compound(&mut self, ty: Ty) -> Option<Op> {
        if !matches!(ty, Ty::Int | Ty::Uint) || self.rng.below(2) == 0 {
            return None;
        }
        let mut ops = vec![Op::Add, Op::Sub, Op::Mul, Op::Xor, Op::Or, Op::Shl, Op::Div];
        if ty == Ty::Uint {
            ops.push(Op::Rem);
        }
        Some(pick(&mut self.rng, &ops))
    }

    fn assign_element(&mut self) -> Option<Stmt> {
        // `shared` arrays are written by their fills only; an `in` array
        // parameter is the function's own copy.
        let arrays: Vec<Array> = self
            .scope
            .arrays
            .iter()
            .filter(|a| a.storage != Storage::Shared)
            .cloned()
            .collect();
        if arrays.is_empty() {
            return None;
        }
        let a = pick(&mut self.rng, &arrays);
        let idx = a.dims.iter().map(|d| self.index(d)).collect();
        let op = self.compound(a.elem);
        let value = self.stored(a.elem, 3);
        Some(Stmt::Assign {
            place: Place::Elem(a.name, idx),
            op,
            value,
        })
    }

    /// A store of one of this invocation's output elements, here.
    fn store(&mut self) -> Option<Stmt> {
        let outs: Vec<Binding> = self
            .shader
            .bindings
            .iter()
            .filter(|b| b.access == Access::Out)
            .cloned()
            .collect();
        let b = pick(&mut self.rng, &outs);
        let per = b.elems / self.total;
        let slot = self.rng.below(u64::from(per)) as u32;
        let value = self.stored(b.elem.ty(), 3);
        Some(Stmt::Store {
            data: b.data(),
            elem: b.elem,
            slot,
            per,
            value,
        })
    }
}
