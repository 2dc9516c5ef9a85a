//! The f32 requantization: where the host allows it, and that it is exact there.

use super::{check_requant, qp, seed};
use crate::launch::{BlockAxis, Rewrite, ShufflePath};
use crate::quant::FLOAT_PACK_BIAS;
use crate::Requantization;
use crate::{Layout, PixelShuffle, Q8taError, Requant, Shape};
use ncnn_glsl_testkit::Rng;

/// The f32 requantization: refused at ties below zero (equal exponents make
/// them), allowed for most scale pairs, and wherever allowed exact in either
/// rounding of its multiply-add (`check_requant` checks every byte).
#[test]
fn float_requant_is_exact_where_allowed() {
    let r = Requant::new(qp(1.0, 0), qp(2.0, 0)).unwrap();
    assert_eq!(r.apply(-1), -1);
    assert_eq!(r.apply_float(-1, false), 0);
    assert!(!r.float_exact);
    let e = Requantization::Float;
    assert_eq!(e.spec_value(), 2);
    assert_eq!(e.shared_bytes(), 1024);
    let s = seed();
    eprintln!("seed {s}");
    let mut g = Rng::new(s);
    let mut exact = 0;
    let n = 400;
    for _ in 0..n {
        let scale = |g: &mut Rng| {
            f32::from_bits(((118 + g.below(16) as u32) << 23) | (g.next_u64() as u32 & 0x7f_ffff))
        };
        let zp = |g: &mut Rng| g.below(256) as i32 - 128;
        let (i, o) = (qp(scale(&mut g), zp(&mut g)), qp(scale(&mut g), zp(&mut g)));
        exact += Requant::new(i, o).unwrap().float_exact as usize;
        check_requant(i, o);
    }
    eprintln!("f32 requantization exact for {exact} of {n} random scale pairs");
    assert!(exact * 10 >= n * 9, "{exact} of {n}");
}

/// Asked for scales it is not exact for, the launch is an error naming the
/// ratio; with passthrough (no requantization) it is allowed.
#[test]
fn float_requant_is_refused_where_not_exact() {
    let input = Shape::new(1, 16, 4, 4);
    let output = Shape::new(1, 4, 8, 8);
    let k = Rewrite {
        path: ShufflePath::Quad,
        requant: Requantization::Float,
        blocks: BlockAxis::X,
        rows: 1,
    };
    let (c, c1w) = (Layout::Packed4C, Layout::Packed4C1W);
    let ps = PixelShuffle::new(input, output, 2, c, c1w, qp(1.0, 0), qp(2.0, 0)).unwrap();
    let e = ps.launch(Some(k), [4, 4, 1], [65535; 3]).unwrap_err();
    let inexact = |requantization| Q8taError::FloatInexact {
        requantization,
        ratio: 0.5,
    };
    assert_eq!(e, inexact("float"));
    assert!(
        e.to_string()
            .contains("the `float` requantization is not exact for the scale ratio 5e-1"),
        "{e}"
    );
    let mixed = Rewrite {
        requant: Requantization::Mixed,
        ..k
    };
    let e = ps.launch(Some(mixed), [4, 4, 1], [65535; 3]).unwrap_err();
    assert_eq!(e, inexact("mixed"));
    let same = PixelShuffle::new(input, output, 2, c, c1w, qp(1.0, 0), qp(1.0, 0)).unwrap();
    assert!(same.launch(Some(k), [4, 4, 1], [65535; 3]).is_ok());
    let exact = PixelShuffle::new(input, output, 2, c, c1w, qp(0.02, 3), qp(0.05, -7)).unwrap();
    assert!(exact.requant.float_exact);
    assert!(exact.launch(Some(k), [4, 4, 1], [65535; 3]).is_ok());
}

/// The shader's packing of two f32 results (`requant_float`): `y1 * 256 +
/// (y0 + 2^23 + 128 + 256 * 128)` is exact, fused or not, and its low 16
/// bits with the sign bits flipped are the two bytes, for every pair.
#[test]
fn the_float_packing_gives_both_bytes_for_every_pair() {
    for y0 in -128..=127i8 {
        for y1 in -128..=127i8 {
            let (a, b) = (f32::from(y0), f32::from(y1));
            for fused in [false, true] {
                let z = if fused {
                    b.mul_add(256.0, a + FLOAT_PACK_BIAS)
                } else {
                    b * 256.0 + (a + FLOAT_PACK_BIAS)
                };
                let half = (z.to_bits() & 0xffff) ^ 0x8080;
                assert_eq!(half, u32::from(y0 as u8) | u32::from(y1 as u8) << 8);
            }
        }
    }
}
