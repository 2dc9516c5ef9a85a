//! The expressions of `spec_expressions.rs`: integer expressions over
//! specialization constants (arithmetic, comparisons, logic, `?:`, `min`,
//! `max`, `int()`/`uint()`/`bool()`), their parser (GLSL precedence and
//! typing), their type and their value as SPIR-V computes it.

use std::collections::HashMap;

use super::super::source_text::int_literal;
use super::super::tokens::{Kind, Token};
use crate::spirv_interface::spec_ops::{spec_op, spec_op_partial};

/// An expression over specialization constants whose value is an integer
/// (its parts may be `bool`s: comparisons, logic, conversions).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Expr {
    /// A literal's 32 bits, and whether it is a `uint`.
    Literal(u32, bool),
    /// A specialization constant or a derived constant.
    Name(String),
    /// `-x`, `~x`, `!x`.
    Unary(UnOp, Box<Expr>),
    /// `x op y`, `min(x, y)`, `max(x, y)`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? x : y`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `int(x)`, `uint(x)`, `bool(x)`.
    Cast(Ty, Box<Expr>),
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum UnOp {
    Neg,
    Not,
    LogicalNot,
}

/// A binary operator (and the two built-ins of two integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    Min,
    Max,
}

/// The type of an expression, as GLSL types it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    Int,
    Uint,
    Bool,
}

/// The binary operators: their text, precedence (higher binds tighter, as
/// in GLSL) and operator. Two-character ones are matched first.
const BINARY: &[(&str, u8, BinOp)] = &[
    ("*", 12, BinOp::Mul),
    ("/", 12, BinOp::Div),
    ("%", 12, BinOp::Rem),
    ("+", 11, BinOp::Add),
    ("-", 11, BinOp::Sub),
    ("<<", 10, BinOp::Shl),
    (">>", 10, BinOp::Shr),
    ("<", 9, BinOp::Lt),
    ("<=", 9, BinOp::Le),
    (">", 9, BinOp::Gt),
    (">=", 9, BinOp::Ge),
    ("==", 8, BinOp::Eq),
    ("!=", 8, BinOp::Ne),
    ("&", 7, BinOp::And),
    ("^", 6, BinOp::Xor),
    ("|", 5, BinOp::Or),
    ("&&", 4, BinOp::LogicalAnd),
    ("^^", 3, BinOp::LogicalXor),
    ("||", 2, BinOp::LogicalOr),
];

/// `OpSelect`: `?:`, and `min`/`max` as a select of a comparison (they have
/// no `OpSpecConstantOp` form).
pub(super) const SELECT: u32 = 169;
/// `OpINotEqual`: `bool(x)` of an integer is `x != 0`.
pub(super) const I_NOT_EQUAL: u32 = 171;

/// What a name in an expression is.
#[derive(Clone, Debug)]
pub(super) enum Named {
    /// A specialization constant or a derived constant.
    Specialized,
    /// A plain constant of known value (`true`: `uint`).
    Value(u32, bool),
}

/// How deep an expression may nest (operators and parentheses): the
/// passes over it recurse per level.
const MAX_DEPTH: usize = 64;

/// Parses tokens `t` as an integer expression; names resolve through
/// `scope`. `None` for anything else: a call other than `min`, `max`,
/// `int`, `uint`, `bool`, a float, `true`/`false`, an unknown name, nesting
/// past [`MAX_DEPTH`], types GLSL refuses (`n ? 1 : 2`, `-(a < b)`) or a
/// `bool` result (an array size and an `int`/`uint` constant are integers).
pub(super) fn parse(src: &str, t: &[Token], scope: &HashMap<&str, Named>) -> Option<Expr> {
    let mut p = Parser {
        src,
        t,
        i: 0,
        scope,
    };
    let e = p.conditional(0)?;
    (p.i == t.len() && class(&e)? == Class::Integer).then_some(e)
}

/// A precedence-climbing parser over one expression's tokens.
struct Parser<'a, 'b> {
    src: &'a str,
    t: &'a [Token],
    i: usize,
    scope: &'b HashMap<&'b str, Named>,
}

