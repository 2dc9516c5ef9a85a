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

/// The value of a device axis built for devices that leave its macro
/// undefined (a variant expanded without the macro).
pub const UNDEFINED: i64 = i64::MIN;

/// How a device's value of a device macro maps to the value its set was
/// built for, for a device axis found from the shader's tests (where every
/// value with the same outcomes shares one variant).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcomes<S = &'static [(i64, Option<i64>)]> {
    /// The value built for a device that leaves the macro undefined
    /// ([`UNDEFINED`] when that variant has it undefined too); `None` when
    /// no device can.
    pub undefined: Option<i64>,
    /// `(from, built)`, sorted by `from`: a device value `v` runs the value
    /// of the last entry with `from <= v` (the first entry below them all);
    /// `None` where no device can have such a value.
    pub from: S,
}

/// [`Outcomes`] as a build holds them.
pub type OwnedOutcomes = Outcomes<Vec<(i64, Option<i64>)>>;

impl<S: AsRef<[(i64, Option<i64>)]>> Outcomes<S> {
    /// The value built for a device whose macro has the value `device`.
    pub fn value_for(&self, device: Option<i64>) -> Option<i64> {
        let Some(v) = device else {
            return self.undefined;
        };
        let from = self.from.as_ref();
        let i = from.partition_point(|(f, _)| *f <= v);
        from.get(i.saturating_sub(1)).and_then(|(_, built)| *built)
    }
}

/// The value of the device axis `name` (built for `values`, mapped by
/// `outcomes` where found from tests) that `device` runs; `Err` with the
/// device's value where the set holds none for it.
pub fn axis_value_for<S: AsRef<[(i64, Option<i64>)]>>(
    device: &DeviceCaps,
    name: &str,
    values: &[i64],
    outcomes: Option<&Outcomes<S>>,
) -> Result<i64, Option<i64>> {
    let v = device_axis_value(device, name);
    let built = match outcomes {
        Some(o) => o.value_for(v),
        None => v,
    };
    built.filter(|b| values.contains(b)).ok_or(v)
}
