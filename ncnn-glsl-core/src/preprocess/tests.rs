//! Tests of the whole preprocessor through `preprocess`.

use std::path::PathBuf;

use super::*;
use crate::source::{MemoryLoader, SourceFile};

/// Preprocesses `main` (named `main.comp`) with an optional prelude and in-memory files.
fn run(main: &str, prelude: Option<&str>, files: &[(&str, &str)]) -> (SourceMap, Result<Preprocessed, Diagnostics>) {
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
        files: files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect(),
    };
    let r = preprocess(&mut sources, m, p, &loader, &[PathBuf::from("inc")]);
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
        Err(e) => e.0.iter().map(|d| match &d.span {
            Some(s) => format!("{}:{}:{}: {}", s.file, s.line, s.column, d.message),
            None => d.message.clone(),
        }).collect::<Vec<_>>().join("\n"),
    }
}

#[test]
fn smoke() {
    let p = ok("#version 450\n#define N 4\n#define F(a, b) ((a) * (b) + N)\n\nlayout(local_size_x = N) in;\n// c\n// d\nvoid main() {\n    int x = F(1,\n      2); int y = x;\n}\n");
    println!("{}", p.text);
    println!("{:?}", p.map);
}
