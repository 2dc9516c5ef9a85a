//! The variant space keys variants by a canonical target that clears what a
//! shader cannot tell apart. This checks that claim against the real
//! expansion: for every distinct target a device can end with, the finished
//! text equals the text of its canonical target, except for `#extension`
//! lines, and the canonical text enables no extension the other does not.

use std::collections::BTreeSet;

use ncnn_glsl_core::variant::build::text_usage;
use ncnn_glsl_core::variant::space::{canonical, feature_combinations};
use ncnn_glsl_core::{Options, Target};
use ncnn_glsl_testkit::shaders::{expand_for, test_shader};

fn split(text: &str) -> (String, BTreeSet<String>) {
    let mut body = String::new();
    let mut exts = BTreeSet::new();
    for l in text.lines() {
        if l.starts_with("#extension") {
            exts.insert(l.to_string());
        } else {
            body.push_str(l);
            body.push('\n');
        }
    }
    (body, exts)
}

#[test]
fn every_target_expands_like_its_canonical_target() {
    for shader in [
        "seed_example.comp",
        "extension_naga.comp",
        "extension_everything.comp",
    ] {
        let source = test_shader(shader);
        let usage = text_usage(&source.text);
        // Every distinct target a device can end with, for ncnn's default
        // wanted options and for everything wanted.
        let mut targets = BTreeSet::new();
        for device in feature_combinations() {
            for wanted in [
                Options::NCNN_DEFAULT,
                Options::ALL,
                "fp16p+fp16a+int8p".parse().unwrap(),
            ] {
                targets.insert(Target::for_device(wanted, &device));
            }
        }
        for t in targets {
            let c = canonical(t, usage);
            let (body, exts) = split(expand_for(source.clone(), t).unwrap().text());
            let (cbody, cexts) = split(expand_for(source.clone(), c).unwrap().text());
            assert_eq!(body, cbody, "{shader}: {t} and its canonical {c} differ");
            assert!(
                cexts.is_subset(&exts),
                "{shader}: {c} enables {cexts:?}, {t} only {exts:?}"
            );
        }
    }
}
