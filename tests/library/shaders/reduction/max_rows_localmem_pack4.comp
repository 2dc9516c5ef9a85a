#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

#define LOCAL_SIZE 64

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

// with shader local memory: one workgroup per row, a tree in shared memory;
// without: one invocation per row, dispatched over (h, c)
#if NCNN_shader_local_memory
shared lfpvec4 tmp[LOCAL_SIZE];
#endif

void main()
{
#if NCNN_shader_local_memory
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    const int row = gz * psc(cstep) + gy * psc(w);

    afpvec4 s = afpvec4(-65504.f);
    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        afpvec4 v = buffer_ld4(bottom_blob_data, row + x);
        s = max(s, v);
    }
    tmp[lx] = afp2lfpvec4(s);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = afp2lfpvec4(max(lfp2afpvec4(tmp[lx]), lfp2afpvec4(tmp[lx + k])));
        barrier();
    }

    if (lx == 0)
    {
        afpvec4 res = lfp2afpvec4(tmp[0]);
        buffer_st4(top_blob_data, gz * psc(h) + gy, res);
    }
#else
    int gy = int(gl_GlobalInvocationID.x);
    int gz = int(gl_GlobalInvocationID.y);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    const int row = gz * psc(cstep) + gy * psc(w);

    afpvec4 s = afpvec4(-65504.f);
    for (int x = 0; x < psc(w); x++)
    {
        afpvec4 v = buffer_ld4(bottom_blob_data, row + x);
        s = max(s, v);
    }

    buffer_st4(top_blob_data, gz * psc(h) + gy, s);
#endif
}
