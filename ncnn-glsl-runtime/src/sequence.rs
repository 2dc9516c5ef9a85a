//! Several dispatches and buffer copies recorded into one command buffer and
//! submitted once, each step timed on the GPU.
//!
//! One submission per step leaves the GPU idle while the host records,
//! submits and waits; between short kernels that idle time dominates, and
//! a GPU whose clocks follow its load (NVIDIA's do) slows down. A sequence
//! runs its steps back to back, each ordered after the one before by a
//! barrier, as the same steps submitted one by one would be.

use std::sync::Arc;

use ash::vk;

use crate::buffer::Buffer;
use crate::context::Context;
use crate::dispatch::Dispatch;
use crate::error::{Error, Result};
use crate::pipeline::Pipeline;
use crate::submit::barrier;
use crate::timing::Timer;

/// What one step of a sequence measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DispatchStats {
    /// GPU time from before the first piece to after the last, in ns
    /// (timestamps times `timestampPeriod`); `None` where the queue has no timestamps.
    pub gpu_ns: Option<f64>,
    /// How many `vkCmdDispatchBase` pieces the grid took.
    pub pieces: u32,
}

/// Steps to run in one submission: [`Sequence::dispatch`], [`Sequence::copy`],
/// then [`Sequence::run`].
pub struct Sequence<'a> {
    ctx: Arc<Context>,
    steps: Vec<Step<'a>>,
}

impl std::fmt::Debug for Sequence<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|s| match s {
                Step::Dispatch { pipeline, args, .. } => {
                    format!("dispatch {} {:?}", pipeline.name, args.groups)
                }
                Step::Copy { bytes, .. } => format!("copy {bytes} bytes"),
            })
            .collect();
        f.debug_struct("Sequence").field("steps", &steps).finish()
    }
}

enum Step<'a> {
    Dispatch {
        pipeline: &'a Pipeline,
        args: Dispatch<'a>,
        pieces: Vec<([u32; 3], [u32; 3])>,
    },
    Copy {
        src: &'a Buffer,
        dst: &'a Buffer,
        bytes: u64,
    },
}

