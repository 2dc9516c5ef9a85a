//! A shader's declaration of its variant set, written next to the code as
//! `#pragma ncnn_glsl` lines of the shader file itself, so a reviewer sees it:
//!
//! ```glsl
//! #pragma ncnn_glsl axis IN_LAYOUT 0 1 2          // a build-time macro and the values to build
//! #pragma ncnn_glsl device ncnn_subgroupSize 32 64 // a device macro the shader tests, and its values
//! #pragma ncnn_glsl exclude fp16a                 // no variant with these flags is built
//! #pragma ncnn_glsl exclude fp16s+fp16a [I16 I64] // ... nor with these flags on devices with these bits
//! #pragma ncnn_glsl exclude [I64]                 // ... nor any on devices with these bits
//! ```
//!
//! Axes are macros defined for each variant (every combination of values is
//! built); `device` axes name device macros (section 8: a variant cannot
//! know its device, so the values it is built for must be declared); `exclude`
//! removes every variant whose options hold all the given flags and whose
//! device bits hold all the given bits, which the fallback order then covers.
//! (Variants of columns naga cannot express need no exclusion: the builder
//! leaves them out, `compile/inexpressible.rs`.)

use crate::device::DeviceBits;
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::options::Options;
use crate::source::{FileId, Location, SourceMap};
use crate::target::Target;

use super::device_value::OwnedOutcomes;

/// A macro and the values the variant set is built for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The macro's name.
    pub name: String,
    /// The values, in declaration order ([`UNDEFINED`](super::UNDEFINED) for a variant
    /// built without the macro).
    pub values: Vec<i64>,
    /// Where it is declared; for a device axis found from the shader's
    /// tests, its first use, in the files of the set's expansion.
    pub at: Location,
    /// For a device axis found from the shader's tests (no pragma): which
    /// device values run which built value (`variant/device_axes.rs`).
    pub outcomes: Option<OwnedOutcomes>,
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

