//! Building a shader's whole variant set: every canonical target of its
//! permutation space, times every combination of its declared axes, expanded,
//! de-duplicated by finished text, compiled, de-duplicated again by SPIR-V.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use crate::compile::inexpressible::{self, Inexpressible};
use crate::compile::{compile, CompileOptions, Compiled};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::expand::{expand_with, ExpandOptions, Expanded, PRELUDE_NAME};
use crate::source::{Loader, SourceFile, SourceMap};
use crate::target::Target;

use super::cache::Cache;
use super::decl::{self, Declaration, MAX_VARIANTS};
use super::device_axes::{self, Uses};
use super::device_value::{axis_value_for, UNDEFINED};
use super::jobs;
use super::select::{choose, select_target, Choice};
use super::space::{space, Usage};
use crate::device::DeviceCaps;
use crate::options::Options;

/// What one variant is built for: a canonical target and one value per axis
/// (build-time axes first, then device axes, in declaration order).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VariantKey {
    /// The canonical target.
    pub target: Target,
    /// The axis values.
    pub axes: Vec<i64>,
}

/// One variant of a built set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltVariant {
    /// What it is built for.
    pub key: VariantKey,
    /// Index of its finished text in [`BuiltSet::texts`].
    pub text: usize,
    /// Index of its blob in [`BuiltSet::blobs`].
    pub blob: usize,
}

/// A shader's variant set, as the macro embeds it and `regen-variants` writes it.
#[derive(Clone, Debug)]
pub struct BuiltSet {
    /// The shader's display name.
    pub name: String,
    /// Its `#pragma ncnn_glsl` declarations.
    pub declaration: Declaration,
    /// What of the extension it uses (decides the permutation space).
    pub usage: Usage,
    /// Distinct finished texts.
    pub texts: Vec<String>,
    /// Distinct compiled blobs.
    pub blobs: Vec<Compiled>,
    /// Every variant, sorted by key.
    pub variants: Vec<BuiltVariant>,
    /// Keys the declaration excludes (covered by the fallback order).
    pub excluded: Vec<VariantKey>,
    /// Keys left out because naga cannot express their column for this
    /// shader (`compile/inexpressible.rs`; covered by the fallback order).
    pub left_out: Vec<LeftOut>,
    /// Every file read from disk (the shader and what it includes), for rebuilds.
    pub files: Vec<PathBuf>,
}

/// A variant the compiler does not build: the extension defines a name the
/// shader uses, in this variant's column, with a type naga does not have.
#[derive(Clone, Debug)]
pub struct LeftOut {
    /// What it would have been built for.
    pub key: VariantKey,
    /// The column, the reason, what runs instead.
    pub why: &'static Inexpressible,
    /// The target of the variant that a device ending with `key`'s target
    /// runs instead (the fallback order's first one the set holds).
    pub runs: Target,
}

impl BuiltSet {
    /// The variant `device` runs for `wanted` options and the given values of
    /// the build-time axes (device axes are read from the device); `None`
    /// when the set holds no variant for those values or that device.
    pub fn select(
        &self,
        device: &DeviceCaps,
        wanted: Options,
        axes: &[i64],
    ) -> Option<Choice<'_, BuiltVariant>> {
        let mut values = axes.to_vec();
        for a in &self.declaration.device {
            let o = a.outcomes.as_ref();
            values.push(axis_value_for(device, &a.name, &a.values, o).ok()?);
        }
        choose(self.usage, device, wanted, |t| {
            let key = VariantKey {
                target: t,
                axes: values.clone(),
            };
            self.variants
                .binary_search_by(|v| v.key.cmp(&key))
                .ok()
                .map(|i| &self.variants[i])
        })
    }

    /// The names of the axes, build-time first, then device axes.
    pub fn axis_names(&self) -> Vec<&str> {
        self.declaration
            .axes
            .iter()
            .chain(&self.declaration.device)
            .map(|a| a.name.as_str())
            .collect()
    }
}

/// The most bytes of finished text the expansions of one set may take
/// together (every variant counts, also where two expand alike), checked
/// before anything is compiled: it bounds the time spent expanding and the
/// distinct texts a build holds.
pub const MAX_SET_TEXT: usize = 128 << 20;

/// The most rounds of surveying a set: each finds more of what the files
/// the variants read use (a file included only under a branch that a
/// device axis found in the last round opens).
const MAX_ROUNDS: usize = 8;

