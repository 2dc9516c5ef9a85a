#!/usr/bin/env python3
"""Generates the shader library under tests/library/shaders/.

A scale test and benchmark input for ncnn-glsl: a few hundred ncnn-style
compute shaders (sfp/afp types, buffer_ld*/buffer_st*, psc() shape constants,
local_size_x_id = 233, shared memory, subgroups behind device macros, int8
words), each family written once here and varied by its parameters.

Run from the repository root:

    python3 tests/library/generate.py

The output directory is rewritten entirely (every .comp file this script
finds under it is removed first), so the library is always exactly what this
file describes. Standard library only; the output is deterministic.
"""

import os
import sys
from string import Template

ROOT = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(ROOT, "shaders")

LOCAL_ID = "layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;"

# ---------------------------------------------------------------------------
# pack1 / pack4 vocabulary


class Pack:
    def __init__(self, n):
        self.n = n
        v = n == 4
        self.name = f"pack{n}"
        self.s = "sfpvec4" if v else "sfp"
        self.a = "afpvec4" if v else "afp"
        self.l = "lfpvec4" if v else "lfp"
        self.ld = "buffer_ld4" if v else "buffer_ld1"
        self.st = "buffer_st4" if v else "buffer_st1"
        self.cp = "buffer_cp4" if v else "buffer_cp1"
        self.sm = "buffer_sm4" if v else "buffer_sm1"
        self.l2a = "lfp2afpvec4" if v else "lfp2afp"
        self.a2l = "afp2lfpvec4" if v else "afp2lfp"
        self.f = "vec4" if v else "float"  # fp32 type of one element
        self.zero = f"{self.a}(0.f)"

    def const(self, x):
        """A constant of the arithmetic type, `afpvec4(1.f)` or `afp(1.f)`."""
        return f"{self.a}({x})"

    def lt0(self, neg, pos, x="v"):
        """`neg` where x < 0, else `pos`, lane by lane."""
        if self.n == 1:
            return f"{x} < afp(0.f) ? {neg} : {pos}"
        return f"mix({pos}, {neg}, lessThan({x}, afpvec4(0.f)))"


P1 = Pack(1)
P4 = Pack(4)
PACKS = (P1, P4)

# ---------------------------------------------------------------------------
# shader text


def sub(text, **kw):
    """`$name` substitution: GLSL has braces everywhere and no `$`."""
    return Template(text).substitute(**kw)


def ro(block, typ, arr=None):
    return f"readonly buffer {block}_blob {{ {typ} {arr or block + '_blob_data'}[]; }}"


def wo(block, typ, arr=None):
    return f"writeonly buffer {block}_blob {{ {typ} {arr or block + '_blob_data'}[]; }}"


def rw(block, typ, arr=None):
    return f"buffer {block}_blob {{ {typ} {arr or block + '_blob_data'}[]; }}"


def shader(
    body,
    *,
    comment=None,
    extensions="",
    spec=(),
    shape=(),
    push_extra=(),
    bindings=(),
    local=LOCAL_ID,
    defines="",
    globals_="",
):
    """One shader in ncnn's layout: specialization constants, the shape
    constants read through psc(), the workgroup size, the buffers, the
    push-constant block holding the shape and any extra parameters, shared
    memory and main()."""
    out = ["#version 450", ""]
    if extensions:
        out += [extensions.strip("\n"), ""]
    if spec:
        for i, (t, n, d) in enumerate(spec):
            out.append(f"layout (constant_id = {i}) const {t} {n} = {d};")
        out.append("")
    if shape:
        out.append(f"#define shape_constant_id_offset {len(spec)}")
        for i, n in enumerate(shape):
            out.append(f"layout (constant_id = shape_constant_id_offset + {i}) const int {n} = 0;")
        out.append("")
    if defines:
        out += [defines.strip("\n"), ""]
    out += [local, ""]
    for i, b in enumerate(bindings):
        out.append(f"layout (binding = {i}) {b};")
    out.append("")
    members = [("int", n) for n in shape] + list(push_extra)
    if members:
        out.append("layout (push_constant) uniform parameter")
        out.append("{")
        for t, n in members:
            out.append(f"    {t} {n};")
        out.append("} p;")
        out.append("")
    if comment:
        for line in comment.strip("\n").split("\n"):
            out.append(("// " + line).rstrip())
    if globals_:
        out += [globals_.strip("\n"), ""]
    out.append("void main()")
    out.append("{")
    out.append(body.strip("\n"))
    out.append("}")
    return "\n".join(out) + "\n"


IDX3 = """    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc($w) || gy >= psc($h) || gz >= psc($c))
        return;
"""


def idx3(w="w", h="h", c="c"):
    return sub(IDX3, w=w, h=h, c=c)


SHAPE3 = ("w", "h", "c", "cstep")
SHAPE3_OUT = ("w", "h", "c", "cstep", "outw", "outh", "outc", "outcstep")

# ---------------------------------------------------------------------------
# unary elementwise (in place, as ncnn's UnaryOp and activation layers)

UNARY = [
    # name, expression of v, extra spec constants, extra push members
    ("relu", lambda P: "max(v, afp(0.f))", (), ()),
    ("relu6", lambda P: "clamp(v, afp(0.f), afp(6.f))", (), ()),
    ("leakyrelu", lambda P: P.lt0("v * afp(p.slope)", "v"), (), (("float", "slope"),)),
    ("clip", lambda P: "clamp(v, afp(const_min), afp(const_max))",
     (("float", "const_min", "-1.f"), ("float", "const_max", "1.f")), ()),
    ("sigmoid", lambda P: "afp(1.f) / (afp(1.f) + exp(-v))", (), ()),
    ("tanh", lambda P: "tanh(v)", (), ()),
    ("swish", lambda P: "v / (afp(1.f) + exp(-v))", (), ()),
    ("mish", lambda P: "v * tanh(log(exp(v) + afp(1.f)))", (), ()),
    ("hardswish", lambda P: "v * clamp(v * afp(1.f / 6.f) + afp(0.5f), afp(0.f), afp(1.f))", (), ()),
    ("hardsigmoid", lambda P: "clamp(v * afp(alpha) + afp(beta), afp(0.f), afp(1.f))",
     (("float", "alpha", "0.2f"), ("float", "beta", "0.5f")), ()),
    ("gelu", lambda P: "afp(0.5f) * v * (afp(1.f) + tanh(afp(0.79788452f) * (v + afp(0.044715f) * v * v * v)))",
     (), ()),
    ("elu", lambda P: P.lt0("afp(alpha) * (exp(v) - afp(1.f))", "v"), (("float", "alpha", "1.f"),), ()),
    ("selu", lambda P: "afp(lambda) * (" + P.lt0("afp(alpha) * (exp(v) - afp(1.f))", "v") + ")",
     (("float", "alpha", "1.67326324f"), ("float", "lambda", "1.050700987f")), ()),
    ("softplus", lambda P: "log(exp(v) + afp(1.f))", (), ()),
    ("abs", lambda P: "abs(v)", (), ()),
    ("neg", lambda P: "-v", (), ()),
    ("exp", lambda P: "exp(v)", (), ()),
    ("log", lambda P: "log(v)", (), ()),
    ("sqrt", lambda P: "sqrt(v)", (), ()),
    ("rsqrt", lambda P: "inversesqrt(v)", (), ()),
    ("square", lambda P: "v * v", (), ()),
    ("floor", lambda P: "floor(v)", (), ()),
    ("ceil", lambda P: "ceil(v)", (), ()),
    ("sin", lambda P: "sin(v)", (), ()),
    ("cos", lambda P: "cos(v)", (), ()),
]


def unary():
    files = []
    for name, expr, spec, push in UNARY:
        for P in PACKS:
            body = idx3() + sub(
                """
    const int gi = gz * psc(cstep) + gy * psc(w) + gx;

    $a v = $ld(bottom_top_blob_data, gi);

    v = $expr;

    $st(bottom_top_blob_data, gi, v);
""", a=P.a, ld=P.ld, st=P.st, expr=expr(P))
            files.append((f"unary/{name}_{P.name}.comp", shader(
                body, spec=spec, shape=SHAPE3, push_extra=push,
                bindings=[rw("bottom_top", P.s)])))
    return files


# ---------------------------------------------------------------------------
# binary elementwise

BINARY = [
    ("add", "$a + $b"),
    ("sub", "$a - $b"),
    ("mul", "$a * $b"),
    ("div", "$a / $b"),
    ("max", "max($a, $b)"),
    ("min", "min($a, $b)"),
    ("pow", "pow(abs($a), $b)"),
    ("rsub", "$b - $a"),
]


