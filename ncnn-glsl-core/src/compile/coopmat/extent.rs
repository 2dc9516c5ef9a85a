//! Every cooperative-matrix load and store bounded by the whole extent it
//! touches. naga clamps the element index a load or store starts at (its
//! `Restrict` policy on `buf[i]`), but the operation reads or writes
//! `rows x columns` values from there, a row (or column) every `stride`
//! elements: an 8x8 store at the last element of a buffer wrote 64 bytes of
//! the next one. So each load and store runs only where its extent fits the
//! array it indexes; where it does not, a store is skipped and a load gives
//! zeros. The condition, with `i` the start, `len` the array's length (in
//! its elements of `E` bytes), `major` the rows of a row-major layout
//! (columns of a column-major one), `minor` the other dimension and `c`
//! bytes per matrix component:
//!
//! ```text
//! need = ceil(minor * c / E)             elements of one row from its start
//! i < len && need <= len - i && (major == 1 || stride <= (len - i - need) / (major - 1))
//! ```
//!
//! which is `i + (major - 1) * stride + need <= len` without overflow. The
//! operands must be dynamically uniform across the subgroup (a rule of the
//! extension), so the branch is too.

use super::super::spirv_edit::{inst, Rewrite};
use super::words::ops;
use crate::spirv::op;

const TYPE_BOOL: u16 = 20;
const FUNCTION_PARAMETER: u16 = 55;
const ARRAY_LENGTH: u16 = 68;
const IADD: u16 = 128;
const ISUB: u16 = 130;
const IMUL: u16 = 132;
const UDIV: u16 = 134;
const LOGICAL_OR: u16 = 166;
const LOGICAL_AND: u16 = 167;
const SELECT: u16 = 169;
const IEQUAL: u16 = 170;
const ULESS_THAN: u16 = 176;
const ULESS_THAN_EQUAL: u16 = 178;
const PHI: u16 = 245;
const LOOP_MERGE: u16 = 246;
const SELECTION_MERGE: u16 = 247;
const LABEL: u16 = 248;
const BRANCH: u16 = 249;
const BRANCH_CONDITIONAL: u16 = 250;
const TERMINATORS: [u16; 7] = [249, 250, 251, 252, 253, 254, 255];
const ARRAY_STRIDE: u32 = 6;

/// Wraps every cooperative load and store of `words` (KHR and NV) in the
/// check of its extent.
pub(crate) fn bound(words: &mut Vec<u32>) -> Result<(), String> {
    let mut m = Rewrite::new(words)?;
    let mut k = 0;
    while k < m.insts.len() {
        let code = Rewrite::op(&m.insts[k]);
        if matches!(
            code,
            ops::COOP_LOAD_KHR | ops::COOP_STORE_KHR | ops::COOP_LOAD_NV | ops::COOP_STORE_NV
        ) {
            k = wrap(&mut m, k)?;
        }
        k += 1;
    }
    m.order_globals()?;
    *words = m.words();
    Ok(())
}

/// The operands of one load or store.
struct Access {
    /// The loaded matrix's type and result id (a load).
    load: Option<(u32, u32)>,
    pointer: u32,
    /// The matrix type.
    matrix: u32,
    column_major: bool,
    stride: u32,
}

