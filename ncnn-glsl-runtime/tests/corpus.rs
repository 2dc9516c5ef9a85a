//! The corpus (`tests/corpus/*.comp`): ncnn-style compute shaders, each
//! expanded in every mode of the spec (`ncnn_glsl_core::ext::spec_targets`),
//! and with `local` beside the float modes ([`LOCAL_MODES`]), and compiled
//! through naga. Where that compiles, our blob and
//! glslangValidator's blob of the same finished GLSL run on lavapipe with the
//! same random inputs, under several specializations (the shape constants
//! left at 0 so `psc` reads the push constants, then set with the push
//! constants zeroed, and the layer's own constants), through the
//! differential harness: integers identical, floats within one ulp of the
//! storage type.
//!
//! A mode that a variant set leaves out for a shader (the extension defines
//! a name it uses there with a type naga does not have,
//! `ncnn_glsl_core::compile::inexpressible`) is run as the set would run it:
//! our blob of the mode the fallback order picks instead, against glslang's
//! blob of the left-out mode's text, on the same bytes.
//!
//! The outcome of every shader in every mode (compiled and matched, left out
//! with what runs instead, rejected at build time with the error, not
//! runnable on lavapipe with the reason) is kept in `tests/corpus/OUTCOMES.md`. The test fails on any difference
//! from glslang, on a rejection without a position, and when the outcomes
//! drift from that file; `CORPUS_UPDATE=1` rewrites it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ncnn_glsl_core::compile::reflect;
use ncnn_glsl_core::device::narrow_to;
use ncnn_glsl_core::variant::build::{left_out_of, text_usage};
use ncnn_glsl_core::variant::{canonical, fallback_order};
use ncnn_glsl_core::{ext, CompileOptions, MemoryLoader, Options, SourceFile, Target};
use ncnn_glsl_runtime::reflection::Reflection;
use ncnn_glsl_runtime::{
    Blob, ContextOptions, FloatStorage, SpecValue, Usage, Variant, VariantSet,
};
use ncnn_glsl_testkit::differential::{
    leak_blob, run_blobs, target_of, Case, Cmp, Fill, Io, RunError,
};
use ncnn_glsl_testkit::gpu::GpuTest;

/// The element type of a binding.
#[derive(Clone, Copy)]
enum Ty {
    /// `sfp`, `sfpvec4`: fp32, fp16 or bf16 by mode.
    Sfp,
    /// `float`, `vec4` in every mode.
    F32,
    /// `int`, `ivec4` (filled with values below 4096).
    I32,
}

/// One binding: its element type, scalar elements, and direction (inputs
/// with the range their values are drawn from).
#[derive(Clone, Copy)]
enum B {
    In(Ty, u64, f32, f32),
    Out(Ty, u64),
    InOut(Ty, u64, f32, f32),
}

/// One entry of a shader's runs: the layer's specialization constants and
/// the shape it runs on (the shape constants' values, in id order from the
/// shader's `shape_constant_id_offset`, also the first push constants).
struct Entry {
    spec: Vec<(u32, SpecValue)>,
    shape: Vec<i32>,
}

/// A corpus shader and how to run it.
struct Shader {
    name: &'static str,
    bindings: Vec<B>,
    local: [u32; 3],
    groups: [u32; 3],
    /// The id of the first shape constant.
    shape_id: u32,
    /// Push constants after the shape (not read through `psc`).
    extra_push: Vec<P>,
    /// The last entry also runs with the shape as specialization constants
    /// and zeros in its push constants.
    entries: Vec<Entry>,
}

#[derive(Clone, Copy)]
enum P {
    I(i32),
    F(f32),
}

fn int(id: u32, v: i32) -> (u32, SpecValue) {
    (id, SpecValue::Int(v))
}

fn float(id: u32, v: f32) -> (u32, SpecValue) {
    (id, SpecValue::Float(v))
}

fn uint(id: u32, v: u32) -> (u32, SpecValue) {
    (id, SpecValue::Uint(v))
}

fn entry(spec: Vec<(u32, SpecValue)>, shape: &[i32]) -> Entry {
    Entry {
        spec,
        shape: shape.to_vec(),
    }
}

/// One entry per spec set, all on `shape`.
fn entries(specs: Vec<Vec<(u32, SpecValue)>>, shape: &[i32]) -> Vec<Entry> {
    specs.into_iter().map(|s| entry(s, shape)).collect()
}

/// Shader local memory beside the float modes (ncnn's defaults turn it on
/// with them), besides the spec's modes, which have it alone (`local`,
/// over fp32) and in the column of every flag.
const LOCAL_MODES: &[&str] = &[
    "fp16p+local",
    "fp16s+local [S16]",
    "fp16s+fp16a+local [S16]",
];

/// The device descriptions whose targets the corpus runs too: what ncnn's
/// default options and every option narrow to on each, with and without
/// shader local memory.
const DEVICES: &[&str] = &["devices/h200.json", "devices/lavapipe.json"];

/// The targets of [`DEVICES`] that neither the spec's modes nor
/// [`LOCAL_MODES`] have, for the mode table.
fn device_targets() -> Vec<Target> {
    let mut out = Vec::new();
    for d in DEVICES {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(d);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{d}: {e}"));
        let caps =
            ncnn_glsl_core::DeviceCaps::from_json(&text).unwrap_or_else(|e| panic!("{d}: {e}"));
        for wanted in [Options::NCNN_DEFAULT, Options::ALL] {
            for local in [true, false] {
                let wanted = if local {
                    wanted
                } else {
                    wanted.without(ncnn_glsl_core::Flag::ShaderLocalMemory)
                };
                out.push(Target::for_device(wanted, &caps));
            }
        }
    }
    out
}

use Ty::{Sfp, F32, I32};

