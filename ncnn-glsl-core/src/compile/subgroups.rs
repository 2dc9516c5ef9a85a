//! Subgroups (`GL_KHR_shader_subgroup_*`): naga's IR has the built-in
//! variables and the operations, its GLSL frontend has neither.
//!
//! - The built-in variables (`gl_SubgroupSize`, ...) are renamed in place to
//!   `nx_SubgroupSize`, ... (same length: the text's offsets stay), declared
//!   to naga as plain globals, and made built-ins here the way naga's
//!   frontend makes `gl_GlobalInvocationID` one: an argument of the entry
//!   point with the built-in binding, stored into the global before `main`
//!   runs.
//! - The functions are given to naga as body-less prototypes, one per
//!   argument type (naga-only text, after `#version`), and each call becomes
//!   the IR's statement: collective operation, ballot, gather or barrier.
//!
//! The writer derives the capabilities from the statements (`GroupNonUniform`,
//! `...Arithmetic`, `...Ballot`, ...), and the reflection turns them into the
//! subgroup operations the device must support (`Requirements::subgroup_operations`).
//! naga's writer emits `subgroupBroadcast` as `OpGroupNonUniformShuffle`;
//! `subgroup_broadcast.rs` writes glslang's `OpGroupNonUniformBroadcast`.

use naga::{
    Barrier, Binding, BuiltIn, CollectiveOperation, Direction, Expression, FunctionArgument,
    GatherMode, Handle, Module, Span, Statement, SubgroupOperation,
};

use super::atomics::Unsupported;
use super::tokens::{Kind, Token};

/// The built-in variables: their GLSL name, the naga-only global that
/// stands for each (same length), and the IR built-in.
const BUILT_INS: &[(&str, &str, BuiltIn)] = &[
    ("gl_SubgroupSize", "nx_SubgroupSize", BuiltIn::SubgroupSize),
    (
        "gl_SubgroupInvocationID",
        "nx_SubgroupInvocationID",
        BuiltIn::SubgroupInvocationId,
    ),
    ("gl_NumSubgroups", "nx_NumSubgroups", BuiltIn::NumSubgroups),
    ("gl_SubgroupID", "nx_SubgroupID", BuiltIn::SubgroupId),
];

/// What a call of one of the functions becomes.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// A reduction or scan of the value.
    Collective(SubgroupOperation, CollectiveOperation),
    /// `subgroupBallot(bool)`.
    Ballot,
    /// A gather; `Some` takes the lane (or shift, or mask) as second argument.
    Gather(
        Option<fn(Handle<Expression>) -> GatherMode>,
        Option<GatherMode>,
    ),
    /// `subgroupBarrier()`.
    Barrier,
    /// `subgroupAnd`, `subgroupOr`, `subgroupXor` of a `bool`: naga's
    /// validator refuses them (no logical subgroup operations).
    Logical,
}

/// The argument types a function takes, as a class.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Types {
    /// `bool` only (`subgroupAll`, `subgroupAny`, `subgroupBallot`).
    Bool,
    /// Floats and integers (arithmetic).
    Numbers,
    /// Integers and booleans (bitwise; the `bool` forms are declared so
    /// that a call of one is refused by name, not found ambiguous).
    Bits,
    /// Every scalar and vector (gathers).
    All,
    /// None (`subgroupBarrier`).
    Nothing,
}

use CollectiveOperation::{ExclusiveScan as Ex, InclusiveScan as In, Reduce as Re};

// naga's IR scans with `Add` and `Mul` only: the other scans stay refused.
use SubgroupOperation as Op;

