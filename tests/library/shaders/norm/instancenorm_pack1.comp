#version 450

layout (constant_id = 0) const float eps = 0.00001f;
layout (constant_id = 1) const int affine = 0;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

#define LOCAL_SIZE 64

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfp bottom_top_blob_data[]; };
layout (binding = 1) readonly buffer gamma_blob { sfp gamma_data[]; };
layout (binding = 2) readonly buffer beta_blob { sfp beta_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// instance normalization, one workgroup per channel: both sums in shared memory
shared lfp tmp_sum[LOCAL_SIZE];
shared lfp tmp_sqsum[LOCAL_SIZE];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gz = int(gl_WorkGroupID.z);

    if (gz >= psc(c))
        return;

    const int size = psc(w) * psc(h);
    const int offset = gz * psc(cstep);

    afp s = afp(0.f);
    afp s2 = afp(0.f);
    for (int i = lx; i < size; i += LOCAL_SIZE)
    {
        afp v = buffer_ld1(bottom_top_blob_data, offset + i);
        s += v;
        s2 += v * v;
    }
    tmp_sum[lx] = afp2lfp(s);
    tmp_sqsum[lx] = afp2lfp(s2);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
        {
            tmp_sum[lx] = afp2lfp(lfp2afp(tmp_sum[lx]) + lfp2afp(tmp_sum[lx + k]));
            tmp_sqsum[lx] = afp2lfp(lfp2afp(tmp_sqsum[lx]) + lfp2afp(tmp_sqsum[lx + k]));
        }
        barrier();
    }

    const afp mean = lfp2afp(tmp_sum[0]) / afp(size);
    const afp var = max(lfp2afp(tmp_sqsum[0]) / afp(size) - mean * mean, afp(0.f));

    afp a = inversesqrt(var + afp(eps));
    afp b = -mean * a;
    if (affine == 1)
    {
        a = a * buffer_ld1(gamma_data, gz);
        b = b * buffer_ld1(gamma_data, gz) + buffer_ld1(beta_data, gz);
    }

    for (int i = lx; i < size; i += LOCAL_SIZE)
    {
        afp v = buffer_ld1(bottom_top_blob_data, offset + i);
        buffer_st1(bottom_top_blob_data, offset + i, v * a + b);
    }
}
