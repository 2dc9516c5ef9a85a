//! The mode classes of the extension (the columns of sections 3 and 5)
//! and the type table: one row per type name, one cell per column.

use crate::options::Flag;
use crate::target::Target;

use super::row::Row;

/// How floating-point data is stored, computed and kept in shared memory:
/// one column of section 3. Each names one distinct set of definitions,
/// so two targets of the same class get the same float text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatClass {
    /// fp32 storage and arithmetic.
    Fp32,
    /// fp16p: two halves per `uint`, fp32 arithmetic.
    Fp16Packed,
    /// fp16p+fp16a: two halves per `uint`, fp16 arithmetic.
    Fp16PackedArith,
    /// fp16s: `float16_t` storage, fp32 arithmetic.
    Fp16Storage,
    /// fp16s+fp16a: local vec4 as two `uint`s.
    Fp16StorageArith,
    /// fp16s+fp16a with `shaderInt64` and `shaderInt16`: local vec4 as
    /// `f16vec4`, the four halves in 8 bytes (ncnn's `uint64_t`, which naga
    /// cannot declare; docs/extension.md section 3, "Local types").
    Fp16StorageArithInt64,
    /// fp16s+fp16a+fp16u: fp16 in shared memory too.
    Fp16StorageArithUniform,
    /// bf16p without 16-bit storage: two bf16 per `uint`.
    Bf16PackedWord,
    /// bf16p with 16-bit storage: one bf16 per `uint16_t`, fp32 in shared memory.
    Bf16Packed16,
    /// bf16p with 16-bit storage and 16-bit uniform access: `uint16_t` in shared memory too.
    Bf16Packed16Local,
    /// bf16s: `bfloat16_t` everywhere but arithmetic.
    Bf16Storage,
}

impl FloatClass {
    /// Every class, in column order.
    pub const ALL: [FloatClass; 11] = [
        FloatClass::Fp32,
        FloatClass::Fp16Packed,
        FloatClass::Fp16PackedArith,
        FloatClass::Fp16Storage,
        FloatClass::Fp16StorageArith,
        FloatClass::Fp16StorageArithInt64,
        FloatClass::Fp16StorageArithUniform,
        FloatClass::Bf16PackedWord,
        FloatClass::Bf16Packed16,
        FloatClass::Bf16Packed16Local,
        FloatClass::Bf16Storage,
    ];

    /// The class of `target`, by the precedence of section 2
    /// (bf16s > bf16p > fp16s > fp16p > fp32).
    ///
    /// Two deliberate readings: fp16 arithmetic needs an fp16 storage form
    /// (narrowing guarantees it; without one `afp` stays fp32 so loads still
    /// type-check), and bf16p's 16-bit forms need `shaderInt16` besides
    /// S16/U16, as in ncnn, because only the int16 arithmetic extension
    /// (section 1) makes `uint16_t` declarable in a bf16p shader.
    pub fn of(target: &Target) -> FloatClass {
        let o = target.options;
        let b = target.bits;
        let fp16a = o.has(Flag::Fp16Arithmetic);
        if o.has(Flag::Bf16Storage) {
            FloatClass::Bf16Storage
        } else if o.has(Flag::Bf16Packed) {
            match (b.storage16 && b.int16, b.uniform16) {
                (false, _) => FloatClass::Bf16PackedWord,
                (true, false) => FloatClass::Bf16Packed16,
                (true, true) => FloatClass::Bf16Packed16Local,
            }
        } else if o.has(Flag::Fp16Storage) {
            if !fp16a {
                FloatClass::Fp16Storage
            } else if o.has(Flag::Fp16Uniform) {
                FloatClass::Fp16StorageArithUniform
            } else if b.int64 && b.int16 {
                FloatClass::Fp16StorageArithInt64
            } else {
                FloatClass::Fp16StorageArith
            }
        } else if o.has(Flag::Fp16Packed) {
            if fp16a {
                FloatClass::Fp16PackedArith
            } else {
                FloatClass::Fp16Packed
            }
        } else {
            FloatClass::Fp32
        }
    }

    /// This class's bit in a `Row` mask.
    pub const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// How int8 data is stored (section 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Int8Class {
    /// Four lanes per `int` (int8p, and also when no int8 option is on:
    /// `sint8vec4` is always packed, so the element form must match it).
    Packed,
    /// int8s: `int8_t` elements.
    Storage,
}

impl Int8Class {
    /// Every class, in column order.
    pub const ALL: [Int8Class; 2] = [Int8Class::Packed, Int8Class::Storage];

    /// The class of `target`.
    pub fn of(target: &Target) -> Int8Class {
        if target.options.has(Flag::Int8Storage) {
            Int8Class::Storage
        } else {
            Int8Class::Packed
        }
    }