def binary():
    files = []
    for name, op in BINARY:
        for P in PACKS:
            body = idx3() + sub(
                """
    const int gi = gz * psc(cstep) + gy * psc(w) + gx;

    $a v1 = $ld(a_blob_data, gi);
    $a v2 = $ld(b_blob_data, gi);

    $a res = $op;

    $st(top_blob_data, gi, res);
""", a=P.a, ld=P.ld, st=P.st, op=sub(op, a="v1", b="v2"))
            files.append((f"binary/{name}_{P.name}.comp", shader(
                body, shape=SHAPE3,
                bindings=[ro("a", P.s), ro("b", P.s), wo("top", P.s)])))

            body = idx3() + sub(
                """
    const int gi = gz * psc(cstep) + gy * psc(w) + gx;

    $a v1 = $ld(bottom_top_blob_data, gi);
    $a v2 = $a(p.b);

    v1 = $op;

    $st(bottom_top_blob_data, gi, v1);
""", a=P.a, ld=P.ld, st=P.st, op=sub(op, a="v1", b="v2"))
            files.append((f"binary/{name}_scalar_{P.name}.comp", shader(
                body, shape=SHAPE3, push_extra=(("float", "b"),),
                bindings=[rw("bottom_top", P.s)],
                comment="the second operand is a scalar from the push constants")))
    return files


# ---------------------------------------------------------------------------
# reductions over rows, one output per row

REDUCE = [
    # name, initial value, map of v, combine of x and y, divide by w at the end
    ("sum", "0.f", "v", "$x + $y", False),
    ("mean", "0.f", "v", "$x + $y", True),
    ("max", "-65504.f", "v", "max($x, $y)", False),
    ("min", "65504.f", "v", "min($x, $y)", False),
    ("sumsq", "0.f", "v * v", "$x + $y", False),
    ("asum", "0.f", "abs(v)", "$x + $y", False),
]

REDUCE_TREE = """    afp$vec s = $init;
    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        $a v = $ld(bottom_blob_data, row + x);
        s = $comb_sv;
    }
    tmp[lx] = $a2l(s);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = $a2l($comb_tree);
        barrier();
    }

    if (lx == 0)
    {
        $a res = $l2a(tmp[0]);$mean
        $st(top_blob_data, gz * psc(h) + gy, res);
    }
"""


def reduce_parts(P, op):
    name, init, mapv, comb, mean = op
    return dict(
        vec="vec4" if P.n == 4 else "",
        a=P.a, ld=P.ld, st=P.st, a2l=P.a2l, l2a=P.l2a,
        init=P.const(init),
        comb_sv=sub(comb, x="s", y=mapv),
        comb_tree=sub(comb, x=f"{P.l2a}(tmp[lx])", y=f"{P.l2a}(tmp[lx + k])"),
        mean="\n        res = res / afp(psc(w));" if mean else "",
        mean_s="\n    s = s / afp(psc(w));" if mean else "",
    )


def reductions():
    files = []
    sizes = (64, 128, 256)
    for i, op in enumerate(REDUCE):
        for P in PACKS:
            parts = reduce_parts(P, op)
            local_size = sizes[(i + P.n) % 3]
            body = sub("""    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    const int row = gz * psc(cstep) + gy * psc(w);

""", **parts) + sub(REDUCE_TREE, **parts)
            files.append((f"reduction/{op[0]}_rows_{P.name}.comp", shader(
                body, shape=SHAPE3,
                bindings=[ro("bottom", P.s), wo("top", P.s)],
                comment=f"one workgroup of LOCAL_SIZE per row and channel: strided partial {op[0]}s,\nthen a tree in shared memory",
                defines=f"#define LOCAL_SIZE {local_size}",
                globals_=f"shared {P.l} tmp[LOCAL_SIZE];")))

            # ncnn's use_shader_local_memory switch: the tree in shared memory
            # where the option is on, one invocation per row where it is off.
            body = sub("""#if NCNN_shader_local_memory
    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    const int row = gz * psc(cstep) + gy * psc(w);

""", **parts) + sub(REDUCE_TREE, **parts) + sub("""#else
    int gy = int(gl_GlobalInvocationID.x);
    int gz = int(gl_GlobalInvocationID.y);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    const int row = gz * psc(cstep) + gy * psc(w);

    afp$vec s = $init;
    for (int x = 0; x < psc(w); x++)
    {
        $a v = $ld(bottom_blob_data, row + x);
        s = $comb_sv;
    }$mean_s

    $st(top_blob_data, gz * psc(h) + gy, s);
#endif
""", **parts)
            files.append((f"reduction/{op[0]}_rows_localmem_{P.name}.comp", shader(
                body, shape=SHAPE3,
                bindings=[ro("bottom", P.s), wo("top", P.s)],
                comment="with shader local memory: one workgroup per row, a tree in shared memory;\nwithout: one invocation per row, dispatched over (h, c)",
                defines="#define LOCAL_SIZE 64",
                globals_=f"#if NCNN_shader_local_memory\nshared {P.l} tmp[LOCAL_SIZE];\n#endif")))
    return files


# ---------------------------------------------------------------------------
# subgroups and other device macros, tested without being declared, as
# ncnn's shaders test them

SUBGROUP_EXT = """#if ncnn_subgroup_arithmetic
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#if NCNN_fp16_arithmetic
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif
#endif"""

ROWS_HEAD = """    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    const int row = gz * psc(cstep) + gy * psc(w);

    afp$vec s = $init;
    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        $a v = $ld(bottom_blob_data, row + x);
        s = $comb_sv;
    }
"""

TREE_TAIL = """    tmp[lx] = $a2l(s);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = $a2l($comb_tree);
        barrier();
    }

    if (lx == 0)
    {
        $a res = $l2a(tmp[0]);$mean
        $st(top_blob_data, gz * psc(h) + gy, res);
    }
"""


