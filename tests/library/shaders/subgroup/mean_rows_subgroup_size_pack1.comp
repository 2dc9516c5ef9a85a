#version 450

#if ncnn_subgroup_arithmetic && ncnn_subgroupSize >= 8
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

#define LOCAL_SIZE 256
#if ncnn_subgroup_arithmetic && ncnn_subgroupSize >= 32
#define PARTIALS (LOCAL_SIZE / 32)
#elif ncnn_subgroup_arithmetic && ncnn_subgroupSize >= 8
#define PARTIALS (LOCAL_SIZE / 8)
#else
#define PARTIALS LOCAL_SIZE
#endif

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

// one workgroup per row; with subgroup arithmetic, one partial per subgroup,
// so the array need only hold LOCAL_SIZE / (least subgroup size) of them
shared lfp partial[PARTIALS];

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

#if ncnn_subgroup_arithmetic && ncnn_subgroupSize >= 8
    s = subgroupAdd(s);
    if (gl_SubgroupInvocationID == 0u)
        partial[gl_SubgroupID] = afp2lfp(s);

    barrier();

    if (lx == 0)
    {
        afp res = afp(0.f);
        for (uint k = 0u; k < gl_NumSubgroups; k++)
            res += lfp2afp(partial[k]);
        buffer_st1(top_blob_data, gz * psc(h) + gy, res / afp(psc(w)));
    }
#else
    partial[lx] = afp2lfp(s);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            partial[lx] = afp2lfp(lfp2afp(partial[lx]) + lfp2afp(partial[lx + k]));
        barrier();
    }

    if (lx == 0)
    {
        afp res = lfp2afp(partial[0]);
        res = res / afp(psc(w));
        buffer_st1(top_blob_data, gz * psc(h) + gy, res);
    }
#endif
}
