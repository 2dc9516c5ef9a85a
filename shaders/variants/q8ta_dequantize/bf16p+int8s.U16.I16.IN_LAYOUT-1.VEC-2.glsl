#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_8bit_storage : require
uint ncnnext_bf16_bits(float v) { return (floatBitsToUint(v) + 0x8000u) >> 16; }
uint ncnnext_pack_bf16x2(vec2 v) { return ncnnext_bf16_bits(v.x) | (ncnnext_bf16_bits(v.y) << 16); }

layout (local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer in_blob { int in_data[]; };
layout (binding = 1) writeonly buffer out_blob { uint out_data[]; };

layout (push_constant) uniform parameter
{
    int n;
    int c;
    int h;
    int w;
    int zp;
    float scale;
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
    int word = in_data[word_index(1, n, c / 4, y, x, p.h, p.w, c4)];
    return float(bitfieldExtract(word, 8 * (c % 4), 8) - p.zp) * p.scale;
}

void main()
{

    int gx = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    int z = int(gl_GlobalInvocationID.z);

    int x = gx * 2;
    if (x >= p.w || y >= p.h || z >= p.c * p.n)
        return;

    int n = z / p.c;
    int c = z % p.c;
    int c4 = (p.c + 3) / 4;
    int i = (z * p.h + y) * p.w + x;
    vec2 v = vec2(dq(n, c, y, x, c4), dq(n, c, y, x + 1, c4));
    {out_data[i / 2]=ncnnext_pack_bf16x2(vec2(v));};
}
