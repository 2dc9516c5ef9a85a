//! The Vulkan context: one physical device, one compute queue, the memory
//! allocator, and the device's description. Shared between threads as
//! `Arc<Context>`. Opening one is a few named steps ([`Context::new`]): the
//! instance ([`crate::instance`]), the device's choice and description, the
//! queue family, the features and extensions the context's variant sets can
//! use, the device, the allocator.

use std::collections::BTreeSet;
use std::ffi::{c_void, CString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use ncnn_glsl_core::ext::CORE_FEATURES;
use ncnn_glsl_core::variant::{Choice, Variant, VariantSet};
use ncnn_glsl_core::{DeviceCaps, Options};

use crate::error::{Error, Result};
use crate::instance::{Instance, Loader, MessageSink};
use crate::probe::{self, RawStruct};
use crate::selector::{self, DeviceSelector};

/// The folder of the pipeline-cache files ([`crate::ContextOptions::pipeline_cache_dir`]).
/// The driver is handed what a file holds, and Vulkan requires that to be
/// what the driver once wrote (`vkCreatePipelineCache`'s `pInitialData`):
/// the checks here catch torn, stale and foreign files, not crafted ones, so
/// naming a folder is `unsafe`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheDir(PathBuf);

impl CacheDir {
    /// The folder `path` (made when missing). Safe code cannot name one:
    ///
    /// ```compile_fail,E0133
    /// let dir = ncnn_glsl_runtime::CacheDir::new("/tmp/cache");
    /// ```
    ///
    /// # Safety
    ///
    /// Only this runtime writes the files in `path` (a folder of the
    /// application's own, not writable by other users): a file crafted to
    /// pass the checks reaches the driver as its own cache data.
    pub unsafe fn new(path: impl Into<PathBuf>) -> CacheDir {
        CacheDir(path.into())
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// How to open a [`Context`].
#[derive(Clone, Default)]
pub struct ContextOptions {
    /// Which device.
    pub device: DeviceSelector,
    /// The Vulkan loader library to use instead of the system's
    /// `libvulkan.so.1` ([`Loader::new`] is `unsafe`: the library's code runs).
    pub loader: Option<Loader>,
    /// The variant sets that will run on the context: the device enables
    /// the features their variants can use, and only those. An application
    /// that ships its own sets names them here (or gives its users options
    /// that do).
    pub variant_sets: Vec<&'static VariantSet>,
    /// Load `VK_LAYER_KHRONOS_validation` with synchronization validation on
    /// (an error when the layer is missing).
    pub validation: bool,
    /// Where debug-utils messages go (warnings and errors). Without a sink
    /// no messenger is created.
    pub messages: Option<MessageSink>,
    /// Features to treat as absent, as if the device lacked them: tests use
    /// it to stand for a smaller device on a real one.
    pub hide_features: Vec<String>,
    /// Move data through host-visible staging buffers even where the
    /// device's memory is host-visible (tests the discrete-GPU path on
    /// lavapipe).
    pub force_staging: bool,
    /// Where pipeline caches are saved and loaded ([`CacheDir::new`] is
    /// `unsafe`: the driver is handed what its files hold); none when unset.
    pub pipeline_cache_dir: Option<CacheDir>,
    /// The queue family to run on; `None`: a compute-only family where the
    /// device has one, else the first family with compute.
    pub queue_family: Option<u32>,
    /// Enable `VK_KHR_pipeline_executable_properties` and have the driver
    /// keep what it compiled ([`crate::Pipeline::executables`]); an error
    /// where the device lacks the extension.
    pub pipeline_statistics: bool,
    /// Enable `robustBufferAccess`, the driver's own bound on buffer accesses.
    /// Memory safety does not need it (the compiler clamps every index into
    /// its array); it can cost speed. An error ([`Error::FeatureMissing`])
    /// where the device lacks it.
    pub robust_buffer_access: bool,
}

impl fmt::Debug for ContextOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextOptions")
            .field("device", &self.device)
            .field("loader", &self.loader)
            .field(
                "variant_sets",
                &self.variant_sets.iter().map(|s| s.name).collect::<Vec<_>>(),
            )
            .field("validation", &self.validation)
            .field("messages", &self.messages.is_some())
            .field("hide_features", &self.hide_features)
            .field("force_staging", &self.force_staging)
            .field("pipeline_cache_dir", &self.pipeline_cache_dir)
            .field("queue_family", &self.queue_family)
            .field("pipeline_statistics", &self.pipeline_statistics)
            .field("robust_buffer_access", &self.robust_buffer_access)
            .finish()
    }
}

/// An open device with one compute queue and an allocator.
///
/// `Send + Sync`: queue submission and the allocator are behind mutexes,
/// command pools are made per submission, so any number of threads may
/// dispatch through one `Arc<Context>` at once.
pub struct Context {
    pub(crate) properties: vk::PhysicalDeviceProperties,
    pub(crate) device: ash::Device,
    pub(crate) queue_family: u32,
    pub(crate) queue: Mutex<vk::Queue>,
    allocator: Mutex<Option<Allocator>>,
    caps: DeviceCaps,
    enabled: DeviceCaps,
    pub(crate) timestamp_bits: u32,
    pub(crate) heap_size: u64,
    pub(crate) options: ContextOptions,
    /// Test hook: record dispatches without their barriers (see
    /// [`Context::omit_barriers_for_test`]).
    pub(crate) omit_barriers: AtomicBool,
    // Last: dropped after `Drop for Context` has destroyed the device.
    pub(crate) instance: Instance,
}

// ash handles are plain integers and function tables; `Allocator` is Send
// and lives behind a mutex; the sink box is Send + Sync by its type.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Context>();
};

