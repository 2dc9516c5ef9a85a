#version 450
// The same copy as store_word.comp with one aligned 16-byte word quad per invocation: whether
// wider accesses move more on a device.
layout (local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer a_blob { uvec4 a[]; };
layout (binding = 1) writeonly buffer b_blob { uvec4 b[]; };

layout (push_constant) uniform parameter
{
    int n;
} p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (8 * i >= p.n)
        return;
    b[i] = a[i];
}
