//! Tests of the whole preprocessor through `preprocess`.

use std::path::PathBuf;

use super::*;
use crate::source::{Location, MemoryLoader, SourceFile};

/// Preprocesses `main` (named `main.comp`) with an optional prelude and in-memory files.
fn run(
    main: &str,
    prelude: Option<&str>,
    files: &[(&str, &str)],
) -> (SourceMap, Result<Preprocessed, Diagnostics>) {
    let mut sources = SourceMap::new();
    let m = sources.add(SourceFile {
        name: "main.comp".into(),
        path: Some(PathBuf::from("main.comp")),
        text: main.into(),
    });
    let p = prelude.map(|t| {
        sources.add(SourceFile {
            name: "<prelude>".into(),
            path: None,
            text: t.into(),
        })
    });
    let loader = MemoryLoader {
        files: files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect(),
    };
    let r = preprocess(&mut sources, m, p, &[], &loader, &[PathBuf::from("inc")]);
    (sources, r)
}

fn ok(main: &str) -> Preprocessed {
    match run(main, None, &[]).1 {
        Ok(p) => p,
        Err(e) => panic!("unexpected errors:\n{e}"),
    }
}

fn err(main: &str) -> String {
    err_with(main, None, &[])
}

fn err_with(main: &str, prelude: Option<&str>, files: &[(&str, &str)]) -> String {
    match run(main, prelude, files).1 {
        Ok(p) => panic!("expected an error, got:\n{}", p.text),
        Err(e) => {
            e.0.iter()
                .map(|d| match &d.span {
                    Some(s) => format!("{}:{}:{}: {}", s.file, s.line, s.column, d.message),
                    None => d.message.clone(),
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
    }
}

/// The output text without the `#version` line, lines trimmed, blank lines dropped.
fn body(p: &Preprocessed) -> Vec<String> {
    p.text
        .lines()
        .skip(1)
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// `body` of `ok(text)` where `text` gets a `#version 450` line first.
fn pp(text: &str) -> Vec<String> {
    body(&ok(&format!("#version 450\n{text}")))
}

/// Output line and column (1-based) of the first occurrence of `needle`.
fn find(p: &Preprocessed, needle: &str) -> (u32, u32) {
    for (i, l) in p.text.lines().enumerate() {
        if let Some(b) = l.find(needle) {
            return (i as u32 + 1, l[..b].chars().count() as u32 + 1);
        }
    }
    panic!("`{needle}` not in\n{}", p.text)
}

fn loc(file: u32, line: u32, column: u32) -> Location {
    Location {
        file: FileId(file),
        line,
        column,
    }
}

#[test]
fn object_and_function_like_macros() {
    assert_eq!(pp("#define N 4\nint a = N;"), ["int a = 4;"]);
    assert_eq!(
        pp("#define F(a, b) a + b\nint a = F(1, 2);"),
        ["int a = 1 + 2;"]
    );
    assert_eq!(pp("#define E() 7\nint a = E();"), ["int a = 7;"]);
    assert_eq!(pp("#define E\nint a E;"), ["int a  ;"]);
    // Not followed by `(`: not an invocation.
    assert_eq!(pp("#define F(x) x\nint F;"), ["int F;"]);
    // A space before `(` in the definition makes an object-like macro.
    assert_eq!(pp("#define G (x)\nG(1)"), ["(x)(1)"]);
    assert_eq!(
        pp("#define V(f, ...) f(__VA_ARGS__)\nV(g, 1, 2) V(h) V(k,)"),
        ["g(1, 2) h() k()"]
    );
    assert_eq!(
        pp("#define W(...) [__VA_ARGS__]\nW() W(a,(b,c))"),
        ["[] [a,(b,c)]"]
    );
    assert_eq!(pp("#define N 1\n#undef N\nN"), ["N"]);
    assert_eq!(pp("#define F(x) (x)\nF((1, 2))"), ["((1, 2))"]);
}

#[test]
fn rescanning_and_recursion() {
    assert_eq!(pp("#define A B\n#define B 3\nA"), ["3"]);
    assert_eq!(pp("#define A A A\nA"), ["A A"]);
    assert_eq!(pp("#define f(x) f(f(x))\nf(1)"), ["f(f(1))"]);
    assert_eq!(pp("#define a a b\n#define b a\na"), ["a a"]);
    // Arguments are expanded before substitution.
    assert_eq!(pp("#define N 2\n#define SQ(x) x * x\nSQ(N)"), ["2 * 2"]);
    // A function-like macro at the end of an expansion takes its `(` from the text after it.
    assert_eq!(pp("#define f(x) [x]\n#define g f\ng(1)"), ["[1]"]);
    // Nested uses of the same macro in arguments expand.
    assert_eq!(
        pp("#define M(a, b) ((a) > (b) ? (a) : (b))\nM(M(1, 2), 3)").len(),
        1
    );
    assert_eq!(pp("#define I(x) x\nI(I(I(5)))"), ["5"]);
    // Tokens from different places do not fuse.
    assert_eq!(pp("#define NEG(x) -x\nNEG(-1)"), ["- -1"]);
    assert_eq!(pp("#define F(v) v.x\nF(a)"), ["a.x"]);
}

#[test]
fn c_standard_example() {
    // C11 6.10.3.5, example 3 (spacing aside).
    let src = "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n#define z z[0]\n\
#define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n#define p() int\n#define q(x) x\n\
#define r(x,y) x ## y\n#define str(x) # x\n\
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\n\
g(x+(3,4)-w) | h 5) & m\n(f)^m(m);\n\
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };\n\
char c[2][6] = { str(hello), str() };\n";
    let got: String = pp(src)
        .concat()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let want = "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);\
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);\
int i[] = { 1, 23, 4, 5, };\
char c[2][6] = { \"hello\", \"\" };";
    let want: String = want.chars().filter(|c| !c.is_whitespace()).collect();
    assert_eq!(got, want);
    // Example 4: `##` made by pasting is not an operator.
    let src = "#define hash_hash # ## #\n#define mkstr(a) # a\n#define in_between(a) mkstr(a)\n\
#define join(c, d) in_between(c hash_hash d)\nchar p[] = join(x, y);\n";
    assert_eq!(pp(src), ["char p[] = \"x ## y\";"]);
}

#[test]
fn stringize_and_paste() {
    assert_eq!(pp("#define S(x) #x\nS(a  +  b)"), ["\"a + b\""]);
    assert_eq!(pp("#define S(x) #x\nS(\"q\\n\")"), ["\"\\\"q\\\\n\\\"\""]);
    assert_eq!(
        pp("#define C(a, b) a ## b\nC(x, y) C(1, 2) C(, z) C(w, ) C(,)"),
        ["xy 12 z w"]
    );
    assert_eq!(pp("#define C(a) a ## _t\n#define x_t 9\nC(x)"), ["9"]);
    assert_eq!(pp("#define C(a, b) a ## b\n#define N 3\nC(N, 1)"), ["N1"]);
    assert_eq!(pp("#define X x ## 1\nX"), ["x1"]);
    assert_eq!(pp("#define L(op) a op ## = b\nL(<<)"), ["a <<= b"]);
}

#[test]
fn builtin_macros() {
    assert_eq!(pp("\nint l = __LINE__;"), ["int l = 3;"]);
    assert_eq!(pp("int f = __FILE__ + __VERSION__;"), ["int f = 0 + 450;"]);
    assert_eq!(pp("#define L __LINE__\n\n\nL"), ["5"]);
    assert_eq!(
        pp("#if __VERSION__ >= 450 && defined(__LINE__)\nyes\n#endif"),
        ["yes"]
    );
}

#[test]
fn conditionals() {
    let t = "#if A\na\n#elif B\nb\n#else\nc\n#endif";
    assert_eq!(pp(&format!("#define A 1\n{t}")), ["a"]);
    assert_eq!(pp(&format!("#define B 1\n{t}")), ["b"]);
    assert_eq!(pp(t), ["c"]);
    assert_eq!(pp("#ifdef X\nx\n#endif\n#ifndef X\nnx\n#endif"), ["nx"]);
    assert_eq!(
        pp("#define X\n#if 0\n#if 1\nno\n#else\nno\n#endif\n#elif defined X\nyes\n#else\nno\n#endif"),
        ["yes"]
    );
    // Skipped groups ignore unknown directives, bad expressions and strings.
    assert_eq!(
        pp("#if 0\n#foo\n#if 1/0\n#endif\n\"str\n#elif 1\nok\n#endif"),
        ["ok"]
    );
    // No error for division by zero in an #elif that is not evaluated.
    assert_eq!(pp("#if 1\nx\n#elif 1/0\n#endif"), ["x"]);
    assert_eq!(
        pp("#define F(x) (x + 1)\n#if F(2) == 3 && UNDEFINED == 0\nok\n#endif"),
        ["ok"]
    );
    assert_eq!(
        pp("#define D defined(Q)\n#define Q\n#if D\nok\n#endif"),
        ["ok"]
    );
    assert_eq!(
        pp("#if 0x10 == 16u && 010 == 8L && -1 < 0 && (3 ? 4 : 1 / 0) == 4\nok\n#endif"),
        ["ok"]
    );
}

#[test]
fn version_extension_pragma_pass_through_unexpanded() {
    let p = ok("// hello\n#version 450 core\n#define GL_EXT_x y\n#extension GL_EXT_x : require\n#pragma optimize(off)\nvoid main() {}\n");
    assert_eq!(
        p.text,
        "#version 450 core\n#extension GL_EXT_x : require\n#pragma optimize(off)\nvoid main() {}\n"
    );
    // `#line` is accepted and does not move the map.
    let p = ok("#version 450\n#line 100\nx\n");
    assert_eq!(p.map.locate(2, 1), Some(loc(0, 3, 1)));
}

#[test]
fn comments_continuations_and_multiline_calls() {
    assert_eq!(pp("a /* b\nc */ d // e\nf"), ["a", "d", "f"]);
    assert_eq!(
        pp("#define L(a, b) a+b\nL(1,\n  2) + x\ny"),
        ["1+2 + x", "y"]
    );
    assert_eq!(pp("#define LONG 1 + \\\n 2\nLONG"), ["1 + 2"]);
    assert_eq!(pp("#define F(x) x\nF\n(3)"), ["3"]);
    assert_eq!(pp("#def\\\nine N 5\nN"), ["5"]);
    // A block comment may hide the line end of a directive.
    assert_eq!(pp("#define N /*\n*/ 6\nN"), ["6"]);
}

#[test]
fn crlf_line_endings() {
    let p = ok("#version 450\r\n#define N 2\r\nint a = N;\r\n\r\nint b;\r\n");
    assert_eq!(p.text, "#version 450\nint a = 2;\n\nint b;\n");
    assert_eq!(p.map.locate(4, 5), Some(loc(0, 5, 5)));
}

#[test]
fn output_keeps_lines_and_collapses_blanks() {
    let p = ok("#version 450\n#define A 1\n#define B 2\nint a;\n\n\n\n// only a comment\nint b;\n#if 0\nx\n\n\ny\n#endif\nint c;\n");
    assert_eq!(p.text, "#version 450\nint a;\n\nint b;\nint c;\n");
    assert_eq!(p.map.lines.len(), p.text.split('\n').count());
}

#[test]
fn column_map_of_verbatim_text() {
    let p = ok("#version 450\n\tint  xy = 1; /* c */ float z;\n");
    assert_eq!(
        p.text.lines().nth(1),
        Some(" int  xy = 1;         float z;")
    );
    let (l, c) = find(&p, "xy");
    assert_eq!((l, c), (2, 7));
    assert_eq!(p.map.locate(l, c), Some(loc(0, 2, 7)));
    let (l, c) = find(&p, "float");
    assert_eq!(p.map.locate(l, c + 2), Some(loc(0, 2, 25)));
    assert_eq!(p.map.locate(1, 9), Some(loc(0, 1, 9)));
    assert_eq!(p.map.locate(99, 1), None);
    assert_eq!(p.map.locate(0, 1), None);
}

#[test]
fn column_map_of_a_macro_use() {
    let p = ok("#version 450\n#define MUL(a, b) ((a) * (b))\nfloat r =   MUL(x,\n y) + q;\n");
    assert_eq!(p.text.lines().nth(1), Some("float r =   ((x) * (y)) + q;"));
    let (l, c) = find(&p, "((x)");
    // The macro's own text maps to its use; the arguments to where they are
    // written (`x` on the call's line, `y` on the next).
    let (x, y) = (loc(0, 3, 17), loc(0, 4, 2));
    let mul = loc(0, 3, 13);
    let want = [mul, mul, x, mul, mul, mul, mul, mul, y, mul, mul];
    for (k, want) in want.into_iter().enumerate() {
        let k = k as u32;
        assert_eq!(p.map.locate(l, c + k), Some(want), "column {}", c + k);
    }
    // Text after the call maps to where it is, on the call's last line.
    let (l, c) = find(&p, "q;");
    assert_eq!(p.map.locate(l, c), Some(loc(0, 4, 7)));
    assert_eq!(p.map.locate(l, 1), Some(loc(0, 3, 1)));
    // A macro inside a macro still maps to the user's outer use.
    let p = ok("#version 450\n#define IN 77\n#define OUT (IN + 1)\n  x = OUT;\n");
    let (l, c) = find(&p, "77");
    assert_eq!(p.map.locate(l, c), Some(loc(0, 4, 7)));
}

#[test]
fn prelude_goes_after_version() {
    let (sources, r) = run(
        "// header\n#version 450\n#ifdef P\nint p = P;\n#endif\n",
        Some("#extension GL_EXT_a : require\n#define P 7\nfloat helper();\n"),
        &[],
    );
    let p = r.unwrap();
    assert_eq!(
        p.text,
        "#version 450\n#extension GL_EXT_a : require\nfloat helper();\nint p = 7;\n"
    );
    assert_eq!(sources.get(FileId(1)).name, "<prelude>");
    assert_eq!(p.map.locate(3, 7), Some(loc(1, 3, 7)));
    assert_eq!(p.map.locate(4, 5), Some(loc(0, 4, 5)));
}

#[test]
fn includes() {
    let files = [
        ("dir/a.glsl", "#include \"b.glsl\"\nint a;\n"),
        ("dir/b.glsl", "#ifndef B\n#define B\nint b;\n#endif\n"),
        ("inc/c.glsl", "int c = B_VAL;\n"),
    ];
    let main = "#version 450\n#define B_VAL 3\n#include \"dir/a.glsl\"\n#include \"dir/b.glsl\"\n#include <c.glsl>\nint m;\n";
    let (sources, r) = run(main, None, &files);
    let p = r.unwrap();
    assert_eq!(p.text, "#version 450\nint b;\nint a;\nint c = 3;\nint m;\n");
    assert_eq!(
        p.included,
        [
            PathBuf::from("dir/a.glsl"),
            PathBuf::from("dir/b.glsl"),
            PathBuf::from("inc/c.glsl")
        ]
    );
    // b.glsl was read twice but is one source.
    assert_eq!(sources.files().count(), 4);
    let b = p.map.locate(2, 5).unwrap();
    assert_eq!(sources.get(b.file).name, "dir/b.glsl");
    assert_eq!((b.line, b.column), (3, 5));
    // A macro naming the file.
    let (_, r) = run(
        "#version 450\n#define H \"h.glsl\"\n#include H\n",
        None,
        &[("h.glsl", "h")],
    );
    assert_eq!(body(&r.unwrap()), ["h"]);
}

#[test]
fn error_in_an_included_file_points_there() {
    let files = [("a.glsl", "int a;\n\n#if 1 +\n#endif\n")];
    assert_eq!(
        err_with("#version 450\n#include \"a.glsl\"\n", None, &files),
        "a.glsl:3:7: expected a value at the end of the `#if` expression"
    );
    let files = [("a.glsl", "// x\n#define F(a) a\nint y = F(1, 2);\n")];
    assert_eq!(
        err_with("#version 450\n#include \"a.glsl\"\n", None, &files),
        "a.glsl:3:9: macro `F` expects 1 argument, got 2"
    );
}

#[test]
fn include_errors() {
    let files = [
        ("a.comp", "#include \"b.glsl\"\n"),
        ("b.glsl", "#include \"a.comp\"\n"),
    ];
    let mut sources = SourceMap::new();
    let m = sources.add(SourceFile {
        name: "a.comp".into(),
        path: Some("a.comp".into()),
        text: "#version 450\n#include \"b.glsl\"\n".into(),
    });
    let loader = MemoryLoader {
        files: files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect(),
    };
    let e = preprocess(&mut sources, m, None, &[], &loader, &[]).unwrap_err();
    assert_eq!(
        e.0[0].message,
        "`#include` cycle: a.comp -> b.glsl -> a.comp"
    );
    let s = e.0[0].span.as_ref().unwrap();
    assert_eq!((s.file.as_str(), s.line, s.column), ("b.glsl", 1, 10));
    assert_eq!(
        err_with(
            "#version 450\n#include \"s.glsl\"\n",
            None,
            &[("s.glsl", "#include \"s.glsl\"\n")]
        ),
        "s.glsl:1:10: `#include` cycle: s.glsl -> s.glsl"
    );
    assert_eq!(
        err("#version 450\n#include \"nope.glsl\"\n"),
        "main.comp:2:10: cannot find `nope.glsl`"
    );
    assert_eq!(
        err("#version 450\n#include nope\n"),
        "main.comp:2:2: `#include` expects \"file\" or <file>"
    );
    assert_eq!(
        err("#version 450\n#include \"\"\n"),
        "main.comp:2:10: empty file name in `#include`"
    );
}

#[test]
fn include_paths_compare_after_normalizing() {
    assert_eq!(
        directives::normalize(std::path::Path::new("a/./b/../c.glsl")),
        PathBuf::from("a/c.glsl")
    );
    assert_eq!(
        directives::normalize(std::path::Path::new("../x")),
        PathBuf::from("../x")
    );
}

#[test]
fn include_depth_is_limited() {
    // Without paths a cycle cannot be seen; the depth limit ends it.
    struct Forever;
    impl Loader for Forever {
        fn load(
            &self,
            _: &str,
            _: Option<&std::path::Path>,
            _: &[PathBuf],
        ) -> Result<SourceFile, String> {
            Ok(SourceFile {
                name: "<x>".into(),
                path: None,
                text: "#include \"x\"\n".into(),
            })
        }
    }
    let mut sources = SourceMap::new();
    let m = sources.add(SourceFile {
        name: "m".into(),
        path: None,
        text: "#version 450\n#include \"x\"\n".into(),
    });
    let e = preprocess(&mut sources, m, None, &[], &Forever, &[]).unwrap_err();
    assert!(e.0[0].message.contains("nested more than 32 levels"), "{e}");
    // The deepest nesting of everything at once still fits a test thread's stack.
    struct Deep;
    impl Loader for Deep {
        fn load(
            &self,
            _: &str,
            _: Option<&std::path::Path>,
            _: &[PathBuf],
        ) -> Result<SourceFile, String> {
            let text = format!(
                "#define f(x) x\n#if {}1{}\n#endif\nint v = {}1{};\n#include \"x\"\n",
                "(".repeat(120),
                ")".repeat(120),
                "f(".repeat(31),
                ")".repeat(31)
            );
            Ok(SourceFile {
                name: "<x>".into(),
                path: None,
                text,
            })
        }
    }
    let mut sources = SourceMap::new();
    let m = sources.add(SourceFile {
        name: "m".into(),
        path: None,
        text: "#version 450\n#include \"x\"\n".into(),
    });
    let e = preprocess(&mut sources, m, None, &[], &Deep, &[]).unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
    assert!(e.0[0].message.contains("nested more than 32 levels"), "{e}");
}

#[test]
fn inclusions_are_counted_and_each_file_is_read_once() {
    // h0 .. h29, each including the next twice: 2^30 inclusions without
    // guards (a build that expands them all runs for days), 60 with them.
    struct Fan {
        guarded: bool,
        loads: std::cell::Cell<usize>,
    }
    impl Loader for Fan {
        fn load(
            &self,
            name: &str,
            _: Option<&std::path::Path>,
            _: &[PathBuf],
        ) -> Result<SourceFile, String> {
            self.loads.set(self.loads.get() + 1);
            let i: usize = name[1..].parse().unwrap();
            let next = if i < 29 {
                format!("#include \"h{0}\"\n#include \"h{0}\"\n", i + 1)
            } else {
                String::new()
            };
            let text = if self.guarded {
                format!("#ifndef H{i}\n#define H{i}\n{next}#endif\n")
            } else {
                next
            };
            Ok(SourceFile {
                name: name.into(),
                path: Some(PathBuf::from(format!("/inc/{name}"))),
                text,
            })
        }
    }
    // A big guarded header included from many files: the text lexed is
    // bounded too (64 MiB), each inclusion counted.
    struct Big;
    impl Loader for Big {
        fn load(
            &self,
            name: &str,
            _: Option<&std::path::Path>,
            _: &[PathBuf],
        ) -> Result<SourceFile, String> {
            let text = if name == "big.h" {
                format!(
                    "#ifndef BIG\n#define BIG\n{}#endif\n",
                    "int x;\n".repeat(1 << 20)
                )
            } else {
                "#include \"big.h\"\n".to_string()
            };
            Ok(SourceFile {
                name: name.into(),
                path: Some(PathBuf::from(format!("/inc/{name}"))),
                text,
            })
        }
    }
    let mut sources = SourceMap::new();
    let includes: String = (0..20).map(|i| format!("#include \"f{i}.h\"\n")).collect();
    let m = sources.add(SourceFile {
        name: "m".into(),
        path: Some(PathBuf::from("/inc/m")),
        text: format!("#version 450\n{includes}"),
    });
    let e = preprocess(&mut sources, m, None, &[], &Big, &[]).unwrap_err();
    assert!(
        e.0[0]
            .message
            .contains("more than 64 MiB of included text in one shader"),
        "{e}"
    );
    for guarded in [true, false] {
        let fan = Fan {
            guarded,
            loads: std::cell::Cell::new(0),
        };
        let mut sources = SourceMap::new();
        let m = sources.add(SourceFile {
            name: "m".into(),
            path: Some(PathBuf::from("/inc/m")),
            text: "#version 450\n#include \"h0\"\n".into(),
        });
        let t = std::time::Instant::now();
        let r = preprocess(&mut sources, m, None, &[], &fan, &[]);
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
        assert_eq!(
            fan.loads.get(),
            30,
            "each file read once (guarded: {guarded})"
        );
        match r {
            Ok(_) => assert!(guarded),
            Err(e) => {
                assert!(!guarded, "{e}");
                assert!(
                    e.0[0]
                        .message
                        .contains("more than 1024 `#include`s in one shader"),
                    "{e}"
                );
            }
        }
    }
}

#[test]
fn includes_read_only_files_under_the_shader_and_the_include_directories() {
    use crate::source::FsLoader;
    let root = std::env::temp_dir().join(format!("ncnn-glsl-confine-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (shaders, inc, outside) = (root.join("shaders"), root.join("inc"), root.join("secret"));
    for d in [&shaders, &inc, &outside, &shaders.join("sub")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(outside.join("key.h"), "SECRET_TOKEN\n").unwrap();
    std::fs::write(inc.join("lib.h"), "int lib;\n").unwrap();
    std::fs::write(shaders.join("sub/near.h"), "int near;\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.join("key.h"), shaders.join("link.h")).unwrap();
    let run = |include: &str, dirs: &[PathBuf]| {
        let mut sources = SourceMap::new();
        let path = shaders.join("main.comp");
        let m = sources.add(SourceFile {
            name: path.display().to_string(),
            path: Some(path),
            text: format!("#version 450\n#include {include}\n"),
        });
        preprocess(&mut sources, m, None, &[], &FsLoader, dirs).map(|_| ())
    };
    // Under the shader's directory, or an include directory: read; a header
    // in a subdirectory may include one beside the shader.
    assert!(run("\"sub/near.h\"", &[]).is_ok());
    std::fs::write(shaders.join("common.h"), "int common;\n").unwrap();
    std::fs::write(shaders.join("sub/up.h"), "#include \"../common.h\"\n").unwrap();
    assert!(run("\"sub/up.h\"", &[]).is_ok());
    assert!(run("<lib.h>", std::slice::from_ref(&inc)).is_ok());
    // `..`, an absolute path, a symbolic link out, `..` past an include
    // directory: each refused with the path as written, none of the file
    // shown, and the same refusal whether the file outside exists or not (a
    // shader must not learn what the build machine holds).
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.join("nope.h"), shaders.join("dangling.h")).unwrap();
    let mut escapes = vec![
        (
            "\"../secret/key.h\"".to_string(),
            "\"../secret/nope.h\"".to_string(),
        ),
        (
            format!("\"{}\"", outside.join("key.h").display()),
            format!("\"{}\"", outside.join("nope.h").display()),
        ),
        (
            "<../secret/key.h>".to_string(),
            "<../secret/nope.h>".to_string(),
        ),
        ("\"../secret\"".to_string(), "\"../nowhere\"".to_string()),
    ];
    if cfg!(unix) {
        escapes.push(("\"link.h\"".into(), "\"dangling.h\"".into()));
    }
    let message = |include: &str| {
        let e = run(include, std::slice::from_ref(&inc)).unwrap_err();
        let rendered = e.to_string();
        assert!(!rendered.contains("SECRET_TOKEN"), "{include}: {rendered}");
        let as_written = &include[1..include.len() - 1];
        assert!(
            e.0[0].message.starts_with(&format!(
                "`{as_written}` is outside the including file's directory and the include \
                 directories ("
            )),
            "{include}: {rendered}"
        );
        e.0[0].message.replace(as_written, "NAME")
    };
    for (exists, missing) in &escapes {
        assert_eq!(message(exists), message(missing), "{exists} / {missing}");
    }
    // Inside the sandbox, a missing file or one that is not a regular file
    // (a directory) is looked past, as before.
    let e = run("\"sub/nope.h\"", &[]).unwrap_err().to_string();
    assert!(e.contains("cannot find `sub/nope.h`"), "{e}");
    let e = run("\"sub\"", &[]).unwrap_err().to_string();
    assert!(e.contains("cannot find `sub`"), "{e}");
    // A header reached through a link from outside confines to where it
    // really is: its own include beside the link is outside.
    #[cfg(unix)]
    {
        let elsewhere = root.join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(shaders.join("real.h"), "#include \"x.h\"\n").unwrap();
        std::fs::write(elsewhere.join("x.h"), "SECRET_TOKEN\n").unwrap();
        std::os::unix::fs::symlink(shaders.join("real.h"), elsewhere.join("h.glsl")).unwrap();
        let e = run("\"../elsewhere/h.glsl\"", std::slice::from_ref(&inc))
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside the including file's directory"), "{e}");
        assert!(!e.contains("SECRET_TOKEN"), "{e}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_declaration_in_an_included_file_is_an_error() {
    let loader = MemoryLoader {
        files: vec![(
            PathBuf::from("h.glsl"),
            "#pragma ncnn_glsl axis X 0 1\nint x;\n".into(),
        )],
    };
    let mut sources = SourceMap::new();
    let m = sources.add(SourceFile {
        name: "main.comp".into(),
        path: None,
        text: "#version 450\n#include \"h.glsl\"\n".into(),
    });
    let e = preprocess(&mut sources, m, None, &[], &loader, &[]).unwrap_err();
    assert!(
        e.0[0].message.contains(
            "`#pragma ncnn_glsl` in an included file is not read: a variant set is declared in \
             the shader's own file (`main.comp`)"
        ),
        "{e}"
    );
}

#[test]
fn directive_errors() {
    assert_eq!(
        err("#version 450\n#error bad  thing here\n"),
        "main.comp:2:1: #error: bad thing here"
    );
    assert_eq!(
        err("#version 450\n#frobnicate\n"),
        "main.comp:2:2: unknown directive `#frobnicate`"
    );
    assert_eq!(
        err("#version 450\n  #if 1\nx\n"),
        "main.comp:2:4: unterminated `#if` (no matching `#endif`)"
    );
    assert_eq!(
        err("#version 450\n#ifdef A\n#if 0\n#endif\n"),
        "main.comp:2:2: unterminated `#ifdef` (no matching `#endif`)"
    );
    assert_eq!(
        err("#version 450\n#endif\n"),
        "main.comp:2:2: `#endif` without `#if`"
    );
    assert_eq!(
        err("#version 450\n#else\n"),
        "main.comp:2:2: `#else` without `#if`"
    );
    assert_eq!(
        err("#version 450\n#if 1\n#else\n#elif 1\n#endif\n"),
        "main.comp:4:2: `#elif` after `#else`"
    );
    assert_eq!(
        err("#version 450\n#if 1\n#else\n#else\n#endif\n"),
        "main.comp:4:2: `#else` after `#else`"
    );
    assert_eq!(
        err("#version 450\n#if\n#endif\n"),
        "main.comp:2:2: `#if` with no expression"
    );
    assert_eq!(
        err("#version 450\n#if 1 / (2 - 2)\n#endif\n"),
        "main.comp:2:7: division by zero in `#if` expression"
    );
    assert_eq!(
        err("#version 450\n#if 1 2\n#endif\n"),
        "main.comp:2:7: unexpected `2` in `#if` expression"
    );
    assert_eq!(
        err("#version 450\n#if defined\n#endif\n"),
        "main.comp:2:5: `defined` needs a macro name"
    );
    assert_eq!(err("#version 450\n#if 1.5\n#endif\n"), "main.comp:2:5: floating-point number `1.5` in `#if` expression (only integers are allowed)");
    assert_eq!(
        err("#version 450\n#ifdef\n#endif\n"),
        "main.comp:2:2: `#ifdef` needs a macro name"
    );
    assert_eq!(
        err("#version 450\n#define\n"),
        "main.comp:2:2: `#define` needs a macro name"
    );
    assert_eq!(
        err("#version 450\n#define 3 x\n"),
        "main.comp:2:9: macro name must be an identifier, not `3`"
    );
    assert_eq!(
        err("#version 450\n#define defined 1\n"),
        "main.comp:2:9: `defined` cannot be defined as a macro"
    );
    assert_eq!(
        err("#version 450\n#define F(a, a) a\n"),
        "main.comp:2:14: duplicate macro parameter `a`"
    );
    assert_eq!(
        err("#version 450\n#define F(a b) a\n"),
        "main.comp:2:13: expected `,` or `)` in the parameter list of macro `F`, found `b`"
    );
    assert_eq!(
        err("#version 450\n#define F(a\n"),
        "main.comp:2:9: missing `)` in the parameter list of macro `F`"
    );
    assert_eq!(
        err("#version 450\n#define F(a) #b\n"),
        "main.comp:2:14: `#` must be followed by a macro parameter"
    );
    assert_eq!(
        err("#version 450\n#define F(a) ## a\n"),
        "main.comp:2:14: `##` cannot be at either end of a macro body"
    );
    assert_eq!(
        err("#version 450\n# 3\n"),
        "main.comp:2:3: `3` is not a directive name"
    );
    assert_eq!(
        err("#version 450\n#undef\n"),
        "main.comp:2:2: `#undef` needs a macro name"
    );
    // Several errors are reported together.
    assert_eq!(
        err("#version 450\n#error one\n#error two\n"),
        "main.comp:2:1: #error: one\nmain.comp:3:1: #error: two"
    );
}

#[test]
fn macro_call_errors() {
    assert_eq!(
        err("#version 450\n#define F(a, b) a\n  F(1, 2, 3);\n"),
        "main.comp:3:3: macro `F` expects 2 arguments, got 3"
    );
    assert_eq!(
        err("#version 450\n#define F(a, b) a\nF(1);\n"),
        "main.comp:3:1: macro `F` expects 2 arguments, got 1"
    );
    assert_eq!(
        err("#version 450\n#define F() a\nF(1);\n"),
        "main.comp:3:1: macro `F` expects 0 arguments, got 1"
    );
    assert_eq!(
        err("#version 450\n#define V(a, b, ...) a\nV(1);\n"),
        "main.comp:3:1: macro `V` expects at least 2 arguments, got 1"
    );
    assert_eq!(
        err("#version 450\n#define F(a) a\nx F(1,\n(2)\n"),
        "main.comp:3:3: unterminated argument list for macro `F`"
    );
    assert_eq!(
        err("#version 450\n#define F(a) a\nF(\n#define X\n)\n"),
        "main.comp:3:1: unterminated argument list for macro `F`"
    );
    // Inside another macro's expansion the error points at the user's use.
    assert_eq!(
        err("#version 450\n#define F(a) a\n#define G F(1, 2)\n  int x = G;\n"),
        "main.comp:4:11: macro `F` expects 1 argument, got 2"
    );
    assert_eq!(
        err("#version 450\n#define C(a, b) a ## b\nC(+, /)\n"),
        "main.comp:3:1: pasting `+` and `/` in macro `C` does not give a valid token"
    );
}

#[test]
fn shader_must_start_with_version() {
    for text in [
        "void main() {}\n#version 450\n",
        "#define X\n#version 450\n",
        "",
    ] {
        assert_eq!(
            err(text),
            "main.comp:1:1: the shader must start with `#version`",
            "{text:?}"
        );
    }
    assert!(ok("\u{feff}/* a\n b */\n\n   #  version 450\n")
        .text
        .starts_with("   #  version 450"));
    assert_eq!(
        ok("#version 450\n#version 460\n").text,
        "#version 450\n#version 460\n"
    );
}

#[test]
fn tested_names() {
    let (sources, r) = run(
        "#version 450\n#define W ncnn_subgroupSize\n#if W > 32 || defined(A) && P\n#elif Q\n#endif\n#ifdef R\n#elif S\n#endif\n#ifndef T\n#endif\n#if 0\n#ifdef U\n#endif\n#endif\n",
        Some("#if defined V\n#endif\n"),
        &[],
    );
    let p = r.unwrap();
    let got: Vec<(String, u32, u32, u32)> = p
        .tested
        .iter()
        .map(|t| (t.name.clone(), t.at.file.0, t.at.line, t.at.column))
        .collect();
    let want: Vec<(String, u32, u32, u32)> = [
        ("V", 1, 1, 13),
        ("W", 0, 3, 5),
        ("A", 0, 3, 23),
        ("P", 0, 3, 29),
        ("ncnn_subgroupSize", 0, 3, 5),
        ("Q", 0, 4, 7),
        ("R", 0, 6, 8),
        ("S", 0, 7, 7),
        ("T", 0, 9, 9),
    ]
    .iter()
    .map(|(n, f, l, c)| (n.to_string(), *f, *l, *c))
    .collect();
    assert_eq!(got, want);
    let _ = sources;
}

#[test]
fn adversarial_inputs_end_in_errors_not_hangs() {
    // Exponential blowup: 2^40 tokens.
    let mut chain = String::from("#version 450\n");
    for k in 0..40 {
        chain.push_str(&format!("#define m{k} m{} m{}\n", k + 1, k + 1));
    }
    chain.push_str("m0\n");
    assert!(err(&chain).contains("too much text"));
    // Blowup through arguments used many times, and through stringizing.
    let many = format!(
        "#version 450\n#define F(x) {}\nF(F(F(F(F(F(F(F(1))))))))\n",
        "x ".repeat(10)
    );
    assert!(err(&many).contains("too much text"));
    let strs = format!(
        "#version 450\n#define S(x) {}\n#define T(x) S(x)\n#define F(x) {}\nT(F(F(F(F(F(1))))))\n",
        "#x ".repeat(100),
        "x ".repeat(10)
    );
    assert!(err(&strs).contains("too much text"));
    // Deep nesting of arguments.
    let deep = format!(
        "#version 450\n#define f(x) x\n{}1{}\n",
        "f(".repeat(500),
        ")".repeat(500)
    );
    assert!(err(&deep).contains("nested more than"));
    // Long chains of contexts.
    let mut ctx = String::from("#version 450\n");
    for k in 0..300 {
        ctx.push_str(&format!("#define c{k} c{}\n", k + 1));
    }
    ctx.push_str("c0\n");
    assert!(err(&ctx).contains("levels deep"));
    let _ = run(
        "#version 450\n#define f(x) f(f(x)) f(x)\nf(f(f(f(1))))\n",
        None,
        &[],
    );
    for text in [
        "#version 450\n#",
        "#version 450\n#if\n",
        "#version 450\n#if (((((\n#endif",
        "#version 450\n#if ) ( ? : ~ ! defined ( ) 0x 0b 1e\n#endif",
        "#version 450\n#define F(x\nF(",
        "#version 450\n#define F(...) __VA_ARGS__ ## __VA_ARGS__\nF() F(,) F(a,b)",
        "#version 450\n#define F(x) #x ## #x\nF(1)",
        "#version 450\n((((((((((((((\n)))))",
        "#version 450\n\u{0}\u{7f}\u{202e}é漢字🎉 \"unterminated\n'x'",
        "#version 450\r\n#define A \\\r\n 1\r\nA\r",
        "#version 450\n/* never ends",
        "#version 450\n#include",
        "#version 450\n#include <",
        "#version 450\n#include \"",
        "#version 450\n#if 9223372036854775807 + 1 < 0 && -9223372036854775807 - 1 / -1\n#endif",
        "#version 450\n#if (-9223372036854775807 - 1) % -1 == 0\n#endif",
    ] {
        let _ = run(text, None, &[]);
    }
}

#[test]
fn fast_enough_for_a_realistic_shader() {
    let mut prelude = String::new();
    for k in 0..300 {
        match k % 3 {
            0 => prelude.push_str(&format!("#define afp{k} float\n")),
            1 => prelude.push_str(&format!("#define buffer_ld{k}(buf, i) buf[i]\n")),
            _ => prelude.push_str(&format!("#define ncnn_macro{k} (afp{} * 2)\n", k - 2)),
        }
    }
    let mut shader = String::from("#version 450\n");
    for k in 0..300 {
        match k % 4 {
            0 => shader.push_str(&format!(
                "    afp{} v{k} = buffer_ld{}(bottom_blob, gx + {k});\n",
                (k / 3) * 3,
                (k / 3) * 3 + 1
            )),
            1 => shader.push_str(&format!("#if ncnn_macro{} > 1\n", (k / 3) * 3 + 2)),
            2 => shader.push_str("    v = max(v, afp0(0.f)); // comment\n"),
            _ => shader.push_str("#endif\n"),
        }
    }
    let start = std::time::Instant::now();
    let (_, r) = run(&shader, Some(&prelude), &[]);
    let took = start.elapsed();
    assert!(r.is_ok(), "{}", r.unwrap_err());
    // 5 ms is the goal; the bound is loose so a busy machine does not fail the test.
    assert!(took.as_millis() < 50, "took {took:?}");
    eprintln!("600 lines: {took:?}");
}

#[test]
fn ncnn_style_shader() {
    let prelude = "#define NCNN_fp16_storage 1\n#define NCNN_fp16_arithmetic 0\n#define ncnn_subgroupSize 32\n\
#if NCNN_fp16_storage\n#define sfpvec4 uvec2\n#define afpvec4 vec4\n\
#define buffer_ld4(buf,i) vec4(unpackHalf2x16(buf[i].x),unpackHalf2x16(buf[i].y))\n#endif\n\
#define psc(x) (x==0?p.x:x)\n";
    let shader = "#version 450\n\
layout (constant_id = 0) const int w = 0;\n\
layout (binding = 0) readonly buffer a { sfpvec4 a_data[]; };\n\
layout (push_constant) uniform parameter { int w; } p;\n\
void main() {\n\
    int gx = int(gl_GlobalInvocationID.x);\n\
    if (gx >= psc(w)) return;\n\
    afpvec4 v = buffer_ld4(a_data, gx);\n\
#if ncnn_subgroupSize == 32 && !NCNN_fp16_arithmetic\n\
    v = v * 2.0;\n\
#endif\n\
}\n";
    let (_, r) = run(shader, Some(prelude), &[]);
    let p = r.unwrap();
    assert_eq!(
        p.text,
        "#version 450\n\
layout (constant_id = 0) const int w = 0;\n\
layout (binding = 0) readonly buffer a { uvec2 a_data[]; };\n\
layout (push_constant) uniform parameter { int w; } p;\n\
void main() {\n\
    int gx = int(gl_GlobalInvocationID.x);\n\
    if (gx >= (w==0?p.w:w)) return;\n\
    vec4 v = vec4(unpackHalf2x16(a_data[gx].x),unpackHalf2x16(a_data[gx].y));\n\
    v = v * 2.0;\n\
}\n"
    );
    let names: Vec<&str> = p.tested.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "NCNN_fp16_storage",
            "ncnn_subgroupSize",
            "NCNN_fp16_arithmetic"
        ]
    );
    // The expansion of `psc(w)` maps to the `psc` the user wrote (the `\` line
    // continuations above drop indentation, so `psc` is at column 11).
    let (l, c) = find(&p, "(w==0");
    assert_eq!(p.map.locate(l, c + 3), Some(loc(0, 7, 11)));
    let (l, c) = find(&p, "return");
    assert_eq!(p.map.locate(l, c), Some(loc(0, 7, 19)));
}

/// For `perf record`: the realistic shader many times over.
#[test]
#[ignore]
fn profile_loop() {
    for _ in 0..200 {
        fast_enough_for_a_realistic_shader();
    }
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    const SHADER: &str = "#version 450\n#extension GL_EXT_x : require\n#define N 4\n#define F(a, b) ((a) * (b) + N)\n#define S(x) #x\n#define C(a, b) a ## b\n#if N > 2 && defined(F)\nlayout(local_size_x = N) in;\n#elif 0\n#error no\n#else\nint z;\n#endif\n/* c */ void main() {\n    int x = F(1,\n      2); // d\n    int C(y, 1) = __LINE__;\n}\n";

    fn check(text: &str) {
        let files = [
            ("a.glsl", text),
            ("inc/b.glsl", "#include \"a.glsl\"\nint b;\n"),
        ];
        let (_, r) = run(
            text,
            Some("#define P 1\n#extension GL_EXT_y : enable\n"),
            &files,
        );
        if let Ok(p) = r {
            assert_eq!(p.map.lines.len(), p.text.split('\n').count());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

        #[test]
        fn random_text_never_panics(s in "\\PC{0,200}") {
            check(&s);
            check(&format!("#version 450\n{s}"));
        }

        #[test]
        fn directive_soup_never_panics(parts in proptest::collection::vec(prop_oneof![
            Just("#define "), Just("#if "), Just("#elif "), Just("#else\n"), Just("#endif\n"), Just("#include "),
            Just("#undef "), Just("defined("), Just("F("), Just("A"), Just("("), Just(")"), Just(","), Just("##"),
            Just("#"), Just("\n"), Just("\\\n"), Just("/*"), Just("*/"), Just("//"), Just("\"a.glsl\""),
            Just("<b.glsl>"), Just("1"), Just("/ 0"), Just("__VA_ARGS__"), Just("..."), Just(" "), Just("\r\n"),
            Just("#define A A A\n"), Just("#define F(x) F(F(x))\n"), Just("é"),
        ], 0..60)) {
            let s: String = parts.concat();
            check(&format!("#version 450\n{s}"));
        }

        #[test]
        fn mutated_shader_never_panics(cuts in proptest::collection::vec((0usize..400, 0usize..8, "\\PC{0,4}"), 1..6)) {
            let mut s = SHADER.to_string();
            for (at, del, ins) in cuts {
                let mut at = at.min(s.len());
                while !s.is_char_boundary(at) { at -= 1; }
                let mut end = (at + del).min(s.len());
                while !s.is_char_boundary(end) { end -= 1; }
                s.replace_range(at..end.max(at), &ins);
            }
            check(&s);
        }
    }

    /// Long random run for manual use: `cargo test ... soak -- --ignored`.
    #[test]
    #[ignore]
    fn soak() {
        const PARTS: [&str; 40] = [
            "#define ",
            "#if ",
            "#elif ",
            "#else\n",
            "#endif\n",
            "#include ",
            "#undef ",
            "defined(",
            "F(",
            "G",
            "A",
            "(",
            ")",
            ",",
            "##",
            "#",
            "\n",
            "\\\n",
            "/*",
            "*/",
            "//",
            "\"a.glsl\"",
            "<b.glsl>",
            "1",
            "/ 0",
            "__VA_ARGS__",
            "...",
            " ",
            "\r\n",
            "#define A A A\n",
            "#define F(x) F(F(x)) G x\n",
            "#define G(...) #__VA_ARGS__ A ## __VA_ARGS__\n",
            "é",
            "?",
            ":",
            "__LINE__",
            "#error x\n",
            "#version 450\n",
            "#ifdef A\n",
            "-",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..100_000 {
            let n = rnd(40);
            let mut s = String::from("#version 450\n");
            for _ in 0..n {
                s.push_str(PARTS[rnd(PARTS.len())]);
            }
            check(&s);
        }
    }

    #[test]
    fn the_unmutated_shader_works() {
        let p = ok(SHADER);
        assert_eq!(
            body(&p),
            [
                "#extension GL_EXT_x : require",
                "layout(local_size_x = 4) in;",
                "void main() {",
                "int x = ((1) * (2) + 4);",
                "int y1 = 17;",
                "}"
            ]
        );
    }
}

/// Preprocesses `main` with `defines` (each a `<define>` file holding its spelling).
fn run_defines(
    main: &str,
    prelude: &str,
    defines: &[&str],
) -> (SourceMap, Result<Preprocessed, Diagnostics>) {
    let mut sources = SourceMap::new();
    let m = sources.add(SourceFile {
        name: "main.comp".into(),
        path: Some(PathBuf::from("main.comp")),
        text: main.into(),
    });
    let p = sources.add(SourceFile {
        name: "<prelude>".into(),
        path: None,
        text: prelude.into(),
    });
    let ds: Vec<FileId> = defines
        .iter()
        .map(|d| {
            sources.add(SourceFile {
                name: crate::define::DEFINE_FILE_NAME.into(),
                path: None,
                text: d.to_string(),
            })
        })
        .collect();
    let r = preprocess(&mut sources, m, Some(p), &ds, &MemoryLoader::default(), &[]);
    (sources, r)
}

#[test]
fn defines_follow_the_prelude_and_precede_the_text() {
    let main =
        "#version 450\nint a = FOO;\nint b = BAR;\n#ifdef E\nint e = E 0;\n#endif\nint p = P;\n";
    // The prelude does not see them (its `FOO` stays a name), the text does.
    let prelude = "#define P FOO\nint q = FOO;\n";
    let (sources, r) = run_defines(main, prelude, &["FOO", "BAR=(P+ 1)", "E="]);
    let p = r.unwrap();
    assert_eq!(
        p.text,
        "#version 450\nint q = FOO;\nint a = 1;\nint b = (1+ 1);\nint e =   0;\nint p = 1;\n"
    );
    // Their text maps to the use, as any macro's.
    let (l, c) = find(&p, "(1+");
    assert_eq!(p.map.locate(l, c), Some(loc(0, 3, 9)));
    assert_eq!(sources.get(FileId(2)).name, "<define>");
}

#[test]
fn an_error_in_a_define_shows_the_define_as_given() {
    // `Define::parse` refuses these; given to `preprocess` directly they are
    // still errors, at their column in the define's own text.
    let (_, r) = run_defines("#version 450\n", "", &["X=a ##"]);
    let e = r.unwrap_err();
    assert_eq!(
        e.to_string(),
        "<define>:1:5: error: `##` cannot be at either end of a macro body\n  |\n1 | X=a ##\n  |     ^^"
    );
    let (_, r) = run_defines("#version 450\n", "", &["1X=2", "Y=/* open"]);
    let e = r.unwrap_err();
    let got: Vec<String> =
        e.0.iter()
            .map(|d| {
                let s = d.span.as_ref().unwrap();
                format!("{}:{}:{}: {}", s.file, s.line, s.column, d.message)
            })
            .collect();
    assert_eq!(
        got,
        [
            "<define>:1:1: `1X` is not a macro name",
            "<define>:1:3: unterminated comment"
        ]
    );
}

#[test]
fn a_preprocessor_error_inside_a_macro_argument_points_at_it() {
    // `2` is the argument's token the expression cannot take.
    assert_eq!(
        err("#version 450\n#define F(a) a\n#if F(1 2)\n#endif\n"),
        "main.comp:3:9: unexpected `2` in `#if` expression"
    );
    // A macro of the argument: at its use inside the argument.
    let p = ok("#version 450\n#define IDX k\n#define F(a) [a]\nx = F(IDX);\n");
    let (l, c) = find(&p, "k]");
    assert_eq!(p.map.locate(l, c), Some(loc(0, 4, 7)));
    let (l, c) = find(&p, "[k");
    assert_eq!(p.map.locate(l, c), Some(loc(0, 4, 5)));
}