fn access(m: &Rewrite, w: &[u32]) -> Result<Access, String> {
    let layout = |id: u32, nv: bool| -> Result<bool, String> {
        let def = m
            .def(id)
            .ok_or("a cooperative layout that is not declared")?;
        match (nv, Rewrite::op(def)) {
            (true, ops::CONSTANT_TRUE) => Ok(true),
            (true, ops::CONSTANT_FALSE) => Ok(false),
            (false, op::CONSTANT) if def.len() == 4 => Ok(def[3] == 1),
            _ => Err("a cooperative layout that is not a constant".into()),
        }
    };
    let type_of = |id: u32| m.def(id).and_then(|d| d.get(1).copied());
    let short = || "a cooperative load or store of an unexpected form".to_string();
    Ok(match Rewrite::op(w) {
        // result type, result, pointer, layout, stride
        ops::COOP_LOAD_KHR if w.len() >= 6 => Access {
            load: Some((w[1], w[2])),
            pointer: w[3],
            matrix: w[1],
            column_major: layout(w[4], false)?,
            stride: w[5],
        },
        // pointer, object, layout, stride
        ops::COOP_STORE_KHR if w.len() >= 5 => Access {
            load: None,
            pointer: w[1],
            matrix: type_of(w[2]).ok_or_else(short)?,
            column_major: layout(w[3], false)?,
            stride: w[4],
        },
        // result type, result, pointer, stride, column-major
        ops::COOP_LOAD_NV if w.len() >= 6 => Access {
            load: Some((w[1], w[2])),
            pointer: w[3],
            matrix: w[1],
            column_major: layout(w[5], true)?,
            stride: w[4],
        },
        // pointer, object, stride, column-major
        ops::COOP_STORE_NV if w.len() >= 5 => Access {
            load: None,
            pointer: w[1],
            matrix: type_of(w[2]).ok_or_else(short)?,
            column_major: layout(w[4], true)?,
            stride: w[3],
        },
        _ => return Err(short()),
    })
}

/// Where a load or store starts: the element index, the array's length
/// (an id computed before the operation, where it needs an instruction)
/// and the bytes of one of its elements.
struct Start {
    index: u32,
    length: Length,
    element_bytes: u32,
}

enum Length {
    /// A constant or specialization constant.
    Id(u32),
    /// `OpArrayLength` of the block variable's member.
    Runtime { block: u32, member: u32 },
}

fn start(m: &Rewrite, pointer: u32) -> Result<Start, String> {
    let not_bounded =
        || "a cooperative load or store whose array this pass cannot bound".to_string();
    let chain = m
        .def(pointer)
        .filter(|w| {
            matches!(
                Rewrite::op(w),
                op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN
            )
        })
        .filter(|w| w.len() >= 5)
        .ok_or_else(not_bounded)?;
    let base = chain[3];
    let indices = &chain[4..];
    let base_pointer = m
        .def(base)
        .filter(|w| matches!(Rewrite::op(w), op::VARIABLE | FUNCTION_PARAMETER))
        .map(|w| w[1])
        .ok_or_else(not_bounded)?;
    let constant = |id: u32| {
        m.def(id)
            .filter(|w| Rewrite::op(w) == op::CONSTANT && w.len() == 4)
            .map(|w| w[3])
    };
    let mut ty = m.pointee(base_pointer).ok_or_else(not_bounded)?;
    let (last, path) = indices.split_last().ok_or_else(not_bounded)?;
    for &index in path {
        let t = m.def(ty).ok_or_else(not_bounded)?;
        ty = match Rewrite::op(t) {
            op::TYPE_ARRAY | op::TYPE_RUNTIME_ARRAY | op::TYPE_VECTOR => t[2],
            op::TYPE_STRUCT => {
                let member = constant(index).ok_or_else(not_bounded)? as usize;
                *t.get(2 + member).ok_or_else(not_bounded)?
            }
            _ => return Err(not_bounded()),
        };
    }
    let array = m.def(ty).ok_or_else(not_bounded)?;
    let stride = m.insts.iter().find_map(|w| {
        (Rewrite::op(w) == op::DECORATE && w.len() == 4 && w[1] == ty && w[2] == ARRAY_STRIDE)
            .then(|| w[3])
    });
    let element_bytes = match stride {
        Some(s) => s,
        None => natural_bytes(m, array[2], 0).ok_or_else(not_bounded)?,
    };
    let length = match Rewrite::op(array) {
        op::TYPE_ARRAY => Length::Id(array[3]),
        // `OpArrayLength` takes the block and the member that is the array.
        op::TYPE_RUNTIME_ARRAY => match path {
            [member] => Length::Runtime {
                block: base,
                member: constant(*member).ok_or_else(not_bounded)?,
            },
            _ => return Err(not_bounded()),
        },
        _ => return Err(not_bounded()),
    };
    Ok(Start {
        index: *last,
        length,
        element_bytes,
    })
}

