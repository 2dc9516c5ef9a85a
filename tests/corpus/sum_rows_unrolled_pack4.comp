#version 450

layout (constant_id = 0) const int UNROLL = 2;
const int TILE = UNROLL * 16;

#define shape_constant_id_offset 1
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

// One workgroup of 16 per row and channel block; each invocation loads
// UNROLL elements per step into a tile sized by the specialization
// constant, and the first one sums the tile.
shared lfpvec4 tile[TILE];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    afpvec4 sum = afpvec4(0.f);
    for (int x0 = 0; x0 < psc(w); x0 += TILE)
    {
        for (int u = 0; u < UNROLL; u++)
        {
            int x = x0 + u * 16 + lx;
            afpvec4 v = x < psc(w) ? buffer_ld4(bottom_blob_data, gz * psc(cstep) + gy * psc(w) + x) : afpvec4(0.f);
            tile[u * 16 + lx] = afp2lfpvec4(v);
        }
        barrier();
        if (lx == 0)
        {
            for (int k = 0; k < TILE; k++)
                sum += lfp2afpvec4(tile[k]);
        }
        barrier();
    }

    if (lx == 0)
        buffer_st4(top_blob_data, gz * psc(h) + gy, sum);
}
