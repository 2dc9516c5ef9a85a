//! The reviewed artifacts of a variant set: one manifest (JSON) per shader
//! and the finished GLSL of each variant, as `cargo xtask regen-variants`
//! writes them and `ncnn-glsl variants` prints them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::options::Options;
use crate::reflection::Requirements;

use super::build::{key_name, BuiltSet, VariantKey};
use super::space::Usage;

/// What a reviewer reads about one shader's variant set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The shader's file name.
    pub shader: String,
    /// What of the extension it uses (decides the permutation space).
    pub usage: Usage,
    /// Declared axes and their values, build-time axes then device axes.
    pub axes: Vec<AxisEntry>,
    /// Every variant.
    pub variants: Vec<VariantEntry>,
    /// Variants the shader's declaration excludes (the fallback order covers them).
    pub excluded: Vec<String>,
    /// Variants left out because naga cannot express their column for this
    /// shader, each with the reason and the variant that runs instead.
    #[serde(default)]
    pub left_out: Vec<LeftOutEntry>,
    /// Distinct finished texts compiled.
    pub distinct_texts: usize,
    /// Distinct SPIR-V blobs stored.
    pub distinct_blobs: usize,
    /// Bytes of SPIR-V the set embeds (distinct blobs only).
    pub spirv_bytes: usize,
}

/// One axis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AxisEntry {
    /// The macro.
    pub name: String,
    /// Its values.
    pub values: Vec<i64>,
    /// Whether it is a device macro.
    pub device: bool,
    /// For a device axis found from the shader's tests: `(from, built)`,
    /// a device value runs the built value of the last entry at or below
    /// it, and an undefined macro runs `undefined` (`null` where no variant
    /// is built for such devices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcomes: Option<OutcomesEntry>,
}

/// [`AxisEntry::outcomes`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomesEntry {
    /// The value built for devices without the macro.
    pub undefined: Option<i64>,
    /// `(from, built)`, sorted.
    pub from: Vec<(i64, Option<i64>)>,
}

/// One variant left out (`compile/inexpressible.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOutEntry {
    /// `bf16s`, `bf16p [S16 I16] IN_LAYOUT=1`.
    pub key: String,
    /// Why naga cannot compile it.
    pub reason: String,
    /// The key of the variant a device ending with this key's target runs.
    pub runs: String,
}

impl LeftOutEntry {
    /// `left out: REASON; runs KEY`, as `ncnn-glsl variants` prints it.
    pub fn note(&self) -> String {
        format!("left out: {}; runs {}", self.reason, self.runs)
    }
}

/// One variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantEntry {
    /// `fp16s+fp16a [S16] IN_LAYOUT=1`.
    pub key: String,
    /// The mode.
    pub mode: Options,
    /// The device bits the text depends on (`S16`, `U16`, `I16`, `I64`).
    pub device_bits: Vec<String>,
    /// Axis values by name.
    pub axes: BTreeMap<String, i64>,
    /// The file of its finished GLSL, relative to the manifest.
    pub glsl: String,
    /// Index of its blob among the set's distinct blobs.
    pub blob: usize,
    /// SPIR-V size in bytes.
    pub spirv_bytes: usize,
    /// FNV-1a 64 of the SPIR-V bytes, hex (a change detector, not a signature).
    pub spirv_fnv1a64: String,
    /// What the device must have.
    pub requirements: Requirements,
}

/// File-name form of a variant key: `fp16s+fp16a.S16.IN_LAYOUT-1.glsl`.
pub fn file_name(key: &VariantKey, axis_names: &[&str]) -> String {
    let mut s = key.target.options.to_string();
    for n in key.target.bits.names() {
        s.push('.');
        s.push_str(n);
    }
    for (n, v) in axis_names.iter().zip(&key.axes) {
        s.push_str(&format!(".{n}-{v}"));
    }
    s.push_str(".glsl");
    s
}

/// FNV-1a, 64 bits, over the little-endian bytes of `words`.
pub fn fnv1a64(words: &[u32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in words.iter().flat_map(|w| w.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Manifest {
    /// The manifest of `set`, naming the shader `shader`.
    pub fn of(shader: &str, set: &BuiltSet) -> Manifest {
        let names = set.axis_names();
        let decl_axes: Vec<&super::decl::Axis> = set
            .declaration
            .axes
            .iter()
            .chain(&set.declaration.device)
            .collect();
        let axes = decl_axes
            .iter()
            .enumerate()
            .map(|(i, a)| AxisEntry {
                name: a.name.clone(),
                values: a.values.clone(),
                device: i >= set.declaration.axes.len(),
                outcomes: a.outcomes.as_ref().map(|o| OutcomesEntry {
                    undefined: o.undefined,
                    from: o.from.clone(),
                }),
            })
            .collect();
        let variants = set
            .variants
            .iter()
            .map(|v| {
                let blob = &set.blobs[v.blob];
                VariantEntry {
                    key: key_name(&v.key, &decl_axes),
                    mode: v.key.target.options,
                    device_bits: v
                        .key
                        .target
                        .bits
                        .names()
                        .into_iter()
                        .map(String::from)
                        .collect(),
                    axes: names
                        .iter()
                        .map(|n| n.to_string())
                        .zip(v.key.axes.iter().copied())
                        .collect(),
                    glsl: file_name(&v.key, &names),
                    blob: v.blob,
                    spirv_bytes: blob.spirv.len() * 4,
                    spirv_fnv1a64: format!("{:016x}", fnv1a64(&blob.spirv)),
                    requirements: blob.reflection.requirements.clone(),
                }
            })
            .collect();
        Manifest {
            shader: shader.to_string(),
            usage: set.usage,
            axes,
            variants,
            excluded: set
                .excluded
                .iter()
                .map(|k| key_name(k, &decl_axes))
                .collect(),
            left_out: set
                .left_out
                .iter()
                .map(|l| LeftOutEntry {
                    key: key_name(&l.key, &decl_axes),
                    reason: l.why.reason.to_string(),
                    runs: key_name(
                        &VariantKey {
                            target: l.runs,
                            axes: l.key.axes.clone(),
                        },
                        &decl_axes,
                    ),
                })
                .collect(),
            distinct_texts: set.texts.len(),
            distinct_blobs: set.blobs.len(),
            spirv_bytes: set.blobs.iter().map(|b| b.spirv.len() * 4).sum(),
        }
    }

    /// Pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a manifest always serializes");
        s.push('\n');
        s
    }
}

/// Every artifact of `set`: `manifest.json` and one `.glsl` per variant,
/// as (file name, contents), sorted by name.
pub fn artifacts(shader: &str, set: &BuiltSet) -> Vec<(String, String)> {
    let names = set.axis_names();
    let mut out: Vec<(String, String)> = set
        .variants
        .iter()
        .map(|v| (file_name(&v.key, &names), set.texts[v.text].clone()))
        .collect();
    out.push((
        "manifest.json".to_string(),
        Manifest::of(shader, set).to_json(),
    ));
    out.sort();
    out
}
