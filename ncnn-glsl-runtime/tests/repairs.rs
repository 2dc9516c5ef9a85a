//! Each repair of naga's GLSL frontend (ncnn-glsl-core/src/compile/) on a
//! shader that needs it: compiled by us and by glslang from the same finished
//! GLSL, run on lavapipe with the same random inputs, outputs compared.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::differential::{finished, run, run_against, Case, Cmp, Fill, Io};

/// Memory barriers: a workgroup transposes through `shared` memory and
/// writes to a buffer that a second phase reads back.
#[test]
fn memory_barrier_functions() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { uint a[]; };
layout(binding = 1) buffer B { uint b[]; };
layout(binding = 2) writeonly buffer C { uint c[]; };
shared uint tmp[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint g = gl_GlobalInvocationID.x;
    tmp[l] = a[g] * 3u + l;
    memoryBarrierShared();
    barrier();
    b[g] = tmp[63u - l] ^ tmp[(l + 5u) % 64u];
    memoryBarrierBuffer();
    groupMemoryBarrier();
    memoryBarrier();
    barrier();
    uint base = gl_WorkGroupID.x * 64u;
    c[g] = b[base + (l + 1u) % 64u] + tmp[l];
}
";
    let mut case = Case::new(
        "memory barriers",
        src,
        "fp32",
        vec![
            Io::In(4 * 256, Fill::Words),
            Io::Out(4 * 256, Cmp::Exact),
            Io::Out(4 * 256, Cmp::Exact),
        ],
    );
    case.groups = [4, 1, 1];
    run(&case);
}

/// 2-D arrays: `shared uvec2 tmp[4][16]` (naga alone got 2,304 of 4,096
/// words wrong) and a local 2-D array, indexed both ways.
#[test]
fn two_dimensional_arrays() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { uvec2 a[]; };
layout(binding = 1) writeonly buffer B { uvec2 b[]; };
shared uvec2 tmp[4][16];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint g = gl_GlobalInvocationID.x;
    tmp[l / 16u][l % 16u] = a[g];
    uint loc[3][5];
    for (int i = 0; i < 3; i++) for (int j = 0; j < 5; j++) loc[i][j] = uint(i * 7 + j) * a[g].y;
    barrier();
    uvec2 v = tmp[l % 4u][l / 4u] + tmp[3u - l / 16u][15u - l % 16u];
    b[g] = v + uvec2(loc[l % 3u][l % 5u], loc[2][4]);
}
";
    let mut case = Case::new(
        "2-D arrays",
        src,
        "fp32",
        vec![
            Io::In(8 * 64 * 64, Fill::Words),
            Io::Out(8 * 64 * 64, Cmp::Exact),
        ],
    );
    case.groups = [64, 1, 1];
    run(&case);
}

/// Three and four dimensions, and dimensions on both the type and the name
/// (`shared float[4] t2[2][8]`, which naga once read as 8 of 2 of 4): in
/// `shared` memory, locals and a buffer block, indexed with dynamic
/// indices every way.
#[test]
fn multi_dimensional_arrays() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { uvec2 a[]; };
layout(binding = 1) writeonly buffer B { uint b[]; };
layout(binding = 2) readonly buffer C { uint m[2][3][4]; uint[5][2] q; };
shared uint t3[4][4][4];
shared float[4] t2[2][8];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint g = gl_GlobalInvocationID.x;
    t3[l / 16u][(l / 4u) % 4u][l % 4u] = a[g].x;
    t2[l / 32u][(l / 4u) % 8u][l % 4u] = float(a[g].y & 0xffffu);
    uint loc[2][3][5];
    uint[2][3] typed;
    uint four[2][2][2][3];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            typed[i][j] = uint(i * 3 + j) + a[g].y;
            for (int k = 0; k < 5; k++) loc[i][j][k] = uint(i * 100 + j * 10 + k) * a[g].y;
            for (int k = 0; k < 2; k++) {
                four[k][i][1 - k][j] = uint(k * 1000 + i * 10 + j);
                four[k][i][k][j] = uint(k * 2000 + i * 20 + j);
            }
        }
    barrier();
    uint x = t3[l % 4u][(l / 4u) % 4u][l / 16u] ^ t3[3u - l / 16u][l % 4u][(l / 4u) % 4u];
    uint y = uint(t2[l % 2u][l % 8u][l / 16u]) + uint(t2[1u - l / 32u][7u - l % 8u][l % 4u]);
    uint z = loc[l % 2u][l % 3u][l % 5u] + typed[l % 2u][(l / 2u) % 3u] * 7u;
    uint w = four[l % 2u][(l / 2u) % 2u][(l / 4u) % 2u][l % 3u];
    b[g] = x + y * 3u + z * 5u + w * 11u + m[l % 2u][(l / 2u) % 3u][l % 4u] + q[l % 5u][l % 2u];
}
";
    let mut case = Case::new(
        "multi-dimensional arrays",
        src,
        "fp32",
        vec![
            Io::In(8 * 64 * 16, Fill::Words),
            Io::Out(4 * 64 * 16, Cmp::Exact),
            Io::In(4 * (24 + 10), Fill::Words),
        ],
    );
    case.groups = [16, 1, 1];
    run(&case);
}

