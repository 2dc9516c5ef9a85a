//! `layout(local_size_x_id = N) in;`: naga's GLSL frontend stops at it
//! ("Unexpected qualifier"). It becomes the literal size (the one given with
//! `local_size_x = L`, else 1 as in glslang), and the spec ids are kept so the
//! runtime can patch `OpExecutionMode LocalSize` when it specializes.
//!
//! A shader that declares no local size at all takes the pipeline's, as in
//! ncnn: none of ncnn's shaders declares one, and each layer sets it per
//! pipeline (ncnn patches `LocalSize` and drops its ids 233-235 before
//! creating the module). Here such a shader compiles as if it declared
//! `local_size_{x,y,z}_id = 233, 234, 235` at size 1.

use super::source_text::{int_literal, overwrite};
use super::tokens::Token;

/// The spec ids ncnn gives the three dimensions of the pipeline's local
/// size; a shader that declares no local size has them.
pub(crate) const NCNN_IDS: [u32; 3] = [233, 234, 235];

/// Whether the text names a local size dimension anywhere
/// (`local_size_{x,y,z}` or `local_size_{x,y,z}_id`).
pub(crate) fn declares_local_size(src: &str, toks: &[Token]) -> bool {
    toks.iter().any(|t| {
        let name = t.text(src);
        let name = name.strip_suffix("_id").unwrap_or(name);
        matches!(name, "local_size_x" | "local_size_y" | "local_size_z")
    })
}

/// The spec id of each dimension: those of the shader's `local_size_*_id`
/// (each rewritten to a literal), or ncnn's where it declares no local size.
pub(crate) fn local_size_ids(text: &mut String, toks: &[Token]) -> [Option<u32>; 3] {
    if declares_local_size(text, toks) {
        rewrite_local_size_ids(text, toks)
    } else {
        NCNN_IDS.map(Some)
    }
}

/// Rewrites every `local_size_{x,y,z}_id = N` and returns the spec id of each
/// dimension that had one.
pub(crate) fn rewrite_local_size_ids(text: &mut String, toks: &[Token]) -> [Option<u32>; 3] {
    let src = text.clone();
    let dims = ["local_size_x", "local_size_y", "local_size_z"];
    let assigned =
        |i: usize| toks.get(i + 1).is_some_and(|t| t.is_punct(&src, '=')) && i + 2 < toks.len();
    let has_literal: Vec<bool> = dims
        .iter()
        .map(|d| {
            toks.iter()
                .enumerate()
                .any(|(i, t)| t.text(&src) == *d && assigned(i))
        })
        .collect();
    let mut ids = [None; 3];
    // Commas already removed with an earlier item: each dropped item takes
    // one comma of its own, so the list stays well formed.
    let mut used_commas: Vec<usize> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Some(dim) = dims
            .iter()
            .position(|d| t.text(&src).strip_suffix("_id") == Some(d))
        else {
            continue;
        };
        if !assigned(i) {
            continue;
        }
        let Some(id) = int_literal(&src, &toks[i + 2]) else {
            continue;
        };
        ids[dim] = Some(id);
        let item = t.start..toks[i + 2].end;
        let comma = |k: usize| {
            toks.get(k).is_some_and(|t| t.is_punct(&src, ',')) && !used_commas.contains(&k)
        };
        let prev_comma = i > 0 && comma(i - 1);
        let next_comma = comma(i + 3);
        if has_literal[dim] && (prev_comma || next_comma) {
            // The literal elsewhere is the default; drop the item and one comma.
            let range = if prev_comma {
                used_commas.push(i - 1);
                toks[i - 1].start..item.end
            } else {
                used_commas.push(i + 3);
                item.start..toks[i + 3].end
            };
            overwrite(text, range, "");
        } else if !has_literal[dim] {
            // `local_size_x_id=N` is always longer than `local_size_x=1`.
            overwrite(text, item, &format!("{}=1", dims[dim]));
        }
    }
    ids
}

/// The most invocations per dimension naga's validator takes (its
/// `MAX_WORKGROUP_SIZE`); the device's own limits are checked when a
/// pipeline is made.
pub(crate) const MAX_LOCAL_SIZE: u32 = 0x4000;

