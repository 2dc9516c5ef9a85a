//! A cooperative matrix type the device does not list is refused when the
//! pipeline is made, with the type and the device's list, before Vulkan
//! sees it (`VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163`), though
//! no multiply-add uses it (those are checked by their shape as well:
//! `coopmat_gemm.rs` runs one); a listed type is made and run; and words
//! whose matrix type or multiply-add the reflection does not list are
//! refused.
//!
//! Ignored where the device has no `VK_KHR_cooperative_matrix`;
//! `.ci/lavapipe-coopmat` runs it on Mesa 26's lavapipe.

use half::f16;
use ncnn_glsl_core::{compile, CompileOptions};
use std::sync::Arc;

use ncnn_glsl_runtime::reflection::Reflection;
use ncnn_glsl_runtime::{
    Blob, Buffer, Context, ContextOptions, Dispatch, Pipeline, PipelineOptions, SpecValue, Variant,
    VariantSet,
};
use ncnn_glsl_testkit::coopmat::{device_shape, gemm_set, leak_built, GEMM};
use ncnn_glsl_testkit::differential::{finished, glslang_result, leak_blob, leak_set, target_of};
use ncnn_glsl_testkit::gpu::GpuTest;

/// A copy through an R x C matrix of `float` elements used as A: no
/// multiply-add.
const COPY_A: &str = "#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout (constant_id = 0) const uint R = 16;
layout (constant_id = 1) const uint C = 16;
layout (local_size_x_id = 233) in;
layout (binding = 0) readonly buffer a_blob { float a_data[]; };
layout (binding = 1) writeonly buffer o_blob { float o_data[]; };
void main()
{
    coopmat<float, gl_ScopeSubgroup, R, C, gl_MatrixUseA> a;
    coopMatLoad(a, a_data, 0, C, gl_CooperativeMatrixLayoutRowMajor);
    coopMatStore(a, o_data, 0, C, gl_CooperativeMatrixLayoutRowMajor);
}
";

/// The same with `float16_t` elements, which the device lists as A.
fn copy_a16() -> String {
    COPY_A.replace("float", "float16_t").replace(
        "#extension GL_KHR_memory_scope_semantics : require",
        "#extension GL_KHR_memory_scope_semantics : require\n\
         #extension GL_EXT_shader_explicit_arithmetic_types_float16 : require",
    )
}

/// [`copy_a16`] with its sizes computed from the specialization constants:
/// `R * 2` rows, `C * 2` columns.
fn copy_a16_computed() -> String {
    copy_a16()
        .replace(
            "layout (local_size_x_id",
            "const uint R2 = R * 2;\nconst uint C2 = C * 2;\nlayout (local_size_x_id",
        )
        .replace("R, C, gl_MatrixUseA", "R2, C2, gl_MatrixUseA")
        .replace(", 0, C, gl_", ", 0, C2, gl_")
}

/// [`copy_a16`] through a matrix of the shader (a private global).
fn copy_a16_global() -> String {
    let decl = "    coopmat<float16_t, gl_ScopeSubgroup, R, C, gl_MatrixUseA> a;\n";
    let text = copy_a16();
    assert!(text.contains(decl));
    text.replace(decl, "")
        .replace("void main()", &format!("{}void main()", decl.trim_start()))
}

/// A pipeline of one subgroup (`local_size_x_id`) with `spec`.
fn one_subgroup(sg: u32, spec: &[(u32, SpecValue)]) -> PipelineOptions<'_> {
    PipelineOptions {
        local_size: Some([sg, 1, 1]),
        specialization: spec,
    }
}

/// Makes `blob`'s copy with `options` and runs it on `n` halves: every
/// element copied, none past them written.
fn copies(ctx: &Arc<Context>, blob: &'static Blob, options: &PipelineOptions, n: u32) {
    let p = Pipeline::new(ctx, "copy", blob, options).unwrap_or_else(|e| panic!("{e}"));
    let input: Vec<u8> = (0..n)
        .flat_map(|i| f16::from_f32(i as f32 - 7.5).to_le_bytes())
        .collect();
    let mut a = Buffer::new(ctx, input.len() as u64).unwrap();
    a.write(&input).unwrap();
    let mut o = Buffer::new(ctx, input.len() as u64 + 64).unwrap();
    o.write(&vec![0xa5; input.len() + 64]).unwrap();
    p.dispatch(&Dispatch::new(&[&a, &o], &[], [1, 1, 1]))
        .unwrap();
    let mut out = vec![0u8; input.len() + 64];
    o.read(&mut out).unwrap();
    assert_eq!(out[..input.len()], input[..], "the copy of {n} halves");
    assert!(
        out[input.len()..].iter().all(|&b| b == 0xa5),
        "written past the copy"
    );
}

