//! The measurement of one case: every kernel and both copies, timed in one
//! submission, every output byte checked against the CPU reference.

use ncnn_glsl_bench::copy::{CopyLaunch, Heater};
use ncnn_glsl_q8ta::{reference, PixelShuffle, Q8taOps, QTensor, QuantParams, Requant};
use ncnn_glsl_runtime::{Buffer, Dispatch, Pipeline, Sequence};
use ncnn_glsl_testkit::Rng;

use crate::cases::{self, quant_name, Case};
use crate::error::Fail;
use crate::kernels::Kernel;
use crate::record::{add_rewrite, spread, Record};

/// What every case of a timed run shares: the device, the repetitions, the
/// copy shader (a ceiling) with the heater that runs it, and the inputs'
/// generator.
pub struct Bench<'a> {
    /// The device's q8ta operators.
    pub ops: &'a Q8taOps,
    /// Timed repetitions, after `warmup` untimed ones.
    pub reps: usize,
    /// Untimed repetitions first.
    pub warmup: usize,
    /// `--cold`: each kernel and each copy reads its own copy of the input.
    pub cold: bool,
    /// The copy shader (`ncnn_glsl_bench::copy`), timed beside the kernels.
    pub copy_shader: &'a Pipeline,
    /// The load before each case's submission.
    pub heater: Heater<'a>,
    /// The inputs' generator; its seed is the run's.
    pub rng: Rng,
}

/// One case on the host: its input, what the kernels must write, and the
/// sizes of both tensors.
struct Input {
    case: Case,
    words: Vec<u32>,
    expected: Vec<u8>,
    shuffle: PixelShuffle,
    q_in: QuantParams,
    q_out: QuantParams,
    in_bytes: usize,
    out_bytes: usize,
}

