//! One (task type, machine) cell of an [`crate::Estimator`]: its observations counted by
//! recorded time (the Kaplan-Meier risk sets without the samples) and its current PMF; the
//! merge of copies' cells ([`crate::Options::pool_by_evidence`]).

use std::collections::{BTreeMap, VecDeque};

use pmf::kaplan_meier::Sample;
use pmf::{Pmf, Tick};

use crate::estimate::{contradicts, push_tail, tick_of};
use crate::{Censoring, LearnError, MAX_KEYS, Options};

/// The completions and censorings recorded at one time of a cell.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Counts {
    pub(crate) completed: usize,
    censored: usize,
}

/// One (task type, machine) cell.
#[derive(Debug, Clone)]
pub(crate) struct Cell {
    /// The held observations counted by recorded time (the bits of a non-negative `f64`,
    /// which order as the times): the Kaplan-Meier risk sets, walked in order.
    pub(crate) counts: BTreeMap<u64, Counts>,
    /// With a window, the held observations as recorded, oldest first (to evict them);
    /// empty without one.
    pub(crate) held: VecDeque<Sample>,
    /// Observations held.
    pub(crate) n: usize,
    /// Completions held.
    pub(crate) completed: usize,
    /// The recorded times of the held observations summed in the order observed (without
    /// a window; with one, summed from `held` when used).
    pub(crate) sum: f64,
    /// Observations since the PMF was last rebuilt.
    pub(crate) since: usize,
    /// The current PMF: `base` stretched by the machine's factor.
    pub(crate) current: Pmf,
    /// The blend of the prior and the estimate, on the scale of the prior.
    pub(crate) base: Pmf,
    /// Observations in the current PMF's estimate (`n` of the blend).
    pub(crate) used: usize,
    /// Whether the observations reject the prior at the last rebuild
    /// ([`Options::prior_check`]).
    pub(crate) rejected: bool,
    /// Whether the observations depart from the prior beyond the band at the last rebuild,
    /// with the prior check or the guard on ([`Options::prior_guard`]).
    pub(crate) contradicted: bool,
}

impl Cell {
    pub(crate) fn new(prior: &Pmf) -> Self {
        Cell {
            counts: BTreeMap::new(),
            held: VecDeque::new(),
            n: 0,
            completed: 0,
            sum: 0.0,
            since: 0,
            current: prior.clone(),
            base: prior.clone(),
            used: 0,
            rejected: false,
            contradicted: false,
        }
    }

    /// The time an observation of base time `base` (non-negative) is recorded at: `base`
    /// itself, or, when the cell already holds [`MAX_KEYS`] distinct times and `base` is
    /// not one of them, its tick (`ceil` for a completion, `floor` for a censoring).
    fn key(&self, base: f64, censored: bool) -> f64 {
        if self.counts.len() < MAX_KEYS || self.counts.contains_key(&base.to_bits()) {
            base
        } else if censored {
            base.floor() + 0.0
        } else {
            base.ceil() + 0.0
        }
    }

    /// Records an observation at base time `base` (non-negative), evicting the oldest
    /// beyond `window`.
    pub(crate) fn record(&mut self, base: f64, censored: bool, window: Option<usize>) {
        let time = self.key(base, censored);
        let c = self.counts.entry(time.to_bits()).or_default();
        if censored {
            c.censored += 1;
        } else {
            c.completed += 1;
            self.completed += 1;
        }
        self.n += 1;
        match window {
            None => self.sum += time,
            Some(w) => {
                self.held.push_back(Sample { time, censored });
                while self.held.len() > w {
                    let Some(old) = self.held.pop_front() else {
                        break;
                    };
                    self.forget(old);
                }
            }
        }
    }

    /// Removes one held observation from the counts.
    fn forget(&mut self, old: Sample) {
        let key = old.time.to_bits();
        if let Some(c) = self.counts.get_mut(&key) {
            if old.censored {
                c.censored -= 1;
            } else {
                c.completed -= 1;
                self.completed -= 1;
            }
            if c.completed == 0 && c.censored == 0 {
                self.counts.remove(&key);
            }
        }
        self.n -= 1;
    }

