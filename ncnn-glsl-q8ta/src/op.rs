//! A validated pixel shuffle, ready for a dispatch: everything the Vulkan glue
//! needs (specialization constants or variant axes, push constants, grids,
//! local sizes, buffer sizes), checked once on the host so that a bad call
//! dispatches nothing.

use super::check::check_shuffle_shapes;
use super::error::Q8taError;
use super::launch::{self, Axes, BlockAxis, Rewrite, ShufflePath};
use super::layout::Layout;
use super::push::ShufflePush;
use super::quant::{QuantParams, Requant};
use super::shape::Shape;
use ncnn_glsl_runtime::SpecValue;

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

    /// The new kernel's specialization constants for this shuffle run as
    /// `k` says ([`shuffle_specialization`]).
    pub fn specialization(&self, k: Rewrite) -> [(u32, SpecValue); 6] {
        shuffle_specialization(self.in_layout, self.out_layout, self.requant.passthrough, k)
    }

    /// The new kernel's grid in invocations (not workgroups) on `path`, the
    /// blocks on `blocks`.
    pub fn grid(&self, path: ShufflePath, blocks: BlockAxis) -> [u32; 3] {
        launch::shuffle_grid(self.input, path, blocks)
    }

    /// The baseline's grid in invocations.
    pub fn baseline_grid(&self) -> [u32; 3] {
        launch::baseline_grid(self.input, self.out_layout)
    }
}

/// The specialization constants of `q8ta_pixel_shuffle.comp`, one blob for
/// every layout pair, quantization and path, as
/// [`ncnn_glsl_runtime::PipelineOptions::specialization`] takes them: `IN_LAYOUT` (id 3)
/// and `OUT_LAYOUT` (id 4), [`Layout`]'s discriminants, `PASSTHROUGH`
/// (id 5), 1 when the requantization is the identity
/// ([`Requant::passthrough`]), `PATH` (id 6), [`ShufflePath`]'s
/// discriminants, `REQUANT_TABLE` (id 7), [`launch::Requantization::spec_value`], and
/// `BLOCKS_ON_Y` (id 8), [`BlockAxis`]'s; all `int`.
pub fn shuffle_specialization(
    in_layout: Layout,
    out_layout: Layout,
    passthrough: bool,
    k: Rewrite,
) -> [(u32, SpecValue); 6] {
    [
        (3, SpecValue::Int(in_layout.axis_value() as i32)),
        (4, SpecValue::Int(out_layout.axis_value() as i32)),
        (5, SpecValue::Int(passthrough as i32)),
        (6, SpecValue::Int(k.path as i32)),
        (7, SpecValue::Int(k.requant.spec_value())),
        (8, SpecValue::Int(k.blocks as i32)),
    ]
}

/// The build-time axis of `q8ta_pixel_shuffle.comp`'s variant for `k`:
/// `LUT_COPIES`, the copies of the requantization table its shared memory holds.
pub fn shuffle_axes(k: Rewrite) -> [(&'static str, i64); 1] {
    [("LUT_COPIES", k.requant.lut_copies())]
}

/// A dispatch of one shuffle kernel: the workgroups to launch and its push constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Launch {
    /// Workgroups per axis, the blocks' axis never clamped to the device's
    /// maximum (the shaders do not loop over it), the others clamped.
    pub groups: [u32; 3],
    /// The workgroup shape.
    pub local: [u32; 3],
    /// The push constants, with the grid-stride steps of the launched grid.
    pub push: ShufflePush,
}

impl PixelShuffle {
    /// The launch of the new kernel as `k` says (`Some`, its path checked
    /// against the shape) or of the baseline (`None`) at local size `local`,
    /// for a device whose `maxComputeWorkGroupCount` is `max_groups`: the
    /// axis of the output channel blocks (x for the baseline's output width)
    /// must fit, the other two are clamped (the shaders loop over them).
    pub fn launch(
        &self,
        k: Option<Rewrite>,
        local: [u32; 3],
        max_groups: [u32; 3],
    ) -> Result<Launch, Q8taError> {
        let mut max_groups = max_groups;
        let (grid, blocks) = match k {
            None => (self.baseline_grid(), BlockAxis::X),
            Some(k) => {
                k.path.check(self.input).map_err(|needs| Q8taError::Path {
                    path: k.path.name(),
                    needs,
                })?;
                if k.requant.uses_float() && !(self.requant.passthrough || self.requant.float_exact)
                {
                    return Err(Q8taError::FloatInexact {
                        requantization: k.requant.name(),
                        ratio: self.requant.ratio,
                    });
                }
                let grid = self.grid(k.path, k.blocks);
                let per_group = u64::from(local[2].max(1)) * u64::from(k.rows.max(1));
                let z = u64::from(grid[2]).div_ceil(per_group).max(1);
                max_groups[2] = max_groups[2].min(z.try_into().unwrap_or(u32::MAX));
                (grid, k.blocks)
            }
        };
        let fixed = blocks.index();
        let want = grid[fixed].div_ceil(local[fixed]);
        if want > max_groups[fixed] {
            return Err(Q8taError::GridTooLarge {
                axis: ["x", "y"][fixed],
                groups: want as u64,
                max: max_groups[fixed],
            });
        }
        let (groups, launched) = launch::launch_shuffle(grid, local, max_groups, blocks);
        Ok(Launch {
            groups,
            local,
            push: ShufflePush::new(self.input, &self.requant, launched, local),
        })
    }
}
