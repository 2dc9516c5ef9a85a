//! One dispatch: its arguments, their checks, and its commands (descriptors,
//! push constants, the grid, optionally in `vkCmdDispatchBase` pieces).
//! Submission, the barriers between steps and the timestamps are
//! [`Sequence`](crate::Sequence)'s.
//!
//! A grid past `maxComputeWorkGroupCount` is an error, not split: Vulkan
//! bounds `vkCmdDispatchBase` too (VUID-vkCmdDispatchBase-baseGroupX-00421:
//! base < limit; -groupCountX-00424: count <= limit - base), so no base
//! offset reaches a workgroup id past the limit. Layer 1.3.239 does not
//! check these VUIDs and lavapipe runs such pieces right, which is how a
//! split past the limit can look fine here and be invalid on a GPU. Work
//! past the limit needs the shader's help (an offset push constant, or a
//! loop over the grid).

use ash::vk;
use ncnn_glsl_core::reflection::BindingKind;

use ncnn_glsl_core::variant::VariantSet;

use crate::buffer::Buffer;
use crate::error::{Error, Result};
use crate::pipeline::{descriptor_type, Pipeline, Slot};
use crate::submit::barrier;

/// One dispatch's arguments.
#[derive(Clone, Copy, Debug)]
pub struct Dispatch<'a> {
    /// One buffer per [`Pipeline::slots`], in that order.
    pub buffers: &'a [&'a Buffer],
    /// The block names the buffers are meant for, checked against the
    /// slots' names when given ([`Dispatch::typed`] gives them).
    pub names: Option<&'a [&'a str]>,
    /// The variant sets the push constants' and the buffers' host types
    /// were generated for ([`Dispatch::typed`] gives them): each one given
    /// must hold the pipeline's blob.
    pub sets: [Option<&'static VariantSet>; 2],
    /// Exactly [`Pipeline::push_constant_size`] bytes.
    pub push_constants: &'a [u8],
    /// The part of each buffer its slot binds, one per buffer (the offset
    /// and range of `VkDescriptorBufferInfo`, as ncnn binds a blob inside a
    /// larger buffer); `None` binds every buffer whole. The shader sees the
    /// range only: its array lengths and bounds clamps are the range's.
    pub ranges: Option<&'a [BufferRange]>,
    /// Workgroups on each axis.
    pub groups: [u32; 3],
    /// The largest piece on each axis, to run the grid as several
    /// `vkCmdDispatchBase` calls with a barrier between them (shorter
    /// submissions, and the split path under test); `None`: one piece. At
    /// most [`MAX_PIECES`] pieces.
    pub max_piece: Option<[u32; 3]>,
}

impl<'a> Dispatch<'a> {
    /// A dispatch of `groups` workgroups in one piece.
    pub fn new(buffers: &'a [&'a Buffer], push_constants: &'a [u8], groups: [u32; 3]) -> Self {
        Dispatch {
            buffers,
            names: None,
            sets: [None; 2],
            push_constants,
            ranges: None,
            groups,
            max_piece: None,
        }
    }

    /// The same dispatch with each buffer bound at `ranges[i]` only.
    pub fn with_ranges(self, ranges: &'a [BufferRange]) -> Self {
        Dispatch {
            ranges: Some(ranges),
            ..self
        }
    }

    /// A dispatch from the typed host side of `include_ncnn_shader!(mod ...)`:
    /// the buffers by name (`Buffers { .. }.bind()`), the push constants as
    /// the generated `PushConstants` struct. Both belong to one variant set,
    /// and the dispatch runs only on a pipeline of that set's blobs (checked
    /// when it is run or added to a sequence).
    pub fn typed<P: bytemuck::NoUninit + OfSet, const N: usize>(
        buffers: &'a Bound<'a, N>,
        push_constants: &'a P,
        groups: [u32; 3],
    ) -> Self {
        Dispatch {
            buffers: &buffers.buffers,
            names: Some(buffers.names),
            sets: [Some(P::set()), buffers.set],
            push_constants: bytemuck::bytes_of(push_constants),
            ranges: None,
            groups,
            max_piece: None,
        }
    }
}