/// A 3-D tile of local-memory values (`lfpvec4`, ncnn's GEMM tiles) in each
/// float mode with `local` on: stored, read back transposed, and stored.
#[test]
fn three_dimensional_local_memory_tiles() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { sfpvec4 a[]; };
layout(binding = 1) writeonly buffer B { sfpvec4 b[]; };
shared lfpvec4 tile[2][4][8];
void main() {
    int l = int(gl_LocalInvocationID.x);
    int g = int(gl_GlobalInvocationID.x);
    tile[l / 32][(l / 8) % 4][l % 8] = buffer_sm4(a, g);
    barrier();
    int k = 63 - l;
    buffer_st4(b, g, lfp2afpvec4(tile[k % 2][k / 16][(k / 2) % 8]));
}
";
    for mode in [
        "local",
        "fp16p+local",
        "fp16s+local [S16]",
        "fp16s+fp16a+local [S16]",
    ] {
        let mut case = Case::new(
            "3-D local-memory tile",
            src,
            mode,
            vec![
                Io::In(16 * 64 * 8, Fill::Words),
                Io::Out(16 * 64 * 8, Cmp::Exact),
            ],
        );
        case.groups = [8, 1, 1];
        run(&case);
    }
}

/// `gl_WorkGroupSize`, literal and with `local_size_*_id` under several
/// local sizes (the runtime specializes the ids and patches `LocalSize`).
#[test]
fn gl_workgroupsize() {
    let literal = "#version 450
layout(local_size_x = 16, local_size_y = 2) in;
layout(binding = 0) readonly buffer A { uint a[]; };
layout(binding = 1) writeonly buffer B { uint b[]; };
void main() {
    uvec3 s = gl_WorkGroupSize;
    uint i = gl_GlobalInvocationID.y * (s.x * gl_NumWorkGroups.x) + gl_GlobalInvocationID.x;
    b[i] = a[i] * s.x + s.y * 1000u + gl_WorkGroupSize.z * 7u;
}
";
    let io = || vec![Io::In(4 * 1024, Fill::Words), Io::Out(4 * 1024, Cmp::Exact)];
    let mut case = Case::new("gl_WorkGroupSize", literal, "fp32", io());
    case.groups = [4, 8, 1];
    run(&case);
    let ids = literal.replace(
        "layout(local_size_x = 16, local_size_y = 2) in;",
        "layout(local_size_x_id = 3, local_size_y_id = 4) in;",
    );
    for (size, groups) in [
        ([16, 2, 1], [4, 8, 1]),
        ([8, 4, 1], [8, 4, 1]),
        ([32, 1, 1], [2, 16, 1]),
    ] {
        let mut case = Case::new("gl_WorkGroupSize with local_size_*_id", &ids, "fp32", io());
        case.local_size = Some(size);
        case.groups = groups;
        run(&case);
    }
    let _ = SpecValue::Bool(true);
}

