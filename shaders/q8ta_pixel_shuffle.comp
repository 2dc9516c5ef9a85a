#version 450
// q8ta pixel shuffle, upscale factor 2 (spec: shared/spec/q8ta-pixel-shuffle.md; seed 001).
//
//   out[n, c, 2h + dy, 2w + dx] = requant(in[n, 4c + 2dy + dx, h, w])
//
// One invocation per (output channel block k, input pixel (n, h, w)). Input word j (input
// channels 16k + 4j .. 16k + 4j + 3 = input channel block 4k + j) holds output channel 4k + j at
// the four output pixels (dy, dx) = (0,0) (0,1) (1,0) (1,1) in its lanes 0..3. Output word
// s = 2dy + dx takes byte s of input words 0..3 as its lanes 0..3: a 4x4 byte transpose, so
// every loaded and stored byte is used once and every store is a whole word.
//
// Layout codes (the axes' values; Rust: ncnn_glsl_runtime::q8ta::Layout discriminants):
//   0 = PACKED_INT8_4W4C  word (((n*H + h)*W4 + w/4)*C4 + c/4)*4 + w%4
//   1 = PACKED_INT8_4C    word ((n*H + h)*W + w)*C4 + c/4
//   2 = PACKED_INT8_4C1W  word ((n*H + h)*C4 + c/4)*W + w
#pragma ncnn_glsl axis IN_LAYOUT 0 1 2
#pragma ncnn_glsl axis OUT_LAYOUT 0 1 2
// 1 when (scale_in, zp_in) == (scale_out, zp_out): the requantization compiles out.
#pragma ncnn_glsl axis PASSTHROUGH 0 1

// The host picks the workgroup shape per layout pair (Rust: q8ta::shuffle_local_size); the
// literals are the defaults, the ids let the runtime patch them (Pipeline::for_variant). The ids
// come first: the compiler's rewrite of a trailing `_id` item leaves a comma behind.
layout (local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2, local_size_x = 4, local_size_y = 16, local_size_z = 1) in;

// Whole words only: sint8vec4 is one int of four lanes in every int8 mode.
layout (binding = 0) readonly buffer in_blob { sint8vec4 in_data[]; };
layout (binding = 1) writeonly buffer out_blob { sint8vec4 out_data[]; };

// std430-safe: 32-bit scalars only. Byte offsets in the comments.
layout (push_constant) uniform parameter
{
    int n;          //  0 batch
    int c_out;      //  4 output channels (input channels = 4 * c_out)
    int h;          //  8 input height
    int w;          // 12 input width
    int zp_in;      // 16
    int zp_out;     // 20
    uint mult_hi;   // 24 requant multiplier bits 24..47
    uint mult_lo;   // 28 requant multiplier bits 0..23
    uint shift;     // 32 requant shift S, 39..57: y = (|d| * M + 2^(S-1)) >> S
    int y_stride;   // 36 invocations launched on y (workgroups x local size): the grid-stride step
    int z_stride;   // 40 the same on z
} p;

// Word index of (n, channel block cb, y, x) in a tensor of height hh, width ww, cc4 channel
// blocks, stored in `lay`. The layout is a build-time constant, so the branches fold.
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

#if PASSTHROUGH == 0
// Fixed-point requantization of one lane, integer arithmetic only so that every device gives
// the same byte (the host computes M and S once: Requant in ncnn_glsl_runtime::q8ta, whose
// apply() is this function step for step). M = mult_hi * 2^24 + mult_lo has 48 significant bits,
// which makes the result equal the exact round_half_away_from_zero((q - zp_in) * scale_in /
// scale_out) for every pair of f32 scales; the 64-bit product is built from two 32-bit
// products since |d| <= 255 (8 bits) and each limb has 24 bits.
int requant(int q)
{
    int d = q - p.zp_in;
    uint x = uint(abs(d));
    uint a = x * p.mult_lo;
    uint b = x * p.mult_hi;
    uint lo = (b << 24) + a;
    uint carry = lo < a ? 1u : 0u;
    // S - 1 >= 38: the rounding half 2^(S-1) lies in the high word only.
    uint hi = (b >> 8) + carry + (1u << (p.shift - 33u));
    // y >= 255 saturates either way (|zp_out| <= 128), so capping keeps it small.
    int y = int(min(hi >> (p.shift - 32u), 255u));
    int r = d < 0 ? p.zp_out - y : p.zp_out + y;
    return clamp(r, -128, 127);
}
#endif

