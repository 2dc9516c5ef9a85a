//! Random expressions of the generator, typed by construction.
//!
//! Floats stay exact so that outputs compare byte for byte: every float is
//! a multiple of a power of two with few significant bits, tracked as a
//! [`Mag`] (a bound on the magnitude and the bits after the point), and an
//! operation is only written where its result fits 11 significant bits
//! (fp16's), so no rounding, fused or not, can differ between two builds.

use super::ast::{Expr, Index, Kind, Op, Place, Size, Ty};
use super::gen::Gen;
use super::program::{Access, BufElem, Storage};

/// A float's magnitude: at most `bound`, a multiple of `2^-frac`.
#[derive(Clone, Copy, Debug)]
pub struct Mag {
    bound: f64,
    frac: u32,
}

impl Mag {
    /// What every stored float is (a [`Kind::Fit`]).
    pub const STORED: Mag = Mag {
        bound: 16.0,
        frac: 2,
    };

    /// Whether a value of this magnitude is exact in fp16 (and so in fp32).
    fn exact(self) -> bool {
        self.frac <= 8 && self.bound * f64::from(1u32 << self.frac) <= 1024.0
    }

    fn max(self, o: Mag) -> Mag {
        Mag {
            bound: self.bound.max(o.bound),
            frac: self.frac.max(o.frac),
        }
    }

    /// Whether it needs a [`Kind::Fit`] to be stored.
    pub fn beyond_stored(self) -> bool {
        self.bound > 16.0 || self.frac > 2
    }
}

/// Integer literals the generator likes: small ones and the edges.
const INT_EDGES: [i64; 8] = [0, 1, -1, 2, 31, 32, i32::MAX as i64, i32::MIN as i64];
const UINT_EDGES: [i64; 6] = [0, 1, 2, 31, 0x8000_0000, 0xffff_ffff];

impl Gen {
    /// An expression of type `ty`, at most `depth` operators deep.
    pub fn expr(&mut self, ty: Ty, depth: u32) -> Expr {
        match ty {
            Ty::Int | Ty::Uint => self.int(ty, depth),
            Ty::Float => self.float(depth).0,
            Ty::Vec4 => self.vec4(depth).0,
            Ty::Bool => self.boolean(depth),
        }
    }

    /// A value to store into a float place (a variable, an element, an
    /// output): brought to [`Mag::STORED`] where it may be beyond it.
    pub fn stored(&mut self, ty: Ty, depth: u32) -> Expr {
        match ty {
            Ty::Float | Ty::Vec4 => {
                let (e, m) = if ty == Ty::Float {
                    self.float(depth)
                } else {
                    self.vec4(depth)
                };
                if m.beyond_stored() {
                    fit(e)
                } else {
                    e
                }
            }
            _ => self.expr(ty, depth),
        }
    }

    fn int(&mut self, ty: Ty, depth: u32) -> Expr {
        if depth == 0 || self.rng.below(4) == 0 {
            return self.int_leaf(ty);
        }
        let d = depth - 1;
        match self.rng.below(20) {
            0..=7 => {
                let ops = [
                    Op::Add,
                    Op::Sub,
                    Op::Mul,
                    Op::And,
                    Op::Or,
                    Op::Xor,
                    Op::Shl,
                    Op::Shr,
                    Op::Div,
                    Op::Rem,
                ];
                let mut op = ops[self.rng.below(ops.len() as u64) as usize];
                if op == Op::Rem && ty == Ty::Int {
                    // Signed `%` of a negative operand is undefined in GLSL.
                    op = Op::Xor;
                }
                let (a, mut b) = (self.int(ty, d), self.int(ty, d));
                // Mostly not of two constants: naga refuses a constant
                // expression that overflows (fuzz/known.rs).
                if a.is_constant() && b.is_constant() && self.rng.below(10) != 0 {
                    b = self.builtin_value(ty);
                }
                Expr::bin(ty, op, a, b)
            }
            8 => {
                let op = if ty == Ty::Int && self.rng.below(2) == 0 {
                    "-"
                } else {
                    "~"
                };
                Expr {
                    ty,
                    kind: Kind::Unary(op, Box::new(self.int(ty, d))),
                }
            }
            9..=10 => self.int_builtin(ty, d),
            11 => {
                let from = [Ty::Int, Ty::Uint, Ty::Float, Ty::Bool][self.rng.below(4) as usize];
                let from = if from == ty { Ty::Float } else { from };
                let inner = self.expr(from, d);
                Expr::convert(ty, inner)
            }
            12 => self.select(ty, d),
            13..=14 => self.call_user(ty, d).unwrap_or_else(|| self.int_leaf(ty)),
            15..=16 if self.uniform && self.features.subgroups => self.subgroup_int(ty, d),
            _ => self.int_leaf(ty),
        }
    }

