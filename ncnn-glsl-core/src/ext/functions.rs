//! The extension's functions (sections 4 to 6): one row per name, one
//! cell per column, plus the private helpers those cells call.
//!
//! Buffer functions are macros because GLSL cannot pass a buffer array to a
//! function. Every macro evaluates its value argument once and converts it
//! explicitly, so a caller may pass any arithmetic type. Locals inside
//! macros are `_ncnn_*`, and nested macros use names distinct from the macro
//! that calls them, so no argument is ever captured by a local.
//!
//! Where two elements share a 32-bit word (fp16p, bf16p without 16-bit
//! storage, int8 without int8s, int16p), a store goes through
//! `ncnnext_st_lane`: a compare-and-swap loop on the word, so concurrent
//! writers of the word's other lanes are never lost. Copies move raw lane
//! bits (`ncnnext_ld_lane`), never through a narrower or wider type.

use super::row::Row;
use super::types::{fcol::*, i16col, i8col};

/// Section 4: buffer functions of the float storage types.
pub(crate) const BUFFER_FUNCTIONS: &[Row] = &[
    Row::func("buffer_ld1", "(buf,i)", &[
        (FP32 | FP16SA_ANY, Some("buf[i]")),
        (FP16P, Some("unpackHalf2x16(ncnnext_ld_lane(buf,i,2)).x")),
        (FP16PA, Some("float16_t(unpackHalf2x16(ncnnext_ld_lane(buf,i,2)).x)")),
        (FP16S | BF16S, Some("float(buf[i])")),
        (BF16P_WORD, Some("ncnnext_bf16_to_float(ncnnext_ld_lane(buf,i,2))")),
        (BF16P_16_ANY, Some("ncnnext_bf16_to_float(uint(buf[i]))")),
    ]),
    Row::func("buffer_st1", "(buf,i,v)", &[
        (FP32, Some("{buf[i]=float(v);}")),
        (FP16P_ANY, Some("ncnnext_st_lane(uint,buf,i,2,packHalf2x16(vec2(float(v),0.0)))")),
        (FP16S | FP16SA_ANY, Some("{buf[i]=float16_t(v);}")),
        (BF16P_WORD, Some("ncnnext_st_lane(uint,buf,i,2,ncnnext_bf16_bits(float(v)))")),
        (BF16P_16_ANY, Some("{buf[i]=uint16_t(ncnnext_bf16_bits(float(v)));}")),
        (BF16S, Some("{buf[i]=bfloat16_t(v);}")),
    ]),
    Row::func("buffer_cp1", "(buf,i,sbuf,si)", &[
        (SHARED_WORD, Some("ncnnext_st_lane(uint,buf,i,2,ncnnext_ld_lane(sbuf,si,2))")),
        (ALL & !SHARED_WORD, Some("{buf[i]=sbuf[si];}")),
    ]),
    Row::func("buffer_cp1to4", "(buf,i,sbuf,si)", &[
        (FP32, Some("{ivec4 _ncnn_s=ivec4(si);buf[i]=vec4(sbuf[_ncnn_s.x],sbuf[_ncnn_s.y],sbuf[_ncnn_s.z],sbuf[_ncnn_s.w]);}")),
        (SHARED_WORD, Some("{ivec4 _ncnn_s=ivec4(si);buf[i]=uvec2(bitfieldInsert(ncnnext_ld_lane(sbuf,_ncnn_s.x,2),ncnnext_ld_lane(sbuf,_ncnn_s.y,2),16,16),bitfieldInsert(ncnnext_ld_lane(sbuf,_ncnn_s.z,2),ncnnext_ld_lane(sbuf,_ncnn_s.w,2),16,16));}")),
        (FP16SA_ANY, Some("{ivec4 _ncnn_s=ivec4(si);buf[i]=f16vec4(sbuf[_ncnn_s.x],sbuf[_ncnn_s.y],sbuf[_ncnn_s.z],sbuf[_ncnn_s.w]);}")),
        // Without fp16 arithmetic no 16-bit vector can be constructed from
        // scalars; component stores are plain 16-bit stores, no read-modify-write.
        (FP16S | BF16S, Some("{ivec4 _ncnn_s=ivec4(si);buf[i].x=sbuf[_ncnn_s.x];buf[i].y=sbuf[_ncnn_s.y];buf[i].z=sbuf[_ncnn_s.z];buf[i].w=sbuf[_ncnn_s.w];}")),
        (BF16P_16_ANY, Some("{ivec4 _ncnn_s=ivec4(si);buf[i]=uvec2(uint(sbuf[_ncnn_s.x])|(uint(sbuf[_ncnn_s.y])<<16),uint(sbuf[_ncnn_s.z])|(uint(sbuf[_ncnn_s.w])<<16));}")),
    ]),
    Row::func("buffer_cp4to1", "(buf,di,sbuf,si)", &[
        (FP32, Some("{vec4 _ncnn_v=sbuf[si];ivec4 _ncnn_d=ivec4(di);buf[_ncnn_d.x]=_ncnn_v.x;buf[_ncnn_d.y]=_ncnn_v.y;buf[_ncnn_d.z]=_ncnn_v.z;buf[_ncnn_d.w]=_ncnn_v.w;}")),
        (SHARED_WORD, Some("{uvec2 _ncnn_v=sbuf[si];ivec4 _ncnn_d=ivec4(di);ncnnext_st_lane(uint,buf,_ncnn_d.x,2,_ncnn_v.x);ncnnext_st_lane(uint,buf,_ncnn_d.y,2,_ncnn_v.x>>16);ncnnext_st_lane(uint,buf,_ncnn_d.z,2,_ncnn_v.y);ncnnext_st_lane(uint,buf,_ncnn_d.w,2,_ncnn_v.y>>16);}")),
        (FP16SA_ANY, Some("{f16vec4 _ncnn_v=sbuf[si];ivec4 _ncnn_d=ivec4(di);buf[_ncnn_d.x]=_ncnn_v.x;buf[_ncnn_d.y]=_ncnn_v.y;buf[_ncnn_d.z]=_ncnn_v.z;buf[_ncnn_d.w]=_ncnn_v.w;}")),
        (BF16P_16_ANY, Some("{uvec2 _ncnn_v=sbuf[si];ivec4 _ncnn_d=ivec4(di);buf[_ncnn_d.x]=uint16_t(_ncnn_v.x&0xffffu);buf[_ncnn_d.y]=uint16_t(_ncnn_v.x>>16);buf[_ncnn_d.z]=uint16_t(_ncnn_v.y&0xffffu);buf[_ncnn_d.w]=uint16_t(_ncnn_v.y>>16);}")),
        // Without fp16 arithmetic a 16-bit value cannot live in a local variable.
        (FP16S | BF16S, Some("{ivec4 _ncnn_d=ivec4(di);buf[_ncnn_d.x]=sbuf[si].x;buf[_ncnn_d.y]=sbuf[si].y;buf[_ncnn_d.z]=sbuf[si].z;buf[_ncnn_d.w]=sbuf[si].w;}")),
    ]),
    Row::func("buffer_ld2", "(buf,i)", &[
        (FP32 | FP16SA_ANY, Some("buf[i]")),
        (FP16P, Some("unpackHalf2x16(buf[i])")),
        (FP16PA, Some("f16vec2(unpackHalf2x16(buf[i]))")),
        (FP16S | BF16S, Some("vec2(buf[i])")),
        (BF16P_ANY, Some("ncnnext_unpack_bf16x2(buf[i])")),
    ]),
    Row::func("buffer_st2", "(buf,i,v)", &[
        (FP32, Some("{buf[i]=vec2(v);}")),
        (FP16P_ANY, Some("{buf[i]=packHalf2x16(vec2(v));}")),
        (FP16S | FP16SA_ANY, Some("{buf[i]=f16vec2(v);}")),
        (BF16P_ANY, Some("{buf[i]=ncnnext_pack_bf16x2(vec2(v));}")),
        (BF16S, Some("{buf[i]=bf16vec2(v);}")),
    ]),
    Row::func("buffer_cp2", "(buf,i,sbuf,si)", &[(ALL, Some("{buf[i]=sbuf[si];}"))]),
    Row::func("buffer_ld4", "(buf,i)", &[
        (FP32 | FP16SA_ANY, Some("buf[i]")),
        (FP16P, Some("ncnnext_unpack_half4(buf[i])")),
        (FP16PA, Some("f16vec4(ncnnext_unpack_half4(buf[i]))")),
        (FP16S | BF16S, Some("vec4(buf[i])")),
        (BF16P_ANY, Some("ncnnext_unpack_bf16x4(buf[i])")),
    ]),
    Row::func("buffer_st4", "(buf,i,v)", &[
        (FP32, Some("{buf[i]=vec4(v);}")),
        (FP16P_ANY, Some("{buf[i]=ncnnext_pack_half4(vec4(v));}")),
        (FP16S | FP16SA_ANY, Some("{buf[i]=f16vec4(v);}")),
        (BF16P_ANY, Some("{buf[i]=ncnnext_pack_bf16x4(vec4(v));}")),
        (BF16S, Some("{buf[i]=bf16vec4(v);}")),
    ]),
    Row::func("buffer_cp4", "(buf,i,sbuf,si)", &[(ALL, Some("{buf[i]=sbuf[si];}"))]),
    // Not in the spec, but ncnn defines them wherever `sfpmat4` exists and
    // its shaders use them; storage and arithmetic matrices are the same type there.
    Row::func("sfp2afpmat4", "(v)", &[
        (FP32 | FP16SA_ANY, Some("(v)")),
        (ALL & !(FP32 | FP16SA_ANY), None),
    ]),
    Row::func("afp2sfpmat4", "(v)", &[
        (FP32 | FP16SA_ANY, Some("(v)")),
        (ALL & !(FP32 | FP16SA_ANY), None),
    ]),
];

