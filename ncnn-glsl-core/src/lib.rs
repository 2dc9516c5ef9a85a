//! ncnn's GLSL extension as a build-time feature of Rust.
//!
//! A compute shader written with the extension (`sfpvec4`, `buffer_ld4`,
//! `psc`, `NCNN_fp16_storage`, ...) is expanded for a [`Target`] (effective
//! options and device bits) into finished GLSL, then compiled through naga into
//! checked SPIR-V with its reflection. Errors point at the user's file, line and
//! column.
//!
//! ```text
//! source --expand--> finished GLSL (+ line map) --compile--> SPIR-V + reflection
//! ```
//!
//! Modules, in the order data flows: [`options`] and [`device`] (what is
//! wanted, what a device has), [`target`], [`ext`] (the extension's text),
//! [`preprocess`] (with [`define`], the macros given from outside), [`expand`](mod@expand) (assembly), [`compile`](mod@compile) (naga, repairs,
//! reflection; its word passes read SPIR-V through [`spirv`]), [`diag`] (errors); [`variant`] (the variant set of a shader:
//! its permutation space, build, and the choice for a device) and `embed`
//! (what `include_ncnn_shader!` expands to).
//!
//! Without the default `compile` feature the crate has no naga: what a
//! binary needs at run time (options, devices, variant sets and their
//! choice, the SPIR-V walk of [`spirv`]) stays, the compiler goes.
//!
//! The extension's reference ("the spec") is the repository's
//! `docs/extension.md`; "section N" in this crate's comments means its
//! section N. naga's gaps and this crate's repairs of them are in
//! `docs/naga.md`.

#[cfg(feature = "compile")]
pub mod compile;
pub mod define;
pub mod device;
pub mod diag;
#[cfg(feature = "compile")]
pub mod embed;
pub mod expand;
pub mod ext;
pub mod options;
pub mod preprocess;
pub mod reflection;
pub mod source;
pub mod spirv;
pub mod spirv_interface;
pub mod target;
pub mod variant;

#[cfg(feature = "compile")]
pub use compile::{compile, CompileOptions, Compiled};
pub use define::{Define, DefineError};
pub use device::{narrow, CoopMatShape, DeviceBits, DeviceCaps, DeviceType};
pub use diag::{Diagnostic, Diagnostics, Span};
pub use expand::{expand, expand_with, ExpandOptions, Expanded};
pub use options::{Flag, Options};
pub use source::{FsLoader, Loader, MemoryLoader, SourceFile};
pub use target::Target;
