//! The preprocessor's errors, before they are resolved into diagnostics.

use super::lex::Token;
use crate::source::Location;

/// An error found while preprocessing, before it is resolved into a [`Diagnostic`].
#[derive(Clone, Debug)]
pub(crate) struct PpError {
    pub(crate) loc: Location,
    pub(crate) len: u32,
    pub(crate) msg: String,
    /// Processing cannot sensibly go on (limits hit, no `#version`).
    pub(crate) fatal: bool,
}

impl PpError {
    pub(crate) fn new(loc: Location, len: u32, msg: String) -> PpError {
        PpError {
            loc,
            len,
            msg,
            fatal: false,
        }
    }

    /// An error at `t`, underlining it (at the macro use when `t` came from an expansion).
    pub(crate) fn at(t: &Token, msg: String) -> PpError {
        let len = if t.site.is_some() { 1 } else { t.width() };
        PpError::new(t.at(), len, msg)
    }

    pub(crate) fn fatal(mut self) -> PpError {
        self.fatal = true;
        self
    }
}