    fn int_leaf(&mut self, ty: Ty) -> Expr {
        for _ in 0..4 {
            let e = match self.rng.below(12) {
                0..=1 => Some(self.int_literal(ty)),
                2..=4 => self.var_of(ty),
                5..=6 => self.array_load(ty),
                7..=8 => self.buffer_load(ty),
                9 => self.push_member(ty),
                10 => self.constant(ty),
                _ => Some(self.builtin_value(ty)),
            };
            if let Some(e) = e {
                return e;
            }
        }
        self.int_literal(ty)
    }

    fn int_literal(&mut self, ty: Ty) -> Expr {
        let v = match (ty, self.rng.below(3)) {
            (Ty::Int, 0) => INT_EDGES[self.rng.below(INT_EDGES.len() as u64) as usize],
            (Ty::Uint, 0) => UINT_EDGES[self.rng.below(UINT_EDGES.len() as u64) as usize],
            (Ty::Int, _) => self.rng.below(40) as i64 - 8,
            _ => self.rng.below(40) as i64,
        };
        Expr::lit(ty, v as f64)
    }

    /// A built-in value: the invocation's index, the workgroup's, subgroup
    /// built-ins where the program uses subgroups.
    fn builtin_value(&mut self, ty: Ty) -> Expr {
        let mut names = vec!["lid", "gl_WorkGroupID.x", "gl_NumWorkGroups.x"];
        if !self.in_func {
            names.push("gid");
        } else {
            names.push("gl_LocalInvocationIndex");
        }
        if self.features.subgroups {
            names.push("gl_SubgroupSize");
            if self.subgroup_ids {
                names.push("gl_SubgroupInvocationID");
            }
            if !self.in_func {
                names.push("gl_NumSubgroups");
                if self.subgroup_ids {
                    names.push("gl_SubgroupID");
                }
            }
        }
        let n = names[self.rng.below(names.len() as u64) as usize];
        if n.starts_with("gl_Subgroup") || n.starts_with("gl_NumSubgroups") {
            self.shader.subgroups = true;
        }
        let n = if self.in_func && n == "lid" {
            "gl_LocalInvocationIndex"
        } else {
            n
        };
        let e = Expr::name(Ty::Uint, n);
        if ty == Ty::Int {
            Expr::convert(Ty::Int, e)
        } else {
            e
        }
    }

    fn int_builtin(&mut self, ty: Ty, d: u32) -> Expr {
        let x = self.int(ty, d);
        match self.rng.below(8) {
            0 | 1 => {
                let f = if self.rng.below(2) == 0 { "min" } else { "max" };
                let y = self.int(ty, d);
                Expr::call(ty, f, vec![x, y])
            }
            2 => {
                let lo = self.rng.below(10) as f64;
                let hi = lo + self.rng.below(40) as f64;
                Expr::call(ty, "clamp", vec![x, Expr::lit(ty, lo), Expr::lit(ty, hi)])
            }
            3 => {
                let off = self.rng.below(32);
                let bits = self.rng.below(33 - off);
                let (o, b) = (
                    Expr::lit(Ty::Int, off as f64),
                    Expr::lit(Ty::Int, bits as f64),
                );
                Expr::call(ty, "bitfieldExtract", vec![x, o, b])
            }
            4 => {
                let off = self.rng.below(32);
                let bits = self.rng.below(33 - off);
                let y = self.int(ty, d);
                let (o, b) = (
                    Expr::lit(Ty::Int, off as f64),
                    Expr::lit(Ty::Int, bits as f64),
                );
                Expr::call(ty, "bitfieldInsert", vec![x, y, o, b])
            }
            5 => Expr::call(ty, "bitfieldReverse", vec![x]),
            6 => {
                let f = if self.rng.below(2) == 0 {
                    "findLSB"
                } else {
                    "findMSB"
                };
                let e = Expr::call(Ty::Int, f, vec![x]);
                if ty == Ty::Uint {
                    Expr::convert(Ty::Uint, e)
                } else {
                    e
                }
            }
            _ if ty == Ty::Int => Expr::call(ty, "abs", vec![x]),
            _ => x,
        }
    }