impl Parser<'_, '_> {
    /// The binary operator at the cursor: precedence, operator, tokens.
    fn binary(&self) -> Option<(u8, BinOp, usize)> {
        let a = self.t.get(self.i).filter(|a| a.kind == Kind::Punct)?;
        let two = self
            .t
            .get(self.i + 1)
            .filter(|b| b.start == a.end && b.kind == Kind::Punct)
            .map(|b| format!("{}{}", a.text(self.src), b.text(self.src)));
        if let Some(&(_, p, o)) = two.and_then(|two| BINARY.iter().find(|b| b.0 == two)) {
            return Some((p, o, 2));
        }
        let &(_, p, o) = BINARY.iter().find(|b| b.0 == a.text(self.src))?;
        Some((p, o, 1))
    }

    /// Whether the token at the cursor is the punctuation `c`; if so, steps over it.
    fn eat(&mut self, c: char) -> bool {
        let at = self.t.get(self.i).is_some_and(|t| t.is_punct(self.src, c));
        self.i += usize::from(at);
        at
    }

    /// `c ? x : y` (right-associative, as GLSL's conditional), or a binary
    /// expression.
    fn conditional(&mut self, depth: usize) -> Option<Expr> {
        if depth > MAX_DEPTH {
            return None;
        }
        let c = self.expr(0, depth)?;
        if !self.eat('?') {
            return Some(c);
        }
        let x = self.conditional(depth + 1)?;
        if !self.eat(':') {
            return None;
        }
        let y = self.conditional(depth + 1)?;
        Some(Expr::Select(Box::new(c), Box::new(x), Box::new(y)))
    }

    fn expr(&mut self, min: u8, depth: usize) -> Option<Expr> {
        let mut lhs = self.unary(depth + 1)?;
        let mut depth = depth;
        while let Some((p, o, len)) = self.binary() {
            if p < min {
                break;
            }
            self.i += len;
            depth += 1;
            let rhs = self.expr(p + 1, depth)?;
            lhs = Expr::Binary(o, Box::new(lhs), Box::new(rhs));
        }
        Some(lhs)
    }

    fn unary(&mut self, depth: usize) -> Option<Expr> {
        if depth > MAX_DEPTH {
            return None;
        }
        let tok = self.t.get(self.i)?;
        self.i += 1;
        let prefix = |p: &mut Self, o| Some(Expr::Unary(o, Box::new(p.unary(depth + 1)?)));
        match (tok.kind, tok.text(self.src)) {
            (Kind::Punct, "-") => prefix(self, UnOp::Neg),
            (Kind::Punct, "~") => prefix(self, UnOp::Not),
            (Kind::Punct, "!") => prefix(self, UnOp::LogicalNot),
            (Kind::Punct, "+") => self.unary(depth + 1),
            (Kind::Punct, "(") => {
                let e = self.conditional(depth + 1)?;
                self.eat(')').then_some(e)
            }
            (Kind::Number, text) => {
                let v = int_literal(self.src, tok)?;
                Some(Expr::Literal(v, text.ends_with(['u', 'U'])))
            }
            (Kind::Ident, name) if self.eat('(') => self.call(name, depth + 1),
            (Kind::Ident, name) => match self.scope.get(name)? {
                Named::Specialized => Some(Expr::Name(name.to_string())),
                Named::Value(v, u) => Some(Expr::Literal(*v, *u)),
            },
            _ => None,
        }
    }

    /// A call of `name` (its `(` read): a conversion, `min` or `max`.
    fn call(&mut self, name: &str, depth: usize) -> Option<Expr> {
        let two = match name {
            "min" => Some(BinOp::Min),
            "max" => Some(BinOp::Max),
            "int" | "uint" | "bool" => None,
            _ => return None,
        };
        let x = self.conditional(depth)?;
        let e = match two {
            Some(o) => {
                if !self.eat(',') {
                    return None;
                }
                let y = self.conditional(depth)?;
                Expr::Binary(o, Box::new(x), Box::new(y))
            }
            None => {
                let to = match name {
                    "int" => Ty::Int,
                    "uint" => Ty::Uint,
                    _ => Ty::Bool,
                };
                Expr::Cast(to, Box::new(x))
            }
        };
        self.eat(')').then_some(e)
    }
}