fn corpus() -> Vec<Shader> {
    let pack4 = |c: u64, cstep: u64| c * cstep * 4;
    vec![
        Shader {
            name: "convolution_1x1s1_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 36), -2.0, 2.0),
                B::Out(Sfp, pack4(2, 40)),
                B::In(Sfp, 2 * 3 * 16, -1.0, 1.0),
                B::In(Sfp, 2 * 4, -1.0, 1.0),
            ],
            local: [8, 2, 1],
            groups: [5, 1, 1],
            shape_id: 4,
            extra_push: vec![],
            entries: entries(
                vec![
                    vec![],
                    vec![int(0, 1), int(1, 1)],
                    vec![int(0, 1), int(1, 2), float(2, 0.1)],
                    vec![int(1, 3), float(2, -0.5), float(3, 0.5)],
                    vec![int(0, 1), int(1, 4)],
                ],
                &[7, 5, 3, 36, 2, 40],
            ),
        },
        Shader {
            name: "convolution_3x3_pack4",
            bindings: vec![
                B::In(Sfp, pack4(2, 72), -2.0, 2.0),
                B::Out(Sfp, pack4(2, 72)),
                B::In(Sfp, 2 * 2 * 9 * 16, -1.0, 1.0),
                B::In(Sfp, 2 * 4, -1.0, 1.0),
            ],
            local: [4, 4, 2],
            groups: [3, 2, 1],
            shape_id: 7,
            extra_push: vec![],
            entries: vec![
                entry(vec![], &[9, 8, 2, 72, 9, 8, 2, 72]),
                entry(
                    vec![int(0, 3), int(1, 3), int(4, 2), int(5, 2)],
                    &[9, 8, 2, 72, 4, 3, 2, 72],
                ),
                entry(
                    vec![int(0, 3), int(1, 3), int(2, 2), int(3, 2)],
                    &[9, 8, 2, 72, 5, 4, 2, 72],
                ),
                entry(
                    vec![int(0, 3), int(1, 3), int(6, 1)],
                    &[9, 8, 2, 72, 7, 6, 2, 72],
                ),
            ],
        },
        Shader {
            name: "pooling_max_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 64), -2.0, 2.0),
                B::Out(Sfp, pack4(3, 40)),
            ],
            local: [4, 4, 1],
            groups: [2, 2, 3],
            shape_id: 4,
            extra_push: vec![],
            entries: vec![
                entry(vec![], &[9, 7, 3, 64, 4, 3, 40]),
                entry(vec![int(0, 3), int(1, 3)], &[9, 7, 3, 64, 4, 3, 40]),
                entry(
                    vec![int(0, 3), int(1, 3), int(2, 1), int(3, 1)],
                    &[9, 7, 3, 64, 7, 5, 40],
                ),
            ],
        },
        Shader {
            name: "pooling_avg_pack4",
            bindings: vec![
                B::In(Sfp, pack4(2, 44), -2.0, 2.0),
                B::Out(Sfp, pack4(2, 44)),
            ],
            local: [4, 4, 1],
            groups: [2, 2, 2],
            shape_id: 7,
            extra_push: vec![],
            entries: vec![
                entry(vec![int(6, 1)], &[7, 6, 2, 44, 7, 6, 44]),
                entry(
                    vec![
                        int(0, 2),
                        int(1, 2),
                        int(2, 2),
                        int(3, 2),
                        int(4, 0),
                        int(5, 0),
                    ],
                    &[7, 6, 2, 44, 3, 3, 44],
                ),
                entry(vec![], &[7, 6, 2, 44, 7, 6, 44]),
            ],
        },
        Shader {
            name: "softmax_reduce",
            bindings: vec![B::InOut(Sfp, 150 * 5, -3.0, 3.0)],
            local: [64, 1, 1],
            groups: [1, 5, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[150, 5]),
        },
        Shader {
            name: "softmax_subgroup",
            bindings: vec![B::InOut(Sfp, 150 * 5, -3.0, 3.0)],
            local: [64, 1, 1],
            groups: [1, 5, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[150, 5]),
        },
        Shader {
            name: "mean_rows_subgroup_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 200), -2.0, 2.0),
                B::Out(Sfp, pack4(3, 5)),
            ],
            local: [32, 1, 1],
            groups: [1, 5, 3],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[37, 5, 3, 200]),
        },
        Shader {
            name: "reduce_subgroup_elect_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 200), -2.0, 2.0),
                B::Out(Sfp, pack4(3, 5)),
                B::Out(I32, 3 * 5),
            ],
            local: [32, 1, 1],
            groups: [1, 5, 3],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[37, 5, 3, 200]),
        },
        Shader {
            name: "const_rescoped",
            bindings: vec![B::InOut(Sfp, pack4(3, 36), -3.0, 3.0)],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 2,
            extra_push: vec![],
            entries: entries(
                vec![vec![], vec![int(0, 1)], vec![int(0, 2), float(1, 0.25)]],
                &[7, 5, 3, 36],
            ),
        },
        Shader {
            name: "sum_rows_unrolled_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 200), -2.0, 2.0),
                B::Out(Sfp, pack4(3, 5)),
            ],
            local: [16, 1, 1],
            groups: [1, 5, 3],
            shape_id: 1,
            extra_push: vec![],
            entries: entries(
                vec![vec![], vec![int(0, 4)], vec![int(0, 1)]],
                &[37, 5, 3, 200],
            ),
        },
        Shader {
            name: "layernorm",
            bindings: vec![
                B::InOut(Sfp, 40 * 12, -2.0, 2.0),
                B::In(Sfp, 40, 0.5, 1.5),
                B::In(Sfp, 40, -1.0, 1.0),
            ],
            local: [16, 1, 1],
            groups: [1, 1, 1],
            shape_id: 2,
            extra_push: vec![],
            entries: entries(
                vec![
                    vec![],
                    vec![float(0, 1e-3), int(1, 1)],
                    vec![float(0, 1e-5)],
                ],
                &[40, 12],
            ),
        },
        Shader {
            name: "binaryop_broadcast_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 36), -2.0, 2.0),
                B::In(Sfp, 3 * 4, 0.25, 2.0),
                B::Out(Sfp, pack4(3, 36)),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 1,
            extra_push: vec![],
            entries: entries((0..8).map(|op| vec![int(0, op)]).collect(), &[7, 5, 3, 36]),
        },
        Shader {
            name: "unaryop_activation_pack4",
            bindings: vec![B::InOut(Sfp, pack4(3, 36), -3.0, 3.0)],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 2,
            extra_push: vec![],
            entries: entries(
                vec![
                    vec![],
                    vec![int(0, 2), float(1, 0.1)],
                    vec![int(0, 3)],
                    vec![int(0, 4)],
                    vec![int(0, 5)],
                    vec![int(0, 6)],
                    vec![int(0, 7)],
                ],
                &[7, 5, 3, 36],
            ),
        },
        Shader {
            name: "packing_pack1to4",
            bindings: vec![B::In(Sfp, 12 * 36, -2.0, 2.0), B::Out(Sfp, pack4(3, 36))],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[7, 5, 12, 36, 3, 36]),
        },
        Shader {
            name: "packing_pack4to1",
            bindings: vec![B::In(Sfp, pack4(3, 36), -2.0, 2.0), B::Out(Sfp, 12 * 36)],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[7, 5, 3, 36, 36]),
        },
        Shader {
            name: "reshape_pack4to1",
            bindings: vec![B::In(Sfp, pack4(2, 20), -2.0, 2.0), B::Out(Sfp, 160)],
            local: [4, 4, 2],
            groups: [2, 1, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[5, 4, 2, 20, 16, 10]),
        },
        Shader {
            name: "padding_pack4",
            bindings: vec![
                B::In(Sfp, pack4(2, 32), -2.0, 2.0),
                B::Out(Sfp, pack4(2, 72)),
            ],
            local: [4, 4, 2],
            groups: [3, 2, 1],
            shape_id: 2,
            extra_push: vec![P::I(2), P::I(1)],
            entries: entries(
                vec![
                    vec![],
                    vec![float(1, 2.5)],
                    vec![int(0, 1)],
                    vec![int(0, 2)],
                ],
                &[6, 5, 2, 32, 9, 8, 72],
            ),
        },
        Shader {
            name: "crop_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 64), -2.0, 2.0),
                B::Out(Sfp, pack4(2, 20)),
            ],
            local: [4, 4, 1],
            groups: [2, 1, 2],
            shape_id: 0,
            extra_push: vec![P::I(2), P::I(1), P::I(1)],
            entries: entries(vec![vec![]], &[9, 7, 3, 64, 5, 4, 2, 20]),
        },
        Shader {
            name: "pixelshuffle",
            bindings: vec![B::In(Sfp, 18 * 20, -2.0, 2.0), B::Out(Sfp, 2 * 180)],
            local: [8, 8, 1],
            groups: [2, 2, 2],
            shape_id: 1,
            extra_push: vec![],
            entries: vec![
                entry(vec![], &[5, 4, 20, 10, 8, 2, 80]),
                entry(vec![int(0, 3)], &[5, 4, 20, 15, 12, 2, 180]),
            ],
        },
        Shader {
            name: "concat_pack4",
            bindings: vec![
                B::In(Sfp, pack4(2, 20), -2.0, 2.0),
                B::InOut(Sfp, pack4(5, 100), -2.0, 2.0),
            ],
            local: [4, 4, 2],
            groups: [2, 1, 1],
            shape_id: 1,
            extra_push: vec![P::I(3)],
            entries: entries(
                vec![vec![], vec![int(0, 1)], vec![int(0, 2)]],
                &[5, 4, 2, 20, 11, 9, 100],
            ),
        },
        Shader {
            name: "transpose_tile_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 130), -2.0, 2.0),
                B::Out(Sfp, pack4(3, 130)),
            ],
            local: [8, 8, 2],
            groups: [2, 2, 2],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[13, 10, 3, 130, 10, 13, 130]),
        },
        Shader {
            name: "permute",
            bindings: vec![B::In(Sfp, 4 * 32, -2.0, 2.0), B::Out(Sfp, 6 * 32)],
            local: [4, 4, 4],
            groups: [2, 2, 2],
            shape_id: 1,
            extra_push: vec![],
            entries: [
                (0, [6, 5, 4]),
                (1, [5, 6, 4]),
                (2, [6, 4, 5]),
                (3, [4, 6, 5]),
                (4, [5, 4, 6]),
                (5, [4, 5, 6]),
            ]
            .into_iter()
            .map(|(order, [ow, oh, oc])| entry(vec![int(0, order)], &[6, 5, 4, 32, ow, oh, oc, 32]))
            .collect(),
        },
        Shader {
            name: "innerproduct_gemv_pack4",
            bindings: vec![
                B::In(Sfp, 40 * 4, -1.0, 1.0),
                B::Out(Sfp, 6 * 4),
                B::In(Sfp, 6 * 40 * 16, -1.0, 1.0),
                B::In(Sfp, 6 * 4, -1.0, 1.0),
            ],
            local: [16, 1, 1],
            groups: [1, 6, 1],
            shape_id: 2,
            extra_push: vec![],
            entries: entries(vec![vec![], vec![int(0, 1), int(1, 1)]], &[40, 6]),
        },
        Shader {
            name: "gemm_tile_double_buffer",
            bindings: vec![
                B::In(Sfp, 13 * 21, -1.0, 1.0),
                B::In(Sfp, 21 * 19, -1.0, 1.0),
                B::In(Sfp, 13 * 19, -1.0, 1.0),
                B::Out(Sfp, 13 * 19),
            ],
            local: [8, 8, 1],
            groups: [3, 2, 1],
            shape_id: 2,
            extra_push: vec![],
            entries: entries(
                vec![vec![], vec![float(0, 0.5), float(1, -1.0)]],
                &[13, 19, 21],
            ),
        },
        Shader {
            name: "gemm_tile",
            bindings: vec![
                B::In(Sfp, 13 * 21, -1.0, 1.0),
                B::In(Sfp, 21 * 19, -1.0, 1.0),
                B::In(Sfp, 13 * 19, -1.0, 1.0),
                B::Out(Sfp, 13 * 19),
            ],
            local: [8, 8, 1],
            groups: [3, 2, 1],
            shape_id: 3,
            extra_push: vec![],
            entries: entries(
                vec![vec![], vec![float(0, 0.5), float(1, -1.0)], vec![int(2, 1)]],
                &[13, 19, 21],
            ),
        },
        // The cooperative-matrix shaders run their plain branch here (the
        // corpus expands without a device, and lavapipe has no cooperative
        // matrices); the fp16 weights are small integers' bits (I32 below
        // 4096: finite halves). Their matrix branch runs in
        // `coopmat_gemm.rs` and `coopmat_corpus.rs` on a device that has
        // them.
        Shader {
            name: "gemm_coopmat_pack4",
            bindings: vec![
                B::In(Sfp, 13 * 32, -1.0, 1.0),
                B::In(I32, 20 * 32 / 2, 0.0, 0.0),
                B::Out(Sfp, 13 * 20),
            ],
            local: [64, 1, 1],
            groups: [1, 13, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[13, 20, 32]),
        },
        Shader {
            name: "conv1x1_coopmat_pack4",
            bindings: vec![
                B::In(Sfp, 8 * 16, -1.0, 1.0),
                B::Out(Sfp, 8 * 16),
                B::In(I32, 8 * 8 / 2, 0.0, 0.0),
                B::In(I32, 8 / 2, 0.0, 0.0),
            ],
            local: [64, 1, 1],
            groups: [1, 2, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[8, 16, 8, 16, 15]),
        },
        Shader {
            name: "attention_score_coopmat",
            bindings: vec![
                B::In(I32, 5 * 16 / 2, 0.0, 0.0),
                B::In(I32, 7 * 16 / 2, 0.0, 0.0),
                B::Out(F32, 5 * 7),
            ],
            local: [8, 1, 1],
            groups: [1, 5, 1],
            shape_id: 1,
            extra_push: vec![],
            entries: entries(vec![vec![], vec![float(0, 0.125)]], &[5, 7, 16]),
        },
        Shader {
            // The tile's `?:` picks A's side (padded A rows: 72 > 64, then
            // 136 > 128 and 40 > 32 at other K extents), B's (96 > 64), and
            // B's at equal sides (the defaults).
            name: "gemm_tile_spec_select",
            bindings: vec![
                B::In(Sfp, 13 * 21, -1.0, 1.0),
                B::In(Sfp, 21 * 19, -1.0, 1.0),
                B::In(Sfp, 13 * 19, -1.0, 1.0),
                B::Out(Sfp, 13 * 19),
            ],
            local: [8, 8, 1],
            groups: [3, 2, 1],
            shape_id: 5,
            extra_push: vec![],
            entries: entries(
                vec![
                    vec![],
                    vec![uint(3, 9)],
                    vec![uint(4, 12), float(0, 0.5), float(1, -1.0)],
                    vec![uint(2, 4), uint(3, 5)],
                    vec![uint(2, 16), uint(3, 17)],
                ],
                &[13, 19, 21],
            ),
        },
        Shader {
            name: "batchnorm_pack4",
            bindings: vec![
                B::InOut(Sfp, pack4(3, 36), -2.0, 2.0),
                B::In(Sfp, 3 * 4, -1.0, 1.0),
                B::In(Sfp, 3 * 4, 0.5, 1.5),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[3, 7, 5, 3, 36]),
        },
        Shader {
            name: "prelu_pack4",
            bindings: vec![
                B::InOut(Sfp, pack4(3, 36), -3.0, 3.0),
                B::In(Sfp, 4 * 3, -1.0, 1.0),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 2,
            extra_push: vec![],
            entries: entries(
                vec![vec![], vec![int(0, 1), float(1, 0.25)]],
                &[7, 5, 3, 36],
            ),
        },
        Shader {
            name: "scale_bias_pack1",
            bindings: vec![
                B::In(Sfp, 5 * 40, -3.0, 3.0),
                B::Out(Sfp, 5 * 40),
                B::In(Sfp, 5, -2.0, 2.0),
                B::In(Sfp, 5, -1.0, 1.0),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 2],
            shape_id: 1,
            extra_push: vec![],
            entries: entries(vec![vec![], vec![int(0, 1)]], &[7, 5, 5, 40]),
        },
        Shader {
            name: "eltwise_sum_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 36), -2.0, 2.0),
                B::In(Sfp, pack4(3, 36), -2.0, 2.0),
                B::Out(Sfp, pack4(3, 36)),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![P::F(0.5), P::F(-2.0)],
            entries: entries(vec![vec![]], &[7, 5, 3, 36]),
        },
        Shader {
            name: "hardswish_pack4",
            bindings: vec![B::InOut(Sfp, pack4(3, 36), -4.0, 4.0)],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 2,
            extra_push: vec![],
            entries: entries(
                vec![
                    vec![float(0, 1.0 / 6.0), float(1, 0.5)],
                    vec![float(0, 0.2), float(1, 0.5)],
                ],
                &[7, 5, 3, 36],
            ),
        },
        Shader {
            name: "sigmoid_pack1",
            bindings: vec![B::InOut(Sfp, 3 * 40, -4.0, 4.0)],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[7, 5, 3, 40]),
        },
        Shader {
            name: "swish_pack4",
            bindings: vec![B::InOut(Sfp, pack4(3, 36), -4.0, 4.0)],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[7, 5, 3, 36]),
        },
        Shader {
            name: "relu6_pack1",
            bindings: vec![B::In(Sfp, 3 * 40, -8.0, 8.0), B::Out(Sfp, 3 * 40)],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 1,
            extra_push: vec![],
            entries: entries(vec![vec![], vec![float(0, 0.125)]], &[7, 5, 3, 40]),
        },
        Shader {
            name: "flip_w_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 36), -2.0, 2.0),
                B::Out(Sfp, pack4(3, 36)),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[7, 5, 3, 36]),
        },
        Shader {
            name: "slice_pack4",
            bindings: vec![
                B::In(Sfp, pack4(5, 36), -2.0, 2.0),
                B::Out(Sfp, pack4(2, 36)),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![P::I(3), P::I(36)],
            entries: entries(vec![vec![]], &[7, 5, 2, 36]),
        },
        Shader {
            name: "binaryop_mul_scalar_pack1",
            bindings: vec![B::InOut(Sfp, 3 * 40, -3.0, 3.0)],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 2,
            extra_push: vec![],
            entries: entries(
                vec![
                    vec![float(0, 1.5)],
                    vec![float(0, -0.75), int(1, 1)],
                    vec![float(0, 0.5), int(1, 2)],
                ],
                &[7, 5, 3, 40],
            ),
        },
        Shader {
            name: "winograd23_input_transform_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 36), -2.0, 2.0),
                B::Out(Sfp, pack4(3, 96)),
            ],
            local: [4, 4, 4],
            groups: [1, 1, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[7, 5, 3, 36, 3, 2, 96]),
        },
        Shader {
            name: "mean_rows_shared_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 200), -2.0, 2.0),
                B::Out(Sfp, pack4(3, 5)),
            ],
            local: [16, 1, 1],
            groups: [1, 5, 3],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[37, 5, 3, 200]),
        },
        Shader {
            name: "clip_pack4",
            bindings: vec![B::InOut(Sfp, pack4(3, 36), -3.0, 3.0)],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 2,
            extra_push: vec![],
            entries: entries(
                vec![
                    vec![],
                    vec![float(0, 0.0), float(1, 6.0)],
                    vec![float(0, -0.5), float(1, 0.5)],
                ],
                &[7, 5, 3, 36],
            ),
        },
        Shader {
            name: "reduction_sum_pack4",
            bindings: vec![B::In(Sfp, pack4(3, 152), -1.0, 1.0), B::Out(Sfp, 3 * 4)],
            local: [64, 1, 1],
            groups: [1, 1, 3],
            shape_id: 1,
            extra_push: vec![],
            entries: entries(
                vec![vec![], vec![int(0, 1)], vec![int(0, 2)]],
                &[150, 3, 152],
            ),
        },
        Shader {
            name: "interp_nearest_pack4",
            bindings: vec![
                B::In(Sfp, pack4(2, 20), -2.0, 2.0),
                B::Out(Sfp, pack4(2, 108)),
            ],
            local: [4, 4, 1],
            groups: [3, 3, 2],
            shape_id: 0,
            extra_push: vec![P::F(5.0 / 12.0), P::F(4.0 / 9.0)],
            entries: entries(vec![vec![]], &[5, 4, 2, 20, 12, 9, 108]),
        },
        Shader {
            name: "deconvolution_pack4",
            bindings: vec![
                B::In(Sfp, pack4(2, 12), -2.0, 2.0),
                B::Out(Sfp, pack4(2, 80)),
                B::In(Sfp, 2 * 2 * 16 * 16, -1.0, 1.0),
                B::In(Sfp, 2 * 4, -1.0, 1.0),
            ],
            local: [4, 4, 1],
            groups: [3, 2, 2],
            shape_id: 7,
            extra_push: vec![],
            entries: vec![
                entry(vec![], &[4, 3, 2, 12, 4, 3, 2, 80]),
                entry(
                    vec![int(0, 4), int(1, 4), int(4, 2), int(5, 2)],
                    &[4, 3, 2, 12, 10, 8, 2, 80],
                ),
                entry(
                    vec![int(0, 3), int(1, 3), int(2, 2), int(3, 2)],
                    &[4, 3, 2, 12, 8, 7, 2, 80],
                ),
                entry(
                    vec![int(0, 3), int(1, 3), int(4, 2), int(5, 2), int(6, 1)],
                    &[4, 3, 2, 12, 9, 7, 2, 80],
                ),
            ],
        },
        Shader {
            name: "innerproduct_int8_dot",
            bindings: vec![
                B::In(I32, 40, 0.0, 0.0),
                B::Out(I32, 6),
                B::In(I32, 6 * 40, 0.0, 0.0),
                B::In(I32, 6, 0.0, 0.0),
            ],
            local: [16, 1, 1],
            groups: [1, 1, 1],
            shape_id: 1,
            extra_push: vec![],
            entries: entries(vec![vec![], vec![int(0, 1)]], &[40, 6]),
        },
        Shader {
            name: "dequantize_pack4",
            bindings: vec![
                B::In(I32, pack4(3, 36), 0.0, 0.0),
                B::Out(Sfp, pack4(3, 36)),
                B::In(Sfp, 3 * 4, -0.05, 0.05),
                B::In(Sfp, 3 * 4, -1.0, 1.0),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 4,
            extra_push: vec![],
            entries: entries(
                vec![
                    vec![],
                    vec![int(0, 1), float(1, 0.01)],
                    vec![int(2, 1), float(3, 0.5)],
                    vec![int(2, 3)],
                ],
                &[7, 5, 3, 36],
            ),
        },
        Shader {
            name: "cast_fp32_to_fp16_pack4",
            bindings: vec![
                B::In(F32, pack4(3, 36), -100.0, 100.0),
                B::Out(Sfp, pack4(3, 40)),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[7, 5, 3, 36, 40]),
        },
        Shader {
            name: "cast_fp16_to_fp32_pack4",
            bindings: vec![
                B::In(Sfp, pack4(3, 36), -100.0, 100.0),
                B::Out(F32, pack4(3, 40)),
            ],
            local: [4, 4, 4],
            groups: [2, 2, 1],
            shape_id: 0,
            extra_push: vec![],
            entries: entries(vec![vec![]], &[7, 5, 3, 36, 40]),
        },
    ]
}