/// Every `local_size_{x,y,z} = L` with `L` 0 or past [`MAX_LOCAL_SIZE`]:
/// its byte range and what is wrong, for an error at the token (naga's
/// validator says only "Workgroup size is out of range", with no place).
pub(crate) fn out_of_range(src: &str, toks: &[Token]) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let name = t.text(src);
        if !matches!(name, "local_size_x" | "local_size_y" | "local_size_z")
            || !toks.get(i + 1).is_some_and(|e| e.is_punct(src, '='))
        {
            continue;
        }
        let Some(v) = toks.get(i + 2).and_then(|n| int_literal(src, n)) else {
            continue;
        };
        let range = t.start..toks[i + 2].end;
        if v == 0 {
            out.push((
                range,
                format!("`{name} = 0`: a workgroup dimension must be at least 1"),
            ));
        } else if v > MAX_LOCAL_SIZE {
            out.push((
                range,
                format!("`{name} = {v}` is past {MAX_LOCAL_SIZE}, the most naga accepts in one dimension"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    #[test]
    fn sizes_of_zero_and_past_the_limit_are_found() {
        let src = "layout (local_size_x = 0, local_size_y = 16384, local_size_z = 16385) in;";
        let found: Vec<String> = out_of_range(src, &tokenize(src))
            .into_iter()
            .map(|(r, _)| src[r].to_string())
            .collect();
        assert_eq!(found, ["local_size_x = 0", "local_size_z = 16385"]);
    }

    #[test]
    fn a_shader_without_a_local_size_takes_ncnns_ids() {
        let src = "#version 450\nlayout (binding = 0) buffer b { uint d[]; };\nvoid main() {}\n";
        let mut text = src.to_string();
        assert_eq!(
            local_size_ids(&mut text, &tokenize(src)),
            [Some(233), Some(234), Some(235)]
        );
        assert_eq!(text, src);
        let src = "#version 450\nlayout (local_size_y = 2) in;\nvoid main() {}\n";
        let mut text = src.to_string();
        assert_eq!(local_size_ids(&mut text, &tokenize(src)), [None; 3]);
    }

    #[test]
    fn ids_become_literals() {
        let src = "layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z = 4) in;";
        let mut text = src.to_string();
        let ids = rewrite_local_size_ids(&mut text, &tokenize(src));
        assert_eq!(ids, [Some(233), Some(234), None]);
        assert_eq!(text.len(), src.len());
        let squeezed: String = text.split_whitespace().collect();
        assert_eq!(
            squeezed,
            "layout(local_size_x=1,local_size_y=1,local_size_z=4)in;"
        );
    }

    #[test]
    fn ids_after_their_literals_leave_no_stray_comma() {
        for src in [
            "layout(local_size_x = 4, local_size_y = 16, local_size_z = 1, local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;",
            "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2, local_size_x = 4, local_size_y = 16, local_size_z = 1) in;",
            "layout(local_size_x_id = 0, local_size_x = 4, local_size_y_id = 1, local_size_y = 16, local_size_z_id = 2, local_size_z = 1) in;",
        ] {
            let mut text = src.to_string();
            let ids = rewrite_local_size_ids(&mut text, &tokenize(src));
            assert_eq!(ids, [Some(0), Some(1), Some(2)], "{src}");
            assert_eq!(text.len(), src.len());
            let squeezed: String = text.split_whitespace().collect();
            assert_eq!(squeezed, "layout(local_size_x=4,local_size_y=16,local_size_z=1)in;", "{src}");
        }
    }

    #[test]
    fn a_literal_default_wins() {
        let src = "layout(local_size_x = 64, local_size_x_id = 0) in;";
        let mut text = src.to_string();
        let ids = rewrite_local_size_ids(&mut text, &tokenize(src));
        assert_eq!(ids, [Some(0), None, None]);
        let squeezed: String = text.split_whitespace().collect();
        assert_eq!(squeezed, "layout(local_size_x=64)in;");
    }

    #[test]
    fn a_comment_with_wide_chars_inside_the_item_is_fine() {
        let src = "layout(local_size_x_id /* é→ */ = 7) in;";
        let mut text = src.to_string();
        assert_eq!(
            rewrite_local_size_ids(&mut text, &tokenize(src)),
            [Some(7), None, None]
        );
        assert_eq!(text.len(), src.len());
        assert_eq!(
            text.split_whitespace().collect::<String>(),
            "layout(local_size_x=1)in;"
        );
    }
}
