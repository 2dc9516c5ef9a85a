#version 450

#define shape_constant_id_offset 0
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfpvec4 bottom_top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// softmax along w, one invocation per row
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);

    if (gx >= psc(h) || gy >= psc(c))
        return;

    const int row = gy * psc(cstep) + gx * psc(w);

    afpvec4 m = afpvec4(-65504.f);
    for (int i = 0; i < psc(w); i++)
    {
        m = max(m, buffer_ld4(bottom_top_blob_data, row + i));
    }

    afpvec4 s = afpvec4(0.f);
    for (int i = 0; i < psc(w); i++)
    {
        afpvec4 v = exp(buffer_ld4(bottom_top_blob_data, row + i) - m);
        buffer_st4(bottom_top_blob_data, row + i, v);
        s += v;
    }

    for (int i = 0; i < psc(w); i++)
    {
        afpvec4 v = buffer_ld4(bottom_top_blob_data, row + i) / s;
        buffer_st4(bottom_top_blob_data, row + i, v);
    }
}
