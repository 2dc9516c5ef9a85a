#version 450

// top = A * B on cooperative matrices where the device has them
// (VK_KHR_cooperative_matrix): fp16 A and B, fp32 accumulation; a plain
// tiled GEMM otherwise. A is GM x GK in pack4 along K (sfpvec4, any storage
// mode), B is given transposed, GN x GK, as fp16 weights packed four to a
// uvec2 (as ncnn packs constant weights), top is GM x GN in pack4 along N.
//
// Cooperative matrix variant: one subgroup per workgroup (local_size_x_id
// 233 and subgroup_size set to the subgroup size), one M x N tile of top per
// workgroup (dispatch ceil(GN / N) x ceil(GM / M)); M, N, K (18, 19, 20) a
// shape from vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR with fp16
// A/B and fp32 C; GK a multiple of K and B padded to a multiple of N rows.
// Plain variant: one invocation per pack4 of top (dispatch GN / 4 x GM).

#extension GL_KHR_memory_scope_semantics : require
#if ncnn_VK_KHR_cooperative_matrix
#extension GL_KHR_cooperative_matrix : require
// the fp16 matrices are float16_t in every storage mode
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

layout (constant_id = 0) const int GM = 0;
layout (constant_id = 1) const int GN = 0;
layout (constant_id = 2) const int GK = 0;

layout (constant_id = 18) const uint M = 16;
layout (constant_id = 19) const uint N = 16;
layout (constant_id = 20) const uint K = 16;
layout (constant_id = 21) const uint subgroup_size = 32;

layout (local_size_x_id = 233) in;

layout (binding = 0) readonly buffer A_blob { sfpvec4 A_blob_data[]; };
layout (binding = 1) readonly buffer B_blob { uvec2 B_blob_data[]; };
layout (binding = 2) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int GM;
    int GN;
    int GK;
} p;

#if ncnn_VK_KHR_cooperative_matrix
// the A tile (M x K, row-major) and the top tile (M x N, row-major), four
// halves per uvec2
shared uvec2 tmp_a[M * K / 4];
shared uvec2 tmp_o[M * N / 4];
#endif

void main()
{
#if ncnn_VK_KHR_cooperative_matrix
    const uint si = gl_LocalInvocationID.x;
    const int mi = int(gl_WorkGroupID.y * M);
    const int ni = int(gl_WorkGroupID.x * N);

    if (mi >= psc(GM) || ni >= psc(GN))
        return;

    // even and odd steps of K accumulate apart
    coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> sum[2];
    sum[0] = coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(0.f);
    sum[1] = coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(0.f);

    const int kk = psc(GK) / int(K);
    for (int q = 0; q < kk; q++)
    {
        const int k = q * int(K);

        // A tile through shared memory: any storage mode becomes halves
        for (uint i = si; i < M * K / 4; i += subgroup_size)
        {
            const int row = mi + int(i / (K / 4));
            const int col4 = k / 4 + int(i % (K / 4));
            vec4 v = vec4(0.f);
            if (row < psc(GM))
                v = vec4(buffer_ld4(A_blob_data, row * (psc(GK) / 4) + col4));
            tmp_a[i] = uvec2(packHalf2x16(v.rg), packHalf2x16(v.ba));
        }

        barrier();

        coopmat<float16_t, gl_ScopeSubgroup, M, K, gl_MatrixUseA> A;
        coopMatLoad(A, tmp_a, 0, K / 4, gl_CooperativeMatrixLayoutRowMajor);

        // B straight from the weights: column n of the K x N tile is row
        // ni + n of B, K halves from k on
        coopmat<float16_t, gl_ScopeSubgroup, K, N, gl_MatrixUseB> B;
        coopMatLoad(B, B_blob_data, uint(ni * (psc(GK) / 4) + k / 4), uint(psc(GK) / 4), gl_CooperativeMatrixLayoutColumnMajor);

        sum[q % 2] = coopMatMulAdd(A, B, sum[q % 2]);

        barrier();
    }

    coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> total = sum[0] + sum[1];

    // to fp16, and out through shared memory
    coopmat<float16_t, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> total_fp16 = coopmat<float16_t, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(total);
    coopMatStore(total_fp16, tmp_o, 0, N / 4, gl_CooperativeMatrixLayoutRowMajor);

    barrier();

    for (uint i = si; i < M * N / 4; i += subgroup_size)
    {
        const int row = mi + int(i / (N / 4));
        const int col4 = ni / 4 + int(i % (N / 4));
        if (row < psc(GM) && col4 * 4 < psc(GN))
        {
            const uvec2 v = tmp_o[i];
            afpvec4 o = afpvec4(vec4(unpackHalf2x16(v.x), unpackHalf2x16(v.y)));
            buffer_st4(top_blob_data, row * (psc(GN) / 4) + col4, o);
        }
    }
#else
    const int gx = int(gl_GlobalInvocationID.x);
    const int gy = int(gl_GlobalInvocationID.y);

    if (gx * 4 >= psc(GN) || gy >= psc(GM))
        return;

    afpvec4 sum = afpvec4(0.f);

    for (int k4 = 0; k4 < psc(GK) / 4; k4++)
    {
        afpvec4 a = buffer_ld4(A_blob_data, gy * (psc(GK) / 4) + k4);
        for (int j = 0; j < 4; j++)
        {
            // row gx * 4 + j of B, halves 4 * k4 .. 4 * k4 + 3
            const uvec2 b = B_blob_data[(gx * 4 + j) * (psc(GK) / 4) + k4];
            const afpvec4 bv = afpvec4(vec4(unpackHalf2x16(b.x), unpackHalf2x16(b.y)));
            sum[j] += afp(dot(vec4(a), vec4(bv)));
        }
    }

    buffer_st4(top_blob_data, gy * (psc(GN) / 4) + gx, sum);
#endif
}
