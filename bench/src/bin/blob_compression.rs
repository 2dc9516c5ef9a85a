//! How well the embedded SPIR-V compresses, and what decompressing it
//! costs: every blob the workspace can build (the shipped sets under
//! `shaders/`, the corpus `tests/corpus/`, the test shaders `tests/shaders/`
//! and the benchmarks' `bench/shaders/`, each built as the macro builds it,
//! `ncnn_glsl_core::variant::build::build`), through each codec. Host only:
//! no Vulkan device is involved.
//!
//! ```text
//! cargo run --release -p ncnn-glsl-bench --bin blob_compression -- [--reps R] [--json FILE]
//! ```
//!
//! Per codec: the total compressed bytes and the ratio, the compress time
//! (what the macro pays at build time, fastest of 3 per blob) and the
//! decompress time per blob (median of `--reps`, default 15, each from a
//! fresh decoder as the runtime's first use of a blob does), summarized as
//! median, max and total over the blobs. Every decompressed blob is checked
//! equal to the compiled words. `library_bytes` is the same codec over all
//! blobs as one stream, what a shared table compressed as one frame would
//! take (cross-blob redundancy; it is not how blobs are embedded).
//!
//! The codecs: the words as they are (`none`); zstd (`ruzstd`, whose
//! encoder implements only its fastest level) of the little-endian bytes,
//! of the bytes in planes (byte 0 of every word, then byte 1, ...) and of
//! LEB128 words; lz4 (`lz4_flex`) and deflate (`miniz_oxide`) of the
//! bytes; and each over the core's SPIR-V model
//! (`ncnn_glsl_core::variant::packed::model`: every word as its difference
//! from a prediction). The last row is what the macro embeds
//! (`variant::packed`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use ncnn_glsl_bench::stamp::host_document;
use ncnn_glsl_core::variant::build::build;
use ncnn_glsl_core::variant::packed::model;
use ncnn_glsl_core::{CompileOptions, ExpandOptions, FsLoader, SourceFile};
use serde_json::{json, Value};

