#version 450

layout (constant_id = 0) const float alpha = 1.f;
layout (constant_id = 1) const float beta = 1.f;
// the K extent of a tile, and the padded row strides in shared memory of
// the A tile (8 rows of TILE_K) and the B tile (TILE_K rows of 8)
layout (constant_id = 2) const uint TILE_K = 8;
layout (constant_id = 3) const uint A_STRIDE = 8;
layout (constant_id = 4) const uint B_STRIDE = 8;

#define shape_constant_id_offset 5
layout (constant_id = shape_constant_id_offset + 0) const int M = 0;
layout (constant_id = shape_constant_id_offset + 1) const int N = 0;
layout (constant_id = shape_constant_id_offset + 2) const int K = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) readonly buffer A_blob { sfp A_data[]; };
layout (binding = 1) readonly buffer B_blob { sfp B_data[]; };
layout (binding = 2) readonly buffer C_blob { sfp C_data[]; };
layout (binding = 3) writeonly buffer top_blob { sfp top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int M;
    int N;
    int K;
} p;

// tile[0] holds A, tile[1] holds B, each sized for the larger of the two
// (the workgroup is 8x8, one output each)
shared lfp tile[2][8u * A_STRIDE > TILE_K * B_STRIDE ? 8u * A_STRIDE : TILE_K * B_STRIDE];

void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    uint lx = gl_LocalInvocationID.x;
    uint ly = gl_LocalInvocationID.y;
    uint li = ly * 8u + lx;
    int row0 = int(gl_WorkGroupID.y) * 8;
    int col0 = int(gl_WorkGroupID.x) * 8;

    afp sum = afp(0.f);

    for (int k0 = 0; k0 < psc(K); k0 += int(TILE_K))
    {
        // 8 x TILE_K of A and TILE_K x 8 of B, 64 elements a step
        for (uint i = li; i < 8u * TILE_K; i += 64u)
        {
            uint ar = i / TILE_K;
            uint ac = i % TILE_K;
            int am = row0 + int(ar);
            int ak = k0 + int(ac);
            if (am < psc(M) && ak < psc(K))
                tile[0][ar * A_STRIDE + ac] = buffer_sm1(A_data, am * psc(K) + ak);
            else
                tile[0][ar * A_STRIDE + ac] = afp2lfp(afp(0.f));

            uint br = i / 8u;
            uint bc = i % 8u;
            int bk = k0 + int(br);
            int bn = col0 + int(bc);
            if (bk < psc(K) && bn < psc(N))
                tile[1][br * B_STRIDE + bc] = buffer_sm1(B_data, bk * psc(N) + bn);
            else
                tile[1][br * B_STRIDE + bc] = afp2lfp(afp(0.f));
        }

        barrier();

        for (uint k = 0u; k < TILE_K; k++)
        {
            sum += lfp2afp(tile[0][ly * A_STRIDE + k]) * lfp2afp(tile[1][k * B_STRIDE + lx]);
        }

        barrier();
    }

    if (gx >= psc(N) || gy >= psc(M))
        return;

    const int gi = gy * psc(N) + gx;

    afp res = sum * afp(alpha) + buffer_ld1(C_data, gi) * afp(beta);

    buffer_st1(top_blob_data, gi, res);
}
