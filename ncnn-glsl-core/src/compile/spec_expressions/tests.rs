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
        "n * 2.0",
        "m + 1",
        "n +",
        "(n",
        "abs(n)",
        "f(n)",
        // Types GLSL refuses: an integer condition, integer logic, a
        // `bool` in arithmetic, branches of two classes, a `bool` result.
        "n ? 2 : 3",
        "n && 1 ? 2 : 3",
        "-(n < 1)",
        "(n < 1) + 1",
        "n < 1 ? n : n > 2",
        "n > 1",
        "!n",
        // `==` binds tighter than `&`: `n & (1 == 1)`.
        "n & 1 == 1",
        "true ? n : 1",
        "n > 1 ? 2",
        "n > 1 ? 2 : ",
        "min(n)",
        "min(n, 1, 2)",
        "max n, 1)",
        "int(n",
    ] {
        assert_eq!(p(bad), None, "{bad}");
    }
}

/// `s` parsed with the `int` specialization constant `n`, the `uint` one
/// `u` and the plain constant `k = 3`, evaluated at `n` and `u`.
fn value(s: &str, n: i32, u: u32) -> Option<u32> {
    let scope: HashMap<&str, Named> = [
        ("n", Named::Specialized),
        ("u", Named::Specialized),
        ("k", Named::Value(3, false)),
    ]
    .into();
    let e = parse(s, &tokenize(s), &scope).unwrap_or_else(|| panic!("`{s}` does not parse"));
    let get = |name: &str| match name {
        "n" => Some(n as u32),
        "u" => Some(u),
        _ => None,
    };
    eval(&e, &get, &|name| name == "u")
}

#[test]
fn each_comparison_and_logical_operator_evaluates_as_glsl() {
    let cases: &[(&str, i32, u32, i32)] = &[
        // Signed where both operands are `int`, unsigned where one is a
        // `uint` (the `int` converts: -1 is 0xffffffff).
        ("n < 2 ? 1 : 0", -1, 0, 1),
        ("n < 2u ? 1 : 0", -1, 0, 0),
        ("n <= 2 ? 1 : 0", 2, 0, 1),
        ("n <= 2 ? 1 : 0", 3, 0, 0),
        ("n > 2 ? 1 : 0", 3, 0, 1),
        ("n > -2 ? 1 : 0", -1, 0, 1),
        ("u > n ? 1 : 0", -1, 5, 0),
        ("n >= 3 ? 1 : 0", 3, 0, 1),
        ("n >= 3 ? 1 : 0", 2, 0, 0),
        ("u >= 4294967295u ? 1 : 0", 0, u32::MAX, 1),
        ("n == -1 ? 7 : 8", -1, 0, 7),
        ("n == k ? 7 : 8", 2, 0, 8),
        ("u != 3u ? 7 : 8", 0, 3, 8),
        ("u != 3u ? 7 : 8", 0, 4, 7),
        ("n > 0 && u > 0u ? 1 : 2", 1, 0, 2),
        ("n > 0 && u > 0u ? 1 : 2", 1, 1, 1),
        ("n > 0 || u > 0u ? 1 : 2", 0, 1, 1),
        ("n > 0 || u > 0u ? 1 : 2", 0, 0, 2),
        ("n > 0 ^^ u > 0u ? 1 : 2", 1, 1, 2),
        ("n > 0 ^^ u > 0u ? 1 : 2", 1, 0, 1),
        ("!(n > 0) ? 1 : 2", 0, 0, 1),
        ("!!(n > 0) ? 1 : 2", 0, 0, 2),
        ("(n > 0) == (u > 0u) ? 1 : 2", 0, 0, 1),
        ("(n > 0) != (u > 0u) ? 1 : 2", 0, 5, 1),
        // `&&` binds tighter than `^^`, which binds tighter than `||`.
        ("n > 0 || n > 1 && n < 0 ? 1 : 2", 1, 0, 1),
        ("n < 0 && n > 1 || n == 5 ? 1 : 2", 5, 0, 1),
        ("n == 1 || n == 2 ^^ n > 0 ? 1 : 2", 1, 0, 1),
        // min and max, by signedness.
        ("min(n, -2)", 1, 0, -2),
        ("max(n, -2)", 1, 0, 1),
        ("min(n, u)", -1, 3, 3),
        ("max(u, 4u) * 2u", 0, 1, 8),
        ("max(n, 2) * 2", 5, 0, 10),
        ("min(max(n, 0), 8)", 11, 0, 8),
        ("min(max(n, 0), 8)", -4, 0, 0),
        // Conversions.
        ("uint(n > 2) + 1u", 3, 0, 2),
        ("int(n < 2) * 5", 3, 0, 0),
        ("int(u) / 2", 0, u32::MAX - 1, -1),
        ("u / 2u", 0, u32::MAX - 1, i32::MAX),
        ("bool(n) ? 1 : 2", 0, 0, 2),
        ("bool(u) ? 1 : 2", 0, 9, 1),
        ("uint(n)", -1, 0, -1),
    ];
    for &(s, n, u, want) in cases {
        assert_eq!(value(s, n, u), Some(want as u32), "{s} at n = {n}, u = {u}");
    }
}

