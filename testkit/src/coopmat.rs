//! The cooperative-matrix GEMM of the corpus (`tests/corpus/gemm_coopmat_pack4.comp`)
//! as the GPU test (`ncnn-glsl-runtime/tests/coopmat_gemm.rs`) and the
//! benchmark (`bench/src/bin/coopmat_gemm.rs`) run it: its variant set
//! built from the file, that set as the macro would embed it, and the
//! device's shape for it.

use ncnn_glsl_core::variant::build::{build, BuiltSet};
use ncnn_glsl_core::variant::{AxisInfo, Outcomes, Variant, VariantSet};
use ncnn_glsl_core::{CompileOptions, DeviceCaps, ExpandOptions, FsLoader, SourceFile};

use crate::differential::leak_blob;
use crate::shaders::workspace_root;

/// The shader's file name in `tests/corpus/`.
pub const GEMM: &str = "gemm_coopmat_pack4.comp";

/// The GEMM's variant set, built as `include_ncnn_shader!` builds it.
pub fn gemm_set() -> BuiltSet {
    let dir = workspace_root().join("tests/corpus");
    let path = dir.join(GEMM);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    build(
        SourceFile {
            name: GEMM.into(),
            path: Some(path),
            text,
        },
        &FsLoader,
        &ExpandOptions::include([dir]),
        &CompileOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{GEMM} does not build as a set:\n{e}"))
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

/// `set` as `include_ncnn_shader!` would embed it, named `name`.
pub fn leak_built(set: &BuiltSet, name: &'static str) -> &'static VariantSet {
    let blobs: Vec<_> = set
        .blobs
        .iter()
        // SAFETY: our compiler's blobs and reflections; every index they
        // compute is clamped into their buffers.
        .map(|c| unsafe { leak_blob(c.spirv.clone(), c.reflection.clone()) })
        .collect();
    let axes: Vec<AxisInfo> = set
        .declaration
        .axes
        .iter()
        .map(|a| (a, false))
        .chain(set.declaration.device.iter().map(|a| (a, true)))
        .map(|(a, device)| AxisInfo {
            name: Box::leak(a.name.clone().into_boxed_str()),
            values: leak(a.values.clone()),
            device,
            outcomes: a.outcomes.as_ref().map(|o| Outcomes {
                undefined: o.undefined,
                from: leak(o.from.clone()),
            }),
        })
        .collect();
    let variants: Vec<Variant> = set
        .variants
        .iter()
        .map(|v| Variant {
            target: v.key.target,
            axes: leak(v.key.axes.clone()),
            blob: blobs[v.blob],
        })
        .collect();
    Box::leak(Box::new(VariantSet::new(
        name,
        set.usage,
        leak(axes),
        leak(variants),
    )))
}

/// M, N, K for the GEMM: the device's fp16 x fp16 + fp32 = fp32 subgroup
/// shape through `VK_KHR_cooperative_matrix`, 16 x 16 x 16 where listed
/// (N and K multiples of 4, as the shader's pack4 tiles need, and an fp16
/// accumulator of M x N listed too).
pub fn device_shape(caps: &DeviceCaps) -> Option<(u32, u32, u32)> {
    let khr = |s: &&ncnn_glsl_core::CoopMatShape| {
        s.flavor == ncnn_glsl_core::reflection::CoopMatFlavor::Khr && s.scope == 3
    };
    let rows = || caps.cooperative_matrix_shapes.iter().filter(khr);
    // The shaders also keep an fp16 accumulator of M x N (the output
    // rounded, a bias loaded): a row must admit it too.
    let f16_accumulator = |m: u32, n: u32| {
        rows().any(|s| (s.m, s.n) == (m, n) && (s.c_type == 0 || s.result_type == 0))
    };
    let shapes: Vec<(u32, u32, u32)> = rows()
        .filter(|s| {
            (s.a_type, s.b_type, s.c_type, s.result_type) == (0, 0, 1, 1)
                && s.n % 4 == 0
                && s.k % 4 == 0
                && f16_accumulator(s.m, s.n)
        })
        .map(|s| (s.m, s.n, s.k))
        .collect();
    shapes
        .iter()
        .copied()
        .find(|&s| s == (16, 16, 16))
        .or_else(|| shapes.first().copied())
}