    /// A subgroup operation on an integer (only where control flow is
    /// uniform: the top level of `main`).
    fn subgroup_int(&mut self, ty: Ty, d: u32) -> Expr {
        self.shader.subgroups = true;
        let x = self.int(ty, d);
        let ops = [
            "subgroupAdd",
            "subgroupMul",
            "subgroupMin",
            "subgroupMax",
            "subgroupAnd",
            "subgroupOr",
            "subgroupXor",
            "subgroupInclusiveAdd",
            "subgroupExclusiveAdd",
            "subgroupBroadcastFirst",
            "subgroupBroadcast",
            "subgroupBallot",
        ];
        match ops[self.rng.below(ops.len() as u64) as usize] {
            // Lane 0 is active in every subgroup, partial ones included.
            "subgroupBroadcast" => {
                Expr::call(ty, "subgroupBroadcast", vec![x, Expr::lit(Ty::Uint, 0.0)])
            }
            "subgroupBallot" => {
                let b = self.boolean(d);
                let comp = ["x", "y"][self.rng.below(2) as usize];
                let e = Expr {
                    ty: Ty::Uint,
                    kind: Kind::Swizzle(
                        Box::new(Expr::call(Ty::Uint, "subgroupBallot", vec![b])),
                        comp,
                    ),
                };
                if ty == Ty::Int {
                    Expr::convert(Ty::Int, e)
                } else {
                    e
                }
            }
            f => Expr::call(ty, f, vec![x]),
        }
    }

    fn select(&mut self, ty: Ty, d: u32) -> Expr {
        let c = self.boolean(d);
        // Only one side runs: no subgroup operation there.
        let uniform = std::mem::replace(&mut self.uniform, false);
        let (a, b) = (self.expr(ty, d), self.expr(ty, d));
        self.uniform = uniform;
        Expr {
            ty,
            kind: Kind::Select(Box::new(c), Box::new(a), Box::new(b)),
        }
    }

    /// A boolean: comparisons, logic, votes.
    pub fn boolean(&mut self, depth: u32) -> Expr {
        let d = depth.saturating_sub(1);
        match self.rng.below(10) {
            0 => Expr::lit(Ty::Bool, self.rng.below(2) as f64),
            1..=5 => {
                let t = [Ty::Int, Ty::Uint, Ty::Float][self.rng.below(3) as usize];
                let ops = [Op::Lt, Op::Le, Op::Eq, Op::Ne];
                let op = ops[self.rng.below(4) as usize];
                let (a, b) = (self.expr(t, d), self.expr(t, d));
                Expr::bin(Ty::Bool, op, a, b)
            }
            6..=7 if depth > 0 => {
                let op = [Op::LAnd, Op::LOr, Op::LXor][self.rng.below(3) as usize];
                let a = self.boolean(d);
                // `&&` and `||` run their right side under a condition.
                let keep = self.uniform && op == Op::LXor;
                let uniform = std::mem::replace(&mut self.uniform, keep);
                let b = self.boolean(d);
                self.uniform = uniform;
                // Of two constants, glslang 12 writes `&&` and `||` as
                // invalid SPIR-V (a phi a constant reads): `^^` instead.
                let op = if a.is_constant() && b.is_constant() {
                    Op::LXor
                } else {
                    op
                };
                Expr::bin(Ty::Bool, op, a, b)
            }
            8 if depth > 0 => Expr {
                ty: Ty::Bool,
                kind: Kind::Unary("!", Box::new(self.boolean(d))),
            },
            9 if self.uniform && self.features.subgroups => {
                self.shader.subgroups = true;
                let f = if self.rng.below(2) == 0 {
                    "subgroupAll"
                } else {
                    "subgroupAny"
                };
                let b = self.boolean(d);
                Expr::call(Ty::Bool, f, vec![b])
            }
            _ => self
                .var_of(Ty::Bool)
                .unwrap_or_else(|| Expr::lit(Ty::Bool, 1.0)),
        }
    }

