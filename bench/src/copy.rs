//! The benchmarks' copy shader (`bench/shaders/bench_copy.comp`): its launch
//! over a number of bytes, and the load that keeps a GPU at the clocks of a
//! busy device before timing it. Each program uses part of it.

use std::sync::Arc;
use std::time::Instant;

use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, Context, Dispatch, Options, Pipeline, PipelineOptions, Sequence,
    VariantSet,
};

type Fail = Box<dyn std::error::Error>;

/// A copy in a compute shader: the ceiling a kernel can reach (see the
/// shader).
pub static BENCH_COPY: &VariantSet = include_ncnn_shader!("shaders/bench_copy.comp");

/// The copy shader's pipeline on `ctx`: the variant the device selects for
/// ncnn's default options.
pub fn copy_pipeline(ctx: &Arc<Context>) -> Result<Pipeline, Fail> {
    let variant = ctx.select(BENCH_COPY, Options::NCNN_DEFAULT, &[])?.variant;
    Ok(Pipeline::for_variant(
        ctx,
        BENCH_COPY,
        variant,
        &PipelineOptions::default(),
    )?)
}

/// A launch of the copy shader over the first `bytes` bytes (whole 16-byte
/// quads): four quads in flight per invocation, over a grid-stride loop
/// whose grid is clamped to the device's x limit.
pub struct CopyLaunch {
    /// Workgroups of 256.
    pub groups: [u32; 3],
    /// The shader's push constants: quads to copy, invocations launched.
    pub push: Vec<u8>,
}

impl CopyLaunch {
    /// The launch copying `bytes` bytes (rounded down to whole quads).
    pub fn new(ctx: &Context, bytes: u64) -> CopyLaunch {
        let quads = (bytes / 16) as u32;
        let groups = quads
            .div_ceil(4 * 256)
            .clamp(1, ctx.limits().max_compute_work_group_count[0]);
        CopyLaunch {
            groups: [groups, 1, 1],
            push: [quads, groups * 256]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect(),
        }
    }
}

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
    launch: CopyLaunch,
    ms: u64,
}

impl<'a> Heater<'a> {
    /// A heater running `shader` (the pipeline of [`copy_pipeline`]).
    pub fn new(ctx: &Arc<Context>, shader: &'a Pipeline, ms: u64) -> Result<Heater<'a>, Fail> {
        let bytes: u64 = 64 << 20;
        let buffers = if ms > 0 {
            Some([Buffer::new(ctx, bytes)?, Buffer::new(ctx, bytes)?])
        } else {
            None
        };
        Ok(Heater {
            ctx: ctx.clone(),
            shader,
            buffers,
            launch: CopyLaunch::new(ctx, bytes),
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
                    Dispatch::new(&bufs, &self.launch.push, self.launch.groups),
                )?;
            }
            seq.run()?;
        }
        Ok(())
    }
}