/// A blob of `text` in `mode`, and a variant set that enables its features.
fn blob_of(text: &str, mode: &str) -> (&'static Blob, &'static VariantSet) {
    let e = finished(text, mode);
    // The texts are GLSL as glslang reads it (the runs put a glslang that
    // knows the extension on PATH).
    if let Some(Err(log)) = glslang_result(e.text()) {
        panic!("glslang refuses the text:\n{log}");
    }
    let c = compile(&e, &CompileOptions::default()).unwrap_or_else(|d| panic!("{d}"));
    // SAFETY: the copy reads and writes R x R elements from element 0, and
    // the buffers the test gives it hold them.
    let blob = unsafe { leak_blob(c.spirv, c.reflection) };
    let variants: &'static [Variant] = Box::leak(Box::new([Variant {
        target: target_of(mode),
        axes: &[],
        blob,
    }]));
    (blob, leak_set(variants))
}

/// The error of a pipeline of `blob`'s words with its reflection changed by
/// `lie`: it must be refused.
fn refused(
    ctx: &Arc<Context>,
    blob: &Blob,
    options: &PipelineOptions,
    lie: impl FnOnce(&mut Reflection),
) -> String {
    let mut r = blob.reflection().clone();
    lie(&mut r);
    // SAFETY: not the caller's promise (the reflection omits what the
    // words have, which is what the runtime must catch); the pipeline is
    // refused before any Vulkan call, so nothing runs.
    let lying = unsafe { leak_blob(blob.spirv().to_vec(), r) };
    match Pipeline::new(ctx, "lying", lying, options) {
        Ok(_) => panic!("a reflection that omits what the words have was let through"),
        Err(e) => e.to_string(),
    }
}

#[test]
#[ignore = "needs VK_KHR_cooperative_matrix: .ci/lavapipe-coopmat runs it on Mesa 26's lavapipe"]
fn an_unlisted_matrix_type_is_refused_before_vulkan_sees_it() {
    let (blob, set) = blob_of(COPY_A, "fp32");
    let (blob16, set16) = blob_of(&copy_a16(), "fp16s");
    GpuTest::new(ContextOptions {
        variant_sets: vec![set, set16],
        ..ContextOptions::default()
    })
    .feature("cooperativeMatrix")
    .blobs([blob, blob16])
    .run(|gpu| {
        let ctx = gpu.ctx();
        let sg = ctx.caps().property("subgroupSize").unwrap_or(32) as u32;
        for r in [8u32, 16] {
            let spec = [(0, SpecValue::Uint(r)), (1, SpecValue::Uint(r))];
            let options = one_subgroup(sg, &spec);
            let e = Pipeline::new(ctx, "copy_a", blob, &options)
                .err()
                .unwrap_or_else(|| panic!("a {r}x{r} f32 A matrix was let through"));
            let e = e.to_string();
            assert!(e.contains(&format!("{r}x{r} f32 A")), "{e}");
            assert!(e.contains("the device lists"), "{e}");
            println!("{r}x{r}: {e}");
        }
        // The listed type at the device's M x K, run: every element copied.
        let (m, _, k) = device_shape(ctx.caps()).expect("an fp16 shape");
        let spec = [(0, SpecValue::Uint(m)), (1, SpecValue::Uint(k))];
        let options = one_subgroup(sg, &spec);
        copies(ctx, blob16, &options, m * k);
        println!("{m}x{k} f16 A: made and run, every element copied");
        // The same words with a reflection that lists no matrix type: what
        // a blob says of itself must be what its words do, or nothing is
        // made.
        let e = refused(ctx, blob16, &options, |r| {
            r.cooperative_matrix_types = Vec::new().into();
        });
        assert!(
            e.contains("matrix type") && e.contains("does not list"),
            "{e}"
        );
        println!("reflection without its type: {e}");
    });
}

