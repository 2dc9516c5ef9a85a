#version 450
// The same fp16 copy with whole words: one invocation per pair of elements, no shared word.
// The floor the element-wise stores are compared with.
layout (local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer a_blob { uint a[]; };
layout (binding = 1) writeonly buffer b_blob { uint b[]; };

layout (push_constant) uniform parameter
{
    int n;
} p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (2 * i >= p.n)
        return;
    b[i] = a[i];
}
