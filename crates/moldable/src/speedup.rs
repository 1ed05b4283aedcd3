//! Downey's speedup model (Downey 1998, "A parallel workload model and its implications for
//! processor allocation", Hansen et al. §II-B2).
//!
//! An application is described by its average parallelism `A >= 1` and the variance in
//! parallelism `sigma >= 0`. The speedup on `n` processors is
//!
//! * low variance (`sigma <= 1`):
//!   `S(n) = A n / (A + sigma (n - 1) / 2)` for `1 <= n <= A`,
//!   `S(n) = A n / (sigma (A - 1/2) + n (1 - sigma / 2))` for `A <= n <= 2A - 1`,
//!   `S(n) = A` beyond;
//! * high variance (`sigma >= 1`):
//!   `S(n) = n A (sigma + 1) / (sigma (n + A - 1) + A)` for `1 <= n <= A + A sigma - sigma`,
//!   `S(n) = A` beyond.
//!
//! `S(1) = 1`, `S` is continuous, non-decreasing and bounded by `A`; the two branches agree at
//! `sigma = 1`.

use serde::{Deserialize, Serialize};

use crate::error::{MoldableError, check};

/// The parallelism parameters of one application in Downey's model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Downey {
    a: f64,
    sigma: f64,
}

impl Downey {
    /// Validated constructor: `A >= 1` and `sigma >= 0`, both finite.
    pub fn new(a: f64, sigma: f64) -> Result<Self, MoldableError> {
        check("A", a, a >= 1.0, "average parallelism must be >= 1")?;
        check(
            "sigma",
            sigma,
            sigma >= 0.0,
            "variance in parallelism must be >= 0",
        )?;
        Ok(Downey { a, sigma })
    }

    /// The average parallelism `A` (also the largest speedup).
    pub fn average_parallelism(&self) -> f64 {
        self.a
    }

    /// The variance in parallelism `sigma`.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// `S(n)` for a real number of processors `n` (values below 1 are read as 1).
    pub fn speedup_f64(&self, n: f64) -> f64 {
        let (a, s) = (self.a, self.sigma);
        let n = if n.is_nan() { 1.0 } else { n.max(1.0) };
        if s <= 1.0 {
            if n <= a {
                a * n / (a + s * (n - 1.0) / 2.0)
            } else if n <= 2.0 * a - 1.0 {
                a * n / (s * (a - 0.5) + n * (1.0 - s / 2.0))
            } else {
                a
            }
        } else if n <= a + a * s - s {
            n * a * (s + 1.0) / (s * (n + a - 1.0) + a)
        } else {
            a
        }
    }

    /// `S(k)` for `k` processors (`k = 0` is read as 1).
    pub fn speedup(&self, k: u32) -> f64 {
        self.speedup_f64(f64::from(k))
    }
}
