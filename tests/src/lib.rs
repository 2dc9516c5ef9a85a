//! The workspace's integration and snapshot tests live under `tests/`: the
//! extension's modes, the seed example, diagnostics, the macro, the shipped
//! variant artifacts, the whole corpus under `spirv-val`, hostile input.
//! What they share with the crates' own tests is `ncnn-glsl-testkit`.
