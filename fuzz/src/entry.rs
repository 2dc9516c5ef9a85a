//! The entry points of the fuzz targets, shared with the regression tests
//! (`tests/tests/fuzz_regressions.rs` includes this file with `#[path]`), so a
//! committed crash input runs exactly what the fuzzer ran, without a fuzzer.
//!
//! Depends on `ncnn_glsl_core` and `std` only.
//!
//! Input layout (every target but `splice`):
//!
//! ```text
//! byte 0..2   u16 LE, low 13 bits: the option set (all 2^13 reachable);
//!             bits 13..16: which of the 8 bundled include files `#include "a.h"` finds
//!             (0..=3: the rest of the input after a 0xFF byte, see below)
//! byte 2      bits 0..4: device bits added to the implied ones (S16 U16 I16 I64);
//!             bit 4: expand for a device (device macros defined, options narrowed)
//! byte 3..    the shader, read as lossy UTF-8; bytes after the first 0xFF
//!             are the text of the include file `a.h` (0xFF is never valid UTF-8)
//! ```
//!
//! Each entry returns `Err` when the library broke its contract in a way
//! that does not show as a panic escaping: a panic caught inside `compile`
//! that did not come from naga, or an "internal error" diagnostic. Panics in
//! naga (caught at the boundary, as designed) are recorded, not failures:
//! [`take_naga_panics`] hands them to the caller.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Mutex, Once};

use ncnn_glsl_core::device::DeviceBits;
use ncnn_glsl_core::{
    compile, expand, CompileOptions, DeviceCaps, ExpandOptions, Flag, MemoryLoader, Options,
    SourceFile, Target,
};

/// One panic seen by the hook: where and what.
#[derive(Clone, Debug)]
pub struct SeenPanic {
    pub location: String,
    pub message: String,
    pub thread: String,
}

impl SeenPanic {
    /// Whether the panic was raised inside naga's source.
    pub fn in_naga(&self) -> bool {
        let l = self.location.replace('\\', "/");
        l.contains("/naga-") || l.starts_with("naga/")
    }
}

static PANICS: Mutex<Vec<SeenPanic>> = Mutex::new(Vec::new());
static HOOK: Once = Once::new();

/// Replaces the panic hook (libFuzzer's aborts on every panic, even one the
/// library catches by design) with one that records each panic, prints the
/// ones not from naga, and lets it unwind. A panic that escapes the entry
/// point is still a crash: libfuzzer-sys aborts on it after `catch_unwind`.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                .unwrap_or_default();
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let thread = std::thread::current().name().unwrap_or("").to_string();
            let seen = SeenPanic {
                location,
                message,
                thread,
            };
            if !seen.in_naga() {
                default(info);
            }
            if let Ok(mut p) = PANICS.lock() {
                p.push(seen);
            }
        }));
    });
}

/// The panics seen since the last call.
fn take_panics() -> Vec<SeenPanic> {
    PANICS
        .lock()
        .map(|mut p| std::mem::take(&mut *p))
        .unwrap_or_default()
}

/// What one execution saw that is worth a note but is no failure.
#[derive(Clone, Debug, Default)]
pub struct Notes {
    /// Panics inside naga, caught at the boundary.
    pub naga_panics: Vec<SeenPanic>,
}

/// The option set, device and include file of an input's header.
pub struct Header {
    pub target: Target,
    pub device: Option<DeviceCaps>,
    pub include: Option<String>,
}

/// A device with the features byte 2 names (and a subgroup size), for the
/// device macros and narrowing.
fn device_of(bits: u8) -> DeviceCaps {
    let mut d = DeviceCaps {
        name: "fuzz".into(),
        ..DeviceCaps::default()
    };
    let features = [
        (0, "storageBuffer16BitAccess"),
        (1, "uniformAndStorageBuffer16BitAccess"),
        (2, "shaderInt16"),
        (3, "shaderInt64"),
        (5, "shaderFloat16"),
        (6, "shaderInt8"),
        (7, "storageBuffer8BitAccess"),
    ];
    for (bit, name) in features {
        if bits & (1 << bit) != 0 {
            d.features.insert(name.into(), true);
        }
    }
    d.properties
        .insert("subgroupSize".into(), 1u64 << (bits as u64 % 8));
    d
}

