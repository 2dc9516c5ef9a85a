//! The runtime on a real device (lavapipe in CI) under the validation layer
//! with synchronization validation: the seed example in every mode, both
//! transfer paths, threads, grids in pieces, the pipeline cache, and every
//! error the runtime can report.

use std::sync::Arc;

use half::f16;
use ncnn_glsl_runtime::reflection::Reflection;
use ncnn_glsl_runtime::{
    include_ncnn_shader, Blob, Buffer, ContextOptions, DeviceSelector, Dispatch, Error,
    FloatStorage, Options, Pipeline, PipelineOptions, Sequence, Transfer, VariantSet,
};
use ncnn_glsl_testkit::gpu::{enabled_and_wanted, GpuTest};
use ncnn_glsl_testkit::Rng;

static SEED: &VariantSet = include_ncnn_shader!("../tests/shaders/seed_example.comp");
static SCALE: &VariantSet = include_ncnn_shader!("../tests/shaders/scale.comp");

fn opts() -> ContextOptions {
    ContextOptions {
        variant_sets: vec![SEED, SCALE],
        ..ContextOptions::default()
    }
}

/// One ulp of fp16 at `v`'s magnitude.
fn f16_ulp(v: f32) -> f32 {
    let h = f16::from_f32(v.abs());
    let next = f16::from_bits(h.to_bits() + 1);
    next.to_f32() - h.to_f32()
}

/// Checks one output element against the CPU's `a + 123`.
fn check(s: FloatStorage, a: f32, got: f32) -> Result<(), String> {
    let exact = a + 123.0;
    let ok = match s {
        FloatStorage::F32 | FloatStorage::Bf16 => got.to_bits() == s.round(exact).to_bits(),
        FloatStorage::F16 => (got - f16::from_f32(exact).to_f32()).abs() <= f16_ulp(exact),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{a} + 123 gave {got}"))
    }
}

/// Runs the seed's variant for `wanted` over `n` vec4s (rounded up to whole
/// workgroups) on fresh random data; returns the chosen mode. The pipeline
/// is made as the seed writes it: `pipeline.set_local_size_xyz(64, 1, 1)`
/// for a shader that declares no local size.
fn run_seed(ctx: &Arc<ncnn_glsl_runtime::Context>, wanted: Options, n: u32) -> String {
    let choice = ctx.select(SEED, wanted, &[]).unwrap();
    let mode = choice.chosen.options;
    let s = FloatStorage::of(mode);
    let options = PipelineOptions {
        local_size: Some([64, 1, 1]),
        ..Default::default()
    };
    let p = Pipeline::for_variant(ctx, SEED, choice.variant, &options).unwrap();
    assert_eq!(p.local_size(), [64, 1, 1]);
    let groups = n.div_ceil(64);
    let n = groups * 64;
    let mut rng = Rng::fresh();
    let seed = rng.seed();
    let count = n as usize * 4;
    // Inputs representable in the storage format, so the CPU sees what the GPU loads.
    let input: Vec<f32> = (0..count)
        .map(|_| {
            let v = rng.f32(-1000.0, 1000.0);
            s.round(v)
        })
        .collect();
    let bytes = s.buffer_bytes(count);
    let mut a = Buffer::new(ctx, bytes as u64).unwrap();
    let mut b = Buffer::new(ctx, bytes as u64).unwrap();
    a.write(&s.encode(&input)).unwrap();
    b.write(&vec![0xff; bytes]).unwrap(); // poison: NaN in every format
    let stats = p
        .dispatch(&Dispatch::new(&[&a, &b], &[], [groups, 1, 1]))
        .unwrap();
    let mut out = vec![0u8; bytes];
    b.read(&mut out).unwrap();
    let got = s.decode(&out, count).unwrap();
    for (i, (x, y)) in input.iter().zip(&got).enumerate() {
        if let Err(e) = check(s, *x, *y) {
            panic!("mode {mode}, element {i}: {e} (seed {seed:#x})");
        }
    }
    if ctx.limits().timestamp_period > 0.0 {
        assert!(stats.gpu_ns.is_some());
    }
    mode.to_string()
}

