//! docs/naga.md and the compiler agree on the passes: the stage map in the
//! module doc of `ncnn-glsl-core/src/compile/mod.rs` and the table "Kinds of
//! handling, by stage" of docs/naga.md name every module of
//! `ncnn-glsl-core/src/compile/` either as a pass, in the stages that run it
//! (text, IR, word), or as no pass; each pass also handles a row of the
//! page's table of naga's gaps. (Here, not in the core: docs/ is outside the
//! core's package.)

use std::collections::{BTreeMap, BTreeSet};

use ncnn_glsl_testkit::shaders::workspace_root;

const COMPILE: &str = "ncnn-glsl-core/src/compile";
const MAP: &str = "ncnn-glsl-core/src/compile/mod.rs";
const DOC: &str = "docs/naga.md";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Text,
    Ir,
    Word,
    /// Modules that are no pass (stages, helpers, tables).
    NotAPass,
    /// Named in passing, outside the stages (the reflection step).
    Other,
}

impl Stage {
    fn name(self) -> &'static str {
        match self {
            Stage::Text => "text",
            Stage::Ir => "IR",
            Stage::Word => "word",
            Stage::NotAPass => "no pass",
            Stage::Other => "other",
        }
    }
}

type Stages = BTreeMap<Stage, BTreeSet<String>>;

fn read(file: &str) -> String {
    std::fs::read_to_string(workspace_root().join(file))
        .unwrap_or_else(|e| panic!("cannot read {file}: {e}"))
}

/// The Rust file names `text` mentions (`NAME.rs`, or the last part of a
/// path ending in one).
fn rs_names(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/')))
        .filter_map(|w| w.trim_end_matches('.').strip_suffix(".rs"))
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .filter(|n| !n.is_empty())
        .map(|n| format!("{n}.rs"))
        .collect()
}

/// The modules of the compile folder: its `.rs` files but `mod.rs` (the map
/// itself) and `tests.rs`.
fn compile_modules() -> BTreeSet<String> {
    let dir = workspace_root().join(COMPILE);
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rs") && n != "mod.rs" && n != "tests.rs")
        .collect()
}

/// The files each section of the stage map names: the ```text block of the
/// module doc of `mod.rs`, whose sections start with `-> text stage`,
/// `-> IR stage`, `-> word stage`, `-> reflection` and `not passes:`.
fn stage_map(mod_rs: &str) -> Stages {
    let doc: Vec<&str> = mod_rs
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim())
        .collect();
    let start = doc
        .iter()
        .position(|l| *l == "```text")
        .unwrap_or_else(|| panic!("{MAP}: no ```text block (the stage map) in the module doc"));
    let len = doc[start + 1..]
        .iter()
        .position(|l| *l == "```")
        .unwrap_or_else(|| panic!("{MAP}: the stage map's ```text block does not end"));
    let headers = [
        ("-> text stage", Stage::Text),
        ("-> IR stage", Stage::Ir),
        ("-> word stage", Stage::Word),
        ("-> reflection", Stage::Other),
        ("not passes:", Stage::NotAPass),
    ];
    let mut stage = Stage::Other;
    let mut out = Stages::new();
    for line in &doc[start + 1..start + 1 + len] {
        if let Some((_, s)) = headers.iter().find(|(h, _)| line.starts_with(h)) {
            stage = *s;
        }
        out.entry(stage).or_default().extend(rs_names(line));
    }
    out
}

/// The rows of the first table after the heading that starts with
/// `heading`, as cells (the header and separator rows left out).
fn table_rows(md: &str, heading: &str) -> Vec<Vec<String>> {
    let rows: Vec<Vec<String>> = md
        .lines()
        .skip_while(|l| !l.starts_with(heading))
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            // `| a | b |` splits into "", "a", "b", "".
            cells[1..cells.len() - 1]
                .iter()
                .map(|c| c.to_string())
                .collect()
        })
        .collect();
    assert!(
        !rows.is_empty(),
        "{DOC}: no table after a heading starting with `{heading}`"
    );
    rows
}

/// The files the table of kinds names per stage: its first column is the
/// stage (`text`, `IR`, `word`, or `none` for the modules that are no
/// pass), its last the files.
fn doc_table(md: &str) -> Stages {
    let mut out = Stages::new();
    for cells in table_rows(md, "## Kinds of handling") {
        let stage = match cells[0].as_str() {
            "text" => Stage::Text,
            "IR" => Stage::Ir,
            "word" => Stage::Word,
            "none" => Stage::NotAPass,
            other => panic!(
                "{DOC}, table of kinds: stage `{other}` is none of `text`, `IR`, `word`, `none`"
            ),
        };
        out.entry(stage)
            .or_default()
            .extend(rs_names(cells.last().unwrap()));
    }
    out
}

