#version 450
// A shader whose name is one the library module's own items use
// (tests/library.rs): its Rust names must not clash with them.
layout (local_size_x = 1) in;
layout (binding = 0) writeonly buffer top_blob { uint top_blob_data[]; };
void main() { top_blob_data[0] = 1u; }
