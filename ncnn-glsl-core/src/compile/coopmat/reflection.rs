//! The reflection of the multiply-adds: what a runtime checks against the
//! device's list of cooperative matrix shapes.

use std::collections::HashMap;

use super::{CoopType, Flavor, MulAdd, Size};
use crate::reflection::{CoopMatDim, CoopMatElement, CoopMatFlavor, CoopMatMulAdd};

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
    }
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
            flavor: match c.key.flavor {
                Flavor::Khr => CoopMatFlavor::Khr,
                Flavor::Nv => CoopMatFlavor::Nv,
            },
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
