//! `ncnn-glsl`: expand and compile ncnn-extended compute shaders from the command line.
//!
//! ```text
//! ncnn-glsl expand  FILE --mode MODE [--device-caps CAPS.json] [-D NAME[=VALUE]]... [-I DIR]... [--axis NAME=VALUE]...
//! ncnn-glsl compile FILE --mode MODE [--device-caps CAPS.json] [-D NAME[=VALUE]]... [-I DIR]... [--axis NAME=VALUE]... -o OUT.spv
//! ncnn-glsl variants FILE [--json] [-D NAME[=VALUE]]... [-I DIR]...
//! ncnn-glsl probe [--json]
//! ```
//!
//! `FILE` `-` reads the shader from stdin (named `<stdin>` in errors; its
//! includes are looked for in the current directory first); `-o -` writes
//! the SPIR-V to stdout. `-D` defines a macro before the shader's text, as
//! glslang's (`NAME` alone is `1`). `--axis` picks the variant of a shader
//! that declares axes (`#pragma ncnn_glsl axis`): every axis needs a value,
//! one it declares; device axes too, unless `--device-caps` gives them.
//!
//! `compile` of a target whose variant the shader's set leaves out (a name
//! it uses has a type naga lacks there, `compile/inexpressible.rs`) writes
//! the variant the set runs instead, with a note on stderr (`fallback.rs`).
//!
//! Errors go to stderr as `file:line:column: error: ...`; the exit status is 1.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod fallback;
use ncnn_glsl_core::source::SourceMap;
use ncnn_glsl_core::variant::build::build;
use ncnn_glsl_core::variant::decl::{self, Axis};
use ncnn_glsl_core::variant::manifest::Manifest;
use ncnn_glsl_core::{
    compile, expand_with, CompileOptions, Define, DeviceCaps, ExpandOptions, Expanded, FsLoader,
    Options, SourceFile, Target,
};

/// `println!` to stdout, returning the write error from the function
/// (a closed pipe, `ncnn-glsl variants x.comp | head -1`, would make
/// `println!` panic).
macro_rules! outln {
    ($($t:tt)*) => { writeln!(std::io::stdout(), $($t)*).map_err(stdout_error)? };
}

/// `print!` to stdout, as [`outln`].
macro_rules! out {
    ($($t:tt)*) => { write!(std::io::stdout(), $($t)*).map_err(stdout_error)? };
}

/// `eprintln!` that ignores a closed stderr: there is nowhere left to say it.
macro_rules! errln {
    ($($t:tt)*) => { let _ = writeln!(std::io::stderr(), $($t)*); };
}

fn stdout_error(e: std::io::Error) -> String {
    format!("error: cannot write to stdout: {e}")
}

#[derive(Parser)]
#[command(
    name = "ncnn-glsl",
    version,
    about = "ncnn's GLSL extension, expanded and compiled through naga"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the finished GLSL that naga is given.
    Expand(Input),
    /// Compile to SPIR-V.
    Compile {
        #[command(flatten)]
        input: Input,
        /// Where to write the SPIR-V (`-`: stdout).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Keep debug names in the SPIR-V.
        #[arg(long)]
        debug_names: bool,
    },
    /// List the variant set of a shader as `include_ncnn_shader!` builds it.
    Variants {
        #[command(flatten)]
        source: Source,
        /// Print the manifest as JSON (as `cargo xtask regen-variants` writes it).
        #[arg(long)]
        json: bool,
    },
    /// Describe this machine's Vulkan devices: features, limits, the options
    /// ncnn's defaults narrow to, and the variant each shipped shader runs.
    Probe {
        /// Print the descriptions as JSON (what `--device-caps` reads): one
        /// object for one device, an array for several.
        #[arg(long)]
        json: bool,
    },
}

/// The shader and what is added to its text.
#[derive(Args)]
struct Source {
    /// The shader (`.comp`) to read; `-` reads stdin.
    file: PathBuf,
    /// Define a macro before the shader's text: `NAME` (as 1) or `NAME=VALUE`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<Define>,
    /// A directory searched for `#include` files after the including file's own.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
}