/// Bytes `offset..offset + size` of a buffer, bound to one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferRange {
    /// The first byte: a multiple of the device's
    /// `minStorageBufferOffsetAlignment` (`minUniformBufferOffsetAlignment`
    /// for a uniform block).
    pub offset: u64,
    /// Bytes bound, at least one.
    pub size: u64,
}

impl BufferRange {
    /// Bytes `offset..offset + size`.
    pub fn new(offset: u64, size: u64) -> Self {
        BufferRange { offset, size }
    }
}

/// A host type generated for one variant set by
/// `include_ncnn_shader!(mod ...)` (its `PushConstants`): a typed dispatch
/// runs only on a pipeline of that set.
pub trait OfSet {
    /// The variant set the type was generated for.
    fn set() -> &'static VariantSet;
}

/// Buffers in a pipeline's slot order with the block names they are for
/// (what a generated `Buffers::bind` returns, with its variant set).
#[derive(Clone, Copy, Debug)]
pub struct Bound<'a, const N: usize> {
    buffers: [&'a Buffer; N],
    names: &'static [&'static str; N],
    set: Option<&'static VariantSet>,
}

impl<'a, const N: usize> Bound<'a, N> {
    /// `buffers[i]` is for the block `names[i]`.
    pub fn new(buffers: [&'a Buffer; N], names: &'static [&'static str; N]) -> Self {
        Bound {
            buffers,
            names,
            set: None,
        }
    }

    /// `buffers[i]` is for the block `names[i]` of the shader of `set`.
    pub fn of_set(
        set: &'static VariantSet,
        buffers: [&'a Buffer; N],
        names: &'static [&'static str; N],
    ) -> Self {
        Bound {
            buffers,
            names,
            set: Some(set),
        }
    }
}

/// The most pieces [`Dispatch::max_piece`] may split one grid into.
pub const MAX_PIECES: u64 = 1 << 16;

/// The pieces of a grid: (base, count) per axis, each count within `max`.
pub(crate) fn pieces(groups: [u32; 3], max: [u32; 3]) -> Vec<([u32; 3], [u32; 3])> {
    let axis = |n: u32, m: u32| -> Vec<(u32, u32)> {
        (0..n.div_ceil(m))
            .map(|i| (i * m, m.min(n - i * m)))
            .collect()
    };
    let (xs, ys, zs) = (
        axis(groups[0], max[0]),
        axis(groups[1], max[1]),
        axis(groups[2], max[2]),
    );
    let mut out = Vec::new();
    for &(bz, cz) in &zs {
        for &(by, cy) in &ys {
            for &(bx, cx) in &xs {
                out.push(([bx, by, bz], [cx, cy, cz]));
            }
        }
    }
    out
}

impl Pipeline {
    /// Checks `args` against the shader and the device; the grid's pieces.
    pub(crate) fn check(&self, args: &Dispatch<'_>) -> Result<Vec<([u32; 3], [u32; 3])>> {
        let ctx = &self.ctx;
        let limits = ctx.limits();
        if args.buffers.len() != self.slots.len() {
            return Err(Error::bad(
                format!("number of buffers for {}", self.name),
                args.buffers.len(),
                format!("the shader binds {}", self.slots.len()),
            ));
        }
        for set in args.sets.into_iter().flatten() {
            if !set.variants().iter().any(|v| self.is_blob(v.blob)) {
                return Err(Error::bad(
                    format!("typed arguments for {}", self.name),
                    format!("the host types of `{}`", set.name),
                    "a typed dispatch runs on a pipeline of its own shader's variants",
                ));
            }
        }
        if let Some(names) = args.names {
            let slots: Vec<&str> = self.slots.iter().map(|s| s.name.as_str()).collect();
            if names != slots.as_slice() {
                return Err(Error::bad(
                    format!("buffers for {}", self.name),
                    format!("buffers for the blocks {names:?}"),
                    format!("the pipeline binds {slots:?} (another shader's host types?)"),
                ));
            }
        }
        if let Some(ranges) = args.ranges {
            if ranges.len() != args.buffers.len() {
                return Err(Error::bad(
                    format!("number of buffer ranges for {}", self.name),
                    ranges.len(),
                    format!("one per buffer: {} buffers", args.buffers.len()),
                ));
            }
        }
        for (i, (slot, b)) in self.slots.iter().zip(args.buffers).enumerate() {
            let range = match args.ranges {
                Some(r) => self.check_range(slot, b, r[i])?,
                None => BufferRange::new(0, b.size()),
            };
            let (what, bound) = match args.ranges {
                Some(_) => ("size of the range bound for", range.size),
                None => ("size of the buffer for", b.size()),
            };
            if bound < slot.min_size {
                return Err(Error::bad(
                    format!("{what} `{}`", slot.name),
                    bound,
                    format!(
                        "the shader needs {} bytes: the block's fixed-size part and one element \
                         of its runtime-sized array",
                        slot.min_size
                    ),
                ));
            }
            // An index into an element that straddles the end is clamped
            // into the last whole one: silently another element's data.
            let stride = slot.array_stride;
            let fixed = slot.min_size.saturating_sub(stride);
            if stride > 0 && (bound - fixed) % stride != 0 {
                let whole = fixed + (bound - fixed).div_ceil(stride) * stride;
                return Err(Error::bad(
                    format!("{what} `{}`", slot.name),
                    bound,
                    format!(
                        "the shader reads it as {stride}-byte elements after {fixed} bytes, and \
                         an index past the last whole element is clamped into it: make it \
                         {whole} bytes"
                    ),
                ));
            }
            let (limit, name) = match slot.kind {
                BindingKind::UniformBuffer => {
                    (limits.max_uniform_buffer_range, "maxUniformBufferRange")
                }
                _ => (limits.max_storage_buffer_range, "maxStorageBufferRange"),
            };
            if bound > u64::from(limit) {
                return Err(Error::bad(
                    format!("{what} `{}`", slot.name),
                    bound,
                    format!("{name} is {limit}"),
                ));
            }
            if !std::sync::Arc::ptr_eq(&b.ctx, ctx) {
                return Err(Error::bad(
                    format!("buffer for `{}`", slot.name),
                    "a buffer of another context",
                    "buffers must come from the pipeline's context",
                ));
            }
        }
        if args.push_constants.len() != self.push_constant_size as usize {
            return Err(Error::bad(
                format!("push-constant bytes for {}", self.name),
                args.push_constants.len(),
                format!("the shader's block is {} bytes", self.push_constant_size),
            ));
        }
        let device_max = limits.max_compute_work_group_count;
        let max = args.max_piece.unwrap_or(device_max);
        for i in 0..3 {
            if max[i] == 0 || max[i] > device_max[i] {
                return Err(Error::bad(
                    format!("max_piece[{i}]"),
                    max[i],
                    format!(
                        "it must be 1..={} (maxComputeWorkGroupCount[{i}])",
                        device_max[i]
                    ),
                ));
            }
            if args.groups[i] > device_max[i] {
                return Err(Error::bad(
                    format!("workgroups on axis {}", ["x", "y", "z"][i]),
                    args.groups[i],
                    format!(
                        "maxComputeWorkGroupCount[{i}] is {}, which bounds vkCmdDispatchBase \
                         pieces too (base + count); split the work in the shader",
                        device_max[i]
                    ),
                ));
            }
        }
        // Each piece is a command and a barrier: `max_piece: Some([1, 1, 1])`
        // over a large grid would be billions of them (and their list).
        let count: u64 = (0..3)
            .map(|i| u64::from(args.groups[i].div_ceil(max[i])))
            .product();
        if count > MAX_PIECES {
            return Err(Error::bad(
                "vkCmdDispatchBase pieces of the grid",
                count,
                format!("at most {MAX_PIECES} per dispatch: a larger `max_piece`"),
            ));
        }
        Ok(if args.groups.contains(&0) {
            Vec::new()
        } else {
            pieces(args.groups, max)
        })
    }

    /// `range` of `b` for `slot`, checked against the buffer and the
    /// device's offset alignment.
    fn check_range(&self, slot: &Slot, b: &Buffer, range: BufferRange) -> Result<BufferRange> {
        let limits = self.ctx.limits();
        let (align, name) = match slot.kind {
            BindingKind::UniformBuffer => (
                limits.min_uniform_buffer_offset_alignment,
                "minUniformBufferOffsetAlignment",
            ),
            _ => (
                limits.min_storage_buffer_offset_alignment,
                "minStorageBufferOffsetAlignment",
            ),
        };
        if align > 0 && range.offset % align != 0 {
            return Err(Error::bad(
                format!("offset of the range bound for `{}`", slot.name),
                range.offset,
                format!("it must be a multiple of {align} ({name})"),
            ));
        }
        if range.size == 0 {
            return Err(Error::bad(
                format!("size of the range bound for `{}`", slot.name),
                0,
                "a range holds at least one byte",
            ));
        }
        match range.offset.checked_add(range.size) {
            Some(end) if end <= b.size() => Ok(range),
            _ => Err(Error::bad(
                format!("range bound for `{}`", slot.name),
                format!("{} bytes at offset {}", range.size, range.offset),
                format!("the buffer holds {} bytes", b.size()),
            )),
        }
    }

    /// Storage and uniform descriptors one dispatch binds.
    pub(crate) fn descriptor_counts(&self) -> (u32, u32) {
        let storage = self
            .slots
            .iter()
            .filter(|s| s.kind != BindingKind::UniformBuffer)
            .count() as u32;
        (storage, self.slots.len() as u32 - storage)
    }

    /// Points this pipeline's freshly allocated `sets` at `args.buffers`.
    pub(crate) fn write_sets(&self, sets: &[vk::DescriptorSet], args: &Dispatch<'_>) {
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = args
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let r = args.ranges.map_or(BufferRange::new(0, b.size()), |r| r[i]);
                [vk::DescriptorBufferInfo::default()
                    .buffer(b.buffer)
                    .offset(r.offset)
                    .range(r.size)]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = self
            .slots
            .iter()
            .zip(&infos)
            .map(|(s, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(sets[s.set as usize])
                    .dst_binding(s.binding)
                    .descriptor_type(descriptor_type(s.kind))
                    .buffer_info(info)
            })
            .collect();
        // SAFETY: `sets` were just allocated for this pipeline's layouts and
        // no command uses them; each write matches its slot's binding and type;
        // `check` made the buffers this context's, and each range inside its
        // buffer, aligned, and within the range limits.
        unsafe { self.ctx.device().update_descriptor_sets(&writes, &[]) };
    }

    /// Records the dispatch itself: pipeline, sets, push constants, and the
    /// grid's pieces with a barrier between pieces.
    pub(crate) fn record(
        &self,
        cmd: vk::CommandBuffer,
        sets: &[vk::DescriptorSet],
        args: &Dispatch<'_>,
        pieces: &[([u32; 3], [u32; 3])],
    ) {
        let d = self.ctx.device();
        let barriers = self.ctx.barriers_on();
        // SAFETY: `cmd` is recording (inside `submit_and_wait`); `sets` were
        // made for this layout; the push constants fill its range (`check`);
        // pieces stay within maxComputeWorkGroupCount; DISPATCH_BASE is set.
        unsafe {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            if !sets.is_empty() {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    self.layout,
                    0,
                    sets,
                    &[],
                );
            }
            if !args.push_constants.is_empty() {
                d.cmd_push_constants(
                    cmd,
                    self.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    args.push_constants,
                );
            }
            for (i, (base, count)) in pieces.iter().enumerate() {
                if i > 0 && barriers {
                    // Pieces may write the same buffers: order them, as
                    // synchronization validation requires.
                    barrier(
                        d,
                        cmd,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::AccessFlags::SHADER_WRITE,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                    );
                }
                if *base == [0, 0, 0] {
                    // Plain vkCmdDispatch where no base is needed: the
                    // validation layer (1.3.239) tracks its accesses, not
                    // those of vkCmdDispatchBase.
                    d.cmd_dispatch(cmd, count[0], count[1], count[2]);
                } else {
                    d.cmd_dispatch_base(
                        cmd, base[0], base[1], base[2], count[0], count[1], count[2],
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_grid_once() {
        let p = pieces([70_000, 3, 1], [65_535, 2, 65_535]);
        assert_eq!(p.len(), 4);
        let mut covered = 0u64;
        for (b, c) in &p {
            assert!(c.iter().zip([65_535, 2, 65_535]).all(|(c, m)| *c <= m));
            covered += u64::from(c[0]) * u64::from(c[1]) * u64::from(c[2]);
            assert!(b[0] + c[0] <= 70_000 && b[1] + c[1] <= 3);
        }
        assert_eq!(covered, 70_000 * 3);
    }
}
