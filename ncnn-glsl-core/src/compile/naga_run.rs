//! The calls into naga: each behind `catch_unwind` (naga panics on some
//! inputs, and a build script or proc-macro must get an error, not an abort),
//! with every error mapped back to the user's file, line and column.

use std::panic::{catch_unwind, AssertUnwindSafe};

use naga::back::spv;
use naga::front::glsl;
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{Module, ShaderStage};

use crate::diag::Diagnostic;
use crate::expand::Expanded;
use crate::options::Flag;

/// The naga steps, named for panic messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Parse,
    Validate,
    Compact,
    Write,
}

impl Step {
    fn doing(self) -> &'static str {
        match self {
            Step::Parse => "parsing the shader",
            Step::Validate => "validating the module",
            Step::Compact => "removing unused types",
            Step::Write => "writing SPIR-V",
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Tests set this to make the step panic inside the guard, since no
    /// input we hand naga is known to panic it.
    pub(crate) static PANIC_AT: std::cell::Cell<Option<Step>> = const { std::cell::Cell::new(None) };
}

thread_local! {
    /// Set on a thread whose panics become diagnostics: the panic hook
    /// stays quiet there ([`quiet`]).
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Where the last quiet panic of this thread was, for its diagnostic.
    static WHERE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's panics kept from the panic hook: a panic is
/// caught and becomes a diagnostic, and the hook's text and backtrace would
/// otherwise print before it, into a build log. The hook is wrapped once per
/// process; other threads' panics reach the previous hook as before.
pub(crate) fn quiet<T>(f: impl FnOnce() -> T) -> T {
    static WRAP: std::sync::Once = std::sync::Once::new();
    WRAP.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(|q| q.get()) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                WHERE.with(|w| *w.borrow_mut() = at);
            } else {
                previous(info)
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let out = f();
    QUIET.with(|q| q.set(was));
    out
}

/// A panic's message, with where it was where this thread's quiet hook saw it.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    match WHERE.with(|w| w.borrow_mut().take()) {
        Some(at) => format!("{msg} (at {at})"),
        None => msg,
    }
}

/// Runs `f`, turning a panic into a diagnostic.
pub(crate) fn guarded<T>(step: Step, f: impl FnOnce() -> T) -> Result<T, Diagnostic> {
    quiet(|| {
        catch_unwind(AssertUnwindSafe(|| {
            #[cfg(test)]
            if PANIC_AT.with(|p| p.get()) == Some(step) {
                panic!("injected panic for a test");
            }
            f()
        }))
    })
    .map_err(|payload| {
        Diagnostic::new(format!(
            "naga panicked while {}: {}; this is a bug in naga, please report the shader",
            step.doing(),
            panic_message(&*payload)
        ))
    })
}

/// Where the byte offsets of the text naga is given come from: the finished
/// text of `expanded` (after the in-place text passes), with blocks of our
/// own inserted ([`Insert`]: the naga-only prototypes after `#version`,
/// declarations moved past a block).
#[derive(Clone, Debug)]
pub(crate) struct Origin<'a> {
    pub expanded: &'a Expanded,
    /// Sorted by `at`.
    inserts: Vec<(usize, usize, Option<std::ops::Range<usize>>)>,
}

/// A block of text inserted before naga sees the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Insert {
    /// Byte offset in the finished text where it goes.
    pub at: usize,
    /// The text.
    pub text: String,
    /// The bytes of the finished text an error inside it is reported at
    /// (a moved declaration's original place); `None` for our own code.
    pub stands_for: Option<std::ops::Range<usize>>,
}

