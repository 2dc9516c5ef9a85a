#version 450

layout (constant_id = 0) const int kernel_w = 1;
layout (constant_id = 1) const int kernel_h = 1;
layout (constant_id = 2) const int dilation_w = 1;
layout (constant_id = 3) const int dilation_h = 1;
layout (constant_id = 4) const int stride_w = 1;
layout (constant_id = 5) const int stride_h = 1;
layout (constant_id = 6) const int bias_term = 0;

#define shape_constant_id_offset 7
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;
layout (constant_id = shape_constant_id_offset + 4) const int outw = 0;
layout (constant_id = shape_constant_id_offset + 5) const int outh = 0;
layout (constant_id = shape_constant_id_offset + 6) const int outc = 0;
layout (constant_id = shape_constant_id_offset + 7) const int outcstep = 0;

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

// gather form: each output pixel sums the inputs whose kernel window covers it
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(outw) || gy >= psc(outh) || gz >= psc(outc))
        return;

    afpvec4 sum;

    if (bias_term == 1)
    {
        sum = buffer_ld4(bias_data, gz);
    }
    else
    {
        sum = afpvec4(0.f);
    }

    const int kernel_extent_w = dilation_w * (kernel_w - 1) + 1;
    const int kernel_extent_h = dilation_h * (kernel_h - 1) + 1;

    int w_offset = gz * psc(c) * kernel_w * kernel_h * 4;

    for (int z = 0; z < psc(c); z++)
    {
        for (int y = 0; y < kernel_h; y++)
        {
            int sys = (gy + y * dilation_h - (kernel_extent_h - 1));
            if (sys < 0 || sys % stride_h != 0)
                continue;

            int sy = sys / stride_h;
            if (sy >= psc(h))
                continue;

            for (int x = 0; x < kernel_w; x++)
            {
                int sxs = (gx + x * dilation_w - (kernel_extent_w - 1));
                if (sxs < 0 || sxs % stride_w != 0)
                    continue;

                int sx = sxs / stride_w;
                if (sx >= psc(w))
                    continue;

                int v_offset = z * psc(cstep) + sy * psc(w) + sx;
                int k_offset = w_offset + ((kernel_h - 1 - y) * kernel_w + (kernel_w - 1 - x)) * 4;

                afpvec4 v = buffer_ld4(bottom_blob_data, v_offset);

                afpvec4 k0 = buffer_ld4(weight_data, k_offset + 0);
                afpvec4 k1 = buffer_ld4(weight_data, k_offset + 1);
                afpvec4 k2 = buffer_ld4(weight_data, k_offset + 2);
                afpvec4 k3 = buffer_ld4(weight_data, k_offset + 3);

                sum += v.r * k0 + v.g * k1 + v.b * k2 + v.a * k3;
            }
        }

        w_offset += kernel_w * kernel_h * 4;
    }

    const int gi = gz * psc(outcstep) + gy * psc(outw) + gx;

    buffer_st4(top_blob_data, gi, sum);
}
