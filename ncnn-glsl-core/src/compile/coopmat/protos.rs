//! The names the text pass writes in place of GLSL's, and the naga-only
//! declarations that make naga parse them: a struct per type, prototypes of
//! the loads, stores, multiply-adds and constructors the text calls. Also
//! the way back: naga's messages with the GLSL names.

use super::{CoopType, Flavor, Use};

/// A GLSL function and the name that replaces it in place (no longer).
pub(crate) const CALLS: &[(&str, &str)] = &[
    ("coopMatLoad", LOAD),
    ("coopMatStore", STORE),
    ("coopMatMulAdd", MUL_ADD),
    ("coopMatLoadNV", LOAD_NV),
    ("coopMatStoreNV", STORE_NV),
    ("coopMatMulAddNV", MUL_ADD_NV),
];

pub(crate) const LOAD: &str = "ncnnext_cml";
pub(crate) const STORE: &str = "ncnnext_cms";
pub(crate) const MUL_ADD: &str = "ncnnext_cmma";
pub(crate) const LOAD_NV: &str = "ncnnext_nvl";
pub(crate) const STORE_NV: &str = "ncnnext_nvs";
pub(crate) const MUL_ADD_NV: &str = "ncnnext_nvma";

/// The prefix of the placeholder structs (`ncnnext_cm3`) and of the
/// constructors (`ncnnext_cmc3`).
pub(crate) const TYPE_PREFIX: &str = "ncnnext_cm";
pub(crate) const CTOR_PREFIX: &str = "ncnnext_cmc";
/// The prefixes of the placeholder globals of a load or store through a
/// placeholder pointer (`ncnnext_cmp3`, `ncnnext_cmq3`).
pub(crate) const POINTER_PREFIX: &str = "ncnnext_cmp";
pub(crate) const SINK_PREFIX: &str = "ncnnext_cmq";

/// The placeholder struct of type `n`.
pub(crate) fn type_name(n: usize) -> String {
    format!("{TYPE_PREFIX}{n}")
}

/// The constructor of type `n`.
pub(crate) fn ctor_name(n: usize) -> String {
    format!("{CTOR_PREFIX}{n}")
}

