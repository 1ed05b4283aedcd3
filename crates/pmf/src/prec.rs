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