impl Bench<'_> {
    /// Runs every kernel of `kernels` that `case` allows and the copies,
    /// checks every output byte, and returns one record per kernel (the
    /// copies as "copy" and "copy (shader)", the runtime's path also as
    /// "rewrite").
    pub fn measure(&mut self, case: Case, kernels: &[Kernel]) -> Result<Vec<Record>, Fail> {
        let input = self.input(case)?;
        // The paths this shape allows, each built by naga and (--glslang) by glslang.
        let kernels: Vec<&Kernel> = kernels
            .iter()
            .filter(|k| k.rewrite.is_none_or(|r| r.path.check(case.shape).is_ok()))
            .collect();
        let (times, mut outs) = self.time(&input, &kernels)?;
        for (k, out) in kernels.iter().zip(outs.iter_mut()) {
            self.check(&input, k, &out.read_bytes()?)?;
        }
        let mut records = Vec::new();
        for (i, t) in times.into_iter().enumerate() {
            let Some(time) = spread(t) else {
                return Err("this queue has no timestamps: nothing to measure".into());
            };
            let (kernel, local, rewrite) = match kernels.get(i) {
                Some(k) => (k.name.clone(), k.pipeline.local_size(), k.rewrite),
                None if i == kernels.len() => ("copy".to_string(), [0; 3], None),
                None => ("copy (shader)".to_string(), [256, 1, 1], None),
            };
            records.push(Record {
                case,
                kernel,
                local,
                rewrite,
                bytes: input.in_bytes + input.out_bytes,
                time,
            });
        }
        add_rewrite(&mut records, self.ops.context().caps().device_type, false);
        Ok(records)
    }

    /// A random input for `case` (from the run's generator) and the CPU
    /// reference's output for it.
    fn input(&mut self, case: Case) -> Result<Input, Fail> {
        let (shape, il, ol) = (case.shape, case.axes.in_layout, case.axes.out_layout);
        let (q_in, q_out) = cases::quantization(case.axes.passthrough)?;
        let os = reference::shuffle_output_shape(shape)?;
        // The low 32 bits of each draw, as since the first recorded runs.
        let words: Vec<u32> = (0..il.word_count(shape))
            .map(|_| self.rng.next_u64() as u32)
            .collect();
        let shuffle = PixelShuffle::new(shape, os, 2, il, ol, q_in, q_out)?;
        let expected: Vec<u8> =
            reference::pixel_shuffle(&words, il, shape, ol, &Requant::new(q_in, q_out)?)?
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
        Ok(Input {
            case,
            words,
            expected,
            shuffle,
            q_in,
            q_out,
            in_bytes: il.byte_count(shape),
            out_bytes: ol.byte_count(os),
        })
    }

    /// Uploads `input`, runs `kernels` and the copies in one submission and
    /// returns the GPU times (ns) of each, in order, the copies last, and
    /// each kernel's output, poisoned before the run.
    fn time(
        &self,
        input: &Input,
        kernels: &[&Kernel],
    ) -> Result<(Vec<Vec<f64>>, Vec<QTensor>), Fail> {
        let ctx = self.ops.context();
        let (shape, il, ol) = (
            input.case.shape,
            input.case.axes.in_layout,
            input.case.axes.out_layout,
        );
        // --cold: each kernel (and each copy) reads its own copy of the input, so
        // that none finds it in a cache from the kernel before.
        let inputs = (0..if self.cold { kernels.len() } else { 1 })
            .map(|_| {
                self.ops
                    .tensor_from_words(&input.words, shape, il, input.q_in)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut outs: Vec<QTensor> = Vec::new();
        for _ in kernels {
            let mut t = self.ops.tensor(input.shuffle.output, ol, input.q_out)?;
            t.buffer.write(&vec![0xa5; input.out_bytes])?;
            outs.push(t);
        }
        // The ceilings: the same number of bytes moved (read + written) by a copy,
        // vkCmdCopyBuffer and the copy shader (whole 16-byte quads).
        let copy_bytes = ((input.in_bytes + input.out_bytes) / 2 / 16 * 16) as u64;
        let copy_src = Buffer::new(ctx, copy_bytes)?;
        let shader_src = if self.cold {
            Some(Buffer::new(ctx, copy_bytes)?)
        } else {
            None
        };
        let copy_dst = Buffer::new(ctx, copy_bytes)?;
        let max_groups = ctx.limits().max_compute_work_group_count;
        let copy = CopyLaunch::new(ctx, copy_bytes);
        // Every repetition of every kernel in one submission, back to back:
        // no host time between them for the GPU's clocks to fall in.
        let launches = kernels
            .iter()
            .map(|k| {
                input
                    .shuffle
                    .launch(k.rewrite, k.pipeline.local_size(), max_groups)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pushes: Vec<_> = launches.iter().map(|l| l.push.to_bytes()).collect();
        let bindings: Vec<[&Buffer; 2]> = outs
            .iter()
            .enumerate()
            .map(|(i, o)| [&inputs[i % inputs.len()].buffer, &o.buffer])
            .collect();
        let copy_bindings = [shader_src.as_ref().unwrap_or(&copy_src), &copy_dst];
        let mut seq = Sequence::new(ctx);
        let steps_per_rep = kernels.len() + 2;
        for _ in 0..self.warmup + self.reps {
            for (i, k) in kernels.iter().enumerate() {
                seq.dispatch(
                    &k.pipeline,
                    Dispatch::new(&bindings[i], &pushes[i], launches[i].groups),
                )?;
            }
            seq.copy(&copy_src, &copy_dst, copy_bytes)?;
            seq.dispatch(
                self.copy_shader,
                Dispatch::new(&copy_bindings, &copy.push, copy.groups),
            )?;
        }
        self.heater.heat()?;
        let stats = seq.run()?;
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); steps_per_rep];
        for (j, s) in stats.iter().enumerate().skip(self.warmup * steps_per_rep) {
            times[j % steps_per_rep].extend(s.gpu_ns);
        }
        Ok((times, outs))
    }

    /// Fails the run when `kernel`'s output `got` differs from the CPU
    /// reference's, naming the run's seed (with `NCNN_SEED`, the same
    /// arguments draw the same inputs again).
    fn check(&self, input: &Input, kernel: &Kernel, got: &[u8]) -> Result<(), Fail> {
        let n = input.out_bytes;
        if got[..n] == input.expected[..] {
            return Ok(());
        }
        let bad = (0..n).filter(|&i| got[i] != input.expected[i]).count();
        let Case { shape, axes } = input.case;
        Err(format!(
            "{} on {shape:?} {} -> {} ({}): {bad} of {n} bytes differ from the CPU reference \
             (seed {:#x})",
            kernel.name,
            axes.in_layout,
            axes.out_layout,
            quant_name(axes.passthrough),
            self.rng.seed()
        )
        .into())
    }
}
