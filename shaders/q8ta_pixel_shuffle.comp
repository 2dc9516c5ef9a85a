#version 450
// q8ta pixel shuffle, upscale factor 2 (spec: docs/q8ta-pixel-shuffle.md; seed 001).
//
// The input and output layouts, the passthrough flag and the path are specialization constants
// 3, 4, 5, 6 (the requantization and the grid's order are 7 and 8), not build-time axes: one
// blob (38 KB) serves every combination where axes built 18 blobs (379 KB) for the layouts and
// passthrough alone, and on an NVIDIA H200 the specialized blob ran as fast as the axes'
// variants (BENCHMARKS.md, "Axes or specialization constants for the pixel shuffle"). The one
// axis, LUT_COPIES, sizes the requantization table, which a constant cannot.
//
//   out[n, c, 2h + dy, 2w + dx] = requant(in[n, 4c + 2dy + dx, h, w])
//
// One invocation per (output channel block k, input pixel (n, h, w)). Input word j (input
// channels 16k + 4j .. 16k + 4j + 3 = input channel block 4k + j) holds output channel 4k + j at
// the four output pixels (dy, dx) = (0,0) (0,1) (1,0) (1,1) in its lanes 0..3. Output word
// s = 2dy + dx takes byte s of input words 0..3 as its lanes 0..3: a 4x4 byte transpose, so
// every loaded and stored byte is used once and every store is a whole word.
//
// Layout codes (the values of IN_LAYOUT and OUT_LAYOUT; Rust: ncnn_glsl_q8ta::Layout
// discriminants):
//   0 = PACKED_INT8_4W4C  word (((n*H + h)*W4 + w/4)*C4 + c/4)*4 + w%4
//   1 = PACKED_INT8_4C    word ((n*H + h)*W + w)*C4 + c/4
//   2 = PACKED_INT8_4C1W  word ((n*H + h)*C4 + c/4)*W + w

// The host picks the workgroup shape per layout pair (Rust: q8ta::shuffle_local_size); the
// literals are the defaults, the ids let the runtime patch them (Pipeline::for_variant). The ids
// come first: the compiler's rewrite of a trailing `_id` item leaves a comma behind.
layout (local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2, local_size_x = 4, local_size_y = 16, local_size_z = 1) in;

// Whole words, four at a time: 16-byte loads and stores are what reaches memory bandwidth
// (4-byte accesses capped the kernel at a quarter of it on an H200). A word is one int8 x 4
// lane word of the layouts, reached as [i >> 2][i & 3] where the kernel goes word by word.
layout (binding = 0) readonly buffer in_blob { uvec4 in_data[]; };
layout (binding = 1) writeonly buffer out_blob { uvec4 out_data[]; };

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
    uint local_count; // 44 invocations per workgroup (the product of the local size)
    float ratio;    // 48 scale_in / scale_out as an f32, for REQUANT_TABLE 2, 3 and 4 only
} p;

