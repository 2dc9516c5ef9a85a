//! The generator and the minimizer without a device.

use std::time::{Duration, Instant};

use super::gen::generate;
use super::minimize::minimize;
use super::{Class, Features};

const ALL: Features = Features {
    subgroups: true,
    fp16_storage: true,
    fp16_arithmetic: true,
};

/// A seed makes one program, the same every time; other seeds others.
#[test]
fn a_seed_makes_the_same_program() {
    let seed = crate::rng::fresh_seed();
    let a = generate(seed, &ALL);
    let b = generate(seed, &ALL);
    assert_eq!(a.shader.text(), b.shader.text(), "seed {seed}");
    assert_eq!(a.case_line(), b.case_line(), "seed {seed}");
    assert_eq!(a.inputs(), b.inputs(), "seed {seed}");
    let c = generate(seed.wrapping_add(1), &ALL);
    assert_ne!(
        a.shader.text(),
        c.shader.text(),
        "seeds {seed} and the next"
    );
}

/// Every class and every construct the docs promise comes out of a few
/// hundred seeds; without a device's subgroups or 16-bit floats, none of
/// them does.
#[test]
fn the_generator_reaches_what_it_promises() {
    let base = crate::rng::fresh_seed();
    let texts: Vec<(Class, String, String)> = (0..400)
        .map(|k| {
            let p = generate(base.wrapping_add(k), &ALL);
            (p.class, p.mode.clone(), p.shader.text())
        })
        .collect();
    for class in [Class::InRange, Class::MayIndexOutOfRange, Class::BadSize] {
        assert!(texts.iter().any(|t| t.0 == class), "{class:?} from {base}");
    }
    for mode in ["fp32", "fp16p", "fp16p+fp16a", "fp16s", "fp16s+fp16a"] {
        assert!(texts.iter().any(|t| t.1 == mode), "{mode} from {base}");
    }
    for construct in [
        "subgroupAdd(",
        "gl_SubgroupInvocationID",
        "barrier();",
        "shared ",
        "inout ",
        "constant_id",
        "psc(",
        "local_size_x_id",
        "buffer_ld4(",
        "buffer_st1(",
        "lfp2afp(",
        "for (",
        "if (",
        "break;",
        "bitfieldExtract(",
        "std430",
    ] {
        assert!(
            texts.iter().any(|t| t.2.contains(construct)),
            "`{construct}` in none of 400 programs from seed {base}"
        );
    }
    let none = Features {
        subgroups: false,
        fp16_storage: false,
        fp16_arithmetic: false,
    };
    for k in 0..100 {
        let p = generate(base.wrapping_add(k), &none);
        assert!(!p.shader.text().contains("subgroup"), "seed {}", p.seed);
        assert!(
            matches!(p.mode.as_str(), "fp32" | "fp16p"),
            "seed {}",
            p.seed
        );
    }
}

/// The minimizer keeps what its predicate asks for and drops the rest.
#[test]
fn the_minimizer_keeps_the_failure_and_little_else() {
    let base = crate::rng::fresh_seed();
    let p = (0..1000)
        .map(|k| generate(base.wrapping_add(k), &ALL))
        .find(|p| p.shader.text().contains("bitfieldReverse(") && p.shader.text().len() > 2000)
        .unwrap_or_else(|| panic!("no program with `bitfieldReverse(` from {base}"));
    let mut still = |c: &super::Program| c.shader.text().contains("bitfieldReverse(");
    let small = minimize(&p, &mut still, Instant::now() + Duration::from_secs(30));
    let text = small.shader.text();
    assert!(
        text.contains("bitfieldReverse("),
        "seed {}:\n{text}",
        p.seed
    );
    assert!(
        text.len() * 2 < p.shader.text().len(),
        "seed {}: {} of {} bytes left:\n{text}",
        p.seed,
        text.len(),
        p.shader.text().len()
    );
}
