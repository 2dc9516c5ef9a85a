//! A shader that tests device macros without declaring them builds as a
//! set, and the device runs the branches its own values pick: the expected
//! words come from the device's values on the host, the words read back
//! from the variant the context selects.

use ncnn_glsl_core::variant::device_axis_value;
use ncnn_glsl_runtime::{
    include_ncnn_shader, Buffer, ContextOptions, Dispatch, Options, Pipeline, PipelineOptions,
};
use ncnn_glsl_testkit::gpu::GpuTest;

include_ncnn_shader!(mod branches = "tests/shaders/device_branches.comp");

#[test]
fn the_device_runs_the_branches_its_values_pick() {
    // Built with no pragma: one device axis per tested macro.
    let axes: Vec<&str> = branches::SET.axes.iter().map(|a| a.name).collect();
    assert_eq!(
        axes,
        [
            "ncnn_VK_KHR_cooperative_matrix",
            "ncnn_VK_KHR_shader_integer_dot_product",
            "ncnn_cooperativeMatrix",
            "ncnn_driverID",
            "ncnn_subgroupSize",
            "ncnn_subgroup_basic",
            "ncnn_subgroup_partitioned",
            "ncnn_vendorID",
        ]
    );
    assert!(branches::SET
        .axes
        .iter()
        .all(|a| a.device && a.outcomes.is_some()));
    GpuTest::new(ContextOptions {
        variant_sets: vec![branches::SET],
        ..ContextOptions::default()
    })
    .run(|gpu| {
        let ctx = gpu.ctx();
        let d = ctx.caps();
        let value = |name: &str| device_axis_value(d, name);
        let on = |name: &str| value(name).unwrap_or(0) != 0;
        let expected: [u32; 6] = [
            if value("ncnn_subgroupSize").unwrap_or(0) >= 32 {
                1
            } else {
                2
            },
            match value("ncnn_vendorID") {
                Some(0x10de) => 3,
                Some(0x10005) => 4,
                _ => 5,
            },
            if value("ncnn_VK_KHR_cooperative_matrix").is_some() && on("ncnn_cooperativeMatrix") {
                6
            } else {
                7
            },
            match value("ncnn_driverID").unwrap_or(0) {
                13 => 8,
                0 => 10,
                _ => 9,
            },
            if value("ncnn_VK_KHR_shader_integer_dot_product").is_some() {
                11
            } else {
                12
            },
            if on("ncnn_subgroup_basic") && !on("ncnn_subgroup_partitioned") {
                13
            } else {
                14
            },
        ];
        let choice = ctx.select(branches::SET, Options::FP32, &[]).unwrap();
        let mut out = Buffer::new(ctx, 6 * 4).unwrap();
        out.write(&[0xa5; 24]).unwrap();
        let p = Pipeline::for_variant(
            ctx,
            branches::SET,
            choice.variant,
            &PipelineOptions::default(),
        )
        .unwrap();
        let bound = branches::Buffers { out_blob: &out }.bind();
        p.dispatch(&Dispatch::typed(
            &bound,
            &branches::PushConstants {},
            [1, 1, 1],
        ))
        .unwrap();
        let mut bytes = [0u8; 24];
        out.read(&mut bytes).unwrap();
        let got: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let values: Vec<String> = branches::SET
            .axes
            .iter()
            .map(|a| format!("{}={:?}", a.name, value(a.name)))
            .collect();
        assert_eq!(
            got, expected,
            "{}: device values {values:?}, variant {:?}",
            d.name, choice.variant.axes
        );
        println!("{}: {values:?} ran {:?}", d.name, choice.variant.axes);
    });
}
