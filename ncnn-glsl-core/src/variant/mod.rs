//! The variant model: which variants a shader's set holds, and which one a
//! device runs. Pure and testable without a compiler in the loop.

pub mod build;
pub mod decl;
#[cfg(test)]
mod exhaustive_tests;
pub mod select;
pub mod space;
