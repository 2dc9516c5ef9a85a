//! Integer literals past 32 bits, refused at their token: naga wraps them
//! silently (`binding = 4294967297` is binding 1, `local_size_x =
//! 4294967360` is 64), where glslang refuses them. 64-bit literals (`l`,
//! `ul`) and floats are left alone.

use super::tokens::{Kind, Token};

/// One literal too large: its byte range and text.
pub(crate) struct TooLarge {
    pub range: std::ops::Range<usize>,
    pub text: String,
}

/// Every unsuffixed or `u`-suffixed integer literal of `toks` whose value
/// exceeds `u32::MAX`.
pub(crate) fn scan(src: &str, toks: &[Token]) -> Vec<TooLarge> {
    toks.iter()
        .filter(|t| t.kind == Kind::Number)
        .filter(|t| value(t.text(src)).is_some_and(|v| v > u128::from(u32::MAX)))
        .map(|t| TooLarge {
            range: t.start..t.end,
            text: t.text(src).to_string(),
        })
        .collect()
}

/// The value of a 32-bit integer literal (decimal, `0x` hex or `0` octal,
/// optional `u`), saturated at `u128::MAX`; `None` for floats, 64-bit
/// literals and anything else.
fn value(text: &str) -> Option<u128> {
    let body = text.strip_suffix(['u', 'U']).unwrap_or(text);
    let (digits, radix) = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None if body.len() > 1 && body.starts_with('0') => (&body[1..], 8),
        None => (body, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(digits.chars().fold(0u128, |v, c| {
        v.saturating_mul(radix.into())
            .saturating_add(c.to_digit(radix).unwrap_or(0).into())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::tokens::tokenize;

    #[test]
    fn literals_past_32_bits_are_found_and_others_are_not() {
        let src = "layout (binding = 4294967297) buffer b { uint d[]; }; \
                   uint a = 4294967295u; uint b = 0x100000000; uint c = 0xffffffff; \
                   int64_t e = 4294967296l; uint64_t f = 99999999999ul; float g = 4294967296.0; \
                   double h = 1e20; uint i = 040000000000; uint j = 037777777777; \
                   uint k = 123456789012345678901234567890123456789012345;";
        let found: Vec<String> = scan(src, &tokenize(src))
            .into_iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(
            found,
            [
                "4294967297",
                "0x100000000",
                "040000000000",
                "123456789012345678901234567890123456789012345"
            ]
        );
    }
}
