//! The kernels under test and their pipelines: each path of the rewrite
//! (naga's build, and glslang's with `--glslang`), at the runtime's
//! workgroup shapes, at `--locals`' or at each `--sweep` shape; and the
//! baseline.

use std::path::Path;
use std::sync::Arc;

use ncnn_glsl_q8ta::launch::Axes;
use ncnn_glsl_q8ta::plan::{plan_on, plan_with};
use ncnn_glsl_q8ta::sets::{PIXEL_SHUFFLE, PIXEL_SHUFFLE_BASELINE};
use ncnn_glsl_q8ta::{
    shuffle_axes, shuffle_specialization, Q8taOps, Requantization, Rewrite, ShufflePath,
};
use ncnn_glsl_runtime::{Blob, Pipeline, PipelineOptions, Variant};

use crate::args::Args;
use crate::cases::{self, pair_key, Case};
use crate::error::Fail;
use crate::record::path_kernel;

/// A kernel under test: a pipeline and the rewrite's choices (`None`: the
/// baseline, whose grid differs).
#[derive(Clone)]
pub struct Kernel {
    /// The name the records give it (`path quad (glslang)`, `rewrite 8x8x1`).
    pub name: String,
    /// Shared: the same pipelines serve every case of a set of workgroup shapes.
    pub pipeline: Arc<Pipeline>,
    /// The rewrite's path, requantization and block axis.
    pub rewrite: Option<Rewrite>,
}

/// How one path of the rewrite runs on a case: its workgroup shape and the
/// runtime's other choices (both depend on the shape).
pub type Setup = ([u32; 3], Rewrite);

/// What builds the kernels of each (pair, quantization): the device, the
/// workgroup shapes the arguments choose, glslang's blobs (read once: one
/// blob per requantization table size serves every pair, quantization and
/// path).
pub struct Kernels<'a> {
    /// The device's q8ta operators.
    pub ops: &'a Q8taOps,
    /// `--sweep`, `--sweep-path`, `--locals`.
    args: &'a Args,
    /// `--glslang`'s blobs, by the requantization's `lut_copies()`.
    glslang: Vec<(i64, Blob)>,
}

