#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int size = 0;

#if ncnn_deviceType == 2
#define ELEMENTS 4
#else
#define ELEMENTS 1
#endif

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer a_blob { sfpvec4 a_blob_data[]; };
layout (binding = 1) readonly buffer b_blob { sfpvec4 b_blob_data[]; };
layout (binding = 2) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int size;
} p;

// flat elementwise add
void main()
{
    int gx = int(gl_GlobalInvocationID.x);

    for (int i = 0; i < ELEMENTS; i++)
    {
        int gi = gx * ELEMENTS + i;
        if (gi >= psc(size))
            return;

        afpvec4 v1 = buffer_ld4(a_blob_data, gi);
        afpvec4 v2 = buffer_ld4(b_blob_data, gi);
        buffer_st4(top_blob_data, gi, v1 + v2);
    }
}
