//! The scale test of the generated shader library (`tests/library/shaders/`,
//! 255 ncnn-style shaders in 11 families), cheap enough for every CI run: a
//! deterministic sample runs on the Vulkan device (lavapipe in CI) through the
//! differential harness (`ncnn_glsl_testkit::differential`), our blob (naga
//! and its repairs) against glslangValidator's blob of the same finished text,
//! on the same fresh random inputs: integers identical, floats within one ulp
//! of their storage type (what the corpus test, `corpus.rs`, asks).
//!
//! The sample:
//!
//! - the first, the middle and the last shader of every family, by file name
//!   (`tests/library/check.sh` samples the first two), and every shader of
//!   `subgroup`;
//! - each in `fp32` and `fp16s+fp16a`; also in `int8s` where the shader has an
//!   int8 buffer, and in `local` where it tests `NCNN_shader_local_memory`
//!   (the reduction family's other path). Where the variant set leaves a mode
//!   out (`int8s` for `sint8` buffers: naga has no 8-bit integers), our blob
//!   is the one the set runs instead and glslang's is of the left-out text,
//!   as `corpus.rs` compares them;
//! - the `subgroup` shaders test device macros: each is expanded with no
//!   device (every device macro undefined), for the device the test runs on
//!   (its probed description), and, where it tests no `ncnn_subgroup*` macro
//!   (whose value only the running device may give: a foreign subgroup size
//!   would size arrays wrong here), for each description in `devices/`;
//!   every distinct text runs.
//!
//! The push constants and specialization constants are filled by name from
//! the reflection, with the values of a small table per family ([`plan`]);
//! every member of the push-constant block must have a value there, and every
//! value there must name a member or a constant, so the table cannot drift
//! from the generator unnoticed. The shape constants stay 0, so `psc` reads
//! the push constants; the `fp32` texts run a second time with the shape in
//! the shape constants and zeros in its members. Every buffer is [`BUFFER_BYTES`] long, more than any
//! shape of the table reaches (glslang's blob clamps no index), and filled or
//! poisoned whole.
//!
//! Every sampled case must run: the test counts them and fails on any that
//! did not (a pipeline the device cannot make included). Without Vulkan or
//! glslangValidator it skips with a note, except under `CI`, where it fails.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use ncnn_glsl_core::device::narrow_to;
use ncnn_glsl_core::reflection::{Access, MemberScalar, Reflection};
use ncnn_glsl_core::variant::build::{left_out_of, text_usage};
use ncnn_glsl_core::variant::{canonical, fallback_order};
use ncnn_glsl_core::{
    CompileOptions, DeviceCaps, ExpandOptions, Expanded, MemoryLoader, Options, SourceFile, Target,
};
use ncnn_glsl_runtime::{
    Blob, ContextOptions, FloatStorage, SpecValue, Usage, Variant, VariantSet,
};
use ncnn_glsl_testkit::differential::{
    fill, glslang_blob, glslang_result, leak_blob, run_pair_with, spirv_val, target_of, Case, Cmp,
    Fill, Io,
};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::rng::Rng;
use ncnn_glsl_testkit::shaders::workspace_root;
use ncnn_glsl_testkit::tools::tool_available;

/// The bytes of every buffer: more than any shape of [`plan`] reaches (the
/// largest, the pack4 convolutions' and inner products' weights, read below
/// 800 `vec4`s; 2048 fit), and a multiple of every element size.
const BUFFER_BYTES: u64 = 32 << 10;

/// The modes every sampled shader runs in.
const MODES: &[&str] = &["fp32", "fp16s+fp16a"];

/// The mode whose texts also run with the shape in the shape constants
/// rather than the push constants (`psc`'s other side).
const SPECIALIZED_MODE: &str = "fp32";

/// A value of the table: an `int` or a `float`.
#[derive(Clone, Copy, Debug)]
enum V {
    I(i32),
    F(f32),
}

use V::{F, I};

