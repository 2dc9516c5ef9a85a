//! The IR step's typing and its refusals of what naga would write wrong
//! or not at all on cooperative matrices (an operator, an element access,
//! a `length()`).

use naga::proc::{ResolveContext, TypeResolution};
use naga::{
    BinaryOperator, Expression, Function, Handle, Module, Scalar, Type, TypeInner, UniqueArena,
};

use super::unsupported;
use crate::compile::atomics::Unsupported;

/// The type of each expression of a function; one that does not resolve
/// (an element of a matrix: naga's typifier has no rule for it) is noted
/// and stands as a `float`.
pub(super) struct Types {
    of: Vec<TypeResolution>,
    failed: Vec<Handle<Expression>>,
}

impl Types {
    pub fn of(module: &Module, f: &Function) -> Types {
        let mut of: Vec<TypeResolution> = Vec::with_capacity(f.expressions.len());
        let mut failed = Vec::new();
        for (h, e) in f.expressions.iter() {
            let r = {
                let rc = ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
                rc.resolve(e, |p| {
                    of.get(p.index())
                        .ok_or(naga::proc::ResolveError::InvalidAccess {
                            expr: p,
                            indexed: false,
                        })
                })
            };
            of.push(r.unwrap_or_else(|_| {
                failed.push(h);
                TypeResolution::Value(TypeInner::Scalar(Scalar::F32))
            }));
        }
        Types { of, failed }
    }

    pub fn get<'a>(&'a self, h: Handle<Expression>, types: &'a UniqueArena<Type>) -> &'a TypeInner {
        self.of[h.index()].inner_with(types)
    }
}

/// Why an element access is refused, and what to write instead.
const ELEMENT: &str = "an element of a cooperative matrix: naga's IR has no access to one \
     (glslang writes one); work on the matrix through `coopMatStore` to `shared` memory";

/// The operators naga would write wrong or not at all on cooperative
/// matrices, and element access, refused.
pub(super) fn check_operators(
    f: &Function,
    typifier: &Types,
    types: &UniqueArena<Type>,
    problems: &mut Vec<Unsupported>,
) {
    let is_coop = |h: Handle<Expression>| -> bool {
        match typifier.get(h, types) {
            TypeInner::CooperativeMatrix { .. } => true,
            TypeInner::Pointer { base, .. } => {
                matches!(types[*base].inner, TypeInner::CooperativeMatrix { .. })
            }
            _ => false,
        }
    };
    for (h, e) in f.expressions.iter() {
        let span = f.expressions.get_span(h);
        if typifier.failed.contains(&h) {
            let what = match *e {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. }
                    if is_coop(base) =>
                {
                    ELEMENT
                }
                _ => {
                    "this expression's type does not resolve (an operation naga has no rule \
                      for on a cooperative matrix)"
                }
            };
            problems.push(unsupported(span, what));
            // What depends on it does not resolve either: one error.
            return;
        }
        match *e {
            Expression::Binary { op, left, right } => {
                let (l, r) = (is_coop(left), is_coop(right));
                if !(l || r) {
                    continue;
                }
                let ok = match op {
                    BinaryOperator::Add | BinaryOperator::Subtract => l && r,
                    BinaryOperator::Multiply => l != r,
                    _ => false,
                };
                if !ok {
                    let what = match op {
                        BinaryOperator::Multiply | BinaryOperator::Divide if l && r => format!(
                            "a component-wise {} of two cooperative matrices: naga's IR has no \
                             form for it (glslang writes one); multiply by a scalar, use \
                             `coopMatMulAdd`, or go through `coopMatStore` to `shared` memory",
                            if op == BinaryOperator::Multiply {
                                "product"
                            } else {
                                "quotient"
                            }
                        ),
                        _ => format!(
                            "`{op:?}` on a cooperative matrix: this compiler takes `+` and `-` of \
                             two matrices and `*` by a scalar"
                        ),
                    };
                    problems.push(unsupported(span, what));
                }
            }
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. }
                if is_coop(base) =>
            {
                problems.push(unsupported(span, ELEMENT));
            }
            Expression::Unary { expr, .. } if is_coop(expr) => {
                problems.push(unsupported(
                    span,
                    "a negated cooperative matrix: naga's IR has no form for it (glslang writes \
                     one); multiply by `-1` of the element type",
                ));
            }
            Expression::ArrayLength(e) if is_coop(e) => {
                problems.push(unsupported(
                    span,
                    "the `length()` of a cooperative matrix: naga's IR has no form for it (glslang \
                     writes one)",
                ));
            }
            _ => {}
        }
    }
}
