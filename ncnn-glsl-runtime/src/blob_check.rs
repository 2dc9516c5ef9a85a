//! A blob checked before any Vulkan call: its reflection against its own
//! SPIR-V words, and what the words declare against the device's limits. A
//! driver need not check either, and lavapipe crashes on both: 40 storage
//! buffers in one set (past `maxPerStageDescriptorStorageBuffers`), a set
//! index of 100000, a reflection that lists no bindings for a shader that
//! has two. Each is an error here, naming the value and the limit.

use std::collections::BTreeSet;

use ash::vk;
use ncnn_glsl_core::reflection::{BindingKind, CoopMatFlavor, CoopMatUse, Reflection, ScalarValue};
use ncnn_glsl_core::spirv_interface::{self, DescriptorKind, Interface};

use crate::error::{Error, Result};

/// Checks the blob of `shader` (`spirv`, described by `r`) against its words
/// and against `limits`, as the pipeline specializes it (`spec`: each id,
/// the GLSL type of its value and its 32 bits; local size `size`); returns
/// what the words declare.
pub(crate) fn check(
    shader: &str,
    spirv: &[u32],
    r: &Reflection,
    limits: &vk::PhysicalDeviceLimits,
    spec: &[(u32, &'static str, u32)],
    size: [u32; 3],
) -> Result<Interface> {
    let rejected = |reason: String| Error::BlobRejected {
        shader: shader.to_string(),
        reason,
    };
    let values: Vec<(u32, u32)> = spec.iter().map(|&(id, _, bits)| (id, bits)).collect();
    let words = spirv_interface::read_specialized(spirv, &values).map_err(&rejected)?;
    agree(&words, r).map_err(&rejected)?;
    matrix_types_agree(&words, r, &values).map_err(&rejected)?;
    specialized(&words, spec, size).map_err(rejected)?;
    array_lengths(shader, &words, r, spec)?;
    within(shader, &words, r, limits, spec)?;
    Ok(words)
}

/// The most bytes the variables in `Private` or `Function` memory (globals,
/// locals) that hold arrays sized by specialization constants may take
/// together. Each invocation has its own copy, which drivers keep in
/// registers, on a stack or in scratch memory: lavapipe's compile time
/// grows with the square of such an array (4 KiB of `int`s took 0.23 s,
/// 128 KiB did not finish in 18 minutes), and a length of 2^31 grew the
/// process to 24 GB. ncnn's own local arrays take a few hundred bytes.
pub(crate) const MAX_INVOCATION_ARRAY_BYTES: u64 = 16 << 10;

/// `Ok` where every array whose length specialization constants give is 1
/// element or more at the pipeline's values (`spec`), and those in private
/// or function memory take [`MAX_INVOCATION_ARRAY_BYTES`] at most (a
/// `shared` array counts towards `maxComputeSharedMemorySize`, checked
/// after). A length of 0 would wrap the bounds clamp `length - 1`, and a
/// negative one is invalid SPIR-V: either may crash the driver.
fn array_lengths(
    shader: &str,
    words: &Interface,
    r: &Reflection,
    spec: &[(u32, &'static str, u32)],
) -> Result<()> {
    for a in &words.spec_arrays {
        let what = || format!("the length of {} of {shader}", described(a, r, spec));
        let Some(length) = a.length else {
            return Err(Error::bad(
                what(),
                "not computable",
                "it divides by zero or shifts past 31 bits at the pipeline's specialization",
            ));
        };
        if length < 1 {
            return Err(Error::bad(what(), length, "an array has 1 element or more"));
        }
    }
    if words.spec_invocation_bytes > MAX_INVOCATION_ARRAY_BYTES {
        // The largest such array, for the message.
        let largest = words
            .spec_arrays
            .iter()
            .filter(|a| a.storage.invocation)
            .max_by_key(|a| a.element_bytes.saturating_mul(a.length.unwrap_or(0) as u64));
        let largest = largest.map_or(String::new(), |a| {
            format!(" (the largest: {})", described(a, r, spec))
        });
        let what = format!(
            "bytes of private and function memory of {shader} holding arrays sized by \
             specialization constants{largest}"
        );
        return Err(Error::bad(
            what,
            words.spec_invocation_bytes,
            format!("they take at most {MAX_INVOCATION_ARRAY_BYTES} bytes an invocation here"),
        ));
    }
    Ok(())
}

/// "`shared` array `tmp` (sized `N - 4`, with N = 4)": the reflection's
/// names and size for the words' array `a`, and the values the pipeline
/// gives the constants the size names.
fn described(
    a: &spirv_interface::WordSpecArray,
    r: &Reflection,
    spec: &[(u32, &'static str, u32)],
) -> String {
    let place = match (a.storage.workgroup, a.storage.invocation) {
        (true, _) => "`shared` array",
        (false, true) => "private or function array",
        (false, false) => "array",
    };
    let named: Vec<_> = r
        .spec_arrays
        .iter()
        .filter(|s| s.length_id == a.length_id)
        .collect();
    // The value the pipeline gives constant `c` (its default where none).
    let value_of = |c: &ncnn_glsl_core::reflection::SpecConstant| {
        let bits = spec.iter().find(|(id, _, _)| *id == c.id).map(|s| s.2);
        match (bits, c.ty.as_ref(), c.default) {
            (Some(b), "int", _) => (b as i32).to_string(),
            (Some(b), _, _) => b.to_string(),
            (None, _, Some(ScalarValue::Int(v))) => v.to_string(),
            (None, _, Some(ScalarValue::Uint(v))) => v.to_string(),
            (None, _, _) => "?".to_string(),
        }
    };
    let Some(first) = named.first() else {
        // A blob whose reflection does not name its arrays (glslang's):
        // the constants its words read for the length, by their SpecId.
        let article = if place.starts_with('a') { "an" } else { "a" };
        let constants: Vec<String> = a
            .spec_ids
            .iter()
            .map(|id| match r.spec_constants.iter().find(|c| c.id == *id) {
                Some(c) => format!("{} = {}", c.name, value_of(c)),
                None => format!("constant_id {id}"),
            })
            .collect();
        let with = if constants.is_empty() {
            String::new()
        } else {
            format!("{}; ", constants.join(", "))
        };
        return format!(
            "{article} {place} sized by specialization constants ({with}SPIR-V type %{})",
            a.type_id
        );
    };
    let plural = if named.len() > 1 { "s" } else { "" };
    let names: Vec<String> = named.iter().map(|s| format!("`{}`", s.name)).collect();
    // The constants the size names, at the values the pipeline gives them.
    let words: std::collections::BTreeSet<&str> = first
        .size
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    let values: Vec<String> = r
        .spec_constants
        .iter()
        .filter(|c| words.contains(c.name.as_ref()))
        .map(|c| format!("{} = {}", c.name, value_of(c)))
        .collect();
    let with = if values.is_empty() {
        String::new()
    } else {
        format!(", with {}", values.join(", "))
    };
    format!(
        "{place}{plural} {} (sized `{}`{with})",
        names.join(", "),
        first.size
    )
}

/// `Ok` where each specialization constant the pipeline sets is a 32-bit
/// constant of the type the value has in the words (the runtime passes 4
/// bytes per value: a 64-bit constant would read past them), and where the
/// words' `WorkgroupSize` constant, which overrides `LocalSize`, is the local
/// size the pipeline checks and dispatches with.
fn specialized(
    words: &Interface,
    spec: &[(u32, &'static str, u32)],
    size: [u32; 3],
) -> std::result::Result<(), String> {
    for (id, ty, _) in spec {
        let Some(w) = words.spec_constants.iter().find(|w| w.spec_id == *id) else {
            continue;
        };
        if w.bits != 32 {
            return Err(format!(
                "the SPIR-V's specialization constant {id} is {}-bit; this runtime sets 32-bit values",
                w.bits
            ));
        }
        if w.kind != *ty {
            return Err(format!(
                "the SPIR-V's specialization constant {id} is a `{}`, set as a `{ty}`",
                w.kind
            ));
        }
    }
    match words.workgroup_size {
        Some(ws) if ws != size => Err(format!(
            "the SPIR-V's WorkgroupSize constant is {ws:?}, and the pipeline's local size {size:?}"
        )),
        _ => Ok(()),
    }
}

/// `Ok` where each cooperative matrix type and multiply-add of the words,
/// at the pipeline's specialization values (`(SpecId, bits)`), is one the
/// reflection lists: what the blob says of itself is what it does (the
/// device's list is then checked against the words, `coopmat.rs`).
fn matrix_types_agree(
    words: &Interface,
    r: &Reflection,
    values: &[(u32, u32)],
) -> std::result::Result<(), String> {
    let value = |id: u32| values.iter().find(|(i, _)| *i == id).map(|(_, v)| *v);
    // A size the reflection gives (`None`: computed, `CoopMatDim::Derived`,
    // which the words alone give) is the words'.
    let fits =
        |want: Option<u32>, got: Option<u32>| got.is_some() && want.is_none_or(|v| got == Some(v));
    for w in &words.cooperative_matrix_types {
        let listed = r.cooperative_matrix_types.iter().any(|t| {
            let [rows, cols] = t.size(value);
            (t.flavor == CoopMatFlavor::Nv) == w.nv
                && w.component == Some(t.element.vk_component_type())
                && w.scope == Some(t.scope)
                && fits(rows, w.rows)
                && fits(cols, w.cols)
                && w.role == t.role.map(CoopMatUse::spirv)
        });
        if !listed {
            return Err(format!(
                "the SPIR-V declares a cooperative matrix type ({w:?}) that the reflection does not list"
            ));
        }
    }
    for ops in &words.cooperative_matrix_mul_adds {
        let [Some(a), Some(b), Some(c), Some(result)] = ops else {
            return Err(format!(
                "the SPIR-V has a cooperative matrix multiply-add whose operand types this \
                 runtime cannot read ({ops:?})"
            ));
        };
        let listed = r.cooperative_matrices.iter().any(|ma| {
            let [m, n, k] = ma.shape(value);
            (ma.flavor == CoopMatFlavor::Nv) == a.nv
                && a.component == Some(ma.a_type.vk_component_type())
                && b.component == Some(ma.b_type.vk_component_type())
                && c.component == Some(ma.c_type.vk_component_type())
                && result.component == Some(ma.result_type.vk_component_type())
                && a.scope == Some(ma.scope)
                && fits(m, a.rows)
                && fits(k, a.cols)
                && fits(n, b.cols)
        });
        if !listed {
            return Err(format!(
                "the SPIR-V has a cooperative matrix multiply-add (A {a:?}, B {b:?}) that the \
                 reflection does not list"
            ));
        }
    }
    Ok(())
}

/// The highest binding number taken: drivers size a set layout's tables by
/// its highest binding (ncnn's shaders use a handful).
pub(crate) const MAX_BINDING: u32 = 4095;

/// `Ok` where the reflection lists exactly the bindings the words declare,
/// each of the same kind, once, with a minimum buffer size that covers the
/// block's fixed part; a push-constant range that covers the words' block;
/// and distinct specialization ids.
fn agree(words: &Interface, r: &Reflection) -> std::result::Result<(), String> {
    let mut kinds = std::collections::BTreeMap::new();
    for w in &words.bindings {
        if *kinds.entry((w.set, w.binding)).or_insert(w.kind) != w.kind {
            return Err(format!(
                "the SPIR-V declares binding {}.{} as two kinds of descriptor",
                w.set, w.binding
            ));
        }
    }
    let mut ids = BTreeSet::new();
    let spec = r.spec_constants.iter().map(|c| c.id);
    for id in r.local_size_spec_ids.iter().flatten().copied().chain(spec) {
        if !ids.insert(id) {
            return Err(format!("the reflection gives specialization id {id} twice"));
        }
    }
    let mut listed = BTreeSet::new();
    for b in r.bindings.iter() {
        if !listed.insert((b.set, b.binding)) {
            return Err(format!(
                "the reflection lists binding {}.{} twice",
                b.set, b.binding
            ));
        }
        let kind = match b.kind {
            BindingKind::StorageBuffer => DescriptorKind::StorageBuffer,
            BindingKind::UniformBuffer => DescriptorKind::UniformBuffer,
            _ => DescriptorKind::Other,
        };
        // A binding the words do not declare is one the shader never
        // reads (the compiler's compaction drops it; the reflection keeps
        // the declared layout): bound, harmless. One of another kind is not.
        let Some(w) = words
            .bindings
            .iter()
            .find(|w| (w.set, w.binding) == (b.set, b.binding))
        else {
            continue;
        };
        if w.kind != kind {
            return Err(format!(
                "the reflection lists binding {}.{} `{}` as {:?}, the SPIR-V declares {:?}",
                b.set, b.binding, b.name, b.kind, w.kind
            ));
        }
        if b.min_size < w.fixed_bytes {
            return Err(format!(
                "the reflection gives binding {}.{} `{}` a minimum size of {} bytes, its block's fixed part takes {}",
                b.set, b.binding, b.name, b.min_size, w.fixed_bytes
            ));
        }
    }
    if let Some(w) = words
        .bindings
        .iter()
        .find(|w| !listed.contains(&(w.set, w.binding)))
    {
        return Err(format!(
            "the SPIR-V declares binding {}.{} ({:?}), which its reflection does not list",
            w.set, w.binding, w.kind
        ));
    }
    if let Some(s) = r
        .spec_arrays
        .iter()
        .find(|s| !words.spec_arrays.iter().any(|w| w.length_id == s.length_id))
    {
        return Err(format!(
            "the reflection sizes the array `{}` by the SPIR-V's %{}, which is no array's length there",
            s.name, s.length_id
        ));
    }
    if words.push_constant_bytes > u64::from(r.push_constant_size) {
        return Err(format!(
            "the SPIR-V's push-constant block takes {} bytes, its reflection says {}",
            words.push_constant_bytes, r.push_constant_size
        ));
    }
    Ok(())
}

/// `Ok` where the declared sets, descriptors, push constants and shared
/// memory fit `l`.
fn within(
    shader: &str,
    words: &Interface,
    r: &Reflection,
    l: &vk::PhysicalDeviceLimits,
    spec: &[(u32, &'static str, u32)],
) -> Result<()> {
    if let Some(b) = r
        .bindings
        .iter()
        .find(|b| b.set >= l.max_bound_descriptor_sets)
    {
        return Err(Error::bad(
            format!("descriptor set of binding `{}` of {shader}", b.name),
            b.set,
            format!(
                "maxBoundDescriptorSets is {} (sets 0 to {})",
                l.max_bound_descriptor_sets,
                l.max_bound_descriptor_sets.saturating_sub(1)
            ),
        ));
    }
    if let Some(b) = r.bindings.iter().find(|b| b.binding > MAX_BINDING) {
        return Err(Error::bad(
            format!("binding number of `{}` of {shader}", b.name),
            b.binding,
            format!("this runtime binds numbers 0 to {MAX_BINDING}"),
        ));
    }
    let count = |k: BindingKind| r.bindings.iter().filter(|b| b.kind == k).count() as u64;
    let (storage, uniform) = (
        count(BindingKind::StorageBuffer),
        count(BindingKind::UniformBuffer),
    );
    // One stage and one pipeline layout: the per-stage and the whole-layout
    // limits both apply to every descriptor of the shader.
    let checks = [
        (
            storage,
            l.max_per_stage_descriptor_storage_buffers,
            "storage buffers",
            "maxPerStageDescriptorStorageBuffers",
        ),
        (
            storage,
            l.max_descriptor_set_storage_buffers,
            "storage buffers",
            "maxDescriptorSetStorageBuffers",
        ),
        (
            uniform,
            l.max_per_stage_descriptor_uniform_buffers,
            "uniform buffers",
            "maxPerStageDescriptorUniformBuffers",
        ),
        (
            uniform,
            l.max_descriptor_set_uniform_buffers,
            "uniform buffers",
            "maxDescriptorSetUniformBuffers",
        ),
        (
            storage + uniform,
            l.max_per_stage_resources,
            "descriptors",
            "maxPerStageResources",
        ),
    ];
    for (n, max, what, limit) in checks {
        if n > u64::from(max) {
            return Err(Error::bad(
                format!("{what} of {shader}"),
                n,
                format!("{limit} is {max}"),
            ));
        }
    }
    if r.push_constant_size % 4 != 0 {
        return Err(Error::bad(
            format!("push-constant size of {shader}"),
            r.push_constant_size,
            "a push-constant range is a multiple of 4 bytes",
        ));
    }
    if words.workgroup_bytes > u64::from(l.max_compute_shared_memory_size) {
        // The arrays specialization constants size, at the pipeline's values.
        let sized: Vec<String> = words
            .spec_arrays
            .iter()
            .filter(|a| a.storage.workgroup)
            .map(|a| format!("{} = {}", described(a, r, spec), a.length.unwrap_or(0)))
            .collect();
        let sized = if sized.is_empty() {
            String::new()
        } else {
            format!(" (of which {})", sized.join(", "))
        };
        return Err(Error::bad(
            format!("shared memory of {shader}{sized}"),
            words.workgroup_bytes,
            format!(
                "maxComputeSharedMemorySize is {}",
                l.max_compute_shared_memory_size
            ),
        ));
    }
    Ok(())
}
