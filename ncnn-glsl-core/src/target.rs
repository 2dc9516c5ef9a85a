//! What one expansion is made for: the effective options and the device bits
//! that change the text.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::device::{narrow, DeviceBits, DeviceCaps};
use crate::options::Options;

/// The effective options and device bits of one expansion.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Target {
    /// Effective options (already narrowed).
    pub options: Options,
    /// Device features that change the expansion.
    pub bits: DeviceBits,
}

impl Target {
    /// `options` on the least device that keeps them all.
    pub fn for_mode(options: Options) -> Target {
        Target {
            options,
            bits: DeviceBits::implied_by(options),
        }
    }

    /// `wanted` narrowed by `device`, with the device's bits.
    pub fn for_device(wanted: Options, device: &DeviceCaps) -> Target {
        Target {
            options: narrow(wanted, device),
            bits: device.expansion_bits(),
        }
    }
}

impl fmt::Display for Target {
    /// The mode, then the device bits that are set: `fp16s+fp16a [S16 I16]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.options)?;
        let names = self.bits.names();
        if !names.is_empty() {
            write!(f, " [{}]", names.join(" "))?;
        }
        Ok(())
    }
}
