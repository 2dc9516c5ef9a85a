//! The launch plan's invariants, whatever its tuned values: for every device
//! class and limits, layout pair, quantization and shape (small ones and
//! the large tensors' sizes), the plan and every forced path's plan are
//! runnable (the path takes the shape, f32 only where exact, the table fits
//! the shared memory), fit the device's workgroup limits, launch, and (on
//! the shapes the model can run) write every output word exactly once.

use super::{qp, random_case, run_model};
use crate::plan::{plan, plan_on, Device, Plan};
use crate::{Layout, PixelShuffle, Requant, Requantization, Shape, ShufflePath};
use ncnn_glsl_runtime::DeviceType;
use ncnn_glsl_testkit::Rng;

/// Every class unlimited, and devices at Vulkan's minimum limits (16 KiB
/// of shared memory, 128 invocations, 128x128x64).
fn devices() -> Vec<Device> {
    let classes = [
        DeviceType::Cpu,
        DeviceType::DiscreteGpu,
        DeviceType::IntegratedGpu,
        DeviceType::Other,
    ];
    let mut v: Vec<Device> = classes.iter().map(|&c| Device::unlimited(c)).collect();
    v.extend(classes.iter().map(|&class| Device {
        class,
        max_shared_memory: 16384,
        max_local_size: [128, 128, 64],
        max_invocations: 128,
    }));
    v
}

/// Shapes around every threshold of the rule: tiny and odd ones (which the
/// model runs), the seed's sizes, and the large tensors'.
fn shapes() -> Vec<(Shape, bool)> {
    let small = [
        (1, 4, 1, 1),
        (1, 8, 3, 5),
        (2, 16, 3, 4),
        (1, 64, 2, 8),
        (2, 256, 2, 3),
        (1, 256, 1, 4),
    ];
    let large = [
        (1, 256, 16, 16),
        (1, 256, 16, 15),
        (1, 256, 48, 48),
        (1, 256, 96, 96),
        (1, 256, 256, 256),
        (8, 256, 256, 256),
        (16, 256, 256, 254),
        (16, 256, 256, 255),
        (8, 48, 512, 512),
        (8, 256, 256, 130),
        (2, 256, 1 << 16, 4),
    ];
    let s = |(n, c, h, w)| Shape::new(n, c, h, w);
    small
        .into_iter()
        .map(|d| (s(d), true))
        .chain(large.into_iter().map(|d| (s(d), false)))
        .collect()
}

/// Checks `p` for `ps` on `device`; with `model`, runs it on the model too.
fn check(p: Plan, ps: &PixelShuffle, device: &Device, model: Option<&mut Rng>, what: &str) {
    let k = p.rewrite;
    assert!(k.path.check(ps.input).is_ok(), "{what}: {k:?}");
    assert!(
        !k.requant.uses_float() || ps.requant.float_exact,
        "{what}: f32 where it is not exact: {k:?}"
    );
    assert!(
        k.requant
            .check_shared_memory(device.max_shared_memory)
            .is_ok(),
        "{what}: {k:?} past the shared memory"
    );
    assert!(k.rows >= 1, "{what}: {k:?}");
    assert!(
        k.requant != Requantization::Float || k.rows == 1,
        "{what}: {k:?}"
    );
    for i in 0..3 {
        assert!(
            (1..=device.max_local_size[i]).contains(&p.local[i]),
            "{what}: {:?} past {:?}",
            p.local,
            device.max_local_size
        );
    }
    let invocations: u64 = p.local.iter().map(|&l| u64::from(l)).product();
    assert!(
        invocations <= u64::from(device.max_invocations),
        "{what}: {:?}",
        p.local
    );
    let launch = ps
        .launch(Some(k), p.local, [65535; 3])
        .unwrap_or_else(|e| panic!("{what}: {k:?} {:?}: {e}", p.local));
    let grid = ps.grid(k.path, k.blocks);
    let b = k.blocks.index();
    assert!(
        u64::from(launch.groups[b]) * u64::from(p.local[b]) >= u64::from(grid[b]),
        "{what}: the blocks' axis is not covered"
    );
    if let Some(g) = model {
        let c = random_case(g, ps.input, ps.in_layout, ps.out_layout, ps.requant);
        // Clamped y and z: the kernel's loops cover the rest.
        let (out, writes, _) = run_model(&c, Some((k.path, k.blocks)), p.local, 3);
        assert_eq!(out, c.expected, "{what}: {k:?} {:?}", p.local);
        assert!(
            writes.iter().all(|&w| w == 1),
            "{what}: a word written != once"
        );
    }
}

