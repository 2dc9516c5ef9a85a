#version 450
float ncnnext_bf16_to_float(uint b) { return uintBitsToFloat(b << 16); }
int ncnnext_packInt4x8(ivec4 v) { return bitfieldInsert(bitfieldInsert(bitfieldInsert(v.x, v.y, 8, 24), v.z, 16, 16), v.w, 24, 8); }

layout (local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer in_blob { uint in_data[]; };
layout (binding = 1) writeonly buffer out_blob { int out_data[]; };

layout (push_constant) uniform parameter
{
    int n;
    int c;
    int h;
    int w;
    int zp;
    float inv_scale;
    float scale_hi;
    float scale_lo;
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
    int w_padded = p.w;
    if (x >= w_padded || y >= p.h || z >= c4 * p.n)
        return;

    int n = z / c4;
    int cb = z % c4;
    ivec4 v = ivec4(p.zp);

    if (x < p.w)
    {
        for (int j = 0; j < 4; j++)
        {
            int c = 4 * cb + j;
            if (c < p.c)
            {
                float f = float(ncnnext_bf16_to_float(bitfieldExtract(in_data[(((n * p.c + c) * p.h + y) * p.w + x)/(2)],int(((((n * p.c + c) * p.h + y) * p.w + x)%(2))*(32/(2))),32/(2))));
                v[j] = clamp(rounded(f) + p.zp, -128, 127);
            }
        }
    }
    {out_data[word_index(1, n, cb, y, x, p.h, p.w, c4)]=ncnnext_packInt4x8(ivec4(v));};
}
