//! Golden-vector files in the format of `ncnn-glsl-q8ta/tests/data/q8ta_pixel_shuffle.json`
//! (docs/q8ta-pixel-shuffle.md, "Golden vectors"):
//! whole input and expected output buffers of pixel-shuffle cases, padding
//! included, as little-endian hex. One reader for the example's `--vectors`
//! and the tests.

use serde_json::Value;

use super::layout::Layout;
use super::quant::QuantParams;
use super::shape::Shape;

/// One case of a vector file.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorCase {
    /// The case's name.
    pub name: String,
    /// Input shape `[N, C_in, H, W]`.
    pub input_shape: Shape,
    /// Output shape `[N, C_out, 2H, 2W]`, as the file gives it.
    pub output_shape: Shape,
    /// Input layout.
    pub in_layout: Layout,
    /// Output layout.
    pub out_layout: Layout,
    /// Input quantization (the scale from its exact f32 bits).
    pub input_params: QuantParams,
    /// Output quantization.
    pub output_params: QuantParams,
    /// The decimal `scale_in` of the file, to check against the bits.
    pub scale_in_decimal: f64,
    /// Whether the file calls the case a passthrough.
    pub passthrough: bool,
    /// The whole input buffer.
    pub input: Vec<u32>,
    /// The whole expected output buffer.
    pub expected: Vec<u32>,
}

/// The cases of a vector file, unparsed: each is read on its own with
/// [`VectorCase::from_json`], so one bad case does not hide the others.
pub fn cases(text: &str) -> Result<Vec<Value>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    v["cases"]
        .as_array()
        .cloned()
        .ok_or_else(|| "no `cases` array".to_string())
}

impl VectorCase {
    /// One case; the error names the field that is wrong.
    pub fn from_json(c: &Value) -> Result<VectorCase, String> {
        let str_field = |k: &str| {
            c[k].as_str()
                .ok_or_else(|| format!("`{k}` is not a string"))
        };
        let int_field = |k: &str| {
            c[k].as_i64()
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(|| format!("`{k}` is not an integer"))
        };
        let shape = |k: &str| -> Result<Shape, String> {
            let d: Vec<usize> = c[k]
                .as_array()
                .ok_or_else(|| format!("`{k}` is not an array"))?
                .iter()
                .map(|v| v.as_u64().map(|u| u as usize))
                .collect::<Option<_>>()
                .ok_or_else(|| format!("`{k}` holds a bad dimension"))?;
            let d: [usize; 4] = d
                .try_into()
                .map_err(|_| format!("`{k}` is not 4 dimensions"))?;
            Ok(Shape::from_dims(d))
        };
        let scale = |k: &str| -> Result<f32, String> {
            let s = str_field(k)?;
            u32::from_str_radix(s.trim_start_matches("0x"), 16)
                .map(f32::from_bits)
                .map_err(|e| format!("`{k}` = `{s}`: {e}"))
        };
        let layout = |k: &str| -> Result<Layout, String> {
            let s = str_field(k)?;
            Layout::from_name(s).ok_or_else(|| format!("`{k}` = `{s}` is not a layout"))
        };
        let params = |s: &str, z: &str, what: &'static str| -> Result<QuantParams, String> {
            QuantParams::new(scale(s)?, int_field(z)?, what).map_err(|e| e.to_string())
        };
        Ok(VectorCase {
            name: str_field("name")?.to_string(),
            input_shape: shape("input_shape")?,
            output_shape: shape("output_shape")?,
            in_layout: layout("in_layout")?,
            out_layout: layout("out_layout")?,
            input_params: params("scale_in_bits", "zp_in", "input")?,
            output_params: params("scale_out_bits", "zp_out", "output")?,
            scale_in_decimal: c["scale_in"].as_f64().ok_or("`scale_in` is not a number")?,
            passthrough: c["passthrough"]
                .as_bool()
                .ok_or("`passthrough` is not a boolean")?,
            input: hex_words(str_field("input_hex")?).map_err(|e| format!("`input_hex`: {e}"))?,
            expected: hex_words(str_field("expected_output_hex")?)
                .map_err(|e| format!("`expected_output_hex`: {e}"))?,
        })
    }
}

/// Little-endian 32-bit words from hex; whole words only.
pub fn hex_words(s: &str) -> Result<Vec<u32>, String> {
    if s.len() % 8 != 0 || !s.is_ascii() {
        return Err(format!(
            "{} hex digits do not make whole 32-bit words",
            s.len()
        ));
    }
    (0..s.len())
        .step_by(8)
        .map(|i| {
            let mut w = [0u8; 4];
            for (k, b) in w.iter_mut().enumerate() {
                let j = i + 2 * k;
                *b = u8::from_str_radix(&s[j..j + 2], 16).map_err(|e| format!("at {j}: {e}"))?;
            }
            Ok(u32::from_le_bytes(w))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_whole_little_endian_words() {
        assert_eq!(
            hex_words("0102030405060708"),
            Ok(vec![0x0403_0201, 0x0807_0605])
        );
        assert!(hex_words("010203")
            .unwrap_err()
            .contains("whole 32-bit words"));
        assert!(hex_words("zz000000").is_err());
    }

    #[test]
    fn a_bad_field_is_named() {
        let e = VectorCase::from_json(&serde_json::json!({"name": "x", "input_shape": [1, 4, 1]}))
            .unwrap_err();
        assert!(e.contains("`input_shape` is not 4 dimensions"), "{e}");
    }
}
