//! The shape of the extension's tables: one row per name, one cell per
//! column of its mode class.

/// One name of the extension and its definition in each column.
///
/// `defs` pairs a column mask (bit `c` = column `c` of the row's class)
/// with the macro body, or `None` where the name is not defined. Every
/// column of the class appears in exactly one pair (a test checks it).
pub(crate) struct Row {
    /// The macro name.
    pub name: &'static str,
    /// `""` for an object-like macro, `"(a,b)"` for a function-like one.
    pub params: &'static str,
    /// (columns, body) pairs.
    pub defs: &'static [(u32, Option<&'static str>)],
}

impl Row {
    /// An object-like macro (a type).
    pub(crate) const fn obj(
        name: &'static str,
        defs: &'static [(u32, Option<&'static str>)],
    ) -> Row {
        Row {
            name,
            params: "",
            defs,
        }
    }

    /// A function-like macro.
    pub(crate) const fn func(
        name: &'static str,
        params: &'static str,
        defs: &'static [(u32, Option<&'static str>)],
    ) -> Row {
        Row { name, params, defs }
    }

    /// The body in column `bit`, if the name is defined there.
    pub(crate) fn body(&self, bit: u32) -> Option<&'static str> {
        self.defs
            .iter()
            .find(|(mask, _)| mask & bit != 0)
            .and_then(|(_, b)| *b)
    }
}
