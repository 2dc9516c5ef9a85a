//! Eltwise: product, sum (with and without coefficients) and max of two or
//! three inputs.

use ncnn_glsl_runtime::{FloatStorage, SpecValue};
use ncnn_glsl_testkit::ncnn_layers::{
    expect_blob_tol, spec, Data, Device, Mode, Run, Step, Tensor,
};
use ncnn_glsl_testkit::Rng;

use super::common::{flat_local, run_of, tol, Blob};
use super::error_bounds::E;

/// An Eltwise configuration: `op_type` (0 prod, 1 sum, 2 max), the
/// coefficients (empty: none), the inputs, shape, elempack, specialized.
type EltwiseCase = (i32, &'static [f32], usize, &'static [u32], u32, bool);

/// The Eltwise configurations.
const ELTWISES: [EltwiseCase; 7] = [
    (1, &[0.5, -1.5], 2, &[5, 7, 8], 4, true),
    (1, &[], 3, &[5, 7, 3], 1, false),
    (0, &[], 2, &[13], 1, true),
    (0, &[], 3, &[3, 5, 2, 4], 4, false),
    (2, &[], 3, &[6, 12], 4, true),
    (1, &[0.5, 2.0, -0.75], 3, &[5, 7, 8], 1, false),
    (2, &[2.0, 3.0], 2, &[5, 7, 8], 4, false),
];

/// `eltwise_vulkan.cpp`: `eltwise.comp` over the blobs as vec4s, `op_type`,
/// `coeff_term` and `n` specialized, `n` and two coefficients pushed; the
/// first two inputs into the output, then each further input into the
/// output in place (coefficients 1 and its own), on alternating pipelines.
pub(crate) fn eltwise(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let mut runs = Vec::new();
    for (op, coeffs, inputs, shape, elempack, known) in ELTWISES {
        let blob = Blob::sfp(shape, elempack, mode);
        let n = blob.vec4s();
        let ts: Vec<Tensor> = (0..inputs)
            .map(|_| Tensor::random(shape, mode, rng, -4.0, 4.0))
            .collect();
        let coeff = |i: usize| coeffs.get(i).copied().unwrap_or(1.0);
        let sp = spec(&[
            SpecValue::Int(op),
            SpecValue::Int(i32::from(!coeffs.is_empty())),
            SpecValue::Uint(if known { n } else { 0 }),
        ]);
        let local = flat_local(device);
        let out = inputs;
        let mut buffers: Vec<Data> = ts.iter().map(|t| Data::Floats(blob.data(t))).collect();
        buffers.push(Data::Poison(blob.bytes()));
        let mut steps = vec![Step::new(
            "eltwise.comp",
            local,
            sp.clone(),
            vec![n, coeff(0).to_bits(), coeff(1).to_bits()],
            &[0, 1, out],
            [n, 1, 1],
        )];
        for b in 2..inputs {
            steps.push(Step::new(
                "eltwise.comp",
                local,
                sp.clone(),
                vec![n, 1.0f32.to_bits(), coeff(b).to_bits()],
                &[out, b, out],
                [n, 1, 1],
            ));
        }
        // Coefficients as the arithmetic holds them (`afp(p.coeff0)`).
        let arith = |c: f32| {
            if mode.fp16_arithmetic() {
                FloatStorage::F16.round(c)
            } else {
                c
            }
        };
        let storage_units = mode.storage_eps() / mode.arith_eps();
        let expect = expect_blob_tol(out, &blob.m, &blob.shape, |x, y, z, q| {
            let v = |i: usize| E::x(f64::from(ts[i].at(x, y, z, q)));
            let apply = |acc: E, i: usize, c0: f32| -> E {
                match op {
                    0 => acc.mul(v(i)),
                    1 if coeffs.is_empty() => acc.add(v(i)),
                    1 => acc
                        .mul(E::x(f64::from(arith(c0))))
                        .add(v(i).mul(E::x(f64::from(arith(coeff(i)))))),
                    _ if v(i).v > acc.v => v(i),
                    _ => acc,
                }
            };
            let mut acc = apply(v(0), 1, coeff(0));
            for i in 2..inputs {
                // The output is stored, rounded to the storage, and read back.
                acc.e += storage_units * acc.v.abs();
                acc = apply(acc, i, 1.0);
            }
            (acc.v, tol(mode, acc.v, acc.e))
        });
        runs.push(run_of(
format!("eltwise op {op} coeffs {coeffs:?} inputs {inputs} {shape:?} pack{elempack} spec {known}"),
buffers,
steps,
expect,
));
    }
    runs
}
