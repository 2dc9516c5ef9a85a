#version 450

// Attention scores, S = Q * K^T * scale, on cooperative matrices where the
// device has them (VK_KHR_cooperative_matrix). Q (seqlen_q x d) and K
// (seqlen_k x d) are fp16 packed four to a uvec2, row-major (d a multiple of
// the matrices' K, seqlen_q of M, seqlen_k of N: the host pads); S is fp32,
// row-major, seqlen_k to a row, for the softmax that follows.
//
// Cooperative matrix variant: one subgroup per workgroup (local_size_x_id
// 233), one M x N tile of S per workgroup (dispatch seqlen_k / N x
// seqlen_q / M); M, N, K (18, 19, 20) from the device's fp16 x fp16 + fp32
// shapes. Plain variant: one score per invocation (dispatch seqlen_k x
// seqlen_q).

#extension GL_KHR_memory_scope_semantics : require
#if ncnn_VK_KHR_cooperative_matrix
#extension GL_KHR_cooperative_matrix : require
// the fp16 matrices are float16_t in every storage mode
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

layout (constant_id = 0) const float scale = 1.f;
layout (constant_id = 1) const int seqlen_q = 0;
layout (constant_id = 2) const int seqlen_k = 0;
layout (constant_id = 3) const int d = 0;

layout (constant_id = 18) const uint M = 16;
layout (constant_id = 19) const uint N = 16;
layout (constant_id = 20) const uint K = 16;

layout (local_size_x_id = 233) in;

layout (binding = 0) readonly buffer q_blob { uvec2 q_data[]; };
layout (binding = 1) readonly buffer k_blob { uvec2 k_data[]; };
layout (binding = 2) writeonly buffer score_blob { float score_data[]; };

layout (push_constant) uniform parameter
{
    int seqlen_q;
    int seqlen_k;
    int d;
} p;

void main()
{
#if ncnn_VK_KHR_cooperative_matrix
    const uint mi = gl_WorkGroupID.y * M;
    const uint ni = gl_WorkGroupID.x * N;

    if (mi >= uint(psc(seqlen_q)) || ni >= uint(psc(seqlen_k)))
        return;

    const uint d4 = uint(psc(d)) / 4;

    coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> s = coopmat<float, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(0.f);

    for (uint k = 0; k < uint(psc(d)); k += K)
    {
        // rows mi.. of Q, columns k..: row-major, a row every d halves
        coopmat<float16_t, gl_ScopeSubgroup, M, K, gl_MatrixUseA> q;
        coopMatLoad(q, q_data, mi * d4 + k / 4, d4, gl_CooperativeMatrixLayoutRowMajor);

        // K^T: column j of the K x N tile is row ni + j of K
        coopmat<float16_t, gl_ScopeSubgroup, K, N, gl_MatrixUseB> kt;
        coopMatLoad(kt, k_data, ni * d4 + k / 4, d4, gl_CooperativeMatrixLayoutColumnMajor);

        s = coopMatMulAdd(q, kt, s);
    }

    s = s * scale;

    // fp32 scores straight to the buffer
    coopMatStore(s, score_data, mi * uint(psc(seqlen_k)) + ni, uint(psc(seqlen_k)), gl_CooperativeMatrixLayoutRowMajor);
#else
    const int j = int(gl_GlobalInvocationID.x);
    const int i = int(gl_GlobalInvocationID.y);

    if (i >= psc(seqlen_q) || j >= psc(seqlen_k))
        return;

    const int d4 = psc(d) / 4;

    float sum = 0.f;
    for (int z = 0; z < d4; z++)
    {
        const uvec2 a = q_data[i * d4 + z];
        const uvec2 b = k_data[j * d4 + z];
        sum += dot(vec4(unpackHalf2x16(a.x), unpackHalf2x16(a.y)), vec4(unpackHalf2x16(b.x), unpackHalf2x16(b.y)));
    }

    score_data[i * psc(seqlen_k) + j] = sum * scale;
#endif
}
