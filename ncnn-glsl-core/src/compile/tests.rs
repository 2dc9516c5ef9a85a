//! Tests of the compile stage; each naga gap of docs/naga.md that
//! a shader can hit is pinned here.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::diag::Diagnostics;
use crate::source::SourceFile;
use crate::target::Target;

pub(super) fn expanded(text: &str, mode: &str) -> Expanded {
    Expanded::verbatim(
        SourceFile {
            name: "t.comp".into(),
            path: None,
            text: text.into(),
        },
        Target::for_mode(mode.parse().unwrap()),
    )
}

pub(super) fn ok_mode(text: &str, mode: &str) -> Compiled {
    match compile(&expanded(text, mode), &CompileOptions::default()) {
        Ok(c) => c,
        Err(e) => panic!("compile failed:\n{e}"),
    }
}

pub(super) fn ok(text: &str) -> Compiled {
    ok_mode(text, "fp32")
}

pub(super) fn errs(text: &str, mode: &str) -> Diagnostics {
    match compile(&expanded(text, mode), &CompileOptions::default()) {
        Ok(_) => panic!("compiled, but an error was expected:\n{text}"),
        Err(e) => e,
    }
}

/// Runs a SPIRV-Tools program on `words`. `None` when the tool is missing
/// (then the test passes unless `CI` is set, where tools must be installed).
fn tool(name: &str, args: &[&str], words: &[u32]) -> Option<(bool, String)> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "ncnn-glsl-core-{}-{}.spv",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(name).args(args).arg(&path).output();
    let _ = std::fs::remove_file(&path);
    match out {
        Ok(o) => Some((
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr),
        )),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "`{name}` is not installed but CI is set"
            );
            eprintln!("`{name}` is not installed; check skipped");
            None
        }
    }
}

/// Asserts that spirv-val accepts `words` for Vulkan 1.1.
pub(super) fn assert_valid(words: &[u32]) {
    // Debian 12's spirv-val cannot read cooperative matrices.
    if super::coopmat::tools::declares_coopmat(words) {
        return super::coopmat::tools::assert_valid(words);
    }
    if let Some((ok, out)) = tool("spirv-val", &["--target-env", "vulkan1.1"], words) {
        let dis = disassemble(words).unwrap_or_default();
        assert!(ok, "spirv-val rejects the output:\n{out}\n{dis}");
    }
}

/// The disassembly, or `None` when spirv-dis is missing.
pub(super) fn disassemble(words: &[u32]) -> Option<String> {
    tool("spirv-dis", &["--raw-id"], words).map(|(ok, out)| {
        assert!(ok, "spirv-dis failed: {out}");
        out
    })
}

const COPY: &str = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) writeonly buffer B { float b[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    b[i] = a[i] * 2.0;
}
";

fn span(d: &crate::diag::Diagnostic) -> (u32, u32) {
    let s = d.span.as_ref().unwrap_or_else(|| panic!("no span: {d}"));
    (s.line, s.column)
}

/// The same text compiles to the same words every time: compare-and-swap
/// on both `int` and `uint` makes two predeclared result types, whose order
/// (and so the module's ids) must not follow a hash set's.
#[test]
fn compiles_are_reproducible() {
    let text = "#version 450
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { int a[]; };
layout (binding = 1) buffer b_blob { uint b[]; };
void main()
{
    int i = int(gl_GlobalInvocationID.x);
    atomicCompSwap(a[i], 0, 1);
    atomicCompSwap(b[i], 0u, 1u);
}
";
    let first = ok(text).spirv;
    for _ in 0..16 {
        assert_eq!(ok(text).spirv, first);
    }
}

#[test]
fn writeonly_is_accepted_and_reported() {
    let c = ok(COPY);
    let b = &c.reflection.bindings;
    assert_eq!(
        (b[0].access, b[1].access),
        (Access::ReadOnly, Access::WriteOnly)
    );
    assert_eq!((b[0].name.as_ref(), b[1].name.as_ref()), ("A", "B"));
    assert_valid(&c.spirv);
    // Like glslang, the buffer is decorated NonReadable (and the readonly one NonWritable).
    if let Some(d) = disassemble(&c.spirv) {
        assert_eq!(d.matches("NonReadable").count(), 1, "{d}");
        assert_eq!(d.matches("NonWritable").count(), 1, "{d}");
    }
}

#[test]
fn local_size_id_becomes_a_literal_and_its_id_is_kept() {
    let src = COPY.replace(
        "layout(local_size_x = 64) in;",
        "layout(local_size_x_id = 233, local_size_y = 4, local_size_z_id = 235) in;",
    );
    let c = ok(&src);
    assert_eq!(c.reflection.local_size, [1, 4, 1]);
    assert_eq!(
        c.reflection.local_size_spec_ids,
        [Some(233), None, Some(235)]
    );
    if let Some(d) = disassemble(&c.spirv) {
        assert!(d.contains("LocalSize 1 4 1"), "{d}");
    }
    assert_valid(&c.spirv);
}

#[test]
fn barrier_is_glslangs_workgroup_barrier() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer A { float a[]; };
shared float tmp[64];
void main() {
    uint i = gl_LocalInvocationID.x;
    tmp[i] = a[i];
    barrier();
    if (i > 0u) { barrier(); }
    a[i] = tmp[63u - i];
}
";
    let c = ok(src);
    assert_valid(&c.spirv);
    let Some(d) = disassemble(&c.spirv) else {
        return;
    };
    // Scope Workgroup = 2, semantics AcquireRelease|WorkgroupMemory = 0x8|0x100 = 264.
    assert_eq!(control_barriers(&d), vec![vec!["2", "2", "264"]; 2], "{d}");
}

/// The operands of each `OpControlBarrier` of a disassembly, as the values
/// of the constants they name.
pub(super) fn control_barriers(d: &str) -> Vec<Vec<&str>> {
    let consts: std::collections::HashMap<&str, &str> = d
        .lines()
        .filter_map(|l| {
            let (id, rest) = l.trim().split_once(" = OpConstant %")?;
            Some((id, rest.split_whitespace().nth(1)?))
        })
        .collect();
    d.lines()
        .filter_map(|l| l.trim().strip_prefix("OpControlBarrier "))
        .map(|ops| ops.split_whitespace().map(|id| consts[id]).collect())
        .collect()
}

/// One line of code for each rule of the table, and the construct it must be reported at.
const REFUSED: &[(&str, &str)] = &[
    ("    coopMatTransposeNV(m, n);", "coopMatTransposeNV"),
    ("    uint x = atomicLoad(a[0]);", "atomicLoad"),
    ("    uvec4 m = gl_SubgroupEqMask;", "gl_SubgroupEqMask"),
    ("    uint r = subgroupRotate(a[0], 1u);", "subgroupRotate"),
    ("    uint8_t x = uint8_t(1);", "uint8_t"),
    ("    i16vec4 v;", "i16vec4"),
    ("    uint64_t big;", "uint64_t"),
    ("    uint p = pack32(1u);", "pack32"),
    ("    bfloat16_t x;", "bfloat16_t"),
    ("    debugPrintfEXT(1);", "debugPrintfEXT"),
    ("    vec2 h = unpackFloat2x16(1u);", "unpackFloat2x16"),
    ("    coherent float x;", "coherent"),
    ("    uint x = 1; x = \"abc\";", "\"abc\""),
    ("    float m[2][3][4], n;", "m[2][3]"),
    ("    int n = bitCount(5u);", "bitCount"),
    ("    uint c; uint s = uaddCarry(1u, 2u, c);", "uaddCarry"),
    ("    float r = round(1.5) + roundEven(2.5);", "round"),
    ("    float16_t h = 1.0hf;", "1.0hf"),
    ("    if (a[0] == 0u) main();", "main"),
    (
        "    uint d = dotPacked4x8AccSatEXT(a[0], a[1], 0u);",
        "dotPacked4x8AccSatEXT",
    ),
];

