//! Cooperative-matrix loads and stores bounded by their whole extent: an
//! R x C matrix loaded from one buffer and stored into another, each at an
//! offset and a stride the push constants give, row- or column-major, KHR
//! and (where the device has it) NV forms, through arrays of halves and of
//! `uvec2`s (four halves each, as ncnn packs them). Every buffer sits
//! between poisoned guards. A store whose extent does not fit its buffer is
//! skipped, a load that does not fit gives zeros (`extent.rs` in the
//! compiler); the output is checked byte for byte against a CPU model of
//! that rule, on cases that fit, fit exactly at the end, miss by one
//! element, stride past the end, broadcast (stride 0) and start far out.
//! Before the rule, an 8x8 store into a 2-byte buffer wrote 64 bytes of the
//! next buffer.
//!
//! Ignored where the device has no `VK_KHR_cooperative_matrix`;
//! `.ci/lavapipe-coopmat` runs it on Mesa 26's lavapipe, `bench/nvidia.sh`
//! on the NVIDIA GPU.

use std::sync::Arc;

use half::f16;
use ncnn_glsl_core::reflection::CoopMatFlavor;
use ncnn_glsl_core::{compile, CompileOptions};
use ncnn_glsl_runtime::{
    Blob, Buffer, Context, ContextOptions, Dispatch, Pipeline, PipelineOptions, SpecValue, Variant,
    VariantSet,
};
use ncnn_glsl_testkit::coopmat::device_shape;
use ncnn_glsl_testkit::differential::{finished, glslang_result, leak_blob, leak_set, target_of};
use ncnn_glsl_testkit::gpu::GpuTest;
use ncnn_glsl_testkit::Rng;

/// Loads from `a_data` and stores into `o_data`, each at its push
/// constants' offset and stride, row-major or column-major.
const KHR: &str = "#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout (constant_id = 0) const uint R = 16;
layout (constant_id = 1) const uint C = 16;
layout (local_size_x_id = 233) in;
layout (binding = 0) readonly buffer a_blob { ELEM a_data[]; };
layout (binding = 1) writeonly buffer o_blob { ELEM o_data[]; };
layout (push_constant) uniform parameter
{
    uint load_at;
    uint load_stride;
    uint store_at;
    uint store_stride;
    uint column_major;
} p;
void main()
{
    coopmat<float16_t, gl_ScopeSubgroup, R, C, gl_MatrixUseA> a;
    if (p.column_major != 0)
    {
        coopMatLoad(a, a_data, p.load_at, p.load_stride, gl_CooperativeMatrixLayoutColumnMajor);
        coopMatStore(a, o_data, p.store_at, p.store_stride, gl_CooperativeMatrixLayoutColumnMajor);
    }
    else
    {
        coopMatLoad(a, a_data, p.load_at, p.load_stride, gl_CooperativeMatrixLayoutRowMajor);
        coopMatStore(a, o_data, p.store_at, p.store_stride, gl_CooperativeMatrixLayoutRowMajor);
    }
}
";

/// [`KHR`] in `GL_NV_cooperative_matrix`'s words.
fn nv(elem: &str) -> String {
    KHR.replace("ELEM", elem)
        .replace(
            "#extension GL_KHR_cooperative_matrix : require",
            "#extension GL_NV_cooperative_matrix : require",
        )
        .replace(
            "coopmat<float16_t, gl_ScopeSubgroup, R, C, gl_MatrixUseA>",
            "fcoopmatNV<16, gl_ScopeSubgroup, R, C>",
        )
        .replace("coopMatLoad(", "coopMatLoadNV(")
        .replace("coopMatStore(", "coopMatStoreNV(")
        .replace("gl_CooperativeMatrixLayoutColumnMajor", "true")
        .replace("gl_CooperativeMatrixLayoutRowMajor", "false")
}

/// One case: buffer lengths in elements, offsets and strides in elements.
#[derive(Clone, Copy, Debug)]
struct Case {
    column_major: bool,
    input: u32,
    load_at: u32,
    load_stride: u32,
    output: u32,
    store_at: u32,
    store_stride: u32,
}

/// The rule `extent.rs` writes: whether an R x C matrix of 2-byte values at
/// element `at` (naga clamps it to the last element first) with `stride`
/// fits an array of `len` elements of `e` bytes.
fn fits(at: u32, stride: u32, len: u32, major: u32, minor: u32, e: u32) -> bool {
    let at = at.min(len - 1);
    let need = (minor * 2).div_ceil(e);
    let room = len - at;
    need <= room && (major == 1 || stride <= (room - need) / (major - 1))
}