/// float16 builtins in fp16 arithmetic (afp = float16_t): every vector size
/// and the scalar-argument forms, against glslang within one f16 ulp; the
/// float builtins next to them must stay float.
#[test]
fn fp16_builtins() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { sfpvec4 a[]; };
layout(binding = 1) readonly buffer B { sfpvec4 b[]; };
layout(binding = 2) writeonly buffer C { sfpvec4 c[]; };
layout(binding = 3) writeonly buffer D { float d[]; };
void main() {
    int i = int(gl_GlobalInvocationID.x);
    afpvec4 x = buffer_ld4(a, i);
    afpvec4 y = buffer_ld4(a, i + 64);
    afpvec4 u = buffer_ld4(b, i);
    afp s = x.w;
    int o = i * 8;
    buffer_st4(c, o + 0, max(x, y) + min(x, s) + clamp(u, afp(-0.5), s) + clamp(x, y, y + afpvec4(1)));
    buffer_st4(c, o + 1, mix(x, y, u) + mix(x, y, s) + fma(x, y, u) + abs(u) + sign(u));
    buffer_st4(c, o + 2, exp(u) + log(x) + sqrt(x) + inversesqrt(x) + pow(x, y) + exp2(u) + log2(x));
    buffer_st4(c, o + 3, tanh(u) + sin(u) + cos(u) + tan(u) + asin(u) + acos(u) + atan(u) + atan(u, x));
    buffer_st4(c, o + 4, floor(y * afp(3)) + ceil(u * afp(3)) + fract(y * afp(3)) + trunc(u * afp(3)) + roundEven(y * afp(3)));
    buffer_st4(c, o + 5, step(u, x - afpvec4(1)) + step(afp(0), u) + smoothstep(afp(0.5), afp(1.5), x) + smoothstep(x, x + y, y + afpvec4(0.5)));
    f16vec3 v3 = normalize(x.xyz) + cross(x.xyz, y.xyz) + reflect(u.xyz, normalize(y.xyz));
    f16vec2 v2 = max(x.xy, y.zw) + clamp(u.xy, afp(0), afp(1));
    afp sc = dot(x, y) + length(u.xyz) + distance(x.xy, y.xy) + max(s, u.x) + clamp(u.y, afp(0), s) + exp(u.z) + tanh(u.w);
    buffer_st4(c, o + 6, afpvec4(v3, sc));
    buffer_st4(c, o + 7, afpvec4(v2, sinh(u.x) + cosh(u.y) + radians(u.z), degrees(u.w)));
    vec4 f = vec4(x);
    d[i] = max(f.x, f.y) + clamp(f.z, 0.25, 0.75) + exp(f.w) + dot(f, vec4(y));
}
";
    for mode in ["fp16s+fp16a", "fp16p+fp16a"] {
        let mut case = Case::new(
            "fp16 builtins",
            src,
            mode,
            vec![
                Io::In(8 * 128, Fill::F16(0.125, 2.0)),
                Io::In(8 * 64, Fill::F16(-0.9, 0.9)),
                Io::Out(8 * 64 * 8, Cmp::F16Ulps(1)),
                Io::Out(4 * 64, Cmp::F32Ulps(1)),
            ],
        );
        case.groups = [1, 1, 1];
        run(&case);
    }
}

/// The comparison itself: a difference beyond the tolerance fails.
#[test]
fn the_comparison_can_fail() {
    use ncnn_glsl_testkit::differential::compare;
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let one = 1.0f32;
    let next = f32::from_bits(one.to_bits() + 1);
    let next2 = f32::from_bits(one.to_bits() + 2);
    assert!(compare(Cmp::F32Ulps(1), &f(&[one]), &f(&[next])).is_ok());
    assert!(compare(Cmp::F32Ulps(1), &f(&[one]), &f(&[next2])).is_err());
    assert!(compare(Cmp::F32Ulps(1), &f(&[0.0]), &f(&[-0.0])).is_ok());
    assert!(compare(Cmp::F32Ulps(1), &f(&[f32::NAN]), &f(&[1.0])).is_err());
    assert!(compare(Cmp::Exact, &[1, 2, 3, 4], &[1, 2, 3, 5]).is_err());
    let h = |v: f32| half::f16::from_f32(v).to_le_bytes().to_vec();
    assert!(compare(Cmp::F16Ulps(1), &h(1.0), &h(1.001)).is_ok());
    assert!(compare(Cmp::F16Ulps(1), &h(1.0), &h(1.01)).is_err());
}

/// Specialization constants kept as `OpSpecConstant`: ncnn's `psc` (the
/// constant declared before a push-constant block with a member of the same
/// name), an id from a macro expression, int/float/bool, under several
/// specializations (0 selects the push constant).
#[test]
fn specialization_constants() {
    let src = "#version 450
#define ID_BASE 10
layout(local_size_x = 64) in;
layout(constant_id = ID_BASE + 0) const int w = 0;
layout(constant_id = ID_BASE * 2) const float scale = 1.5;
layout(constant_id = 3) const bool bias_term = false;
layout(constant_id = 4) const uint shift = 3u;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) writeonly buffer B { float b[]; };
layout(binding = 2) writeonly buffer C { int c[]; };
layout(push_constant) uniform parameter { int w; } p;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    const int n = psc(w);
    float v = a[i] * scale * float(n);
    if (bias_term) v += 0.25;
    b[i] = v;
    c[i] = (i * n) >> int(shift % 8u);
}
";
    let specs: Vec<Vec<(u32, SpecValue)>> = vec![
        vec![],
        vec![(10, SpecValue::Int(7))],
        vec![(10, SpecValue::Int(0)), (20, SpecValue::Float(-0.75))],
        vec![
            (10, SpecValue::Int(-3)),
            (3, SpecValue::Bool(true)),
            (4, SpecValue::Uint(1)),
        ],
    ];
    for spec in specs {
        let mut case = Case::new(
            "specialization constants",
            src,
            "fp32",
            vec![
                Io::In(4 * 256, Fill::F32(-4.0, 4.0)),
                Io::Out(4 * 256, Cmp::F32Ulps(1)),
                Io::Out(4 * 256, Cmp::Exact),
            ],
        );
        case.groups = [4, 1, 1];
        case.push_constants = 5i32.to_le_bytes().to_vec();
        case.specialization = spec;
        run(&case);
    }
}