    /// The cells of copies learned as one ([`crate::Options::pool_by_evidence`]): the
    /// first cell with the counts, observations and sums of the others added (in the
    /// order given). A time recorded by two of them counts once with both its counts.
    pub(crate) fn merged<'a>(first: &Cell, others: impl IntoIterator<Item = &'a Cell>) -> Cell {
        let mut all = first.clone();
        for c in others {
            for (&key, k) in &c.counts {
                let e = all.counts.entry(key).or_default();
                e.completed += k.completed;
                e.censored += k.censored;
            }
            all.held.extend(c.held.iter().copied());
            all.n += c.n;
            all.completed += c.completed;
            all.sum += c.sum;
            all.since += c.since;
        }
        all
    }

    /// The recorded times of the held observations summed in the order observed.
    fn total(&self, window: Option<usize>) -> f64 {
        match window {
            None => self.sum,
            Some(_) => self.held.iter().map(|s| s.time).sum(),
        }
    }

    /// The Kaplan-Meier walk over the held observations' counts (completions only when
    /// `ignore`, [`Censoring::Ignore`]): the mass of each completion tick (in order; a tick
    /// repeated when base times share it), the survival `S` beyond the last observation, the
    /// last observation's time and the observations counted; `None` without any.
    pub(crate) fn kaplan_meier(&self, ignore: bool) -> Result<Option<Walk>, LearnError> {
        let n = if ignore { self.completed } else { self.n };
        if n == 0 {
            return Ok(None);
        }
        let mut pairs: Vec<(Tick, f64)> = Vec::new();
        let mut s = 1.0;
        let mut before = 0usize;
        let mut last = 0.0;
        for (&key, c) in &self.counts {
            let here = if ignore {
                c.completed
            } else {
                c.completed + c.censored
            };
            if here == 0 {
                continue;
            }
            let w = f64::from_bits(key);
            let d = c.completed;
            if d > 0 {
                let r = n - before;
                let prev = s;
                // r - d exactly zero when every remaining task died here: S is exactly 0.
                s *= (r - d) as f64 / r as f64;
                pairs.push((tick_of(w.ceil())?, prev - s));
            }
            before += here;
            last = w;
        }
        Ok(Some(Walk {
            pairs,
            survival: s,
            last,
            n,
        }))
    }

    /// The Kaplan-Meier CDF of the held observations at each completion tick (the value
    /// from that tick on; ticks increasing), the last observation's time and the
    /// observations counted ([`Censoring::Ignore`]: completions only); `None` without any.
    /// What two machines' cells compare to find copies ([`crate::evidence`]).
    pub(crate) fn cdf(&self, ignore: bool) -> Result<Option<Steps>, LearnError> {
        let Some(walk) = self.kaplan_meier(ignore)? else {
            return Ok(None);
        };
        let mut steps: Vec<(Tick, f64)> = Vec::with_capacity(walk.pairs.len());
        let mut f = 0.0;
        for (t, p) in walk.pairs {
            f += p;
            match steps.last_mut() {
                Some(last) if last.0 == t => last.1 = f,
                _ => steps.push((t, f)),
            }
        }
        Ok(Some(Steps {
            steps,
            last: walk.last,
            n: walk.n,
        }))
    }

    /// [`crate::estimate`] of the held observations, from the counts: one walk over the distinct
    /// times (the same operations in the same order, so the same bits).
    /// With it, whether the cell's observations reject the prior ([`Options::prior_check`]).
    pub(crate) fn estimate(
        &self,
        prior: &Pmf,
        options: &Options,
    ) -> Result<Option<(Pmf, usize, Verdict)>, LearnError> {
        let ignore = options.censoring == Censoring::Ignore;
        let Some(Walk {
            mut pairs,
            survival: s,
            last,
            n,
        }) = self.kaplan_meier(ignore)?
        else {
            return Ok(None);
        };
        let contradicted =
            (options.prior_check || options.prior_guard) && contradicts(prior, &pairs, last, n)?;
        let rejected = options.prior_check && contradicted;
        if s > 0.0 {
            let prior = (!rejected).then_some(prior);
            push_tail(&mut pairs, s, last, prior, options, || {
                (self.total(options.window), self.completed)
            })?;
        }
        let verdict = Verdict {
            rejected,
            contradicted,
        };
        Ok(Some((Pmf::from_weighted_pairs(pairs)?, n, verdict)))
    }
}

/// What a cell's observations say of its prior at a rebuild.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Verdict {
    /// Rejected in the cell ([`Options::prior_check`]): it weighs nothing there.
    pub(crate) rejected: bool,
    /// Beyond the band ([`contradicts`]), whether or not the check is on: what the guard
    /// counts ([`Options::prior_guard`]).
    pub(crate) contradicted: bool,
}

/// A Kaplan-Meier walk over a cell's counts ([`Cell::kaplan_meier`]).
pub(crate) struct Walk {
    /// The mass of each completion tick, in order.
    pub(crate) pairs: Vec<(Tick, f64)>,
    /// The survival beyond the last observation.
    pub(crate) survival: f64,
    /// The last observation's recorded time.
    pub(crate) last: f64,
    /// The observations counted.
    pub(crate) n: usize,
}

/// A cell's Kaplan-Meier CDF ([`Cell::cdf`]).
#[derive(Debug, Clone)]
pub(crate) struct Steps {
    /// `(tick, F(tick))` at each completion tick, ticks increasing.
    pub(crate) steps: Vec<(Tick, f64)>,
    /// The last observation's recorded time.
    pub(crate) last: f64,
    /// The observations counted.
    pub(crate) n: usize,
}
