//! The fuzzer's programs as data: a small AST of the GLSL subset the
//! generator writes, printed as one shader with the extension. Keeping the
//! program as data, not text, is what lets the minimizer drop statements and
//! replace expressions and still print a shader both compilers parse.
//!
//! Operations that GLSL leaves undefined for some operands print with their
//! guard built in (a shift masks its amount, a division its divisor), so no
//! edit of an operand can make them undefined.

use std::fmt::Write;

/// The type of an expression (`afp`, `afpvec4`: the extension's arithmetic
/// float types, `float` or `float16_t` by mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `afp`.
    Float,
    /// `afpvec4`.
    Vec4,
    /// `bool`.
    Bool,
}

impl Ty {
    /// Its GLSL name.
    pub fn glsl(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Uint => "uint",
            Ty::Float => "afp",
            Ty::Vec4 => "afpvec4",
            Ty::Bool => "bool",
        }
    }
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `^`.
    Xor,
    /// `<<`, the amount masked to 0..31.
    Shl,
    /// `>>`, the amount masked to 0..31.
    Shr,
    /// `/`, the divisor made non-zero (and, for `int`, positive).
    Div,
    /// `%` of `uint`, the divisor made non-zero.
    Rem,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `&&`.
    LAnd,
    /// `||`.
    LOr,
    /// `^^`.
    LXor,
}

impl Op {
    fn token(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::And => "&",
            Op::Or => "|",
            Op::Xor => "^",
            Op::Shl => "<<",
            Op::Shr => ">>",
            Op::Div => "/",
            Op::Rem => "%",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::LAnd => "&&",
            Op::LOr => "||",
            Op::LXor => "^^",
        }
    }
}

/// An array length as written in a declaration: a literal, a
/// specialization constant or a global constant.
#[derive(Clone, Debug, PartialEq)]
pub struct Size {
    /// How it is written (`8`, `M`, `M2`).
    pub text: String,
    /// Whether it is a `uint` (else an `int`).
    pub uint: bool,
    /// Whether it is a literal.
    pub literal: bool,
}

impl Size {
    /// A literal length.
    pub fn lit(n: u32) -> Size {
        Size {
            text: n.to_string(),
            uint: false,
            literal: true,
        }
    }

    /// The length as a `uint` expression.
    fn as_uint(&self) -> String {
        match (self.literal, self.uint) {
            (true, _) => format!("{}u", self.text),
            (false, true) => self.text.clone(),
            (false, false) => format!("uint({})", self.text),
        }
    }

    /// The length as an `int` expression.
    pub fn as_int(&self) -> String {
        if self.uint && !self.literal {
            format!("int({})", self.text)
        } else {
            self.text.clone()
        }
    }
}

/// One subscript.
#[derive(Clone, Debug)]
pub enum Index {
    /// `uint(e) % len`: in range whatever `e` is.
    Wrap(Box<Expr>, Size),
    /// `e` as computed: may be negative or past the end.
    Raw(Box<Expr>),
    /// `e`, in range by construction (a loop counter below the length): the
    /// minimizer leaves it alone, since a constant there could leave the range.
    Known(Box<Expr>),
}

/// Something read or written.
#[derive(Clone, Debug)]
pub enum Place {
    /// A variable.
    Var(String),
    /// An element of an array (local, private, `shared`, a parameter, or a
    /// buffer's data array).
    Elem(String, Vec<Index>),
}

/// An expression and its type.
#[derive(Clone, Debug)]
pub struct Expr {
    /// Its type.
    pub ty: Ty,
    /// What it is.
    pub kind: Kind,
}

