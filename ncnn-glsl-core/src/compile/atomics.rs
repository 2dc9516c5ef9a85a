//! Atomics, which naga's GLSL frontend lacks ("Unknown function").
//!
//! The extension's one-element stores into packed storage (int8p, fp16p,
//! bf16p, int16p) are compare-and-swap loops, so without atomics nothing in
//! those modes compiles. naga's IR has atomics; only the frontend lacks the
//! functions. So naga is handed prototypes with plain `in` parameters (with
//! `inout`, copy-in/copy-out would lose the pointer), parses each call with
//! its first argument as a `Load` of the buffer element, and this pass turns
//! the call into `Statement::Atomic` on that element's pointer, upgrading the
//! element type of the variable to atomic. The recipe is checked on lavapipe
//! against glslang under contention (docs/naga.md, "Atomics").
//!
//! Caveat (as in docs/naga.md): every access to an upgraded variable becomes a
//! relaxed atomic load or store; only 32-bit `int`/`uint` are supported.

use std::collections::{HashMap, HashSet};

use naga::{
    AtomicFunction, Block, Expression, Function, Handle, LocalVariable, Module, PredeclaredType,
    Scalar, Span, Statement, Type, TypeInner,
};

use super::tokens::{Kind, Token};

/// The GLSL atomic functions this pass provides, with their IR function
/// (`None`: compare-and-swap, which also takes the comparand).
const FUNCTIONS: &[(&str, Option<AtomicFunction>)] = &[
    ("atomicAdd", Some(AtomicFunction::Add)),
    ("atomicAnd", Some(AtomicFunction::And)),
    ("atomicOr", Some(AtomicFunction::InclusiveOr)),
    ("atomicXor", Some(AtomicFunction::ExclusiveOr)),
    ("atomicMin", Some(AtomicFunction::Min)),
    ("atomicMax", Some(AtomicFunction::Max)),
    (
        "atomicExchange",
        Some(AtomicFunction::Exchange { compare: None }),
    ),
    ("atomicCompSwap", None),
];

/// Whether the text calls one of the functions this pass provides.
pub(crate) fn called(src: &str, toks: &[Token]) -> bool {
    toks.windows(2).any(|w| {
        w[0].kind == Kind::Ident
            && w[1].is_punct(src, '(')
            && FUNCTIONS.iter().any(|(n, _)| *n == w[0].text(src))
    })
}

/// The prototypes naga is given, on one line (they would clash with
/// glslang's built-ins: they never leave this module).
pub(crate) fn prototypes() -> String {
    let mut s = String::new();
    for ty in ["int", "uint"] {
        for (name, fun) in FUNCTIONS {
            match fun {
                Some(_) => s += &format!("{ty} {name}({ty} mem, {ty} data); "),
                None => s += &format!("{ty} {name}({ty} mem, {ty} compare, {ty} data); "),
            }
        }
    }
    s.push('\n');
    s
}

/// Where the prototypes go: after the `#version` line (naga wants it first).
pub(crate) fn insert_point(text: &str) -> usize {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("#version") {
            return at + line.len();
        }
        if !line.trim().is_empty() && !line.trim_start().starts_with("//") {
            break;
        }
        at += line.len();
    }
    0
}

/// A call the pass cannot turn into an atomic, with the call's span.
pub(crate) struct Unsupported {
    pub span: Span,
    pub what: String,
}

