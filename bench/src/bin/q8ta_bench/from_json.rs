//! `--from-json FILE`: an earlier run's records, with "rewrite" derived again
//! by this build's rule, without a device. The kernel's paths are measured
//! separately, so a changed rule needs no new run.

use std::path::Path;

use ncnn_glsl_q8ta::{BlockAxis, Layout, Requantization, Rewrite, Shape, ShufflePath};
use ncnn_glsl_runtime::DeviceType;
use serde_json::{json, Value};

use crate::args::Args;
use crate::cases::{self, Case};
use crate::error::Fail;
use crate::record::{add_rewrite, Record, Spread};
use crate::report::report;
use crate::svg::svg;

/// The JSON's `device_type` (the `Debug` name); a run without one was on the
/// H200, a discrete GPU.
const DEVICE_TYPES: [(&str, DeviceType); 4] = [
    ("Cpu", DeviceType::Cpu),
    ("IntegratedGpu", DeviceType::IntegratedGpu),
    ("VirtualGpu", DeviceType::VirtualGpu),
    ("Other", DeviceType::Other),
];

/// Prints the table of the run in `path` and writes `--json` (the run's
/// document with the records derived again) and `--svg`.
pub fn rederive(a: &Args, path: &Path) -> Result<(), Fail> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut doc: Value = serde_json::from_str(&text)?;
    let mut records = doc["records"]
        .as_array()
        .ok_or("no records")?
        .iter()
        .map(record)
        .collect::<Result<Vec<_>, _>>()?;
    let device = DEVICE_TYPES
        .iter()
        .find(|(name, _)| doc["device_type"].as_str() == Some(name))
        .map_or(DeviceType::DiscreteGpu, |&(_, t)| t);
    add_rewrite(&mut records, device, true);
    let out = report(&records);
    print!("{}", out.table);
    doc["records"] = Value::Array(out.json);
    doc["rewrite_derived_by"] = json!(format!(
        "q8ta_bench --from-json {} (the rule of ncnn_glsl_q8ta::plan in this build)",
        path.display()
    ));
    if let Some(p) = &a.json {
        std::fs::write(p, serde_json::to_string_pretty(&doc)? + "\n")?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(p) = &a.svg {
        let device = doc["device"].as_str().unwrap_or("unknown device");
        std::fs::write(p, svg(&records, device))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// A record's rewrite setup, where the JSON has one (older result files
/// record none).
fn rewrite(r: &Value) -> Result<Option<Rewrite>, Fail> {
    if r["path"].is_null() {
        return Ok(None);
    }
    fn named<T: Copy, const N: usize>(
        r: &Value,
        key: &str,
        all: [T; N],
        name: fn(T) -> &'static str,
    ) -> Result<T, Fail> {
        let v = r[key]
            .as_str()
            .ok_or_else(|| format!("record without `{key}`"))?;
        let found = all.into_iter().find(|&t| name(t) == v);
        found.ok_or_else(|| format!("unknown {key} `{v}`").into())
    }
    Ok(Some(Rewrite {
        path: named(r, "path", ShufflePath::ALL, ShufflePath::name)?,
        requant: named(
            r,
            "requantization",
            Requantization::ALL,
            Requantization::name,
        )?,
        blocks: named(r, "blocks", BlockAxis::ALL, BlockAxis::name)?,
        rows: r["rows"].as_u64().ok_or("record without `rows`")? as u32,
    }))
}

/// One record of the JSON, as [`report`] wrote it.
fn record(r: &Value) -> Result<Record, Fail> {
    let layout = |v: &Value| -> Result<Layout, Fail> {
        let name = v.as_str().ok_or("a layout is not a string")?;
        Layout::from_name(name).ok_or_else(|| format!("unknown layout `{name}`").into())
    };
    let num = |k: &str| r[k].as_f64().ok_or_else(|| format!("record without `{k}`"));
    let d: Vec<usize> = serde_json::from_value(r["shape"].clone())?;
    let pair = (layout(&r["in_layout"])?, layout(&r["out_layout"])?);
    Ok(Record {
        case: Case {
            shape: Shape::from_dims([d[0], d[1], d[2], d[3]]),
            axes: cases::axes(pair, r["quant"] == "passthrough"),
        },
        kernel: r["kernel"]
            .as_str()
            .ok_or("record without kernel")?
            .to_string(),
        local: serde_json::from_value(r["local_size"].clone())?,
        rewrite: rewrite(r)?,
        bytes: num("bytes_moved")? as usize,
        time: Spread {
            median: num("median_us")?,
            p10: num("p10_us")?,
            p90: num("p90_us")?,
        },
    })
}
