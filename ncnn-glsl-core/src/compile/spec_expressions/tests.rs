//! The parser, evaluator, rewrite and refusals of `spec_expressions.rs`.

use super::super::tokens::tokenize;
use super::*;

fn decl(name: &str, ty: &str) -> SpecDecl {
    SpecDecl {
        id: 0,
        ty: ty.into(),
        name: name.into(),
        range: 0..0,
    }
}

#[test]
fn expressions_parse_with_glsl_precedence_and_evaluate_as_spirv() {
    let scope: HashMap<&str, Named> =
        [("n", Named::Specialized), ("k", Named::Value(3, false))].into();
    let p = |s: &str| parse(s, &tokenize(s), &scope);
    let n = |v: u32| move |name: &str| (name == "n").then_some(v);
    let e = p("n * 4 + k << 1").unwrap();
    assert_eq!(eval(&e, &n(2), &|_| false), Some(22));
    let e = p("(n | 1) ^ ~0 & 7").unwrap();
    assert_eq!(eval(&e, &n(4), &|_| false), Some(5 ^ 7));
    // `%` of `int` is OpSMod: the divisor's sign.
    let e = p("-n % 3").unwrap();
    assert_eq!(eval(&e, &n(4), &|_| false), Some(2));
    assert_eq!(eval(&p("n / 0").unwrap(), &n(1), &|_| false), None);
    for bad in [
        "n > 1 ? 2 : 3",
        "max(n, 2)",
        "n * 2.0",
        "m + 1",
        "n +",
        "(n",
    ] {
        assert_eq!(p(bad), None, "{bad}");
    }
}

#[test]
fn nesting_is_bounded() {
    let scope: HashMap<&str, Named> = [("n", Named::Specialized)].into();
    let p = |s: String| parse(&s, &tokenize(&s), &scope);
    assert!(p(format!("{}n{}", "(".repeat(20), ")".repeat(20))).is_some());
    assert_eq!(p(format!("{}n{}", "(".repeat(100), ")".repeat(100))), None);
    assert_eq!(p(format!("{}n", "-".repeat(100))), None);
    assert_eq!(p(format!("n{}", " + n".repeat(100))), None);
}

#[test]
fn derived_constants_and_sizes_are_rewritten_in_place() {
    let src = "const int K = 3;\nconst int N = n * K;\nconst float f = 1.0;\nshared float t[N + 1];\nshared float u[8];\nvoid main() { float l[n]; }\n";
    let mut text = src.to_string();
    let found = rewrite(&mut text, &tokenize(src), &[decl("n", "int")]);
    assert_eq!(text.len(), src.len());
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>().join(" "),
        "const int K = 3; int N = 0 ; const float f = 1.0; shared float t[ ]; shared float u[8]; void main() { float l[ ]; }"
    );
    assert_eq!(found.derived.len(), 1);
    assert_eq!(found.derived[0].name, "N");
    let placeholders: Vec<u32> = found.sized.iter().map(|s| s.placeholder).collect();
    assert_eq!(placeholders, [PLACEHOLDER, PLACEHOLDER + 1]);
    assert_eq!(found.inserts[0].text, format!("{PLACEHOLDER}u"));
    assert_eq!(&src[found.inserts[0].stands_for.clone().unwrap()], "N + 1");
}

#[test]
fn what_cannot_be_written_is_refused_with_length() {
    let src = "const float f = s * 2.0;\nconst int g = max(n, 2);\nshared float t[n];\nlayout(std430) buffer B { float d[n]; };\nstruct S { int v[n * 2]; };\nshared float u[4][n];\nshared float w[n][4];\nshared float[4] x[n];\nvoid main() { int k = t.length(); const int ok = n; float l[n]; x[0][n] = 1.0; do l[n] = 1.0; while (k > 0); }\n";
    let got: Vec<&str> = refused(src, &tokenize(src), &[decl("n", "int"), decl("s", "float")])
        .into_iter()
        .map(|(a, b)| &src[a..b])
        .collect();
    assert_eq!(got, ["s", "n", "n", "n", "n", "n", "n", "t.length"]);
}

#[test]
fn sizes_that_are_not_positive_at_the_defaults_are_found() {
    let src =
        "const int N = n - 4;\nshared float a[N];\nshared float b[n / z];\nshared float c[n];\n";
    let mut text = src.to_string();
    let decls = [decl("n", "int"), decl("z", "int")];
    let found = rewrite(&mut text, &tokenize(src), &decls);
    let bad: Vec<String> = bad_sizes(&found, &[("n", 4, false), ("z", 0, false)])
        .into_iter()
        .map(|(r, what)| format!("{}: {what}", &src[r]))
        .collect();
    assert_eq!(
        bad,
        [
            "N: this array size is 0 with the specialization constants' defaults",
            "n / z: this array size divides by zero or shifts past 31 bits with the specialization constants' defaults",
        ]
    );
}
