#version 450

#if ncnn_VK_KHR_shader_integer_dot_product
#extension GL_EXT_integer_dot_product : require
#endif

layout (constant_id = 0) const int bias_term = 0;
layout (constant_id = 1) const float scale_in = 1.f;
layout (constant_id = 2) const float scale_weight = 1.f;

#define shape_constant_id_offset 3
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int outw = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sint8vec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfp top_blob_data[]; };
layout (binding = 2) readonly buffer weight_blob { sint8vec4 weight_data[]; };
layout (binding = 3) readonly buffer bias_blob { sfp bias_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int outw;
} p;

// int8 GEMV, four int8 lanes per word of input and weights; the packed dot
// product where the device has VK_KHR_shader_integer_dot_product
void main()
{
    int gx = int(gl_GlobalInvocationID.x);

    if (gx >= psc(outw))
        return;

    int sum = 0;

    for (int i = 0; i < psc(w); i++)
    {
        int v = bottom_blob_data[i];
        int k = weight_data[gx * psc(w) + i];
#if ncnn_VK_KHR_shader_integer_dot_product
        sum += dotPacked4x8EXT(v, k);
#else
        {
            ivec4 a = unpackInt4x8(v);
            ivec4 b = unpackInt4x8(k);
            sum += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
#endif
    }

    afp res = afp(float(sum) * scale_in * scale_weight);
    if (bias_term == 1)
        res += buffer_ld1(bias_data, gx);

    buffer_st1(top_blob_data, gx, res);
}
