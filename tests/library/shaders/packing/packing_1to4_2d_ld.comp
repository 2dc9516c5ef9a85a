#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int outh = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int outh;
} p;

// 2-D blob, elempack 1 to 4 through the arithmetic type
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);

    if (gx >= psc(w) || gy >= psc(outh))
        return;

    ivec4 v_offset = (gy * 4 + ivec4(0, 1, 2, 3)) * psc(w) + gx;

    afpvec4 v = afpvec4(
        buffer_ld1(bottom_blob_data, v_offset.x),
        buffer_ld1(bottom_blob_data, v_offset.y),
        buffer_ld1(bottom_blob_data, v_offset.z),
        buffer_ld1(bottom_blob_data, v_offset.w)
    );

    buffer_st4(top_blob_data, gy * psc(w) + gx, v);
}