/// The halves of element `(r, c)` of a load, in the buffer's halves.
fn half_index(at: u32, stride: u32, r: u32, c: u32, column_major: bool, per: u32) -> usize {
    let (major, minor) = if column_major { (c, r) } else { (r, c) };
    (at * per + major * stride * per + minor) as usize
}

/// What the output holds after `case` on `input` (halves), per the rule.
fn model(case: &Case, input: &[f16], poison: f16, (r, c): (u32, u32), per: u32) -> Vec<f16> {
    let e = 2 * per;
    let (major, minor) = if case.column_major { (c, r) } else { (r, c) };
    let load_fits = fits(case.load_at, case.load_stride, case.input, major, minor, e);
    let store_fits = fits(
        case.store_at,
        case.store_stride,
        case.output,
        major,
        minor,
        e,
    );
    let (load_at, store_at) = (
        case.load_at.min(case.input - 1),
        case.store_at.min(case.output - 1),
    );
    let mut out = vec![poison; (case.output * per) as usize];
    if store_fits {
        for i in 0..r {
            for j in 0..c {
                let v = if load_fits {
                    input[half_index(load_at, case.load_stride, i, j, case.column_major, per)]
                } else {
                    f16::ZERO
                };
                out[half_index(store_at, case.store_stride, i, j, case.column_major, per)] = v;
            }
        }
    }
    out
}

/// The cases for an R x C matrix, in elements of `per` halves. Offsets and
/// strides are multiples of 16 bytes, as Vulkan asks of a load or store
/// that runs (`VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986`); the
/// ones that do not fit never run.
fn cases(r: u32, c: u32, per: u32) -> Vec<Case> {
    let row = c / per;
    let whole = r * row;
    let align = 8 / per;
    let plain = Case {
        column_major: false,
        input: whole,
        load_at: 0,
        load_stride: row,
        output: whole,
        store_at: 0,
        store_stride: row,
    };
    let col = r / per;
    let padded = |input: u32| Case {
        column_major: true,
        input,
        load_stride: col + align,
        output: c * col,
        store_stride: col,
        ..plain
    };
    let exact = (c - 1) * (col + align) + col;
    vec![
        // Fits.
        plain,
        // A store into one element: skipped (it wrote a whole matrix).
        Case { output: 1, ..plain },
        // A stride past the end: skipped.
        Case {
            store_stride: 1000,
            output: whole + 7,
            ..plain
        },
        // A load from one element: zeros stored.
        Case { input: 1, ..plain },
        // Fits exactly at the end; one element short.
        Case {
            output: whole + align,
            store_at: align,
            ..plain
        },
        Case {
            output: whole + align - 1,
            store_at: align,
            ..plain
        },
        // Column-major with a padded stride, exactly and one short.
        padded(exact),
        padded(exact - 1),
        // A broadcast: stride 0 reads one row for every row.
        Case {
            input: row,
            load_stride: 0,
            ..plain
        },
        // A start far past the end (clamped to the last element): skipped.
        Case {
            store_at: u32::MAX - 7,
            output: whole + 9,
            ..plain
        },
        // A stride that overflows 32 bits when multiplied: skipped.
        Case {
            store_stride: (u32::MAX / 2) & !7,
            output: whole + 9,
            ..plain
        },
    ]
}

/// A blob of `text` in fp16s and a set that enables its features.
fn blob_of(text: &str) -> (&'static Blob, &'static VariantSet) {
    let e = finished(text, "fp16s");
    if let Some(Err(log)) = glslang_result(e.text()) {
        panic!("glslang refuses the text:\n{log}");
    }
    let c = compile(&e, &CompileOptions::default()).unwrap_or_else(|d| panic!("{d}"));
    // SAFETY: our compiler's blob, with every access bounded (what the
    // test checks).
    let blob = unsafe { leak_blob(c.spirv, c.reflection) };
    let variants: &'static [Variant] = Box::leak(Box::new([Variant {
        target: target_of("fp16s"),
        axes: &[],
        blob,
    }]));
    (blob, leak_set(variants))
}

/// Bytes of each guard.
const GUARD: usize = 4096;
const POISON: u8 = 0xa5;

fn guard(ctx: &Arc<Context>) -> Buffer {
    let mut g = Buffer::new(ctx, GUARD as u64).unwrap();
    g.write(&[POISON; GUARD]).unwrap();
    g
}

fn read(b: &mut Buffer) -> Vec<u8> {
    let mut out = vec![0u8; b.size() as usize];
    b.read(&mut out).unwrap();
    out
}