/// The harness's `Io` for a binding in `target`.
fn io(b: B, target: &Target) -> Io {
    let st = FloatStorage::of(target.options);
    let (ty, n) = match b {
        B::In(t, n, ..) | B::Out(t, n) | B::InOut(t, n, ..) => (t, n),
    };
    let bytes = |per: u64| (n * per).div_ceil(16) * 16;
    let (size, fill, cmp) = match (ty, st) {
        (Sfp, FloatStorage::F32) | (F32, _) => (
            bytes(4),
            (|lo, hi| Fill::F32(lo, hi)) as fn(f32, f32) -> Fill,
            Cmp::F32Ulps(1),
        ),
        (Sfp, FloatStorage::F16) => (bytes(2), Fill::F16 as fn(f32, f32) -> Fill, Cmp::F16Ulps(1)),
        (Sfp, FloatStorage::Bf16) => (
            bytes(2),
            Fill::Bf16 as fn(f32, f32) -> Fill,
            Cmp::Bf16Ulps(1),
        ),
        (I32, _) => (
            bytes(4),
            (|_, _| Fill::Below(4096)) as fn(f32, f32) -> Fill,
            Cmp::Exact,
        ),
    };
    match b {
        B::In(_, _, lo, hi) => Io::In(size, fill(lo, hi)),
        B::Out(..) => Io::Out(size, cmp),
        B::InOut(_, _, lo, hi) => Io::InOut(size, fill(lo, hi), cmp),
    }
}