/// Section 4, local memory: storage to local, local to and from arithmetic.
pub(crate) const LOCAL_FUNCTIONS: &[Row] = &[
    Row::func(
        "buffer_sm1",
        "(buf,i)",
        &[
            (FP32 | FP16SAU | BF16P_16L | BF16S, Some("buf[i]")),
            (
                FP16P_ANY,
                Some("unpackHalf2x16(ncnnext_ld_lane(buf,i,2)).x"),
            ),
            (FP16S | FP16SA | FP16SA64, Some("float(buf[i])")),
            (
                BF16P_WORD,
                Some("ncnnext_bf16_to_float(ncnnext_ld_lane(buf,i,2))"),
            ),
            (BF16P_16, Some("ncnnext_bf16_to_float(uint(buf[i]))")),
        ],
    ),
    Row::func(
        "buffer_sm4",
        "(buf,i)",
        &[
            (
                FP32 | FP16P_ANY | FP16SA64 | FP16SAU | BF16P_ANY | BF16S,
                Some("buf[i]"),
            ),
            (FP16S | FP16SA, Some("ncnnext_pack_half4(vec4(buf[i]))")),
        ],
    ),
    Row::func(
        "lfp2afp",
        "(v)",
        &[
            (FP32 | FP16SAU, Some("(v)")),
            (FP16P | FP16S | BF16P_WORD | BF16P_16, Some("float(v)")),
            (FP16PA | FP16SA | FP16SA64, Some("float16_t(v)")),
            (BF16P_16L, Some("ncnnext_bf16_to_float(uint(v))")),
            (BF16S, Some("float(v)")),
        ],
    ),
    Row::func(
        "afp2lfp",
        "(v)",
        &[
            (FP32 | FP16SAU, Some("(v)")),
            (
                FP16P_ANY | FP16S | FP16SA | FP16SA64 | BF16P_WORD | BF16P_16,
                Some("float(v)"),
            ),
            (BF16P_16L, Some("uint16_t(ncnnext_bf16_bits(float(v)))")),
            (BF16S, Some("bfloat16_t(v)")),
        ],
    ),
    Row::func(
        "lfp2afpvec4",
        "(v)",
        &[
            (FP32 | FP16SA64 | FP16SAU, Some("(v)")),
            (FP16P | FP16S, Some("ncnnext_unpack_half4(v)")),
            (FP16PA | FP16SA, Some("f16vec4(ncnnext_unpack_half4(v))")),
            (BF16P_ANY, Some("ncnnext_unpack_bf16x4(v)")),
            (BF16S, Some("vec4(v)")),
        ],
    ),
    Row::func(
        "afp2lfpvec4",
        "(v)",
        &[
            (FP32 | FP16SAU, Some("(v)")),
            (
                FP16P_ANY | FP16S | FP16SA,
                Some("ncnnext_pack_half4(vec4(v))"),
            ),
            (FP16SA64, Some("f16vec4(v)")),
            (BF16P_ANY, Some("ncnnext_pack_bf16x4(vec4(v))")),
            (BF16S, Some("bf16vec4(v)")),
        ],
    ),
];

