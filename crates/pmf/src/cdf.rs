//! The fast append query (the hot path of every mapping event): the success probability of a
//! task appended behind a queue, from a cached cumulative array of the queue's tail PCT.

use crate::exec::ExecPmf;
use crate::pmf::{MAX_TICK, MIN_TICK, Pmf, Tick, arg};

/// The cumulative distribution of a queue's tail PCT, cached for the append query, with its
/// mean for expectation-based heuristics (the variance, read by few, comes from the PCT
/// itself: [`Pmf::variance`]). Rebuilding reuses the buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct TailCdf {
    offset: Tick,
    /// cum[k] = P(X <= offset + k); the last entry is 1.
    cum: Vec<f64>,
    mean: f64,
}

/// A machine free at tick 0 ([`TailCdf::idle`]`(0)`): a table of one entry. (An empty table
/// would read as a point mass at 0 in [`TailCdf::at`] and at -1 in the append query.)
impl Default for TailCdf {
    fn default() -> Self {
        TailCdf::idle(0)
    }
}

impl TailCdf {
    /// Caches the CDF of `pmf`.
    pub fn new(pmf: &Pmf) -> Self {
        let mut t = TailCdf {
            offset: 0,
            cum: Vec::with_capacity(pmf.len()),
            mean: 0.0,
        };
        t.rebuild(pmf);
        t
    }

    /// The CDF of a machine that is free at `now` (a point mass; as [`Pmf::point`], a `now`
    /// beyond the tick range is read as the range's end).
    pub fn idle(now: Tick) -> Self {
        let now = now.clamp(MIN_TICK, MAX_TICK);
        TailCdf {
            offset: now,
            cum: vec![1.0],
            mean: now as f64,
        }
    }

    /// Re-caches from `pmf`, reusing the allocation.
    pub fn rebuild(&mut self, pmf: &Pmf) {
        self.offset = pmf.offset();
        self.cum.clear();
        // One pass for the CDF and the mean: the same operations in the same order as
        // `Pmf::mean`, so the same bits.
        // (`k` counts in f64: exact for every index, the same values as `k as f64`.)
        let (mut acc, mut s, mut k) = (0.0, 0.0, 0.0);
        self.cum.extend(pmf.masses().iter().map(|&m| {
            acc += m;
            s += m * k;
            k += 1.0;
            acc.min(1.0)
        }));
        if let Some(last) = self.cum.last_mut() {
            *last = 1.0;
        }
        self.mean = pmf.offset() as f64 + s;
        debug_assert_eq!(self.mean.to_bits(), pmf.mean().to_bits());
    }

    /// P(X <= t).
    #[inline]
    pub fn at(&self, t: Tick) -> f64 {
        if t < self.offset {
            return 0.0;
        }
        // `t - offset >= 0` without overflow: the difference of two `i64`s fits in a `u64`,
        // and the wrapped difference's bits are that `u64`'s.
        let k = t.wrapping_sub(self.offset) as u64 as usize;
        if k >= self.cum.len() {
            1.0
        } else {
            self.cum[k]
        }
    }

    /// The first tick `t` with `P(X <= t) >= level` (a quantile); `None` when the CDF never
    /// reaches `level` (above 1). O(log support).
    pub fn first_reaching(&self, level: f64) -> Option<Tick> {
        if level <= 0.0 {
            return Some(self.offset);
        }
        let k = self.cum.partition_point(|&c| c < level);
        (k < self.cum.len()).then(|| self.offset + k as Tick)
    }

    /// First tick of the tail's support.
    pub fn min(&self) -> Tick {
        self.offset
    }

    /// Last tick of the tail's support.
    pub fn max(&self) -> Tick {
        self.offset + self.cum.len() as Tick - 1
    }

    /// `E[tail]`.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The success probability of appending a task with execution-time PMF `pet` and deadline
    /// tick `deadline` behind this tail:
    /// `P(T + E < deadline) = sum_k E(k) * F_T(deadline - 1 - k)`.
    ///
    /// The same value under every [`crate::DropModel`]: the models differ in the tail's shape,
    /// not in whether the appended task itself succeeds. O(support of `pet`), no allocation.
    #[inline]
    pub fn append_success(&self, pet: &ExecPmf, deadline: Tick) -> f64 {
        let deadline = arg(deadline);
        let e = pet.masses();
        let last = self.max();
        // t(k) = deadline - 1 - (pet.offset + k) decreases with k.
        let t0 = deadline - 1 - pet.offset();
        if t0 < self.offset {
            return 0.0;
        }
        // Bins with t(k) >= last see F = 1: k <= t0 - last. Their mass is a running sum of
        // the PET, summed in bin order.
        let full = (t0 - last + 1).clamp(0, e.len() as Tick) as usize;
        let mut s = pet.mass_below_bin(full);
        // Bins with offset <= t(k) < last read the table; beyond that F = 0. Zero bins add
        // nothing and are skipped.
        let end = ((t0 - self.offset + 1).max(0) as usize).min(e.len());
        let nz = pet.nonzero_bins();
        let from = nz.partition_point(|&k| (k as usize) < full);
        for &k in &nz[from..] {
            let k = k as usize;
            if k >= end {
                break;
            }
            let idx = (t0 - k as Tick - self.offset) as usize;
            s += e[k] * self.cum[idx];
        }
        s.min(1.0)
    }

    /// An upper bound on [`TailCdf::append_success`] in at most [`crate::SEGMENTS`]
    /// reads of the table: with the PET's non-zero bins cut into runs, a run `j` of mass
    /// `w_j` starting at time `e_j` contributes at most `w_j * F_T(deadline - 1 - e_j)`
    /// (every execution time in it is at least `e_j`). Far tighter than
    /// `F_T(deadline - 1 - min E)` when the PET is wide; equal to the exact value within
    /// rounding when every run is a single bin.
    #[inline]
    pub fn append_success_bound(&self, pet: &ExecPmf, deadline: Tick) -> f64 {
        let t0 = arg(deadline) - 1 - pet.offset();
        let mut s = 0.0;
        for &(k, w) in pet.segments() {
            s += w * self.at(t0 - Tick::from(k));
        }
        s.min(1.0)
    }

    /// E[T + E]: the expected completion time of a task appended behind this tail, the score
    /// of the expectation-based heuristics (MM, MSD, MMU, MCT).
    #[inline]
    pub fn append_expected_completion(&self, pet_mean: f64) -> f64 {
        self.mean + pet_mean
    }
}