/// The forms of an expression.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A literal (`int`, `uint` and `bool` by value; floats exact).
    Lit(f64),
    /// A name or a fixed piece of text that needs no parentheses (`gid`,
    /// `p.n0`, `gl_SubgroupInvocationID`).
    Name(String),
    /// A specialization constant or a global constant, by name.
    Const(String),
    /// `-e`, `~e`, `!e`.
    Unary(&'static str, Box<Expr>),
    /// `a op b`, with its guard.
    Binary(Op, Box<Expr>, Box<Expr>),
    /// A call of a built-in or of a program's function.
    Call(String, Vec<Expr>),
    /// The operand converted to this expression's type (`int(f)`,
    /// `uint(i)`, `afp(i & 15)`: an integer becomes a float of 0..15).
    Convert(Box<Expr>),
    /// `c ? a : b`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A read of a place.
    Load(Place),
    /// `buffer_ld1(data, i)` (a `Float`) or `buffer_ld4(data, i)` (a `Vec4`).
    BufLoad(String, Index),
    /// `e.x` etc.
    Swizzle(Box<Expr>, &'static str),
    /// `v[i]` of a vector, the index wrapped to 0..3.
    Component(Box<Expr>, Box<Expr>),
    /// A float brought back to a multiple of 1/4 in [-16, 16], exactly
    /// (`clamp(floor(e * 4) * 0.25, -16, 16)`): what every stored float is.
    Fit(Box<Expr>),
}

impl Expr {
    /// A literal of `ty` (`v` must fit it; floats exact).
    pub fn lit(ty: Ty, v: f64) -> Expr {
        Expr {
            ty,
            kind: Kind::Lit(v),
        }
    }

    /// A name of type `ty`.
    pub fn name(ty: Ty, n: &str) -> Expr {
        Expr {
            ty,
            kind: Kind::Name(n.to_string()),
        }
    }

    /// `a op b` of type `ty`.
    pub fn bin(ty: Ty, op: Op, a: Expr, b: Expr) -> Expr {
        Expr {
            ty,
            kind: Kind::Binary(op, Box::new(a), Box::new(b)),
        }
    }

    /// A call of type `ty`.
    pub fn call(ty: Ty, f: &str, args: Vec<Expr>) -> Expr {
        Expr {
            ty,
            kind: Kind::Call(f.to_string(), args),
        }
    }

    /// `e` converted to `ty`.
    pub fn convert(ty: Ty, e: Expr) -> Expr {
        Expr {
            ty,
            kind: Kind::Convert(Box::new(e)),
        }
    }

    /// Whether it is a literal.
    pub fn is_lit(&self) -> bool {
        matches!(self.kind, Kind::Lit(_))
    }

    /// Whether it reads nothing that changes when the shader runs (so
    /// glslang may fold it, and refuses it as an index out of range).
    pub fn is_constant(&self) -> bool {
        match &self.kind {
            Kind::Lit(_) | Kind::Const(_) => true,
            Kind::Name(_) | Kind::Load(_) | Kind::BufLoad(..) => false,
            Kind::Call(f, args) => {
                let runtime = f.starts_with("subgroup")
                    || f.starts_with('f') && f[1..].starts_with(|c: char| c.is_ascii_digit());
                !runtime && args.iter().all(Expr::is_constant)
            }
            Kind::Unary(_, e) | Kind::Convert(e) | Kind::Swizzle(e, _) | Kind::Fit(e) => {
                e.is_constant()
            }
            Kind::Binary(_, a, b) | Kind::Component(a, b) => a.is_constant() && b.is_constant(),
            Kind::Select(c, a, b) => c.is_constant() && a.is_constant() && b.is_constant(),
        }
    }

    fn print(&self, out: &mut String) {
        match &self.kind {
            Kind::Lit(v) => out.push_str(&literal(self.ty, *v)),
            Kind::Name(n) | Kind::Const(n) => out.push_str(n),
            Kind::Unary(op, e) => {
                out.push('(');
                out.push_str(op);
                e.print(out);
                out.push(')');
            }
            Kind::Binary(op, a, b) => binary(*op, a, b, out),
            Kind::Call(f, args) => {
                out.push_str(f);
                out.push('(');
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    a.print(out);
                }
                out.push(')');
            }
            Kind::Convert(e) => {
                let inner = e.text();
                let text = match (self.ty, e.ty) {
                    (Ty::Float, Ty::Int) => format!("afp(({inner}) & 15)"),
                    (Ty::Float, Ty::Uint) => format!("afp(({inner}) & 15u)"),
                    // A negative float has no `uint` value.
                    (Ty::Uint, Ty::Float) => format!("uint(abs({inner}))"),
                    (to, _) => format!("{}({inner})", to.glsl()),
                };
                out.push_str(&text);
            }
            Kind::Select(c, a, b) => {
                let _ = write!(out, "({} ? {} : {})", c.text(), a.text(), b.text());
            }
            Kind::Load(p) => p.print(out),
            Kind::BufLoad(data, i) => {
                let f = if self.ty == Ty::Vec4 {
                    "buffer_ld4"
                } else {
                    "buffer_ld1"
                };
                let _ = write!(out, "{f}({data}, int({}))", index_text(i));
            }
            Kind::Swizzle(e, s) => {
                let _ = write!(out, "({}).{s}", e.text());
            }
            Kind::Component(v, i) => {
                let _ = write!(out, "({})[uint({}) % 4u]", v.text(), i.text());
            }
            Kind::Fit(e) => {
                let t = self.ty.glsl();
                let _ = write!(
                    out,
                    "clamp(floor(({}) * {t}(4.0)) * {t}(0.25), {t}(-16.0), {t}(16.0))",
                    e.text()
                );
            }
        }
    }

    /// The expression as GLSL.
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.print(&mut s);
        s
    }

    /// Every sub-expression, this one first (for the minimizer), skipping
    /// the insides of [`Index::Known`].
    pub fn visit_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        f(self);
        match &mut self.kind {
            Kind::Lit(_) | Kind::Name(_) | Kind::Const(_) => {}
            Kind::Unary(_, e) | Kind::Convert(e) | Kind::Swizzle(e, _) | Kind::Fit(e) => {
                e.visit_mut(f)
            }
            Kind::Binary(_, a, b) | Kind::Component(a, b) => {
                a.visit_mut(f);
                b.visit_mut(f);
            }
            Kind::Call(_, args) => args.iter_mut().for_each(|a| a.visit_mut(f)),
            Kind::Select(c, a, b) => {
                c.visit_mut(f);
                a.visit_mut(f);
                b.visit_mut(f);
            }
            Kind::Load(p) => p.visit_mut(f),
            Kind::BufLoad(_, i) => i.visit_mut(f),
        }
    }
}