#[derive(Args)]
struct Input {
    #[command(flatten)]
    source: Source,
    /// Wanted options as a mode string: `fp32`, `fp16p`, `fp16s+fp16a`, `int8s+int8a`, ...
    #[arg(long, default_value = "fp32")]
    mode: Options,
    /// A device description (JSON, as `ncnn-glsl probe --json` writes): the mode is
    /// narrowed to what it supports and its device macros are defined.
    #[arg(long = "device-caps", value_name = "CAPS.json")]
    device_caps: Option<PathBuf>,
    /// The value of an axis the shader declares (`#pragma ncnn_glsl axis`),
    /// one per axis: which variant of its set to expand.
    #[arg(long = "axis", value_name = "NAME=VALUE", value_parser = parse_axis)]
    axes: Vec<(String, i64)>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // Paths and names from the command line may hold control characters.
            errln!("{}", ncnn_glsl_core::diag::escape_controls(&message));
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Probe { json } => probe(json),
        Command::Expand(input) => {
            let expanded = expand_input(&input)?;
            out!("{}", expanded.text());
            Ok(())
        }
        Command::Compile {
            input,
            output,
            debug_names,
        } => {
            let (source, expanded, expand) = expand_request(&input)?;
            // A target the variant set leaves out: what the set runs instead.
            let expanded = match fallback::instead(&source, &expanded, expand)? {
                Some(instead) => {
                    errln!("{}", instead.note(expanded.target));
                    instead.expanded
                }
                None => expanded,
            };
            let compiled =
                compile(&expanded, &CompileOptions { debug_names }).map_err(|d| d.to_string())?;
            let bytes: Vec<u8> = compiled
                .spirv
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            if output == Path::new("-") {
                let mut out = std::io::stdout().lock();
                return out
                    .write_all(&bytes)
                    .and_then(|()| out.flush())
                    .map_err(|e| format!("error: cannot write the SPIR-V to stdout: {e}"));
            }
            std::fs::write(&output, bytes)
                .map_err(|e| format!("error: cannot write `{}`: {e}", output.display()))
        }
        Command::Variants { source, json } => variants(&source, json),
    }
}

fn variants(source: &Source, json: bool) -> Result<(), String> {
    let (file, options) = read_source(source)?;
    let name = file.name.clone();
    let set =
        build(file, &FsLoader, &options, &CompileOptions::default()).map_err(|d| d.to_string())?;
    let manifest = Manifest::of(&name, &set);
    if json {
        out!("{}", manifest.to_json());
        return Ok(());
    }
    outln!(
        "{name}: {} variants, {} distinct texts, {} distinct blobs, {} bytes of SPIR-V",
        manifest.variants.len(),
        manifest.distinct_texts,
        manifest.distinct_blobs,
        manifest.spirv_bytes
    );
    let width = manifest
        .variants
        .iter()
        .map(|v| v.key.len())
        .chain(manifest.excluded.iter().map(String::len))
        .chain(manifest.left_out.iter().map(|l| l.key.len()))
        .max()
        .unwrap_or(0);
    for v in &manifest.variants {
        outln!(
            "  {:width$}  blob {:>3}  {:>6} B  needs [{}]",
            v.key,
            v.blob,
            v.spirv_bytes,
            v.requirements.features.join(", ")
        );
    }
    for e in &manifest.excluded {
        outln!("  {e:width$}  excluded");
    }
    for l in &manifest.left_out {
        outln!("  {:width$}  {}", l.key, l.note());
    }
    Ok(())
}

fn expand_input(input: &Input) -> Result<Expanded, String> {
    expand_request(input).map(|(_, expanded, _)| expanded)
}

/// Expands the shader for a target, with the defines, axis values and
/// device of the command line.
type ExpandFor = Box<dyn Fn(Target) -> Result<Expanded, String>>;

