//! The IR step: the placeholder structs become naga's cooperative matrix
//! types, the calls of the prototypes its cooperative expressions and
//! statements (see the module doc of `coopmat.rs`), and what naga would
//! write wrong or not at all is refused at its place.

use std::collections::HashMap;

use naga::{
    AddressSpace, Arena, ArraySize, Block, CooperativeData, Expression, Function, GlobalVariable,
    Handle, Literal, Module, Range, Span, Statement, Type, TypeInner, UniqueArena,
};

use super::super::atomics::Unsupported;
use super::super::ir_walk;
use super::operators::{check_operators, Types};
use super::protos::{self, LOAD, LOAD_NV, MUL_ADD, MUL_ADD_NV, STORE, STORE_NV};
use super::unsupported;
use super::{CoopType, Flavor, IrFound, MulAdd, TextFound};

/// What a prototype is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proto {
    Load(Flavor),
    Store(Flavor),
    MulAdd(Flavor),
    /// The constructor of type `n`.
    Ctor(usize),
}

fn proto_of(name: &str) -> Option<Proto> {
    Some(match name {
        LOAD => Proto::Load(Flavor::Khr),
        LOAD_NV => Proto::Load(Flavor::Nv),
        STORE => Proto::Store(Flavor::Khr),
        STORE_NV => Proto::Store(Flavor::Nv),
        MUL_ADD => Proto::MulAdd(Flavor::Khr),
        MUL_ADD_NV => Proto::MulAdd(Flavor::Nv),
        _ => Proto::Ctor(protos::ctor_index(name)?),
    })
}

/// naga's type for placeholder `t`.
fn coop_inner(t: &CoopType) -> TypeInner {
    TypeInner::CooperativeMatrix {
        columns: t.slot.1,
        rows: t.slot.0,
        scalar: t.scalar(),
        role: t.role(),
    }
}

/// Bytes of a value of `ty`, as naga lays it out.
fn size_of(types: &UniqueArena<Type>, ty: Handle<Type>) -> Option<u32> {
    match types[ty].inner {
        TypeInner::CooperativeMatrix {
            columns,
            rows,
            scalar,
            ..
        } => Some(columns as u32 * rows as u32 * u32::from(scalar.width)),
        TypeInner::Array {
            size: ArraySize::Constant(n),
            stride,
            ..
        } => n.get().checked_mul(stride),
        _ => None,
    }
}

