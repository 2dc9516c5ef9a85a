#version 450

layout (constant_id = 0) const int operation = 0;

#define shape_constant_id_offset 1
layout (constant_id = shape_constant_id_offset + 0) const int size = 0;
layout (constant_id = shape_constant_id_offset + 1) const int c = 0;
layout (constant_id = shape_constant_id_offset + 2) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int size;
    int c;
    int cstep;
} p;

// one workgroup of 64 per channel group: sum (operation 0), sum of squares
// (1) or mean (2) over the channel
shared lfpvec4 tmp[64];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gz = int(gl_WorkGroupID.z);

    afpvec4 sum = afpvec4(0.f);

    if (gz < psc(c))
    {
        for (int i = lx; i < psc(size); i += 64)
        {
            afpvec4 v = buffer_ld4(bottom_blob_data, gz * psc(cstep) + i);
            if (operation == 1)
                v = v * v;
            sum += v;
        }
    }

    tmp[lx] = afp2lfpvec4(sum);

    barrier();

    for (int s = 32; s > 0; s >>= 1)
    {
        if (lx < s)
        {
            tmp[lx] = afp2lfpvec4(lfp2afpvec4(tmp[lx]) + lfp2afpvec4(tmp[lx + s]));
        }
        barrier();
    }

    if (lx == 0 && gz < psc(c))
    {
        afpvec4 res = lfp2afpvec4(tmp[0]);
        if (operation == 2)
            res /= afp(psc(size));
        buffer_st4(top_blob_data, gz, res);
    }
}