// Set by the host at pipeline creation (Rust: q8ta::PixelShuffle::specialization), so the
// driver folds every branch on them: the layouts (codes above), PASSTHROUGH = 1 when
// (scale_in, zp_in) == (scale_out, zp_out), which drops the requantization, and the PATH:
// 0 word by word, 1 4 blocks x 4 pixels, 2 1 block x 4 pixels, 3 1 block x 2 pixels (the
// host's choice, q8ta::launch::shuffle_path; 1 and 2 need W % 4 == 0, 1 also C_out % 16 == 0,
// 2 also C_out % 4 == 0; 3 needs W % 2 == 0 and C_out % 4 == 0). The path is a constant, not a
// push constant, so that each pipeline holds the code of one path only: with all three, the
// word-by-word path took 8-10% longer than the baseline on the smallest tensors on an H200,
// where a dispatch takes 4-5 us (BENCHMARKS.md).
layout (constant_id = 3) const int IN_LAYOUT = 0;
layout (constant_id = 4) const int OUT_LAYOUT = 0;
layout (constant_id = 5) const int PASSTHROUGH = 0;
layout (constant_id = 6) const int PATH = 0;
// REQUANT_TABLE (the host's choice, q8ta::launch::requantization): 0 computes requant() per lane
// in integers; 1 builds requant() of every byte into a shared table of 256 words per workgroup,
// behind a barrier, and looks each lane up; 2 computes each lane in f32 (requant_float), which
// the host allows only for the scales it has proven it exact for, every input byte and every
// rounding the Vulkan spec allows (q8ta::Requant::float_exact); 3 looks words 0 and 1 of each
// pixel's four up in the table (output words on the tiled paths, input words word by word) and
// computes 2 and 3 in f32, so that the lookups (shared memory) and the arithmetic share the
// work: into 4C1W on an H200, 2-5 points of a copy's bandwidth over either alone
// (q8ta::Requantization::Mixed); 4 does the same with word 0 alone from the table
// (MixedQuarter: from 4W4C into 4C1W, 5-8 points over 3). The same bytes every way.
layout (constant_id = 7) const int REQUANT_TABLE = 1;
// BLOCKS_ON_Y (the host's choice, q8ta::launch::block_axis): 1 swaps the grid's x and y axes, so
// that the width runs on x and the output channel blocks on y. lavapipe runs a workgroup 8
// invocations of x at a time: with one or two channel blocks on x, 7 of every 8 of its lanes idled
// (0.3-0.9x the baseline on [1,16,64,64] and [1,8,64,64]; BENCHMARKS.md).
layout (constant_id = 8) const int BLOCKS_ON_Y = 0;

// Word index of (n, channel block cb, y, x) in a tensor of height hh, width ww, cc4 channel
// blocks, stored in `lay`. The layout is a specialization constant, so the branches fold; unsigned,
// so that /4 and %4 are shifts and masks.
uint word_index(int lay, uint n, uint cb, uint y, uint x, uint hh, uint ww, uint cc4)
{
    uint row = n * hh + y;
    if (lay == 0)
    {
        uint ww4 = (ww + 3u) / 4u;
        return ((row * ww4 + x / 4u) * cc4 + cb) * 4u + x % 4u;
    }
    if (lay == 1)
        return (row * ww + x) * cc4 + cb;
    return (row * cc4 + cb) * ww + x;
}

uint load_word(uint i)
{
    return in_data[i >> 2][i & 3u];
}

void store_word(uint i, uint v)
{
    out_data[i >> 2][i & 3u] = v;
}

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

// requant() of 4 bytes in f32 (REQUANT_TABLE 2, and 3 and 4 for some), packed into one word (byte
// j from lane j). u: lane j holds its byte offset by 128 (q + 128, unsigned) in bits 0..7, the
// other bits zero. Every step but two is exact whatever the device's rounding mode and whether
// it fuses the multiply-add: 2^23 + u is an f32 by its bits, minus 2^23 + 128 + zp_in it is
// q - zp_in exactly; floor and the clamp are exact, and so is the packing: two results y0, y1
// (offset by 128, so in [0, 255]) make the integer 2^23 + y0 + 256 * y1, whose low 16 bits are
// the two bytes. The two rounded steps, the product and the sum with zp_out + 1/2, the host
// bounds (an ulp each, at either rounding, plus the ratio's own error) and allows this path only
// where no input byte's exact value lies that close to an integer, and floor(x + 1/2) is the
// round half away from zero of x then (no input is a tie). The pairs and the one flip of the
// sign bits at the end replace the packing of four separate bytes (an addition, a mask and a
// shift each): the requantizing rewrite ran 1.11-1.29x as fast on lavapipe, and within 1.5
// points of a copy's bandwidth of the old packing on an H100 (BENCHMARKS.md).
uint requant_float(uvec4 u)
{
    vec4 d = uintBitsToFloat(u | 0x4B000000u) - (8388736.0 + float(p.zp_in));
    vec4 y = clamp(floor(d * p.ratio + (float(p.zp_out) + 0.5)), -128.0, 127.0);
    // 2^23 + 128 + 256 * 128 (Rust: q8ta::quant::FLOAT_PACK_BIAS): each offset by 128 folded in.
    uint lo = floatBitsToUint(y.y * 256.0 + (y.x + 8421504.0));
    uint hi = floatBitsToUint(y.w * 256.0 + (y.z + 8421504.0));
    return ((lo & 0xffffu) | (hi << 16)) ^ 0x80808080u;
}

