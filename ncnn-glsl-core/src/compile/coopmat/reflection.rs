//! The reflection of the matrix types and multiply-adds: what a runtime
//! checks against the device's list of cooperative matrix shapes.

use std::collections::HashMap;

use super::{CoopType, Flavor, MulAdd, Size, Use};
use crate::reflection::{
    CoopMatDim, CoopMatElement, CoopMatFlavor, CoopMatMulAdd, CoopMatType, CoopMatUse,
};

fn element(t: &CoopType) -> CoopMatElement {
    if t.key.half {
        CoopMatElement::Float16
    } else {
        CoopMatElement::Float32
    }
}

fn dim(s: Size, defaults: &HashMap<u32, u32>) -> CoopMatDim {
    match s {
        Size::Lit(v) => CoopMatDim::Constant(v),
        Size::Spec { id, .. } => CoopMatDim::Spec {
            id,
            default: defaults.get(&id).copied().unwrap_or(1),
        },
        Size::Derived(_) => CoopMatDim::Derived,
    }
}

fn flavor(f: Flavor) -> CoopMatFlavor {
    match f {
        Flavor::Khr => CoopMatFlavor::Khr,
        Flavor::Nv => CoopMatFlavor::Nv,
    }
}

/// The distinct types of the text, in order (two spellings of one type are
/// one `CoopType` already).
pub(crate) fn types(types: &[CoopType], spec_defaults: &HashMap<u32, u32>) -> Vec<CoopMatType> {
    let mut out: Vec<CoopMatType> = Vec::new();
    for t in types {
        let r = CoopMatType {
            flavor: flavor(t.key.flavor),
            element: element(t),
            scope: t.key.scope,
            rows: dim(t.key.rows, spec_defaults),
            cols: dim(t.key.cols, spec_defaults),
            role: t.key.use_.map(|u| match u {
                Use::A => CoopMatUse::A,
                Use::B => CoopMatUse::B,
                Use::Accumulator => CoopMatUse::Accumulator,
            }),
        };
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// The distinct multiply-adds of `mul_adds`, in order.
pub(crate) fn mul_adds(
    types: &[CoopType],
    mul_adds: &[MulAdd],
    spec_defaults: &HashMap<u32, u32>,
) -> Vec<CoopMatMulAdd> {
    let mut out: Vec<CoopMatMulAdd> = Vec::new();
    for ma in mul_adds {
        let (Some(a), Some(b), Some(c)) = (types.get(ma.a), types.get(ma.b), types.get(ma.c))
        else {
            continue;
        };
        let r = CoopMatMulAdd {
            flavor: flavor(c.key.flavor),
            a_type: element(a),
            b_type: element(b),
            c_type: element(c),
            result_type: element(c),
            scope: c.key.scope,
            m: dim(a.key.rows, spec_defaults),
            n: dim(b.key.cols, spec_defaults),
            k: dim(a.key.cols, spec_defaults),
        };
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}
