#version 450

layout (local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2, local_size_x = 4, local_size_y = 16, local_size_z = 1) in;

layout (binding = 0) readonly buffer in_blob { uvec4 in_data[]; };
layout (binding = 1) writeonly buffer out_blob { uvec4 out_data[]; };

layout (push_constant) uniform parameter
{
    int n;
    int c_out;
    int h;
    int w;
    int zp_in;
    int zp_out;
    uint mult_hi;
    uint mult_lo;
    uint shift;
    int y_stride;
    int z_stride;
    uint local_count;
    float ratio;
} p;

layout (constant_id = 3) const int IN_LAYOUT = 0;
layout (constant_id = 4) const int OUT_LAYOUT = 0;
layout (constant_id = 5) const int PASSTHROUGH = 0;
layout (constant_id = 6) const int PATH = 0;

layout (constant_id = 7) const int REQUANT_TABLE = 1;

layout (constant_id = 8) const int BLOCKS_ON_Y = 0;

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

int requant(int q)
{
    int d = q - p.zp_in;
    uint x = uint(abs(d));
    uint a = x * p.mult_lo;
    uint b = x * p.mult_hi;
    uint lo = (b << 24) + a;
    uint carry = lo < a ? 1u : 0u;

    uint hi = (b >> 8) + carry + (1u << (p.shift - 33u));

    int y = int(min(hi >> (p.shift - 32u), 255u));
    int r = d < 0 ? p.zp_out - y : p.zp_out + y;
    return clamp(r, -128, 127);
}

uint requant_float(uvec4 u)
{
    vec4 d = uintBitsToFloat(u | 0x4B000000u) - (8388736.0 + float(p.zp_in));
    vec4 y = clamp(floor(d * p.ratio + (float(p.zp_out) + 0.5)), -128.0, 127.0);

    uint lo = floatBitsToUint(y.y * 256.0 + (y.x + 8421504.0));
    uint hi = floatBitsToUint(y.w * 256.0 + (y.z + 8421504.0));
    return ((lo & 0xffffu) | (hi << 16)) ^ 0x80808080u;
}
shared uint lut[8192];

uint lut_at(uint b)
{
    return lut[(b << 5u) | (gl_LocalInvocationIndex & (32 - 1u))];
}

bool in_float(uint s)
{
    return REQUANT_TABLE == 2 || (REQUANT_TABLE == 3 && s >= 2u) || (REQUANT_TABLE == 4 && s >= 1u);
}

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

uint requant_lanes_of(uvec4 v, uint s)
{
    if (in_float(s))
        return requant_float(((v ^ 0x80808080u) >> (8u * s)) & 255u);
    uvec4 b = (v >> (8u * s)) & 255u;
    return (lut_at(b.x) & 0xffu) | (lut_at(b.y) & 0xff00u) | (lut_at(b.z) & 0xff0000u)
        | (lut_at(b.w) & 0xff000000u);
}

uvec4 transpose_bytes(uint w0, uint w1, uint w2, uint w3)
{
    uint a = (w0 & 0x00ff00ffu) | ((w1 & 0x00ff00ffu) << 8);
    uint b = ((w0 >> 8) & 0x00ff00ffu) | (w1 & 0xff00ff00u);
    uint c = (w2 & 0x00ff00ffu) | ((w3 & 0x00ff00ffu) << 8);
    uint d = ((w2 >> 8) & 0x00ff00ffu) | (w3 & 0xff00ff00u);
    return uvec4((a & 0xffffu) | (c << 16), (b & 0xffffu) | (d << 16),
                 (a >> 16) | (c & 0xffff0000u), (b >> 16) | (d & 0xffff0000u));
}

void shuffle_one(uint k, uint n, uint y, uint x, uint c4_out)
{
    uint h = uint(p.h);
    uint w = uint(p.w);

    uint c4_in = uint(p.c_out);

    uint zp_word = uint(p.zp_in & 255) * 0x01010101u;
    uint cb = 4u * k;
    uint w0, w1, w2, w3;
    if (IN_LAYOUT == 1 && (c4_in & 3u) == 0u)
    {

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

    w0 = requant_word(w0, 0u);
    w1 = requant_word(w1, 1u);
    w2 = requant_word(w2, 2u);
    w3 = requant_word(w3, 3u);
    }
    uvec4 o = transpose_bytes(w0, w1, w2, w3);

    uint oh = 2u * h;
    uint ow = 2u * w;
    store_word(word_index(OUT_LAYOUT, n, k, 2u * y, 2u * x, oh, ow, c4_out), o.x);
    store_word(word_index(OUT_LAYOUT, n, k, 2u * y, 2u * x + 1u, oh, ow, c4_out), o.y);
    store_word(word_index(OUT_LAYOUT, n, k, 2u * y + 1u, 2u * x, oh, ow, c4_out), o.z);
    store_word(word_index(OUT_LAYOUT, n, k, 2u * y + 1u, 2u * x + 1u, oh, ow, c4_out), o.w);

    if (OUT_LAYOUT == 0)
    {

    if (x == w - 1u && (ow % 4u) != 0u)
    {
        uint zp = uint(p.zp_out & 255) * 0x01010101u;
        for (uint s = 0u; s < 4u; s++)
            store_word(word_index(0, n, k, 2u * y + s / 2u, ow + s % 2u, oh, ow, c4_out), zp);
    }
    }
}

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