/// Every mode the set holds that this device can be made to choose, by
/// asking for exactly that mode.
fn every_mode(force_staging: bool) {
    GpuTest::new(ContextOptions {
        force_staging,
        ..opts()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let b = Buffer::new(ctx, 16).unwrap();
        if force_staging {
            assert_eq!(b.transfer(), Transfer::Staging);
        } else if ctx.caps().device_type == ncnn_glsl_runtime::DeviceType::Cpu {
            // lavapipe's only memory type is device-local and host-visible.
            assert_eq!(b.transfer(), Transfer::Direct);
        }
        drop(b);
        let mut modes: Vec<Options> = SEED.variants().iter().map(|v| v.target.options).collect();
        modes.dedup();
        let mut ran = Vec::new();
        for wanted in modes {
            let choice = ctx.select(SEED, wanted, &[]).unwrap();
            if choice.chosen.options != wanted {
                // The device cannot run it (lavapipe has no bfloat16); the
                // choice must then be a fallback the device supports.
                continue;
            }
            assert_eq!(run_seed(ctx, wanted, 257), wanted.to_string());
            ran.push(wanted.to_string());
        }
        for m in [
            "fp32",
            "fp16p",
            "fp16p+fp16a",
            "fp16s",
            "fp16s+fp16a",
            "fp16s+fp16a+fp16u",
            "bf16p",
        ] {
            assert!(ran.iter().any(|r| r == m), "{m} did not run: {ran:?}");
        }
    });
}

#[test]
fn seed_runs_in_every_mode_direct() {
    every_mode(false);
}

#[test]
fn seed_runs_in_every_mode_staged() {
    every_mode(true);
}

#[test]
fn ncnn_defaults_choose_fp16_storage_arithmetic_and_uniform_on_lavapipe() {
    GpuTest::new(opts()).run(|gpu| {
        let ctx = gpu.ctx();
        let c = ctx.select(SEED, Options::NCNN_DEFAULT, &[]).unwrap();
        assert_eq!(c.chosen.options.to_string(), "fp16s+fp16a+fp16u");
        assert_eq!(
            run_seed(ctx, Options::NCNN_DEFAULT, 100),
            "fp16s+fp16a+fp16u"
        );
    });
}

// Known gap of the layer here (1.3.239), measured: its synchronization
// validation is on (a dispatch followed by a copy of its output in one
// command buffer without a barrier is reported, naga's SPIR-V included), but
// it does not track hazards across submissions, nor between two dispatches.
// The runtime records each transfer and each dispatch in its own submission,
// so the barriers this test drops are invisible to it; it should pass with a
// layer that validates at queue submit (`--include-ignored`). That the
// harness collects and fails on messages, synchronization hazards included,
// is shown by `the_harness_catches_a_validation_error` and
// `synchronization_validation_is_on`.
#[test]
#[ignore = "layer 1.3.239 does not track hazards across submissions"]
fn the_harness_catches_a_missing_barrier() {
    GpuTest::new(ContextOptions {
        force_staging: true,
        ..opts()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let v = ctx.select(SEED, Options::FP32, &[]).unwrap().variant;
        let p = Pipeline::for_variant(ctx, SEED, v, &PipelineOptions::default()).unwrap();
        let mut a = Buffer::new(ctx, 64 * 16).unwrap();
        let b = Buffer::new(ctx, 64 * 16).unwrap();
        // SAFETY: the race is what the test is for; its results are not read.
        unsafe { ctx.omit_barriers_for_test(true) };
        // The staged copy into `a`, then the dispatch reading it: no barrier.
        a.write(&[0; 64 * 16]).unwrap();
        p.dispatch(&Dispatch::new(&[&a, &b], &[], [64, 1, 1]))
            .unwrap();
        // SAFETY: turning the barriers back on promises nothing.
        unsafe { ctx.omit_barriers_for_test(false) };
        drop((p, a, b));
        let msgs = gpu.take_messages();
        assert!(
            msgs.iter().any(|m| m.id.contains("SYNC-HAZARD")),
            "no hazard reported: {:?}",
            msgs.iter().map(|m| &m.id).collect::<Vec<_>>()
        );
    });
}

