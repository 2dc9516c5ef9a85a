//! One generated program through both compilers and onto the device, and
//! the verdict.
//!
//! Every binding is allocated between two guard buffers (guard, binding,
//! guard, in that order: the allocator puts them side by side in practice),
//! the guards filled with [`GUARD_BYTE`] and the outputs poisoned; after the
//! dispatch every guard byte and every input byte must be as written, and
//! the validation layer must have said nothing.
//!
//! A program whose indices are all in range runs both blobs on the same
//! inputs, every output compared (integers byte for byte, floats by value:
//! they are exact by construction). One that may index out of range runs
//! ours only (glslang's blob has no bounds checks: running it out of range
//! is undefined behaviour that can take the process down), twice, and the
//! two runs must agree: a clamped access is deterministic.

use std::sync::Arc;

use ncnn_glsl_core::reflection::Reflection;
use ncnn_glsl_core::{CompileOptions, Diagnostics, MemoryLoader, SourceFile};
use ncnn_glsl_runtime::{Blob, Buffer, Context, Dispatch, Pipeline, PipelineOptions};

use super::program::{Access, BufElem};
use super::{BadSizes, Class, Program};
use crate::differential::{target_of, Cmp};
use crate::gpu::Gpu;
use crate::tools;

/// The byte every guard holds.
pub const GUARD_BYTE: u8 = 0xa5;
/// Bytes of each guard.
const GUARD: usize = 1024;

/// Our refusals that docs/naga.md ("Gaps, and what is done about each",
/// "Refused outright") documents, by the start of their reason: a program
/// refused with one is explained, not a difference. The generator avoids
/// these constructs, so seeing one means it strayed. Not here: the refusal
/// of a `float` operand in 16-bit arithmetic, since the generator writes
/// none (every float literal is inside `afp()` or `afpvec4()`): on its
/// programs that refusal is a false positive.
const DOCUMENTED: [&str; 7] = [
    "naga's GLSL frontend reverses the dimensions of multi-dimensional arrays",
    "a specialization constant in a global `const` initializer or an array size",
    "naga puts the members of a block with an instance name",
    "naga's GLSL frontend gives `scalar % vector`",
    "a whole copy of a struct or array between a std430 block",
    "naga types `bitCount`",
    "naga compiles `round()` and `roundEven()`",
];

/// What went wrong, as a class the minimizer keeps while it shrinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// We refuse a shader glslang accepts, for no documented reason.
    OursRefused,
    /// spirv-val rejects our SPIR-V.
    OursInvalid,
    /// `Pipeline::new` refused a blob of a valid program.
    PipelineRefused,
    /// The dispatch failed.
    DispatchFailed,
    /// The validation layer spoke.
    Validation,
    /// A guard byte or an input byte changed.
    Guard,
    /// Our outputs differ from glslang's.
    Outputs,
    /// Two runs of ours on the same inputs differ.
    Nondeterministic,
    /// A specialization that breaks an array's length was accepted.
    BadSizeAccepted,
    /// It was refused, but the error names neither the array nor a
    /// constant behind its length.
    BadSizeUnnamed,
}

/// A difference: its class and what was seen.
#[derive(Clone, Debug)]
pub struct Difference {
    /// The class.
    pub what: What,
    /// What was seen (for `OursRefused`, our first error without its place).
    pub detail: String,
}

/// The outcome of one program.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Everything agreed.
    Pass,
    /// glslang refuses the text: the generator wrote something outside the
    /// subset (its messages).
    GlslangRefused(String),
    /// We refuse it for a documented reason (the reason).
    Explained(String),
    /// Not run here (`NCNN_FUZZ_BAD_SIZES`).
    Skipped,
    /// A difference.
    Differs(Difference),
}

/// Whether an array named in `p.bad_names` is one the compiled module
/// keeps.
fn breaks_a_kept_array(p: &Program) -> bool {
    let reached = p.shader.reached();
    let arrays = p.shader.arrays();
    arrays
        .iter()
        .any(|a| p.bad_names.contains(&a.name) && p.shader.keeps(a, &reached))
}

fn differs(what: What, detail: impl Into<String>) -> Verdict {
    Verdict::Differs(Difference {
        what,
        detail: detail.into(),
    })
}