// requant() of every int8 value, indexed by its byte (two's complement): 256 requant() calls
// per workgroup instead of 16 per invocation, which made the kernel ALU-bound. LUT_COPIES = 32
// (the host's choice, q8ta::Requantization::Banked and Mixed) keeps one copy of the table per shared-memory
// bank, entry b of copy c at word 32b + c, and invocation i reads copy i % 32: the 32 lanes of a
// subgroup of 32 read 32 different banks whatever their bytes, where 32 random bytes in one
// 256-word table meet 3-4 times in some bank and the lookups wait for each other (an H200: 63-92%
// of a copy's bandwidth with one table on tensors of 128 MiB, 77-93% with 32 copies;
// BENCHMARKS.md). It takes 32 KiB of shared memory, hence an axis: the blob of 1 copy stays
// within the 16 KiB every Vulkan device has. Each entry holds its byte in all four lanes, so that
// a lookup for lane j is a mask away from its place in the word (no shift: on an H200 into 4C1W,
// 1-4 points of a copy's bandwidth; BENCHMARKS.md).
#pragma ncnn_glsl axis LUT_COPIES 1 32
#if LUT_COPIES == 32
shared uint lut[8192];
#define LUT_SHIFT 5u
#else
shared uint lut[256];
#define LUT_SHIFT 0u
#endif

// The table's entry for byte b in this invocation's copy.
uint lut_at(uint b)
{
    return lut[(b << LUT_SHIFT) | (gl_LocalInvocationIndex & (LUT_COPIES - 1u))];
}

// Whether word s (0..3) of a pixel's four is requantized in f32 rather than by table or per lane.
bool in_float(uint s)
{
    return REQUANT_TABLE == 2 || (REQUANT_TABLE == 3 && s >= 2u) || (REQUANT_TABLE == 4 && s >= 1u);
}

// Each lane of word w, word s of its pixel's four, requantized: computed, or through the table.
uint requant_word(uint w, uint s)
{
    if (in_float(s))
    {
        uint x = w ^ 0x80808080u;
        return requant_float(uvec4(x, x >> 8, x >> 16, x >> 24) & 255u);
    }
    if (REQUANT_TABLE == 0)
        return (uint(requant(int(w << 24) >> 24)) & 255u)
            | ((uint(requant(int(w << 16) >> 24)) & 255u) << 8)
            | ((uint(requant(int(w << 8) >> 24)) & 255u) << 16)
            | (uint(requant(int(w) >> 24)) << 24);
    return (lut_at(w & 255u) & 0xffu) | (lut_at((w >> 8) & 255u) & 0xff00u)
        | (lut_at((w >> 16) & 255u) & 0xff0000u) | (lut_at(w >> 24) & 0xff000000u);
}

// Output word s of the transpose of requantized v: lane j is byte s of v[j] requantized. The
// transpose costs nothing here, each result's byte goes straight to its lane.
uint requant_lanes_of(uvec4 v, uint s)
{
    if (in_float(s))
        return requant_float(((v ^ 0x80808080u) >> (8u * s)) & 255u);
    uvec4 b = (v >> (8u * s)) & 255u;
    return (lut_at(b.x) & 0xffu) | (lut_at(b.y) & 0xff00u) | (lut_at(b.z) & 0xff0000u)
        | (lut_at(b.w) & 0xff000000u);
}

