#version 450
// Indexes far past every array it has, forwards and backwards: its buffers
// (reads, writes, atomics) and `shared` memory sized by a specialization
// constant (with a constant index too, past the size it is specialized to).
// tests/bounds.rs binds buffers of one element between poisoned guards:
// every access must land in the element (the compiler clamps each index),
// none in a guard.
layout (constant_id = 0) const int TILE = 64;
layout (local_size_x = 64) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
layout (binding = 2) buffer count_blob { uint count_blob_data[]; };

layout (push_constant) uniform parameter
{
    int stride;
    int back;
} p;

shared vec4 tmp[TILE];

void main()
{
    const int gx = int(gl_GlobalInvocationID.x);
    const int lx = int(gl_LocalInvocationID.x);
    const int i = gx * p.stride - p.back;

    afpvec4 v = buffer_ld4(bottom_blob_data, i);
    tmp[lx] = vec4(v);
    barrier();
    tmp[lx * p.stride - p.back] = vec4(v);
    tmp[40] = vec4(v);
    barrier();

    atomicAdd(count_blob_data[i], 1u);
    buffer_st4(top_blob_data, i, afpvec4(tmp[lx * p.stride]));
}
