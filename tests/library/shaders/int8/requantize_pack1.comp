#version 450

layout (constant_id = 0) const float scale_in = 1.f;
layout (constant_id = 1) const float scale_out = 1.f;
layout (constant_id = 2) const int bias_term = 0;
layout (constant_id = 3) const int activation_type = 0;

#define shape_constant_id_offset 4
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { int bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sint8 top_blob_data[]; };
layout (binding = 2) readonly buffer bias_blob { sfp bias_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// requantize int32 accumulators to int8, with an optional bias and relu
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(w) || gy >= psc(h) || gz >= psc(c))
        return;

    const int gi = gz * psc(cstep) + gy * psc(w) + gx;

    float v = float(bottom_blob_data[gi]) * scale_in;

    if (bias_term == 1)
        v += float(buffer_ld1(bias_data, gz));

    if (activation_type == 1)
        v = max(v, float(0.f));

    i8buffer_st1(top_blob_data, gi, float2int8(v * scale_out));
}
