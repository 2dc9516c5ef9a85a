//! The command line: every flag, its default and its value syntax.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Parser;
use ncnn_glsl_q8ta::{BlockAxis, Layout, Requantization, Shape, ShufflePath};
use ncnn_glsl_runtime::DeviceSelector;

use crate::cases;

// clap reads a field typed `Vec<T>` as a flag given once per element; these
// lists are spelled in one value, so their types have names of their own.
/// `--cases`' shapes.
pub type Shapes = Vec<Shape>;
/// `--quant`'s quantizations: `true` for passthrough.
pub type Quants = Vec<bool>;
/// `--sweep`'s workgroup shapes.
pub type LocalSizes = Vec<[u32; 3]>;
/// `--pairs`' layout pairs, input layout first.
pub type Pairs = Vec<(Layout, Layout)>;
/// A `--locals` (or `--best`) file: a workgroup shape per pair key
/// ([`cases::pair_key`]).
pub type LocalsFile = BTreeMap<String, [u32; 3]>;

/// The synopsis, as the benchmark always printed it.
const USAGE: &str = "q8ta_bench [--cases seed|large|all|N,C,H,W;...] \
     [--quant passthrough|requant|both] [--reps R] [--warmup W] [--device SELECTOR] \
     [--validation] [--glslang DIR] [--sweep X,Y,Z;...] [--sweep-path words|tile|quad|pairs] \
     [--best FILE] [--locals FILE] [--json FILE] [--svg FILE] [--from-json FILE] \
     [--heat-ms MS] [--executables FILE] [--cold] [--pairs IN->OUT,...] \
     [--requantization lanes|table|banked|float|mixed|mixed-quarter] [--blocks x|y] [--rows R,...]";

/// `--quant`'s values and the quantizations each runs, in run order.
const QUANT: [(&str, &[bool]); 3] = [
    ("passthrough", &[true]),
    ("requant", &[false]),
    ("both", &[true, false]),
];

/// The q8ta pixel shuffle benchmark: the rewrite, the baseline and the
/// copies of the same bytes, side by side, with GPU timestamps
/// (`BENCHMARKS.md`).
#[derive(Parser)]
#[command(name = "q8ta_bench", override_usage = USAGE, args_override_self = true)]
pub struct Args {
    /// The tensors: `seed` (the seed's 9, [1,256,H,H]), `large` (two that
    /// exceed the GPU's cache), `all` (both), or a list of shapes.
    #[arg(long, value_name = "seed|large|all|N,C,H,W;...", default_value = "all",
          value_parser = parse_cases)]
    pub cases: Shapes,
    /// The quantizations: passthrough (the output keeps the input's
    /// quantization), requant (the output has its own), or both.
    #[arg(long, value_name = "passthrough|requant|both", default_value = "both",
          value_parser = parse_quant)]
    pub quant: Quants,
    /// Timed repetitions per case (at least 1).
    #[arg(long, value_name = "R", default_value_t = 30)]
    pub reps: usize,
    /// Untimed repetitions before the timed ones.
    #[arg(long, value_name = "W", default_value_t = 3)]
    pub warmup: usize,
    /// The device: `best`, an index, `type:discrete|integrated|virtual|cpu|other`
    /// or a name substring.
    #[arg(long, value_name = "SELECTOR", default_value = "best")]
    pub device: DeviceSelector,
    /// Turns on the Vulkan validation layer.
    #[arg(long)]
    pub validation: bool,
    /// Adds glslang's build of each path, from `cargo xtask glslang-variants
    /// --out DIR`.
    #[arg(long, value_name = "DIR")]
    pub glslang: Option<PathBuf>,
    /// Times the swept path at each of these workgroup shapes instead of the
    /// runtime's choice, and prints the best per pair.
    #[arg(long, value_name = "X,Y,Z;...", value_parser = parse_sweep)]
    pub sweep: Option<LocalSizes>,
    /// The path `--sweep` and `--locals` apply to.
    #[arg(long, value_name = "words|tile|quad|pairs", default_value = "tile",
          value_parser = parse_path)]
    pub sweep_path: ShufflePath,
    /// Writes the sweep's best shape per pair to FILE (a `--locals` file).
    #[arg(long, value_name = "FILE")]
    pub best: Option<PathBuf>,
    /// The swept path's workgroup shape per pair from FILE (as `--best`
    /// writes it), instead of the runtime's.
    #[arg(long, value_name = "FILE", value_parser = read_locals)]
    pub locals: Option<LocalsFile>,
    /// Writes the run (its records, device and start-up) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Writes the chart to FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Re-reads an earlier run's JSON and derives "rewrite" again, without
    /// a device.
    #[arg(long, value_name = "FILE")]
    pub from_json: Option<PathBuf>,
    /// Milliseconds of GPU load before each case (default 500 on a GPU, 0
    /// on a CPU driver).
    #[arg(long, value_name = "MS")]
    pub heat_ms: Option<u64>,
    /// Times nothing: writes what the driver compiled for each kernel to
    /// FILE.
    #[arg(long, value_name = "FILE")]
    pub executables: Option<PathBuf>,
    /// Gives each kernel and each copy its own copy of the input.
    #[arg(long)]
    pub cold: bool,
    /// Only these layout pairs.
    #[arg(long, value_name = "IN->OUT,...", value_parser = parse_pairs)]
    pub pairs: Option<Pairs>,
    /// The rewrite's requantization instead of the device's (f32 at one row per
    /// invocation, as the runtime runs it; `--rows` adds others).
    #[arg(long, value_name = "lanes|table|banked|float|mixed|mixed-quarter", value_parser = parse_requantization)]
    pub requantization: Option<Requantization>,
    /// The grid axis of the rewrite's output channel blocks instead of the
    /// device's (`q8ta::BlockAxis`).
    #[arg(long, value_name = "x|y", value_parser = parse_blocks)]
    pub blocks: Option<BlockAxis>,
    /// Adds each path at each of these rows per invocation
    /// (`q8ta::Rewrite::rows`), as `path NAME rows R`; with `--sweep`, each
    /// swept shape, as `rewrite XxYxZ rows R`.
    #[arg(long, value_name = "R,...", value_delimiter = ',')]
    pub rows: Vec<u32>,
}

