#version 450

layout (constant_id = 0) const float eps = 0.00001f;
layout (constant_id = 1) const int affine = 0;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfp bottom_top_blob_data[]; };
layout (binding = 1) readonly buffer gamma_blob { sfp gamma_data[]; };
layout (binding = 2) readonly buffer beta_blob { sfp beta_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// layer normalization along w, statistics in fp32, one invocation per row
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);

    if (gx >= psc(h) || gy >= psc(c))
        return;

    const int row = gy * psc(cstep) + gx * psc(w);

    float sum = float(0.f);
    for (int i = 0; i < psc(w); i++)
    {
        sum += float(buffer_ld1(bottom_top_blob_data, row + i));
    }
    const float mean = sum / float(psc(w));

    float sqsum = float(0.f);
    for (int i = 0; i < psc(w); i++)
    {
        float d = float(buffer_ld1(bottom_top_blob_data, row + i)) - mean;
        sqsum += d * d;
    }
    const float var = sqsum / float(psc(w));

    const afp a = afp(inversesqrt(var + eps));
    const afp b = afp(-mean) * a;

    for (int i = 0; i < psc(w); i++)
    {
        afp v = buffer_ld1(bottom_top_blob_data, row + i) * a + b;
        if (affine == 1)
            v = v * buffer_ld1(gamma_data, i) + buffer_ld1(beta_data, i);
        buffer_st1(bottom_top_blob_data, row + i, v);
    }
}
