"""int8 and int16 functions on a Vulkan device; see drive.py."""
import os
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "drive.py")).read().split("# ---------- float")[0])
INT8 = """
layout (local_size_x = 64) in;
layout (binding = 0) buffer A { sint8 a[]; };
layout (binding = 1) buffer A4 { sint8vec4 a4[]; };
layout (binding = 2) buffer O { int o[]; };
layout (binding = 3) buffer B { sint8 b[]; };
layout (binding = 4) buffer C { sint8 c[]; };
layout (binding = 5) buffer D4 { sint8vec4 d4[]; };
layout (binding = 6) buffer E { sint8 e[]; };
layout (binding = 7) buffer F4 { sint8vec4 f4[]; };
layout (binding = 8) buffer Q { float q[]; };
void main()
{
    const int N = %d;
    int i = int(gl_GlobalInvocationID.x);
    o[i] = i8buffer_ld1(a, i);
    i8buffer_st1(b, i, i8buffer_ld1(a, i) + 1);
    i8buffer_cp1(c, N - 1 - i, a, i);
    o[2 * N + i] = float2int8(q[i]);
    if (i < N / 2) {
        ivec2 u = unpackInt2x16(packInt2x16(ivec2(i * 77 - 40000, -i * 3)));
        o[3 * N + 2 * i] = u.x;
        o[3 * N + 2 * i + 1] = u.y;
    }
    if (i < N / 4) {
        ivec4 v = i8buffer_ld4(a4, i);
        o[N + 4 * i] = v.x; o[N + 4 * i + 1] = v.y; o[N + 4 * i + 2] = v.z; o[N + 4 * i + 3] = v.w;
        o[4 * N + i] = i8buffer_sm4(a4, i);
        i8buffer_cp1to4(d4, i, a, ivec4(4 * i + 3, 4 * i + 2, 4 * i + 1, 4 * i));
        i8buffer_cp4to1(e, ivec4(i, i + N / 4, i + N / 2, i + 3 * N / 4), a4, i);
        i8buffer_st4(f4, i, v * 2);
        ivec4 w = float2int8vec4(vec4(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]));
        o[5 * N + 4 * i] = w.x; o[5 * N + 4 * i + 1] = w.y; o[5 * N + 4 * i + 2] = w.z; o[5 * N + 4 * i + 3] = w.w;
        o[6 * N + i] = packInt4x8(ivec4(-1, 127, -128, 5) + ivec4(i));
    }
}
""" % N

def f32(x): return struct.unpack("<f", struct.pack("<f", x))[0]
def s8(v): v &= 0xff; return v - 256 if v >= 128 else v
def s16(v): v &= 0xffff; return v - 65536 if v >= 32768 else v
def s32(v): v &= 0xffffffff; return v - 2**32 if v >= 2**31 else v

def f2i8(v):
    r = math.floor(abs(v) + 0.5) if abs(v) - math.floor(abs(v)) != 0.5 else math.floor(abs(v)) + 1
    r = math.copysign(r, v)
    return int(max(-127, min(127, r)))

