//! The budgets of a whole variant set: the variants it would build (axis
//! combinations x targets) are counted before anything is expanded, and its
//! expanded text before anything is compiled.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::build::build;
use super::decl::MAX_VARIANTS;
use super::space::{space, Usage};
use crate::compile::CompileOptions;
use crate::expand::ExpandOptions;
use crate::source::{Loader, MemoryLoader, SourceFile};

/// A loader over one header, `h.glsl`, that counts its reads: every
/// expansion of a shader that includes it reads it once.
struct Counting {
    files: MemoryLoader,
    loads: Cell<usize>,
}

impl Counting {
    fn new(header: &str) -> Counting {
        Counting {
            files: MemoryLoader {
                files: vec![(PathBuf::from("h.glsl"), header.to_string())],
            },
            loads: Cell::new(0),
        }
    }
}

impl Loader for Counting {
    fn load(
        &self,
        name: &str,
        includer: Option<&Path>,
        search_paths: &[PathBuf],
    ) -> Result<SourceFile, String> {
        self.loads.set(self.loads.get() + 1);
        self.files.load(name, includer, search_paths)
    }
}

/// The error of building `text` as `x.comp`, and how long it took.
fn build_error(text: &str, loader: &Counting) -> (String, Duration) {
    let source = SourceFile {
        name: "x.comp".into(),
        path: None,
        text: text.into(),
    };
    let start = Instant::now();
    let r = build(
        source,
        loader,
        &ExpandOptions::default(),
        &CompileOptions::default(),
    );
    let took = start.elapsed();
    match r {
        Ok(set) => panic!("built {} variants", set.variants.len()),
        Err(e) => (e.to_string(), took),
    }
}

/// Four axes of four values: 256 combinations.
const AXES: &str = "#version 450\n\
                    #pragma ncnn_glsl axis A 0 1 2 3\n\
                    #pragma ncnn_glsl axis B 0 1 2 3\n\
                    #pragma ncnn_glsl axis C 0 1 2 3\n\
                    #pragma ncnn_glsl axis D 0 1 2 3\n";

#[test]
fn variants_are_counted_with_their_modes_before_any_expansion() {
    // 256 combinations x the 11 targets of the float names: 2816 variants.
    let text = format!(
        "{AXES}#include \"h.glsl\"\n\
         layout (binding = 0) buffer b_blob {{ sfpvec4 d[]; }};\n\
         void main() {{ d[0] = sfpvec4(A + B + C + D); }}\n"
    );
    let loader = Counting::new("\n");
    let (e, took) = build_error(&text, &loader);
    assert!(
        e.starts_with(
            "x.comp:2:24: error: the variant set of `x.comp` has 2816 variants to build: 256 \
             combinations of axis values x 11 targets (modes with their device bits: fp32, \
             fp16p, fp16s, "
        ) && e.contains("; at most 2048 are allowed"),
        "{e}"
    );
    assert_eq!(loader.loads.get(), 0, "nothing is expanded");
    assert!(took < Duration::from_secs(2), "{took:?}");
    // A shader without axes fits, whatever of the extension it uses.
    assert!(space(Usage::ALL).len() <= MAX_VARIANTS);

    // Excluded targets are not built, so they do not count.
    let text = text.replace(
        "#include",
        "#pragma ncnn_glsl axis E 0 1\n#pragma ncnn_glsl exclude fp16a\n#include",
    );
    let (e, _) = build_error(&text, &loader);
    assert!(
        e.contains("has 3584 variants to build: 512 combinations of axis values x 7 targets"),
        "{e}"
    );
    assert_eq!(loader.loads.get(), 0, "nothing is expanded");
}

#[test]
fn variants_an_include_adds_are_counted_before_any_compile() {
    // The shader names nothing of the extension: one target, 256 variants;
    // its header uses the float names, which make them 2816.
    let text = format!(
        "{AXES}#include \"h.glsl\"\n\
         layout (binding = 0) buffer b_blob {{ float d[]; }};\n\
         void main() {{ d[0] = float(A + B + C + D); }}\n"
    );
    let loader = Counting::new("sfpvec4 unused_in_main;\n");
    let (e, took) = build_error(&text, &loader);
    assert!(
        e.contains("has 2816 variants to build: 256 combinations of axis values x 11 targets"),
        "{e}"
    );
    // The first round's expansions found the names; none was compiled.
    assert_eq!(loader.loads.get(), 256);
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn expanded_text_is_counted_over_the_set_before_any_compile() {
    // 11 variants of 15 MiB each: past 128 MiB at the ninth.
    let header = "int unused_global_of_header_xy;\n".repeat(15 << 20 >> 5);
    let text = "#version 450\n#pragma ncnn_glsl axis A 0 1 2 3 4 5 6 7 8 9 10\n\
                #include \"h.glsl\"\n\
                layout (binding = 0) buffer b_blob { float d[]; };\n\
                void main() { d[0] = float(A); }\n";
    let loader = Counting::new(&header);
    let (e, _) = build_error(text, &loader);
    assert!(
        e.starts_with("error: the variants of `x.comp` expand to more text than a set may hold: ")
            && e.contains("bytes after 9 of its 11 variants; at most 134217728 bytes"),
        "{e}"
    );
    assert_eq!(loader.loads.get(), 9, "expansions stop at the budget");
}