/// Section 5, int8 functions.
pub(crate) const INT8_FUNCTIONS: &[Row] = {
    use i8col::*;
    &[
        Row::func("i8buffer_ld1", "(buf,i)", &[
            (PACKED, Some("ncnnext_ld_lane(buf,i,4)")),
            (STORAGE, Some("int(buf[i])")),
        ]),
        Row::func("i8buffer_st1", "(buf,i,v)", &[
            (PACKED, Some("ncnnext_st_lane(int,buf,i,4,v)")),
            (STORAGE, Some("{buf[i]=int8_t(v);}")),
        ]),
        Row::func("i8buffer_cp1", "(buf,i,sbuf,si)", &[
            (PACKED, Some("ncnnext_st_lane(int,buf,i,4,ncnnext_ld_lane(sbuf,si,4))")),
            (STORAGE, Some("{buf[i]=sbuf[si];}")),
        ]),
        Row::func("i8buffer_ld4", "(buf,i)", &[(ALL, Some("unpackInt4x8(buf[i])"))]),
        Row::func("i8buffer_sm4", "(buf,i)", &[(ALL, Some("buf[i]"))]),
        Row::func("i8buffer_st4", "(buf,i,v)", &[(ALL, Some("{buf[i]=packInt4x8(v);}"))]),
        Row::func("i8buffer_cp4", "(buf,i,sbuf,si)", &[(ALL, Some("{buf[i]=sbuf[si];}"))]),
        Row::func("i8buffer_cp1to4", "(buf,i,sbuf,si)", &[(
            ALL,
            Some("{ivec4 _ncnn_s=ivec4(si);buf[i]=packInt4x8(ivec4(i8buffer_ld1(sbuf,_ncnn_s.x),i8buffer_ld1(sbuf,_ncnn_s.y),i8buffer_ld1(sbuf,_ncnn_s.z),i8buffer_ld1(sbuf,_ncnn_s.w)));}"),
        )]),
        Row::func("i8buffer_cp4to1", "(buf,di,sbuf,si)", &[(
            ALL,
            Some("{ivec4 _ncnn_v=i8buffer_ld4(sbuf,si);ivec4 _ncnn_d=ivec4(di);i8buffer_st1(buf,_ncnn_d.x,_ncnn_v.x);i8buffer_st1(buf,_ncnn_d.y,_ncnn_v.y);i8buffer_st1(buf,_ncnn_d.z,_ncnn_v.z);i8buffer_st1(buf,_ncnn_d.w,_ncnn_v.w);}"),
        )]),
    ]
};