/// The relational vector functions on float16 vectors and `mix` with a bool
/// vector (ncnn's leaky relu) in fp16 arithmetic, every vector size, against
/// glslang: comparisons exactly, the selects within one f16 ulp.
#[test]
fn fp16_relational_functions() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { sfpvec4 a[]; };
layout(binding = 1) writeonly buffer C { sfpvec4 c[]; };
layout(binding = 2) writeonly buffer D { uvec4 d[]; };
void main() {
    int i = int(gl_GlobalInvocationID.x);
    afpvec4 v = buffer_ld4(a, i);
    afpvec4 w = buffer_ld4(a, 63 - i);
    const afp slope = afp(0.125);
    buffer_st4(c, i * 2, mix(v, v * slope, lessThan(v, afpvec4(0.f))));
    buffer_st4(c, i * 2 + 1, afpvec4(mix(v.xyz, w.xyz, greaterThanEqual(v.xyz, w.zyx)), mix(v.w, w.w, v.w <= w.x)));
    d[i * 3] = uvec4(lessThan(v, w)) + uvec4(lessThanEqual(v, w)) * 2u
        + uvec4(greaterThan(v, w)) * 4u + uvec4(greaterThanEqual(v, w)) * 8u
        + uvec4(equal(v, w)) * 16u + uvec4(notEqual(v, w)) * 32u;
    // Equal values in some lanes, so equal/notEqual see both answers.
    afpvec4 r = afpvec4(v.xy, w.zw);
    d[i * 3 + 1] = uvec4(equal(r, w)) + uvec4(notEqual(r, w)) * 2u;
    d[i * 3 + 2] = uvec4(uvec2(lessThan(v.xy, w.xy)), uvec2(greaterThan(v.zw, w.zw))) * 3u
        + uvec4(uvec3(equal(v.xyz, r.xyz)), 0u);
}
";
    for mode in ["fp16s+fp16a", "fp16p+fp16a"] {
        let mut case = Case::new(
            "fp16 relational functions",
            src,
            mode,
            vec![
                Io::In(8 * 64, Fill::F16(-2.0, 2.0)),
                Io::Out(8 * 128, Cmp::F16Ulps(1)),
                Io::Out(16 * 192, Cmp::Exact),
            ],
        );
        case.groups = [1, 1, 1];
        run(&case);
    }
}

/// `ivec4 % int`, `int % ivec4` and `uvec3 % uint`, with non-negative
/// operands (GLSL leaves `%` of negative operands undefined, and there
/// naga's truncating remainder and glslang's `OpSMod` differ).
#[test]
fn vector_modulo_scalar() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { ivec4 a[]; };
layout(binding = 1) readonly buffer K { int k[]; };
layout(binding = 2) writeonly buffer O { ivec4 o[]; };
layout(binding = 3) writeonly buffer U { uvec4 u[]; };
void main() {
    int i = int(gl_GlobalInvocationID.x);
    ivec4 v = a[i];
    int s = k[i] + 1;
    o[i * 3] = v % s;
    o[i * 3 + 1] = (v.x + 7) % (ivec4(k[i], k[i + 1], k[i + 2], k[i + 3]) + 1);
    o[i * 3 + 2] = v % (s * 3) % 5 * s;
    u[i] = uvec4(uvec3(v.xyz) % uint(s), uint(v.w) % 7u);
}
";
    let case = Case::new(
        "vector % scalar",
        src,
        "fp32",
        vec![
            Io::In(16 * 64, Fill::Below(100_000)),
            Io::In(4 * 67, Fill::Below(40)),
            Io::Out(16 * 192, Cmp::Exact),
            Io::Out(16 * 64, Cmp::Exact),
        ],
    );
    run(&case);
}

