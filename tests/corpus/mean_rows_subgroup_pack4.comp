#version 450

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#if NCNN_fp16_arithmetic
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// One workgroup per row and channel block: strided sums, a butterfly of
// xor shuffles inside each subgroup, the subgroups' sums through shared
// memory, summed by the first subgroup.
shared lfpvec4 sums[64];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);
    int lsize = int(gl_WorkGroupSize.x);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    afpvec4 s = afpvec4(0.f);
    for (int x = lx; x < psc(w); x += lsize)
    {
        s += buffer_ld4(bottom_blob_data, gz * psc(cstep) + gy * psc(w) + x);
    }
    for (uint mask = gl_SubgroupSize / 2u; mask > 0u; mask >>= 1u)
    {
        s += subgroupShuffleXor(s, mask);
    }
    if (gl_SubgroupInvocationID == 0u)
        sums[gl_SubgroupID] = afp2lfpvec4(s);

    barrier();

    if (gl_SubgroupID == 0u)
    {
        afpvec4 t = afpvec4(0.f);
        if (gl_SubgroupInvocationID < gl_NumSubgroups)
            t = lfp2afpvec4(sums[gl_SubgroupInvocationID]);
        // the running sum's last lane holds the total
        t = subgroupInclusiveAdd(t);
        t = subgroupShuffle(t, min(gl_NumSubgroups, gl_SubgroupSize) - 1u);
        if (lx == 0)
            buffer_st4(top_blob_data, gz * psc(h) + gy, t / afp(psc(w)));
    }
}
