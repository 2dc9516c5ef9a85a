//! The variant model: which variants a shader's set holds, and which one a
//! device runs. Pure and testable without a compiler in the loop.

#[cfg(all(test, feature = "compile"))]
mod budget_tests;
#[cfg(feature = "compile")]
pub mod build;
#[cfg(feature = "compile")]
pub mod cache;
pub mod decl;
#[cfg(feature = "compile")]
pub mod device_axes;
mod device_value;
#[cfg(test)]
mod exhaustive_tests;
#[cfg(feature = "compile")]
pub mod jobs;
pub mod library;
#[cfg(feature = "compile")]
pub mod manifest;
pub mod packed;
#[cfg(all(test, feature = "compile"))]
mod parallel_tests;
pub mod reflections;
pub mod select;
pub mod set;
pub mod space;
pub mod table;

pub use device_value::{axis_value_for, device_axis_value, Outcomes, OwnedOutcomes, UNDEFINED};
pub use library::{Library, LibraryError};
pub use reflections::Reflections;
pub use select::{choose, fallback_order, Choice};
pub use set::{AxisInfo, Blob, SelectError, Variant, VariantSet, VariantTable};
pub use space::{canonical, space, Usage};
