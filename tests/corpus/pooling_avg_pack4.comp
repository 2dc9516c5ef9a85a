#version 450

layout (constant_id = 0) const int kernel_w = 3;
layout (constant_id = 1) const int kernel_h = 3;
layout (constant_id = 2) const int stride_w = 1;
layout (constant_id = 3) const int stride_h = 1;
layout (constant_id = 4) const int pad_left = 1;
layout (constant_id = 5) const int pad_top = 1;
layout (constant_id = 6) const int avgpool_count_include_pad = 0;

#define shape_constant_id_offset 7
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;
layout (constant_id = shape_constant_id_offset + 4) const int outw = 0;
layout (constant_id = shape_constant_id_offset + 5) const int outh = 0;
layout (constant_id = shape_constant_id_offset + 6) const int outcstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
    int outw;
    int outh;
    int outcstep;
} p;

void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(outw) || gy >= psc(outh) || gz >= psc(c))
        return;

    afpvec4 res = afpvec4(0.f);
    int area = 0;

    int sx = gx * stride_w - pad_left;
    int sy = gy * stride_h - pad_top;

    for (int y = 0; y < kernel_h; y++)
    {
        int iy = sy + y;
        if (iy < 0 || iy >= psc(h))
            continue;

        for (int x = 0; x < kernel_w; x++)
        {
            int ix = sx + x;
            if (ix < 0 || ix >= psc(w))
                continue;

            res += buffer_ld4(bottom_blob_data, gz * psc(cstep) + iy * psc(w) + ix);
            area += 1;
        }
    }

    if (avgpool_count_include_pad == 1)
        area = kernel_w * kernel_h;

    res /= afp(area);

    buffer_st4(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, res);
}
