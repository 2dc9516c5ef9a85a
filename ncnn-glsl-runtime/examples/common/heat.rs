//! Keeping a GPU at the clocks of a busy device before timing it; shared by
//! the benchmark examples.

use std::sync::Arc;
use std::time::Instant;

use ncnn_glsl_runtime::{Buffer, Context, Dispatch, Pipeline, Sequence};

type Fail = Box<dyn std::error::Error>;

/// Keeps the GPU busy for a while before each case's timed submission. A
/// GPU whose clocks follow its load lowers them while the host prepares a
/// case (inputs, the CPU reference, uploads), and raises them only under a
/// load with few gaps: on the H200 the SM clock sat at 345 MHz (a copy
/// moved 1.4-1.6 TB/s) under submissions of 8 copies, and reached 1980 MHz
/// (3.6 TB/s) after 0.2-0.3 s of submissions of 256 (`BENCHMARKS.md`,
/// "Clocks"). Copies of 64 MiB, 256 per submission, until `ms`
/// milliseconds of wall time have passed; 0 turns it off.
pub struct Heater<'a> {
    ctx: Arc<Context>,
    shader: &'a Pipeline,
    buffers: Option<[Buffer; 2]>,
    push: Vec<u8>,
    groups: u32,
    ms: u64,
}

impl<'a> Heater<'a> {
    /// A heater running `shader` (`examples/shaders/bench_copy.comp`).
    pub fn new(ctx: &Arc<Context>, shader: &'a Pipeline, ms: u64) -> Result<Heater<'a>, Fail> {
        let bytes: u64 = 64 << 20;
        let quads = (bytes / 16) as u32;
        let groups = quads
            .div_ceil(4 * 256)
            .clamp(1, ctx.limits().max_compute_work_group_count[0]);
        let buffers = if ms > 0 {
            Some([Buffer::new(ctx, bytes)?, Buffer::new(ctx, bytes)?])
        } else {
            None
        };
        Ok(Heater {
            ctx: ctx.clone(),
            shader,
            buffers,
            push: [quads, groups * 256]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect(),
            groups,
            ms,
        })
    }

    /// Runs the load; returns when `ms` milliseconds have passed.
    pub fn heat(&self) -> Result<(), Fail> {
        let Some([src, dst]) = &self.buffers else {
            return Ok(());
        };
        let start = Instant::now();
        let bufs = [src, dst];
        while start.elapsed().as_millis() < u128::from(self.ms) {
            let mut seq = Sequence::new(&self.ctx);
            for _ in 0..256 {
                seq.dispatch(
                    self.shader,
                    Dispatch::new(&bufs, &self.push, [self.groups, 1, 1]),
                )?;
            }
            seq.run()?;
        }
        Ok(())
    }
}
