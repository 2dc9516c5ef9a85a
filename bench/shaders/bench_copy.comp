#version 450
// The benchmark's second ceiling: a plain copy in a compute shader. Each invocation moves four
// aligned 16-byte word quads per step, all four loaded before any is stored (bytes in flight
// are what a memory-bound kernel lives on), over a grid-stride loop whose launch is clamped to
// the device's limits. vkCmdCopyBuffer is the spec's ceiling, but a driver may run it on a copy
// engine far below what shaders reach (NVIDIA's did, on an H200); this measures what a kernel
// can move.
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
    uint s = p.stride;
    uint i = gl_GlobalInvocationID.x;
    for (; i + 3u * s < p.count; i += 4u * s)
    {
        uvec4 a = src[i];
        uvec4 b = src[i + s];
        uvec4 c = src[i + 2u * s];
        uvec4 d = src[i + 3u * s];
        dst[i] = a;
        dst[i + s] = b;
        dst[i + 2u * s] = c;
        dst[i + 3u * s] = d;
    }
    for (; i < p.count; i += s)
        dst[i] = src[i];
}