fn with_line_6(line: &str) -> String {
    format!(
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer A {{ uint a[]; }};\n// atomicAdd( in a comment is fine\nvoid main() {{\n{line}\n}}\n"
    )
}

#[test]
fn each_refused_construct_is_reported_at_its_place() {
    let mut covered = vec![false; reject::RULES.len()];
    for (line, construct) in REFUSED {
        let d = errs(&with_line_6(line), "fp32");
        let first = &d.0[0];
        let column = line.find(construct).unwrap() as u32 + 1;
        assert_eq!(span(first), (6, column), "{first}");
        assert_eq!(first.span.as_ref().unwrap().file, "t.comp");
        let rule = reject::RULES
            .iter()
            .position(|r| first.message.starts_with(r.reason))
            .unwrap();
        assert!(
            first.message.ends_with(&format!("(`{construct}`)")),
            "{first}"
        );
        assert_eq!(first.notes, [reject::RULES[rule].advice]);
        covered[rule] = true;
    }
    // The limits that keep naga's recursion inside the stack.
    let deep = format!("    float x = {}1.0{};", "(".repeat(300), ")".repeat(300));
    let d = errs(&with_line_6(&deep), "fp32");
    assert_eq!(
        span(&d.0[0]),
        (6, 14 + reject::MAX_NESTING as u32), // `main`'s `{` is level 1
        "{d}"
    );
    covered[reject::RULES
        .iter()
        .position(|r| matches!(r.pattern, reject::Pattern::DeepNesting))
        .unwrap()] = true;
    let long = format!("    uint x = a[1]{};", " + a[1]".repeat(3000));
    let d = errs(&with_line_6(&long), "fp32");
    assert!(d.0[0].message.contains("more than 10000 tokens"), "{d}");
    covered[reject::RULES
        .iter()
        .position(|r| matches!(r.pattern, reject::Pattern::LongStatement))
        .unwrap()] = true;
    // The budgets on naga's quadratic time: refused at the first `;` past
    // the limit, in well under a second.
    let t = std::time::Instant::now();
    let body = "    a[0] = 1u;\n".repeat(reject::MAX_FUNCTION_STATEMENTS + 1);
    let long_fn = format!(
        "#version 450\nlayout(binding = 0) buffer A {{ uint a[]; }};\nvoid main()\n{{\n{body}}}\n"
    );
    let d = errs(&long_fn, "fp32");
    assert!(
        d.0[0]
            .message
            .starts_with("a function of more than 10000 statements"),
        "{d}"
    );
    assert_eq!(span(&d.0[0]), (4 + 10_001, 14), "{d}");
    let globals = "shared uint g;\n".repeat(reject::MAX_GLOBALS + 1);
    let many = format!("#version 450\n{globals}void main() {{ g = 1u; }}\n");
    let d = errs(&many, "fp32");
    assert!(
        d.0[0]
            .message
            .starts_with("more than 2000 global declarations"),
        "{d}"
    );
    assert_eq!(span(&d.0[0]), (2 + 2000, 14), "{d}");
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    for p in [reject::Pattern::LongFunction, reject::Pattern::ManyGlobals] {
        covered[reject::RULES.iter().position(|r| r.pattern == p).unwrap()] = true;
    }
    let shadow = "#version 450
layout(local_size_x = 1) in;
const int w = 0;
layout(binding = 0) buffer A { int a[]; };
layout(push_constant) uniform parameter { int w; } p;
void main() { a[0] = w == 0 ? p.w : w; }
";
    let d = errs(shadow, "fp32");
    assert_eq!(span(&d.0[0]), (5, 47), "{d}");
    covered[reject::RULES
        .iter()
        .position(|r| matches!(r.pattern, reject::Pattern::ShadowedBlockMember))
        .unwrap()] = true;
    let in_const = "#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const int n = 4;
layout(binding = 0) buffer A { int a[]; };
shared int t[abs(n)];
void main() { a[0] = t[0]; }
";
    let d = errs(in_const, "fp32");
    assert_eq!(span(&d.0[0]), (5, 18), "{d}");
    // Integer expressions are written as `OpSpecConstantOp` (spec_expressions.rs).
    assert_valid(&ok(&in_const.replace("abs(n)", "max(n, 2)")).spirv);
    covered[reject::RULES
        .iter()
        .position(|r| matches!(r.pattern, reject::Pattern::SpecConstantInConstExpr))
        .unwrap()] = true;
    assert!(
        covered.iter().all(|c| *c),
        "a rule has no test: {covered:?}"
    );
    // Declared after the block, the same shader is fine; as a specialization
    // constant before it too (moved past the block).
    let fixed = shadow
        .replace("const int w = 0;\n", "")
        .replace("void main()", "const int w = 0;\nvoid main()");
    assert_valid(&ok(&fixed).spirv);
    let spec = shadow.replace("const int w", "layout(constant_id = 0) const int w");
    assert_valid(&ok(&spec).spirv);
}

#[test]
fn all_refusals_are_reported_at_once() {
    let d = errs(
        &with_line_6(
            "    atomicLoad(a[0], 1u);\n    float r = round(1.5) + roundEven(r); uint8_t x;",
        ),
        "fp32",
    );
    let places: Vec<(u32, u32)> = d.0.iter().map(span).collect();
    assert_eq!(places, [(6, 5), (7, 15), (7, 42)], "{d}");
}

/// Past [`crate::diag::MAX_ERRORS`] the rest is not reported: 65536 refused
/// string literals took a minute to report (each looks up its line), which
/// the fuzzer found as a timeout. (100 per statement: within the budgets,
/// which are reported alone.)
#[test]
fn errors_stop_at_fifty() {
    let t = std::time::Instant::now();
    let line = format!("    x = {}0;\n", "\"s\", ".repeat(100));
    let lines = line.repeat(656);
    let d = errs(
        &format!("#version 450\nvoid main()\n{{\n{lines}}}\n"),
        "fp32",
    );
    assert_eq!(d.0.len(), crate::diag::MAX_ERRORS);
    assert_eq!(span(&d.0[49]), (4, 9 + 49 * 5), "{}", d.0[49]);
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
}

#[test]
fn naga_errors_point_at_the_users_line_and_column() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { float a[]; };

void main() {
    float x = 1.0;
    float y = x * not_declared;
    a[0] = y;
}
";
    let d = errs(src, "fp32");
    assert_eq!(span(&d.0[0]), (7, 19), "{d}");
    assert!(d.0[0].message.contains("not_declared"), "{d}");
    assert!(d.to_string().starts_with("t.comp:7:19: error:"), "{d}");
}

#[test]
fn fp16_builtins_are_named() {
    let src = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { float16_t a[]; };
void main() {
    float16_t x = a[0];
    a[1] = ldexp(x, 2);
}
";
    let d = errs(src, "fp16s+fp16a");
    assert_eq!(
        d.0[0].message, "naga's GLSL frontend has no float16 overload of `ldexp`",
        "{d}"
    );
    assert_eq!(span(&d.0[0]).0, 7, "{d}");
}

