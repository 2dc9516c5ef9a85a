//! Cooperative matrices: the multiply-add shapes a device lists, and the
//! check that a pipeline's, at its specialization values, are among them.
//!
//! A shader's M, N and K are usually specialization constants the host
//! sets from the device's list; a shape the device does not list is
//! undefined behaviour in the driver, so it is refused before any Vulkan
//! call, with the shape and the list.

use ash::vk;
use ncnn_glsl_core::reflection::{
    CoopMatFlavor, CoopMatMulAdd, CoopMatType, CoopMatUse, Reflection,
};
use ncnn_glsl_core::{CoopMatShape, DeviceCaps};

use crate::error::{Error, Result};

/// The most rows one device may list: far past any driver's (tens), and a
/// bound on what a broken one makes the probe allocate.
const MAX_ROWS: u32 = 4096;

/// The shapes `physical` lists through `VK_KHR_cooperative_matrix` and
/// `VK_NV_cooperative_matrix`, each where `extensions` has it.
///
/// # Safety
///
/// `physical` comes from `instance`, itself made from `entry`.
pub(crate) unsafe fn shapes(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    has_extension: impl Fn(&str) -> bool,
) -> Result<Vec<CoopMatShape>> {
    let mut out = Vec::new();
    if has_extension("VK_KHR_cooperative_matrix") {
        let ext = ash::khr::cooperative_matrix::Instance::new(entry, instance);
        let f = ext
            .fp()
            .get_physical_device_cooperative_matrix_properties_khr;
        // SAFETY: `physical` is `instance`'s, which lists the extension;
        // the two-call pattern, with a count the driver gave and a bound.
        let rows = unsafe {
            read(
                |count, data| f(physical, count, data),
                vk::CooperativeMatrixPropertiesKHR::default(),
            )
        }?;
        out.extend(rows.iter().map(|r| CoopMatShape {
            flavor: CoopMatFlavor::Khr,
            m: r.m_size,
            n: r.n_size,
            k: r.k_size,
            a_type: r.a_type.as_raw() as u32,
            b_type: r.b_type.as_raw() as u32,
            c_type: r.c_type.as_raw() as u32,
            result_type: r.result_type.as_raw() as u32,
            saturating_accumulation: r.saturating_accumulation != 0,
            scope: r.scope.as_raw() as u32,
        }));
    }
    if has_extension("VK_NV_cooperative_matrix") {
        let ext = ash::nv::cooperative_matrix::Instance::new(entry, instance);
        let f = ext
            .fp()
            .get_physical_device_cooperative_matrix_properties_nv;
        // SAFETY: as above.
        let rows = unsafe {
            read(
                |count, data| f(physical, count, data),
                vk::CooperativeMatrixPropertiesNV::default(),
            )
        }?;
        out.extend(rows.iter().map(|r| CoopMatShape {
            flavor: CoopMatFlavor::Nv,
            m: r.m_size,
            n: r.n_size,
            k: r.k_size,
            a_type: r.a_type.as_raw() as u32,
            b_type: r.b_type.as_raw() as u32,
            c_type: r.c_type.as_raw() as u32,
            result_type: r.d_type.as_raw() as u32,
            saturating_accumulation: false,
            scope: r.scope.as_raw() as u32,
        }));
    }
    Ok(out)
}

/// The rows of a `vkGet...Properties` call: the count, then the rows into
/// structs whose `sType` `empty` sets.
///
/// # Safety
///
/// `call` is such a command, for a device it may be called on.
unsafe fn read<T: Copy>(call: impl Fn(*mut u32, *mut T) -> vk::Result, empty: T) -> Result<Vec<T>> {
    let what = "vkGetPhysicalDeviceCooperativeMatrixProperties";
    let mut count = 0u32;
    call(&mut count, std::ptr::null_mut())
        .result()
        .map_err(|e| Error::vk(what, e))?;
    let count = count.min(MAX_ROWS);
    let mut rows = vec![empty; count as usize];
    let mut got = count;
    match call(&mut got, rows.as_mut_ptr()) {
        vk::Result::SUCCESS | vk::Result::INCOMPLETE => {}
        e => return Err(Error::vk(what, e)),
    }
    rows.truncate(got.min(count) as usize);
    Ok(rows)
}

