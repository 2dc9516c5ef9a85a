#version 450

layout (constant_id = 0) const float slope = 0;

#define shape_constant_id_offset 1
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfp top_blob_data[]; };

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

    afp v = buffer_ld1(bottom_blob_data, gi);

    v = v < afp(0.f) ? v * afp(slope) : min(v, afp(6.f));

    buffer_st1(top_blob_data, gi, v);
}
