//! GPU time of recorded work: a pair of timestamp queries around each step,
//! read back in nanoseconds. Used by [`crate::Sequence`].

use ash::vk;

use crate::context::Context;

/// Timestamp query pairs (before, after), one per step; `None` from
/// [`Timer::new`] where the queue has no timestamps.
pub(crate) struct Timer<'a> {
    ctx: &'a Context,
    pool: vk::QueryPool,
    steps: u32,
}

impl<'a> Timer<'a> {
    /// A timer of `steps` pairs, or `None` where the queue family reports no
    /// valid timestamp bits.
    pub(crate) fn new(ctx: &'a Context, steps: u32) -> Option<Timer<'a>> {
        if ctx.timestamp_bits == 0 || steps == 0 {
            return None;
        }
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(2 * steps);
        // SAFETY: `info` (timestamp queries, a non-zero count) outlives the
        // call on the context's live device.
        let pool = unsafe { ctx.device().create_query_pool(&info, None) }.ok()?;
        Some(Timer { ctx, pool, steps })
    }

    /// Records the reset of every query; before any [`Timer::mark`].
    pub(crate) fn reset(&self, cmd: vk::CommandBuffer) {
        // SAFETY: `cmd` is recording (the caller is inside `submit_and_wait`'s
        // closure) and the range is the whole pool.
        unsafe {
            self.ctx
                .device()
                .cmd_reset_query_pool(cmd, self.pool, 0, 2 * self.steps)
        };
    }

    /// Records step `step`'s first (`end` false) or second timestamp. Both
    /// are taken at the bottom of the pipe, when everything recorded before
    /// has finished: a top-of-pipe stamp may be written while the previous
    /// step still runs, which would charge that step's tail to this one.
    pub(crate) fn mark(&self, cmd: vk::CommandBuffer, step: u32, end: bool) {
        // SAFETY: `cmd` is recording; the queue has timestamp bits (`new`);
        // the caller's `step` < `steps`, so the query is in the pool, reset
        // earlier in this command buffer.
        unsafe {
            self.ctx.device().cmd_write_timestamp(
                cmd,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                self.pool,
                2 * step + end as u32,
            )
        };
    }

    /// Nanoseconds between each pair, once the submission has completed.
    pub(crate) fn elapsed_ns(&self) -> Option<Vec<f64>> {
        let mut t = vec![0u64; 2 * self.steps as usize];
        // SAFETY: `t` holds the pool's `2 * steps` 64-bit results (TYPE_64);
        // the caller has waited for the submission, which wrote every query,
        // so WAIT returns.
        unsafe {
            self.ctx.device().get_query_pool_results(
                self.pool,
                0,
                &mut t,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .ok()?;
        let bits = self.ctx.timestamp_bits;
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let period = f64::from(self.ctx.limits().timestamp_period);
        Some(
            t.chunks_exact(2)
                .map(|p| ((p[1] & mask).wrapping_sub(p[0] & mask) & mask) as f64 * period)
                .collect(),
        )
    }
}

impl Drop for Timer<'_> {
    fn drop(&mut self) {
        // SAFETY: the pool is this device's; the submission that used it was
        // waited for (`run_with` keeps the timer across `submit_and_wait`).
        unsafe { self.ctx.device().destroy_query_pool(self.pool, None) };
    }
}
