//! The Vulkan context: instance (loader found at run time), one physical
//! device, one compute queue, the memory allocator, and the device's
//! description. Shared between threads as `Arc<Context>`.

use std::collections::BTreeSet;
use std::ffi::{c_void, CStr, CString};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use ncnn_glsl_core::ext::CORE_FEATURES;
use ncnn_glsl_core::variant::{Choice, Variant, VariantSet};
use ncnn_glsl_core::{DeviceCaps, DeviceType, Options};

use crate::error::{Error, Result};
use crate::probe::{self, RawStruct};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Which physical device to open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceSelector {
    /// The first discrete GPU, else integrated, virtual, CPU, other.
    #[default]
    Best,
    /// The device at this index of the loader's list.
    Index(usize),
    /// The first device whose name contains this (case-insensitive).
    Name(String),
    /// The first device of this type.
    Type(DeviceType),
}

impl fmt::Display for DeviceSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceSelector::Best => f.write_str("best"),
            DeviceSelector::Index(i) => write!(f, "{i}"),
            DeviceSelector::Name(n) => write!(f, "name:{n}"),
            DeviceSelector::Type(t) => write!(f, "type:{}", type_name(*t)),
        }
    }
}

impl FromStr for DeviceSelector {
    type Err = Error;

    /// `best`, an index (`0`), `type:discrete|integrated|virtual|cpu|other`,
    /// or a name substring (`name:llvmpipe`, or just `llvmpipe`).
    fn from_str(s: &str) -> Result<DeviceSelector> {
        if s == "best" || s.is_empty() {
            return Ok(DeviceSelector::Best);
        }
        if let Ok(i) = s.parse() {
            return Ok(DeviceSelector::Index(i));
        }
        if let Some(t) = s.strip_prefix("type:") {
            let ty = match t {
                "discrete" => DeviceType::DiscreteGpu,
                "integrated" => DeviceType::IntegratedGpu,
                "virtual" => DeviceType::VirtualGpu,
                "cpu" => DeviceType::Cpu,
                "other" => DeviceType::Other,
                _ => {
                    return Err(Error::bad(
                        "device type",
                        t,
                        "must be discrete, integrated, virtual, cpu or other",
                    ))
                }
            };
            return Ok(DeviceSelector::Type(ty));
        }
        Ok(DeviceSelector::Name(
            s.strip_prefix("name:").unwrap_or(s).to_string(),
        ))
    }
}

fn type_name(t: DeviceType) -> &'static str {
    match t {
        DeviceType::DiscreteGpu => "discrete",
        DeviceType::IntegratedGpu => "integrated",
        DeviceType::VirtualGpu => "virtual",
        DeviceType::Cpu => "cpu",
        DeviceType::Other => "other",
    }
}

/// Severity of a validation-layer or driver message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Informational.
    Info,
    /// A warning (the layer's best-practice and performance notes land here).
    Warning,
    /// A valid-usage or synchronization error.
    Error,
}

/// One message from `VK_EXT_debug_utils`.
#[derive(Clone, Debug)]
pub struct Message {
    /// How bad it is.
    pub severity: Severity,
    /// The message id (`VUID-...`, `SYNC-HAZARD-...`), when there is one.
    pub id: String,
    /// The full text.
    pub text: String,
}

/// Receives every debug-utils message of warning or error severity.
pub type MessageSink = Arc<dyn Fn(Message) + Send + Sync>;

/// How to open a [`Context`].
#[derive(Clone, Default)]
pub struct ContextOptions {
    /// Which device.
    pub device: DeviceSelector,
    /// The Vulkan loader library to use instead of the system's `libvulkan.so.1`.
    pub loader: Option<PathBuf>,
    /// Variant sets that will run besides the shipped ones
    /// ([`crate::shipped::SHIPPED`]): the device enables the features their
    /// variants can use.
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
    /// Where pipeline caches are saved and loaded; none when unset.
    pub pipeline_cache_dir: Option<PathBuf>,
    /// The queue family to run on; `None`: a compute-only family where the
    /// device has one, else the first family with compute.
    pub queue_family: Option<u32>,
    /// Enable `VK_KHR_pipeline_executable_properties` and have the driver
    /// keep what it compiled ([`crate::Pipeline::executables`]); an error
    /// where the device lacks the extension.
    pub pipeline_statistics: bool,
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
            .finish()
    }
}

