//! The Vulkan instance: the loader (found at run time, so a machine without
//! Vulkan gets a typed error, not a link failure), the instance with the
//! Khronos validation layer when asked, the debug-utils messenger that hands
//! the layer's messages to a [`MessageSink`], and the physical devices.

use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ash::vk;
use ncnn_glsl_core::DeviceCaps;

use crate::error::{Error, Result};
use crate::probe;
use crate::quirks::Loaded;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

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

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: `user` points into the `Box<MessageSink>` that `Instance` keeps
    // until after the instance is destroyed, and `data` is valid for the call,
    // per VK_EXT_debug_utils.
    let (sink, data) = unsafe { (&*(user as *const MessageSink), &*data) };
    // SAFETY: `p_message` is null or a NUL-terminated string valid for the call.
    let text = unsafe { data.message_as_c_str() }
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    // SAFETY: as above, for `p_message_id_name`.
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

/// A Vulkan loader library to load instead of the system's
/// ([`crate::ContextOptions::loader`]): loading a library runs its code, so
/// naming one is `unsafe`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loader(PathBuf);

impl Loader {
    /// The Vulkan loader at `path` (a loader unpacked where the system has
    /// none). Safe code cannot name one:
    ///
    /// ```compile_fail,E0133
    /// let loader = ncnn_glsl_runtime::Loader::new("/tmp/libvulkan.so.1");
    /// ```
    ///
    /// # Safety
    ///
    /// `path` names a Vulkan loader (an implementation of the Vulkan API's
    /// loader interface, such as Khronos' `libvulkan.so.1`) that is sound to
    /// load into this process: opening the context runs its initialisers and
    /// calls its functions as Vulkan's.
    pub unsafe fn new(path: impl Into<PathBuf>) -> Loader {
        Loader(path.into())
    }

    /// The library's path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// Loads the Vulkan loader: `loader` when given, else the system's.
fn load_entry(loader: Option<&Loader>) -> Result<ash::Entry> {
    let path = loader.map(Loader::path);
    let entry = match path {
        // SAFETY: `Loader::new`'s caller promised a sound Vulkan loader.
        Some(p) => unsafe { ash::Entry::load_from(p) },
        // SAFETY: the system's libvulkan, whose initialisers any Vulkan
        // program runs.
        None => unsafe { ash::Entry::load() },
    };
    entry.map_err(|e| match path {
        Some(p) => Error::NoLoader(format!("{}: {e}", p.display())),
        None => Error::NoLoader(e.to_string()),
    })
}

/// Creates an instance for Vulkan 1.1..=1.3, with validation when asked.
/// `create_info_next` is chained (the debug messenger for creation-time messages).
fn create_instance(
    entry: &ash::Entry,
    validation: bool,
    messenger: Option<&mut vk::DebugUtilsMessengerCreateInfoEXT<'_>>,
) -> Result<ash::Instance> {
    // SAFETY: `entry` holds a loaded loader; the call has no other precondition.
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
        // SAFETY: as above.
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
    // SAFETY: `info` and what it points to (`app`, `layers`, `exts`, `features`,
    // the messenger info) outlive the call; each chained struct's extension is
    // in `exts`, and the messenger's user data is the caller's boxed sink.
    unsafe { entry.create_instance(&info, None) }.map_err(|e| match e {
        vk::Result::ERROR_INCOMPATIBLE_DRIVER => Error::NoDevice,
        e => Error::vk("vkCreateInstance", e),
    })
}

/// Every physical device with its description and `index: name (type)` line.
pub(crate) fn list_devices(
    instance: &ash::Instance,
) -> Result<Vec<(vk::PhysicalDevice, vk::PhysicalDeviceProperties)>> {
    // SAFETY: `instance` is a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(|e| Error::vk("vkEnumeratePhysicalDevices", e))?;
    Ok(devices
        .into_iter()
        // SAFETY: `d` was just enumerated from `instance`.
        .map(|d| (d, unsafe { instance.get_physical_device_properties(d) }))
        .collect())
}

/// An instance and what lives as long as it: the loader, the messenger and
/// the sink the messenger calls. Dropping it destroys the messenger, then the
/// instance.
pub(crate) struct Instance {
    pub(crate) entry: ash::Entry,
    pub(crate) raw: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    // The messenger's user data: alive as long as the instance.
    _sink: Option<Box<MessageSink>>,
    // What was loaded before the loader: the rest stays loaded (`quirks`).
    loaded_before: Loaded,
}

impl Instance {
    /// Loads the loader (`loader`, else the system's), creates an instance
    /// (with validation when asked) and, with a sink, a messenger for
    /// warnings and errors, which also sees instance creation.
    pub(crate) fn open(
        loader: Option<&Loader>,
        validation: bool,
        sink: Option<MessageSink>,
    ) -> Result<Instance> {
        let loaded_before = Loaded::now();
        let entry = load_entry(loader)?;
        let sink = sink.map(Box::new);
        // The Box's heap address, which the messenger is given, stays put
        // when the Box moves into the instance.
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
        let raw = create_instance(&entry, validation, messenger_info.as_mut())?;
        // From here on, an early return drops `instance`, which destroys it.
        let mut instance = Instance {
            entry,
            raw,
            debug: None,
            _sink: sink,
            loaded_before,
        };
        if let Some(info) = &messenger_info {
            // A copy without the instance chain that `create_instance` linked in.
            let mut info = *info;
            info.p_next = std::ptr::null();
            let du = ash::ext::debug_utils::Instance::new(&instance.entry, &instance.raw);
            // SAFETY: a messenger info made `create_instance` enable debug_utils;
            // `info` outlives the call, and its user data, the boxed sink, lives in
            // `instance`, which destroys the messenger before dropping the box.
            let m = unsafe { du.create_debug_utils_messenger(&info, None) }
                .map_err(|e| Error::vk("vkCreateDebugUtilsMessengerEXT", e))?;
            instance.debug = Some((du, m));
        }
        Ok(instance)
    }

