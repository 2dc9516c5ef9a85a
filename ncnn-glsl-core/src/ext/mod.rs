//! The ncnn GLSL extension: the text injected after `#version` for a target
//! (spec/extension.md sections 1 to 7), built from tables.

use crate::device::DeviceCaps;
use crate::target::Target;

/// The prelude for `target`: `#extension` lines, option macros,
/// `ncnn_glsl_version`, device macros (when a device is given), and the
/// extension's type and function definitions.
pub fn prelude(target: &Target, device: Option<&DeviceCaps>) -> String {
    let _ = (target, device);
    String::new()
}
