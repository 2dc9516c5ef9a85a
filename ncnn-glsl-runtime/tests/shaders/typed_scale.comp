#version 450
// The typed host side's test shader: push constants read through `psc()`
// (a specialization constant when it is not 0, else the push constant),
// a float specialization constant, sfp storage in every mode.
layout (constant_id = 0) const int n = 0;
layout (constant_id = 1) const float bias = 0.0;

layout (local_size_x = 64) in;

layout (binding = 0) readonly buffer a_blob { sfpvec4 a_blob_data[]; };
layout (binding = 1) writeonly buffer b_blob { sfpvec4 b_blob_data[]; };

layout (push_constant) uniform parameter
{
    int n;
    float scale;
    uvec2 pad_check;
    vec4 offset;
} p;

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    if (i >= psc(n))
        return;
    afpvec4 v = buffer_ld4(a_blob_data, i);
    v = v * afp(p.scale) + afpvec4(p.offset) + afp(bias) + afp(float(p.pad_check.y - p.pad_check.x));
    buffer_st4(b_blob_data, i, v);
}