/// A grid at the device's limit run as `vkCmdDispatchBase` pieces writes
/// every element (the pieces' exact cover is checked in `dispatch`'s unit
/// test); a grid past the limit is an error naming value and limit, since
/// `vkCmdDispatchBase` cannot go past it either (see `dispatch`'s docs).
#[test]
fn grid_in_pieces_covers_every_element_and_past_the_limit_is_refused() {
    GpuTest::new(opts()).run(|gpu| {
        let ctx = gpu.ctx();
        let max = ctx.limits().max_compute_work_group_count[0];
        let n = max.min(1 << 20); // 65535 on lavapipe
        let choice = ctx.select(SEED, Options::FP32, &[]).unwrap();
        let p =
            Pipeline::for_variant(ctx, SEED, choice.variant, &PipelineOptions::default()).unwrap();
        let count = n as usize * 4;
        let input: Vec<f32> = (0..count).map(|i| i as f32).collect();
        let mut a = Buffer::new(ctx, count as u64 * 4).unwrap();
        let mut b = Buffer::new(ctx, count as u64 * 4).unwrap();
        a.write(&FloatStorage::F32.encode(&input)).unwrap();
        b.write(&vec![0xff; count * 4]).unwrap();
        let stats = p
            .dispatch(&Dispatch {
                max_piece: Some([10_000, 1, 1]),
                ..Dispatch::new(&[&a, &b], &[], [n, 1, 1])
            })
            .unwrap();
        assert_eq!(stats.pieces, n.div_ceil(10_000));
        let mut out = vec![0u8; count * 4];
        b.read(&mut out).unwrap();
        for (i, v) in FloatStorage::F32
            .decode(&out, count)
            .unwrap()
            .iter()
            .enumerate()
        {
            assert_eq!(*v, i as f32 + 123.0, "element {i}");
        }
        // Past the limit: refused, naming the value and the limit.
        if let Some(over) = max.checked_add(1) {
            let bufs = [&a, &b];
            let e = p
                .dispatch(&Dispatch::new(&bufs, &[], [over, 1, 1]))
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("workgroups on axis x = {over}")), "{e}");
            assert!(
                e.contains(&format!("maxComputeWorkGroupCount[0] is {max}")),
                "{e}"
            );
        }
        let e = p
            .dispatch(&Dispatch {
                max_piece: Some([0, 1, 1]),
                ..Dispatch::new(&[&a, &b], &[], [1, 1, 1])
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("max_piece[0] = 0"), "{e}");
        // Too many pieces: refused before any is listed (1 x 1 x 1 pieces
        // of a 65535 x 2 grid would be 131070 commands and barriers).
        b.write(&vec![0xff; count * 4]).unwrap();
        let e = p
            .dispatch(&Dispatch {
                max_piece: Some([1, 1, 1]),
                ..Dispatch::new(&[&a, &b], &[], [n, 2, 1])
            })
            .unwrap_err()
            .to_string();
        let want = format!("vkCmdDispatchBase pieces of the grid = {}", 2 * n as u64);
        assert!(e.contains(&want) && e.contains("at most 65536"), "{e}");
        b.read(&mut out).unwrap();
        assert!(out.iter().all(|&x| x == 0xff), "a refused dispatch wrote");
        drop((p, a, b));
    });
}

