//! The NCHW shape of a q8ta tensor.

use std::fmt;

/// An NCHW shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Batch.
    pub n: usize,
    /// Channels.
    pub c: usize,
    /// Height.
    pub h: usize,
    /// Width.
    pub w: usize,
}

impl Shape {
    /// `[n, c, h, w]`.
    pub const fn new(n: usize, c: usize, h: usize, w: usize) -> Self {
        Shape { n, c, h, w }
    }

    /// From `[n, c, h, w]` as the vector files write it.
    pub fn from_dims(d: [usize; 4]) -> Self {
        Shape::new(d[0], d[1], d[2], d[3])
    }

    /// Channel blocks `ceil(C / 4)`.
    pub const fn c4(self) -> usize {
        self.c.div_ceil(4)
    }

    /// Width blocks `ceil(W / 4)` (4W4C only pads width).
    pub const fn w4(self) -> usize {
        self.w.div_ceil(4)
    }

    /// Elements `N * C * H * W` of the NCHW tensor, saturated at
    /// `usize::MAX` (every operation refuses a shape past the shaders'
    /// 32-bit indices before it counts).
    pub const fn elements(self) -> usize {
        self.n
            .saturating_mul(self.c)
            .saturating_mul(self.h)
            .saturating_mul(self.w)
    }

    /// NCHW element index of `(n, c, h, w)`.
    pub const fn nchw_index(self, n: usize, c: usize, h: usize, w: usize) -> usize {
        ((n * self.c + c) * self.h + h) * self.w + w
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}, {}, {}]", self.n, self.c, self.h, self.w)
    }
}
