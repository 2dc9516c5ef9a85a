//! A validated pixel shuffle, ready for a dispatch: everything the Vulkan glue
//! needs (specialization constants or variant axes, push constants, grids,
//! local sizes, buffer sizes), checked once on the host so that a bad call
//! dispatches nothing.

use ncnn_glsl_core::DeviceType;

use super::check_shuffle_shapes;
use super::error::Q8taError;
use super::layout::{Layout, Shape};
use super::model::{self, Axes, ShufflePath, ShufflePush};
use super::quant::{QuantParams, Requant};
use crate::SpecValue;

/// One q8ta pixel shuffle: shapes, layouts and quantization, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PixelShuffle {
    /// `[N, 4 * C_out, H, W]`.
    pub input: Shape,
    /// `[N, C_out, 2H, 2W]`.
    pub output: Shape,
    /// The input's layout.
    pub in_layout: Layout,
    /// The output's layout.
    pub out_layout: Layout,
    /// The fixed-point requantization (and whether it is the identity).
    pub requant: Requant,
}

impl PixelShuffle {
    /// Validates the factor (2 only), the shapes (`C_in = 4 * C_out`, output
    /// `[N, C_out, 2H, 2W]`, nothing empty, 32-bit indices) and both
    /// quantization parameter sets.
    pub fn new(
        input: Shape,
        output: Shape,
        upscale_factor: usize,
        in_layout: Layout,
        out_layout: Layout,
        q_in: QuantParams,
        q_out: QuantParams,
    ) -> Result<Self, Q8taError> {
        check_shuffle_shapes(input, output, upscale_factor)?;
        let requant = Requant::new(q_in, q_out)?;
        Ok(PixelShuffle {
            input,
            output,
            in_layout,
            out_layout,
            requant,
        })
    }

    /// Bytes the input buffer needs (its layout's words, padding included).
    pub fn input_bytes(&self) -> usize {
        self.in_layout.byte_count(self.input)
    }

    /// Bytes the output buffer needs; all of them are written.
    pub fn output_bytes(&self) -> usize {
        self.out_layout.byte_count(self.output)
    }

    /// Checks buffer sizes in bytes before a dispatch.
    pub fn check_buffers(&self, input_len: usize, output_len: usize) -> Result<(), Q8taError> {
        for (what, needed, len) in [
            ("input", self.input_bytes(), input_len),
            ("output", self.output_bytes(), output_len),
        ] {
            if len < needed {
                return Err(Q8taError::BufferTooSmall { what, needed, len });
            }
        }
        Ok(())
    }

    /// The layouts and passthrough the shaders are specialized or built for.
    pub fn axes(&self) -> Axes {
        Axes {
            in_layout: self.in_layout,
            out_layout: self.out_layout,
            passthrough: self.requant.passthrough,
        }
    }

