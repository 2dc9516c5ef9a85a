//! The three channels-packed int8 layouts (spec table) and packing between
//! NCHW `i8` tensors and their 32-bit words.
//!
//! Every layout keeps 4 consecutive channels `4j..4j+3` of one pixel in one
//! word, channel `c` in byte lane `c % 4` (bits `8 * (c % 4)` upward).

use std::fmt;

use super::error::Q8taError;
use super::shape::Shape;

/// A channels-packed int8 layout. The discriminant is the shaders' layout
/// code (the value of their `IN_LAYOUT` / `OUT_LAYOUT` axes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Layout {
    /// `PACKED_INT8_4W4C`: 16-byte blocks of 4 widths x 4 channels; width padded to 4.
    Packed4W4C = 0,
    /// `PACKED_INT8_4C` (NHWC): channel blocks innermost.
    Packed4C = 1,
    /// `PACKED_INT8_4C1W`: per row, channel block then width.
    Packed4C1W = 2,
}

impl Layout {
    /// The three layouts, in code order.
    pub const ALL: [Layout; 3] = [Layout::Packed4W4C, Layout::Packed4C, Layout::Packed4C1W];

    /// The shaders' axis value for this layout.
    pub const fn axis_value(self) -> i64 {
        self as u8 as i64
    }

    /// The short name the vector files use (`4W4C`, `4C`, `4C1W`).
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Packed4W4C => "4W4C",
            Layout::Packed4C => "4C",
            Layout::Packed4C1W => "4C1W",
        }
    }

    /// The layout of a short name, or of ExecuTorch's name (`PACKED_INT8_4C`).
    pub fn from_name(name: &str) -> Option<Layout> {
        let short = name.strip_prefix("PACKED_INT8_").unwrap_or(name);
        Layout::ALL.into_iter().find(|l| l.name() == short)
    }

    /// Word index of channel block `cb` (channels `4cb..4cb+3`) at `(n, h, w)`.
    pub const fn block_index(self, s: Shape, n: usize, cb: usize, h: usize, w: usize) -> usize {
        let row = n * s.h + h;
        match self {
            Layout::Packed4W4C => ((row * s.w4() + w / 4) * s.c4() + cb) * 4 + w % 4,
            Layout::Packed4C => (row * s.w + w) * s.c4() + cb,
            Layout::Packed4C1W => (row * s.c4() + cb) * s.w + w,
        }
    }

    /// Word index holding channel `c` at `(n, h, w)` (its lane is `c % 4`).
    pub const fn word_index(self, s: Shape, n: usize, c: usize, h: usize, w: usize) -> usize {
        self.block_index(s, n, c / 4, h, w)
    }

    /// Words in a tensor of shape `s`, padding included.
    pub const fn word_count(self, s: Shape) -> usize {
        match self {
            // Saturated: a shape past the shaders' indices is refused before
            // any operation counts its words (`Q8taError::TooLarge`).
            Layout::Packed4W4C => {
                s.n.saturating_mul(s.h)
                    .saturating_mul(s.w4())
                    .saturating_mul(s.c4())
                    .saturating_mul(4)
            }
            Layout::Packed4C | Layout::Packed4C1W => {
                s.n.saturating_mul(s.h)
                    .saturating_mul(s.w)
                    .saturating_mul(s.c4())
            }
        }
    }

    /// Bytes in a tensor of shape `s`, padding included.
    pub const fn byte_count(self, s: Shape) -> usize {
        self.word_count(s).saturating_mul(4)
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Byte lane `lane` of `word`, sign-extended.
pub(crate) const fn lane(word: u32, lane: usize) -> i8 {
    (word >> (8 * lane)) as u8 as i8
}

/// `word` with byte lane `lane` set to `v`.
pub(crate) const fn with_lane(word: u32, lane: usize, v: i8) -> u32 {
    (word & !(0xff << (8 * lane))) | ((v as u8 as u32) << (8 * lane))
}

/// A word whose four lanes are `v`.
pub(crate) const fn splat(v: i8) -> u32 {
    (v as u8 as u32) * 0x0101_0101
}

/// Packs an NCHW `i8` tensor into `layout`. Every padding byte (channel lanes
/// `c >= C`, 4W4C words at `w >= W`) is `zero_point`, so the whole buffer
/// dequantizes to a defined tensor.
pub fn pack(
    layout: Layout,
    shape: Shape,
    data: &[i8],
    zero_point: i8,
) -> Result<Vec<u32>, Q8taError> {
    if data.len() < shape.elements() {
        return Err(Q8taError::BufferTooSmall {
            what: "NCHW input",
            needed: shape.elements(),
            len: data.len(),
        });
    }
    let mut words = vec![splat(zero_point); layout.word_count(shape)];
    for n in 0..shape.n {
        for c in 0..shape.c {
            for h in 0..shape.h {
                for w in 0..shape.w {
                    let i = layout.word_index(shape, n, c, h, w);
                    words[i] = with_lane(words[i], c % 4, data[shape.nchw_index(n, c, h, w)]);
                }
            }
        }
    }
    Ok(words)
}

/// Unpacks `layout` words into an NCHW `i8` tensor. Padding is not read.
pub fn unpack(layout: Layout, shape: Shape, words: &[u32]) -> Result<Vec<i8>, Q8taError> {
    let needed = layout.word_count(shape);
    if words.len() < needed {
        return Err(Q8taError::BufferTooSmall {
            what: "packed input",
            needed,
            len: words.len(),
        });
    }
    let mut out = vec![0i8; shape.elements()];
    for n in 0..shape.n {
        for c in 0..shape.c {
            for h in 0..shape.h {
                for w in 0..shape.w {
                    let word = words[layout.word_index(shape, n, c, h, w)];
                    out[shape.nchw_index(n, c, h, w)] = lane(word, c % 4);
                }
            }
        }
    }
    Ok(out)
}