// The 4x4 byte transpose: word s of the result holds byte s of w0, w1, w2, w3 as lanes 0..3.
// Two rounds of masked shifts (bytes, then 16-bit halves): a dozen ALU operations.
uvec4 transpose_bytes(uint w0, uint w1, uint w2, uint w3)
{
    uint a = (w0 & 0x00ff00ffu) | ((w1 & 0x00ff00ffu) << 8); // w0b0 w1b0 w0b2 w1b2
    uint b = ((w0 >> 8) & 0x00ff00ffu) | (w1 & 0xff00ff00u); // w0b1 w1b1 w0b3 w1b3
    uint c = (w2 & 0x00ff00ffu) | ((w3 & 0x00ff00ffu) << 8); // w2b0 w3b0 w2b2 w3b2
    uint d = ((w2 >> 8) & 0x00ff00ffu) | (w3 & 0xff00ff00u); // w2b1 w3b1 w2b3 w3b3
    return uvec4((a & 0xffffu) | (c << 16), (b & 0xffffu) | (d << 16),
                 (a >> 16) | (c & 0xffff0000u), (b >> 16) | (d & 0xffff0000u));
}

// One (k, n, y, x) position: the seed's per-invocation work.
void shuffle_one(uint k, uint n, uint y, uint x, uint c4_out)
{
    uint h = uint(p.h);
    uint w = uint(p.w);
    // C_in = 4 * c_out, so the input has c_out channel blocks.
    uint c4_in = uint(p.c_out);
    // A word past C_in counts as all zp_in; input padding is never read.
    uint zp_word = uint(p.zp_in & 255) * 0x01010101u;
    uint cb = 4u * k;
    uint w0, w1, w2, w3;
    if (IN_LAYOUT == 1 && (c4_in & 3u) == 0u)
    {
    // 4C with C_out % 4 == 0: the 4 words are one aligned uvec4 (one 16-byte load, not four).
    uvec4 v = in_data[word_index(1, n, cb, y, x, h, w, c4_in) >> 2];
    w0 = v.x;
    w1 = v.y;
    w2 = v.z;
    w3 = v.w;
    }
    else
    {
    w0 = load_word(word_index(IN_LAYOUT, n, cb, y, x, h, w, c4_in));
    w1 = cb + 1u < c4_in ? load_word(word_index(IN_LAYOUT, n, cb + 1u, y, x, h, w, c4_in)) : zp_word;
    w2 = cb + 2u < c4_in ? load_word(word_index(IN_LAYOUT, n, cb + 2u, y, x, h, w, c4_in)) : zp_word;
    w3 = cb + 3u < c4_in ? load_word(word_index(IN_LAYOUT, n, cb + 3u, y, x, h, w, c4_in)) : zp_word;
    }
    if (PASSTHROUGH == 0)
    {
    // Lane-wise, so it commutes with the transpose; zp_in maps to zp_out (output padding lanes).
    w0 = requant_word(w0, 0u);
    w1 = requant_word(w1, 1u);
    w2 = requant_word(w2, 2u);
    w3 = requant_word(w3, 3u);
    }
    uvec4 o = transpose_bytes(w0, w1, w2, w3);

    // Output word s = 2dy + dx at output pixel (2y + dy, 2x + dx).
    uint oh = 2u * h;
    uint ow = 2u * w;
    store_word(word_index(OUT_LAYOUT, n, k, 2u * y, 2u * x, oh, ow, c4_out), o.x);
    store_word(word_index(OUT_LAYOUT, n, k, 2u * y, 2u * x + 1u, oh, ow, c4_out), o.y);
    store_word(word_index(OUT_LAYOUT, n, k, 2u * y + 1u, 2u * x, oh, ow, c4_out), o.z);
    store_word(word_index(OUT_LAYOUT, n, k, 2u * y + 1u, 2u * x + 1u, oh, ow, c4_out), o.w);

    if (OUT_LAYOUT == 0)
    {
    // 4W4C output: when W is odd, 2W % 4 == 2 and output widths 2W, 2W + 1 of the last 4-wide
    // block are padding. The invocation of the last input column writes them (all lanes zp_out):
    // one invocation per (k, n, y), so each padding word is written exactly once.
    if (x == w - 1u && (ow % 4u) != 0u)
    {
        uint zp = uint(p.zp_out & 255) * 0x01010101u;
        for (uint s = 0u; s < 4u; s++)
            store_word(word_index(0, n, k, 2u * y + s / 2u, ow + s % 2u, oh, ow, c4_out), zp);
    }
    }
}

