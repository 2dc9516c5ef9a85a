//! ncnn's convolution family, run as ncnn runs it: Convolution (the 1x1
//! stride-1 shader with and without local memory, the direct shader, the
//! sgemm shader), ConvolutionDepthWise (depth-wise and grouped, every
//! packing pair), Deconvolution (the gemm + col2im pair and the direct
//! shader), InnerProduct (direct, sum8 + reduce, and the 2-D gemm shaders),
//! Gemm (`gemm.comp`), and the activations every one of them fuses
//! (`vulkan_activation.comp`), each against an f64 reference written from
//! the layer's definition (`ncnn_glsl_testkit::ncnn_layers`).
//!
//! Each case builds what the layer's `create_pipeline` / `upload_model`
//! would: the weights in the layer's packed layout, the specialization
//! constants (the shape specialized, or zero and pushed), the local size and
//! the dispatcher shape of its `forward`. The cooperative-matrix, int8 and
//! winograd paths are left out: shapes are chosen so ncnn's default options
//! (`use_sgemm_convolution`, `use_winograd_convolution` on) pick the path
//! each case names. Paddings, crops and packing conversions, which ncnn runs
//! as other layers, are avoided by the shapes chosen.
//!
//! Buffers are sized to whole 16-scalar blocks: the shaders read `sfp` blobs
//! through `sfpvec4` (and `sfpmat4`) views, the runtime binds whole elements
//! of a view only, and past a blob's end ncnn's allocator has the memory a
//! straddling vector reads. The room past a bias, which ncnn leaves
//! uninitialized, holds NaN, so a padded lane that reached a stored output
//! would show.

#[path = "conv/activation.rs"]
mod activation;
#[path = "conv/common.rs"]
mod common;
#[path = "conv/convolution.rs"]
mod convolution;
#[path = "conv/deconvolution.rs"]
mod deconvolution;
#[path = "conv/depthwise.rs"]
mod depthwise;
#[path = "conv/gemm.rs"]
mod gemm;
#[path = "conv/innerproduct.rs"]
mod innerproduct;

use ncnn_glsl_testkit::ncnn_layers::suite;

#[test]
fn convolution_1x1s1d1() {
    suite(&[("convolution_1x1", convolution::conv1x1)]);
}

#[test]
fn convolution_direct() {
    suite(&[("convolution_direct", convolution::conv_direct)]);
}

#[test]
fn convolution_gemm() {
    suite(&[("convolution_gemm", convolution::conv_gemm)]);
}

#[test]
fn convolution_depthwise() {
    suite(&[("convolutiondepthwise", depthwise::depthwise)]);
}

#[test]
fn deconvolution_gemm_and_direct() {
    suite(&[("deconvolution", deconvolution::deconvolution)]);
}

#[test]
fn innerproduct_all_paths() {
    suite(&[("innerproduct", innerproduct::innerproduct)]);
}

#[test]
fn gemm_layer() {
    suite(&[("gemm", gemm::gemm)]);
}

#[test]
fn fused_activations() {
    suite(&[("activations", activation::activations)]);
}
