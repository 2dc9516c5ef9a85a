#version 450

// ncnn's device macros choose the subgroup path; without them (or on a
// device without ballot) the same reduction runs through shared memory.
#if ncnn_subgroup_basic && ncnn_subgroup_arithmetic && ncnn_subgroup_ballot
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#define USE_SUBGROUP 1
#if ncnn_subgroup_clustered
#extension GL_KHR_shader_subgroup_clustered : require
#endif
#if NCNN_fp16_arithmetic
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif
#endif

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
layout (binding = 2) writeonly buffer count_blob { int count_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// One workgroup per row and channel block: the row's mean, and how many
// invocations saw a positive partial sum in their first lane. Each
// subgroup reduces its lanes (clusters of four first where the device has
// clustered operations) and counts with a ballot; one elected lane per
// subgroup hands both to shared memory for the first invocation.
shared lfpvec4 sums[64];
shared int counts[64];

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
    bool positive = s.r > afp(0.f);

#if USE_SUBGROUP
    uint npositive = subgroupBallotBitCount(subgroupBallot(positive));
#if ncnn_subgroup_clustered
    s = subgroupClusteredAdd(s, 4u);
    s = subgroupAdd((gl_SubgroupInvocationID & 3u) == 0u ? s : afpvec4(0.f));
#else
    s = subgroupAdd(s);
#endif
    if (subgroupElect())
    {
        sums[gl_SubgroupID] = afp2lfpvec4(s);
        counts[gl_SubgroupID] = int(npositive);
    }
    barrier();
    int parts = int(gl_NumSubgroups);
#else
    sums[lx] = afp2lfpvec4(s);
    counts[lx] = positive ? 1 : 0;
    barrier();
    int parts = lsize;
#endif

    if (lx == 0)
    {
        afpvec4 t = afpvec4(0.f);
        int n = 0;
        for (int i = 0; i < parts; i++)
        {
            t += lfp2afpvec4(sums[i]);
            n += counts[i];
        }
        const int gi = gz * psc(h) + gy;
        buffer_st4(top_blob_data, gi, t / afp(psc(w)));
        count_blob_data[gi] = n;
    }
}
