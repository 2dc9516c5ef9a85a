//! A shader's declaration of its variant set, written next to the code as
//! `#pragma ncnn_glsl` lines of the shader file itself, so a reviewer sees it:
//!
//! ```glsl
//! #pragma ncnn_glsl axis IN_LAYOUT 0 1 2          // a build-time macro and the values to build
//! #pragma ncnn_glsl device ncnn_subgroupSize 32 64 // a device macro the shader tests, and its values
//! #pragma ncnn_glsl exclude fp16a                 // no variant with these flags is built
//! #pragma ncnn_glsl exclude bf16p[S16]            // ... nor with these flags on devices with these bits
//! ```
//!
//! Axes are macros defined for each variant (every combination of values is
//! built); `device` axes name device macros (section 8: a variant cannot
//! know its device, so the values it is built for must be declared); `exclude`
//! removes every variant whose options hold all the given flags, which the
//! fallback order then covers.

use crate::device::DeviceBits;
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::options::Options;
use crate::source::{FileId, Location, SourceMap};
use crate::target::Target;

/// A macro and the values the variant set is built for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The macro's name.
    pub name: String,
    /// The values, in declaration order.
    pub values: Vec<i64>,
    /// Where it is declared.
    pub at: Location,
}

/// Everything a shader declares about its variant set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declaration {
    /// Build-time axes (`axis`).
    pub axes: Vec<Axis>,
    /// Device macros the shader tests (`device`).
    pub device: Vec<Axis>,
    /// Flag sets (and device bits) whose variants are not built (`exclude`).
    pub exclude: Vec<(Target, Location)>,
}

impl Declaration {
    /// Whether a variant for `target` is excluded: some exclusion's flags
    /// are all in its options and its device bits all in its bits.
    pub fn excludes(&self, target: Target) -> bool {
        self.exclude.iter().any(|(e, _)| {
            let (a, b) = (e.bits, target.bits);
            e.options.is_subset_of(target.options)
                && (!a.storage16 || b.storage16)
                && (!a.uniform16 || b.uniform16)
                && (!a.int16 || b.int16)
                && (!a.int64 || b.int64)
        })
    }
}

/// The most values one axis may list, and the most variants all axes may
/// multiply to: beyond that a build would take minutes and the binary grow
/// past what anyone wants to ship (ncnn dropped prebuilt variants at 30 MB).
pub const MAX_AXIS_COMBINATIONS: usize = 256;

const PREFIX: &str = "ncnn_glsl";