/// Builds every variant of `source`, each expanded with `expand` (its
/// defines and include directories). Fails with every error that stops the
/// set: bad declarations, more variants than [`MAX_VARIANTS`] (counted
/// before anything is expanded) or more text than [`MAX_SET_TEXT`] (before
/// anything is compiled), device macros used other than in tests that the
/// declaration lacks (those only tested become device axes,
/// `variant/device_axes.rs`), expansion errors (a
/// define that names an axis among them), and variants naga cannot compile
/// that the declaration does not exclude.
///
/// Each variant is expanded and compiled on its own, so that only the
/// distinct texts and blobs of the set are held, never every expansion (the
/// first expansions, up to 32 MiB, are kept from the count to the compile;
/// the others are expanded again there, at most two per compile worker
/// queued or compiling at a time, `variant/jobs.rs`). Each distinct text is
/// compiled once, on [`jobs::workers`] threads; the set is the same for any
/// number of them.
pub fn build(
    source: SourceFile,
    loader: &dyn Loader,
    expand: &ExpandOptions,
    options: &CompileOptions,
) -> Result<BuiltSet, Diagnostics> {
    build_with(source, loader, expand, options, None)
}

/// [`build`], with the compiled variants looked up in and added to `cache`
/// (`variant/cache.rs`): a variant whose finished text was compiled before,
/// by this build of the core with these options, is not compiled again.
pub fn build_with(
    source: SourceFile,
    loader: &dyn Loader,
    expand: &ExpandOptions,
    options: &CompileOptions,
    cache: Option<&Cache>,
) -> Result<BuiltSet, Diagnostics> {
    let compiler = jobs::Compiler {
        options,
        cache,
        workers: None,
        compile: &compile,
    };
    build_in(source, loader, expand, &compiler)
}

/// [`build`] with `compiler`.
pub(crate) fn build_in(
    source: SourceFile,
    loader: &dyn Loader,
    expand: &ExpandOptions,
    compiler: &jobs::Compiler<'_>,
) -> Result<BuiltSet, Diagnostics> {
    let mut decl_sources = SourceMap::new();
    let main = decl_sources.add(source.clone());
    let mut declaration = decl::parse(&decl_sources, main)?;
    let declared_device = declaration.device.len();

    // The space depends on what the shader uses, and its device axes on the
    // device macros it tests, both including what its included files use
    // (some only for some variants); grow them until they stop changing.
    // Each round is counted before it expands anything.
    let mut usage = text_usage(&source.text);
    let mut rounds = 0;
    let (keys, survey) = loop {
        let keys = variant_keys(&source.name, &declaration, &decl_sources, usage)?;
        let survey = survey(&source, &declaration, &keys.built, loader, expand)?;
        let merged = merge(usage, survey.usage);
        let found = device_axes::axes(&survey.device_macros).map_err(Diagnostics)?;
        if merged == usage && found == declaration.device[declared_device..] {
            break (keys, survey);
        }
        rounds += 1;
        if rounds > MAX_ROUNDS {
            return Err(Diagnostic::new(format!(
                "the variant set of `{}` did not settle after {MAX_ROUNDS} rounds of finding \
                 what its files use",
                source.name
            ))
            .note("declare its device macros with `#pragma ncnn_glsl device`")
            .into());
        }
        usage = merged;
        declaration.device.truncate(declared_device);
        declaration.device.extend(found);
    };
    let axes: Vec<&decl::Axis> = declaration.axes.iter().chain(&declaration.device).collect();
    let files = source
        .path
        .clone()
        .into_iter()
        .chain(survey.files)
        .collect();

    // Each distinct text is compiled once, on the workers, while this
    // thread expands the next variants; the results come back in the order
    // the texts were first seen, so what follows is the same for any number
    // of workers.
    let mut text_index: HashMap<String, usize> = HashMap::new();
    let mut assigned: Vec<(VariantKey, usize)> = Vec::new();
    let mut left_out = Vec::new();
    let workers = compiler
        .workers
        .unwrap_or_else(|| jobs::workers(keys.built.len()));
    let work = |e: Expanded| compiler.compile(&e);
    let ((), outcome) = jobs::pipeline(workers, work, |submit| {
        for (key, held) in keys.built.into_iter().zip(survey.held) {
            let e = match held {
                Some(e) => e,
                None => expand_variant(&source, &declaration, &key, loader, expand)?,
            };
            if let Some(why) = left_out_of(&e) {
                left_out.push((key, why));
                continue;
            }
            let ti = match text_index.get(e.text()) {
                Some(&i) => i,
                None => {
                    let i = text_index.len();
                    text_index.insert(e.pp.text.clone(), i);
                    submit(e);
                    i
                }
            };
            assigned.push((key, ti));
        }
        Ok::<(), Diagnostics>(())
    })?;
    let mut blobs: Vec<Compiled> = Vec::new();
    let outcome: Vec<Result<usize, Diagnostics>> = outcome
        .into_iter()
        .map(|r| {
            r.map(|c| {
                blobs
                    .iter()
                    .position(|b| b.spirv == c.spirv)
                    .unwrap_or_else(|| {
                        blobs.push(c);
                        blobs.len() - 1
                    })
            })
        })
        .collect();
    let mut variants = Vec::new();
    // Failures grouped by their first error, so one construct that fails in
    // twenty modes is reported once, with the twenty modes.
    let mut failures: BTreeMap<String, (Diagnostics, Vec<VariantKey>)> = BTreeMap::new();
    for (key, ti) in assigned {
        match &outcome[ti] {
            Ok(blob) => variants.push(BuiltVariant {
                key,
                text: ti,
                blob: *blob,
            }),
            Err(d) => {
                let first = d.0.first().map(|x| x.to_string()).unwrap_or_default();
                failures
                    .entry(first)
                    .or_insert_with(|| (d.clone(), Vec::new()))
                    .1
                    .push(key);
            }
        }
    }
    if !failures.is_empty() {
        let built = variants.len();
        return Err(failure_report(&source.name, &axes, failures, built));
    }
    let mut texts = vec![String::new(); text_index.len()];
    for (text, i) in text_index {
        texts[i] = text;
    }
    variants.sort_by(|a: &BuiltVariant, b| a.key.cmp(&b.key));
    let left_out = left_out
        .into_iter()
        .map(|(key, why)| {
            let lookup = |t: Target| {
                let k = VariantKey {
                    target: t,
                    axes: key.axes.clone(),
                };
                variants
                    .binary_search_by(|v| v.key.cmp(&k))
                    .ok()
                    .map(|i| &variants[i])
            };
            // fp32 is never left out nor excluded, so there is always one.
            let runs = select_target(key.target, lookup).map_or(Target::default(), |c| c.chosen);
            LeftOut { key, why, runs }
        })
        .collect();
    Ok(BuiltSet {
        name: source.name,
        declaration,
        usage,
        texts,
        blobs,
        variants,
        excluded: keys.excluded,
        left_out,
        files,
    })
}