// One (k, n, y, x) position: the seed's per-invocation work.
void shuffle_one(int k, int z, int x, int c4_out)
{
    int n = z / p.h;
    int y = z % p.h;

    // C_in = 4 * c_out, so the input has c_out channel blocks.
    int c4_in = p.c_out;
    int zp_word = (p.zp_in & 255) * 0x01010101;

    int w0 = zp_word;
    int w1 = zp_word;
    int w2 = zp_word;
    int w3 = zp_word;
    // A word past C_in counts as all zp_in; input padding is never read.
    int cb = 4 * k;
    w0 = i8buffer_sm4(in_data, word_index(IN_LAYOUT, n, cb, y, x, p.h, p.w, c4_in));
    if (cb + 1 < c4_in)
        w1 = i8buffer_sm4(in_data, word_index(IN_LAYOUT, n, cb + 1, y, x, p.h, p.w, c4_in));
    if (cb + 2 < c4_in)
        w2 = i8buffer_sm4(in_data, word_index(IN_LAYOUT, n, cb + 2, y, x, p.h, p.w, c4_in));
    if (cb + 3 < c4_in)
        w3 = i8buffer_sm4(in_data, word_index(IN_LAYOUT, n, cb + 3, y, x, p.h, p.w, c4_in));

    int oh = 2 * p.h;
    int ow = 2 * p.w;
    for (int s = 0; s < 4; s++)
    {
        // Output word s = lanes "byte s of input words 0..3" (sign-extended).
        ivec4 v = ivec4(bitfieldExtract(w0, 8 * s, 8), bitfieldExtract(w1, 8 * s, 8),
                        bitfieldExtract(w2, 8 * s, 8), bitfieldExtract(w3, 8 * s, 8));
#if PASSTHROUGH == 0
        v = ivec4(requant(v.x), requant(v.y), requant(v.z), requant(v.w));
#endif
        int dy = s / 2;
        int dx = s % 2;
        i8buffer_st4(out_data, word_index(OUT_LAYOUT, n, k, 2 * y + dy, 2 * x + dx, oh, ow, c4_out), v);
    }

#if OUT_LAYOUT == 0
    // 4W4C output: when W is odd, 2W % 4 == 2 and output widths 2W, 2W + 1 of the last 4-wide
    // block are padding. The invocation of the last input column writes them (all lanes zp_out):
    // one invocation per (k, n, y), so each padding word is written exactly once.
    if (x == p.w - 1 && (ow % 4) != 0)
    {
        ivec4 zp = ivec4(p.zp_out);
        for (int s = 0; s < 4; s++)
        {
            int dy = s / 2;
            int dx = s % 2;
            i8buffer_st4(out_data, word_index(0, n, k, 2 * y + dy, ow + dx, oh, ow, c4_out), zp);
        }
    }
#endif
}

void main()
{
    // Grid: (output channel blocks, input width, input height x batch). The host clamps the
    // launched grid to maxComputeWorkGroupCount (which also bounds vkCmdDispatchBase), so the
    // y and z axes are grid-stride loops with the launched invocation counts as steps.
    int k = int(gl_GlobalInvocationID.x);
    int c4_out = (p.c_out + 3) / 4;
    // Rounded-up grids: invocations past the tensor do nothing.
    if (k >= c4_out)
        return;
    int hn = p.h * p.n;
    for (int z = int(gl_GlobalInvocationID.z); z < hn; z += p.z_stride)
    {
        for (int x = int(gl_GlobalInvocationID.y); x < p.w; x += p.y_stride)
            shuffle_one(k, z, x, c4_out);
    }
}
