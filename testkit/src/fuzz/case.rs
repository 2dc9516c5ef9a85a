//! The case of a generated program besides its text: the specialization
//! values (valid ones, or ones that break an array's length), the
//! push-constant bytes, and each binding's bytes before the dispatch.

use half::f16;
use ncnn_glsl_runtime::SpecValue;

use super::gen::Gen;
use super::program::{Access, BufElem};
use super::{Class, Program};
use crate::Rng;

/// The most elements an array may have at valid values (so `shared`
/// memory and loops stay small).
const MAX_LEN: i64 = 64;

/// The poison of output bytes: odd, NaN-ish, so an element left unwritten shows.
pub const POISON: [u8; 4] = [0xde, 0xad, 0xbe, 0xef];

impl Gen {
    /// The specialization values of `class`, and for [`Class::BadSize`] the
    /// names an error may give (the broken arrays and the constants behind
    /// their lengths; empty where no value could break one, and the program
    /// is then an in-range one).
    pub fn spec_values(&mut self, class: Class) -> (Vec<(u32, SpecValue)>, Vec<String>) {
        let mut values = Vec::new();
        if let Some(w) = self.shader.specs.iter().find(|s| s.psc) {
            // 0 reads the push constant; any other value is used as it is.
            if self.rng.below(2) == 0 {
                values.push((w.id, SpecValue::Int(1 + self.rng.below(20) as i32)));
            }
        }
        let specs: Vec<(u32, String, bool)> = self
            .shader
            .specs
            .iter()
            .filter(|s| !s.psc)
            .map(|s| (s.id, s.name.clone(), s.uint))
            .collect();
        if class == Class::BadSize && !specs.is_empty() {
            for _ in 0..64 {
                let (id, name, uint) = specs[self.rng.below(specs.len() as u64) as usize].clone();
                let v = if uint {
                    let vs = [0u32, u32::MAX, 0x8000_0000, 1 << 20, 1 << 28, 0x7fff_ffff];
                    SpecValue::Uint(vs[self.rng.below(vs.len() as u64) as usize])
                } else {
                    let vs = [0, -1, -2, i32::MIN, i32::MAX, 1 << 20, 1 << 28];
                    SpecValue::Int(vs[self.rng.below(vs.len() as u64) as usize])
                };
                let mut tried = values.clone();
                tried.push((id, v));
                let broken = self.broken(&tried);
                if !broken.is_empty() {
                    let mut names = broken;
                    names.push(name);
                    names.sort();
                    names.dedup();
                    return (tried, names);
                }
            }
        }
        for _ in 0..32 {
            let mut tried = values.clone();
            for (id, _, uint) in &specs {
                if self.rng.below(2) == 0 {
                    let v = 1 + self.rng.below(10) as u32;
                    tried.push((
                        *id,
                        if *uint {
                            SpecValue::Uint(v)
                        } else {
                            SpecValue::Int(v as i32)
                        },
                    ));
                }
            }
            if self.all_lengths_fit(&tried) {
                return (tried, Vec::new());
            }
        }
        (values, Vec::new())
    }

    /// The arrays whose length at `spec` is not positive, huge or not
    /// computable, with the constants their lengths read: of those the
    /// compiled module keeps (an array of a function `main` never reaches
    /// is not in it, whatever its length).
    fn broken(&self, spec: &[(u32, SpecValue)]) -> Vec<String> {
        let mut names = Vec::new();
        let reached = self.shader.reached();
        for a in self
            .arrays_made
            .iter()
            .filter(|a| self.shader.keeps(a, &reached))
        {
            for d in &a.dims {
                if d.literal {
                    continue;
                }
                let ok = self
                    .value_of(&d.text, spec)
                    .is_some_and(|v| (1..=1 << 16).contains(&v));
                if !ok {
                    names.push(a.name.clone());
                    names.push(d.text.clone());
                }
            }
        }
        names
    }

    /// Whether every length of the pool is between 1 and [`MAX_LEN`] at `spec`.
    fn all_lengths_fit(&self, spec: &[(u32, SpecValue)]) -> bool {
        self.sizes.iter().all(|s| {
            self.value_of(&s.text, spec)
                .is_some_and(|v| (1..=MAX_LEN).contains(&v))
        })
    }

    /// The push-constant bytes: small values or any bits (`psc`'s member:
    /// a small positive width).
    pub fn push_bytes(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, _) in self.shader.push.clone() {
            let v: u32 = if name.starts_with('w') {
                1 + self.rng.below(20) as u32
            } else if self.rng.below(2) == 0 {
                self.rng.below(40) as u32
            } else {
                self.rng.next_u32()
            };
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }
}

impl Program {
    /// Whether its floats are 16-bit in storage.
    pub fn fp16_storage(&self) -> bool {
        self.mode.starts_with("fp16")
    }

    /// The bytes of each binding, in order: a multiple of 4.
    pub fn binding_bytes(&self) -> Vec<u64> {
        self.shader
            .bindings
            .iter()
            .map(|b| (u64::from(b.elems) * b.elem.bytes(self.fp16_storage())).next_multiple_of(4))
            .collect()
    }

    /// Each binding's bytes before the dispatch, from the seed alone:
    /// inputs random (integers: small or any bits; floats: multiples of
    /// 1/2 in [-8, 8]), outputs [`POISON`].
    pub fn inputs(&self) -> Vec<Vec<u8>> {
        let mut rng = Rng::new(self.seed ^ 0x5eed_f11e_5eed_f11e);
        let fp16 = self.fp16_storage();
        let sizes = self.binding_bytes();
        self.shader
            .bindings
            .iter()
            .zip(sizes)
            .map(|(b, n)| {
                let n = n as usize;
                if b.access == Access::Out {
                    return (0..n).map(|i| POISON[i % 4]).collect();
                }
                let small = rng.below(2) == 0;
                let mut out = Vec::with_capacity(n);
                while out.len() < n {
                    match b.elem {
                        BufElem::Int | BufElem::Uint if small => {
                            let v = rng.below(80) as i32 - 16;
                            out.extend_from_slice(&v.to_le_bytes());
                        }
                        BufElem::Int | BufElem::Uint => {
                            out.extend_from_slice(&rng.next_u32().to_le_bytes())
                        }
                        BufElem::Sfp | BufElem::Sfpvec4 => {
                            let v = (rng.below(33) as f32 - 16.0) / 2.0;
                            if fp16 {
                                out.extend_from_slice(&f16::from_f32(v).to_le_bytes());
                            } else {
                                out.extend_from_slice(&v.to_le_bytes());
                            }
                        }
                    }
                }
                out.truncate(n);
                out
            })
            .collect()
    }
}
