#version 450
// The same element-wise fp16 copy as store_st1.comp in fp16p, with the shared word updated by a
// plain (non-atomic) read-modify-write: what the store costs without the atomics. Racy on
// purpose (neighbouring invocations share words): store_cost times it and ignores its output.
layout (local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer a_blob { uint a[]; };
layout (binding = 1) buffer b_blob { uint b[]; };

layout (push_constant) uniform parameter
{
    int n;
} p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    uint shift = uint(i & 1) * 16u;
    uint v = (a[i / 2] >> shift) & 0xffffu;
    uint w = b[i / 2];
    b[i / 2] = (w & ~(0xffffu << shift)) | (v << shift);
}