/// Whether an expression is a `bool` or an integer (which one needs the
/// names' types, which the parser does not have).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Integer,
    Bool,
}

/// The class of `e`, or `None` where GLSL refuses its operands' types.
fn class(e: &Expr) -> Option<Class> {
    use Class::{Bool, Integer};
    let want = |ok: bool, c: Class| ok.then_some(c);
    Some(match e {
        Expr::Literal(..) | Expr::Name(_) => Integer,
        Expr::Unary(UnOp::LogicalNot, x) => want(class(x)? == Bool, Bool)?,
        Expr::Unary(_, x) => want(class(x)? == Integer, Integer)?,
        Expr::Binary(o, a, b) => {
            let (a, b) = (class(a)?, class(b)?);
            match o {
                BinOp::Eq | BinOp::Ne => want(a == b, Bool)?,
                BinOp::LogicalAnd | BinOp::LogicalOr | BinOp::LogicalXor => {
                    want(a == Bool && b == Bool, Bool)?
                }
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    want(a == Integer && b == Integer, Bool)?
                }
                _ => want(a == Integer && b == Integer, Integer)?,
            }
        }
        Expr::Select(c, x, y) => {
            let x = class(x)?;
            want(class(c)? == Bool && class(y)? == x, x)?
        }
        Expr::Cast(to, x) => {
            class(x)?;
            if *to == Ty::Bool {
                Bool
            } else {
                Integer
            }
        }
    })
}

impl BinOp {
    /// Whether its value is a `bool`.
    fn is_boolean(self) -> bool {
        matches!(
            self,
            BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::Eq
                | BinOp::Ne
                | BinOp::LogicalAnd
                | BinOp::LogicalOr
                | BinOp::LogicalXor
        )
    }
}

/// The expression's type (GLSL converts `int` to `uint` where they meet,
/// in `?:`, `min` and `max` too; a shift has its left operand's type).
pub(super) fn ty(e: &Expr, uint_names: &dyn Fn(&str) -> bool) -> Ty {
    let int = |u: bool| if u { Ty::Uint } else { Ty::Int };
    let either = |a: Ty, b: Ty| int(a == Ty::Uint || b == Ty::Uint);
    match e {
        Expr::Literal(_, u) => int(*u),
        Expr::Name(n) => int(uint_names(n)),
        Expr::Unary(UnOp::LogicalNot, _) => Ty::Bool,
        Expr::Unary(_, x) => ty(x, uint_names),
        Expr::Binary(BinOp::Shl | BinOp::Shr, a, _) => ty(a, uint_names),
        Expr::Binary(o, _, _) if o.is_boolean() => Ty::Bool,
        Expr::Binary(_, a, b) => either(ty(a, uint_names), ty(b, uint_names)),
        Expr::Select(_, x, y) => match ty(x, uint_names) {
            Ty::Bool => Ty::Bool,
            t => either(t, ty(y, uint_names)),
        },
        Expr::Cast(to, _) => *to,
    }
}

/// Whether the expression's type is `uint`.
pub(super) fn is_uint(e: &Expr, uint_names: &dyn Fn(&str) -> bool) -> bool {
    ty(e, uint_names) == Ty::Uint
}

/// Whether `e` has a `bool` part (its words need the `bool` type).
pub(super) fn has_bool(e: &Expr) -> bool {
    match e {
        Expr::Literal(..) | Expr::Name(_) => false,
        Expr::Unary(UnOp::LogicalNot, _) | Expr::Select(..) | Expr::Cast(..) => true,
        Expr::Unary(_, x) => has_bool(x),
        Expr::Binary(o, a, b) => {
            o.is_boolean() || matches!(o, BinOp::Min | BinOp::Max) || has_bool(a) || has_bool(b)
        }
    }
}

/// The operands of `e`.
pub(super) fn parts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Literal(..) | Expr::Name(_) => Vec::new(),
        Expr::Unary(_, x) | Expr::Cast(_, x) => vec![x],
        Expr::Binary(_, a, b) => vec![a, b],
        Expr::Select(c, x, y) => vec![c, x, y],
    }
}