impl<'a> Origin<'a> {
    /// Offsets equal to the finished text's.
    pub fn new(expanded: &'a Expanded) -> Origin<'a> {
        Origin {
            expanded,
            inserts: Vec::new(),
        }
    }

    /// The text naga is given, `text` with `inserts`, and its origin.
    pub fn with_inserts(
        expanded: &'a Expanded,
        text: &str,
        mut inserts: Vec<Insert>,
    ) -> (String, Origin<'a>) {
        inserts.sort_by_key(|i| i.at);
        let mut out =
            String::with_capacity(text.len() + inserts.iter().map(|i| i.text.len()).sum::<usize>());
        let mut from = 0;
        for i in &inserts {
            out.push_str(&text[from..i.at]);
            out.push_str(&i.text);
            from = i.at;
        }
        out.push_str(&text[from..]);
        let inserts = inserts
            .into_iter()
            .map(|i| (i.at, i.text.len(), i.stands_for))
            .collect();
        (out, Origin { expanded, inserts })
    }

    /// `range` in the finished text; inside an insert, what it stands for.
    pub fn finished_range(&self, r: std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
        let mut shift = 0;
        for (at, len, stands_for) in &self.inserts {
            let start = at + shift;
            if *len == 0 || r.end <= start {
                if *len == 0 {
                    continue;
                }
                break;
            }
            if r.start < start {
                return Some(r.start - shift..*at);
            }
            if r.start < start + len {
                return stands_for.clone();
            }
            shift += len;
        }
        Some(r.start - shift..r.end - shift)
    }

    /// The user's span of naga's byte `range`.
    pub fn span(&self, r: std::ops::Range<usize>) -> Option<crate::diag::Span> {
        let r = self.finished_range(r)?;
        self.expanded.span_of(r.start, r.len().max(1))
    }
}

/// A diagnostic at bytes `range` of the text naga was given, or at no place
/// when the range does not map (the byte offset is then given in a note).
pub(crate) fn at(
    origin: &Origin,
    range: Option<std::ops::Range<usize>>,
    message: String,
) -> Diagnostic {
    match range {
        Some(r) => match origin.span(r.clone()) {
            Some(span) => Diagnostic::at(span, message),
            None => Diagnostic::new(message)
                .note(format!("at byte {} of the text given to naga", r.start)),
        },
        None => Diagnostic::new(message),
    }
}

/// GLSL built-in functions naga declares for 32- and 64-bit floats only.
const FLOAT_BUILTINS: &[&str] = &[
    "abs",
    "sign",
    "floor",
    "ceil",
    "trunc",
    "round",
    "roundEven",
    "fract",
    "mod",
    "modf",
    "min",
    "max",
    "clamp",
    "mix",
    "step",
    "smoothstep",
    "sqrt",
    "inversesqrt",
    "exp",
    "exp2",
    "log",
    "log2",
    "pow",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "radians",
    "degrees",
    "length",
    "distance",
    "dot",
    "cross",
    "normalize",
    "faceforward",
    "reflect",
    "refract",
    "fma",
    "isnan",
    "isinf",
    "frexp",
    "ldexp",
    "outerProduct",
    "transpose",
    "determinant",
    "inverse",
    "matrixCompMult",
    "lessThan",
    "lessThanEqual",
    "greaterThan",
    "greaterThanEqual",
    "equal",
    "notEqual",
];

/// Parses `text` (the finished text after the source passes; same offsets).
pub(crate) fn parse(origin: &Origin, text: &str) -> Result<Module, Vec<Diagnostic>> {
    let run = |text: &str| {
        guarded(Step::Parse, || {
            glsl::Frontend::default().parse(&glsl::Options::from(ShaderStage::Compute), text)
        })
    };
    let result = run(text).map_err(|d| vec![panic_at(origin, text, d, |t| run(t).is_err())])?;
    let errors = match result {
        Ok(module) => return Ok(module),
        Err(e) => e.errors,
    };
    // Float16 arguments show only as a builtin name naga does not find,
    // since its builtins have no float16 overloads.
    let fp16 = origin.expanded.target.options.has(Flag::Fp16Arithmetic)
        || ["float16_t", "f16vec2", "f16vec3", "f16vec4", "f16mat"]
            .iter()
            .any(|t| text.contains(t));
    Err(errors
        .into_iter()
        .take(crate::diag::MAX_ERRORS)
        .map(|e| {
            let message = super::naga_words::parse_error_message(&e.kind, text, e.meta.to_range());
            let builtin = message
                .strip_prefix("Unknown function '")
                .and_then(|s| s.strip_suffix('\''))
                .filter(|name| FLOAT_BUILTINS.contains(name));
            match builtin {
                Some(name) if fp16 => at(
                    origin,
                    e.meta.to_range(),
                    format!("naga's GLSL frontend has no float16 overload of `{name}`"),
                )
                .note(format!("naga: {message}"))
                .note(format!(
                    "naga declares GLSL builtins for 32- and 64-bit floats only: convert the \
                     arguments (`{name}(float(a), ...)`, `{name}(vec4(v), ...)`) and the result \
                     back, or build this variant without fp16 arithmetic (fp16a)"
                )),
                _ => at(origin, e.meta.to_range(), message),
            }
        })
        .collect())
}

/// A panic of naga's parser placed at the line where it happens: the end
/// of the shortest prefix of whole lines that panics too (the parser reads
/// declarations and statements in order, so a panic at line L comes back in
/// every prefix past L), found by bisection, on the error path only. A panic
/// only the whole text raises stays without a place.
fn panic_at(
    origin: &Origin,
    text: &str,
    d: Diagnostic,
    panics: impl Fn(&str) -> bool,
) -> Diagnostic {
    let ends: Vec<usize> = text
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .filter(|&e| e < text.len())
        .collect();
    let (mut lo, mut hi) = (0usize, ends.len());
    // Invariant: the prefix of `ends[hi]` panics (the whole text, hi == len).
    while lo < hi {
        let mid = (lo + hi) / 2;
        if panics(&text[..ends[mid]]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let Some(&end) = ends.get(hi) else {
        return d;
    };
    let start = text[..end - 1].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..end - 1];
    let first = start + (line.len() - line.trim_start().len());
    let mut placed = at(origin, Some(first..end - 1), d.message.clone());
    placed.notes = d.notes.clone();
    let layout_overflow = d.message.contains("with overflow") && d.message.contains("front/glsl/");
    if d.message.contains("TooLarge") || layout_overflow {
        placed = placed.note(
            "a type here may take more than 2147483647 bytes, the most naga can lay out: \
             make the array smaller",
        );
    }
    placed
}

/// The validator capabilities: everything naga's SPIR-V writer can express.
/// What the blob really needs is read from its capabilities afterwards
/// (`reflect::requirements`), so allowing more here loses nothing.
fn capabilities() -> Capabilities {
    spv::supported_capabilities()
}

/// The text of an error and every error it wraps, `: `-joined.
pub(super) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(inner) = cur {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        cur = inner.source();
    }
    s
}

/// Validates `module` with every check on.
pub(crate) fn validate(origin: &Origin, module: &Module) -> Result<ModuleInfo, Diagnostic> {
    // naga requires cooperative matrix operations in control flow it proves
    // uniform, and proves too little (a branch on `gl_WorkGroupID`, which
    // its GLSL frontend reads from a private global, is non-uniform to it):
    // ncnn's GEMMs return early that way. GLSL requires no such proof, nor
    // does glslang; in a compute shader the flag checks nothing else.
    let coop = module
        .types
        .iter()
        .any(|(_, t)| matches!(t.inner, naga::TypeInner::CooperativeMatrix { .. }));
    let flags = if coop {
        ValidationFlags::all() - ValidationFlags::CONTROL_FLOW_UNIFORMITY
    } else {
        ValidationFlags::all()
    };
    // naga refuses `gl_SubgroupID` and `gl_SubgroupInvocationID` with a
    // local size of more than one dimension (a WGSL rule; Vulkan and
    // glslang take it). Nothing else it validates reads the local size's y
    // and z, so such a module is validated with them set to 1; the writer
    // gets the module as it is.
    let flat = subgroup_ids_in_2d(module).then(|| {
        let mut m = module.clone();
        for ep in m.entry_points.iter_mut() {
            ep.workgroup_size[1..].fill(1);
        }
        m
    });
    let checked = flat.as_ref().unwrap_or(module);
    let result = guarded(Step::Validate, || {
        Validator::new(flags, capabilities())
            .validate(checked)
            .map_err(Box::new)
    })?;
    result.map_err(|e| {
        // naga adds spans from the outside in (function, then expression):
        // the last is the most precise place; the others become notes.
        let mut spans: Vec<_> = e
            .spans()
            .filter_map(|(span, label)| Some((span.to_range()?, label.clone())))
            .collect();
        let main = spans.pop();
        let message = format!("naga rejects the module: {}", chain(e.as_inner()));
        let mut d = match (&main, e.as_inner()) {
            // naga's GLSL frontend gives no span to the types of blocks and
            // structs: the error goes to the declaration of that name.
            (None, naga::valid::ValidationError::Type { name, .. }) => {
                let finished = Origin::new(origin.expanded);
                at(
                    &finished,
                    declaration(origin.expanded.text(), name),
                    message,
                )
            }
            _ => at(origin, main.as_ref().map(|(r, _)| r.clone()), message),
        };
        if let Some((_, label)) = main.filter(|(_, l)| !l.is_empty()) {
            d = d.note(label);
        }
        for (r, label) in spans.into_iter().rev() {
            let place = origin
                .span(r)
                .map(|s| format!("{}:{}:{}: ", s.file, s.line, s.column))
                .unwrap_or_default();
            d = d.note(format!("{place}{label}"));
        }
        d
    })
}

/// Whether an entry point of more than one local-size dimension takes
/// `gl_SubgroupID` or `gl_SubgroupInvocationID`.
fn subgroup_ids_in_2d(module: &Module) -> bool {
    use naga::{Binding, BuiltIn};
    module.entry_points.iter().any(|ep| {
        ep.workgroup_size[1..].iter().any(|&s| s > 1)
            && ep.function.arguments.iter().any(|a| {
                matches!(
                    a.binding,
                    Some(Binding::BuiltIn(
                        BuiltIn::SubgroupId | BuiltIn::SubgroupInvocationId
                    ))
                )
            })
    })
}

/// The byte range of the name in the first `struct NAME {` or block
/// declaration `buffer NAME {` / `uniform NAME {` of `text`.
fn declaration(text: &str, name: &str) -> Option<std::ops::Range<usize>> {
    if name.is_empty() {
        return None;
    }
    let toks = super::tokens::tokenize(text);
    toks.windows(3).find_map(|w| {
        let opens = matches!(w[0].text(text), "struct" | "buffer" | "uniform");
        (opens && w[1].text(text) == name && w[2].is_punct(text, '{')).then(|| w[1].start..w[1].end)
    })
}

/// Drops everything `main` does not use: the types naga's GLSL frontend
/// declares for every built-in image function overload (1-D images,
/// `r8ui`/`r16f` formats, ...), which would make the blob ask for `Image1D`,
/// `Sampled1D` and `shaderStorageImageExtendedFormats`; the atomics
/// prototypes; unused functions, buffers and specialization constants (a
/// pipeline layout may hold bindings a shader does not declare; reflection
/// still lists every declared one). The module is re-validated for the
/// writer. `module` must already be valid.
pub(crate) fn compact(origin: &Origin, module: &mut Module) -> Result<ModuleInfo, Diagnostic> {
    guarded(Step::Compact, || {
        naga::compact::compact(module, naga::compact::KeepUnused::No)
    })?;
    validate(origin, module)
}

/// The SPIR-V writer's options, each chosen on purpose.
pub(crate) fn writer_options(debug_names: bool) -> spv::Options<'static> {
    spv::Options {
        // SPIR-V 1.3 is what Vulkan 1.1 takes, ncnn's floor.
        lang_version: (1, 3),
        // No coordinate flip, varying labels or depth clamp: compute only.
        // Names only when asked: they cost size and leak identifiers.
        flags: if debug_names {
            spv::WriterFlags::DEBUG
        } else {
            spv::WriterFlags::empty()
        },
        // Bindings are the ones the user wrote; no remapping table.
        fake_missing_bindings: true,
        binding_map: Default::default(),
        capabilities: None,
        // Every index into an array, vector or matrix is clamped into it, in
        // buffers too (a runtime-sized array by `OpArrayLength`): a safe
        // dispatch cannot reach memory outside what is bound to it, whatever
        // the shader indexes and whatever the driver's robustness. Images are
        // not clamped: the runtime binds buffers only.
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Restrict,
            buffer: naga::proc::BoundsCheckPolicy::Restrict,
            image_load: naga::proc::BoundsCheckPolicy::Unchecked,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        // glslang does not zero `shared` memory; the polyfill costs a loop and a barrier.
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::None,
        // Loop counters injected to prove termination are WebGPU's concern and
        // cost registers in every loop.
        force_loop_bounding: false,
        ray_query_initialization_tracking: false,
        trace_ray_argument_validation: false,
        // A compute shader has no 16-bit inputs or outputs; the capability
        // would only ask the device for `storageInputOutput16`.
        use_storage_input_output_16: false,
        debug_info: None,
        task_dispatch_limits: None,
        mesh_shader_primitive_indices_clamp: false,
        // Raw OpSDiv/OpUDiv/OpUMod like glslang: no wrapper functions per division.
        // (naga still wraps signed `%` as `a - b * (a / b)`, always: OpSRem is
        // poison for negative operands in Vulkan without VK_KHR_maintenance8.)
        emit_int_div_checks: false,
    }
}

/// Writes SPIR-V for the entry point `main`.
pub(crate) fn write(
    module: &Module,
    info: &ModuleInfo,
    options: &spv::Options,
) -> Result<Vec<u32>, Diagnostic> {
    let pipeline = spv::PipelineOptions {
        shader_stage: ShaderStage::Compute,
        entry_point: "main".into(),
    };
    let result = guarded(Step::Write, || {
        spv::write_vec(module, info, options, Some(&pipeline))
    })?;
    result.map_err(|e| Diagnostic::new(format!("naga cannot write SPIR-V: {}", chain(&e))))
}