#[test]
fn naga_panics_become_errors() {
    let src = COPY
        .replace(
            "void main",
            "layout(constant_id = 0) const int k = 2;\nvoid main",
        )
        .replace("* 2.0", "* float(k)");
    for (step, doing) in [
        (naga_run::Step::Parse, "parsing the shader"),
        (naga_run::Step::Validate, "validating the module"),
        (naga_run::Step::Compact, "removing unused types"),
        (naga_run::Step::Write, "writing SPIR-V"),
    ] {
        naga_run::PANIC_AT.with(|p| p.set(Some(step)));
        let r = compile(&expanded(&src, "fp32"), &CompileOptions::default());
        naga_run::PANIC_AT.with(|p| p.set(None));
        let d = r.unwrap_err();
        // The quiet hook saw it (and printed nothing): its place is in the message.
        let m = &d.0[0].message;
        assert!(
            m.starts_with(&format!(
                "naga panicked while {doing}: injected panic for a test (at "
            )) && m.contains("naga_run.rs:")
                && m.ends_with("; this is a bug in naga, please report the shader"),
            "{m}"
        );
    }
}

const LOOPS: &str = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer A { int a[]; };
shared int tmp[64];
void main() {
    int i = int(gl_LocalInvocationID.x);
    tmp[i] = a[i];
    barrier();
    int s = 0;
    for (int k = 0; k < a[0]; k++) { s += tmp[k] / a[1] + int(uint(tmp[k]) % uint(a[2])); }
    while (s > 100) { s = s / 2; }
    a[i] = s;
}
";

#[test]
fn writer_options_are_lean() {
    let c = ok(LOOPS);
    assert_valid(&c.spirv);
    // naga's defaults: loop counters, division wrappers, zeroed shared memory.
    let e = expanded(LOOPS, "fp32");
    let module = naga_run::parse(&naga_run::Origin::new(&e), e.text()).unwrap();
    let info = naga_run::validate(&naga_run::Origin::new(&e), &module).unwrap();
    let mut defaults = naga_run::writer_options(false);
    defaults.force_loop_bounding = true;
    defaults.emit_int_div_checks = true;
    defaults.zero_initialize_workgroup_memory =
        naga::back::spv::ZeroInitializeWorkgroupMemoryMode::Polyfill;
    let fat = naga_run::write(&module, &info, &defaults).unwrap();
    let (Some(lean), Some(fat)) = (disassemble(&c.spirv), disassemble(&fat)) else {
        return;
    };
    let count = |d: &str, pat: &str| d.matches(pat).count();
    // Loop bounding adds a `vec2<u32>` counter variable per loop.
    assert_eq!(
        count(&lean, "OpTypeVector %"),
        1,
        "only gl_LocalInvocationID's uvec3:\n{lean}"
    );
    assert!(count(&fat, "OpTypeVector %") > 1, "{fat}");
    // Division checks add wrapper functions; lean has main and the entry wrapper.
    assert_eq!(count(&lean, "OpFunction "), 2, "{lean}");
    assert!(count(&fat, "OpFunction ") > 2);
    assert!(lean.contains("OpSDiv") && lean.contains("OpUMod"));
    // Zeroing shared memory adds a barrier; lean has just the user's.
    assert_eq!(count(&lean, "OpControlBarrier"), 1);
    assert_eq!(count(&fat, "OpControlBarrier"), 2);
    assert!(!lean.contains("OpName"));
    let named = compile(&e, &CompileOptions { debug_names: true }).unwrap();
    assert!(disassemble(&named.spirv).unwrap().contains("OpName"));
}

const REFLECTED: &str = "#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) readonly buffer bottom_blob { f16vec4 bottom_blob_data[]; };
layout(binding = 1) writeonly buffer top_blob { f16vec4 top_blob_data[]; };
layout(set = 1, binding = 2) buffer weight_blob { float16_t weight_data[]; } wb;
layout(push_constant) uniform parameter { int w; int h; int c; int cstep; } p;
layout(constant_id = 0) const int bias_term = 0;
layout(constant_id = 3) const float alpha = 0.5;
void main() {
    int gx = int(gl_GlobalInvocationID.x);
    if (gx >= p.w) return;
    vec4 v = vec4(bottom_blob_data[gx]) * alpha;
    if (bias_term == 1) v += float(wb.weight_data[gx]);
    top_blob_data[gx] = f16vec4(v);
}
";

#[test]
fn reflection_of_bindings_push_constants_spec_constants_and_fp16() {
    let c = ok_mode(REFLECTED, "fp16s");
    assert_valid(&c.spirv);
    let r = &c.reflection;
    type Row<'a> = (u32, u32, BindingKind, Access, &'a str, Option<&'a str>);
    let b: Vec<Row> = r
        .bindings
        .iter()
        .map(|b| {
            (
                b.set,
                b.binding,
                b.kind,
                b.access,
                b.name.as_ref(),
                b.instance.as_deref(),
            )
        })
        .collect();
    use Access::*;
    use BindingKind::StorageBuffer as S;
    assert_eq!(
        b,
        [
            (0, 0, S, ReadOnly, "bottom_blob", None),
            (0, 1, S, WriteOnly, "top_blob", None),
            (1, 2, S, ReadWrite, "weight_blob", Some("wb")),
        ]
    );
    assert_eq!(r.push_constant_size, 16);
    assert_eq!(r.local_size, [8, 8, 1]);
    assert_eq!(
        *r.spec_constants,
        [
            SpecConstant {
                id: 0,
                name: "bias_term".into(),
                ty: "int".into(),
                default: Some(ScalarValue::Int(0))
            },
            SpecConstant {
                id: 3,
                name: "alpha".into(),
                ty: "float".into(),
                default: Some(ScalarValue::Float(0.5))
            },
        ]
    );
    // fp16 storage without fp16 arithmetic needs only 16-bit storage.
    assert_eq!(*r.requirements.features, ["storageBuffer16BitAccess"]);
    assert_eq!(*r.requirements.extensions, ["VK_KHR_16bit_storage"]);
    let json = serde_json::to_string(r).unwrap();
    assert_eq!(&serde_json::from_str::<Reflection>(&json).unwrap(), r);
}

#[test]
fn fp16_arithmetic_needs_float16_but_not_uniform_16bit_access() {
    let src = REFLECTED
        .replace(
            "vec4 v = vec4(bottom_blob_data[gx]) * alpha;",
            "f16vec4 v = bottom_blob_data[gx] * float16_t(alpha);",
        )
        .replace(
            "v += float(wb.weight_data[gx]);",
            "v += wb.weight_data[gx];",
        )
        .replace("f16vec4(v);", "v;");
    let c = ok_mode(&src, "fp16s+fp16a");
    assert_valid(&c.spirv);
    assert_eq!(
        *c.reflection.requirements.features,
        ["shaderFloat16", "storageBuffer16BitAccess"]
    );
    // The pass on its own: naga's output with StorageInputOutput16 on.
    let e = expanded(&src, "fp16s+fp16a");
    let module = naga_run::parse(
        &naga_run::Origin::new(&e),
        &e.text()
            .replace("writeonly", "         ")
            .replace("layout(constant_id = 0) ", "")
            .replace("layout(constant_id = 3) ", ""),
    )
    .unwrap();
    let info = naga_run::validate(&naga_run::Origin::new(&e), &module).unwrap();
    let mut o = naga_run::writer_options(false);
    o.use_storage_input_output_16 = true;
    let mut words = naga_run::write(&module, &info, &o).unwrap();
    let before = reflect::requirements(&words).features;
    assert_eq!(
        *before,
        [
            "shaderFloat16",
            "storageBuffer16BitAccess",
            "storageInputOutput16",
            "uniformAndStorageBuffer16BitAccess"
        ]
    );
    let t = trim_capabilities::trim_capabilities(&mut words).unwrap();
    assert_eq!(t.removed.len(), 2);
    assert_eq!(
        *reflect::requirements(&words).features,
        ["shaderFloat16", "storageBuffer16BitAccess"]
    );
    assert_valid(&words);
}