/// Runs every case of `text` (elements of `per` halves) at R x C.
fn run_cases(ctx: &Arc<Context>, blob: &'static Blob, (r, c): (u32, u32), per: u32, what: &str) {
    let sg = ctx.caps().property("subgroupSize").unwrap_or(32) as u32;
    let spec = [(0, SpecValue::Uint(r)), (1, SpecValue::Uint(c))];
    let options = PipelineOptions {
        local_size: Some([sg, 1, 1]),
        specialization: &spec,
    };
    let p = Pipeline::new(ctx, what, blob, &options).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut rng = Rng::fresh();
    let seed = rng.seed();
    let poison = f16::from_bits(u16::from_le_bytes([POISON; 2]));
    for case in cases(r, c, per) {
        let halves = |n: u32| (n * per) as usize;
        let input: Vec<f16> = (0..halves(case.input))
            .map(|_| f16::from_f32(rng.f32(-8.0, 8.0)))
            .collect();
        let bytes: Vec<u8> = input.iter().flat_map(|h| h.to_le_bytes()).collect();
        // Guards around and between, allocated in order.
        let g0 = guard(ctx);
        let mut a = Buffer::new(ctx, bytes.len() as u64).unwrap();
        let g1 = guard(ctx);
        let mut o = Buffer::new(ctx, 2 * halves(case.output) as u64).unwrap();
        let g2 = guard(ctx);
        a.write(&bytes).unwrap();
        o.write(&vec![POISON; 2 * halves(case.output)]).unwrap();
        let push: Vec<u8> = [
            case.load_at,
            case.load_stride,
            case.store_at,
            case.store_stride,
            u32::from(case.column_major),
        ]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
        p.dispatch(&Dispatch::new(&[&a, &o], &push, [1, 1, 1]))
            .unwrap_or_else(|e| panic!("{what} {case:?}: {e}"));
        let want: Vec<u8> = model(&case, &input, poison, (r, c), per)
            .iter()
            .flat_map(|h| h.to_le_bytes())
            .collect();
        let got = read(&mut o);
        if let Some(at) = (0..got.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "{what} {case:?} (seed {seed:#x}): output byte {at} is {:#04x}, the rule gives {:#04x}",
                got[at], want[at]
            );
        }
        assert_eq!(read(&mut a), bytes, "{what} {case:?}: the input changed");
        for (k, mut g) in [g0, g1, g2].into_iter().enumerate() {
            assert!(
                read(&mut g).iter().all(|&b| b == POISON),
                "{what} {case:?} (seed {seed:#x}): guard {k} written"
            );
        }
        println!("{what} {case:?}: as the rule says");
    }
}

#[test]
#[ignore = "needs VK_KHR_cooperative_matrix: .ci/lavapipe-coopmat runs it on Mesa 26's lavapipe"]
fn khr_loads_and_stores_stay_inside_their_buffers() {
    let (halves, halves_set) = blob_of(&KHR.replace("ELEM", "float16_t"));
    let (packed, packed_set) = blob_of(&KHR.replace("ELEM", "uvec2"));
    GpuTest::new(ContextOptions {
        variant_sets: vec![halves_set, packed_set],
        ..ContextOptions::default()
    })
    .feature("cooperativeMatrix")
    .blobs([halves, packed])
    .run(|gpu| {
        let ctx = gpu.ctx();
        let (m, _, k) = device_shape(ctx.caps()).expect("an fp16 shape");
        run_cases(ctx, halves, (m, k), 1, "KHR, halves");
        run_cases(ctx, packed, (m, k), 4, "KHR, uvec2s");
    });
}

#[test]
#[ignore = "needs VK_NV_cooperative_matrix: bench/nvidia.sh runs it on the NVIDIA GPU"]
fn nv_loads_and_stores_stay_inside_their_buffers() {
    let (halves, halves_set) = blob_of(&nv("float16_t"));
    let (packed, packed_set) = blob_of(&nv("uvec2"));
    GpuTest::new(ContextOptions {
        variant_sets: vec![halves_set, packed_set],
        ..ContextOptions::default()
    })
    .extension("VK_NV_cooperative_matrix")
    .blobs([halves, packed])
    .run(|gpu| {
        let ctx = gpu.ctx();
        let shape = ctx
            .caps()
            .cooperative_matrix_shapes
            .iter()
            .find(|s| s.flavor == CoopMatFlavor::Nv && s.scope == 3 && s.a_type == 0)
            .map(|s| (s.m, s.k))
            .expect("an NV fp16 shape");
        run_cases(ctx, halves, shape, 1, "NV, halves");
        run_cases(ctx, packed, shape, 4, "NV, uvec2s");
    });
}
