//! The q8ta shaders' variant sets, compiled at build time from
//! `shaders/q8ta_*.comp` (the macro finds them by name in the shader library
//! `ncnn-glsl-macros` carries), and the context options that enable what they
//! need.

use ncnn_glsl_runtime::include_ncnn_shader;
use ncnn_glsl_runtime::VariantSet;

use ncnn_glsl_runtime::ContextOptions;

/// `shaders/q8ta_pixel_shuffle.comp`: the seed's pixel shuffle (a 4x4 byte
/// transpose, whole output words; its paths are specialization constants).
pub static PIXEL_SHUFFLE: &VariantSet = include_ncnn_shader!("q8ta_pixel_shuffle.comp");
/// `shaders/q8ta_pixel_shuffle_baseline.comp`: the kernel the seed replaces
/// (one invocation per output word).
pub static PIXEL_SHUFFLE_BASELINE: &VariantSet =
    include_ncnn_shader!("q8ta_pixel_shuffle_baseline.comp");
/// `shaders/q8ta_quantize.comp`: float NCHW (sfp) to an int8 layout.
pub static QUANTIZE: &VariantSet = include_ncnn_shader!("q8ta_quantize.comp");
/// `shaders/q8ta_dequantize.comp`: an int8 layout to float NCHW (sfp).
pub static DEQUANTIZE: &VariantSet = include_ncnn_shader!("q8ta_dequantize.comp");

/// Every q8ta variant set: what a context that runs [`super::Q8taOps`] must
/// be opened for ([`context_options`]).
pub static SETS: &[&VariantSet] = &[PIXEL_SHUFFLE, PIXEL_SHUFFLE_BASELINE, QUANTIZE, DEQUANTIZE];

/// Options for a context that runs the q8ta operations: the default device,
/// with the features the q8ta variants can use enabled
/// ([`ContextOptions::variant_sets`] = [`SETS`]). Add your own sets, or set
/// other fields, before opening it:
///
/// ```no_run
/// # use ncnn_glsl_runtime::{Context, Options};
/// let ctx = Context::new(ncnn_glsl_q8ta::context_options())?;
/// let ops = ncnn_glsl_q8ta::Q8taOps::new(&ctx, Options::NCNN_DEFAULT)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn context_options() -> ContextOptions {
    ContextOptions {
        variant_sets: SETS.to_vec(),
        ..ContextOptions::default()
    }
}