def subgroup():
    files = []
    sg_fn = {"sum": "subgroupAdd", "max": "subgroupMax", "mean": "subgroupAdd"}

    # 1. subgroupAdd / subgroupMax where the device has subgroup arithmetic,
    #    the shared tree otherwise
    for opname in ("sum", "max"):
        op = next(o for o in REDUCE if o[0] == opname)
        for P in PACKS:
            parts = reduce_parts(P, op)
            body = sub(ROWS_HEAD, **parts) + sub("""
#if ncnn_subgroup_arithmetic
    s = $fn(s);
    if (gl_SubgroupInvocationID == 0u)
        tmp[gl_SubgroupID] = $a2l(s);

    barrier();

    if (lx == 0)
    {
        $a res = $l2a(tmp[0]);
        for (uint k = 1u; k < gl_NumSubgroups; k++)
            res = $comb_k;
        $st(top_blob_data, gz * psc(h) + gy, res);
    }
#else
""", fn=sg_fn[opname], comb_k=sub(op[3], x="res", y=f"{P.l2a}(tmp[k])"), **parts) \
                + sub(TREE_TAIL, **parts) + "#endif\n"
            files.append((f"subgroup/{opname}_rows_subgroup_{P.name}.comp", shader(
                body, extensions=SUBGROUP_EXT, shape=SHAPE3,
                bindings=[ro("bottom", P.s), wo("top", P.s)],
                comment="one workgroup per row: subgroup reductions where the device has them,\nelse a tree in shared memory",
                defines="#define LOCAL_SIZE 128",
                globals_=f"shared {P.l} tmp[LOCAL_SIZE];")))

    # 2. mean: the partials array sized by the subgroup size, arithmetic and
    #    size tested in one condition
    op = next(o for o in REDUCE if o[0] == "mean")
    for P in PACKS:
        parts = reduce_parts(P, op)
        body = sub(ROWS_HEAD, **parts) + sub("""
#if ncnn_subgroup_arithmetic && ncnn_subgroupSize >= 8
    s = subgroupAdd(s);
    if (gl_SubgroupInvocationID == 0u)
        partial[gl_SubgroupID] = $a2l(s);

    barrier();

    if (lx == 0)
    {
        $a res = $zero;
        for (uint k = 0u; k < gl_NumSubgroups; k++)
            res += $l2a(partial[k]);
        $st(top_blob_data, gz * psc(h) + gy, res / afp(psc(w)));
    }
#else
""", zero=P.zero, **parts) + sub(TREE_TAIL.replace("tmp", "partial"), **dict(
            parts, comb_tree=parts["comb_tree"].replace("tmp", "partial"))) + "#endif\n"
        files.append((f"subgroup/mean_rows_subgroup_size_{P.name}.comp", shader(
            body, extensions=SUBGROUP_EXT.replace(
                "#if ncnn_subgroup_arithmetic", "#if ncnn_subgroup_arithmetic && ncnn_subgroupSize >= 8"),
            shape=SHAPE3,
            bindings=[ro("bottom", P.s), wo("top", P.s)],
            comment="one workgroup per row; with subgroup arithmetic, one partial per subgroup,\nso the array need only hold LOCAL_SIZE / (least subgroup size) of them",
            defines="""#define LOCAL_SIZE 256
#if ncnn_subgroup_arithmetic && ncnn_subgroupSize >= 32
#define PARTIALS (LOCAL_SIZE / 32)
#elif ncnn_subgroup_arithmetic && ncnn_subgroupSize >= 8
#define PARTIALS (LOCAL_SIZE / 8)
#else
#define PARTIALS LOCAL_SIZE
#endif""",
            globals_=f"shared {P.l} partial[PARTIALS];")))

    # 3. softmax over rows, in place
    for P in PACKS:
        m = "-65504.f"
        body = sub("""    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);
    int gz = int(gl_WorkGroupID.z);

    if (gy >= psc(h) || gz >= psc(c))
        return;

    const int row = gz * psc(cstep) + gy * psc(w);

    $a m = $a($m);
    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        m = max(m, $ld(bottom_top_blob_data, row + x));
    }

#if ncnn_subgroup_arithmetic
    m = subgroupMax(m);
    if (gl_SubgroupInvocationID == 0u)
        tmp[gl_SubgroupID] = $a2l(m);
    barrier();
    $a row_max = $l2a(tmp[0]);
    for (uint k = 1u; k < gl_NumSubgroups; k++)
        row_max = max(row_max, $l2a(tmp[k]));
#else
    tmp[lx] = $a2l(m);
    barrier();
    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = $a2l(max($l2a(tmp[lx]), $l2a(tmp[lx + k])));
        barrier();
    }
    $a row_max = $l2a(tmp[0]);
#endif
    barrier();

    $a s = $zero;
    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        s += exp($ld(bottom_top_blob_data, row + x) - row_max);
    }

#if ncnn_subgroup_arithmetic
    s = subgroupAdd(s);
    if (gl_SubgroupInvocationID == 0u)
        tmp[gl_SubgroupID] = $a2l(s);
    barrier();
    $a row_sum = $zero;
    for (uint k = 0u; k < gl_NumSubgroups; k++)
        row_sum += $l2a(tmp[k]);
#else
    tmp[lx] = $a2l(s);
    barrier();
    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = $a2l($l2a(tmp[lx]) + $l2a(tmp[lx + k]));
        barrier();
    }
    $a row_sum = $l2a(tmp[0]);
#endif

    for (int x = lx; x < psc(w); x += LOCAL_SIZE)
    {
        $a v = exp($ld(bottom_top_blob_data, row + x) - row_max) / row_sum;
        $st(bottom_top_blob_data, row + x, v);
    }
""", a=P.a, ld=P.ld, st=P.st, a2l=P.a2l, l2a=P.l2a, zero=P.zero, m=m)
        files.append((f"subgroup/softmax_subgroup_{P.name}.comp", shader(
            body, extensions=SUBGROUP_EXT, shape=SHAPE3,
            bindings=[rw("bottom_top", P.s)],
            comment="softmax over each row, one workgroup per row",
            defines="#define LOCAL_SIZE 64",
            globals_=f"shared {P.l} tmp[LOCAL_SIZE];")))

    # 4. butterfly of xor shuffles (pack4), shuffle down (pack1)
    for P, macro, ext, fn in (
        (P4, "ncnn_subgroup_shuffle", "GL_KHR_shader_subgroup_shuffle", "xor"),
        (P1, "ncnn_subgroup_shuffle_relative", "GL_KHR_shader_subgroup_shuffle_relative", "down"),
    ):
        op = REDUCE[0]
        parts = reduce_parts(P, op)
        if fn == "xor":
            step = """    for (uint mask = gl_SubgroupSize / 2u; mask > 0u; mask >>= 1u)
    {
        s += subgroupShuffleXor(s, mask);
    }"""
        else:
            step = """    for (uint d = gl_SubgroupSize / 2u; d > 0u; d >>= 1u)
    {
        afp o = subgroupShuffleDown(s, d);
        if (gl_SubgroupInvocationID + d < gl_SubgroupSize)
            s += o;
    }"""
        body = sub(ROWS_HEAD, **parts) + sub("""
#if $macro
$step
    if (gl_SubgroupInvocationID == 0u)
        tmp[gl_SubgroupID] = $a2l(s);

    barrier();

    if (lx == 0)
    {
        $a res = $zero;
        for (uint k = 0u; k < gl_NumSubgroups; k++)
            res += $l2a(tmp[k]);
        $st(top_blob_data, gz * psc(h) + gy, res);
    }
#else
""", macro=macro, step=step, zero=P.zero, **parts) + sub(TREE_TAIL, **parts) + "#endif\n"
        exts = f"""#if {macro}
#extension GL_KHR_shader_subgroup_basic : require
#extension {ext} : require
#if NCNN_fp16_arithmetic
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif
#endif"""
        files.append((f"subgroup/sum_rows_shuffle_{fn}_{P.name}.comp", shader(
            body, extensions=exts, shape=SHAPE3,
            bindings=[ro("bottom", P.s), wo("top", P.s)],
            comment=f"row sums: a subgroup shuffle-{fn} reduction where the device has it",
            defines="#define LOCAL_SIZE 128",
            globals_=f"shared {P.l} tmp[LOCAL_SIZE];")))

    # 5. vendor-tuned GEMM tile
    files.append(("subgroup/gemm_vendor_tile_pack1.comp", gemm_text(
        P1, None, False, vendor=True)))

    # 6. vendor-tuned unroll of a 1x1 convolution, pack4
    body = idx3("outw", "outh", "outc") + """
    afpvec4 sum = bias_term == 1 ? buffer_ld4(bias_data, gz) : afpvec4(0.f);

    const int gi = gy * psc(w) + gx;
    int w_offset = gz * psc(c) * 4;

    int z = 0;
    for (; z + UNROLL <= psc(c); z += UNROLL)
    {
        for (int u = 0; u < UNROLL; u++)
        {
            afpvec4 v = buffer_ld4(bottom_blob_data, (z + u) * psc(cstep) + gi);
            afpmat4 k = afpmat4(
                buffer_ld4(weight_data, w_offset + 0),
                buffer_ld4(weight_data, w_offset + 1),
                buffer_ld4(weight_data, w_offset + 2),
                buffer_ld4(weight_data, w_offset + 3)
            );
            sum += v * k;
            w_offset += 4;
        }
    }
    for (; z < psc(c); z++)
    {
        afpvec4 v = buffer_ld4(bottom_blob_data, z * psc(cstep) + gi);
        afpmat4 k = afpmat4(
            buffer_ld4(weight_data, w_offset + 0),
            buffer_ld4(weight_data, w_offset + 1),
            buffer_ld4(weight_data, w_offset + 2),
            buffer_ld4(weight_data, w_offset + 3)
        );
        sum += v * k;
        w_offset += 4;
    }

    buffer_st4(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, sum);
"""
    files.append(("subgroup/conv1x1_vendor_unroll_pack4.comp", shader(
        body, spec=(("int", "bias_term", "0"),), shape=SHAPE3_OUT,
        bindings=[ro("bottom", "sfpvec4"), wo("top", "sfpvec4"),
                  ro("weight", "sfpvec4", "weight_data"), ro("bias", "sfpvec4", "bias_data")],
        comment="1x1 convolution; the channel loop unrolled deeper on NVIDIA",
        defines="""#if ncnn_vendorID == 0x10de
#define UNROLL 8
#elif ncnn_vendorID == 0x1002
#define UNROLL 4
#else
#define UNROLL 2
#endif""")))

    # 7. int8 dot products: the packed dot product where the device has
    #    VK_KHR_shader_integer_dot_product, four multiplies otherwise
    def dot(j, indent):
        pad = " " * indent
        lines = [
            "#if ncnn_VK_KHR_shader_integer_dot_product",
            f"{pad}sum{j} += dotPacked4x8EXT(v, k{j});",
            "#else",
            f"{pad}{{",
            f"{pad}    ivec4 a = unpackInt4x8(v);",
            f"{pad}    ivec4 b = unpackInt4x8(k{j});",
            f"{pad}    sum{j} += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;",
            f"{pad}}}",
            "#endif",
        ]
        return "\n".join(lines)

    dot_ext = """#if ncnn_VK_KHR_shader_integer_dot_product
#extension GL_EXT_integer_dot_product : require
#endif"""
    body = """    int gx = int(gl_GlobalInvocationID.x);

    if (gx >= psc(outw))
        return;

    int sum = 0;

    for (int i = 0; i < psc(w); i++)
    {
        int v = bottom_blob_data[i];
        int k = weight_data[gx * psc(w) + i];
""" + dot("", 8) + """
    }

    afp res = afp(float(sum) * scale_in * scale_weight);
    if (bias_term == 1)
        res += buffer_ld1(bias_data, gx);

    buffer_st1(top_blob_data, gx, res);
"""
    files.append(("subgroup/innerproduct_int8_dot.comp", shader(
        body, extensions=dot_ext,
        spec=(("int", "bias_term", "0"), ("float", "scale_in", "1.f"), ("float", "scale_weight", "1.f")),
        shape=("w", "outw"),
        bindings=[ro("bottom", "sint8vec4"), wo("top", "sfp"),
                  ro("weight", "sint8vec4", "weight_data"), ro("bias", "sfp", "bias_data")],
        comment="int8 GEMV, four int8 lanes per word of input and weights; the packed dot\nproduct where the device has VK_KHR_shader_integer_dot_product")))

    body = idx3("w", "h", "outc") + """
    const int gi = gy * psc(w) + gx;

    int sum0 = 0;
    int sum1 = 0;
    int sum2 = 0;
    int sum3 = 0;

    for (int z = 0; z < psc(c); z++)
    {
        int v = bottom_blob_data[z * psc(cstep) + gi];
        int w_offset = (gz * psc(c) + z) * 4;
        int k0 = weight_data[w_offset + 0];
        int k1 = weight_data[w_offset + 1];
        int k2 = weight_data[w_offset + 2];
        int k3 = weight_data[w_offset + 3];
""" + "\n".join(dot(str(j), 8) for j in range(4)) + """
    }

    vec4 res = vec4(ivec4(sum0, sum1, sum2, sum3)) * scale_in * vec4(buffer_ld4(scale_weight_data, gz));

    buffer_st4(top_blob_data, gz * psc(outcstep) + gi, res);
"""
    files.append(("subgroup/conv1x1_int8_dot_pack4.comp", shader(
        body, extensions=dot_ext,
        spec=(("float", "scale_in", "1.f"),),
        shape=("w", "h", "c", "cstep", "outc", "outcstep"),
        bindings=[ro("bottom", "sint8vec4"), wo("top", "sfpvec4"),
                  ro("weight", "sint8vec4", "weight_data"), ro("scale_weight", "sfpvec4", "scale_weight_data")],
        comment="int8 1x1 convolution: four int8 input channels per word, four output\nchannels per invocation, dequantized to pack4 floats")))

    # 8. driver workarounds
    parts = reduce_parts(P4, REDUCE[1])
    body = sub("""    int lx = int(gl_LocalInvocationID.x);
    int gz = int(gl_WorkGroupID.z);

    if (gz >= psc(c))
        return;

    const int size = psc(w) * psc(h);

#if ncnn_driverID == 5
    // this driver has been seen to lose the tree's barriers: one invocation
    // sums the channel
    if (lx == 0)
    {
        afpvec4 s = afpvec4(0.f);
        for (int i = 0; i < size; i++)
            s += buffer_ld4(bottom_blob_data, gz * psc(cstep) + i);
        buffer_st4(top_blob_data, gz, s / afp(size));
    }
#else
    afpvec4 s = afpvec4(0.f);
    for (int i = lx; i < size; i += LOCAL_SIZE)
        s += buffer_ld4(bottom_blob_data, gz * psc(cstep) + i);
    tmp[lx] = afp2lfpvec4(s);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = afp2lfpvec4(lfp2afpvec4(tmp[lx]) + lfp2afpvec4(tmp[lx + k]));
        barrier();
    }

    if (lx == 0)
        buffer_st4(top_blob_data, gz, lfp2afpvec4(tmp[0]) / afp(size));
#endif
""", **parts)
    files.append(("subgroup/pooling_global_avg_driver_pack4.comp", shader(
        body, shape=SHAPE3,
        bindings=[ro("bottom", "sfpvec4"), wo("top", "sfpvec4")],
        comment="global average pooling, one workgroup per channel group",
        defines="#define LOCAL_SIZE 64",
        globals_="shared lfpvec4 tmp[LOCAL_SIZE];")))

    body = """    int gy = int(gl_GlobalInvocationID.x);

    if (gy >= psc(h))
        return;

    const int row = gy * psc(w);

#if ncnn_driverID == 5 || ncnn_driverID == 4
    // accumulate in fp32 where the driver's fp16 accumulation was too coarse
    float sum = 0.f;
    for (int i = 0; i < psc(w); i++)
        sum += float(buffer_ld1(bottom_top_blob_data, row + i));
    const afp mean = afp(sum / float(psc(w)));
#else
    afp sum = afp(0.f);
    for (int i = 0; i < psc(w); i++)
        sum += buffer_ld1(bottom_top_blob_data, row + i);
    const afp mean = sum / afp(psc(w));
#endif

    afp sqsum = afp(0.f);
    for (int i = 0; i < psc(w); i++)
    {
        afp v = buffer_ld1(bottom_top_blob_data, row + i) - mean;
        sqsum += v * v;
    }

    const afp a = inversesqrt(sqsum / afp(psc(w)) + afp(eps));
    const afp b = -mean * a;

    for (int i = 0; i < psc(w); i++)
    {
        afp v = buffer_ld1(bottom_top_blob_data, row + i) * a + b;
        buffer_st1(bottom_top_blob_data, row + i, v);
    }
"""
    files.append(("subgroup/layernorm_driver_pack1.comp", shader(
        body, spec=(("float", "eps", "0.00001f"),), shape=("w", "h"),
        bindings=[rw("bottom_top", "sfp")],
        comment="layer normalization of each row, one invocation per row")))

    # 9. discrete GPUs take four elements per invocation
    body = """    int gx = int(gl_GlobalInvocationID.x);

    for (int i = 0; i < ELEMENTS; i++)
    {
        int gi = gx * ELEMENTS + i;
        if (gi >= psc(size))
            return;

        afpvec4 v1 = buffer_ld4(a_blob_data, gi);
        afpvec4 v2 = buffer_ld4(b_blob_data, gi);
        buffer_st4(top_blob_data, gi, v1 + v2);
    }
"""
    files.append(("subgroup/add_devicetype_pack4.comp", shader(
        body, shape=("size",),
        bindings=[ro("a", "sfpvec4"), ro("b", "sfpvec4"), wo("top", "sfpvec4")],
        comment="flat elementwise add",
        defines="""#if ncnn_deviceType == 2
#define ELEMENTS 4
#else
#define ELEMENTS 1
#endif""")))
    return files


