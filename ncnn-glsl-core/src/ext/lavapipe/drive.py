"""Runs the extension's functions on a Vulkan device (lavapipe by default) and
compares every result with a model of the spec (section 3 to 5 meanings:
packing order, bf16 rounding, sign extension, float2int8, and stores into
shared words under contention).

    gcc -O1 -o runner runner.c -lvulkan     # needs libvulkan-dev
    python3 drive.py && python3 drive_int.py

The prelude of each mode is read from the snapshots, so this checks exactly
the text the snapshots pin. Not part of `cargo test`: it needs a C compiler,
Vulkan headers and a Vulkan driver.
"""
import struct, subprocess, os, sys, math
HERE = os.path.dirname(os.path.abspath(__file__))
SNAP = os.path.join(HERE, "..", "snapshots", "ncnn_glsl_core__ext__tests__prelude_%s.snap")
WORK = os.environ.get("TMPDIR", "/tmp")
ENV = dict(os.environ)
ENV.setdefault("VK_ICD_FILENAMES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json")
N = 1024
fails = []

def prelude(name):
    s = open(SNAP % name).read()
    return s.split("---\n", 2)[2]

def compile_run(name, body, bufs, groups):
    src = "#version 450\n" + prelude(name) + body
    open(os.path.join(WORK, "t.comp"), "w").write(src)
    r = subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.2", "-o", os.path.join(WORK, "t.spv"), os.path.join(WORK, "t.comp")], capture_output=True, text=True)
    if r.returncode:
        print(r.stdout); sys.exit(1)
    files = []
    for k, b in enumerate(bufs):
        fn = os.path.join(WORK, "b%d.bin" % k); open(fn, "wb").write(b); files.append(fn)
    r = subprocess.run([os.path.join(HERE, "runner"), os.path.join(WORK, "t.spv"), str(groups)] + files, capture_output=True, text=True, env=ENV)
    if r.returncode:
        print(r.stderr); sys.exit(1)
    return [open(f, "rb").read() for f in files]

def check(name, what, got, want):
    if got != want:
        bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w][:5]
        fails.append("%s %s: %d wrong, first %s" % (name, what, sum(1 for g, w in zip(got, want) if g != w), bad))

# ---------- float ----------
FLOAT = """
layout (local_size_x = 64) in;
layout (binding = 0) buffer A { sfp a[]; };
layout (binding = 1) buffer A4 { sfpvec4 a4[]; };
layout (binding = 2) buffer O { float o[]; };
layout (binding = 3) buffer B { sfp b[]; };
layout (binding = 4) buffer C { sfp c[]; };
layout (binding = 5) buffer D4 { sfpvec4 d4[]; };
layout (binding = 6) buffer E { sfp e[]; };
layout (binding = 7) buffer F4 { sfpvec4 f4[]; };
layout (binding = 8) buffer R { float r[]; };
layout (binding = 9) buffer G { sfp g[]; };
layout (binding = 10) buffer A2 { sfpvec2 a2[]; };
layout (binding = 11) buffer H2 { sfpvec2 h2[]; };
shared lfp s1[64];
shared lfpvec4 s4[64];
void main()
{
    const int N = %d;
    int i = int(gl_GlobalInvocationID.x);
    int l = int(gl_LocalInvocationID.x);
    o[i] = float(buffer_ld1(a, i));
    buffer_st1(b, i, buffer_ld1(a, i) * afp(2));
    buffer_cp1(c, N - 1 - i, a, i);
    buffer_st1(g, i, afp(r[i]));
    s1[l] = buffer_sm1(a, i);
    if (i < N / 4) {
        vec4 v = vec4(buffer_ld4(a4, i));
        o[N + 4 * i] = v.x; o[N + 4 * i + 1] = v.y; o[N + 4 * i + 2] = v.z; o[N + 4 * i + 3] = v.w;
        buffer_cp1to4(d4, i, a, ivec4(4 * i + 3, 4 * i + 2, 4 * i + 1, 4 * i));
        buffer_cp4to1(e, ivec4(i, i + N / 4, i + N / 2, i + 3 * N / 4), a4, i);
        buffer_st4(f4, i, buffer_ld4(a4, i) + afpvec4(1));
        s4[l] = buffer_sm4(a4, i);
    }
    if (i < N / 2) {
        vec2 v2 = vec2(buffer_ld2(a2, i));
        o[3 * N + 2 * i] = v2.x; o[3 * N + 2 * i + 1] = v2.y;
        buffer_st2(h2, i, buffer_ld2(a2, i) - afpvec2(1));
    }
    barrier();
    o[2 * N + i] = float(lfp2afp(s1[63 - l]));
    if (i < N / 4) {
        vec4 w = vec4(lfp2afpvec4(s4[l ^ 1]));
        o[4 * N + 4 * i] = w.x; o[4 * N + 4 * i + 1] = w.y; o[4 * N + 4 * i + 2] = w.z; o[4 * N + 4 * i + 3] = w.w;
    }
    barrier();
    s1[l] = afp2lfp(lfp2afp(s1[l]) + afp(3));
    if (i < N / 4) {
        s4[l] = afp2lfpvec4(lfp2afpvec4(s4[l]) * afpvec4(2));
    }
    barrier();
    o[5 * N + i] = float(lfp2afp(s1[l]));
    if (i < N / 4) {
        vec4 w = vec4(lfp2afpvec4(s4[l]));
        o[6 * N + 4 * i] = w.x; o[6 * N + 4 * i + 1] = w.y; o[6 * N + 4 * i + 2] = w.z; o[6 * N + 4 * i + 3] = w.w;
    }
}
""" % N