/// Replaces the placeholder structs by cooperative matrix types and gives
/// the arrays of them their strides. Returns the placeholder of each type
/// handle.
fn replace_types(
    module: &mut Module,
    found: &TextFound,
) -> Result<HashMap<Handle<Type>, usize>, Vec<Unsupported>> {
    let mut of = HashMap::new();
    let placeholders: Vec<(Handle<Type>, usize)> = module
        .types
        .iter()
        .filter(|(_, t)| matches!(t.inner, TypeInner::Struct { .. }))
        .filter_map(|(h, t)| Some((h, protos::type_index(t.name.as_deref()?)?)))
        .filter(|(_, n)| *n < found.types.len())
        .collect();
    let internal = |what: &str| {
        vec![unsupported(
            Span::UNDEFINED,
            format!("internal error: {what}; please report the shader"),
        )]
    };
    for (h, n) in placeholders {
        let new = Type {
            name: None,
            inner: coop_inner(&found.types[n]),
        };
        if module.types.get(&new).is_some() {
            return Err(internal("a cooperative matrix type is there twice"));
        }
        module.types.replace(h, new);
        of.insert(h, n);
    }
    // Arrays of them (of arrays of them): the frontend gave them the
    // struct's stride. Their bases come first in the arena.
    let handles: Vec<Handle<Type>> = module.types.iter().map(|(h, _)| h).collect();
    let mut coop_based = std::collections::HashSet::new();
    for h in handles {
        let TypeInner::Array { base, size, stride } = module.types[h].inner else {
            continue;
        };
        if !(of.contains_key(&base) || coop_based.contains(&base)) {
            continue;
        }
        coop_based.insert(h);
        let Some(want) = size_of(&module.types, base) else {
            continue;
        };
        if want != stride {
            let new = Type {
                name: module.types[h].name.clone(),
                inner: TypeInner::Array {
                    base,
                    size,
                    stride: want,
                },
            };
            if module.types.get(&new).is_some() {
                return Err(internal("an array of cooperative matrices is there twice"));
            }
            module.types.replace(h, new);
        }
    }
    // Where GLSL or this compiler allows none: a private global is
    // glslang's `Private` variable, as naga writes it.
    let mut bad = Vec::new();
    let holds = |ty: Handle<Type>| of.contains_key(&ty) || coop_based.contains(&ty);
    for (h, g) in module.global_variables.iter() {
        if holds(g.ty) && g.space != naga::AddressSpace::Private {
            bad.push(unsupported(
                module.global_variables.get_span(h),
                format!(
                    "`{}` is a cooperative matrix in {:?} memory: GLSL allows them as \
                     variables of a function or of the shader (private), and parameters",
                    g.name.as_deref().unwrap_or(""),
                    g.space
                ),
            ));
        }
    }
    for (h, t) in module.types.iter() {
        if let TypeInner::Struct { members, .. } = &t.inner {
            if members.iter().any(|m| holds(m.ty)) {
                bad.push(unsupported(
                    module.types.get_span(h),
                    format!(
                        "the struct `{}` holds a cooperative matrix: this compiler takes them as \
                         variables and parameters only (glslang takes a struct member too); \
                         declare the matrix beside the struct",
                        t.name.as_deref().unwrap_or("")
                    ),
                ));
            }
        }
    }
    if bad.is_empty() {
        Ok(of)
    } else {
        Err(bad)
    }
}

/// The placeholder a (pointer to a) value of `ty` has.
fn placeholder(
    types: &UniqueArena<Type>,
    of: &HashMap<Handle<Type>, usize>,
    ty: Handle<Type>,
) -> Option<usize> {
    match types[ty].inner {
        TypeInner::Pointer { base, .. } => of.get(&base).copied(),
        _ => of.get(&ty).copied(),
    }
}

/// Lowers the cooperative matrix calls of `module` (parsed from text that
/// [`super::text::rewrite`] rewrote, with `found`).
pub(crate) fn lower(module: &mut Module, found: &TextFound) -> Result<IrFound, Vec<Unsupported>> {
    let mut out = IrFound::default();
    if !found.used() {
        return Ok(out);
    }
    let of = replace_types(module, found)?;
    let protos: HashMap<Handle<Function>, Proto> = module
        .functions
        .iter()
        .filter(|(_, f)| f.body.is_empty())
        .filter_map(|(h, f)| Some((h, proto_of(f.name.as_deref()?)?)))
        .collect();
    // The types of every expression as parsed (the placeholders replaced),
    // before anything changes; new types are only added after.
    let bodies = module
        .functions
        .iter()
        .filter(|(h, _)| !protos.contains_key(h))
        .map(|(_, f)| f)
        .chain(module.entry_points.iter().map(|e| &e.function));
    let typed: Vec<Types> = bodies.map(|f| Types::of(module, f)).collect();
    let mut problems = Vec::new();
    let mut shared = Shared {
        found,
        of: &of,
        protos: &protos,
        pointers: Vec::new(),
    };
    // Split the module: calls read the types and prototypes, and add
    // globals (the placeholder pointers).
    let Module {
        types,
        global_variables,
        functions,
        entry_points,
        ..
    } = module;
    let signatures: HashMap<Handle<Function>, Signature> = protos
        .keys()
        .map(|&h| (h, Signature::of(&functions[h])))
        .collect();
    let bodies = functions
        .iter_mut()
        .filter(|(h, _)| !protos.contains_key(h))
        .map(|(_, f)| f)
        .chain(entry_points.iter_mut().map(|e| &mut e.function));
    for (f, typifier) in bodies.zip(&typed) {
        let mut ctx = FnCtx {
            types,
            globals: global_variables,
            signatures: &signatures,
            mul_adds: &mut out.mul_adds,
            problems: &mut problems,
        };
        lower_function(f, typifier, &mut shared, &mut ctx);
    }
    out.pointers = shared.pointers;
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// What every function's lowering shares.
struct Shared<'a> {
    found: &'a TextFound,
    of: &'a HashMap<Handle<Type>, usize>,
    protos: &'a HashMap<Handle<Function>, Proto>,
    pointers: Vec<(String, String, bool)>,
}

