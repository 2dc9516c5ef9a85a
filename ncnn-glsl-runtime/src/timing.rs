//! GPU time of recorded work: a pair of timestamp queries around it, read
//! back in nanoseconds. Used by dispatches and by timed buffer copies.

use ash::vk;

use crate::context::Context;

/// Two timestamp queries (before, after); `None` from [`Timer::new`] where the
/// queue has no timestamps.
pub(crate) struct Timer<'a> {
    ctx: &'a Context,
    pool: vk::QueryPool,
}

impl<'a> Timer<'a> {
    /// A timer, or `None` where the queue family reports no valid timestamp bits.
    pub(crate) fn new(ctx: &'a Context) -> Option<Timer<'a>> {
        if ctx.timestamp_bits == 0 {
            return None;
        }
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(2);
        let pool = unsafe { ctx.device().create_query_pool(&info, None) }.ok()?;
        Some(Timer { ctx, pool })
    }

    /// Records the reset and the first timestamp (after all earlier work).
    pub(crate) fn begin(&self, cmd: vk::CommandBuffer) {
        let d = self.ctx.device();
        unsafe {
            d.cmd_reset_query_pool(cmd, self.pool, 0, 2);
            d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, self.pool, 0);
        }
    }

    /// Records the second timestamp (when everything before it has finished).
    pub(crate) fn end(&self, cmd: vk::CommandBuffer) {
        unsafe {
            self.ctx.device().cmd_write_timestamp(
                cmd,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                self.pool,
                1,
            )
        };
    }

    /// Nanoseconds between the two, once the submission has completed.
    pub(crate) fn elapsed_ns(&self) -> Option<f64> {
        let mut t = [0u64; 2];
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
        let ticks = (t[1] & mask).wrapping_sub(t[0] & mask) & mask;
        Some(ticks as f64 * f64::from(self.ctx.limits().timestamp_period))
    }
}

impl Drop for Timer<'_> {
    fn drop(&mut self) {
        unsafe { self.ctx.device().destroy_query_pool(self.pool, None) };
    }
}