def f32(x): return struct.unpack("<f", struct.pack("<f", x))[0]
def bf16_bits(x): return ((struct.unpack("<I", struct.pack("<f", x))[0] + 0x8000) >> 16) & 0xffff

def run_float(name, kind):
    size = {"fp32": 4, "fp16": 2, "bf16": 2}[kind]
    xs = [((j * 37) % 200 - 100) / 8.0 for j in range(N)]
    def enc(vals):
        if kind == "fp32": return struct.pack("<%df" % len(vals), *vals)
        if kind == "fp16": return struct.pack("<%de" % len(vals), *vals)
        return struct.pack("<%dH" % len(vals), *[bf16_bits(v) for v in vals])
    def dec(b):
        n = len(b) // size
        if kind == "fp32": return list(struct.unpack("<%df" % n, b))
        if kind == "fp16": return list(struct.unpack("<%de" % n, b))
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in struct.unpack("<%dH" % n, b)]
    tricky = [1.0 + k * 2**-9 for k in range(N)]   # low bits around the bf16 rounding point
    zeros = enc([0.0] * N)
    bufs = [enc(xs), enc(xs), struct.pack("<%df" % (7 * N), *([0.0] * 7 * N)), zeros, zeros, zeros, zeros, zeros,
            struct.pack("<%df" % N, *tricky), zeros, enc(xs), zeros]
    out = compile_run(name, FLOAT, bufs, N // 64)
    o = list(struct.unpack("<%df" % (7 * N), out[2]))
    check(name, "ld1", o[:N], xs)
    check(name, "ld4", o[N:2 * N], xs)
    check(name, "ld2", o[3 * N:4 * N], xs)
    check(name, "st1 (contended)", dec(out[3]), [2 * x for x in xs])
    check(name, "cp1 (contended)", dec(out[4]), xs[::-1])
    check(name, "cp1to4", dec(out[5]), [xs[4 * (j // 4) + 3 - j % 4] for j in range(N)])
    want_e = [0.0] * N
    for i in range(N // 4):
        for k in range(4): want_e[i + k * N // 4] = xs[4 * i + k]
    check(name, "cp4to1 (contended)", dec(out[6]), want_e)
    check(name, "st4", dec(out[7]), [x + 1 for x in xs])
    check(name, "st2", dec(out[11]), [x - 1 for x in xs])
    if kind == "bf16":
        got = list(struct.unpack("<%dH" % N, out[9]))
        check(name, "st1 bf16 rounding", got, [bf16_bits(t) for t in tricky])
    check(name, "sm1 + lfp2afp", o[2 * N:3 * N], [xs[64 * (i // 64) + 63 - i % 64] for i in range(N)])
    check(name, "afp2lfp", o[5 * N:6 * N], [x + 3 for x in xs])
    check(name, "sm4 + lfp2afpvec4", o[4 * N:5 * N], [xs[4 * ((64 * (j // 256)) + ((j // 4) % 64 ^ 1)) + j % 4] for j in range(N)])
    check(name, "afp2lfpvec4", o[6 * N:7 * N], [2 * x for x in xs])

for name, kind in [("fp32", "fp32"), ("fp16p", "fp16"), ("fp16p+fp16a", "fp16"), ("fp16s_S16", "fp16"), ("fp16s+fp16a_S16", "fp16"),
                   ("fp16s+fp16a_S16_I16_I64", "fp16"), ("fp16s+fp16a+fp16u_S16_U16", "fp16"), ("bf16p", "bf16"), ("bf16p_S16", "bf16"),
                   ("bf16p_S16_I16", "bf16"), ("bf16p_S16_U16_I16", "bf16"), ("fp16p+fp16a+bf16p", "bf16"),
                   ("fp16p+fp16s+fp16a+fp16u+int8p+int8s+int8a+int8u+int16p+int16s+local_S16_U16_I16_I64", "fp16")]:
    run_float(name, kind)
    print("float", name, "done")
print("\n".join(fails) or "float: all good")
