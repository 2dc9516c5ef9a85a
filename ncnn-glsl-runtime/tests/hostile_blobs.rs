//! Blobs the runtime refuses before any Vulkan call (issue 18): more
//! descriptors or sets than the device allows, more shared memory than it
//! has, a reflection that disagrees with its SPIR-V. Each was a crash in
//! lavapipe or undefined behaviour; each is a typed error naming the value
//! and the limit, under the validation layer (any message fails the test).
//! And what must keep working: sets with gaps share one empty layout, and
//! robust buffer access is a context option.

use ncnn_glsl_core::{compile, CompileOptions};
use ncnn_glsl_runtime::reflection::Reflection;
use ncnn_glsl_runtime::{Blob, Buffer, ContextOptions, Dispatch, Error, Pipeline, PipelineOptions};
use ncnn_glsl_testkit::differential::{assert_valid, finished, leak_blob};
use ncnn_glsl_testkit::gpu::GpuTest;

/// Our blob of `source` in fp32 (spirv-val checked).
fn blob(source: &str) -> &'static Blob {
    let c = compile(&finished(source, "fp32"), &CompileOptions::default())
        .unwrap_or_else(|d| panic!("our compile failed:\n{d}"));
    assert_valid(&c.spirv);
    // SAFETY: our compiler's words and reflection.
    unsafe { leak_blob(c.spirv, c.reflection) }
}

/// A shader with one storage buffer per `(set, binding)`, each written.
fn buffers(bindings: &[(u32, u32)]) -> String {
    let mut s = String::from("#version 450\nlayout (local_size_x = 1) in;\n");
    for (i, (set, b)) in bindings.iter().enumerate() {
        s += &format!("layout (set = {set}, binding = {b}) buffer b{i} {{ uint d{i}[]; }};\n");
    }
    s += "void main()\n{\n";
    for i in 0..bindings.len() {
        s += &format!("    d{i}[0] = {}u;\n", i + 1);
    }
    s + "}\n"
}