#[test]
fn selects_nest_and_bind_below_every_operator() {
    let max_tile = "2 * (n * 4 > u * 2 ? n * 4 : u * 2)";
    assert_eq!(value(max_tile, 8, 4), Some(64));
    assert_eq!(value(max_tile, 1, 4), Some(16));
    // Without parentheses the select takes everything before it as the
    // condition, and the multiplication stays in the first branch.
    assert_eq!(value("2 * n > u ? 2 * n : u", 3, 4), Some(6));
    assert_eq!(value("2 * n > u ? 2 * n : u", 1, 4), Some(4));
    assert_eq!(value("n + 1 < k + 2 ? n : k", 3, 0), Some(3));
    // Right-associative: `a ? b : (c ? d : e)`, and a select in the middle.
    let nested = "n > 10 ? 1 : n > 5 ? 2 : n > 0 ? 3 : 4";
    for (n, want) in [(11, 1), (6, 2), (1, 3), (0, 4), (-3, 4)] {
        assert_eq!(value(nested, n, 0), Some(want), "{nested} at {n}");
    }
    let middle = "n > 0 ? n > 5 ? 10 : 20 : 30";
    for (n, want) in [(6, 10), (3, 20), (0, 30)] {
        assert_eq!(value(middle, n, 0), Some(want), "{middle} at {n}");
    }
    // A select of a `uint` and an `int` branch is a `uint`; of two `int`s an `int`.
    let scope: HashMap<&str, Named> = [("n", Named::Specialized), ("u", Named::Specialized)].into();
    let uint = |s: &str| is_uint(&parse(s, &tokenize(s), &scope).unwrap(), &|x| x == "u");
    assert!(uint("n > 0 ? n : u"));
    assert!(uint("n > 0 ? 1 : 2u"));
    assert!(!uint("u > 0u ? n : 2"));
    assert!(uint("min(n, u)"));
    // GLSL evaluates one branch, `&&` and `||` only what decides: a
    // division by zero elsewhere leaves the value known.
    assert_eq!(value("n == 0 ? 1 : 64 / n", 0, 0), Some(1));
    assert_eq!(value("n == 0 ? 1 : 64 / n", 4, 0), Some(16));
    assert_eq!(value("n != 0 && 64 / n > 2 ? 1 : 2", 0, 0), Some(2));
    assert_eq!(value("n == 0 || 64 / n > 2 ? 1 : 2", 0, 0), Some(1));
    assert_eq!(value("n == 0 ? 64 / n : 1", 0, 0), None);
    assert_eq!(value("min(n, 64 / n)", 0, 0), None);
}

