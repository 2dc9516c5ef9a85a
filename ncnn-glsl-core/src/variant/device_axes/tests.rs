use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::*;
use crate::compile::CompileOptions;
use crate::device::DeviceCaps;
use crate::expand::ExpandOptions;
use crate::options::Options;
use crate::source::{MemoryLoader, SourceFile};
use crate::variant::build::{build, BuiltSet};

fn uses(text: &str) -> BTreeMap<String, Uses> {
    let mut s = SourceMap::new();
    let f = s.add(SourceFile {
        name: "x.comp".into(),
        path: None,
        text: text.into(),
    });
    uses_in(&s, f, &BTreeSet::from(["ncnn_declared"]))
}

fn tests_of(text: &str, name: &str) -> Vec<Test> {
    let u = uses(text);
    let u = &u[name];
    assert!(u.value.is_none(), "{name}: {:?}", u.value);
    u.tests.iter().copied().collect()
}

fn value_error(text: &str, name: &str) -> String {
    uses(text)[name]
        .value
        .as_ref()
        .expect("a value use")
        .to_string()
}

#[test]
fn reads_each_form_of_test() {
    use Cmp::*;
    let cases: &[(&str, &[Test])] = &[
        ("#ifdef ncnn_X\n#endif\n", &[Test::Defined]),
        ("#ifndef ncnn_X\n#endif\n", &[Test::Defined]),
        ("#if defined(ncnn_X) && A\n#endif\n", &[Test::Defined]),
        ("#if !defined ncnn_X\n#endif\n", &[Test::Defined]),
        ("#if ncnn_X\n#endif\n", &[Test::Truth]),
        ("#if A || (ncnn_X)\n#endif\n", &[Test::Truth]),
        ("#if !ncnn_X == 1\n#endif\n", &[Test::Truth]),
        ("#if ncnn_X ? 1 : 0\n#endif\n", &[Test::Truth]),
        ("#if ncnn_X >= 32\n#endif\n", &[Test::Compare(Ge, 32)]),
        ("#if 32 < ncnn_X && B\n#endif\n", &[Test::Compare(Gt, 32)]),
        (
            "#if (ncnn_X != 0x13b5u)\n#endif\n",
            &[Test::Compare(Ne, 0x13b5)],
        ),
        ("#if !(ncnn_X == 5)\n#endif\n", &[Test::Compare(Eq, 5)]),
        (
            "#if A\n#elif ncnn_X == 1 || ncnn_X <= 010\n#endif\n",
            &[Test::Compare(Eq, 1), Test::Compare(Le, 8)],
        ),
    ];
    for (text, want) in cases {
        assert_eq!(tests_of(text, "ncnn_X"), *want, "{text}");
    }
    // Declared macros, the extension's own, and the set's pragma are not uses.
    let u =
        uses("#pragma ncnn_glsl device ncnn_Y 1\n#if ncnn_declared && ncnn_glsl_version\n#endif\n");
    assert!(u.is_empty(), "{:?}", u.keys());
}

#[test]
fn other_uses_are_values_at_their_place() {
    for (text, col) in [
        ("int x = ncnn_X;\n", 9),
        ("#define N ncnn_X\n", 11),
        ("#if ncnn_X + 1 > 2\n#endif\n", 5),
        ("#if ncnn_X == N\n#endif\n", 5),
        ("#if !ncnn_X & 1\n#endif\n#if ncnn_X == 3 < 4\n#endif\n", 5),
        ("#if A ? ncnn_X : 0\n#endif\n", 9),
    ] {
        let e = value_error(text, "ncnn_X");
        assert!(
            e.starts_with(&format!(
                "x.comp:{}:{col}: error: the shader uses the device macro `ncnn_X`",
                if text.starts_with("#if !") { 3 } else { 1 }
            )),
            "{text}: {e}"
        );
    }
}

fn axis(text: &str, name: &str) -> Axis {
    let found = axes(&uses(text)).unwrap_or_else(|e| panic!("{e:?}"));
    found.into_iter().find(|a| a.name == name).unwrap()
}

