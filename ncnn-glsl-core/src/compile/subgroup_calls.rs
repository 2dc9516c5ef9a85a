//! The subgroup functions naga's IR has no form for, written as glslang
//! writes them: `subgroupElect`, `subgroupAllEqual`, `subgroupInverseBallot`,
//! the ballot bit queries, the clustered reductions and the scans with
//! min, max, and, or, xor.
//!
//! - Text: each function the text calls is given to naga as an overload per
//!   argument type with a placeholder body (`bool subgroupElect() { return
//!   false; }`), after `#version`, for naga only.
//! - IR: a clustered reduction's cluster size must be a constant power of
//!   two (glslang refuses anything else), refused at the call otherwise and
//!   else given to the call as a `uint` literal (a constant in the words).
//! - Words: the module is written with debug names; each `OpFunctionCall`
//!   of a placeholder (found by its name) becomes the `OpGroupNonUniform*`
//!   instruction glslang emits, on the call's own result type, result id and
//!   arguments, with the subgroup scope; the placeholders are removed, and
//!   `GroupNonUniform` and the operation's capability declared (so the
//!   runtime asks the device for the subgroup operations glslang's blob
//!   asks for: basic for elect, vote for all-equal, ballot for the ballot
//!   functions, clustered for the clustered reductions, arithmetic for the
//!   scans). The debug names are then dropped unless asked for: the writer
//!   names nothing else, so the words are what it writes without them.

use std::collections::{BTreeSet, HashMap, HashSet};

use naga::{Expression, Handle, Literal, Module, Statement};

use super::atomics::Unsupported;
use super::source_text::brace_depths;
use super::spirv_edit::{inst, Rewrite};
use super::tokens::{Kind, Token};
use crate::spirv::op;

/// What a placeholder takes and gives.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    /// `bool f()`.
    Elect,
    /// `bool f(T v)`, every scalar and vector type.
    AllEqual,
    /// `R f(uvec4 v)`, R the result type.
    Ballot(&'static str),
    /// `bool f(uvec4 v, uint index)`.
    BallotIndex,
    /// `T f(T v, uint clusterSize)`; integers and booleans when `bits`,
    /// else floats and integers.
    Clustered { bits: bool },
    /// `T f(T v)`, the types as for [`Shape::Clustered`].
    Scan { bits: bool },
}

/// The arithmetic instruction of each scalar kind: float, signed, unsigned,
/// boolean (`None` where GLSL has no such overload).
type Arith = (Option<u16>, u16, u16, Option<u16>);

/// The instruction a call becomes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Write {
    /// The opcode; operands: scope, then the call's arguments.
    Plain(u16),
    /// `OpGroupNonUniformBallotBitCount` with the group operation.
    BitCount(u32),
    /// The arithmetic opcode of the value's scalar kind, with the group
    /// operation; operands: scope, group operation, arguments.
    Arith(Arith, u32),
}

/// One function: GLSL name, shape, instruction, the capability it needs.
struct Function {
    name: &'static str,
    shape: Shape,
    write: Write,
    capability: u32,
}

/// Capabilities.
const CAP_BASIC: u32 = 61;
const CAP_VOTE: u32 = 62;
const CAP_ARITHMETIC: u32 = 63;
const CAP_BALLOT: u32 = 64;
const CAP_CLUSTERED: u32 = 67;

/// Group operations.
const REDUCE: u32 = 0;
const INCLUSIVE: u32 = 1;
const EXCLUSIVE: u32 = 2;
const CLUSTERED: u32 = 3;

/// The `Subgroup` scope.
const SCOPE_SUBGROUP: u32 = 3;

/// `OpName`, `OpMemberName`, `OpFunction`, `OpFunctionEnd`, `OpFunctionCall`.
const NAME: u16 = 5;
const MEMBER_NAME: u16 = 6;
const FUNCTION_END: u16 = 56;
const FUNCTION_CALL: u16 = 57;

const ADD: Arith = (Some(350), 349, 349, None);
const MUL: Arith = (Some(352), 351, 351, None);
const MIN: Arith = (Some(355), 353, 354, None);
const MAX: Arith = (Some(358), 356, 357, None);
const AND: Arith = (None, 359, 359, Some(362));
const OR: Arith = (None, 360, 360, Some(363));
const XOR: Arith = (None, 361, 361, Some(364));