/// Runs programs on one context.
pub struct Runner<'g> {
    /// The test's GPU.
    pub gpu: &'g Gpu,
    /// Whether bad-size programs run.
    pub bad_sizes: BadSizes,
}

/// A blob of words compiled by this run, freed with it (a long run makes
/// tens of thousands; `Blob` wants `'static` words).
struct OwnedBlob {
    blob: Option<Blob>,
    words: *mut [u32],
}

impl OwnedBlob {
    /// # Safety
    ///
    /// As [`Blob::new`]: `spirv` is valid SPIR-V that `reflection`
    /// describes, and stays inside its buffers for the inputs it is run on.
    unsafe fn new(spirv: Vec<u32>, reflection: Reflection) -> OwnedBlob {
        let words: &'static mut [u32] = Box::leak(spirv.into_boxed_slice());
        let ptr: *mut [u32] = words;
        // SAFETY: the caller's promise; the words live until `drop`, after
        // the blob, and only the blob refers to them.
        let blob = unsafe { Blob::new(&*ptr, reflection) };
        OwnedBlob {
            blob: Some(blob),
            words: ptr,
        }
    }

    fn blob(&self) -> &Blob {
        self.blob.as_ref().expect("alive until dropped")
    }
}

impl Drop for OwnedBlob {
    fn drop(&mut self) {
        // The blob first: after it nothing refers to the words (a pipeline
        // copies them; `Blob::spirv` lends them no longer than the blob).
        drop(self.blob.take());
        // SAFETY: `words` came from `Box::leak` in `new` and is freed once.
        drop(unsafe { Box::from_raw(self.words) });
    }
}

/// The first error of a refusal, without its place (`case.comp:3:7: `), so
/// a minimized program that moves it still counts as the same.
fn first_error(d: &Diagnostics) -> String {
    d.0.first().map_or(String::new(), |e| e.message.clone())
}