fn push_bytes(values: impl IntoIterator<Item = P>) -> Vec<u8> {
    values
        .into_iter()
        .flat_map(|v| match v {
            P::I(i) => i.to_le_bytes(),
            P::F(f) => f.to_le_bytes(),
        })
        .collect()
}

/// One run: a description, the specialization, the push constants.
type Run = (String, Vec<(u32, SpecValue)>, Vec<u8>);

/// Our blob and reflection, and glslang's blob; or what became of the text.
type Compiled = Result<Pair, Outcome>;

/// What one text runs: our blob and glslang's.
#[derive(Clone)]
struct Pair {
    ours: Vec<u32>,
    reflection: Reflection,
    theirs: Vec<u32>,
    /// For a left-out mode: why, the target whose blob (ours) runs instead,
    /// and the target whose text glslang's blob is of.
    left_out: Option<(String, Target, Target)>,
}

/// The runs of a shader.
fn runs(s: &Shader) -> Vec<Run> {
    let mut out = Vec::new();
    for e in &s.entries {
        let push = push_bytes(
            e.shape
                .iter()
                .map(|&v| P::I(v))
                .chain(s.extra_push.iter().copied()),
        );
        out.push((format!("{:?}", e.spec), e.spec.clone(), push));
    }
    let last = s.entries.last().expect("an entry");
    let mut spec = last.spec.clone();
    for (i, &v) in last.shape.iter().enumerate() {
        spec.push(int(s.shape_id + i as u32, v));
    }
    let push = push_bytes(
        last.shape
            .iter()
            .map(|_| P::I(0))
            .chain(s.extra_push.iter().copied()),
    );
    out.push((
        format!("{:?} with the shape specialized", last.spec),
        spec,
        push,
    ));
    out
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus")
}