impl Context {
    /// Opens the device `options` selects, with the features and extensions
    /// that the variants of [`ContextOptions::variant_sets`] can use (and no
    /// others).
    pub fn new(options: ContextOptions) -> Result<Arc<Context>> {
        let instance = Instance::open(
            options.loader.as_ref(),
            options.validation,
            options.messages.clone(),
        )?;
        let devices = instance.devices()?;
        let index = selector::pick(&options.device, &devices)?;
        let (physical, properties) = devices[index];
        if properties.api_version < vk::API_VERSION_1_1 {
            return Err(Error::NoDevice);
        }
        crate::quirks::before_pipelines(properties.vendor_id, properties.device_type);
        let mut caps = instance.probe(index, physical, &properties, options.validation)?;
        for f in &options.hide_features {
            if let Some(v) = caps.features.get_mut(f) {
                *v = false;
            }
        }
        // SAFETY: `physical` was enumerated from `instance.raw`, which is alive.
        let families = unsafe {
            instance
                .raw
                .get_physical_device_queue_family_properties(physical)
        };
        let family = queue_family(&families, options.queue_family)?;
        let mut enable = features_to_enable(&caps, &options.variant_sets);
        if options.robust_buffer_access {
            if !caps.feature(ROBUST_BUFFER_ACCESS) {
                return Err(Error::FeatureMissing {
                    feature: ROBUST_BUFFER_ACCESS.to_string(),
                    shader: "ContextOptions::robust_buffer_access".to_string(),
                    not_enabled: false,
                });
            }
            enable.insert(ROBUST_BUFFER_ACCESS.to_string());
        }
        let extensions = extensions_to_enable(&caps, &enable, &options)?;
        let device = create_device(
            &instance.raw,
            physical,
            family,
            &caps,
            &enable,
            &extensions,
            options.pipeline_statistics,
        )?;
        let allocator = match create_allocator(&instance.raw, &device, physical) {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the device was just created and no object has been
                // made from it yet; no other thread has it.
                unsafe { device.destroy_device(None) };
                return Err(e);
            }
        };
        // SAFETY: `create_device` asked for one queue of `family`: index 0 exists.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let mut enabled = caps.clone();
        for (name, on) in enabled.features.iter_mut() {
            *on = *on && enable.contains(name);
        }
        Ok(Arc::new(Context {
            properties,
            device,
            queue_family: family,
            queue: Mutex::new(queue),
            allocator: Mutex::new(Some(allocator)),
            caps,
            enabled,
            timestamp_bits: families[family as usize].timestamp_valid_bits,
            heap_size: device_local_heap_size(&instance.raw, physical),
            options,
            omit_barriers: AtomicBool::new(false),
            instance,
        }))
    }

    /// The device's description as probed (less [`ContextOptions::hide_features`]).
    pub fn caps(&self) -> &DeviceCaps {
        &self.caps
    }

    /// The description as opened: features limited to those enabled.
    /// Pipelines are checked against this one.
    pub fn enabled_caps(&self) -> &DeviceCaps {
        &self.enabled
    }

    /// The options the context was opened with.
    pub fn options(&self) -> &ContextOptions {
        &self.options
    }

    /// The raw ash device, for code that goes beyond this crate.
    pub fn device(&self) -> &ash::Device {
        &self.device
    }

    /// The queue family of the context's compute queue, for code that
    /// records its own command buffers.
    pub fn queue_family_index(&self) -> u32 {
        self.queue_family
    }

    /// The device's limits.
    pub fn limits(&self) -> &vk::PhysicalDeviceLimits {
        &self.properties.limits
    }

    /// What ncnn's local-size rules need of this device
    /// ([`optimal_local_size`](crate::optimal_local_size)): its limits and
    /// its subgroup size (1 where it reports none).
    pub fn local_size_limits(&self) -> crate::ncnn::LocalSizeLimits {
        let subgroup = self.caps().property("subgroupSize").unwrap_or(1);
        crate::ncnn::LocalSizeLimits::new(self.limits(), u32::try_from(subgroup).unwrap_or(1))
    }

    /// The variant of `set` this device runs for `wanted` options and the
    /// build-time `axes`, by the core's [`VariantSet::select`] on
    /// [`Context::caps`]: the same choice as on the saved description. Its
    /// pipeline needs the features of its requirements enabled, which holds
    /// for the sets named in [`ContextOptions::variant_sets`]; for another
    /// set pipeline creation says which feature is off.
    pub fn select<'s>(
        &self,
        set: &'s VariantSet,
        wanted: Options,
        axes: &[(&str, i64)],
    ) -> Result<Choice<'s, Variant>> {
        set.select(&self.caps, wanted, axes)
            .map_err(|cause| Error::NoVariant {
                shader: set.name,
                cause,
            })
    }

    /// Test hook: when on, dispatches and copies are recorded without the
    /// pipeline barriers between them, so a test can show that
    /// synchronization validation sees the hazard.
    ///
    /// # Safety
    ///
    /// While it is on, no command recorded may read or write memory that an
    /// earlier command of the same submission (or a host write not yet
    /// waited for) writes: without the barriers that is a data race on the
    /// device, undefined behaviour in Vulkan's terms.
    ///
    /// Safe code cannot turn it on:
    ///
    /// ```compile_fail,E0133
    /// fn race(ctx: &ncnn_glsl_runtime::Context) {
    ///     ctx.omit_barriers_for_test(true);
    /// }
    /// ```
    #[doc(hidden)]
    pub unsafe fn omit_barriers_for_test(&self, on: bool) {
        self.omit_barriers.store(on, Ordering::SeqCst);
    }

    pub(crate) fn barriers_on(&self) -> bool {
        !self.omit_barriers.load(Ordering::SeqCst)
    }

    /// The allocator, locked.
    pub(crate) fn allocator(&self) -> MutexGuard<'_, Option<Allocator>> {
        self.allocator.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: no other thread can use the device or its
        // queue, both of which this call needs externally synchronized.
        unsafe {
            let _ = self.device.device_wait_idle();
        }
        // The allocator frees its memory blocks: before the device goes.
        self.allocator().take();
        // SAFETY: the device is idle (above) and childless: buffers and
        // pipelines hold an `Arc<Context>`, pools, caches and timers borrow
        // it, and the allocator's memory was just freed.
        unsafe { self.device.destroy_device(None) };
        // Then the fields drop: `instance` destroys the messenger and the instance.
    }
}

