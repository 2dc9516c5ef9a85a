#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfp bottom_top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

void main()
{
    uint gx = gl_GlobalInvocationID.x;
    uint gy = gl_GlobalInvocationID.y;
    uint gz = gl_GlobalInvocationID.z;

    if (gx >= uint(psc(w)) || gy >= uint(psc(h)) || gz >= uint(psc(c)))
        return;

    const uint gi = gz * uint(psc(cstep)) + gy * uint(psc(w)) + gx;

    afp v = buffer_ld1(bottom_top_blob_data, gi);

    v = afp(1.f) / (afp(1.f) + exp(-v));

    buffer_st1(bottom_top_blob_data, gi, v);
}