/// A 2-D array in a `std430` push-constant block (the default layout is
/// refused: naga lays it out std140), indexed with constants and per
/// invocation, against glslang reading the same bytes.
#[test]
fn two_dimensional_array_in_push_constants() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) writeonly buffer O { float o[]; };
layout(push_constant, std430) uniform parameter { int w; float m[2][3]; int h; } p;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    o[i] = p.m[i % 2][i % 3] * 10.0 + p.m[1][2] + float(p.w * 100 + p.h * 1000);
}
";
    let mut case = Case::new(
        "2-D array in push constants",
        src,
        "fp32",
        vec![Io::Out(4 * 64, Cmp::F32Ulps(0))],
    );
    let mut bytes = 3i32.to_le_bytes().to_vec();
    for v in [1.5f32, 2.25, -3.0, 4.125, 5.5, -6.75] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes.extend_from_slice(&7i32.to_le_bytes());
    case.push_constants = bytes;
    run(&case);
}

/// ncnn's reduction through `shared lfpvec4` in fp16s+fp16a on a device with
/// int64 and int16 (lavapipe, the H200), where ncnn keeps the four halves in
/// a `uint64_t` that naga cannot declare; the extension keeps them in an
/// `f16vec4` (docs/extension.md section 3, "Local types"). A storage vector
/// also goes straight into local memory (`buffer_sm4`) and back, from random
/// bits (NaNs, infinities and subnormals among them): every bit must survive.
///
/// Twice: naga against glslang on the same finished text; then naga's build
/// of our form against glslang's build of ncnn's `uint64_t` form of the same
/// shader (ncnn's definitions put back over ours), which must agree exactly.
#[test]
fn shared_lfpvec4_reduction_with_int64() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { sfpvec4 a[]; };
layout(binding = 1) readonly buffer F { sfpvec4 f[]; };
layout(binding = 2) writeonly buffer B { sfpvec4 b[]; };
layout(binding = 3) writeonly buffer C { sfpvec4 c[]; };
shared lfpvec4 raw[64];
shared lfpvec4 tmp[64];
void main() {
    int l = int(gl_LocalInvocationID.x);
    int g = int(gl_GlobalInvocationID.x);
    raw[l] = buffer_sm4(a, g);
    tmp[l] = afp2lfpvec4(buffer_ld4(f, g) * afp(0.5));
    barrier();
    buffer_st4(c, g, lfp2afpvec4(raw[63 - l]));
    for (int s = 32; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] = afp2lfpvec4(lfp2afpvec4(tmp[l]) + lfp2afpvec4(tmp[l + s]));
        barrier();
    }
    if (l == 0)
        buffer_st4(b, int(gl_WorkGroupID.x), lfp2afpvec4(tmp[0]));
}
";
    let mode = "fp16s+fp16a [S16 I16 I64]";
    let ours = finished(src, mode);
    assert!(
        ours.text().contains("shared f16vec4 tmp[64];"),
        "{}",
        ours.text()
    );
    let groups = 16;
    let mut case = Case::new(
        "shared lfpvec4 reduction",
        src,
        mode,
        vec![
            Io::In(8 * 64 * groups, Fill::Words),
            Io::In(8 * 64 * groups, Fill::F16(-1.0, 1.0)),
            Io::Out(8 * groups, Cmp::Exact),
            Io::Out(8 * 64 * groups, Cmp::Exact),
        ],
    );
    case.groups = [groups as u32, 1, 1];
    run(&case);
    // ncnn's definitions for this column (its `gpu.cpp`), over ours.
    let ncnn = src.replacen(
        "\n",
        "\n#undef lfpvec4\n#define lfpvec4 uint64_t\n\
         #undef buffer_sm4\n#define buffer_sm4(buf,i) pack64(halfBitsToUint16(buf[i]))\n\
         #undef lfp2afpvec4\n#define lfp2afpvec4(v) uint16BitsToHalf(unpack16(v))\n\
         #undef afp2lfpvec4\n#define afp2lfpvec4(v) pack64(halfBitsToUint16(f16vec4(v)))\n",
        1,
    );
    let theirs = finished(&ncnn, mode);
    assert!(
        theirs.text().contains("shared uint64_t tmp[64];"),
        "{}",
        theirs.text()
    );
    run_against(&case, &ncnn);
}

