//! The cooperative matrix types and multiply-adds of a module's words, at
//! the values the pipeline specializes: what the runtime checks the
//! reflection's lists against (`blob_check.rs`).

use std::collections::HashMap;

use crate::spirv::op;

/// An `OpTypeCooperativeMatrixKHR` (or `...NV`) as the words declare it,
/// each operand at the values the pipeline specializes; `None` where the
/// runtime cannot evaluate it (an operation it does not compute, an element
/// type that is no float or integer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WordCoopMatType {
    /// `OpTypeCooperativeMatrixNV` (else KHR).
    pub nv: bool,
    /// The element type as a `VkComponentTypeKHR`.
    pub component: Option<u32>,
    /// The scope.
    pub scope: Option<u32>,
    /// Rows.
    pub rows: Option<u32>,
    /// Columns.
    pub cols: Option<u32>,
    /// The use (KHR: 0 A, 1 B, 2 accumulator); `None` for NV.
    pub role: Option<u32>,
}

/// `OpTypeCooperativeMatrixKHR`, `OpTypeCooperativeMatrixNV`.
const TYPE_COOP_KHR: u16 = 4456;
const TYPE_COOP_NV: u16 = 5358;
/// `OpCooperativeMatrixMulAddKHR`, `OpCooperativeMatrixMulAddNV`: result
/// type, result, A, B, C.
const MUL_ADD_KHR: u16 = 4459;
const MUL_ADD_NV: u16 = 5361;

/// The instructions whose first two operands are a result type and a
/// result, that can give a cooperative matrix value: what a multiply-add's
/// operands are read through. (`OpUndef`, `OpConstantComposite`,
/// `OpConstantNull`, `OpSpecConstantComposite`, `OpFunctionParameter`,
/// `OpFunctionCall`, `OpLoad`, `OpCompositeConstruct`,
/// `OpCompositeExtract`, `OpCopyObject`, the conversions, negation and
/// arithmetic, `OpMatrixTimesScalar`, `OpSelect`, `OpPhi`, and the
/// cooperative loads and multiply-adds.)
const MATRIX_VALUES: [u16; 29] = [
    1,
    44,
    46,
    51,
    55,
    57,
    61,
    80,
    81,
    83,
    113,
    114,
    115,
    126,
    127,
    128,
    129,
    130,
    131,
    132,
    133,
    136,
    143,
    169,
    245,
    4457,
    MUL_ADD_KHR,
    5359,
    MUL_ADD_NV,
];

/// The `VkComponentTypeKHR` of a float or integer type (`OpTypeFloat`
/// width; `OpTypeInt` width and signedness).
fn component_type(t: Option<&(u16, Vec<u32>)>) -> Option<u32> {
    match t? {
        (op::TYPE_FLOAT, w) => match w.first()? {
            16 => Some(0),
            32 => Some(1),
            64 => Some(2),
            _ => None,
        },
        (op::TYPE_INT, w) => {
            let signed = *w.get(1)? == 1;
            let k = match w.first()? {
                8 => 0,
                16 => 1,
                32 => 2,
                64 => 3,
                _ => return None,
            };
            Some(if signed { 3 + k } else { 7 + k })
        }
        _ => None,
    }
}

/// What one walk over the instructions collects.
#[derive(Default)]
pub(super) struct Found {
    /// Each matrix type: NV, then its operands after the opcode.
    types: Vec<(bool, Vec<u32>)>,
    /// Result id -> type id of the values a multiply-add may read.
    value_types: HashMap<u32, u32>,
    /// (result type, A, B, C) of each multiply-add.
    mul_adds: Vec<[u32; 4]>,
}

impl Found {
    /// Takes note of instruction `code` with operands `w`.
    pub(super) fn see(&mut self, code: u16, w: &[u32]) {
        if MATRIX_VALUES.contains(&code) && w.len() >= 2 {
            self.value_types.insert(w[1], w[0]);
        }
        match code {
            MUL_ADD_KHR | MUL_ADD_NV if w.len() >= 5 => {
                self.mul_adds.push([w[0], w[2], w[3], w[4]]);
            }
            TYPE_COOP_KHR | TYPE_COOP_NV if w.len() >= 5 => {
                self.types.push((code == TYPE_COOP_NV, w.to_vec()));
            }
            _ => {}
        }
    }

    /// The types and multiply-adds, with `types` (type id: opcode and
    /// operands after the result) and `constants` (id: value, the
    /// specialization constants at the pipeline's values).
    pub(super) fn resolve(
        &self,
        types: &HashMap<u32, (u16, Vec<u32>)>,
        constants: &HashMap<u32, u32>,
    ) -> (Vec<WordCoopMatType>, Vec<[Option<WordCoopMatType>; 4]>) {
        let by_id: HashMap<u32, WordCoopMatType> = self
            .types
            .iter()
            .map(|(nv, w)| {
                let value = |k: usize| w.get(k).and_then(|id| constants.get(id).copied());
                let t = WordCoopMatType {
                    nv: *nv,
                    component: component_type(types.get(&w[1])),
                    scope: value(2),
                    rows: value(3),
                    cols: value(4),
                    role: if *nv { None } else { value(5) },
                };
                (w[0], t)
            })
            .collect();
        let listed = self.types.iter().map(|(_, w)| by_id[&w[0]]).collect();
        let of = |v: u32| self.value_types.get(&v).and_then(|t| by_id.get(t)).copied();
        let mul_adds = self
            .mul_adds
            .iter()
            .map(|&[result, a, b, c]| [of(a), of(b), of(c), by_id.get(&result).copied()])
            .collect();
        (listed, mul_adds)
    }
}
