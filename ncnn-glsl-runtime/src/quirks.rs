//! Work-arounds for drivers' bugs that would otherwise take the process down.
//!
//! Drivers are not unloaded. NVIDIA's Vulkan driver loads glvnd's libEGL,
//! which leaves thread-specific data in the threads that call it; when the
//! loader unloaded the driver with the last instance and another thread
//! loaded it again, such a thread's exit crashed the process (SIGSEGV or
//! abort in libEGL; tests/contexts_on_threads.rs). What loading the Vulkan
//! loader and creating an instance brought into the process stays loaded
//! for the life of the process, as in most Vulkan programs, which load it
//! once ([`Loaded`]).
//!
//! lavapipe (Mesa's CPU driver) compiles some fp16 math (`exp`, `pow`, ...
//! of `float16_t`) to calls of the C math library that its JIT resolves by
//! name among the process's global symbols. A program that does not link
//! libm has none: the lookup gives address 0 and the driver's thread jumps
//! there (tests/driver_symbols.rs). The driver's own copy of libm is loaded
//! with it, but into a local scope the lookup does not search; opening it
//! again with `RTLD_GLOBAL` adds it to the global scope.

use std::collections::BTreeSet;
use std::ffi::CString;

/// Mesa's vendor id (`VK_VENDOR_ID_MESA`), lavapipe's.
pub(crate) const MESA_VENDOR_ID: u32 = 0x10005;

/// Makes the C math library's symbols global, once per process, where the
/// device is lavapipe. A failure (a libc whose math is in libc itself, as
/// musl's) leaves nothing to fix.
pub(crate) fn before_pipelines(vendor_id: u32, device_type: ash::vk::PhysicalDeviceType) {
    if vendor_id != MESA_VENDOR_ID || device_type != ash::vk::PhysicalDeviceType::CPU {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
            // SAFETY: glibc's libm, by its soname: its initialisers are
            // glibc's own, and the driver has already loaded it (as its own
            // dependency), so this adds no code to the process, only its
            // symbols to the global scope.
            if let Ok(lib) = unsafe { Library::open(Some("libm.so.6"), RTLD_NOW | RTLD_GLOBAL) } {
                // Kept loaded: the driver's compiled code calls into it for
                // the life of the process.
                std::mem::forget(lib);
            }
        });
    }
}

/// The shared objects in the process at one moment, by the paths the
/// dynamic linker gives them: taken before the Vulkan loader is loaded,
/// compared before the instance is destroyed.
#[derive(Debug, Default)]
pub(crate) struct Loaded(BTreeSet<CString>);

impl Loaded {
    /// The objects loaded now.
    pub(crate) fn now() -> Loaded {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            unsafe extern "C" fn each(
                info: *mut libc::dl_phdr_info,
                _size: usize,
                names: *mut std::ffi::c_void,
            ) -> std::ffi::c_int {
                // SAFETY: the dynamic linker passes a valid `info` for the
                // call; `names` is the set `now` passed, alive and not
                // otherwise borrowed during `dl_iterate_phdr`.
                let (name, names) =
                    unsafe { ((*info).dlpi_name, &mut *names.cast::<BTreeSet<CString>>()) };
                if !name.is_null() {
                    // SAFETY: a NUL-terminated path, valid during the call.
                    let name = unsafe { std::ffi::CStr::from_ptr(name) };
                    if !name.is_empty() {
                        names.insert(name.to_owned());
                    }
                }
                0
            }
            let mut names = BTreeSet::new();
            // SAFETY: `each` matches the callback's signature and only reads
            // `info`; the walk is bounded by the objects loaded.
            unsafe {
                libc::dl_iterate_phdr(Some(each), (&mut names as *mut BTreeSet<CString>).cast())
            };
            Loaded(names)
        }
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        Loaded::default()
    }

    /// Keeps every object loaded since `self` was taken loaded for the life
    /// of the process: the loader, the drivers, the layers and what they
    /// loaded (and anything another thread loaded meanwhile).
    pub(crate) fn keep_the_new_ones(&self) {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        for name in Loaded::now().0.difference(&self.0) {
            // SAFETY: `RTLD_NOLOAD` opens only an object already loaded, so
            // no initialiser runs; the handle is never closed, and
            // `RTLD_NODELETE` keeps the object past any other `dlclose`.
            unsafe {
                libc::dlopen(
                    name.as_ptr(),
                    libc::RTLD_NOW | libc::RTLD_NOLOAD | libc::RTLD_NODELETE,
                )
            };
        }
    }
}
