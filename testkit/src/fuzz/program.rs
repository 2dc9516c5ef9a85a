//! A whole generated shader (globals, functions, `main`) as data, its
//! statements, the global constant expressions that size arrays, and the
//! printer that writes it as one `.comp` file with the extension.

use std::fmt::Write;

use super::ast::{Expr, Op, Place, Size, Ty};

/// Where an array lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// A local of a function.
    Local,
    /// A global of the invocation (`int g[4];`).
    Private,
    /// `shared`: written only by [`Stmt::SharedFill`], one element per
    /// invocation, between barriers.
    Shared,
    /// A function parameter (`in` or `inout`).
    Param {
        /// `inout`.
        inout: bool,
    },
}

/// An array: its name, element type (`Int`, `Uint` or `Float`) and
/// lengths, outermost first.
#[derive(Clone, Debug)]
pub struct Array {
    /// Its name.
    pub name: String,
    /// Its element type (`Float` in `shared` memory is `lfp`).
    pub elem: Ty,
    /// Its lengths, outermost first.
    pub dims: Vec<Size>,
    /// Where it lives.
    pub storage: Storage,
}

impl Array {
    /// `int a[4][M]`, `shared lfp s[8]`, `inout uint p[N]`.
    pub fn declaration(&self) -> String {
        let (prefix, elem) = match (self.storage, self.elem) {
            (Storage::Shared, Ty::Float) => ("shared ", "lfp"),
            (Storage::Shared, t) => ("shared ", t.glsl()),
            (Storage::Param { inout: true }, t) => ("inout ", t.glsl()),
            (_, t) => ("", t.glsl()),
        };
        let dims: String = self.dims.iter().map(|d| format!("[{}]", d.text)).collect();
        format!("{prefix}{elem} {}{dims}", self.name)
    }

    /// The counter of dimension `k` in its fill loops.
    pub fn counter(&self, k: usize) -> String {
        format!("{}_i{k}", self.name)
    }
}

/// How many times a `for` loop runs.
#[derive(Clone, Debug)]
pub enum Bound {
    /// A literal count.
    Lit(u32),
    /// An array length.
    Size(Size),
    /// `uint(e) % (max + 1)`: computed, at most `max`.
    Dyn(Expr, u32),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `T name = init;`
    Decl {
        /// The variable.
        name: String,
        /// Its type.
        ty: Ty,
        /// Its value.
        init: Expr,
    },
    /// Every element of an array set by loops, `init` reading the
    /// counters ([`Array::counter`]); with `declare`, a local declared first.
    Fill {
        /// The array.
        arr: Array,
        /// Declare it here (a local).
        declare: bool,
        /// The value of each element.
        init: Expr,
    },
    /// `place = value;` or `place op= value;`.
    Assign {
        /// Where.
        place: Place,
        /// The compound operator, if any.
        op: Option<Op>,
        /// What.
        value: Expr,
    },
    /// `if (cond) { .. } else { .. }`.
    If {
        /// The condition.
        cond: Expr,
        /// The `then` branch.
        then: Vec<Stmt>,
        /// The `else` branch (none when empty).
        els: Vec<Stmt>,
    },
    /// `for (int var = 0; var < bound; var++) { .. }`.
    For {
        /// The counter.
        var: String,
        /// The count.
        bound: Bound,
        /// The body.
        body: Vec<Stmt>,
    },
    /// A block of its own (what the minimizer leaves of a loop).
    Block(Vec<Stmt>),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// A call for its `inout` effects: `target = f(..);` or `f(..);`.
    Call {
        /// Where the value goes.
        target: Option<String>,
        /// The call.
        call: Expr,
    },
    /// `barrier();`, then each element of a `shared` array set by the one
    /// invocation whose index (in row-major order) it is modulo the
    /// workgroup, then `barrier();`. `value` reads the counter
    /// ([`Array::counter`] 0).
    SharedFill {
        /// The array (one or two dimensions).
        arr: Array,
        /// The value of each element.
        value: Expr,
    },
    /// A barrier call on its own (`barrier`, `memoryBarrierShared`, ...).
    Barrier(&'static str),
    /// This invocation's element `slot` (of `per`) of an output binding.
    Store {
        /// The binding's data array.
        data: String,
        /// How the binding stores (its element type).
        elem: BufElem,
        /// Which of this invocation's elements.
        slot: u32,
        /// Elements per invocation.
        per: u32,
        /// The value.
        value: Expr,
    },
}

/// The element type of a buffer binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufElem {
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `sfp`, through `buffer_ld1`/`buffer_st1`.
    Sfp,
    /// `sfpvec4`, through `buffer_ld4`/`buffer_st4`.
    Sfpvec4,
}

