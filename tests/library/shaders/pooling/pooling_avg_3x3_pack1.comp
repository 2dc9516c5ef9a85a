#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;
layout (constant_id = shape_constant_id_offset + 4) const int outw = 0;
layout (constant_id = shape_constant_id_offset + 5) const int outh = 0;
layout (constant_id = shape_constant_id_offset + 6) const int outcstep = 0;

#define KERNEL 3
#define STRIDE 2

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfp top_blob_data[]; };

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

// avg pooling 3x3 stride 2 on a pre-padded input
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(outw) || gy >= psc(outh) || gz >= psc(c))
        return;

    int v_offset = gz * psc(cstep) + gy * STRIDE * psc(w) + gx * STRIDE;

    afp res = afp(0.f);

    for (int y = 0; y < KERNEL; y++)
    {
        for (int x = 0; x < KERNEL; x++)
        {
            afp v = buffer_ld1(bottom_blob_data, v_offset + x);
            res += v;
        }

        v_offset += psc(w);
    }

    res = res / afp(KERNEL * KERNEL);

    buffer_st1(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, res);
}