    /// This class's bit in a `Row` mask.
    pub const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// How int16 data is stored and computed (section 5's table; int16s
/// wins over int16p; `I16` is `shaderInt16`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Int16Class {
    /// Neither int16 option: one `int` per element.
    Plain,
    /// int16p without `shaderInt16`: two lanes per `int`, `int` arithmetic.
    Packed,
    /// int16p with `shaderInt16`: two lanes per `int`, `int16_t` arithmetic.
    PackedI16,
    /// int16s without `shaderInt16` (narrowing never leaves this; kept total).
    Storage,
    /// int16s with `shaderInt16`.
    StorageI16,
}

impl Int16Class {
    /// Every class, in column order.
    pub const ALL: [Int16Class; 5] = [
        Int16Class::Plain,
        Int16Class::Packed,
        Int16Class::PackedI16,
        Int16Class::Storage,
        Int16Class::StorageI16,
    ];

    /// The class of `target`.
    pub fn of(target: &Target) -> Int16Class {
        let i16 = target.bits.int16;
        if target.options.has(Flag::Int16Storage) {
            if i16 {
                Int16Class::StorageI16
            } else {
                Int16Class::Storage
            }
        } else if target.options.has(Flag::Int16Packed) {
            if i16 {
                Int16Class::PackedI16
            } else {
                Int16Class::Packed
            }
        } else {
            Int16Class::Plain
        }
    }

    /// This class's bit in a `Row` mask.
    pub const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// One column of one kind: what a target selects of each kind (section 2,
/// "From a target to its columns").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    /// A float column (section 3).
    Float(FloatClass),
    /// An int8 column (section 5).
    Int8(Int8Class),
    /// An int16 column (section 5).
    Int16(Int16Class),
}

impl Column {
    /// The three columns of `target`: float, int8, int16.
    pub fn of(target: &Target) -> [Column; 3] {
        [
            Column::Float(FloatClass::of(target)),
            Column::Int8(Int8Class::of(target)),
            Column::Int16(Int16Class::of(target)),
        ]
    }

    /// Every column of every kind.
    pub fn all() -> impl Iterator<Item = Column> {
        let f = FloatClass::ALL.into_iter().map(Column::Float);
        let i8 = Int8Class::ALL.into_iter().map(Column::Int8);
        let i16 = Int16Class::ALL.into_iter().map(Column::Int16);
        f.chain(i8).chain(i16)
    }
}

/// Column masks for the float tables, named after the mode strings so a
/// row reads like section 3.
pub(crate) mod fcol {
    use super::FloatClass as F;

    pub const FP32: u32 = F::Fp32.bit();
    pub const FP16P: u32 = F::Fp16Packed.bit();
    pub const FP16PA: u32 = F::Fp16PackedArith.bit();
    pub const FP16S: u32 = F::Fp16Storage.bit();
    pub const FP16SA: u32 = F::Fp16StorageArith.bit();
    pub const FP16SA64: u32 = F::Fp16StorageArithInt64.bit();
    pub const FP16SAU: u32 = F::Fp16StorageArithUniform.bit();
    pub const BF16P_WORD: u32 = F::Bf16PackedWord.bit();
    pub const BF16P_16: u32 = F::Bf16Packed16.bit();
    pub const BF16P_16L: u32 = F::Bf16Packed16Local.bit();
    pub const BF16S: u32 = F::Bf16Storage.bit();

    /// fp16p with or without fp16a: the halves live in shared words.
    pub const FP16P_ANY: u32 = FP16P | FP16PA;
    /// fp16s+fp16a in any local-memory form: storage and arithmetic are both fp16.
    pub const FP16SA_ANY: u32 = FP16SA | FP16SA64 | FP16SAU;
    /// bf16p with `uint16_t` elements.
    pub const BF16P_16_ANY: u32 = BF16P_16 | BF16P_16L;
    /// Every bf16p form.
    pub const BF16P_ANY: u32 = BF16P_WORD | BF16P_16_ANY;
    /// Where two 16-bit elements share one 32-bit word.
    pub const SHARED_WORD: u32 = FP16P_ANY | BF16P_WORD;
    /// Every column.
    pub const ALL: u32 = (1 << super::FloatClass::ALL.len()) - 1;
}

/// Column masks for the int8 tables.
pub(crate) mod i8col {
    use super::Int8Class as C;

    pub const PACKED: u32 = C::Packed.bit();
    pub const STORAGE: u32 = C::Storage.bit();
    pub const ALL: u32 = PACKED | STORAGE;
}

/// Column masks for the int16 tables.
pub(crate) mod i16col {
    use super::Int16Class as C;

    pub const PLAIN: u32 = C::Plain.bit();
    pub const PACKED: u32 = C::Packed.bit();
    pub const PACKED_I16: u32 = C::PackedI16.bit();
    pub const STORAGE: u32 = C::Storage.bit();
    pub const STORAGE_I16: u32 = C::StorageI16.bit();
    pub const PACKED_ANY: u32 = PACKED | PACKED_I16;
    pub const STORAGE_ANY: u32 = STORAGE | STORAGE_I16;
    /// Where `aint16` is `int16_t`.
    pub const I16: u32 = PACKED_I16 | STORAGE_I16;
    /// Where `aint16` is `int`.
    pub const NO_I16: u32 = PLAIN | PACKED | STORAGE;
    pub const ALL: u32 = PLAIN | PACKED_ANY | STORAGE_ANY;
}

