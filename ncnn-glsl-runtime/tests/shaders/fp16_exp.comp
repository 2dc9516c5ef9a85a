#version 450
// `exp` in the mode's arithmetic: in fp16 arithmetic an `exp` of
// `float16_t`, which lavapipe's JIT compiles to a call it resolves by name in
// the process's global symbols (tests/driver_symbols.rs).
layout (local_size_x = 64) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };

layout (push_constant) uniform parameter { int n; } p;

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    afpvec4 v = buffer_ld4(bottom_blob_data, i);
    buffer_st4(top_blob_data, i, exp(v) + sin(v) + pow(abs(v), afpvec4(1.5)) + log(abs(v) + afp(1.0)));
}
