#version 450
// q8ta dequantize: int8 words in one of the channels-packed layouts -> float NCHW tensor
// [N, C, H, W] in sfp storage (spec: docs/q8ta-pixel-shuffle.md):
//
//   x = (q - zp) * scale      (one f32 rounding: q - zp is exact; then the storage conversion)
//
// Layout codes (Rust: ncnn_glsl_q8ta::Layout): 0 = 4W4C, 1 = 4C, 2 = 4C1W.
#pragma ncnn_glsl axis IN_LAYOUT 0 1 2
// Elements written per invocation, consecutive in width: 4 (buffer_st4) when W % 4 == 0,
// 2 (buffer_st2) when W % 2 == 0, else 1 (buffer_st1, which in the packed fp16/bf16 modes is a
// compare-and-swap on the shared word). A build-time axis because the output array's element
// type (sfp, sfpvec2, sfpvec4) depends on it. The host picks it: Dequantize::vec_width().
#pragma ncnn_glsl axis VEC 1 2 4
// The arithmetic is fp32 in every mode: fp16a variants would equal fp16p/fp16s ones.
#pragma ncnn_glsl exclude fp16a

layout (local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer in_blob { sint8vec4 in_data[]; };
#if VEC == 4
layout (binding = 1) writeonly buffer out_blob { sfpvec4 out_data[]; };
#elif VEC == 2
layout (binding = 1) writeonly buffer out_blob { sfpvec2 out_data[]; };
#else
layout (binding = 1) writeonly buffer out_blob { sfp out_data[]; };
#endif

// std430-safe: 32-bit scalars only. Byte offsets in the comments.
layout (push_constant) uniform parameter
{
    int n;          //  0
    int c;          //  4
    int h;          //  8
    int w;          // 12
    int zp;         // 16
    float scale;    // 20
} p;

int word_index(int lay, int n, int cb, int y, int x, int hh, int ww, int cc4)
{
    int row = n * hh + y;
    if (lay == 0)
    {
        int ww4 = (ww + 3) / 4;
        return ((row * ww4 + x / 4) * cc4 + cb) * 4 + x % 4;
    }
    if (lay == 1)
        return (row * ww + x) * cc4 + cb;
    return (row * cc4 + cb) * ww + x;
}

float dq(int n, int c, int y, int x, int c4)
{
    int word = i8buffer_sm4(in_data, word_index(IN_LAYOUT, n, c / 4, y, x, p.h, p.w, c4));
    return float(bitfieldExtract(word, 8 * (c % 4), 8) - p.zp) * p.scale;
}

void main()
{
    // Grid: (ceil(W / VEC), H, C x N), z = n * C + c; padding is never read.
    int gx = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    int z = int(gl_GlobalInvocationID.z);

    int x = gx * VEC;
    if (x >= p.w || y >= p.h || z >= p.c * p.n)
        return;

    int n = z / p.c;
    int c = z % p.c;
    int c4 = (p.c + 3) / 4;
    int i = (z * p.h + y) * p.w + x;
#if VEC == 4
    vec4 v = vec4(dq(n, c, y, x, c4), dq(n, c, y, x + 1, c4), dq(n, c, y, x + 2, c4), dq(n, c, y, x + 3, c4));
    buffer_st4(out_data, i / 4, v);
#elif VEC == 2
    vec2 v = vec2(dq(n, c, y, x, c4), dq(n, c, y, x + 1, c4));
    buffer_st2(out_data, i / 2, v);
#else
    buffer_st1(out_data, i, dq(n, c, y, x, c4));
#endif
}
