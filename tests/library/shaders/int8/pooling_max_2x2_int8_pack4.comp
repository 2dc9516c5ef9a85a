#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;
layout (constant_id = shape_constant_id_offset + 4) const int outw = 0;
layout (constant_id = shape_constant_id_offset + 5) const int outh = 0;
layout (constant_id = shape_constant_id_offset + 6) const int outcstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sint8vec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sint8vec4 top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
    int outw;
    int outh;
    int outcstep;
} p;

// 2x2 stride 2 max pooling of int8 lanes
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(outw) || gy >= psc(outh) || gz >= psc(c))
        return;

    int v_offset = gz * psc(cstep) + gy * 2 * psc(w) + gx * 2;

    ivec4 r = max(i8buffer_ld4(bottom_blob_data, v_offset), i8buffer_ld4(bottom_blob_data, v_offset + 1));
    r = max(r, i8buffer_ld4(bottom_blob_data, v_offset + psc(w)));
    r = max(r, i8buffer_ld4(bottom_blob_data, v_offset + psc(w) + 1));

    i8buffer_st4(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, r);
}
