#version 450

#extension GL_EXT_integer_dot_product : require

layout (constant_id = 0) const int bias_term = 0;

#define shape_constant_id_offset 1
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int outw = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

// four int8 lanes per word
layout (binding = 0) readonly buffer bottom_blob { int bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { int top_blob_data[]; };
layout (binding = 2) readonly buffer weight_blob { int weight_data[]; };
layout (binding = 3) readonly buffer bias_blob { int bias_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int outw;
} p;

// int8 GEMV on the integer dot product path: one dot product of four lanes
// per word of input and weights
void main()
{
    int gx = int(gl_GlobalInvocationID.x);

    if (gx >= psc(outw))
        return;

    int sum = bias_term == 1 ? bias_data[gx] : 0;

    for (int i = 0; i < psc(w); i++)
    {
        sum += dotPacked4x8EXT(bottom_blob_data[i], weight_data[gx * psc(w) + i]);
    }

    top_blob_data[gx] = sum;
}