/// Section 5, lane packing and quantization. Macros over helpers:
/// the names would clash with builtins of the same name in glslang's int16
/// extension, which a macro hides, and the helper evaluates its argument once.
pub(crate) const INT_PACKING: &[Row] = &[
    Row::func(
        "packInt4x8",
        "(v)",
        &[(i8col::ALL, Some("ncnnext_packInt4x8(ivec4(v))"))],
    ),
    Row::func(
        "unpackInt4x8",
        "(v)",
        &[(i8col::ALL, Some("ncnnext_unpackInt4x8(int(v))"))],
    ),
    Row::func(
        "packInt2x16",
        "(v)",
        &[(i8col::ALL, Some("ncnnext_packInt2x16(ivec2(v))"))],
    ),
    Row::func(
        "unpackInt2x16",
        "(v)",
        &[(i8col::ALL, Some("ncnnext_unpackInt2x16(int(v))"))],
    ),
    Row::func(
        "float2int8",
        "(v)",
        &[(i8col::ALL, Some("ncnnext_float2int8(float(v))"))],
    ),
    Row::func(
        "float2int8vec4",
        "(v)",
        &[(i8col::ALL, Some("ncnnext_float2int8vec4(vec4(v))"))],
    ),
];

/// Section 5, int16 functions.
pub(crate) const INT16_FUNCTIONS: &[Row] = {
    use i16col::*;
    &[
        Row::func("i16buffer_ld1", "(buf,i)", &[
            (PLAIN | STORAGE_ANY, Some("int(buf[i])")),
            (PACKED_ANY, Some("ncnnext_ld_lane(buf,i,2)")),
        ]),
        Row::func("i16buffer_ld2", "(buf,i)", &[(ALL, Some("ivec2(i16buffer_ld1(buf,i),i16buffer_ld1(buf,(i)+1))"))]),
        Row::func("i16buffer_ld4", "(buf,i)", &[
            (PLAIN | STORAGE, Some("ivec4(buf[i])")),
            (PACKED, Some("ncnnext_unpack_i16x4(buf[i])")),
            (PACKED_I16, Some("i16vec4(ncnnext_unpack_i16x4(buf[i]))")),
            (STORAGE_I16, Some("buf[i]")),
        ]),
        Row::func("i16buffer_sm4", "(buf,i)", &[(ALL, Some("buf[i]"))]),
        Row::func("i16buffer_st1", "(buf,i,v)", &[
            (PLAIN, Some("{buf[i]=int(v);}")),
            (PACKED_ANY, Some("ncnnext_st_lane(int,buf,i,2,v)")),
            (STORAGE_ANY, Some("{buf[i]=int16_t(v);}")),
        ]),
        Row::func("i16buffer_st2", "(buf,i,v)", &[
            (PLAIN, Some("{int _ncnn_i=int(i);ivec2 _ncnn_v=ivec2(v);buf[_ncnn_i]=_ncnn_v.x;buf[_ncnn_i+1]=_ncnn_v.y;}")),
            (PACKED_ANY, Some("{int _ncnn_i=int(i);ivec2 _ncnn_v=ivec2(v);if((_ncnn_i&1)==0){buf[_ncnn_i/2]=packInt2x16(_ncnn_v);}else{ncnnext_st_lane(int,buf,_ncnn_i,2,_ncnn_v.x);ncnnext_st_lane(int,buf,_ncnn_i+1,2,_ncnn_v.y);}}")),
            (STORAGE_ANY, Some("{int _ncnn_i=int(i);ivec2 _ncnn_v=ivec2(v);buf[_ncnn_i]=int16_t(_ncnn_v.x);buf[_ncnn_i+1]=int16_t(_ncnn_v.y);}")),
        ]),
        Row::func("i16buffer_st4", "(buf,i,v)", &[
            (PLAIN, Some("{buf[i]=ivec4(v);}")),
            (PACKED_ANY, Some("{buf[i]=ncnnext_pack_i16x4(ivec4(v));}")),
            (STORAGE_ANY, Some("{buf[i]=i16vec4(v);}")),
        ]),
        Row::func("lint162aint16", "(v)", &[(NO_I16, Some("int(v)")), (I16, Some("int16_t(v)"))]),
        Row::func("lint162aint16vec4", "(v)", &[
            (PLAIN | STORAGE, Some("ivec4(v)")),
            (PACKED, Some("ncnnext_unpack_i16x4(v)")),
            (PACKED_I16, Some("i16vec4(ncnnext_unpack_i16x4(v))")),
            (STORAGE_I16, Some("i16vec4(v)")),
        ]),
    ]
};

