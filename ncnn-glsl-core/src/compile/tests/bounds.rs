//! Every index the shader computes is clamped into its array, vector or
//! matrix (naga's `BoundsCheckPolicy::Restrict`, `naga_run::writer_options`):
//! in buffers (a runtime-sized array by `OpArrayLength`), `shared` memory,
//! locals and push constants. A safe dispatch then cannot reach memory
//! outside what is bound to it, whatever the shader indexes. The GPU side
//! is ncnn-glsl-runtime/tests/bounds.rs.

use super::{assert_valid, disassemble, ok};
use crate::spirv::{instructions, op};

const GLSL_UMIN: u32 = 38;

const SHADER: &str = "#version 450
layout (constant_id = 0) const int UNROLL = 4;
layout (local_size_x = 64) in;
layout (binding = 0) buffer A { vec4 head; float a[]; };
layout (binding = 1) uniform U { vec4 u[8]; };
layout (push_constant) uniform P { ivec4 w; int k; } p;
shared float tmp[64];
shared float sized[UNROLL * 16];
void main()
{
    uint i = gl_GlobalInvocationID.x;
    float local[16];
    local[i % 16u] = a[i * 7u];
    tmp[i] = u[i].x + head[p.k] + float(p.w[i % 4u]);
    sized[i] = local[i];
    barrier();
    a[i + 100u] = tmp[i + 1u] + sized[i + 1u];
}
";

/// The ids of `words` computed by GLSL.std.450 `UMin`, and its constants.
fn clamps_and_constants(words: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut clamps = Vec::new();
    let mut constants = Vec::new();
    for i in instructions(words).unwrap() {
        match i.op {
            op::EXT_INST if i.operand(3) == Some(GLSL_UMIN) => clamps.extend(i.operand(1)),
            op::CONSTANT | op::SPEC_CONSTANT | op::SPEC_CONSTANT_OP => {
                constants.extend(i.operand(1))
            }
            _ => {}
        }
    }
    (clamps, constants)
}

#[test]
fn every_computed_index_is_clamped() {
    const VECTOR_EXTRACT_DYNAMIC: u16 = 77;
    const VECTOR_INSERT_DYNAMIC: u16 = 78;
    let words = ok(SHADER).spirv;
    assert_valid(&words);
    let (clamps, constants) = clamps_and_constants(&words);
    let mut indices = 0;
    for i in instructions(&words).unwrap() {
        let operands: &[u32] = match i.op {
            // result type, result, base, indices...
            op::ACCESS_CHAIN | op::IN_BOUNDS_ACCESS_CHAIN => &i.words[4..],
            // result type, result, vector, index
            VECTOR_EXTRACT_DYNAMIC => &i.words[4..],
            VECTOR_INSERT_DYNAMIC => &i.words[5..],
            _ => continue,
        };
        for x in operands {
            assert!(
                clamps.contains(x) || constants.contains(x),
                "index %{x} of the instruction at word {} is not clamped:\n{}",
                i.at,
                disassemble(&words).unwrap_or_default()
            );
            indices += 1;
        }
    }
    assert!(indices >= 10, "{indices} indices");
}

/// An array sized by specialization constants is clamped to the size the
/// pipeline specializes, not to the placeholder naga compiled it with.
#[test]
fn a_specialized_size_clamps_at_the_specialized_length() {
    let words = ok(SHADER).spirv;
    let Some(d) = disassemble(&words) else {
        return;
    };
    let last = super::super::spec_expressions::PLACEHOLDER - 1;
    assert!(!d.contains(&format!(" {last}\n")), "{last} left in:\n{d}");
    assert!(
        d.lines()
            .any(|l| l.contains("OpSpecConstantOp") && l.contains(" ISub ")),
        "{d}"
    );
}

/// A constant index into an array sized by specialization constants is
/// clamped too: naga saw it in bounds of the placeholder length, but the
/// pipeline may specialize the array shorter.
#[test]
fn a_constant_index_into_a_specialized_size_is_clamped() {
    let text = SHADER.replace("    barrier();\n", "    sized[40] = 1.0;\n    barrier();\n");
    let words = ok(&text).spirv;
    assert_valid(&words);
    let insts = instructions(&words).unwrap();
    // `sized[40]`: its index is `min(40, length - 1)`, a specialization
    // constant (naga's plain chains index by constants or `UMin`s).
    let spec_ops: Vec<u32> = insts
        .iter()
        .filter(|i| i.op == op::SPEC_CONSTANT_OP)
        .filter_map(|i| i.operand(1))
        .collect();
    let chains: Vec<&[u32]> = insts
        .iter()
        .filter(|i| i.op == op::ACCESS_CHAIN)
        .map(|i| &i.words[4..])
        .collect();
    assert!(
        chains
            .iter()
            .any(|ix| ix.len() == 1 && spec_ops.contains(&ix[0])),
        "no access chain indexed by a clamp:\n{}",
        disassemble(&words).unwrap_or_default()
    );
}