impl Runner<'_> {
    /// The verdict on `p`.
    pub fn check(&self, p: &Program) -> Verdict {
        let bad = p.class == Class::BadSize;
        match self.bad_sizes {
            BadSizes::Off if bad => return Verdict::Skipped,
            BadSizes::Only if !bad => return Verdict::Skipped,
            _ => {}
        }
        // Messages are taken after each dispatch; none may be left over.
        let leftover = self.gpu.take_messages();
        assert!(
            leftover.is_empty(),
            "validation messages before seed {}:\n{}",
            p.seed,
            show(&leftover)
        );
        let text = p.shader.text();
        let file = SourceFile {
            name: "fuzz.comp".into(),
            path: None,
            text: text.clone(),
        };
        let target = target_of(&p.mode);
        let loader = MemoryLoader::default();
        let expanded =
            match ncnn_glsl_core::expand(file, &target, None, &loader, &Default::default()) {
                Ok(e) => e,
                Err(d) => return differs(What::OursRefused, format!("expand: {d}")),
            };
        // glslang runs in its own process while naga compiles here.
        let (ours, theirs) = std::thread::scope(|s| {
            let theirs = s.spawn(|| tools::glslang_spirv(expanded.text()));
            let ours = ncnn_glsl_core::compile(&expanded, &CompileOptions::default());
            (ours, theirs.join().expect("glslang's thread"))
        });
        let theirs = match theirs {
            Ok(t) => t,
            Err(e) => return Verdict::GlslangRefused(e),
        };
        let ours = match ours {
            Ok(c) => c,
            Err(d) => {
                let first = first_error(&d);
                if DOCUMENTED.iter().any(|r| first.starts_with(r)) {
                    return Verdict::Explained(first);
                }
                return differs(What::OursRefused, first);
            }
        };
        if let Err(e) = tools::spirv_val(&ours.spirv) {
            return differs(What::OursInvalid, e);
        }
        // glslang 12 writes invalid SPIR-V for some inputs (`&&` and `||` of
        // specialization constants, docs/naga.md): nothing to compare with.
        if let Err(e) = tools::spirv_val(&theirs) {
            return Verdict::Explained(format!("glslang's SPIR-V is invalid: {}", first_line(&e)));
        }
        let reflection = ours.reflection.clone();
        // SAFETY: our compiler clamps every index into its array, whatever
        // the inputs.
        let ours_blob = unsafe { OwnedBlob::new(ours.spirv, ours.reflection) };
        let mut theirs_reflection = reflection;
        theirs_reflection.requirements = ncnn_glsl_core::compile::reflect::requirements(&theirs);
        // Our words' ids of specialized lengths are not glslang's: the
        // runtime reads glslang's lengths from its own words.
        theirs_reflection.spec_arrays = Default::default();
        // SAFETY: glslang's blob clamps nothing: it only ever runs programs
        // whose indices are in range by construction (`Class::InRange`),
        // on buffers of the sizes the program was generated for; a
        // bad-size program only reaches `Pipeline::new`. Our reflection
        // describes it: the same text, the same bindings.
        let theirs_blob = unsafe { OwnedBlob::new(theirs, theirs_reflection) };
        match p.class {
            Class::BadSize => self.bad_size(p, ours_blob.blob(), theirs_blob.blob()),
            Class::InRange => {
                let a = self.dispatch(p, "ours", ours_blob.blob());
                let b = self.dispatch(p, "glslang", theirs_blob.blob());
                match (a, b) {
                    (Err(v), _) | (_, Err(v)) => v,
                    (Ok(a), Ok(b)) => compare(p, &a, &b, What::Outputs, "glslang's"),
                }
            }
            Class::MayIndexOutOfRange => {
                let a = self.dispatch(p, "ours", ours_blob.blob());
                let b = self.dispatch(p, "ours (again)", ours_blob.blob());
                match (a, b) {
                    (Err(v), _) | (_, Err(v)) => v,
                    (Ok(a), Ok(b)) => compare(p, &a, &b, What::Nondeterministic, "the first run's"),
                }
            }
        }
    }

    /// A specialization that breaks an array's length: each pipeline must
    /// be refused, naming the array or a constant behind its length.
    fn bad_size(&self, p: &Program, ours: &Blob, theirs: &Blob) -> Verdict {
        for (who, blob) in [("ours", ours), ("glslang's", theirs)] {
            let options = PipelineOptions {
                local_size: p.local_size,
                specialization: &p.specialization,
            };
            let made = Pipeline::new(self.gpu.ctx(), who, blob, &options);
            let messages = self.gpu.take_messages();
            if !messages.is_empty() {
                return differs(What::Validation, format!("{who}: {}", show(&messages)));
            }
            match made {
                // An edit of the minimizer can drop every broken array (or
                // leave it in a function `main` no longer reaches): a
                // length that breaks nothing the module keeps is no error.
                Ok(_) if !breaks_a_kept_array(p) => return Verdict::Pass,
                Ok(_) => {
                    return differs(
                        What::BadSizeAccepted,
                        format!(
                            "{who} pipeline accepted {:?}, which breaks the length of {}",
                            p.specialization,
                            p.bad_names.join(", ")
                        ),
                    )
                }
                Err(e) => {
                    let e = e.to_string();
                    if !p.bad_names.iter().any(|n| names(&e, n)) {
                        return differs(
                            What::BadSizeUnnamed,
                            format!(
                                "{who} pipeline refused, naming none of {}: {e}",
                                p.bad_names.join(", ")
                            ),
                        );
                    }
                }
            }
        }
        Verdict::Pass
    }

    /// One dispatch of `blob` with guards: the bytes of every binding after it.
    fn dispatch(&self, p: &Program, who: &str, blob: &Blob) -> Result<Vec<Vec<u8>>, Verdict> {
        let ctx = self.gpu.ctx();
        let options = PipelineOptions {
            local_size: p.local_size,
            specialization: &p.specialization,
        };
        let pipeline = Pipeline::new(ctx, who, blob, &options).map_err(|e| {
            let messages = self.gpu.take_messages();
            differs(
                What::PipelineRefused,
                format!("{who}: {e}{}", shown(&messages)),
            )
        })?;
        let inputs = p.inputs();
        let mut guards = Vec::new();
        let mut buffers = Vec::new();
        for bytes in &inputs {
            guards.push(guard(ctx));
            let mut b = Buffer::new(ctx, bytes.len() as u64).expect("a buffer");
            b.write(bytes).expect("write a buffer");
            buffers.push(b);
            guards.push(guard(ctx));
        }
        {
            let refs: Vec<&Buffer> = buffers.iter().collect();
            pipeline
                .dispatch(&Dispatch::new(&refs, &p.push_constants, p.groups))
                .map_err(|e| {
                    let messages = self.gpu.take_messages();
                    differs(
                        What::DispatchFailed,
                        format!("{who}: {e}{}", shown(&messages)),
                    )
                })?;
        }
        let messages = self.gpu.take_messages();
        if !messages.is_empty() {
            return Err(differs(
                What::Validation,
                format!("{who}: {}", show(&messages)),
            ));
        }
        for (k, g) in guards.iter_mut().enumerate() {
            if let Some(at) = read(g).iter().position(|&b| b != GUARD_BYTE) {
                let side = if k % 2 == 0 { "before" } else { "after" };
                return Err(differs(
                    What::Guard,
                    format!(
                        "{who}: the guard {side} binding {} written at byte {at}",
                        k / 2
                    ),
                ));
            }
        }
        let outputs: Vec<Vec<u8>> = buffers.iter_mut().map(read).collect();
        for (k, b) in p.shader.bindings.iter().enumerate() {
            if b.access == Access::In && outputs[k] != inputs[k] {
                return Err(differs(
                    What::Guard,
                    format!("{who}: input binding {k} written"),
                ));
            }
        }
        Ok(outputs)
    }
}