/// Section 6. `p.x` names the push-constant member of the same name.
pub(crate) const MISC: &[Row] = &[Row::func(
    "psc",
    "(x)",
    &[(u32::MAX, Some("((x)==0?p.x:(x))"))],
)];

/// A private definition that cells call, emitted only when something
/// emitted before it names it (so each mode's text holds only what it uses).
pub(crate) struct Helper {
    /// The name a caller uses, followed by `(`.
    pub name: &'static str,
    /// The whole definition: a `#define` line or a GLSL function.
    pub text: &'static str,
}

/// Helpers, each after the helpers it uses (macros first, since functions
/// that call them must follow their definitions).
pub(crate) const HELPERS: &[Helper] = &[
    Helper {
        name: "ncnnext_ld_lane",
        // Lane `j%n` of word `j/n`, lane 0 lowest; `bitfieldExtract` sign-extends
        // an `int` word (int8/int16 loads) and zero-extends a `uint` word (raw halves).
        // Its offset must be an `int`; ncnn's shaders index with `uint` as often.
        text: "#define ncnnext_ld_lane(buf,j,n) bitfieldExtract(buf[(j)/(n)],int(((j)%(n))*(32/(n))),32/(n))",
    },
    Helper {
        name: "ncnnext_st_lane",
        // Replaces lane `j%n` of word `j/n` of a `T` buffer with the low bits of
        // `bits`. The first compare-and-swap of 0 by 0 is an atomic read; each
        // failed swap returns the current word, which is the next expectation.
        text: "#define ncnnext_st_lane(T,buf,j,n,bits) {int _ncnn_j=int(j);T _ncnn_b=T(bits);int _ncnn_w=_ncnn_j/(n);int _ncnn_o=(_ncnn_j%(n))*(32/(n));T _ncnn_old=atomicCompSwap(buf[_ncnn_w],T(0),T(0));for(;;){T _ncnn_got=atomicCompSwap(buf[_ncnn_w],_ncnn_old,bitfieldInsert(_ncnn_old,_ncnn_b,_ncnn_o,32/(n)));if(_ncnn_got==_ncnn_old)break;_ncnn_old=_ncnn_got;}}",
    },
    Helper {
        name: "ncnnext_unpack_half4",
        text: "vec4 ncnnext_unpack_half4(uvec2 w) { return vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y)); }",
    },
    Helper {
        name: "ncnnext_pack_half4",
        text: "uvec2 ncnnext_pack_half4(vec4 v) { return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)); }",
    },
    Helper {
        name: "ncnnext_bf16_to_float",
        text: "float ncnnext_bf16_to_float(uint b) { return uintBitsToFloat(b << 16); }",
    },
    Helper {
        name: "ncnnext_bf16_bits",
        // Round to nearest by adding half an ulp of bf16 before dropping the low half.
        text: "uint ncnnext_bf16_bits(float v) { return (floatBitsToUint(v) + 0x8000u) >> 16; }",
    },
    Helper {
        name: "ncnnext_unpack_bf16x2",
        text: "vec2 ncnnext_unpack_bf16x2(uint w) { return vec2(uintBitsToFloat(w << 16), uintBitsToFloat(w & 0xffff0000u)); }",
    },
    Helper {
        name: "ncnnext_pack_bf16x2",
        text: "uint ncnnext_pack_bf16x2(vec2 v) { return ncnnext_bf16_bits(v.x) | (ncnnext_bf16_bits(v.y) << 16); }",
    },
    Helper {
        name: "ncnnext_unpack_bf16x4",
        text: "vec4 ncnnext_unpack_bf16x4(uvec2 w) { return vec4(ncnnext_unpack_bf16x2(w.x), ncnnext_unpack_bf16x2(w.y)); }",
    },
    Helper {
        name: "ncnnext_pack_bf16x4",
        text: "uvec2 ncnnext_pack_bf16x4(vec4 v) { return uvec2(ncnnext_pack_bf16x2(v.xy), ncnnext_pack_bf16x2(v.zw)); }",
    },
    Helper {
        name: "ncnnext_packInt4x8",
        // Each insert replaces every bit above the previous lane, so no high
        // bits of a lower lane survive.
        text: "int ncnnext_packInt4x8(ivec4 v) { return bitfieldInsert(bitfieldInsert(bitfieldInsert(v.x, v.y, 8, 24), v.z, 16, 16), v.w, 24, 8); }",
    },
    Helper {
        name: "ncnnext_unpackInt4x8",
        text: "ivec4 ncnnext_unpackInt4x8(int w) { return ivec4(bitfieldExtract(w, 0, 8), bitfieldExtract(w, 8, 8), bitfieldExtract(w, 16, 8), bitfieldExtract(w, 24, 8)); }",
    },
    Helper {
        name: "ncnnext_packInt2x16",
        text: "int ncnnext_packInt2x16(ivec2 v) { return bitfieldInsert(v.x, v.y, 16, 16); }",
    },
    Helper {
        name: "ncnnext_unpackInt2x16",
        text: "ivec2 ncnnext_unpackInt2x16(int w) { return ivec2(bitfieldExtract(w, 0, 16), bitfieldExtract(w, 16, 16)); }",
    },
    Helper {
        name: "ncnnext_pack_i16x4",
        text: "ivec2 ncnnext_pack_i16x4(ivec4 v) { return ivec2(bitfieldInsert(v.x, v.y, 16, 16), bitfieldInsert(v.z, v.w, 16, 16)); }",
    },
    Helper {
        name: "ncnnext_unpack_i16x4",
        text: "ivec4 ncnnext_unpack_i16x4(ivec2 w) { return ivec4(bitfieldExtract(w.x, 0, 16), bitfieldExtract(w.x, 16, 16), bitfieldExtract(w.y, 0, 16), bitfieldExtract(w.y, 16, 16)); }",
    },
    Helper {
        name: "ncnnext_float2int8",
        // `v - trunc(v)` is exact, so the half-way test is exact; `floor(abs(v) + 0.5)`
        // is not (0.49999997 + 0.5 rounds up to 1.0).
        text: "int ncnnext_float2int8(float v) { float t = trunc(v); float r = t + sign(v) * step(0.5, abs(v - t)); return int(clamp(r, -127.0, 127.0)); }",
    },
    Helper {
        name: "ncnnext_float2int8vec4",
        text: "ivec4 ncnnext_float2int8vec4(vec4 v) { vec4 t = trunc(v); vec4 r = t + sign(v) * step(vec4(0.5), abs(v - t)); return ivec4(clamp(r, vec4(-127.0), vec4(127.0))); }",
    },
];