/// The functions this pass provides: GLSL name, argument types, IR form.
const FUNCTIONS: &[(&str, Types, Form)] = &[
    ("subgroupAll", Types::Bool, Form::Collective(Op::All, Re)),
    ("subgroupAny", Types::Bool, Form::Collective(Op::Any, Re)),
    ("subgroupAdd", Types::Numbers, Form::Collective(Op::Add, Re)),
    ("subgroupMul", Types::Numbers, Form::Collective(Op::Mul, Re)),
    ("subgroupMin", Types::Numbers, Form::Collective(Op::Min, Re)),
    ("subgroupMax", Types::Numbers, Form::Collective(Op::Max, Re)),
    ("subgroupAnd", Types::Bits, Form::Collective(Op::And, Re)),
    ("subgroupOr", Types::Bits, Form::Collective(Op::Or, Re)),
    ("subgroupXor", Types::Bits, Form::Collective(Op::Xor, Re)),
    (
        "subgroupInclusiveAdd",
        Types::Numbers,
        Form::Collective(Op::Add, In),
    ),
    (
        "subgroupInclusiveMul",
        Types::Numbers,
        Form::Collective(Op::Mul, In),
    ),
    (
        "subgroupExclusiveAdd",
        Types::Numbers,
        Form::Collective(Op::Add, Ex),
    ),
    (
        "subgroupExclusiveMul",
        Types::Numbers,
        Form::Collective(Op::Mul, Ex),
    ),
    ("subgroupBallot", Types::Bool, Form::Ballot),
    (
        "subgroupBroadcastFirst",
        Types::All,
        Form::Gather(None, Some(GatherMode::BroadcastFirst)),
    ),
    (
        "subgroupBroadcast",
        Types::All,
        Form::Gather(Some(GatherMode::Broadcast), None),
    ),
    (
        "subgroupShuffle",
        Types::All,
        Form::Gather(Some(GatherMode::Shuffle), None),
    ),
    (
        "subgroupShuffleXor",
        Types::All,
        Form::Gather(Some(GatherMode::ShuffleXor), None),
    ),
    (
        "subgroupShuffleUp",
        Types::All,
        Form::Gather(Some(GatherMode::ShuffleUp), None),
    ),
    (
        "subgroupShuffleDown",
        Types::All,
        Form::Gather(Some(GatherMode::ShuffleDown), None),
    ),
    (
        "subgroupQuadBroadcast",
        Types::All,
        Form::Gather(Some(GatherMode::QuadBroadcast), None),
    ),
    (
        "subgroupQuadSwapHorizontal",
        Types::All,
        Form::Gather(None, Some(GatherMode::QuadSwap(Direction::X))),
    ),
    (
        "subgroupQuadSwapVertical",
        Types::All,
        Form::Gather(None, Some(GatherMode::QuadSwap(Direction::Y))),
    ),
    (
        "subgroupQuadSwapDiagonal",
        Types::All,
        Form::Gather(None, Some(GatherMode::QuadSwap(Direction::Diagonal))),
    ),
    ("subgroupBarrier", Types::Nothing, Form::Barrier),
];

/// The scalar and vector types of each class (16-bit floats apart: they
/// exist for naga only where the text uses them).
const FLOATS: &[&str] = &["float", "vec2", "vec3", "vec4"];
const FLOAT16S: &[&str] = &["float16_t", "f16vec2", "f16vec3", "f16vec4"];
const INTS: &[&str] = &[
    "int", "ivec2", "ivec3", "ivec4", "uint", "uvec2", "uvec3", "uvec4",
];
const BOOLS: &[&str] = &["bool", "bvec2", "bvec3", "bvec4"];

/// Whether the text names a subgroup built-in or calls a subgroup function.
pub(crate) fn used(src: &str, toks: &[Token]) -> bool {
    toks.iter().enumerate().any(|(k, t)| {
        t.kind == Kind::Ident && {
            let name = t.text(src);
            BUILT_INS.iter().any(|b| b.0 == name)
                || (toks.get(k + 1).is_some_and(|n| n.is_punct(src, '('))
                    && FUNCTIONS.iter().any(|f| f.0 == name))
        }
    })
}

/// Renames the built-in variables in place (same length).
pub(crate) fn rename_built_ins(text: &mut String, toks: &[Token]) {
    let mut edits = Vec::new();
    for t in toks.iter().filter(|t| t.kind == Kind::Ident) {
        if let Some(b) = BUILT_INS.iter().find(|b| b.0 == t.text(text)) {
            edits.push((t.start, b.1));
        }
    }
    for (at, name) in edits {
        text.replace_range(at..at + name.len(), name);
    }
}

