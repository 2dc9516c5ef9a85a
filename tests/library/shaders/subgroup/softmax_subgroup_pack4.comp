#version 450

#if ncnn_subgroup_arithmetic
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#if NCNN_fp16_arithmetic
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif
#endif

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

#define LOCAL_SIZE 64

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfpvec4 bottom_top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// softmax over each row, one workgroup per row
shared lfpvec4 tmp[LOCAL_SIZE];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    const int row = gz * psc(cstep) + gy * psc(w);

    afpvec4 m = afpvec4(-65504.f);
    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        m = max(m, buffer_ld4(bottom_top_blob_data, row + x));
    }

#if ncnn_subgroup_arithmetic
    m = subgroupMax(m);
    if (gl_SubgroupInvocationID == 0u)
        tmp[gl_SubgroupID] = afp2lfpvec4(m);
    barrier();
    afpvec4 row_max = lfp2afpvec4(tmp[0]);
    for (uint k = 1u; k < gl_NumSubgroups; k++)
        row_max = max(row_max, lfp2afpvec4(tmp[k]));
#else
    tmp[lx] = afp2lfpvec4(m);
    barrier();
    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = afp2lfpvec4(max(lfp2afpvec4(tmp[lx]), lfp2afpvec4(tmp[lx + k])));
        barrier();
    }
    afpvec4 row_max = lfp2afpvec4(tmp[0]);
#endif
    barrier();

    afpvec4 s = afpvec4(0.f);
    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        s += exp(buffer_ld4(bottom_top_blob_data, row + x) - row_max);
    }

#if ncnn_subgroup_arithmetic
    s = subgroupAdd(s);
    if (gl_SubgroupInvocationID == 0u)
        tmp[gl_SubgroupID] = afp2lfpvec4(s);
    barrier();
    afpvec4 row_sum = afpvec4(0.f);
    for (uint k = 0u; k < gl_NumSubgroups; k++)
        row_sum += lfp2afpvec4(tmp[k]);
#else
    tmp[lx] = afp2lfpvec4(s);
    barrier();
    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = afp2lfpvec4(lfp2afpvec4(tmp[lx]) + lfp2afpvec4(tmp[lx + k]));
        barrier();
    }
    afpvec4 row_sum = lfp2afpvec4(tmp[0]);
#endif

    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        afpvec4 v = exp(buffer_ld4(bottom_top_blob_data, row + x) - row_max) / row_sum;
        buffer_st4(bottom_top_blob_data, row + x, v);
    }
}