/// An open device with one compute queue and an allocator.
///
/// `Send + Sync`: queue submission and the allocator are behind mutexes,
/// command pools are made per submission, so any number of threads may
/// dispatch through one `Arc<Context>` at once.
pub struct Context {
    pub(crate) entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    // Keeps the messenger's user data alive as long as the instance.
    _sink: Option<Box<MessageSink>>,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    pub(crate) queue_family: u32,
    queue: Mutex<vk::Queue>,
    allocator: Mutex<Option<Allocator>>,
    caps: DeviceCaps,
    enabled: DeviceCaps,
    pub(crate) limits: vk::PhysicalDeviceLimits,
    pub(crate) timestamp_bits: u32,
    pub(crate) heap_size: u64,
    pub(crate) options: ContextOptions,
    /// Test hook: record dispatches without their barriers (see
    /// [`Context::omit_barriers_for_test`]).
    pub(crate) omit_barriers: AtomicBool,
}

// ash handles are plain integers and function tables; `Allocator` is Send
// and lives behind a mutex; the sink box is Send + Sync by its type.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Context>();
};

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: `user` is the `Box<MessageSink>` the context keeps alive, and
    // `data` is valid for the call, per VK_EXT_debug_utils.
    let (sink, data) = unsafe { (&*(user as *const MessageSink), &*data) };
    let text = unsafe { data.message_as_c_str() }
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    let id = unsafe { data.message_id_name_as_c_str() }
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    let severity = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        Severity::Error
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        Severity::Warning
    } else {
        Severity::Info
    };
    // A panic must not unwind into the driver.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        sink(Message { severity, id, text })
    }));
    vk::FALSE
}

/// Loads the Vulkan loader: `path` when given (a loader unpacked where the
/// system has none, as on the H200 machine), else the system's.
pub(crate) fn load_entry(path: Option<&std::path::Path>) -> Result<ash::Entry> {
    // SAFETY: loading libvulkan runs its initialisers, which is what a
    // Vulkan program does anyway.
    let entry = match path {
        Some(p) => unsafe { ash::Entry::load_from(p) },
        None => unsafe { ash::Entry::load() },
    };
    entry.map_err(|e| match path {
        Some(p) => Error::NoLoader(format!("{}: {e}", p.display())),
        None => Error::NoLoader(e.to_string()),
    })
}

/// Creates an instance for Vulkan 1.1..=1.3, with validation when asked.
/// `create_info_next` is chained (the debug messenger for creation-time messages).
pub(crate) fn create_instance(
    entry: &ash::Entry,
    validation: bool,
    messenger: Option<&mut vk::DebugUtilsMessengerCreateInfoEXT<'_>>,
) -> Result<ash::Instance> {
    let loader_version = unsafe { entry.try_enumerate_instance_version() }
        .map_err(|e| Error::vk("vkEnumerateInstanceVersion", e))?
        .unwrap_or(vk::API_VERSION_1_0);
    if loader_version < vk::API_VERSION_1_1 {
        return Err(Error::NoDevice);
    }
    let api = loader_version.min(vk::API_VERSION_1_3);
    let app = vk::ApplicationInfo::default()
        .application_name(c"ncnn-glsl")
        .engine_name(c"ncnn-glsl-runtime")
        .api_version(api);
    let mut layers = Vec::new();
    let mut exts = Vec::new();
    if validation {
        let available = unsafe { entry.enumerate_instance_layer_properties() }
            .map_err(|e| Error::vk("vkEnumerateInstanceLayerProperties", e))?;
        if !available
            .iter()
            .any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER))
        {
            return Err(Error::NoValidationLayer);
        }
        layers.push(VALIDATION_LAYER.as_ptr());
        exts.push(ash::ext::validation_features::NAME.as_ptr());
    }
    if messenger.is_some() {
        exts.push(ash::ext::debug_utils::NAME.as_ptr());
    }
    // Synchronization validation is off by default in the layer: a missing
    // barrier gives right answers on lavapipe and only this catches it.
    let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
    let mut info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&exts);
    if validation {
        info = info.push_next(&mut features);
    }
    if let Some(m) = messenger {
        info = info.push_next(m);
    }
    unsafe { entry.create_instance(&info, None) }.map_err(|e| match e {
        vk::Result::ERROR_INCOMPATIBLE_DRIVER => Error::NoDevice,
        e => Error::vk("vkCreateInstance", e),
    })
}

/// Every physical device with its description and `index: name (type)` line.
pub(crate) fn list_devices(
    instance: &ash::Instance,
) -> Result<Vec<(vk::PhysicalDevice, vk::PhysicalDeviceProperties)>> {
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(|e| Error::vk("vkEnumeratePhysicalDevices", e))?;
    Ok(devices
        .into_iter()
        .map(|d| (d, unsafe { instance.get_physical_device_properties(d) }))
        .collect())
}

