//! The finished GLSL of every variant of every shipped shader, as insta
//! snapshots (the same texts `cargo xtask regen-variants` writes under
//! `shaders/variants/`): `cargo insta review` shows what a change does to
//! each variant.

use std::path::PathBuf;

use ncnn_glsl_core::variant::build::build;
use ncnn_glsl_core::variant::manifest::file_name;
use ncnn_glsl_core::{CompileOptions, ExpandOptions, FsLoader, SourceFile};
use ncnn_glsl_testkit::shaders::workspace_root;

#[test]
fn every_variant_of_every_shipped_shader() {
    let dir = workspace_root().join("shaders");
    let mut shaders: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "comp"))
        .collect();
    shaders.sort();
    assert!(
        !shaders.is_empty(),
        "no shipped shader in {}",
        dir.display()
    );
    let mut expected = std::collections::BTreeSet::new();
    for path in shaders {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = SourceFile {
            name: format!("shaders/{}", path.file_name().unwrap().to_string_lossy()),
            path: Some(path.clone()),
            text: std::fs::read_to_string(&path).unwrap(),
        };
        let set = build(
            source,
            &FsLoader,
            &ExpandOptions::include([dir.clone()]),
            &CompileOptions::default(),
        )
        .unwrap_or_else(|d| panic!("{stem} does not build:\n{d}"));
        let names = set.axis_names();
        for v in &set.variants {
            let name = format!(
                "{stem}__{}",
                file_name(&v.key, &names).trim_end_matches(".glsl")
            );
            expected.insert(format!("shipped_variants__{name}.snap"));
            insta::assert_snapshot!(name, set.texts[v.text]);
        }
    }
    // A snapshot of a variant that no longer exists is stale: it fails too.
    let on_disk: std::collections::BTreeSet<String> =
        std::fs::read_dir(workspace_root().join("tests/tests/snapshots"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("shipped_variants__") && n.ends_with(".snap"))
            .collect();
    let stale: Vec<&String> = on_disk.difference(&expected).collect();
    assert!(stale.is_empty(), "stale snapshots (delete them): {stale:?}");
}