use fcol::*;

/// Section 3, one row per name. `None`: the name is not defined there.
pub(crate) const FLOAT_TYPES: &[Row] = &[
    Row::obj(
        "sfp",
        &[
            (FP32, Some("float")),
            (SHARED_WORD, Some("uint")),
            (FP16S | FP16SA_ANY, Some("float16_t")),
            (BF16P_16_ANY, Some("uint16_t")),
            (BF16S, Some("bfloat16_t")),
        ],
    ),
    Row::obj(
        "sfpvec2",
        &[
            (FP32, Some("vec2")),
            (FP16P_ANY | BF16P_ANY, Some("uint")),
            (FP16S | FP16SA_ANY, Some("f16vec2")),
            (BF16S, Some("bf16vec2")),
        ],
    ),
    Row::obj(
        "sfpvec4",
        &[
            (FP32, Some("vec4")),
            (FP16P_ANY | BF16P_ANY, Some("uvec2")),
            (FP16S | FP16SA_ANY, Some("f16vec4")),
            (BF16S, Some("bf16vec4")),
        ],
    ),
    Row::obj(
        "sfpmat4",
        &[
            (FP32, Some("mat4")),
            (FP16SA_ANY, Some("f16mat4")),
            (FP16P_ANY | FP16S | BF16P_ANY | BF16S, None),
        ],
    ),
    Row::obj(
        "afp",
        &[
            (FP16PA | FP16SA_ANY, Some("float16_t")),
            (FP32 | FP16P | FP16S | BF16P_ANY | BF16S, Some("float")),
        ],
    ),
    Row::obj(
        "afpvec2",
        &[
            (FP16PA | FP16SA_ANY, Some("f16vec2")),
            (FP32 | FP16P | FP16S | BF16P_ANY | BF16S, Some("vec2")),
        ],
    ),
    Row::obj(
        "afpvec4",
        &[
            (FP16PA | FP16SA_ANY, Some("f16vec4")),
            (FP32 | FP16P | FP16S | BF16P_ANY | BF16S, Some("vec4")),
        ],
    ),
    Row::obj(
        "afpmat4",
        &[
            (FP16PA | FP16SA_ANY, Some("f16mat4")),
            (FP32 | FP16P | FP16S | BF16P_ANY | BF16S, Some("mat4")),
        ],
    ),
    Row::obj(
        "lfp",
        &[
            (
                FP32 | FP16P_ANY | FP16S | FP16SA | FP16SA64 | BF16P_WORD | BF16P_16,
                Some("float"),
            ),
            (FP16SAU, Some("float16_t")),
            (BF16P_16L, Some("uint16_t")),
            (BF16S, Some("bfloat16_t")),
        ],
    ),
    Row::obj(
        "lfpvec4",
        &[
            (FP32, Some("vec4")),
            (FP16P_ANY | FP16S | FP16SA | BF16P_ANY, Some("uvec2")),
            (FP16SA64 | FP16SAU, Some("f16vec4")),
            (BF16S, Some("bf16vec4")),
        ],
    ),
];

/// Section 5, int8 types.
pub(crate) const INT8_TYPES: &[Row] = &[
    Row::obj(
        "sint8",
        &[
            (i8col::PACKED, Some("int")),
            (i8col::STORAGE, Some("int8_t")),
        ],
    ),
    Row::obj("sint8vec4", &[(i8col::ALL, Some("int"))]),
    Row::obj("aint8", &[(i8col::ALL, Some("int"))]),
    Row::obj("aint8vec4", &[(i8col::ALL, Some("ivec4"))]),
];

/// Section 5, int16 types.
pub(crate) const INT16_TYPES: &[Row] = {
    use i16col::*;
    &[
        Row::obj(
            "sint16",
            &[
                (PLAIN | PACKED_ANY, Some("int")),
                (STORAGE_ANY, Some("int16_t")),
            ],
        ),
        Row::obj(
            "sint16vec4",
            &[
                (PLAIN, Some("ivec4")),
                (PACKED_ANY, Some("ivec2")),
                (STORAGE_ANY, Some("i16vec4")),
            ],
        ),
        Row::obj(
            "lint16",
            &[
                (PLAIN | PACKED_ANY, Some("int")),
                (STORAGE_ANY, Some("int16_t")),
            ],
        ),
        Row::obj(
            "lint16vec4",
            &[
                (PLAIN, Some("ivec4")),
                (PACKED_ANY, Some("ivec2")),
                (STORAGE_ANY, Some("i16vec4")),
            ],
        ),
        Row::obj("aint16", &[(NO_I16, Some("int")), (I16, Some("int16_t"))]),
        Row::obj(
            "aint16vec4",
            &[(NO_I16, Some("ivec4")), (I16, Some("i16vec4"))],
        ),
    ]
};
