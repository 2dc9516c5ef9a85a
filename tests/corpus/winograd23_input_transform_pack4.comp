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
} p;

// F(2x2, 3x3): each invocation transforms one 4x4 input tile, B^T d B,
// through two 2-D local arrays.
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(outw) || gy >= psc(outh) || gz >= psc(c))
        return;

    afpvec4 d[4][4];
    for (int i = 0; i < 4; i++)
    {
        for (int j = 0; j < 4; j++)
        {
            int x = gx * 2 + j;
            int y = gy * 2 + i;
            if (x < psc(w) && y < psc(h))
                d[i][j] = buffer_ld4(bottom_blob_data, gz * psc(cstep) + y * psc(w) + x);
            else
                d[i][j] = afpvec4(0.f);
        }
    }

    afpvec4 t[4][4];
    for (int j = 0; j < 4; j++)
    {
        t[0][j] = d[0][j] - d[2][j];
        t[1][j] = d[1][j] + d[2][j];
        t[2][j] = d[2][j] - d[1][j];
        t[3][j] = d[1][j] - d[3][j];
    }

    const int tiles = psc(outw) * psc(outh);
    const int tile = gy * psc(outw) + gx;

    for (int i = 0; i < 4; i++)
    {
        int base = gz * psc(outcstep) + (i * 4) * tiles + tile;
        buffer_st4(top_blob_data, base, t[i][0] - t[i][2]);
        buffer_st4(top_blob_data, base + tiles, t[i][1] + t[i][2]);
        buffer_st4(top_blob_data, base + 2 * tiles, t[i][2] - t[i][1]);
        buffer_st4(top_blob_data, base + 3 * tiles, t[i][1] - t[i][3]);
    }
}
