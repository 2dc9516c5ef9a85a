//! `ivec4 % int`, `int % ivec4` (and `uvecN`): GLSL applies the scalar to
//! every component, but naga's GLSL frontend splats the scalar for `+ - /`
//! and the bitwise operators only, so its validator rejects `%` ("Operation
//! Modulo can't work with ..."). This pass inserts the `Splat` naga builds
//! for `/`, right before the `%` that needs it, so the module is what naga
//! would have built. Only functions holding such a `%` are touched: other
//! shaders keep their exact SPIR-V.
//!
//! `int % ivec4` is repaired the same way, but naga's frontend has already
//! typed its result as the scalar's type (it takes the left operand's), so
//! an expression built on the result (`(s % v) + w`, `ivec4(s % v)`, a
//! swizzle) fails; [`Splatted::scalar_left`] lets the caller name that `%`.
//! Assigned, stored or multiplied, the result is right.
//!
//! Signed `%` stays naga's (the writer's `a - b * (a / b)`, truncating like
//! `int % int` here, with a zero divisor giving 0); glslang emits `OpSMod`
//! (the sign of the divisor). They differ only for negative operands and a
//! zero divisor, where GLSL leaves the result undefined.
//!
//! naga's validator wants every operand older than its user, so inserting
//! an expression renumbers the arena: every handle of the function is mapped.
//! A function holding a construct this pass does not map (ray queries,
//! subgroup and cooperative-matrix operations, none of which naga's GLSL
//! frontend builds) is left as it is, and naga's own error stands.

use std::collections::HashMap;

use naga::front::Typifier;
use naga::proc::ResolveContext;
use naga::{
    Arena, BinaryOperator, Block, Expression, Function, Handle, Module, ScalarKind, Statement,
    TypeInner, VectorSize,
};

/// What [`splat_scalar_operands`] did.
#[derive(Debug, Default)]
pub(crate) struct Splatted {
    /// How many `%` got a splat.
    pub count: usize,
    /// Where the repaired `scalar % vector` are.
    pub scalar_left: Vec<naga::Span>,
}

/// Splats the scalar operand of every vector-scalar `%`.
pub(crate) fn splat_scalar_operands(module: &mut Module) -> Splatted {
    let mut found: Vec<(Option<Handle<Function>>, usize, Bad)> = Vec::new();
    for (h, f) in module.functions.iter() {
        let bad = bad_modulos(module, f);
        if !bad.is_empty() {
            found.push((Some(h), 0, bad));
        }
    }
    for (k, ep) in module.entry_points.iter().enumerate() {
        let bad = bad_modulos(module, &ep.function);
        if !bad.is_empty() {
            found.push((None, k, bad));
        }
    }
    let mut done = Splatted::default();
    for (h, k, bad) in found {
        let f = match h {
            Some(h) => &mut module.functions[h],
            None => &mut module.entry_points[k].function,
        };
        let left: Vec<naga::Span> = bad
            .iter()
            .filter(|(_, (_, right_side))| !right_side)
            .map(|(e, _)| f.expressions.get_span(*e))
            .collect();
        if let Some(n) = splat(f, &bad) {
            done.count += n;
            done.scalar_left.extend(left);
        }
    }
    done.scalar_left
        .sort_by_key(|s| s.to_range().map(|r| r.start));
    done
}

/// The operand of a `%` to splat: `true` for the right one.
type Bad = HashMap<Handle<Expression>, (VectorSize, bool)>;

/// Every integer `%` of `f` with one vector and one scalar operand.
fn bad_modulos(module: &Module, f: &Function) -> Bad {
    let mut bad = Bad::new();
    let mut types = Typifier::new();
    let cx = ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
    for (h, e) in f.expressions.iter() {
        if types.grow(h, &f.expressions, &cx).is_err() {
            return Bad::new();
        }
        let Expression::Binary {
            op: BinaryOperator::Modulo,
            left,
            right,
        } = *e
        else {
            continue;
        };
        let inner = |x: Handle<Expression>| types[x].inner_with(&module.types);
        let int = |s: naga::Scalar| matches!(s.kind, ScalarKind::Sint | ScalarKind::Uint);
        match (inner(left), inner(right)) {
            (&TypeInner::Vector { size, scalar }, &TypeInner::Scalar(s))
                if s == scalar && int(s) =>
            {
                bad.insert(h, (size, true));
            }
            (&TypeInner::Scalar(s), &TypeInner::Vector { size, scalar })
                if s == scalar && int(s) =>
            {
                bad.insert(h, (size, false));
            }
            _ => {}
        }
    }
    bad
}

/// Rebuilds `f`'s expressions with a `Splat` before each `%` of `bad`;
/// `None` (and `f` untouched) when `f` holds something this pass cannot map.
fn splat(f: &mut Function, bad: &Bad) -> Option<usize> {
    let mut new = Arena::new();
    // Old index -> new handle, and -> the first new handle it became (its splat).
    let mut map: Vec<Handle<Expression>> = Vec::with_capacity(f.expressions.len() + bad.len());
    let mut first: Vec<Handle<Expression>> = Vec::with_capacity(map.capacity());
    for (h, e) in f.expressions.iter() {
        let mut e = e.clone();
        let span = f.expressions.get_span(h);
        remap_expression(&mut e, &|x| map[x.index()])?;
        let mut start = None;
        if let (Some(&(size, right_side)), Expression::Binary { left, right, .. }) =
            (bad.get(&h), &mut e)
        {
            let operand = if right_side { right } else { left };
            let s = new.append(
                Expression::Splat {
                    size,
                    value: *operand,
                },
                span,
            );
            *operand = s;
            start = Some(s);
        }
        let to = new.append(e, span);
        map.push(to);
        first.push(start.unwrap_or(to));
    }
    let mut body = f.body.clone();
    remap_block(&mut body, &map, &first)?;
    let mut locals = f.local_variables.clone();
    for (_, l) in locals.iter_mut() {
        if let Some(init) = l.init.as_mut() {
            *init = map[init.index()];
        }
    }
    f.named_expressions = std::mem::take(&mut f.named_expressions)
        .into_iter()
        .map(|(h, name)| (map[h.index()], name))
        .collect();
    f.expressions = new;
    f.body = body;
    f.local_variables = locals;
    Some(bad.len())
}