# ---------------------------------------------------------------------------
# packing and casts


def packing():
    files = []
    for dims in (1, 2, 3):
        # the packed axis: w for 1-D blobs, h for 2-D, c for 3-D
        if dims == 1:
            shape = ("w", "outw")
            head = """    int gx = int(gl_GlobalInvocationID.x);

    if (gx >= psc($n))
        return;
"""
            lanes = "gx * 4 + ivec4(0, 1, 2, 3)"
            packed = "gx"
        elif dims == 2:
            shape = ("w", "h", "outh")
            head = """    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);

    if (gx >= psc(w) || gy >= psc($n))
        return;
"""
            lanes = "(gy * 4 + ivec4(0, 1, 2, 3)) * psc(w) + gx"
            packed = "gy * psc(w) + gx"
        else:
            shape = ("w", "h", "c", "cstep", "outc", "outcstep")
            head = idx3("w", "h", "$n")
            lanes = "(gz * 4 + ivec4(0, 1, 2, 3)) * psc($cstep1) + gy * psc(w) + gx"
            packed = "gz * psc($cstep4) + gy * psc(w) + gx"
        n4 = {1: "outw", 2: "outh", 3: "outc"}[dims]
        n4from = {1: "w", 2: "h", 3: "c"}[dims]
        for direction in ("1to4", "4to1"):
            # 1to4 walks the packed output; 4to1 the packed input
            n = n4 if direction == "1to4" else n4from
            cstep1, cstep4 = ("cstep", "outcstep") if direction == "1to4" else ("outcstep", "cstep")
            h = sub(head, n=n)
            ln = sub(lanes, cstep1=cstep1)
            pk = sub(packed, cstep4=cstep4)
            for method in ("cp", "ld"):
                if direction == "1to4":
                    src, dst = "sfp", "sfpvec4"
                    if method == "cp":
                        code = f"""ivec4 v_offset = {ln};
    const int gi = {pk};

    buffer_cp1to4(top_blob_data, gi, bottom_blob_data, v_offset);"""
                    else:
                        code = f"""ivec4 v_offset = {ln};

    afpvec4 v = afpvec4(
        buffer_ld1(bottom_blob_data, v_offset.x),
        buffer_ld1(bottom_blob_data, v_offset.y),
        buffer_ld1(bottom_blob_data, v_offset.z),
        buffer_ld1(bottom_blob_data, v_offset.w)
    );

    buffer_st4(top_blob_data, {pk}, v);"""
                else:
                    src, dst = "sfpvec4", "sfp"
                    if method == "cp":
                        code = f"""const int gi = {pk};
    ivec4 o_offset = {ln};

    buffer_cp4to1(top_blob_data, o_offset, bottom_blob_data, gi);"""
                    else:
                        code = f"""ivec4 o_offset = {ln};

    afpvec4 v = buffer_ld4(bottom_blob_data, {pk});

    buffer_st1(top_blob_data, o_offset.x, v.x);
    buffer_st1(top_blob_data, o_offset.y, v.y);
    buffer_st1(top_blob_data, o_offset.z, v.z);
    buffer_st1(top_blob_data, o_offset.w, v.w);"""
                body = h + "\n    " + code + "\n"
                files.append((f"packing/packing_{direction}_{dims}d_{method}.comp", shader(
                    body, shape=shape,
                    bindings=[ro("bottom", src), wo("top", dst)],
                    comment=f"{dims}-D blob, elempack {direction.replace('to', ' to ')}" +
                    (" with the raw-bits copy functions" if method == "cp" else " through the arithmetic type"))))

    for P in PACKS:
        shape = ("w", "h", "c", "cstep", "outcstep")
        head = idx3() + """
    const int gi = gz * psc(cstep) + gy * psc(w) + gx;
    const int outgi = gz * psc(outcstep) + gy * psc(w) + gx;

"""
        files.append((f"packing/cast_fp32_to_fp16_{P.name}.comp", shader(
            head + f"    {P.st}(top_blob_data, outgi, {P.a}(bottom_blob_data[gi]));\n",
            shape=shape, bindings=[ro("bottom", P.f), wo("top", P.s)],
            comment="fp32 blob to the storage type")))
        files.append((f"packing/cast_fp16_to_fp32_{P.name}.comp", shader(
            head + f"    top_blob_data[outgi] = {P.f}({P.ld}(bottom_blob_data, gi));\n",
            shape=shape, bindings=[ro("bottom", P.s), wo("top", P.f)],
            comment="storage type to an fp32 blob")))
    return files