/// What a function's lowering changes beside it.
pub(super) struct FnCtx<'a> {
    pub types: &'a mut UniqueArena<Type>,
    globals: &'a mut Arena<GlobalVariable>,
    signatures: &'a HashMap<Handle<Function>, Signature>,
    mul_adds: &'a mut Vec<MulAdd>,
    pub problems: &'a mut Vec<Unsupported>,
}

/// A prototype's parameter and result types.
#[derive(Clone, Debug)]
struct Signature {
    params: Vec<Handle<Type>>,
}

impl Signature {
    fn of(f: &Function) -> Signature {
        Signature {
            params: f.arguments.iter().map(|a| a.ty).collect(),
        }
    }
}

/// A call to lower, read before anything changes.
struct Site {
    proto: Proto,
    function: Handle<Function>,
    arguments: Vec<Handle<Expression>>,
    result: Option<Handle<Expression>>,
    span: Span,
}

fn lower_function(f: &mut Function, typifier: &Types, shared: &mut Shared, ctx: &mut FnCtx) {
    // The calls, in the walk's order; then each lowered in that order.
    let mut sites = Vec::new();
    ir_walk::each(&f.body, &mut |s, span| {
        if let Statement::Call {
            function,
            arguments,
            result,
        } = s
        {
            if let Some(&proto) = shared.protos.get(function) {
                sites.push(Site {
                    proto,
                    function: *function,
                    arguments: arguments.clone(),
                    result: *result,
                    span: *span,
                });
            }
        }
    });
    check_operators(f, typifier, ctx.types, ctx.problems);
    let mut replacements: Vec<(usize, Vec<(Statement, Span)>)> = Vec::new();
    for (k, site) in sites.iter().enumerate() {
        match lower_site(site, f, typifier, shared, ctx) {
            Ok(Some(stmts)) => replacements.push((k, stmts)),
            Ok(None) => {}
            Err(u) => ctx.problems.push(u),
        }
    }
    // Put the replacements in, in place of the calls (in the parent block:
    // an expression emitted inside a nested block is out of scope after it),
    // counting the calls in the same walk order.
    let mut replacements: HashMap<usize, Vec<(Statement, Span)>> =
        replacements.into_iter().collect();
    let mut next = 0;
    splice(&mut f.body, shared.protos, &mut next, &mut replacements);
}

