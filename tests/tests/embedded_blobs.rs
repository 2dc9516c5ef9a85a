//! The embedded blobs are the compiled blobs: every variant of the shipped
//! sets (`ncnn_glsl_q8ta::SETS`), its SPIR-V decompressed from the binary
//! (`Blob::spirv`), is word for word the blob the core's build compiles for
//! the same shader, target and axis values; and a blob is decompressed once.
//! (`spirv_val_all` ties the same decompressed words to the reviewed
//! manifests under `shaders/variants/` by size and hash.)

use std::collections::BTreeSet;

use ncnn_glsl_core::variant::build::build;
use ncnn_glsl_core::{CompileOptions, ExpandOptions, FsLoader, SourceFile};
use ncnn_glsl_q8ta::SETS;
use ncnn_glsl_runtime::Blob;
use ncnn_glsl_testkit::shaders::workspace_root;

#[test]
fn the_shipped_blobs_decompressed_are_the_blobs_compiled() {
    let library = workspace_root().join("shaders");
    let (mut raw, mut embedded, mut blobs) = (0, 0, 0);
    for set in SETS {
        let path = library.join(set.name);
        let source = SourceFile {
            name: format!("shaders/{}", set.name),
            text: std::fs::read_to_string(&path).unwrap(),
            path: Some(path),
        };
        // As the macro builds a shader found in the shipped library.
        let options = ExpandOptions::include([library.clone()]);
        let built = build(source, &FsLoader, &options, &CompileOptions::default())
            .unwrap_or_else(|d| panic!("{}: {d}", set.name));
        assert_eq!(set.variants().len(), built.variants.len(), "{}", set.name);
        let mut seen = BTreeSet::new();
        for v in set.variants() {
            let b = built
                .variants
                .iter()
                .find(|b| b.key.target == v.target && b.key.axes == v.axes)
                .unwrap_or_else(|| panic!("{} {} {:?}: not built", set.name, v.target, v.axes));
            let compiled = &built.blobs[b.blob];
            assert_eq!(
                v.blob.spirv(),
                &compiled.spirv[..],
                "{} {} {:?}: the embedded words",
                set.name,
                v.target,
                v.axes
            );
            assert_eq!(v.blob.reflection(), &compiled.reflection, "{}", set.name);
            if seen.insert(std::ptr::from_ref::<Blob>(v.blob)) {
                raw += v.blob.spirv_len() * 4;
                embedded += v.blob.embedded_bytes();
                blobs += 1;
            }
        }
        assert_eq!(
            seen.len(),
            built.blobs.len(),
            "{}: distinct blobs",
            set.name
        );
    }
    eprintln!("{blobs} blobs: {raw} SPIR-V bytes, {embedded} embedded");
    assert!(blobs > 0);
    assert!(embedded * 4 < raw, "{embedded} embedded of {raw}");
}

#[test]
fn an_embedded_blob_is_decompressed_once() {
    for set in SETS {
        for v in set.variants() {
            let first = v.blob.spirv();
            assert!(!first.is_empty(), "{} {}", set.name, v.target);
            assert_eq!(v.blob.spirv_len(), first.len());
            // The same words, not decompressed again: the same address.
            assert_eq!(v.blob.spirv().as_ptr(), first.as_ptr());
        }
        // Variants that share a blob share its one decompressed copy.
        for a in set.variants() {
            for b in set.variants() {
                if std::ptr::eq(a.blob, b.blob) {
                    assert_eq!(a.blob.spirv().as_ptr(), b.blob.spirv().as_ptr());
                }
            }
        }
    }
}