    /// An exact float and its magnitude.
    pub fn float(&mut self, depth: u32) -> (Expr, Mag) {
        if depth == 0 || self.rng.below(4) == 0 {
            return self.float_leaf();
        }
        let d = depth - 1;
        let (e, m) = match self.rng.below(12) {
            0..=5 => {
                let op = [Op::Add, Op::Sub, Op::Mul][self.rng.below(3) as usize];
                let (a, b) = (self.float(d), self.float(d));
                combine(Ty::Float, op, a, b)
            }
            6 => {
                let (a, m) = self.float(d);
                let half = Expr::lit(Ty::Float, 0.5);
                let m2 = Mag {
                    bound: m.bound / 2.0,
                    frac: m.frac + 1,
                };
                (Expr::bin(Ty::Float, Op::Mul, a, half), m2)
            }
            7 => {
                let (a, m) = self.float(d);
                let f = ["abs", "floor", "-"][self.rng.below(3) as usize];
                match f {
                    "-" => (
                        Expr {
                            ty: Ty::Float,
                            kind: Kind::Unary("-", Box::new(a)),
                        },
                        m,
                    ),
                    "floor" => (
                        Expr::call(Ty::Float, f, vec![a]),
                        Mag {
                            bound: m.bound.ceil(),
                            frac: 0,
                        },
                    ),
                    _ => (Expr::call(Ty::Float, f, vec![a]), m),
                }
            }
            8 => {
                let f = if self.rng.below(2) == 0 { "min" } else { "max" };
                let ((a, ma), (b, mb)) = (self.float(d), self.float(d));
                (Expr::call(Ty::Float, f, vec![a, b]), ma.max(mb))
            }
            9 => {
                let (c, a, b) = {
                    let c = self.boolean(d);
                    let uniform = std::mem::replace(&mut self.uniform, false);
                    let (a, b) = (self.float(d), self.float(d));
                    self.uniform = uniform;
                    (c, a, b)
                };
                let m = a.1.max(b.1);
                let e = Expr {
                    ty: Ty::Float,
                    kind: Kind::Select(Box::new(c), Box::new(a.0), Box::new(b.0)),
                };
                (e, m)
            }
            10 => match self.call_user(Ty::Float, d) {
                Some(e) => (e, Mag::STORED),
                None => self.float_leaf(),
            },
            _ => {
                let (v, m) = self.vec4(d);
                if self.rng.below(2) == 0 {
                    let c = ["x", "y", "z", "w"][self.rng.below(4) as usize];
                    let e = Expr {
                        ty: Ty::Float,
                        kind: Kind::Swizzle(Box::new(v), c),
                    };
                    (e, m)
                } else {
                    let i = self.int(Ty::Int, d);
                    let e = Expr {
                        ty: Ty::Float,
                        kind: Kind::Component(Box::new(v), Box::new(i)),
                    };
                    (e, m)
                }
            }
        };
        if m.exact() {
            (e, m)
        } else {
            (fit(e), Mag::STORED)
        }
    }

    fn float_leaf(&mut self) -> (Expr, Mag) {
        for _ in 0..4 {
            let got = match self.rng.below(8) {
                0..=1 => {
                    let v = (self.rng.below(33) as f64 - 16.0) / 4.0;
                    return (Expr::lit(Ty::Float, v), Mag::STORED);
                }
                2..=3 => self.var_of(Ty::Float).map(|e| (e, Mag::STORED)),
                4 => self.array_load(Ty::Float).map(|e| (e, Mag::STORED)),
                5..=6 => self.buffer_load(Ty::Float).map(|e| {
                    let m = Mag {
                        bound: 8.0,
                        frac: 1,
                    };
                    (e, m)
                }),
                _ => {
                    let t = if self.rng.below(2) == 0 {
                        Ty::Int
                    } else {
                        Ty::Uint
                    };
                    let i = self.int(t, 1);
                    let m = Mag {
                        bound: 15.0,
                        frac: 0,
                    };
                    Some((Expr::convert(Ty::Float, i), m))
                }
            };
            if let Some(got) = got {
                return got;
            }
        }
        (Expr::lit(Ty::Float, 1.5), Mag::STORED)
    }