#[test]
fn a_uniform_block_with_fp16_keeps_uniform_16bit_access() {
    let src = "#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(binding = 0) uniform U { f16vec4 scale; };
layout(binding = 1) buffer B { f16vec4 b[]; };
void main() { b[0] = b[1] * scale; }
";
    let c = ok_mode(src, "fp16s+fp16a+fp16u");
    assert_valid(&c.spirv);
    assert_eq!(
        *c.reflection.requirements.features,
        [
            "shaderFloat16",
            "storageBuffer16BitAccess",
            "uniformAndStorageBuffer16BitAccess"
        ]
    );
    assert_eq!(c.reflection.bindings[0].kind, BindingKind::UniformBuffer);
}

#[test]
fn fp16_arithmetic_on_packed_storage_needs_no_16bit_storage() {
    let src = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer B { uvec2 b[]; };
void main() {
    f16vec4 v = f16vec4(vec4(unpackHalf2x16(b[0].x), unpackHalf2x16(b[0].y)));
    v = v * v;
    b[1] = uvec2(packHalf2x16(vec2(v.rg)), packHalf2x16(vec2(v.ba)));
}
";
    let c = ok_mode(src, "fp16p+fp16a");
    assert_valid(&c.spirv);
    assert_eq!(*c.reflection.requirements.features, ["shaderFloat16"]);
}

mod bounds;
mod dot_product;
mod folds;
mod fp16_promotion;
mod glsl_terms;
mod pins;
mod positions;
mod props;
mod spec_sizes;
mod subgroup_calls;
mod subgroups;
mod untruncated;

#[test]
fn validation_errors_point_at_the_users_line() {
    // `bitCount` is refused before naga; fed to naga directly it parses and
    // fails validation, which shows the mapping of validation spans.
    let src = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { uint a[]; };
void main() {
    int n = bitCount(a[1]);
    a[0] = uint(n);
}
";
    let e = expanded(src, "fp32");
    let module = naga_run::parse(&naga_run::Origin::new(&e), e.text()).unwrap();
    let d = naga_run::validate(&naga_run::Origin::new(&e), &module).unwrap_err();
    assert!(d.message.starts_with("naga rejects the module: "), "{d}");
    assert_eq!(span(&d).0, 5, "{d}");
}

#[test]
fn multi_label_case_falling_through_is_refused() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { int a[]; };
void main() {
    int i = a[0];
    switch (i) { case 0: case 1: i = 2; default: break; }
    a[1] = i;
}
";
    let d = errs(src, "fp32");
    assert!(d.0[0].message.contains("multi-label `case`"), "{d}");
    assert_eq!(span(&d.0[0]).0, 6, "{d}");
    let apart = src.replace(
        "switch (i) { case 0: case 1: i = 2; default: break; }",
        "switch (i) { case 0: case 2: i = 1; break; case 1: i = 2; case 3: i = 4; break; }",
    );
    assert_eq!(span(&errs(&apart, "fp32").0[0]).0, 6);
    // Each alone is fine and valid.
    for ok_switch in [
        "switch (i) { case 0: case 1: i = 2; break; default: break; }",
        "switch (i) { case 0: i = 3; case 1: i = 2; break; default: break; }",
        "switch (i) { case 0: case 1: i = 2; break; default: i = 5; }",
    ] {
        let src = src.replace(
            "switch (i) { case 0: case 1: i = 2; default: break; }",
            ok_switch,
        );
        assert_valid(&ok(&src).spirv);
    }
}

#[test]
fn images_and_samplers_are_reflected_and_ask_for_nothing_extra() {
    // naga's frontend declares types for every built-in image overload
    // (1-D, r8ui, r16f, ...); compaction keeps them out of the blob.
    let src = "#version 450
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;
layout(binding = 0, rgba32f) uniform readonly image3D img;
layout(binding = 1, rgba32f) uniform writeonly image3D outi;
layout(binding = 2) uniform texture3D t;
layout(binding = 3) uniform sampler s;
layout(binding = 4) readonly buffer Unused { float u[]; };
void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID);
    imageStore(outi, p, imageLoad(img, p) + texelFetch(sampler3D(t, s), p, 0));
}
";
    let c = ok(src);
    assert_valid(&c.spirv);
    let kinds: Vec<(BindingKind, Access)> = c
        .reflection
        .bindings
        .iter()
        .map(|b| (b.kind, b.access))
        .collect();
    assert_eq!(
        kinds,
        [
            (BindingKind::StorageImage, Access::ReadOnly),
            (BindingKind::StorageImage, Access::WriteOnly),
            (BindingKind::SampledImage, Access::ReadOnly),
            (BindingKind::Sampler, Access::ReadOnly),
            (BindingKind::StorageBuffer, Access::ReadOnly),
        ]
    );
    assert_eq!(*c.reflection.requirements.spirv_capabilities, ["Shader"]);
    assert!(c.reflection.requirements.features.is_empty());
}

#[test]
fn fp16_in_push_constants_is_an_error_at_the_block() {
    let src = "#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { float a[]; };
layout(push_constant) uniform parameter { float16_t s; } p;
void main() { a[0] = float(p.s); }
";
    let d = errs(src, "fp16s+fp16a");
    assert_eq!(span(&d.0[0]).0, 5, "{d}");
    assert!(
        d.0[0].message.contains("not supported in immediates"),
        "{d}"
    );
}

#[test]
fn uncalled_functions_are_checked_like_glslang_does() {
    let src = "#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { uint a[]; };
layout(binding = 1) buffer H { float16_t h[]; };
uint used(uint x) { return x * 2u; }
float16_t hldexp(float16_t x) { return ldexp(x, 2); }
void main() { a[0] = used(a[1]); h[0] = h[1]; }
";
    let d = errs(src, "fp16s+fp16a");
    assert_eq!(
        d.0[0].message, "naga's GLSL frontend has no float16 overload of `ldexp`",
        "{d}"
    );
    assert_eq!(span(&d.0[0]).0, 8, "{d}");
    let without = src.replace(
        "float16_t hldexp(float16_t x) { return ldexp(x, 2); }\n",
        "",
    );
    assert_valid(&ok_mode(&without, "fp16s+fp16a").spirv);
}