/// Where `map` and `doc` disagree, each problem a line naming the pass and
/// the file it is missing from.
fn disagreements(
    modules: &BTreeSet<String>,
    map: &Stages,
    doc: &Stages,
    gaps: &BTreeSet<String>,
) -> Vec<String> {
    let empty = BTreeSet::new();
    let get = |s: &Stages, st: Stage| s.get(&st).unwrap_or(&empty).clone();
    let map_where = format!("the stage map of {MAP}");
    let doc_where = format!("the table of kinds of {DOC}");
    let mut problems = Vec::new();

    // Every name is a module of the folder.
    for (stages, file) in [(map, &map_where), (doc, &doc_where)] {
        for name in stages.values().flatten() {
            if !modules.contains(name) && name != "mod.rs" {
                problems.push(format!(
                    "`{name}`, named in {file}, is no module of {COMPILE}/"
                ));
            }
        }
    }
    for name in gaps {
        if !modules.contains(name) && name != "mod.rs" {
            problems.push(format!(
                "`{name}`, named in the table of gaps of {DOC}, is no module of {COMPILE}/"
            ));
        }
    }

    // The same modules are no pass in both.
    let (not_map, not_doc) = (get(map, Stage::NotAPass), get(doc, Stage::NotAPass));
    for m in not_map.difference(&not_doc) {
        problems.push(format!(
            "`{m}` is no pass in {map_where} but is missing from the `none` row of {doc_where}"
        ));
    }
    for m in not_doc.difference(&not_map) {
        problems.push(format!(
            "`{m}` is no pass in {doc_where} but is missing from the `not passes:` list of {map_where}"
        ));
    }

    // Each pass is in the same stages in both (a stage may name a module
    // that is no pass in passing, as the word stage does the writer's options).
    let passes: BTreeSet<String> = modules
        .iter()
        .filter(|m| !not_map.contains(*m) && !not_doc.contains(*m))
        .cloned()
        .collect();
    for stage in [Stage::Text, Stage::Ir, Stage::Word] {
        let in_map: BTreeSet<String> = get(map, stage).intersection(&passes).cloned().collect();
        let in_doc: BTreeSet<String> = get(doc, stage).intersection(&passes).cloned().collect();
        for m in in_map.difference(&in_doc) {
            problems.push(format!(
                "pass `{m}` is in the {} stage of {map_where} but missing from the {} stage of {doc_where}",
                stage.name(),
                stage.name()
            ));
        }
        for m in in_doc.difference(&in_map) {
            problems.push(format!(
                "pass `{m}` is in the {} stage of {doc_where} but missing from the {} stage of {map_where}",
                stage.name(),
                stage.name()
            ));
        }
    }

    // Every module is placed somewhere in both; every pass handles a gap.
    for m in modules {
        for (stages, file, list) in [
            (map, &map_where, "`not passes:`"),
            (doc, &doc_where, "`none` row"),
        ] {
            let placed = [Stage::Text, Stage::Ir, Stage::Word, Stage::NotAPass]
                .iter()
                .any(|s| get(stages, *s).contains(m));
            if !placed {
                problems.push(format!(
                    "`{m}` ({COMPILE}/) is missing from {file}: name it in the stages that run it, or in its {list} if it is no pass"
                ));
            }
        }
        if passes.contains(m) && !gaps.contains(m) {
            problems.push(format!(
                "pass `{m}` is missing from the table of gaps of {DOC} (its `file` column)"
            ));
        }
    }
    problems
}

#[test]
fn the_stage_map_and_docs_naga_md_name_the_same_passes_in_the_same_stages() {
    let modules = compile_modules();
    let map = stage_map(&read(MAP));
    let md = read(DOC);
    let doc = doc_table(&md);
    let gaps: BTreeSet<String> = table_rows(&md, "## Gaps")
        .iter()
        .flat_map(|cells| rs_names(cells.last().unwrap()))
        .collect();
    // The parses found something: a changed layout fails here, not silently.
    assert!(modules.len() > 20, "{COMPILE}/ lists {modules:?}");
    for (stages, file) in [(&map, MAP), (&doc, DOC)] {
        for stage in [Stage::Text, Stage::Ir, Stage::Word, Stage::NotAPass] {
            let n = stages.get(&stage).map_or(0, BTreeSet::len);
            assert!(
                n >= 3,
                "{file}: the {} stage names {n} files: did its layout change?",
                stage.name()
            );
        }
    }
    assert!(gaps.len() > 20, "{DOC}: the table of gaps names {gaps:?}");

    let problems = disagreements(&modules, &map, &doc, &gaps);
    assert!(
        problems.is_empty(),
        "the compiler's stage map and docs/naga.md disagree:\n  {}",
        problems.join("\n  ")
    );
}

/// The check itself: a pass dropped from one side is named, with the file
/// it is missing from.
#[test]
fn a_pass_missing_from_one_side_is_named_with_the_file() {
    let modules = compile_modules();
    let map = stage_map(&read(MAP));
    let md = read(DOC);
    let gaps: BTreeSet<String> = table_rows(&md, "## Gaps")
        .iter()
        .flat_map(|cells| rs_names(cells.last().unwrap()))
        .collect();
    let doc = doc_table(&md.replacen("`barrier_scope.rs`, ", "", 1));
    let problems = disagreements(&modules, &map, &doc, &gaps);
    assert!(
        problems.iter().any(|p| p
            == &format!("pass `barrier_scope.rs` is in the IR stage of the stage map of {MAP} but missing from the IR stage of the table of kinds of {DOC}")),
        "{problems:#?}"
    );
    let mut map = map;
    map.get_mut(&Stage::Word).unwrap().remove("spirv_limits.rs");
    let problems = disagreements(&modules, &map, &doc_table(&md), &gaps);
    assert!(
        problems
            .iter()
            .any(|p| p
                .starts_with("pass `spirv_limits.rs` is in the word stage of the table of kinds")),
        "{problems:#?}"
    );
}
