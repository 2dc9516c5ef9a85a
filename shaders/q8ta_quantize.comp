#version 450
// q8ta quantize: float NCHW tensor [N, C, H, W] in sfp storage -> int8 words in one of the
// channels-packed layouts (spec: docs/q8ta-pixel-shuffle.md, "Quantize and dequantize"):
//
//   q = clamp(round_half_away(x / scale) + zp, -128, 127), padding lanes = zp
//
// Layout codes (Rust: ncnn_glsl_q8ta::Layout): 0 = 4W4C, 1 = 4C, 2 = 4C1W.
#pragma ncnn_glsl axis OUT_LAYOUT 0 1 2
// The arithmetic is fp32 in every mode (the rounding decision must not depend on fp16
// arithmetic), so fp16a variants would equal the fp16p/fp16s ones: not built, the fallback
// order covers them.
#pragma ncnn_glsl exclude fp16a

// One invocation per output word, width fastest (the NCHW reads are then contiguous).
layout (local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer in_blob { sfp in_data[]; };
layout (binding = 1) writeonly buffer out_blob { sint8vec4 out_data[]; };

// std430-safe: 32-bit scalars only. Byte offsets in the comments. The floats are made on the
// host by ncnn_glsl_q8ta::QuantizeConsts.
layout (push_constant) uniform parameter
{
    int n;            //  0
    int c;            //  4
    int h;            //  8
    int w;            // 12
    int zp;           // 16
    float inv_scale;  // 20 1 / scale rounded to f32 (clamped to FLT_MAX): the estimate only
    float scale_hi;   // 24 scale with its 9 low mantissa bits cleared
    float scale_lo;   // 28 scale - scale_hi (exact)
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

// round_half_away(x / scale), capped to [-255, 255] (larger values saturate with any zp),
// deterministic across devices without round() and without trusting float division:
// an estimate through the reciprocal is off by at most one, and is corrected by an EXACT
// comparison of |x| with (y +- 0.5) * scale. (y +- 0.5) has at most 9 significant bits, so
// its products with scale_hi (15 bits) and scale_lo (9 bits) are exact in f32; |x| minus the
// first product is exact whenever it lies near the second (Sterbenz), and far from it the
// rounded difference keeps its side; a fused multiply-add computes the same exact values.
// Denormal scales may be flushed by a device: outside this guarantee.
// ncnn_glsl_q8ta::QuantizeConsts::rounded() is this function step for step.
int rounded(float x)
{
    if (isnan(x))
        return 0;
    float ax = abs(x);
    float t = ax * p.inv_scale + 0.5;
    int y = t < 255.0 ? int(t) : 255;
    if (y < 255)
    {
        float c = float(y) + 0.5;
        if (ax - c * p.scale_hi >= c * p.scale_lo)
        {
            y += 1;
        }
        else if (y > 0)
        {
            float d = float(y) - 0.5;
            if (ax - d * p.scale_hi < d * p.scale_lo)
                y -= 1;
        }
    }
    else
    {
        float d = float(y) - 0.5;
        if (ax - d * p.scale_hi < d * p.scale_lo)
            y -= 1;
    }
    return x < 0.0 ? -y : y;
}

void main()
{
    int x = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    int z = int(gl_GlobalInvocationID.z);

    int c4 = (p.c + 3) / 4;
#if OUT_LAYOUT == 0
    int w_padded = (p.w + 3) / 4 * 4;
#else
    int w_padded = p.w;
#endif
    if (x >= w_padded || y >= p.h || z >= c4 * p.n)
        return;

    int n = z / c4;
    int cb = z % c4;
    ivec4 v = ivec4(p.zp);
    // Padding: channel lanes c >= C and 4W4C widths >= W stay zp.
    if (x < p.w)
    {
        for (int j = 0; j < 4; j++)
        {
            int c = 4 * cb + j;
            if (c < p.c)
            {
                float f = float(buffer_ld1(in_data, ((n * p.c + c) * p.h + y) * p.w + x));
                v[j] = clamp(rounded(f) + p.zp, -128, 127);
            }
        }
    }
    i8buffer_st4(out_data, word_index(OUT_LAYOUT, n, cb, y, x, p.h, p.w, c4), v);
}
