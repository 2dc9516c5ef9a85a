#version 450
// q8ta pixel shuffle, upscale factor 2: the BASELINE kernel the seed (001) replaces, kept for
// the benchmark's ratio and as a second, independent way to the same bytes.
//
//   out[n, c, 2h + dy, 2w + dx] = requant(in[n, 4c + 2dy + dx, h, w])
//
// One invocation per output word, output width fastest, channel block slowest: grid
// (output width, padded to 4 for a 4W4C output; output height; output channel blocks x batch,
// z = k * N + n). Each invocation loads the 4 input words that hold its 4 lanes (lane j =
// output channel 4k + j = lane 2dy + dx of input channel block 4k + j) and uses one byte of each.
// Same axes, push constants, requantization and padding contract as q8ta_pixel_shuffle.comp.
//
// Layout codes (the axes' values; Rust: ncnn_glsl_q8ta::Layout discriminants):
//   0 = PACKED_INT8_4W4C  word (((n*H + h)*W4 + w/4)*C4 + c/4)*4 + w%4
//   1 = PACKED_INT8_4C    word ((n*H + h)*W + w)*C4 + c/4
//   2 = PACKED_INT8_4C1W  word ((n*H + h)*C4 + c/4)*W + w
#pragma ncnn_glsl axis IN_LAYOUT 0 1 2
#pragma ncnn_glsl axis OUT_LAYOUT 0 1 2
// 1 when (scale_in, zp_in) == (scale_out, zp_out): the requantization compiles out.
#pragma ncnn_glsl axis PASSTHROUGH 0 1

// The runtime may patch these literals per layout pair (the reflection reports them).
layout (local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

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
    uint local_count; // 44 unused here (the other shader's requantization table)
    float ratio;    // 48 unused here (the other shader's f32 requantization)
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
// the same byte (the host computes M and S once: Requant in ncnn_glsl_q8ta, whose
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

// One output word (ox, oy) of channel block k and batch n.
void baseline_one(int ox, int oy, int z, int c4_out, int oh, int ow)
{
    // Channel block slowest.
    int k = z / p.n;
    int n = z % p.n;
    int out_i = word_index(OUT_LAYOUT, n, k, oy, ox, oh, ow, c4_out);
    if (ox >= ow)
    {
        // 4W4C width padding: all lanes zp_out.
        i8buffer_st4(out_data, out_i, ivec4(p.zp_out));
        return;
    }

    int y = oy / 2;
    int x = ox / 2;
    int s = 2 * (oy % 2) + ox % 2;
    ivec4 v = ivec4(p.zp_out);
    for (int j = 0; j < 4; j++)
    {
        int c = 4 * k + j;
        // Padding channel lanes (c >= C_out) stay zp_out; input padding is never read.
        if (c < p.c_out)
        {
            int word = i8buffer_sm4(in_data, word_index(IN_LAYOUT, n, c, y, x, p.h, p.w, p.c_out));
            int q = bitfieldExtract(word, 8 * s, 8);
#if PASSTHROUGH == 0
            q = requant(q);
#endif
            v[j] = q;
        }
    }
    i8buffer_st4(out_data, out_i, v);
}

void main()
{
    // Grid: (output width, output height, output channel blocks x batch, z = k * N + n); the
    // y and z axes are grid-stride loops (the host clamps the launched grid to the device's
    // maxComputeWorkGroupCount and passes the launched invocation counts as the steps).
    int ox = int(gl_GlobalInvocationID.x);

    int c4_out = (p.c_out + 3) / 4;
    int oh = 2 * p.h;
    int ow = 2 * p.w;
#if OUT_LAYOUT == 0
    int ow_padded = (ow + 3) / 4 * 4;
#else
    int ow_padded = ow;
#endif
    if (ox >= ow_padded)
        return;
    int zn = c4_out * p.n;
    for (int z = int(gl_GlobalInvocationID.z); z < zn; z += p.z_stride)
    {
        for (int oy = int(gl_GlobalInvocationID.y); oy < oh; oy += p.y_stride)
            baseline_one(ox, oy, z, c4_out, oh, ow);
    }
}
