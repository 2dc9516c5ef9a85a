#version 450

layout (constant_id = 0) const int scale_data_size = 1;
layout (constant_id = 1) const float scale_value = 1.f;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfp bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sint8 top_blob_data[]; };
layout (binding = 2) readonly buffer scale_blob { sfp scale_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// quantize to int8: round half away from zero, clamp to [-127, 127]
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(w) || gy >= psc(h) || gz >= psc(c))
        return;

    const int gi = gz * psc(cstep) + gy * psc(w) + gx;

    float scale = scale_data_size == 1 ? scale_value : float(buffer_ld1(scale_data, gz));

    float v = float(buffer_ld1(bottom_blob_data, gi)) * scale;

    i8buffer_st1(top_blob_data, gi, float2int8(v));
}
