//! The variant model: which variants a shader's set holds, and which one a
//! device runs. Pure and testable without a compiler in the loop.

#[cfg(all(test, feature = "compile"))]
mod budget_tests;
#[cfg(feature = "compile")]
pub mod build;
pub mod decl;
mod device_value;
#[cfg(test)]
mod exhaustive_tests;
#[cfg(feature = "compile")]
pub mod manifest;
pub mod select;
pub mod set;
pub mod space;

pub use device_value::device_axis_value;
pub use select::{choose, fallback_order, Choice};
pub use set::{AxisInfo, Blob, SelectError, Variant, VariantSet};
pub use space::{canonical, space, Usage};
