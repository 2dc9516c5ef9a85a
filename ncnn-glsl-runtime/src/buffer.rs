//! Device-local buffers and moving bytes in and out of them: straight
//! through the mapping where the memory is host-visible and coherent, else
//! (or when the context forces it) through a host-visible staging buffer and
//! a copy on the queue. (The timed device-to-device copy, [`Buffer::copy_from`],
//! is a one-step [`crate::Sequence`].)

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::{AllocationError, MemoryLocation};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::storage::FloatStorage;
use crate::submit::barrier;

/// How a buffer's bytes move between host and device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transfer {
    /// memcpy through the buffer's own mapping.
    Direct,
    /// Through a staging buffer and a copy command.
    Staging,
}

/// A device-local buffer usable as a storage or uniform buffer.
pub struct Buffer {
    pub(crate) ctx: Arc<Context>,
    pub(crate) buffer: vk::Buffer,
    allocation: Option<Allocation>,
    size: u64,
    transfer: Transfer,
    /// How its floats are stored, where the host made or wrote it for
    /// floats ([`Buffer::for_floats`], [`Buffer::write_floats`]).
    storage: Option<FloatStorage>,
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("size", &self.size)
            .field("transfer", &self.transfer)
            .finish()
    }
}

/// A raw buffer and its memory, freed together.
fn make(
    ctx: &Context,
    size: u64,
    usage: vk::BufferUsageFlags,
    location: MemoryLocation,
    name: &str,
    dedicated: bool,
) -> Result<(vk::Buffer, Allocation)> {
    if size == 0 {
        return Err(Error::bad("buffer size", 0, "it must be at least 1 byte"));
    }
    // The allocator would fail anyway; checking first names the real limit.
    if size > ctx.heap_size {
        return Err(Error::OutOfDeviceMemory {
            requested: size,
            detail: format!("the largest device-local heap has {} bytes", ctx.heap_size),
        });
    }
    let d = ctx.device();
    let info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: `info` outlives the call, with a non-zero size (checked above)
    // and a non-empty usage; `d` is the context's live device.
    let buffer = unsafe { d.create_buffer(&info, None) }.map_err(|e| {
        match Error::vk("vkCreateBuffer", e) {
            Error::OutOfDeviceMemory { detail, .. } => Error::OutOfDeviceMemory {
                requested: size,
                detail,
            },
            other => other,
        }
    })?;
    // SAFETY: `buffer` was just created from `d`.
    let requirements = unsafe { d.get_buffer_memory_requirements(buffer) };
    let allocation = ctx
        .allocator()
        .as_mut()
        .ok_or(Error::DeviceLost)
        .and_then(|a| {
            a.allocate(&AllocationCreateDesc {
                name,
                requirements,
                location,
                linear: true,
                allocation_scheme: if dedicated {
                    AllocationScheme::DedicatedBuffer(buffer)
                } else {
                    AllocationScheme::GpuAllocatorManaged
                },
            })
            .map_err(|e| match e {
                AllocationError::OutOfMemory => Error::OutOfDeviceMemory {
                    requested: size,
                    detail: "the allocator found no memory".into(),
                },
                e => Error::Allocator(e.to_string()),
            })
        });
    let allocation = match allocation {
        Ok(a) => a,
        Err(e) => {
            // SAFETY: `buffer` is `d`'s, unbound, and no command refers to it.
            unsafe { d.destroy_buffer(buffer, None) };
            return Err(e);
        }
    };
    if let Err(e) =
        // SAFETY: `buffer` is not bound yet; the allocation was made from this
        // device's memory for its requirements (type, size, alignment), and
        // `offset` is where the allocation starts in that memory.
        unsafe { d.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) }
    {
        // SAFETY: `buffer` is `d`'s and no command refers to it.
        unsafe { d.destroy_buffer(buffer, None) };
        if let Some(a) = ctx.allocator().as_mut() {
            let _ = a.free(allocation);
        }
        return Err(Error::vk("vkBindBufferMemory", e));
    }
    Ok((buffer, allocation))
}

/// A staging buffer, destroyed on drop.
struct Staging<'a> {
    ctx: &'a Context,
    buffer: vk::Buffer,
    allocation: Option<Allocation>,
}

impl Staging<'_> {
    fn new(ctx: &Context, size: u64, location: MemoryLocation) -> Result<Staging<'_>> {
        let usage = vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
        let (buffer, allocation) = make(ctx, size, usage, location, "ncnn-glsl staging", false)?;
        Ok(Staging {
            ctx,
            buffer,
            allocation: Some(allocation),
        })
    }

    fn bytes(&mut self) -> Result<&mut [u8]> {
        mapped(self.allocation.as_mut())
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        // SAFETY: the staging buffer is this device's, and the one
        // submission that used it was waited for by `submit_and_wait`.
        unsafe { self.ctx.device().destroy_buffer(self.buffer, None) };
        if let (Some(a), Some(alloc)) = (self.allocation.take(), self.ctx.allocator().as_mut()) {
            let _ = alloc.free(a);
        }
    }
}