/// Maps every expression handle `e` holds; `None` for kinds naga's GLSL
/// frontend does not build.
fn remap_expression(
    e: &mut Expression,
    m: &dyn Fn(Handle<Expression>) -> Handle<Expression>,
) -> Option<()> {
    let o = |x: &mut Option<Handle<Expression>>| {
        if let Some(x) = x.as_mut() {
            *x = m(*x);
        }
    };
    use Expression as E;
    match e {
        E::Literal(_)
        | E::Constant(_)
        | E::Override(_)
        | E::ZeroValue(_)
        | E::FunctionArgument(_)
        | E::GlobalVariable(_)
        | E::LocalVariable(_)
        | E::CallResult(_)
        | E::AtomicResult { .. }
        | E::WorkGroupUniformLoadResult { .. } => {}
        E::Compose { components, .. } => components.iter_mut().for_each(|c| *c = m(*c)),
        E::Access { base, index } => {
            *base = m(*base);
            *index = m(*index);
        }
        E::AccessIndex { base, .. } => *base = m(*base),
        E::Splat { value, .. } => *value = m(*value),
        E::Swizzle { vector, .. } => *vector = m(*vector),
        E::Load { pointer } => *pointer = m(*pointer),
        E::ImageSample {
            image,
            sampler,
            coordinate,
            array_index,
            offset,
            level,
            depth_ref,
            ..
        } => {
            *image = m(*image);
            *sampler = m(*sampler);
            *coordinate = m(*coordinate);
            o(array_index);
            o(offset);
            o(depth_ref);
            match level {
                naga::SampleLevel::Auto | naga::SampleLevel::Zero => {}
                naga::SampleLevel::Exact(x) | naga::SampleLevel::Bias(x) => *x = m(*x),
                naga::SampleLevel::Gradient { x, y } => {
                    *x = m(*x);
                    *y = m(*y);
                }
            }
        }
        E::ImageLoad {
            image,
            coordinate,
            array_index,
            sample,
            level,
        } => {
            *image = m(*image);
            *coordinate = m(*coordinate);
            o(array_index);
            o(sample);
            o(level);
        }
        E::ImageQuery { image, query } => {
            *image = m(*image);
            if let naga::ImageQuery::Size { level } = query {
                o(level);
            }
        }
        E::Unary { expr, .. }
        | E::Derivative { expr, .. }
        | E::As { expr, .. }
        | E::ArrayLength(expr) => *expr = m(*expr),
        E::Binary { left, right, .. } => {
            *left = m(*left);
            *right = m(*right);
        }
        E::Select {
            condition,
            accept,
            reject,
        } => {
            *condition = m(*condition);
            *accept = m(*accept);
            *reject = m(*reject);
        }
        E::Relational { argument, .. } => *argument = m(*argument),
        E::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => {
            *arg = m(*arg);
            o(arg1);
            o(arg2);
            o(arg3);
        }
        _ => return None,
    }
    Some(())
}

/// Maps every expression handle of `block`; an `Emit` of a `%` that got a
/// splat starts at the splat.
fn remap_block(
    block: &mut Block,
    map: &[Handle<Expression>],
    first: &[Handle<Expression>],
) -> Option<()> {
    let m = |x: &mut Handle<Expression>| *x = map[x.index()];
    let o = |x: &mut Option<Handle<Expression>>| {
        if let Some(x) = x.as_mut() {
            *x = map[x.index()];
        }
    };
    for s in block.iter_mut() {
        match s {
            Statement::Emit(range) => {
                if let Some((a, b)) = range.first_and_last() {
                    *range = naga::Range::new_from_bounds(first[a.index()], map[b.index()]);
                }
            }
            Statement::Block(b) => remap_block(b, map, first)?,
            Statement::If {
                condition,
                accept,
                reject,
            } => {
                m(condition);
                remap_block(accept, map, first)?;
                remap_block(reject, map, first)?;
            }
            Statement::Switch { selector, cases } => {
                m(selector);
                for c in cases.iter_mut() {
                    remap_block(&mut c.body, map, first)?;
                }
            }
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => {
                remap_block(body, map, first)?;
                remap_block(continuing, map, first)?;
                o(break_if);
            }
            Statement::Break
            | Statement::Continue
            | Statement::Kill
            | Statement::ControlBarrier(_)
            | Statement::MemoryBarrier(_) => {}
            Statement::Return { value } => o(value),
            Statement::Store { pointer, value } => {
                m(pointer);
                m(value);
            }
            Statement::ImageStore {
                image,
                coordinate,
                array_index,
                value,
            } => {
                m(image);
                m(coordinate);
                o(array_index);
                m(value);
            }
            Statement::Atomic {
                pointer,
                fun,
                value,
                result,
            } => {
                m(pointer);
                if let naga::AtomicFunction::Exchange { compare } = fun {
                    o(compare);
                }
                m(value);
                o(result);
            }
            Statement::WorkGroupUniformLoad { pointer, result } => {
                m(pointer);
                m(result);
            }
            Statement::Call {
                arguments, result, ..
            } => {
                arguments.iter_mut().for_each(m);
                o(result);
            }
            _ => return None,
        }
    }
    Some(())
}
