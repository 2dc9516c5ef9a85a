#version 450

layout (constant_id = 0) const int bias_term = 0;

#define shape_constant_id_offset 1
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;
layout (constant_id = shape_constant_id_offset + 4) const int outw = 0;
layout (constant_id = shape_constant_id_offset + 5) const int outh = 0;
layout (constant_id = shape_constant_id_offset + 6) const int outc = 0;
layout (constant_id = shape_constant_id_offset + 7) const int outcstep = 0;

#if ncnn_vendorID == 0x10de
#define UNROLL 8
#elif ncnn_vendorID == 0x1002
#define UNROLL 4
#else
#define UNROLL 2
#endif

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
layout (binding = 2) readonly buffer weight_blob { sfpvec4 weight_data[]; };
layout (binding = 3) readonly buffer bias_blob { sfpvec4 bias_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
    int outw;
    int outh;
    int outc;
    int outcstep;
} p;

// 1x1 convolution; the channel loop unrolled deeper on NVIDIA
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(outw) || gy >= psc(outh) || gz >= psc(outc))
        return;

    afpvec4 sum = bias_term == 1 ? buffer_ld4(bias_data, gz) : afpvec4(0.f);

    const int gi = gy * psc(w) + gx;
    int w_offset = gz * psc(c) * 4;

    int z = 0;
    for (; z + UNROLL <= psc(c); z += UNROLL)
    {
        for (int u = 0; u < UNROLL; u++)
        {
            afpvec4 v = buffer_ld4(bottom_blob_data, (z + u) * psc(cstep) + gi);
            afpmat4 k = afpmat4(
                buffer_ld4(weight_data, w_offset + 0),
                buffer_ld4(weight_data, w_offset + 1),
                buffer_ld4(weight_data, w_offset + 2),
                buffer_ld4(weight_data, w_offset + 3)
            );
            sum += v * k;
            w_offset += 4;
        }
    }
    for (; z < psc(c); z++)
    {
        afpvec4 v = buffer_ld4(bottom_blob_data, z * psc(cstep) + gi);
        afpmat4 k = afpmat4(
            buffer_ld4(weight_data, w_offset + 0),
            buffer_ld4(weight_data, w_offset + 1),
            buffer_ld4(weight_data, w_offset + 2),
            buffer_ld4(weight_data, w_offset + 3)
        );
        sum += v * k;
        w_offset += 4;
    }

    buffer_st4(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, sum);
}