/// The lane loads of the packed modes (`buffer_ld1`, `buffer_cp1`,
/// `i8buffer_ld1`, `i8buffer_cp1`, `i16buffer_ld1`, `i16buffer_ld2`) with
/// `uint` and with `int` offsets: the expansion passes the lane's bit offset
/// to `bitfieldExtract` as an `int` either way (a `uint` offset made the
/// expansion invalid GLSL, reported as an unknown `bitfieldExtract`).
#[test]
fn lane_loads_with_uint_and_int_offsets() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { sfp a[]; };
layout(binding = 1) writeonly buffer B { sfp b[]; };
layout(binding = 2) readonly buffer C { sint8 c[]; };
layout(binding = 3) writeonly buffer D { sint8 d[]; };
layout(binding = 4) readonly buffer E { sint16 e[]; };
layout(binding = 5) writeonly buffer F { ivec4 f[]; };
layout(binding = 6) writeonly buffer G { vec2 g[]; };
void main() {
    uint gu = gl_GlobalInvocationID.x;
    int gi = int(gu);
    g[gu] = vec2(float(buffer_ld1(a, gu)), float(buffer_ld1(a, 127 - gi)));
    buffer_cp1(b, gu, a, 255u - gu);
    i8buffer_cp1(d, gi, c, 63u - gu);
    ivec2 h = i16buffer_ld2(e, gu * 2u);
    f[gu] = ivec4(i8buffer_ld1(c, gu), i8buffer_ld1(c, 63 - gi), i16buffer_ld1(e, 127u - gu), h.x + h.y);
}
";
    for (mode, floats) in [
        ("fp32", Fill::F32(-4.0, 4.0)),
        ("fp16p", Fill::F16(-4.0, 4.0)),
        ("fp16p+fp16a", Fill::F16(-4.0, 4.0)),
        ("bf16p", Fill::Bf16(-4.0, 4.0)),
        ("int8p", Fill::F32(-4.0, 4.0)),
        ("int16p", Fill::F32(-4.0, 4.0)),
        ("fp16p+int8p+int16p", Fill::F16(-4.0, 4.0)),
    ] {
        let case = Case::new(
            &format!("lane loads {mode}"),
            src,
            mode,
            vec![
                Io::In(4 * 256, floats),
                Io::Out(4 * 256, Cmp::Exact),
                Io::In(64, Fill::Words),
                Io::Out(64, Cmp::Exact),
                Io::In(4 * 128, Fill::Words),
                Io::Out(16 * 64, Cmp::Exact),
                Io::Out(8 * 64, Cmp::Exact),
            ],
        );
        run(&case);
    }
}

/// `float16_t` values stored into `float` variables in the fp16 arithmetic
/// modes (`const float s = buffer_ld1(a, i);`, assignments, vectors, inside
/// a branch): GLSL converts them implicitly, naga's frontend does not
/// (`fp16_widening.rs`).
#[test]
fn float16_values_stored_into_floats() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { sfp a[]; };
layout(binding = 1) readonly buffer A4 { sfpvec4 a4[]; };
layout(binding = 2) writeonly buffer B { vec4 b[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    const float s = buffer_ld1(a, i);
    float t;
    t = buffer_ld1(a, i ^ 1u);
    vec4 v = buffer_ld4(a4, i);
    if (i % 3u == 0u) {
        t = afp(2.5) * buffer_ld1(a, 63u - i);
    }
    b[i] = v * s + vec4(t);
}
";
    for mode in ["fp16s+fp16a", "fp16p+fp16a"] {
        let case = Case::new(
            &format!("float16 into float {mode}"),
            src,
            mode,
            vec![
                Io::In(2 * 64, Fill::F16(-8.0, 8.0)),
                Io::In(8 * 64, Fill::F16(-8.0, 8.0)),
                Io::Out(16 * 64, Cmp::Exact),
            ],
        );
        run(&case);
    }
}

