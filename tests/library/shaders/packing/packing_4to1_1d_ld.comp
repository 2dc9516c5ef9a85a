#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int outw = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfp top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int outw;
} p;

// 1-D blob, elempack 4 to 1 through the arithmetic type
void main()
{
    int gx = int(gl_GlobalInvocationID.x);

    if (gx >= psc(w))
        return;

    ivec4 o_offset = gx * 4 + ivec4(0, 1, 2, 3);

    afpvec4 v = buffer_ld4(bottom_blob_data, gx);

    buffer_st1(top_blob_data, o_offset.x, v.x);
    buffer_st1(top_blob_data, o_offset.y, v.y);
    buffer_st1(top_blob_data, o_offset.z, v.z);
    buffer_st1(top_blob_data, o_offset.w, v.w);
}
