//! The machine factor (the crate docs, step 4): one time-scale factor per machine, the
//! Kaplan-Meier median of the ratios of its observed times to their cells' prior medians,
//! applied to the machine's cells ([`Options::machine_scale`]) or to the priors they blend
//! with while the evidence says the machine is slower than its prior
//! ([`Options::scale_by_evidence`]).

use std::collections::VecDeque;

use pmf::kaplan_meier::Sample;

#[cfg(doc)]
use crate::Options;
use crate::estimate::{departure, median_ratio, optimism, read, stretch};
use crate::{Censoring, Estimator, LearnError, build, evidence};

/// The machine factor is estimated once a machine has this many observations in its window
/// (or its whole window, when [`Options::machine_window`] is smaller); until then it is 1.
pub const MIN_MACHINE_OBSERVATIONS: usize = 10;

/// The factor applied to a machine's cells moves to the estimate only when
/// `|ln(estimate / applied)| > ln(1 + SCALE_STEP)`.
pub const SCALE_STEP: f64 = 0.05;

/// A cell holding this many observations is evidence for or against its machine's factor
/// ([`Options::scale_by_evidence`]).
pub const MIN_SCALE_EVIDENCE: usize = 10;

/// The machine factor lies in `[1 / MAX_SCALE, MAX_SCALE]`.
pub const MAX_SCALE: f64 = 16.0;

/// A machine's factor ([`Options::machine_scale`]).
#[derive(Debug, Clone)]
pub(crate) struct Factor {
    /// The last observations' ratios to their cells' prior medians.
    pub(crate) ratios: VecDeque<Sample>,
    /// The factor applied to the machine's cells.
    pub(crate) applied: f64,
    /// Observations of the machine since the factor was last estimated.
    pub(crate) since: usize,
}

impl Estimator {
    /// Whether one factor for the whole machine explains, or may yet explain, what
    /// `machine`'s cells observe (with [`Options::scale_by_evidence`]): its Kaplan-Meier
    /// median ratio, estimated now from the window's ratios, is a factor (more than
    /// [`SCALE_STEP`] from 1), and either fewer of its cells hold [`MIN_SCALE_EVIDENCE`]
    /// observations than [`Estimator::fits`] compares (the evidence is still coming) or
    /// they lie nearer their prior stretched by it. A prior wrong only by a factor is right
    /// in shape: too fast, the factor corrects it; too slow, each cell does (step 4 of the
    /// crate docs). The prior guard leaves such a machine alone.
    pub(crate) fn factor_may_explain(&mut self, machine: usize) -> Result<bool, LearnError> {
        if !self.scaled {
            return Ok(false);
        }
        let f = &mut self.factors[machine];
        if f.ratios.len() < MIN_MACHINE_OBSERVATIONS.min(self.options.machine_window) {
            return Ok(false);
        }
        let Some(est) = median_ratio(f.ratios.make_contiguous())? else {
            return Ok(false);
        };
        let est = est.clamp(1.0 / MAX_SCALE, MAX_SCALE);
        if est.ln().abs() <= SCALE_STEP.ln_1p() {
            return Ok(false);
        }
        let ready = (0..self.types)
            .filter(|&t| self.cells[t * self.machines + machine].n >= MIN_SCALE_EVIDENCE)
            .count();
        if ready < self.types.clamp(2, evidence::JOIN_TYPES) {
            return Ok(true);
        }
        self.fits(machine, est)
    }