const fn f(name: &'static str, shape: Shape, write: Write, capability: u32) -> Function {
    Function {
        name,
        shape,
        write,
        capability,
    }
}

const NUMBERS: Shape = Shape::Clustered { bits: false };
const BITS: Shape = Shape::Clustered { bits: true };
const SCAN: Shape = Shape::Scan { bits: false };
const SCAN_BITS: Shape = Shape::Scan { bits: true };

/// Every function this module provides.
const FUNCTIONS: &[Function] = &[
    f("subgroupElect", Shape::Elect, Write::Plain(333), CAP_BASIC),
    f(
        "subgroupAllEqual",
        Shape::AllEqual,
        Write::Plain(336),
        CAP_VOTE,
    ),
    f(
        "subgroupInverseBallot",
        Shape::Ballot("bool"),
        Write::Plain(340),
        CAP_BALLOT,
    ),
    f(
        "subgroupBallotBitExtract",
        Shape::BallotIndex,
        Write::Plain(341),
        CAP_BALLOT,
    ),
    f(
        "subgroupBallotBitCount",
        Shape::Ballot("uint"),
        Write::BitCount(REDUCE),
        CAP_BALLOT,
    ),
    f(
        "subgroupBallotInclusiveBitCount",
        Shape::Ballot("uint"),
        Write::BitCount(INCLUSIVE),
        CAP_BALLOT,
    ),
    f(
        "subgroupBallotExclusiveBitCount",
        Shape::Ballot("uint"),
        Write::BitCount(EXCLUSIVE),
        CAP_BALLOT,
    ),
    f(
        "subgroupBallotFindLSB",
        Shape::Ballot("uint"),
        Write::Plain(343),
        CAP_BALLOT,
    ),
    f(
        "subgroupBallotFindMSB",
        Shape::Ballot("uint"),
        Write::Plain(344),
        CAP_BALLOT,
    ),
    f(
        "subgroupClusteredAdd",
        NUMBERS,
        Write::Arith(ADD, CLUSTERED),
        CAP_CLUSTERED,
    ),
    f(
        "subgroupClusteredMul",
        NUMBERS,
        Write::Arith(MUL, CLUSTERED),
        CAP_CLUSTERED,
    ),
    f(
        "subgroupClusteredMin",
        NUMBERS,
        Write::Arith(MIN, CLUSTERED),
        CAP_CLUSTERED,
    ),
    f(
        "subgroupClusteredMax",
        NUMBERS,
        Write::Arith(MAX, CLUSTERED),
        CAP_CLUSTERED,
    ),
    f(
        "subgroupClusteredAnd",
        BITS,
        Write::Arith(AND, CLUSTERED),
        CAP_CLUSTERED,
    ),
    f(
        "subgroupClusteredOr",
        BITS,
        Write::Arith(OR, CLUSTERED),
        CAP_CLUSTERED,
    ),
    f(
        "subgroupClusteredXor",
        BITS,
        Write::Arith(XOR, CLUSTERED),
        CAP_CLUSTERED,
    ),
    f(
        "subgroupInclusiveMin",
        SCAN,
        Write::Arith(MIN, INCLUSIVE),
        CAP_ARITHMETIC,
    ),
    f(
        "subgroupInclusiveMax",
        SCAN,
        Write::Arith(MAX, INCLUSIVE),
        CAP_ARITHMETIC,
    ),
    f(
        "subgroupInclusiveAnd",
        SCAN_BITS,
        Write::Arith(AND, INCLUSIVE),
        CAP_ARITHMETIC,
    ),
    f(
        "subgroupInclusiveOr",
        SCAN_BITS,
        Write::Arith(OR, INCLUSIVE),
        CAP_ARITHMETIC,
    ),
    f(
        "subgroupInclusiveXor",
        SCAN_BITS,
        Write::Arith(XOR, INCLUSIVE),
        CAP_ARITHMETIC,
    ),
    f(
        "subgroupExclusiveMin",
        SCAN,
        Write::Arith(MIN, EXCLUSIVE),
        CAP_ARITHMETIC,
    ),
    f(
        "subgroupExclusiveMax",
        SCAN,
        Write::Arith(MAX, EXCLUSIVE),
        CAP_ARITHMETIC,
    ),
    f(
        "subgroupExclusiveAnd",
        SCAN_BITS,
        Write::Arith(AND, EXCLUSIVE),
        CAP_ARITHMETIC,
    ),
    f(
        "subgroupExclusiveOr",
        SCAN_BITS,
        Write::Arith(OR, EXCLUSIVE),
        CAP_ARITHMETIC,
    ),
    f(
        "subgroupExclusiveXor",
        SCAN_BITS,
        Write::Arith(XOR, EXCLUSIVE),
        CAP_ARITHMETIC,
    ),
];