# ---------------------------------------------------------------------------
# convolution


def conv():
    files = []
    for k in (1, 3, 5, 7):
        for s in (1, 2):
            for P in PACKS:
                defines = f"#define KERNEL {k}\n#define STRIDE {s}"
                spec = (("int", "bias_term", "0"), ("int", "activation_type", "0"))
                act = f"""
    if (activation_type == 1)
        sum = max(sum, afp(0.f));
    if (activation_type == 2)
        sum = clamp(sum, afp(0.f), afp(6.f));
"""
                if P.n == 1:
                    mac = "sum += buffer_ld1(bottom_blob_data, v_offset + x) * buffer_ld1(weight_data, w_offset + x);"
                    wstep = "KERNEL"
                else:
                    mac = """afpvec4 v = buffer_ld4(bottom_blob_data, v_offset + x);
                afpmat4 k = afpmat4(
                    buffer_ld4(weight_data, (w_offset + x) * 4 + 0),
                    buffer_ld4(weight_data, (w_offset + x) * 4 + 1),
                    buffer_ld4(weight_data, (w_offset + x) * 4 + 2),
                    buffer_ld4(weight_data, (w_offset + x) * 4 + 3)
                );
                sum += v * k;"""
                    wstep = "KERNEL"
                body = idx3("outw", "outh", "outc") + sub("""
    $a sum = bias_term == 1 ? $ld(bias_data, gz) : $zero;

    int w_offset = gz * psc(c) * KERNEL * KERNEL;

    for (int z = 0; z < psc(c); z++)
    {
        int v_offset = z * psc(cstep) + gy * STRIDE * psc(w) + gx * STRIDE;

        for (int y = 0; y < KERNEL; y++)
        {
            for (int x = 0; x < KERNEL; x++)
            {
                $mac
            }

            v_offset += psc(w);
            w_offset += $wstep;
        }
    }
$act
    $st(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, sum);
""", a=P.a, ld=P.ld, st=P.st, zero=P.zero, mac=mac, wstep=wstep, act=act)
                files.append((f"convolution/conv_k{k}s{s}_{P.name}.comp", shader(
                    body, spec=spec, shape=SHAPE3_OUT,
                    bindings=[ro("bottom", P.s), wo("top", P.s),
                              ro("weight", P.s, "weight_data"), ro("bias", P.s, "bias_data")],
                    comment=f"convolution {k}x{k} stride {s} on a pre-padded input, one output element\nper invocation" +
                    ("; a 4x4 weight block per input and output channel group" if P.n == 4 else ""),
                    defines=defines)))

                # depthwise
                body = idx3("outw", "outh", "c") + sub("""
    $a sum = bias_term == 1 ? $ld(bias_data, gz) : $zero;

    int v_offset = gz * psc(cstep) + gy * STRIDE * psc(w) + gx * STRIDE;
    int w_offset = gz * KERNEL * KERNEL;

    for (int y = 0; y < KERNEL; y++)
    {
        for (int x = 0; x < KERNEL; x++)
        {
            sum += $ld(bottom_blob_data, v_offset + x) * $ld(weight_data, w_offset + x);
        }

        v_offset += psc(w);
        w_offset += KERNEL;
    }
$act
    $st(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, sum);
""", a=P.a, ld=P.ld, st=P.st, zero=P.zero, act=act)
                files.append((f"convolution/convdw_k{k}s{s}_{P.name}.comp", shader(
                    body, spec=spec, shape=("w", "h", "c", "cstep", "outw", "outh", "outcstep"),
                    bindings=[ro("bottom", P.s), wo("top", P.s),
                              ro("weight", P.s, "weight_data"), ro("bias", P.s, "bias_data")],
                    comment=f"depthwise convolution {k}x{k} stride {s}, one channel{' group' if P.n == 4 else ''} per z",
                    defines=defines)))
    return files


# ---------------------------------------------------------------------------
# GEMM tiles and inner products


def gemm_text(P, tile, trans_b, vendor=False):
    """C = alpha * A x B (+ beta * C), TILE x TILE tiles of A and B in shared
    memory. pack4: A and C hold four rows per element, B stays pack1."""
    if vendor:
        defines = """#if ncnn_vendorID == 0x10de
#define TILE 16
#elif ncnn_vendorID == 0x1002 || ncnn_vendorID == 0x8086
#define TILE 8
#else
#define TILE 4
#endif"""
    else:
        defines = f"#define TILE {tile}"
    b_index = "gx * psc(K) + bk" if trans_b else "bk * psc(N) + gx"
    body = sub("""    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int lx = int(gl_LocalInvocationID.x);
    int ly = int(gl_LocalInvocationID.y);

    $a sum = $zero;

    for (int k0 = 0; k0 < psc(K); k0 += TILE)
    {
        int ak = k0 + lx;
        if (gy < psc(M) && ak < psc(K))
            tmp_a[ly][lx] = $sm(A_data, gy * psc(K) + ak);
        else
            tmp_a[ly][lx] = $a2l($zero);

        int bk = k0 + ly;
        if (gx < psc(N) && bk < psc(K))
            tmp_b[ly][lx] = buffer_sm1(B_data, $b_index);
        else
            tmp_b[ly][lx] = afp2lfp(afp(0.f));

        barrier();

        for (int k = 0; k < TILE; k++)
        {
            sum += $l2a(tmp_a[ly][k]) * lfp2afp(tmp_b[k][lx]);
        }

        barrier();
    }

    if (gx >= psc(N) || gy >= psc(M))
        return;

    const int gi = gy * psc(N) + gx;

    $a res = sum * afp(alpha);
    if (beta != 0.f)
        res += $ld(C_data, gi) * afp(beta);

    $st(top_blob_data, gi, res);
""", a=P.a, zero=P.zero, sm=P.sm, a2l=P.a2l, l2a=P.l2a, ld=P.ld, st=P.st, b_index=b_index)
    what = "rows of A and C packed by four, " if P.n == 4 else ""
    return shader(
        body,
        spec=(("float", "alpha", "1.f"), ("float", "beta", "0.f")),
        shape=("M", "N", "K"),
        local="layout (local_size_x = TILE, local_size_y = TILE, local_size_z = 1) in;",
        bindings=[ro("A", P.s, "A_data"), ro("B", "sfp", "B_data"), ro("C", P.s, "C_data"), wo("top", P.s)],
        comment=f"GEMM, {what}B {'N x K (transposed)' if trans_b else 'K x N'}; TILE x TILE tiles in shared memory",
        defines=defines,
        globals_=f"shared {P.l} tmp_a[TILE][TILE];\nshared lfp tmp_b[TILE][TILE];")


def gemm():
    files = []
    for tile in (4, 8, 16):
        for P in PACKS:
            for trans_b in (False, True):
                files.append((f"gemm/gemm_tile{tile}_{P.name}_{'nt' if trans_b else 'nn'}.comp",
                              gemm_text(P, tile, trans_b)))
    for P in PACKS:
        for partials in (16, 64):
            if P.n == 4:
                mac = """afpvec4 v = buffer_ld4(bottom_blob_data, i);
            int w_offset = (gy * psc(w) + i) * 4;
            afpmat4 k = afpmat4(
                buffer_ld4(weight_data, w_offset + 0),
                buffer_ld4(weight_data, w_offset + 1),
                buffer_ld4(weight_data, w_offset + 2),
                buffer_ld4(weight_data, w_offset + 3)
            );
            sum += v * k;"""
            else:
                mac = "sum += buffer_ld1(bottom_blob_data, i) * buffer_ld1(weight_data, gy * psc(w) + i);"
            body = sub("""    int lx = int(gl_LocalInvocationID.x);
    int gy = int(gl_WorkGroupID.y);

    $a sum = $zero;

    if (gy < psc(outw))
    {
        for (int i = lx; i < psc(w); i += PARTIALS)
        {
            $mac
        }
    }

    partial[lx] = $a2l(sum);

    barrier();

    if (lx == 0 && gy < psc(outw))
    {
        $a res = bias_term == 1 ? $ld(bias_data, gy) : $zero;
        for (int i = 0; i < PARTIALS; i++)
        {
            res += $l2a(partial[i]);
        }
        if (activation_type == 1)
            res = max(res, afp(0.f));
        $st(top_blob_data, gy, res);
    }
""", a=P.a, zero=P.zero, a2l=P.a2l, l2a=P.l2a, ld=P.ld, st=P.st, mac=mac)
            files.append((f"gemm/innerproduct_gemv{partials}_{P.name}.comp", shader(
                body, spec=(("int", "bias_term", "0"), ("int", "activation_type", "0")),
                shape=("w", "outw"),
                bindings=[ro("bottom", P.s), wo("top", P.s),
                          ro("weight", P.s, "weight_data"), ro("bias", P.s, "bias_data")],
                comment="PARTIALS invocations share one output: strided partial sums, then one\ninvocation adds them",
                defines=f"#define PARTIALS {partials}",
                globals_=f"shared {P.l} partial[PARTIALS];")))
    return files


