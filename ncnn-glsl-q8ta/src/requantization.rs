//! The new kernel's ways to requantize: their specialization values, the
//! blob each needs, and the shared memory each takes.

use super::error::Q8taError;

/// How the new kernel requantizes (the shader's specialization constant
/// `REQUANT_TABLE`, id 7, and its axis `LUT_COPIES`); the same bytes every
/// way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Requantization {
    /// Each lane computed with the fixed-point formula.
    Lanes,
    /// Every byte's result built into a shared table per workgroup, behind a
    /// barrier, then one lookup per lane.
    Table,
    /// The table in 32 copies, one per shared-memory bank, each invocation
    /// reading its own: no two lanes of a subgroup of 32 wait for one bank.
    /// 32 KiB of shared memory ([`Requantization::shared_bytes`]).
    Banked,
    /// Each lane computed in f32 (a multiply, an add, `floor`): only for the
    /// scales it is proven exact for ([`super::Requant::float_exact`]).
    Float,
    /// The banked table for half of each pixel's output words, f32 for the
    /// other half (word by word, its input words): the lookups go
    /// through shared memory and the arithmetic through the ALUs, so each
    /// takes half the work. Only where [`Requantization::Float`] is exact;
    /// 32 KiB of shared memory.
    Mixed,
    /// As [`Requantization::Mixed`] with one of each pixel's four output
    /// words from the table and three in f32: where the arithmetic has more
    /// room than the lookups (on an H200 from 4W4C into 4C1W).
    MixedQuarter,
}

impl Requantization {
    /// Every way.
    pub const ALL: [Requantization; 6] = [
        Requantization::Lanes,
        Requantization::Table,
        Requantization::Banked,
        Requantization::Float,
        Requantization::Mixed,
        Requantization::MixedQuarter,
    ];

    /// Its name in benchmarks.
    pub const fn name(self) -> &'static str {
        match self {
            Requantization::Lanes => "lanes",
            Requantization::Table => "table",
            Requantization::Banked => "banked",
            Requantization::Float => "float",
            Requantization::Mixed => "mixed",
            Requantization::MixedQuarter => "mixed-quarter",
        }
    }

    /// Whether it computes in f32 (all lanes or some), which only the scales
    /// [`super::Requant::float_exact`] holds for allow.
    pub const fn uses_float(self) -> bool {
        matches!(
            self,
            Requantization::Float | Requantization::Mixed | Requantization::MixedQuarter
        )
    }

    /// The value of `REQUANT_TABLE`: 0 per lane, 1 through a table, 2 in f32,
    /// 3 mixed, 4 mixed with a quarter from the table.
    pub const fn spec_value(self) -> i32 {
        match self {
            Requantization::Lanes => 0,
            Requantization::Table | Requantization::Banked => 1,
            Requantization::Float => 2,
            Requantization::Mixed => 3,
            Requantization::MixedQuarter => 4,
        }
    }

    /// The shared memory its blob declares, in bytes (per lane and in f32 run
    /// the one-table blob, which declares the table they do not use).
    pub const fn shared_bytes(self) -> u32 {
        self.lut_copies() as u32 * 256 * 4
    }

    /// `Ok` where its table fits a device's `maxComputeSharedMemorySize` of
    /// `max` bytes, else [`Q8taError::SharedMemory`].
    pub fn check_shared_memory(self, max: u32) -> Result<(), Q8taError> {
        if self.shared_bytes() <= max {
            Ok(())
        } else {
            Err(Q8taError::SharedMemory {
                requantization: self.name(),
                needs: self.shared_bytes(),
                max,
            })
        }
    }

    /// The value of the axis `LUT_COPIES`: the copies of the table the blob
    /// declares (1 where none is used).
    pub const fn lut_copies(self) -> i64 {
        match self {
            Requantization::Banked | Requantization::Mixed | Requantization::MixedQuarter => 32,
            Requantization::Lanes | Requantization::Table | Requantization::Float => 1,
        }
    }
}