/// Every multiply-add of `r` at the pipeline's specialization values
/// (`(constant_id, 32-bit value)`) must be a shape `caps` lists: the same
/// extension, M, N, K, element types and scope; and every matrix type a
/// row of the list by its use (`VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163`:
/// the runtime does not enable `cooperativeMatrixFlexibleDimensions`).
pub(crate) fn check(
    name: &str,
    r: &Reflection,
    spec: &[(u32, u32)],
    caps: &DeviceCaps,
) -> Result<()> {
    let value = |id: u32| spec.iter().find(|(i, _)| *i == id).map(|(_, v)| *v);
    for op in r.cooperative_matrices.iter() {
        let (m, n, k) = op.shape(value);
        let listed = caps.cooperative_matrix_shapes.iter().any(|s| {
            s.flavor == op.flavor
                && (s.m, s.n, s.k) == (m, n, k)
                && s.a_type == op.a_type.vk_component_type()
                && s.b_type == op.b_type.vk_component_type()
                && s.c_type == op.c_type.vk_component_type()
                && s.result_type == op.result_type.vk_component_type()
                && s.scope == op.scope
        });
        if !listed {
            return Err(Error::bad(
                format!("cooperative matrix multiply-add of {name}"),
                describe(op, (m, n, k)),
                format!(
                    "the device lists {}",
                    list(&caps.cooperative_matrix_shapes, op.flavor)
                ),
            ));
        }
    }
    for t in r.cooperative_matrix_types.iter() {
        let size = t.size(value);
        let listed = caps.cooperative_matrix_shapes.iter().any(|s| {
            s.flavor == t.flavor
                && t.listed(
                    size,
                    (s.m, s.n, s.k),
                    (s.a_type, s.b_type, s.c_type, s.result_type),
                    s.scope,
                )
        });
        if !listed {
            return Err(Error::bad(
                format!("cooperative matrix type of {name}"),
                describe_type(t, size),
                format!(
                    "the device lists {}",
                    list(&caps.cooperative_matrix_shapes, t.flavor)
                ),
            ));
        }
    }
    Ok(())
}

/// `8x8 f32 A (Khr, scope 3)`.
fn describe_type(t: &CoopMatType, (rows, cols): (u32, u32)) -> String {
    let role = match t.role {
        Some(CoopMatUse::A) => "A",
        Some(CoopMatUse::B) => "B",
        Some(CoopMatUse::Accumulator) => "accumulator",
        None => "matrix",
    };
    format!(
        "{rows}x{cols} {} {role} ({:?}, scope {})",
        component_name(t.element.vk_component_type()),
        t.flavor,
        t.scope
    )
}

/// `MxNxK A*B+C: f16*f16+f32->f32, subgroup`.
fn describe(op: &CoopMatMulAdd, (m, n, k): (u32, u32, u32)) -> String {
    let t = |c: u32| component_name(c);
    format!(
        "{m}x{n}x{k} {}*{}+{}->{} ({:?}, scope {})",
        t(op.a_type.vk_component_type()),
        t(op.b_type.vk_component_type()),
        t(op.c_type.vk_component_type()),
        t(op.result_type.vk_component_type()),
        op.flavor,
        op.scope
    )
}

/// The device's shapes of `flavor`, as [`describe`] writes one.
fn list(shapes: &[CoopMatShape], flavor: CoopMatFlavor) -> String {
    let rows: Vec<String> = shapes
        .iter()
        .filter(|s| s.flavor == flavor)
        .map(|s| {
            format!(
                "{}x{}x{} {}*{}+{}->{} (scope {})",
                s.m,
                s.n,
                s.k,
                component_name(s.a_type),
                component_name(s.b_type),
                component_name(s.c_type),
                component_name(s.result_type),
                s.scope
            )
        })
        .collect();
    if rows.is_empty() {
        format!("no {flavor:?} cooperative matrix shape")
    } else {
        rows.join(", ")
    }
}

