//! The activations the convolution family fuses (`vulkan_activation.comp`)
//! and the case that runs each through the layers that fuse it.

use ncnn_glsl_runtime::SpecValue;
use ncnn_glsl_testkit::ncnn_layers::{Device, Mode, Run};
use ncnn_glsl_testkit::Rng;

use super::common::conv;
use super::convolution::conv1x1_run;
use super::innerproduct::{fc, fc_run};

/// A fused activation: ncnn's `activation_type` and its two parameters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Act {
    /// 0 none, 1 relu, 2 leaky relu, 3 clip, 4 sigmoid, 5 mish, 6 hardswish.
    ty: i32,
    /// `activation_params[0]`: slope, min, or hardswish's alpha.
    p0: f32,
    /// `activation_params[1]`: max, or hardswish's beta.
    p1: f32,
}

/// No activation.
pub(crate) const NO_ACT: Act = Act {
    ty: 0,
    p0: 0.0,
    p1: 0.0,
};

/// The activations `vulkan_activation.comp` defines, with parameters a
/// half-precision `afp` holds exactly.
pub(crate) const ACTS: [Act; 6] = [
    Act {
        ty: 1,
        p0: 0.0,
        p1: 0.0,
    },
    Act {
        ty: 2,
        p0: 0.125,
        p1: 0.0,
    },
    Act {
        ty: 3,
        p0: -0.5,
        p1: 0.75,
    },
    Act {
        ty: 4,
        p0: 0.0,
        p1: 0.0,
    },
    Act {
        ty: 5,
        p0: 0.0,
        p1: 0.0,
    },
    Act {
        ty: 6,
        p0: 0.25,
        p1: 0.5,
    },
];

impl Act {
    /// The activation of `v`, and the magnitude its tolerance scales with:
    /// the error of `v` (of magnitude `mag`) through the activation's
    /// steepest slope near `v`, plus the activation's own arithmetic.
    pub(crate) fn apply(&self, (v, mag): (f64, f64)) -> (f64, f64) {
        let (p0, p1) = (f64::from(self.p0), f64::from(self.p1));
        match self.ty {
            0 => (v, mag),
            1 => (v.max(0.0), mag),
            2 => (if v < 0.0 { v * p0 } else { v }, mag * p0.abs().max(1.0)),
            3 => (v.clamp(p0, p1), mag),
            4 => (1.0 / (1.0 + (-v).exp()), 0.25 * mag + 1.0),
            // mish' stays below 1.1
            5 => (v * (v.exp().ln_1p()).tanh(), 1.1 * mag + v.abs()),
            6 => {
                let slope = 1.0 + 2.0 * p0.abs() * v.abs() + p1.abs();
                (v * (v * p0 + p1).clamp(0.0, 1.0), slope * mag + v.abs())
            }
            t => panic!("activation_type {t}"),
        }
    }

    /// Specialization values: `activation_type`, its two parameters.
    pub(crate) fn spec(&self) -> [SpecValue; 3] {
        [
            SpecValue::Int(self.ty),
            SpecValue::Float(self.p0),
            SpecValue::Float(self.p1),
        ]
    }

    /// For run names.
    pub(crate) fn name(&self) -> &'static str {
        [
            "none",
            "relu",
            "leakyrelu",
            "clip",
            "sigmoid",
            "mish",
            "hardswish",
        ][self.ty as usize]
    }
}

/// Every activation of `vulkan_activation.comp` through the layers that
/// fuse it: `activation_afpvec4` in the 1x1 convolution, `activation_afp`
/// in the pack1 InnerProduct shader.
pub(crate) fn activations(device: &Device, mode: &Mode, rng: &mut Rng) -> Vec<Run> {
    let one = [1, 1];
    let mut runs = Vec::new();
    for act in ACTS {
        let mut p = conv(8, 8, one, one, one, [5, 3], true, true);
        p.act = act;
        let mut f = fc(10, 6, 0, true, false);
        f.act = act;
        for mut run in [
            conv1x1_run(device, mode, rng, &p),
            fc_run(device, mode, rng, &f),
        ] {
            // Worst errors are reported per activation.
            run.name = format!("{} {}", act.name(), run.name);
            runs.push(run);
        }
    }
    runs
}
