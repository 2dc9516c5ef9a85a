//! `#if` expressions: C integer arithmetic on i64 over already macro-expanded tokens.

use super::error::PpError;
use super::lex::{Kind, Token};
use crate::source::Location;

/// Deeper nesting than this is an error instead of a stack overflow.
const MAX_NESTING: u32 = 256;

/// Evaluates `toks` (macro-expanded, `defined` already replaced where written
/// by the user). `defined` made by a macro asks `is_defined`. Identifiers are 0.
/// `end` is where "expression ends too early" errors point.
pub(crate) fn eval(
    toks: &[Token],
    is_defined: &dyn Fn(&str) -> bool,
    end: Location,
) -> Result<i64, PpError> {
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
        is_defined,
        end,
    };
    let v = p.cond(true)?;
    match p.toks.get(p.pos) {
        None => Ok(v),
        Some(t) => Err(PpError::at(
            t,
            format!("unexpected `{}` in `#if` expression", t.text),
        )),
    }
}

struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    depth: u32,
    is_defined: &'a dyn Fn(&str) -> bool,
    end: Location,
}

/// Binding strength of a binary operator (higher binds tighter).
fn precedence(t: &Token) -> Option<u8> {
    if t.kind != Kind::Punct {
        return None;
    }
    Some(match &*t.text {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn peek_is(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.is(p))
    }

    fn missing(&self, what: &str) -> PpError {
        match self.peek() {
            Some(t) => PpError::at(
                t,
                format!("expected {what} in `#if` expression, found `{}`", t.text),
            ),
            None => PpError::new(
                self.end,
                1,
                format!("expected {what} at the end of the `#if` expression"),
            ),
        }
    }

    /// `live` is false on the side `&&`, `||` or `?:` does not evaluate,
    /// where division by zero must not be an error.
    fn cond(&mut self, live: bool) -> Result<i64, PpError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.missing("less nesting"));
        }
        let c = self.binary(1, live)?;
        let r = if self.peek_is("?") {
            self.pos += 1;
            let a = self.cond(live && c != 0)?;
            if !self.peek_is(":") {
                return Err(self.missing("`:`"));
            }
            self.pos += 1;
            let b = self.cond(live && c == 0)?;
            if c != 0 {
                a
            } else {
                b
            }
        } else {
            c
        };
        self.depth -= 1;
        Ok(r)
    }

    fn binary(&mut self, min: u8, live: bool) -> Result<i64, PpError> {
        let mut lhs = self.unary(live)?;
        while let Some(op) = self
            .peek()
            .filter(|t| precedence(t).is_some_and(|p| p >= min))
        {
            let op = op.clone();
            let prec = precedence(&op).unwrap_or(min);
            self.pos += 1;
            let rhs_live = match &*op.text {
                "&&" => live && lhs != 0,
                "||" => live && lhs == 0,
                _ => live,
            };
            let rhs = self.binary(prec + 1, rhs_live)?;
            lhs = apply(&op, lhs, rhs, live)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self, live: bool) -> Result<i64, PpError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.missing("less nesting"));
        }
        let Some(t) = self.peek().cloned() else {
            return Err(self.missing("a value"));
        };
        self.pos += 1;
        let v = match (t.kind, &*t.text) {
            (Kind::Punct, "+") => self.unary(live)?,
            (Kind::Punct, "-") => self.unary(live)?.wrapping_neg(),
            (Kind::Punct, "!") => (self.unary(live)? == 0) as i64,
            (Kind::Punct, "~") => !self.unary(live)?,
            (Kind::Punct, "(") => {
                let v = self.cond(live)?;
                if !self.peek_is(")") {
                    return Err(self.missing("`)`"));
                }
                self.pos += 1;
                v
            }
            (Kind::Ident, "defined") => {
                let paren = self.peek_is("(");
                if paren {
                    self.pos += 1;
                }
                let name = match self.peek() {
                    Some(n) if n.kind == Kind::Ident => n.text.clone(),
                    _ => return Err(self.missing("a macro name after `defined`")),
                };
                self.pos += 1;
                if paren {
                    if !self.peek_is(")") {
                        return Err(self.missing("`)`"));
                    }
                    self.pos += 1;
                }
                (self.is_defined)(&name) as i64
            }
            (Kind::Ident, _) => 0,
            (Kind::Number, text) => literal(text).map_err(|m| PpError::at(&t, m))?,
            _ => {
                return Err(PpError::at(
                    &t,
                    format!("unexpected `{}` in `#if` expression", t.text),
                ))
            }
        };
        self.depth -= 1;
        Ok(v)
    }
}

