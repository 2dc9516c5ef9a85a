#version 450

layout (constant_id = 0) const int bias_term = 0;

#define shape_constant_id_offset 1
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfp top_blob_data[]; };
layout (binding = 2) readonly buffer scale_blob { sfp scale_blob_data[]; };
layout (binding = 3) readonly buffer bias_blob { sfp bias_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

void main()
{
    uint gx = gl_GlobalInvocationID.x;
    uint gy = gl_GlobalInvocationID.y;
    uint gz = gl_GlobalInvocationID.z;

    if (gx >= uint(psc(w)) || gy >= uint(psc(h)) || gz >= uint(psc(c)))
        return;

    const uint gi = gz * uint(psc(cstep)) + gy * uint(psc(w)) + gx;

    // The per-channel factors in fp32 whatever the storage: with fp16
    // arithmetic the loads are float16_t, converted implicitly.
    const float s = buffer_ld1(scale_blob_data, gz);
    const float b = bias_term == 1 ? buffer_ld1(bias_blob_data, gz) : 0.f;

    float v = float(buffer_ld1(bottom_blob_data, gi));

    buffer_st1(top_blob_data, gi, afp(v * s + b));
}
