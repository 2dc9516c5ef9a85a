#version 450
// y = x * scale + bias over n vec4s. `n` is the push constant unless the
// pipeline fixes it with the specialization constant of the same name
// (ncnn's `psc(n)`).
layout (constant_id = 0) const int n = 0;

layout (local_size_x = 64) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int n;
    float scale;
    float bias;
} p;

void main()
{
    const int gx = int(gl_GlobalInvocationID.x);
    if (gx >= psc(n))
        return;

    afpvec4 v = buffer_ld4(bottom_blob_data, gx);
    buffer_st4(top_blob_data, gx, v * afp(p.scale) + afp(p.bias));
}
