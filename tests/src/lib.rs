//! Integration tests live under `tests/tests/`; this crate only holds them.