    /// Adds a ratio to `machine`'s window and re-estimates its factor; when the factor
    /// applied moves, the machine's cells take their PMFs at the new factor: stretched by
    /// it ([`Options::machine_scale`]), or blended with their priors stretched by it
    /// ([`Options::scale_by_evidence`]). Whether the factor moved.
    pub(crate) fn update_factor(
        &mut self,
        machine: usize,
        ratio: f64,
        censored: bool,
    ) -> Result<bool, LearnError> {
        let w = self.options.machine_window;
        let f = &mut self.factors[machine];
        f.ratios.push_back(Sample {
            time: ratio,
            censored,
        });
        while f.ratios.len() > w {
            f.ratios.pop_front();
        }
        f.since += 1;
        if f.ratios.len() < MIN_MACHINE_OBSERVATIONS.min(w) || f.since < self.options.cadence {
            return Ok(false);
        }
        f.since = 0;
        let Some(est) = median_ratio(f.ratios.make_contiguous())? else {
            return Ok(false);
        };
        let est = est.clamp(1.0 / MAX_SCALE, MAX_SCALE);
        let applied = f.applied;
        let moves = |est: f64| (est / applied).ln().abs() > SCALE_STEP.ln_1p();
        if !moves(est) {
            return Ok(false);
        }
        let est = if self.options.machine_scale || self.slower_than_prior(machine, est)? {
            est
        } else {
            1.0
        };
        if !moves(est) {
            return Ok(false);
        }
        let cells = (0..self.types).map(|t| t * self.machines + machine);
        if self.options.machine_scale {
            let (n0, explore) = (self.options.prior_weight, self.options.optimistic_below());
            let pmfs = cells
                .clone()
                .map(|i| {
                    let c = &self.cells[i];
                    read(stretch(&c.base, est)?, optimism(n0, c.n, explore))
                })
                .collect::<Result<Vec<_>, _>>()?;
            for (i, p) in cells.zip(pmfs) {
                self.cells[i].current = p;
            }
        } else {
            let mut rebuilt = Vec::with_capacity(self.types);
            for i in cells {
                let stretched = (est != 1.0)
                    .then(|| stretch(&self.prior[i], est))
                    .transpose()?;
                let prior = stretched.as_ref().unwrap_or(&self.prior[i]);
                rebuilt.push((
                    i,
                    build(&self.cells[i], prior, 1.0, &self.options)?,
                    stretched,
                ));
            }
            for (i, built, stretched) in rebuilt {
                built.install(&mut self.cells[i]);
                self.stretched[i] = stretched;
            }
        }
        self.factors[machine].applied = est;
        Ok(true)
    }

    /// Whether the evidence supports the factor `est` on `machine` (the first of its copies)
    /// ([`Options::scale_by_evidence`]): `est > 1`, and every cell of the machine holding
    /// [`MIN_SCALE_EVIDENCE`] observations, at least [`evidence::JOIN_TYPES`]
    /// of them (all the types, when fewer, and at least 2: a factor carries the evidence of
    /// some cells to the others), lies nearer its prior stretched by `est` than its prior
    /// itself: the Kolmogorov-Smirnov distance of its Kaplan-Meier CDF over the observed
    /// range ([`departure`]) is smaller from the one than from the other. A distance, not a
    /// median: the median of a cell of two modes jumps between them with the draws.
    pub(crate) fn slower_than_prior(&self, machine: usize, est: f64) -> Result<bool, LearnError> {
        if est <= 1.0 {
            return Ok(false);
        }
        self.fits(machine, est)
    }

    /// Whether every cell of `machine` holding [`MIN_SCALE_EVIDENCE`] observations, at least
    /// [`evidence::JOIN_TYPES`] of them (all the types, when fewer, and at least 2), lies
    /// nearer its prior stretched by `est` than its prior itself
    /// ([`Estimator::slower_than_prior`]'s test, whichever way `est` goes).
    pub(crate) fn fits(&self, machine: usize, est: f64) -> Result<bool, LearnError> {
        let ignore = self.options.censoring == Censoring::Ignore;
        let mut compared = 0;
        for t in 0..self.types {
            let i = t * self.machines + machine;
            let cell = &self.cells[i];
            if cell.n < MIN_SCALE_EVIDENCE {
                continue;
            }
            let Some(walk) = cell.kaplan_meier(ignore)? else {
                continue;
            };
            let prior = &self.prior[i];
            let scaled = departure(&stretch(prior, est)?, &walk.pairs, walk.last)?;
            let unscaled = departure(prior, &walk.pairs, walk.last)?;
            if scaled >= unscaled {
                return Ok(false);
            }
            compared += 1;
        }
        Ok(compared >= self.types.clamp(2, evidence::JOIN_TYPES))
    }
}