const FLOATS: &[&str] = &["float", "vec2", "vec3", "vec4"];
const FLOAT16S: &[&str] = &["float16_t", "f16vec2", "f16vec3", "f16vec4"];
const INTS: &[&str] = &[
    "int", "ivec2", "ivec3", "ivec4", "uint", "uvec2", "uvec3", "uvec4",
];
const BOOLS: &[&str] = &["bool", "bvec2", "bvec3", "bvec4"];

/// The functions `src` calls that this module provides: a name before `(`,
/// left out where the text declares a function of that name itself (a
/// name after a type at global scope), which naga then calls instead.
pub(crate) fn called(src: &str, toks: &[Token]) -> Vec<&'static str> {
    let depth = brace_depths(src, toks);
    let mut called = BTreeSet::new();
    let mut own = HashSet::new();
    for (k, t) in toks.iter().enumerate() {
        if t.kind != Kind::Ident || !toks.get(k + 1).is_some_and(|n| n.is_punct(src, '(')) {
            continue;
        }
        let Some(f) = FUNCTIONS.iter().find(|f| f.name == t.text(src)) else {
            continue;
        };
        let after_type = k > 0 && toks[k - 1].kind == Kind::Ident;
        if depth[k] == 0 && after_type {
            own.insert(f.name);
        } else {
            called.insert(f.name);
        }
    }
    FUNCTIONS
        .iter()
        .map(|f| f.name)
        .filter(|n| called.contains(n) && !own.contains(n))
        .collect()
}