#[test]
#[ignore = "needs VK_KHR_cooperative_matrix: .ci/lavapipe-coopmat runs it on Mesa 26's lavapipe"]
fn a_reflection_without_its_multiply_add_is_refused() {
    let built = gemm_set();
    let set = leak_built(&built, GEMM);
    GpuTest::new(ContextOptions {
        variant_sets: vec![set],
        ..ContextOptions::default()
    })
    .feature("cooperativeMatrix")
    .run(|gpu| {
        let ctx = gpu.ctx();
        let (m, n, k) = device_shape(ctx.caps()).expect("an fp16 shape");
        let sg = ctx.caps().property("subgroupSize").unwrap_or(32) as u32;
        let blob = set
            .variants()
            .iter()
            .map(|v| v.blob)
            .find(|b| !b.reflection().cooperative_matrices.is_empty())
            .expect("a matrix variant");
        let spec = [
            (18, SpecValue::Uint(m)),
            (19, SpecValue::Uint(n)),
            (20, SpecValue::Uint(k)),
        ];
        let options = one_subgroup(sg, &spec);
        let e = refused(ctx, blob, &options, |r| {
            r.cooperative_matrices = Vec::new().into();
        });
        assert!(
            e.contains("multiply-add") && e.contains("does not list"),
            "{e}"
        );
        println!("reflection without its multiply-add: {e}");
    });
}

/// Runs `body` on a device with cooperative matrices, given the context,
/// the pipeline options of R x C (`constant_id` 0 and 1) with one subgroup,
/// and the device's fp16 M and K.
fn on_device(
    set: &'static VariantSet,
    blob: &'static Blob,
    body: impl FnOnce(&Arc<Context>, &dyn Fn(u32, u32) -> Vec<(u32, SpecValue)>, u32, (u32, u32)),
) {
    GpuTest::new(ContextOptions {
        variant_sets: vec![set],
        ..ContextOptions::default()
    })
    .feature("cooperativeMatrix")
    .blobs([blob])
    .run(|gpu| {
        let ctx = gpu.ctx();
        let sg = ctx.caps().property("subgroupSize").unwrap_or(32) as u32;
        let (m, _, k) = device_shape(ctx.caps()).expect("an fp16 shape");
        let at = |r: u32, c: u32| vec![(0, SpecValue::Uint(r)), (1, SpecValue::Uint(c))];
        body(ctx, &at, sg, (m, k));
    });
}

#[test]
#[ignore = "needs VK_KHR_cooperative_matrix: .ci/lavapipe-coopmat runs it on Mesa 26's lavapipe"]
fn a_computed_size_is_checked_at_its_value() {
    let (blob, set) = blob_of(&copy_a16_computed(), "fp16s");
    on_device(set, blob, |ctx, at, sg, (m, k)| {
        // Half the device's M x K: the words compute the listed M x K.
        let spec = at(m / 2, k / 2);
        let options = one_subgroup(sg, &spec);
        copies(ctx, blob, &options, m * k);
        println!(
            "R * 2 x C * 2 at R = {}, C = {}: {m}x{k}, made and run",
            m / 2,
            k / 2
        );
        // The device's M x K: twice that, which no row lists.
        let spec = at(m, k);
        let options = one_subgroup(sg, &spec);
        let e = Pipeline::new(ctx, "copy", blob, &options)
            .err()
            .unwrap_or_else(|| panic!("a {}x{} f16 A was let through", 2 * m, 2 * k))
            .to_string();
        assert!(e.contains(&format!("{}x{} f16 A", 2 * m, 2 * k)), "{e}");
        println!("at R = {m}, C = {k}: {e}");
    });
}

#[test]
#[ignore = "needs VK_KHR_cooperative_matrix: .ci/lavapipe-coopmat runs it on Mesa 26's lavapipe"]
fn a_private_global_matrix_runs() {
    let (blob, set) = blob_of(&copy_a16_global(), "fp16s");
    on_device(set, blob, |ctx, at, sg, (m, k)| {
        let spec = at(m, k);
        let options = one_subgroup(sg, &spec);
        copies(ctx, blob, &options, m * k);
        println!("{m}x{k} f16 A of the shader (private): made and run, every element copied");
    });
}