/// Replaces every call of a prototype by an atomic statement and upgrades
/// the variables they touch. Calls it cannot lower are returned.
pub(crate) fn lower(module: &mut Module) -> Vec<Unsupported> {
    // Each prototype's scalar is its result type: the overload naga chose.
    let protos: Protos = module
        .functions
        .iter()
        .filter(|(_, f)| f.body.is_empty())
        .filter_map(|(h, f)| {
            let name = f.name.as_deref()?;
            let TypeInner::Scalar(scalar) = module.types[f.result.as_ref()?.ty].inner else {
                return None;
            };
            FUNCTIONS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(n, fun)| (h, (*n, *fun, scalar)))
        })
        .collect();
    if protos.is_empty() {
        return Vec::new();
    }
    let mut bad = Vec::new();
    let mut upgrade: Vec<(Handle<naga::GlobalVariable>, Scalar)> = Vec::new();
    // Predeclared types are never compacted away: make only those a call needs.
    let mut called = HashSet::new();
    for (_, f) in module.functions.iter() {
        calls(&f.body, &mut called);
    }
    for ep in &module.entry_points {
        calls(&ep.function.body, &mut called);
    }
    // In a fixed order: the types' handles, and so the SPIR-V ids, must not
    // depend on a hash set's iteration order from one build to the next.
    let cas_types: HashMap<Scalar, Handle<Type>> = [Scalar::I32, Scalar::U32]
        .into_iter()
        .filter(|s| {
            protos
                .iter()
                .any(|(h, (_, fun, ps))| fun.is_none() && called.contains(h) && ps == s)
        })
        .map(|s| {
            (
                s,
                module
                    .generate_predeclared_type(PredeclaredType::AtomicCompareExchangeWeakResult(s)),
            )
        })
        .collect();
    let scalar_types: HashMap<Scalar, Handle<Type>> = [Scalar::I32, Scalar::U32]
        .into_iter()
        .map(|s| {
            (
                s,
                module.types.insert(
                    Type {
                        name: None,
                        inner: TypeInner::Scalar(s),
                    },
                    Span::UNDEFINED,
                ),
            )
        })
        .collect();
    let globals = module.global_variables.clone();
    let mut lower_fn = |f: &mut Function, bad: &mut Vec<Unsupported>| {
        let mut cx = Cx {
            protos: &protos,
            f_exprs: std::mem::take(&mut f.expressions),
            locals: std::mem::take(&mut f.local_variables),
            globals: &globals,
            cas_types: &cas_types,
            scalar_types: &scalar_types,
            unemit: HashSet::new(),
            upgrade: &mut upgrade,
            bad,
        };
        let mut body = std::mem::take(&mut f.body);
        cx.block(&mut body);
        if !cx.unemit.is_empty() {
            split_emits(&mut body, &cx.unemit);
        }
        f.body = body;
        f.expressions = cx.f_exprs;
        f.local_variables = cx.locals;
    };
    for (h, f) in module.functions.iter_mut() {
        if !protos.contains_key(&h) {
            lower_fn(f, &mut bad);
        }
    }
    for ep in module.entry_points.iter_mut() {
        lower_fn(&mut ep.function, &mut bad);
    }
    let mut done = HashSet::new();
    for (g, scalar) in upgrade {
        if done.insert(g) {
            let ty = module.global_variables[g].ty;
            let new = atomize(module, ty, scalar);
            module.global_variables[g].ty = new;
        }
    }
    bad
}

type Protos = HashMap<Handle<Function>, (&'static str, Option<AtomicFunction>, Scalar)>;

struct Cx<'a> {
    protos: &'a Protos,
    f_exprs: naga::Arena<Expression>,
    locals: naga::Arena<LocalVariable>,
    globals: &'a naga::Arena<naga::GlobalVariable>,
    cas_types: &'a HashMap<Scalar, Handle<Type>>,
    scalar_types: &'a HashMap<Scalar, Handle<Type>>,
    /// Expressions turned into `LocalVariable`, which must not be emitted.
    unemit: HashSet<Handle<Expression>>,
    upgrade: &'a mut Vec<(Handle<naga::GlobalVariable>, Scalar)>,
    bad: &'a mut Vec<Unsupported>,
}

impl Cx<'_> {
    fn block(&mut self, block: &mut Block) {
        let old = std::mem::take(block);
        for (mut s, span) in old.span_into_iter() {
            match &mut s {
                Statement::Call {
                    function,
                    arguments,
                    result,
                } if self.protos.contains_key(function) => {
                    let (name, fun, scalar) = self.protos[function];
                    match self.lower_call(fun, scalar, arguments, *result, span) {
                        Some(stmts) => {
                            for st in stmts {
                                block.push(st, span);
                            }
                        }
                        None => {
                            self.bad.push(Unsupported {
                                span,
                                what: format!(
                                    "the first argument of `{name}` must be an `int` or `uint` element of a buffer or `shared` variable"
                                ),
                            });
                            block.push(s, span);
                        }
                    }
                    continue;
                }
                Statement::Block(b) => self.block(b),
                Statement::If { accept, reject, .. } => {
                    self.block(accept);
                    self.block(reject);
                }
                Statement::Switch { cases, .. } => {
                    for c in cases {
                        self.block(&mut c.body);
                    }
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    self.block(body);
                    self.block(continuing);
                }
                _ => {}
            }
            block.push(s, span);
        }
    }

    /// The root global of an access chain and the scalar at its end.
    fn root(&self, mut e: Handle<Expression>) -> Option<Handle<naga::GlobalVariable>> {
        loop {
            match self.f_exprs[e] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => e = base,
                Expression::GlobalVariable(g) => return Some(g),
                _ => return None,
            }
        }
    }

    fn lower_call(
        &mut self,
        fun: Option<AtomicFunction>,
        scalar: Scalar,
        args: &[Handle<Expression>],
        result: Option<Handle<Expression>>,
        span: Span,
    ) -> Option<Vec<Statement>> {
        let load = *args.first()?;
        let Expression::Load { pointer } = self.f_exprs[load] else {
            return None;
        };
        let g = self.root(pointer)?;
        let space = self.globals[g].space;
        if !matches!(
            space,
            naga::AddressSpace::Storage { .. } | naga::AddressSpace::WorkGroup
        ) {
            return None;
        }
        self.upgrade.push((g, scalar));
        match fun {
            Some(fun) => {
                if let Some(h) = result {
                    self.f_exprs[h] = Expression::AtomicResult {
                        ty: self.scalar_types[&scalar],
                        comparison: false,
                    };
                }
                Some(vec![Statement::Atomic {
                    pointer,
                    fun,
                    value: args[1],
                    result,
                }])
            }
            None => {
                let r = self.f_exprs.append(
                    Expression::AtomicResult {
                        ty: self.cas_types[&scalar],
                        comparison: true,
                    },
                    span,
                );
                let mut out = vec![Statement::Atomic {
                    pointer,
                    fun: AtomicFunction::Exchange {
                        compare: Some(args[1]),
                    },
                    value: args[2],
                    result: Some(r),
                }];
                if let Some(h) = result {
                    // The old value reaches the call's users through a local:
                    // the argument's `Load` (older than the call result, so
                    // no forward reference) becomes that local.
                    let old = self
                        .f_exprs
                        .append(Expression::AccessIndex { base: r, index: 0 }, span);
                    let local = self.locals.append(
                        LocalVariable {
                            name: Some("atomic_old".into()),
                            ty: self.scalar_types[&scalar],
                            init: None,
                        },
                        span,
                    );
                    self.f_exprs[load] = Expression::LocalVariable(local);
                    self.unemit.insert(load);
                    self.f_exprs[h] = Expression::Load { pointer: load };
                    out.push(Statement::Emit(naga::Range::new_from_bounds(old, old)));
                    out.push(Statement::Store {
                        pointer: load,
                        value: old,
                    });
                    out.push(Statement::Emit(naga::Range::new_from_bounds(h, h)));
                }
                Some(out)
            }
        }
    }
}