/// What became of one distinct finished text of a shader.
#[derive(Clone, Debug)]
enum Outcome {
    /// Compiled, ran and matched glslang `runs` times.
    Matched(usize),
    /// Left out of a variant set, for the reason; the target that runs
    /// instead, and what became of its comparison with glslang's build of
    /// the left-out text (matched `n` times, or why it was not compared).
    LeftOut {
        reason: String,
        runs: Target,
        /// The target whose text glslang compiled for the comparison.
        against: Target,
        compared: Result<usize, String>,
    },
    /// Rejected at build time: the first error, `file:line:column: error: ...`.
    Rejected(String),
    /// Compiled, but lavapipe cannot run it.
    NotRunnable(String),
    /// A failure of the test (a difference from glslang, glslang rejects
    /// the text, spirv-val rejects our blob, an error without a position).
    Failed(String),
}

/// The finished texts of one shader that differ at most in their
/// `#extension` lines: the modes that give them and what they compiled to.
/// naga ignores `#extension` lines (the test checks that it gives the same
/// blob or the same error for each), so the group is run once, with
/// glslang's blob of its first mode's text.
struct Text {
    shader: usize,
    targets: Vec<Target>,
    modes: Vec<String>,
    /// The first mode's finished text.
    text: String,
    /// The text without its `#extension` lines: the key of the group.
    body: String,
    compiled: Option<Compiled>,
}

fn expand(source: &str, name: &str, target: &Target) -> Result<ncnn_glsl_core::Expanded, Outcome> {
    let file = SourceFile {
        name: format!("tests/corpus/{name}.comp"),
        path: None,
        text: source.into(),
    };
    ncnn_glsl_core::expand(
        file,
        target,
        None,
        &MemoryLoader::default(),
        &Default::default(),
    )
    .map_err(|d| Outcome::Failed(format!("expand failed:\n{d}")))
}

/// naga's blob, or the rejection (which must name a place).
fn naga(e: &ncnn_glsl_core::Expanded) -> Result<ncnn_glsl_core::Compiled, Outcome> {
    ncnn_glsl_core::compile(e, &CompileOptions::default()).map_err(|d| {
        if let Some(bad) = d.0.iter().find(|d| d.span.is_none()) {
            return Outcome::Failed(format!("rejected without a position: {bad}"));
        }
        let first = d.0[0].to_string();
        Outcome::Rejected(first.lines().next().unwrap_or_default().to_string())
    })
}

/// What a variant set runs for `target` when it leaves it out: the first
/// target of the fallback order that it holds (reduced as the set reduces
/// it, not left out, compiled by naga).
fn fallback(
    source: &str,
    name: &str,
    target: &Target,
) -> Result<(Target, ncnn_glsl_core::Compiled), Outcome> {
    let usage = text_usage(source);
    for c in fallback_order(canonical(*target, usage))
        .into_iter()
        .skip(1)
    {
        if canonical(c, usage) != c || narrow_to(c.options, Options::ALL) != c.options {
            continue;
        }
        let e = expand(source, name, &c)?;
        if left_out_of(&e).is_some() {
            continue;
        }
        return match naga(&e) {
            Ok(b) => Ok((c, b)),
            Err(Outcome::Rejected(r)) => Err(Outcome::Failed(format!(
                "{target} is left out, and {c}, which runs instead, is rejected: {r}"
            ))),
            Err(o) => Err(o),
        };
    }
    Err(Outcome::Failed(format!(
        "{target} is left out and nothing can run instead"
    )))
}

/// The finished text as glslang 12 is given it: the same, but for what
/// glslang 12 lacks and writes out by hand. `dotPacked4x8EXT`
/// (GL_EXT_integer_dot_product, which glslang 12 does not know) becomes the
/// sum of the four lane products through `bitfieldExtract`, which
/// sign-extends `int` lanes and zero-extends `uint` ones, as the dot
/// products do.
fn for_glslang(text: &str) -> String {
    const LINE: &str = "#extension GL_EXT_integer_dot_product : require\n";
    const BY_HAND: &str = "int ncnn_dot4x8(int a, int b) { int s = 0; for (int k = 0; k < 32; k += 8) s += bitfieldExtract(a, k, 8) * bitfieldExtract(b, k, 8); return s; }\n\
        uint ncnn_dot4x8(uint a, uint b) { uint s = 0u; for (int k = 0; k < 32; k += 8) s += bitfieldExtract(a, k, 8) * bitfieldExtract(b, k, 8); return s; }\n";
    if !text.contains(LINE) {
        return text.to_string();
    }
    let text = text
        .replace(LINE, "")
        .replace("dotPacked4x8EXT(", "ncnn_dot4x8(");
    // After the directives, before the first declaration.
    let at = text
        .match_indices('\n')
        .map(|(k, _)| k + 1)
        .find(|&k| text[k..].starts_with("layout"))
        .unwrap_or(text.len());
    format!("{}{BY_HAND}{}", &text[..at], &text[at..])
}

/// A left-out text: our blob of what runs instead, glslang's of the text.
fn compile_left_out(t: &Text, source: &str, name: &str, reason: &str) -> Compiled {
    for target in &t.targets {
        if left_out_of(&expand(source, name, target)?).is_none() {
            return Err(Outcome::Failed(format!(
                "{} and {target} differ only in #extension lines, but only one is left out",
                t.targets[0]
            )));
        }
    }
    let (runs, ours) = fallback(source, name, &t.targets[0])?;
    // bf16p with 16-bit uniform access keeps `lfp` as bf16 bits, where what
    // runs instead keeps `float`: a different rounding of intermediate
    // values, not of the bytes. Its storage is compared through the column
    // with the same storage and `float` local memory (bf16p [S16 I16]).
    let mut against = t.targets[0];
    if ext::FloatClass::of(&against) == ext::FloatClass::Bf16Packed16Local {
        against.bits.uniform16 = false;
    }
    let text = if against == t.targets[0] {
        t.text.clone()
    } else {
        expand(source, name, &against)?.text().to_string()
    };
    let not_compared = |why: String| Outcome::LeftOut {
        reason: reason.to_string(),
        runs,
        against,
        compared: Err(why),
    };
    let theirs = match ncnn_glsl_testkit::differential::glslang_result(&for_glslang(&text)) {
        None => return Err(not_compared("glslangValidator is not installed".into())),
        Some(Err(m)) => {
            // `ERROR: /tmp/NAME.comp:LINE: MESSAGE`: the message, without the scratch file.
            let first = m
                .lines()
                .find_map(|l| l.strip_prefix("ERROR: "))
                .unwrap_or_default();
            let message = first.splitn(3, ':').nth(2).unwrap_or(first).trim();
            return Err(not_compared(format!(
                "glslang rejects the left-out text too ({message})"
            )));
        }
        Some(Ok(w)) => w,
    };
    Ok(Pair {
        ours: ours.spirv,
        reflection: ours.reflection,
        theirs,
        left_out: Some((reason.to_string(), runs, against)),
    })
}

