//! Shared helpers for the passes that rewrite the finished text before naga.
//!
//! Every rewrite keeps the text's length and line breaks, so a byte offset
//! naga reports in the rewritten text is the same offset in the finished text
//! and still maps through `Expanded::span_of`.

use super::tokens::{Kind, Token};

/// Overwrites `range` of `text` with `with`, padded with spaces to the same
/// length in bytes. `with` (ASCII) is cut to the range's length.
pub(crate) fn overwrite(text: &mut String, range: std::ops::Range<usize>, with: &str) {
    let with = &with[..with.len().min(range.len())];
    // Byte by byte, so a multi-byte char in a comment inside the range can
    // never be split; line breaks stay where they were.
    let rest = text.as_bytes()[range.start + with.len()..range.end]
        .iter()
        .map(|&b| if b == b'\n' { '\n' } else { ' ' });
    let repl: String = with.chars().chain(rest).collect();
    text.replace_range(range, &repl);
}

/// Parses an integer literal token as GLSL writes it (`12`, `0x1f`, `7u`).
pub(crate) fn int_literal(src: &str, t: &Token) -> Option<u32> {
    if t.kind != Kind::Number {
        return None;
    }
    let s = t.text(src).trim_end_matches(['u', 'U']);
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else if s.len() > 1 && s.starts_with('0') {
        u32::from_str_radix(&s[1..], 8).ok()
    } else {
        s.parse().ok()
    }
}

/// The brace depth before each token (a `{` token itself is at the outer depth).
pub(crate) fn brace_depths(src: &str, toks: &[Token]) -> Vec<u32> {
    let mut d = 0u32;
    toks.iter()
        .map(|t| {
            if t.is_punct(src, '}') {
                d = d.saturating_sub(1);
            }
            let here = d;
            if t.is_punct(src, '{') {
                d += 1;
            }
            here
        })
        .collect()
}

/// The index of the token that closes the bracket opened at `open`.
/// `None` when it is not closed within `toks` (or `open` is no `o`).
pub(crate) fn matching(src: &str, toks: &[Token], open: usize, o: char, c: char) -> Option<usize> {
    let t = toks.get(open)?;
    let close = open + t.partner;
    let found = t.is_punct(src, o) && t.partner > 0 && toks.get(close)?.is_punct(src, c);
    found.then_some(close)
}

/// The index of the token that opens the bracket closed at `close`; `None`
/// when it is not opened within `toks` (or `close` is no `c`).
pub(crate) fn opening(src: &str, toks: &[Token], close: usize, o: char, c: char) -> Option<usize> {
    let t = toks.get(close)?;
    let open = close.checked_sub(t.partner)?;
    let found = t.is_punct(src, c) && t.partner > 0 && toks[open].is_punct(src, o);
    found.then_some(open)
}

/// `set` and `binding` from the first `layout( ... )` among `toks`; `set`
/// defaults to 0 as in Vulkan GLSL.
pub(crate) fn layout_binding(src: &str, toks: &[Token]) -> Option<(u32, u32)> {
    let at = toks.iter().position(|t| t.text(src) == "layout")?;
    let mut set = 0;
    let mut binding = None;
    let mut k = at + 2;
    while k + 2 < toks.len() && !toks[k].is_punct(src, ')') {
        if toks[k + 1].is_punct(src, '=') {
            match toks[k].text(src) {
                "set" => set = int_literal(src, &toks[k + 2])?,
                "binding" => binding = int_literal(src, &toks[k + 2]),
                _ => {}
            }
        }
        k += 1;
    }
    Some((set, binding?))
}