    /// An exact `afpvec4` and the magnitude of its components.
    pub fn vec4(&mut self, depth: u32) -> (Expr, Mag) {
        if depth == 0 || self.rng.below(3) == 0 {
            return self.vec4_leaf(depth);
        }
        let d = depth - 1;
        let (e, m) = match self.rng.below(6) {
            0..=2 => {
                let op = [Op::Add, Op::Sub, Op::Mul][self.rng.below(3) as usize];
                let a = self.vec4(d);
                let b = if op == Op::Mul && self.rng.below(2) == 0 {
                    self.float(d)
                } else {
                    self.vec4(d)
                };
                combine(Ty::Vec4, op, a, b)
            }
            3 => {
                let f = ["abs", "floor", "min", "max"][self.rng.below(4) as usize];
                let (a, m) = self.vec4(d);
                match f {
                    "min" | "max" => {
                        let (b, mb) = self.vec4(d);
                        (Expr::call(Ty::Vec4, f, vec![a, b]), m.max(mb))
                    }
                    "floor" => (
                        Expr::call(Ty::Vec4, f, vec![a]),
                        Mag {
                            bound: m.bound.ceil(),
                            frac: 0,
                        },
                    ),
                    _ => (Expr::call(Ty::Vec4, f, vec![a]), m),
                }
            }
            _ => self.vec4_leaf(d),
        };
        if m.exact() {
            (e, m)
        } else {
            (fit(e), Mag::STORED)
        }
    }

    fn vec4_leaf(&mut self, depth: u32) -> (Expr, Mag) {
        let d = depth.saturating_sub(1);
        match self.rng.below(5) {
            0 => {
                let (f, m) = self.float(d);
                (Expr::call(Ty::Vec4, "afpvec4", vec![f]), m)
            }
            1 => {
                let mut m = Mag {
                    bound: 0.0,
                    frac: 0,
                };
                let parts = (0..4)
                    .map(|_| {
                        let (f, mf) = self.float(d.min(1));
                        m = m.max(mf);
                        f
                    })
                    .collect();
                (Expr::call(Ty::Vec4, "afpvec4", parts), m)
            }
            2 => match self.var_of(Ty::Vec4) {
                Some(e) => (e, Mag::STORED),
                None => self.vec4_leaf(0),
            },
            _ => match self.buffer_load(Ty::Vec4) {
                Some(e) => (
                    e,
                    Mag {
                        bound: 8.0,
                        frac: 1,
                    },
                ),
                None => (Expr::lit(Ty::Vec4, 0.5), Mag::STORED),
            },
        }
    }

    /// A variable of type `ty` in scope.
    fn var_of(&mut self, ty: Ty) -> Option<Expr> {
        let vars: Vec<String> = self
            .scope
            .vars
            .iter()
            .filter(|v| v.ty == ty)
            .map(|v| v.name.clone())
            .collect();
        if vars.is_empty() {
            return None;
        }
        let n = &vars[self.rng.below(vars.len() as u64) as usize];
        Some(Expr::name(ty, n))
    }

    fn push_member(&mut self, ty: Ty) -> Option<Expr> {
        let members: Vec<String> = self
            .shader
            .push
            .iter()
            .filter(|(n, t)| *t == ty && !n.starts_with('w'))
            .map(|(n, _)| n.clone())
            .collect();
        if ty == Ty::Int && self.rng.below(2) == 0 {
            if let Some(w) = self.shader.specs.iter().find(|s| s.psc) {
                return Some(Expr::name(Ty::Int, &format!("psc({})", w.name)));
            }
        }
        if members.is_empty() {
            return None;
        }
        let n = &members[self.rng.below(members.len() as u64) as usize];
        Some(Expr::name(ty, &format!("p.{n}")))
    }

    /// A specialization constant or a global constant as a value.
    fn constant(&mut self, ty: Ty) -> Option<Expr> {
        if self.sizes.is_empty() {
            return None;
        }
        let s = self.sizes[self.rng.below(self.sizes.len() as u64) as usize].clone();
        let e = Expr {
            ty: if s.uint { Ty::Uint } else { Ty::Int },
            kind: Kind::Const(s.text),
        };
        Some(if e.ty == ty { e } else { Expr::convert(ty, e) })
    }

