#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ncnn_glsl_fuzz::fuzz(data, ncnn_glsl_fuzz::entry::run_blob_words);
});