/// `round()` and `roundEven()`, each in a shader of its own, against
/// glslang's blobs, exact halves included. Our `round()` is GLSL.std.450
/// `Round` as glslang's (`round_half_away.rs`; the core's
/// `round_is_round_and_round_even_is_round_even` pins the instruction):
/// `Round` leaves the direction of halves to the device, and lavapipe takes
/// ties to even for both, so this run cannot tell `Round` from `RoundEven`;
/// it shows both blobs run and agree with glslang's.
#[test]
fn round_and_round_even() {
    let body = |f: &str| {
        format!(
            "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A {{ float a[]; }};
layout(binding = 1) writeonly buffer B {{ vec4 b[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    float h = float(int(i) - 32) + 0.5;
    b[i] = vec4({f}(x), {f}(h), {f}(vec2(h, -h)));
}}
"
        )
    };
    for f in ["round", "roundEven"] {
        let case = Case::new(
            f,
            &body(f),
            "fp32",
            vec![
                Io::In(4 * 64, Fill::F32(-8.0, 8.0)),
                Io::Out(16 * 64, Cmp::Exact),
            ],
        );
        run(&case);
    }
}

/// `dotPacked4x8EXT` (dot_product.rs), signed and unsigned, on random
/// words: our `OpSDot`/`OpUDot` against glslang's build of the sums written
/// out with `bitfieldExtract` (glslang 12 has no GL_EXT_integer_dot_product).
#[test]
fn packed_dot_products() {
    let src = "#version 450
#extension GL_EXT_integer_dot_product : require
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { uint a[]; };
layout(binding = 1) writeonly buffer R { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int s = dotPacked4x8EXT(int(a[2u * i]), int(a[2u * i + 1u]));
    uint u = dotPacked4x8EXT(a[2u * i], a[2u * i + 1u]);
    r[2u * i] = s;
    r[2u * i + 1u] = int(u);
}
";
    let reference = src
        .replace(
            "#extension GL_EXT_integer_dot_product : require\n",
            "int sdot(int a, int b) { int s = 0; for (int k = 0; k < 32; k += 8) s += bitfieldExtract(a, k, 8) * bitfieldExtract(b, k, 8); return s; }\n\
             uint udot(uint a, uint b) { uint s = 0u; for (int k = 0; k < 32; k += 8) s += bitfieldExtract(a, k, 8) * bitfieldExtract(b, k, 8); return s; }\n",
        )
        .replace("int s = dotPacked4x8EXT(", "int s = sdot(")
        .replace("uint u = dotPacked4x8EXT(", "uint u = udot(");
    let mut case = Case::new(
        "packed dot products",
        src,
        "fp32",
        vec![Io::In(8 * 256, Fill::Words), Io::Out(8 * 256, Cmp::Exact)],
    );
    case.groups = [4, 1, 1];
    run_against(&case, &reference);
}

/// ncnn's celu and erf-based gelu written with plain `float` constants and
/// literals beside `afp` values: in fp16 arithmetic GLSL converts the
/// `float16_t` to `float` and then refuses to store the `float` result into
/// the `afp` (glslang: "cannot convert from float to float16_t", "no
/// matching overloaded function" for `erf(afp)` called with a `float`), so
/// ours refuses them too, at the `float` (naga would have demoted it and
/// compiled); written with `afp(...)`, as ncnn writes them, both compile and
/// match glslang, with one difference of glslang's: glslang 12 truncates a
/// `float` constant converted to `float16_t` (`afp(0.3275911f)` is
/// 0x1.4f4p-2), where ours rounds it to the nearest `float16_t` (0x1.4f8p-2),
/// as the device rounds a conversion at run time; so glslang builds the
/// gelu with its constants written as those nearest values, and the outputs
/// must be identical.
#[test]
fn celu_and_erf_in_fp16_arithmetic_as_glslang_reads_them() {
    let celu = |explicit: bool| {
        let line = if explicit {
            "v = max(v, afp(0.f)) + min(afp(alpha) * (exp(v / afp(alpha)) - afp(1.f)), afp(0.f));"
        } else {
            "v = max(v, 0.f) + min(alpha * (exp(v / alpha) - 1.f), 0.f);"
        };
        format!(
            "#version 450
layout (constant_id = 0) const float alpha = 1.f;
layout (local_size_x = 64) in;
layout (binding = 0) buffer bottom_top_blob {{ sfp bottom_top_blob_data[]; }};
void main() {{
    int gx = int(gl_GlobalInvocationID.x);
    afp v = buffer_ld1(bottom_top_blob_data, gx);
    {line}
    buffer_st1(bottom_top_blob_data, gx, v);
}}
"
        )
    };
    let gelu = |explicit: bool| {
        let line = if explicit {
            "v = afp(0.5f) * v * (afp(1.f) + erf(v * afp(0.70710678f)));"
        } else {
            "v = 0.5f * v * (1.f + erf(v * 0.70710678f));"
        };
        format!(
            "#version 450
layout (local_size_x = 64) in;
layout (binding = 0) buffer bottom_top_blob {{ sfp bottom_top_blob_data[]; }};
afp erf(afp x) {{
    afp t = afp(1.f) / (afp(1.f) + afp(0.3275911f) * abs(x));
    afp y = afp(1.f) - (((((afp(1.061405429f) * t - afp(1.453152027f)) * t) + afp(1.421413741f)) * t
        - afp(0.284496736f)) * t + afp(0.254829592f)) * t * exp(-x * x);
    return sign(x) * y;
}}
void main() {{
    int gx = int(gl_GlobalInvocationID.x);
    afp v = buffer_ld1(bottom_top_blob_data, gx);
    {line}
    buffer_st1(bottom_top_blob_data, gx, v);
}}
"
        )
    };
    for mode in ["fp16s+fp16a", "fp16p+fp16a"] {
        for (name, src) in [("celu", celu(false)), ("gelu", gelu(false))] {
            let e = finished(&src, mode);
            let ours = ncnn_glsl_core::compile(&e, &Default::default());
            let d = ours.expect_err(name);
            assert!(
                d.to_string().contains("instead of 32"),
                "{name} {mode}: {d}"
            );
            if let Some(theirs) = ncnn_glsl_testkit::differential::glslang_result(e.text()) {
                assert!(theirs.is_err(), "{name} {mode}: glslang now accepts it");
            }
        }
        let io = vec![Io::InOut(2 * 64, Fill::F16(-3.0, 3.0), Cmp::Exact)];
        run(&Case::new(
            &format!("celu {mode}"),
            &celu(true),
            mode,
            io.clone(),
        ));
        let mut nearest = gelu(true);
        for (written, value) in [
            ("0.3275911f", "0.32763671875f"),
            ("1.061405429f", "1.0615234375f"),
            ("1.453152027f", "1.453125f"),
            ("1.421413741f", "1.421875f"),
            ("0.284496736f", "0.284423828125f"),
            ("0.254829592f", "0.2548828125f"),
            ("0.70710678f", "0.70703125f"),
        ] {
            nearest = nearest.replace(written, value);
        }
        let case = Case::new(&format!("gelu {mode}"), &gelu(true), mode, io);
        run_against(&case, &nearest);
    }
}

/// Statements after `break`, `continue` and `return` in their block never
/// run; naga's frontend parsed a call there without the statement its
/// validator wants ("Expression not visited by the appropriate
/// statement"), and in fp16p a `buffer_st1` there (a compare-and-swap
/// loop) read as a read of its `writeonly` buffer (the differential
/// fuzzer's seeds 1796669016897321662 and 1796670800674342454). They are
/// dropped; the outputs equal glslang's in fp32 and fp16p.
#[test]
fn unreachable_statements_after_break_continue_and_return() {
    let src = "#version 450
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer A { sfp a[]; };
layout (binding = 1) writeonly buffer B { sfp b[]; };
layout (binding = 2) writeonly buffer C { uint c[]; };
uint f1(uint x) { return x * 3u + 1u; }
void main() {
    const int gid = int(gl_GlobalInvocationID.x);
    uint acc = 0u;
    for (int k = 0; k < 3; k++) { break; acc += f1(uint(k)); }
    for (int k = 0; k < 4; k++) {
        if (k == 1) { continue; acc = f1(acc); buffer_st1(b, gid, afp(9.0)); }
        acc += 2u;
    }
    afp v = buffer_ld1(a, gid);
    buffer_st1(b, gid, v * afp(2.0));
    c[gid] = acc;
    if (gid >= 0) { return; c[gid] = f1(7u); }
}
";
    for mode in ["fp32", "fp16p"] {
        let mut case = Case::new(
            "unreachable statements",
            src,
            mode,
            vec![
                Io::In(4 * 256, Fill::F32(-4.0, 4.0)),
                Io::Out(4 * 256, Cmp::Exact),
                Io::Out(4 * 256, Cmp::Exact),
            ],
        );
        case.groups = [4, 1, 1];
        run(&case);
    }
}

/// `?:` in a global constant of literals and constants (`const uint C =
/// 8u > 1u ? 5u : 7u;`), which naga cannot fold ("Unexpected
/// runtime-expression"; the differential fuzzer's seed
/// 1796669016897321489): its value is given to naga in place, and the
/// constants (one sizing an array) compute what glslang's do.
#[test]
fn selects_in_global_constants() {
    let src = "#version 450
layout (local_size_x = 64) in;
layout (binding = 0) writeonly buffer B { uint b[]; };
const uint C1 = (8u > 1u ? 5u : 7u);
const int C2 = 3 < 2 ? -4 : -6 * 2;
const uint C3 = max(3u, 9u) + (C1 == 5u ? 0x80000000u : 0u);
const int C4 = C2 < 0 ? C2 * 1000 : 1;
void main() {
    uint t[C1 == 5u ? 4 : 2];
    uint i = gl_GlobalInvocationID.x;
    for (uint k = 0u; k < uint(t.length()); k++)
        t[k] = i + k;
    b[i] = C1 + uint(C2) + C3 + uint(C4) + t[i % uint(t.length())];
}
";
    let mut case = Case::new(
        "selects in global constants",
        src,
        "fp32",
        vec![Io::Out(4 * 256, Cmp::Exact)],
    );
    case.groups = [4, 1, 1];
    run(&case);
}
