#version 450
// The benchmark's second ceiling: a plain copy in a compute shader, one aligned 16-byte word
// quad per invocation and step (grid-stride over a launch clamped to the device's limits).
// vkCmdCopyBuffer is the spec's ceiling, but a driver may run it on a copy engine far below
// what shaders reach (NVIDIA's did, on an H200); this measures what a kernel can move.
layout (local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer src_blob { uvec4 src[]; };
layout (binding = 1) writeonly buffer dst_blob { uvec4 dst[]; };

layout (push_constant) uniform parameter
{
    uint count;  // word quads to copy
    uint stride; // invocations launched
} p;

void main()
{
    for (uint i = gl_GlobalInvocationID.x; i < p.count; i += p.stride)
        dst[i] = src[i];
}
