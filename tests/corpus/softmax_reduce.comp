#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfp bottom_top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
} p;

// one workgroup of 64 invocations per row
shared lfp tmp_max[64];
shared lfp tmp_sum[64];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);

    if (gy >= psc(h))
        return;

    const int row = gy * psc(w);

    // max over the row, strided by the workgroup
    afp m = afp(-65504.f);
    for (int i = lx; i < psc(w); i += 64)
    {
        m = max(m, buffer_ld1(bottom_top_blob_data, row + i));
    }
    tmp_max[lx] = afp2lfp(m);

    barrier();

    for (int s = 32; s > 0; s >>= 1)
    {
        if (lx < s)
        {
            afp a = lfp2afp(tmp_max[lx]);
            afp b = lfp2afp(tmp_max[lx + s]);
            tmp_max[lx] = afp2lfp(max(a, b));
        }
        barrier();
    }

    const afp row_max = lfp2afp(tmp_max[0]);

    // sum of exp
    afp sum = afp(0.f);
    for (int i = lx; i < psc(w); i += 64)
    {
        afp v = buffer_ld1(bottom_top_blob_data, row + i);
        sum += exp(v - row_max);
    }
    tmp_sum[lx] = afp2lfp(sum);

    barrier();

    for (int s = 32; s > 0; s >>= 1)
    {
        if (lx < s)
        {
            tmp_sum[lx] = afp2lfp(lfp2afp(tmp_sum[lx]) + lfp2afp(tmp_sum[lx + s]));
        }
        barrier();
    }

    const afp row_sum = lfp2afp(tmp_sum[0]);

    for (int i = lx; i < psc(w); i += 64)
    {
        afp v = buffer_ld1(bottom_top_blob_data, row + i);
        v = exp(v - row_max) / row_sum;
        buffer_st1(bottom_top_blob_data, row + i, v);
    }
}
