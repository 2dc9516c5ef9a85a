#version 450
// Element-wise copy through buffer_st1: in fp16p (and bf16p) two elements share a 32-bit word,
// so each store is the extension's compare-and-swap loop (the atomics repair); in fp16s a plain
// 16-bit store; in fp32 a 32-bit one. store_cost times the cost of the atomic stores.

layout (local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer a_blob { sfp a[]; };
layout (binding = 1) writeonly buffer b_blob { sfp b[]; };

layout (push_constant) uniform parameter
{
    int n;
} p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    buffer_st1(b, i, buffer_ld1(a, i));
}
