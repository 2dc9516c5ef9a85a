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

layout (binding = 0) buffer bottom_top_blob { sfpvec4 bottom_top_blob_data[]; };
layout (binding = 1) readonly buffer gamma_blob { sfpvec4 gamma_data[]; };
layout (binding = 2) readonly buffer beta_blob { sfpvec4 beta_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// instance normalization, one workgroup per channel: both sums in shared memory
shared lfpvec4 tmp_sum[LOCAL_SIZE];
shared lfpvec4 tmp_sqsum[LOCAL_SIZE];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gz = int(gl_WorkGroupID.z);

    if (gz >= psc(c))
        return;

    const int size = psc(w) * psc(h);
    const int offset = gz * psc(cstep);

    afpvec4 s = afpvec4(0.f);
    afpvec4 s2 = afpvec4(0.f);
    for (int i = lx; i < size; i += LOCAL_SIZE)
    {
        afpvec4 v = buffer_ld4(bottom_top_blob_data, offset + i);
        s += v;
        s2 += v * v;
    }
    tmp_sum[lx] = afp2lfpvec4(s);
    tmp_sqsum[lx] = afp2lfpvec4(s2);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
        {
            tmp_sum[lx] = afp2lfpvec4(lfp2afpvec4(tmp_sum[lx]) + lfp2afpvec4(tmp_sum[lx + k]));
            tmp_sqsum[lx] = afp2lfpvec4(lfp2afpvec4(tmp_sqsum[lx]) + lfp2afpvec4(tmp_sqsum[lx + k]));
        }
        barrier();
    }

    const afpvec4 mean = lfp2afpvec4(tmp_sum[0]) / afp(size);
    const afpvec4 var = max(lfp2afpvec4(tmp_sqsum[0]) / afp(size) - mean * mean, afp(0.f));

    afpvec4 a = inversesqrt(var + afp(eps));
    afpvec4 b = -mean * a;
    if (affine == 1)
    {
        a = a * buffer_ld4(gamma_data, gz);
        b = b * buffer_ld4(gamma_data, gz) + buffer_ld4(beta_data, gz);
    }

    for (int i = lx; i < size; i += LOCAL_SIZE)
    {
        afpvec4 v = buffer_ld4(bottom_top_blob_data, offset + i);
        buffer_st4(bottom_top_blob_data, offset + i, v * a + b);
    }
}