/// Bytes of a scalar or vector type (a `shared` array has no stride).
fn natural_bytes(m: &Rewrite, ty: u32, depth: u32) -> Option<u32> {
    let w = m.def(ty)?;
    match Rewrite::op(w) {
        op::TYPE_INT | op::TYPE_FLOAT => Some(w.get(2)? / 8),
        op::TYPE_VECTOR if depth == 0 => Some(natural_bytes(m, w[2], 1)? * w.get(3)?),
        _ => None,
    }
}

/// The module's constant of `value` of type `ty`, declared before the
/// first function where it has none.
fn constant(m: &mut Rewrite, ty: u32, value: u32) -> u32 {
    if let Some(w) = m
        .insts
        .iter()
        .find(|w| Rewrite::op(w) == op::CONSTANT && w.len() == 4 && w[1] == ty && w[3] == value)
    {
        return w[2];
    }
    let id = m.fresh_id();
    declare(m, inst(op::CONSTANT, &[ty, id, value]));
    id
}

/// Adds a declaration before the first function (`order_globals` puts it
/// after what it uses).
fn declare(m: &mut Rewrite, w: Vec<u32>) {
    let at = m
        .insts
        .iter()
        .position(|w| Rewrite::op(w) == op::FUNCTION)
        .unwrap_or(m.insts.len());
    m.insts.insert(at, w);
}

fn bool_type(m: &mut Rewrite) -> u32 {
    if let Some(w) = m.insts.iter().find(|w| Rewrite::op(w) == TYPE_BOOL) {
        return w[1];
    }
    let id = m.fresh_id();
    declare(m, inst(TYPE_BOOL, &[id]));
    id
}

/// A zero matrix of type `matrix`: `OpConstantComposite` of one zero
/// component, as the extensions write a matrix of one value.
fn zero_matrix(m: &mut Rewrite, matrix: u32) -> Result<u32, String> {
    let component = m
        .def(matrix)
        .and_then(|w| w.get(2).copied())
        .ok_or("a cooperative load of no matrix type")?;
    let width = m
        .def(component)
        .filter(|w| matches!(Rewrite::op(w), op::TYPE_INT | op::TYPE_FLOAT))
        .and_then(|w| w.get(2).copied())
        .ok_or("a cooperative matrix of an unexpected component type")?;
    let zero = m.fresh_id();
    let mut words = vec![component, zero, 0];
    if width == 64 {
        words.push(0);
    }
    declare(m, inst(op::CONSTANT, &words));
    let id = m.fresh_id();
    declare(m, inst(op::CONSTANT_COMPOSITE, &[matrix, id, zero]));
    Ok(id)
}