/// The option set whose bit `i` is flag `i` of [`Flag::ALL`].
pub fn options_of(bits: u16) -> Options {
    Options::from_flags(
        &Flag::ALL
            .into_iter()
            .enumerate()
            .filter(|(i, _)| bits & (1 << i) != 0)
            .map(|(_, f)| f)
            .collect::<Vec<_>>(),
    )
}

/// Splits `data` into its header and shader text.
pub fn split(data: &[u8]) -> (Header, String) {
    let h0 = u16::from_le_bytes([
        data.first().copied().unwrap_or(0),
        data.get(1).copied().unwrap_or(0),
    ]);
    let dev = data.get(2).copied().unwrap_or(0);
    let body = data.get(3..).unwrap_or(&[]);
    let options = options_of(h0 & 0x1fff);
    let (device, target) = if dev & 0x10 != 0 {
        let d = device_of(dev);
        let t = Target::for_device(options, &d);
        (Some(d), t)
    } else {
        let implied = DeviceBits::implied_by(options);
        let bits = DeviceBits {
            storage16: implied.storage16 || dev & 1 != 0,
            uniform16: implied.uniform16 || dev & 2 != 0,
            int16: implied.int16 || dev & 4 != 0,
            int64: implied.int64 || dev & 8 != 0,
        };
        (None, Target { options, bits })
    };
    let (main, include) = match body.iter().position(|&b| b == 0xff) {
        Some(i) => (
            &body[..i],
            Some(String::from_utf8_lossy(&body[i + 1..]).into_owned()),
        ),
        None => (body, None),
    };
    let include = include.or_else(|| {
        let which = (h0 >> 13) as usize;
        BUNDLED.get(which.wrapping_sub(4)).map(|s| s.to_string())
    });
    (
        Header {
            target,
            device,
            include,
        },
        String::from_utf8_lossy(main).into_owned(),
    )
}

/// Realistic include files (header bits 13..16 = 4..=7 pick one).
const BUNDLED: [&str; 4] = [
    "#define A_H 1\nafpvec4 load_a(int i) { return buffer_ld4(a_blob_data, i); }\n",
    "#ifndef ONCE\n#define ONCE\n#include \"a.h\"\n#endif\n",
    "#pragma ncnn_glsl axis INC 1 2\nlayout (binding = 3) buffer inc_blob { sfp inc_data[]; };\n",
    "#define PASTE(a, b) a##b\n#define STR(x) #x\nint PASTE(f, 1)() { return __LINE__; }\n",
];

fn loader(include: Option<String>) -> MemoryLoader {
    MemoryLoader {
        files: include
            .map(|t| {
                vec![
                    (PathBuf::from("a.h"), t.clone()),
                    (PathBuf::from("inc/b.h"), t),
                ]
            })
            .unwrap_or_default(),
    }
}

/// No defines; `inc/` searched for includes.
fn expand_options() -> ExpandOptions {
    ExpandOptions::include([PathBuf::from("inc")])
}

fn source(text: String) -> SourceFile {
    SourceFile {
        name: "fuzz.comp".into(),
        path: None,
        text,
    }
}

/// Checks what the run left behind: no panic outside naga, no internal error.
fn verdict(diags: Option<&ncnn_glsl_core::Diagnostics>) -> Result<Notes, String> {
    let mut notes = Notes::default();
    for p in take_panics() {
        if p.in_naga() {
            notes.naga_panics.push(p);
        } else {
            return Err(format!(
                "a panic in ncnn-glsl-core at {} (thread `{}`): {}",
                p.location, p.thread, p.message
            ));
        }
    }
    if let Some(d) = diags {
        for d in &d.0 {
            // The message only: the excerpt of the user's line may say anything.
            if d.message.starts_with("internal error") && notes.naga_panics.is_empty() {
                return Err(format!("an internal error without a naga panic: {d}"));
            }
        }
    }
    Ok(notes)
}

/// Whether `text` declares more than [`BUILD_MAX_COMBINATIONS`] axis
/// combinations: skipped, to keep an execution cheap (the declaration parser
/// runs either way).
fn too_many_combinations(text: &str) -> bool {
    let mut sm = ncnn_glsl_core::source::SourceMap::new();
    let f = sm.add(source(text.to_string()));
    ncnn_glsl_core::variant::decl::parse(&sm, f).is_ok_and(|d| {
        let n: usize = d
            .axes
            .iter()
            .chain(&d.device)
            .map(|a| a.values.len())
            .product();
        n > BUILD_MAX_COMBINATIONS
    })
}

