//! The cooperative matrix GEMM of the corpus (`tests/corpus/gemm_coopmat_pack4.comp`)
//! for a run on a device that has `VK_KHR_cooperative_matrix` (lavapipe has
//! none): its variant set, the specialization and dispatch of each variant,
//! and the CPU reference.
//!
//! A run: build the set ([`gemm_set`]); pick the shape from the device's
//! `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR` list, a row with
//! `AType = BType = FLOAT16`, `CType = ResultType = FLOAT32`, scope
//! subgroup (the blob's `Reflection::cooperative_matrices` says exactly
//! that, with M, N, K as the specialization constants 18, 19, 20); set them
//! with [`gemm_specialization`]; dispatch [`gemm_dispatch`] workgroups; the
//! device runs the variant whose `ncnn_VK_KHR_cooperative_matrix` axis is 1
//! (the set's selection reads it from the device), any other the plain one.
//! Buffers: A is `gm` rows of `gk` values in the mode's storage (`sfpvec4`,
//! pack4 along K), B is `gn` rows (padded to a multiple of N) of `gk` halves
//! packed four to a `uvec2` (B transposed), top `gm` rows of `gn` values.
//! Compare with [`gemm_reference`] within fp16 rounding (A and B are rounded
//! to halves, the sums are fp32, top is rounded to the storage).

use ncnn_glsl_core::variant::build::{build, BuiltSet};
use ncnn_glsl_core::{CompileOptions, ExpandOptions, FsLoader};

use crate::shaders::workspace_root;

/// The shape of one GEMM run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmShape {
    /// Rows of A and top.
    pub gm: u32,
    /// Columns of top, rows of (transposed) B; a multiple of 4.
    pub gn: u32,
    /// Columns of A and B; a multiple of the matrices' K.
    pub gk: u32,
    /// The cooperative matrix shape `(M, N, K)` the device lists.
    pub mnk: (u32, u32, u32),
    /// The device's subgroup size: one subgroup per workgroup.
    pub subgroup_size: u32,
}

/// The GEMM's variant set.
pub fn gemm_set() -> BuiltSet {
    let path = workspace_root().join("tests/corpus/gemm_coopmat_pack4.comp");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    build(
        ncnn_glsl_core::SourceFile {
            name: "gemm_coopmat_pack4.comp".into(),
            path: Some(path),
            text,
        },
        &FsLoader,
        &ExpandOptions::default(),
        &CompileOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The specialization constants to set, `(constant_id, value)`, all `int`
/// or `uint` values as 32 bits: GM, GN, GK (0, 1, 2; the push constants hold
/// the same: `psc`), M, N, K (18, 19, 20), the subgroup size (21), and the
/// local size x (`local_size_x_id = 233`: patch it into the blob's
/// `LocalSize`, `Reflection::local_size_spec_ids`).
pub fn gemm_specialization(s: &GemmShape) -> Vec<(u32, u32)> {
    let (m, n, k) = s.mnk;
    vec![
        (0, s.gm),
        (1, s.gn),
        (2, s.gk),
        (18, m),
        (19, n),
        (20, k),
        (21, s.subgroup_size),
        (233, s.subgroup_size),
    ]
}

/// The workgroups to dispatch: one M x N tile of top each in the
/// cooperative matrix variant; one invocation per pack4 of top in the plain
/// one (whose workgroup is the subgroup size wide).
pub fn gemm_dispatch(s: &GemmShape, cooperative: bool) -> [u32; 3] {
    let (m, n, _) = s.mnk;
    if cooperative {
        [s.gn.div_ceil(n), s.gm.div_ceil(m), 1]
    } else {
        [(s.gn / 4).div_ceil(s.subgroup_size), s.gm, 1]
    }
}

/// top = A * B^T in f32, A and B already rounded to what the buffers hold
/// (`a`: `gm` x `gk`, `b_t`: `gn` x `gk`, row-major).
pub fn gemm_reference(s: &GemmShape, a: &[f32], b_t: &[f32]) -> Vec<f32> {
    let (gm, gn, gk) = (s.gm as usize, s.gn as usize, s.gk as usize);
    let mut top = vec![0f32; gm * gn];
    for i in 0..gm {
        for j in 0..gn {
            top[i * gn + j] = (0..gk).map(|k| a[i * gk + k] * b_t[j * gk + k]).sum();
        }
    }
    top
}
