//! Error bounds of the shaders' expressions: [`E`], a value with the bound
//! of its error, and [`Prec`], what the Vulkan spec (and, for `sin` and
//! `cos`, lavapipe) allows each transcendental function.

use ncnn_glsl_testkit::ncnn_layers::Mode;

/// A value and the bound of its absolute error, in units of the
/// arithmetic's epsilon (2^-23 in fp32, 2^-10 in fp16): a result `r`
/// within `k` ulps has `err = k * |r|`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct E {
    /// The value.
    pub(crate) v: f64,
    /// Its error bound.
    pub(crate) e: f64,
}

impl E {
    /// An exact value (an input as stored).
    pub(crate) fn x(v: f64) -> E {
        E { v, e: 0.0 }
    }

    /// A constant of the shader, rounded to the arithmetic.
    pub(crate) fn c(v: f64) -> E {
        E { v, e: v.abs() }
    }

    /// `self + o`, correctly rounded.
    pub(crate) fn add(self, o: E) -> E {
        let v = self.v + o.v;
        E {
            v,
            e: self.e + o.e + v.abs(),
        }
    }

    /// `self - o`, correctly rounded.
    pub(crate) fn sub(self, o: E) -> E {
        let v = self.v - o.v;
        E {
            v,
            e: self.e + o.e + v.abs(),
        }
    }

    /// `self * o`, correctly rounded.
    pub(crate) fn mul(self, o: E) -> E {
        let v = self.v * o.v;
        E {
            v,
            e: self.e * o.v.abs() + o.e * self.v.abs() + v.abs(),
        }
    }

    /// `-self`, exact.
    pub(crate) fn neg(self) -> E {
        E {
            v: -self.v,
            e: self.e,
        }
    }

    /// `self / o`: 2.5 ulp (OpFDiv).
    pub(crate) fn div(self, o: E) -> E {
        let v = self.v / o.v;
        E {
            v,
            e: (self.e + v.abs() * o.e) / o.v.abs() + 2.5 * v.abs(),
        }
    }
}

/// The precision of the transcendental functions a mode's arithmetic is
/// held to.
///
/// The Vulkan spec ("Precision and Operation of SPIR-V Instructions"):
/// `exp`: (3 + 2|x|) ulp in fp32, (1 + 2|x|) in fp16; `log`: 3 ulp outside
/// [0.5, 2], inside an absolute 2^-21 (fp32) or 2^-7 (fp16); `inversesqrt`
/// 2 ulp; `sqrt` from `1 / inversesqrt`; `pow` from `exp2(y * log2(x))`;
/// `sin`, `cos`: absolute 2^-11 (fp32) or 2^-7 (fp16) on [-pi, pi]; `atan`,
/// `atan2`: 4096 ulp (fp32) or 5 ulp (fp16); `tan`, `sinh`, `cosh`, `tanh`,
/// `asin`, `acos`, `asinh`, `acosh`, `atanh` from their definitions in those.
///
/// `sin` and `cos` are held to more than the spec (see [`Prec::sin`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prec {
    /// fp16 arithmetic.
    fp16: bool,
}

impl Prec {
    /// The precision of the mode's `afp` arithmetic.
    pub(crate) fn of(mode: &Mode) -> Prec {
        Prec {
            fp16: mode.fp16_arithmetic(),
        }
    }

    /// One unit of the arithmetic's epsilon, as a power of two.
    fn eps(self) -> f64 {
        if self.fp16 {
            (2.0f64).powi(-10)
        } else {
            (2.0f64).powi(-23)
        }
    }

    /// An absolute error `a`, in units of the epsilon.
    fn abs(self, a: f64) -> f64 {
        a / self.eps()
    }

    /// `exp(a)`.
    pub(crate) fn exp(self, a: E) -> E {
        let v = a.v.exp();
        let ulp = if self.fp16 { 1.0 } else { 3.0 } + 2.0 * a.v.abs();
        E {
            v,
            e: ulp * v + v * a.e,
        }
    }