# ---------------------------------------------------------------------------
# pooling


def pooling():
    files = []
    for kind in ("max", "avg"):
        for k in (2, 3):
            for P in PACKS:
                init = P.const("-65504.f") if kind == "max" else P.zero
                acc = "res = max(res, v);" if kind == "max" else "res += v;"
                fin = "" if kind == "max" else "\n    res = res / afp(KERNEL * KERNEL);\n"
                body = idx3("outw", "outh", "c") + sub("""
    int v_offset = gz * psc(cstep) + gy * STRIDE * psc(w) + gx * STRIDE;

    $a res = $init;

    for (int y = 0; y < KERNEL; y++)
    {
        for (int x = 0; x < KERNEL; x++)
        {
            $a v = $ld(bottom_blob_data, v_offset + x);
            $acc
        }

        v_offset += psc(w);
    }
$fin
    $st(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, res);
""", a=P.a, ld=P.ld, st=P.st, init=init, acc=acc, fin=fin)
                files.append((f"pooling/pooling_{kind}_{k}x{k}_{P.name}.comp", shader(
                    body, shape=("w", "h", "c", "cstep", "outw", "outh", "outcstep"),
                    bindings=[ro("bottom", P.s), wo("top", P.s)],
                    comment=f"{kind} pooling {k}x{k} stride 2 on a pre-padded input",
                    defines=f"#define KERNEL {k}\n#define STRIDE 2")))

        for P in PACKS:
            op = REDUCE[2] if kind == "max" else REDUCE[1]
            parts = reduce_parts(P, op)
            body = sub("""    int lx = int(gl_LocalInvocationID.x);
    int gz = int(gl_WorkGroupID.z);

    if (gz >= psc(c))
        return;

    const int size = psc(w) * psc(h);

    afp$vec s = $init;
    for (int i = lx; i < size; i += LOCAL_SIZE)
    {
        $a v = $ld(bottom_blob_data, gz * psc(cstep) + i);
        s = $comb_sv;
    }
    tmp[lx] = $a2l(s);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
            tmp[lx] = $a2l($comb_tree);
        barrier();
    }

    if (lx == 0)
    {
        $a res = $l2a(tmp[0]);$gmean
        $st(top_blob_data, gz, res);
    }
""", gmean="\n        res = res / afp(size);" if kind == "avg" else "", **parts)
            files.append((f"pooling/pooling_global_{kind}_{P.name}.comp", shader(
                body, shape=SHAPE3,
                bindings=[ro("bottom", P.s), wo("top", P.s)],
                comment=f"global {kind} pooling, one workgroup per channel{' group' if P.n == 4 else ''}",
                defines="#define LOCAL_SIZE 64",
                globals_=f"shared {P.l} tmp[LOCAL_SIZE];")))
    return files


# ---------------------------------------------------------------------------
# normalization and per-channel layers


def norm():
    files = []
    for P in PACKS:
        v = "vec4" if P.n == 4 else ""
        f = P.f
        # softmax over w, one invocation per row
        body = sub("""    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);

    if (gx >= psc(h) || gy >= psc(c))
        return;

    const int row = gy * psc(cstep) + gx * psc(w);

    $a m = $a(-65504.f);
    for (int i = 0; i < psc(w); i++)
    {
        m = max(m, $ld(bottom_top_blob_data, row + i));
    }

    $a s = $zero;
    for (int i = 0; i < psc(w); i++)
    {
        $a v = exp($ld(bottom_top_blob_data, row + i) - m);
        $st(bottom_top_blob_data, row + i, v);
        s += v;
    }

    for (int i = 0; i < psc(w); i++)
    {
        $a v = $ld(bottom_top_blob_data, row + i) / s;
        $st(bottom_top_blob_data, row + i, v);
    }
""", a=P.a, ld=P.ld, st=P.st, zero=P.zero)
        files.append((f"norm/softmax_{P.name}.comp", shader(
            body, shape=SHAPE3, bindings=[rw("bottom_top", P.s)],
            comment="softmax along w, one invocation per row")))

        # layernorm over w
        body = sub("""    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);

    if (gx >= psc(h) || gy >= psc(c))
        return;

    const int row = gy * psc(cstep) + gx * psc(w);

    $f sum = $f(0.f);
    for (int i = 0; i < psc(w); i++)
    {
        sum += $f($ld(bottom_top_blob_data, row + i));
    }
    const $f mean = sum / float(psc(w));

    $f sqsum = $f(0.f);
    for (int i = 0; i < psc(w); i++)
    {
        $f d = $f($ld(bottom_top_blob_data, row + i)) - mean;
        sqsum += d * d;
    }
    const $f var = sqsum / float(psc(w));

    const $a a = $a(inversesqrt(var + eps));
    const $a b = $a(-mean) * a;

    for (int i = 0; i < psc(w); i++)
    {
        $a v = $ld(bottom_top_blob_data, row + i) * a + b;
        if (affine == 1)
            v = v * $ld(gamma_data, i) + $ld(beta_data, i);
        $st(bottom_top_blob_data, row + i, v);
    }
""", a=P.a, f=f, ld=P.ld, st=P.st)
        files.append((f"norm/layernorm_{P.name}.comp", shader(
            body, spec=(("float", "eps", "0.00001f"), ("int", "affine", "0")), shape=SHAPE3,
            bindings=[rw("bottom_top", P.s), ro("gamma", P.s, "gamma_data"), ro("beta", P.s, "beta_data")],
            comment="layer normalization along w, statistics in fp32, one invocation per row")))

        elem = idx3() + "\n    const int gi = gz * psc(cstep) + gy * psc(w) + gx;\n\n"

        # batchnorm: v * a + b per channel
        body = elem + sub("""    $a v = $ld(bottom_top_blob_data, gi);

    v = $ld(b_data, gz) + v * $ld(a_data, gz);

    $st(bottom_top_blob_data, gi, v);
""", a=P.a, ld=P.ld, st=P.st)
        files.append((f"norm/batchnorm_{P.name}.comp", shader(
            body, shape=SHAPE3,
            bindings=[rw("bottom_top", P.s), ro("a", P.s, "a_data"), ro("b", P.s, "b_data")],
            comment="batch normalization folded into a per-channel a and b")))

        # instancenorm: mean and variance per channel in shared memory
        body = sub("""    int lx = int(gl_LocalInvocationID.x);
    int gz = int(gl_WorkGroupID.z);

    if (gz >= psc(c))
        return;

    const int size = psc(w) * psc(h);
    const int offset = gz * psc(cstep);

    $a s = $zero;
    $a s2 = $zero;
    for (int i = lx; i < size; i += LOCAL_SIZE)
    {
        $a v = $ld(bottom_top_blob_data, offset + i);
        s += v;
        s2 += v * v;
    }
    tmp_sum[lx] = $a2l(s);
    tmp_sqsum[lx] = $a2l(s2);

    barrier();

    for (int k = LOCAL_SIZE / 2; k > 0; k >>= 1)
    {
        if (lx < k)
        {
            tmp_sum[lx] = $a2l($l2a(tmp_sum[lx]) + $l2a(tmp_sum[lx + k]));
            tmp_sqsum[lx] = $a2l($l2a(tmp_sqsum[lx]) + $l2a(tmp_sqsum[lx + k]));
        }
        barrier();
    }

    const $a mean = $l2a(tmp_sum[0]) / afp(size);
    const $a var = max($l2a(tmp_sqsum[0]) / afp(size) - mean * mean, afp(0.f));

    $a a = inversesqrt(var + afp(eps));
    $a b = -mean * a;
    if (affine == 1)
    {
        a = a * $ld(gamma_data, gz);
        b = b * $ld(gamma_data, gz) + $ld(beta_data, gz);
    }

    for (int i = lx; i < size; i += LOCAL_SIZE)
    {
        $a v = $ld(bottom_top_blob_data, offset + i);
        $st(bottom_top_blob_data, offset + i, v * a + b);
    }
""", a=P.a, zero=P.zero, ld=P.ld, st=P.st, a2l=P.a2l, l2a=P.l2a)
        files.append((f"norm/instancenorm_{P.name}.comp", shader(
            body, spec=(("float", "eps", "0.00001f"), ("int", "affine", "0")), shape=SHAPE3,
            bindings=[rw("bottom_top", P.s), ro("gamma", P.s, "gamma_data"), ro("beta", P.s, "beta_data")],
            comment="instance normalization, one workgroup per channel: both sums in shared memory",
            defines="#define LOCAL_SIZE 64",
            globals_=f"shared {P.l} tmp_sum[LOCAL_SIZE];\nshared {P.l} tmp_sqsum[LOCAL_SIZE];")))

        # prelu
        body = elem + sub("""    $a v = $ld(bottom_top_blob_data, gi);

    const $a slope = num_slope == 1 ? $a(slope_value) : $ld(slope_data, gz);

    v = $sel;

    $st(bottom_top_blob_data, gi, v);
""", a=P.a, ld=P.ld, st=P.st, sel=P.lt0("v * slope", "v"))
        files.append((f"norm/prelu_{P.name}.comp", shader(
            body, spec=(("int", "num_slope", "0"), ("float", "slope_value", "0.25f")), shape=SHAPE3,
            bindings=[rw("bottom_top", P.s), ro("slope", P.s, "slope_data")],
            comment="parametric relu, one slope per channel or one for all")))

        # scale
        body = elem + sub("""    $a v = $ld(bottom_top_blob_data, gi);

    v = v * $ld(scale_data, gz);
    if (bias_term == 1)
        v = v + $ld(bias_data, gz);

    $st(bottom_top_blob_data, gi, v);
""", a=P.a, ld=P.ld, st=P.st)
        files.append((f"norm/scale_{P.name}.comp", shader(
            body, spec=(("int", "bias_term", "0"),), shape=SHAPE3,
            bindings=[rw("bottom_top", P.s), ro("scale", P.s, "scale_data"), ro("bias", P.s, "bias_data")],
            comment="per-channel scale with an optional bias")))

        # bias
        body = elem + sub("""    $a v = $ld(bottom_blob_data, gi) + $ld(bias_data, gz);

    $st(top_blob_data, gi, v);
""", a=P.a, ld=P.ld, st=P.st)
        files.append((f"norm/bias_{P.name}.comp", shader(
            body, shape=SHAPE3,
            bindings=[ro("bottom", P.s), wo("top", P.s), ro("bias", P.s, "bias_data")],
            comment="per-channel bias")))
    return files


