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
layout (constant_id = shape_constant_id_offset + 6) const int outc = 0;
layout (constant_id = shape_constant_id_offset + 7) const int outcstep = 0;

#define KERNEL 7
#define STRIDE 2

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

// convolution 7x7 stride 2 on a pre-padded input, one output element
// per invocation; a 4x4 weight block per input and output channel group
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(outw) || gy >= psc(outh) || gz >= psc(outc))
        return;

    afpvec4 sum = bias_term == 1 ? buffer_ld4(bias_data, gz) : afpvec4(0.f);

    int w_offset = gz * psc(c) * KERNEL * KERNEL;

    for (int z = 0; z < psc(c); z++)
    {
        int v_offset = z * psc(cstep) + gy * STRIDE * psc(w) + gx * STRIDE;

        for (int y = 0; y < KERNEL; y++)
        {
            for (int x = 0; x < KERNEL; x++)
            {
                afpvec4 v = buffer_ld4(bottom_blob_data, v_offset + x);
                afpmat4 k = afpmat4(
                    buffer_ld4(weight_data, (w_offset + x) * 4 + 0),
                    buffer_ld4(weight_data, (w_offset + x) * 4 + 1),
                    buffer_ld4(weight_data, (w_offset + x) * 4 + 2),
                    buffer_ld4(weight_data, (w_offset + x) * 4 + 3)
                );
                sum += v * k;
            }

            v_offset += psc(w);
            w_offset += KERNEL;
        }
    }

    if (activation_type == 1)
        sum = max(sum, afp(0.f));
    if (activation_type == 2)
        sum = clamp(sum, afp(0.f), afp(6.f));

    buffer_st4(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, sum);
}
