//! `--executables FILE`: no timing; what the driver compiled for every
//! kernel (`VK_KHR_pipeline_executable_properties`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ncnn_glsl_bench::stamp::document;
use ncnn_glsl_q8ta::{Layout, Shape};
use serde_json::{json, Value};

use crate::cases::{self, pair_key, Case};
use crate::error::Fail;
use crate::kernels::{Kernel, Kernels, Setup};

/// Writes to `path`, for every kernel of every layout pair (whatever
/// `--pairs` says) and each quantization of `quant`, at each set of
/// workgroup shapes the `cases` take: the statistics the driver reports
/// (registers, instruction counts) and any text it shows, naga's and
/// glslang's builds side by side, the baseline once per pair and
/// quantization.
pub fn write(k: &Kernels, cases: &[Shape], quant: &[bool], path: &Path) -> Result<(), Fail> {
    let mut out = Vec::new();
    for &il in &Layout::ALL {
        for &ol in &Layout::ALL {
            for &pt in quant {
                let axes = cases::axes((il, ol), pt);
                let sets: BTreeSet<Vec<Setup>> = cases
                    .iter()
                    .map(|&shape| k.locals(Case { shape, axes }))
                    .collect();
                let mut ks = vec![k.baseline(axes)?];
                for l in &sets {
                    ks.extend(k.rewrite(axes, l)?);
                }
                for kernel in ks {
                    out.push(json!({
                        "pair": pair_key(axes), "kernel": kernel.name,
                        "local_size": kernel.pipeline.local_size(),
                        "executables": executables(&kernel)?,
                    }));
                }
            }
        }
    }
    let doc = document(k.ops.context(), json!({ "kernels": out }));
    std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// What the driver reports of each executable of `kernel`'s pipeline.
fn executables(kernel: &Kernel) -> Result<Vec<Value>, Fail> {
    Ok(kernel
        .pipeline
        .executables()?
        .into_iter()
        .map(|x| {
            json!({
                "name": x.name, "description": x.description,
                "subgroup_size": x.subgroup_size,
                "statistics": x.statistics.into_iter().collect::<BTreeMap<_, _>>(),
                "representations": x.representations.into_iter().collect::<BTreeMap<_, _>>(),
            })
        })
        .collect())
}