fn describe(i: usize, p: &vk::PhysicalDeviceProperties) -> String {
    let name = p
        .device_name_as_c_str()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(
        "{i}: {name} ({})",
        type_name(probe::device_type(p.device_type))
    )
}

/// The index of the device `selector` picks among `devices`.
pub(crate) fn pick(
    selector: &DeviceSelector,
    devices: &[(vk::PhysicalDevice, vk::PhysicalDeviceProperties)],
) -> Result<usize> {
    if devices.is_empty() {
        return Err(Error::NoDevice);
    }
    let ty = |i: usize| probe::device_type(devices[i].1.device_type);
    let found = match selector {
        DeviceSelector::Best => {
            let rank = |t: DeviceType| match t {
                DeviceType::DiscreteGpu => 0,
                DeviceType::IntegratedGpu => 1,
                DeviceType::VirtualGpu => 2,
                DeviceType::Cpu => 3,
                DeviceType::Other => 4,
            };
            (0..devices.len()).min_by_key(|&i| (rank(ty(i)), i))
        }
        DeviceSelector::Index(i) => (*i < devices.len()).then_some(*i),
        DeviceSelector::Name(n) => {
            let n = n.to_lowercase();
            (0..devices.len()).find(|&i| describe(i, &devices[i].1).to_lowercase().contains(&n))
        }
        DeviceSelector::Type(t) => (0..devices.len()).find(|&i| ty(i) == *t),
    };
    found.ok_or_else(|| Error::NoMatchingDevice {
        selector: selector.to_string(),
        devices: devices
            .iter()
            .enumerate()
            .map(|(i, d)| describe(i, &d.1))
            .collect(),
    })
}

