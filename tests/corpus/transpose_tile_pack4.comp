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

#define TILE 8

// One 8x8 tile per channel block, two blocks per workgroup (z), padded by
// one column against bank conflicts: a 3-D shared array.
shared lfpvec4 tile[2][TILE][TILE + 1];

void main()
{
    int lx = int(gl_LocalInvocationID.x);
    int ly = int(gl_LocalInvocationID.y);
    int lz = int(gl_LocalInvocationID.z);
    int x0 = int(gl_WorkGroupID.x) * TILE;
    int y0 = int(gl_WorkGroupID.y) * TILE;
    int gz = int(gl_GlobalInvocationID.z);

    int gx = x0 + lx;
    int gy = y0 + ly;
    if (gx < psc(w) && gy < psc(h) && gz < psc(c))
        tile[lz][ly][lx] = buffer_sm4(bottom_blob_data, gz * psc(cstep) + gy * psc(w) + gx);

    barrier();

    // The output is the input with width and height swapped.
    int ox = y0 + lx;
    int oy = x0 + ly;
    if (ox < psc(outw) && oy < psc(outh) && gz < psc(c))
        buffer_st4(top_blob_data, gz * psc(outcstep) + oy * psc(outw) + ox, lfp2afpvec4(tile[lz][lx][ly]));
}