impl<'a> Kernels<'a> {
    /// The kernels `args` ask for on `ops`' device.
    pub fn new(ops: &'a Q8taOps, args: &'a Args) -> Result<Kernels<'a>, Fail> {
        let mut glslang = Vec::new();
        if let Some(dir) = &args.glslang {
            for copies in [1, 32] {
                let v = ops.variant(PIXEL_SHUFFLE, &[("LUT_COPIES", copies)])?;
                glslang.push((copies, glslang_blob(dir, v)?));
            }
        }
        Ok(Kernels { ops, args, glslang })
    }

    /// The setup of each path of the rewrite ([`ShufflePath::ALL`]'s order)
    /// on `case`: the runtime's block axis, and its workgroup shape or
    /// `--locals`' for the swept path.
    pub fn locals(&self, case: Case) -> Vec<Setup> {
        let a = self.args;
        let chosen = a.locals.as_ref().and_then(|l| l.get(&pair_key(case.axes)));
        let device = self.ops.device();
        ShufflePath::ALL
            .iter()
            .map(|&path| {
                let exact = cases::float_exact();
                let mut k = plan_on(path, case.shape, case.axes, exact, &device).rewrite;
                if let Some(r) = a.requantization {
                    // As the plan runs it: f32 at one row per invocation.
                    k.requant = r;
                    if r == Requantization::Float {
                        k.rows = 1;
                    }
                }
                if let Some(b) = a.blocks {
                    k.blocks = b;
                }
                let local = match chosen {
                    Some(&l) if path == a.sweep_path => l,
                    _ => plan_with(k, case.shape, case.axes, &device).local,
                };
                (local, k)
            })
            .collect()
    }

    /// The baseline's pipeline for one (pair, quantization): a variant for
    /// each.
    pub fn baseline(&self, axes: Axes) -> Result<Kernel, Fail> {
        let values = [
            ("IN_LAYOUT", axes.in_layout.axis_value()),
            ("OUT_LAYOUT", axes.out_layout.axis_value()),
            ("PASSTHROUGH", axes.passthrough as i64),
        ];
        let vb = self.ops.variant(PIXEL_SHUFFLE_BASELINE, &values)?;
        Ok(Kernel {
            name: "baseline".into(),
            pipeline: Arc::new(Pipeline::for_variant(
                self.ops.context(),
                PIXEL_SHUFFLE_BASELINE,
                vb,
                &PipelineOptions::default(),
            )?),
            rewrite: None,
        })
    }

    /// The rewrite's kernels of one (pair, quantization): each path as
    /// `setups` says (or the swept path at each sweep shape), and glslang's
    /// build of each path; with `--rows`, each path at each of those rows
    /// per invocation too. The rewrite is one blob, specialized for the pair,
    /// quantization, path, requantization and block axis.
    pub fn rewrite(&self, axes: Axes, setups: &[Setup]) -> Result<Vec<Kernel>, Fail> {
        let (ctx, a) = (self.ops.context(), self.args);
        let rewrites = ShufflePath::ALL.map(|path| setups[path as usize].1);
        let specs = rewrites
            .map(|k| shuffle_specialization(axes.in_layout, axes.out_layout, axes.passthrough, k));
        let options = |local, path: ShufflePath| PipelineOptions {
            local_size: Some(local),
            specialization: &specs[path as usize],
        };
        let mut out = Vec::new();
        let pipe = |local, path: ShufflePath| {
            let axes = shuffle_axes(rewrites[path as usize]);
            let v = self.ops.variant(PIXEL_SHUFFLE, &axes)?;
            Pipeline::for_variant(ctx, PIXEL_SHUFFLE, v, &options(local, path)).map_err(Fail::from)
        };
        // `k` on `pipeline` as `name(k)`, and with `--rows` at each of those
        // rows too (the runtime's, `k.rows`, once).
        let with_rows = |out: &mut Vec<Kernel>,
                         pipeline: Arc<Pipeline>,
                         k: Rewrite,
                         name: &dyn Fn(Rewrite) -> String| {
            let others = a.rows.iter().filter(|&&r| r != k.rows);
            for rows in std::iter::once(k.rows).chain(others.copied()) {
                let k = Rewrite { rows, ..k };
                out.push(Kernel {
                    name: name(k),
                    pipeline: pipeline.clone(),
                    rewrite: Some(k),
                });
            }
        };
        if let Some(shapes) = &a.sweep {
            let swept = rewrites[a.sweep_path as usize];
            for &s in shapes {
                let shape = format!("rewrite {}x{}x{}", s[0], s[1], s[2]);
                let name = |k: Rewrite| match k.rows {
                    r if r == swept.rows => shape.clone(),
                    r => format!("{shape} rows {r}"),
                };
                with_rows(&mut out, Arc::new(pipe(s, a.sweep_path)?), swept, &name);
            }
            return Ok(out);
        }
        for (path, &(local, _)) in ShufflePath::ALL.into_iter().zip(setups) {
            let chosen = rewrites[path as usize];
            with_rows(&mut out, Arc::new(pipe(local, path)?), chosen, &path_kernel);
            let copies = chosen.requant.lut_copies();
            if let Some((_, blob)) = self.glslang.iter().find(|(c, _)| *c == copies) {
                out.push(Kernel {
                    name: format!("{} (glslang)", path_kernel(chosen)),
                    pipeline: Arc::new(Pipeline::new(
                        ctx,
                        "glslang build",
                        blob,
                        &options(local, path),
                    )?),
                    rewrite: Some(chosen),
                });
            }
        }
        Ok(out)
    }
}

/// The glslang-built blob of `variant` from `dir`: the artifact file name
/// with `.spv` (`<target>.LUT_COPIES-<copies>.spv`). glslang turns
/// `local_size_*_id` into specialization constants 0, 1, 2, which the
/// pipeline sets from the local size (as for ours), and keeps the ids 3 to 8
/// of the layouts, passthrough, path, requantization and block axis; the same GLSL has the same
/// bindings and constants: our reflection serves.
fn glslang_blob(dir: &Path, variant: &Variant) -> Result<Blob, Fail> {
    let path = dir.join("q8ta_pixel_shuffle").join(format!(
        "{}.LUT_COPIES-{}.spv",
        variant.target, variant.axes[0]
    ));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // SAFETY: glslang's build of the shipped shader, which the reflection of
    // our build describes (same text); glslang clamps no index, and the
    // bench runs it only on shapes the plan checked (as the shipped sets).
    // The SPIR-V is 'static: read once per run, leaked once.
    Ok(unsafe {
        Blob::new(
            Box::leak(words.into_boxed_slice()),
            variant.blob.reflection().clone(),
        )
    })
}