type Fail = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blob_compression: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One way to store a blob: its bytes from its words, and back (given the
/// word count, which the embedding records beside the bytes).
struct Codec {
    name: &'static str,
    encode: fn(&[u32]) -> Vec<u8>,
    decode: fn(&[u8], usize) -> Option<Vec<u32>>,
}

const CODECS: &[Codec] = &[
    Codec {
        name: "none",
        encode: le_bytes,
        decode: from_le_bytes,
    },
    Codec {
        name: "ruzstd-fastest",
        encode: |w| zstd(&le_bytes(w)),
        decode: |b, n| from_le_bytes(&unzstd(b, n * 4)?, n),
    },
    Codec {
        name: "ruzstd-fastest-byte-planes",
        encode: |w| zstd(&planes(w)),
        decode: |b, n| unplanes(&unzstd(b, n * 4)?, n),
    },
    Codec {
        name: "ruzstd-fastest-varint",
        encode: |w| zstd(&varint(w)),
        // A LEB128 word takes at most 5 bytes.
        decode: |b, n| unvarint(&unzstd_at_most(b, n * 5)?, n),
    },
    Codec {
        name: "lz4_flex",
        encode: |w| lz4_flex::block::compress(&le_bytes(w)),
        decode: |b, n| from_le_bytes(&lz4_flex::block::decompress(b, n * 4).ok()?, n),
    },
    Codec {
        name: "lz4_flex-varint",
        encode: |w| {
            let v = varint(w);
            let mut out = (v.len() as u32).to_le_bytes().to_vec();
            out.extend(lz4_flex::block::compress(&v));
            out
        },
        decode: |b, n| {
            let len = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
            if len > n * 5 {
                return None;
            }
            unvarint(&lz4_flex::block::decompress(&b[4..], len).ok()?, n)
        },
    },
    Codec {
        name: "model",
        encode: model::encode,
        decode: model::decode,
    },
    Codec {
        name: "lz4_flex-model",
        encode: |w| {
            let v = model::encode(w);
            let mut out = (v.len() as u32).to_le_bytes().to_vec();
            out.extend(lz4_flex::block::compress(&v));
            out
        },
        decode: |b, n| {
            let len = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
            if len > model::max_encoded_len(n)? {
                return None;
            }
            model::decode(&lz4_flex::block::decompress(&b[4..], len).ok()?, n)
        },
    },
    Codec {
        name: "deflate-9 (miniz_oxide)",
        encode: |w| miniz_oxide::deflate::compress_to_vec(&le_bytes(w), 9),
        decode: |b, n| from_le_bytes(&inflate(b, n * 4)?, n),
    },
    Codec {
        name: "deflate-9-model",
        encode: |w| miniz_oxide::deflate::compress_to_vec(&model::encode(w), 9),
        decode: |b, n| model::decode(&inflate(b, model::max_encoded_len(n)?)?, n),
    },
    Codec {
        name: "ruzstd-fastest-model",
        encode: |w| zstd(&model::encode(w)),
        decode: |b, n| model::decode(&unzstd_at_most(b, model::max_encoded_len(n)?)?, n),
    },
    Codec {
        name: "deflate-10-model",
        encode: |w| miniz_oxide::deflate::compress_to_vec(&model::encode(w), 10),
        decode: |b, n| model::decode(&inflate(b, model::max_encoded_len(n)?)?, n),
    },
    Codec {
        name: "the core (variant::packed)",
        encode: ncnn_glsl_core::variant::packed::pack,
        decode: ncnn_glsl_core::variant::packed::unpack,
    },
];

fn inflate(bytes: &[u8], cap: usize) -> Option<Vec<u8>> {
    miniz_oxide::inflate::decompress_to_vec_with_limit(bytes, cap).ok()
}

fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn from_le_bytes(bytes: &[u8], n: usize) -> Option<Vec<u32>> {
    (bytes.len() == n * 4).then(|| {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}

/// Byte `p` of every word, then byte `p + 1`: SPIR-V's high bytes are
/// mostly zero (ids and opcodes are small), so they become long runs.
fn planes(words: &[u32]) -> Vec<u8> {
    (0..4)
        .flat_map(|p| words.iter().map(move |w| (w >> (8 * p)) as u8))
        .collect()
}

fn unplanes(bytes: &[u8], n: usize) -> Option<Vec<u32>> {
    (bytes.len() == n * 4).then(|| {
        (0..n)
            .map(|i| (0..4).fold(0u32, |w, p| w | u32::from(bytes[p * n + i]) << (8 * p)))
            .collect()
    })
}

/// LEB128 of each word: most SPIR-V words (ids, small literals, opcode and
/// word count under 128 words) take one or two bytes.
fn varint(words: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(words.len() * 2);
    for &w in words {
        let mut w = w;
        while w >= 0x80 {
            out.push((w as u8) | 0x80);
            w >>= 7;
        }
        out.push(w as u8);
    }
    out
}

fn unvarint(bytes: &[u8], n: usize) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(n);
    let mut it = bytes.iter();
    while out.len() < n {
        let mut w = 0u64;
        for shift in (0..35).step_by(7) {
            let b = *it.next()?;
            w |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
        }
        out.push(u32::try_from(w).ok()?);
    }
    it.next().is_none().then_some(out)
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

/// Exactly `len` bytes, or `None`.
fn unzstd(bytes: &[u8], len: usize) -> Option<Vec<u8>> {
    let out = unzstd_at_most(bytes, len)?;
    (out.len() == len).then_some(out)
}

fn unzstd_at_most(bytes: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; len];
    let n = ruzstd::decoding::FrameDecoder::new()
        .decode_all(bytes, &mut out)
        .ok()?;
    out.truncate(n);
    Some(out)
}

/// One blob and where it comes from.
struct Blob {
    shader: String,
    words: Vec<u32>,
}

/// What [`blobs`] found.
struct Found {
    blobs: Vec<Blob>,
    /// Per directory: shaders built, blobs, bytes.
    groups: Vec<Value>,
    /// The shaders that do not build as a set, with the first line of why.
    failed: Vec<(String, String)>,
}

/// Every blob of every `.comp` under the workspace's shader directories.
fn blobs(root: &Path) -> Result<Found, Fail> {
    let mut out = Vec::new();
    let mut groups = Vec::new();
    let mut failed = Vec::new();
    for dir in ["shaders", "tests/corpus", "tests/shaders", "bench/shaders"] {
        let dir_path = root.join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir_path)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "comp"))
            .collect();
        files.sort();
        let (mut shaders, mut count, mut words) = (0, 0, 0);
        for path in files {
            let file = path.file_name().unwrap_or_default().to_string_lossy();
            let name = format!("{dir}/{file}");
            let text = std::fs::read_to_string(&path)?;
            let source = SourceFile {
                name: name.clone(),
                path: Some(path.clone()),
                text,
            };
            let options = ExpandOptions::include([dir_path.clone()]);
            match build(source, &FsLoader, &options, &CompileOptions::default()) {
                Ok(set) => {
                    shaders += 1;
                    for b in set.blobs {
                        count += 1;
                        words += b.spirv.len();
                        out.push(Blob {
                            shader: name.clone(),
                            words: b.spirv,
                        });
                    }
                }
                Err(d) => {
                    let first = d.to_string().lines().next().unwrap_or_default().to_string();
                    failed.push((name, first));
                }
            }
        }
        groups.push(json!({ "dir": dir, "shaders": shaders, "blobs": count, "bytes": words * 4 }));
    }
    Ok(Found {
        blobs: out,
        groups,
        failed,
    })
}