#[test]
fn values_are_one_per_outcome() {
    let a = axis("#if ncnn_subgroupSize >= 32\n#endif\n", "ncnn_subgroupSize");
    assert_eq!(a.values, [1, 32]);
    let o = a.outcomes.unwrap();
    for (device, built) in [(1, 1), (16, 1), (31, 1), (32, 32), (64, 32), (128, 32)] {
        assert_eq!(o.value_for(Some(device)), Some(built), "{device}");
    }
    // Undefined reads as 0 in `#if` (no device leaves it so).
    assert_eq!(o.value_for(None), Some(1));

    let a = axis("#if ncnn_vendorID != 0x13b5\n#endif\n", "ncnn_vendorID");
    assert_eq!(a.values, [0, 0x13b5]);
    let o = a.outcomes.unwrap();
    assert_eq!(o.value_for(Some(0x10de)), Some(0));
    assert_eq!(o.value_for(Some(0x13b5)), Some(0x13b5));
    assert_eq!(o.value_for(Some(0x13b6)), Some(0));

    // An extension: undefined, or its spec version.
    let a = axis(
        "#if ncnn_VK_KHR_cooperative_matrix\n#endif\n",
        "ncnn_VK_KHR_cooperative_matrix",
    );
    assert_eq!(a.values, [UNDEFINED, 1]);
    let o = a.outcomes.unwrap();
    assert_eq!(o.value_for(None), Some(UNDEFINED));
    assert_eq!(o.value_for(Some(2)), Some(1));

    // A property a device may lack: undefined reads as 0 in `#if`.
    let a = axis("#if ncnn_driverID == 5\n#endif\n", "ncnn_driverID");
    assert_eq!(a.values, [0, 5]);
    let o = a.outcomes.unwrap();
    assert_eq!(o.value_for(None), Some(0));
    assert_eq!(o.value_for(Some(4)), Some(0));
    assert_eq!(o.value_for(Some(5)), Some(5));

    // `defined` and a truth test of an extension feature: three outcomes.
    let a = axis(
        "#ifdef ncnn_cooperativeMatrix\n#if ncnn_cooperativeMatrix\n#endif\n#endif\n",
        "ncnn_cooperativeMatrix",
    );
    assert_eq!(a.values, [UNDEFINED, 0, 1]);

    // A feature used as a value: both values.
    let a = axis(
        "bool b = ncnn_subgroup_basic != 0;\n",
        "ncnn_subgroup_basic",
    );
    assert_eq!(a.values, [0, 1]);
}

/// Over many tests and values: every value of the domain runs a variant
/// whose tests all have the outcomes the value itself gives.
#[test]
fn every_value_runs_a_variant_with_its_own_outcomes() {
    let constants = [0, 1, 2, 5, 31, 32, 33, 64, 0x10de, 0x13b5];
    let ops = ["==", "!=", "<", "<=", ">", ">="];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for round in 0..200 {
        let name = [
            "ncnn_subgroupSize",
            "ncnn_driverID",
            "ncnn_VK_KHR_x",
            "ncnn_unknownThing",
        ][round % 4];
        let mut text = String::new();
        for _ in 0..1 + next(4) {
            let line = match next(4) {
                0 => format!("#ifdef {name}\n#endif\n"),
                1 => format!("#if {name}\n#endif\n"),
                _ => format!(
                    "#if {name} {} {}\n#endif\n",
                    ops[next(6)],
                    constants[next(10)]
                ),
            };
            text.push_str(&line);
        }
        let u = uses(&text);
        let tests: Vec<Test> = u[name].tests.iter().copied().collect();
        let a = axis(&text, name);
        let o = a.outcomes.as_ref().unwrap();
        let dom = domain(name);
        let mut values: Vec<Option<i64>> = (-3..200)
            .chain([0x10dd, 0x10de, 0x10df, 0x13b5])
            .map(Some)
            .collect();
        values.push(None);
        for v in values {
            let possible = match v {
                None => dom.undefined,
                Some(v) => (dom.min..=dom.max).contains(&v),
            };
            if !possible {
                continue;
            }
            let built = o
                .value_for(v)
                .unwrap_or_else(|| panic!("{text}: {v:?} runs nothing"));
            assert!(a.values.contains(&built), "{text}");
            let built = (built != UNDEFINED).then_some(built);
            for t in &tests {
                assert_eq!(
                    t.outcome(built),
                    t.outcome(v),
                    "{text}: {v:?} runs {built:?}, {t:?}"
                );
            }
        }
    }
}

fn set_of(text: &str) -> Result<BuiltSet, String> {
    build(
        SourceFile {
            name: "x.comp".into(),
            path: None,
            text: text.into(),
        },
        &MemoryLoader {
            files: vec![(
                PathBuf::from("inc.glsl"),
                "#if ncnn_driverID == 5\nconst uint INC = 50u;\n#else\nconst uint INC = 51u;\n#endif\n".into(),
            )],
        },
        &ExpandOptions::default(),
        &CompileOptions::default(),
    )
    .map_err(|d| d.to_string())
}

const SHADER: &str = "#version 450
layout (local_size_x = 1) in;
layout (binding = 0) buffer o { uint v[]; };
#if ncnn_VK_KHR_cooperative_matrix
#include \"inc.glsl\"
#else
const uint INC = 0u;
#endif
void main()
{
#if ncnn_subgroupSize >= 32
    v[0] = 1u;
#else
    v[0] = 2u;
#endif
#if ncnn_vendorID == 0x10de
    v[1] = 3u;
#elif defined(ncnn_VK_EXT_foo)
    v[1] = 4u;
#else
    v[1] = 5u;
#endif
    v[2] = INC;
}
";