/// The shader, its expansion for `input`, and a function that expands it for
/// another target with the same defines, axis values and device.
fn expand_request(input: &Input) -> Result<(SourceFile, Expanded, ExpandFor), String> {
    let (source, options) = read_source(&input.source)?;
    let device = input.device_caps.as_deref().map(read_device).transpose()?;
    let axes = axis_values(&source, &input.axes, device.is_some(), &options.defines)?;
    let target = match &device {
        Some(d) => Target::for_device(input.mode, d),
        None => Target::for_mode(input.mode),
    };
    if target.options != input.mode {
        errln!(
            "note: the device narrows mode `{}` to `{}`",
            input.mode,
            target.options
        );
    }
    let file = source.clone();
    let expand: ExpandFor = Box::new(move |target: Target| {
        let axes: Vec<(&str, i64)> = axes.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        expand_with(
            file.clone(),
            &target,
            device.as_ref(),
            &axes,
            &FsLoader,
            &options,
        )
        .map_err(|d| d.to_string())
    });
    let expanded = expand(target)?;
    Ok((source, expanded, expand))
}

/// The shader (from its file, or stdin for `-`) and its expand options.
fn read_source(source: &Source) -> Result<(SourceFile, ExpandOptions), String> {
    let mut options = ExpandOptions {
        defines: source.defines.clone(),
        include_dirs: source.include.clone(),
    };
    if source.file == Path::new("-") {
        let mut text = String::new();
        let max = ncnn_glsl_core::source::MAX_FILE_BYTES;
        std::io::stdin()
            .take(max + 1)
            .read_to_string(&mut text)
            .map_err(|e| format!("error: cannot read the shader from stdin: {e}"))?;
        if text.len() as u64 > max {
            return Err(format!(
                "error: the shader on stdin is larger than {max} bytes"
            ));
        }
        let text = ncnn_glsl_core::source::normalize_line_ends(text);
        // Text from stdin has no directory of its own: its `"..."` includes
        // are looked for where a file in the current directory would look.
        options.include_dirs.insert(0, PathBuf::from("."));
        let file = SourceFile {
            name: "<stdin>".into(),
            path: None,
            text,
        };
        return Ok((file, options));
    }
    let path = &source.file;
    let text =
        ncnn_glsl_core::source::read_text(path).map_err(|e| format!("error: shader: {e}"))?;
    let file = SourceFile {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        text,
    };
    Ok((file, options))
}

/// `--axis NAME=VALUE`: a name and an integer (decimal or `0x` hex, as the
/// declaration takes them).
fn parse_axis(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let (neg, digits) = match value.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, value),
    };
    let v = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(h) => i64::from_str_radix(h, 16),
        None => digits.parse::<i64>(),
    }
    .map_err(|_| format!("`{value}` is not an integer value for `{name}`"))?;
    Ok((name.to_string(), if neg { -v } else { v }))
}

/// `NAME` (values `0, 1, 2`, declared at `FILE:LINE`).
fn describe(axis: &Axis, file: &str) -> String {
    let values: Vec<String> = axis.values.iter().map(i64::to_string).collect();
    format!(
        "`{}` (values {}, declared at {file}:{})",
        axis.name,
        values.join(", "),
        axis.at.line
    )
}

