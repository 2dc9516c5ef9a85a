//! Recording and running one dispatch: descriptors, push constants, the
//! grid (optionally in `vkCmdDispatchBase` pieces), the barriers around it,
//! and GPU timestamps.
//!
//! A grid past `maxComputeWorkGroupCount` is an error, not split: Vulkan
//! bounds `vkCmdDispatchBase` too (VUID-vkCmdDispatchBase-baseGroupX-00421:
//! base < limit; -groupCountX-00424: count <= limit - base), so no base
//! offset reaches a workgroup id past the limit. Layer 1.3.239 does not
//! check these VUIDs and lavapipe runs such pieces right, which is how a
//! split past the limit can look fine here and be invalid on a GPU. Work
//! past the limit needs the shader's help (an offset push constant, or a
//! loop over the grid).

use ash::vk;
use ncnn_glsl_core::reflection::BindingKind;

use crate::buffer::{barrier, Buffer};
use crate::error::{Error, Result};
use crate::pipeline::{descriptor_type, Pipeline};
use crate::timing::Timer;

/// One dispatch's arguments.
#[derive(Clone, Copy, Debug)]
pub struct Dispatch<'a> {
    /// One buffer per [`Pipeline::slots`], in that order.
    pub buffers: &'a [&'a Buffer],
    /// Exactly [`Pipeline::push_constant_size`] bytes.
    pub push_constants: &'a [u8],
    /// Workgroups on each axis.
    pub groups: [u32; 3],
    /// The largest piece on each axis, to run the grid as several
    /// `vkCmdDispatchBase` calls with a barrier between them (shorter
    /// submissions, and the split path under test); `None`: one piece.
    pub max_piece: Option<[u32; 3]>,
}

impl<'a> Dispatch<'a> {
    /// A dispatch of `groups` workgroups in one piece.
    pub fn new(buffers: &'a [&'a Buffer], push_constants: &'a [u8], groups: [u32; 3]) -> Self {
        Dispatch {
            buffers,
            push_constants,
            groups,
            max_piece: None,
        }
    }
}

/// What a dispatch measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DispatchStats {
    /// GPU time from before the first piece to after the last, in ns
    /// (timestamps times `timestampPeriod`); `None` where the queue has no timestamps.
    pub gpu_ns: Option<f64>,
    /// How many `vkCmdDispatchBase` pieces the grid took.
    pub pieces: u32,
}

/// The pieces of a grid: (base, count) per axis, each count within `max`.
pub(crate) fn pieces(groups: [u32; 3], max: [u32; 3]) -> Vec<([u32; 3], [u32; 3])> {
    let axis = |n: u32, m: u32| -> Vec<(u32, u32)> {
        (0..n.div_ceil(m))
            .map(|i| (i * m, m.min(n - i * m)))
            .collect()
    };
    let (xs, ys, zs) = (
        axis(groups[0], max[0]),
        axis(groups[1], max[1]),
        axis(groups[2], max[2]),
    );
    let mut out = Vec::new();
    for &(bz, cz) in &zs {
        for &(by, cy) in &ys {
            for &(bx, cx) in &xs {
                out.push(([bx, by, bz], [cx, cy, cz]));
            }
        }
    }
    out
}