fn refused(ctx: &std::sync::Arc<ncnn_glsl_runtime::Context>, b: &Blob) -> String {
    match Pipeline::new(ctx, "hostile", b, &PipelineOptions::default()) {
        Ok(_) => panic!("a pipeline of a blob the device cannot run was made"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn blobs_past_the_devices_limits_are_errors_before_any_vulkan_call() {
    GpuTest::new(ContextOptions::default()).run(|gpu| {
        let ctx = gpu.ctx();
        let l = *ctx.limits();
        // One storage buffer more than a stage may have (lavapipe crashed at
        // dispatch on 40 in one set).
        let n = l.max_per_stage_descriptor_storage_buffers.min(200) + 1;
        if n <= 200 {
            let many: Vec<(u32, u32)> = (0..n).map(|b| (0, b)).collect();
            let e = refused(ctx, blob(&buffers(&many)));
            assert!(
                e.contains(&format!("storage buffers of hostile = {n}"))
                    && e.contains("maxPerStageDescriptorStorageBuffers is"),
                "{e}"
            );
        }
        // A set past maxBoundDescriptorSets, and set 100000 (which made one
        // set layout per index up to it, and crashed the driver).
        for set in [l.max_bound_descriptor_sets, 100_000] {
            let e = refused(ctx, blob(&buffers(&[(set, 0)])));
            assert!(
                e.contains(&format!("descriptor set of binding `b0` of hostile = {set}"))
                    && e.contains(&format!(
                        "maxBoundDescriptorSets is {}",
                        l.max_bound_descriptor_sets
                    )),
                "{e}"
            );
        }
        // Shared memory one word past the device's.
        let words = l.max_compute_shared_memory_size / 4 + 1;
        let shared = format!(
            "#version 450\nlayout (local_size_x = 1) in;\n\
             layout (binding = 0) buffer o {{ uint d[]; }};\nshared uint t[{words}];\n\
             void main()\n{{\n    t[gl_LocalInvocationIndex] = 1u;\n    barrier();\n    d[0] = t[0];\n}}\n"
        );
        let e = refused(ctx, blob(&shared));
        assert!(
            e.contains(&format!("shared memory of hostile = {}", words * 4))
                && e.contains("maxComputeSharedMemorySize is"),
            "{e}"
        );
    });
}

#[test]
fn a_reflection_that_disagrees_with_its_spirv_is_refused() {
    let two = blob(&buffers(&[(0, 0), (0, 1)]));
    let push = blob(
        "#version 450\nlayout (local_size_x = 1) in;\n\
         layout (binding = 0) buffer o { uint d[]; };\n\
         layout (push_constant) uniform p { uint a; uint b; } pc;\n\
         void main()\n{\n    d[0] = pc.a + pc.b;\n}\n",
    );
    GpuTest::new(ContextOptions::default()).run(|gpu| {
        let ctx = gpu.ctx();
        // SAFETY: broken on purpose (this and every blob below): the
        // runtime's own checks must refuse each before the driver sees it.
        let with = |b: &'static Blob, r: Reflection| unsafe { Blob::new(b.spirv(), r) };
        // No bindings listed for a shader that has two.
        let e = refused(ctx, &with(two, Reflection::default()));
        assert!(
            e.contains("the SPIR-V declares binding 0.0 (StorageBuffer), which its reflection does not list"),
            "{e}"
        );
        // A binding of another kind than the words'; the same binding twice.
        let mut r = two.reflection().clone();
        let mut extra = r.bindings.to_vec();
        extra[0].kind = ncnn_glsl_runtime::reflection::BindingKind::UniformBuffer;
        r.bindings = extra.clone().into();
        let e = refused(ctx, &with(two, r.clone()));
        assert!(
            e.contains("lists binding 0.0 `") && e.contains("as UniformBuffer, the SPIR-V declares StorageBuffer"),
            "{e}"
        );
        extra[0] = two.reflection().bindings[0].clone();
        extra.push(extra[0].clone());
        r.bindings = extra.into();
        let e = refused(ctx, &with(two, r));
        assert!(e.contains("lists binding 0.0 twice"), "{e}");
        // A push-constant size of 0 (and of 4) for an 8-byte block.
        for size in [0, 4] {
            let mut r = push.reflection().clone();
            r.push_constant_size = size;
            let e = refused(ctx, &with(push, r));
            assert!(
                e.contains(&format!(
                    "push-constant block takes 8 bytes, its reflection says {size}"
                )),
                "{e}"
            );
        }
        // Not a multiple of 4.
        let mut r = push.reflection().clone();
        r.push_constant_size = 10;
        let e = refused(ctx, &with(push, r));
        assert!(e.contains("push-constant size of hostile = 10"), "{e}");
        // A minimum size smaller than the block's fixed part: a dispatch
        // would take a buffer the shader overruns.
        let fixed = blob(
            "#version 450\nlayout (local_size_x = 1) in;\n\
             layout (binding = 0) buffer o { uint head[1024]; uint d[]; };\n\
             void main()\n{\n    d[0] = head[1023];\n}\n",
        );
        let mut r = fixed.reflection().clone();
        let mut b = r.bindings.to_vec();
        b[0].min_size = 4;
        r.bindings = b.into();
        let e = refused(ctx, &with(fixed, r));
        assert!(
            e.contains("a minimum size of 4 bytes, its block's fixed part takes 4096"),
            "{e}"
        );
        // A specialization id given twice; a binding number past the cap.
        let mut r = push.reflection().clone();
        r.local_size_spec_ids = [Some(5), Some(5), None];
        let e = refused(ctx, &with(push, r));
        assert!(e.contains("gives specialization id 5 twice"), "{e}");
        let e = refused(ctx, blob(&buffers(&[(0, 5000)])));
        assert!(
            e.contains("binding number of `b0` of hostile = 5000")
                && e.contains("numbers 0 to 4095"),
            "{e}"
        );
    });
}

#[test]
fn sets_with_gaps_share_one_empty_layout_and_run() {
    let gaps = blob(&buffers(&[(0, 0), (3, 1), (5, 0)]));
    GpuTest::new(ContextOptions::default()).run(|gpu| {
        let ctx = gpu.ctx();
        if ctx.limits().max_bound_descriptor_sets < 6 {
            panic!("the device binds fewer than 6 sets; this test needs 6");
        }
        let p = Pipeline::new(ctx, "gaps", gaps, &PipelineOptions::default()).unwrap();
        let mut bufs: Vec<Buffer> = (0..3).map(|_| Buffer::new(ctx, 16).unwrap()).collect();
        for b in bufs.iter_mut() {
            b.write(&[0xa5; 16]).unwrap();
        }
        let refs: Vec<&Buffer> = bufs.iter().collect();
        p.dispatch(&Dispatch::new(&refs, &[], [1, 1, 1])).unwrap();
        for (i, b) in bufs.iter_mut().enumerate() {
            let mut got = [0u8; 16];
            b.read(&mut got).unwrap();
            let mut want = [0xa5u8; 16];
            want[..4].copy_from_slice(&(i as u32 + 1).to_le_bytes());
            assert_eq!(got, want, "buffer {i}");
        }
    });
}

#[test]
fn robust_buffer_access_is_enabled_where_asked_for() {
    let on = ContextOptions {
        robust_buffer_access: true,
        ..ContextOptions::default()
    };
    GpuTest::new(on)
        .feature("robustBufferAccess")
        .run(|gpu| assert!(gpu.ctx().enabled_caps().feature("robustBufferAccess")));
    GpuTest::new(ContextOptions::default())
        .run(|gpu| assert!(!gpu.ctx().enabled_caps().feature("robustBufferAccess")));
    // A device without it: an error naming the feature.
    let e = ncnn_glsl_runtime::Context::new(ContextOptions {
        robust_buffer_access: true,
        hide_features: vec!["robustBufferAccess".into()],
        ..ContextOptions::default()
    });
    match e {
        Err(e @ Error::FeatureMissing { .. }) => assert!(
            e.to_string().contains(
                "ContextOptions::robust_buffer_access needs the device feature `robustBufferAccess`"
            ),
            "{e}"
        ),
        Err(Error::NoLoader(_) | Error::NoDevice) if std::env::var_os("CI").is_none() => {}
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("robust buffer access on a device without it"),
    }
}

/// `words` with `OpDecorate %target SpecId spec_id` before its first
/// decoration, and the `OpConstant` `%target` turned into an `OpSpecConstant`
/// (the same operands): a specialization constant where the words had a
/// constant.
fn specialized_constant(words: &[u32], target: u32, spec_id: u32) -> Vec<u32> {
    let insts = ncnn_glsl_core::spirv::instructions(words).unwrap();
    let first_decoration = insts.iter().find(|i| i.op == 71).unwrap().at;
    let constant = insts
        .iter()
        .find(|i| i.op == 43 && i.words[2] == target)
        .unwrap()
        .at;
    let mut out = words.to_vec();
    out[constant] = (out[constant] & 0xffff_0000) | 50;
    out.splice(
        first_decoration..first_decoration,
        [(4 << 16) | 71, target, 1, spec_id],
    );
    out
}

/// `words` (with one 32-bit specialization constant, id 3) where id 3 names
/// an added 64-bit `int` constant instead, and the old one is id 4.
fn a_64_bit_spec_constant(words: &[u32]) -> Vec<u32> {
    let insts = ncnn_glsl_core::spirv::instructions(words).unwrap();
    let at =
        |f: &dyn Fn(&ncnn_glsl_core::spirv::Inst) -> bool| insts.iter().find(|i| f(i)).unwrap().at;
    let capability = at(&|i| i.op == 17);
    let decoration = at(&|i| i.op == 71);
    let old_id = at(&|i| i.op == 71 && i.words[2] == 1 && i.words[3] == 3);
    let spec = at(&|i| i.op == 50);
    let mut out = words.to_vec();
    let (t, c) = (out[3], out[3] + 1);
    out[3] += 2;
    out[old_id + 3] = 4;
    // From the end, so earlier places stay where they are.
    out.splice(
        spec..spec,
        [(4 << 16) | 21, t, 64, 1, (5 << 16) | 50, t, c, 1, 0],
    );
    out.splice(decoration..decoration, [(4 << 16) | 71, c, 1, 3]);
    out.splice(capability..capability, [(2 << 16) | 17, 11]);
    out
}

#[test]
fn a_blob_is_checked_as_the_pipeline_specializes_it() {
    use ncnn_glsl_runtime::reflection::SpecConstant;
    use ncnn_glsl_runtime::SpecValue;
    // A shared array whose length the pipeline sets: measured at the value
    // set, not at the default.
    let shared = blob(
        "#version 450\nlayout (local_size_x = 1) in;\n\
         layout (binding = 0) buffer o { uint d[]; };\nshared uint t[777];\n\
         void main()\n{\n    t[gl_LocalInvocationIndex] = 1u;\n    barrier();\n    d[0] = t[0];\n}\n",
    );
    let insts = ncnn_glsl_core::spirv::instructions(shared.spirv()).unwrap();
    let length = insts
        .iter()
        .find(|i| i.op == 43 && i.words.get(3) == Some(&777))
        .map(|i| i.words[2])
        .unwrap();
    let spirv: &'static [u32] = Box::leak(specialized_constant(shared.spirv(), length, 9).into());
    let mut r = shared.reflection().clone();
    r.spec_constants = vec![SpecConstant {
        id: 9,
        name: "n".into(),
        ty: "uint".into(),
        default: Some(ncnn_glsl_runtime::reflection::ScalarValue::Uint(777)),
    }]
    .into();
    // SAFETY: valid words that `r` describes; its accesses, `t[0]` (local size
    // 1) and `d[0]`, stay in bounds at any array length.
    let sized = unsafe { Blob::new(spirv, r) };
    // A WorkgroupSize constant of 1 where the reflection says 64.
    let ws = blob(
        "#version 450\nlayout (local_size_x = 1) in;\n\
         layout (binding = 0) buffer o { uint d[]; };\n\
         void main()\n{\n    d[0] = gl_WorkGroupSize.x;\n}\n",
    );
    let mut r = ws.reflection().clone();
    r.local_size = [64, 1, 1];
    // Our compile writes gl_WorkGroupSize as a plain composite; decorated
    // BuiltIn WorkgroupSize, it overrides LocalSize, as glslang's does.
    let insts = ncnn_glsl_core::spirv::instructions(ws.spirv()).unwrap();
    let composite = insts
        .iter()
        .find(|i| i.op == 44 && i.words.len() == 6)
        .unwrap();
    let decoration = insts.iter().find(|i| i.op == 71).unwrap().at;
    let mut decorated = ws.spirv().to_vec();
    decorated.splice(
        decoration..decoration,
        [(4 << 16) | 71, composite.words[2], 11, 25],
    );
    // SAFETY: broken on purpose: the runtime must refuse it before the driver sees it.
    let wide = unsafe { Blob::new(Box::leak(decorated.into()), r) };
    // A constant the words declare `int` (and one `double`) that the
    // reflection calls `float`.
    let typed = |ty: &str, value: &str| {
        blob(&format!(
            "#version 450\nlayout (local_size_x = 1) in;\nlayout (constant_id = 3) const {ty} k = {value};\n\
             layout (binding = 0) buffer o {{ float d[]; }};\n\
             void main()\n{{\n    d[0] = float(k);\n}}\n"
        ))
    };
    let as_float = |b: &'static Blob| {
        let mut r = b.reflection().clone();
        let mut c = r.spec_constants.to_vec();
        c[0].ty = "float".into();
        r.spec_constants = c.into();
        // SAFETY: broken on purpose: the runtime must refuse it before the driver sees it.
        unsafe { Blob::new(b.spirv(), r) }
    };
    let int = as_float(typed("int", "1"));
    let plain = typed("int", "1");
    // SAFETY: broken on purpose: the runtime must refuse it before the driver sees it.
    let wide_spec = unsafe {
        Blob::new(
            Box::leak(a_64_bit_spec_constant(plain.spirv()).into()),
            plain.reflection().clone(),
        )
    };
    GpuTest::new(ContextOptions::default()).run(|gpu| {
        let ctx = gpu.ctx();
        let with = |spec: &'static [(u32, SpecValue)]| PipelineOptions {
            specialization: spec,
            ..PipelineOptions::default()
        };
        // At its default the patched blob runs (the layer validates it).
        Pipeline::new(ctx, "hostile", &sized, &PipelineOptions::default()).unwrap();
        let words = ctx.limits().max_compute_shared_memory_size / 4 + 1;
        let spec: &'static [(u32, SpecValue)] =
            Box::leak(vec![(9, SpecValue::Uint(words))].into_boxed_slice());
        let e = Pipeline::new(ctx, "hostile", &sized, &with(spec)).unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("shared memory of hostile (of which a `shared` array sized by specialization constants")
                && e.contains(&format!("= {words}) = {}", words * 4)),
            "{e}"
        );
        let e = refused(ctx, &wide);
        assert!(
            e.contains(
                "WorkgroupSize constant is [1, 1, 1], and the pipeline's local size [64, 1, 1]"
            ),
            "{e}"
        );
        let float = &[(3, SpecValue::Float(2.0))];
        let e = Pipeline::new(ctx, "hostile", &int, &with(float)).unwrap_err();
        assert!(
            e.to_string()
                .contains("specialization constant 3 is a `int`, set as a `float`"),
            "{e}"
        );
        let e = Pipeline::new(ctx, "hostile", &wide_spec, &with(&[(3, SpecValue::Int(2))]))
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("specialization constant 3 is 64-bit; this runtime sets 32-bit values"),
            "{e}"
        );
    });
}

/// A compressed blob whose bytes do not decompress to its word count has no
/// words (`Blob::spirv` is empty, it does not panic); the pipeline refuses
/// it as any module that is not SPIR-V, before the driver sees it.
#[test]
fn a_blob_whose_bytes_do_not_decompress_is_refused() {
    let good = blob(
        "#version 450\nlayout (local_size_x = 1) in;\n\
         layout (binding = 0) buffer o { uint d[]; };\n\
         void main()\n{\n    d[0] = 1u;\n}\n",
    );
    // SAFETY: broken on purpose: the runtime must refuse it before the driver sees it.
    let broken =
        unsafe { Blob::compressed(b"not deflate", good.spirv_len(), good.reflection().clone()) };
    assert!(broken.spirv().is_empty());
    GpuTest::new(ContextOptions::default()).run(|gpu| {
        let e = refused(gpu.ctx(), &broken);
        assert!(
            e.contains("hostile") && e.contains("0 words is shorter than a SPIR-V header"),
            "{e}"
        );
    });
}
