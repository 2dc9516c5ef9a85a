//! naga's GLSL parse errors in GLSL's words.
//!
//! naga names tokens by its lexer's enum (`Expected Semicolon, found
//! LeftBrace`, `found Identifier("x")`, `found TypeName(Type { name: None,
//! inner: Vector { .. } })`), words a shader's author never wrote. The token
//! found is shown as the text at its place (`found \`{\``), the tokens
//! expected through [`token_words`], a table from naga's token names to their
//! GLSL spelling.

use std::borrow::Cow;
use std::ops::Range;

use naga::front::glsl::{ErrorKind, ExpectedToken, Precision, TokenValue};
use naga::{Interpolation, Sampling, StorageAccess};

/// The message for a parse error of `kind` at bytes `range` of `text` (the
/// text naga parsed).
pub(crate) fn parse_error_message(
    kind: &ErrorKind,
    text: &str,
    range: Option<Range<usize>>,
) -> String {
    let at = range
        .and_then(|r| text.get(r))
        .map(str::trim)
        .filter(|t| !t.is_empty() && !t.contains('\n'));
    match kind {
        ErrorKind::InvalidToken(found, expected) => {
            let found = match at {
                Some(t) => format!("`{t}`"),
                None => token_words(found).into_owned(),
            };
            let expected: Vec<Cow<str>> = expected.iter().map(expected_words).collect();
            format!("expected {}, found {found}", one_of(&expected))
        }
        // pp-rs's error enum prints as `UnexpectedToken(Punct(LeftBrace))`:
        // its variant's name in words, and the text at its place.
        ErrorKind::PreprocessorError(e) => {
            let debug = format!("{e:?}");
            let name = debug.split('(').next().unwrap_or(&debug);
            match at {
                Some(t) => format!("naga's preprocessor: {} (`{t}`)", camel_words(name)),
                None => format!("naga's preprocessor: {}", camel_words(name)),
            }
        }
        other => other.to_string(),
    }
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(items: &[Cow<str>]) -> String {
    match items {
        [] => "something else".into(),
        [one] => one.to_string(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(|s| s.as_ref()).collect();
            format!("{} or {last}", init.join(", "))
        }
    }
}

fn expected_words(e: &ExpectedToken) -> Cow<'static, str> {
    match e {
        ExpectedToken::Token(t) => token_words(t),
        ExpectedToken::TypeName => "a type".into(),
        ExpectedToken::Identifier => "a name".into(),
        ExpectedToken::IntLiteral => "an integer".into(),
        ExpectedToken::FloatLiteral => "a floating-point number".into(),
        ExpectedToken::BoolLiteral => "a boolean".into(),
        ExpectedToken::Eof => "the end of the shader".into(),
    }
}

