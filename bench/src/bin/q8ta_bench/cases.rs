//! What a run measures: the tensor shapes (`--cases`), the layout pairs and
//! quantizations, and the names the table, the JSON and the files of
//! workgroup shapes give them.

use ncnn_glsl_q8ta::launch::Axes;
use ncnn_glsl_q8ta::{Layout, QuantParams, Requant, Shape};

use crate::error::Fail;

/// The input's and the output's quantization of every case: the output keeps
/// the input's when passthrough.
pub fn quantization(passthrough: bool) -> Result<(QuantParams, QuantParams), Fail> {
    let q_in = QuantParams::new(0.02, 3, "input")?;
    if passthrough {
        return Ok((q_in, q_in));
    }
    Ok((q_in, QuantParams::new(0.05, -7, "output")?))
}

/// Whether the f32 requantization is exact for the requantizing cases' scales
/// (`q8ta::Requant::float_exact`, which the runtime's choice depends on).
pub fn float_exact() -> bool {
    quantization(false)
        .and_then(|(i, o)| Ok(Requant::new(i, o)?))
        .is_ok_and(|r| r.float_exact)
}

/// The sides of the seed's square tensors (`[1,256,H,H]`).
const SEED_SIDES: [usize; 9] = [16, 24, 32, 48, 64, 96, 128, 192, 256];

/// The named sets of `--cases`: `seed` (the seed's 9 sizes), `large` (the
/// tensors that exceed the GPU's cache: 128 and 256 MiB per side) and `all`.
pub fn named(name: &str) -> Option<Vec<Shape>> {
    let seed = || SEED_SIDES.iter().map(|&h| Shape::new(1, 256, h, h));
    let large = || [8, 16].into_iter().map(|n| Shape::new(n, 256, 256, 256));
    Some(match name {
        "seed" => seed().collect(),
        "large" => large().collect(),
        "all" => seed().chain(large()).collect(),
        _ => return None,
    })
}

/// Every layout pair, input layout first (the default of `--pairs`).
pub fn all_pairs() -> Vec<(Layout, Layout)> {
    Layout::ALL
        .iter()
        .flat_map(|&i| Layout::ALL.iter().map(move |&o| (i, o)))
        .collect()
}

/// One measured shuffle: a tensor shape, its layout pair and quantization.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Case {
    /// The input's shape (the output's follows).
    pub shape: Shape,
    /// The layout pair and quantization.
    pub axes: Axes,
}

/// The axes of a layout pair and quantization (`passthrough`: the output
/// keeps the input's quantization).
pub fn axes((in_layout, out_layout): (Layout, Layout), passthrough: bool) -> Axes {
    Axes {
        in_layout,
        out_layout,
        passthrough,
    }
}

/// `4C->4C1W passthrough`: the key of `--locals` and `--best` files.
pub fn pair_key(axes: Axes) -> String {
    format!(
        "{}->{} {}",
        axes.in_layout,
        axes.out_layout,
        quant_name(axes.passthrough)
    )
}

/// `4C->4C1W`: a layout pair as the table and the progress bar show it.
pub fn pair_name(axes: Axes) -> String {
    format!("{}->{}", axes.in_layout, axes.out_layout)
}

/// `passthrough` or `requant`, as the table and the JSON name them.
pub fn quant_name(passthrough: bool) -> &'static str {
    if passthrough {
        "passthrough"
    } else {
        "requant"
    }
}

/// `1,256,16,16`: a shape as `--cases` spells it.
pub fn shape_str(s: Shape) -> String {
    format!("{},{},{},{}", s.n, s.c, s.h, s.w)
}