/// The expansion of `source` for the variant `key` of its set (declared by
/// `declaration`), as [`build`] makes it.
pub fn expand_variant(
    source: &SourceFile,
    declaration: &Declaration,
    key: &VariantKey,
    loader: &dyn Loader,
    expand: &ExpandOptions,
) -> Result<Expanded, Diagnostics> {
    let names = declaration.axes.iter().chain(&declaration.device);
    // A device axis's UNDEFINED is a variant without the macro.
    let defines: Vec<(&str, i64)> = names
        .map(|a| a.name.as_str())
        .zip(key.axes.iter().copied())
        .filter(|(_, v)| *v != UNDEFINED)
        .collect();
    expand_with(source.clone(), &key.target, None, &defines, loader, expand)
}

/// The keys of a set for one usage, sorted: those to build, those excluded.
struct Keys {
    built: Vec<VariantKey>,
    excluded: Vec<VariantKey>,
}

/// The keys of the set for `usage`; an error, at the first axis, where the
/// variants to build are more than [`MAX_VARIANTS`].
fn variant_keys(
    shader: &str,
    declaration: &Declaration,
    sources: &SourceMap,
    usage: Usage,
) -> Result<Keys, Diagnostics> {
    let axes: Vec<&decl::Axis> = declaration.axes.iter().chain(&declaration.device).collect();
    let (built, excluded): (Vec<Target>, Vec<Target>) = space(usage)
        .into_iter()
        .partition(|t| !declaration.excludes(*t));
    // `decl::parse` keeps the product within MAX_VARIANTS.
    let combos: usize = axes.iter().map(|a| a.values.len()).product();
    let count = combos.saturating_mul(built.len());
    if count > MAX_VARIANTS {
        let shown: Vec<String> = built.iter().take(8).map(Target::to_string).collect();
        let more = if built.len() > shown.len() {
            ", ..."
        } else {
            ""
        };
        let msg = format!(
            "the variant set of `{shader}` has {count} variants to build: {combos} combinations \
             of axis values x {} targets (modes with their device bits: {}{more}); at most \
             {MAX_VARIANTS} are allowed",
            built.len(),
            shown.join(", ")
        );
        let note = "exclude modes (`#pragma ncnn_glsl exclude fp16a`) or declare fewer axis \
                    values; each variant is compiled and embedded";
        // A found axis's place is in the expansion's files, not `sources`.
        let declared = axes.iter().find(|a| a.outcomes.is_none());
        let d = match declared {
            Some(a) => Diagnostic::at(Span::at(sources, a.at, a.name.len() as u32), msg),
            None => Diagnostic::new(msg),
        };
        return Err(d.note(note).into());
    }
    let all_values = axis_combinations(&axes);
    let keys = |targets: Vec<Target>| -> Vec<VariantKey> {
        let mut keys: Vec<VariantKey> = targets
            .into_iter()
            .flat_map(|target| {
                all_values.iter().map(move |values| VariantKey {
                    target,
                    axes: values.clone(),
                })
            })
            .collect();
        keys.sort();
        keys
    };
    Ok(Keys {
        built: keys(built),
        excluded: keys(excluded),
    })
}

