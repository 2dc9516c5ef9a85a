//! One measurement, its spread of GPU times, and "rewrite": the records of
//! the path the runtime takes, named for the report.

use ncnn_glsl_q8ta::plan::{plan, Device};
use ncnn_glsl_q8ta::Rewrite;
use ncnn_glsl_runtime::DeviceType;

use crate::cases::{self, Case};

/// Median and the 10th / 90th percentiles of GPU times, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The median.
    pub median: f64,
    /// The 10th percentile.
    pub p10: f64,
    /// The 90th percentile.
    pub p90: f64,
}

/// The spread of `ns` (nanoseconds); `None` when there are none.
pub fn spread(mut ns: Vec<f64>) -> Option<Spread> {
    if ns.is_empty() {
        return None;
    }
    ns.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| ns[((ns.len() - 1) as f64 * q).round() as usize] / 1e3;
    Some(Spread {
        median: at(0.5),
        p10: at(0.1),
        p90: at(0.9),
    })
}

/// One measured (case, kernel): the kernels by name, the copies as "copy"
/// and "copy (shader)".
#[derive(Clone)]
pub struct Record {
    /// What was measured.
    pub case: Case,
    /// The kernel's name (`path tile`, `baseline`, `copy`, ...).
    pub kernel: String,
    /// Its workgroup shape (`[0, 0, 0]` for `vkCmdCopyBuffer`).
    pub local: [u32; 3],
    /// The rewrite's path, requantization, block axis and rows (`None` for
    /// the baseline, the copies and records of JSON written without them).
    pub rewrite: Option<Rewrite>,
    /// Input bytes + output bytes, padding included.
    pub bytes: usize,
    /// The GPU times of the timed repetitions.
    pub time: Spread,
}

impl Record {
    /// Bytes moved per second at the median time, in GB/s.
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / (self.time.median * 1e3)
    }
}

/// The name of the kernel of one path at `k`'s rows per invocation: `path
/// NAME`, or `path NAME rows R` where that is not 1.
pub fn path_kernel(k: Rewrite) -> String {
    match k.rows {
        1 => format!("path {}", k.path.name()),
        rows => format!("path {} rows {rows}", k.path.name()),
    }
}

/// Adds "rewrite" (and "rewrite (glslang)") records: the measurements of
/// the path the runtime takes for each case on a `device` of that type
/// (`ncnn_glsl_q8ta::plan::plan`: the path, and the rows per invocation, `path
/// NAME rows R` where that is not 1), under the name the report compares.
/// Any earlier ones are replaced: `--from-json` derives them again. With
/// `same_setup` (`--from-json`, where the rule may have changed since the
/// run), only a record run as the rule for the device type now says counts:
/// at its workgroup shape and, where the record has them, its
/// requantization, block axis and rows. A path measured otherwise is not what
/// the runtime now runs. The rule is taken without the device's limits, which
/// the JSON does not hold: on a device that shrank the shape or the table,
/// nothing is derived.
pub fn add_rewrite(records: &mut Vec<Record>, device: DeviceType, same_setup: bool) {
    let mut extra = Vec::new();
    for r in records.iter() {
        let (shape, axes) = (r.case.shape, r.case.axes);
        let p = plan(
            shape,
            axes,
            cases::float_exact(),
            &Device::unlimited(device),
        );
        let k = p.rewrite;
        if same_setup && (r.local != p.local || r.rewrite.is_some_and(|x| x != k)) {
            continue;
        }
        let chosen = path_kernel(k);
        let name = if r.kernel == chosen {
            "rewrite"
        } else if r.kernel == format!("{chosen} (glslang)") {
            "rewrite (glslang)"
        } else {
            continue;
        };
        extra.push(Record {
            kernel: name.to_string(),
            ..r.clone()
        });
    }
    records.retain(|r| !matches!(r.kernel.as_str(), "rewrite" | "rewrite (glslang)"));
    records.extend(extra);
}
