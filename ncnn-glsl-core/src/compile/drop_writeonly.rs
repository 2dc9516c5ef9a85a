//! `writeonly` on a storage buffer: naga's validator rejects it
//! (`StorageAddressSpaceWriteOnlyNotSupported`), glslang accepts it and it
//! only promises the shader never reads the buffer. Blanking the qualifier
//! changes no code; the binding is remembered so reflection still reports
//! the access the user declared.

use super::source_text::{brace_depths, layout_binding, overwrite};
use super::tokens::Token;

/// Blanks every `writeonly` that qualifies a storage buffer (the whole block
/// or one of its members) and returns the `(set, binding)` of those blocks.
/// `writeonly` elsewhere (storage images, where naga supports it) is left alone.
pub(crate) fn drop_writeonly(text: &mut String, toks: &[Token]) -> Vec<(u32, u32)> {
    let src = text.clone();
    let depth = brace_depths(&src, toks);
    let mut found = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.text(&src) != "writeonly" || depth[i] > 1 {
            continue;
        }
        // The `{` that opens the block when the qualifier is on a member.
        let open = if depth[i] == 1 {
            match (0..i)
                .rev()
                .find(|&k| depth[k] == 0 && toks[k].is_punct(&src, '{'))
            {
                Some(k) => k,
                None => continue,
            }
        } else {
            i
        };
        // The declaration's head: from the end of the previous declaration
        // to the block's `{` (or the declaration's end).
        let start = (0..open)
            .rev()
            .find(|&k| {
                depth[k] == 0 && (toks[k].is_punct(&src, ';') || toks[k].is_punct(&src, '}'))
            })
            .map_or(0, |k| k + 1);
        let end = (open..toks.len())
            .find(|&k| {
                depth[k] == 0 && (toks[k].is_punct(&src, ';') || toks[k].is_punct(&src, '{'))
            })
            .unwrap_or(toks.len());
        let head = &toks[start..end];
        if !head.iter().any(|t| t.text(&src) == "buffer") {
            continue;
        }
        overwrite(text, t.start..t.end, "");
        if let Some(b) = layout_binding(&src, head) {
            if !found.contains(&b) {
                found.push(b);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    #[test]
    fn blanks_buffer_qualifiers_only() {
        let src = "layout(set = 1, binding = 2) writeonly buffer A { float a[]; };\n\
                   layout(binding = 3) buffer B { writeonly float b[]; } bb;\n\
                   layout(binding = 4, rgba32f) writeonly uniform image3D img;\n";
        let mut text = src.to_string();
        let found = drop_writeonly(&mut text, &tokenize(src));
        assert_eq!(found, [(1, 2), (0, 3)]);
        assert_eq!(text.len(), src.len());
        assert!(!text.lines().next().unwrap().contains("writeonly"));
        assert!(!text.lines().nth(1).unwrap().contains("writeonly"));
        assert!(text.lines().nth(2).unwrap().contains("writeonly"));
    }
}