impl BufElem {
    /// Its GLSL type.
    pub fn glsl(self) -> &'static str {
        match self {
            BufElem::Int => "int",
            BufElem::Uint => "uint",
            BufElem::Sfp => "sfp",
            BufElem::Sfpvec4 => "sfpvec4",
        }
    }

    /// The arithmetic type of its values.
    pub fn ty(self) -> Ty {
        match self {
            BufElem::Int => Ty::Int,
            BufElem::Uint => Ty::Uint,
            BufElem::Sfp => Ty::Float,
            BufElem::Sfpvec4 => Ty::Vec4,
        }
    }

    /// Bytes per element, in a mode with 16-bit floats in storage or not.
    pub fn bytes(self, fp16: bool) -> u64 {
        match (self, fp16) {
            (BufElem::Int | BufElem::Uint, _) => 4,
            (BufElem::Sfp, false) => 4,
            (BufElem::Sfp, true) => 2,
            (BufElem::Sfpvec4, false) => 16,
            (BufElem::Sfpvec4, true) => 8,
        }
    }
}

/// How a binding is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `readonly`, read anywhere.
    In,
    /// `writeonly`, each invocation writes its own elements.
    Out,
}

/// A storage buffer binding.
#[derive(Clone, Debug)]
pub struct Binding {
    /// The block's name; its array is `{name}_data`.
    pub name: String,
    /// The element type.
    pub elem: BufElem,
    /// Read or written.
    pub access: Access,
    /// Elements.
    pub elems: u32,
    /// Whether `std430` is written (the default for buffers either way).
    pub std430: bool,
}

impl Binding {
    /// The name of its array.
    pub fn data(&self) -> String {
        format!("{}_data", self.name)
    }
}

/// A specialization constant.
#[derive(Clone, Debug)]
pub struct Spec {
    /// `constant_id`.
    pub id: u32,
    /// Its name.
    pub name: String,
    /// `uint` (else `int`).
    pub uint: bool,
    /// The declared value.
    pub default: i64,
    /// Read through `psc()`: declared 0, with a push-constant member of
    /// the same name.
    pub psc: bool,
}

