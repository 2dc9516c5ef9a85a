#version 450

layout (constant_id = 0) const float eps = 0.00001f;
layout (constant_id = 1) const int affine = 0;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfpvec4 bottom_top_blob_data[]; };
layout (binding = 1) readonly buffer gamma_blob { sfpvec4 gamma_data[]; };
layout (binding = 2) readonly buffer beta_blob { sfpvec4 beta_data[]; };

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

    vec4 sum = vec4(0.f);
    for (int i = 0; i < psc(w); i++)
    {
        sum += vec4(buffer_ld4(bottom_top_blob_data, row + i));
    }
    const vec4 mean = sum / float(psc(w));

    vec4 sqsum = vec4(0.f);
    for (int i = 0; i < psc(w); i++)
    {
        vec4 d = vec4(buffer_ld4(bottom_top_blob_data, row + i)) - mean;
        sqsum += d * d;
    }
    const vec4 var = sqsum / float(psc(w));

    const afpvec4 a = afpvec4(inversesqrt(var + eps));
    const afpvec4 b = afpvec4(-mean) * a;

    for (int i = 0; i < psc(w); i++)
    {
        afpvec4 v = buffer_ld4(bottom_top_blob_data, row + i) * a + b;
        if (affine == 1)
            v = v * buffer_ld4(gamma_data, i) + buffer_ld4(beta_data, i);
        buffer_st4(bottom_top_blob_data, row + i, v);
    }
}
