//! Times the variant-set builds of shader files, as `include_ncnn_shader!`
//! runs them: `NCNN_GLSL_JOBS` sets the compile workers, `--cache DIR` the
//! compile cache (none without it).
//!
//! ```sh
//! cargo run --release -p ncnn-glsl-core --example set_build_time -- \
//!     [--cache DIR] FILE.comp...
//! ```
//!
//! Each file is expanded with its own directory and `shaders/` as include
//! directories. Prints one line per file and the total wall time.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ncnn_glsl_core::compile::CompileOptions;
use ncnn_glsl_core::expand::ExpandOptions;
use ncnn_glsl_core::source::{FsLoader, SourceFile};
use ncnn_glsl_core::variant::build::build_with;
use ncnn_glsl_core::variant::cache::Cache;
use ncnn_glsl_core::variant::jobs;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1).peekable();
    let mut cache = None;
    if args.peek().map(String::as_str) == Some("--cache") {
        args.next();
        let dir = PathBuf::from(args.next().ok_or("--cache needs a directory")?);
        // The key beside the directory: a tool's own cache.
        cache = Some(Cache::new(&dir, dir.with_extension("key")));
    }
    let files: Vec<PathBuf> = args.map(PathBuf::from).collect();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders");
    let start = Instant::now();
    let (mut variants, mut texts, mut failed) = (0, 0, 0);
    for file in &files {
        let text = ncnn_glsl_core::source::read_text(file)?;
        let source = SourceFile {
            name: file.display().to_string(),
            path: Some(file.clone()),
            text,
        };
        let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        let expand = ExpandOptions::include([dir, shipped.clone()]);
        let t = Instant::now();
        let built = build_with(
            source,
            &FsLoader,
            &expand,
            &CompileOptions::default(),
            cache.as_ref(),
        );
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match built {
            Ok(set) => {
                variants += set.variants.len();
                texts += set.texts.len();
                println!(
                    "{}: {} variants, {} texts, {} blobs, {ms:.0} ms",
                    file.display(),
                    set.variants.len(),
                    set.texts.len(),
                    set.blobs.len()
                );
            }
            Err(d) => {
                failed += 1;
                let first = d.to_string();
                let first = first.lines().next().unwrap_or_default();
                println!("{}: fails ({first}), {ms:.0} ms", file.display());
            }
        }
    }
    println!(
        "{} files ({failed} fail), {variants} variants, {texts} distinct texts, {} workers \
         at most: {:.2} s",
        files.len(),
        jobs::workers(usize::MAX),
        start.elapsed().as_secs_f64()
    );
    if let Some(c) = &cache {
        let s = c.stats();
        println!(
            "cache {}: {} hits, {} misses, {} written",
            c.dir().display(),
            s.hits,
            s.misses,
            s.writes
        );
    }
    Ok(())
}