void tile_block(uint q, uint kq, uint row, uint xq, out uvec4 o0, out uvec4 o1, out uvec4 o2, out uvec4 o3)
{
    uint w = uint(p.w);
    uint c4_in = uint(p.c_out);
    if (IN_LAYOUT == 1)
    {

    uint first = ((row * w + 4u * xq) * c4_in) / 4u + 4u * kq + q;
    uint step = c4_in / 4u;
    o0 = shuffle_pixel(in_data[first]);
    o1 = shuffle_pixel(in_data[first + step]);
    o2 = shuffle_pixel(in_data[first + 2u * step]);
    o3 = shuffle_pixel(in_data[first + 3u * step]);
    }
    else
    {

    uint cb = 16u * kq + 4u * q;
    uint first = IN_LAYOUT == 2 ? (row * c4_in + cb) * (w / 4u) + xq : (row * (w / 4u) + xq) * c4_in + cb;
    uint step = IN_LAYOUT == 2 ? w / 4u : 1u;
    uvec4 b0 = in_data[first];
    uvec4 b1 = in_data[first + step];
    uvec4 b2 = in_data[first + 2u * step];
    uvec4 b3 = in_data[first + 3u * step];

    o0 = shuffle_pixel(uvec4(b0.x, b1.x, b2.x, b3.x));
    o1 = shuffle_pixel(uvec4(b0.y, b1.y, b2.y, b3.y));
    o2 = shuffle_pixel(uvec4(b0.z, b1.z, b2.z, b3.z));
    o3 = shuffle_pixel(uvec4(b0.w, b1.w, b2.w, b3.w));
    }
}

void store_pixel_4c(uint orow0, uint ox0, uint kq, uvec4 a, uvec4 b, uvec4 c, uvec4 d)
{
    uint ow = 2u * uint(p.w);
    uint c4_out = uint(p.c_out) / 4u;
    uint top = ((orow0 * ow + ox0) * c4_out) / 4u + kq;
    uint bottom = (((orow0 + 1u) * ow + ox0) * c4_out) / 4u + kq;
    uint right = c4_out / 4u;
    out_data[top] = uvec4(a.x, b.x, c.x, d.x);
    out_data[top + right] = uvec4(a.y, b.y, c.y, d.y);
    out_data[bottom] = uvec4(a.z, b.z, c.z, d.z);
    out_data[bottom + right] = uvec4(a.w, b.w, c.w, d.w);
}

uint out_quad(uint orow, uint k, uint q)
{
    uint ow = 2u * uint(p.w);
    uint c4_out = uint(p.c_out) / 4u;
    if (OUT_LAYOUT == 2)
        return ((orow * c4_out + k) * ow) / 4u + q;
    return (orow * (ow / 4u) + q) * c4_out + k;
}

void store_block(uint orow0, uint xq, uint k, uvec4 o0, uvec4 o1, uvec4 o2, uvec4 o3)
{
    uint c4_out = uint(p.c_out) / 4u;
    uvec4 top_lo = uvec4(o0.x, o0.y, o1.x, o1.y);
    uvec4 top_hi = uvec4(o2.x, o2.y, o3.x, o3.y);
    uvec4 bottom_lo = uvec4(o0.z, o0.w, o1.z, o1.w);
    uvec4 bottom_hi = uvec4(o2.z, o2.w, o3.z, o3.w);
    uint top = out_quad(orow0, k, 2u * xq);
    uint bottom = out_quad(orow0 + 1u, k, 2u * xq);
    uint next = OUT_LAYOUT == 2 ? 1u : c4_out;
    out_data[top] = top_lo;
    out_data[top + next] = top_hi;
    out_data[bottom] = bottom_lo;
    out_data[bottom + next] = bottom_hi;
}

void store_pixel_words(uint top, uint bottom, uint c4_out, uvec4 o)
{
    store_word(top, o.x);
    store_word(top + c4_out, o.y);
    store_word(bottom, o.z);
    store_word(bottom + c4_out, o.w);
}

void store_words_4c(uint orow0, uint ox0, uint k, uvec4 o0, uvec4 o1, uvec4 o2, uvec4 o3)
{
    uint ow = 2u * uint(p.w);
    uint c4_out = uint(p.c_out) / 4u;
    uint top = (orow0 * ow + ox0) * c4_out + k;
    uint bottom = ((orow0 + 1u) * ow + ox0) * c4_out + k;
    uint step = 2u * c4_out;
    store_pixel_words(top, bottom, c4_out, o0);
    store_pixel_words(top + step, bottom + step, c4_out, o1);
    store_pixel_words(top + 2u * step, bottom + 2u * step, c4_out, o2);
    store_pixel_words(top + 3u * step, bottom + 3u * step, c4_out, o3);
}

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

    uint top = (orow0 * ow + 4u * xp) * c4_out + k;
    uint bottom = ((orow0 + 1u) * ow + 4u * xp) * c4_out + k;
    store_pixel_words(top, bottom, c4_out, o0);
    store_pixel_words(top + 2u * c4_out, bottom + 2u * c4_out, c4_out, o1);
    return;
    }
    out_data[out_quad(orow0, k, xp)] = uvec4(o0.x, o0.y, o1.x, o1.y);
    out_data[out_quad(orow0 + 1u, k, xp)] = uvec4(o0.z, o0.w, o1.z, o1.w);
}

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
    uint orow0 = 2u * row;
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

    for (uint i = gl_LocalInvocationIndex; i < 256u; i += max(p.local_count, 1u))
    {
        uint v = (uint(requant(int(i << 24) >> 24)) & 255u) * 0x01010101u;
        for (uint c = 0u; c < 32; c++)
            lut[(i << 5u) | ((c + i) & (32 - 1u))] = v;
    }
    barrier();
    }

    uvec3 g = BLOCKS_ON_Y == 1 ? gl_GlobalInvocationID.yxz : gl_GlobalInvocationID;
    uint c4_out = (uint(p.c_out) + 3u) / 4u;
    uint kx = g.x;

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