/// The naga-only placeholders of `names`, on one line; float16 overloads
/// where the text names a float16 type.
pub(crate) fn prototypes(names: &[&str], src: &str, toks: &[Token]) -> String {
    let half = toks
        .iter()
        .any(|t| t.kind == Kind::Ident && FLOAT16S.contains(&t.text(src)));
    let halves: &[&str] = if half { FLOAT16S } else { &[] };
    let mut s = String::new();
    for f in FUNCTIONS.iter().filter(|f| names.contains(&f.name)) {
        let name = f.name;
        let types = |bits: bool| -> Vec<&str> {
            if bits {
                INTS.iter().chain(BOOLS).copied().collect()
            } else {
                FLOATS.iter().chain(halves).chain(INTS).copied().collect()
            }
        };
        match f.shape {
            Shape::Elect => s += &format!("bool {name}() {{ return false; }} "),
            Shape::AllEqual => {
                for ty in FLOATS.iter().chain(halves).chain(INTS).chain(BOOLS) {
                    s += &format!("bool {name}({ty} v) {{ return false; }} ");
                }
            }
            Shape::Ballot(result) => {
                let zero = if result == "bool" { "false" } else { "0u" };
                s += &format!("{result} {name}(uvec4 v) {{ return {zero}; }} ");
            }
            Shape::BallotIndex => {
                s += &format!("bool {name}(uvec4 v, uint i) {{ return false; }} ");
            }
            Shape::Clustered { bits } => {
                // `int` sizes too: `f(int, 2)` would be ambiguous for naga
                // between the `int` and `uint` overloads (glslang converts
                // a constant size to `uint`; so do the word pass).
                for ty in types(bits) {
                    s += &format!("{ty} {name}({ty} v, uint n) {{ return v; }} ");
                    s += &format!("{ty} {name}({ty} v, int n) {{ return v; }} ");
                }
            }
            Shape::Scan { bits } => {
                for ty in types(bits) {
                    s += &format!("{ty} {name}({ty} v) {{ return v; }} ");
                }
            }
        }
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// The IR step: each clustered reduction's cluster size, which must be a
/// constant power of two, becomes a `uint` literal argument; the calls
/// whose size is not are returned.
pub(crate) fn cluster_sizes(module: &mut Module, names: &[&str]) -> Vec<Unsupported> {
    let clustered: Vec<Handle<naga::Function>> = module
        .functions
        .iter()
        .filter(|(_, f)| {
            let name = f.name.as_deref().unwrap_or("");
            names.contains(&name)
                && FUNCTIONS
                    .iter()
                    .any(|p| p.name == name && matches!(p.shape, Shape::Clustered { .. }))
        })
        .map(|(h, _)| h)
        .collect();
    let mut refused = Vec::new();
    if clustered.is_empty() {
        return refused;
    }
    // Each placeholder's name, and whether its size parameter is `int`.
    let names_of: HashMap<Handle<naga::Function>, (String, bool)> = clustered
        .iter()
        .map(|h| {
            let f = &module.functions[*h];
            let signed = f.arguments.get(1).is_some_and(|a| {
                module.types[a.ty].inner.scalar_kind() == Some(naga::ScalarKind::Sint)
            });
            (*h, (f.name.clone().unwrap_or_default(), signed))
        })
        .collect();
    let constants = &module.constants;
    let globals = &module.global_expressions;
    let mut fix = |f: &mut naga::Function| {
        let mut calls = Vec::new();
        super::ir_walk::each(&f.body, &mut |s, span| {
            if let Statement::Call {
                function,
                arguments,
                ..
            } = s
            {
                if let (Some((name, signed)), Some(&size)) =
                    (names_of.get(function), arguments.get(1))
                {
                    calls.push((*span, name.clone(), *signed, size));
                }
            }
        });
        let mut literals = HashMap::new();
        for (span, name, signed, size) in calls {
            match constant_value(f, constants, globals, size) {
                Some(n) if n > 0 && (n & (n - 1)) == 0 && n <= i64::from(i32::MAX) => {
                    let literal = if signed {
                        Literal::I32(n as i32)
                    } else {
                        Literal::U32(n as u32)
                    };
                    let lit = f.expressions.append(Expression::Literal(literal), span);
                    literals.insert(size, lit);
                }
                Some(n) => refused.push(Unsupported {
                    span,
                    what: format!(
                        "the cluster size of `{name}` is {n}: it must be a power of two \
                         (glslang refuses it too)"
                    ),
                }),
                None => refused.push(Unsupported {
                    span,
                    what: format!(
                        "the cluster size of `{name}` must be a constant integer expression \
                         (a literal or a `const`; glslang refuses it too)"
                    ),
                }),
            }
        }
        super::ir_walk::each_mut(&mut f.body, &mut |s, _| {
            if let Statement::Call {
                function,
                arguments,
                ..
            } = s
            {
                if names_of.contains_key(function) {
                    if let Some(lit) = arguments.get(1).and_then(|a| literals.get(a)) {
                        arguments[1] = *lit;
                    }
                }
            }
        });
    };
    for (_, f) in module.functions.iter_mut() {
        fix(f);
    }
    for e in module.entry_points.iter_mut() {
        fix(&mut e.function);
    }
    refused
}

/// The integer value of `h` when it is a constant: a literal, a named
/// constant, a conversion of one, or a local initialized with one and never
/// written.
fn constant_value(
    f: &naga::Function,
    constants: &naga::Arena<naga::Constant>,
    globals: &naga::Arena<Expression>,
    h: Handle<Expression>,
) -> Option<i64> {
    let literal = |e: &Expression| match *e {
        Expression::Literal(Literal::U32(v)) => Some(i64::from(v)),
        Expression::Literal(Literal::I32(v)) => Some(i64::from(v)),
        Expression::Literal(Literal::AbstractInt(v)) => Some(v),
        _ => None,
    };
    let global = |c: Handle<naga::Constant>| globals.try_get(constants.try_get(c).ok()?.init).ok();
    let mut h = h;
    // Conversions and loads nest a few deep at most; bound the walk anyway.
    for _ in 0..8 {
        let e = f.expressions.try_get(h).ok()?;
        match *e {
            Expression::Constant(c) => return global(c).and_then(literal),
            Expression::As {
                expr,
                kind: naga::ScalarKind::Uint | naga::ScalarKind::Sint,
                ..
            } => h = expr,
            Expression::Load { pointer } => {
                let Expression::LocalVariable(v) = *f.expressions.try_get(pointer).ok()? else {
                    return None;
                };
                if stored(f, pointer, v) {
                    return None;
                }
                h = f.local_variables.try_get(v).ok()?.init?;
            }
            ref e => return literal(e),
        }
    }
    None
}

/// Whether the function writes the local `v` (through `pointer` or any
/// other expression of it).
fn stored(f: &naga::Function, pointer: Handle<Expression>, v: Handle<naga::LocalVariable>) -> bool {
    let of_v: HashSet<Handle<Expression>> = f
        .expressions
        .iter()
        .filter(|(_, e)| matches!(e, Expression::LocalVariable(l) if *l == v))
        .map(|(h, _)| h)
        .chain(std::iter::once(pointer))
        .collect();
    let mut written = false;
    super::ir_walk::each(&f.body, &mut |s, _| match s {
        Statement::Store { pointer, .. } if of_v.contains(pointer) => written = true,
        // Passed to a function (`out`, `inout`): written, as far as we know.
        Statement::Call { arguments, .. } if arguments.iter().any(|a| of_v.contains(a)) => {
            written = true
        }
        _ => {}
    });
    written
}

/// The word pass: every call of a placeholder among `names` (found by its
/// debug name) becomes its instruction; the placeholders go, the
/// capabilities come. Every debug name goes too unless `keep_names`.
/// Returns how many calls were written. `Err` when the framing is broken or
/// a call is not as the placeholders make it.
pub(crate) fn write_calls(
    words: &mut Vec<u32>,
    names: &[&str],
    keep_names: bool,
) -> Result<usize, String> {
    let mut m = Rewrite::new(words)?;
    let named: HashMap<u32, String> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == NAME && w.len() > 2)
        .map(|w| (w[1], string(&w[2..])))
        .collect();
    let placeholders: HashMap<u32, &Function> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == op::FUNCTION && w.len() == 5)
        .filter_map(|w| {
            let name = named.get(&w[2])?;
            let f = FUNCTIONS
                .iter()
                .find(|f| f.name == name && names.contains(&f.name))?;
            Some((w[2], f))
        })
        .collect();
    let mut n = 0;
    let mut capabilities = BTreeSet::new();
    if !placeholders.is_empty() {
        let uint = m.int_type(false);
        let mut constants = Constants::of(&m, uint);
        let scope = constants.uint(&mut m.header, SCOPE_SUBGROUP);
        let kinds = scalar_kinds(&m);
        for w in m.insts.iter_mut() {
            if Rewrite::op(w) != FUNCTION_CALL || w.len() < 4 {
                continue;
            }
            let Some(f) = placeholders.get(&w[3]) else {
                continue;
            };
            let (result_type, result, mut args) = (w[1], w[2], w[4..].to_vec());
            let arity = match f.shape {
                Shape::Elect => 0,
                Shape::BallotIndex | Shape::Clustered { .. } => 2,
                _ => 1,
            };
            if args.len() != arity {
                return Err(format!(
                    "a call of `{}` with {} arguments",
                    f.name,
                    args.len()
                ));
            }
            let head = [result_type, result, scope];
            *w = match f.write {
                Write::Plain(opcode) => inst(opcode, &[&head[..], &args].concat()),
                Write::BitCount(group) => inst(342, &[&head[..], &[group], &args].concat()),
                Write::Arith(ops, group) => {
                    let opcode = match kinds.get(&result_type) {
                        Some(Scalar::Float) => ops.0,
                        Some(Scalar::Sint) => Some(ops.1),
                        Some(Scalar::Uint) => Some(ops.2),
                        Some(Scalar::Bool) => ops.3,
                        None => None,
                    }
                    .ok_or_else(|| format!("`{}` on a type it has no form for", f.name))?;
                    if group == CLUSTERED {
                        // A constant (the IR step made it a literal), as a
                        // `uint`: SPIR-V wants an unsigned cluster size.
                        let value = constants.value.get(&args[1]).copied().ok_or_else(|| {
                            format!("the cluster size of `{}` is no constant", f.name)
                        })?;
                        args[1] = constants.uint(&mut m.header, value);
                    }
                    inst(opcode, &[&head[..], &[group], &args].concat())
                }
            };
            capabilities.insert(CAP_BASIC);
            capabilities.insert(f.capability);
            n += 1;
        }
        // The constants declared on the way, before the first function.
        let at = m
            .insts
            .iter()
            .position(|w| Rewrite::op(w) == op::FUNCTION)
            .unwrap_or(m.insts.len());
        let new: Vec<Vec<u32>> = constants
            .new
            .iter()
            .map(|&(id, value)| inst(op::CONSTANT, &[uint, id, value]))
            .collect();
        m.insts.splice(at..at, new);
    }
    // The placeholders' bodies, and the names of what they defined.
    let mut removed: HashSet<u32> = HashSet::new();
    let mut inside = false;
    m.insts.retain(|w| {
        let o = Rewrite::op(w);
        if o == op::FUNCTION && w.len() == 5 && placeholders.contains_key(&w[2]) {
            inside = true;
        }
        if inside {
            if let Some(id) = defined(w) {
                removed.insert(id);
            }
            if o == FUNCTION_END {
                inside = false;
            }
            return false;
        }
        true
    });
    m.insts.retain(|w| {
        let o = Rewrite::op(w);
        let names = o == NAME || o == MEMBER_NAME;
        !(names && (!keep_names || w.get(1).is_some_and(|id| removed.contains(id))))
    });
    let declared: HashSet<u32> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == op::CAPABILITY)
        .filter_map(|w| w.get(1).copied())
        .collect();
    let last = m
        .insts
        .iter()
        .rposition(|w| Rewrite::op(w) == op::CAPABILITY)
        .map_or(0, |k| k + 1);
    let new: Vec<Vec<u32>> = capabilities
        .into_iter()
        .filter(|c| !declared.contains(c))
        .map(|c| inst(op::CAPABILITY, &[c]))
        .collect();
    m.insts.splice(last..last, new);
    *words = m.words();
    Ok(n)
}

