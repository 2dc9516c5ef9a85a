//! `subgroupBroadcast(x, id)`: naga's SPIR-V writer emits the broadcast of a
//! lane as `OpGroupNonUniformShuffle` (before SPIR-V 1.5 a broadcast's lane
//! must be a constant, and naga's IR allows any), which needs the device's
//! shuffle operations where glslang's `OpGroupNonUniformBroadcast` needs
//! ballot. GLSL's lane is a constant (naga's validator checks it too), so
//! this word pass writes the broadcasts as glslang does.
//!
//! The writer emits each `SubgroupGather` statement as one instruction, in
//! the order of the module's functions and of their statements; the pass
//! lists the IR's gathers in that order ([`gathers`]) and changes the
//! opcode of those that are broadcasts. Where the words' gathers do not
//! match the list one for one (count and instruction), nothing changes.
//!
//! [`basic_capability`]: naga declares no capability for a barrier of
//! subgroup execution scope (`subgroupBarrier()` alone), where glslang
//! declares `GroupNonUniform`, which the runtime turns into the device's
//! basic subgroup operations.

use naga::{Block, GatherMode, Module, Statement};

use super::spirv_edit::{inst, Rewrite};
use crate::spirv::op;

/// `OpGroupNonUniform*` gathers, as naga's writer emits each mode.
const BROADCAST: u16 = 337;
const BROADCAST_FIRST: u16 = 338;
const SHUFFLE: u16 = 345;
const SHUFFLE_XOR: u16 = 346;
const SHUFFLE_UP: u16 = 347;
const SHUFFLE_DOWN: u16 = 348;
const QUAD_BROADCAST: u16 = 365;
const QUAD_SWAP: u16 = 366;

/// Capabilities `GroupNonUniformBallot` and `GroupNonUniformShuffle`.
const CAP_BALLOT: u32 = 64;
const CAP_SHUFFLE: u32 = 65;

/// The instruction naga writes for a gather of `mode`, and whether it is a
/// broadcast of a lane.
fn written_as(mode: &GatherMode) -> (u16, bool) {
    match mode {
        GatherMode::BroadcastFirst => (BROADCAST_FIRST, false),
        GatherMode::Broadcast(_) => (SHUFFLE, true),
        GatherMode::Shuffle(_) => (SHUFFLE, false),
        GatherMode::ShuffleXor(_) => (SHUFFLE_XOR, false),
        GatherMode::ShuffleUp(_) => (SHUFFLE_UP, false),
        GatherMode::ShuffleDown(_) => (SHUFFLE_DOWN, false),
        GatherMode::QuadBroadcast(_) => (QUAD_BROADCAST, false),
        GatherMode::QuadSwap(_) => (QUAD_SWAP, false),
    }
}

/// The module's gathers in the writer's order: the instruction each is
/// written as, and whether it is a broadcast.
pub(crate) fn gathers(module: &Module) -> Vec<(u16, bool)> {
    let mut out = Vec::new();
    for (_, f) in module.functions.iter() {
        walk(&f.body, &mut out);
    }
    for e in &module.entry_points {
        walk(&e.function.body, &mut out);
    }
    out
}

fn walk(block: &Block, out: &mut Vec<(u16, bool)>) {
    super::ir_walk::each(block, &mut |s, _| {
        if let Statement::SubgroupGather { mode, .. } = s {
            out.push(written_as(mode));
        }
    });
}

/// Rewrites the broadcasts among `gathers` (from [`gathers`]) into
/// `OpGroupNonUniformBroadcast` and the capabilities to match; returns how
/// many. `Err` when the framing of `words` is broken.
pub(crate) fn write_broadcasts(
    words: &mut Vec<u32>,
    gathers: &[(u16, bool)],
) -> Result<usize, String> {
    if !gathers.iter().any(|g| g.1) {
        return Ok(0);
    }
    let mut m = Rewrite::new(words)?;
    let is_gather = |o: u16| {
        matches!(
            o,
            BROADCAST_FIRST
                | SHUFFLE
                | SHUFFLE_XOR
                | SHUFFLE_UP
                | SHUFFLE_DOWN
                | QUAD_BROADCAST
                | QUAD_SWAP
        )
    };
    let at: Vec<usize> = (0..m.insts.len())
        .filter(|&k| is_gather(Rewrite::op(&m.insts[k])))
        .collect();
    let matches = at.len() == gathers.len()
        && at
            .iter()
            .zip(gathers)
            .all(|(&k, g)| Rewrite::op(&m.insts[k]) == g.0);
    if !matches {
        return Ok(0);
    }
    // A broadcast's lane must be a constant instruction before SPIR-V 1.5.
    let constant = |m: &Rewrite, id: u32| {
        m.def(id)
            .is_some_and(|w| matches!(Rewrite::op(w), 43 | 50 | 52))
    };
    let mut n = 0;
    for (&k, g) in at.iter().zip(gathers) {
        // Result type, result, scope, value, lane.
        let w = &m.insts[k];
        if !g.1 || w.len() != 6 || !constant(&m, w[5]) {
            continue;
        }
        let operands = w[1..].to_vec();
        m.insts[k] = inst(BROADCAST, &operands);
        n += 1;
    }
    if n == 0 {
        return Ok(0);
    }
    let shuffles_left = m
        .insts
        .iter()
        .any(|w| matches!(Rewrite::op(w), SHUFFLE | SHUFFLE_XOR));
    let capability =
        |w: &Vec<u32>, c: u32| Rewrite::op(w) == op::CAPABILITY && w.get(1) == Some(&c);
    if !shuffles_left {
        m.insts.retain(|w| !capability(w, CAP_SHUFFLE));
    }
    if !m.insts.iter().any(|w| capability(w, CAP_BALLOT)) {
        let last = m
            .insts
            .iter()
            .rposition(|w| Rewrite::op(w) == op::CAPABILITY)
            .map_or(0, |k| k + 1);
        m.insts.insert(last, inst(op::CAPABILITY, &[CAP_BALLOT]));
    }
    *words = m.words();
    Ok(n)
}

/// `OpControlBarrier`, and the `Subgroup` scope.
const CONTROL_BARRIER: u16 = 224;
const SCOPE_SUBGROUP: u32 = 3;
/// `GroupNonUniform`.
const CAP_BASIC: u32 = 61;

/// Declares `GroupNonUniform` where a control barrier has subgroup
/// execution scope and the module does not; returns whether it did.
pub(crate) fn basic_capability(words: &mut Vec<u32>) -> Result<bool, String> {
    let mut m = Rewrite::new(words)?;
    let subgroup_scope: Vec<u32> = m
        .insts
        .iter()
        .filter(|w| Rewrite::op(w) == op::CONSTANT && w.len() == 4 && w[3] == SCOPE_SUBGROUP)
        .map(|w| w[2])
        .collect();
    let barrier = m.insts.iter().any(|w| {
        Rewrite::op(w) == CONTROL_BARRIER && w.get(1).is_some_and(|s| subgroup_scope.contains(s))
    });
    let declared = m
        .insts
        .iter()
        .any(|w| Rewrite::op(w) == op::CAPABILITY && w.get(1) == Some(&CAP_BASIC));
    if !barrier || declared {
        return Ok(false);
    }
    let last = m
        .insts
        .iter()
        .rposition(|w| Rewrite::op(w) == op::CAPABILITY)
        .map_or(0, |k| k + 1);
    m.insts.insert(last, inst(op::CAPABILITY, &[CAP_BASIC]));
    *words = m.words();
    Ok(true)
}
