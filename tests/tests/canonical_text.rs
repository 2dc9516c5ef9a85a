//! The variant space keys variants by a canonical target that clears what a
//! shader cannot tell apart. This checks that claim against the real
//! expansion: for every distinct target a device can end with, the finished
//! text equals the text of its canonical target, except for `#extension`
//! lines, and the canonical text enables no extension the other does not.

use std::collections::{BTreeMap, BTreeSet};

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

/// Every distinct target a device can end with (for ncnn's default wanted
/// options, for everything wanted, and for an int8 set) expands `shader` as
/// its canonical target does. Each target is expanded once: many share one
/// canonical target, and the canonical target is often one of them.
fn every_target_expands_like_its_canonical_target(shader: &str) {
    let source = test_shader(shader);
    let usage = text_usage(&source.text);
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
    let mut expanded: BTreeMap<Target, (String, BTreeSet<String>)> = BTreeMap::new();
    let mut split_of = |t: Target| {
        expanded
            .entry(t)
            .or_insert_with(|| split(expand_for(source.clone(), t).unwrap().text()))
            .clone()
    };
    for t in targets {
        let c = canonical(t, usage);
        let (body, exts) = split_of(t);
        let (cbody, cexts) = split_of(c);
        assert_eq!(body, cbody, "{shader}: {t} and its canonical {c} differ");
        assert!(
            cexts.is_subset(&exts),
            "{shader}: {c} enables {cexts:?}, {t} only {exts:?}"
        );
    }
}

#[test]
fn the_seed_example_expands_like_its_canonical_targets() {
    every_target_expands_like_its_canonical_target("seed_example.comp");
}

#[test]
fn extension_naga_expands_like_its_canonical_targets() {
    every_target_expands_like_its_canonical_target("extension_naga.comp");
}

#[test]
fn extension_everything_expands_like_its_canonical_targets() {
    every_target_expands_like_its_canonical_target("extension_everything.comp");
}
