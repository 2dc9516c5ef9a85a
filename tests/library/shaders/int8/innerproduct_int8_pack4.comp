#version 450

layout (constant_id = 0) const float scale_in = 1.f;

#define shape_constant_id_offset 1
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int outw = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sint8vec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
layout (binding = 2) readonly buffer weight_blob { sint8vec4 weight_data[]; };
layout (binding = 3) readonly buffer scale_weight_blob { sfpvec4 scale_weight_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int outw;
} p;

// int8 GEMV: four int8 inputs per word, four outputs per invocation,
// dequantized to pack4
void main()
{
    int gx = int(gl_GlobalInvocationID.x);

    if (gx >= psc(outw))
        return;

    ivec4 sum = ivec4(0);

    for (int i = 0; i < psc(w); i++)
    {
        ivec4 v = i8buffer_ld4(bottom_blob_data, i);
        for (int j = 0; j < 4; j++)
        {
            ivec4 k = i8buffer_ld4(weight_data, (gx * 4 + j) * psc(w) + i);
            ivec4 m = v * k;
            sum[j] += m.x + m.y + m.z + m.w;
        }
    }

    vec4 res = vec4(sum) * scale_in * vec4(buffer_ld4(scale_weight_data, gx));

    buffer_st4(top_blob_data, gx, afpvec4(res));
}