#[test]
fn every_plan_is_runnable_fits_the_device_and_covers_the_tensor_once() {
    let s = super::seed();
    eprintln!("seed {s}");
    let mut g = Rng::new(s);
    // A pair the f32 requantization is exact for, one it is not, passthrough.
    let exact_pair = [0.03, 0.05, 0.07, 0.11]
        .iter()
        .map(|&o| (qp(0.02, 3), qp(o, -5)))
        .find(|&(a, b)| Requant::new(a, b).unwrap().float_exact)
        .expect("a scale pair f32 is exact for");
    let quants = [
        exact_pair,
        (qp(1.0, 0), qp(2.0, 0)),
        (qp(0.05, -7), qp(0.05, -7)),
    ];
    let exact: Vec<bool> = quants
        .iter()
        .map(|&(a, b)| Requant::new(a, b).unwrap().float_exact)
        .collect();
    assert_eq!(
        exact[..2],
        [true, false],
        "the scale pairs no longer cover both"
    );
    let mut plans = 0;
    for (shape, small) in shapes() {
        let out = Shape::new(shape.n, shape.c / 4, shape.h * 2, shape.w * 2);
        for il in Layout::ALL {
            for ol in Layout::ALL {
                for (a, b) in quants {
                    let ps = PixelShuffle::new(shape, out, 2, il, ol, a, b).unwrap();
                    let (axes, float_exact) = (ps.axes(), ps.requant.float_exact);
                    for device in devices() {
                        let what = format!("{shape:?} {il} -> {ol} {a:?} {b:?} {device:?}");
                        let p = plan(shape, axes, float_exact, &device);
                        check(p, &ps, &device, small.then_some(&mut g), &what);
                        for path in ShufflePath::ALL {
                            if path.check(shape).is_ok() {
                                let p = plan_on(path, shape, axes, float_exact, &device);
                                assert_eq!(p.rewrite.path, path, "{what}");
                                check(p, &ps, &device, None, &format!("{what} on {path:?}"));
                            }
                        }
                        plans += 1;
                    }
                }
            }
        }
    }
    eprintln!("{plans} plans checked");
}

/// The same shuffle on the same device class plans the same whatever the
/// limits, where the limits do not bind; where they do, only the table and
/// the workgroup give way.
#[test]
fn limits_change_only_what_they_bind() {
    let input = Shape::new(8, 256, 256, 256);
    for il in Layout::ALL {
        for ol in Layout::ALL {
            let axes = requantizing(il, ol);
            let free = plan(input, axes, false, &GPU);
            let tight = plan(
                input,
                axes,
                false,
                &Device {
                    class: DeviceType::DiscreteGpu,
                    max_shared_memory: 16384,
                    max_local_size: [u32::MAX; 3],
                    max_invocations: u32::MAX,
                },
            );
            assert_eq!(free.rewrite.path, tight.rewrite.path, "{il} -> {ol}");
            assert_eq!(free.rewrite.blocks, tight.rewrite.blocks, "{il} -> {ol}");
            if free.rewrite.requant.shared_bytes() <= 16384 {
                assert_eq!(free, tight, "{il} -> {ol}");
            } else {
                assert_eq!(tight.rewrite.requant, Requantization::Table, "{il} -> {ol}");
            }
        }
    }
}

/// A table past the device's shared memory is an error naming both sizes
/// where it is forced ([`crate::ShuffleKernel::RewriteWith`]); the plan's
/// own choice gives way to what fits (the one table, or f32 for the mixed
/// ways, which it takes only where f32 is exact).
#[test]
fn a_table_past_the_shared_memory_is_an_error_and_the_plan_gives_way() {
    let e = Requantization::Banked
        .check_shared_memory(16384)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the `banked` requantization needs 32768 bytes of shared memory, \
         maxComputeSharedMemorySize is 16384"
    );
    assert!(Requantization::Table.check_shared_memory(16384).is_ok());
    let small = Device {
        max_shared_memory: 16384,
        ..Device::unlimited(DeviceType::DiscreteGpu)
    };
    let input = Shape::new(8, 256, 256, 256);
    for (il, ol, exact, want) in [
        // The banked table at 16 rows.
        (
            Layout::Packed4C1W,
            Layout::Packed4C1W,
            true,
            Requantization::Table,
        ),
        // Mixed, where f32 is exact.
        (
            Layout::Packed4C,
            Layout::Packed4C1W,
            false,
            Requantization::Table,
        ),
        (
            Layout::Packed4W4C,
            Layout::Packed4C1W,
            true,
            Requantization::Float,
        ),
    ] {
        let axes = requantizing(il, ol);
        let free = plan(input, axes, exact, &GPU);
        assert!(
            free.rewrite.requant.shared_bytes() > 16384,
            "{il} -> {ol}: {free:?}"
        );
        assert_eq!(
            plan(input, axes, exact, &small).rewrite.requant,
            want,
            "{il} -> {ol}"
        );
    }
}

/// A discrete GPU whose limits bind no plan.
const GPU: Device = Device::unlimited(DeviceType::DiscreteGpu);

/// `il` -> `ol`, requantizing.
fn requantizing(il: Layout, ol: Layout) -> crate::Axes {
    crate::Axes {
        in_layout: il,
        out_layout: ol,
        passthrough: false,
    }
}