/// Reads the `#pragma ncnn_glsl` lines of `file` (comments are skipped).
pub fn parse(sources: &SourceMap, file: FileId) -> Result<Declaration, Diagnostics> {
    let mut decl = Declaration::default();
    let mut errors = Vec::new();
    for (line_no, line) in code_lines(&sources.get(file).text) {
        let line = line.as_str();
        let trimmed = line.trim_start();
        let Some(rest) = trimmed.strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix("pragma") else {
            continue;
        };
        let mut words = WordIter::new(line, line.len() - rest.len());
        match words.next() {
            Some((w, _)) if w == PREFIX => {}
            _ => continue,
        }
        let at = |col: usize| Location {
            file,
            line: line_no,
            column: line[..col].chars().count() as u32 + 1,
        };
        let err = |col: usize, len: usize, msg: String| {
            Diagnostic::at(Span::at(sources, at(col), len.max(1) as u32), msg)
        };
        let Some((kind, kind_col)) = words.next() else {
            errors.push(err(
                line.len(),
                1,
                "`#pragma ncnn_glsl` needs `axis`, `device` or `exclude`".into(),
            ));
            continue;
        };
        match kind {
            "axis" | "device" => {
                let Some((name, name_col)) = words.next() else {
                    errors.push(err(
                        kind_col,
                        kind.len(),
                        format!("`{kind}` needs a macro name and its values"),
                    ));
                    continue;
                };
                if !is_identifier(name) {
                    errors.push(err(
                        name_col,
                        name.len(),
                        format!("`{name}` is not a macro name"),
                    ));
                    continue;
                }
                if kind == "device" && !name.starts_with("ncnn_") {
                    errors.push(err(
                        name_col,
                        name.len(),
                        format!(
                            "`{name}` is not a device macro (device macros start with `ncnn_`)"
                        ),
                    ));
                    continue;
                }
                let mut values = Vec::new();
                for (v, col) in words.by_ref() {
                    match parse_int(v) {
                        Some(x) if !values.contains(&x) => values.push(x),
                        Some(_) => errors.push(err(
                            col,
                            v.len(),
                            format!("value `{v}` of `{name}` is listed twice"),
                        )),
                        None => errors.push(err(
                            col,
                            v.len(),
                            format!("`{v}` is not an integer value for `{name}`"),
                        )),
                    }
                }
                if values.is_empty() {
                    errors.push(err(
                        name_col,
                        name.len(),
                        format!("`{name}` lists no values"),
                    ));
                    continue;
                }
                let all = decl.axes.iter().chain(&decl.device);
                if all.clone().any(|a| a.name == name) {
                    errors.push(err(
                        name_col,
                        name.len(),
                        format!("`{name}` is declared twice"),
                    ));
                    continue;
                }
                let axis = Axis {
                    name: name.to_string(),
                    values,
                    at: at(name_col),
                };
                if kind == "axis" {
                    decl.axes.push(axis);
                } else {
                    decl.device.push(axis);
                }
            }
            "exclude" => {
                let mut any = false;
                for (m, col) in words.by_ref() {
                    any = true;
                    match parse_exclusion(m) {
                        Ok(t) if t.options != Options::FP32 => decl.exclude.push((t, at(col))),
                        Ok(_) => errors.push(err(
                            col,
                            m.len(),
                            "`fp32` cannot be excluded: it is the last fallback".into(),
                        )),
                        Err(e) => errors.push(err(col, m.len(), e)),
                    }
                }
                if !any {
                    errors.push(err(
                        kind_col,
                        kind.len(),
                        "`exclude` needs a mode, e.g. `exclude fp16a`".into(),
                    ));
                }
            }
            other => errors.push(err(
                kind_col,
                other.len(),
                format!(
                    "unknown `#pragma ncnn_glsl {other}` (expected `axis`, `device` or `exclude`)"
                ),
            )),
        }
    }
    let combos = decl
        .axes
        .iter()
        .chain(&decl.device)
        .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
        .unwrap_or(usize::MAX);
    if errors.is_empty() && combos > MAX_AXIS_COMBINATIONS {
        let first = decl.axes.iter().chain(&decl.device).next().map(|a| a.at);
        let msg = format!("the axes multiply to {combos} combinations; at most {MAX_AXIS_COMBINATIONS} are allowed");
        errors.push(match first {
            Some(loc) => Diagnostic::at(Span::at(sources, loc, 1), msg),
            None => Diagnostic::new(msg),
        });
    }
    if errors.is_empty() {
        Ok(decl)
    } else {
        Err(Diagnostics(errors))
    }
}

/// `MODE` or `MODE[BITS]`, bits joined with `+` (`bf16p[S16]`, `fp16s+fp16a[I16+I64]`).
fn parse_exclusion(word: &str) -> Result<Target, String> {
    let (mode, bits) = match word.split_once('[') {
        Some((m, rest)) => match rest.strip_suffix(']') {
            Some(b) => (m, Some(b)),
            None => return Err(format!("`{word}`: `[` without a closing `]`")),
        },
        None => (word, None),
    };
    let options = mode.parse::<Options>().map_err(|e| e.to_string())?;
    let mut b = DeviceBits::default();
    for name in bits.into_iter().flat_map(|x| x.split('+')) {
        match name {
            "S16" => b.storage16 = true,
            "U16" => b.uniform16 = true,
            "I16" => b.int16 = true,
            "I64" => b.int64 = true,
            other => {
                return Err(format!(
                    "`{other}` in `{word}` is not a device bit (expected S16, U16, I16 or I64)"
                ))
            }
        }
    }
    Ok(Target { options, bits: b })
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let v = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => digits.parse::<i64>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// Whitespace-separated words of `line` from byte `start`, with their byte columns.
struct WordIter<'a> {
    line: &'a str,
    pos: usize,
}

impl<'a> WordIter<'a> {
    fn new(line: &'a str, pos: usize) -> Self {
        WordIter { line, pos }
    }
}