fn device(extensions: &[&str], vendor: u32, subgroup: u64, driver: Option<u64>) -> DeviceCaps {
    let mut d = DeviceCaps {
        vendor_id: vendor,
        ..DeviceCaps::default()
    };
    for e in extensions {
        d.extensions.insert(e.to_string(), 1);
    }
    d.properties.insert("subgroupSize".into(), subgroup);
    if let Some(id) = driver {
        d.properties.insert("driverID".into(), id);
    }
    d
}

/// What the shader's own `#if`s pick on `d`, from its variant's text.
fn picked(set: &BuiltSet, d: &DeviceCaps) -> String {
    let c = set.select(d, Options::FP32, &[]).expect("a variant");
    let text = &set.texts[c.variant.text];
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("v[") && l.contains("] = ") || l.contains("const uint INC"))
        .map(str::trim)
        .collect();
    lines.join(" ")
}

#[test]
fn a_shader_that_tests_device_macros_builds_without_pragmas() {
    let set = set_of(SHADER).unwrap();
    let names: Vec<&str> = set.axis_names();
    assert_eq!(
        names,
        [
            "ncnn_VK_EXT_foo",
            "ncnn_VK_KHR_cooperative_matrix",
            "ncnn_driverID",
            "ncnn_subgroupSize",
            "ncnn_vendorID"
        ]
    );
    let cases = [
        (
            device(&[], 0x10de, 32, None),
            "const uint INC = 0u; v[0] = 1u; v[1] = 3u; v[2] = INC;",
        ),
        (
            device(&["VK_KHR_cooperative_matrix"], 0x10de, 32, Some(5)),
            "const uint INC = 50u; v[0] = 1u; v[1] = 3u; v[2] = INC;",
        ),
        (
            device(&["VK_KHR_cooperative_matrix"], 0x1002, 64, Some(1)),
            "const uint INC = 51u; v[0] = 1u; v[1] = 5u; v[2] = INC;",
        ),
        (
            device(&["VK_EXT_foo"], 0x13b5, 16, None),
            "const uint INC = 0u; v[0] = 2u; v[1] = 4u; v[2] = INC;",
        ),
    ];
    for (d, want) in &cases {
        assert_eq!(picked(&set, d), *want, "{d:?}");
    }
    // The included file's test counts although only one branch reads it.
    let driver = set
        .declaration
        .device
        .iter()
        .find(|a| a.name == "ncnn_driverID")
        .unwrap();
    assert_eq!(driver.values, [0, 5]);
}

#[test]
fn a_pragma_narrows_and_a_value_use_still_needs_one() {
    let narrowed = format!("#pragma ncnn_glsl device ncnn_subgroupSize 32\n{SHADER}");
    let narrowed =
        narrowed
            .replacen("#version 450\n", "", 1)
            .replacen("#pragma", "#version 450\n#pragma", 1);
    let set = set_of(&narrowed).unwrap();
    let sg = set
        .declaration
        .device
        .iter()
        .find(|a| a.name == "ncnn_subgroupSize")
        .unwrap();
    assert!(sg.outcomes.is_none());
    assert!(set
        .select(&device(&[], 0x10de, 64, None), Options::FP32, &[])
        .is_none());
    assert!(set
        .select(&device(&[], 0x10de, 32, None), Options::FP32, &[])
        .is_some());

    let e = set_of(&SHADER.replace("v[2] = INC;", "v[2] = ncnn_subgroupSize;")).unwrap_err();
    assert!(e.contains("x.comp:23:12: error: the shader uses the device macro `ncnn_subgroupSize` (used as a value"), "{e}");
}

/// A chain of files, each included under a test of the next device macro:
/// each round of the survey finds one more.
fn chain(levels: usize) -> Result<BuiltSet, String> {
    let files = (1..=levels)
        .map(|i| {
            let text = format!("#if ncnn_X{i}\n#include \"f{}.glsl\"\n#endif\n", i + 1);
            (PathBuf::from(format!("f{i}.glsl")), text)
        })
        .chain([(
            PathBuf::from(format!("f{}.glsl", levels + 1)),
            String::new(),
        )])
        .collect();
    build(
        SourceFile {
            name: "x.comp".into(),
            path: None,
            text: "#version 450\nlayout (local_size_x = 1) in;\n#include \"f1.glsl\"\nvoid main() {}\n"
                .into(),
        },
        &MemoryLoader { files },
        &ExpandOptions::default(),
        &CompileOptions::default(),
    )
    .map_err(|d| d.to_string())
}

#[test]
fn a_set_whose_device_axes_do_not_settle_is_an_error() {
    let set = chain(6).unwrap();
    assert_eq!(set.declaration.device.len(), 6);
    let e = chain(10).unwrap_err();
    assert!(
        e.contains("the variant set of `x.comp` did not settle after 8 rounds"),
        "{e}"
    );
}
