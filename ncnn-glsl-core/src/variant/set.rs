//! A variant set as `include_ncnn_shader!` embeds it in a binary: static
//! data (the one allocation: a blob's words, decompressed when first used),
//! and no dependency on naga.

use std::fmt;
use std::sync::OnceLock;

use crate::device::DeviceCaps;
use crate::options::Options;
use crate::reflection::Reflection;
use crate::target::Target;

use super::device_value::{axis_value_for, Outcomes};
use super::reflections::{Reflections, NONE};
use super::select::{choose, Choice};
use super::space::Usage;
use super::table;

/// Every variant of one shader.
#[derive(Debug)]
pub struct VariantSet {
    /// The shader's file name, as given to the macro.
    pub name: &'static str,
    /// What of the extension the shader uses; decides which targets it tells apart.
    pub usage: Usage,
    /// The declared axes, build-time axes first, then device axes.
    pub axes: &'static [AxisInfo],
    variants: Variants,
}

/// Where a set's variants are.
#[derive(Debug)]
enum Variants {
    Listed(&'static [Variant]),
    Table(&'static VariantTable),
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
    /// For a device axis found from the shader's tests (no pragma): which
    /// device values run which value built; a declared axis runs only the
    /// values it lists.
    pub outcomes: Option<Outcomes>,
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
/// [`Blob::new`] and [`Blob::compressed`], which are `unsafe`): a runtime
/// runs a blob through safe calls, so its words are trusted to stay inside
/// what is bound to them. (`non_exhaustive`: no struct literal makes one
/// outside this crate.)
///
/// The macro embeds the SPIR-V compressed ([`super::packed`]);
/// [`Blob::spirv`] decompresses it the first time it is asked for, once,
/// and keeps the words for the life of the blob.
#[non_exhaustive]
pub struct Blob {
    described: Described,
    code: Code,
    /// The decompressed words of a [`Code::Packed`] blob, once asked for.
    unpacked: OnceLock<Box<[u32]>>,
}

/// Where a blob's reflection is.
// A blob is `'static` data made by `const fn`s, where a reflection cannot be
// boxed; the large variant is the hand-made blob's, the rare one.
#[allow(clippy::large_enum_variant)]
enum Described {
    Here(Reflection),
    /// Entry `index` of its set's table, as the macro embeds it.
    Table(&'static Reflections, usize),
}

/// How a blob's SPIR-V is stored.
enum Code {
    Words(&'static [u32]),
    /// [`super::packed::pack`]'s bytes and the word count they hold.
    Packed {
        bytes: &'static [u8],
        words: usize,
    },
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
    /// let blob = ncnn_glsl_core::variant::Blob {};
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
        Blob {
            described: Described::Here(reflection),
            code: Code::Words(spirv),
            unpacked: OnceLock::new(),
        }
    }

    /// A blob whose SPIR-V is `bytes`, [`super::packed::pack`]'s output for
    /// `words` words, described by `reflection`: what the macro embeds. The
    /// words are decompressed the first time [`Blob::spirv`] is called.
    /// Safe code cannot call it:
    ///
    /// ```compile_fail,E0133
    /// let blob = ncnn_glsl_core::variant::Blob::compressed(b"", 0, Default::default());
    /// ```
    ///
    /// # Safety
    ///
    /// `bytes` decompress to exactly `words` words, which meet everything
    /// [`Blob::new`] asks of its `spirv` with `reflection`. (Bytes that do
    /// not decompress give an empty module, which a runtime's check
    /// refuses; the promise is about what they hold when they do.)
    pub const unsafe fn compressed(
        bytes: &'static [u8],
        words: usize,
        reflection: Reflection,
    ) -> Blob {
        Blob {
            described: Described::Here(reflection),
            code: Code::Packed { bytes, words },
            unpacked: OnceLock::new(),
        }
    }

    /// What the macro embeds: a blob whose SPIR-V is `bytes`, as in
    /// [`Blob::compressed`], described by entry `index` of its set's
    /// `reflections`. Safe code cannot call it:
    ///
    /// ```compile_fail,E0133
    /// static R: ncnn_glsl_core::variant::Reflections =
    ///     unsafe { ncnn_glsl_core::variant::Reflections::compressed(b"", 0) };
    /// let blob = ncnn_glsl_core::variant::Blob::embedded(b"", 0, &R, 0);
    /// ```
    ///
    /// # Safety
    ///
    /// As [`Blob::compressed`], with the reflection `reflections` holds at
    /// `index`. (A table that does not decode, or has no entry `index`,
    /// leaves the blob without SPIR-V, which a runtime's check refuses.)
    pub const unsafe fn embedded(
        bytes: &'static [u8],
        words: usize,
        reflections: &'static Reflections,
        index: usize,
    ) -> Blob {
        Blob {
            described: Described::Table(reflections, index),
            code: Code::Packed { bytes, words },
            unpacked: OnceLock::new(),
        }
    }

    /// Bindings, push constants, local size and device requirements. An
    /// embedded blob's set decodes its table on the first call (once).
    pub fn reflection(&self) -> &Reflection {
        self.described().unwrap_or(&NONE)
    }

    fn described(&self) -> Option<&Reflection> {
        match &self.described {
            Described::Here(r) => Some(r),
            Described::Table(table, index) => table.get(*index),
        }
    }

    /// The SPIR-V words. A compressed blob is decompressed on the first
    /// call (once, whichever thread gets there first); later calls return
    /// the same words without work. Bytes that do not decompress to the
    /// stored word count, or a blob whose reflection does not decode, give
    /// an empty slice, never a panic: the runtime's check of a blob refuses
    /// an empty module.
    pub fn spirv(&self) -> &[u32] {
        if self.described().is_none() {
            return &[];
        }
        match self.code {
            Code::Words(words) => words,
            Code::Packed { bytes, words } => self.unpacked.get_or_init(|| {
                super::packed::unpack(bytes, words)
                    .map(Vec::into_boxed_slice)
                    .unwrap_or_default()
            }),
        }
    }

    /// How many words the SPIR-V has, without decompressing it.
    pub fn spirv_len(&self) -> usize {
        match self.code {
            Code::Words(words) => words.len(),
            Code::Packed { words, .. } => words,
        }
    }

    /// The bytes the SPIR-V takes in the binary: compressed, or the words.
    pub fn embedded_bytes(&self) -> usize {
        match self.code {
            Code::Words(words) => words.len() * 4,
            Code::Packed { bytes, .. } => bytes.len(),
        }
    }
}

impl fmt::Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blob")
            .field("spirv_words", &self.spirv_len())
            .field("embedded_bytes", &self.embedded_bytes())
            .field("reflection", self.reflection())
            .finish()
    }
}

/// The variants of one embedded set ([`VariantSet::embedded`]): the byte
/// table and blob bytes the macro wrote ([`super::table`]), decoded the
/// first time they are asked for, once.
pub struct VariantTable {
    table: &'static [u8],
    blob_bytes: &'static [u8],
    reflections: &'static Reflections,
    blobs: OnceLock<Box<[Blob]>>,
    values: OnceLock<Box<[i64]>>,
    variants: OnceLock<Box<[Variant]>>,
}

impl VariantTable {
    /// What the macro embeds: the table and blob bytes
    /// [`super::table::encode`] wrote for a set's blobs, whose reflections
    /// are `reflections`. Safe code cannot call it:
    ///
    /// ```compile_fail,E0133
    /// static R: ncnn_glsl_core::variant::Reflections =
    ///     unsafe { ncnn_glsl_core::variant::Reflections::compressed(b"", 0) };
    /// let t = ncnn_glsl_core::variant::VariantTable::new(b"", b"", &R);
    /// ```
    ///
    /// # Safety
    ///
    /// Every blob the table names meets what [`Blob::embedded`] asks of its
    /// bytes, word count and reflection index. (A table that does not
    /// decode gives a set without variants, which selection refuses.)
    pub const unsafe fn new(
        table: &'static [u8],
        blob_bytes: &'static [u8],
        reflections: &'static Reflections,
    ) -> VariantTable {
        VariantTable {
            table,
            blob_bytes,
            reflections,
            blobs: OnceLock::new(),
            values: OnceLock::new(),
            variants: OnceLock::new(),
        }
    }

    /// The axes each variant has values for, from the table's head.
    pub fn axis_count(&self) -> Option<usize> {
        table::axis_count(self.table)
    }

    /// The variants, decoded on the first call (once); none when the table
    /// does not decode.
    pub fn variants(&'static self) -> &'static [Variant] {
        self.variants
            .get_or_init(|| self.decode().unwrap_or_default())
    }

    fn decode(&'static self) -> Option<Box<[Variant]>> {
        let d = table::decode(self.table)?;
        let blobs = d
            .blobs
            .iter()
            .map(|b| {
                let bytes = self.blob_bytes.get(b.start..b.start + b.len)?;
                // SAFETY: `new`'s caller promised these entries meet
                // `Blob::embedded`'s contract.
                Some(unsafe { Blob::embedded(bytes, b.words, self.reflections, b.reflection) })
            })
            .collect::<Option<Vec<Blob>>>()?;
        let blobs: &'static [Blob] = self.blobs.get_or_init(|| blobs.into_boxed_slice());
        let values: &'static [i64] = self.values.get_or_init(|| d.values.into_boxed_slice());
        let axes = d.axes;
        Some(
            d.variants
                .into_iter()
                .enumerate()
                .map(|(i, (target, blob))| Variant {
                    target,
                    axes: &values[i * axes..(i + 1) * axes],
                    blob: &blobs[blob],
                })
                .collect(),
        )
    }
}

impl fmt::Debug for VariantTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VariantTable")
            .field("table_bytes", &self.table.len())
            .field("blob_bytes", &self.blob_bytes.len())
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
    /// A set of `variants`, sorted by target, then axis values, each with
    /// one value per axis of `axes`.
    pub const fn new(
        name: &'static str,
        usage: Usage,
        axes: &'static [AxisInfo],
        variants: &'static [Variant],
    ) -> VariantSet {
        VariantSet {
            name,
            usage,
            axes,
            variants: Variants::Listed(variants),
        }
    }

    /// What the macro embeds: a set whose variants are in `table`.
    pub const fn embedded(
        name: &'static str,
        usage: Usage,
        axes: &'static [AxisInfo],
        table: &'static VariantTable,
    ) -> VariantSet {
        VariantSet {
            name,
            usage,
            axes,
            variants: Variants::Table(table),
        }
    }

    /// Every variant, sorted by target, then axis values. An embedded set
    /// decodes its table on the first call (once); a table that does not
    /// decode, or whose variants have values for other axes than
    /// [`VariantSet::axes`], gives none.
    pub fn variants(&self) -> &'static [Variant] {
        match self.variants {
            Variants::Listed(v) => v,
            Variants::Table(t) if t.axis_count() == Some(self.axes.len()) => t.variants(),
            Variants::Table(_) => &[],
        }
    }

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
                axis_value_for(device, a.name, a.values, a.outcomes.as_ref()).map_err(|v| {
                    SelectError::DeviceValue {
                        axis: a.name,
                        value: v,
                        built: a.values,
                    }
                })?
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
        let variants = self.variants();
        variants
            .binary_search_by(|v| (v.target, v.axes).cmp(&(target, axes)))
            .ok()
            .map(|i| &variants[i])
    }
}

fn axes_error(expected: &[&'static str], given: &[(&str, i64)]) -> SelectError {
    SelectError::Axes {
        expected: expected.to_vec(),
        given: given.iter().map(|(n, _)| n.to_string()).collect(),
    }
}
