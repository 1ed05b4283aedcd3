//! The [`ExecPmf`] type: an execution-time PMF with the tables the append query and the PCT
//! functions read.

use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::error::PmfError;
use crate::pmf::{Pmf, Tick};

/// Number of runs of [`ExecPmf::segments`].
pub const SEGMENTS: usize = 8;

/// An execution-time PMF (a PET cell) with the tables the append query
/// ([`crate::TailCdf::append_success`]) and the PCT functions ([`crate::next_pct`],
/// [`crate::executing_pct`]) read, built once when it is made.
///
/// A plain value: the [`Pmf`] and tables derived from it, immutable after construction
/// (no interior mutability), so it is `Send + Sync`, cloned field by field and compared by
/// its PMF alone. Built from a [`Pmf`] with [`From`] (infallible: every `Pmf` is valid);
/// read as one through [`Deref`] or [`ExecPmf::as_pmf`], and taken apart with
/// [`ExecPmf::into_pmf`]. Serialised as its PMF, the tables built again on reading.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(from = "Pmf", into = "Pmf")]
pub struct ExecPmf {
    pmf: Pmf,
    /// Indices of the non-zero bins (a 2-tick grid has half its bins zero).
    nonzero: Vec<u32>,
    /// Running sums of the masses (`cum[k] = P(X <= offset + k)`), summed in bin order.
    cum: Vec<f64>,
    /// The largest `g` such that every non-zero bin index is a multiple of `g` (2 on the
    /// paper's 2-unit grid): loops over this PMF may step by `g`.
    stride: usize,
    /// The non-zero bins cut into at most [`SEGMENTS`] runs of consecutive non-zero bins:
    /// (first bin of the run, its mass), in bin order; for the segment bound of
    /// [`crate::TailCdf::append_success_bound`].
    segments: Vec<(u32, f64)>,
    /// `truncated[j] = sum_{i < j} P(X > offset + i)`, `j = 0..=len`: the partial sums of
    /// [`ExecPmf::expected_min`].
    truncated: Vec<f64>,
}

impl PartialEq for ExecPmf {
    fn eq(&self, other: &Self) -> bool {
        // The tables are functions of the PMF.
        self.pmf == other.pmf
    }
}

impl From<Pmf> for ExecPmf {
    fn from(pmf: Pmf) -> Self {
        ExecPmf::new(pmf)
    }
}

impl From<ExecPmf> for Pmf {
    fn from(e: ExecPmf) -> Self {
        e.pmf
    }
}

impl Deref for ExecPmf {
    type Target = Pmf;
    #[inline]
    fn deref(&self) -> &Pmf {
        &self.pmf
    }
}

impl AsRef<Pmf> for ExecPmf {
    fn as_ref(&self) -> &Pmf {
        &self.pmf
    }
}

impl ExecPmf {
    /// `pmf` with its tables, built here in O(len).
    pub fn new(pmf: Pmf) -> Self {
        let masses = pmf.masses();
        let nonzero: Vec<u32> = masses
            .iter()
            .enumerate()
            .filter(|(_, m)| **m > 0.0)
            .map(|(k, _)| k as u32)
            .collect();
        let mut acc = 0.0;
        let cum: Vec<f64> = masses
            .iter()
            .map(|m| {
                acc += m;
                acc
            })
            .collect();
        let mut above = 0.0;
        let truncated = std::iter::once(0.0)
            .chain(cum.iter().map(|&c: &f64| {
                above += (1.0 - c).max(0.0);
                above
            }))
            .collect();
        let stride = gcd_all(&nonzero);
        let per = nonzero.len().div_ceil(SEGMENTS).max(1);
        let segments = nonzero
            .chunks(per)
            .map(|run| (run[0], run.iter().map(|&k| masses[k as usize]).sum()))
            .collect();
        ExecPmf {
            pmf,
            nonzero,
            cum,
            stride,
            segments,
            truncated,
        }
    }

    /// The PMF.
    #[inline]
    pub fn as_pmf(&self) -> &Pmf {
        &self.pmf
    }

    /// The PMF, the tables dropped.
    pub fn into_pmf(self) -> Pmf {
        self.pmf
    }

    /// Every non-zero bin index is a multiple of this (1 for a dense PMF, 2 on a 2-tick grid).
    #[inline]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The non-zero bins in at most [`SEGMENTS`] runs: (first bin index, mass of the run).
    #[inline]
    pub fn segments(&self) -> &[(u32, f64)] {
        &self.segments
    }

    /// Indices (into [`Pmf::masses`]) of the bins with non-zero mass.
    #[inline]
    pub fn nonzero_bins(&self) -> &[u32] {
        &self.nonzero
    }

    /// `sum(masses()[..k])`, summed in bin order; `k` is clamped to the length.
    #[inline]
    pub fn mass_below_bin(&self, k: usize) -> f64 {
        match k.min(self.cum.len()) {
            0 => 0.0,
            k => self.cum[k - 1],
        }
    }

    /// `E[min(X, x)]`, O(1) from a table: `x` itself up to the first tick, then
    /// `min X + sum_{y = min X}^{x - 1} P(X > y)` (the mean from the last tick on). Summed
    /// otherwise than [`Pmf::mean`], so it agrees with it within rounding only.
    #[inline]
    pub fn expected_min(&self, x: Tick) -> f64 {
        let offset = self.pmf.offset();
        if x <= offset {
            return x as f64;
        }
        let t = &self.truncated;
        // `t` has `len + 1` entries: every `x` past the last tick reads the last one.
        let j = if x > self.pmf.max() {
            t.len() - 1
        } else {
            (x - offset) as usize
        };
        offset as f64 + t[j]
    }

