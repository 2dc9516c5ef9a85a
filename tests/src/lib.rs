//! The workspace's integration and snapshot tests live under `tests/`: the
//! extension's modes, the seed example, diagnostics, the macro, the shipped
//! variant artifacts, the whole corpus under `spirv-val`, hostile input.
//! What they share with the crates' own tests is `ncnn-glsl-testkit`.

/// The README's Rust snippets, compiled (and run, where they are not
/// `no_run`) as this crate's doctests: they stay true as the API changes.
/// They name shaders relative to this crate, in `tests/shaders/`.
#[doc = include_str!("../../README.md")]
pub mod readme {}

/// `ncnn-glsl-q8ta`'s README snippets, compiled the same way.
#[doc = include_str!("../../ncnn-glsl-q8ta/README.md")]
pub mod q8ta_readme {}

/// The typed host side turns shader mistakes on the host into compile errors
/// in the user's crate (each block is a crate of its own that must fail with
/// the error code named; the first one compiles, so the others fail for the
/// change they make and nothing else).
///
/// ```
/// ncnn_glsl_runtime::include_ncnn_shader!(mod scale = "shaders/scale.comp");
/// let push = scale::PushConstants { n: 1, scale: 0.5, bias: 1.0 };
/// let spec = scale::Specialization { n: Some(4) };
/// # let _ = (push, spec);
/// ```
///
/// A member the block does not have (E0560: no such field):
///
/// ```compile_fail,E0560
/// ncnn_glsl_runtime::include_ncnn_shader!(mod scale = "shaders/scale.comp");
/// let push = scale::PushConstants { n: 1, scale: 0.5, offset: 1.0 };
/// ```
///
/// A member of the wrong type (E0308: `int n` is an `i32`):
///
/// ```compile_fail,E0308
/// ncnn_glsl_runtime::include_ncnn_shader!(mod scale = "shaders/scale.comp");
/// let push = scale::PushConstants { n: 1.0f32, scale: 0.5, bias: 1.0 };
/// ```
///
/// A specialization constant of the wrong type (E0308):
///
/// ```compile_fail,E0308
/// ncnn_glsl_runtime::include_ncnn_shader!(mod scale = "shaders/scale.comp");
/// let spec = scale::Specialization { n: Some(true) };
/// ```
///
/// A buffer the shader does not bind (E0560):
///
/// ```compile_fail,E0560
/// # fn f(a: &ncnn_glsl_runtime::Buffer) {
/// ncnn_glsl_runtime::include_ncnn_shader!(mod scale = "shaders/scale.comp");
/// let b = scale::Buffers { bottom_blob: a, output: a };
/// # }
/// ```
pub mod typed_host_compile_errors {}
