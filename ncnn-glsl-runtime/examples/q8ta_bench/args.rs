//! The command line: every flag, its default and its value syntax.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ncnn_glsl_runtime::q8ta::{Layout, Shape, ShufflePath};
use ncnn_glsl_runtime::DeviceSelector;

use crate::cases;

pub struct Args {
    pub cases: Vec<Shape>,
    pub quant: Vec<bool>,
    pub reps: usize,
    pub warmup: usize,
    pub device: DeviceSelector,
    pub validation: bool,
    pub glslang: Option<PathBuf>,
    pub sweep: Option<Vec<[u32; 3]>>,
    pub json: Option<PathBuf>,
    pub svg: Option<PathBuf>,
    pub best: Option<PathBuf>,
    pub locals: BTreeMap<String, [u32; 3]>,
    pub sweep_path: ShufflePath,
    pub from_json: Option<PathBuf>,
    pub heat_ms: Option<u64>,
    pub executables: Option<PathBuf>,
    pub cold: bool,
    pub pairs: Option<Vec<(Layout, Layout)>>,
}

fn usage() -> String {
    "usage: q8ta_bench [--cases seed|large|all|N,C,H,W;...] [--quant passthrough|requant|both] \
     [--reps R] [--warmup W] [--device SELECTOR] [--validation] [--glslang DIR] \
     [--sweep X,Y,Z;...] [--sweep-path words|tile|quad] [--best FILE] [--locals FILE] \
     [--json FILE] [--svg FILE] [--from-json FILE] [--heat-ms MS] [--executables FILE] \
     [--cold] [--pairs IN->OUT,...]"
        .to_string()
}

/// `--cases`: a named set ([`cases::named`]) or `N,C,H,W;...`.
fn cases(spec: &str) -> Result<Vec<Shape>, String> {
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

/// `4W4C->4C,4C->4C1W`: layout pairs by their names.
fn pairs(spec: &str) -> Result<Vec<(Layout, Layout)>, String> {
    let layout = |name: &str| {
        Layout::ALL
            .into_iter()
            .find(|l| l.name() == name.trim())
            .ok_or_else(|| format!("--pairs: `{name}` is not a layout (4W4C, 4C, 4C1W)"))
    };
    spec.split(',')
        .map(|p| {
            let (i, o) = p
                .split_once("->")
                .ok_or_else(|| format!("--pairs: `{p}` is not IN->OUT"))?;
            Ok((layout(i)?, layout(o)?))
        })
        .collect()
}

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

pub fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        cases: cases("all")?,
        quant: vec![true, false],
        reps: 30,
        warmup: 3,
        device: DeviceSelector::Best,
        validation: false,
        glslang: None,
        sweep: None,
        json: None,
        svg: None,
        best: None,
        locals: BTreeMap::new(),
        sweep_path: ShufflePath::Tile,
        from_json: None,
        heat_ms: None,
        executables: None,
        cold: false,
        pairs: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))
        };
        match flag.as_str() {
            "--cases" => a.cases = cases(&value()?)?,
            "--quant" => {
                a.quant = match value()?.as_str() {
                    "passthrough" => vec![true],
                    "requant" => vec![false],
                    "both" => vec![true, false],
                    v => return Err(format!("--quant {v}: passthrough, requant or both")),
                }
            }
            "--reps" => a.reps = value()?.parse().map_err(|e| format!("--reps: {e}"))?,
            "--warmup" => a.warmup = value()?.parse().map_err(|e| format!("--warmup: {e}"))?,
            "--device" => {
                let v = value()?;
                a.device = v.parse().map_err(|e| format!("--device {v}: {e}"))?;
            }
            "--validation" => a.validation = true,
            "--glslang" => a.glslang = Some(value()?.into()),
            "--sweep" => {
                let v = value()?;
                let shapes = v
                    .split(';')
                    .map(|s| numbers::<u32>(s, 3).map(|d| [d[0], d[1], d[2]]))
                    .collect::<Result<Vec<_>, _>>()?;
                a.sweep = Some(shapes);
            }
            "--best" => a.best = Some(value()?.into()),
            "--sweep-path" => {
                let v = value()?;
                a.sweep_path = *ShufflePath::ALL
                    .iter()
                    .find(|p| p.name() == v)
                    .ok_or_else(|| format!("--sweep-path {v}: words, tile or quad"))?;
            }
            "--locals" => {
                let v = value()?;
                let text = std::fs::read_to_string(&v).map_err(|e| format!("--locals {v}: {e}"))?;
                a.locals = serde_json::from_str(&text).map_err(|e| format!("--locals {v}: {e}"))?;
            }
            "--from-json" => a.from_json = Some(value()?.into()),
            "--executables" => a.executables = Some(value()?.into()),
            "--cold" => a.cold = true,
            "--pairs" => a.pairs = Some(pairs(&value()?)?),
            "--heat-ms" => {
                a.heat_ms = Some(value()?.parse().map_err(|e| format!("--heat-ms: {e}"))?)
            }
            "--json" => a.json = Some(value()?.into()),
            "--svg" => a.svg = Some(value()?.into()),
            "-h" | "--help" => return Err(usage()),
            other => return Err(format!("unknown argument `{other}`\n{}", usage())),
        }
    }
    a.reps = a.reps.max(1);
    Ok(a)
}