/// A token of naga's lexer as GLSL spells it. Exhaustive, so a naga that adds
/// a token does not build until the table names it.
pub(crate) fn token_words(t: &TokenValue) -> Cow<'static, str> {
    let s: &'static str = match t {
        TokenValue::Identifier(name) => return format!("`{name}`").into(),
        TokenValue::FloatConstant(f) => return format!("the number `{}`", f.value).into(),
        TokenValue::IntConstant(i) => {
            let u = if i.signed { "" } else { "u" };
            return format!("the number `{}{u}`", i.value).into();
        }
        TokenValue::BoolConstant(b) => return format!("`{b}`").into(),
        TokenValue::TypeName(ty) => {
            return match &ty.name {
                Some(name) => format!("the type `{name}`").into(),
                None => "a type name".into(),
            }
        }
        TokenValue::Layout => "`layout`",
        TokenValue::In => "`in`",
        TokenValue::Out => "`out`",
        TokenValue::InOut => "`inout`",
        TokenValue::Uniform => "`uniform`",
        TokenValue::Buffer => "`buffer`",
        TokenValue::Const => "`const`",
        TokenValue::Shared => "`shared`",
        TokenValue::Restrict => "`restrict`",
        TokenValue::MemoryQualifier(a) => {
            if *a == StorageAccess::LOAD {
                "`readonly`"
            } else if *a == StorageAccess::STORE {
                "`writeonly`"
            } else {
                "a memory qualifier"
            }
        }
        TokenValue::Invariant => "`invariant`",
        TokenValue::Interpolation(i) => match i {
            Interpolation::Flat => "`flat`",
            Interpolation::Linear => "`noperspective`",
            Interpolation::Perspective => "`smooth`",
            _ => "an interpolation qualifier",
        },
        TokenValue::Sampling(s) => match s {
            Sampling::Centroid => "`centroid`",
            Sampling::Sample => "`sample`",
            _ => "a sampling qualifier",
        },
        TokenValue::Precision => "`precision`",
        TokenValue::PrecisionQualifier(p) => match p {
            Precision::Low => "`lowp`",
            Precision::Medium => "`mediump`",
            Precision::High => "`highp`",
        },
        TokenValue::Continue => "`continue`",
        TokenValue::Break => "`break`",
        TokenValue::Return => "`return`",
        TokenValue::Discard => "`discard`",
        TokenValue::If => "`if`",
        TokenValue::Else => "`else`",
        TokenValue::Switch => "`switch`",
        TokenValue::Case => "`case`",
        TokenValue::Default => "`default`",
        TokenValue::While => "`while`",
        TokenValue::Do => "`do`",
        TokenValue::For => "`for`",
        TokenValue::Void => "`void`",
        TokenValue::Struct => "`struct`",
        TokenValue::Assign => "`=`",
        TokenValue::AddAssign => "`+=`",
        TokenValue::SubAssign => "`-=`",
        TokenValue::MulAssign => "`*=`",
        TokenValue::DivAssign => "`/=`",
        TokenValue::ModAssign => "`%=`",
        TokenValue::LeftShiftAssign => "`<<=`",
        TokenValue::RightShiftAssign => "`>>=`",
        TokenValue::AndAssign => "`&=`",
        TokenValue::XorAssign => "`^=`",
        TokenValue::OrAssign => "`|=`",
        TokenValue::Increment => "`++`",
        TokenValue::Decrement => "`--`",
        TokenValue::LogicalOr => "`||`",
        TokenValue::LogicalAnd => "`&&`",
        TokenValue::LogicalXor => "`^^`",
        TokenValue::LessEqual => "`<=`",
        TokenValue::GreaterEqual => "`>=`",
        TokenValue::Equal => "`==`",
        TokenValue::NotEqual => "`!=`",
        TokenValue::LeftShift => "`<<`",
        TokenValue::RightShift => "`>>`",
        TokenValue::LeftBrace => "`{`",
        TokenValue::RightBrace => "`}`",
        TokenValue::LeftParen => "`(`",
        TokenValue::RightParen => "`)`",
        TokenValue::LeftBracket => "`[`",
        TokenValue::RightBracket => "`]`",
        TokenValue::LeftAngle => "`<`",
        TokenValue::RightAngle => "`>`",
        TokenValue::Comma => "`,`",
        TokenValue::Semicolon => "`;`",
        TokenValue::Colon => "`:`",
        TokenValue::Dot => "`.`",
        TokenValue::Bang => "`!`",
        TokenValue::Dash => "`-`",
        TokenValue::Tilde => "`~`",
        TokenValue::Plus => "`+`",
        TokenValue::Star => "`*`",
        TokenValue::Slash => "`/`",
        TokenValue::Percent => "`%`",
        TokenValue::VerticalBar => "`|`",
        TokenValue::Caret => "`^`",
        TokenValue::Ampersand => "`&`",
        TokenValue::Question => "`?`",
    };
    s.into()
}

/// `UnexpectedHash` as `unexpected hash`.
fn camel_words(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() && !out.is_empty() {
            out.push(' ');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_read_as_glsl() {
        let e = ErrorKind::InvalidToken(
            TokenValue::LeftBrace,
            vec![TokenValue::Semicolon.into(), ExpectedToken::Identifier],
        );
        // No text at the place: the table's words.
        assert_eq!(
            parse_error_message(&e, "", None),
            "expected `;` or a name, found `{`"
        );
        // The text at the place, as the user wrote it.
        let text = "x = vec4 ;";
        assert_eq!(
            parse_error_message(&e, text, Some(4..8)),
            "expected `;` or a name, found `vec4`"
        );
        let e = ErrorKind::InvalidToken(
            TokenValue::Identifier("oops".into()),
            vec![
                TokenValue::Comma.into(),
                TokenValue::RightParen.into(),
                TokenValue::Star.into(),
            ],
        );
        assert_eq!(
            parse_error_message(&e, "", None),
            "expected `,`, `)` or `*`, found `oops`"
        );
        assert_eq!(token_words(&TokenValue::LogicalXor), "`^^`");
        assert_eq!(token_words(&TokenValue::BoolConstant(true)), "`true`");
        assert_eq!(
            token_words(&TokenValue::MemoryQualifier(StorageAccess::STORE)),
            "`writeonly`"
        );
        // Other errors are naga's own sentences.
        assert_eq!(
            parse_error_message(&ErrorKind::UnknownVariable("v".into()), "", None),
            "Unknown variable: v"
        );
        assert_eq!(camel_words("UnexpectedHash"), "unexpected hash");
    }
}