/// Target `item_form`: the variant set of the input as `variant_build`
/// builds it, then the item form's generated module
/// (`embed::module_of_set`). Also failures: generated code that is not Rust
/// (`syn` parses it as a file), or a struct with two fields of one name; the
/// item form must refuse such a shader with a shader error instead.
pub fn run_item_form(data: &[u8]) -> Result<Notes, String> {
    install_panic_hook();
    take_panics();
    if data.len() > BUILD_MAX_LEN {
        return Ok(Notes::default());
    }
    let (h, text) = split(data);
    if too_many_combinations(&text) {
        return verdict(None);
    }
    let loader = loader(h.include);
    let options = expand_options();
    let src = source(text);
    let set = match ncnn_glsl_core::variant::build::build(
        src.clone(),
        &loader,
        &options,
        &CompileOptions::default(),
    ) {
        Ok(set) => set,
        Err(d) => return verdict(Some(&d)),
    };
    let krate: proc_macro2::TokenStream = "::ncnn_glsl_runtime::__private".parse().unwrap();
    let Ok(items) =
        ncnn_glsl_core::embed::module_of_set("fuzz.comp", &set, &src, &loader, &options, &krate)
    else {
        return verdict(None);
    };
    let notes = verdict(None)?;
    let file: syn::File = syn::parse2(items.clone())
        .map_err(|e| format!("the item form generated code that is not Rust ({e}):\n{items}"))?;
    for item in &file.items {
        if let syn::Item::Struct(s) = item {
            let mut names: Vec<String> = s
                .fields
                .iter()
                .filter_map(|f| f.ident.as_ref().map(|i| i.to_string()))
                .collect();
            names.sort();
            if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
                return Err(format!("`{}` has two fields `{}`:\n{items}", s.ident, w[0]));
            }
        }
    }
    Ok(notes)
}

/// Target `blob_words`: arbitrary SPIR-V words through the readers of the
/// runtime's blob check (`spirv_interface::read_specialized`, what
/// `Pipeline::new` reads before any Vulkan call) and its local-size patch.
/// Input: byte 0 = k (mod 8) specialization values, then k (id, value) pairs
/// of u32 LE, then three u32 LE of local size, then the words (LE). Seeds:
/// `seeds-blobs/`, blobs of the bundled shaders.
pub fn run_blob_words(data: &[u8]) -> Result<Notes, String> {
    install_panic_hook();
    take_panics();
    let u32s = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let k = data.first().map_or(0, |b| usize::from(b % 8));
    let head = 1 + 8 * k + 12;
    if data.len() < head {
        return verdict(None);
    }
    let pairs = u32s(&data[1..1 + 8 * k]);
    let values: Vec<(u32, u32)> = pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    let size = u32s(&data[1 + 8 * k..head]);
    let mut words = u32s(&data[head..]);
    let read = ncnn_glsl_core::spirv_interface::read_specialized(&words, &values);
    let patched = ncnn_glsl_core::spirv::patch_local_size(&mut words, [size[0], size[1], size[2]]);
    if read.is_ok() && patched.is_ok() {
        // What was read once reads the same from the patched words' other parts.
        let _ = ncnn_glsl_core::spirv_interface::read_specialized(&words, &values);
    }
    verdict(None)
}

/// Target `preprocess`: expand only.
pub fn run_preprocess(data: &[u8]) -> Result<Notes, String> {
    install_panic_hook();
    take_panics();
    let (h, text) = split(data);
    let r = expand(
        source(text),
        &h.target,
        h.device.as_ref(),
        &loader(h.include),
        &expand_options(),
    );
    verdict(r.as_ref().err())
}

/// Target `compile`: expand, then compile the expansion.
pub fn run_compile(data: &[u8]) -> Result<Notes, String> {
    install_panic_hook();
    take_panics();
    let (h, text) = split(data);
    compile_text(text, &h)
}

fn compile_text(text: String, h: &Header) -> Result<Notes, String> {
    let expanded = expand(
        source(text),
        &h.target,
        h.device.as_ref(),
        &loader(h.include.clone()),
        &expand_options(),
    );
    let e = match expanded {
        Ok(e) => e,
        Err(d) => return verdict(Some(&d)),
    };
    let options = CompileOptions {
        debug_names: h.target.options.bits() & 1 != 0,
    };
    let r = compile(&e, &options);
    verdict(r.as_ref().err())
}