/// Wraps the load or store at `k`; returns the index of the operation in
/// the rewritten module.
fn wrap(m: &mut Rewrite, k: usize) -> Result<usize, String> {
    let a = access(m, &m.insts[k])?;
    let s = start(m, a.pointer)?;
    let [component, rows, cols] = match m.def(a.matrix).map(|w| &w[..]) {
        Some([_, _, component, _, rows, cols, ..]) => [*component, *rows, *cols],
        _ => return Err("a cooperative matrix type of an unexpected form".into()),
    };
    let component_bytes = natural_bytes(m, component, 1).ok_or("a matrix component of no size")?;
    let (major, minor) = if a.column_major {
        (cols, rows)
    } else {
        (rows, cols)
    };
    // Declarations go before the first function, so before `k`: count them.
    let before = m.insts.len();
    let uint = m.int_type(false);
    let boolean = bool_type(m);
    let [zero, one] = [0, 1].map(|v| constant(m, uint, v));
    let c = constant(m, uint, component_bytes);
    let e = constant(m, uint, s.element_bytes);
    let e1 = constant(m, uint, s.element_bytes - 1);
    let zero_matrix = match a.load {
        Some((ty, _)) => Some(zero_matrix(m, ty)?),
        None => None,
    };
    let k = k + (m.insts.len() - before);
    // The block the operation is in: its label, and its end.
    let label = (0..k)
        .rev()
        .find(|&j| Rewrite::op(&m.insts[j]) == LABEL)
        .map(|j| m.insts[j][1])
        .ok_or("a cooperative load or store outside a block")?;
    let end = (k..m.insts.len())
        .find(|&j| TERMINATORS.contains(&Rewrite::op(&m.insts[j])))
        .ok_or("a block without its end")?;
    if m.insts[k..end].iter().any(|w| Rewrite::op(w) == LOOP_MERGE) {
        return Err("a cooperative load or store in a loop's header block".into());
    }
    let mut code: Vec<Vec<u32>> = Vec::new();
    let mut emit = |m: &mut Rewrite, o: u16, ty: u32, operands: &[u32]| {
        let id = m.fresh_id();
        let mut w = vec![ty, id];
        w.extend_from_slice(operands);
        code.push(inst(o, &w));
        id
    };
    let length = match s.length {
        Length::Id(id) => id,
        Length::Runtime { block, member } => emit(m, ARRAY_LENGTH, uint, &[block, member]),
    };
    let i = s.index;
    let minor_bytes = emit(m, IMUL, uint, &[minor, c]);
    let rounded = emit(m, IADD, uint, &[minor_bytes, e1]);
    let need = emit(m, UDIV, uint, &[rounded, e]);
    let inside = emit(m, ULESS_THAN, boolean, &[i, length]);
    let room = emit(m, ISUB, uint, &[length, i]);
    let row_fits = emit(m, ULESS_THAN_EQUAL, boolean, &[need, room]);
    let gaps = emit(m, ISUB, uint, &[major, one]);
    let one_row = emit(m, IEQUAL, boolean, &[gaps, zero]);
    let divisor = emit(m, SELECT, uint, &[one_row, one, gaps]);
    let slack = emit(m, ISUB, uint, &[room, need]);
    let most = emit(m, UDIV, uint, &[slack, divisor]);
    let stride_fits = emit(m, ULESS_THAN_EQUAL, boolean, &[a.stride, most]);
    let rows_fit = emit(m, LOGICAL_OR, boolean, &[one_row, stride_fits]);
    let starts = emit(m, LOGICAL_AND, boolean, &[inside, row_fits]);
    let fits = emit(m, LOGICAL_AND, boolean, &[starts, rows_fit]);
    let (then, merge) = (m.fresh_id(), m.fresh_id());
    code.push(inst(SELECTION_MERGE, &[merge, 0]));
    code.push(inst(BRANCH_CONDITIONAL, &[fits, then, merge]));
    code.push(inst(LABEL, &[then]));
    let mut operation = m.insts[k].clone();
    let loaded = m.fresh_id();
    if a.load.is_some() {
        operation[2] = loaded;
    }
    let at = k + code.len();
    code.push(operation);
    code.push(inst(BRANCH, &[merge]));
    code.push(inst(LABEL, &[merge]));
    if let (Some((ty, result)), Some(zero_matrix)) = (a.load, zero_matrix) {
        code.push(inst(PHI, &[ty, result, loaded, then, zero_matrix, label]));
    }
    let ours = k..k + code.len();
    m.insts.splice(k..=k, code);
    // The block's successors now come from `merge`: their phis say so.
    for (j, w) in m.insts.iter_mut().enumerate() {
        if Rewrite::op(w) != PHI || ours.contains(&j) {
            continue;
        }
        for p in (4..w.len()).step_by(2) {
            if w[p] == label {
                w[p] = merge;
            }
        }
    }
    Ok(at)
}
