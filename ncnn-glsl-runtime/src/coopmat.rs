//! Cooperative matrices: the multiply-add shapes a device lists, and the
//! check that a pipeline's, at its specialization values, are among them.
//!
//! A shader's M, N and K are usually specialization constants the host
//! sets from the device's list; a shape the device does not list is
//! undefined behaviour in the driver, so it is refused before any Vulkan
//! call, with the shape and the list.

use ash::vk;
use ncnn_glsl_core::reflection::{coop_mat_admitted, CoopMatFlavor, CoopMatUse};
use ncnn_glsl_core::spirv_interface::{Interface, WordCoopMatType};
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

/// Every multiply-add and matrix type of the words, at the pipeline's
/// specialization values (`blob_check` read them there, sizes computed by
/// `OpSpecConstantOp` included, and found each in the reflection), must be
/// one `caps` lists: a multiply-add by its extension, M, N, K, element
/// types and scope; a type by its use, as a row's A, B or accumulator
/// (`VUID-RuntimeSpirv-OpTypeCooperativeMatrixKHR-10163`: the runtime does
/// not enable `cooperativeMatrixFlexibleDimensions`).
pub(crate) fn check(name: &str, words: &Interface, caps: &DeviceCaps) -> Result<()> {
    let shapes = &caps.cooperative_matrix_shapes;
    for ops in &words.cooperative_matrix_mul_adds {
        let op = MulAdd::of(ops).ok_or_else(|| Error::BlobRejected {
            shader: name.to_string(),
            reason: format!(
                "a cooperative matrix multiply-add whose operands cannot be read ({ops:?})"
            ),
        })?;
        let listed = shapes.iter().any(|s| {
            s.flavor == op.flavor
                && (s.m, s.n, s.k) == op.mnk
                && (s.a_type, s.b_type, s.c_type, s.result_type) == op.types
                && s.scope == op.scope
        });
        if !listed {
            return Err(Error::bad(
                format!("cooperative matrix multiply-add of {name}"),
                op.describe(),
                format!("the device lists {}", list(shapes, op.flavor)),
            ));
        }
    }
    for w in &words.cooperative_matrix_types {
        let flavor = flavor_of(w.nv);
        let role = w.role.and_then(CoopMatUse::from_spirv);
        let listed = match (w.component, w.scope, w.rows, w.cols) {
            (Some(e), Some(scope), Some(rows), Some(cols)) if w.nv || role.is_some() => {
                shapes.iter().any(|s| {
                    s.flavor == flavor
                        && s.scope == scope
                        && coop_mat_admitted(
                            role,
                            e,
                            (rows, cols),
                            (s.m, s.n, s.k),
                            (s.a_type, s.b_type, s.c_type, s.result_type),
                        )
                })
            }
            _ => false,
        };
        if !listed {
            return Err(Error::bad(
                format!("cooperative matrix type of {name}"),
                describe_type(w, role, flavor),
                format!("the device lists {}", list(shapes, flavor)),
            ));
        }
    }
    Ok(())
}

/// The extension of a matrix of the words (`OpTypeCooperativeMatrixNV` or KHR).
fn flavor_of(nv: bool) -> CoopMatFlavor {
    if nv {
        CoopMatFlavor::Nv
    } else {
        CoopMatFlavor::Khr
    }
}

/// A multiply-add of the words: its extension, `(M, N, K)`, the
/// `VkComponentTypeKHR`s of A, B, C and the result, and the scope.
struct MulAdd {
    flavor: CoopMatFlavor,
    mnk: (u32, u32, u32),
    types: (u32, u32, u32, u32),
    scope: u32,
}

impl MulAdd {
    /// The multiply-add of operand types `ops`, where each is read.
    fn of(ops: &[Option<WordCoopMatType>; 4]) -> Option<MulAdd> {
        let [Some(a), Some(b), Some(c), Some(result)] = ops else {
            return None;
        };
        Some(MulAdd {
            flavor: flavor_of(a.nv),
            mnk: (a.rows?, b.cols?, a.cols?),
            types: (a.component?, b.component?, c.component?, result.component?),
            scope: a.scope?,
        })
    }

    /// `16x8x16 f16*f16+f32->f32 (Khr, scope 3)`.
    fn describe(&self) -> String {
        let (m, n, k) = self.mnk;
        let (a, b, c, r) = self.types;
        let t = component_name;
        format!(
            "{m}x{n}x{k} {}*{}+{}->{} ({:?}, scope {})",
            t(a),
            t(b),
            t(c),
            t(r),
            self.flavor,
            self.scope
        )
    }
}