/// How a shader is dispatched; the extents are push-constant names of the
/// plan, or `"1"`.
#[derive(Clone, Copy, Debug)]
enum Grid {
    /// One invocation per element of the extents along x, y and z
    /// (`gl_GlobalInvocationID`; the shader returns past them).
    Each([&'static str; 3]),
    /// One workgroup of this many invocations along x per item of the
    /// extents along y and z (`gl_WorkGroupID`; the shader's `LOCAL_SIZE`
    /// or `PARTIALS`, which its shared arrays are sized by).
    Groups(u32, &'static str, &'static str),
}

/// How one shader runs.
struct Plan {
    /// Push-constant values by member name: the shape and the parameters.
    push: Vec<(&'static str, V)>,
    /// Specialization constants by name, besides the shape constants.
    spec: Vec<(&'static str, V)>,
    grid: Grid,
    /// The range of float inputs.
    range: (f32, f32),
    /// Ranges of particular inputs, by block name.
    ranges: Vec<(&'static str, (f32, f32))>,
}

impl Plan {
    fn new(push: Vec<(&'static str, V)>, grid: Grid) -> Plan {
        Plan {
            push,
            spec: Vec::new(),
            grid,
            range: (-2.0, 2.0),
            ranges: Vec::new(),
        }
    }

    fn spec(mut self, spec: Vec<(&'static str, V)>) -> Plan {
        self.spec = spec;
        self
    }

    fn range(mut self, lo: f32, hi: f32) -> Plan {
        self.range = (lo, hi);
        self
    }

    fn input(mut self, block: &'static str, lo: f32, hi: f32) -> Plan {
        self.ranges.push((block, (lo, hi)));
        self
    }

    fn value(&self, name: &str) -> Option<V> {
        self.push.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// An extent of the grid.
    fn extent(&self, name: &str) -> u32 {
        if name == "1" {
            return 1;
        }
        match self.value(name) {
            Some(I(v)) if v > 0 => v as u32,
            v => panic!("the grid's extent `{name}` is {v:?}, not a positive int of the plan"),
        }
    }
}

/// `w h c cstep` of the elementwise shaders: pack1 rows of 8, 4 rows, 3
/// channels (or channel groups), a channel step of 32 elements.
fn shape3() -> Vec<(&'static str, V)> {
    vec![("w", I(8)), ("h", I(4)), ("c", I(3)), ("cstep", I(32))]
}

/// The row reductions' shape: rows of 150 (more than some workgroups, fewer
/// than others: both the strided loop and idle invocations run).
fn rows() -> Vec<(&'static str, V)> {
    vec![("w", I(150)), ("h", I(3)), ("c", I(2)), ("cstep", I(452))]
}

/// `v` with `more`: a name already there takes the new value in place.
fn with(mut v: Vec<(&'static str, V)>, more: &[(&'static str, V)]) -> Vec<(&'static str, V)> {
    for &(n, x) in more {
        match v.iter_mut().find(|(m, _)| *m == n) {
            Some(slot) => slot.1 = x,
            None => v.push((n, x)),
        }
    }
    v
}

/// The value of `#define NAME N` in the source (the first with a number).
fn define(source: &str, name: &str) -> u32 {
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("#define "))
        .filter_map(|l| l.strip_prefix(name))
        .find_map(|rest| rest.trim().parse().ok())
        .unwrap_or_else(|| panic!("no `#define {name} N` in the source"))
}

fn round4(v: i32) -> i32 {
    (v + 3) / 4 * 4
}

/// The GEMM shape: sizes that are multiples of no tile, so every tile's edge
/// guard runs; C is read (`beta` is not 0).
fn gemm_plan() -> Plan {
    Plan::new(
        vec![("M", I(6)), ("N", I(10)), ("K", I(13))],
        Grid::Each(["N", "M", "1"]),
    )
    .spec(vec![("alpha", F(0.75)), ("beta", F(0.5))])
}

/// How shader `family/name` runs; `local`: the mode has shader local memory.
fn plan(family: &str, name: &str, source: &str, local: bool) -> Plan {
    use Grid::{Each, Groups};
    let each3 = Each(["w", "h", "c"]);
    let starts = |p: &str| name.starts_with(p);
    match family {
        "unary" => {
            let push = if starts("leakyrelu") {
                with(shape3(), &[("slope", F(0.1))])
            } else {
                shape3()
            };
            let plan = Plan::new(push, each3);
            // Their domain: no NaN to compare.
            if starts("log") || starts("sqrt") || starts("rsqrt") {
                plan.range(0.25, 4.0)
            } else {
                plan
            }
        }
        "binary" => {
            let push = if name.contains("_scalar_") {
                with(shape3(), &[("b", F(1.5))])
            } else {
                shape3()
            };
            let plan = Plan::new(push, each3);
            if starts("div") {
                plan.input("b_blob", 0.25, 2.0)
            } else {
                plan
            }
        }
        "reduction" => {
            // Without local memory a `_localmem_` shader takes one
            // invocation per row, dispatched over (h, c).
            let grid = if name.contains("_localmem_") && !local {
                Each(["h", "c", "1"])
            } else {
                Groups(define(source, "LOCAL_SIZE"), "h", "c")
            };
            Plan::new(rows(), grid)
        }
        "subgroup" => match name {
            _ if name.contains("_rows_") => {
                Plan::new(rows(), Groups(define(source, "LOCAL_SIZE"), "h", "c"))
            }
            _ if starts("softmax_subgroup") => {
                Plan::new(rows(), Groups(define(source, "LOCAL_SIZE"), "h", "c")).range(-3.0, 3.0)
            }
            "add_devicetype_pack4" => Plan::new(vec![("size", I(37))], Each(["size", "1", "1"])),
            "conv1x1_int8_dot_pack4" => Plan::new(
                with(
                    shape3(),
                    &[("c", I(5)), ("outc", I(2)), ("outcstep", I(32))],
                ),
                Each(["w", "h", "outc"]),
            )
            .spec(vec![("scale_in", F(1.0 / 256.0))]),
            "conv1x1_vendor_unroll_pack4" => Plan::new(
                vec![
                    ("w", I(8)),
                    ("h", I(4)),
                    // Odd, so the unrolled loop leaves a remainder.
                    ("c", I(5)),
                    ("cstep", I(32)),
                    ("outw", I(8)),
                    ("outh", I(4)),
                    ("outc", I(2)),
                    ("outcstep", I(32)),
                ],
                Each(["outw", "outh", "outc"]),
            )
            .spec(vec![("bias_term", I(1))]),
            "gemm_vendor_tile_pack1" => gemm_plan(),
            "innerproduct_int8_dot" => {
                Plan::new(vec![("w", I(24)), ("outw", I(7))], Each(["outw", "1", "1"])).spec(vec![
                    ("bias_term", I(1)),
                    ("scale_in", F(1.0 / 128.0)),
                    ("scale_weight", F(1.0 / 64.0)),
                ])
            }
            "layernorm_driver_pack1" => {
                Plan::new(vec![("w", I(24)), ("h", I(5))], Each(["h", "1", "1"]))
            }
            "pooling_global_avg_driver_pack4" => {
                Plan::new(shape3(), Groups(define(source, "LOCAL_SIZE"), "1", "c"))
            }
            _ => panic!("no plan for subgroup/{name}: add it to the table"),
        },
        "packing" => {
            let (push, grid) = match name {
                _ if starts("packing_1to4_1d") => {
                    (vec![("w", I(32)), ("outw", I(8))], Each(["outw", "1", "1"]))
                }
                _ if starts("packing_4to1_1d") => {
                    (vec![("w", I(8)), ("outw", I(32))], Each(["w", "1", "1"]))
                }
                _ if starts("packing_1to4_2d") => (
                    vec![("w", I(8)), ("h", I(16)), ("outh", I(4))],
                    Each(["w", "outh", "1"]),
                ),
                _ if starts("packing_4to1_2d") => (
                    vec![("w", I(8)), ("h", I(4)), ("outh", I(16))],
                    Each(["w", "h", "1"]),
                ),
                _ if starts("packing_1to4_3d") => (
                    with(
                        shape3(),
                        &[("c", I(8)), ("outc", I(2)), ("outcstep", I(32))],
                    ),
                    Each(["w", "h", "outc"]),
                ),
                _ if starts("packing_4to1_3d") => (
                    with(
                        shape3(),
                        &[("c", I(2)), ("outc", I(8)), ("outcstep", I(32))],
                    ),
                    Each(["w", "h", "c"]),
                ),
                // A channel step of the output unlike the input's.
                _ if starts("cast_") => (with(shape3(), &[("outcstep", I(40))]), each3),
                _ => panic!("no plan for packing/{name}: add it to the table"),
            };
            Plan::new(push, grid)
        }
        "convolution" => {
            let (k, s) = (
                define(source, "KERNEL") as i32,
                define(source, "STRIDE") as i32,
            );
            let out = (9 - k) / s + 1;
            let mut push = vec![
                ("w", I(9)),
                ("h", I(9)),
                ("c", I(2)),
                ("cstep", I(84)),
                ("outw", I(out)),
                ("outh", I(out)),
                ("outcstep", I(round4(out * out))),
            ];
            let grid = if starts("convdw_") {
                Each(["outw", "outh", "c"])
            } else {
                push.push(("outc", I(2)));
                Each(["outw", "outh", "outc"])
            };
            Plan::new(push, grid).spec(vec![("bias_term", I(1))])
        }
        "gemm" => {
            if starts("gemm_") {
                gemm_plan()
            } else if starts("innerproduct_gemv") {
                Plan::new(
                    vec![("w", I(40)), ("outw", I(5))],
                    Groups(define(source, "PARTIALS"), "outw", "1"),
                )
                .spec(vec![("bias_term", I(1))])
            } else {
                panic!("no plan for gemm/{name}: add it to the table")
            }
        }
        "pooling" => {
            if starts("pooling_global_") {
                Plan::new(shape3(), Groups(define(source, "LOCAL_SIZE"), "1", "c"))
            } else {
                let k = define(source, "KERNEL") as i32;
                let (outw, outh) = ((9 - k) / 2 + 1, (7 - k) / 2 + 1);
                Plan::new(
                    vec![
                        ("w", I(9)),
                        ("h", I(7)),
                        ("c", I(3)),
                        ("cstep", I(64)),
                        ("outw", I(outw)),
                        ("outh", I(outh)),
                        ("outcstep", I(round4(outw * outh))),
                    ],
                    Each(["outw", "outh", "c"]),
                )
            }
        }
        "norm" => match name {
            _ if starts("softmax_") => Plan::new(shape3(), Each(["h", "c", "1"])).range(-3.0, 3.0),
            _ if starts("layernorm_") => Plan::new(shape3(), Each(["h", "c", "1"]))
                .spec(vec![("affine", I(1))])
                .input("gamma_blob", 0.5, 1.5),
            _ if starts("instancenorm_") => {
                Plan::new(shape3(), Groups(define(source, "LOCAL_SIZE"), "1", "c"))
                    .spec(vec![("affine", I(1))])
                    .input("gamma_blob", 0.5, 1.5)
            }
            _ if starts("scale_") => Plan::new(shape3(), each3).spec(vec![("bias_term", I(1))]),
            _ if starts("batchnorm_") || starts("bias_") || starts("prelu_") => {
                Plan::new(shape3(), each3)
            }
            _ => panic!("no plan for norm/{name}: add it to the table"),
        },
        "layout" => match name {
            _ if starts("padding_") => {
                let mut push = with(
                    shape3(),
                    &[
                        ("outw", I(11)),
                        ("outh", I(7)),
                        ("outcstep", I(80)),
                        ("left", I(2)),
                        ("top", I(1)),
                    ],
                );
                if starts("padding_constant") {
                    push.push(("value", F(2.5)));
                }
                Plan::new(push, Each(["outw", "outh", "c"]))
            }
            _ if starts("crop_") => Plan::new(
                with(
                    shape3(),
                    &[
                        ("outw", I(5)),
                        ("outh", I(2)),
                        ("outc", I(2)),
                        ("outcstep", I(12)),
                        ("woffset", I(1)),
                        ("hoffset", I(1)),
                        ("coffset", I(1)),
                    ],
                ),
                Each(["outw", "outh", "outc"]),
            ),
            // The output holds the input at an offset of 2 along the axis:
            // rows of 12, 8 rows, 5 channels.
            _ if starts("concat_") => Plan::new(
                with(
                    shape3(),
                    &[("outw", I(12)), ("outcstep", I(96)), ("offset", I(2))],
                ),
                each3,
            ),
            _ if starts("slice_") => Plan::new(
                vec![
                    ("w", I(8)),
                    ("cstep", I(32)),
                    ("outw", I(6)),
                    ("outh", I(3)),
                    ("outc", I(2)),
                    ("outcstep", I(20)),
                    ("offset", I(1)),
                ],
                Each(["outw", "outh", "outc"]),
            ),
            _ if starts("flip_") || starts("reshape_") => Plan::new(shape3(), each3),
            // h-w-c: the output's rows are the input's columns.
            _ if starts("permute_") => Plan::new(
                with(
                    shape3(),
                    &[
                        ("outw", I(4)),
                        ("outh", I(8)),
                        ("outc", I(3)),
                        ("outcstep", I(32)),
                    ],
                ),
                Each(["outw", "outh", "outc"]),
            )
            .spec(vec![("order_type", I(1))]),
            _ if starts("interp_") => Plan::new(
                with(
                    shape3(),
                    &[
                        ("outw", I(16)),
                        ("outh", I(8)),
                        ("outcstep", I(128)),
                        ("scale_x", F(0.5)),
                        ("scale_y", F(0.5)),
                    ],
                ),
                Each(["outw", "outh", "c"]),
            ),
            _ => panic!("no plan for layout/{name}: add it to the table"),
        },
        "int8" => match name {
            // Per-channel scales (scale_data_size = c) large enough that
            // some values clamp at 127.
            _ if starts("quantize_") => Plan::new(shape3(), each3)
                .spec(vec![("scale_data_size", I(3))])
                .input("scale_blob", 20.0, 80.0),
            _ if starts("dequantize_") => Plan::new(shape3(), each3)
                .spec(vec![("scale_data_size", I(3)), ("bias_data_size", I(3))])
                .input("scale_blob", 0.01, 0.1),
            // Random int32 words scaled by 2^-24: values in [-128, 128).
            _ if starts("requantize_") => Plan::new(shape3(), each3).spec(vec![
                ("scale_in", F(1.0 / 16_777_216.0)),
                ("scale_out", F(0.75)),
                ("bias_term", I(1)),
            ]),
            "pooling_max_2x2_int8_pack4" => Plan::new(
                with(
                    shape3(),
                    &[("outw", I(4)), ("outh", I(2)), ("outcstep", I(8))],
                ),
                Each(["outw", "outh", "c"]),
            ),
            "innerproduct_int8_pack4" => {
                Plan::new(vec![("w", I(16)), ("outw", I(3))], Each(["outw", "1", "1"]))
                    .spec(vec![("scale_in", F(1.0 / 1024.0))])
            }
            _ => panic!("no plan for int8/{name}: add it to the table"),
        },
        _ => panic!("no plan for the family `{family}`: add it to the table"),
    }
}

/// The element type of a binding as the source declares it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    /// `sfp`, `sfpvec4`: the mode's storage type.
    Sfp,
    /// `float`, `vec4` in every mode.
    F32,
    /// `int`, `ivec4`, `sint8`, `sint8vec4`: random words, compared exactly.
    Int,
}

/// The declared element type of every binding of `source`, by binding number
/// (`layout (binding = N) ... { TYPE name[]; };`).
fn binding_elems(source: &str) -> BTreeMap<u32, Elem> {
    let mut out = BTreeMap::new();
    for line in source.lines() {
        let Some(rest) = line.trim().strip_prefix("layout (binding = ") else {
            continue;
        };
        let n: u32 = rest[..rest.find(')').expect("`)`")]
            .parse()
            .expect("a binding number");
        let inside = &line[line.find('{').expect("a block") + 1..];
        let ty = inside.split_whitespace().next().expect("a member type");
        let elem = match ty {
            "sfp" | "sfpvec4" => Elem::Sfp,
            "float" | "vec4" => Elem::F32,
            "int" | "ivec4" | "sint8" | "sint8vec4" => Elem::Int,
            other => panic!("binding {n}: no element class for `{other}`"),
        };
        out.insert(n, elem);
    }
    out
}

/// The harness's case for `plan` in `target`, filled by name from `r`.
/// `specialized`: the shape goes in the shape constants (the specialization
/// constants named as push-constant members), zeros in their members, so
/// `psc` takes the constants instead.
fn case_for(
    label: &str,
    mode: &str,
    plan: &Plan,
    r: &Reflection,
    elems: &BTreeMap<u32, Elem>,
    target: Target,
    specialized: bool,
) -> Case {
    let storage = FloatStorage::of(target.options);
    let io = r
        .bindings
        .iter()
        .map(|b| {
            let elem = *elems
                .get(&b.binding)
                .unwrap_or_else(|| panic!("{label}: binding {} not in the source", b.binding));
            assert!(
                b.array_stride > 0 && BUFFER_BYTES % b.array_stride == 0,
                "{label}: binding {} has an element of {} bytes",
                b.binding,
                b.array_stride
            );
            let (lo, hi) = plan
                .ranges
                .iter()
                .find(|(n, _)| *n == b.name.as_ref())
                .map_or(plan.range, |(_, r)| *r);
            let (fill, cmp) = match (elem, storage) {
                (Elem::Int, _) => (Fill::Words, Cmp::Exact),
                (Elem::F32, _) | (Elem::Sfp, FloatStorage::F32) => {
                    (Fill::F32(lo, hi), Cmp::F32Ulps(1))
                }
                (Elem::Sfp, FloatStorage::F16) => (Fill::F16(lo, hi), Cmp::F16Ulps(1)),
                (Elem::Sfp, FloatStorage::Bf16) => (Fill::Bf16(lo, hi), Cmp::Bf16Ulps(1)),
            };
            match b.access {
                Access::ReadOnly => Io::In(BUFFER_BYTES, fill),
                Access::WriteOnly => Io::Out(BUFFER_BYTES, cmp),
                Access::ReadWrite => Io::InOut(BUFFER_BYTES, fill, cmp),
            }
        })
        .collect();

    // Every member of the block from the plan, and every value of the plan
    // somewhere.
    let mut push = vec![0u8; r.push_constant_size as usize];
    let mut specialization = Vec::new();
    for m in r.push_constants.iter() {
        let v = plan
            .value(&m.name)
            .unwrap_or_else(|| panic!("{label}: no value for the push constant `{}`", m.name));
        let shape = r
            .spec_constants
            .iter()
            .find(|c| c.name == m.name && c.ty.as_ref() == "int");
        let v = match (shape, v) {
            (Some(c), I(i)) if specialized => {
                specialization.push((c.id, SpecValue::Int(i)));
                I(0)
            }
            _ => v,
        };
        let bytes = match (m.ty.scalar, v) {
            (MemberScalar::Int, I(i)) => i.to_le_bytes(),
            (MemberScalar::Float, F(f)) => f.to_le_bytes(),
            (s, v) => panic!(
                "{label}: push constant `{}` is {s:?}, the plan gives {v:?}",
                m.name
            ),
        };
        push[m.offset as usize..m.offset as usize + 4].copy_from_slice(&bytes);
    }
    for (n, _) in &plan.push {
        assert!(
            r.push_constants.iter().any(|m| m.name.as_ref() == *n),
            "{label}: the plan's push constant `{n}` is no member of the block"
        );
    }
    specialization.extend(plan.spec.iter().map(|(n, v)| {
        let c = r
            .spec_constants
            .iter()
            .find(|c| c.name.as_ref() == *n)
            .unwrap_or_else(|| panic!("{label}: the plan's constant `{n}` is not declared"));
        let value = match (c.ty.as_ref(), *v) {
            ("int", I(i)) => SpecValue::Int(i),
            ("float", F(f)) => SpecValue::Float(f),
            (t, v) => panic!("{label}: constant `{n}` is {t}, the plan gives {v:?}"),
        };
        (c.id, value)
    }));

    // Fixed sizes (`local_size_x = TILE`) stay as compiled; `local_size_*_id`
    // ones are set: 8x4x2 per element, or the workgroup the shader's shared
    // arrays are sized for.
    let fixed = r.local_size_spec_ids.iter().all(Option::is_none);
    let (local, groups) = match plan.grid {
        Grid::Each(ext) => {
            let l = if fixed {
                r.local_size
            } else {
                let l = [8, 4, 2];
                std::array::from_fn(|k| if ext[k] == "1" { 1 } else { l[k] })
            };
            let g = std::array::from_fn(|k| plan.extent(ext[k]).div_ceil(l[k]));
            (l, g)
        }
        Grid::Groups(n, y, z) => {
            assert!(!fixed, "{label}: a workgroup grid needs local_size_*_id");
            ([n, 1, 1], [1, plan.extent(y), plan.extent(z)])
        }
    };
    Case {
        name: label.to_string(),
        source: String::new(),
        mode: mode.to_string(),
        io,
        push_constants: push,
        groups,
        local_size: (!fixed).then_some(local),
        specialization,
    }
}

/// One shader of the sample.
struct Shader {
    family: String,
    name: String,
    source: String,
}

/// The first, the middle and the last shader of every family by file name,
/// and every shader of `subgroup`.
fn sample() -> Vec<Shader> {
    let root = workspace_root().join("tests/library/shaders");
    let mut families: Vec<String> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    families.sort();
    let mut out = Vec::new();
    for family in families {
        let mut names: Vec<String> = std::fs::read_dir(root.join(&family))
            .unwrap()
            .filter_map(|e| {
                let p = e.unwrap().path();
                (p.extension()? == "comp")
                    .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
            })
            .collect();
        names.sort();
        let picked: Vec<usize> = if family == "subgroup" {
            (0..names.len()).collect()
        } else {
            let mut p = vec![0, names.len() / 2, names.len() - 1];
            p.dedup();
            p
        };
        for k in picked {
            let path = root.join(&family).join(format!("{}.comp", names[k]));
            out.push(Shader {
                family: family.clone(),
                name: names[k].clone(),
                source: std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            });
        }
    }
    out
}

/// The modes `s` runs in.
fn modes(s: &Shader) -> Vec<&'static str> {
    let mut m = MODES.to_vec();
    if s.source.contains("NCNN_shader_local_memory") {
        m.push("local");
    }
    if s.source.contains("sint8") {
        m.push("int8s");
    }
    m
}

fn expand(s: &Shader, target: &Target, device: Option<&DeviceCaps>) -> Expanded {
    let file = SourceFile {
        name: format!("tests/library/shaders/{}/{}.comp", s.family, s.name),
        path: None,
        text: s.source.clone(),
    };
    ncnn_glsl_core::expand(
        file,
        target,
        device,
        &MemoryLoader::default(),
        &ExpandOptions::default(),
    )
    .unwrap_or_else(|d| panic!("{}/{} in {target}: expand failed:\n{d}", s.family, s.name))
}

/// What a variant set runs where it leaves `target` out: the first target of
/// the fallback order that it builds (as `corpus.rs` finds it).
fn runs_instead(s: &Shader, target: &Target, device: Option<&DeviceCaps>) -> (Target, Expanded) {
    let usage = text_usage(&s.source);
    for c in fallback_order(canonical(*target, usage))
        .into_iter()
        .skip(1)
    {
        if canonical(c, usage) != c || narrow_to(c.options, Options::ALL) != c.options {
            continue;
        }
        let e = expand(s, &c, device);
        if left_out_of(&e).is_none() {
            return (c, e);
        }
    }
    panic!(
        "{}/{}: {target} is left out and nothing runs instead",
        s.family, s.name
    )
}

/// The finished text as glslang 12 is given it (as `corpus.rs` does):
/// `dotPacked4x8EXT` of `GL_EXT_integer_dot_product`, which glslang 12 does
/// not know, becomes the sum of the four lane products through
/// `bitfieldExtract` (which sign-extends `int` lanes, as the dot product does).
fn for_glslang(text: &str) -> String {
    const LINE: &str = "#extension GL_EXT_integer_dot_product : require\n";
    const BY_HAND: &str = "int ncnn_dot4x8(int a, int b) { int s = 0; for (int k = 0; k < 32; k += 8) s += bitfieldExtract(a, k, 8) * bitfieldExtract(b, k, 8); return s; }\n";
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

/// One text of a shader in one mode, to compile and run.
struct Job {
    shader: usize,
    mode: &'static str,
    /// The devices whose expansion gives the text (`none`: no device).
    devices: Vec<String>,
    device: Option<DeviceCaps>,
    /// The first of those devices' expansion.
    expanded: Expanded,
}

/// A job compiled: our blob (of the target the set runs) and glslang's.
struct Pair {
    ours: Vec<u32>,
    ours_target: Target,
    reflection: Reflection,
    theirs: Vec<u32>,
    /// Where the mode is left out: what runs instead.
    instead: Option<Target>,
}

fn compile_job(s: &Shader, job: &Job) -> Result<Pair, String> {
    let target = target_of(job.mode);
    let fallback;
    let (ours_target, ours_text, instead) = match left_out_of(&job.expanded) {
        None => (target, &job.expanded, None),
        Some(_) => {
            let (t, e) = runs_instead(s, &target, job.device.as_ref());
            fallback = e;
            (t, &fallback, Some(t))
        }
    };
    let ours = ncnn_glsl_core::compile(ours_text, &CompileOptions::default())
        .map_err(|d| format!("our compile failed:\n{d}"))?;
    if let Some(Err(v)) = spirv_val(&ours.spirv) {
        return Err(format!("spirv-val rejects our blob:\n{v}"));
    }
    let theirs = match glslang_result(&for_glslang(job.expanded.text())) {
        Some(Ok(w)) => w,
        Some(Err(m)) => return Err(format!("glslang rejects the finished text:\n{m}")),
        None => return Err("glslangValidator is not installed".into()),
    };
    Ok(Pair {
        ours: ours.spirv,
        ours_target,
        reflection: ours.reflection,
        theirs,
        instead,
    })
}

/// The device descriptions of `devices/`, by file name.
fn descriptions() -> Vec<(String, DeviceCaps)> {
    let dir = workspace_root().join("devices");
    let mut out: Vec<(String, DeviceCaps)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let caps =
                DeviceCaps::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), caps)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The jobs of the sample: every distinct text of every shader in its modes.
fn jobs(shaders: &[Shader], running: &DeviceCaps) -> Vec<Job> {
    let described = descriptions();
    let mut out: Vec<Job> = Vec::new();
    for (k, s) in shaders.iter().enumerate() {
        let mut devices: Vec<(String, Option<DeviceCaps>)> = vec![("none".into(), None)];
        if s.family == "subgroup" {
            devices.push((
                format!("this device ({})", running.name),
                Some(running.clone()),
            ));
            if !s.source.contains("ncnn_subgroup") {
                for (n, caps) in &described {
                    devices.push((n.clone(), Some(caps.clone())));
                }
            }
        }
        for mode in modes(s) {
            let first = out.len();
            for (label, caps) in &devices {
                let expanded = expand(s, &target_of(mode), caps.as_ref());
                match out[first..]
                    .iter_mut()
                    .find(|j| j.expanded.text() == expanded.text())
                {
                    Some(j) => j.devices.push(label.clone()),
                    None => out.push(Job {
                        shader: k,
                        mode,
                        devices: vec![label.clone()],
                        device: caps.clone(),
                        expanded,
                    }),
                }
            }
        }
    }
    out
}

#[test]
fn a_sample_of_the_library_matches_glslang() {
    let start = Instant::now();
    let shaders = sample();
    // Every family, at least two shaders of each.
    assert_eq!(
        shaders
            .iter()
            .map(|s| s.family.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        11,
        "the library has 11 families"
    );
    if !tool_available("glslangValidator") {
        return;
    }
    // The probe context: the device's description picks the device-macro
    // branches before anything is compiled; a second context enables what
    // the compiled blobs need.
    GpuTest::new(ContextOptions::default()).run(|gpu| {
        let running = gpu.ctx().caps().clone();
        let jobs = jobs(&shaders, &running);

        // Compile (naga, spirv-val, glslang) on two threads.
        let next = Mutex::new(0usize);
        let compiled: Mutex<Vec<(usize, Result<Pair, String>)>> = Mutex::default();
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| loop {
                    let k = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(job) = jobs.get(k) else { break };
                    let r = compile_job(&shaders[job.shader], job);
                    compiled.lock().unwrap().push((k, r));
                });
            }
        });
        let mut compiled = compiled.into_inner().unwrap();
        compiled.sort_by_key(|(k, _)| *k);
        let compile_time = start.elapsed();

        let label = |job: &Job| {
            let s = &shaders[job.shader];
            format!(
                "{}/{} in {} (devices: {})",
                s.family,
                s.name,
                job.mode,
                job.devices.join(", ")
            )
        };
        let mut failures: Vec<String> = Vec::new();
        let mut runs: Vec<(usize, Case, &'static Blob, &'static Blob)> = Vec::new();
        let mut variants = Vec::new();
        for (k, r) in compiled {
            let job = &jobs[k];
            let pair = match r {
                Ok(p) => p,
                Err(e) => {
                    failures.push(format!("{}: {e}", label(job)));
                    continue;
                }
            };
            let s = &shaders[job.shader];
            let plan = plan(&s.family, &s.name, &s.source, job.mode.contains("local"));
            let mut name = label(job);
            if let Some(t) = pair.instead {
                name.push_str(&format!(
                    " (left out: our blob of {t}, which runs instead, against glslang's of the text)"
                ));
            }
            let elems = binding_elems(&s.source);
            // SAFETY: every buffer is BUFFER_BYTES long, more than the
            // plan's shapes reach (glslang's blob clamps no index); ours
            // clamps every index besides.
            let (ours, theirs) = unsafe {
                (
                    leak_blob(pair.ours, pair.reflection.clone()),
                    glslang_blob(pair.theirs, &pair.reflection),
                )
            };
            for (blob, target) in [(ours, pair.ours_target), (theirs, target_of(job.mode))] {
                variants.push(Variant {
                    target,
                    axes: &[],
                    blob,
                });
            }
            for specialized in [false, true] {
                if specialized && job.mode != SPECIALIZED_MODE {
                    continue;
                }
                let name = if specialized {
                    format!("{name}, the shape specialized")
                } else {
                    name.clone()
                };
                let case = case_for(
                    &name,
                    job.mode,
                    &plan,
                    &pair.reflection,
                    &elems,
                    pair.ours_target,
                    specialized,
                );
                runs.push((k, case, ours, theirs));
            }
        }
        let set: &'static VariantSet = Box::leak(Box::new(VariantSet::new(
            "library_scale",
            Usage::default(),
            &[],
            Box::leak(variants.into_boxed_slice()),
        )));
        let ctx = gpu
            .open(ContextOptions {
                variant_sets: vec![set],
                ..ContextOptions::default()
            })
            .unwrap_or_else(|e| panic!("cannot open the context for the sample's blobs: {e}"));