/// Bytes of `n` floats stored as `storage`, refused past `limit` (or past
/// what a `usize` holds) with the count and the limit.
fn float_bytes(storage: FloatStorage, n: usize, limit: Option<u64>, what: &str) -> Result<u64> {
    n.checked_mul(storage.element_bytes())
        .and_then(|b| (b as u64).div_ceil(4).checked_mul(4))
        .filter(|&b| limit.is_none_or(|l| b <= l))
        .ok_or_else(|| {
            Error::bad(
                format!("{what} of {n} floats"),
                format!("{n} x {} bytes", storage.element_bytes()),
                match limit {
                    Some(l) => format!("the buffer holds {l} bytes"),
                    None => "it must fit in memory".to_string(),
                },
            )
        })
}

/// The mapped bytes of a host-visible, coherent allocation.
fn mapped(a: Option<&mut Allocation>) -> Result<&mut [u8]> {
    a.and_then(|a| a.mapped_slice_mut())
        .ok_or_else(|| Error::Allocator("a host-visible allocation is not mapped".into()))
}

impl Buffer {
    /// A device-local buffer of `size` bytes.
    pub fn new(ctx: &Arc<Context>, size: u64) -> Result<Buffer> {
        Buffer::create(ctx, size, false)
    }

    /// A device-local buffer of `size` bytes in its own `VkDeviceMemory`
    /// (`VkMemoryDedicatedAllocateInfo`) rather than a shared block.
    pub fn new_dedicated(ctx: &Arc<Context>, size: u64) -> Result<Buffer> {
        Buffer::create(ctx, size, true)
    }

    fn create(ctx: &Arc<Context>, size: u64, dedicated: bool) -> Result<Buffer> {
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let (buffer, allocation) = make(
            ctx,
            size,
            usage,
            MemoryLocation::GpuOnly,
            "ncnn-glsl buffer",
            dedicated,
        )?;
        // Coherent memory only: the direct path does no flush or invalidate.
        let direct = allocation.mapped_ptr().is_some()
            && allocation.memory_properties().contains(
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            );
        Ok(Buffer {
            ctx: ctx.clone(),
            buffer,
            allocation: Some(allocation),
            size,
            transfer: if direct && !ctx.options().force_staging {
                Transfer::Direct
            } else {
                Transfer::Staging
            },
            storage: None,
        })
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// How its bytes move.
    pub fn transfer(&self) -> Transfer {
        self.transfer
    }

    /// The Vulkan buffer, for code that records its own commands.
    pub fn handle(&self) -> vk::Buffer {
        self.buffer
    }

    fn check_len(&self, len: usize, what: &str) -> Result<()> {
        if len as u64 > self.size {
            return Err(Error::bad(
                format!("{what} length"),
                len,
                format!("the buffer holds {} bytes", self.size),
            ));
        }
        Ok(())
    }

    /// Writes `data` at the start of the buffer. The device sees it in every
    /// later dispatch (each dispatch begins with a barrier for it).
    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        self.check_len(data.len(), "write")?;
        if data.is_empty() {
            return Ok(());
        }
        match self.transfer {
            Transfer::Direct => {
                // Earlier dispatches were waited for, so nothing reads the
                // memory now; host writes are visible to the next submission.
                mapped(self.allocation.as_mut())?[..data.len()].copy_from_slice(data);
                Ok(())
            }
            Transfer::Staging => {
                let ctx = self.ctx.clone();
                let mut staging = Staging::new(&ctx, data.len() as u64, MemoryLocation::CpuToGpu)?;
                staging.bytes()?[..data.len()].copy_from_slice(data);
                let d = ctx.device();
                let barriers = ctx.barriers_on();
                ctx.submit_and_wait(|cmd| {
                    if !barriers {
                        let region = [vk::BufferCopy::default().size(data.len() as u64)];
                        // SAFETY: `cmd` is recording; both buffers are this device's, have
                        // transfer usage, hold `data.len()` bytes (`check_len`, the staging's
                        // size) and outlive the wait in `submit_and_wait`.
                        unsafe { d.cmd_copy_buffer(cmd, staging.buffer, self.buffer, &region) };
                        return Ok(());
                    }
                    // Earlier shader reads and writes of this buffer before the copy overwrites it.
                    barrier(
                        d,
                        cmd,
                        vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::SHADER_READ
                            | vk::AccessFlags::SHADER_WRITE
                            | vk::AccessFlags::TRANSFER_WRITE,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::TRANSFER_WRITE,
                    );
                    let region = [vk::BufferCopy::default().size(data.len() as u64)];
                    // SAFETY: as in the branch without barriers above.
                    unsafe { d.cmd_copy_buffer(cmd, staging.buffer, self.buffer, &region) };
                    // The copy before any later shader access.
                    barrier(
                        d,
                        cmd,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::TRANSFER_WRITE,
                        vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::SHADER_READ
                            | vk::AccessFlags::SHADER_WRITE
                            | vk::AccessFlags::TRANSFER_READ,
                    );
                    Ok(())
                })
            }
        }
    }