/// `8x8 f32 A (Khr, scope 3)`; `?` for what the words do not say.
fn describe_type(w: &WordCoopMatType, role: Option<CoopMatUse>, flavor: CoopMatFlavor) -> String {
    let n = |v: Option<u32>| v.map_or("?".to_string(), |v| v.to_string());
    let role = match role {
        Some(CoopMatUse::A) => "A",
        Some(CoopMatUse::B) => "B",
        Some(CoopMatUse::Accumulator) => "accumulator",
        None if w.nv => "matrix",
        None => "matrix of an unknown use",
    };
    format!(
        "{}x{} {} {role} ({flavor:?}, scope {})",
        n(w.rows),
        n(w.cols),
        w.component.map_or("?".to_string(), component_name),
        n(w.scope)
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

    /// A KHR matrix of the words: `component`, rows x cols, `role`.
    fn w(component: u32, rows: u32, cols: u32, role: u32) -> WordCoopMatType {
        WordCoopMatType {
            nv: false,
            component: Some(component),
            scope: Some(3),
            rows: Some(rows),
            cols: Some(cols),
            role: Some(role),
        }
    }

    /// A GEMM's words at M x N (K 16): f16 A and B, f32 accumulator.
    fn gemm(m: u32, n: u32) -> Interface {
        let acc = w(1, m, n, 2);
        Interface {
            cooperative_matrix_types: vec![w(0, m, 16, 0), w(0, 16, n, 1), acc],
            cooperative_matrix_mul_adds: vec![[
                Some(w(0, m, 16, 0)),
                Some(w(0, 16, n, 1)),
                Some(acc),
                Some(acc),
            ]],
            ..Interface::default()
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
        let d = device();
        check("gemm", &gemm(16, 16), &d).unwrap();
        check("gemm", &gemm(16, 8), &d).unwrap();
        let e = check("gemm", &gemm(8, 8), &d).unwrap_err().to_string();
        assert!(e.contains("8x8x16 f16*f16+f32->f32"), "{e}");
        assert!(
            e.contains("16x16x16 f16*f16+f32->f32 (scope 3), 16x8x16"),
            "{e}"
        );
        // No shapes at all.
        let e = check("gemm", &gemm(16, 16), &DeviceCaps::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no Khr cooperative matrix shape"), "{e}");
        // An operand the words do not type is refused, not passed.
        let mut unread = gemm(16, 16);
        unread.cooperative_matrix_mul_adds[0][2] = None;
        assert!(matches!(
            check("gemm", &unread, &d),
            Err(Error::BlobRejected { .. })
        ));
    }

    #[test]
    fn every_type_is_checked_by_its_use_multiply_add_or_not() {
        let d = device();
        let alone = |t: WordCoopMatType| Interface {
            cooperative_matrix_types: vec![t],
            ..Interface::default()
        };
        // The list: 16x16x16 and 16x8x16, f16*f16+f32->f32.
        for (t, ok) in [
            (w(0, 16, 16, 0), true),
            (w(1, 16, 16, 0), false),
            (w(0, 16, 16, 1), true),
            (w(1, 16, 16, 2), true),
            (w(0, 16, 16, 2), false),
            (w(0, 16, 16, 7), false),
            (
                WordCoopMatType {
                    rows: None,
                    ..w(0, 16, 16, 0)
                },
                false,
            ),
        ] {
            let got = check("t", &alone(t), &d);
            assert_eq!(got.is_ok(), ok, "{t:?}: {got:?}");
        }
        // An NV matrix (no use) against the NV rows: any use's size fits.
        let nv = WordCoopMatType {
            nv: true,
            role: None,
            ..w(1, 16, 8, 0)
        };
        check("t", &alone(nv), &d).unwrap_err();
        let mut nv_rows = device();
        for s in &mut nv_rows.cooperative_matrix_shapes {
            s.flavor = CoopMatFlavor::Nv;
        }
        check("t", &alone(nv), &nv_rows).unwrap();
        // 8 rows is no row of the list for A (M is 16), and the error names
        // the type and the list.
        let e = check("t", &alone(w(0, 8, 16, 0)), &d)
            .unwrap_err()
            .to_string();
        assert!(e.contains("8x16 f16 A (Khr, scope 3)"), "{e}");
        assert!(e.contains("the device lists 16x16x16"), "{e}");
        // B is K x N: 16 x 8 is listed (16x8x16), 8 x 16 is not.
        check("t", &alone(w(0, 16, 8, 1)), &d).unwrap();
        check("t", &alone(w(0, 8, 16, 1)), &d).unwrap_err();
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
