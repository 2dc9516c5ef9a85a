//! The expressions of `spec_expressions.rs`: integer arithmetic over
//! specialization constants, its parser (GLSL precedence), its type and its
//! value as SPIR-V computes it.

use std::collections::HashMap;

use super::super::source_text::int_literal;
use super::super::tokens::{Kind, Token};

/// An integer expression over specialization constants.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Expr {
    /// A literal's 32 bits, and whether it is a `uint`.
    Literal(u32, bool),
    /// A specialization constant or a derived constant.
    Name(String),
    /// `-x`, `~x`.
    Unary(UnOp, Box<Expr>),
    /// `x op y`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum UnOp {
    Neg,
    Not,
}

/// A binary operator.
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
}

/// The binary operators: their text, precedence (higher binds tighter, as
/// in GLSL) and operator.
const BINARY: &[(&str, u8, BinOp)] = &[
    ("*", 6, BinOp::Mul),
    ("/", 6, BinOp::Div),
    ("%", 6, BinOp::Rem),
    ("+", 5, BinOp::Add),
    ("-", 5, BinOp::Sub),
    ("<<", 4, BinOp::Shl),
    (">>", 4, BinOp::Shr),
    ("&", 3, BinOp::And),
    ("^", 2, BinOp::Xor),
    ("|", 1, BinOp::Or),
];

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

/// Parses tokens `t` as an expression; names resolve through `scope`.
/// `None` for anything else (a call, a float, an unknown name, `?:`, nesting
/// past [`MAX_DEPTH`]).
pub(super) fn parse(src: &str, t: &[Token], scope: &HashMap<&str, Named>) -> Option<Expr> {
    let mut p = Parser {
        src,
        t,
        i: 0,
        scope,
    };
    let e = p.expr(0, 0)?;
    (p.i == t.len()).then_some(e)
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
        let a = self.t.get(self.i)?;
        let two = self
            .t
            .get(self.i + 1)
            .filter(|b| b.start == a.end && b.kind == Kind::Punct)
            .map(|b| format!("{}{}", a.text(self.src), b.text(self.src)));
        if let Some(two) = two.filter(|s| s == "<<" || s == ">>") {
            let &(_, p, o) = BINARY.iter().find(|b| b.0 == two)?;
            return Some((p, o, 2));
        }
        let &(_, p, o) = BINARY.iter().find(|b| b.0 == a.text(self.src))?;
        Some((p, o, 1))
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
        match (tok.kind, tok.text(self.src)) {
            (_, "-") => Some(Expr::Unary(UnOp::Neg, Box::new(self.unary(depth + 1)?))),
            (_, "~") => Some(Expr::Unary(UnOp::Not, Box::new(self.unary(depth + 1)?))),
            (_, "+") => self.unary(depth + 1),
            (_, "(") => {
                let e = self.expr(0, depth + 1)?;
                self.t.get(self.i).filter(|c| c.is_punct(self.src, ')'))?;
                self.i += 1;
                Some(e)
            }
            (Kind::Number, text) => {
                let v = int_literal(self.src, tok)?;
                Some(Expr::Literal(v, text.ends_with(['u', 'U'])))
            }
            (Kind::Ident, name) => match self.scope.get(name)? {
                Named::Specialized => Some(Expr::Name(name.to_string())),
                Named::Value(v, u) => Some(Expr::Literal(*v, *u)),
            },
            _ => None,
        }
    }
}

/// Whether the expression's type is `uint` (GLSL converts `int` to `uint`
/// where they meet; a shift has its left operand's type).
pub(super) fn is_uint(e: &Expr, uint_names: &dyn Fn(&str) -> bool) -> bool {
    match e {
        Expr::Literal(_, u) => *u,
        Expr::Name(n) => uint_names(n),
        Expr::Unary(_, x) => is_uint(x, uint_names),
        Expr::Binary(BinOp::Shl | BinOp::Shr, a, _) => is_uint(a, uint_names),
        Expr::Binary(_, a, b) => is_uint(a, uint_names) || is_uint(b, uint_names),
    }
}

/// Whether `e` names a specialization constant (or a derived one).
pub(super) fn specialized(e: &Expr) -> bool {
    match e {
        Expr::Literal(..) => false,
        Expr::Name(_) => true,
        Expr::Unary(_, x) => specialized(x),
        Expr::Binary(_, a, b) => specialized(a) || specialized(b),
    }
}

/// The value of `e` with each name's value from `value` (as SPIR-V
/// computes it; `None` on a division by zero or an unknown name).
pub(crate) fn eval(
    e: &Expr,
    value: &dyn Fn(&str) -> Option<u32>,
    uint: &dyn Fn(&str) -> bool,
) -> Option<u32> {
    // The operations the words will do, so the value is the device's.
    match e {
        Expr::Literal(v, _) => Some(*v),
        Expr::Name(n) => value(n),
        Expr::Unary(o, x) => {
            let code = match o {
                UnOp::Neg => 126,
                UnOp::Not => 200,
            };
            crate::spirv_interface::spec_op(code, &[eval(x, value, uint)?])
        }
        Expr::Binary(o, a, b) => {
            let code = opcode(*o, is_uint(e, uint), is_uint(a, uint));
            crate::spirv_interface::spec_op(code, &[eval(a, value, uint)?, eval(b, value, uint)?])
        }
    }
}

/// SPIR-V opcodes of the operations (`OpSpecConstantOp` takes these).
pub(super) fn opcode(o: BinOp, uint: bool, left_uint: bool) -> u32 {
    match o {
        BinOp::Add => 128,
        BinOp::Sub => 130,
        BinOp::Mul => 132,
        BinOp::Div if uint => 134,
        BinOp::Div => 135,
        BinOp::Rem if uint => 137,
        // glslang writes `%` of `int` as OpSMod.
        BinOp::Rem => 139,
        BinOp::Shr if left_uint => 194,
        BinOp::Shr => 195,
        BinOp::Shl => 196,
        BinOp::Or => 197,
        BinOp::Xor => 198,
        BinOp::And => 199,
    }
}
