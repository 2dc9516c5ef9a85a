#version 450

// Uses every type and function of the ncnn GLSL extension, so compiling it
// in a mode checks every definition of that mode. Values flow into the
// buffers so nothing is optimized out before the checks that matter.

layout (local_size_x = 64) in;

layout (binding = 0) buffer fp_a { sfp a1_data[]; };
layout (binding = 1) buffer fp_b { sfp b1_data[]; };
layout (binding = 2) buffer fp2_a { sfpvec2 a2_data[]; };
layout (binding = 3) buffer fp2_b { sfpvec2 b2_data[]; };
layout (binding = 4) buffer fp4_a { sfpvec4 a4_data[]; };
layout (binding = 5) buffer fp4_b { sfpvec4 b4_data[]; };
#ifdef sfpmat4
layout (binding = 6) buffer fpm { sfpmat4 m_data[]; };
#endif
layout (binding = 7) buffer i8_a { sint8 a8_data[]; };
layout (binding = 8) buffer i8_b { sint8 b8_data[]; };
layout (binding = 9) buffer i8v_a { sint8vec4 a84_data[]; };
layout (binding = 10) buffer i8v_b { sint8vec4 b84_data[]; };
layout (binding = 11) buffer i16_a { sint16 a16_data[]; };
layout (binding = 12) buffer i16_b { sint16 b16_data[]; };
layout (binding = 13) buffer i16v_a { sint16vec4 a164_data[]; };
layout (binding = 14) buffer i16v_b { sint16vec4 b164_data[]; };
layout (binding = 15) buffer sink_blob { int sink_data[]; };

layout (push_constant) uniform parameter
{
    int n;
} p;

// After the block, as naga needs (notes/naga.md); glslang does not mind.
layout (constant_id = 0) const int n = 0;

shared lfp s1[64];
shared lfpvec4 s4[64];
shared lint16 s16[64];
shared lint16vec4 s164[64];

void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    const int l = int(gl_LocalInvocationID.x);
    const int count = psc(n);
    if (i >= count)
        return;

    // float storage <-> arithmetic
    afp x = buffer_ld1(a1_data, i);
    buffer_st1(b1_data, i, x);
    buffer_cp1(b1_data, i + count, a1_data, i);
    afpvec2 x2 = buffer_ld2(a2_data, i);
    buffer_st2(b2_data, i, x2);
    buffer_cp2(b2_data, i + count, a2_data, i);
    afpvec4 x4 = buffer_ld4(a4_data, i);
    buffer_st4(b4_data, i, x4 + afpvec4(1));
    buffer_cp4(b4_data, i + count, a4_data, i);
    buffer_cp1to4(b4_data, i + 2 * count, a1_data, ivec4(i * 4, i * 4 + 1, i * 4 + 2, i * 4 + 3));
    buffer_cp4to1(b1_data, ivec4(i * 4, i * 4 + 1, i * 4 + 2, i * 4 + 3), a4_data, i);

    afpmat4 m = afpmat4(x4, x4, x4, x4);
#ifdef sfpmat4
    m = m * sfp2afpmat4(m_data[i]);
    m_data[i] = afp2sfpmat4(m);
#endif

    // local memory
    s1[l] = buffer_sm1(a1_data, i);
    s4[l] = buffer_sm4(a4_data, i);
    barrier();
    afp y = lfp2afp(s1[63 - l]);
    afpvec4 y4 = lfp2afpvec4(s4[63 - l]);
    barrier();
    s1[l] = afp2lfp(y + x);
    s4[l] = afp2lfpvec4(y4 + m[0]);
    barrier();
    buffer_st4(b4_data, i + 3 * count, lfp2afpvec4(s4[l]) + afpvec4(lfp2afp(s1[l])));

    // int8
    aint8 q = i8buffer_ld1(a8_data, i);
    i8buffer_st1(b8_data, i, q);
    i8buffer_cp1(b8_data, i + count, a8_data, i);
    aint8vec4 q4 = i8buffer_ld4(a84_data, i);
    int q4raw = i8buffer_sm4(a84_data, i);
    i8buffer_st4(b84_data, i, q4 + unpackInt4x8(q4raw));
    i8buffer_cp4(b84_data, i + count, a84_data, i);
    i8buffer_cp1to4(b84_data, i + 2 * count, a8_data, ivec4(i * 4, i * 4 + 1, i * 4 + 2, i * 4 + 3));
    i8buffer_cp4to1(b8_data, ivec4(i * 4, i * 4 + 1, i * 4 + 2, i * 4 + 3), a84_data, i);
    int packed8 = packInt4x8(ivec4(float2int8(float(x)), float2int8vec4(vec4(x4)).yzw));
    ivec2 halves = unpackInt2x16(packInt2x16(ivec2(q, packed8)));

    // int16
    int h = i16buffer_ld1(a16_data, i);
    ivec2 h2 = i16buffer_ld2(a16_data, i * 2);
    aint16vec4 h4 = i16buffer_ld4(a164_data, i);
    sint16vec4 h4raw = i16buffer_sm4(a164_data, i);
    i16buffer_st1(b16_data, i, h + halves.x);
    i16buffer_st2(b16_data, i * 2 + 1, h2 + halves);
    i16buffer_st4(b164_data, i, ivec4(h4) + ivec4(q4));
    s164[l] = h4raw;
    s16[l] = lint16(h);
    barrier();
    aint16 hl = lint162aint16(s16[63 - l]);
    aint16vec4 hl4 = lint162aint16vec4(s164[63 - l]);
    barrier();
    i16buffer_st4(s164, l, ivec4(hl4) + ivec4(int(hl)));
    barrier();
    i16buffer_st4(b164_data, i + count, lint162aint16vec4(s164[l]));

    sink_data[i] = int(y) + q + packed8;
}