        let seed = Rng::fresh().seed();
        let mut ran: BTreeMap<&str, (Vec<&str>, usize)> = BTreeMap::new();
        for (i, (k, case, ours, theirs)) in runs.iter().enumerate() {
            let mut rng = Rng::new(seed.wrapping_add(i as u64));
            let inputs: Vec<Vec<u8>> = case.io.iter().map(|io| fill(&mut rng, *io)).collect();
            let result = run_pair_with(&ctx, case, ours, theirs, &inputs);
            let messages = gpu.take_messages();
            if let Err(e) = result {
                failures.push(format!(
                    "{e} (case {i}; NCNN_SEED={seed} replays the whole sample)"
                ));
                continue;
            }
            if !messages.is_empty() {
                let text: Vec<String> = messages
                    .iter()
                    .map(|m| format!("[{:?}] {}: {}", m.severity, m.id, m.text))
                    .collect();
                failures.push(format!(
                    "{}: validation messages:\n{}",
                    case.name,
                    text.join("\n")
                ));
                continue;
            }
            let s = &shaders[jobs[*k].shader];
            let entry = ran.entry(s.family.as_str()).or_default();
            if !entry.0.contains(&s.name.as_str()) {
                entry.0.push(&s.name);
            }
            entry.1 += 1;
        }
        drop(ctx);

