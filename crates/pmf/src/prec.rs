//! Named tolerances, in one place (after statrs' `prec`).

/// A stored PMF sums to 1 within this distance.
pub const MASS_EPS: f64 = 1e-9;

/// Input masses whose total is within this distance of 1 are renormalised (and the distance
/// reported); farther totals are rejected by [`crate::Pmf::new`].
pub const RENORMALISE_TOLERANCE: f64 = 0.01;

/// Tolerance used by tests that compare two ways of computing the same probability.
pub const PROB_EPS: f64 = 1e-12;

/// The widest support (in ticks) a constructor accepts: guards against a hostile input asking
/// for an absurd dense allocation (a 64-bit tick range would not fit in memory).
pub const MAX_SPAN: u64 = 1 << 26;

/// The margin by which a bound must clear a decision threshold before a search or a pruner
/// acts on the bound instead of the exact value (a chance, an expected completion time, in
/// absolute or relative terms where each use says). Far above the rounding of the sums the
/// values come from (about 1e-14), so that acting on a bound never changes a decision: the
/// accelerated searches decide as the plain ones (property tests check it).
pub const DECISION_SLACK: f64 = 1e-9;

/// True when chance `p` is within [`DECISION_SLACK`] of the best chance `best`
/// (`p >= best - DECISION_SLACK`): the two tie, and what decides between them is the next
/// criterion, not their last bits.
#[inline]
pub fn chance_ties(p: f64, best: f64) -> bool {
    p >= best - DECISION_SLACK
}

/// True when the times (or other values derived from times: expected completions, expected
/// execution times, urgencies) `a` and `b` tie: equal, or both finite and within
/// [`DECISION_SLACK`] relative, `|a - b| <= DECISION_SLACK * max(1, |a|, |b|)`. For `b` the
/// least of a set of values, the values that tie with it form an interval from `b` up (a
/// value above one that does not tie does not tie either).
#[inline]
pub fn times_tie(a: f64, b: f64) -> bool {
    a == b
        || (a.is_finite()
            && b.is_finite()
            && (a - b).abs() <= DECISION_SLACK * a.abs().max(b.abs()).max(1.0))
}
