//! Submitting recorded work: one command buffer, submitted on the context's
//! queue and waited for, and the memory barrier every step is ordered by.
//! The steps themselves are [`crate::Sequence`]'s and [`crate::Buffer`]'s.

use ash::vk;

use crate::context::Context;
use crate::error::{Error, Result};

impl Context {
    /// Records commands with `record` into a fresh command buffer, submits
    /// it on the queue and waits for it. A transient pool per call keeps
    /// threads from sharing a command pool (which Vulkan forbids without
    /// external locking) at a cost that is small next to a submission.
    pub(crate) fn submit_and_wait(
        &self,
        record: impl FnOnce(vk::CommandBuffer) -> Result<()>,
    ) -> Result<()> {
        let d = &self.device;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(self.queue_family)
            .flags(vk::CommandPoolCreateFlags::TRANSIENT);
        // SAFETY: `pool_info` names the family the device's queue was made
        // from and outlives the call.
        let pool = unsafe { d.create_command_pool(&pool_info, None) }
            .map_err(|e| Error::vk("vkCreateCommandPool", e))?;
        let result = (|| {
            let alloc = vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            // SAFETY: `pool` is this call's own, so no other thread uses it.
            let cmd = unsafe { d.allocate_command_buffers(&alloc) }
                .map_err(|e| Error::vk("vkAllocateCommandBuffers", e))?[0];
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: `cmd` was just allocated (initial state) from our own pool.
            unsafe { d.begin_command_buffer(cmd, &begin) }
                .map_err(|e| Error::vk("vkBeginCommandBuffer", e))?;
            record(cmd)?;
            // SAFETY: `cmd` is recording: begun above, and `record` only records into it.
            unsafe { d.end_command_buffer(cmd) }.map_err(|e| Error::vk("vkEndCommandBuffer", e))?;
            // SAFETY: a default (unsignalled) fence on the context's live device.
            let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
                .map_err(|e| Error::vk("vkCreateFence", e))?;
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            let submitted = {
                let queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                // SAFETY: the queue is externally synchronized by the lock held
                // here; `cmd` is executable and not pending, `fence` unsignalled
                // and unused; what the commands use is borrowed past the wait.
                unsafe { d.queue_submit(*queue, &submit, fence) }
            };
            let waited = submitted
                .map_err(|e| Error::vk("vkQueueSubmit", e))
                .and_then(|()| settle(d, fence));
            // SAFETY: no pending submission refers to `fence`: the submit
            // failed, or `settle` returned (the work is done or the device lost).
            unsafe { d.destroy_fence(fence, None) };
            waited
        })();
        // SAFETY: the pool's one command buffer is not pending: never
        // submitted, or settled.
        unsafe { d.destroy_command_pool(pool, None) };
        result
    }
}

/// Waits until the work `fence` guards is done or the device is lost. The
/// work uses memory the caller frees when this returns (staging buffers,
/// descriptor pools, the user's buffers after an error), so a wait that fails
/// otherwise (out of host or device memory) is retried, then the whole
/// device waited for; where even that fails the process aborts, since
/// returning could let the GPU write memory that is no longer the buffers'.
fn settle(d: &ash::Device, fence: vk::Fence) -> Result<()> {
    const TRIES: usize = 3;
    let mut last = vk::Result::SUCCESS;
    for _ in 0..TRIES {
        // SAFETY: `fence` is this device's and alive.
        match unsafe { d.wait_for_fences(&[fence], true, u64::MAX) } {
            Ok(()) => return Ok(()),
            Err(vk::Result::ERROR_DEVICE_LOST) => return Err(Error::DeviceLost),
            Err(e) => last = e,
        }
    }
    // SAFETY: the device is alive; waiting for it needs no other object.
    match unsafe { d.device_wait_idle() } {
        Ok(()) => Ok(()),
        Err(vk::Result::ERROR_DEVICE_LOST) => Err(Error::DeviceLost),
        Err(e) => {
            eprintln!(
                "ncnn-glsl-runtime: vkWaitForFences failed {TRIES} times ({last}) and \
                 vkDeviceWaitIdle with {e}: work may still be running on memory about to \
                 be freed; aborting"
            );
            std::process::abort()
        }
    }
}

/// A global memory barrier: buffers are whole-resource here, and a global
/// barrier is what drivers implement buffer barriers as anyway.
pub(crate) fn barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    src_stage: vk::PipelineStageFlags,
    src_access: vk::AccessFlags,
    dst_stage: vk::PipelineStageFlags,
    dst_access: vk::AccessFlags,
) {
    let m = [vk::MemoryBarrier::default()
        .src_access_mask(src_access)
        .dst_access_mask(dst_access)];
    // SAFETY: callers pass `cmd` while it records (in `submit_and_wait`'s
    // closure); their stages (compute, transfer, host) exist on a compute
    // queue and each access type belongs to one of them; `m` outlives the call.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &m,
            &[],
            &[],
        )
    };
}
