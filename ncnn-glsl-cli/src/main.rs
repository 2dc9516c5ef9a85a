//! `ncnn-glsl`: expand and compile ncnn-extended compute shaders from the command line.
//!
//! ```text
//! ncnn-glsl expand  FILE --mode MODE [--device-caps CAPS.json] [-I DIR]...
//! ncnn-glsl compile FILE --mode MODE [--device-caps CAPS.json] [-I DIR]... -o OUT.spv
//! ncnn-glsl variants FILE [--json] [-I DIR]...
//! ncnn-glsl probe [--json]
//! ```
//! Errors go to stderr as `file:line:column: error: ...`; the exit status is 1.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use ncnn_glsl_core::variant::build::build;
use ncnn_glsl_core::variant::manifest::Manifest;
use ncnn_glsl_core::{
    compile, expand, CompileOptions, DeviceCaps, Expanded, FsLoader, Options, SourceFile, Target,
};

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
        /// Where to write the SPIR-V.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Keep debug names in the SPIR-V.
        #[arg(long)]
        debug_names: bool,
    },
    /// List the variant set of a shader as `include_ncnn_shader!` builds it.
    Variants {
        /// The shader (`.comp`) to read.
        file: PathBuf,
        /// Print the manifest as JSON (as `cargo xtask regen-variants` writes it).
        #[arg(long)]
        json: bool,
        /// A directory searched for `#include` files after the including file's own.
        #[arg(short = 'I', value_name = "DIR")]
        include: Vec<PathBuf>,
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

#[derive(Args)]
struct Input {
    /// The shader (`.comp`) to read.
    file: PathBuf,
    /// Wanted options as a mode string: `fp32`, `fp16p`, `fp16s+fp16a`, `int8s+int8a`, ...
    #[arg(long, default_value = "fp32")]
    mode: Options,
    /// A device description (JSON, as `ncnn-glsl probe --json` writes): the mode is
    /// narrowed to what it supports and its device macros are defined.
    #[arg(long = "device-caps", value_name = "CAPS.json")]
    device_caps: Option<PathBuf>,
    /// A directory searched for `#include` files after the including file's own.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Probe { json } => probe(json),
        Command::Expand(input) => {
            let expanded = expand_input(&input)?;
            print!("{}", expanded.text());
            Ok(())
        }
        Command::Compile {
            input,
            output,
            debug_names,
        } => {
            let expanded = expand_input(&input)?;
            let compiled =
                compile(&expanded, &CompileOptions { debug_names }).map_err(|d| d.to_string())?;
            let bytes: Vec<u8> = compiled
                .spirv
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            std::fs::write(&output, bytes)
                .map_err(|e| format!("error: cannot write `{}`: {e}", output.display()))
        }
        Command::Variants {
            file,
            json,
            include,
        } => variants(&file, json, &include),
    }
}

fn variants(file: &Path, json: bool, include: &[PathBuf]) -> Result<(), String> {
    let source = read_source(file)?;
    let name = source.name.clone();
    let set =
        build(source, &FsLoader, include, &CompileOptions::default()).map_err(|d| d.to_string())?;
    let manifest = Manifest::of(&name, &set);
    if json {
        print!("{}", manifest.to_json());
        return Ok(());
    }
    println!(
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
        println!(
            "  {:width$}  blob {:>3}  {:>6} B  needs [{}]",
            v.key,
            v.blob,
            v.spirv_bytes,
            v.requirements.features.join(", ")
        );
    }
    for e in &manifest.excluded {
        println!("  {e:width$}  excluded");
    }
    for l in &manifest.left_out {
        println!("  {:width$}  {}", l.key, l.note());
    }
    Ok(())
}

fn expand_input(input: &Input) -> Result<Expanded, String> {
    let source = read_source(&input.file)?;
    let device = input.device_caps.as_deref().map(read_device).transpose()?;
    let target = match &device {
        Some(d) => Target::for_device(input.mode, d),
        None => Target::for_mode(input.mode),
    };
    if target.options != input.mode {
        eprintln!(
            "note: the device narrows mode `{}` to `{}`",
            input.mode, target.options
        );
    }
    expand(source, &target, device.as_ref(), &FsLoader, &input.include).map_err(|d| d.to_string())
}

fn read_source(path: &Path) -> Result<SourceFile, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("error: cannot read shader `{}`: {e}", path.display()))?;
    Ok(SourceFile {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        text,
    })
}

fn read_device(path: &Path) -> Result<DeviceCaps, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "error: cannot read device description `{}`: {e}",
            path.display()
        )
    })?;
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
        println!("{text}");
        return Ok(());
    }
    for (i, d) in devices.iter().enumerate() {
        let v = d.api_version;
        println!(
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
        println!("   features: {}", on.join(" "));
        println!(
            "   subgroupSize {}, maxComputeWorkGroupCount [{}, {}, {}], maxStorageBufferRange {}",
            d.property("subgroupSize").unwrap_or(0),
            d.property("maxComputeWorkGroupCount_0").unwrap_or(0),
            d.property("maxComputeWorkGroupCount_1").unwrap_or(0),
            d.property("maxComputeWorkGroupCount_2").unwrap_or(0),
            d.property("maxStorageBufferRange").unwrap_or(0),
        );
        println!(
            "   ncnn's default options narrow to: {}",
            ncnn_glsl_core::narrow(Options::NCNN_DEFAULT, d)
        );
        for set in ncnn_glsl_runtime::q8ta::SETS {
            // The mode chosen does not depend on build-time axes: their first values.
            let axes: Vec<(&str, i64)> = set
                .axes
                .iter()
                .filter(|a| !a.device)
                .map(|a| (a.name, a.values[0]))
                .collect();
            match set.select(d, Options::NCNN_DEFAULT, &axes) {
                Ok(c) => println!("   {}: {}", set.name, c.chosen),
                Err(e) => println!("   {}: {e}", set.name),
            }
        }
    }
    Ok(())
}
