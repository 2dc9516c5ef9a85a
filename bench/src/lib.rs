//! What the workspace's measurement programs share (an unpublished crate:
//! the tools stay out of the published ones):
//!
//! - [`copy`]: the copy shader that is every benchmark's bandwidth ceiling,
//!   and the load that brings a GPU to its busy clocks before timing;
//! - [`stamp`]: the revision, device, driver and command every result file
//!   records (the host's CPU for a program that uses no device);
//! - [`stats`]: the median of repeated measurements.
//!
//! The programs (`src/bin/`): `q8ta_bench` (the q8ta pixel shuffle against
//! its baseline and the copy shader; workgroup sweeps), `bandwidth` (the
//! copy ceiling against buffer size and placement), `store_cost` (the
//! cost of the atomics repair) and `blob_compression` (the embedded
//! SPIR-V's codec, on the host alone). `bench/lavapipe.sh` and `bench/nvidia.sh`
//! build and run them and write stamped results under `bench/results/`
//! (BENCHMARKS.md).

pub mod copy;
pub mod stamp;
pub mod stats;
