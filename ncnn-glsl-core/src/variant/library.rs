//! A library of shaders as `include_ncnn_library!` embeds it: every shader's
//! variant set, asked for by index or by name, as ncnn's
//! `compile_spirv_module(shader_type_index, opt)` is.

use std::fmt;

use crate::device::DeviceCaps;
use crate::options::Options;

use super::select::Choice;
use super::set::{SelectError, Variant, VariantSet};

/// Every shader of a library, in the order of its generated `Shader` enum.
#[derive(Debug)]
pub struct Library {
    /// The shaders' names: their paths below the library's directory,
    /// without the extension (`conv/3x3_pack4`).
    pub names: &'static [&'static str],
    /// Their variant sets, one per name.
    pub sets: &'static [&'static VariantSet],
}

/// Why a library gave no variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LibraryError {
    /// No shader has this index.
    Index {
        /// The index asked for.
        index: usize,
        /// How many shaders the library has.
        len: usize,
    },
    /// No shader has this name.
    Name(String),
    /// The shader's set gave none.
    Select {
        /// The shader.
        shader: &'static str,
        /// Why.
        error: SelectError,
    },
}

impl fmt::Display for LibraryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LibraryError::Index { index, len } => write!(
                f,
                "the library has no shader {index}: it has {len} (indices 0..{len})"
            ),
            LibraryError::Name(n) => write!(f, "the library has no shader named `{n}`"),
            LibraryError::Select { shader, error } => write!(f, "shader `{shader}`: {error}"),
        }
    }
}

impl std::error::Error for LibraryError {}

impl Library {
    /// How many shaders it holds.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// The set of shader `index`.
    pub fn get(&self, index: usize) -> Result<&'static VariantSet, LibraryError> {
        self.sets.get(index).copied().ok_or(LibraryError::Index {
            index,
            len: self.len(),
        })
    }

    /// The index of the shader named `name`.
    pub fn index_of(&self, name: &str) -> Result<usize, LibraryError> {
        self.names
            .iter()
            .position(|n| *n == name)
            .ok_or_else(|| LibraryError::Name(name.to_string()))
    }

    /// The set of the shader named `name`.
    pub fn by_name(&self, name: &str) -> Result<&'static VariantSet, LibraryError> {
        self.get(self.index_of(name)?)
    }

    /// The variant of shader `index` that `device` runs for `wanted`
    /// options and the build-time axis values `axes` ([`VariantSet::select`]).
    pub fn select(
        &self,
        index: usize,
        device: &DeviceCaps,
        wanted: Options,
        axes: &[(&str, i64)],
    ) -> Result<Choice<'static, Variant>, LibraryError> {
        let set = self.get(index)?;
        set.select(device, wanted, axes)
            .map_err(|error| LibraryError::Select {
                shader: self.names.get(index).copied().unwrap_or(set.name),
                error,
            })
    }
}
