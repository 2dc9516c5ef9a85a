#version 450

layout (constant_id = 0) const float eps = 0.00001f;

#define shape_constant_id_offset 1
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfp bottom_top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
} p;

// layer normalization of each row, one invocation per row
void main()
{
    int gy = int(gl_GlobalInvocationID.x);

    if (gy >= psc(h))
        return;

    const int row = gy * psc(w);

#if ncnn_driverID == 5 || ncnn_driverID == 4
    // accumulate in fp32 where the driver's fp16 accumulation was too coarse
    float sum = 0.f;
    for (int i = 0; i < psc(w); i++)
        sum += float(buffer_ld1(bottom_top_blob_data, row + i));
    const afp mean = afp(sum / float(psc(w)));
#else
    afp sum = afp(0.f);
    for (int i = 0; i < psc(w); i++)
        sum += buffer_ld1(bottom_top_blob_data, row + i);
    const afp mean = sum / afp(psc(w));
#endif

    afp sqsum = afp(0.f);
    for (int i = 0; i < psc(w); i++)
    {
        afp v = buffer_ld1(bottom_top_blob_data, row + i) - mean;
        sqsum += v * v;
    }

    const afp a = inversesqrt(sqsum / afp(psc(w)) + afp(eps));
    const afp b = -mean * a;

    for (int i = 0; i < psc(w); i++)
    {
        afp v = buffer_ld1(bottom_top_blob_data, row + i) * a + b;
        buffer_st1(bottom_top_blob_data, row + i, v);
    }
}