/// The most variants a set may build: its axis combinations times its
/// targets (the modes, with the device bits that change their text) that
/// are not excluded. Beyond that a build would take minutes and the binary
/// grow past what anyone wants to ship (ncnn dropped prebuilt variants at
/// 30 MB); a shader without axes stays within it whatever it uses.
pub const MAX_VARIANTS: usize = 2048;

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
                    outcomes: None,
                };
                if kind == "axis" {
                    decl.axes.push(axis);
                } else {
                    decl.device.push(axis);
                }
            }
            "exclude" => {
                let items = exclusions(line, words.pos);
                if items.is_empty() {
                    errors.push(err(
                        kind_col,
                        kind.len(),
                        "`exclude` needs a mode or device bits, e.g. `exclude fp16a` or \
                         `exclude fp16s+fp16a [I64]`"
                            .into(),
                    ));
                }
                for item in items {
                    match item {
                        Ok((t, col)) => decl.exclude.push((t, at(col))),
                        Err((col, len, e)) => errors.push(err(col, len, e)),
                    }
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
    // Each combination is built for one target at least (the variant
    // builder counts them all before it expands anything).
    if errors.is_empty() && combos > MAX_VARIANTS {
        let first = decl.axes.iter().chain(&decl.device).next();
        let msg = format!(
            "the axes multiply to {combos} combinations, each built for every mode; at most \
             {MAX_VARIANTS} variants are allowed"
        );
        errors.push(match first {
            Some(a) => Diagnostic::at(Span::at(sources, a.at, a.name.len() as u32), msg),
            None => Diagnostic::new(msg),
        });
    }
    if errors.is_empty() {
        Ok(decl)
    } else {
        Err(Diagnostics(errors))
    }
}

/// The device bits an exclusion can name, by their short name (as
/// [`Target`] prints them) and by the Vulkan feature.
const BITS: [(&str, &str); 4] = [
    ("S16", "storageBuffer16BitAccess"),
    ("U16", "uniformAndStorageBuffer16BitAccess"),
    ("I16", "shaderInt16"),
    ("I64", "shaderInt64"),
];

/// One exclusion (its target and byte column), or an error (byte column,
/// length, message).
type Item = Result<(Target, usize), (usize, usize, String)>;

/// The exclusions of `line` from byte `start` (section 8):
///
/// - `MODE`: every variant whose options hold all of `MODE`'s flags;
/// - `MODE [BITS]` (also `MODE[BITS]`): only those built for a device with
///   all of `BITS`, which are `S16`, `U16`, `I16`, `I64` or the Vulkan
///   feature names, separated by spaces or `+` (a variant's key as
///   `ncnn-glsl variants` prints it, without the axis values);
/// - `[BITS]` alone (at the start or after another `[...]`): every variant
///   built for a device with all of `BITS`, whatever its mode.
fn exclusions(line: &str, start: usize) -> Vec<Item> {
    let mut out = Vec::new();
    let mut i = start;
    // The mode just read, still open to a `[BITS]` that follows it.
    let mut open: Option<(Options, usize)> = None;
    while let Some(c) = line[i..].chars().next() {
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        if c == '[' {
            let Some(close) = line[i..].find(']').map(|k| i + k) else {
                out.push(Err((i, line.len() - i, "`[` without a closing `]`".into())));
                return out;
            };
            let (options, col) = open.take().unwrap_or((Options::FP32, i));
            out.push(bits_group(line, i, close).map(|bits| (Target { options, bits }, col)));
            i = close + 1;
            continue;
        }
        if let Some((options, col)) = open.take() {
            out.push(mode_only(options, col));
        }
        if c == ']' {
            out.push(Err((i, 1, "`]` without an opening `[`".into())));
            i += 1;
            continue;
        }
        let end = line[i..]
            .find(|c: char| c.is_whitespace() || c == '[' || c == ']')
            .map_or(line.len(), |k| i + k);
        let word = &line[i..end];
        match word.parse::<Options>() {
            Ok(options) => open = Some((options, i)),
            Err(e) => {
                let message = if word.split('+').all(|p| bit_of(p).is_some()) {
                    format!(
                        "`{word}` is a device bit, not a mode: write it in brackets, \
                         `[{word}]` (any mode) or `MODE [{word}]`"
                    )
                } else {
                    format!("{e}; device bits go in brackets, e.g. `fp16s+fp16a [I64]`")
                };
                out.push(Err((i, word.len(), message)));
            }
        }
        i = end;
    }
    if let Some((options, col)) = open {
        out.push(mode_only(options, col));
    }
    out
}

/// An exclusion of a mode on every device; `fp32` alone is refused.
fn mode_only(options: Options, col: usize) -> Item {
    if options == Options::FP32 {
        return Err((
            col,
            4,
            "`fp32` cannot be excluded: it is the last fallback".into(),
        ));
    }
    Ok((
        Target {
            options,
            bits: DeviceBits::default(),
        },
        col,
    ))
}

/// The device bit named `name`, short or as the Vulkan feature.
fn bit_of(name: &str) -> Option<usize> {
    BITS.iter().position(|(s, f)| name == *s || name == *f)
}

/// The bits of the group `line[open..=close]` (`[I16 I64]`, `[I16+I64]`).
fn bits_group(line: &str, open: usize, close: usize) -> Result<DeviceBits, (usize, usize, String)> {
    let mut b = DeviceBits::default();
    let mut any = false;
    let inner = &line[open + 1..close];
    for part in inner.split(|c: char| c.is_whitespace() || c == '+') {
        if part.is_empty() {
            continue;
        }
        // The part's byte offset in `line` (separators may be wider than a byte).
        let col = open + 1 + (part.as_ptr() as usize - inner.as_ptr() as usize);
        any = true;
        match bit_of(part) {
            Some(0) => b.storage16 = true,
            Some(1) => b.uniform16 = true,
            Some(2) => b.int16 = true,
            Some(_) => b.int64 = true,
            None => {
                let names: Vec<String> = BITS.iter().map(|(s, f)| format!("{s} ({f})")).collect();
                return Err((
                    col,
                    part.len(),
                    format!(
                        "`{part}` is not a device bit (expected {})",
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    if !any {
        return Err((open, close + 1 - open, "`[]` names no device bit".into()));
    }
    Ok(b)
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
        // A key as `ncnn-glsl variants` prints it; the Vulkan feature names.
        for line in [
            "#pragma ncnn_glsl exclude fp16s+fp16a [I16 I64]\n",
            "#pragma ncnn_glsl exclude fp16s+fp16a [shaderInt16+shaderInt64]\n",
        ] {
            let d = parse_text(line).unwrap();
            assert_eq!(d.exclude.len(), 1, "{line}");
            assert!(d.excludes(t("fp16s+fp16a", true, true, true)), "{line}");
            assert!(
                d.excludes(t("fp16s+fp16a+fp16u", false, true, true)),
                "{line}"
            );
            assert!(!d.excludes(t("fp16s+fp16a", true, true, false)), "{line}");
            assert!(!d.excludes(t("fp16p+fp16a", true, true, true)), "{line}");
        }
        // Bits alone: any mode on a device with them; next to other items.
        let d = parse_text("#pragma ncnn_glsl exclude [I64] fp16a [S16] bf16s\n").unwrap();
        assert_eq!(d.exclude.len(), 3);
        assert!(d.excludes(t("fp16s+fp16a", false, true, true)));
        assert!(d.excludes(t("int16s", false, false, true)));
        assert!(!d.excludes(t("fp16s+fp16a", false, true, false)));
        assert!(d.excludes(t("fp16p+fp16a", true, false, false)));
        assert!(!d.excludes(t("fp16p+fp16a", false, false, false)));
        assert!(d.excludes(t("bf16s", false, false, false)));
        assert_eq!((d.exclude[1].1.line, d.exclude[1].1.column), (1, 33));
        // `fp32` with bits is every mode with them; `fp32` alone is refused.
        let d = parse_text("#pragma ncnn_glsl exclude fp32 [I64]\n").unwrap();
        assert!(d.excludes(t("fp16s+fp16a", false, true, true)));
        assert!(!d.excludes(t("fp32", false, false, false)));
    }

    #[test]
    fn bad_exclusions_point_at_the_bad_name() {
        let e = parse_text("#version 450\n#pragma ncnn_glsl exclude bf16p[X16]\n").unwrap_err();
        assert!(
            e.starts_with("x.comp:2:33: error: `X16` is not a device bit (expected S16 (storageBuffer16BitAccess), U16"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl exclude fp16s+fp16a [I16 int64]\n").unwrap_err();
        assert!(
            e.starts_with("x.comp:1:44: error: `int64` is not a device bit"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl exclude bf16p[S16\n").unwrap_err();
        assert!(
            e.starts_with("x.comp:1:32: error: `[` without a closing `]`"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl exclude fp16a I64\n").unwrap_err();
        assert!(
            e.starts_with("x.comp:1:33: error: `I64` is a device bit, not a mode: write it in brackets, `[I64]`"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl exclude int64\n").unwrap_err();
        assert!(
            e.starts_with("x.comp:1:27: error: invalid mode `int64`: `int64` is not an option")
                && e.contains("device bits go in brackets"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl exclude fp16a []\n").unwrap_err();
        assert!(
            e.starts_with("x.comp:1:33: error: `[]` names no device bit"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl exclude fp16a ]\n").unwrap_err();
        assert!(e.contains("`]` without an opening `[`"), "{e}");
        let e = parse_text("#pragma ncnn_glsl exclude\n").unwrap_err();
        assert!(e.contains("`exclude` needs a mode or device bits"), "{e}");
        // Any white space separates, and columns count characters.
        let e =
            parse_text("#pragma ncnn_glsl exclude\u{a0}fp16a\u{a0}[I16\u{a0}X16]\n").unwrap_err();
        assert!(
            e.starts_with("x.comp:1:38: error: `X16` is not a device bit"),
            "{e}"
        );
        let e = parse_text("#pragma ncnn_glsl exclude fp16a fp32\n").unwrap_err();
        assert!(
            e.starts_with("x.comp:1:33: error: `fp32` cannot be excluded"),
            "{e}"
        );
    }

    #[test]
    fn too_many_combinations_is_an_error() {
        let axes = |n: i64| {
            let vals: Vec<String> = (0..n).map(|v| v.to_string()).collect();
            format!(
                "#pragma ncnn_glsl axis A {v}\n#pragma ncnn_glsl axis B {v}\n",
                v = vals.join(" ")
            )
        };
        let e = parse_text(&axes(50)).unwrap_err();
        assert!(
            e.starts_with(
                "x.comp:1:24: error: the axes multiply to 2500 combinations, each built for \
                 every mode; at most 2048 variants are allowed"
            ),
            "{e}"
        );
        // Within the budget here; the builder counts the modes too.
        assert!(parse_text(&axes(45)).is_ok());
    }
}