/// The largest input the `build` target takes, and the most axis
/// combinations: a build expands and compiles every variant.
pub const BUILD_MAX_LEN: usize = 4096;
pub const BUILD_MAX_COMBINATIONS: usize = 4;

/// Target `build`: the whole variant set of the text (the header's option
/// bits are unused; its include file is used).
pub fn run_variant_build(data: &[u8]) -> Result<Notes, String> {
    install_panic_hook();
    take_panics();
    if data.len() > BUILD_MAX_LEN {
        return Ok(Notes::default());
    }
    let (h, text) = split(data);
    if too_many_combinations(&text) {
        return verdict(None);
    }
    verdict(None)?;
    let r = ncnn_glsl_core::variant::build::build(
        source(text),
        &loader(h.include),
        &expand_options(),
        &CompileOptions::default(),
    );
    verdict(r.as_ref().err())
}

/// Fragments of realistic shaders: every line of the bundled shaders, and
/// tokens of GLSL, the preprocessor and the extension.
pub fn fragments() -> &'static [String] {
    static FRAGS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    FRAGS.get_or_init(|| {
        let shaders = [
            include_str!("../../tests/shaders/extension_everything.comp"),
            include_str!("../../tests/shaders/extension_naga.comp"),
            include_str!("../../tests/shaders/seed_example.comp"),
            include_str!("../../shaders/q8ta_dequantize.comp"),
            include_str!("../../shaders/q8ta_pixel_shuffle.comp"),
            include_str!("../../shaders/q8ta_pixel_shuffle_baseline.comp"),
            include_str!("../../shaders/q8ta_quantize.comp"),
        ];
        let mut out: Vec<String> = Vec::new();
        for s in shaders {
            for l in s.lines() {
                let l = format!("{l}\n");
                if !out.contains(&l) {
                    out.push(l);
                }
            }
        }
        for t in TOKENS {
            out.push(t.to_string());
        }
        out
    })
}

/// Tokens for the splicing target (the dictionary `fuzz/glsl.dict` holds the same).
pub const TOKENS: &[&str] = &[
    "#version 450\n",
    "#define ",
    "#undef ",
    "#if ",
    "#ifdef ",
    "#ifndef ",
    "#elif ",
    "#else\n",
    "#endif\n",
    "#include \"a.h\"\n",
    "#include <b.h>\n",
    "#pragma ncnn_glsl axis A 0 1\n",
    "#pragma ncnn_glsl device ncnn_subgroupSize 32 64\n",
    "#pragma ncnn_glsl exclude fp16a\n",
    "#pragma ncnn_glsl exclude bf16p[S16]\n",
    "#pragma ncnn_glsl exclude [I64] fp16s+fp16a [I16 shaderInt64]\n",
    "#error x\n",
    "#line 7\n",
    "#extension GL_EXT_shader_16bit_storage : require\n",
    "defined(",
    "##",
    "#",
    "\\\n",
    "__LINE__",
    "__FILE__",
    "__VERSION__",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "\n",
    " ",
    "=",
    "+",
    "*",
    "<<",
    "?",
    ":",
    "0",
    "1",
    "-1",
    "0x7fffffff",
    "4294967296",
    "1.5e3f",
    "buffer_ld1(",
    "buffer_ld4(",
    "buffer_ld8(",
    "buffer_st1(",
    "buffer_st4(",
    "buffer_cp4(",
    "i8buffer_ld4(",
    "sfp",
    "sfpvec4",
    "sfpvec8",
    "afpvec4",
    "lfpvec4",
    "afp(",
    "sint8vec4",
    "lint16",
    "psc(",
    "NCNN_fp16_storage",
    "NCNN_int8_packed",
    "ncnn_subgroupSize",
    "atomicAdd(",
    "atomicCompSwap(",
    "atomicExchange(",
    "barrier();\n",
    "memoryBarrierShared();\n",
    "layout (binding = 0) buffer a_blob { sfpvec4 a_blob_data[]; };\n",
    "layout (push_constant) uniform parameter { int w; } p;\n",
    "layout (constant_id = 0) const int w = 0;\n",
    "layout (local_size_x_id = 233) in;\n",
    "layout(",
    "local_size_x = 64",
    ") in;\n",
    "writeonly ",
    "readonly ",
    "shared ",
    "[2][3]",
    "float16_t",
    "f16vec4",
    "uint64_t",
    "int8_t",
    "gl_GlobalInvocationID.x",
    "gl_WorkGroupSize",
    "void main()\n{\n",
    "}\n",
    "if (",
    "for (int i = 0; i < 4; i++) ",
    "switch (x) { case 0: case 1: x++; default: break; }\n",
    "return;\n",
    "int x = 0;\n",
    "struct S { int a; };\n",
    "\"",
    "/*",
    "*/",
    "//",
    "\u{feff}",
    "\t",
];