/// Steps of one submission each read what the step before wrote (a
/// dispatch, a copy, a dispatch): the results are exact, each step has its
/// own time, and the layer reports nothing; without the sequence's
/// barriers it reports the hazard, so their presence is what the clean run
/// shows. A bad step is refused when added and leaves the sequence as it was.
#[test]
fn a_sequence_orders_its_steps_and_times_each() {
    GpuTest::new(opts()).run(|gpu| {
        let ctx = gpu.ctx();
        let v = ctx.select(SEED, Options::FP32, &[]).unwrap().variant;
        let p = Pipeline::for_variant(ctx, SEED, v, &PipelineOptions::default()).unwrap();
        let mut rng = Rng::fresh();
        let seed = rng.seed();
        let n = 4096u32;
        let bytes = n as u64 * 16;
        let input: Vec<f32> = (0..n * 4).map(|_| rng.f32(-1000.0, 1000.0)).collect();
        let run = |barriers: bool| -> Vec<f32> {
            let mut a = Buffer::new(ctx, bytes).unwrap();
            let mut bufs: Vec<Buffer> = (0..3).map(|_| Buffer::new(ctx, bytes).unwrap()).collect();
            a.write(&FloatStorage::F32.encode(&input)).unwrap();
            for b in &mut bufs {
                b.write(&vec![0xff; bytes as usize]).unwrap();
            }
            let (b, c, d) = (&bufs[0], &bufs[1], &bufs[2]);
            // SAFETY: without barriers the steps race; that run is made only
            // for the layer's report, and its results are not checked.
            unsafe { ctx.omit_barriers_for_test(!barriers) };
            let mut seq = Sequence::new(ctx);
            let first = [&a, b];
            let second = [c, d];
            seq.dispatch(&p, Dispatch::new(&first, &[], [n, 1, 1]))
                .unwrap()
                .copy(b, c, bytes)
                .unwrap()
                .dispatch(&p, Dispatch::new(&second, &[], [n, 1, 1]))
                .unwrap()
                .copy(b, c, 0)
                .unwrap();
            let e = seq.copy(b, c, bytes + 1).unwrap_err().to_string();
            assert!(
                e.contains(&format!("bytes to copy (source) = {}", bytes + 1)),
                "{e}"
            );
            // A copy of a buffer into itself overlaps (VUID-vkCmdCopyBuffer-pRegions-00117).
            let e = seq.copy(b, b, 16).unwrap_err().to_string();
            assert!(e.contains("must not overlap"), "{e}");
            assert_eq!(seq.len(), 4);
            let stats = seq.run().unwrap();
            // SAFETY: turning the barriers back on promises nothing.
            unsafe { ctx.omit_barriers_for_test(false) };
            assert_eq!(
                stats.iter().map(|s| s.pieces).collect::<Vec<_>>(),
                [1, 1, 1, 0]
            );
            if ctx.limits().timestamp_period > 0.0 {
                assert!(stats[..3].iter().all(|s| s.gpu_ns.is_some()), "{stats:?}");
            }
            assert_eq!(stats[3].gpu_ns, None, "an empty copy has no time");
            let mut out = vec![0u8; bytes as usize];
            bufs[2].read(&mut out).unwrap();
            FloatStorage::F32.decode(&out, out.len() / 4).unwrap()
        };
        let got = run(true);
        for (i, (x, y)) in input.iter().zip(&got).enumerate() {
            assert_eq!(*y, *x + 123.0 + 123.0, "element {i} (seed {seed:#x})");
        }
        gpu.assert_clean();
        run(false);
        let msgs = gpu.take_messages();
        assert!(
            msgs.iter().any(|m| m.id.contains("SYNC-HAZARD")),
            "no hazard reported without the barriers: {:?}",
            msgs.iter().map(|m| &m.id).collect::<Vec<_>>()
        );
    });
}