/// Whether `e` names a specialization constant (or a derived one).
pub(super) fn specialized(e: &Expr) -> bool {
    matches!(e, Expr::Name(_)) || parts(e).into_iter().any(specialized)
}

/// The value of `e` with each name's value from `value` (as SPIR-V
/// computes it, a `bool` as 0 or 1; `None` on a division by zero or an
/// unknown name that the value depends on: `?:`, `&&` and `||` need only
/// the operands GLSL evaluates, so `n == 0 ? 1 : 64 / n` has a value at 0).
pub(crate) fn eval(
    e: &Expr,
    value: &dyn Fn(&str) -> Option<u32>,
    uint: &dyn Fn(&str) -> bool,
) -> Option<u32> {
    // The operations the words will do, so the value is the device's.
    let ev = |x: &Expr| eval(x, value, uint);
    match e {
        Expr::Literal(v, _) => Some(*v),
        Expr::Name(n) => value(n),
        Expr::Unary(o, x) => spec_op(unary_opcode(*o), &[ev(x)?]),
        Expr::Binary(o @ (BinOp::Min | BinOp::Max), a, b) => {
            let (x, y) = (ev(a)?, ev(b)?);
            let first = spec_op(opcode(*o, ty(a, uint), ty(b, uint)), &[x, y])?;
            spec_op(SELECT, &[first, x, y])
        }
        Expr::Binary(o, a, b) => {
            spec_op_partial(opcode(*o, ty(a, uint), ty(b, uint)), &[ev(a), ev(b)])
        }
        Expr::Select(c, x, y) => spec_op_partial(SELECT, &[ev(c), ev(x), ev(y)]),
        Expr::Cast(Ty::Bool, x) if ty(x, uint) != Ty::Bool => spec_op(I_NOT_EQUAL, &[ev(x)?, 0]),
        Expr::Cast(_, x) => ev(x),
    }
}

/// SPIR-V opcodes of the unary operations.
pub(super) fn unary_opcode(o: UnOp) -> u32 {
    match o {
        UnOp::Neg => 126,
        UnOp::Not => 200,
        UnOp::LogicalNot => 168,
    }
}

/// SPIR-V opcode of `o` on operands of types `a` and `b` (`OpSpecConstantOp`
/// takes these); for `min`/`max`, the comparison their select reads.
pub(super) fn opcode(o: BinOp, a: Ty, b: Ty) -> u32 {
    let uint = a == Ty::Uint || b == Ty::Uint;
    match o {
        BinOp::Add => 128,
        BinOp::Sub => 130,
        BinOp::Mul => 132,
        BinOp::Div if uint => 134,
        BinOp::Div => 135,
        BinOp::Rem if uint => 137,
        // glslang writes `%` of `int` as OpSMod.
        BinOp::Rem => 139,
        BinOp::Shr if a == Ty::Uint => 194,
        BinOp::Shr => 195,
        BinOp::Shl => 196,
        BinOp::Or => 197,
        BinOp::Xor => 198,
        BinOp::And => 199,
        // `==` and `!=` of `bool`s: OpLogicalEqual, OpLogicalNotEqual.
        BinOp::Eq if a == Ty::Bool => 164,
        BinOp::Ne if a == Ty::Bool => 165,
        // `^^`: OpLogicalNotEqual, as glslang writes it.
        BinOp::LogicalXor => 165,
        BinOp::LogicalOr => 166,
        BinOp::LogicalAnd => 167,
        BinOp::Eq => 170,
        BinOp::Ne => I_NOT_EQUAL,
        BinOp::Gt | BinOp::Max if uint => 172,
        BinOp::Gt | BinOp::Max => 173,
        BinOp::Ge if uint => 174,
        BinOp::Ge => 175,
        BinOp::Lt | BinOp::Min if uint => 176,
        BinOp::Lt | BinOp::Min => 177,
        BinOp::Le if uint => 178,
        BinOp::Le => 179,
    }
}