#[test]
fn nesting_is_bounded() {
    let scope: HashMap<&str, Named> = [("n", Named::Specialized)].into();
    let p = |s: String| parse(&s, &tokenize(&s), &scope);
    assert!(p(format!("{}n{}", "(".repeat(20), ")".repeat(20))).is_some());
    assert_eq!(p(format!("{}n{}", "(".repeat(100), ")".repeat(100))), None);
    assert_eq!(p(format!("{}n", "-".repeat(100))), None);
    assert_eq!(p(format!("n{}", " + n".repeat(100))), None);
    assert!(p(format!("{}1{}", "n > 0 ? ".repeat(10), " : 2".repeat(10))).is_some());
    assert_eq!(
        p(format!("{}1{}", "n > 0 ? ".repeat(100), " : 2".repeat(100))),
        None
    );
    assert_eq!(
        p(format!("{}n{}", "min(1, ".repeat(100), ")".repeat(100))),
        None
    );
    assert_eq!(p(format!("{}(n > 0) ? 1 : 2", "!".repeat(100))), None);
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
    let src = "const float f = s * 2.0;\nconst int g = abs(n);\nshared float t[n];\nlayout(std430) buffer B { float d[n]; };\nstruct S { int v[n * 2]; };\nshared float u[4][n];\nshared float w[n][4];\nshared float[4] x[n];\nvoid main() { int k = t.length(); const int ok = n; float l[n]; x[0][n] = 1.0; do l[n] = 1.0; while (k > 0); }\n";
    let got: Vec<&str> = refused(src, &tokenize(src), &[decl("n", "int"), decl("s", "float")])
        .into_iter()
        .map(|(a, b)| &src[a..b])
        .collect();
    assert_eq!(got, ["s", "n", "n", "n", "t.length"]);
    // A dimension of several is written (`write` drops the outer strides);
    // the `length()` of any level of such an array stays refused.
    let src = "shared float a[2][n > 4 ? n : 4];\nshared float[n] b[3];\nvoid main() { int i = a.length() + a[1].length() + b[0].length(); float c = 1.0 > 0.5 ? float(n) : 0.0; }\n";
    let got: Vec<&str> = refused(src, &tokenize(src), &[decl("n", "int")])
        .into_iter()
        .map(|(a, b)| &src[a..b])
        .collect();
    assert_eq!(got, ["a.length", "a[1].length", "b[0].length"]);
    // Refused where naga cannot lay the array out at the placeholder: two
    // specialized dimensions, others and element past 169 bytes (16
    // `uvec4`s), an element of unknown size, a dimension not constant.
    let src = "const int K = 4;\nshared float two[n][n + 1];\nshared uvec4 big[16][n];\nshared vec3 fits[K][n];\nshared vec3[n] fits_too[2];\nstruct S { float f; };\nshared S s[2][n];\nvoid main() { int q; float v[q][n]; }\n";
    let got: Vec<&str> = refused(src, &tokenize(src), &[decl("n", "int")])
        .into_iter()
        .map(|(a, b)| &src[a..b])
        .collect();
    assert_eq!(got, ["n", "n", "n", "n", "n"]);
    assert_eq!(element_bytes("vec3"), Some(16));
    assert_eq!(element_bytes("f16vec2"), Some(4));
    assert_eq!(element_bytes("mat4"), None);
    assert_eq!(MAX_OTHER_BYTES, 169);
    // Still refused: a float comparison, `true`, a `bool` constant.
    let src =
        "const int f = n > 2.5 ? 1 : 2;\nconst int t = true ? n : 1;\nconst bool c = n > 1;\n";
    let got: Vec<&str> = refused(src, &tokenize(src), &[decl("n", "int")])
        .into_iter()
        .map(|(a, b)| &src[a..b])
        .collect();
    assert_eq!(got, ["n", "n", "n"]);
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