def run_int8(name):
    xs = [s8(j * 29 + 3) for j in range(N)]
    enc = lambda vals: struct.pack("<%db" % len(vals), *vals)
    dec = lambda b: list(struct.unpack("<%db" % len(b), b))
    qs = [0.49999997, 0.5, -0.5, -0.49999997, 1.5, 2.5, -2.5, 126.5, 127.4, -128.0, 1e9, -1e9, 0.0, -0.0, 8388607.5, 3.49999976]
    qs = [f32(qs[j % len(qs)] + (0 if j < len(qs) else ((j * 7919) % 600 - 300) / 4.0)) for j in range(N)]
    zeros = enc([0] * N)
    bufs = [enc(xs), enc(xs), struct.pack("<%di" % (7 * N), *([0] * 7 * N)), zeros, zeros, zeros, zeros, zeros, struct.pack("<%df" % N, *qs)]
    out = compile_run(name, INT8, bufs, N // 64)
    o = list(struct.unpack("<%di" % (7 * N), out[2]))
    check(name, "i8 ld1", o[:N], xs)
    check(name, "i8 ld4", o[N:2 * N], xs)
    check(name, "i8 sm4", o[4 * N:4 * N + N // 4], list(struct.unpack("<%di" % (N // 4), enc(xs))))
    check(name, "i8 st1 (contended)", dec(out[3]), [s8(x + 1) for x in xs])
    check(name, "i8 cp1 (contended)", dec(out[4]), xs[::-1])
    check(name, "i8 cp1to4", dec(out[5]), [xs[4 * (j // 4) + 3 - j % 4] for j in range(N)])
    want_e = [0] * N
    for i in range(N // 4):
        for k in range(4): want_e[i + k * N // 4] = xs[4 * i + k]
    check(name, "i8 cp4to1 (contended)", dec(out[6]), want_e)
    check(name, "i8 st4", dec(out[7]), [s8(2 * x) for x in xs])
    check(name, "float2int8", o[2 * N:3 * N], [f2i8(q) for q in qs])
    check(name, "float2int8vec4", o[5 * N:6 * N], [f2i8(q) for q in qs])
    want_u = []
    for i in range(N // 2):
        want_u += [s16(i * 77 - 40000), s16(-i * 3)]
    check(name, "packInt2x16", o[3 * N:4 * N], want_u)
    check(name, "packInt4x8", o[6 * N:6 * N + N // 4],
          [s32((s8(-1 + i) & 0xff) | ((s8(127 + i) & 0xff) << 8) | ((s8(-128 + i) & 0xff) << 16) | ((s8(5 + i) & 0xff) << 24)) for i in range(N // 4)])

INT16 = """
layout (local_size_x = 64) in;
layout (binding = 0) buffer A { sint16 a[]; };
layout (binding = 1) buffer A4 { sint16vec4 a4[]; };
layout (binding = 2) buffer O { int o[]; };
layout (binding = 3) buffer B { sint16 b[]; };
layout (binding = 4) buffer C { sint16 c[]; };
layout (binding = 5) buffer D { sint16 d[]; };
layout (binding = 6) buffer F4 { sint16vec4 f4[]; };
shared lint16vec4 s4[64];
void main()
{
    const int N = %d;
    int i = int(gl_GlobalInvocationID.x);
    int l = int(gl_LocalInvocationID.x);
    o[i] = i16buffer_ld1(a, i);
    i16buffer_st1(b, i, i16buffer_ld1(a, i) - 7);
    if (i < N / 2) {
        ivec2 v2 = i16buffer_ld2(a, 2 * i);
        o[N + 2 * i] = v2.x; o[N + 2 * i + 1] = v2.y;
        i16buffer_st2(c, 2 * i, v2 + ivec2(1));
        if (i < N / 2 - 1)
            i16buffer_st2(d, 2 * i + 1, ivec2(i16buffer_ld2(a, 2 * i + 1)) * 3);
    }
    if (i < N / 4) {
        ivec4 v = ivec4(i16buffer_ld4(a4, i));
        o[2 * N + 4 * i] = v.x; o[2 * N + 4 * i + 1] = v.y; o[2 * N + 4 * i + 2] = v.z; o[2 * N + 4 * i + 3] = v.w;
        i16buffer_st4(f4, i, v * 2);
        s4[l] = i16buffer_sm4(a4, i);
    }
    barrier();
    if (i < N / 4) {
        ivec4 w = ivec4(lint162aint16vec4(s4[l]));
        o[3 * N + 4 * i] = w.x; o[3 * N + 4 * i + 1] = w.y; o[3 * N + 4 * i + 2] = w.z; o[3 * N + 4 * i + 3] = w.w;
    }
}
""" % N

def run_int16(name, plain):
    xs = [s16(j * 2999 - 1000) for j in range(N)]
    if plain:
        enc = lambda vals: struct.pack("<%di" % len(vals), *vals)
        dec = lambda b: list(struct.unpack("<%di" % (len(b) // 4), b))
    else:
        enc = lambda vals: struct.pack("<%dh" % len(vals), *vals)
        dec = lambda b: list(struct.unpack("<%dh" % (len(b) // 2), b))
    zeros = enc([0] * N)
    bufs = [enc(xs), enc(xs), struct.pack("<%di" % (4 * N), *([0] * 4 * N)), zeros, zeros, zeros, zeros]
    out = compile_run(name, INT16, bufs, N // 64)
    o = list(struct.unpack("<%di" % (4 * N), out[2]))
    w = (lambda v: v) if plain else s16
    check(name, "i16 ld1", o[:N], xs)
    check(name, "i16 ld2", o[N:2 * N], xs)
    check(name, "i16 ld4", o[2 * N:3 * N], xs)
    check(name, "i16 sm4 + lint162aint16vec4", o[3 * N:4 * N], xs)
    check(name, "i16 st1 (contended)", dec(out[3]), [w(x - 7) for x in xs])
    check(name, "i16 st2 even", dec(out[4]), [w(x + 1) for x in xs])
    want_d = [0] + [w(3 * x) for x in xs[1:N - 1]] + [0]
    check(name, "i16 st2 odd (contended)", dec(out[5]), want_d)
    check(name, "i16 st4", dec(out[6]), [w(2 * x) for x in xs])

for n in ["fp32", "int8p", "int8p+int8a", "int8s", "int8s+int8a", "fp16s+fp16a+int8s+int8a+int16s_S16_I16"]:
    run_int8(n); print("int8", n, "done")
for n, plain in [("fp32", True), ("int16p", False), ("int16p_I16", False), ("int16s_S16_I16", False),
                 ("fp16p+fp16s+fp16a+fp16u+int8p+int8s+int8a+int8u+int16p+int16s+local_S16_U16_I16_I64", False)]:
    run_int16(n, plain); print("int16", n, "done")
print("\n".join(fails) or "int: all good")