    /// Every physical device with its properties, in the loader's order.
    pub(crate) fn devices(
        &self,
    ) -> Result<Vec<(vk::PhysicalDevice, vk::PhysicalDeviceProperties)>> {
        list_devices(&self.raw)
    }

    /// The description of device `index` (`physical`, with `properties`).
    /// Under validation it is probed through a second instance without
    /// layers (see [`probe_without_layers`]).
    pub(crate) fn probe(
        &self,
        index: usize,
        physical: vk::PhysicalDevice,
        properties: &vk::PhysicalDeviceProperties,
        validation: bool,
    ) -> Result<DeviceCaps> {
        if validation {
            probe_without_layers(&self.entry, index, properties)
        } else {
            // SAFETY: the caller (`Context::new`) passes one of this instance's
            // devices and has checked that it reports Vulkan 1.1 or later.
            unsafe { probe::probe(&self.entry, &self.raw, physical) }
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some((du, m)) = self.debug.take() {
            // SAFETY: made from this instance, destroyed once (taken out above).
            unsafe { du.destroy_debug_utils_messenger(m, None) };
        }
        self.loaded_before.keep_the_new_ones();
        // SAFETY: its children are gone: the messenger above, and the device,
        // which `Context`'s `Drop` destroys before this field drops.
        unsafe { self.raw.destroy_instance(None) };
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
            // SAFETY: `d` is `instance`'s, and the device `Context::new`
            // checked reports Vulkan 1.1 or later (the same ids).
            unsafe { probe::probe(entry, &instance, *d) }
        }
        _ => Err(Error::NoDevice),
    });
    // SAFETY: nothing was created from this instance (probing creates nothing).
    unsafe { instance.destroy_instance(None) };
    result
}

/// Describes every Vulkan device of this machine (no layers, no device
/// opened): what `ncnn-glsl probe` prints.
pub fn probe_all() -> Result<Vec<DeviceCaps>> {
    let loaded_before = Loaded::now();
    let entry = load_entry(None)?;
    let instance = create_instance(&entry, false, None)?;
    let result = list_devices(&instance).and_then(|devices| {
        devices
            .iter()
            // SAFETY: `d` is `instance`'s. Not checked: that `d` reports Vulkan
            // 1.1 or later, as `probe` requires (a 1.0 device is probed too).
            .map(|(d, _)| unsafe { probe::probe(&entry, &instance, *d) })
            .collect()
    });
    loaded_before.keep_the_new_ones();
    // SAFETY: nothing was created from this instance (probing creates nothing).
    unsafe { instance.destroy_instance(None) };
    result
}