// The tiled paths (PATH 1 and 2). Path 1: one invocation per (4 output channel blocks kq, 4
// input pixels xq, row), so that every load and store is a whole, aligned uvec4 in every
// layout. Path 2: one invocation per (1 output block k, 4 input pixels xq, row), loads and
// stores uvec4 too (words into a 4C output), with 4 times the invocations and neighbouring
// blocks in neighbouring invocations (what a 4W4C output wants).
// Written without local arrays: naga's SPIR-V copies a local array into a temporary for
// every dynamically indexed read, which halved this kernel's speed on an H200 (glslang's
// build of the same text did not); vectors indexed dynamically cost nothing.

// Requantized (lane-wise) and transposed: the 4 output words (s = 2dy + dx) of one input
// pixel whose 4 input words (lane j = channel block 4k + j) are v.
uvec4 shuffle_pixel(uvec4 v)
{
    if (PASSTHROUGH == 0 && REQUANT_TABLE != 0)
        return uvec4(requant_lanes_of(v, 0u), requant_lanes_of(v, 1u), requant_lanes_of(v, 2u),
                     requant_lanes_of(v, 3u));
    if (PASSTHROUGH == 0)
    {
    v = uvec4(requant_word(v.x, 0u), requant_word(v.y, 1u), requant_word(v.z, 2u),
              requant_word(v.w, 3u));
    }
    return transpose_bytes(v.x, v.y, v.z, v.w);
}

// Output block 4kq + q at the 4 input pixels of quad xq: o0..o3 for pixels 4xq + 0..3.
void tile_block(uint q, uint kq, uint row, uint xq, out uvec4 o0, out uvec4 o1, out uvec4 o2, out uvec4 o3)
{
    uint w = uint(p.w);
    uint c4_in = uint(p.c_out);
    if (IN_LAYOUT == 1)
    {
    // 4C: the 4 input blocks of one pixel are one uvec4.
    uint first = ((row * w + 4u * xq) * c4_in) / 4u + 4u * kq + q;
    uint step = c4_in / 4u;
    o0 = shuffle_pixel(in_data[first]);
    o1 = shuffle_pixel(in_data[first + step]);
    o2 = shuffle_pixel(in_data[first + 2u * step]);
    o3 = shuffle_pixel(in_data[first + 3u * step]);
    }
    else
    {
    // 4C1W: block cb at the 4 pixels is one uvec4 ((row*C4 + cb)*W + 4xq), blocks W apart.
    // 4W4C: block cb at the 4 pixels of quad xq is one uvec4 ((row*W4 + xq)*C4 + cb).
    uint cb = 16u * kq + 4u * q;
    uint first = IN_LAYOUT == 2 ? (row * c4_in + cb) * (w / 4u) + xq : (row * (w / 4u) + xq) * c4_in + cb;
    uint step = IN_LAYOUT == 2 ? w / 4u : 1u;
    uvec4 b0 = in_data[first];
    uvec4 b1 = in_data[first + step];
    uvec4 b2 = in_data[first + 2u * step];
    uvec4 b3 = in_data[first + 3u * step];
    // Pixel i takes lane i of the 4 blocks.
    o0 = shuffle_pixel(uvec4(b0.x, b1.x, b2.x, b3.x));
    o1 = shuffle_pixel(uvec4(b0.y, b1.y, b2.y, b3.y));
    o2 = shuffle_pixel(uvec4(b0.z, b1.z, b2.z, b3.z));
    o3 = shuffle_pixel(uvec4(b0.w, b1.w, b2.w, b3.w));
    }
}