    /// The sum of the masses from bin `from` on, in bin order (over the grid of
    /// [`ExecPmf::stride`]: adding the zero bins off it changes no bit), for `from` below
    /// [`Pmf::len`] (0 from there on). Summed on each call, O(len / stride): kept sums
    /// equal to these bit for bit would be one forward sum per grid bin, O((len /
    /// stride)^2) to build for every PET cell, more than the calls of a run cost.
    #[inline]
    pub(crate) fn total_from(&self, from: usize) -> f64 {
        let stride = self.stride;
        let first = from.div_ceil(stride) * stride;
        self.pmf
            .masses()
            .get(first..)
            .map_or(0.0, |rest| rest.iter().step_by(stride).sum())
    }

    /// [`Pmf::quantile`] by a binary search over the running sums: the same tick as the
    /// scan's, for every `u`.
    pub fn quantile(&self, u: f64) -> Result<Tick, PmfError> {
        if !(0.0..=1.0).contains(&u) {
            return Err(PmfError::InvalidProbability(u));
        }
        // The running sums are the scan's, bit for bit, and never decrease: the first bin
        // where they reach `u`, then the first non-zero bin from there.
        let masses = self.pmf.masses();
        let k0 = self.cum.partition_point(|&acc| acc < u);
        Ok(masses[k0.min(masses.len())..]
            .iter()
            .position(|&m| m > 0.0)
            .map_or(self.pmf.max(), |j| self.pmf.offset() + (k0 + j) as Tick))
    }
}

/// The greatest common divisor of the indices (1 when they are all 0).
fn gcd_all(idx: &[u32]) -> usize {
    fn gcd(a: u32, b: u32) -> u32 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let g = idx.iter().fold(0u32, |g, &k| gcd(g, k));
    (g.max(1)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The quantile found by a binary search over the running sums is the scan's
        /// ([`Pmf::quantile`]), for every `u`.
        #[test]
        fn quantile_from_the_running_sums_is_the_scans(
            w in prop::collection::vec(prop_oneof![3 => 0.001f64..1.0, 1 => Just(0.0)], 1..60),
            offset in -5i64..20,
            us in prop::collection::vec(0.0f64..=1.0, 1..20),
        ) {
            let mut w = w;
            w[0] = w[0].max(0.01);
            let scanned = Pmf::from_weights(0, w).expect("valid weights").shift(offset);
            let searched = ExecPmf::from(scanned.clone());
            let mut us = us;
            us.extend([0.0, 1.0, -0.5, 1.5]);
            // The running sums themselves: `u` exactly at a bin's CDF value (ties).
            let mut acc = 0.0;
            us.extend(scanned.masses().iter().map(|&m| {
                acc += m;
                acc
            }));
            for u in us {
                prop_assert_eq!(searched.quantile(u).ok(), scanned.quantile(u).ok(), "u = {}", u);
            }
        }
    }

    proptest! {
        /// The sums over the stride grid are the sums in bin order of all the bins from
        /// `from` on, bit for bit, in the PMF and in a clone.
        #[test]
        fn totals_from_are_the_sums_in_bin_order(
            w in prop::collection::vec(prop_oneof![3 => 0.001f64..1.0, 1 => Just(0.0)], 1..60),
            step in 1usize..4,
            offset in -5i64..20,
        ) {
            let mut spread = vec![0.0; (w.len() - 1) * step + 1];
            for (k, &m) in w.iter().enumerate() {
                spread[k * step] = m;
            }
            spread[0] = spread[0].max(0.01);
            let p = ExecPmf::from(Pmf::from_weights(0, spread).expect("valid weights").shift(offset));
            let direct = |from: usize| -> f64 { p.masses()[from..].iter().sum() };
            let copy = p.clone();
            for from in 0..p.len() {
                prop_assert_eq!(p.total_from(from).to_bits(), direct(from).to_bits());
                prop_assert_eq!(copy.total_from(from).to_bits(), direct(from).to_bits());
            }
        }
    }

    #[test]
    fn tables_by_hand() {
        // Ticks 2, 4, 6 with masses 0.5, 0.3, 0.2: stride 2.
        let p = ExecPmf::from(Pmf::new(2, vec![0.5, 0.0, 0.3, 0.0, 0.2]).expect("valid"));
        assert_eq!(p.stride(), 2);
        assert_eq!(p.nonzero_bins(), &[0, 2, 4]);
        assert_eq!(p.mass_below_bin(0), 0.0);
        assert_eq!(p.mass_below_bin(1), 0.5);
        assert_eq!(p.mass_below_bin(3), 0.8);
        assert_eq!(p.mass_below_bin(99), p.mass_below_bin(5));
        assert_eq!(p.total_from(1), 0.3 + 0.2);
        assert_eq!(p.total_from(4), 0.2);
        assert_eq!(p.total_from(5), 0.0);
        assert_eq!(p.segments(), &[(0, 0.5), (2, 0.3), (4, 0.2)]);
        assert_eq!(p.as_pmf(), &*p);
        assert_eq!(ExecPmf::from(p.clone().into_pmf()), p);
    }
}
