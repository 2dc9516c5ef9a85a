//! The runtime crate: the Vulkan probe, variant choice and dispatch will live
//! here (issue 4). Nothing is exported yet.