    /// A subscript into a length `len`: wrapped, raw (where the program may
    /// index out of range), or a loop counter known to be below it.
    pub fn index(&mut self, len: &Size) -> Index {
        let counters: Vec<String> = self
            .scope
            .loops
            .iter()
            .filter(|(_, b)| below(b, len))
            .map(|(n, _)| n.clone())
            .collect();
        if !counters.is_empty() && self.rng.below(3) == 0 {
            let k = &counters[self.rng.below(counters.len() as u64) as usize];
            return Index::Known(Box::new(Expr::name(Ty::Int, k)));
        }
        if !self.in_range && self.rng.below(2) == 0 {
            let mut e = self.int(Ty::Int, 1);
            if e.is_constant() {
                // glslang refuses a constant index out of range.
                let v = self.builtin_value(Ty::Int);
                e = Expr::bin(Ty::Int, Op::Xor, e, v);
            }
            return Index::Raw(Box::new(e));
        }
        let t = if self.rng.below(2) == 0 {
            Ty::Int
        } else {
            Ty::Uint
        };
        Index::Wrap(Box::new(self.int(t, 1)), len.clone())
    }

    /// A load of an element of an array in scope with elements of `ty`.
    fn array_load(&mut self, ty: Ty) -> Option<Expr> {
        let arrays: Vec<usize> = (0..self.scope.arrays.len())
            .filter(|&k| self.scope.arrays[k].elem == ty)
            .collect();
        if arrays.is_empty() || self.index_depth > 1 {
            return None;
        }
        let a = self.scope.arrays[arrays[self.rng.below(arrays.len() as u64) as usize]].clone();
        self.index_depth += 1;
        let idx: Vec<Index> = a.dims.iter().map(|d| self.index(d)).collect();
        self.index_depth -= 1;
        let load = Expr {
            ty,
            kind: Kind::Load(Place::Elem(a.name.clone(), idx)),
        };
        Some(if a.storage == Storage::Shared && ty == Ty::Float {
            Expr::call(Ty::Float, "lfp2afp", vec![load])
        } else {
            load
        })
    }

    /// A read of an input binding holding `ty`.
    fn buffer_load(&mut self, ty: Ty) -> Option<Expr> {
        let inputs: Vec<(String, u32, BufElem)> = self
            .shader
            .bindings
            .iter()
            .filter(|b| b.access == Access::In && b.elem.ty() == ty)
            .map(|b| (b.data(), b.elems, b.elem))
            .collect();
        if inputs.is_empty() || self.index_depth > 1 {
            return None;
        }
        let (data, n, elem) = inputs[self.rng.below(inputs.len() as u64) as usize].clone();
        self.index_depth += 1;
        let i = self.index(&Size::lit(n));
        self.index_depth -= 1;
        Some(match elem {
            BufElem::Int | BufElem::Uint => Expr {
                ty,
                kind: Kind::Load(Place::Elem(data, vec![i])),
            },
            BufElem::Sfp | BufElem::Sfpvec4 => Expr {
                ty,
                kind: Kind::BufLoad(data, i),
            },
        })
    }
}

/// Whether a loop of bound `b` keeps its counter below `len`.
fn below(b: &super::program::Bound, len: &Size) -> bool {
    use super::program::Bound;
    match b {
        Bound::Size(s) => s == len,
        Bound::Lit(n) => len.literal && len.text.parse::<u32>().is_ok_and(|l| *n <= l),
        Bound::Dyn(_, max) => len.literal && len.text.parse::<u32>().is_ok_and(|l| *max < l),
    }
}

/// `e` brought to [`Mag::STORED`].
pub fn fit(e: Expr) -> Expr {
    Expr {
        ty: e.ty,
        kind: Kind::Fit(Box::new(e)),
    }
}

/// `a op b` where exact; else the same of both operands fitted, else `a`
/// fitted.
fn combine(ty: Ty, op: Op, (a, ma): (Expr, Mag), (b, mb): (Expr, Mag)) -> (Expr, Mag) {
    let m = |x: Mag, y: Mag| match op {
        Op::Mul => Mag {
            bound: x.bound * y.bound,
            frac: x.frac + y.frac,
        },
        _ => Mag {
            bound: x.bound + y.bound,
            frac: x.frac.max(y.frac),
        },
    };
    if m(ma, mb).exact() {
        return (Expr::bin(ty, op, a, b), m(ma, mb));
    }
    let s = Mag::STORED;
    if m(s, s).exact() {
        let (fa, fb) = (fit_as(a, ma), fit_as(b, mb));
        return (Expr::bin(ty, op, fa, fb), m(s, s));
    }
    (fit_as(a, ma), s)
}

/// `e` fitted where it is beyond [`Mag::STORED`].
fn fit_as(e: Expr, m: Mag) -> Expr {
    if m.beyond_stored() {
        fit(e)
    } else {
        e
    }
}