// The stores below name every vector lane statically: glslang's SPIR-V of a lane picked by a loop
// counter (`o[s]`) ran 23% slower on an H200 than naga's of the same text (BENCHMARKS.md).

// 4C output: at each of the 4 output pixels of input pixel 4xq + i, blocks 4kq .. 4kq + 3
// are one uvec4 (a, b, c, d: that pixel's output words of blocks 4kq + 0..3, lane s = 2dy + dx).
void store_pixel_4c(uint orow0, uint ox0, uint kq, uvec4 a, uvec4 b, uvec4 c, uvec4 d)
{
    uint ow = 2u * uint(p.w);
    uint c4_out = uint(p.c_out) / 4u;
    uint top = ((orow0 * ow + ox0) * c4_out) / 4u + kq;
    uint bottom = (((orow0 + 1u) * ow + ox0) * c4_out) / 4u + kq;
    uint right = c4_out / 4u; // the next output pixel
    out_data[top] = uvec4(a.x, b.x, c.x, d.x);
    out_data[top + right] = uvec4(a.y, b.y, c.y, d.y);
    out_data[bottom] = uvec4(a.z, b.z, c.z, d.z);
    out_data[bottom + right] = uvec4(a.w, b.w, c.w, d.w);
}

// 4C1W and 4W4C outputs (W even, so 2W % 4 == 0): the uvec4 holding output widths
// 4q .. 4q + 3 of block k on output row orow.
uint out_quad(uint orow, uint k, uint q)
{
    uint ow = 2u * uint(p.w);
    uint c4_out = uint(p.c_out) / 4u;
    if (OUT_LAYOUT == 2)
        return ((orow * c4_out + k) * ow) / 4u + q;
    return (orow * (ow / 4u) + q) * c4_out + k;
}

// 4C1W and 4W4C outputs: output widths 8xq .. 8xq + 7 of block k, per output row, are two
// uvec4, each [pixel 2hh dx 0, pixel 2hh dx 1, pixel 2hh+1 dx 0, pixel 2hh+1 dx 1].
void store_block(uint orow0, uint xq, uint k, uvec4 o0, uvec4 o1, uvec4 o2, uvec4 o3)
{
    uint c4_out = uint(p.c_out) / 4u;
    uvec4 top_lo = uvec4(o0.x, o0.y, o1.x, o1.y);
    uvec4 top_hi = uvec4(o2.x, o2.y, o3.x, o3.y);
    uvec4 bottom_lo = uvec4(o0.z, o0.w, o1.z, o1.w);
    uvec4 bottom_hi = uvec4(o2.z, o2.w, o3.z, o3.w);
    uint top = out_quad(orow0, k, 2u * xq);
    uint bottom = out_quad(orow0 + 1u, k, 2u * xq);
    uint next = OUT_LAYOUT == 2 ? 1u : c4_out; // output widths 8xq + 4 ..
    out_data[top] = top_lo;
    out_data[top + next] = top_hi;
    out_data[bottom] = bottom_lo;
    out_data[bottom + next] = bottom_hi;
}

// 4C output, one block k: the output words of one input pixel (lane s = 2dy + dx) at word
// `top` (dy = 0) and `bottom` (dy = 1); the pixel to the right is c4_out words on.
void store_pixel_words(uint top, uint bottom, uint c4_out, uvec4 o)
{
    store_word(top, o.x);
    store_word(top + c4_out, o.y);
    store_word(bottom, o.z);
    store_word(bottom + c4_out, o.w);
}