/// Target `splice`: a shader assembled from fragments. Header bytes 0..3 as
/// for the others; then each little-endian u16 appends a fragment
/// (`index % fragments().len()`) or, with the top bit set, its low byte as
/// a character.
pub fn splice_text(body: &[u8]) -> String {
    let frags = fragments();
    let mut s = String::new();
    for c in body.chunks(2) {
        let v = u16::from_le_bytes([c[0], c.get(1).copied().unwrap_or(0)]);
        if v & 0x8000 != 0 {
            s.push(char::from(v as u8));
        } else {
            s.push_str(&frags[v as usize % frags.len()]);
        }
    }
    s
}

pub fn run_splice(data: &[u8]) -> Result<Notes, String> {
    install_panic_hook();
    take_panics();
    let (h, _) = split(data.get(..3).unwrap_or(&[]));
    let text = splice_text(data.get(3..).unwrap_or(&[]));
    compile_text(text, &h)
}

/// Where the `includes` target puts the parts of its input: part 0 is the
/// shader (`main.comp`), part `k` the file `INCLUDE_FILES[k - 1]`, all under
/// one directory whose `inc/` is the include directory.
pub const INCLUDE_FILES: [&str; 16] = [
    "a.h",
    "b.h",
    "d/c.h",
    "d/e.h",
    "d/e/f.h",
    "d/e/g.h",
    "inc/b.h",
    "inc/h.h",
    "inc/d/i.h",
    "inc/d/j.h",
    "k.h",
    "d/l.h",
    "m.h",
    "inc/n.h",
    "d/e/o.h",
    "p.h",
];

/// The text of files beside the shader's directory (`../outside.h`,
/// `../secret/s.h`): an `#include` may not read them, so no message may
/// show it.
pub const OUTSIDE_MARKER: &str = "OUTSIDE_THE_SHADER_TREE_5ec";

/// The directory of this process's `includes` files, made once.
fn include_tree() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let top = std::env::temp_dir().join(format!("ncnn-glsl-fuzz-{}", std::process::id()));
        let _ = std::fs::create_dir_all(top.join("secret"));
        let outside = format!("#define LEAK 1\n{OUTSIDE_MARKER}\n");
        let _ = std::fs::write(top.join("outside.h"), &outside);
        let _ = std::fs::write(top.join("secret/s.h"), &outside);
        top
    })
}

/// Target `includes`: the shader and up to 16 include files in a real
/// directory tree (header as for the others; parts split at `0xFF`), read
/// through [`ncnn_glsl_core::FsLoader`], then expanded and compiled. Beyond
/// the usual contract, no message may show text of a file outside the tree.
pub fn run_includes(data: &[u8]) -> Result<Notes, String> {
    install_panic_hook();
    take_panics();
    let result = includes_result(data)?;
    let notes = verdict(result.as_ref().err())?;
    if let Err(d) = &result {
        let shown = d.to_string();
        let in_input = String::from_utf8_lossy(data).contains(OUTSIDE_MARKER);
        if shown.contains(OUTSIDE_MARKER) && !in_input {
            return Err(format!("a message shows a file outside the tree:\n{shown}"));
        }
    }
    Ok(notes)
}

/// What [`run_includes`] builds: the compile's outcome (`Err` of the outer
/// result: the harness could not write its files).
pub fn includes_result(data: &[u8]) -> Result<Result<(), ncnn_glsl_core::Diagnostics>, String> {
    let (h, _) = split(data.get(..3).unwrap_or(&[]));
    let mut parts = data.get(3..).unwrap_or(&[]).split(|&b| b == 0xff);
    let main = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();
    let root = include_tree().join("root");
    let _ = std::fs::remove_dir_all(&root);
    for dir in ["d/e", "inc/d"] {
        std::fs::create_dir_all(root.join(dir)).map_err(|e| format!("harness: {e}"))?;
    }
    for (name, text) in INCLUDE_FILES.iter().zip(parts) {
        std::fs::write(root.join(name), text).map_err(|e| format!("harness: {e}"))?;
    }
    let shader = root.join("main.comp");
    let source = SourceFile {
        name: "main.comp".into(),
        path: Some(shader),
        text: main,
    };
    let expanded = expand(
        source,
        &h.target,
        h.device.as_ref(),
        &ncnn_glsl_core::FsLoader,
        &ExpandOptions::include([root.join("inc")]),
    );
    Ok(expanded.and_then(|e| compile(&e, &CompileOptions::default()).map(|_| ())))
}