#[test]
fn push_constants_laid_out_differently_from_std430_are_refused() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { float a[]; };
layout(push_constant) uniform parameter { int w; float s[3]; vec3 v; float t; vec2 q; } p;
void main() { a[0] = float(p.w) + p.s[2] + p.v.x + p.t + p.q.y; }
";
    let d = errs(src, "fp32");
    assert_eq!(span(&d.0[0]), (4, 8), "{d}");
    assert!(d.0[0].notes.iter().any(|n| n.contains("std430")), "{d}");
    // With std430 written out it compiles to glslang's offsets.
    let fixed = src.replace("layout(push_constant)", "layout(push_constant, std430)");
    let c = ok(&fixed);
    assert_valid(&c.spirv);
    assert_eq!(c.reflection.push_constant_size, 40);
    if let Some(d) = disassemble(&c.spirv) {
        let offsets: Vec<&str> = d
            .lines()
            .filter(|l| l.contains("OpMemberDecorate") && l.contains("Offset"))
            .filter_map(|l| l.split_whitespace().last())
            .collect();
        assert!(
            offsets
                .windows(5)
                .any(|w| w == ["0", "4", "16", "28", "32"]),
            "{d}"
        );
    }
    // Scalars and vectors agree in both layouts: ncnn's blocks pass as they are.
    assert_eq!(
        ok_mode(REFLECTED, "fp16s").reflection.push_constant_size,
        16
    );
}

#[test]
fn deep_but_allowed_code_compiles_on_the_big_stack() {
    // Both overflow the 2 MiB stack of a test thread inside naga.
    let nested = format!(
        "    float x = {}1.0{}; a[0] = uint(x);",
        "(".repeat(250),
        ")".repeat(250)
    );
    assert_valid(&ok(&with_line_6(&nested)).spirv);
    let chain = format!("    a[0] = a[1]{};", " + a[1]".repeat(1990));
    assert_valid(&ok(&with_line_6(&chain)).spirv);
}

#[test]
fn atomics_compile_to_spirv_atomics() {
    // The extension's packed one-element store: a compare-and-swap loop.
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { int b8_data[]; };
layout(binding = 1) buffer C { uint counts[]; };
shared uint hist[16];
void main() {
    int i = int(gl_GlobalInvocationID.x);
    int q = i * 3;
    {int _ncnn_j=int(i);int _ncnn_b=int(q);int _ncnn_w=_ncnn_j/(4);int _ncnn_o=(_ncnn_j%(4))*(32/(4));int _ncnn_old=atomicCompSwap(b8_data[_ncnn_w],int(0),int(0));for(;;){int _ncnn_got=atomicCompSwap(b8_data[_ncnn_w],_ncnn_old,bitfieldInsert(_ncnn_old,_ncnn_b,_ncnn_o,32/(4)));if(_ncnn_got==_ncnn_old)break;_ncnn_old=_ncnn_got;}};
    uint before = atomicAdd(hist[i % 16], 1u);
    atomicMax(counts[0], before);
    barrier();
    counts[1 + i % 16] = hist[i % 16];
}
";
    let c = ok(src);
    assert_valid(&c.spirv);
    let Some(d) = disassemble(&c.spirv) else {
        return;
    };
    assert_eq!(d.matches("OpAtomicCompareExchange").count(), 2, "{d}");
    assert_eq!(d.matches("OpAtomicIAdd").count(), 1, "{d}");
    assert_eq!(d.matches("OpAtomicUMax").count(), 1, "{d}");
    // Errors after the inserted prototypes still point at the user's line.
    let d = errs(
        &src.replace("counts[1 + i % 16]", "counts[1 + undefined_j]"),
        "fp32",
    );
    assert_eq!(span(&d.0[0]), (13, 16), "{d}");
}

#[test]
fn atomics_on_locals_are_refused_at_the_call() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer B { int b[]; };
void main() {
    int local = 0;
    b[0] = atomicAdd(local, 1);
}
";
    let d = errs(src, "fp32");
    assert!(
        d.0[0]
            .message
            .contains("must be an `int` or `uint` element of a buffer"),
        "{d}"
    );
    assert_eq!(span(&d.0[0]).0, 6, "{d}");
}

/// `(scope, semantics)` of every `OpMemoryBarrier`, in order, from a disassembly.
fn memory_barriers(d: &str) -> Vec<(String, String)> {
    let consts: std::collections::HashMap<&str, &str> = d
        .lines()
        .filter_map(|l| {
            let (id, rest) = l.trim().split_once(" = OpConstant %")?;
            Some((id, rest.split_whitespace().nth(1)?))
        })
        .collect();
    d.lines()
        .filter_map(|l| l.trim().strip_prefix("OpMemoryBarrier "))
        .map(|ops| {
            let v: Vec<&str> = ops.split_whitespace().map(|id| consts[id]).collect();
            (v[0].to_string(), v[1].to_string())
        })
        .collect()
}

#[test]
fn memory_barrier_functions_become_memory_barriers() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer A { uint a[]; };
shared uint tmp[64];
void main() {
    uint i = gl_LocalInvocationID.x;
    tmp[i] = a[i];
    memoryBarrierShared();
    barrier();
    a[i] = tmp[63u - i];
    memoryBarrierBuffer();
    if (i == 0u) { memoryBarrier(); }
    groupMemoryBarrier();
    memoryBarrierImage();
}
";
    let c = ok(src);
    assert_valid(&c.spirv);
    let Some(d) = disassemble(&c.spirv) else {
        return;
    };
    // Device = 1, Workgroup = 2; AcquireRelease 0x8, Uniform 0x40, Workgroup 0x100, Image 0x800.
    let want = [
        ("2", "264"),
        ("1", "72"),
        ("1", "2376"),
        ("1", "2376"),
        ("1", "2120"),
    ];
    let got = memory_barriers(&d);
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want, "{d}");
    // No call is left to a prototype: the one call is naga's entry wrapper calling `main`.
    assert_eq!(d.matches("OpFunctionCall").count(), 1, "{d}");
}

#[test]
fn two_dimensional_arrays_keep_their_dimensions() {
    let src = "#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer A { uint a[]; };
shared uvec2 tmp[4][16];
void main() {
    uint i = gl_LocalInvocationID.x;
    float f[2][3];
    f[1][2] = 1.0;
    tmp[i / 16u][i % 16u] = uvec2(i, uint(f[1][2]));
    barrier();
    a[i] = tmp[3u - i / 16u][i % 16u].x;
}
";
    let c = ok(src);
    assert_valid(&c.spirv);
    if let Some(d) = disassemble(&c.spirv) {
        // uvec2[16][4]: the array of 4 has the array of 16 as element.
        let consts: std::collections::HashMap<&str, &str> = d
            .lines()
            .filter_map(|l| {
                let (id, rest) = l.trim().split_once(" = OpConstant %")?;
                Some((id, rest.split_whitespace().nth(1)?))
            })
            .collect();
        let arrays: Vec<(&str, &str, &str)> = d
            .lines()
            .filter_map(|l| {
                let (id, rest) = l.trim().split_once(" = OpTypeArray ")?;
                let mut it = rest.split_whitespace();
                Some((id, it.next()?, consts[it.next()?]))
            })
            .collect();
        let inner = arrays.iter().find(|a| a.2 == "16").expect("an array of 16");
        assert!(
            arrays.iter().any(|a| a.1 == inner.0 && a.2 == "4"),
            "{arrays:?}\n{d}"
        );
    }
    let d = errs(&src.replace("tmp[4][16]", "tmp[4][16], u[2]"), "fp32");
    assert_eq!(span(&d.0[0]), (4, 14), "{d}");
}