// 4C output, one block k, the 4 input pixels of quad xq. Whole words only, but neighbouring
// invocations (blocks) write neighbouring words, and each invocation's loads are 64-byte runs,
// where the tile path's 256-byte runs make each load instruction of a warp touch 32 cache
// lines (4W4C input).
void store_words_4c(uint orow0, uint ox0, uint k, uvec4 o0, uvec4 o1, uvec4 o2, uvec4 o3)
{
    uint ow = 2u * uint(p.w);
    uint c4_out = uint(p.c_out) / 4u;
    uint top = (orow0 * ow + ox0) * c4_out + k;
    uint bottom = ((orow0 + 1u) * ow + ox0) * c4_out + k;
    uint step = 2u * c4_out; // input pixel i + 1: two output pixels on
    store_pixel_words(top, bottom, c4_out, o0);
    store_pixel_words(top + step, bottom + step, c4_out, o1);
    store_pixel_words(top + 2u * step, bottom + 2u * step, c4_out, o2);
    store_pixel_words(top + 3u * step, bottom + 3u * step, c4_out, o3);
}

// Path 3: one invocation per (output block k, 2 input pixels xp): output widths
// 4xp .. 4xp + 3 of block k on each output row are one aligned uvec4 in a 4C1W or 4W4C output,
// so that neighbouring invocations on the width store neighbouring 16 bytes (path 2's two
// stores per row lie 32 bytes apart), and from 4C each pixel's 4 input words are one uvec4.
// Needs W % 2 == 0 and C_out % 4 == 0 (no input word past C_in).

// The 4 input words of output block k at input pixel x of row `row` (lane j = channel block
// 4k + j).
uvec4 load_pixel(uint k, uint row, uint x)
{
    uint w = uint(p.w);
    uint c4_in = uint(p.c_out);
    if (IN_LAYOUT == 1)
        return in_data[word_index(1, 0u, 4u * k, row, x, 0u, w, c4_in) >> 2];
    uint cb = 4u * k;
    return uvec4(load_word(word_index(IN_LAYOUT, 0u, cb, row, x, 0u, w, c4_in)),
                 load_word(word_index(IN_LAYOUT, 0u, cb + 1u, row, x, 0u, w, c4_in)),
                 load_word(word_index(IN_LAYOUT, 0u, cb + 2u, row, x, 0u, w, c4_in)),
                 load_word(word_index(IN_LAYOUT, 0u, cb + 3u, row, x, 0u, w, c4_in)));
}

void shuffle_pair(uint k, uint n, uint y, uint xp)
{
    uint row = n * uint(p.h) + y;
    uvec4 o0 = shuffle_pixel(load_pixel(k, row, 2u * xp));
    uvec4 o1 = shuffle_pixel(load_pixel(k, row, 2u * xp + 1u));
    uint ow = 2u * uint(p.w);
    uint c4_out = uint(p.c_out) / 4u;
    uint orow0 = 2u * row;
    if (OUT_LAYOUT == 1)
    {
    // 4C: a word per output pixel, the pair's 4 output pixels c4_out words apart.
    uint top = (orow0 * ow + 4u * xp) * c4_out + k;
    uint bottom = ((orow0 + 1u) * ow + 4u * xp) * c4_out + k;
    store_pixel_words(top, bottom, c4_out, o0);
    store_pixel_words(top + 2u * c4_out, bottom + 2u * c4_out, c4_out, o1);
    return;
    }
    out_data[out_quad(orow0, k, xp)] = uvec4(o0.x, o0.y, o1.x, o1.y);
    out_data[out_quad(orow0 + 1u, k, xp)] = uvec4(o0.z, o0.w, o1.z, o1.w);
}

// Path 2: block k = 4kq + q is tile_block's block q of quad kq.
void shuffle_quad(uint k, uint n, uint y, uint xq)
{
    uint row = n * uint(p.h) + y;
    uvec4 o0, o1, o2, o3;
    tile_block(k % 4u, k / 4u, row, xq, o0, o1, o2, o3);
    if (OUT_LAYOUT == 1)
        store_words_4c(2u * row, 8u * xq, k, o0, o1, o2, o3);
    else
        store_block(2u * row, xq, k, o0, o1, o2, o3);
}