        // Every text once, the texts of SPECIALIZED_MODE twice.
        let expected =
            jobs.len() + jobs.iter().filter(|j| j.mode == SPECIALIZED_MODE).count();
        eprintln!(
            "library sample: {} shaders, {} texts ({} differ from the text without a device), \
             {expected} cases; compiled in {:.1?}, ran in {:.1?}",
            shaders.len(),
            jobs.len(),
            jobs.iter().filter(|j| !j.devices.contains(&"none".to_string())).count(),
            compile_time,
            start.elapsed() - compile_time
        );
        for (family, (names, cases)) in &ran {
            eprintln!("  {family:<12} {} shaders, {cases} cases: {}", names.len(), names.join(" "));
        }
        assert!(
            failures.is_empty(),
            "{} of {expected} cases failed (NCNN_SEED={seed} replays the sample):\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
        // Every case ran, and every family with at least two shaders in two modes.
        let total: usize = ran.values().map(|(_, n)| n).sum();
        assert_eq!(total, expected, "every case of the sample must run");
        assert_eq!(ran.len(), 11, "every family ran: {:?}", ran.keys());
        for (family, (names, cases)) in &ran {
            assert!(
                names.len() >= 2 && *cases >= 2 * MODES.len(),
                "{family}: {} shaders, {cases} cases",
                names.len()
            );
        }
        assert_eq!(
            ran["subgroup"].0.len(),
            shaders.iter().filter(|s| s.family == "subgroup").count(),
            "every subgroup shader ran"
        );
    });
}
