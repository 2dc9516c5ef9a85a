#version 450

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

// One workgroup of 16 per row and channel block: strided sums, then a
// tree in shared memory.
shared lfpvec4 sums[16];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    afpvec4 s = afpvec4(0.f);
    for (int x = lx; x < psc(w); x += 16)
    {
        s += buffer_ld4(bottom_blob_data, gz * psc(cstep) + gy * psc(w) + x);
    }
    sums[lx] = afp2lfpvec4(s);

    barrier();

    for (int k = 8; k > 0; k >>= 1)
    {
        if (lx < k)
            sums[lx] = afp2lfpvec4(lfp2afpvec4(sums[lx]) + lfp2afpvec4(sums[lx + k]));
        barrier();
    }

    if (lx == 0)
        buffer_st4(top_blob_data, gz * psc(h) + gy, lfp2afpvec4(sums[0]) / afp(psc(w)));
}