#[test]
fn gl_workgroupsize_is_a_constant_of_the_local_size() {
    let src = "#version 450
layout(local_size_x = 8, local_size_y = 4) in;
layout(binding = 0) buffer A { uint a[]; };
void main() {
    uvec3 s = gl_WorkGroupSize;
    a[gl_LocalInvocationIndex] = s.x * 100u + s.y * 10u + gl_WorkGroupSize.z;
}
";
    let c = ok(src);
    assert_valid(&c.spirv);
    if let Some(d) = disassemble(&c.spirv) {
        assert!(!d.contains("WorkgroupSize"), "{d}");
        assert!(d.contains("OpConstantComposite"), "{d}");
    }
    // With local_size_*_id, the parts of those dimensions are specializable.
    let with_ids = src.replace(
        "layout(local_size_x = 8, local_size_y = 4) in;",
        "layout(local_size_x_id = 7, local_size_y = 4, local_size_z_id = 9) in;",
    );
    let c = ok(&with_ids);
    assert_valid(&c.spirv);
    if let Some(d) = disassemble(&c.spirv) {
        assert!(d.contains("OpSpecConstantComposite"), "{d}");
        assert_eq!(d.matches("OpSpecConstant %").count(), 2, "{d}");
        assert!(d.contains("SpecId 7") && d.contains("SpecId 9"), "{d}");
    }
}

#[test]
fn fp16_builtins_become_math() {
    let src = "#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer A { float16_t a[]; };
layout(binding = 1) buffer B { f16vec4 b[]; };
layout(binding = 2) buffer C { float c[]; };
void main() {
    float16_t x = a[0];
    a[1] = max(x, a[2]) + clamp(x, a[3], a[4]) + exp(x) + dot(b[0], b[1]) + length(b[2].xyz);
    b[3] = clamp(b[4], x, a[5]) + mix(b[5], b[6], x) + fma(b[0], b[1], b[2]) + tanh(b[7]) + max(b[0], x);
    c[0] = max(c[1], c[2]) + clamp(c[3], 0.0, 1.0);
}
";
    let c = ok_mode(src, "fp16s+fp16a");
    assert_valid(&c.spirv);
    if let Some(d) = disassemble(&c.spirv) {
        // Builtins as GLSL.std.450 instructions; the float ones stay float.
        for ext in ["FMax", "FClamp", "Exp", "FMix", "Fma", "Tanh", "Length"] {
            assert!(d.contains(&format!(" {ext} ")), "{ext}\n{d}");
        }
        assert!(d.contains("OpDot"), "{d}");
    }
}

/// Every instruction with a result: (opcode, result type, operand types),
/// types written short (`v4half`, `bool`), read from a `--raw-id` disassembly.
fn typed_ops(d: &str) -> Vec<(String, String, Vec<String>)> {
    use std::collections::HashMap;
    let defs: HashMap<&str, Vec<&str>> = d
        .lines()
        .filter_map(|l| {
            let (id, rest) = l.trim().split_once(" = ")?;
            Some((id, rest.split_whitespace().collect()))
        })
        .collect();
    fn ty(defs: &HashMap<&str, Vec<&str>>, id: &str) -> String {
        match defs.get(id).map(|v| v.as_slice()) {
            Some(["OpTypeFloat", "16"]) => "half".into(),
            Some(["OpTypeFloat", "32"]) => "float".into(),
            Some(["OpTypeBool"]) => "bool".into(),
            Some(["OpTypeInt", "32", "1"]) => "int".into(),
            Some(["OpTypeInt", "32", "0"]) => "uint".into(),
            Some(["OpTypeVector", c, n]) => format!("v{n}{}", ty(defs, c)),
            _ => id.into(),
        }
    }
    let value_ty = |id: &str| {
        defs.get(id)
            .and_then(|v| v.get(1))
            .map_or_else(|| id.to_string(), |t| ty(&defs, t))
    };
    defs.values()
        .filter(|v| v.len() >= 2 && !v[0].starts_with("OpType"))
        .map(|v| {
            let operands = v[2..].iter().map(|a| value_ty(a)).collect();
            (v[0].to_string(), ty(&defs, v[1]), operands)
        })
        .collect()
}

#[test]
fn fp16_relational_functions_become_comparisons() {
    let src = "#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(binding = 0) buffer B { f16vec4 b[]; };
layout(binding = 1) buffer U { uvec4 u[]; };
void main() {
    f16vec4 v = b[0];
    b[1] = mix(v, v * float16_t(0.25), lessThan(v, f16vec4(0)));
    u[0] = uvec4(lessThanEqual(v, b[2])) + uvec4(greaterThan(v, b[2]))
        + uvec4(greaterThanEqual(v, b[2])) + uvec4(equal(v, b[2])) + uvec4(notEqual(v, b[2]));
    u[1].xy = uvec2(lessThan(v.xy, b[3].zw));
    u[1].z = uint(any(lessThan(v.xyz, b[3].xyz)));
    b[4].x = mix(v.x, v.y, v.z < v.w);
    // The float forms next to them stay float.
    u[2] = uvec4(lessThan(vec4(v), vec4(b[5])));
}
";
    let c = ok_mode(src, "fp16s+fp16a");
    assert_valid(&c.spirv);
    if let Some(d) = disassemble(&c.spirv) {
        let ops = typed_ops(&d);
        let has = |op: &str, result: &str, operand: &str| {
            ops.iter().any(|(o, r, a)| {
                o == op && r == result && a.first().map(String::as_str) == Some(operand)
            })
        };
        for op in [
            "OpFOrdLessThan",
            "OpFOrdLessThanEqual",
            "OpFOrdGreaterThan",
            "OpFOrdGreaterThanEqual",
            "OpFOrdEqual",
            "OpFOrdNotEqual",
        ] {
            assert!(has(op, "v4bool", "v4half"), "{op}\n{d}");
        }
        assert!(has("OpFOrdLessThan", "v2bool", "v2half"), "{d}");
        assert!(has("OpFOrdLessThan", "v3bool", "v3half"), "{d}");
        assert!(has("OpFOrdLessThan", "v4bool", "v4float"), "{d}");
        // mix with a bool vector, and with a bool scalar: selects of halves.
        assert!(has("OpSelect", "v4half", "v4bool"), "{d}");
        assert!(has("OpSelect", "half", "bool"), "{d}");
        // Inline: the only call is the entry point's call of `main`.
        assert_eq!(d.matches("OpFunctionCall").count(), 1, "{d}");
    }
    // Without fp16 arithmetic the same shader never needed the prototypes:
    // the extension's afp is float there, and the blob holds no half type.
    let fp32 = ok_mode(
        &src.replace("f16vec4", "vec4")
            .replace("f16vec", "vec")
            .replace("float16_t", "float"),
        "fp32",
    );
    if let Some(d) = disassemble(&fp32.spirv) {
        assert!(!d.contains("half"), "{d}");
    }
}

