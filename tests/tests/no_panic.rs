//! No input makes the library panic: random and mutated shader text goes
//! through expand and compile in random modes and must come back as Ok or Err.

use ncnn_glsl_core::{compile, expand, CompileOptions, MemoryLoader, Options, SourceFile, Target};
use ncnn_glsl_testkit::tools::{spirv_val_auto, tool_available};
use proptest::prelude::*;

const BASE: &str = r#"#version 450
#define N 4
#define SCALE(x) ((x) * 2)
layout (constant_id = 0) const int size = 0;
layout (binding = 0) readonly buffer a_blob { sfpvec4 a_blob_data[]; };
layout (binding = 1) writeonly buffer b_blob { sfpvec4 b_blob_data[]; };
layout (binding = 2) buffer c_blob { sint8vec4 c_blob_data[]; };
layout (push_constant) uniform parameter { int size; } p;
shared lfpvec4 tmp[64];
#if NCNN_fp16_storage && defined(N)
int f(int x) { return SCALE(x) + N; }
#else
int f(int x) { return x; }
#endif
void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    if (i >= psc(size)) return;
    afpvec4 v = buffer_ld4(a_blob_data, i);
    tmp[gl_LocalInvocationID.x] = afp2lfpvec4(v);
    barrier();
    v = lfp2afpvec4(tmp[(gl_LocalInvocationID.x + 1) % 64]);
    ivec4 q = i8buffer_ld4(c_blob_data, i);
    for (int k = 0; k < N; k++) { v += afpvec4(q) * afp(f(k)); }
    buffer_st4(b_blob_data, i, v);
}
"#;

fn run(text: String, mode: Options) {
    let source = SourceFile {
        name: "fuzz.comp".into(),
        path: None,
        text,
    };
    let target = Target::for_mode(mode);
    if let Ok(expanded) = expand(
        source,
        &target,
        None,
        &MemoryLoader::default(),
        &Default::default(),
    ) {
        // A successful compile must give valid SPIR-V.
        static SPIRV_VAL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if let Ok(c) = compile(&expanded, &CompileOptions::default()) {
            if !*SPIRV_VAL.get_or_init(|| tool_available("spirv-val")) {
                return;
            }
            if let Err(e) = spirv_val_auto(&c.spirv) {
                panic!("a blob that spirv-val rejects:\n{e}\n{}", expanded.text());
            }
        }
    }
}

fn mode() -> impl Strategy<Value = Options> {
    (0u16..(1 << 13)).prop_map(|bits| {
        Options::from_flags(
            &ncnn_glsl_core::Flag::ALL
                .into_iter()
                .enumerate()
                .filter(|(i, _)| bits & (1 << i) != 0)
                .map(|(_, f)| f)
                .collect::<Vec<_>>(),
        )
    })
}

/// An edit of the base text: delete, duplicate or insert at a byte range.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Duplicate(usize, usize),
    Insert(usize, String),
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut t = text.to_string();
    for e in edits {
        let clamp = |i: usize, t: &str| {
            let mut i = i % (t.len() + 1);
            while !t.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        match e {
            Edit::Delete(a, n) => {
                let a = clamp(*a, &t);
                let b = clamp(a + n % 40, &t).max(a);
                t.replace_range(a..b, "");
            }
            Edit::Duplicate(a, n) => {
                let a = clamp(*a, &t);
                let b = clamp(a + n % 40, &t).max(a);
                let piece = t[a..b].to_string();
                t.insert_str(b, &piece);
            }
            Edit::Insert(a, s) => {
                let a = clamp(*a, &t);
                t.insert_str(a, s);
            }
        }
    }
    t
}

fn edit() -> impl Strategy<Value = Edit> {
    let snippet = prop_oneof![
        Just("#".to_string()),
        Just("#if".to_string()),
        Just("#endif\n".to_string()),
        Just("#define A A A\n".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just("\"".to_string()),
        Just("/*".to_string()),
        Just("\\\n".to_string()),
        Just("##".to_string()),
        Just("[2][3]".to_string()),
        Just("float16_t".to_string()),
        Just("atomicAdd(".to_string()),
        Just("buffer_st1(".to_string()),
        Just("0x7fffffffffffffff".to_string()),
        Just("\u{feff}é\u{0}".to_string()),
        "[ -~\n]{0,12}",
    ];
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, n)| Edit::Duplicate(a, n)),
        (any::<usize>(), snippet).prop_map(|(a, s)| Edit::Insert(a, s)),
    ]
}

fn run_build(text: String) {
    let source = SourceFile {
        name: "fuzz.comp".into(),
        path: None,
        text,
    };
    let _ = ncnn_glsl_core::variant::build::build(
        source,
        &MemoryLoader::default(),
        &Default::default(),
        &CompileOptions::default(),
    );
}

/// Declaration lines, good and bad, for the variant-set builder.
fn pragma() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("#pragma ncnn_glsl exclude bf16s\n".to_string()),
        Just("#pragma ncnn_glsl axis N 1 2\n".to_string()),
        Just("#pragma ncnn_glsl axis\n".to_string()),
        Just("#pragma ncnn_glsl device ncnn_subgroupSize 8 32\n".to_string()),
        Just("#pragma ncnn_glsl exclude fp16a fp16s\n".to_string()),
        "#pragma ncnn_glsl [ -~]{0,20}\n",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_shaders_never_panic(edits in prop::collection::vec(edit(), 1..6), mode in mode()) {
        run(apply(BASE, &edits), mode);
    }

    #[test]
    fn variant_sets_of_mutated_shaders_never_panic(
        edits in prop::collection::vec(edit(), 0..3),
        pragmas in prop::collection::vec(pragma(), 0..3),
    ) {
        let base = BASE.replacen("#version 450\n", &format!("#version 450\n{}", pragmas.concat()), 1);
        run_build(apply(&base, &edits));
    }

    #[test]
    fn random_text_never_panics(text in "#version 450\n[ -~\n]{0,300}", mode in mode()) {
        run(text, mode);
    }
}