/// The naga-only declarations for what `text` uses (after the renaming),
/// on one line.
pub(crate) fn prototypes(text: &str, toks: &[Token]) -> String {
    let idents: std::collections::HashSet<&str> = toks
        .iter()
        .filter(|t| t.kind == Kind::Ident)
        .map(|t| t.text(text))
        .collect();
    let mut s = String::new();
    for (_, global, _) in BUILT_INS {
        if idents.contains(global) {
            s += &format!("uint {global}; ");
        }
    }
    let half = idents.iter().any(|i| FLOAT16S.contains(i));
    for (name, types, _) in FUNCTIONS.iter().filter(|f| idents.contains(f.0)) {
        let mut tys: Vec<&str> = Vec::new();
        match types {
            Types::Nothing => {
                s += &format!("void {name}(); ");
                continue;
            }
            Types::Bool => tys.push("bool"),
            Types::Numbers => tys.extend(FLOATS.iter().chain(INTS)),
            Types::Bits => tys.extend(INTS.iter().chain(BOOLS)),
            Types::All => tys.extend(FLOATS.iter().chain(INTS).chain(BOOLS)),
        }
        if half && matches!(types, Types::Numbers | Types::All) {
            tys.extend(FLOAT16S);
        }
        let form = FUNCTIONS.iter().find(|f| f.0 == *name).map(|f| f.2);
        for ty in tys {
            match form {
                Some(Form::Ballot) => s += &format!("uvec4 {name}(bool v); "),
                Some(Form::Gather(Some(_), _)) => s += &format!("{ty} {name}({ty} v, uint i); "),
                _ => s += &format!("{ty} {name}({ty} v); "),
            }
        }
    }
    s.push('\n');
    s
}

/// Makes the renamed built-ins built-ins and turns each call of a prototype
/// into its statement; the calls naga's IR cannot express are returned.
pub(crate) fn lower(module: &mut Module) -> Vec<Unsupported> {
    lower_built_ins(module);
    let protos: Vec<(Handle<naga::Function>, Form)> = module
        .functions
        .iter()
        .filter(|(_, f)| f.body.is_empty())
        .filter_map(|(h, f)| {
            let name = f.name.as_deref()?;
            let (_, _, form) = FUNCTIONS.iter().find(|(n, _, _)| *n == name)?;
            let logical = matches!(form, Form::Collective(Op::And | Op::Or | Op::Xor, _))
                && f.arguments.first().is_some_and(|a| {
                    module.types[a.ty].inner.scalar_kind() == Some(naga::ScalarKind::Bool)
                });
            Some((h, if logical { Form::Logical } else { *form }))
        })
        .collect();
    let mut refused = Vec::new();
    if protos.is_empty() {
        return refused;
    }
    let result_types: Vec<Option<Handle<naga::Type>>> = protos
        .iter()
        .map(|(h, _)| module.functions[*h].result.as_ref().map(|r| r.ty))
        .collect();
    let mut lower_fn = |f: &mut naga::Function| {
        let mut ctx = Lowering {
            protos: &protos,
            result_types: &result_types,
            refused: &mut refused,
        };
        ctx.block(&mut f.body, &mut f.expressions);
    };
    for (h, f) in module.functions.iter_mut() {
        if !protos.iter().any(|(p, _)| *p == h) {
            lower_fn(f);
        }
    }
    for e in module.entry_points.iter_mut() {
        lower_fn(&mut e.function);
    }
    refused
}

