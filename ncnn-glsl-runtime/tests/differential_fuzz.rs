//! The standing differential fuzzer (`ncnn_glsl_testkit::fuzz`): random
//! shaders of the subset this project accepts, compiled by us and by
//! glslang, run on the device between poisoned guards, for a short budget
//! (`NCNN_FUZZ_SECONDS`, default 40 s); any difference fails, with its seed
//! and minimized program. `NCNN_FUZZ_SEED=N` replays one program;
//! `NCNN_FUZZ_OUT=FILE` writes the result file of a long run
//! (docs/fuzzing.md).

use ncnn_glsl_testkit::fuzz::{fuzz, Settings};

#[test]
fn generated_shaders_agree_with_glslang() {
    let settings = Settings::from_env();
    let Some(report) = fuzz(&settings) else {
        return;
    };
    let summary = report.summary();
    eprintln!("{summary}");
    if let Some(path) = &settings.out {
        // The variables that set the run, as they were given.
        let mut vars: Vec<String> = std::env::vars()
            .filter(|(k, _)| k.starts_with("NCNN_FUZZ_") || k == "NCNN_SEED")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        vars.sort();
        let command = format!(
            "{} cargo test -p ncnn-glsl-runtime --test differential_fuzz -- --nocapture",
            vars.join(" ")
        );
        std::fs::write(path, report.result_file(&command))
            .unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    }
    assert!(report.programs > 0, "no program ran");
    assert!(
        report.found.is_empty() && report.glslang_refused.is_empty() && report.fixed.is_empty(),
        "{summary}"
    );
}