fn us(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e6
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run() -> Result<(), Fail> {
    let mut reps = 15usize;
    let mut json_out = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut v = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--reps" => reps = v()?.parse::<usize>()?.max(1),
            "--json" => json_out = Some(v()?),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let t = Instant::now();
    let Found {
        blobs,
        groups,
        failed,
    } = blobs(&root)?;
    eprintln!("built {} blobs in {:.1} s", blobs.len(), us(t) / 1e6);
    for (name, why) in &failed {
        eprintln!("not built: {name}: {why}");
    }
    let raw: usize = blobs.iter().map(|b| b.words.len() * 4).sum();
    let library: Vec<u32> = blobs.iter().flat_map(|b| b.words.iter().copied()).collect();
    let mut results = Vec::new();
    println!(
        "{:<40} {:>10} {:>7} {:>11} {:>11} {:>11} {:>11} {:>12}",
        "codec", "bytes", "ratio", "comp ms", "dec med us", "dec max us", "dec tot ms", "library"
    );
    for codec in CODECS {
        let (mut bytes, mut compress_us) = (0usize, 0.0);
        let mut decode_us = Vec::with_capacity(blobs.len());
        for b in &blobs {
            let mut best = f64::INFINITY;
            let mut packed = Vec::new();
            for _ in 0..3 {
                let t = Instant::now();
                packed = (codec.encode)(&b.words);
                best = best.min(us(t));
            }
            compress_us += best;
            bytes += packed.len();
            let mut times = Vec::with_capacity(reps);
            for _ in 0..reps {
                let t = Instant::now();
                let words = (codec.decode)(&packed, b.words.len());
                times.push(us(t));
                if words.as_deref() != Some(&b.words[..]) {
                    return Err(format!(
                        "{}: a blob of {} does not round-trip",
                        codec.name, b.shader
                    )
                    .into());
                }
            }
            decode_us.push(median(&mut times));
        }
        let total_decode: f64 = decode_us.iter().sum();
        let max_decode = decode_us.iter().copied().fold(0.0, f64::max);
        let median_decode = median(&mut decode_us);
        let library_bytes = (codec.encode)(&library).len();
        let ratio = raw as f64 / bytes as f64;
        println!(
            "{:<40} {:>10} {:>7.2} {:>11.1} {:>11.1} {:>11.1} {:>11.2} {:>12}",
            codec.name,
            bytes,
            ratio,
            compress_us / 1e3,
            median_decode,
            max_decode,
            total_decode / 1e3,
            library_bytes
        );
        results.push(json!({
            "codec": codec.name,
            "bytes": bytes,
            "ratio": (ratio * 1000.0).round() / 1000.0,
            "compress_ms_total": (compress_us / 1e3 * 100.0).round() / 100.0,
            "decompress_us_per_blob_median": (median_decode * 10.0).round() / 10.0,
            "decompress_us_per_blob_max": (max_decode * 10.0).round() / 10.0,
            "decompress_ms_total": (total_decode / 1e3 * 100.0).round() / 100.0,
            "library_bytes": library_bytes,
        }));
    }
    let largest = blobs.iter().map(|b| b.words.len() * 4).max().unwrap_or(0);
    let doc = host_document(json!({
        "what": "every blob the workspace builds, through each codec (bench/src/bin/blob_compression.rs)",
        "blobs": blobs.len(),
        "raw_bytes": raw,
        "largest_blob_bytes": largest,
        "sources": groups,
        "not_built": failed.iter().map(|(n, w)| json!({ "shader": n, "why": w })).collect::<Vec<_>>(),
        "reps": reps,
        // The host is shared: its load says how far to trust the times.
        "load_average": std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim(),
        "codecs": results,
    }));
    if let Some(path) = json_out {
        std::fs::write(&path, serde_json::to_string_pretty(&doc)? + "\n")?;
        eprintln!("wrote {path}");
    }
    Ok(())
}