/// The most bytes of expansions (finished text and the files read) a
/// survey keeps for the compile after it; the others are made again there.
const MAX_HELD: usize = 32 << 20;

/// What the expansions of one round tell.
struct Survey {
    /// The usage of the names of the user's files.
    usage: Usage,
    /// Every file read from disk.
    files: BTreeSet<PathBuf>,
    /// The undeclared device macros the user's files use, and how.
    device_macros: BTreeMap<String, Uses>,
    /// The user's files already read for device macros (by name).
    scanned: BTreeSet<String>,
    /// Per key, its expansion while they fit in [`MAX_HELD`] together.
    held: Vec<Option<Expanded>>,
}

/// Expands the variants `keys`, one at a time, for what they use, read and
/// test; an error where their text passes [`MAX_SET_TEXT`]. The first
/// expansions, up to [`MAX_HELD`] bytes, are kept for the compile.
fn survey(
    source: &SourceFile,
    declaration: &Declaration,
    keys: &[VariantKey],
    loader: &dyn Loader,
    expand: &ExpandOptions,
) -> Result<Survey, Diagnostics> {
    // Found axes are found again each round, from every file read.
    let declared: BTreeSet<&str> = declaration
        .device
        .iter()
        .filter(|a| a.outcomes.is_none())
        .map(|a| a.name.as_str())
        .collect();
    let mut names = BTreeSet::new();
    let mut survey = Survey {
        usage: Usage::default(),
        files: BTreeSet::new(),
        device_macros: BTreeMap::new(),
        scanned: BTreeSet::new(),
        held: Vec::new(),
    };
    let (mut bytes, mut held) = (0usize, 0usize);
    for (k, key) in keys.iter().enumerate() {
        let e = expand_variant(source, declaration, key, loader, expand)?;
        bytes = bytes.saturating_add(e.text().len());
        if bytes > MAX_SET_TEXT {
            return Err(Diagnostic::new(format!(
                "the variants of `{}` expand to more text than a set may hold: {bytes} bytes \
                 after {} of its {} variants; at most {MAX_SET_TEXT} bytes are allowed across \
                 the set",
                source.name,
                k + 1,
                keys.len()
            ))
            .note(
                "each variant is the whole shader with what it includes, expanded for its mode \
                 and axis values: include less, or build fewer variants (`#pragma ncnn_glsl \
                 exclude`, fewer axis values)",
            )
            .into());
        }
        names.extend(used_names(&e));
        survey.files.extend(e.pp.included.iter().cloned());
        // Files included only in some modes or for some axis values count too.
        for (id, f) in e.sources.files().filter(|(_, f)| f.name != PRELUDE_NAME) {
            if survey.scanned.insert(f.name.clone()) {
                let uses = device_axes::uses_in(&e.sources, id, &declared);
                device_axes::merge_uses(&mut survey.device_macros, uses);
            }
        }
        let size = e.text().len() + e.sources.files().map(|(_, f)| f.text.len()).sum::<usize>();
        if held + size <= MAX_HELD {
            held += size;
            survey.held.push(Some(e));
        } else {
            survey.held.push(None);
        }
    }
    survey.usage = Usage::of_names(names.iter().map(String::as_str));
    Ok(survey)
}

/// The identifiers of the user's files of `e` (the shader and what it
/// includes, not the extension's prelude), comments skipped.
fn used_names(e: &Expanded) -> BTreeSet<String> {
    e.sources
        .files()
        .filter(|(_, f)| f.name != PRELUDE_NAME)
        .flat_map(|(_, f)| identifiers(&f.text).into_iter().map(|(n, _)| n))
        .collect()
}

/// Why the variant of `e` is left out of its set, if it is: the shader uses
/// a name that the extension defines, in `e`'s target, with a type naga does
/// not have (`compile/inexpressible.rs`).
pub fn left_out_of(e: &Expanded) -> Option<&'static Inexpressible> {
    let names = used_names(e);
    inexpressible::left_out(&e.target, |n| names.contains(n))
}