impl Pipeline {
    /// Runs one dispatch and waits for it.
    pub fn dispatch(&self, args: &Dispatch<'_>) -> Result<DispatchStats> {
        let ctx = &self.ctx;
        let limits = ctx.limits();
        if args.buffers.len() != self.slots.len() {
            return Err(Error::bad(
                format!("number of buffers for {}", self.name),
                args.buffers.len(),
                format!("the shader binds {}", self.slots.len()),
            ));
        }
        for (slot, b) in self.slots.iter().zip(args.buffers) {
            let (limit, name) = match slot.kind {
                BindingKind::UniformBuffer => {
                    (limits.max_uniform_buffer_range, "maxUniformBufferRange")
                }
                _ => (limits.max_storage_buffer_range, "maxStorageBufferRange"),
            };
            if b.size() > u64::from(limit) {
                return Err(Error::bad(
                    format!("size of the buffer for `{}`", slot.name),
                    b.size(),
                    format!("{name} is {limit}"),
                ));
            }
            if !std::sync::Arc::ptr_eq(&b.ctx, ctx) {
                return Err(Error::bad(
                    format!("buffer for `{}`", slot.name),
                    "a buffer of another context",
                    "buffers must come from the pipeline's context",
                ));
            }
        }
        if args.push_constants.len() != self.push_constant_size as usize {
            return Err(Error::bad(
                format!("push-constant bytes for {}", self.name),
                args.push_constants.len(),
                format!("the shader's block is {} bytes", self.push_constant_size),
            ));
        }
        let device_max = limits.max_compute_work_group_count;
        let max = args.max_piece.unwrap_or(device_max);
        for i in 0..3 {
            if max[i] == 0 || max[i] > device_max[i] {
                return Err(Error::bad(
                    format!("max_piece[{i}]"),
                    max[i],
                    format!(
                        "it must be 1..={} (maxComputeWorkGroupCount[{i}])",
                        device_max[i]
                    ),
                ));
            }
            if args.groups[i] > device_max[i] {
                return Err(Error::bad(
                    format!("workgroups on axis {}", ["x", "y", "z"][i]),
                    args.groups[i],
                    format!(
                        "maxComputeWorkGroupCount[{i}] is {}, which bounds vkCmdDispatchBase \
                         pieces too (base + count); split the work in the shader",
                        device_max[i]
                    ),
                ));
            }
        }
        let pieces = if args.groups.contains(&0) {
            Vec::new()
        } else {
            pieces(args.groups, max)
        };

        let d = ctx.device();
        // Descriptors: a pool per dispatch, so threads never share one.
        let storage = self
            .slots
            .iter()
            .filter(|s| s.kind != BindingKind::UniformBuffer)
            .count() as u32;
        let uniform = self.slots.len() as u32 - storage;
        let mut sizes = Vec::new();
        if storage > 0 {
            sizes.push(vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: storage,
            });
        }
        if uniform > 0 {
            sizes.push(vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: uniform,
            });
        }
        let set_count = self.set_layouts.len() as u32;
        let pool = if set_count > 0 {
            let info = vk::DescriptorPoolCreateInfo::default()
                .max_sets(set_count)
                .pool_sizes(&sizes);
            unsafe { d.create_descriptor_pool(&info, None) }
                .map_err(|e| Error::vk("vkCreateDescriptorPool", e))?
        } else {
            vk::DescriptorPool::null()
        };
        let timer = Timer::new(ctx);
        let result = (|| -> Result<DispatchStats> {
            let sets = if set_count > 0 {
                let info = vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&self.set_layouts);
                unsafe { d.allocate_descriptor_sets(&info) }
                    .map_err(|e| Error::vk("vkAllocateDescriptorSets", e))?
            } else {
                Vec::new()
            };
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = args
                .buffers
                .iter()
                .map(|b| {
                    [vk::DescriptorBufferInfo::default()
                        .buffer(b.buffer)
                        .offset(0)
                        .range(b.size())]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = self
                .slots
                .iter()
                .zip(&infos)
                .map(|(s, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(sets[s.set as usize])
                        .dst_binding(s.binding)
                        .descriptor_type(descriptor_type(s.kind))
                        .buffer_info(info)
                })
                .collect();
            unsafe { d.update_descriptor_sets(&writes, &[]) };

            let barriers = ctx.barriers_on();
            ctx.submit_and_wait(|cmd| {
                unsafe {
                    if barriers {
                        // Earlier transfers and dispatches (writes: RAW/WAW;
                        // reads: WAR) before this dispatch touches the buffers.
                        barrier(
                            d,
                            cmd,
                            vk::PipelineStageFlags::COMPUTE_SHADER
                                | vk::PipelineStageFlags::TRANSFER,
                            vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                        );
                    }
                    if let Some(t) = &timer {
                        t.begin(cmd);
                    }
                    d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
                    if !sets.is_empty() {
                        d.cmd_bind_descriptor_sets(
                            cmd,
                            vk::PipelineBindPoint::COMPUTE,
                            self.layout,
                            0,
                            &sets,
                            &[],
                        );
                    }
                    if !args.push_constants.is_empty() {
                        d.cmd_push_constants(
                            cmd,
                            self.layout,
                            vk::ShaderStageFlags::COMPUTE,
                            0,
                            args.push_constants,
                        );
                    }
                    for (i, (base, count)) in pieces.iter().enumerate() {
                        if i > 0 && barriers {
                            // Pieces may write the same buffers: order them,
                            // as synchronization validation requires.
                            barrier(
                                d,
                                cmd,
                                vk::PipelineStageFlags::COMPUTE_SHADER,
                                vk::AccessFlags::SHADER_WRITE,
                                vk::PipelineStageFlags::COMPUTE_SHADER,
                                vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                            );
                        }
                        if *base == [0, 0, 0] {
                            // Plain vkCmdDispatch where no base is needed:
                            // the validation layer (1.3.239) tracks its
                            // accesses, not those of vkCmdDispatchBase.
                            d.cmd_dispatch(cmd, count[0], count[1], count[2]);
                        } else {
                            d.cmd_dispatch_base(
                                cmd, base[0], base[1], base[2], count[0], count[1], count[2],
                            );
                        }
                    }
                    if let Some(t) = &timer {
                        t.end(cmd);
                    }
                    if barriers {
                        // Results to the host (direct reads) and to copies (staged reads).
                        barrier(
                            d,
                            cmd,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::AccessFlags::SHADER_WRITE,
                            vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::TRANSFER,
                            vk::AccessFlags::HOST_READ | vk::AccessFlags::TRANSFER_READ,
                        );
                    }
                }
                Ok(())
            })?;
            let gpu_ns = timer.as_ref().and_then(Timer::elapsed_ns);
            Ok(DispatchStats {
                gpu_ns,
                pieces: pieces.len() as u32,
            })
        })();
        unsafe {
            if pool != vk::DescriptorPool::null() {
                d.destroy_descriptor_pool(pool, None);
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_grid_once() {
        let p = pieces([70_000, 3, 1], [65_535, 2, 65_535]);
        assert_eq!(p.len(), 4);
        let mut covered = 0u64;
        for (b, c) in &p {
            assert!(c.iter().zip([65_535, 2, 65_535]).all(|(c, m)| *c <= m));
            covered += u64::from(c[0]) * u64::from(c[1]) * u64::from(c[2]);
            assert!(b[0] + c[0] <= 70_000 && b[1] + c[1] <= 3);
        }
        assert_eq!(covered, 70_000 * 3);
    }
}
