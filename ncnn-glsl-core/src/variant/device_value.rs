//! What a device macro's value is on a given device: a variant's device
//! axes are chosen by it.

use crate::device::DeviceCaps;

/// The value a device gives the device macro `name` (`ncnn_subgroupSize`,
/// ...), as the extension would define it; `None` when it defines none.
pub fn device_axis_value(device: &DeviceCaps, name: &str) -> Option<i64> {
    let mut macros = String::new();
    crate::ext::device_macros(device, &mut macros);
    macros.lines().find_map(|l| {
        let (n, v) = l.strip_prefix("#define ")?.split_once(' ')?;
        if n != name {
            return None;
        }
        v.trim().trim_end_matches(['u', 'l', 'U', 'L']).parse().ok()
    })
}