/// The scalar kind of a numeric or boolean type.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scalar {
    Float,
    Sint,
    Uint,
    Bool,
}

/// The scalar kind of every scalar and vector type of the module.
fn scalar_kinds(m: &Rewrite) -> HashMap<u32, Scalar> {
    let mut kinds = HashMap::new();
    for w in &m.insts {
        let (Some(&id), a) = (w.get(1), w.get(2)) else {
            continue;
        };
        let kind = match Rewrite::op(w) {
            op::TYPE_FLOAT => Some(Scalar::Float),
            op::TYPE_INT if w.get(3) == Some(&1) => Some(Scalar::Sint),
            op::TYPE_INT => Some(Scalar::Uint),
            // OpTypeBool
            20 => Some(Scalar::Bool),
            op::TYPE_VECTOR => a.and_then(|c| kinds.get(c).copied()),
            _ => None,
        };
        if let Some(k) = kind {
            kinds.insert(id, k);
        }
    }
    kinds
}

/// The module's 32-bit constants: each one's value, the `uint` ones by
/// value, and those to declare.
struct Constants {
    value: HashMap<u32, u32>,
    uints: HashMap<u32, u32>,
    new: Vec<(u32, u32)>,
}

impl Constants {
    fn of(m: &Rewrite, uint: u32) -> Constants {
        let mut c = Constants {
            value: HashMap::new(),
            uints: HashMap::new(),
            new: Vec::new(),
        };
        for w in &m.insts {
            if Rewrite::op(w) == op::CONSTANT && w.len() == 4 {
                c.value.insert(w[2], w[3]);
                if w[1] == uint {
                    c.uints.entry(w[3]).or_insert(w[2]);
                }
            }
        }
        c
    }

    /// The id of the `uint` constant `value`; a new one takes the next id
    /// of the module's bound (`header`, as `Rewrite::fresh_id` keeps it)
    /// and is listed in `new`.
    fn uint(&mut self, header: &mut [u32], value: u32) -> u32 {
        if let Some(&id) = self.uints.get(&value) {
            return id;
        }
        let id = header[3];
        header[3] += 1;
        self.uints.insert(value, id);
        self.value.insert(id, value);
        self.new.push((id, value));
        id
    }
}

/// The id a function, parameter, label or variable defines: what a debug
/// name can name inside a function.
fn defined(w: &[u32]) -> Option<u32> {
    match Rewrite::op(w) {
        // OpLabel
        248 => w.get(1).copied(),
        // OpFunction, OpFunctionParameter, OpVariable
        54 | 55 | 59 => w.get(2).copied(),
        _ => None,
    }
}

/// The nul-terminated string in `words`.
fn string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
