#version 450

layout (constant_id = 0) const int bias_term = 0;
layout (constant_id = 1) const int activation_type = 0;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int outw = 0;

#define PARTIALS 64

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfp top_blob_data[]; };
layout (binding = 2) readonly buffer weight_blob { sfp weight_data[]; };
layout (binding = 3) readonly buffer bias_blob { sfp bias_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int outw;
} p;

// PARTIALS invocations share one output: strided partial sums, then one
// invocation adds them
shared lfp partial[PARTIALS];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);

    afp sum = afp(0.f);

    if (gy < psc(outw))
    {
        for (int i = lx; i < psc(w); i += PARTIALS)
        {
            sum += buffer_ld1(bottom_blob_data, i) * buffer_ld1(weight_data, gy * psc(w) + i);
        }
    }

    partial[lx] = afp2lfp(sum);

    barrier();

    if (lx == 0 && gy < psc(outw))
    {
        afp res = bias_term == 1 ? buffer_ld1(bias_data, gy) : afp(0.f);
        for (int i = 0; i < PARTIALS; i++)
        {
            res += lfp2afp(partial[i]);
        }
        if (activation_type == 1)
            res = max(res, afp(0.f));
        buffer_st1(top_blob_data, gy, res);
    }
}
