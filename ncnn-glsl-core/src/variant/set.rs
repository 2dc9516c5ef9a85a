//! A variant set as `include_ncnn_shader!` embeds it in a binary: static
//! data only (no allocation at run time), and no dependency on naga.

use std::fmt;

use crate::device::DeviceCaps;
use crate::options::Options;
use crate::reflection::Reflection;
use crate::target::Target;

use super::select::{choose, Choice};
use super::space::Usage;

/// Every variant of one shader.
#[derive(Debug)]
pub struct VariantSet {
    /// The shader's file name, as given to the macro.
    pub name: &'static str,
    /// What of the extension the shader uses; decides which targets it tells apart.
    pub usage: Usage,
    /// The declared axes, build-time axes first, then device axes.
    pub axes: &'static [AxisInfo],
    /// Every variant, sorted by target, then axis values.
    pub variants: &'static [Variant],
}

/// One declared axis.
#[derive(Debug)]
pub struct AxisInfo {
    /// The macro's name.
    pub name: &'static str,
    /// The values built.
    pub values: &'static [i64],
    /// Whether it is a device macro (its value is read from the device).
    pub device: bool,
}

/// One variant.
#[derive(Debug)]
pub struct Variant {
    /// The canonical target it was built for.
    pub target: Target,
    /// One value per axis of [`VariantSet::axes`].
    pub axes: &'static [i64],
    /// Its compiled code; variants with identical SPIR-V share one.
    pub blob: &'static Blob,
}

/// Compiled code and what it needs. Made by `include_ncnn_shader!` (or by
/// [`Blob::new`], which is `unsafe`): a runtime runs a blob through safe
/// calls, so its words are trusted to stay inside what is bound to them.
/// (`non_exhaustive`: no struct literal makes one outside this crate.)
#[non_exhaustive]
pub struct Blob {
    /// The SPIR-V words.
    pub spirv: &'static [u32],
    /// Bindings, push constants, local size and device requirements.
    pub reflection: Reflection,
}

impl Blob {
    /// A blob of `spirv`, described by `reflection`. Safe code cannot make
    /// one, by this function or by a struct literal:
    ///
    /// ```compile_fail,E0133
    /// static WORDS: [u32; 1] = [0];
    /// let blob = ncnn_glsl_core::variant::Blob::new(&WORDS, Default::default());
    /// ```
    ///
    /// ```compile_fail,E0639
    /// let blob = ncnn_glsl_core::variant::Blob { spirv: &[], reflection: Default::default() };
    /// ```
    ///
    /// # Safety
    ///
    /// `spirv` is a valid SPIR-V module with one compute entry point `main`,
    /// `reflection` describes it exactly (bindings, push constants, local
    /// size and its specialization ids, specialization constants, features),
    /// and every memory access it makes stays inside the resources bound to
    /// it whatever the indices it computes, as in a blob of this crate's
    /// compiler (every index clamped into its array). A runtime runs blobs
    /// through safe calls: one that breaks this can crash or hang the driver
    /// or read and write memory outside its buffers.
    pub const unsafe fn new(spirv: &'static [u32], reflection: Reflection) -> Blob {
        Blob { spirv, reflection }
    }
}

impl fmt::Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blob")
            .field("spirv_words", &self.spirv.len())
            .field("reflection", &self.reflection)
            .finish()
    }
}

/// Why no variant could be chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectError {
    /// An axis value was not given, or given for no declared axis.
    Axes {
        /// The set's axes, build-time only.
        expected: Vec<&'static str>,
        /// What was given.
        given: Vec<String>,
    },
    /// A value the set was not built for.
    AxisValue {
        /// The axis.
        axis: &'static str,
        /// The value asked for.
        value: i64,
        /// The values built.
        built: &'static [i64],
    },
    /// The device gives a device macro a value the set was not built for.
    DeviceValue {
        /// The device macro.
        axis: &'static str,
        /// The device's value, if it has one.
        value: Option<i64>,
        /// The values built.
        built: &'static [i64],
    },
    /// Not even the fp32 variant is there (cannot happen for a set the macro built).
    NoVariant,
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::Axes { expected, given } => write!(
                f,
                "the shader's axes are [{}], but values were given for [{}]",
                expected.join(", "),
                given.join(", ")
            ),
            SelectError::AxisValue { axis, value, built } => write!(
                f,
                "axis `{axis}` = {value} was not built (built: {built:?})"
            ),
            SelectError::DeviceValue { axis, value: Some(v), built } => write!(
                f,
                "the device has `{axis}` = {v}, for which the set holds no variant (built: {built:?})"
            ),
            SelectError::DeviceValue { axis, value: None, built } => write!(
                f,
                "the device does not report `{axis}`, which the set needs (built: {built:?})"
            ),
            SelectError::NoVariant => write!(f, "the set holds no variant at all for this device"),
        }
    }
}

impl std::error::Error for SelectError {}

impl VariantSet {
    /// The variant `device` runs for `wanted` options, with the build-time
    /// axes set to `axes` (`(name, value)` pairs, one per build-time axis, in
    /// any order). Device axes are read from the device.
    pub fn select(
        &self,
        device: &DeviceCaps,
        wanted: Options,
        axes: &[(&str, i64)],
    ) -> Result<Choice<'_, Variant>, SelectError> {
        let mut values = Vec::with_capacity(self.axes.len());
        let build_axes: Vec<&'static str> = self
            .axes
            .iter()
            .filter(|a| !a.device)
            .map(|a| a.name)
            .collect();
        if axes.len() != build_axes.len() {
            return Err(axes_error(&build_axes, axes));
        }
        for a in self.axes {
            let value = if a.device {
                let v = super::device_value::device_axis_value(device, a.name);
                match v {
                    Some(v) if a.values.contains(&v) => v,
                    _ => {
                        return Err(SelectError::DeviceValue {
                            axis: a.name,
                            value: v,
                            built: a.values,
                        })
                    }
                }
            } else {
                let Some(&(_, v)) = axes.iter().find(|(n, _)| *n == a.name) else {
                    return Err(axes_error(&build_axes, axes));
                };
                if !a.values.contains(&v) {
                    return Err(SelectError::AxisValue {
                        axis: a.name,
                        value: v,
                        built: a.values,
                    });
                }
                v
            };
            values.push(value);
        }
        choose(self.usage, device, wanted, |t| self.find(t, &values)).ok_or(SelectError::NoVariant)
    }

    /// The variant built for exactly `target` and axis values `axes`.
    pub fn find(&self, target: Target, axes: &[i64]) -> Option<&Variant> {
        self.variants
            .binary_search_by(|v| (v.target, v.axes).cmp(&(target, axes)))
            .ok()
            .map(|i| &self.variants[i])
    }
}

fn axes_error(expected: &[&'static str], given: &[(&str, i64)]) -> SelectError {
    SelectError::Axes {
        expected: expected.to_vec(),
        given: given.iter().map(|(n, _)| n.to_string()).collect(),
    }
}