fn apply(op: &Token, a: i64, b: i64, live: bool) -> Result<i64, PpError> {
    Ok(match &*op.text {
        "||" => (a != 0 || b != 0) as i64,
        "&&" => (a != 0 && b != 0) as i64,
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => (a == b) as i64,
        "!=" => (a != b) as i64,
        "<" => (a < b) as i64,
        ">" => (a > b) as i64,
        "<=" => (a <= b) as i64,
        ">=" => (a >= b) as i64,
        // Shifting by 64 or more is undefined in C; 0 (or the sign) is the least surprising.
        "<<" => u32::try_from(b)
            .ok()
            .and_then(|b| a.checked_shl(b))
            .unwrap_or(0),
        ">>" => u32::try_from(b)
            .ok()
            .and_then(|b| a.checked_shr(b))
            .unwrap_or(if a < 0 { -1 } else { 0 }),
        "+" => a.wrapping_add(b),
        "-" => a.wrapping_sub(b),
        "*" => a.wrapping_mul(b),
        "/" | "%" if b == 0 => {
            if live {
                let what = if &*op.text == "/" {
                    "division"
                } else {
                    "modulo"
                };
                return Err(PpError::at(
                    op,
                    format!("{what} by zero in `#if` expression"),
                ));
            }
            0
        }
        "/" => a.wrapping_div(b),
        "%" => a.wrapping_rem(b),
        _ => 0,
    })
}

/// Value of an integer literal: decimal, `0x` hex or `0` octal, with any of the suffixes u, U, l, L.
fn literal(text: &str) -> Result<i64, String> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let suffix = &text[digits.len()..];
    let bad = || format!("invalid integer `{text}` in `#if` expression");
    if suffix.len() > 3 {
        return Err(bad());
    }
    let (radix, body) = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, h)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        if radix != 16 && body.contains(['.', 'e', 'E']) {
            return Err(format!(
                "floating-point number `{text}` in `#if` expression (only integers are allowed)"
            ));
        }
        return Err(bad());
    }
    u64::from_str_radix(body, radix)
        .map(|v| v as i64)
        .map_err(|_| format!("integer `{text}` is too large for `#if`"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preprocess::lex::lex;
    use crate::source::FileId;

    fn ev(s: &str) -> Result<i64, String> {
        let toks: Vec<Token> = lex(FileId(0), s)
            .0
            .into_iter()
            .filter(|t| t.kind != Kind::Newline)
            .collect();
        let end = Location {
            file: FileId(0),
            line: 1,
            column: 1,
        };
        eval(&toks, &|n| n == "X", end).map_err(|e| e.msg)
    }

    #[test]
    fn arithmetic_and_precedence() {
        assert_eq!(ev("1 + 2 * 3"), Ok(7));
        assert_eq!(ev("(1 + 2) * 3"), Ok(9));
        assert_eq!(ev("10 - 4 - 3"), Ok(3));
        assert_eq!(ev("1 << 4 >> 2"), Ok(4));
        assert_eq!(ev("7 & 3 | 8 ^ 1"), Ok(11));
        assert_eq!(ev("-5 / 2"), Ok(-2));
        assert_eq!(ev("-5 % 3"), Ok(-2));
        assert_eq!(ev("~0"), Ok(-1));
        assert_eq!(ev("!3 + !0"), Ok(1));
        assert_eq!(ev("+-+1"), Ok(-1));
        assert_eq!(ev("2 < 3 == 1"), Ok(1));
        assert_eq!(ev("3 >= 3 && 2 != 2"), Ok(0));
        assert_eq!(ev("1 ? 2 : 3"), Ok(2));
        assert_eq!(ev("0 ? 2 : 0 ? 3 : 4"), Ok(4));
        assert_eq!(ev("1 << 64"), Ok(0));
        assert_eq!(ev("-8 >> 70"), Ok(-1));
    }

    #[test]
    fn literals() {
        assert_eq!(ev("0x1F"), Ok(31));
        assert_eq!(ev("010"), Ok(8));
        assert_eq!(ev("0"), Ok(0));
        assert_eq!(ev("42u + 1UL + 2ll"), Ok(45));
        assert_eq!(ev("0xFFFFFFFFFFFFFFFF"), Ok(-1));
        assert!(ev("09").unwrap_err().contains("invalid integer"));
        assert!(ev("1.5").unwrap_err().contains("floating-point"));
        assert!(ev("99999999999999999999")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn identifiers_defined_and_short_circuit() {
        assert_eq!(ev("FOO"), Ok(0));
        assert_eq!(ev("defined X && defined(X)"), Ok(1));
        assert_eq!(ev("defined Y"), Ok(0));
        assert_eq!(ev("0 && 1 / 0"), Ok(0));
        assert_eq!(ev("1 || 1 % 0"), Ok(1));
        assert_eq!(ev("1 ? 1 : 1 / 0"), Ok(1));
        assert!(ev("1 / 0").unwrap_err().contains("division by zero"));
        assert!(ev("1 % 0").unwrap_err().contains("modulo by zero"));
    }

    #[test]
    fn malformed() {
        assert!(ev("").is_err());
        assert!(ev("1 +").is_err());
        assert!(ev("(1").is_err());
        assert!(ev("1 2").unwrap_err().contains("unexpected `2`"));
        assert!(ev("1 ? 2").is_err());
        assert!(ev("defined").is_err());
        assert!(ev("\"s\"").is_err());
        assert!(ev(&"(".repeat(10_000)).is_err());
        assert!(ev(&"-".repeat(10_000)).is_err());
    }
}
