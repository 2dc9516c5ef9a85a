#version 450

#if ncnn_subgroup_shuffle_relative
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#if NCNN_fp16_arithmetic
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif
#endif

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

#define LOCAL_SIZE 128

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfp top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// row sums: a subgroup shuffle-down reduction where the device has it
shared lfp tmp[LOCAL_SIZE];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    const int row = gz * psc(cstep) + gy * psc(w);

    afp s = afp(0.f);
    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        afp v = buffer_ld1(bottom_blob_data, row + x);
        s = s + v;
    }

#if ncnn_subgroup_shuffle_relative
    for (uint d = gl_SubgroupSize / 2u; d > 0u; d >>= 1u)
    {
        afp o = subgroupShuffleDown(s, d);
        if (gl_SubgroupInvocationID + d < gl_SubgroupSize)
            s += o;
    }
    if (gl_SubgroupInvocationID == 0u)
        tmp[gl_SubgroupID] = afp2lfp(s);

    barrier();

    if (lx == 0)
    {
        afp res = afp(0.f);
        for (uint k = 0u; k < gl_NumSubgroups; k++)
            res += lfp2afp(tmp[k]);
        buffer_st1(top_blob_data, gz * psc(h) + gy, res);
    }
#else
    tmp[lx] = afp2lfp(s);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = afp2lfp(lfp2afp(tmp[lx]) + lfp2afp(tmp[lx + k]));
        barrier();
    }

    if (lx == 0)
    {
        afp res = lfp2afp(tmp[0]);
        buffer_st1(top_blob_data, gz * psc(h) + gy, res);
    }
#endif
}
