//! The driver's pipeline cache on disk ([`crate::ContextOptions::pipeline_cache_dir`]):
//! one file per device and SPIR-V, wrapped with a length and a checksum, and
//! only handed to the driver after checking it against this device. A
//! missing, torn, edited or foreign file costs compile time, never
//! correctness: the pipeline is then built from an empty cache.

use std::path::{Path, PathBuf};

use ash::vk;

use crate::context::Context;

/// A pipeline cache for one pipeline creation: loaded from its file when the
/// context has a cache folder, saved back with [`PipelineCache::save`],
/// destroyed on drop.
pub(crate) struct PipelineCache<'a> {
    ctx: &'a Context,
    cache: vk::PipelineCache,
    file: Option<PathBuf>,
    loaded: bool,
}

impl<'a> PipelineCache<'a> {
    /// The cache for building `spirv` on `ctx`: seeded from its file where
    /// that passes the checks, else empty.
    pub(crate) fn open(ctx: &'a Context, spirv: &[u32]) -> PipelineCache<'a> {
        let file = ctx.options().pipeline_cache_dir.as_ref().map(|dir| {
            dir.path()
                .join(format!("{:016x}.pipeline-cache", cache_key(ctx, spirv)))
        });
        let (cache, loaded) = load_cache(ctx, file.as_deref());
        PipelineCache {
            ctx,
            cache,
            file,
            loaded,
        }
    }

    /// The handle to pass `vkCreateComputePipelines` (null where the driver
    /// could not make one: the pipeline is then built without a cache).
    pub(crate) fn handle(&self) -> vk::PipelineCache {
        self.cache
    }

    /// Whether a saved file passed the checks and seeded the cache.
    pub(crate) fn loaded(&self) -> bool {
        self.loaded
    }

    /// Writes what the driver now holds to the cache file, if there is one.
    pub(crate) fn save(self) {
        if let Some(file) = &self.file {
            save_cache(self.ctx, self.cache, file);
        }
    }
}

impl Drop for PipelineCache<'_> {
    fn drop(&mut self) {
        if self.cache != vk::PipelineCache::null() {
            // SAFETY: a cache of this device; the pipeline creation it was
            // made for has returned, and nothing else holds it.
            unsafe { self.ctx.device().destroy_pipeline_cache(self.cache, None) };
        }
    }
}

/// FNV-1a, 64-bit: stable across Rust versions and machines, unlike
/// `DefaultHasher`, which matters for a key stored in a file name.
fn fnv1a(seed: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(seed, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The cache key: the driver's cache identity and the exact SPIR-V built.
fn cache_key(ctx: &Context, spirv: &[u32]) -> u64 {
    let props = &ctx.properties;
    let mut h = fnv1a(FNV_OFFSET, &props.pipeline_cache_uuid);
    for v in [props.driver_version, props.vendor_id, props.device_id] {
        h = fnv1a(h, &v.to_le_bytes());
    }
    spirv.iter().fold(h, |h, w| fnv1a(h, &w.to_le_bytes()))
}

/// The largest cache file read: a regular file only (a FIFO there hung
/// pipeline creation), of at most 256 MiB (drivers' caches of a whole
/// application are tens of MiB).
const MAX_CACHE_BYTES: u64 = 256 << 20;

/// Our wrapper around the driver's cache data: magic, length, checksum, so a
/// torn or edited file is caught before the driver sees it.
const CACHE_MAGIC: &[u8; 8] = b"NCNNPC01";

/// Creates a pipeline cache, seeded from `file` when it passes every check:
/// our wrapper, then the Vulkan header (`headerSize`, `headerVersion` ONE,
/// vendor and device ids, `pipelineCacheUUID`) against this device.
/// Anything else is ignored: an empty cache is always correct.
fn load_cache(ctx: &Context, file: Option<&Path>) -> (vk::PipelineCache, bool) {
    let props = &ctx.properties;
    let data = file
        .filter(|f| ncnn_glsl_core::source::is_regular_file(f))
        .and_then(|f| ncnn_glsl_core::source::read_bounded(f, MAX_CACHE_BYTES).ok())
        .and_then(|bytes| unwrap_cache(&bytes, props).map(<[u8]>::to_vec));
    let d = ctx.device();
    if let Some(data) = &data {
        let info = vk::PipelineCacheCreateInfo::default().initial_data(data);
        // SAFETY: `data` outlives the call and its header is this device's
        // (`unwrap_cache`). Vulkan also wants data its driver wrote: the
        // checksum catches a torn or damaged file, not a crafted one.
        if let Ok(c) = unsafe { d.create_pipeline_cache(&info, None) } {
            return (c, true);
        }
    }
    let info = vk::PipelineCacheCreateInfo::default();
    // SAFETY: an empty create info, on the context's live device.
    let cache =
        unsafe { d.create_pipeline_cache(&info, None) }.unwrap_or(vk::PipelineCache::null());
    (cache, false)
}

/// The driver's data inside a saved file, if the file is whole and made by
/// this driver for this device.
pub(crate) fn unwrap_cache<'a>(
    bytes: &'a [u8],
    props: &vk::PhysicalDeviceProperties,
) -> Option<&'a [u8]> {
    let rest = bytes.strip_prefix(CACHE_MAGIC)?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let (sum, data) = rest.split_first_chunk::<8>()?;
    if u64::from_le_bytes(*len) != data.len() as u64
        || u64::from_le_bytes(*sum) != fnv1a(FNV_OFFSET, data)
    {
        return None;
    }
    // VkPipelineCacheHeaderVersionOne: 4 u32 then a 16-byte UUID, little
    // endian on every machine we run on.
    if data.len() < 32 {
        return None;
    }
    let word = |i: usize| u32::from_le_bytes(data[i * 4..i * 4 + 4].try_into().unwrap());
    let header_size = word(0) as usize;
    if header_size < 32
        || header_size > data.len()
        || word(1) != vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32
        || word(2) != props.vendor_id
        || word(3) != props.device_id
        || data[16..32] != props.pipeline_cache_uuid
    {
        return None;
    }
    Some(data)
}