impl Index {
    fn visit_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            Index::Wrap(e, _) | Index::Raw(e) => e.visit_mut(f),
            Index::Known(_) => {}
        }
    }
}

impl Place {
    fn print(&self, out: &mut String) {
        match self {
            Place::Var(n) => out.push_str(n),
            Place::Elem(n, idx) => {
                out.push_str(n);
                for i in idx {
                    let _ = write!(out, "[{}]", index_text(i));
                }
            }
        }
    }

    /// The place as GLSL.
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.print(&mut s);
        s
    }

    /// Every expression of its subscripts (as [`Expr::visit_mut`]).
    pub fn visit_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        if let Place::Elem(_, idx) = self {
            idx.iter_mut().for_each(|i| i.visit_mut(f));
        }
    }
}

fn index_text(i: &Index) -> String {
    match i {
        Index::Wrap(e, len) => format!("(uint({}) % {})", e.text(), len.as_uint()),
        Index::Raw(e) | Index::Known(e) => e.text(),
    }
}

/// A literal of `ty`: `int` and `uint` in range (negative `int`s in
/// parentheses), floats as `afp(...)`.
fn literal(ty: Ty, v: f64) -> String {
    match ty {
        Ty::Int if v == f64::from(i32::MIN) => "(-2147483647 - 1)".to_string(),
        Ty::Int if v < 0.0 => format!("({})", v as i64),
        Ty::Int => format!("{}", v as i64),
        Ty::Uint => format!("{}u", v as u64),
        Ty::Float => format!("afp({v:?})"),
        Ty::Vec4 => format!("afpvec4({v:?})"),
        Ty::Bool => (v != 0.0).to_string(),
    }
}

fn binary(op: Op, a: &Expr, b: &Expr, out: &mut String) {
    // Guarded operators take operands of one type; `%` only `uint`s.
    let unsigned = b.ty == Ty::Uint;
    let (a, b) = (a.text(), b.text());
    let text = match op {
        Op::Shl | Op::Shr if unsigned => format!("({a} {} (({b}) & 31u))", op.token()),
        Op::Shl | Op::Shr => format!("({a} {} (({b}) & 31))", op.token()),
        Op::Div if unsigned => format!("({a} / (({b}) | 1u))"),
        Op::Div => format!("({a} / ((({b}) & 7) + 1))"),
        Op::Rem => format!("({a} % (({b}) | 1u))"),
        _ => format!("({a} {} {b})", op.token()),
    };
    out.push_str(&text);
}
