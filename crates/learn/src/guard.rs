//! The prior guard ([`crate::Options::prior_guard`]; the crate docs, step 7): when a
//! machine's observations contradict its prior in most of the cells that can tell, the
//! prior is dropped for the whole machine, its cells not yet observed included.

use pmf::Pmf;

#[cfg(doc)]
use crate::contradicts;
use crate::{Estimator, LearnError, Options, build};

/// A cell takes part in the guard's vote once it holds this many observations: at fewer,
/// the band of [`contradicts`] (0.61 at 5, 0.78 at 3) leaves a cell little to say, and a
/// scheduler that believes a cell slow may run it no more than a few times.
pub const GUARD_OBSERVATIONS: usize = 5;

/// The guard drops a machine's prior only when at least this many of its cells contradict
/// it (all its task types, when it has fewer): as many as the machine factor compares
/// ([`crate::evidence::JOIN_TYPES`]). A correct prior departs by chance in one cell at one
/// test with probability at most `PRIOR_CHECK_DELTA`; in three at once far more seldom.
pub const GUARD_CELLS: usize = crate::evidence::JOIN_TYPES;

/// Whether a machine with `types` task types drops its prior when `against` of its
/// `tested` cells (those holding [`GUARD_OBSERVATIONS`] observations) contradict it: more
/// than half of them, and at least [`GUARD_CELLS`] (or `types`, when fewer).
pub(crate) fn drops(against: usize, tested: usize, types: usize) -> bool {
    against >= GUARD_CELLS.min(types).max(1) && 2 * against > tested
}

impl Estimator {
    /// The options a cell of `machine` (the first of its copies) is built with: the prior
    /// weighing nothing once the guard dropped it ([`Options::prior_guard`]).
    pub(crate) fn options_of(&self, machine: usize) -> Options {
        if self.dropped[machine] {
            Options {
                prior_weight: 0.0,
                ..self.options
            }
        } else {
            self.options
        }
    }

    /// The guard ([`Options::prior_guard`], [`drops`]) after a rebuild of a cell of
    /// `machine` (the first of its copies): drops the machine's prior when its cells'
    /// observations contradict it, and rebuilds its cells as from no prior. Whether it did.
    pub(crate) fn guard(&mut self, machine: usize) -> Result<bool, LearnError> {
        if !self.options.prior_guard || self.options.machine_scale || self.dropped[machine] {
            return Ok(false);
        }
        let (mut tested, mut against) = (0, 0);
        for t in 0..self.types {
            let c = &self.cells[t * self.machines + machine];
            if c.n >= GUARD_OBSERVATIONS {
                tested += 1;
                against += usize::from(c.contradicted);
            }
        }
        // A prior wrong only by one factor for the whole machine is right in shape.
        if !drops(against, tested, self.types) || self.factor_may_explain(machine)? {
            return Ok(false);
        }
        self.dropped[machine] = true;
        let none = Pmf::point(1);
        let f = &mut self.factors[machine];
        f.applied = 1.0;
        f.ratios.clear();
        let options = self.options_of(machine);
        for t in 0..self.types {
            let i = t * self.machines + machine;
            self.prior[i] = none.clone();
            self.medians[i] = 1.0;
            self.stretched[i] = None;
            if self.evidence.is_some() {
                self.rebuild_copies(t, machine)?;
            } else {
                let built = build(&self.cells[i], &none, 1.0, &options)?;
                built.install(&mut self.cells[i]);
            }
        }
        Ok(true)
    }

    /// Whether the guard dropped the prior of `machine` ([`Options::prior_guard`]): its
    /// cells are learned as from no prior. False out of the estimator's shape.
    pub fn dropped_prior(&self, machine: usize) -> bool {
        self.class.get(machine).is_some_and(|&c| self.dropped[c])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_majority_of_at_least_three_cells_drops_the_prior() {
        assert!(!drops(0, 0, 12));
        assert!(!drops(1, 1, 12), "one cell alone is not enough");
        assert!(!drops(2, 2, 12), "nor two");
        assert!(drops(3, 5, 12));
        assert!(!drops(3, 6, 12), "half is not a majority");
        assert!(drops(2, 2, 2), "a machine with two types: both");
        // A machine with one task type: its one cell decides.
        assert!(drops(1, 1, 1));
        assert!(!drops(0, 1, 1));
    }
}