    /// `log(a)` (`a` > 0).
    pub(crate) fn log(self, a: E) -> E {
        let v = a.v.ln();
        let own = if (0.5..=2.0).contains(&a.v) {
            self.abs(if self.fp16 {
                (2.0f64).powi(-7)
            } else {
                (2.0f64).powi(-21)
            })
        } else {
            3.0 * v.abs()
        };
        E {
            v,
            e: own + a.e / a.v,
        }
    }

    /// `log2(a)` (`a` > 0).
    pub(crate) fn log2(self, a: E) -> E {
        let l = self.log(a);
        E {
            v: a.v.log2(),
            e: l.e / std::f64::consts::LN_2,
        }
    }

    /// `exp2(a)`.
    pub(crate) fn exp2(self, a: E) -> E {
        let v = a.v.exp2();
        let ulp = if self.fp16 { 1.0 } else { 3.0 } + 2.0 * a.v.abs();
        E {
            v,
            e: ulp * v + v * std::f64::consts::LN_2 * a.e,
        }
    }

    /// `pow(a, b)`, inherited from `exp2(b * log2(a))` (`a` > 0).
    pub(crate) fn pow(self, a: E, b: E) -> E {
        let r = self.exp2(b.mul(self.log2(a)));
        E {
            v: a.v.powf(b.v),
            e: r.e,
        }
    }

    /// `inversesqrt(a)`: 2 ulp.
    pub(crate) fn rsqrt(self, a: E) -> E {
        let v = 1.0 / a.v.sqrt();
        E {
            v,
            e: 2.0 * v + v * a.e / (2.0 * a.v),
        }
    }

    /// `sqrt(a)`, inherited from `1 / inversesqrt(a)`.
    pub(crate) fn sqrt(self, a: E) -> E {
        let r = E::x(1.0).div(self.rsqrt(a));
        E {
            v: a.v.sqrt(),
            e: r.e,
        }
    }

    /// `sin(a)` on [-pi, pi]. The spec allows an absolute 2^-11 (fp32,
    /// 4096 units) or 2^-7 (fp16); lavapipe is within a few ulps, so the
    /// bound is that of a correctly rounded `sin` of the argument rounded
    /// once: `|sin a| + |a cos a|`.
    pub(crate) fn sin(self, a: E) -> E {
        let (s, c) = (a.v.sin(), a.v.cos());
        E {
            v: s,
            e: s.abs() + (a.v * c).abs() + c.abs() * a.e,
        }
    }

    /// `cos(a)` on [-pi, pi], as [`Prec::sin`]: `|cos a| + |a sin a|`.
    pub(crate) fn cos(self, a: E) -> E {
        let (s, c) = (a.v.sin(), a.v.cos());
        E {
            v: c,
            e: c.abs() + (a.v * s).abs() + s.abs() * a.e,
        }
    }

    /// `atan2(y, x)`: 4096 ulp (fp32), 5 ulp (fp16). The spec's bound:
    /// lavapipe's `atan` is some hundred ulps off in fp32, its `asin` (from
    /// this) some thousand.
    pub(crate) fn atan2(self, y: E, x: E) -> E {
        let v = y.v.atan2(x.v);
        let ulp = if self.fp16 { 5.0 } else { 4096.0 };
        let r2 = x.v * x.v + y.v * y.v;
        E {
            v,
            e: ulp * v.abs() + (x.v.abs() * y.e + y.v.abs() * x.e) / r2,
        }
    }

    /// `tanh(a)`, inherited from `sinh(a) / cosh(a)`, those from `exp`.
    pub(crate) fn tanh(self, a: E) -> E {
        let (ep, em) = (self.exp(a), self.exp(a.neg()));
        let half = E::x(0.5);
        let t = ep.sub(em).mul(half).div(ep.add(em).mul(half));
        E {
            v: a.v.tanh(),
            e: t.e,
        }
    }
}