/// Replaces the prototype calls of `block` (the `next`th and on, in the
/// order of `ir_walk::each`) that `replacements` holds by their statements.
fn splice(
    block: &mut Block,
    protos: &HashMap<Handle<Function>, Proto>,
    next: &mut usize,
    replacements: &mut HashMap<usize, Vec<(Statement, Span)>>,
) {
    let old = std::mem::take(block);
    let mut new = Block::with_capacity(old.len());
    for (mut s, span) in old.span_into_iter() {
        match &mut s {
            Statement::Call { function, .. } if protos.contains_key(function) => {
                let k = *next;
                *next += 1;
                if let Some(stmts) = replacements.remove(&k) {
                    for (st, sp) in stmts {
                        new.push(st, sp);
                    }
                    continue;
                }
            }
            Statement::Block(b) => splice(b, protos, next, replacements),
            Statement::If { accept, reject, .. } => {
                splice(accept, protos, next, replacements);
                splice(reject, protos, next, replacements);
            }
            Statement::Switch { cases, .. } => {
                for c in cases.iter_mut() {
                    splice(&mut c.body, protos, next, replacements);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                splice(body, protos, next, replacements);
                splice(continuing, protos, next, replacements);
            }
            _ => {}
        }
        new.push(s, span);
    }
    *block = new;
}

/// The integer or bool value of a constant expression.
fn constant_value(f: &Function, h: Handle<Expression>) -> Option<i64> {
    match f.expressions[h] {
        Expression::Literal(l) => match l {
            Literal::I32(v) => Some(i64::from(v)),
            Literal::U32(v) => Some(i64::from(v)),
            Literal::Bool(b) => Some(i64::from(b)),
            _ => None,
        },
        _ => None,
    }
}

/// The element pointer of a load's or store's array argument (`buf[i]`,
/// parsed as a load of it): the pointer, its address space and the
/// element's type.
fn element(
    f: &Function,
    typifier: &Types,
    types: &mut UniqueArena<Type>,
    e: Handle<Expression>,
) -> Option<(Handle<Expression>, AddressSpace, Handle<Type>)> {
    let Expression::Load { pointer } = f.expressions[e] else {
        return None;
    };
    if !matches!(
        f.expressions[pointer],
        Expression::Access { .. } | Expression::AccessIndex { .. }
    ) {
        return None;
    }
    let (space, inner) = match typifier.get(pointer, types) {
        TypeInner::Pointer { base, space } => (*space, types[*base].inner.clone()),
        TypeInner::ValuePointer {
            size: Some(size),
            scalar,
            space,
        } => (
            *space,
            TypeInner::Vector {
                size: *size,
                scalar: *scalar,
            },
        ),
        TypeInner::ValuePointer {
            size: None,
            scalar,
            space,
        } => (*space, TypeInner::Scalar(*scalar)),
        _ => return None,
    };
    if !matches!(inner, TypeInner::Scalar(_) | TypeInner::Vector { .. }) {
        return None;
    }
    let ty = types.insert(Type { name: None, inner }, Span::UNDEFINED);
    Some((pointer, space, ty))
}

fn lower_site(
    site: &Site,
    f: &mut Function,
    typifier: &Types,
    shared: &mut Shared,
    ctx: &mut FnCtx,
) -> Result<Option<Vec<(Statement, Span)>>, Unsupported> {
    let signatures = ctx.signatures;
    let sig = &signatures[&site.function];
    let n_of =
        |k: usize| -> Option<usize> { placeholder(ctx.types, shared.of, *sig.params.get(k)?) };
    let span = site.span;
    let args = &site.arguments;
    match site.proto {
        Proto::Load(flavor) | Proto::Store(flavor) => {
            let load = matches!(site.proto, Proto::Load(_));
            let glsl = match (load, flavor) {
                (true, Flavor::Khr) => "coopMatLoad",
                (false, Flavor::Khr) => "coopMatStore",
                (true, Flavor::Nv) => "coopMatLoadNV",
                (false, Flavor::Nv) => "coopMatStoreNV",
            };
            let (Some(n), [m, e, stride, layout]) = (n_of(0), args.as_slice()) else {
                return Err(unsupported(
                    span,
                    format!("internal error: a `{glsl}` call has an unexpected form"),
                ));
            };
            let row_major = match (flavor, constant_value(f, *layout)) {
                (Flavor::Khr, Some(0)) => true,
                (Flavor::Khr, Some(1)) => false,
                (Flavor::Nv, Some(v)) => v == 0,
                _ => {
                    return Err(unsupported(
                        f.expressions.get_span(*layout),
                        format!(
                            "the layout of `{glsl}` must be a constant ({})",
                            match flavor {
                                Flavor::Khr => "`gl_CooperativeMatrixLayoutRowMajor` or `gl_CooperativeMatrixLayoutColumnMajor`",
                                Flavor::Nv => "`true` for column-major, `false` for row-major",
                            }
                        ),
                    ))
                }
            };
            let Some((pointer, space, elem_ty)) = element(f, typifier, ctx.types, *e) else {
                return Err(unsupported(
                    f.expressions.get_span(*e),
                    format!(
                        "the array of `{glsl}` must be an array of scalars or vectors in a buffer \
                         or in `shared` memory (`buf`, `tmp[i]`)"
                    ),
                ));
            };
            match space {
                AddressSpace::WorkGroup => {}
                AddressSpace::Storage { access } => {
                    if !load && !access.contains(naga::StorageAccess::STORE) {
                        return Err(unsupported(
                            f.expressions.get_span(*e),
                            format!("`{glsl}` into a `readonly` buffer"),
                        ));
                    }
                }
                _ => {
                    return Err(unsupported(
                        f.expressions.get_span(*e),
                        format!(
                            "the array of `{glsl}` must be in a buffer or in `shared` memory \
                             (SPIR-V loads and stores cooperative matrices there only)"
                        ),
                    ))
                }
            }
            let t = &shared.found.types[n];
            let elem_scalar = ctx.types[elem_ty].inner.scalar();
            let data = |pointer| CooperativeData {
                pointer,
                stride: *stride,
                row_major,
            };
            let exprs = &mut f.expressions;
            let mut stmts = Vec::new();
            if elem_scalar == Some(t.scalar()) {
                // The element pointer as it is; the load of the element
                // the call took becomes an unused pointer (never written).
                exprs[*e] = exprs[pointer].clone();
                if load {
                    let coop = exprs.append(
                        Expression::CooperativeLoad {
                            columns: t.slot.1,
                            rows: t.slot.0,
                            role: t.role(),
                            data: data(pointer),
                        },
                        span,
                    );
                    stmts.push((Statement::Emit(Range::new_from_bounds(coop, coop)), span));
                    stmts.push((
                        Statement::Store {
                            pointer: *m,
                            value: coop,
                        },
                        span,
                    ));
                } else {
                    stmts.push((
                        Statement::CooperativeStore {
                            target: *m,
                            data: data(pointer),
                        },
                        span,
                    ));
                }
                return Ok(Some(stmts));
            }
            // Through a placeholder pointer of the element type; the
            // element's access chain goes through a sink.
            let k = shared.pointers.len();
            let (ph_name, sink_name) = (
                format!("{}{k}", protos::POINTER_PREFIX),
                format!("{}{k}", protos::SINK_PREFIX),
            );
            let scalar_ty = ctx.types.insert(
                Type {
                    name: None,
                    inner: TypeInner::Scalar(t.scalar()),
                },
                Span::UNDEFINED,
            );
            let array_ty = ctx.types.insert(
                Type {
                    name: None,
                    inner: TypeInner::Array {
                        base: scalar_ty,
                        size: ArraySize::Constant(std::num::NonZeroU32::MIN),
                        stride: u32::from(t.scalar().width),
                    },
                },
                Span::UNDEFINED,
            );
            let global = |name: String, ty| GlobalVariable {
                name: Some(name),
                space: AddressSpace::Private,
                binding: None,
                ty,
                init: None,
                memory_decorations: Default::default(),
            };
            let ph = ctx
                .globals
                .append(global(ph_name.clone(), array_ty), Span::UNDEFINED);
            let sink = ctx
                .globals
                .append(global(sink_name.clone(), elem_ty), Span::UNDEFINED);
            shared.pointers.push((ph_name, sink_name, load));
            let g_ph = exprs.append(Expression::GlobalVariable(ph), span);
            let g_sink = exprs.append(Expression::GlobalVariable(sink), span);
            if load {
                let ptr = exprs.append(
                    Expression::AccessIndex {
                        base: g_ph,
                        index: 0,
                    },
                    span,
                );
                let coop = exprs.append(
                    Expression::CooperativeLoad {
                        columns: t.slot.1,
                        rows: t.slot.0,
                        role: t.role(),
                        data: data(ptr),
                    },
                    span,
                );
                stmts.push((
                    Statement::Store {
                        pointer: g_sink,
                        value: *e,
                    },
                    span,
                ));
                stmts.push((Statement::Emit(Range::new_from_bounds(ptr, coop)), span));
                stmts.push((
                    Statement::Store {
                        pointer: *m,
                        value: coop,
                    },
                    span,
                ));
            } else {
                exprs[*e] = exprs[pointer].clone();
                let value = exprs.append(Expression::Load { pointer: g_sink }, span);
                let ptr = exprs.append(
                    Expression::AccessIndex {
                        base: g_ph,
                        index: 0,
                    },
                    span,
                );
                stmts.push((Statement::Emit(Range::new_from_bounds(value, ptr)), span));
                stmts.push((Statement::Store { pointer, value }, span));
                stmts.push((
                    Statement::CooperativeStore {
                        target: *m,
                        data: data(ptr),
                    },
                    span,
                ));
            }
            Ok(Some(stmts))
        }
        Proto::MulAdd(flavor) => {
            let glsl = match flavor {
                Flavor::Khr => "coopMatMulAdd",
                Flavor::Nv => "coopMatMulAddNV",
            };
            let (Some(a), Some(b), Some(c), [x, y, z], Some(result)) =
                (n_of(0), n_of(1), n_of(2), args.as_slice(), site.result)
            else {
                return Err(unsupported(
                    span,
                    format!("internal error: a `{glsl}` call has an unexpected form"),
                ));
            };
            let ts = &shared.found.types;
            let (ka, kb, kc) = (ts[a].key, ts[b].key, ts[c].key);
            if ka.rows != kc.rows || ka.cols != kb.rows || kb.cols != kc.cols {
                return Err(unsupported(
                    span,
                    format!(
                        "`{glsl}` of `{}`, `{}` and `{}`: A must be M x K, B K x N and C M x N",
                        ts[a].text, ts[b].text, ts[c].text
                    ),
                ));
            }
            if ka.scope != kb.scope || kb.scope != kc.scope {
                return Err(unsupported(
                    span,
                    format!("`{glsl}` of matrices of different scopes"),
                ));
            }
            ctx.mul_adds.push(MulAdd { a, b, c });
            if flavor == Flavor::Nv {
                // NV's multiply-add stays a call: naga's would check the
                // roles, which NV types do not have (`words.rs` writes it).
                return Ok(None);
            }
            f.expressions[result] = Expression::CooperativeMultiplyAdd {
                a: *x,
                b: *y,
                c: *z,
            };
            Ok(Some(vec![(
                Statement::Emit(Range::new_from_bounds(result, result)),
                span,
            )]))
        }
        Proto::Ctor(n) => {
            let (Some(&param), [_], Some(_)) = (sig.params.first(), args.as_slice(), site.result)
            else {
                return Err(unsupported(
                    span,
                    "internal error: a cooperative matrix constructor has an unexpected form",
                ));
            };
            let t = &shared.found.types[n];
            match ctx.types[param].inner {
                // The conversion to the element type is the word step's:
                // an `As` here would read as a demotion to the float16
                // checks, which GLSL makes here on purpose.
                TypeInner::Scalar(_) => Ok(None),
                _ => {
                    let Some(k) = placeholder(ctx.types, shared.of, param) else {
                        return Err(unsupported(span, "internal error: a cooperative matrix constructor takes an unexpected type"));
                    };
                    let (from, to) = (&shared.found.types[k], t);
                    let same_shape = from.key.rows == to.key.rows
                        && from.key.cols == to.key.cols
                        && from.key.use_ == to.key.use_
                        && from.key.scope == to.key.scope;
                    if !same_shape {
                        return Err(unsupported(
                            span,
                            format!(
                                "`{}` from `{}`: a cooperative matrix converts only to one of the \
                                 same size, scope and use (naga's IR and the KHR extension)",
                                to.text, from.text
                            ),
                        ));
                    }
                    Ok(None)
                }
            }
        }
    }
}

/// For the word step: how many functions of the (compacted) module are
/// prototypes whose calls survive to the words.
pub(crate) fn survivors(module: &Module) -> usize {
    module
        .functions
        .iter()
        .filter(|(_, f)| f.body.is_empty())
        .filter_map(|(_, f)| f.name.as_deref())
        .filter(|n| *n == MUL_ADD_NV || protos::ctor_index(n).is_some())
        .count()
}
