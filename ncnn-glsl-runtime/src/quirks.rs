//! Work-arounds for drivers' bugs that would otherwise take the process down.
//!
//! lavapipe (Mesa's CPU driver) compiles some fp16 math (`exp`, `pow`, ...
//! of `float16_t`) to calls of the C math library that its JIT resolves by
//! name among the process's global symbols. A program that does not link
//! libm has none: the lookup gives address 0 and the driver's thread jumps
//! there (tests/driver_symbols.rs). The driver's own copy of libm is loaded
//! with it, but into a local scope the lookup does not search; opening it
//! again with `RTLD_GLOBAL` adds it to the global scope.

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