/// The queue family to open: `wanted` when it has compute, else (`None`) a
/// compute-only family where there is one, the one meant for compute work,
/// else the first family with compute.
fn queue_family(families: &[vk::QueueFamilyProperties], wanted: Option<u32>) -> Result<u32> {
    let compute = |f: &vk::QueueFamilyProperties| f.queue_flags.contains(vk::QueueFlags::COMPUTE);
    match wanted {
        Some(i) => {
            if families.get(i as usize).is_some_and(compute) {
                return Ok(i);
            }
            Err(Error::bad(
                "queue_family",
                i,
                format!(
                    "the device's families with compute are {:?}",
                    (0..families.len() as u32)
                        .filter(|&j| compute(&families[j as usize]))
                        .collect::<Vec<_>>()
                ),
            ))
        }
        None => families
            .iter()
            .enumerate()
            .filter(|(_, f)| compute(f))
            .min_by_key(|(i, f)| (f.queue_flags.contains(vk::QueueFlags::GRAPHICS), *i))
            .map(|(i, _)| i as u32)
            .ok_or(Error::NoDevice),
    }
}

/// The core feature [`ContextOptions::robust_buffer_access`] enables.
const ROBUST_BUFFER_ACCESS: &str = "robustBufferAccess";

/// The features worth enabling: those any variant of `sets` names in its
/// requirements, restricted to what `caps` has. A feature no variant needs
/// can only lead narrowing to a target the set does not hold, so leaving it
/// off changes no choice.
fn features_to_enable(caps: &DeviceCaps, sets: &[&'static VariantSet]) -> BTreeSet<String> {
    let mut want: BTreeSet<String> = BTreeSet::new();
    for set in sets {
        for v in set.variants() {
            for f in v.blob.reflection().requirements.features.iter() {
                want.insert(f.to_string());
            }
        }
    }
    want.into_iter().filter(|f| caps.feature(f)).collect()
}

/// The device extensions to enable: each feature group's extension where
/// one of its enabled features comes from it and the device lists it
/// (core-promoted groups need none), the extensions the variants of the
/// context's sets require where the device lists them, and
/// `VK_KHR_pipeline_executable_properties` when statistics are asked for
/// (an error where the device lacks it).
fn extensions_to_enable(
    caps: &DeviceCaps,
    enable: &BTreeSet<String>,
    options: &ContextOptions,
) -> Result<Vec<CString>> {
    let mut names: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        if caps.has_extension(name) && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    };
    for (ext, _, fields) in probe::feature_groups(&caps.extensions, caps.api_version) {
        if fields.iter().any(|f| enable.contains(*f)) {
            add(ext);
        }
    }
    for set in &options.variant_sets {
        for v in set.variants() {
            for e in v.blob.reflection().requirements.extensions.iter() {
                add(e);
            }
        }
    }
    if options.pipeline_statistics {
        let name = ash::khr::pipeline_executable_properties::NAME
            .to_str()
            .expect("an ASCII extension name");
        if !caps.has_extension(name) {
            return Err(Error::bad(
                "pipeline_statistics",
                true,
                format!("the device lacks {name}"),
            ));
        }
        add(name);
    }
    // Names come from the device's own list or from ash: no NUL inside.
    Ok(names
        .into_iter()
        .filter_map(|n| CString::new(n).ok())
        .collect())
}

