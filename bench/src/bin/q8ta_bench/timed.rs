//! A timed run: every layout pair, quantization and case measured in turn,
//! then the table, the sweep's best shapes, the JSON and the chart.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use indicatif::{ProgressBar, ProgressStyle};
use ncnn_glsl_bench::copy::{copy_pipeline, Heater};
use ncnn_glsl_bench::stamp::document;
use ncnn_glsl_q8ta::reference;
use ncnn_glsl_runtime::DeviceType;
use ncnn_glsl_testkit::Rng;
use serde_json::{json, Value};

use crate::args::Args;
use crate::cases::{self, pair_name, quant_name, shape_str, Case};
use crate::kernels::{Kernel, Kernels, Setup};
use crate::measure::Bench;
use crate::report::report;
use crate::svg::svg;
use crate::{error::Fail, sweep};

/// Measures what `a` asks for with the kernels of `k` and writes the
/// outputs; `start` is the start-up's timing, recorded in the JSON.
pub fn run(a: &Args, k: &Kernels, start: Value) -> Result<(), Fail> {
    let ctx = k.ops.context();
    let caps = ctx.caps();
    let max_range = ctx.limits().max_storage_buffer_range as usize;
    let rng = Rng::fresh();
    let seed = rng.seed();
    eprintln!(
        "device: {} (driver {:#x}), seed {seed:#x}; start-up {start}",
        caps.name, caps.driver_version
    );
    let pairs = a.pairs.clone().unwrap_or_else(cases::all_pairs);
    let total = (a.cases.len() * pairs.len() * a.quant.len()) as u64;
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} {msg}")
            .expect("a valid template"),
    );
    let copy_shader = copy_pipeline(ctx)?;
    let heat_ms = a.heat_ms.unwrap_or(match caps.device_type {
        DeviceType::Cpu => 0,
        _ => 500,
    });
    let mut bench = Bench {
        ops: k.ops,
        reps: a.reps,
        warmup: a.warmup,
        cold: a.cold,
        copy_shader: &copy_shader,
        heater: Heater::new(ctx, &copy_shader, heat_ms)?,
        rng,
    };
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    // The JSON of the records so far: written after every (pair,
    // quantization), so that a run cut short keeps what it measured
    // (`"complete": false`), and at the end.
    let write_json = |records: Vec<Value>, skipped: &[Value], complete: bool| -> Result<(), Fail> {
        let Some(path) = &a.json else {
            return Ok(());
        };
        let doc = document(
            ctx,
            json!({
                "seed": seed,
                "reps": a.reps,
                "heat_ms": heat_ms,
                "cold": a.cold,
                "warmup": a.warmup,
                "startup": start,
                "skipped": skipped,
                "complete": complete,
                "records": records,
            }),
        );
        std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")?;
        if complete {
            eprintln!("wrote {}", path.display());
        }
        Ok(())
    };
    for &pair in &pairs {
        for &pt in &a.quant {
            let axes = cases::axes(pair, pt);
            let base = k.baseline(axes)?;
            // The rewrite's pipelines per set of workgroup shapes (they depend
            // on the size), the baseline beside them.
            let mut built: BTreeMap<Vec<Setup>, Vec<Kernel>> = BTreeMap::new();
            for &shape in &a.cases {
                let case = Case { shape, axes };
                let ks = match built.entry(k.locals(case)) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => {
                        let mut ks = k.rewrite(axes, e.key())?;
                        ks.push(base.clone());
                        e.insert(ks)
                    }
                };
                bar.set_message(format!(
                    "{} {} {}",
                    pair_name(axes),
                    shape_str(shape),
                    quant_name(pt)
                ));
                let os = reference::shuffle_output_shape(shape)?;
                let biggest = pair.0.byte_count(shape).max(pair.1.byte_count(os));
                if biggest > max_range {
                    skipped.push(json!({
                        "shape": shape_str(shape), "in": pair.0.name(), "out": pair.1.name(),
                        "reason": format!("{biggest} bytes exceed maxStorageBufferRange {max_range}"),
                    }));
                } else {
                    records.extend(bench.measure(case, ks)?);
                }
                bar.inc(1);
            }
            if a.json.is_some() {
                write_json(report(&records).json, &skipped, false)?;
            }
        }
    }
    bar.finish_and_clear();
    let out = report(&records);
    print!("{}", out.table);
    if a.sweep.is_some() {
        sweep::print_best(&records, a.best.as_deref())?;
    }
    write_json(out.json, &skipped, true)?;
    if let Some(path) = &a.svg {
        std::fs::write(path, svg(&records, &caps.name))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
