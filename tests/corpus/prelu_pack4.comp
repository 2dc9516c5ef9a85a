#version 450

layout (constant_id = 0) const int num_slope = 0;
layout (constant_id = 1) const float slope = 0;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfpvec4 bottom_top_blob_data[]; };
layout (binding = 1) readonly buffer slope_blob { sfpvec4 slope_blob_data[]; };

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

    // ncnn indexes with uint here: the helpers take either.
    const uint gi = gz * uint(psc(cstep)) + gy * uint(psc(w)) + gx;

    afpvec4 v = buffer_ld4(bottom_top_blob_data, gi);

    afpvec4 s = num_slope == 1 ? afpvec4(afp(slope)) : buffer_ld4(slope_blob_data, gz);

    v = mix(v, v * s, lessThan(v, afpvec4(0.f)));

    buffer_st4(bottom_top_blob_data, gi, v);
}