/// The type a placeholder struct name stands for.
pub(crate) fn type_index(name: &str) -> Option<usize> {
    let digits = name.strip_prefix(TYPE_PREFIX)?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The type a constructor name builds.
pub(crate) fn ctor_index(name: &str) -> Option<usize> {
    let digits = name.strip_prefix(CTOR_PREFIX)?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The element types an array argument of a load or store may have: the
/// scalars and vectors of 32-bit and 16-bit floats and 32-bit integers (what
/// naga can declare in a buffer or `shared`).
pub(crate) const ELEMENTS: &[&str] = &[
    "float",
    "vec2",
    "vec3",
    "vec4",
    "float16_t",
    "f16vec2",
    "f16vec3",
    "f16vec4",
    "int",
    "ivec2",
    "ivec3",
    "ivec4",
    "uint",
    "uvec2",
    "uvec3",
    "uvec4",
];

/// The scalar types a constructor takes (converted to the element type by
/// the IR pass, as GLSL does).
pub(crate) const SCALARS: &[&str] = &["float", "float16_t", "int", "uint"];

/// Which calls the text makes, for the prototypes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Called {
    pub load: bool,
    pub store: bool,
    pub mul_add: bool,
    pub load_nv: bool,
    pub store_nv: bool,
    pub mul_add_nv: bool,
}

/// The naga-only declarations for `types`: a struct each, and the
/// prototypes of what the text calls (`ctors[n]`: type `n` is constructed).
pub(crate) fn prototypes(types: &[CoopType], called: Called, ctors: &[bool]) -> String {
    let mut s = String::new();
    for (n, t) in types.iter().enumerate() {
        let elem = if t.key.half { "float16_t" } else { "float" };
        // The member's name tells the structs apart: naga compares
        // overloads by the types' contents, not their names.
        s += &format!("struct {} {{ {elem} x{n}; }}; ", type_name(n));
    }
    let of = |f: Flavor| {
        types
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.key.flavor == f)
            .map(|(n, _)| type_name(n))
            .collect::<Vec<_>>()
    };
    let (khr, nv) = (of(Flavor::Khr), of(Flavor::Nv));
    let memory = |s: &mut String, name: &str, out: &str, last: &str, list: &[String]| {
        for t in list {
            for e in ELEMENTS {
                *s += &format!("void {name}({out}{t} m, {e} e, uint s, {last} l); ");
            }
        }
    };
    if called.load {
        memory(&mut s, LOAD, "out ", "int", &khr);
    }
    if called.store {
        memory(&mut s, STORE, "", "int", &khr);
    }
    if called.load_nv {
        memory(&mut s, LOAD_NV, "out ", "bool", &nv);
    }
    if called.store_nv {
        memory(&mut s, STORE_NV, "", "bool", &nv);
    }
    let with_use = |u: Use| {
        types
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.key.flavor == Flavor::Khr && t.key.use_ == Some(u))
            .map(|(n, _)| type_name(n))
            .collect::<Vec<_>>()
    };
    if called.mul_add {
        for a in with_use(Use::A) {
            for b in with_use(Use::B) {
                for c in with_use(Use::Accumulator) {
                    s += &format!("{c} {MUL_ADD}({a} a, {b} b, {c} c); ");
                }
            }
        }
    }
    if called.mul_add_nv {
        for a in &nv {
            for b in &nv {
                for c in &nv {
                    s += &format!("{c} {MUL_ADD_NV}({a} a, {b} b, {c} c); ");
                }
            }
        }
    }
    for (n, t) in types.iter().enumerate() {
        if !ctors.get(n).copied().unwrap_or(false) {
            continue;
        }
        let (ty, ctor) = (type_name(n), ctor_name(n));
        for x in SCALARS {
            s += &format!("{ty} {ctor}({x} x); ");
        }
        for (k, other) in types.iter().enumerate() {
            if other.key.flavor == t.key.flavor {
                s += &format!("{ty} {ctor}({} x); ", type_name(k));
            }
        }
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// naga's frontend's message about what it cannot type in a text with
/// cooperative matrices, said in the shader's terms, where it is one the
/// placeholders cause (the frontend types an operand when an operation
/// needs it, so these come before the IR step's refusals, `operators.rs`).
pub(crate) fn frontend_message(message: &str) -> Option<&'static str> {
    if message.starts_with("Can't resolve type: InvalidSubAccess") {
        Some(
            "an index naga cannot type: an element of a cooperative matrix (`m[i]`, \
             `m.length()`), which naga's IR has no access to (glslang writes one), or an index \
             of a value that has no elements; work on the matrix through `coopMatStore` to \
             `shared` memory",
        )
    } else if message.starts_with("Can't resolve type: IncompatibleOperands(\"Struct")
        && message.contains("name: Some(\\\"x")
    {
        Some(
            "an operation naga cannot type on two cooperative matrices: a component-wise `*` \
             or `/`, which naga's IR has no form for (glslang writes one), reported where the \
             result is first used; multiply by a scalar, use `coopMatMulAdd`, or go through \
             `shared` memory",
        )
    } else {
        None
    }
}

/// `message` with the placeholder names put back as the user wrote them.
pub(crate) fn reword(message: &str, types: &[CoopType]) -> String {
    if !message.contains("ncnnext_") {
        return message.to_string();
    }
    let mut out = String::with_capacity(message.len());
    let b = message.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        if message[i..].starts_with("ncnnext_") && (i == 0 || !is_word(b[i - 1])) {
            let end = (i..b.len()).find(|&j| !is_word(b[j])).unwrap_or(b.len());
            let word = &message[i..end];
            let glsl = CALLS
                .iter()
                .find(|(_, ours)| *ours == word)
                .map(|(g, _)| g.to_string())
                .or_else(|| {
                    type_index(word)
                        .and_then(|n| types.get(n))
                        .map(|t| t.text.clone())
                })
                .or_else(|| {
                    ctor_index(word)
                        .and_then(|n| types.get(n))
                        .map(|t| t.text.clone())
                });
            out += glsl.as_deref().unwrap_or(word);
            i = end;
        } else {
            let c = message[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}