/// The features worth enabling: those any variant of `sets` names in its
/// requirements, restricted to what `caps` has. A feature no variant needs
/// can only lead narrowing to a target the set does not hold, so leaving it
/// off changes no choice.
fn features_to_enable(caps: &DeviceCaps, sets: &[&'static VariantSet]) -> BTreeSet<String> {
    let mut want: BTreeSet<String> = BTreeSet::new();
    for set in sets {
        for v in set.variants {
            for f in v.blob.reflection.requirements.features.iter() {
                want.insert(f.to_string());
            }
        }
    }
    want.into_iter().filter(|f| caps.feature(f)).collect()
}

impl Context {
    /// Opens the device `options` selects.
    pub fn new(options: ContextOptions) -> Result<Arc<Context>> {
        let entry = load_entry(options.loader.as_deref())?;
        let sink = options.messages.clone().map(Box::new);
        let mut messenger_info = sink.as_ref().map(|s| {
            vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(on_message))
                .user_data(&**s as *const MessageSink as *mut c_void)
        });
        let instance = create_instance(&entry, options.validation, messenger_info.as_mut())?;
        // From here on, failures must destroy the instance.
        let mut partial = Partial {
            instance: Some(instance.clone()),
            debug: None,
        };
        if let Some(info) = &messenger_info {
            // A copy without the instance chain that `create_instance` linked in.
            let mut info = *info;
            info.p_next = std::ptr::null();
            let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let m = unsafe { du.create_debug_utils_messenger(&info, None) }
                .map_err(|e| Error::vk("vkCreateDebugUtilsMessengerEXT", e))?;
            partial.debug = Some((du, m));
        }
        let devices = list_devices(&instance)?;
        let index = pick(&options.device, &devices)?;
        let (physical, props) = devices[index];
        if props.api_version < vk::API_VERSION_1_1 {
            return Err(Error::NoDevice);
        }
        let mut caps = if options.validation {
            probe_without_layers(&entry, index, &props)?
        } else {
            probe::probe(&instance, physical)?
        };
        for f in &options.hide_features {
            if let Some(v) = caps.features.get_mut(f) {
                *v = false;
            }
        }

        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let family = match options.queue_family {
            Some(i) => {
                let ok = families
                    .get(i as usize)
                    .is_some_and(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE));
                if !ok {
                    return Err(Error::bad(
                        "queue_family",
                        i,
                        format!(
                            "the device's families with compute are {:?}",
                            (0..families.len() as u32)
                                .filter(|&j| families[j as usize]
                                    .queue_flags
                                    .contains(vk::QueueFlags::COMPUTE))
                                .collect::<Vec<_>>()
                        ),
                    ));
                }
                i
            }
            // A compute-only family first: it is the one meant for compute work.
            None => families
                .iter()
                .enumerate()
                .filter(|(_, f)| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .min_by_key(|(i, f)| (f.queue_flags.contains(vk::QueueFlags::GRAPHICS), *i))
                .map(|(i, _)| i as u32)
                .ok_or(Error::NoDevice)?,
        };
        let timestamp_bits = families[family as usize].timestamp_valid_bits;

        let mut sets: Vec<&'static VariantSet> = crate::shipped::SHIPPED.to_vec();
        sets.extend(options.variant_sets.iter().copied());
        let enable = features_to_enable(&caps, &sets);

        // Feature structs: the core one, and a raw struct per extension
        // group that has an enabled field; the group's extension is enabled
        // when the device lists it (core-promoted groups need none).
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        let words = probe::core_feature_words_mut(&mut f2.features);
        for (i, name) in CORE_FEATURES.iter().enumerate() {
            words[i] = enable.contains(*name) as u32;
        }
        let mut raws: Vec<Box<RawStruct>> = Vec::new();
        let mut ext_names: Vec<CString> = Vec::new();
        for (ext, s_type, fields) in probe::feature_groups(&caps.extensions, caps.api_version) {
            if !fields.iter().any(|f| enable.contains(*f)) {
                continue;
            }
            let mut raw = RawStruct::new(s_type);
            for (i, f) in fields.iter().enumerate() {
                raw.words[i] = enable.contains(*f) as u32;
            }
            raws.push(raw);
            if caps.has_extension(ext) {
                ext_names.push(CString::new(ext).expect("no NUL in extension names"));
            }
        }
        for set in &sets {
            for v in set.variants {
                for e in v.blob.reflection.requirements.extensions.iter() {
                    let e = e.as_ref();
                    if caps.has_extension(e)
                        && !ext_names.iter().any(|n| n.to_bytes() == e.as_bytes())
                    {
                        ext_names.push(CString::new(e).expect("no NUL in extension names"));
                    }
                }
            }
        }
        f2.p_next = probe::link(&mut raws);
        let mut executable_info =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
        if options.pipeline_statistics {
            let ext = ash::khr::pipeline_executable_properties::NAME;
            let name = ext.to_str().expect("an ASCII extension name");
            if !caps.has_extension(name) {
                return Err(Error::bad(
                    "pipeline_statistics",
                    true,
                    format!("the device lacks {name}"),
                ));
            }
            ext_names.push(ext.to_owned());
            executable_info.p_next = f2.p_next;
            f2.p_next = (&mut executable_info) as *mut _ as *mut c_void;
        }
        let ext_ptrs: Vec<*const i8> = ext_names.iter().map(|c| c.as_ptr()).collect();
        let priorities = [1.0f32];
        let queue_info = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let mut device_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_info)
            .enabled_extension_names(&ext_ptrs);
        device_info.p_next = (&f2) as *const _ as *const c_void;
        let device = unsafe { instance.create_device(physical, &device_info, None) }
            .map_err(|e| Error::vk("vkCreateDevice", e))?;
        drop(raws);
        let queue = unsafe { device.get_device_queue(family, 0) };

        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        });
        let allocator = match allocator {
            Ok(a) => a,
            Err(e) => {
                unsafe { device.destroy_device(None) };
                return Err(Error::Allocator(e.to_string()));
            }
        };
        let mem = unsafe { instance.get_physical_device_memory_properties(physical) };
        let heap_size = mem
            .memory_heaps_as_slice()
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .max()
            .unwrap_or(0);

        let mut enabled = caps.clone();
        for (name, on) in enabled.features.iter_mut() {
            *on = *on && enable.contains(name);
        }
        let debug = partial.debug.take();
        partial.instance = None;
        drop(partial);
        Ok(Arc::new(Context {
            entry,
            instance,
            debug,
            _sink: sink,
            physical,
            device,
            queue_family: family,
            queue: Mutex::new(queue),
            allocator: Mutex::new(Some(allocator)),
            caps,
            enabled,
            limits: props.limits,
            timestamp_bits,
            heap_size,
            options,
            omit_barriers: AtomicBool::new(false),
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
        &self.limits
    }

    /// The variant of `set` this device runs for `wanted` options and the
    /// build-time `axes`, by the core's [`VariantSet::select`] on
    /// [`Context::caps`]: the same choice as on the saved description. Its
    /// pipeline needs the features of its requirements enabled, which holds
    /// for the sets named in [`ContextOptions::variant_sets`] and the shipped
    /// ones; for another set pipeline creation says which feature is off.
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

    /// Test hook: when on, dispatches are recorded without their pipeline
    /// barriers, so a test can show that synchronization validation sees it.
    #[doc(hidden)]
    pub fn omit_barriers_for_test(&self, on: bool) {
        self.omit_barriers.store(on, Ordering::SeqCst);
    }

    pub(crate) fn barriers_on(&self) -> bool {
        !self.omit_barriers.load(Ordering::SeqCst)
    }

    /// The allocator, locked.
    pub(crate) fn allocator(&self) -> MutexGuard<'_, Option<Allocator>> {
        self.allocator.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records commands with `record` into a fresh command buffer, submits
    /// it on the queue and waits for it. A transient pool per call keeps
    /// threads from sharing a command pool (which Vulkan forbids without
    /// external locking) at a cost that is small next to a submission.
    pub(crate) fn submit_and_wait(
        &self,
        record: impl FnOnce(vk::CommandBuffer) -> Result<()>,
    ) -> Result<()> {
        let d = &self.device;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(self.queue_family)
            .flags(vk::CommandPoolCreateFlags::TRANSIENT);
        let pool = unsafe { d.create_command_pool(&pool_info, None) }
            .map_err(|e| Error::vk("vkCreateCommandPool", e))?;
        let result = (|| {
            let alloc = vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let cmd = unsafe { d.allocate_command_buffers(&alloc) }
                .map_err(|e| Error::vk("vkAllocateCommandBuffers", e))?[0];
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            unsafe { d.begin_command_buffer(cmd, &begin) }
                .map_err(|e| Error::vk("vkBeginCommandBuffer", e))?;
            record(cmd)?;
            unsafe { d.end_command_buffer(cmd) }.map_err(|e| Error::vk("vkEndCommandBuffer", e))?;
            let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
                .map_err(|e| Error::vk("vkCreateFence", e))?;
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            let submitted = {
                let queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                unsafe { d.queue_submit(*queue, &submit, fence) }
            };
            let waited = submitted
                .map_err(|e| Error::vk("vkQueueSubmit", e))
                .and_then(|()| {
                    unsafe { d.wait_for_fences(&[fence], true, u64::MAX) }
                        .map_err(|e| Error::vk("vkWaitForFences", e))
                });
            unsafe { d.destroy_fence(fence, None) };
            waited
        })();
        unsafe { d.destroy_command_pool(pool, None) };
        result
    }
}

/// Cleans up a half-made context on an early return.
struct Partial {
    instance: Option<ash::Instance>,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
}

impl Drop for Partial {
    fn drop(&mut self) {
        if let Some((du, m)) = self.debug.take() {
            unsafe { du.destroy_debug_utils_messenger(m, None) };
        }
        if let Some(i) = self.instance.take() {
            unsafe { i.destroy_instance(None) };
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        unsafe {
            let _ = self.device.device_wait_idle();
        }
        // The allocator frees its memory blocks: before the device goes.
        self.allocator().take();
        unsafe {
            self.device.destroy_device(None);
            if let Some((du, m)) = self.debug.take() {
                du.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
        let _ = &self.entry;
    }
}

/// Probes device `index` through an instance of its own without layers.
///
/// The probe chains the property and feature structs of every extension the
/// device lists; a validation layer older than one of those extensions (Debian
/// 12's 1.3.239 next to the H200's 1.4 driver) reports the valid struct as
/// unknown. The description needs no validation, the device work after it does.
fn probe_without_layers(
    entry: &ash::Entry,
    index: usize,
    expected: &vk::PhysicalDeviceProperties,
) -> Result<DeviceCaps> {
    let instance = create_instance(entry, false, None)?;
    let result = list_devices(&instance).and_then(|devices| match devices.get(index) {
        // The same loader and drivers list devices in the same order; the ids say so.
        Some((d, p)) if p.vendor_id == expected.vendor_id && p.device_id == expected.device_id => {
            probe::probe(&instance, *d)
        }
        _ => Err(Error::NoDevice),
    });
    unsafe { instance.destroy_instance(None) };
    result
}

/// Describes every Vulkan device of this machine (no layers, no device
/// opened): what `ncnn-glsl probe` prints.
pub fn probe_all() -> Result<Vec<DeviceCaps>> {
    let entry = load_entry(None)?;
    let instance = create_instance(&entry, false, None)?;
    let result = list_devices(&instance).and_then(|devices| {
        devices
            .iter()
            .map(|(d, _)| probe::probe(&instance, *d))
            .collect()
    });
    unsafe { instance.destroy_instance(None) };
    result
}
