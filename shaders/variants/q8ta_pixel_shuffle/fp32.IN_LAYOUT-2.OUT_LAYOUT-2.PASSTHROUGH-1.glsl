#version 450
int ncnnext_packInt4x8(ivec4 v) { return bitfieldInsert(bitfieldInsert(bitfieldInsert(v.x, v.y, 8, 24), v.z, 16, 16), v.w, 24, 8); }

layout (local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2, local_size_x = 4, local_size_y = 16, local_size_z = 1) in;

layout (binding = 0) readonly buffer in_blob { int in_data[]; };
layout (binding = 1) writeonly buffer out_blob { int out_data[]; };

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

void shuffle_one(int k, int z, int x, int c4_out)
{
    int n = z / p.h;
    int y = z % p.h;

    int c4_in = p.c_out;
    int zp_word = (p.zp_in & 255) * 0x01010101;

    int w0 = zp_word;
    int w1 = zp_word;
    int w2 = zp_word;
    int w3 = zp_word;

    int cb = 4 * k;
    w0 = in_data[word_index(2, n, cb, y, x, p.h, p.w, c4_in)];
    if (cb + 1 < c4_in)
        w1 = in_data[word_index(2, n, cb + 1, y, x, p.h, p.w, c4_in)];
    if (cb + 2 < c4_in)
        w2 = in_data[word_index(2, n, cb + 2, y, x, p.h, p.w, c4_in)];
    if (cb + 3 < c4_in)
        w3 = in_data[word_index(2, n, cb + 3, y, x, p.h, p.w, c4_in)];

    int oh = 2 * p.h;
    int ow = 2 * p.w;
    for (int s = 0; s < 4; s++)
    {

        ivec4 v = ivec4(bitfieldExtract(w0, 8 * s, 8), bitfieldExtract(w1, 8 * s, 8),
                        bitfieldExtract(w2, 8 * s, 8), bitfieldExtract(w3, 8 * s, 8));
        int dy = s / 2;
        int dx = s % 2;
        {out_data[word_index(2, n, k, 2 * y + dy, 2 * x + dx, oh, ow, c4_out)]=ncnnext_packInt4x8(ivec4(v));};
    }
}

void main()
{

    int k = int(gl_GlobalInvocationID.x);
    int c4_out = (p.c_out + 3) / 4;

    if (k >= c4_out)
        return;
    int hn = p.h * p.n;
    for (int z = int(gl_GlobalInvocationID.z); z < hn; z += p.z_stride)
    {
        for (int x = int(gl_GlobalInvocationID.y); x < p.w; x += p.y_stride)
            shuffle_one(k, z, x, c4_out);
    }
}
