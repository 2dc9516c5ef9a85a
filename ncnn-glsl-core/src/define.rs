//! Macros defined before a shader's own text, as glslang's and a C
//! compiler's `-D NAME[=VALUE]`: `ncnn-glsl -D`, or the macro's
//! `defines = ["NAME", "NAME=VALUE"]`.
//!
//! A define is checked when it is made ([`Define::parse`]), so an error names
//! the argument the user gave, where the user gave it, and the preprocessor
//! never meets a define it cannot take. What is refused:
//!
//! - a name that is not an identifier (function-like defines, `F(x)=...`, are
//!   not taken: a shader that needs one can `#define` it itself);
//! - the names the extension defines itself: the option macros
//!   (`NCNN_fp16_storage`, ..., `ncnn_glsl_version`: they follow the mode),
//!   every name of its tables (`sfpvec4`, `buffer_ld4`, `psc`, ...), its
//!   private helpers (`ncnnext_...`), the device macros (`ncnn_...`: they
//!   follow the device, or a `#pragma ncnn_glsl device` axis), GLSL's
//!   reserved `GL_...` and the preprocessor's `defined`, `__LINE__`,
//!   `__FILE__`, `__VERSION__`;
//! - a value that spans lines or is not a macro body (an unterminated
//!   comment, `##` at either end).
//!
//! Where a define is defined: after the extension's prelude, before the
//! shader's first line after `#version`; so the extension's own text never
//! sees it and the shader always does. Diagnostics that point into a define
//! name the virtual file [`DEFINE_FILE_NAME`] and show the define as it was
//! given (`FOO=1`), column by column.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// The display name of the virtual file that holds one define's spelling.
pub const DEFINE_FILE_NAME: &str = "<define>";

/// A macro defined before the shader's text: `NAME` (defined as `1`) or
/// `NAME=VALUE` (`VALUE` may be empty). Made only through [`Define::parse`]
/// or [`Define::new`], so it is always one the preprocessor takes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Define {
    name: String,
    /// `None` when spelled without `=` (the value is then `1`).
    value: Option<String>,
}

impl Define {
    /// `NAME` or `NAME=VALUE`, as `-D` takes it. The first `=` splits name
    /// and value; the name is not trimmed (`" X"` is not a name).
    pub fn parse(spec: &str) -> Result<Define, DefineError> {
        match spec.split_once('=') {
            Some((name, value)) => Define::new(name, Some(value)),
            None => Define::new(spec, None),
        }
    }

    /// `name`, defined as `value` (as `1` when `None`).
    pub fn new(name: &str, value: Option<&str>) -> Result<Define, DefineError> {
        check_name(name)?;
        if let Some(v) = value {
            if let Some(why) = crate::preprocess::object_body_problem(v) {
                return Err(DefineError::BadValue {
                    name: name.to_string(),
                    why,
                });
            }
        }
        Ok(Define {
            name: name.to_string(),
            value: value.map(str::to_string),
        })
    }

    /// The macro's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The macro's body: `1` when spelled without `=`.
    pub fn value(&self) -> &str {
        self.value.as_deref().unwrap_or("1")
    }

    /// As given: `NAME` or `NAME=VALUE`.
    pub fn spelling(&self) -> String {
        self.to_string()
    }

    /// The first define of `defines` whose name an earlier one has already.
    pub fn check_unique(defines: &[Define]) -> Result<(), DefineError> {
        for (i, d) in defines.iter().enumerate() {
            if let Some(first) = defines[..i].iter().find(|e| e.name == d.name) {
                return Err(DefineError::Twice {
                    first: first.spelling(),
                    second: d.spelling(),
                });
            }
        }
        Ok(())
    }
}

impl fmt::Display for Define {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Some(v) => write!(f, "{}={v}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

impl FromStr for Define {
    type Err = DefineError;
    fn from_str(s: &str) -> Result<Define, DefineError> {
        Define::parse(s)
    }
}

/// Why a define is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefineError {
    /// Nothing before the `=` (or nothing at all).
    NoName {
        /// The define as given.
        spec: String,
    },
    /// The name is not an identifier.
    NotAName {
        /// The name as given.
        name: String,
    },
    /// The name is one the extension, GLSL or the preprocessor defines itself.
    Reserved {
        /// The name.
        name: String,
        /// Who defines it, and what to do instead.
        why: &'static str,
    },
    /// The value is not the body of a macro.
    BadValue {
        /// The macro's name.
        name: String,
        /// What is wrong with the value.
        why: String,
    },
    /// Two defines of one name.
    Twice {
        /// The first, as given.
        first: String,
        /// The second, as given.
        second: String,
    },
}

impl fmt::Display for DefineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefineError::NoName { spec } => {
                write!(f, "`{spec}` names no macro: write `NAME` or `NAME=VALUE`")
            }
            DefineError::NotAName { name } => write!(
                f,
                "`{name}` is not a macro name: a letter or `_`, then letters, digits or `_`"
            ),
            DefineError::Reserved { name, why } => write!(f, "`{name}` cannot be defined: {why}"),
            DefineError::BadValue { name, why } => write!(f, "the value of `{name}` {why}"),
            DefineError::Twice { first, second } => {
                let name = first.split('=').next().unwrap_or(first);
                write!(f, "`{name}` is defined twice: `{first}` and `{second}`")
            }
        }
    }
}

impl std::error::Error for DefineError {}

