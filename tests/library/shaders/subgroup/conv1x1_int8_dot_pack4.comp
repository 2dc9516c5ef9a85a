#version 450

#if ncnn_VK_KHR_shader_integer_dot_product
#extension GL_EXT_integer_dot_product : require
#endif

layout (constant_id = 0) const float scale_in = 1.f;

#define shape_constant_id_offset 1
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;
layout (constant_id = shape_constant_id_offset + 4) const int outc = 0;
layout (constant_id = shape_constant_id_offset + 5) const int outcstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sint8vec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
layout (binding = 2) readonly buffer weight_blob { sint8vec4 weight_data[]; };
layout (binding = 3) readonly buffer scale_weight_blob { sfpvec4 scale_weight_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
    int outc;
    int outcstep;
} p;

// int8 1x1 convolution: four int8 input channels per word, four output
// channels per invocation, dequantized to pack4 floats
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(w) || gy >= psc(h) || gz >= psc(outc))
        return;

    const int gi = gy * psc(w) + gx;

    int sum0 = 0;
    int sum1 = 0;
    int sum2 = 0;
    int sum3 = 0;

    for (int z = 0; z < psc(c); z++)
    {
        int v = bottom_blob_data[z * psc(cstep) + gi];
        int w_offset = (gz * psc(c) + z) * 4;
        int k0 = weight_data[w_offset + 0];
        int k1 = weight_data[w_offset + 1];
        int k2 = weight_data[w_offset + 2];
        int k3 = weight_data[w_offset + 3];
#if ncnn_VK_KHR_shader_integer_dot_product
        sum0 += dotPacked4x8EXT(v, k0);
#else
        {
            ivec4 a = unpackInt4x8(v);
            ivec4 b = unpackInt4x8(k0);
            sum0 += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
#endif
#if ncnn_VK_KHR_shader_integer_dot_product
        sum1 += dotPacked4x8EXT(v, k1);
#else
        {
            ivec4 a = unpackInt4x8(v);
            ivec4 b = unpackInt4x8(k1);
            sum1 += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
#endif
#if ncnn_VK_KHR_shader_integer_dot_product
        sum2 += dotPacked4x8EXT(v, k2);
#else
        {
            ivec4 a = unpackInt4x8(v);
            ivec4 b = unpackInt4x8(k2);
            sum2 += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
#endif
#if ncnn_VK_KHR_shader_integer_dot_product
        sum3 += dotPacked4x8EXT(v, k3);
#else
        {
            ivec4 a = unpackInt4x8(v);
            ivec4 b = unpackInt4x8(k3);
            sum3 += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
#endif
    }

    vec4 res = vec4(ivec4(sum0, sum1, sum2, sum3)) * scale_in * vec4(buffer_ld4(scale_weight_data, gz));

    buffer_st4(top_blob_data, gz * psc(outcstep) + gi, res);
}
