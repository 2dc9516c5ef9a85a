#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int outw = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int outw;
} p;

// 1-D blob, elempack 1 to 4 with the raw-bits copy functions
void main()
{
    int gx = int(gl_GlobalInvocationID.x);

    if (gx >= psc(outw))
        return;

    ivec4 v_offset = gx * 4 + ivec4(0, 1, 2, 3);
    const int gi = gx;

    buffer_cp1to4(top_blob_data, gi, bottom_blob_data, v_offset);
}
