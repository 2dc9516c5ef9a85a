//! The variant model: which variants a shader's set holds, and which one a
//! device runs. Pure and testable without a compiler in the loop.

#[cfg(feature = "compile")]
pub mod build;
pub mod decl;
#[cfg(test)]
mod exhaustive_tests;
#[cfg(feature = "compile")]
pub mod manifest;
pub mod select;
pub mod set;
pub mod space;

pub use select::{choose, fallback_order, Choice};
pub use set::{AxisInfo, Blob, SelectError, Variant, VariantSet};
pub use space::{canonical, space, Usage};

use crate::device::DeviceCaps;

/// The value a device gives the device macro `name` (`ncnn_subgroupSize`,
/// ...), as the extension would define it; `None` when it defines none.
pub fn device_axis_value(device: &DeviceCaps, name: &str) -> Option<i64> {
    let mut macros = String::new();
    crate::ext::device_macros(device, &mut macros);
    macros.lines().find_map(|l| {
        let (n, v) = l.strip_prefix("#define ")?.split_once(' ')?;
        if n != name {
            return None;
        }
        v.trim().trim_end_matches(['u', 'l', 'U', 'L']).parse().ok()
    })
}
