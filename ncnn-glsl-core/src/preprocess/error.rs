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

    /// An error at `t`, underlining it: where the user wrote it, or at the
    /// macro use when it came from a macro's body.
    pub(crate) fn at(t: &Token, msg: String) -> PpError {
        let (loc, exact) = t.place();
        let len = if exact { t.width() } else { 1 };
        PpError::new(loc, len, msg)
    }

    pub(crate) fn fatal(mut self) -> PpError {
        self.fatal = true;
        self
    }
}