#[test]
fn vector_modulo_scalar_splats_the_scalar() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer I { ivec4 i[]; };
layout(binding = 1) buffer U { uvec3 u[]; };
layout(binding = 2) buffer S { int s[]; };
void main() {
    int k = s[0];
    i[0] = i[1] % k;
    i[2] = (k + 7) % i[3];
    i[3] = i[4] % (k * 2) % 3 * k;
    u[0] = u[1] % uint(k);
    s[1] = s[2] % k;
}
";
    let c = ok(src);
    assert_valid(&c.spirv);
    if let Some(d) = disassemble(&c.spirv) {
        let ops = typed_ops(&d);
        let has = |op: &str, result: &str, operands: &[&str]| {
            ops.iter().any(|(o, r, a)| {
                o == op && r == result && a.iter().map(String::as_str).eq(operands.iter().copied())
            })
        };
        // The scalar becomes a vector (naga's `Splat`), then the `%` is on vectors.
        assert!(has("OpCompositeConstruct", "v4int", &["int"; 4]), "{d}");
        assert!(has("OpUMod", "v3uint", &["v3uint", "v3uint"]), "{d}");
        // Signed `%` goes through naga's wrapper, `a - b * (a / b)`, for
        // vectors as for `int % int`: never glslang's OpSMod nor OpSRem.
        assert!(has("OpSDiv", "v4int", &["v4int", "v4int"]), "{d}");
        assert!(has("OpSDiv", "int", &["int", "int"]), "{d}");
        assert!(!d.contains("OpSMod") && !d.contains("OpSRem"), "{d}");
    }
    // A shader without it is not touched: no pass output differs from
    // naga's own for `int % int` alone (the snapshot tests pin the rest).
    let e = expanded(src, "fp32");
    let mut module = naga_run::parse(&naga_run::Origin::new(&e), e.text()).unwrap();
    let done = vector_modulo::splat_scalar_operands(&mut module);
    assert_eq!((done.count, done.scalar_left.len()), (5, 1));
    naga_run::validate(&naga_run::Origin::new(&e), &module).unwrap();
    // Splatting by hand gives the repair's SPIR-V (the splat right before
    // the `%`, where naga puts it for `/`); nothing to do then.
    let right = src.replace("    i[2] = (k + 7) % i[3];\n", "");
    let by_hand = right
        .replace("i[1] % k", "i[1] % ivec4(k)")
        .replace("% (k * 2) % 3", "% ivec4(k * 2) % ivec4(3)")
        .replace("u[1] % uint(k)", "u[1] % uvec3(uint(k))");
    assert_eq!(ok(&by_hand).spirv, ok(&right).spirv);
    let e = expanded(&by_hand, "fp32");
    let mut module = naga_run::parse(&naga_run::Origin::new(&e), e.text()).unwrap();
    let before = format!("{module:?}");
    assert_eq!(vector_modulo::splat_scalar_operands(&mut module).count, 0);
    assert_eq!(before, format!("{module:?}"));
    // naga typed `scalar % vector` as the scalar while parsing: an
    // expression built on it fails, and the error names the `%`.
    let built_on = src.replace("i[2] = (k + 7) % i[3];", "i[2] = ((k + 7) % i[3]) + i[1];");
    let d = errs(&built_on, "fp32");
    assert_eq!(span(&d.0[0]), (9, 14), "{d}");
    assert!(
        d.0[0]
            .message
            .contains("`scalar % vector` the scalar's type"),
        "{d}"
    );
    assert!(d.0[0].notes[0].contains("ivec4(s) % v"), "{d}");
}

#[test]
fn layout_only_copies_are_refused_at_the_copy() {
    let shader = |decls: &str, body: &str| {
        format!(
            "#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer O {{ float o[]; }};\n{decls}\nvoid main() {{\n    int i = int(gl_GlobalInvocationID.x);\n{body}\n}}\n"
        )
    };
    let buf = "struct S { float v[4]; int n; };\nlayout(binding = 1) buffer A { S items[]; } buf;";
    let pc = "struct T { float m[3]; };\nlayout(push_constant, std430) uniform P { T t; } p;";
    for (decls, body, column, construct) in [
        (
            buf,
            "    S s = buf.items[i];\n    o[i] = s.v[1];",
            7,
            "s = buf.items[i]",
        ),
        (
            buf,
            "    S s;\n    s.n = 1;\n    buf.items[i] = s;\n    o[i] = 1.0;",
            8,
            ".items[i] = s",
        ),
        (
            buf,
            "    S s;\n    s.v = buf.items[i].v;\n    o[i] = s.v[1];",
            6,
            ".v = buf.items[i].v",
        ),
        (pc, "    T q = p.t;\n    o[i] = q.m[2];", 7, "q = p.t"),
    ] {
        let src = shader(decls, body);
        let d = errs(&src, "fp32");
        let line = 6
            + decls.lines().count() as u32
            + body.lines().position(|l| l.contains(construct)).unwrap() as u32;
        assert_eq!(span(&d.0[0]), (line, column), "{d}");
        assert_eq!(
            d.0[0].message,
            format!("{} (`{construct}`)", reject::LAYOUT_COPY.reason),
            "{d}"
        );
        assert_eq!(d.0[0].notes, [reject::LAYOUT_COPY.advice], "{d}");
        // The same text straight into naga fails with its raw message.
        let e = expanded(&src, "fp32");
        let module = naga_run::parse(&naga_run::Origin::new(&e), e.text()).unwrap();
        let raw = naga_run::validate(&naga_run::Origin::new(&e), &module).unwrap_err();
        assert!(
            raw.message.contains("doesn't match the type stored"),
            "{raw}"
        );
    }
    // The advised forms compile; so do copies whose layouts agree (vec4
    // arrays, matrices) and copies within one layout.
    for (decls, body) in [
        (buf, "    S s;\n    for (int k = 0; k < 4; k++) s.v[k] = buf.items[i].v[k];\n    s.n = buf.items[i].n;\n    o[i] = s.v[1] + float(s.n);"),
        (buf, "    buf.items[i] = buf.items[i + 1];\n    S s;\n    S t = s;\n    o[i] = t.v[0];"),
        ("struct S { vec4 v[2]; mat3 m; };\nlayout(binding = 1) buffer A { S items[]; } buf;", "    S s = buf.items[i];\n    o[i] = s.v[1].x + s.m[2].z;"),
    ] {
        assert_valid(&ok(&shader(decls, body)).spirv);
    }
}

#[test]
fn two_dimensional_arrays_in_push_constants() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(binding = 0) buffer O { float o[]; };
layout(push_constant) uniform parameter { int w; float m[2][3]; int h; } p;
void main() { o[0] = p.m[1][2] + float(p.w + p.h); }
";
    // naga's std140 layout of the block differs from glslang's std430: refused.
    let d = errs(src, "fp32");
    assert_eq!(span(&d.0[0]), (4, 8), "{d}");
    assert!(
        d.0[0]
            .notes
            .iter()
            .any(|n| n.contains("m@16[stride 48[stride 16]]")),
        "{d}"
    );
    assert!(
        d.0[0]
            .notes
            .iter()
            .any(|n| n.contains("m@4[stride 12[stride 4]]")),
        "{d}"
    );
    // With std430 it compiles to glslang's layout: the dimensions in the
    // right order (array_dims.rs), strides 12 and 4, `h` at 28.
    let c = ok(&src.replace("push_constant)", "push_constant, std430)"));
    assert_valid(&c.spirv);
    assert_eq!(c.reflection.push_constant_size, 32);
    if let Some(d) = disassemble(&c.spirv) {
        let strides: Vec<&str> = d
            .lines()
            .filter(|l| l.contains("ArrayStride"))
            .filter_map(|l| l.split_whitespace().last())
            .collect();
        // `o[]`, then the inner and the outer array of `m`.
        assert_eq!(strides, ["4", "4", "12"], "{d}");
        let offsets: Vec<&str> = d
            .lines()
            .filter(|l| l.contains("OpMemberDecorate") && l.contains("Offset"))
            .filter_map(|l| l.split_whitespace().last())
            .collect();
        assert!(offsets.windows(3).any(|w| w == ["0", "4", "28"]), "{d}");
    }
}

