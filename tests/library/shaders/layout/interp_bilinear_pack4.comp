#version 450

#define shape_constant_id_offset 0
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
    float scale_x;
    float scale_y;
} p;

// bilinear resize, half-pixel centres
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(outw) || gy >= psc(outh) || gz >= psc(c))
        return;

    float fx = max((float(gx) + 0.5f) * p.scale_x - 0.5f, 0.f);
    float fy = max((float(gy) + 0.5f) * p.scale_y - 0.5f, 0.f);
    int x0 = min(int(floor(fx)), psc(w) - 1);
    int y0 = min(int(floor(fy)), psc(h) - 1);
    int x1 = min(x0 + 1, psc(w) - 1);
    int y1 = min(y0 + 1, psc(h) - 1);
    afp ax = afp(fx - float(x0));
    afp ay = afp(fy - float(y0));

    const int row0 = gz * psc(cstep) + y0 * psc(w);
    const int row1 = gz * psc(cstep) + y1 * psc(w);

    afpvec4 a0 = buffer_ld4(bottom_blob_data, row0 + x0);
    afpvec4 a1 = buffer_ld4(bottom_blob_data, row0 + x1);
    afpvec4 b0 = buffer_ld4(bottom_blob_data, row1 + x0);
    afpvec4 b1 = buffer_ld4(bottom_blob_data, row1 + x1);

    afpvec4 a = mix(a0, a1, ax);
    afpvec4 b = mix(b0, b1, ax);
    afpvec4 v = mix(a, b, ay);

    buffer_st4(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, v);
}
