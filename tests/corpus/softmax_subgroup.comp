#version 450

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#if NCNN_fp16_arithmetic
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif

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

// one workgroup per row: each subgroup reduces its lanes, then the first
// subgroup reduces the subgroups' partials (at most 64 of them)
shared lfp tmp_max[64];
shared lfp tmp_sum[64];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int lsize = int(gl_WorkGroupSize.x);
    uint sid = gl_SubgroupID;

    if (gy >= psc(h))
        return;

    const int row = gy * psc(w);

    afp m = afp(-65504.f);
    for (int i = lx; i < psc(w); i += lsize)
    {
        m = max(m, buffer_ld1(bottom_top_blob_data, row + i));
    }
    m = subgroupMax(m);
    if (gl_SubgroupInvocationID == 0u)
        tmp_max[sid] = afp2lfp(m);

    barrier();

    afp row_max = lfp2afp(tmp_max[0]);
    for (uint k = 1u; k < gl_NumSubgroups; k++)
        row_max = max(row_max, lfp2afp(tmp_max[k]));

    afp sum = afp(0.f);
    for (int i = lx; i < psc(w); i += lsize)
    {
        afp v = buffer_ld1(bottom_top_blob_data, row + i);
        sum += exp(v - row_max);
    }
    sum = subgroupAdd(sum);
    if (gl_SubgroupInvocationID == 0u)
        tmp_sum[sid] = afp2lfp(sum);

    barrier();

    afp row_sum = afp(0.f);
    for (uint k = 0u; k < gl_NumSubgroups; k++)
        row_sum += lfp2afp(tmp_sum[k]);

    for (int i = lx; i < psc(w); i += lsize)
    {
        afp v = buffer_ld1(bottom_top_blob_data, row + i);
        v = exp(v - row_max) / row_sum;
        buffer_st1(bottom_top_blob_data, row + i, v);
    }
}
