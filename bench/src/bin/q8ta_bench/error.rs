//! The benchmark's error: any step's, printed once by `main`.

/// What a failed step returns.
pub type Fail = Box<dyn std::error::Error>;