# ---------------------------------------------------------------------------
# memory layout operators


def layout_ops():
    files = []
    out3 = ("w", "h", "c", "cstep", "outw", "outh", "outcstep")
    for P in PACKS:
        # padding, one file per mode
        for mode in ("constant", "replicate", "reflect"):
            if mode == "constant":
                code = sub("""    if (x >= 0 && x < psc(w) && y >= 0 && y < psc(h))
    {
        $cp(top_blob_data, gi, bottom_blob_data, gz * psc(cstep) + y * psc(w) + x);
    }
    else
    {
        $st(top_blob_data, gi, $a(p.value));
    }
""", cp=P.cp, st=P.st, a=P.a)
            elif mode == "replicate":
                code = sub("""    x = clamp(x, 0, psc(w) - 1);
    y = clamp(y, 0, psc(h) - 1);

    $cp(top_blob_data, gi, bottom_blob_data, gz * psc(cstep) + y * psc(w) + x);
""", cp=P.cp)
            else:
                code = sub("""    x = abs(x);
    y = abs(y);
    x = (psc(w) - 1) - abs(x - (psc(w) - 1));
    y = (psc(h) - 1) - abs(y - (psc(h) - 1));

    $cp(top_blob_data, gi, bottom_blob_data, gz * psc(cstep) + y * psc(w) + x);
""", cp=P.cp)
            body = idx3("outw", "outh", "c") + """
    int x = gx - p.left;
    int y = gy - p.top;

    const int gi = gz * psc(outcstep) + gy * psc(outw) + gx;

""" + code
            extra = (("int", "left"), ("int", "top")) + ((("float", "value"),) if mode == "constant" else ())
            files.append((f"layout/padding_{mode}_{P.name}.comp", shader(
                body, shape=out3, push_extra=extra,
                bindings=[ro("bottom", P.s), wo("top", P.s)],
                comment=f"{mode} padding of w and h")))

        # crop
        body = idx3("outw", "outh", "outc") + sub("""
    int v_offset = (gz + p.coffset) * psc(cstep) + (gy + p.hoffset) * psc(w) + gx + p.woffset;

    $cp(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, bottom_blob_data, v_offset);
""", cp=P.cp)
        files.append((f"layout/crop_{P.name}.comp", shader(
            body, shape=SHAPE3_OUT, push_extra=(("int", "woffset"), ("int", "hoffset"), ("int", "coffset")),
            bindings=[ro("bottom", P.s), wo("top", P.s)],
            comment="crop a window of the input")))

        # concat and slice along each axis
        for axis in ("w", "h", "c"):
            ox = "gx + p.offset" if axis == "w" else "gx"
            oy = "(gy + p.offset)" if axis == "h" else "gy"
            oz = "(gz + p.offset)" if axis == "c" else "gz"
            body = idx3() + sub("""
    const int gi = gz * psc(cstep) + gy * psc(w) + gx;
    const int outgi = $oz * psc(outcstep) + $oy * psc(outw) + $ox;

    $cp(top_blob_data, outgi, bottom_blob_data, gi);
""", cp=P.cp, ox=ox, oy=oy, oz=oz)
            files.append((f"layout/concat_{axis}_{P.name}.comp", shader(
                body, shape=("w", "h", "c", "cstep", "outw", "outcstep"), push_extra=(("int", "offset"),),
                bindings=[ro("bottom", P.s), wo("top", P.s)],
                comment=f"concat along {axis}: one input copied into the output at an offset")))

            body = idx3("outw", "outh", "outc") + sub("""
    const int gi = $oz * psc(cstep) + $oy * psc(w) + $ox;
    const int outgi = gz * psc(outcstep) + gy * psc(outw) + gx;

    $cp(top_blob_data, outgi, bottom_blob_data, gi);
""", cp=P.cp, ox=ox, oy=oy, oz=oz)
            files.append((f"layout/slice_{axis}_{P.name}.comp", shader(
                body, shape=("w", "cstep", "outw", "outh", "outc", "outcstep"), push_extra=(("int", "offset"),),
                bindings=[ro("bottom", P.s), wo("top", P.s)],
                comment=f"slice along {axis}: one output copied from the input at an offset")))

        # flip along each axis
        for axis in ("w", "h", "c"):
            sx = "psc(w) - 1 - gx" if axis == "w" else "gx"
            sy = "(psc(h) - 1 - gy)" if axis == "h" else "gy"
            sz = "(psc(c) - 1 - gz)" if axis == "c" else "gz"
            if axis == "c" and P.n == 4:
                # channel groups reverse, and the four lanes within each
                code = """    afpvec4 v = buffer_ld4(bottom_blob_data, (psc(c) - 1 - gz) * psc(cstep) + gy * psc(w) + gx);

    buffer_st4(top_blob_data, gi, v.wzyx);
"""
            else:
                code = sub("    $cp(top_blob_data, gi, bottom_blob_data, $sz * psc(cstep) + $sy * psc(w) + $sx);\n",
                           cp=P.cp, sx=sx, sy=sy, sz=sz)
            body = idx3() + "\n    const int gi = gz * psc(cstep) + gy * psc(w) + gx;\n\n" + code
            files.append((f"layout/flip_{axis}_{P.name}.comp", shader(
                body, shape=SHAPE3, bindings=[ro("bottom", P.s), wo("top", P.s)],
                comment=f"reverse the order along {axis}")))

        # permute
        if P.n == 1:
            sel = """    // order_type 0 = w-h-c, 1 = h-w-c, 2 = w-c-h, 3 = c-w-h, 4 = h-c-w, 5 = c-h-w
    int x = gx;
    int y = gy;
    int z = gz;
    if (order_type == 1) { x = gy; y = gx; z = gz; }
    if (order_type == 2) { x = gx; y = gz; z = gy; }
    if (order_type == 3) { x = gy; y = gz; z = gx; }
    if (order_type == 4) { x = gz; y = gx; z = gy; }
    if (order_type == 5) { x = gz; y = gy; z = gx; }
"""
        else:
            sel = """    // the channel groups stay in place: order_type 0 = w-h, 1 = h-w
    int x = order_type == 1 ? gy : gx;
    int y = order_type == 1 ? gx : gy;
    int z = gz;
"""
        body = idx3("outw", "outh", "outc") + "\n" + sel + sub("""
    const int gi = gz * psc(outcstep) + gy * psc(outw) + gx;

    $cp(top_blob_data, gi, bottom_blob_data, z * psc(cstep) + y * psc(w) + x);
""", cp=P.cp)
        files.append((f"layout/permute_{P.name}.comp", shader(
            body, spec=(("int", "order_type", "0"),), shape=SHAPE3_OUT,
            bindings=[ro("bottom", P.s), wo("top", P.s)],
            comment="permute the axes")))

        # reshape: 3-D to flat
        body = idx3() + sub("""
    const int gi = gz * psc(cstep) + gy * psc(w) + gx;
    const int outgi = (gz * psc(h) + gy) * psc(w) + gx;

    $cp(top_blob_data, outgi, bottom_blob_data, gi);
""", cp=P.cp)
        files.append((f"layout/reshape_flatten_{P.name}.comp", shader(
            body, shape=SHAPE3, bindings=[ro("bottom", P.s), wo("top", P.s)],
            comment="reshape to one dimension, dropping the channel padding")))

        # interp
        body = idx3("outw", "outh", "c") + sub("""
    int sx = min(int(floor(float(gx) * p.scale_x)), psc(w) - 1);
    int sy = min(int(floor(float(gy) * p.scale_y)), psc(h) - 1);

    const int gi = gz * psc(outcstep) + gy * psc(outw) + gx;

    $cp(top_blob_data, gi, bottom_blob_data, gz * psc(cstep) + sy * psc(w) + sx);
""", cp=P.cp)
        files.append((f"layout/interp_nearest_{P.name}.comp", shader(
            body, shape=out3, push_extra=(("float", "scale_x"), ("float", "scale_y")),
            bindings=[ro("bottom", P.s), wo("top", P.s)],
            comment="nearest neighbour resize")))

        body = idx3("outw", "outh", "c") + sub("""
    float fx = max((float(gx) + 0.5f) * p.scale_x - 0.5f, 0.f);
    float fy = max((float(gy) + 0.5f) * p.scale_y - 0.5f, 0.f);
    int x0 = min(int(floor(fx)), psc(w) - 1);
    int y0 = min(int(floor(fy)), psc(h) - 1);
    int x1 = min(x0 + 1, psc(w) - 1);
    int y1 = min(y0 + 1, psc(h) - 1);
    afp ax = afp(fx - float(x0));
    afp ay = afp(fy - float(y0));

    const int row0 = gz * psc(cstep) + y0 * psc(w);
    const int row1 = gz * psc(cstep) + y1 * psc(w);

    $a a0 = $ld(bottom_blob_data, row0 + x0);
    $a a1 = $ld(bottom_blob_data, row0 + x1);
    $a b0 = $ld(bottom_blob_data, row1 + x0);
    $a b1 = $ld(bottom_blob_data, row1 + x1);

    $a a = mix(a0, a1, ax);
    $a b = mix(b0, b1, ax);
    $a v = mix(a, b, ay);

    $st(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, v);
""", a=P.a, ld=P.ld, st=P.st)
        files.append((f"layout/interp_bilinear_{P.name}.comp", shader(
            body, shape=out3, push_extra=(("float", "scale_x"), ("float", "scale_y")),
            bindings=[ro("bottom", P.s), wo("top", P.s)],
            comment="bilinear resize, half-pixel centres")))
    return files