/// Writes the cache's data to `file` (through a temporary file and a rename,
/// so a reader never sees half a file). Failure only costs the next start
/// its compile time, so it is not an error.
fn save_cache(ctx: &Context, cache: vk::PipelineCache, file: &Path) {
    if cache == vk::PipelineCache::null() {
        return;
    }
    // SAFETY: `cache` is this device's, not null (checked above), and only
    // this thread uses it.
    let Ok(data) = (unsafe { ctx.device().get_pipeline_cache_data(cache) }) else {
        return;
    };
    let mut out = Vec::with_capacity(data.len() + 24);
    out.extend_from_slice(CACHE_MAGIC);
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a(FNV_OFFSET, &data).to_le_bytes());
    out.extend_from_slice(&data);
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = ncnn_glsl_core::source::replace_file(file, &out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_files_are_checked_before_use() {
        let props = vk::PhysicalDeviceProperties {
            vendor_id: 0x10005,
            device_id: 7,
            pipeline_cache_uuid: [9; 16],
            ..Default::default()
        };
        let mut data = Vec::new();
        for w in [32u32, 1, 0x10005, 7] {
            data.extend_from_slice(&w.to_le_bytes());
        }
        data.extend_from_slice(&[9; 16]);
        data.extend_from_slice(b"driver bytes");
        let wrap = |data: &[u8]| {
            let mut out = CACHE_MAGIC.to_vec();
            out.extend_from_slice(&(data.len() as u64).to_le_bytes());
            out.extend_from_slice(&fnv1a(FNV_OFFSET, data).to_le_bytes());
            out.extend_from_slice(data);
            out
        };
        let good = wrap(&data);
        assert_eq!(unwrap_cache(&good, &props), Some(&data[..]));
        // Torn file, flipped byte, other device, other UUID, other version.
        assert_eq!(unwrap_cache(&good[..good.len() - 1], &props), None);
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(unwrap_cache(&flipped, &props), None);
        for (at, v) in [(8usize, 8u8), (16, 0), (4, 2)] {
            let mut d = data.clone();
            d[at] = v;
            assert_eq!(unwrap_cache(&wrap(&d), &props), None, "byte {at}");
        }
        assert_eq!(unwrap_cache(b"garbage", &props), None);
    }

    #[cfg(unix)]
    #[test]
    fn links_planted_in_the_cache_folder_are_not_followed() {
        use ncnn_glsl_core::source::{is_regular_file, replace_file};
        let dir = std::env::temp_dir().join(format!("ncnn-cache-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let planted = dir.join("x.cache");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        // A link as the cache file itself is not read.
        assert!(!is_regular_file(&planted));
        assert!(is_regular_file(&victim));
        // Saving replaces the link, not its target.
        replace_file(&planted, b"cache bytes").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(is_regular_file(&planted));
        assert_eq!(std::fs::read(&planted).unwrap(), b"cache bytes");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
