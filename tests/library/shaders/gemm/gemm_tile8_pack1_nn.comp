#version 450

layout (constant_id = 0) const float alpha = 1.f;
layout (constant_id = 1) const float beta = 0.f;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int M = 0;
layout (constant_id = shape_constant_id_offset + 1) const int N = 0;
layout (constant_id = shape_constant_id_offset + 2) const int K = 0;

#define TILE 8

layout (local_size_x = TILE, local_size_y = TILE, local_size_z = 1) in;

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

// GEMM, B K x N; TILE x TILE tiles in shared memory
shared lfp tmp_a[TILE][TILE];
shared lfp tmp_b[TILE][TILE];

void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int lx = int(gl_LocalInvocationID.x);
    int ly = int(gl_LocalInvocationID.y);

    afp sum = afp(0.f);

    for (int k0 = 0; k0 < psc(K); k0 += TILE)
    {
        int ak = k0 + lx;
        if (gy < psc(M) && ak < psc(K))
            tmp_a[ly][lx] = buffer_sm1(A_data, gy * psc(K) + ak);
        else
            tmp_a[ly][lx] = afp2lfp(afp(0.f));

        int bk = k0 + ly;
        if (gx < psc(N) && bk < psc(K))
            tmp_b[ly][lx] = buffer_sm1(B_data, bk * psc(N) + gx);
        else
            tmp_b[ly][lx] = afp2lfp(afp(0.f));

        barrier();

        for (int k = 0; k < TILE; k++)
        {
            sum += lfp2afp(tmp_a[ly][k]) * lfp2afp(tmp_b[k][lx]);
        }

        barrier();
    }

    if (gx >= psc(N) || gy >= psc(M))
        return;

    const int gi = gy * psc(N) + gx;

    afp res = sum * afp(alpha);
    if (beta != 0.f)
        res += buffer_ld1(C_data, gi) * afp(beta);

    buffer_st1(top_blob_data, gi, res);
}
