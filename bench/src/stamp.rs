//! The stamp of a result file: what was measured with what, so that a
//! number can be traced to the code and the machine that gave it.

use ncnn_glsl_runtime::Context;
use serde_json::{json, Map, Value};

/// The git revision the programs were built from (`-dirty` with uncommitted
/// changes to tracked files; `unknown` outside a checkout).
pub const REVISION: &str = env!("NCNN_BENCH_REVISION");

/// The stamp's fields: `revision`, `command`, `device`, `vendor_id`,
/// `device_type`, `driver_version` (as the device reports it), `driver`
/// (decoded by the vendor's scheme), `unix_time`.
pub fn stamp(ctx: &Context) -> Map<String, Value> {
    let caps = ctx.caps();
    let unix_time = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let doc = json!({
        "revision": REVISION,
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "device": caps.name,
        "vendor_id": caps.vendor_id,
        "device_type": format!("{:?}", caps.device_type),
        "driver_version": caps.driver_version,
        "driver": driver_name(caps.vendor_id, caps.driver_version),
        "unix_time": unix_time,
    });
    match doc {
        Value::Object(map) => map,
        _ => unreachable!("json! of an object literal is an object"),
    }
}

/// `fields` after the stamp, as one pretty-printed JSON document.
pub fn document(ctx: &Context, fields: Value) -> Value {
    let mut doc = stamp(ctx);
    if let Value::Object(fields) = fields {
        doc.extend(fields);
    }
    Value::Object(doc)
}

/// The stamp of a measurement that runs on the host alone (no Vulkan
/// device): `revision`, `command`, `device` (the CPU's model name and its
/// threads), `unix_time`.
pub fn host_stamp() -> Map<String, Value> {
    let unix_time = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let doc = json!({
        "revision": REVISION,
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "device": format!("cpu: {model}, {threads} threads"),
        "unix_time": unix_time,
    });
    match doc {
        Value::Object(map) => map,
        _ => unreachable!("json! of an object literal is an object"),
    }
}

/// `fields` after the host stamp ([`host_stamp`]), as one JSON document.
pub fn host_document(fields: Value) -> Value {
    let mut doc = host_stamp();
    if let Value::Object(fields) = fields {
        doc.extend(fields);
    }
    Value::Object(doc)
}

/// The driver version as the vendor writes it: NVIDIA packs 10.8.8.6 bits,
/// others (Mesa among them) use Vulkan's 10.10.12.
pub fn driver_name(vendor_id: u32, v: u32) -> String {
    const NVIDIA: u32 = 0x10de;
    if vendor_id == NVIDIA {
        format!("{}.{}.{:02}", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff)
    } else {
        format!("{}.{}.{}", v >> 22, (v >> 12) & 0x3ff, v & 0xfff)
    }
}

#[cfg(test)]
mod tests {
    use super::driver_name;

    #[test]
    fn nvidia_and_mesa_versions_decode() {
        // 580.159.04 as the H100's driver reports it (bench/results).
        assert_eq!(driver_name(0x10de, 2435301632), "580.159.04");
        assert_eq!(driver_name(0x10005, (25 << 22) | (2 << 12) | 8), "25.2.8");
    }
}
