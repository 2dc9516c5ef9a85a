#version 450
// Arrays of every kind sized by specialization constants: a local, an
// `inout` parameter, a private global, `shared` arrays (one sized by a
// difference, one by a derived constant). tests/array_lengths.rs runs it at
// lengths that fit and asks for lengths of 0, negative and past the limit,
// which the runtime must refuse before the driver sees them.
layout (constant_id = 0) const int N = 8;
layout (constant_id = 1) const int S = 8;
layout (constant_id = 2) const int P = 4;
const int D = S * 2;
layout (local_size_x = 64) in;

layout (binding = 0) writeonly buffer top_blob { int top_blob_data[]; };

shared int sh[S];
shared int diff[S - 4];
shared int twice[D];
int priv[P];

int total(inout int a[N])
{
    int t = 0;
    for (int k = 0; k < N; k++)
        t += a[k];
    return t;
}

void main()
{
    const int l = int(gl_LocalInvocationID.x);
    int loc[N];
    for (int k = 0; k < N; k++)
        loc[k] = k + l;
    for (int k = 0; k < P; k++)
        priv[k] = k * 3;
    if (l < S)
        sh[l] = l * 2;
    if (l < S - 4)
        diff[l] = l + 100;
    if (l < D)
        twice[l] = l * 5;
    barrier();
    top_blob_data[gl_GlobalInvocationID.x] = total(loc) + sh[l % S] + diff[l % (S - 4)]
        + twice[l % D] + priv[l % P];
}