impl<'a> Iterator for WordIter<'a> {
    type Item = (&'a str, usize);
    fn next(&mut self) -> Option<(&'a str, usize)> {
        let rest = self.line.get(self.pos..)?;
        let skip = rest.len() - rest.trim_start().len();
        let start = self.pos + skip;
        let word_len = self.line[start..]
            .find(char::is_whitespace)
            .unwrap_or(self.line.len() - start);
        if word_len == 0 {
            return None;
        }
        self.pos = start + word_len;
        Some((&self.line[start..start + word_len], start))
    }
}

/// The lines of `text` with comments blanked out (same length, so columns
/// stay right), numbered from 1.
pub(crate) fn code_lines(text: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    for (i, raw) in text.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let mut line = String::with_capacity(raw.len());
        let mut chars = raw.char_indices().peekable();
        while let Some((_, c)) = chars.next() {
            if in_block {
                if c == '*' && chars.peek().map(|p| p.1) == Some('/') {
                    chars.next();
                    in_block = false;
                    line.push_str("  ");
                } else {
                    line.push(if c.is_ascii() { ' ' } else { c });
                }
            } else if c == '/' && chars.peek().map(|p| p.1) == Some('*') {
                chars.next();
                in_block = true;
                line.push_str("  ");
            } else if c == '/' && chars.peek().map(|p| p.1) == Some('/') {
                break;
            } else {
                line.push(c);
            }
        }
        out.push((i as u32 + 1, line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    fn parse_text(text: &str) -> Result<Declaration, String> {
        let mut s = SourceMap::new();
        let f = s.add(SourceFile {
            name: "x.comp".into(),
            path: None,
            text: text.into(),
        });
        parse(&s, f).map_err(|d| d.to_string())
    }

    #[test]
    fn reads_axes_device_macros_and_exclusions() {
        let d = parse_text(
            "#version 450\n#pragma ncnn_glsl axis IN_LAYOUT 0 1 2 // layouts\n  #  pragma ncnn_glsl device ncnn_subgroupSize 32 64\n#pragma ncnn_glsl exclude fp16a bf16s\n/* #pragma ncnn_glsl axis HIDDEN 1 */\n#pragma once\n",
        )
        .unwrap();
        assert_eq!(d.axes.len(), 1);
        assert_eq!(d.axes[0].name, "IN_LAYOUT");
        assert_eq!(d.axes[0].values, [0, 1, 2]);
        assert_eq!((d.axes[0].at.line, d.axes[0].at.column), (2, 24));
        assert_eq!(d.device[0].values, [32, 64]);
        let t = |m: &str| Target::for_mode(m.parse().unwrap());
        assert!(d.excludes(t("fp16s+fp16a")));
        assert!(!d.excludes(t("fp16s")));
        assert!(d.excludes(t("bf16s+int8p")));
    }

    #[test]
    fn errors_point_at_the_bad_word() {
        let e = parse_text("#version 450\n#pragma ncnn_glsl axis X 1 two\n").unwrap_err();
        assert!(
            e.starts_with("x.comp:2:28: error: `two` is not an integer value for `X`"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl device subgroupSize 8\n").unwrap_err();
        assert!(e.contains("not a device macro"), "{e}");
        let e = parse_text("#pragma ncnn_glsl exclude fp32\n").unwrap_err();
        assert!(e.contains("cannot be excluded"), "{e}");
        let e = parse_text("#pragma ncnn_glsl exclude fp61a\n").unwrap_err();
        assert!(e.contains("`fp61a` is not an option"), "{e}");
        let e = parse_text("#pragma ncnn_glsl axis A 1\n#pragma ncnn_glsl axis A 2\n").unwrap_err();
        assert!(
            e.contains("x.comp:2:24") && e.contains("declared twice"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl frobnicate\n").unwrap_err();
        assert!(e.contains("unknown `#pragma ncnn_glsl frobnicate`"), "{e}");
    }

    #[test]
    fn exclusions_can_name_device_bits() {
        let d = parse_text("#pragma ncnn_glsl exclude bf16p[S16] fp16s+fp16a[I16+I64]\n").unwrap();
        let t = |m: &str, s16: bool, i16: bool, i64: bool| Target {
            options: m.parse().unwrap(),
            bits: DeviceBits {
                storage16: s16,
                uniform16: false,
                int16: i16,
                int64: i64,
            },
        };
        assert!(d.excludes(t("bf16p", true, true, false)));
        assert!(!d.excludes(t("bf16p", false, true, false)));
        assert!(d.excludes(t("fp16s+fp16a", false, true, true)));
        assert!(!d.excludes(t("fp16s+fp16a", false, true, false)));
        let e = parse_text("#pragma ncnn_glsl exclude bf16p[X16]\n").unwrap_err();
        assert!(
            e.contains("`X16` in `bf16p[X16]` is not a device bit"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl exclude bf16p[S16\n").unwrap_err();
        assert!(e.contains("without a closing"), "{e}");
    }

    #[test]
    fn too_many_combinations_is_an_error() {
        let vals: Vec<String> = (0..20).map(|v| v.to_string()).collect();
        let t = format!(
            "#pragma ncnn_glsl axis A {v}\n#pragma ncnn_glsl axis B {v}\n",
            v = vals.join(" ")
        );
        assert!(parse_text(&t).unwrap_err().contains("400 combinations"));
    }
}
