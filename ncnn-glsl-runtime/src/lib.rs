//! Runs ncnn-extension compute shaders from precompiled variant sets.
//!
//! `include_ncnn_shader!("name.comp")` compiles every variant of a shader at
//! build time. At run time a [`Context`] opens a Vulkan device (the loader is
//! found at run time) for the variant sets it will run, describes it as a
//! [`DeviceCaps`] ([`probe`]), and [`Context::select`] picks the variant it
//! runs through the core's [`VariantSet::select`]. A [`Pipeline`] is made
//! from the variant's blob, [`Buffer`]s carry the data ([`FloatStorage`]
//! says how a variant stores `sfp` floats), and [`Pipeline::dispatch`] (or a
//! [`Sequence`] of dispatches and copies) runs it.
//!
//! ```no_run
//! # use ncnn_glsl_runtime::*;
//! # fn f(set: &'static VariantSet) -> Result<(), Error> {
//! let ctx = Context::new(ContextOptions { variant_sets: vec![set], ..Default::default() })?;
//! let choice = ctx.select(set, Options::NCNN_DEFAULT, &[])?;
//! let pipeline = Pipeline::for_variant(&ctx, set, choice.variant, &PipelineOptions::default())?;
//! let (mut a, mut b) = (Buffer::new(&ctx, 1024)?, Buffer::new(&ctx, 1024)?);
//! a.write(&[0; 1024])?;
//! pipeline.dispatch(&Dispatch::new(&[&a, &b], &[], [64, 1, 1]))?;
//! let mut out = vec![0u8; 1024];
//! b.read(&mut out)?;
//! # Ok(()) }
//! ```
//!
//! The item form `include_ncnn_shader!(mod NAME = "FILE");` adds a typed
//! host side generated from the reflection: `NAME::PushConstants` (the
//! block as a `Pod` struct, std430 offsets checked at compile time),
//! `NAME::Specialization` (constants by name) and `NAME::Buffers` (blocks by
//! name), for [`Dispatch::typed`]; [`Buffer::write_floats`] and
//! [`Buffer::read_floats`] convert host floats to the chosen variant's
//! storage (`examples/typed_scale.rs`).
//!
//! Modules, lowest first (each uses only those before it): [`error`],
//! [`storage`], [`probe`] (a device's description), [`instance`] (loader,
//! instance, validation messages), [`selector`] (which device), [`context`],
//! `submit` (one submission, the barrier), `timing`, [`buffer`],
//! `pipeline_cache`, [`pipeline`], [`executable`], [`dispatch`] (one
//! dispatch's arguments and commands), [`sequence`] (steps in one
//! submission, and the one-step conveniences), [`ncnn`] (ncnn's layout,
//! local-size and group-count arithmetic, which uses none of them). Operators built on it live in
//! crates of their own (`ncnn-glsl-q8ta`, the q8ta pixel shuffle).

mod blob_check;
pub mod buffer;
pub mod context;
mod coopmat;
pub mod dispatch;
pub mod error;
pub mod executable;
pub mod instance;
pub mod ncnn;
pub mod pipeline;
mod pipeline_cache;
pub mod probe;
mod quirks;
pub mod selector;
pub mod sequence;
pub mod storage;
mod submit;
mod timing;

pub use buffer::{Buffer, Transfer};
pub use context::{CacheDir, Context, ContextOptions};
pub use dispatch::{Bound, BufferRange, Dispatch, OfSet};
pub use error::{Error, Result};
pub use executable::Executable;
pub use instance::{probe_all, Loader, Message, MessageSink, Severity};
pub use ncnn::{
    group_counts, ncnn_local_size, optimal_local_size, LocalSizeLimits, NcnnMat, MAX_MAT_BYTES,
};
pub use pipeline::{Pipeline, PipelineOptions, Slot, SpecValue};
pub use selector::DeviceSelector;
pub use sequence::{DispatchStats, Sequence};
pub use storage::FloatStorage;

/// `bytemuck`, which the generated `PushConstants` structs implement.
pub use bytemuck;
pub use ncnn_glsl_core::reflection;
pub use ncnn_glsl_core::variant::{
    AxisInfo, Blob, Choice, Library, LibraryError, Outcomes, Reflections, SelectError, Usage,
    Variant, VariantSet, VariantTable, UNDEFINED,
};
pub use ncnn_glsl_core::{DeviceBits, DeviceCaps, DeviceType, Flag, Options, Target};
pub use ncnn_glsl_macros::{include_ncnn_library, include_ncnn_shader};

/// What `include_ncnn_shader!` expands to names these paths; not an API.
#[doc(hidden)]
pub mod __private {
    pub use crate::{Bound, Buffer, OfSet, SpecValue};
    pub use bytemuck;
    pub use ncnn_glsl_core::variant::{
        AxisInfo, Blob, Library, Outcomes, Reflections, Usage, Variant, VariantSet, VariantTable,
    };
    pub use ncnn_glsl_core::{reflection, DeviceBits, Options, Target};
}