impl<'a> Sequence<'a> {
    /// An empty sequence on `ctx`'s queue.
    pub fn new(ctx: &Arc<Context>) -> Sequence<'a> {
        Sequence {
            ctx: ctx.clone(),
            steps: Vec::new(),
        }
    }

    /// Adds a dispatch, checked now (the same errors as
    /// [`Pipeline::dispatch`]); a failed check adds nothing.
    pub fn dispatch(&mut self, pipeline: &'a Pipeline, args: Dispatch<'a>) -> Result<&mut Self> {
        if !Arc::ptr_eq(&pipeline.ctx, &self.ctx) {
            return Err(Error::bad(
                format!("pipeline {}", pipeline.name),
                "a pipeline of another context",
                "a sequence runs on one context",
            ));
        }
        let pieces = pipeline.check(&args)?;
        self.steps.push(Step::Dispatch {
            pipeline,
            args,
            pieces,
        });
        Ok(self)
    }

    /// Adds a copy of the first `bytes` bytes of `src` into `dst`
    /// (`vkCmdCopyBuffer`), checked now; a failed check adds nothing.
    pub fn copy(&mut self, src: &'a Buffer, dst: &'a Buffer, bytes: u64) -> Result<&mut Self> {
        for (what, b) in [("source", src), ("destination", dst)] {
            if !Arc::ptr_eq(&b.ctx, &self.ctx) {
                return Err(Error::bad(
                    format!("{what} buffer of a copy"),
                    "a buffer of another context",
                    "a sequence runs on one context",
                ));
            }
        }
        // A buffer owns its memory, so only a buffer and itself overlap
        // (VUID-vkCmdCopyBuffer-pRegions-00117).
        if src.handle() == dst.handle() && bytes > 0 {
            return Err(Error::bad(
                "destination buffer of a copy",
                "its source buffer",
                "a copy's source and destination must not overlap",
            ));
        }
        for (what, size) in [("source", src.size()), ("destination", dst.size())] {
            if bytes > size {
                return Err(Error::bad(
                    format!("bytes to copy ({what})"),
                    bytes,
                    format!("the {what} buffer holds {size} bytes"),
                ));
            }
        }
        self.steps.push(Step::Copy { src, dst, bytes });
        Ok(self)
    }

    /// Steps added so far.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether no step was added.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Runs every step in order in one submission and waits; one
    /// [`DispatchStats`] per step (a copy counts one piece, an empty one none).
    pub fn run(self) -> Result<Vec<DispatchStats>> {
        let ctx = &self.ctx;
        let d = ctx.device();
        // One descriptor pool for every dispatch of the submission.
        let (mut storage, mut uniform, mut sets) = (0u64, 0u64, 0u64);
        for step in &self.steps {
            if let Step::Dispatch { pipeline, .. } = step {
                let (s, u) = pipeline.descriptor_counts();
                storage += u64::from(s);
                uniform += u64::from(u);
                sets += pipeline.set_layouts.len() as u64;
            }
        }
        // The pool's counts are 32-bit: past them it would be made too small.
        let fits = |what: &str, n: u64| {
            u32::try_from(n).map_err(|_| {
                Error::bad(
                    format!("{what} of one sequence"),
                    n,
                    format!("at most {} in one submission: split the sequence", u32::MAX),
                )
            })
        };
        let storage = fits("storage descriptors", storage)?;
        let uniform = fits("uniform descriptors", uniform)?;
        let set_count = fits("descriptor sets", sets)?;
        let mut sizes = Vec::new();
        for (ty, descriptor_count) in [
            (vk::DescriptorType::STORAGE_BUFFER, storage),
            (vk::DescriptorType::UNIFORM_BUFFER, uniform),
        ] {
            if descriptor_count > 0 {
                sizes.push(vk::DescriptorPoolSize {
                    ty,
                    descriptor_count,
                });
            }
        }
        let pool = if set_count > 0 {
            let info = vk::DescriptorPoolCreateInfo::default()
                .max_sets(set_count)
                .pool_sizes(&sizes);
            // SAFETY: `info` and `sizes` outlive the call; `max_sets` is
            // non-zero and every pool size's count too (filtered above).
            unsafe { d.create_descriptor_pool(&info, None) }
                .map_err(|e| Error::vk("vkCreateDescriptorPool", e))?
        } else {
            vk::DescriptorPool::null()
        };
        let result = self.run_with(pool);
        if pool != vk::DescriptorPool::null() {
            // SAFETY: `run_with` has returned: the submission that used the
            // pool's sets was waited for, or never made.
            unsafe { d.destroy_descriptor_pool(pool, None) };
        }
        result
    }

    fn run_with(&self, pool: vk::DescriptorPool) -> Result<Vec<DispatchStats>> {
        let ctx = &self.ctx;
        let d = ctx.device();
        let mut sets = Vec::new();
        for step in &self.steps {
            sets.push(match step {
                Step::Dispatch { pipeline, args, .. } if !pipeline.set_layouts.is_empty() => {
                    let info = vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&pipeline.set_layouts);
                    // SAFETY: `pool` is this run's own (non-null: this pipeline
                    // has sets) and the layouts live while the pipeline is borrowed.
                    let s = unsafe { d.allocate_descriptor_sets(&info) }
                        .map_err(|e| Error::vk("vkAllocateDescriptorSets", e))?;
                    pipeline.write_sets(&s, args);
                    s
                }
                _ => Vec::new(),
            });
        }
        let timer = Timer::new(ctx, self.steps.len() as u32);
        let barriers = ctx.barriers_on();
        ctx.submit_and_wait(|cmd| {
            if let Some(t) = &timer {
                t.reset(cmd);
            }
            for (i, (step, sets)) in self.steps.iter().zip(&sets).enumerate() {
                let (stage, access) = match step {
                    Step::Dispatch { .. } => (
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                    ),
                    Step::Copy { .. } => (
                        vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE,
                    ),
                };
                if barriers {
                    // Earlier dispatches and transfers, in this submission or
                    // before it: their writes before this step's reads and
                    // writes (RAW, WAW); their reads are covered by the
                    // execution dependency (WAR).
                    barrier(
                        d,
                        cmd,
                        vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                        stage,
                        access,
                    );
                }
                if let Some(t) = &timer {
                    t.mark(cmd, i as u32, false);
                }
                match step {
                    Step::Dispatch {
                        pipeline,
                        args,
                        pieces,
                    } => pipeline.record(cmd, sets, args, pieces),
                    Step::Copy { src, dst, bytes } if *bytes > 0 => {
                        let region = [vk::BufferCopy::default().size(*bytes)];
                        // SAFETY: `cmd` is recording; `copy` checked that both
                        // buffers are this context's, distinct and hold `bytes`;
                        // they have transfer usage and are borrowed past the wait.
                        unsafe { d.cmd_copy_buffer(cmd, src.buffer, dst.buffer, &region) };
                    }
                    Step::Copy { .. } => {}
                }
                if let Some(t) = &timer {
                    t.mark(cmd, i as u32, true);
                }
            }
            if barriers {
                // Results to the host (direct reads) and to copies (staged
                // reads); later submissions begin with their own barrier.
                barrier(
                    d,
                    cmd,
                    vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                    vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::HOST_READ | vk::AccessFlags::TRANSFER_READ,
                );
            }
            Ok(())
        })?;
        let times = timer.as_ref().and_then(Timer::elapsed_ns);
        Ok(self
            .steps
            .iter()
            .enumerate()
            .map(|(i, step)| {
                let pieces = match step {
                    Step::Dispatch { pieces, .. } => pieces.len() as u32,
                    Step::Copy { bytes, .. } => u32::from(*bytes > 0),
                };
                let empty_copy = matches!(step, Step::Copy { bytes: 0, .. });
                DispatchStats {
                    gpu_ns: times.as_ref().map(|t| t[i]).filter(|_| !empty_copy),
                    pieces,
                }
            })
            .collect())
    }
}

impl Pipeline {
    /// Runs one dispatch and waits for it (a [`Sequence`] of one step).
    pub fn dispatch(&self, args: &Dispatch<'_>) -> Result<DispatchStats> {
        let mut seq = Sequence::new(&self.ctx);
        seq.dispatch(self, *args)?;
        Ok(seq.run()?[0])
    }
}

impl Buffer {
    /// Copies the first `bytes` bytes of `src` into this buffer on the device
    /// (`vkCmdCopyBuffer`) and waits. It is ordered after earlier dispatches and
    /// transfers and before later ones; the time is that of the copy alone
    /// (`gpu_ns`), the bandwidth ceiling kernels are measured against.
    pub fn copy_from(&mut self, src: &Buffer, bytes: u64) -> Result<DispatchStats> {
        let ctx = self.ctx.clone();
        let mut seq = Sequence::new(&ctx);
        seq.copy(src, self, bytes)?;
        Ok(seq.run()?[0])
    }
}