/// The largest text the `large` target builds.
pub const LARGE_MAX_LEN: usize = 1 << 20;

/// Target `large`: texts up to 1 MiB. After the 3 header bytes, byte 3 sets
/// a repeat count (2 to the power of its value mod 21); the rest splits at
/// the first two `0xFF` bytes into a prefix, a middle repeated that many
/// times, and a suffix (a function body of 100,000 statements is 3 short
/// parts). The text is cut at [`LARGE_MAX_LEN`]; then expand and compile.
pub fn run_large(data: &[u8]) -> Result<Notes, String> {
    install_panic_hook();
    take_panics();
    let (h, _) = split(data.get(..3).unwrap_or(&[]));
    let times = 1usize << (data.get(3).copied().unwrap_or(0) % 21);
    let mut parts = data.get(4..).unwrap_or(&[]).splitn(3, |&b| b == 0xff);
    let (prefix, middle, suffix) = (
        parts.next().unwrap_or(&[]),
        parts.next().unwrap_or(&[]),
        parts.next().unwrap_or(&[]),
    );
    let mut bytes = prefix.to_vec();
    let room = LARGE_MAX_LEN.saturating_sub(prefix.len() + suffix.len());
    let times = if middle.is_empty() {
        0
    } else {
        times.min(room / middle.len())
    };
    for _ in 0..times {
        bytes.extend_from_slice(middle);
    }
    bytes.extend_from_slice(suffix);
    bytes.truncate(LARGE_MAX_LEN);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    compile_text(text, &h)
}

/// The shader the `device` target expands for each description: it reads
/// device macros, the options they narrow and a device axis.
const DEVICE_SHADER: &str = "#version 450
#pragma ncnn_glsl device ncnn_subgroupSize 8 16 32 64
layout (local_size_x = 64) in;
layout (binding = 0) buffer b { sfpvec4 d[]; };
void main()
{
    int i = int(gl_GlobalInvocationID.x);
#if ncnn_VK_KHR_16bit_storage && ncnn_storageBuffer16BitAccess
    afpvec4 v = buffer_ld4(d, i);
#else
    afpvec4 v = afpvec4(1.0);
#endif
#if ncnn_subgroupSize >= 32 || ncnn_maxComputeSharedMemorySize > 16384
    v = v * afp(2.0);
#endif
    buffer_st4(d, i, v);
}
";

/// Target `device`: the input as a device description (`--device-caps`,
/// the runtime's saved probe). An accepted description must have only
/// identifier names, survive its own JSON unchanged, and expand and compile
/// [`DEVICE_SHADER`] for each option set it narrows to; a device axis value
/// is looked up as the variant choice does.
pub fn run_device(data: &[u8]) -> Result<Notes, String> {
    install_panic_hook();
    take_panics();
    let text = String::from_utf8_lossy(data);
    let Ok(caps) = DeviceCaps::from_json(&text) else {
        return verdict(None);
    };
    let names = caps
        .extensions
        .keys()
        .chain(caps.features.keys())
        .chain(caps.properties.keys());
    if let Some(bad) = names
        .into_iter()
        .find(|n| !ncnn_glsl_core::device::is_identifier(n))
    {
        return Err(format!("a description with the name {bad:?} was accepted"));
    }
    match DeviceCaps::from_json(&caps.to_json()) {
        Ok(again) if again == caps => {}
        other => {
            return Err(format!(
                "the description does not survive its JSON: {other:?}"
            ))
        }
    }
    let _ = ncnn_glsl_core::variant::device_axis_value(&caps, "ncnn_subgroupSize");
    for wanted in [Options::default(), options_of(0x1fff)] {
        let target = Target::for_device(wanted, &caps);
        let expanded = expand(
            source(DEVICE_SHADER.to_string()),
            &target,
            Some(&caps),
            &MemoryLoader::default(),
            &ExpandOptions::default(),
        );
        let result = expanded.and_then(|e| compile(&e, &CompileOptions::default()).map(|_| ()));
        verdict(result.as_ref().err())?;
    }
    Ok(Notes::default())
}