fn check_name(name: &str) -> Result<(), DefineError> {
    if name.is_empty() {
        return Err(DefineError::NoName {
            spec: name.to_string(),
        });
    }
    let mut chars = name.chars();
    let ident = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident {
        return Err(DefineError::NotAName {
            name: name.to_string(),
        });
    }
    match reserved(name) {
        Some(why) => Err(DefineError::Reserved {
            name: name.to_string(),
            why,
        }),
        None => Ok(()),
    }
}

/// Who defines `name` when a define may not, as a clause for
/// [`DefineError::Reserved`].
fn reserved(name: &str) -> Option<&'static str> {
    use crate::ext::OPTION_MACROS;
    if OPTION_MACROS.iter().any(|(n, _)| *n == name) || name == "ncnn_glsl_version" {
        return Some("the extension defines it from the mode (choose the mode instead)");
    }
    if name.starts_with("ncnn_") {
        return Some(
            "names starting with `ncnn_` are device macros, defined from the device \
             description (or, in a variant set, from its `#pragma ncnn_glsl device` axis)",
        );
    }
    if name.starts_with("ncnnext_") {
        return Some("names starting with `ncnnext_` are the extension's private helpers");
    }
    if name.starts_with("GL_") {
        return Some("names starting with `GL_` are reserved by GLSL");
    }
    if matches!(name, "defined" | "__LINE__" | "__FILE__" | "__VERSION__") {
        return Some("the preprocessor defines it itself");
    }
    if extension_names().contains(name) {
        return Some("it is a name of the extension (docs/extension.md), defined for every mode");
    }
    None
}

/// Every macro name the extension's prelude defines in any mode: the
/// `#define`s of the preludes of the spec's targets, which cover every
/// column of its tables.
fn extension_names() -> &'static BTreeSet<String> {
    static NAMES: OnceLock<BTreeSet<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names = BTreeSet::new();
        for t in crate::ext::spec_targets() {
            for line in crate::ext::prelude(&t, None).lines() {
                let Some(rest) = line.trim_start().strip_prefix("#define") else {
                    continue;
                };
                let name: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    names.insert(name);
                }
            }
        }
        names
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(spec: &str) -> String {
        Define::parse(spec).unwrap_err().to_string()
    }

    #[test]
    fn name_alone_is_one_and_the_first_equals_splits() {
        let d = Define::parse("FOO").unwrap();
        assert_eq!(
            (d.name(), d.value(), d.spelling()),
            ("FOO", "1", "FOO".into())
        );
        let d = Define::parse("BAR=a == b").unwrap();
        assert_eq!((d.name(), d.value()), ("BAR", "a == b"));
        assert_eq!(d.to_string(), "BAR=a == b");
        let d: Define = "E=".parse().unwrap();
        assert_eq!(d.value(), "");
    }

    #[test]
    fn bad_names_are_refused_with_the_reason() {
        assert_eq!(err(""), "`` names no macro: write `NAME` or `NAME=VALUE`");
        assert_eq!(err("=1"), "`` names no macro: write `NAME` or `NAME=VALUE`");
        assert_eq!(
            err("1X=2"),
            "`1X` is not a macro name: a letter or `_`, then letters, digits or `_`"
        );
        assert!(err("F(x)=x").starts_with("`F(x)` is not a macro name"));
        assert!(err(" X").starts_with("` X` is not a macro name"));
        assert_eq!(
            err("NCNN_fp16_storage"),
            "`NCNN_fp16_storage` cannot be defined: the extension defines it from the mode (choose the mode instead)"
        );
        assert!(err("ncnn_glsl_version").contains("from the mode"));
        assert!(err("ncnn_subgroupSize=32").contains("device macros"));
        assert!(err("ncnnext_ld_lane").contains("private helpers"));
        assert!(err("GL_EXT_x").contains("reserved by GLSL"));
        assert!(err("__LINE__").contains("the preprocessor defines it"));
        assert!(err("defined").contains("the preprocessor defines it"));
        for name in [
            "sfpvec4",
            "afp",
            "buffer_ld4",
            "buffer_st4",
            "psc",
            "lfpvec4",
        ] {
            assert!(
                err(name).contains("it is a name of the extension"),
                "{name}: {}",
                err(name)
            );
        }
        // A name the extension does not define is free, even one like its own.
        assert!(Define::parse("NCNN_moltenvk").is_ok());
        assert!(Define::parse("sfpvec5").is_ok());
    }

    #[test]
    fn bad_values_are_refused_with_the_reason() {
        assert_eq!(
            err("X=1\n#define Y 2"),
            "the value of `X` spans lines (a define is one line)"
        );
        assert_eq!(
            err("X=a\rb"),
            "the value of `X` spans lines (a define is one line)"
        );
        assert_eq!(
            err("X=1 /* open"),
            "the value of `X` has an unterminated comment"
        );
        assert_eq!(
            err("X=## a"),
            "the value of `X` has `##` at an end (`##` joins two tokens)"
        );
        assert!(err("X=a ##").contains("`##` at an end"));
        // A closed comment, `#` and `##` inside are fine, as in a `#define`.
        assert!(Define::parse("X=a /* c */ ## b # c").is_ok());
    }

    #[test]
    fn duplicates_name_both() {
        let ds = ["A=1", "B", "A=2"].map(|s| Define::parse(s).unwrap());
        assert_eq!(
            Define::check_unique(&ds).unwrap_err().to_string(),
            "`A` is defined twice: `A=1` and `A=2`"
        );
        assert!(Define::check_unique(&ds[..2]).is_ok());
    }
}