fn compile_text(t: &Text, source: &str, name: &str) -> Compiled {
    let first = expand(source, name, &t.targets[0])?;
    if let Some(why) = left_out_of(&first) {
        return compile_left_out(t, source, name, why.reason);
    }
    let ours = naga(&first);
    for target in &t.targets[1..] {
        let other = naga(&expand(source, name, target)?);
        let same = match (&ours, &other) {
            (Ok(a), Ok(b)) => a.spirv == b.spirv,
            (Err(Outcome::Rejected(a)), Err(Outcome::Rejected(b))) => a == b,
            _ => false,
        };
        if !same {
            return Err(Outcome::Failed(format!(
                "{} and {target} differ only in #extension lines, but naga's results differ",
                t.targets[0]
            )));
        }
    }
    let ours = ours?;
    if let Some(Err(v)) = ncnn_glsl_testkit::differential::spirv_val(&ours.spirv) {
        return Err(Outcome::Failed(format!("spirv-val rejects our blob:\n{v}")));
    }
    let theirs = match ncnn_glsl_testkit::differential::glslang_result(&for_glslang(first.text())) {
        None => {
            return Err(Outcome::NotRunnable(
                "glslangValidator is not installed".into(),
            ))
        }
        Some(Err(m)) => {
            return Err(Outcome::Failed(format!(
                "glslang rejects the finished text:\n{m}"
            )))
        }
        Some(Ok(w)) => w,
    };
    Ok(Pair {
        ours: ours.spirv,
        reflection: ours.reflection,
        theirs,
        left_out: None,
    })
}