/// A `VkComponentTypeKHR`'s short name.
fn component_name(c: u32) -> String {
    match c {
        0 => "f16".into(),
        1 => "f32".into(),
        2 => "f64".into(),
        3 => "i8".into(),
        4 => "i16".into(),
        5 => "i32".into(),
        6 => "i64".into(),
        7 => "u8".into(),
        8 => "u16".into(),
        9 => "u32".into(),
        10 => "u64".into(),
        // VK_KHR_shader_bfloat16, VK_EXT_shader_float8 (newer than ash's enum).
        1000141000 => "bf16".into(),
        1000491002 => "e4m3".into(),
        1000491003 => "e5m2".into(),
        other => format!("type {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ncnn_glsl_core::reflection::{CoopMatDim, CoopMatElement};

    use std::borrow::Cow;

    fn gemm() -> Reflection {
        Reflection {
            cooperative_matrices: Cow::Owned(vec![CoopMatMulAdd {
                flavor: CoopMatFlavor::Khr,
                a_type: CoopMatElement::Float16,
                b_type: CoopMatElement::Float16,
                c_type: CoopMatElement::Float32,
                result_type: CoopMatElement::Float32,
                scope: 3,
                m: CoopMatDim::Spec { id: 18, default: 1 },
                n: CoopMatDim::Spec { id: 19, default: 1 },
                k: CoopMatDim::Constant(16),
            }]),
            ..Reflection::default()
        }
    }

    fn device() -> DeviceCaps {
        let row = |m, n, k| CoopMatShape {
            flavor: CoopMatFlavor::Khr,
            m,
            n,
            k,
            a_type: 0,
            b_type: 0,
            c_type: 1,
            result_type: 1,
            saturating_accumulation: false,
            scope: 3,
        };
        DeviceCaps {
            cooperative_matrix_shapes: vec![row(16, 16, 16), row(16, 8, 16)],
            ..DeviceCaps::default()
        }
    }

    #[test]
    fn a_listed_shape_passes_and_another_names_itself_and_the_list() {
        let r = gemm();
        let d = device();
        let spec = |m, n| vec![(18, m), (19, n)];
        check("gemm", &r, &spec(16, 16), &d).unwrap();
        check("gemm", &r, &spec(16, 8), &d).unwrap();
        let e = check("gemm", &r, &spec(8, 8), &d).unwrap_err().to_string();
        assert!(e.contains("8x8x16 f16*f16+f32->f32"), "{e}");
        assert!(
            e.contains("16x16x16 f16*f16+f32->f32 (scope 3), 16x8x16"),
            "{e}"
        );
        // The defaults (1x1) when the pipeline sets nothing.
        let e = check("gemm", &r, &[], &d).unwrap_err().to_string();
        assert!(e.contains("1x1x16"), "{e}");
        // No shapes at all.
        let e = check("gemm", &r, &spec(16, 16), &DeviceCaps::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no Khr cooperative matrix shape"), "{e}");
    }

    fn types(role: Option<CoopMatUse>, element: CoopMatElement) -> Reflection {
        Reflection {
            cooperative_matrix_types: Cow::Owned(vec![CoopMatType {
                flavor: CoopMatFlavor::Khr,
                element,
                scope: 3,
                rows: CoopMatDim::Spec { id: 0, default: 16 },
                cols: CoopMatDim::Constant(16),
                role,
            }]),
            ..Reflection::default()
        }
    }

    #[test]
    fn every_type_is_checked_by_its_use_multiply_add_or_not() {
        use CoopMatElement::{Float16, Float32};
        let d = device();
        // The list: 16x16x16 and 16x8x16, f16*f16+f32->f32.
        for (role, element, ok) in [
            (Some(CoopMatUse::A), Float16, true),
            (Some(CoopMatUse::A), Float32, false),
            (Some(CoopMatUse::B), Float16, true),
            (Some(CoopMatUse::Accumulator), Float32, true),
            (Some(CoopMatUse::Accumulator), Float16, false),
            (None, Float32, true),
        ] {
            let r = types(role, element);
            let got = check("t", &r, &[], &d);
            assert_eq!(got.is_ok(), ok, "{role:?} {element:?}: {got:?}");
        }
        // At the pipeline's value: 8 rows is no row of the list for A
        // (M is 16), and the error names the type and the list.
        let r = types(Some(CoopMatUse::A), Float16);
        let e = check("t", &r, &[(0, 8)], &d).unwrap_err().to_string();
        assert!(e.contains("8x16 f16 A (Khr, scope 3)"), "{e}");
        assert!(e.contains("the device lists 16x16x16"), "{e}");
        // B is K x N: 16 x 8 is listed (16x8x16).
        let r = types(Some(CoopMatUse::B), Float16);
        let mut r16x8 = r.clone();
        r16x8.cooperative_matrix_types.to_mut()[0].cols = CoopMatDim::Constant(8);
        check("t", &r16x8, &[], &d).unwrap();
        check("t", &r, &[(0, 8)], &d).unwrap_err();
    }

    #[test]
    fn component_types_have_their_names() {
        // The H100 lists bf16 rows; ash's enum stops at u64.
        assert_eq!(component_name(1000141000), "bf16");
        assert_eq!(component_name(1000491003), "e5m2");
        assert_eq!(component_name(0), "f16");
        assert_eq!(component_name(99), "type 99");
    }
}