void shuffle_tile(uint kq, uint n, uint y, uint xq)
{
    uint h = uint(p.h);
    uint row = n * h + y;
    uint orow0 = 2u * row; // (n * 2H + 2y): output rows of one batch item follow each other
    uvec4 a0, a1, a2, a3;
    uvec4 b0, b1, b2, b3;
    uvec4 c0, c1, c2, c3;
    uvec4 d0, d1, d2, d3;
    tile_block(0u, kq, row, xq, a0, a1, a2, a3);
    tile_block(1u, kq, row, xq, b0, b1, b2, b3);
    tile_block(2u, kq, row, xq, c0, c1, c2, c3);
    tile_block(3u, kq, row, xq, d0, d1, d2, d3);
    if (OUT_LAYOUT == 1)
    {
    store_pixel_4c(orow0, 8u * xq + 0u, kq, a0, b0, c0, d0);
    store_pixel_4c(orow0, 8u * xq + 2u, kq, a1, b1, c1, d1);
    store_pixel_4c(orow0, 8u * xq + 4u, kq, a2, b2, c2, d2);
    store_pixel_4c(orow0, 8u * xq + 6u, kq, a3, b3, c3, d3);
    }
    else
    {
    store_block(orow0, xq, 4u * kq + 0u, a0, a1, a2, a3);
    store_block(orow0, xq, 4u * kq + 1u, b0, b1, b2, b3);
    store_block(orow0, xq, 4u * kq + 2u, c0, c1, c2, c3);
    store_block(orow0, xq, 4u * kq + 3u, d0, d1, d2, d3);
    }
}

void main()
{
    if (PASSTHROUGH == 0 && (REQUANT_TABLE == 1 || REQUANT_TABLE >= 3))
    {
    // The table first, by the whole workgroup (before any invocation returns). Copy c of entry i
    // goes to bank (c + i) % 32, so that neighbouring invocations store to different banks.
    for (uint i = gl_LocalInvocationIndex; i < 256u; i += max(p.local_count, 1u))
    {
        uint v = (uint(requant(int(i << 24) >> 24)) & 255u) * 0x01010101u;
        for (uint c = 0u; c < LUT_COPIES; c++)
            lut[(i << LUT_SHIFT) | ((c + i) & (LUT_COPIES - 1u))] = v;
    }
    barrier();
    }
    // Grid: (output channel blocks, input width, input height x batch); path 1: (quads of
    // output channel blocks, quads of input width, rows); path 2: (blocks, quads, rows); path
    // 3: (blocks, pairs of input width, rows); x and y swapped when BLOCKS_ON_Y == 1. The host
    // clamps the launched grid to maxComputeWorkGroupCount (which also bounds
    // vkCmdDispatchBase), so the width and z axes are grid-stride loops with the launched
    // invocation counts as steps (y_stride: the width's axis).
    uvec3 g = BLOCKS_ON_Y == 1 ? gl_GlobalInvocationID.yxz : gl_GlobalInvocationID;
    uint c4_out = (uint(p.c_out) + 3u) / 4u;
    uint kx = g.x;
    // Rounded-up grids: invocations past the tensor do nothing.
    if (kx >= (PATH == 1 ? c4_out / 4u : c4_out))
        return;
    uint h = uint(p.h);
    uint hn = h * uint(p.n);
    uint xs = PATH == 3 ? uint(p.w) / 2u : (PATH != 0 ? uint(p.w) / 4u : uint(p.w));
    for (uint z = g.z; z < hn; z += uint(p.z_stride))
    {
        uint n = z / h;
        uint y = z - n * h;
        for (uint x = g.y; x < xs; x += uint(p.y_stride))
        {
            if (PATH == 1)
                shuffle_tile(kx, n, y, x);
            else if (PATH == 2)
                shuffle_quad(kx, n, y, x);
            else if (PATH == 3)
                shuffle_pair(kx, n, y, x);
            else
                shuffle_one(kx, n, y, x, c4_out);
        }
    }
}
