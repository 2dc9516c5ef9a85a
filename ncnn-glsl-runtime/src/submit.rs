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
        let pool = unsafe { d.create_command_pool(&pool_info, None) }
            .map_err(|e| Error::vk("vkCreateCommandPool", e))?;
        let result = (|| {
            let alloc = vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let cmd = unsafe { d.allocate_command_buffers(&alloc) }
                .map_err(|e| Error::vk("vkAllocateCommandBuffers", e))?[0];
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            unsafe { d.begin_command_buffer(cmd, &begin) }
                .map_err(|e| Error::vk("vkBeginCommandBuffer", e))?;
            record(cmd)?;
            unsafe { d.end_command_buffer(cmd) }.map_err(|e| Error::vk("vkEndCommandBuffer", e))?;
            let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
                .map_err(|e| Error::vk("vkCreateFence", e))?;
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            let submitted = {
                let queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                unsafe { d.queue_submit(*queue, &submit, fence) }
            };
            let waited = submitted
                .map_err(|e| Error::vk("vkQueueSubmit", e))
                .and_then(|()| {
                    unsafe { d.wait_for_fences(&[fence], true, u64::MAX) }
                        .map_err(|e| Error::vk("vkWaitForFences", e))
                });
            unsafe { d.destroy_fence(fence, None) };
            waited
        })();
        unsafe { d.destroy_command_pool(pool, None) };
        result
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
