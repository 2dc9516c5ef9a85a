#version 450

// A 1x1 convolution, stride 1, pack4 in and out, as a GEMM on cooperative
// matrices where the device has them (VK_KHR_cooperative_matrix): top
// (outc x size) = W (outc x c) * bottom (c x size) + bias. W and the bias
// are fp16 weights packed four to a uvec2 (W row-major, outc padded to a
// multiple of M, c a multiple of K), bottom and top any storage mode
// (sfpvec4, pack4 along the channels).
//
// Cooperative matrix variant: one subgroup per workgroup (local_size_x_id
// 233 and subgroup_size set to the subgroup size), one M x N tile of top per
// workgroup (dispatch ceil(size / N) x ceil(outc / M)); M, N, K (18, 19, 20)
// from the device's fp16 x fp16 + fp32 shapes. Plain variant: one
// invocation per pixel and four output channels (dispatch size x outc / 4).

#extension GL_KHR_memory_scope_semantics : require
#if ncnn_VK_KHR_cooperative_matrix
#extension GL_KHR_cooperative_matrix : require
// the fp16 matrices are float16_t in every storage mode
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

layout (constant_id = 0) const int c = 0;
layout (constant_id = 1) const int cstep = 0;
layout (constant_id = 2) const int outc = 0;
layout (constant_id = 3) const int outcstep = 0;
layout (constant_id = 4) const int size = 0;

layout (constant_id = 18) const uint M = 16;
layout (constant_id = 19) const uint N = 16;
layout (constant_id = 20) const uint K = 16;
layout (constant_id = 21) const uint subgroup_size = 32;

layout (local_size_x_id = 233) in;

layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
layout (binding = 2) readonly buffer weight_blob { uvec2 weight_data[]; };
layout (binding = 3) readonly buffer bias_blob { uvec2 bias_data[]; };

layout (push_constant) uniform parameter
{
    int c;
    int cstep;
    int outc;
    int outcstep;
    int size;
} p;

#if ncnn_VK_KHR_cooperative_matrix
// the bottom tile (K x N, column-major: the K channels of a pixel are
// consecutive, as pack4 keeps them) and the top tile (M x N, column-major)
shared uvec2 tmp_b[K * N / 4];
shared uvec2 tmp_o[M * N / 4];
#endif

void main()
{
#if ncnn_VK_KHR_cooperative_matrix
    const uint si = gl_LocalInvocationID.x;
    const int mi = int(gl_WorkGroupID.y * M);
    const int ni = int(gl_WorkGroupID.x * N);

    if (mi >= psc(outc) || ni >= psc(size))
        return;

    // the bias, the same in every column: a stride of 0
    coopmat<float16_t, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> bias;
    coopMatLoad(bias, bias_data, uint(mi / 4), 0, gl_CooperativeMatrixLayoutColumnMajor);
    coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> sum = coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(bias);

    for (int k = 0; k < psc(c); k += int(K))
    {
        // K channels of N pixels: pack4 of channel k / 4 + j, pixel ni + n
        for (uint i = si; i < K * N / 4; i += subgroup_size)
        {
            const int n = int(i / (K / 4));
            const int j = int(i % (K / 4));
            vec4 v = vec4(0.f);
            if (ni + n < psc(size))
                v = vec4(buffer_ld4(bottom_blob_data, (k / 4 + j) * psc(cstep) + ni + n));
            tmp_b[i] = uvec2(packHalf2x16(v.rg), packHalf2x16(v.ba));
        }

        barrier();

        coopmat<float16_t, gl_ScopeSubgroup, M, K, gl_MatrixUseA> W;
        coopMatLoad(W, weight_data, uint((mi * psc(c) + k) / 4), uint(psc(c) / 4), gl_CooperativeMatrixLayoutRowMajor);

        coopmat<float16_t, gl_ScopeSubgroup, K, N, gl_MatrixUseB> B;
        coopMatLoad(B, tmp_b, 0, K / 4, gl_CooperativeMatrixLayoutColumnMajor);

        sum = coopMatMulAdd(W, B, sum);

        barrier();
    }

    coopmat<float16_t, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> sum_fp16 = coopmat<float16_t, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(sum);
    coopMatStore(sum_fp16, tmp_o, 0, M / 4, gl_CooperativeMatrixLayoutColumnMajor);

    barrier();

    // column n holds M channels of pixel ni + n, four per uvec2: pack4 of top
    for (uint i = si; i < M * N / 4; i += subgroup_size)
    {
        const int n = int(i / (M / 4));
        const int j = int(i % (M / 4));
        if (ni + n < psc(size) && mi + j * 4 < psc(outc))
        {
            const uvec2 v = tmp_o[i];
            afpvec4 o = afpvec4(vec4(unpackHalf2x16(v.x), unpackHalf2x16(v.y)));
            buffer_st4(top_blob_data, (mi / 4 + j) * psc(outcstep) + ni + n, o);
        }
    }
#else
    const int gx = int(gl_GlobalInvocationID.x);
    const int gy = int(gl_GlobalInvocationID.y);

    if (gx >= psc(size) || gy * 4 >= psc(outc))
        return;

    const uvec2 b = bias_data[gy];
    afpvec4 sum = afpvec4(vec4(unpackHalf2x16(b.x), unpackHalf2x16(b.y)));

    for (int z = 0; z < psc(c) / 4; z++)
    {
        const afpvec4 v = buffer_ld4(bottom_blob_data, z * psc(cstep) + gx);
        for (int j = 0; j < 4; j++)
        {
            // row gy * 4 + j of W, channels 4 * z .. 4 * z + 3
            const uvec2 w = weight_data[((gy * 4 + j) * psc(c)) / 4 + z];
            const vec4 wv = vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y));
            sum[j] += afp(dot(wv, vec4(v)));
        }
    }

    buffer_st4(top_blob_data, gy * psc(outcstep) + gx, sum);
#endif
}
