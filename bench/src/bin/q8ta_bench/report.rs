//! The report of a run's records: the text table and the JSON records, each
//! kernel beside the copies and the baseline of its case.

use serde_json::{json, Value};

use crate::cases::{pair_name, quant_name, shape_str, Case};
use crate::record::Record;

/// The text table and the JSON records.
pub struct Report {
    /// The table, a line per kernel of each case.
    pub table: String,
    /// The JSON records, one per record.
    pub json: Vec<Value>,
}

/// The table (every kernel, the copies left out), and the JSON records
/// (every record, with the fraction of each copy and the speedup over the
/// baseline).
pub fn report(records: &[Record]) -> Report {
    let find = |case: Case, name: &str| {
        records
            .iter()
            .find(|r| r.case == case && r.kernel == name)
            .map(|r| r.time.median)
    };
    let mut table = format!(
        "{:<13} {:<11} {:<16} {:<22} {:>10} {:>8} {:>7} {:>7} {:>7} {:>10}\n",
        "pair",
        "quant",
        "shape",
        "kernel",
        "median us",
        "GB/s",
        "% copy",
        "% shc",
        "x base",
        "p10-p90"
    );
    let pct = |f: Option<f64>| f.map_or("-".into(), |f| format!("{:.0}%", f * 100.0));
    for r in records.iter().filter(|r| !r.kernel.starts_with("copy")) {
        let copy = find(r.case, "copy");
        let shader_copy = find(r.case, "copy (shader)");
        let base = find(r.case, "baseline");
        let speedup = base.map(|b| b / r.time.median);
        table += &format!(
            "{:<13} {:<11} {:<16} {:<22} {:>10.2} {:>8.1} {:>7} {:>7} {:>7} {:>4.1}-{:.1}\n",
            pair_name(r.case.axes),
            quant_name(r.case.axes.passthrough),
            shape_str(r.case.shape),
            r.kernel,
            r.time.median,
            r.gbps(),
            pct(copy.map(|c| c / r.time.median)),
            pct(shader_copy.map(|c| c / r.time.median)),
            speedup.map_or("-".into(), |s| format!("{s:.2}")),
            r.time.p10,
            r.time.p90,
        );
    }
    let json = records
        .iter()
        .map(|r| {
            let s = r.case.shape;
            json!({
                "in_layout": r.case.axes.in_layout.name(),
                "out_layout": r.case.axes.out_layout.name(),
                "shape": [s.n, s.c, s.h, s.w],
                "quant": quant_name(r.case.axes.passthrough),
                "kernel": r.kernel,
                "local_size": r.local,
                "path": r.rewrite.map(|k| k.path.name()),
                "requantization": r.rewrite.map(|k| k.requant.name()),
                "blocks": r.rewrite.map(|k| k.blocks.name()),
                "rows": r.rewrite.map(|k| k.rows),
                "bytes_moved": r.bytes,
                "median_us": r.time.median,
                "p10_us": r.time.p10,
                "p90_us": r.time.p90,
                "gb_per_s": r.gbps(),
                "fraction_of_copy": find(r.case, "copy").map(|c| c / r.time.median),
                "fraction_of_shader_copy":
                    find(r.case, "copy (shader)").map(|c| c / r.time.median),
                "speedup_over_baseline": find(r.case, "baseline").map(|b| b / r.time.median),
            })
        })
        .collect();
    Report { table, json }
}