/// Each renamed built-in that naga declared as a global: an argument of
/// every entry point with the built-in binding, stored into the global
/// first.
fn lower_built_ins(module: &mut Module) {
    for (_, global, builtin) in BUILT_INS {
        let Some((var, ty)) = module
            .global_variables
            .iter()
            .find(|(_, g)| {
                g.name.as_deref() == Some(global) && g.space == naga::AddressSpace::Private
            })
            .map(|(h, g)| (h, g.ty))
        else {
            continue;
        };
        for e in module.entry_points.iter_mut() {
            let f = &mut e.function;
            let index = f.arguments.len() as u32;
            f.arguments.push(FunctionArgument {
                name: Some(global.to_string()),
                ty,
                binding: Some(Binding::BuiltIn(*builtin)),
            });
            let value = f
                .expressions
                .append(Expression::FunctionArgument(index), Span::UNDEFINED);
            let pointer = f
                .expressions
                .append(Expression::GlobalVariable(var), Span::UNDEFINED);
            let mut body = naga::Block::new();
            body.push(Statement::Store { pointer, value }, Span::UNDEFINED);
            body.append(&mut f.body);
            f.body = body;
        }
    }
}

/// The prototypes and what the lowering found refused.
struct Lowering<'a> {
    protos: &'a [(Handle<naga::Function>, Form)],
    result_types: &'a [Option<Handle<naga::Type>>],
    refused: &'a mut Vec<Unsupported>,
}

impl Lowering<'_> {
    fn block(&mut self, block: &mut naga::Block, exprs: &mut naga::Arena<Expression>) {
        super::ir_walk::each_mut(block, &mut |s, span| {
            let Statement::Call {
                function,
                arguments,
                result,
            } = s
            else {
                return;
            };
            let Some(k) = self.protos.iter().position(|(p, _)| p == function) else {
                return;
            };
            let form = self.protos[k].1;
            if let Form::Logical = form {
                self.refused.push(Unsupported {
                    span,
                    what: "`subgroupAnd`, `subgroupOr` or `subgroupXor` of a `bool`: naga's IR \
                           has no logical subgroup operations"
                        .into(),
                });
            } else if let Some(new) =
                statement(form, arguments, *result, self.result_types[k], exprs)
            {
                *s = new;
            }
        });
    }
}

/// The statement a call of a prototype of `form` becomes; its result
/// expression (a `CallResult`) is turned into the statement's result in
/// place. `None` for a call whose shape the prototypes do not give (left
/// for naga's validator, which refuses a call of a body-less function).
fn statement(
    form: Form,
    arguments: &[Handle<Expression>],
    result: Option<Handle<Expression>>,
    result_ty: Option<Handle<naga::Type>>,
    exprs: &mut naga::Arena<Expression>,
) -> Option<Statement> {
    // The prototypes' arities: a body-less function of the user's own with
    // the name and another arity stays a call (naga refuses it).
    let arity = match form {
        Form::Barrier => 0,
        Form::Gather(Some(_), _) => 2,
        _ => 1,
    };
    if arguments.len() != arity {
        return None;
    }
    if let Form::Barrier = form {
        // glslang orders uniform, workgroup and image memory at subgroup
        // scope; naga widens the memory scope to the device when storage
        // memory is included, which orders at least as much.
        return Some(Statement::ControlBarrier(
            Barrier::SUB_GROUP | Barrier::STORAGE | Barrier::WORK_GROUP | Barrier::TEXTURE,
        ));
    }
    let result = result?;
    let argument = *arguments.first()?;
    Some(match form {
        Form::Collective(op, collective_op) => {
            exprs[result] = Expression::SubgroupOperationResult { ty: result_ty? };
            Statement::SubgroupCollectiveOperation {
                op,
                collective_op,
                argument,
                result,
            }
        }
        Form::Ballot => {
            exprs[result] = Expression::SubgroupBallotResult;
            Statement::SubgroupBallot {
                result,
                predicate: Some(argument),
            }
        }
        Form::Gather(with_index, fixed) => {
            let mode = match (with_index, fixed) {
                (Some(m), _) => m(*arguments.get(1)?),
                (None, Some(m)) => m,
                (None, None) => return None,
            };
            exprs[result] = Expression::SubgroupOperationResult { ty: result_ty? };
            Statement::SubgroupGather {
                mode,
                argument,
                result,
            }
        }
        Form::Barrier | Form::Logical => return None,
    })
}
