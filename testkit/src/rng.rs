//! A small seeded generator (xorshift64*) for test and benchmark inputs: no
//! dependency, the same stream for the same seed on every machine.

/// xorshift64*. Seed it with [`Rng::fresh`] (the clock, or `NCNN_SEED`) and
/// print [`Rng::seed`] where a failure is reported, so the run can be
/// repeated.
#[derive(Clone, Debug)]
pub struct Rng {
    seed: u64,
    state: u64,
}

impl Rng {
    /// The stream of `seed` (0 is replaced by 1: xorshift never leaves 0).
    pub fn new(seed: u64) -> Rng {
        Rng {
            seed,
            state: seed.max(1),
        }
    }

    /// A fresh stream each run: the seed from the environment variable
    /// `NCNN_SEED` when set (to repeat a run), else from the clock.
    pub fn fresh() -> Rng {
        Rng::new(fresh_seed())
    }

    /// The seed this stream started from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The next 32 random bits: the low half of [`Rng::next_u64`], so a
    /// recorded seed replays the same stream.
    pub fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }

    /// Uniform in `0..n` (`n` > 0; the modulo bias is below 2^-40 for the
    /// bounds tests use).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        self.next_u64() % n
    }

    /// Uniform in `[lo, hi)`, on a grid of 2^24 steps.
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// A random byte.
    pub fn u8(&mut self) -> u8 {
        (self.next_u64() >> 56) as u8
    }

    /// A random signed byte.
    pub fn i8(&mut self) -> i8 {
        self.u8() as i8
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u8()).collect()
    }
}

/// The seed of [`Rng::fresh`]: `NCNN_SEED` when set and a number, else the
/// clock's nanoseconds.
pub fn fresh_seed() -> u64 {
    if let Some(s) = std::env::var("NCNN_SEED").ok().and_then(|s| s.parse().ok()) {
        return s;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
        | 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_repeats_its_stream() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_eq!(a.seed(), 42);
        // Not constant, and a different seed gives a different stream.
        assert!(xs.windows(2).any(|w| w[0] != w[1]));
        assert_ne!(Rng::new(43).next_u64(), xs[0]);
        for _ in 0..1000 {
            let v = a.f32(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&v), "{v}");
            assert!(a.below(7) < 7);
        }
    }
}