/// A queue family the device lacks, or one without compute, is refused with
/// the families that would do; the one given is the one used.
#[test]
fn a_queue_family_is_checked_and_used() {
    GpuTest::new(opts()).run(|gpu| {
        let ctx = gpu.ctx();
        let chosen = ctx.queue_family_index();
        let again = gpu
            .open(ContextOptions {
                queue_family: Some(chosen),
                ..opts()
            })
            .unwrap();
        assert_eq!(again.queue_family_index(), chosen);
        drop(again);
        let e = match ncnn_glsl_runtime::Context::new(ContextOptions {
            queue_family: Some(99),
            ..opts()
        }) {
            Ok(_) => panic!("queue family 99 was accepted"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains("queue_family = 99"), "{e}");
        let listed = e
            .split("families with compute are [")
            .nth(1)
            .and_then(|r| r.split(']').next())
            .unwrap_or_else(|| panic!("no family list in: {e}"));
        assert!(
            listed.split(", ").any(|f| f == chosen.to_string()),
            "the default family {chosen} is not among {listed}: {e}"
        );
    });
}

/// With `pipeline_statistics`, the driver reports what it compiled (lavapipe
/// lists the extension); without it, asking is an error that says so.
#[test]
fn pipeline_executables_are_reported_when_asked_for() {
    GpuTest::new(opts()).run(|gpu| {
        let plain = gpu.ctx();
        let v = plain.select(SEED, Options::FP32, &[]).unwrap().variant;
        let p = Pipeline::for_variant(plain, SEED, v, &PipelineOptions::default()).unwrap();
        let e = p.executables().unwrap_err().to_string();
        assert!(e.contains("ContextOptions::pipeline_statistics"), "{e}");
        let listed = plain
            .caps()
            .has_extension("VK_KHR_pipeline_executable_properties");
        drop(p);
        let asked = ContextOptions {
            pipeline_statistics: true,
            ..opts()
        };
        if !listed {
            let e = match ncnn_glsl_runtime::Context::new(asked) {
                Ok(_) => panic!("pipeline_statistics accepted without the extension"),
                Err(e) => e.to_string(),
            };
            assert!(
                e.contains("lacks VK_KHR_pipeline_executable_properties"),
                "{e}"
            );
            return;
        }
        let ctx = gpu.open(asked).unwrap();
        let p = Pipeline::for_variant(&ctx, SEED, v, &PipelineOptions::default()).unwrap();
        let exes = p.executables().unwrap();
        assert!(!exes.is_empty());
        assert!(
            exes.iter()
                .any(|x| !x.statistics.is_empty() || !x.representations.is_empty()),
            "{exes:?}"
        );
    });
}

#[test]
fn two_threads_share_one_context() {
    GpuTest::new(opts()).run(|gpu| {
        let ctx = gpu.ctx();
        let threads: Vec<_> = [
            Options::FP32,
            Options::NCNN_DEFAULT,
            "fp16p".parse().unwrap(),
        ]
        .into_iter()
        .map(|wanted| {
            let ctx = ctx.clone();
            std::thread::spawn(move || {
                for _ in 0..3 {
                    run_seed(&ctx, wanted, 1000);
                }
            })
        })
        .collect();
        for t in threads {
            t.join().unwrap();
        }
    });
}

#[test]
fn pipeline_cache_is_saved_reused_and_never_trusted_blindly() {
    let dir = std::env::temp_dir().join(format!("ncnn-glsl-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    GpuTest::new(ContextOptions {
        // SAFETY: a fresh folder of this test's own.
        pipeline_cache_dir: Some(unsafe { ncnn_glsl_runtime::CacheDir::new(dir.clone()) }),
        ..opts()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let v = ctx.select(SEED, Options::FP32, &[]).unwrap().variant;
        let p = Pipeline::for_variant(ctx, SEED, v, &PipelineOptions::default()).unwrap();
        assert!(!p.cache_loaded());
        let files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        let p = Pipeline::for_variant(ctx, SEED, v, &PipelineOptions::default()).unwrap();
        assert!(p.cache_loaded(), "a good cache file is used");
        // Corrupt and truncated files are ignored, then replaced.
        let good = std::fs::read(&files[0]).unwrap();
        let mut bad = good.clone();
        let last = bad.len() - 1;
        bad[last] ^= 0x55;
        for content in [bad, good[..40].to_vec(), b"junk".to_vec()] {
            std::fs::write(&files[0], &content).unwrap();
            let p = Pipeline::for_variant(ctx, SEED, v, &PipelineOptions::default()).unwrap();
            assert!(!p.cache_loaded());
            assert_eq!(std::fs::read(&files[0]).unwrap().len(), good.len());
        }
        drop(p);
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn errors_name_what_is_wrong() {
    // A selector that matches nothing lists the devices.
    match ncnn_glsl_runtime::Context::new(ContextOptions {
        device: DeviceSelector::Name("no such gpu".into()),
        ..ContextOptions::default()
    }) {
        Err(Error::NoMatchingDevice { devices, .. }) => {
            let e = Error::NoMatchingDevice {
                selector: "name:no such gpu".into(),
                devices: devices.clone(),
            }
            .to_string();
            assert!(
                e.contains("no Vulkan device matches `name:no such gpu`"),
                "{e}"
            );
            assert!(!devices.is_empty() && devices[0].starts_with("0: "), "{e}");
        }
        Err(Error::NoLoader(_) | Error::NoDevice) if std::env::var_os("CI").is_none() => return,
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a device matched `no such gpu`"),
    }
    // No loader where one is named.
    let e = ncnn_glsl_runtime::Context::new(ContextOptions {
        // SAFETY: no library is there to load; the error is what is tested.
        loader: Some(unsafe { ncnn_glsl_runtime::Loader::new("/nonexistent/libvulkan.so.1") }),
        ..ContextOptions::default()
    })
    .err()
    .unwrap();
    assert!(matches!(e, Error::NoLoader(_)), "{e}");
    assert!(
        e.to_string()
            .starts_with("no Vulkan loader: /nonexistent/libvulkan.so.1"),
        "{e}"
    );
    let e = "type:gpu"
        .parse::<DeviceSelector>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("device type = gpu"), "{e}");

    GpuTest::new(opts()).run(|gpu| {
        let ctx = gpu.ctx();
        // No variant: axes the set does not have.
        let e = ctx.select(SEED, Options::FP32, &[("X", 1)]).unwrap_err();
        assert!(matches!(e, Error::NoVariant { .. }));
        assert!(
            e.to_string()
                .contains("no variant of `../tests/shaders/seed_example.comp`"),
            "{e}"
        );

        // A blob that is not SPIR-V never reaches the driver.
        static GARBAGE: [u32; 8] = [0xdead_beef, 1, 2, 3, 4, 5, 6, 7];
        // SAFETY: broken on purpose: the runtime's own checks must refuse
        // it before the driver sees it, which is what this tests.
        let garbage = unsafe { Blob::new(&GARBAGE, Reflection::default()) };
        let e = Pipeline::new(ctx, "garbage", &garbage, &PipelineOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("SPIR-V of garbage was rejected: magic number 0xdeadbeef"),
            "{e}"
        );
        // A good header over a broken body.
        let mut words = SEED.variants()[0].blob.spirv().to_vec();
        words[5] = 0xffff_0000 | (words[5] & 0xffff); // the first instruction's word count

        // SAFETY: broken on purpose, as above.
        let broken = unsafe {
            Blob::new(
                Box::leak(words.into_boxed_slice()),
                SEED.variants()[0].blob.reflection().clone(),
            )
        };
        let e = Pipeline::new(ctx, "broken", &broken, &PipelineOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad word count"), "{e}");

        // A local size the shader fixes, and one the device cannot run.
        let v = ctx.select(SCALE, Options::FP32, &[]).unwrap().variant;
        let sized = |local_size| PipelineOptions {
            local_size: Some(local_size),
            ..Default::default()
        };
        let e = Pipeline::for_variant(ctx, SCALE, v, &sized([2, 1, 1]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("local size x = 2") && e.contains("fixes it at 64"),
            "{e}"
        );
        let v = ctx.select(SEED, Options::FP32, &[]).unwrap().variant;
        let over = ctx.limits().max_compute_work_group_size[0] + 1;
        let e = Pipeline::for_variant(ctx, SEED, v, &sized([over, 1, 1]))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("local size x = {over}")), "{e}");
        let e = Pipeline::for_variant(ctx, SEED, v, &sized([0, 1, 1]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("local size x = 0"), "{e}");

        // Arguments: buffer count, push constants, too big a buffer.
        let p = Pipeline::for_variant(ctx, SEED, v, &PipelineOptions::default()).unwrap();
        let a = Buffer::new(ctx, 64).unwrap();
        let e = p
            .dispatch(&Dispatch::new(&[&a], &[], [1, 1, 1]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("number of buffers") && e.contains("= 1") && e.contains("binds 2"),
            "{e}"
        );
        let e = p
            .dispatch(&Dispatch::new(&[&a, &a], &[0; 4], [1, 1, 1]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("push-constant bytes") && e.contains("is 0 bytes"),
            "{e}"
        );
        let range = u64::from(ctx.limits().max_storage_buffer_range);
        let big = Buffer::new(ctx, range + 16).unwrap();
        let e = p
            .dispatch(&Dispatch::new(&[&a, &big], &[], [1, 1, 1]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("maxStorageBufferRange is {range}")),
            "{e}"
        );
        drop(big);

        // Out of device memory: more than the heap.
        let e = Buffer::new(ctx, 1 << 50).unwrap_err();
        assert!(
            matches!(e, Error::OutOfDeviceMemory { requested, .. } if requested == 1 << 50),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("out of device memory: 1125899906842624 bytes"),
            "{e}"
        );
        let e = Buffer::new(ctx, 0).unwrap_err().to_string();
        assert!(e.contains("buffer size = 0"), "{e}");
        let mut a = a;
        let e = a.write(&[0; 65]).unwrap_err().to_string();
        assert!(
            e.contains("write length = 65") && e.contains("holds 64 bytes"),
            "{e}"
        );
        drop((p, a));
    });
}

#[test]
fn a_feature_the_device_lacks_or_did_not_enable_is_named() {
    let fp16s = SEED
        .variants()
        .iter()
        .find(|v| v.target.options.to_string() == "fp16s")
        .unwrap();
    // A device without 16-bit storage (lavapipe with it hidden).
    GpuTest::new(ContextOptions {
        hide_features: vec!["storageBuffer16BitAccess".into()],
        ..opts()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let e = Pipeline::for_variant(ctx, SEED, fp16s, &PipelineOptions::default()).unwrap_err();
        assert!(
            matches!(
                e,
                Error::FeatureMissing {
                    not_enabled: false,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string().contains(
                "needs the device feature `storageBuffer16BitAccess`, which the device lacks"
            ),
            "{e}"
        );
        // And selection on it never picks 16-bit storage.
        let c = ctx.select(SEED, Options::NCNN_DEFAULT, &[]).unwrap();
        assert_eq!(c.chosen.options.to_string(), "fp16p+fp16a");
    });
}

/// A context opened without naming the set did not enable the seed's 16-bit
/// features (the device has them): its pipeline says which is off.
#[test]
fn a_feature_the_context_did_not_enable_is_named() {
    GpuTest::new(ContextOptions::default()).run(|gpu| {
        let ctx = gpu.ctx();
        let v = SEED
            .variants()
            .iter()
            .find(|v| {
                let features = &v.blob.reflection().requirements.features;
                !features.is_empty() && features.iter().all(|f| ctx.caps().feature(f))
            })
            .expect("lavapipe has every feature of some 16-bit variant of the seed");
        let e = Pipeline::for_variant(ctx, SEED, v, &PipelineOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the device has but the context did not enable"),
            "{e}"
        );
    });
}

/// The features a context enables are exactly those its own variant sets'
/// variants name that the device has: none for a plain context, what an
/// application's sets need only when it says so (`ncnn-glsl-q8ta` tests its
/// own sets the same way).
#[test]
fn a_context_enables_only_what_its_own_sets_need() {
    let cases: [(&str, Vec<&'static VariantSet>); 2] =
        [("no sets", Vec::new()), ("the seed's set", vec![SEED])];
    for (what, sets) in cases {
        let options = ContextOptions {
            variant_sets: sets.clone(),
            ..ContextOptions::default()
        };
        GpuTest::new(options).run(|gpu| {
            let (enabled, wanted) = enabled_and_wanted(gpu.ctx(), &sets);
            assert_eq!(enabled, wanted, "{what}");
            match what {
                "no sets" => assert!(enabled.is_empty(), "a plain context enables {enabled:?}"),
                // The seed's fp16 variants need features that a plain context
                // leaves off (lavapipe and GPUs with 16-bit storage have them).
                _ => assert!(!enabled.is_empty(), "{what}: nothing enabled"),
            }
        });
    }
}

#[test]
fn the_probe_fills_every_table_field() {
    GpuTest::new(opts()).run(|gpu| {
        let ctx = gpu.ctx();
        let caps = ctx.caps();
        for f in ncnn_glsl_core::ext::CORE_FEATURES {
            assert!(caps.features.contains_key(f), "{f}");
        }
        for (name, _) in ncnn_glsl_core::ext::LIMITS {
            assert!(caps.properties.contains_key(*name), "{name}");
        }
        for name in [
            "subgroupSize",
            "supportedOperations",
            "driverID",
            "minSubgroupSize",
            "integerDotProduct8BitUnsignedAccelerated",
            "residencyNonResidentStrict",
        ] {
            assert!(caps.properties.contains_key(name), "{name}");
        }
        assert_eq!(
            caps.property("maxComputeWorkGroupCount_0"),
            Some(u64::from(ctx.limits().max_compute_work_group_count[0]))
        );
        assert_eq!(
            caps.property("timestampPeriod"),
            Some(u64::from(ctx.limits().timestamp_period.to_bits()))
        );
        if caps.name.contains("llvmpipe") {
            for f in [
                "storageBuffer16BitAccess",
                "shaderFloat16",
                "shaderInt8",
                "subgroupSizeControl",
                "shaderIntegerDotProduct",
                "storageBuffer8BitAccess",
            ] {
                assert!(caps.feature(f), "{f}");
            }
            assert_eq!(caps.property("subgroupSize"), Some(8));
        }
    });
}

#[test]
fn the_harness_catches_a_validation_error() {
    GpuTest::new(opts()).run(|gpu| {
        let ctx = gpu.ctx();
        make_zero_sized_buffer(ctx);
        let msgs = gpu.take_messages();
        assert!(
            msgs.iter()
                .any(|m| m.id.contains("VUID-VkBufferCreateInfo-size-00912")),
            "{:?}",
            msgs.iter().map(|m| &m.id).collect::<Vec<_>>()
        );
    });
}

/// Invalid usage the runtime itself refuses (a buffer of size 0,
/// VUID-VkBufferCreateInfo-size-00912), made through the raw device.
fn make_zero_sized_buffer(ctx: &ncnn_glsl_runtime::Context) {
    let info = ash::vk::BufferCreateInfo::default()
        .size(0)
        .usage(ash::vk::BufferUsageFlags::STORAGE_BUFFER);
    // SAFETY: none by the spec: size 0 is invalid on purpose, for the layer to
    // report, and the layer passes the call on; this trusts the driver (lavapipe
    // in CI) to answer with a buffer or an error rather than misbehave.
    if let Ok(b) = unsafe { ctx.device().create_buffer(&info, None) } {
        // SAFETY: `b` was just created from this device and is used by nothing.
        unsafe { ctx.device().destroy_buffer(b, None) };
    }
}

/// The harness checks the log after the body: a message the body leaves
/// behind fails the test, though the body asserted nothing.
#[test]
fn the_harness_fails_a_test_that_leaves_a_message_behind() {
    let mut ran = false;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        GpuTest::new(opts()).run(|gpu| {
            ran = true;
            make_zero_sized_buffer(gpu.ctx());
        })
    }));
    assert!(
        ran || std::env::var_os("CI").is_none(),
        "the body never ran under CI"
    );
    if ran {
        let panic = outcome.expect_err("the harness let a validation message pass");
        let text = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            text.contains("VUID-VkBufferCreateInfo-size-00912"),
            "{text}"
        );
    }
}

#[test]
fn synchronization_validation_is_on() {
    GpuTest::new(opts()).run(|gpu| {
        let ctx = gpu.ctx();
        let a = Buffer::new(ctx, 256).unwrap();
        let b = Buffer::new(ctx, 256).unwrap();
        // Two copies into `b` with no barrier between them, recorded by hand:
        // a write-after-write hazard, reported while recording.
        let d = ctx.device();
        let pool_info =
            ash::vk::CommandPoolCreateInfo::default().queue_family_index(ctx.queue_family_index());
        // SAFETY: all on this device and this thread; `a` and `b` hold 256 bytes
        // with transfer usage; the racing copies are only recorded, never
        // submitted, so the pool is destroyed with nothing pending.
        unsafe {
            let pool = d.create_command_pool(&pool_info, None).unwrap();
            let alloc = ash::vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .command_buffer_count(1);
            let cmd = d.allocate_command_buffers(&alloc).unwrap()[0];
            d.begin_command_buffer(cmd, &ash::vk::CommandBufferBeginInfo::default())
                .unwrap();
            let region = [ash::vk::BufferCopy::default().size(256)];
            d.cmd_copy_buffer(cmd, a.handle(), b.handle(), &region);
            d.cmd_copy_buffer(cmd, a.handle(), b.handle(), &region);
            d.end_command_buffer(cmd).unwrap();
            d.destroy_command_pool(pool, None);
        }
        let msgs = gpu.take_messages();
        assert!(
            msgs.iter()
                .any(|m| m.id.contains("SYNC-HAZARD-WRITE-AFTER-WRITE")),
            "{:?}",
            msgs.iter().map(|m| &m.id).collect::<Vec<_>>()
        );
    });
}