/// Creates the device with one queue of `family`, the features in `enable`
/// (the core struct and a raw struct per feature group with an enabled
/// field) and `extensions`; with `statistics`, the pipeline-executable
/// feature too.
fn create_device(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    family: u32,
    caps: &DeviceCaps,
    enable: &BTreeSet<String>,
    extensions: &[CString],
    statistics: bool,
) -> Result<ash::Device> {
    let mut f2 = vk::PhysicalDeviceFeatures2::default();
    let words = probe::core_feature_words_mut(&mut f2.features);
    for (i, name) in CORE_FEATURES.iter().enumerate() {
        words[i] = enable.contains(*name) as u32;
    }
    let mut raws: Vec<Box<RawStruct>> = Vec::new();
    for (_, s_type, fields) in probe::feature_groups(&caps.extensions, caps.api_version) {
        if !fields.iter().any(|f| enable.contains(*f)) {
            continue;
        }
        let mut raw = RawStruct::new(s_type);
        for (i, f) in fields.iter().enumerate() {
            raw.words[i] = enable.contains(*f) as u32;
        }
        raws.push(raw);
    }
    f2.p_next = probe::link(&mut raws);
    let mut executable_info = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    if statistics {
        executable_info.p_next = f2.p_next;
        f2.p_next = (&mut executable_info) as *mut _ as *mut c_void;
    }
    let ext_ptrs: Vec<*const i8> = extensions.iter().map(|c| c.as_ptr()).collect();
    let priorities = [1.0f32];
    let queue_info = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    let mut device_info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queue_info)
        .enabled_extension_names(&ext_ptrs);
    device_info.p_next = (&f2) as *const _ as *const c_void;
    // SAFETY: `physical` is `instance`'s; `f2`, `raws`, `executable_info`,
    // `queue_info`, `priorities` and `ext_ptrs`, which `device_info` points
    // into, outlive the call; only features the device reports are enabled.
    unsafe { instance.create_device(physical, &device_info, None) }
        .map_err(|e| Error::vk("vkCreateDevice", e))
}

/// The memory allocator of `device`.
fn create_allocator(
    instance: &ash::Instance,
    device: &ash::Device,
    physical: vk::PhysicalDevice,
) -> Result<Allocator> {
    Allocator::new(&AllocatorCreateDesc {
        instance: instance.clone(),
        device: device.clone(),
        physical_device: physical,
        debug_settings: Default::default(),
        buffer_device_address: false,
        allocation_sizes: Default::default(),
    })
    .map_err(|e| Error::Allocator(e.to_string()))
}

/// The size of the largest device-local heap: no buffer can be larger.
fn device_local_heap_size(instance: &ash::Instance, physical: vk::PhysicalDevice) -> u64 {
    // SAFETY: `physical` was enumerated from `instance`, which is alive.
    let mem = unsafe { instance.get_physical_device_memory_properties(physical) };
    mem.memory_heaps_as_slice()
        .iter()
        .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|h| h.size)
        .max()
        .unwrap_or(0)
}
