//! `dotPacked4x8EXT` (dot_product.rs): the signed and unsigned forms compile
//! to `OpSDot` / `OpUDot` and ask for the device feature; the mixed-sign form
//! is refused at the user's call. What it computes is checked on lavapipe
//! against the exact sum (ncnn-glsl-runtime/tests/coverage_gpu.rs).

use super::{disassemble, errs, ok};

const SHADER: &str = "#version 450
#extension GL_EXT_integer_dot_product : require
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer a_blob { uint a[]; };
layout (binding = 1) writeonly buffer r_blob { int r[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    int s = dotPacked4x8EXT(int(a[2 * i]), int(a[2 * i + 1]));
    uint u = dotPacked4x8EXT(a[2 * i], a[2 * i + 1]);
    r[2 * i] = s;
    r[2 * i + 1] = int(u);
}
";

#[test]
fn packed_dot_products_compile_to_the_dot_instructions_and_ask_for_the_feature() {
    let c = ok(SHADER);
    let req = &c.reflection.requirements;
    assert_eq!(&*req.features, ["shaderIntegerDotProduct"]);
    assert_eq!(&*req.extensions, ["VK_KHR_shader_integer_dot_product"]);
    let Some(d) = disassemble(&c.spirv) else {
        return;
    };
    assert!(d.contains("OpSDot") && d.contains("OpUDot"), "{d}");
    assert!(d.contains("PackedVectorFormat4x8Bit"), "{d}");
}

#[test]
fn the_mixed_sign_form_is_refused_at_the_call() {
    let text = SHADER.replace(
        "int s = dotPacked4x8EXT(int(a[2 * i]), int(a[2 * i + 1]));",
        "int s = dotPacked4x8EXT(int(a[2 * i]), a[2 * i + 1]);",
    );
    let d = errs(&text, "fp32");
    let e = &d.0[0];
    assert!(e.message.contains("the mixed-sign form"), "{e}");
    assert_eq!(e.span.as_ref().map(|s| s.line), Some(9), "{e}");
}