    /// The `(name, value)` pairs to select the baseline's variant
    /// (`q8ta_pixel_shuffle_baseline.comp` has build-time axes `IN_LAYOUT`,
    /// `OUT_LAYOUT`, `PASSTHROUGH`).
    pub fn axis_values(&self) -> [(&'static str, i64); 3] {
        [
            ("IN_LAYOUT", self.in_layout.axis_value()),
            ("OUT_LAYOUT", self.out_layout.axis_value()),
            ("PASSTHROUGH", self.requant.passthrough as i64),
        ]
    }

    /// The new kernel's specialization constants for this shuffle on `path`
    /// ([`shuffle_specialization`]).
    pub fn specialization(&self, path: ShufflePath) -> [(u32, SpecValue); 4] {
        shuffle_specialization(
            self.in_layout,
            self.out_layout,
            self.requant.passthrough,
            path,
        )
    }

    /// The new kernel's path for this shuffle on a device of type `device`
    /// ([`model::shuffle_path`]).
    pub fn path(&self, device: DeviceType) -> ShufflePath {
        model::shuffle_path(self.input, self.axes(), device)
    }

    /// The new kernel's grid in invocations (not workgroups) on `path`.
    pub fn grid(&self, path: ShufflePath) -> [u32; 3] {
        model::shuffle_grid(self.input, path)
    }

    /// The baseline's grid in invocations.
    pub fn baseline_grid(&self) -> [u32; 3] {
        model::baseline_grid(self.input, self.out_layout)
    }

    /// The new kernel's workgroup shape for this layout pair on `path`
    /// ([`shuffle_local_size`]). The shader declares `local_size_*_id`, so the
    /// runtime patches it.
    pub fn local_size(&self, path: ShufflePath) -> [u32; 3] {
        shuffle_local_size(self.input, self.in_layout, self.out_layout, path)
    }
}

/// The specialization constants of `q8ta_pixel_shuffle.comp`, one blob for
/// every layout pair, quantization and path, as
/// [`crate::PipelineOptions::specialization`] takes them: `IN_LAYOUT` (id 3)
/// and `OUT_LAYOUT` (id 4), [`Layout`]'s discriminants, `PASSTHROUGH`
/// (id 5), 1 when the requantization is the identity
/// ([`Requant::passthrough`]), and `PATH` (id 6), [`ShufflePath`]'s
/// discriminants; all `int`.
pub fn shuffle_specialization(
    in_layout: Layout,
    out_layout: Layout,
    passthrough: bool,
    path: ShufflePath,
) -> [(u32, SpecValue); 4] {
    [
        (3, SpecValue::Int(in_layout.axis_value() as i32)),
        (4, SpecValue::Int(out_layout.axis_value() as i32)),
        (5, SpecValue::Int(passthrough as i32)),
        (6, SpecValue::Int(path as i32)),
    ]
}

/// See [`PixelShuffle::local_size`]. The tiled and quad paths' shapes were
/// chosen on an NVIDIA H200 by `q8ta_bench --sweep` at `[8,256,256,256]`,
/// passthrough, with the GPU at full clocks (the sweeps and choices are
/// `bench/h200-sweep-{tile,quad}.json` and `bench/h200-best-{tile,quad}.json`;
/// the quad path into 4C, `bench/h200-sweep-quad-4c.json`, at both large sizes).
/// A GPU runs the tile path only from 4C1W into 4C; elsewhere it serves CPU drivers,
/// so those pairs take the compact `4x8x1` (best or within 3% of it on the
/// H200 for every such pair but 4C1W -> 4C1W, whose best, `2x128x1`, leaves
/// most of a 16-wide row's invocations idle). The word-by-word path takes
/// `4x16x4` (of 8 shapes swept on the H200 from `[1,256,16,16]` to
/// `[1,256,128,128]`, `bench/h200-sweep-words.json`, it had the best or
/// nearly the best speedup over the baseline at every size, and the best worst
/// case; the seed's Adreno 830 shapes were 1-10% slower), except into 4C1W
/// on tensors of 2^25 elements or more (32 MiB: input and output no longer
/// fit the H200's 50 MB L2), where whole rows of 128 pixels per workgroup
/// (`1x128x1`, from 4C1W or 4W4C, W >= 128) or `4x32x2` (from 4C) moved
/// 95-100% and 90-92% of a copy's bandwidth, against 89-93% for `4x16x4`
/// (`bench/h200-sweep-words-4c1w.json`).
pub fn shuffle_local_size(
    input: Shape,
    in_layout: Layout,
    out_layout: Layout,
    path: ShufflePath,
) -> [u32; 3] {
    use Layout::{Packed4C as C, Packed4C1W as C1W, Packed4W4C as W4C};
    match path {
        ShufflePath::Tile => match (in_layout, out_layout) {
            (C1W, C) => [4, 8, 2],
            (W4C, C) => [4, 2, 8],
            _ => [4, 8, 1],
        },
        ShufflePath::Quad => match (in_layout, out_layout) {
            (C | W4C, W4C) => [16, 1, 4],
            (C1W, W4C) => [8, 16, 1],
            (C1W, C1W) => [1, 128, 1],
            (C | W4C, C) => [16, 2, 1],
            (C1W, C) => [16, 8, 1],
            _ => [8, 4, 1],
        },
        ShufflePath::Words => match (in_layout, out_layout) {
            (C1W | W4C, C1W) if input.elements() >= 1 << 25 && input.w >= 128 => [1, 128, 1],
            (C, C1W) if input.elements() >= 1 << 25 => [4, 32, 2],
            _ => [4, 16, 4],
        },
    }
}

/// A dispatch of one shuffle kernel: the workgroups to launch and its push constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Workgroups per axis, y and z clamped to the device's maximum.
    pub groups: [u32; 3],
    /// The workgroup shape.
    pub local: [u32; 3],
    /// The push constants, with the grid-stride steps of the launched grid.
    pub push: ShufflePush,
}

impl PixelShuffle {
    /// The launch of the new kernel on `path` (`Some`, checked against the
    /// shape and output layout) or of the baseline (`None`) at local size
    /// `local`, for a device whose `maxComputeWorkGroupCount` is `max_groups`:
    /// y and z are clamped (the shaders loop over them), x must fit.
    pub fn launch(
        &self,
        path: Option<ShufflePath>,
        local: [u32; 3],
        max_groups: [u32; 3],
    ) -> Result<Launch, Q8taError> {
        let grid = match path {
            None => self.baseline_grid(),
            Some(p) => {
                p.check(self.input).map_err(|needs| Q8taError::Path {
                    path: p.name(),
                    needs,
                })?;
                model::shuffle_grid(self.input, p)
            }
        };
        let want_x = grid[0].div_ceil(local[0]);
        if want_x > max_groups[0] {
            return Err(Q8taError::GridTooLarge {
                axis: "x",
                groups: want_x as u64,
                max: max_groups[0],
            });
        }
        let (groups, launched) = model::launch(grid, local, max_groups);
        Ok(Launch {
            groups,
            local,
            push: ShufflePush::new(self.input, &self.requant, launched, local),
        })
    }
}