# ---------------------------------------------------------------------------
# int8


def int8():
    files = []
    elem = idx3() + "\n    const int gi = gz * psc(cstep) + gy * psc(w) + gx;\n\n"
    for P in PACKS:
        v4 = P.n == 4
        i8 = "sint8vec4" if v4 else "sint8"
        i8ld = "i8buffer_ld4" if v4 else "i8buffer_ld1"
        i8st = "i8buffer_st4" if v4 else "i8buffer_st1"
        f = P.f
        fc = "vec4" if v4 else ""  # a float constructor, empty for a scalar
        q = "float2int8vec4" if v4 else "float2int8"
        it = "ivec4" if v4 else "int"
        scale_ld = "buffer_ld4" if v4 else "buffer_ld1"

        body = elem + sub("""    $f scale = scale_data_size == 1 ? $sv : $f($sld(scale_data, gz));

    $f v = $f($ld(bottom_blob_data, gi)) * scale;

    $i8st(top_blob_data, gi, $q(v));
""", f=f, sv=fc + "(scale_value)" if v4 else "scale_value", bv=fc + "(bias_value)" if v4 else "bias_value", sld=scale_ld, ld=P.ld, i8st=i8st, q=q)
        files.append((f"int8/quantize_{P.name}.comp", shader(
            body, spec=(("int", "scale_data_size", "1"), ("float", "scale_value", "1.f")), shape=SHAPE3,
            bindings=[ro("bottom", P.s), wo("top", i8), ro("scale", P.s, "scale_data")],
            comment="quantize to int8: round half away from zero, clamp to [-127, 127]")))

        body = elem + sub("""    $f v = $f($i8ld(bottom_blob_data, gi));

    $f scale = scale_data_size == 1 ? $sv : $f($sld(scale_data, gz));
    $f bias = bias_data_size == 0 ? $f(0.f) : bias_data_size == 1 ? $bv : $f($sld(bias_data, gz));

    $st(top_blob_data, gi, $a(v * scale + bias));
""", f=f, sv=fc + "(scale_value)" if v4 else "scale_value", bv=fc + "(bias_value)" if v4 else "bias_value", i8ld=i8ld, sld=scale_ld, st=P.st, a=P.a)
        files.append((f"int8/dequantize_{P.name}.comp", shader(
            body, spec=(("int", "scale_data_size", "1"), ("float", "scale_value", "1.f"),
                        ("int", "bias_data_size", "0"), ("float", "bias_value", "0.f")), shape=SHAPE3,
            bindings=[ro("bottom", i8), wo("top", P.s), ro("scale", P.s, "scale_data"), ro("bias", P.s, "bias_data")],
            comment="dequantize int8 to the storage type")))

        body = elem + sub("""    $f v = $f(bottom_blob_data[gi]) * scale_in;

    if (bias_term == 1)
        v += $f($sld(bias_data, gz));

    if (activation_type == 1)
        v = max(v, $f(0.f));

    $i8st(top_blob_data, gi, $q(v * scale_out));
""", f=f, sld=scale_ld, i8st=i8st, q=q)
        files.append((f"int8/requantize_{P.name}.comp", shader(
            body, spec=(("float", "scale_in", "1.f"), ("float", "scale_out", "1.f"),
                        ("int", "bias_term", "0"), ("int", "activation_type", "0")), shape=SHAPE3,
            bindings=[ro("bottom", it), wo("top", i8), ro("bias", P.s, "bias_data")],
            comment="requantize int32 accumulators to int8, with an optional bias and relu")))

    body = idx3("outw", "outh", "c") + """
    int v_offset = gz * psc(cstep) + gy * 2 * psc(w) + gx * 2;

    ivec4 r = max(i8buffer_ld4(bottom_blob_data, v_offset), i8buffer_ld4(bottom_blob_data, v_offset + 1));
    r = max(r, i8buffer_ld4(bottom_blob_data, v_offset + psc(w)));
    r = max(r, i8buffer_ld4(bottom_blob_data, v_offset + psc(w) + 1));

    i8buffer_st4(top_blob_data, gz * psc(outcstep) + gy * psc(outw) + gx, r);
"""
    files.append(("int8/pooling_max_2x2_int8_pack4.comp", shader(
        body, shape=("w", "h", "c", "cstep", "outw", "outh", "outcstep"),
        bindings=[ro("bottom", "sint8vec4"), wo("top", "sint8vec4")],
        comment="2x2 stride 2 max pooling of int8 lanes")))

    body = """    int gx = int(gl_GlobalInvocationID.x);

    if (gx >= psc(outw))
        return;

    ivec4 sum = ivec4(0);

    for (int i = 0; i < psc(w); i++)
    {
        ivec4 v = i8buffer_ld4(bottom_blob_data, i);
        for (int j = 0; j < 4; j++)
        {
            ivec4 k = i8buffer_ld4(weight_data, (gx * 4 + j) * psc(w) + i);
            ivec4 m = v * k;
            sum[j] += m.x + m.y + m.z + m.w;
        }
    }

    vec4 res = vec4(sum) * scale_in * vec4(buffer_ld4(scale_weight_data, gx));

    buffer_st4(top_blob_data, gx, afpvec4(res));
"""
    files.append(("int8/innerproduct_int8_pack4.comp", shader(
        body, spec=(("float", "scale_in", "1.f"),), shape=("w", "outw"),
        bindings=[ro("bottom", "sint8vec4"), wo("top", "sfpvec4"),
                  ro("weight", "sint8vec4", "weight_data"), ro("scale_weight", "sfpvec4", "scale_weight_data")],
        comment="int8 GEMV: four int8 inputs per word, four outputs per invocation,\ndequantized to pack4")))
    return files


# ---------------------------------------------------------------------------

FAMILIES = [
    ("unary", unary),
    ("binary", binary),
    ("reduction", reductions),
    ("subgroup", subgroup),
    ("packing", packing),
    ("convolution", conv),
    ("gemm", gemm),
    ("pooling", pooling),
    ("norm", norm),
    ("layout", layout_ops),
    ("int8", int8),
]


def main():
    files = []
    for _, fn in FAMILIES:
        files += fn()
    names = [n for n, _ in files]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"duplicate shader names: {sorted(dup)}")

    # remove what an earlier run wrote
    if os.path.isdir(OUT):
        for dirpath, dirnames, filenames in os.walk(OUT, topdown=False):
            for fname in filenames:
                if fname.endswith(".comp"):
                    os.remove(os.path.join(dirpath, fname))
            if not os.listdir(dirpath) and dirpath != OUT:
                os.rmdir(dirpath)

    for rel, text in files:
        path = os.path.join(OUT, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", newline="\n") as f:
            f.write(text)

    counts = {}
    for rel, _ in files:
        fam = rel.split("/")[0]
        counts[fam] = counts.get(fam, 0) + 1
    for fam, _ in FAMILIES:
        print(f"{fam:12} {counts.get(fam, 0)}")
    print(f"{'total':12} {len(files)}")


if __name__ == "__main__":
    main()