/// Every function a block calls.
fn calls(block: &Block, out: &mut HashSet<Handle<Function>>) {
    for s in block.iter() {
        match s {
            Statement::Call { function, .. } => {
                out.insert(*function);
            }
            Statement::Block(b) => calls(b, out),
            Statement::If { accept, reject, .. } => {
                calls(accept, out);
                calls(reject, out);
            }
            Statement::Switch { cases, .. } => cases.iter().for_each(|c| calls(&c.body, out)),
            Statement::Loop {
                body, continuing, ..
            } => {
                calls(body, out);
                calls(continuing, out);
            }
            _ => {}
        }
    }
}

/// Removes `drop` from every `Emit` range, splitting ranges around them.
fn split_emits(block: &mut Block, drop: &HashSet<Handle<Expression>>) {
    let old = std::mem::take(block);
    for (mut s, span) in old.span_into_iter() {
        match &mut s {
            Statement::Emit(range) => {
                let mut run: Option<(Handle<Expression>, Handle<Expression>)> = None;
                for h in range.clone() {
                    if drop.contains(&h) {
                        if let Some((a, b)) = run.take() {
                            block.push(Statement::Emit(naga::Range::new_from_bounds(a, b)), span);
                        }
                    } else {
                        run = Some(run.map_or((h, h), |(a, _)| (a, h)));
                    }
                }
                if let Some((a, b)) = run {
                    block.push(Statement::Emit(naga::Range::new_from_bounds(a, b)), span);
                }
                continue;
            }
            Statement::Block(b) => split_emits(b, drop),
            Statement::If { accept, reject, .. } => {
                split_emits(accept, drop);
                split_emits(reject, drop);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    split_emits(&mut c.body, drop);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                split_emits(body, drop);
                split_emits(continuing, drop);
            }
            _ => {}
        }
        block.push(s, span);
    }
}

/// `ty` with every `scalar` in it made atomic (through arrays and structs).
fn atomize(module: &mut Module, ty: Handle<Type>, scalar: Scalar) -> Handle<Type> {
    let t = module.types[ty].clone();
    let inner = match t.inner {
        TypeInner::Scalar(s) if s == scalar => TypeInner::Atomic(s),
        TypeInner::Array { base, size, stride } => {
            let b = atomize(module, base, scalar);
            if b == base {
                return ty;
            }
            TypeInner::Array {
                base: b,
                size,
                stride,
            }
        }
        TypeInner::Struct { members, span } => {
            let mut changed = false;
            let members = members
                .into_iter()
                .map(|mut m| {
                    let n = atomize(module, m.ty, scalar);
                    changed |= n != m.ty;
                    m.ty = n;
                    m
                })
                .collect();
            if !changed {
                return ty;
            }
            TypeInner::Struct { members, span }
        }
        _ => return ty,
    };
    let span = module.types.get_span(ty);
    module.types.insert(
        Type {
            name: t.name,
            inner,
        },
        span,
    )
}