/// Whether message `e` names `n` as a word (not inside a longer name).
fn names(e: &str, n: &str) -> bool {
    e.match_indices(n).any(|(at, _)| {
        let before = e[..at].chars().next_back();
        let after = e[at + n.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

fn guard(ctx: &Arc<Context>) -> Buffer {
    let mut g = Buffer::new(ctx, GUARD as u64).expect("a guard buffer");
    g.write(&[GUARD_BYTE; GUARD]).expect("write a guard");
    g
}

fn read(b: &mut Buffer) -> Vec<u8> {
    let mut out = vec![0u8; b.size() as usize];
    b.read(&mut out).expect("read a buffer");
    out
}

/// The messages after an error, on lines of their own (nothing without any).
fn shown(messages: &[ncnn_glsl_runtime::Message]) -> String {
    if messages.is_empty() {
        String::new()
    } else {
        format!("\nvalidation messages:\n{}", show(messages))
    }
}

fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
}

fn show(messages: &[ncnn_glsl_runtime::Message]) -> String {
    messages
        .iter()
        .map(|m| format!("[{:?}] {}: {}", m.severity, m.id, m.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The outputs of two runs: integers byte for byte, floats by value (exact
/// by construction; the sign of a zero is not kept, which Vulkan allows
/// without `SignedZeroInfNanPreserve`, so -0.0 equals 0.0).
fn compare(p: &Program, a: &[Vec<u8>], b: &[Vec<u8>], what: What, other: &str) -> Verdict {
    for (k, bind) in p.shader.bindings.iter().enumerate() {
        let cmp = match (bind.elem, p.fp16_storage()) {
            (BufElem::Int | BufElem::Uint, _) => Cmp::Exact,
            (_, false) => Cmp::F32Ulps(0),
            (_, true) => Cmp::F16Ulps(0),
        };
        if let Err(at) = crate::differential::compare(cmp, &a[k], &b[k]) {
            let at = at.replace("glslang", other);
            return differs(what, format!("binding {k} `{}`: {at}", bind.name));
        }
    }
    Verdict::Pass
}

/// What identifies a difference while the minimizer shrinks its program:
/// its class, and for errors the message with numbers and names blanked
/// (so a smaller program that fails for another reason is not taken).
pub fn signature(d: &Difference) -> String {
    match d.what {
        What::Outputs | What::Nondeterministic | What::Guard | What::BadSizeAccepted => {
            format!("{:?}", d.what)
        }
        _ => {
            let mut out = format!("{:?} ", d.what);
            let mut quoted = false;
            for c in first_line(&d.detail).chars() {
                match c {
                    '`' => {
                        quoted = !quoted;
                        out.push('`');
                    }
                    _ if quoted => {}
                    '0'..='9' => {
                        if !out.ends_with('#') {
                            out.push('#');
                        }
                    }
                    c => out.push(c),
                }
            }
            out
        }
    }
}
