#version 450

layout (constant_id = 0) const int bias_term = 0;
layout (constant_id = 1) const int activation_type = 0;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;
layout (constant_id = shape_constant_id_offset + 4) const int outw = 0;
layout (constant_id = shape_constant_id_offset + 5) const int outh = 0;
layout (constant_id = shape_constant_id_offset + 6) const int outcstep = 0;

#define KERNEL 1
#define STRIDE 2

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfp top_blob_data[]; };
layout (binding = 2) readonly buffer weight_blob { sfp weight_data[]; };
layout (binding = 3) readonly buffer bias_blob { sfp bias_data[]; };

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

// depthwise convolution 1x1 stride 2, one channel per z
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(outw) || gy >= psc(outh) || gz >= psc(c))
        return;

    afp sum = bias_term == 1 ? buffer_ld1(bias_data, gz) : afp(0.f);

    int v_offset = gz * psc(cstep) + gy * STRIDE * psc(w) + gx * STRIDE;
    int w_offset = gz * KERNEL * KERNEL;

    for (int y = 0; y < KERNEL; y++)
    {
        for (int x = 0; x < KERNEL; x++)
        {
            sum += buffer_ld1(bottom_blob_data, v_offset + x) * buffer_ld1(weight_data, w_offset + x);
        }

        v_offset += psc(w);
        w_offset += KERNEL;
    }

    if (activation_type == 1)
        sum = max(sum, afp(0.f));
    if (activation_type == 2)
        sum = clamp(sum, afp(0.f), afp(6.f));

    buffer_st1(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, sum);
}