/// The arguments of this process; on an error or `--help`, clap prints and
/// exits.
pub fn from_command_line() -> Args {
    let mut a = Args::parse();
    a.reps = a.reps.max(1);
    a
}

/// `--cases`: a named set ([`cases::named`]) or `N,C,H,W;...`.
fn parse_cases(spec: &str) -> Result<Shapes, String> {
    if let Some(shapes) = cases::named(spec) {
        return Ok(shapes);
    }
    spec.split(';')
        .map(|s| {
            let d = numbers::<usize>(s, 4)?;
            Ok(Shape::from_dims([d[0], d[1], d[2], d[3]]))
        })
        .collect()
}

fn parse_quant(name: &str) -> Result<Quants, String> {
    QUANT
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, q)| q.to_vec())
        .ok_or_else(|| "expected passthrough, requant or both".to_string())
}

/// `--sweep 8,8,1;16,4,1`.
fn parse_sweep(spec: &str) -> Result<LocalSizes, String> {
    spec.split(';')
        .map(|s| numbers::<u32>(s, 3).map(|d| [d[0], d[1], d[2]]))
        .collect()
}

/// "expected a, b or c".
fn expected<const N: usize>(names: [&str; N]) -> String {
    let (last, rest) = names.split_last().expect("a name");
    format!("expected {} or {last}", rest.join(", "))
}

fn parse_path(name: &str) -> Result<ShufflePath, String> {
    ShufflePath::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| expected(ShufflePath::ALL.map(ShufflePath::name)))
}

fn parse_requantization(name: &str) -> Result<Requantization, String> {
    Requantization::ALL
        .into_iter()
        .find(|r| r.name() == name)
        .ok_or_else(|| expected(Requantization::ALL.map(Requantization::name)))
}

fn parse_blocks(name: &str) -> Result<BlockAxis, String> {
    BlockAxis::ALL
        .into_iter()
        .find(|b| b.name() == format!("blocks-{name}"))
        .ok_or_else(|| "expected x or y".to_string())
}

fn read_locals(file: &str) -> Result<LocalsFile, String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

/// `4W4C->4C,4C->4C1W`: layout pairs by their names.
fn parse_pairs(spec: &str) -> Result<Pairs, String> {
    let layout = |name: &str| {
        Layout::ALL
            .into_iter()
            .find(|l| l.name() == name.trim())
            .ok_or_else(|| format!("`{name}` is not a layout (4W4C, 4C, 4C1W)"))
    };
    spec.split(',')
        .map(|p| {
            let (i, o) = p
                .split_once("->")
                .ok_or_else(|| format!("`{p}` is not IN->OUT"))?;
            Ok((layout(i)?, layout(o)?))
        })
        .collect()
}

/// `n` comma-separated numbers.
fn numbers<T: std::str::FromStr>(s: &str, n: usize) -> Result<Vec<T>, String> {
    let v: Vec<T> = s
        .split(',')
        .map(|x| x.trim().parse::<T>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("`{s}`: expected {n} comma-separated numbers"))?;
    if v.len() != n {
        return Err(format!("`{s}`: expected {n} comma-separated numbers"));
    }
    Ok(v)
}
