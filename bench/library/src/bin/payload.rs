//! What the library embeds: shaders, variants, distinct blobs, the SPIR-V
//! they hold and the bytes they take in the binary, and what decompressing
//! each costs the first time (and the second). One JSON object on stdout.

use std::collections::BTreeSet;
use std::time::Instant;

use ncnn_glsl_library_bench::kernels::LIBRARY;
use ncnn_glsl_runtime::Blob;

fn main() {
    let mut blobs: Vec<&'static Blob> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut variants = 0usize;
    for set in LIBRARY.sets {
        for v in set.variants() {
            variants += 1;
            if seen.insert(v.blob as *const Blob as usize) {
                blobs.push(v.blob);
            }
        }
    }
    let embedded: usize = blobs.iter().map(|b| b.embedded_bytes()).sum();
    let mut first = Vec::with_capacity(blobs.len());
    let mut raw = 0usize;
    let t_all = Instant::now();
    for b in &blobs {
        let t = Instant::now();
        let words = b.spirv();
        first.push(t.elapsed().as_secs_f64() * 1e6);
        assert_eq!(words.len(), b.spirv_len(), "a blob did not decompress");
        raw += words.len() * 4;
    }
    let all_us = t_all.elapsed().as_secs_f64() * 1e6;
    // Blobs of two sets with the same words (each set embeds its own).
    let by_content: BTreeSet<&[u32]> = blobs.iter().map(|b| b.spirv()).collect();
    let t = Instant::now();
    for b in &blobs {
        std::hint::black_box(b.spirv());
    }
    let again_us = t.elapsed().as_secs_f64() * 1e6;
    first.sort_by(f64::total_cmp);
    let q = |f: f64| first[((first.len() - 1) as f64 * f) as usize];
    let out = serde_json::json!({
        "shaders": LIBRARY.len(),
        "variants": variants,
        "distinct_blobs": blobs.len(),
        "distinct_blob_contents": by_content.len(),
        "spirv_bytes": raw,
        "embedded_bytes": embedded,
        "ratio": raw as f64 / embedded as f64,
        "decompress_first_us": { "median": q(0.5), "p90": q(0.9), "max": q(1.0), "total": all_us },
        "decompress_again_total_us": again_us,
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
