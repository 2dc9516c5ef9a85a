#version 450

layout (constant_id = 0) const int bias_term = 0;
layout (constant_id = 1) const int activation_type = 0;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int outw = 0;

#define PARTIALS 16

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
layout (binding = 2) readonly buffer weight_blob { sfpvec4 weight_data[]; };
layout (binding = 3) readonly buffer bias_blob { sfpvec4 bias_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int outw;
} p;

// PARTIALS invocations share one output: strided partial sums, then one
// invocation adds them
shared lfpvec4 partial[PARTIALS];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);

    afpvec4 sum = afpvec4(0.f);

    if (gy < psc(outw))
    {
        for (int i = lx; i < psc(w); i += PARTIALS)
        {
            afpvec4 v = buffer_ld4(bottom_blob_data, i);
            int w_offset = (gy * psc(w) + i) * 4;
            afpmat4 k = afpmat4(
                buffer_ld4(weight_data, w_offset + 0),
                buffer_ld4(weight_data, w_offset + 1),
                buffer_ld4(weight_data, w_offset + 2),
                buffer_ld4(weight_data, w_offset + 3)
            );
            sum += v * k;
        }
    }

    partial[lx] = afp2lfpvec4(sum);

    barrier();

    if (lx == 0 && gy < psc(outw))
    {
        afpvec4 res = bias_term == 1 ? buffer_ld4(bias_data, gy) : afpvec4(0.f);
        for (int i = 0; i < PARTIALS; i++)
        {
            res += lfp2afpvec4(partial[i]);
        }
        if (activation_type == 1)
            res = max(res, afp(0.f));
        buffer_st4(top_blob_data, gy, res);
    }
}