#[test]
fn corpus_matches_glslang_in_every_mode() {
    let start = std::time::Instant::now();
    // `CORPUS_ONLY=name,name` runs only those shaders (and checks no table).
    let only: Option<Vec<String>> = std::env::var("CORPUS_ONLY")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let mut shaders = corpus();
    // Every .comp of the corpus has an entry, and the other way round.
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "comp")
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = shaders.iter().map(|s| s.name.to_string()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "tests/corpus/*.comp and the corpus table differ"
    );
    if let Some(only) = &only {
        shaders.retain(|s| only.iter().any(|o| o == s.name));
    }
    let sources: Vec<String> = shaders
        .iter()
        .map(|s| {
            std::fs::read_to_string(corpus_dir().join(format!("{}.comp", s.name)))
                .unwrap_or_else(|e| panic!("{}: {e}", s.name))
        })
        .collect();

    let mut targets = ext::spec_targets();
    targets.extend(LOCAL_MODES.iter().map(|m| target_of(m)));
    for t in device_targets() {
        if !targets.contains(&t) {
            targets.push(t);
        }
    }

    // Groups of finished texts per shader (modes that expand alike, up to
    // their #extension lines, share one).
    let mut texts: Vec<Text> = Vec::new();
    let mut mode_text: BTreeMap<(usize, String), usize> = BTreeMap::new();
    for (si, s) in shaders.iter().enumerate() {
        for target in &targets {
            let file = SourceFile {
                name: format!("tests/corpus/{}.comp", s.name),
                path: None,
                text: sources[si].clone(),
            };
            let text = ncnn_glsl_core::expand(
                file,
                target,
                None,
                &MemoryLoader::default(),
                &Default::default(),
            )
            .map(|e| e.text().to_string())
            .unwrap_or_else(|d| format!("expand failed: {d}"));
            let body: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("#extension"))
                .collect::<Vec<_>>()
                .join("\n");
            let k = match texts.iter().position(|t| t.shader == si && t.body == body) {
                Some(k) => k,
                None => {
                    texts.push(Text {
                        shader: si,
                        targets: Vec::new(),
                        modes: Vec::new(),
                        text,
                        body,
                        compiled: None,
                    });
                    texts.len() - 1
                }
            };
            texts[k].targets.push(*target);
            texts[k].modes.push(target.to_string());
            mode_text.insert((si, target.to_string()), k);
        }
    }

    // Compile (naga, spirv-val, glslang) on two threads.
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, Compiled)>> = Mutex::default();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let k = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(t) = texts.get(k) else { break };
                let r = compile_text(t, &sources[t.shader], shaders[t.shader].name);
                results.lock().unwrap().push((k, r));
            });
        }
    });
    for (k, r) in results.into_inner().unwrap() {
        texts[k].compiled = Some(r);
    }
    eprintln!(
        "{} shaders, {} distinct texts compiled in {:.1?}",
        shaders.len(),
        texts.len(),
        start.elapsed()
    );
    if let Ok(dir) = std::env::var("CORPUS_DUMP") {
        // Both blobs and the finished text of every compiled text, to look into.
        for (k, t) in texts.iter().enumerate() {
            if let Some(Ok(Pair { ours, theirs, .. })) = &t.compiled {
                let base = format!("{dir}/{}.{k}", shaders[t.shader].name);
                let bytes = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
                std::fs::write(format!("{base}.ours.spv"), bytes(ours)).unwrap();
                std::fs::write(format!("{base}.glslang.spv"), bytes(theirs)).unwrap();
                std::fs::write(
                    format!("{base}.comp"),
                    format!("// {}\n{}", t.modes.join(", "), t.text),
                )
                .unwrap();
            }
        }
    }

    // One context for every blob, so each one's features are enabled.
    let mut blobs: Vec<Option<(&'static Blob, &'static Blob)>> = Vec::new();
    let mut variants = Vec::new();
    for t in &texts {
        match &t.compiled {
            Some(Ok(Pair {
                ours,
                reflection,
                theirs,
                ..
            })) => {
                let mut theirs_reflection = reflection.clone();
                theirs_reflection.requirements =
                    ncnn_glsl_core::compile::reflect::requirements(theirs);
                theirs_reflection.spec_arrays = Default::default();
                // SAFETY: the corpus's shaders index inside the buffers its
                // cases size; ours clamps every index besides.
                let (o, g) = unsafe {
                    (
                        leak_blob(ours.clone(), reflection.clone()),
                        leak_blob(theirs.clone(), theirs_reflection),
                    )
                };
                for blob in [o, g] {
                    variants.push(Variant {
                        target: t.targets[0],
                        axes: &[],
                        blob,
                    });
                }
                blobs.push(Some((o, g)));
            }
            _ => blobs.push(None),
        }
    }
    let set: &'static VariantSet = Box::leak(Box::new(VariantSet::new(
        "corpus",
        Usage::default(),
        &[],
        Box::leak(variants.into_boxed_slice()),
    )));
    GpuTest::new(ContextOptions {
        variant_sets: vec![set],
        ..ContextOptions::default()
    }).run(|gpu| {
    let seed = ncnn_glsl_testkit::rng::fresh_seed();

    // Run every compiled text under every specialization.
    let mut outcomes: Vec<Outcome> = Vec::new();
    for (k, t) in texts.iter().enumerate() {
        let s = &shaders[t.shader];
        let outcome = match (&t.compiled, blobs[k]) {
            (Some(Err(o)), _) => o.clone(),
            (Some(Ok(pair)), Some((ours, theirs))) => {
                let mut result = Outcome::Matched(0);
                for (i, (what, spec, push)) in runs(s).into_iter().enumerate() {
                    let case = Case {
                        name: format!("{} ({what})", s.name),
                        source: String::new(),
                        mode: t.modes[0].clone(),
                        io: s.bindings.iter().map(|b| io(*b, &t.targets[0])).collect(),
                        push_constants: push,
                        groups: s.groups,
                        local_size: Some(s.local),
                        specialization: spec,
                    };
                    match run_blobs(gpu, &case, ours, theirs, seed.wrapping_add(i as u64)) {
                        Ok(()) => {
                            if let Outcome::Matched(n) = &mut result {
                                *n += 1;
                            }
                        }
                        Err(RunError::NotRunnable(e)) => {
                            result = Outcome::NotRunnable(e);
                            break;
                        }
                        Err(RunError::Failed(e)) => {
                            let what = match &pair.left_out {
                                Some((_, runs, against)) => format!(
                                    "left out; our blob of {runs}, which runs instead, against glslang's of the {against} text: "
                                ),
                                None => String::new(),
                            };
                            result = Outcome::Failed(format!(
                                "{what}{e} (run {i}; NCNN_SEED={seed} replays the whole corpus)"
                            ));
                            break;
                        }
                    }
                }
                match (&pair.left_out, result) {
                    (Some((reason, runs, against)), Outcome::Matched(n)) => Outcome::LeftOut {
                        reason: reason.clone(),
                        runs: *runs,
                        against: *against,
                        compared: Ok(n),
                    },
                    (Some((reason, runs, against)), Outcome::NotRunnable(e)) => Outcome::LeftOut {
                        reason: reason.clone(),
                        runs: *runs,
                        against: *against,
                        compared: Err(format!("not runnable on lavapipe: {e}")),
                    },
                    (_, result) => result,
                }
            }
            _ => unreachable!("every text was compiled"),
        };
        outcomes.push(outcome);
    }

    eprintln!("ran in {:.1?}", start.elapsed());
    let failures: Vec<String> = texts
        .iter()
        .zip(&outcomes)
        .filter_map(|(t, o)| match o {
            Outcome::Failed(e) => Some(format!(
                "{} in {}: {e}",
                shaders[t.shader].name,
                t.modes.join(", ")
            )),
            _ => None,
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of the corpus's texts failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );

    let table = render(&shaders, &targets, &texts, &outcomes, &mode_text);
    let path = corpus_dir().join("OUTCOMES.md");
    if only.is_some() {
        eprintln!("{table}");
    } else if std::env::var_os("CORPUS_UPDATE").is_some() {
        std::fs::write(&path, &table).unwrap();
        eprintln!("wrote {}", path.display());
    } else {
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != table {
            let diff: Vec<String> = committed
                .lines()
                .zip(table.lines())
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .take(5)
                .map(|(i, (a, b))| format!("line {}:\n  committed: {a}\n  now:       {b}", i + 1))
                .collect();
            panic!(
                "the corpus outcomes drifted from tests/corpus/OUTCOMES.md ({} lines committed, {} now); \
                 first differences:\n{}\n\nrun with CORPUS_UPDATE=1 to rewrite it, and review the change\n\n{table}",
                committed.lines().count(),
                table.lines().count(),
                diff.join("\n")
            );
        }
    }
    });
}

/// The outcome table (`tests/corpus/OUTCOMES.md`).
fn render(
    shaders: &[Shader],
    targets: &[Target],
    texts: &[Text],
    outcomes: &[Outcome],
    mode_text: &BTreeMap<(usize, String), usize>,
) -> String {
    let mut out = String::new();
    let n = shaders.len();
    writeln!(out, "# Corpus outcomes\n").unwrap();
    writeln!(
        out,
        "Generated by `ncnn-glsl-runtime/tests/corpus.rs` (`CORPUS_UPDATE=1 cargo test -p \
         ncnn-glsl-runtime --test corpus` rewrites it; the test fails when it drifts). Each of the \
         {n} shaders of `tests/corpus/` is expanded in every mode of the spec \
         (`ncnn_glsl_core::ext::spec_targets`), with `local` beside fp16p, fp16s and \
         fp16s+fp16a, and in the targets ncnn's default options and every option narrow to on \
         the device descriptions `devices/h200.json` and `devices/lavapipe.json` (with and \
         without `local`), and compiled \
         through naga; where that compiles, \
         our blob and glslangValidator's blob of the same finished GLSL run on lavapipe with the \
         same random inputs under every specialization the test lists, and must agree (integers \
         identical, floats within one ulp of the storage type; glslang 12 has no \
         `GL_EXT_integer_dot_product`, so its text has `dotPacked4x8EXT` written out with \
         `bitfieldExtract`, `for_glslang`). Modes whose finished texts differ at \
         most in their `#extension` lines are run once (naga must give each the same blob or \
         error; glslang compiles the first one's text). A mode a variant set leaves out for a \
         shader (the extension defines a name the shader uses there with a type naga does not \
         have, `ncnn_glsl_core::compile::inexpressible`) is run as the set runs it: our blob of \
         the mode the fallback order picks instead, against glslang's blob of the left-out \
         mode's own text, on the same bytes.\n"
    )
    .unwrap();
    writeln!(out, "## Pass rate per mode\n").unwrap();
    writeln!(
        out,
        "| mode | compiled and matched | left out (what runs instead) | rejected at build time | not runnable on lavapipe |"
    )
    .unwrap();
    writeln!(out, "|---|---|---|---|---|").unwrap();
    for target in targets {
        let mode = target.to_string();
        let (mut m, mut r, mut x) = (Vec::new(), Vec::new(), Vec::new());
        // What runs instead -> the shaders left out.
        let mut l: Vec<(Target, Vec<&str>)> = Vec::new();
        for (si, s) in shaders.iter().enumerate() {
            match &outcomes[mode_text[&(si, mode.clone())]] {
                Outcome::Matched(_) => m.push(s.name),
                Outcome::LeftOut { runs, .. } => match l.iter_mut().find(|(r, _)| r == runs) {
                    Some((_, names)) => names.push(s.name),
                    None => l.push((*runs, vec![s.name])),
                },
                Outcome::Rejected(_) => r.push(s.name),
                Outcome::NotRunnable(_) => x.push(s.name),
                Outcome::Failed(_) => unreachable!("failures stop the test first"),
            }
        }
        let left = if l.is_empty() {
            "0".to_string()
        } else {
            let n: usize = l.iter().map(|(_, v)| v.len()).sum();
            let groups: Vec<String> = l
                .iter()
                .map(|(runs, names)| format!("{} (run `{runs}`)", names.join(", ")))
                .collect();
            format!("{n}: {}", groups.join("; "))
        };
        let list = |v: &[&str]| {
            if v.is_empty() {
                "0".to_string()
            } else {
                format!("{}: {}", v.len(), v.join(", "))
            }
        };
        writeln!(
            out,
            "| `{mode}` | {}/{n} | {left} | {} | {} |",
            m.len(),
            list(&r),
            list(&x)
        )
        .unwrap();
    }
    writeln!(out, "\n## Left out\n").unwrap();
    writeln!(
        out,
        "Not built in a variant set, not an error: the device runs what the fallback order picks \
         instead, whose blob (ours) was compared with glslang's build of the left-out text, on \
         the same bytes, where glslang and lavapipe can.\n"
    )
    .unwrap();
    // (shader, what) -> modes, in corpus order.
    let mut left: Vec<(usize, String, Vec<&str>)> = Vec::new();
    for (t, o) in texts.iter().zip(outcomes) {
        if let Outcome::LeftOut {
            reason,
            runs,
            against,
            compared,
        } = o
        {
            let text = if t.targets.contains(against) {
                "the left-out text".to_string()
            } else {
                format!(
                    "the `{against}` text (the same storage, and `lfp` in `float` as in `{runs}`)"
                )
            };
            let compared = match compared {
                Ok(n) => format!("our `{runs}` blob matched glslang's blob of {text} in {n} runs"),
                Err(why) => format!("not compared: {why}"),
            };
            let what = format!("{reason}; runs `{runs}`; {compared}");
            add_to_group(&mut left, t.shader, what, &t.modes);
        }
    }
    write_groups(&mut out, shaders, left);
    writeln!(out, "\n## Rejected at build time\n").unwrap();
    // (shader, error) -> modes, in corpus order.
    let mut rejected: Vec<(usize, String, Vec<&str>)> = Vec::new();
    for (t, o) in texts.iter().zip(outcomes) {
        if let Outcome::Rejected(e) = o {
            add_to_group(&mut rejected, t.shader, format!("`{e}`"), &t.modes);
        }
    }
    write_groups(&mut out, shaders, rejected);
    let mut any;
    writeln!(out, "\n## Not runnable on lavapipe\n").unwrap();
    any = false;
    for (t, o) in texts.iter().zip(outcomes) {
        if let Outcome::NotRunnable(e) = o {
            any = true;
            writeln!(
                out,
                "- `{}` in {}: {}",
                shaders[t.shader].name,
                t.modes
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                e.lines().next().unwrap_or_default()
            )
            .unwrap();
        }
    }
    if !any {
        writeln!(out, "None.").unwrap();
    }
    writeln!(out, "\n## Capabilities against glslang's\n").unwrap();
    writeln!(
        out,
        "Compiled texts whose blob (ours) declares other SPIR-V capabilities than glslang's blob \
         of the same text: each capability is a device feature the runtime demands. (A text \
         glslang 12 is given written out by hand, `for_glslang`, is not the same text: left out \
         here.)\n"
    )
    .unwrap();
    any = false;
    for t in texts {
        let Some(Ok(pair)) = &t.compiled else {
            continue;
        };
        if pair.left_out.is_some() || for_glslang(&t.text) != t.text {
            continue;
        }
        let names = |caps: &[ncnn_glsl_core::reflection::Str]| -> BTreeSet<String> {
            caps.iter().map(|c| c.to_string()).collect()
        };
        let ours = names(&pair.reflection.requirements.spirv_capabilities);
        let theirs = names(&reflect::requirements(&pair.theirs).spirv_capabilities);
        if ours != theirs {
            any = true;
            let list = |a: &BTreeSet<String>, b: &BTreeSet<String>| {
                let d: Vec<&str> = a.difference(b).map(String::as_str).collect();
                if d.is_empty() {
                    "none".to_string()
                } else {
                    d.join(", ")
                }
            };
            writeln!(
                out,
                "- `{}` in {}: ours only {}; glslang's only {}",
                shaders[t.shader].name,
                t.modes
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                list(&ours, &theirs),
                list(&theirs, &ours)
            )
            .unwrap();
        }
    }
    if !any {
        writeln!(out, "None.").unwrap();
    }
    writeln!(out, "\n## Runs per shader\n").unwrap();
    writeln!(
        out,
        "| shader | distinct finished texts (up to `#extension` lines) | compiled and run | runs per text |"
    )
    .unwrap();
    writeln!(out, "|---|---|---|---|").unwrap();
    for (si, s) in shaders.iter().enumerate() {
        let mine: Vec<&Outcome> = texts
            .iter()
            .zip(outcomes)
            .filter(|(t, _)| t.shader == si)
            .map(|(_, o)| o)
            .collect();
        let ran = mine
            .iter()
            .filter(|o| {
                matches!(
                    o,
                    Outcome::Matched(_)
                        | Outcome::LeftOut {
                            compared: Ok(_),
                            ..
                        }
                )
            })
            .count();
        writeln!(
            out,
            "| `{}` | {} | {ran} | {} |",
            s.name,
            mine.len(),
            runs(s).len()
        )
        .unwrap();
    }
    out
}

/// The corpus run can fail: glslang's blob of a slightly different text
/// (relu clamping at 0.001 instead of 0) must be reported as a difference.
#[test]
fn a_different_result_fails_the_run() {
    let name = "unaryop_activation_pack4";
    let s = corpus().into_iter().find(|s| s.name == name).unwrap();
    let source = std::fs::read_to_string(corpus_dir().join(format!("{name}.comp"))).unwrap();
    let target = Target::for_mode("fp32".parse().unwrap());
    let e = expand(&source, name, &target).unwrap_or_else(|_| panic!("expands"));
    let ours = naga(&e).unwrap_or_else(|_| panic!("compiles"));
    let wrong = e
        .text()
        .replace("max(v, float(0.f))", "max(v, float(0.001f))");
    assert_ne!(wrong, e.text(), "the relu line of the finished text");
    let Some(theirs) = ncnn_glsl_testkit::differential::glslang_result(&wrong) else {
        return;
    };
    let theirs = theirs.expect("glslang compiles the changed text");
    // SAFETY: the shader indexes inside the buffers the case sizes; ours
    // clamps every index besides.
    let ours = unsafe { leak_blob(ours.spirv, ours.reflection.clone()) };
    let mut theirs_reflection = ours.reflection().clone();
    theirs_reflection.requirements = ncnn_glsl_core::compile::reflect::requirements(&theirs);
    // Our words' ids of specialized lengths are not glslang's.
    theirs_reflection.spec_arrays = Default::default();
    // SAFETY: as above.
    let theirs = unsafe { leak_blob(theirs, theirs_reflection) };
    let variants: &'static [Variant] = Box::leak(Box::new([
        Variant {
            target,
            axes: &[],
            blob: ours,
        },
        Variant {
            target,
            axes: &[],
            blob: theirs,
        },
    ]));
    let set: &'static VariantSet = Box::leak(Box::new(VariantSet::new(
        "corpus-negative",
        Usage::default(),
        &[],
        variants,
    )));
    GpuTest::new(ContextOptions {
        variant_sets: vec![set],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let (what, spec, push) = runs(&s).remove(0);
        let case = Case {
            name: format!("{name} ({what})"),
            source: String::new(),
            mode: "fp32".into(),
            io: s.bindings.iter().map(|b| io(*b, &target)).collect(),
            push_constants: push,
            groups: s.groups,
            local_size: Some(s.local),
            specialization: spec,
        };
        match run_blobs(gpu, &case, ours, theirs, 7) {
            Err(RunError::Failed(e)) => assert!(e.contains("differs from glslang's"), "{e}"),
            other => panic!("a different blob was not caught: {other:?}"),
        }
    });
}

/// Adds `modes` to the entry of (`shader`, `what`) in `groups`, or a new entry.
fn add_to_group<'a>(
    groups: &mut Vec<(usize, String, Vec<&'a str>)>,
    shader: usize,
    what: String,
    modes: &'a [String],
) {
    let modes = modes.iter().map(String::as_str);
    match groups
        .iter_mut()
        .find(|(s, w, _)| *s == shader && *w == what)
    {
        Some((_, _, m)) => m.extend(modes),
        None => groups.push((shader, what, modes.collect())),
    }
}

/// The groups as a list, in corpus order: the shader, its modes, then what;
/// `None.` for none.
fn write_groups(out: &mut String, shaders: &[Shader], mut groups: Vec<(usize, String, Vec<&str>)>) {
    groups.sort_by_key(|(s, _, _)| *s);
    for (si, what, modes) in &groups {
        let modes: Vec<String> = modes.iter().map(|m| format!("`{m}`")).collect();
        writeln!(
            out,
            "- `{}` in {}:\n  {what}",
            shaders[*si].name,
            modes.join(", ")
        )
        .unwrap();
    }
    if groups.is_empty() {
        writeln!(out, "None.").unwrap();
    }
}