/// The axis values of the one variant `given` picks, in the declaration's
/// order: every value one the shader declares, every axis given one (a
/// device axis only when no device description gives it).
fn axis_values(
    source: &SourceFile,
    given: &[(String, i64)],
    device: bool,
    defines: &[Define],
) -> Result<Vec<(String, i64)>, String> {
    let mut sources = SourceMap::new();
    let id = sources.add(source.clone());
    let declaration = decl::parse(&sources, id).map_err(|d| d.to_string())?;
    let file = &source.name;
    let all: Vec<(&Axis, bool)> = declaration
        .axes
        .iter()
        .map(|a| (a, false))
        .chain(declaration.device.iter().map(|a| (a, true)))
        .collect();
    let find = |name: &str| all.iter().find(|(a, _)| a.name == name).copied();
    for d in defines {
        if let Some((a, _)) = find(d.name()) {
            return Err(format!(
                "error: `-D {d}` names an axis of the shader, {}: choose its value with `--axis {}=VALUE`",
                describe(a, file),
                a.name
            ));
        }
    }
    for (i, (name, value)) in given.iter().enumerate() {
        if given[..i].iter().any(|(n, _)| n == name) {
            return Err(format!(
                "error: `--axis {name}` is given twice: an axis takes one value"
            ));
        }
        let Some((axis, is_device)) = find(name) else {
            let known: Vec<String> = all.iter().map(|(a, _)| describe(a, file)).collect();
            return Err(if known.is_empty() {
                format!("error: `--axis {name}`: the shader declares no axis")
            } else {
                format!(
                    "error: `--axis {name}`: the shader declares no axis `{name}`; its axes: {}",
                    known.join("; ")
                )
            });
        };
        if is_device && device {
            return Err(format!(
                "error: `--axis {name}`: `{name}` is a device macro, and `--device-caps` gives its value"
            ));
        }
        if !axis.values.contains(value) {
            return Err(format!(
                "error: `--axis {name}={value}`: {value} is not a declared value of {}",
                describe(axis, file)
            ));
        }
    }
    let mut values = Vec::new();
    for (axis, is_device) in &all {
        if *is_device && device {
            continue;
        }
        match given.iter().find(|(n, _)| *n == axis.name) {
            Some((_, v)) => values.push((axis.name.clone(), *v)),
            None => {
                let or_device = if *is_device {
                    " (or give a device with `--device-caps`)"
                } else {
                    ""
                };
                return Err(format!(
                    "error: the shader declares the axis {}: choose one variant with `--axis {}=VALUE`{or_device}",
                    describe(axis, file),
                    axis.name
                ));
            }
        }
    }
    Ok(values)
}

fn read_device(path: &Path) -> Result<DeviceCaps, String> {
    let text = ncnn_glsl_core::source::read_text(path)
        .map_err(|e| format!("error: device description: {e}"))?;
    DeviceCaps::from_json(&text).map_err(|e| {
        format!(
            "error: `{}` is not a device description: {e}",
            path.display()
        )
    })
}

/// `ncnn-glsl probe`.
fn probe(json: bool) -> Result<(), String> {
    let devices = ncnn_glsl_runtime::probe_all().map_err(|e| format!("error: {e}"))?;
    if json {
        let text = match devices.as_slice() {
            [one] => one.to_json(),
            many => {
                let items: Vec<String> = many.iter().map(DeviceCaps::to_json).collect();
                format!("[\n{}\n]", items.join(",\n"))
            }
        };
        outln!("{text}");
        return Ok(());
    }
    for (i, d) in devices.iter().enumerate() {
        let v = d.api_version;
        outln!(
            "{i}: {} ({:?}), Vulkan {}.{}.{}, vendor {:#06x}, device {:#06x}",
            d.name,
            d.device_type,
            v >> 22,
            (v >> 12) & 0x3ff,
            v & 0xfff,
            d.vendor_id,
            d.device_id
        );
        let on: Vec<&str> = d
            .features
            .iter()
            .filter(|(_, on)| **on)
            .map(|(n, _)| n.as_str())
            .collect();
        outln!("   features: {}", on.join(" "));
        outln!(
            "   subgroupSize {}, maxComputeWorkGroupCount [{}, {}, {}], maxStorageBufferRange {}",
            d.property("subgroupSize").unwrap_or(0),
            d.property("maxComputeWorkGroupCount_0").unwrap_or(0),
            d.property("maxComputeWorkGroupCount_1").unwrap_or(0),
            d.property("maxComputeWorkGroupCount_2").unwrap_or(0),
            d.property("maxStorageBufferRange").unwrap_or(0),
        );
        outln!(
            "   ncnn's default options narrow to: {}",
            ncnn_glsl_core::narrow(Options::NCNN_DEFAULT, d)
        );
        for set in ncnn_glsl_q8ta::SETS {
            // The mode chosen does not depend on build-time axes: their first values.
            let axes: Vec<(&str, i64)> = set
                .axes
                .iter()
                .filter(|a| !a.device)
                .map(|a| (a.name, a.values[0]))
                .collect();
            match set.select(d, Options::NCNN_DEFAULT, &axes) {
                Ok(c) => outln!("   {}: {}", set.name, c.chosen),
                Err(e) => outln!("   {}: {e}", set.name),
            }
        }
    }
    Ok(())
}