/// Every combination of the axes' values, the last axis fastest. One empty
/// combination when there is no axis.
fn axis_combinations(axes: &[&decl::Axis]) -> Vec<Vec<i64>> {
    axes.iter().fold(vec![Vec::new()], |acc, axis| {
        acc.iter()
            .flat_map(|prefix| {
                axis.values.iter().map(move |v| {
                    let mut c = prefix.clone();
                    c.push(*v);
                    c
                })
            })
            .collect()
    })
}

/// The usage of the extension's names in one source text (comments skipped).
pub fn text_usage(text: &str) -> Usage {
    Usage::of_names(identifiers(text).iter().map(|(n, _)| n.as_str()))
}

/// Usage that holds everything `a` or `b` holds.
fn merge(a: Usage, b: Usage) -> Usage {
    Usage {
        float: a.float || b.float,
        int8: a.int8 || b.int8,
        int16: a.int16 || b.int16,
        macros: crate::options::Options::from_bits_truncate(a.macros.bits() | b.macros.bits()),
    }
}

/// The identifiers of `text` outside comments, with their 1-based line and
/// column. Names pasted together with `##` are not seen; a shader that builds
/// extension names that way gets fewer variants, never wrong ones, since every
/// variant is compiled from its own finished text.
pub(crate) fn identifiers(text: &str) -> Vec<(String, (u32, u32))> {
    let mut out = Vec::new();
    for (line, code) in decl::code_lines(text) {
        let mut chars = code.char_indices().peekable();
        let mut col = 0u32;
        while let Some((start, c)) = chars.next() {
            col += 1;
            if c.is_ascii_alphabetic() || c == '_' {
                let start_col = col;
                let mut end = start + c.len_utf8();
                while let Some(&(i, n)) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' {
                        end = i + n.len_utf8();
                        col += 1;
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push((code[start..end].to_string(), (line, start_col)));
            } else if c.is_ascii_digit() {
                // Skip the rest of a number so `1e5f` yields no identifier.
                while let Some(&(_, n)) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' || n == '.' {
                        col += 1;
                        chars.next();
                    } else {
                        break;
                    }
                }
            }
        }
    }
    out
}

/// The errors of the variants that fail. An error every variant shares is
/// the shader's own and is reported as it is; errors of some modes only are
/// listed with those modes, with a summary that says how to exclude them.
fn failure_report(
    shader: &str,
    axes: &[&decl::Axis],
    failures: BTreeMap<String, (Diagnostics, Vec<VariantKey>)>,
    built: usize,
) -> Diagnostics {
    if built == 0 {
        // Every variant fails: the first variant's errors, as one compile
        // gives them (a mistake in every mode is the user's, not a mode's).
        return failures
            .into_values()
            .min_by(|a, b| a.1.iter().min().cmp(&b.1.iter().min()))
            .map_or(Diagnostics(Vec::new()), |(diags, _)| diags);
    }
    let count: usize = failures.values().map(|(_, k)| k.len()).sum();
    let mut modes = BTreeSet::new();
    let mut out = Vec::new();
    for (diags, keys) in failures.values() {
        let names: Vec<String> = keys.iter().map(|k| key_name(k, axes)).collect();
        modes.extend(keys.iter().map(|k| k.target.options.to_string()));
        for (i, d) in diags.0.iter().enumerate() {
            let mut d = d.clone();
            if i == 0 {
                d = d.note(format!("in the variant(s): {}", names.join(", ")));
            }
            out.push(d);
        }
    }
    let modes: Vec<String> = modes.into_iter().collect();
    let summary = Diagnostic::new(format!(
        "{count} variant(s) of `{shader}` fail to compile, in the mode(s): {}",
        modes.join(", ")
    ))
    .note(format!(
        "fix the errors below; where naga cannot compile a mode, exclude it next to the shader (`#pragma ncnn_glsl exclude {}`) and the fallback order covers it",
        modes.first().map(String::as_str).unwrap_or("MODE")
    ));
    out.insert(0, summary);
    Diagnostics(out)
}

/// `fp16s+fp16a [S16] IN_LAYOUT=1 OUT_LAYOUT=2`.
pub fn key_name(key: &VariantKey, axes: &[&decl::Axis]) -> String {
    let mut s = key.target.to_string();
    for (a, v) in axes.iter().zip(&key.axes) {
        match *v {
            UNDEFINED => s.push_str(&format!(" {}=undefined", a.name)),
            v => s.push_str(&format!(" {}={v}", a.name)),
        }
    }
    s
}