#[test]
fn spec_constants_stay_specializable() {
    let src = "#version 450
#define BASE 3
layout(local_size_x = 1) in;
layout(constant_id = BASE * 2 + 1) const int w = 5;
layout(constant_id = 1) const float scale = 0.5;
layout(constant_id = 2) const bool flip = true;
layout(constant_id = 3) const uint unused = 9u;
layout(binding = 0) buffer A { float a[]; };
layout(push_constant) uniform parameter { int w; } p;
void main() { int n = w == 0 ? p.w : w; a[0] = float(n * 2) * scale; if (flip) a[1] = 1.0; }
";
    let e = crate::expand(
        SourceFile {
            name: "t.comp".into(),
            path: None,
            text: src.into(),
        },
        &Target::for_mode("fp32".parse().unwrap()),
        None,
        &crate::MemoryLoader::default(),
        &crate::ExpandOptions::default(),
    )
    .unwrap();
    let c = compile(&e, &CompileOptions::default()).unwrap();
    assert_valid(&c.spirv);
    let got: Vec<(u32, &str, &str, Option<ScalarValue>)> = c
        .reflection
        .spec_constants
        .iter()
        .map(|s| (s.id, s.name.as_ref(), s.ty.as_ref(), s.default))
        .collect();
    assert_eq!(
        got,
        [
            (7, "w", "int", Some(ScalarValue::Int(5))),
            (1, "scale", "float", Some(ScalarValue::Float(0.5))),
            (2, "flip", "bool", Some(ScalarValue::Bool(true))),
            (3, "unused", "uint", Some(ScalarValue::Uint(9))),
        ]
    );
    if let Some(d) = disassemble(&c.spirv) {
        for want in [
            "SpecId 7",
            "SpecId 1",
            "SpecId 2",
            "OpSpecConstantTrue",
            "OpSpecConstant %",
        ] {
            assert!(d.contains(want), "{want}\n{d}");
        }
        // Nothing baked: the multiplication by 2 and by the scale stay in the code.
        assert!(d.contains("OpIMul") && d.contains("OpFMul"), "{d}");
    }
    // Assigning to one is refused at the assignment.
    let assigned = src
        .replace("int n = w", "w = 1; int n = w")
        .replace("BASE * 2 + 1", "7");
    let d = errs(&assigned, "fp32");
    assert!(
        d.0[0]
            .message
            .contains("assignment to specialization constant `w`"),
        "{d}"
    );
    assert_eq!(span(&d.0[0]).0, 10, "{d}");
}

/// `round()` is GLSL.std.450 `Round`, as glslang writes it (naga alone
/// wrote `RoundEven`, which picks ties to even where `Round` leaves the
/// direction to the device); `roundEven()` stays `RoundEven`.
#[test]
fn round_is_round_and_round_even_is_round_even() {
    let ext = |src: &str| -> Vec<u32> {
        let words = ok(src).spirv;
        crate::spirv::instructions(&words)
            .unwrap()
            .iter()
            .filter(|i| i.op == crate::spirv::op::EXT_INST)
            .filter_map(|i| i.operand(3))
            // UMin (38): the bounds clamps of the dynamic indices.
            .filter(|&x| x != 38)
            .collect()
    };
    let src = |f: &str| {
        format!("#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer A {{ float a[]; }};\nvoid main() {{ a[0] = {f}(a[1]); a[2] = {f}(vec2(a[3])).y; }}\n")
    };
    assert_eq!(ext(&src("round")), [1, 1]);
    assert_eq!(ext(&src("roundEven")), [2, 2]);
    assert_valid(&ok(&src("round")).spirv);
}

/// In fp16 arithmetic, a `float` (a variable or a literal) beside a
/// `float16_t`: GLSL promotes the `float16_t`, naga demotes the `float`;
/// where GLSL computes in 32 bits the `float16_t` is promoted
/// (`fp16_promotion.rs`), where GLSL refuses (a builtin it finds ambiguous,
/// the `float` result stored into a `float16_t`) the demotion is refused,
/// the explicit forms compile, and a `float16_t` stored into a `float` is
/// converted (`fp16_widening.rs`).
#[test]
fn float16_demotions_are_refused_and_stores_widened() {
    let shader = |body: &str| {
        format!("#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer A {{ float a[]; }};\nvoid main() {{\n    float16_t h = float16_t(a[0]);\n    float y = a[1];\n{body}\n}}\n")
    };
    for (body, column, construct) in [
        ("    h = h * 0.5;", 9, "h * 0.5"),
        ("    h *= y;", 10, "y"),
        (
            "    float16_t r = y + h;\n    a[2] = float(r);",
            19,
            "y + h",
        ),
        ("    a[2] = clamp(h, 0.1, 6.0);", 21, "0.1"),
        ("    a[2] = max(h, y);", 19, "y"),
    ] {
        let d = errs(&shader(body), "fp16s+fp16a");
        let (line, col) = span(&d.0[0]);
        assert_eq!((line, col), (7, column), "{d}");
        assert!(
            d.to_string()
                .contains(&format!("instead of 32 (`{construct}`)")),
            "{d}"
        );
    }
    let fine = shader("    float r = float(h) * y + float(h);\n    float16_t s = h * float16_t(0.5) + float16_t(y);\n    a[2] = r + float(s);\n    a[3] = y > 0.0 ? h : 0.0;\n    a[4] = clamp(h, 0.0, 6.0);\n    a[5] = h * 0.5 + h * y + pow(h, 0.5);\n    a[6] = y > 0.0 ? h : 0.1;");
    assert_valid(&ok_mode(&fine, "fp16s+fp16a").spirv);
}

/// Past a budget only the budget is reported: the other rules and passes
/// only ever see a text within them (their cost is bounded by them).
#[test]
fn a_budget_is_reported_alone() {
    let body = "    x = \"s\";\n".repeat(reject::MAX_FUNCTION_STATEMENTS + 1);
    let d = errs(
        &format!("#version 450\nvoid main()\n{{\n{body}}}\n"),
        "fp32",
    );
    assert_eq!(d.0.len(), 1, "{d}");
    assert!(d.0[0].message.starts_with("a function of more than"), "{d}");
}

/// ncnn's pack4-to-1 copy reads single components of a buffer's `f16vec4`
/// (`buf[i].x`): in fp16s the blob needs only 16-bit storage, as glslang's
/// (naga's extract of a loaded vector asked for `Float16`).
#[test]
fn components_of_16_bit_vectors_are_loaded_through_access_chains() {
    // The fp16s expansion of `top[...] = buffer_ld... bottom[gi].x`.
    let src = "#version 450
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { f16vec4 a[]; };
layout(binding = 1) writeonly buffer B { float16_t b[]; };
void main() {
    int i = int(gl_GlobalInvocationID.x);
    b[4 * i] = a[i].x;
    b[4 * i + 1] = a[i].y;
    b[4 * i + 2] = a[i].z;
    b[4 * i + 3] = a[i].w;
}
";
    let c = ok_mode(src, "fp16s");
    assert_valid(&c.spirv);
    let caps = &c.reflection.requirements.spirv_capabilities;
    assert!(!caps.iter().any(|c| c == "Float16"), "{caps:?}");
    assert!(
        c.reflection
            .requirements
            .features
            .iter()
            .all(|f| f != "shaderFloat16"),
        "{:?}",
        c.reflection.requirements.features
    );
}