/// An integer expression of global constants, as a `const` initializer or
/// an array length takes it.
#[derive(Clone, Debug)]
pub enum CExpr {
    /// A literal.
    Lit(i64),
    /// A specialization constant or a global constant of the same type.
    Name(String),
    /// `(a op b)`: `+ - * / % << >> & | ^`.
    Bin(&'static str, Box<CExpr>, Box<CExpr>),
    /// `(a < b ? x : y)` (the comparison's token given).
    Select(&'static str, Box<[CExpr; 4]>),
    /// `uint(e)` (to `uint`) or `int(e)`.
    Cast(bool, Box<CExpr>),
}

impl CExpr {
    /// The expression as GLSL, in a constant of type `uint` or `int`.
    pub fn text(&self, uint: bool) -> String {
        match self {
            CExpr::Lit(v) if uint => format!("{v}u"),
            CExpr::Lit(v) => v.to_string(),
            CExpr::Name(n) => n.clone(),
            CExpr::Bin(op, a, b) => format!("({} {op} {})", a.text(uint), b.text(uint)),
            CExpr::Select(cmp, e) => format!(
                "({} {cmp} {} ? {} : {})",
                e[0].text(uint),
                e[1].text(uint),
                e[2].text(uint),
                e[3].text(uint)
            ),
            CExpr::Cast(to_uint, e) => {
                let t = if *to_uint { "uint" } else { "int" };
                format!("{t}({})", e.text(!to_uint))
            }
        }
    }

    /// Its value as a constant of type `uint` or `int` (as 32-bit GLSL
    /// computes it), with `env` giving each name's; `None` where it divides
    /// by zero or shifts past 31.
    pub fn eval(&self, uint: bool, env: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        let wrap = |v: i64| {
            if uint {
                i64::from(v as u32)
            } else {
                i64::from(v as i32)
            }
        };
        Some(match self {
            CExpr::Lit(v) => wrap(*v),
            CExpr::Name(n) => env(n)?,
            CExpr::Cast(to_uint, e) => {
                let v = e.eval(!to_uint, env)?;
                wrap(v)
            }
            CExpr::Bin(op, a, b) => {
                let (a, b) = (a.eval(uint, env)?, b.eval(uint, env)?);
                wrap(match *op {
                    "+" => a + b,
                    "-" => a - b,
                    "*" => a.wrapping_mul(b),
                    "/" if b == 0 => return None,
                    "/" => a / b,
                    "%" if b == 0 => return None,
                    "%" => a % b,
                    "<<" | ">>" if !(0..32).contains(&b) => return None,
                    "<<" => a << b,
                    ">>" => a >> b,
                    "&" => a & b,
                    "|" => a | b,
                    "^" => a ^ b,
                    other => unreachable!("operator {other}"),
                })
            }
            CExpr::Select(cmp, e) => {
                let (a, b) = (e[0].eval(uint, env)?, e[1].eval(uint, env)?);
                let yes = match *cmp {
                    "<" => a < b,
                    ">" => a > b,
                    "==" => a == b,
                    other => unreachable!("comparison {other}"),
                };
                if yes {
                    e[2].eval(uint, env)?
                } else {
                    e[3].eval(uint, env)?
                }
            }
        })
    }

    /// The names it reads.
    pub fn names(&self, out: &mut Vec<String>) {
        match self {
            CExpr::Lit(_) => {}
            CExpr::Name(n) => out.push(n.clone()),
            CExpr::Bin(_, a, b) => {
                a.names(out);
                b.names(out);
            }
            CExpr::Select(_, e) => e.iter().for_each(|x| x.names(out)),
            CExpr::Cast(_, e) => e.names(out),
        }
    }
}

/// A global `const` of integer type.
#[derive(Clone, Debug)]
pub struct Const {
    /// Its name.
    pub name: String,
    /// `uint` (else `int`).
    pub uint: bool,
    /// Its initializer.
    pub expr: CExpr,
}

/// A parameter of a function.
#[derive(Clone, Debug)]
pub enum Param {
    /// A scalar.
    Scalar {
        /// Its name.
        name: String,
        /// Its type.
        ty: Ty,
        /// `inout`.
        inout: bool,
    },
    /// An array (one dimension; `storage` says `in` or `inout`).
    Array(Array),
}

/// A function of the program (called by `main` or a later function).
#[derive(Clone, Debug)]
pub struct Func {
    /// Its name.
    pub name: String,
    /// What it returns.
    pub ret: Ty,
    /// Its parameters.
    pub params: Vec<Param>,
    /// Its statements.
    pub body: Vec<Stmt>,
    /// What it returns, after them.
    pub value: Expr,
}

/// A whole shader.
#[derive(Clone, Debug)]
pub struct Shader {
    /// Whether it uses subgroup operations (their `#extension`s).
    pub subgroups: bool,
    /// Specialization constants.
    pub specs: Vec<Spec>,
    /// Global constants, each after what it reads.
    pub consts: Vec<Const>,
    /// The local size.
    pub local_size: [u32; 2],
    /// Whether `local_size_x` is given as `local_size_x_id` (the pipeline
    /// sets it).
    pub local_size_id: bool,
    /// Buffer bindings, numbered in order.
    pub bindings: Vec<Binding>,
    /// Push-constant members (`int` or `uint`), the block's instance `p`.
    pub push: Vec<(String, Ty)>,
    /// Private and `shared` arrays.
    pub globals: Vec<Array>,
    /// Functions, each before its callers.
    pub funcs: Vec<Func>,
    /// The body of `main`, after `gid` and `lid`.
    pub main: Vec<Stmt>,
}

/// The `constant_id` of `local_size_x_id`.
pub const LOCAL_SIZE_ID: u32 = 100;

impl Shader {
    /// Invocations per workgroup.
    pub fn invocations(&self) -> u32 {
        self.local_size[0] * self.local_size[1]
    }

    /// The shader as GLSL with the extension.
    pub fn text(&self) -> String {
        let mut s = String::from("#version 450\n");
        if self.subgroups {
            for ext in ["basic", "arithmetic", "ballot", "vote"] {
                let _ = writeln!(s, "#extension GL_KHR_shader_subgroup_{ext} : require");
            }
        }
        for c in &self.specs {
            let t = if c.uint { "uint" } else { "int" };
            let v = if c.uint {
                format!("{}u", c.default)
            } else {
                c.default.to_string()
            };
            let _ = writeln!(
                s,
                "layout (constant_id = {}) const {t} {} = {v};",
                c.id, c.name
            );
        }
        for c in &self.consts {
            let t = if c.uint { "uint" } else { "int" };
            let _ = writeln!(s, "const {t} {} = {};", c.name, c.expr.text(c.uint));
        }
        let [x, y] = self.local_size;
        if self.local_size_id {
            let _ = writeln!(
                s,
                "layout (local_size_x_id = {LOCAL_SIZE_ID}, local_size_y = {y}) in;"
            );
        } else {
            let _ = writeln!(s, "layout (local_size_x = {x}, local_size_y = {y}) in;");
        }
        for (k, b) in self.bindings.iter().enumerate() {
            let access = match b.access {
                Access::In => "readonly ",
                Access::Out => "writeonly ",
            };
            let layout = if b.std430 { "std430, " } else { "" };
            let _ = writeln!(
                s,
                "layout ({layout}binding = {k}) {access}buffer {} {{ {} {}[]; }};",
                b.name,
                b.elem.glsl(),
                b.data()
            );
        }
        if !self.push.is_empty() {
            let members: String = self
                .push
                .iter()
                .map(|(n, t)| format!(" {} {n};", t.glsl()))
                .collect();
            let _ = writeln!(
                s,
                "layout (push_constant) uniform parameter {{{members} }} p;"
            );
        }
        for g in &self.globals {
            let _ = writeln!(s, "{};", g.declaration());
        }
        for f in &self.funcs {
            let params: Vec<String> = f
                .params
                .iter()
                .map(|p| match p {
                    Param::Scalar { name, ty, inout } => {
                        let q = if *inout { "inout " } else { "" };
                        format!("{q}{} {name}", ty.glsl())
                    }
                    Param::Array(a) => a.declaration(),
                })
                .collect();
            let _ = writeln!(s, "{} {}({})\n{{", f.ret.glsl(), f.name, params.join(", "));
            block(&f.body, 1, self, &mut s);
            let _ = writeln!(s, "    return {};\n}}", f.value.text());
        }
        let _ = writeln!(
            s,
            "void main()\n{{\n    uint gid = gl_WorkGroupID.x * {}u + gl_LocalInvocationIndex;\n    uint lid = gl_LocalInvocationIndex;",
            self.invocations()
        );
        block(&self.main, 1, self, &mut s);
        s.push_str("}\n");
        s
    }
}

fn block(stmts: &[Stmt], depth: usize, shader: &Shader, out: &mut String) {
    for st in stmts {
        stmt(st, depth, shader, out);
    }
}

fn stmt(st: &Stmt, depth: usize, shader: &Shader, out: &mut String) {
    let pad = "    ".repeat(depth);
    match st {
        Stmt::Decl { name, ty, init } => {
            let _ = writeln!(out, "{pad}{} {name} = {};", ty.glsl(), init.text());
        }
        Stmt::Fill { arr, declare, init } => {
            if *declare {
                let _ = writeln!(out, "{pad}{};", arr.declaration());
            }
            let mut lhs = arr.name.clone();
            for (k, d) in arr.dims.iter().enumerate() {
                let c = arr.counter(k);
                let _ = writeln!(
                    out,
                    "{pad}{}for (int {c} = 0; {c} < {}; {c}++)",
                    "  ".repeat(k),
                    d.as_int()
                );
                let _ = write!(lhs, "[{c}]");
            }
            let _ = writeln!(
                out,
                "{pad}{}{lhs} = {};",
                "  ".repeat(arr.dims.len()),
                init.text()
            );
        }
        Stmt::Assign { place, op, value } => {
            let v = value.text();
            let text = match op {
                None => format!("{} = {v};", place.text()),
                // The guarded operators are written out in full.
                Some(op @ (Op::Shl | Op::Shr | Op::Div | Op::Rem)) => {
                    let p = Expr {
                        ty: value.ty,
                        kind: super::ast::Kind::Load(place.clone()),
                    };
                    format!(
                        "{} = {};",
                        place.text(),
                        Expr::bin(value.ty, *op, p, value.clone()).text()
                    )
                }
                Some(op) => format!("{} {}= {v};", place.text(), op_token(*op)),
            };
            let _ = writeln!(out, "{pad}{text}");
        }
        Stmt::If { cond, then, els } => {
            let _ = writeln!(out, "{pad}if ({})\n{pad}{{", cond.text());
            block(then, depth + 1, shader, out);
            if els.is_empty() {
                let _ = writeln!(out, "{pad}}}");
            } else {
                let _ = writeln!(out, "{pad}}}\n{pad}else\n{pad}{{");
                block(els, depth + 1, shader, out);
                let _ = writeln!(out, "{pad}}}");
            }
        }
        Stmt::For { var, bound, body } => {
            let b = match bound {
                Bound::Lit(n) => n.to_string(),
                Bound::Size(s) => s.as_int(),
                Bound::Dyn(e, max) => format!("int(uint({}) % {}u)", e.text(), max + 1),
            };
            let _ = writeln!(
                out,
                "{pad}for (int {var} = 0; {var} < {b}; {var}++)\n{pad}{{"
            );
            block(body, depth + 1, shader, out);
            let _ = writeln!(out, "{pad}}}");
        }
        Stmt::Block(body) => {
            let _ = writeln!(out, "{pad}{{");
            block(body, depth + 1, shader, out);
            let _ = writeln!(out, "{pad}}}");
        }
        Stmt::Break => {
            let _ = writeln!(out, "{pad}break;");
        }
        Stmt::Continue => {
            let _ = writeln!(out, "{pad}continue;");
        }
        Stmt::Call { target, call } => {
            let t = target.as_ref().map_or(String::new(), |t| format!("{t} = "));
            let _ = writeln!(out, "{pad}{t}{};", call.text());
        }
        Stmt::SharedFill { arr, value } => {
            let c = arr.counter(0);
            let n = shader.invocations();
            let v = match arr.elem {
                Ty::Float => format!("afp2lfp({})", value.text()),
                _ => value.text(),
            };
            // Element `c` of the array in row-major order, its subscripts
            // from the one counter.
            let (len, at) = match arr.dims.as_slice() {
                [d] => (d.as_int(), format!("[{c}]")),
                [d0, d1] => {
                    let d = d1.as_int();
                    (
                        format!("{} * {d}", d0.as_int()),
                        format!("[{c} / {d}][{c} % {d}]"),
                    )
                }
                _ => unreachable!("`shared` arrays have one or two dimensions"),
            };
            let _ = writeln!(
                out,
                "{pad}barrier();\n{pad}for (int {c} = int(lid); {c} < {len}; {c} += {n})\n{pad}    {}{at} = {v};\n{pad}barrier();",
                arr.name
            );
        }
        Stmt::Barrier(f) => {
            let _ = writeln!(out, "{pad}{f}();");
        }
        Stmt::Store {
            data,
            elem,
            slot,
            per,
            value,
        } => {
            let i = format!("int(gid) * {per} + {slot}");
            let v = value.text();
            let text = match elem {
                BufElem::Int | BufElem::Uint => format!("{data}[{i}] = {v};"),
                BufElem::Sfp => format!("buffer_st1({data}, {i}, {v});"),
                BufElem::Sfpvec4 => format!("buffer_st4({data}, {i}, {v});"),
            };
            let _ = writeln!(out, "{pad}{text}");
        }
    }
}

fn op_token(op: Op) -> &'static str {
    match op {
        Op::Add => "+",
        Op::Sub => "-",
        Op::Mul => "*",
        Op::And => "&",
        Op::Or => "|",
        Op::Xor => "^",
        other => unreachable!("no compound form for {other:?}"),
    }
}

impl Stmt {
    /// Every expression of the statement and of those inside it.
    pub fn visit_exprs(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            Stmt::Decl { init, .. } | Stmt::Fill { init, .. } => init.visit_mut(f),
            Stmt::Assign { place, value, .. } => {
                place.visit_mut(f);
                value.visit_mut(f);
            }
            Stmt::If { cond, then, els } => {
                cond.visit_mut(f);
                then.iter_mut().for_each(|s| s.visit_exprs(f));
                els.iter_mut().for_each(|s| s.visit_exprs(f));
            }
            Stmt::For { bound, body, .. } => {
                if let Bound::Dyn(e, _) = bound {
                    e.visit_mut(f);
                }
                body.iter_mut().for_each(|s| s.visit_exprs(f));
            }
            Stmt::Block(body) => body.iter_mut().for_each(|s| s.visit_exprs(f)),
            Stmt::Call { call, .. } => call.visit_mut(f),
            Stmt::SharedFill { value, .. } | Stmt::Store { value, .. } => value.visit_mut(f),
            Stmt::Break | Stmt::Continue | Stmt::Barrier(_) => {}
        }
    }
}