    /// A buffer for `n` floats stored as `storage` (a whole number of 32-bit
    /// words, as the packed modes read them).
    pub fn for_floats(ctx: &Arc<Context>, storage: FloatStorage, n: usize) -> Result<Buffer> {
        let bytes = float_bytes(storage, n, None, "buffer")?;
        let mut b = Buffer::new(ctx, bytes)?;
        b.storage = Some(storage);
        Ok(b)
    }

    /// Writes `values` at the start of the buffer in the bytes a variant
    /// with `storage` reads (`FloatStorage::of(variant.target.options)`:
    /// fp32, fp16 or bf16 bits, packed or not); the buffer then holds
    /// `storage` floats.
    pub fn write_floats(&mut self, storage: FloatStorage, values: &[f32]) -> Result<()> {
        self.write(&storage.encode(values))?;
        self.storage = Some(storage);
        Ok(())
    }

    /// How the buffer's floats are stored, where it was made or last written
    /// for floats; `None` for a buffer made by [`Buffer::new`] and never
    /// written with [`Buffer::write_floats`].
    pub fn float_storage(&self) -> Option<FloatStorage> {
        self.storage
    }

    /// Reads the first `n` floats of the buffer, stored as `storage`: an
    /// error where the buffer holds floats stored otherwise.
    pub fn read_floats(&mut self, storage: FloatStorage, n: usize) -> Result<Vec<f32>> {
        if let Some(held) = self.storage.filter(|&s| s != storage) {
            return Err(Error::bad(
                "storage of the floats to read",
                format!("{storage:?}"),
                format!("the buffer holds {held:?} floats (made or last written so)"),
            ));
        }
        let len = float_bytes(storage, n, Some(self.size), "read")?;
        let mut bytes = vec![0u8; len as usize];
        self.read(&mut bytes)?;
        storage
            .decode(&bytes, n)
            .ok_or_else(|| Error::bad("floats to read", n, format!("{len} bytes were read")))
    }

    /// Reads the first `out.len()` bytes of the buffer.
    pub fn read(&mut self, out: &mut [u8]) -> Result<()> {
        self.check_len(out.len(), "read")?;
        if out.is_empty() {
            return Ok(());
        }
        match self.transfer {
            Transfer::Direct => {
                // Each dispatch ends with a barrier to HOST_READ and is waited for.
                out.copy_from_slice(&mapped(self.allocation.as_mut())?[..out.len()]);
                Ok(())
            }
            Transfer::Staging => {
                let ctx = self.ctx.clone();
                let mut staging = Staging::new(&ctx, out.len() as u64, MemoryLocation::GpuToCpu)?;
                let d = ctx.device();
                ctx.submit_and_wait(|cmd| {
                    barrier(
                        d,
                        cmd,
                        vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::TRANSFER_READ,
                    );
                    let region = [vk::BufferCopy::default().size(out.len() as u64)];
                    // SAFETY: `cmd` is recording; both buffers are this device's, have
                    // transfer usage, hold `out.len()` bytes (`check_len`, the staging's
                    // size) and outlive the wait in `submit_and_wait`.
                    unsafe { d.cmd_copy_buffer(cmd, self.buffer, staging.buffer, &region) };
                    barrier(
                        d,
                        cmd,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::TRANSFER_WRITE,
                        vk::PipelineStageFlags::HOST,
                        vk::AccessFlags::HOST_READ,
                    );
                    Ok(())
                })?;
                out.copy_from_slice(&staging.bytes()?[..out.len()]);
                Ok(())
            }
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: the buffer is this device's (kept alive by `ctx`) and no
        // pending work uses it: each submission that did was waited for, and
        // a sequence borrows the buffer until its own wait.
        unsafe { self.ctx.device().destroy_buffer(self.buffer, None) };
        if let (Some(a), Some(alloc)) = (self.allocation.take(), self.ctx.allocator().as_mut()) {
            let _ = alloc.free(a);
        }
    }
}
