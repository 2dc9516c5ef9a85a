//! Which physical device a context opens: [`DeviceSelector`], as options
//! and command lines spell it, and the choice among the devices the loader
//! lists.

use std::fmt;
use std::str::FromStr;

use ash::vk;
use ncnn_glsl_core::DeviceType;

use crate::error::{Error, Result};
use crate::probe;

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

pub(crate) fn describe(i: usize, p: &vk::PhysicalDeviceProperties) -> String {
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
