//! Online estimation of the PET (execution-time PMFs per task type and machine) from the
//! executions a scheduler observes, when its own drops censor them.
//!
//! A task that completes reveals its execution time exactly. A task dropped while executing
//! (by a pruner, or at its deadline) after running `e` ticks reveals only that its
//! execution time exceeds `e`: a **right-censored** observation. A task dropped before it
//! started reveals nothing. Learning from completions alone (the naive estimator,
//! [`Censoring::Ignore`]) learns that tasks are shorter than they are, most where drops are
//! most frequent: in an oversubscribed system.
//!
//! [`Estimator`] keeps, per (task type, machine) cell, the observations and a current PMF:
//!
//! 1. **Kaplan-Meier** ([`pmf::kaplan_meier::KaplanMeier`], Gao, Robert, Vivien, cutting
//!    thresholds, eq. (4)) over the cell's observations gives the mass of each completion
//!    time, on the tick `ceil(time)`. Without censoring this is the empirical distribution.
//! 2. **The tail.** When the largest observation `w` is censored, a mass `R = S(w) > 0`
//!    survives every observation: it lies beyond `w`, and is placed there ([`Tail`]): by
//!    default on the prior conditioned on exceeding `w` ([`Pmf::condition_after`] at
//!    `floor(w)`), and, when the prior has no mass beyond `w`, on a geometric tail starting
//!    at `floor(w) + 1` whose mean excess is the exponential maximum-likelihood mean of the
//!    cell's data, `theta = (sum of observed times) / (completions)` (`theta = w` when
//!    nothing completed; at least one tick), cut where less than `1e-6` of its mass is left
//!    (that rest on its last tick) and at [`MAX_TAIL_TICKS`] ticks. [`Tail::AtLast`] is
//!    the convention of the paper's section 5.2 (the remainder on `w` itself), a lower
//!    bound, for comparison. Either way the censored mass never vanishes.
//! 3. **The blend with the prior** by a pseudo-count: with `n` observations in the estimate
//!    (all of them, censored included; completions only when censoring is ignored) and a
//!    prior weight `n0` ([`Options::prior_weight`]),
//!    `belief = (n0 prior + n estimate) / (n0 + n)`: the prior alone before the first
//!    observation, and weighing as much as `n0` observations after. A convex combination of
//!    two PMFs, so a PMF.
//!
//!    **The prior check** ([`Options::prior_check`], off by default). A prior that is
//!    wrong (too fast, too slow, flat, another system's) weighs `n0` observations for ever,
//!    and its tail decides where a censored remainder goes. With the check, at every rebuild
//!    the cell tests its prior against its observations: the Kolmogorov-Smirnov distance
//!    between the Kaplan-Meier CDF and the prior's, over the ticks up to the last
//!    observation ([`contradicts`]), against the Dvoretzky-Kiefer-Wolfowitz band
//!    `sqrt(ln(2 / delta) / (2 n))` ([`prior_band`], `delta` = [`PRIOR_CHECK_DELTA`]): by
//!    that inequality (Massart's constant), `n` uncensored observations drawn from the
//!    prior depart from it by more with probability at most `delta`. Beyond the band the
//!    prior is **rejected** in that cell ([`Estimator::rejects_prior`]): it weighs nothing
//!    in the blend and the censored tail is the geometric one, as for a cell without a
//!    prior beyond its last observation. A prior the observations agree with keeps its
//!    weight and its tail, bit for bit as without the check. The test is repeated at each
//!    rebuild (so a correct prior is rejected at some rebuild more often than `delta`) and
//!    censoring widens the Kaplan-Meier estimate's spread beyond the band's, both of which
//!    make a correct prior rejected more often: the cost is then that of learning the cell
//!    from its own observations alone.
//!
//! 4. **The machine factor** (optional, [`Options::machine_scale`]): the model `T = s_m Z`,
//!    every execution time on machine `m` a base time `Z` of its cell times one factor
//!    `s_m` that all the machine's cells share (a machine-wide slowdown or speedup). Each
//!    observation `x` of cell `(t, m)` gives the ratio `r = x / med(t, m)`, `med` the
//!    median of the cell's prior (its 1/2-quantile, at least one tick), censored when `x`
//!    is. The estimate of `s_m` is the **Kaplan-Meier median** of the machine's last
//!    [`Options::machine_window`] ratios ([`median_ratio`]: the smallest ratio at which
//!    the Kaplan-Meier CDF reaches 1/2; the largest ratio when more than half of the mass
//!    survives it, a lower bound), once at least [`MIN_MACHINE_OBSERVATIONS`] are in,
//!    clamped to `[1/MAX_SCALE, MAX_SCALE]`, and re-estimated after every
//!    [`Options::cadence`]-th observation of the machine. With a prior equal to the truth the ratios'
//!    median is exactly 1 (each cell's `Z / med` has median 1, so has any mixture of
//!    cells); when the machine slows down by `c`, it is `c`. A censored run at `e` counts
//!    as `r > e / med`, as in the cells. The window is the factor's forgetting. The
//!    factor applied moves to the estimate only when they differ by more than
//!    [`SCALE_STEP`] (relative): each move rebuilds every cell of the machine, which
//!    costs a scheduler the PCTs of the machine's queue. A cell then learns its base
//!    distribution: its observations are kept divided by the factor applied when they are
//!    made (steps 1-3 on those), and its PMF is that base stretched by the factor
//!    applied ([`pmf::transform::scale_time`]). With the factor off (the default) every
//!    factor is 1 and nothing is scaled.
//!
//! 5. **Exploration** ([`Options::explore`] `= N`, 10 by default; 0 = off). A scheduler
//!    learns a cell only by running tasks on it. A cell believed slow (a pessimistic
//!    prior, another system's PET) loses every comparison and never runs, so its belief is
//!    never corrected; a chance below the defer threshold on every machine (a flat prior
//!    under PAM) runs nothing at all, and nothing is learned. A cell holding `n < N`
//!    observations is **explored** ([`Estimator::explores`]). The scheduler's rule
//!    (`system::System`, the simulator and the live scheduler alike): at a mapping
//!    event, after the policy's decision, a machine left **idle** (nothing executing,
//!    nothing queued) takes one waiting task of a cell it explores, the one whose cell
//!    there holds the fewest observations, then the latest deadline, then the lowest task
//!    id. The exploration is work-conserving: it runs only on a machine the policy left
//!    without work and only tasks the policy did not map, so its cost is bounded by the
//!    idle time and the tasks it takes from a later, better mapping; once every cell holds
//!    `N` observations it stops. A cell tried this way is observed (completed, or censored
//!    at its drop), so no prior, however wrong, stalls the system or starves a cell.
//!
//!    With [`Options::optimism`], an explored cell is also read optimistically (optimism
//!    in the face of uncertainty): its PMF ([`Estimator::pmf`], what a scheduler reads) is
//!    the most favourable PMF within `eps = 1 / sqrt(n0 + n + 1)` of the belief of steps
//!    1-4 in CDF ([`optimistic`], [`optimism`]; `n0` the prior's weight): `eps` of the mass
//!    moved from the slowest end onto the fastest tick, every chance of finishing by a
//!    time raised by up to `eps`. From `N` observations on, `eps = 0`: the belief itself,
//!    bit for bit. The optimistic reading is an upper confidence bound on the chance of
//!    success: by the Dvoretzky-Kiefer-Wolfowitz inequality the empirical CDF of `k`
//!    observations lies within `sqrt(ln(2 / delta) / (2 k))` of the true one with
//!    probability `1 - delta`, a band that shrinks as `1 / sqrt(k)`, which `eps` follows
//!    with `k = n0 + n + 1` (`delta = 2 e^-2`, about 0.27). It makes every policy try an
//!    explored cell, not only an idle machine, and it costs tasks where the belief is
//!    right or too fast (every decision reads the optimism), so it is off by default.
//!
//! 6. **Copies** ([`Options::pool_copies`], on by default). Machines whose priors are
//!    equal, bit for bit, in every task type (copies of one machine type, as a PET of
//!    machine types with several machines each describes them) are learned as one machine:
//!    an observation on any of them goes to the cells of the first of them, every copy
//!    reads those cells' PMFs, and with the machine factor they share one factor
//!    ([`Estimator::copies`] lists them). `k` copies give each cell `k` times the
//!    observations. A prior equal on every machine (a flat one, or any prior that treats
//!    all machines alike) tells no machines apart and so says nothing about which are
//!    copies: then none are pooled. The model is that copies stay copies: a machine that may drift apart
//!    from its copies (one of them slowing down) is learned apart with
//!    `pool_copies = false`. A prior drawn per cell (a histogram of samples) or a flat
//!    prior over machines that differ does not make copies of distinct machines.
//!
//! [`Options`] choose ignoring censoring (the naive estimator, for comparison), a sliding
//! window over the last observations of each cell (for drift), the machine factor, and the
//! update cadence: a cell's PMF is rebuilt after every `k`-th observation of that cell, and
//! optionally only once the observations since the last rebuild reach a share of those the
//! cell holds ([`Options::cadence_share`]: about `ln(n) / share` rebuilds for `n`
//! observations). The machine factor is re-estimated at the same cadence per machine.
//!
//! # Cost and memory
//! A cell keeps its observations as **counts per distinct time** (completions and
//! censorings at each time, in a sorted map): the Kaplan-Meier risk sets without the
//! samples. An observation adds one count (`O(log d)`, `d` the distinct times held); a
//! rebuild walks the `d` times once in order (the same products in the same order as
//! [`pmf::kaplan_meier::KaplanMeier`] on the sorted samples, so the same bits as
//! [`estimate`] on them), then places the tail and blends with the prior (`O(support of the
//! prior and of the estimate)`). Neither depends on how many observations the cell holds.
//! With a [`Options::window`] the cell also keeps the window's observations in order, to
//! take each out of its count when it leaves (and to sum their times when the geometric
//! tail needs them: `O(window)`, in that case only). The machine factor's Kaplan-Meier
//! median costs `O(machine_window log machine_window)` at each re-estimate, and a move of
//! the factor rebuilds the machine's cells from their blends (a stretch each).
//!
//! **Recorded times.** An observation is recorded on the tick grid: a completion at `x` at
//! tick `ceil(x)` (where its mass lands anyway), a censoring at `e` at `floor(e)` (on the
//! grid what it tells: the execution outlasted `floor(e)` ticks, since `X > e` implies
//! `ceil(X) > floor(e)`; the prior's tail is conditioned on exceeding the same tick).
//! Observations at integer ticks, what the simulator produces, are recorded as they are.
//! A censoring at `e` is in the risk set of the completions of ticks up to `floor(e)`
//! (not of those of tick `floor(e) + 1` that came before `e`). So without the machine factor a cell holds
//! at most one time per tick of the observed range: memory is `O(support)` per cell (plus
//! the window's observations), whatever the number of observations. With the machine
//! factor an observation's base time is its tick divided by the factor applied, one time
//! per (tick, factor) pair; a cell records at most [`MAX_KEYS`] distinct times exactly,
//! and beyond them a time it does not hold yet goes on its tick of the base grid (`ceil`
//! for a completion, `floor` for a censoring, as above). Memory and the rebuild's walk
//! stay within `MAX_KEYS` plus the ticks of the base times' range.
//!
//! **The geometric tail** (step 2, when the prior has no mass beyond the last, censored,
//! observation `w`) is `P(floor(w) + k) = q (1 - q)^(k - 1)`, `q = 1 / theta`, `k >= 1`:
//! its mean excess over `floor(w)` is `theta`, the cell's total observed time over its
//! completions (the exponential maximum-likelihood mean of right-censored data). It is a
//! model, not an estimate: it assumes an execution that outlived `w` has as much to go
//! as the cell's mean, so when the cell's completions are short and its censorings long
//! (a prior that is too short, an overloaded machine) it places the remainder a mean's
//! length beyond `w`; when nothing completed, `theta = w`, doubling the expected time of
//! a task that already ran `w`. Both are the memoryless reading of "longer than `w`"; the
//! prior's own tail, when it reaches beyond `w`, takes precedence.
//!
//! Times are in the ticks of the prior's PMFs. A completion at time `x` counts at tick
//! `ceil(x)`; a censoring at `e` means the execution time exceeds `floor(e)` ticks
//! ("Recorded times" above).
//!
//! # Example
//! ```
//! use learn::{Estimator, Options};
//! use pmf::Pmf;
//! // One task type on one machine; the prior says 10 ticks, weighing as one observation.
//! let prior = vec![Pmf::point(10)];
//! let options = Options { prior_weight: 1.0, ..Options::default() };
//! let mut est = Estimator::new(1, 1, prior, options).unwrap();
//! // Two completions at 4 and 6, one task dropped after running 8 ticks.
//! est.observe(0, 0, 4.0, false).unwrap();
//! est.observe(0, 0, 6.0, false).unwrap();
//! assert!(est.observe(0, 0, 8.0, true).unwrap().changed()); // the cell's PMF changed
//! // Kaplan-Meier: 1/3 at 4, 1/3 at 6, 1/3 beyond 8 (on the prior beyond 8: tick 10);
//! // blended with the prior as 3 observations to 1.
//! let p = est.pmf(0, 0);
//! assert!((p.mass_at(4) - 0.25).abs() < 1e-12);
//! assert!((p.mass_at(6) - 0.25).abs() < 1e-12);
//! assert!((p.mass_at(10) - 0.5).abs() < 1e-12);
//! assert_eq!(est.observations(0, 0), 3);
//! ```

mod error;
mod estimate;
mod options;

use std::collections::{BTreeMap, VecDeque};

use pmf::kaplan_meier::Sample;
use pmf::{Pmf, Tick};

pub use error::LearnError;
pub use estimate::{
    MAX_TAIL_TICKS, PRIOR_CHECK_DELTA, blend, contradicts, estimate, estimate_checked,
    median_ratio, optimism, optimistic, prior_band,
};
pub use options::{Censoring, DEFAULT_EXPLORE, Options, Tail};

use estimate::{push_tail, read, stretch, tick_of};
use options::rebuild_after;

/// The most distinct times a cell records exactly; beyond them a new time is recorded on
/// its tick (the crate docs, "Cost and memory").
pub const MAX_KEYS: usize = 4096;

/// The machine factor is estimated once a machine has this many observations in its window
/// (or its whole window, when [`Options::machine_window`] is smaller); until then it is 1.
pub const MIN_MACHINE_OBSERVATIONS: usize = 10;

/// The factor applied to a machine's cells moves to the estimate only when
/// `|ln(estimate / applied)| > ln(1 + SCALE_STEP)`.
pub const SCALE_STEP: f64 = 0.05;

/// The machine factor lies in `[1 / MAX_SCALE, MAX_SCALE]`.
pub const MAX_SCALE: f64 = 16.0;

/// What an observation changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// No PMF.
    Unchanged,
    /// The PMF of the observed cell (on every copy of its machine, [`Estimator::copies`]).
    Cell,
    /// Every cell of the observed machine (its factor moved, [`Options::machine_scale`];
    /// and of every copy of it).
    Machine,
}

impl Update {
    /// True when some PMF changed.
    pub fn changed(self) -> bool {
        self != Update::Unchanged
    }
}

/// The completions and censorings recorded at one time of a cell.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    completed: usize,
    censored: usize,
}

/// One (task type, machine) cell.
#[derive(Debug, Clone)]
struct Cell {
    /// The held observations counted by recorded time (the bits of a non-negative `f64`,
    /// which order as the times): the Kaplan-Meier risk sets, walked in order.
    counts: BTreeMap<u64, Counts>,
    /// With a window, the held observations as recorded, oldest first (to evict them);
    /// empty without one.
    held: VecDeque<Sample>,
    /// Observations held.
    n: usize,
    /// Completions held.
    completed: usize,
    /// The recorded times of the held observations summed in the order observed (without
    /// a window; with one, summed from `held` when used).
    sum: f64,
    /// Observations since the PMF was last rebuilt.
    since: usize,
    /// The current PMF: `base` stretched by the machine's factor.
    current: Pmf,
    /// The blend of the prior and the estimate, on the scale of the prior.
    base: Pmf,
    /// Observations in the current PMF's estimate (`n` of the blend).
    used: usize,
    /// Whether the observations reject the prior at the last rebuild
    /// ([`Options::prior_check`]).
    rejected: bool,
}

impl Cell {
    fn new(prior: &Pmf) -> Self {
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
    fn record(&mut self, base: f64, censored: bool, window: Option<usize>) {
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

    /// The recorded times of the held observations summed in the order observed.
    fn total(&self, window: Option<usize>) -> f64 {
        match window {
            None => self.sum,
            Some(_) => self.held.iter().map(|s| s.time).sum(),
        }
    }

    /// [`estimate`] of the held observations, from the counts: one walk over the distinct
    /// times (the same operations in the same order, so the same bits).
    /// With it, whether the cell's observations reject the prior ([`Options::prior_check`]).
    fn estimate(
        &self,
        prior: &Pmf,
        options: &Options,
    ) -> Result<Option<(Pmf, usize, bool)>, LearnError> {
        let ignore = options.censoring == Censoring::Ignore;
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
        let rejected = options.prior_check && contradicts(prior, &pairs, last, n)?;
        if s > 0.0 {
            let prior = (!rejected).then_some(prior);
            push_tail(&mut pairs, s, last, prior, options, || {
                (self.total(options.window), self.completed)
            })?;
        }
        Ok(Some((Pmf::from_weighted_pairs(pairs)?, n, rejected)))
    }
}

/// A machine's factor ([`Options::machine_scale`]).
#[derive(Debug, Clone)]
struct Factor {
    /// The last observations' ratios to their cells' prior medians.
    ratios: VecDeque<Sample>,
    /// The factor applied to the machine's cells.
    applied: f64,
    /// Observations of the machine since the factor was last estimated.
    since: usize,
}

/// Per (task type, machine), the execution-time PMF learned so far (see the crate docs).
#[derive(Debug, Clone)]
pub struct Estimator {
    types: usize,
    machines: usize,
    prior: Vec<Pmf>,
    /// The prior's median of each cell (at least 1 tick), the machine factor's reference.
    medians: Vec<f64>,
    cells: Vec<Cell>,
    factors: Vec<Factor>,
    /// Per machine, the machine whose cells it learns in: the first of its copies
    /// ([`Options::pool_copies`]), else itself.
    class: Vec<usize>,
    /// Per machine, the machines learned together with it (itself included, in order).
    copies: Vec<Vec<usize>>,
    options: Options,
}

impl Estimator {
    /// An estimator for `types x machines` cells whose prior for task type `t` on machine `m`
    /// is `prior(t, m)` (from a PET: `|t, m| pet.pmf(t, m).clone()`): [`Estimator::new`] with
    /// the priors in its row-major order.
    pub fn with_prior(
        types: usize,
        machines: usize,
        prior: impl Fn(usize, usize) -> Pmf,
        options: Options,
    ) -> Result<Self, LearnError> {
        let cells = (0..types)
            .flat_map(|t| (0..machines).map(move |m| (t, m)))
            .map(|(t, m)| prior(t, m))
            .collect();
        Estimator::new(types, machines, cells, options)
    }

    /// An estimator for `types x machines` cells; `prior[t * machines + m]` is the prior of
    /// task type `t` on machine `m` (row-major), the PMF of every cell before it observes
    /// anything.
    pub fn new(
        types: usize,
        machines: usize,
        prior: Vec<Pmf>,
        options: Options,
    ) -> Result<Self, LearnError> {
        options.validate()?;
        if prior.len() != types.saturating_mul(machines) {
            return Err(LearnError::PriorShape {
                types,
                machines,
                found: prior.len(),
            });
        }
        let cells = prior
            .iter()
            .map(|p| {
                let mut c = Cell::new(p);
                c.current = read(
                    p.clone(),
                    optimism(options.prior_weight, 0, options.optimistic_below()),
                )?;
                Ok(c)
            })
            .collect::<Result<_, LearnError>>()?;
        let medians = prior
            .iter()
            .map(|p| p.quantile(0.5).map(|q| (q as f64).max(1.0)))
            .collect::<Result<_, _>>()?;
        let factors = (0..machines)
            .map(|_| Factor {
                ratios: VecDeque::new(),
                applied: 1.0,
                since: 0,
            })
            .collect();
        // A prior equal on every machine (a flat one) tells no machines apart, so it says
        // nothing about which are copies: then none are pooled.
        let class = Some(pmf::columns::first_copies(types, machines, |t, m| {
            &prior[t * machines + m]
        }))
        .filter(|c| options.pool_copies && c.iter().enumerate().any(|(m, &f)| f == m && m > 0))
        .unwrap_or_else(|| (0..machines).collect());
        let mut copies = vec![Vec::new(); machines];
        for (m, &c) in class.iter().enumerate() {
            copies[c].push(m);
        }
        for m in 0..machines {
            if class[m] != m {
                copies[m] = copies[class[m]].clone();
            }
        }
        Ok(Estimator {
            types,
            machines,
            prior,
            medians,
            cells,
            factors,
            class,
            copies,
            options,
        })
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Task types.
    pub fn types(&self) -> usize {
        self.types
    }

    /// Machines.
    pub fn machines(&self) -> usize {
        self.machines
    }

    /// The cell `(task_type, machine)` is learned in: its machine's first copy's.
    fn index(&self, task_type: usize, machine: usize) -> Result<usize, LearnError> {
        if task_type >= self.types || machine >= self.machines {
            return Err(LearnError::OutOfRange {
                task_type,
                machine,
                types: self.types,
                machines: self.machines,
            });
        }
        Ok(task_type * self.machines + self.class[machine])
    }

    /// The machines learned together with `machine` ([`Options::pool_copies`]; itself
    /// included, in index order): an [`Update`] of an observation on `machine` changed
    /// the PMFs of all of them. Out of the estimator's shape: none.
    pub fn copies(&self, machine: usize) -> &[usize] {
        self.copies.get(machine).map_or(&[], Vec::as_slice)
    }

    /// Records an execution of `task_type` on `machine` that ran `time` ticks: completed
    /// (`censored = false`) or ended by a drop before completing (`censored = true`: the
    /// execution time exceeds `time`). Returns what changed: the cell's PMF (rebuilt at the
    /// cadence, [`Options::cadence`]), every PMF of the machine (its factor moved,
    /// [`Options::machine_scale`]), or nothing.
    ///
    /// Errors: a cell outside the shape or a time that is not finite and `>= 0` (nothing
    /// is recorded); a PMF that cannot be built (the observation is recorded, the PMFs are
    /// unchanged).
    pub fn observe(
        &mut self,
        task_type: usize,
        machine: usize,
        time: f64,
        censored: bool,
    ) -> Result<Update, LearnError> {
        let i = self.index(task_type, machine)?;
        if !(time.is_finite() && time >= 0.0) {
            return Err(LearnError::InvalidTime(time));
        }
        // Copies learn in their first copy's cells, with its factor.
        let machine = self.class[machine];
        let options = self.options;
        // On the tick grid: a completion at its tick, a censoring at the ticks it outlasted.
        let time = if censored { time.floor() } else { time.ceil() } + 0.0;
        let mut update = Update::Unchanged;
        let mut failed = None;
        if options.machine_scale {
            match self.update_factor(machine, time / self.medians[i], censored) {
                Ok(Some(pmfs)) => {
                    for (t, p) in pmfs.into_iter().enumerate() {
                        self.cells[t * self.machines + machine].current = p;
                    }
                    update = Update::Machine;
                }
                Ok(None) => {}
                Err(e) => failed = Some(e),
            }
        }
        let factor = self.factors[machine].applied;
        let cell = &mut self.cells[i];
        cell.record(time / factor, censored, options.window);
        cell.since += 1;
        if let Some(e) = failed {
            return Err(e);
        }
        if cell.since >= rebuild_after(&options, cell.n) {
            cell.since = 0;
            let (estimate, used, rejected) = match cell.estimate(&self.prior[i], &options)? {
                Some((p, n, r)) => (Some(p), n, r),
                None => (None, 0, false),
            };
            // A prior the cell's observations reject weighs nothing (`Options::prior_check`).
            let n0 = if rejected { 0.0 } else { options.prior_weight };
            let next = match estimate {
                Some(e) => blend(&self.prior[i], n0, &e, used)?,
                None => self.prior[i].clone(),
            };
            cell.rejected = rejected;
            let current = read(
                stretch(&next, factor)?,
                optimism(options.prior_weight, cell.n, options.optimistic_below()),
            )?;
            if current != cell.current && update == Update::Unchanged {
                update = Update::Cell;
            }
            cell.current = current;
            cell.base = next;
            cell.used = used;
        }
        Ok(update)
    }

    /// Adds a ratio to `machine`'s window and re-estimates its factor; when the factor
    /// applied moves, the machine's cells' PMFs at the new factor (by task type), the
    /// factor already applied.
    fn update_factor(
        &mut self,
        machine: usize,
        ratio: f64,
        censored: bool,
    ) -> Result<Option<Vec<Pmf>>, LearnError> {
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
            return Ok(None);
        }
        f.since = 0;
        let Some(est) = median_ratio(f.ratios.make_contiguous())? else {
            return Ok(None);
        };
        let est = est.clamp(1.0 / MAX_SCALE, MAX_SCALE);
        if (est / f.applied).ln().abs() <= SCALE_STEP.ln_1p() {
            return Ok(None);
        }
        let (n0, explore) = (self.options.prior_weight, self.options.optimistic_below());
        let pmfs = (0..self.types)
            .map(|t| {
                let c = &self.cells[t * self.machines + machine];
                read(stretch(&c.base, est)?, optimism(n0, c.n, explore))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.factors[machine].applied = est;
        Ok(Some(pmfs))
    }

    /// The factor applied to `machine`'s cells (1 without [`Options::machine_scale`]).
    ///
    /// # Panics
    /// On a machine outside the estimator's shape.
    pub fn scale(&self, machine: usize) -> f64 {
        match self.class.get(machine).map(|&c| &self.factors[c]) {
            Some(f) => f.applied,
            None => panic!("machine {machine} outside {} machines", self.machines),
        }
    }

    /// The current PMF of `task_type` on `machine`.
    ///
    /// # Panics
    /// On a cell outside the estimator's shape.
    pub fn pmf(&self, task_type: usize, machine: usize) -> &Pmf {
        match self.index(task_type, machine) {
            Ok(i) => &self.cells[i].current,
            Err(e) => panic!("{e}"),
        }
    }

    /// The prior of `task_type` on `machine`.
    ///
    /// # Panics
    /// On a cell outside the estimator's shape.
    pub fn prior(&self, task_type: usize, machine: usize) -> &Pmf {
        match self.index(task_type, machine) {
            Ok(i) => &self.prior[i],
            Err(e) => panic!("{e}"),
        }
    }

    /// The observations of the cell that count (within the window), censored included.
    ///
    /// # Panics
    /// On a cell outside the estimator's shape.
    pub fn observations(&self, task_type: usize, machine: usize) -> usize {
        match self.index(task_type, machine) {
            Ok(i) => self.cells[i].n,
            Err(e) => panic!("{e}"),
        }
    }

    /// Whether the cell is explored: it holds fewer than [`Options::explore`] observations.
    /// Out of the estimator's shape: false.
    pub fn explores(&self, task_type: usize, machine: usize) -> bool {
        self.index(task_type, machine)
            .is_ok_and(|i| self.cells[i].n < self.options.explore)
    }

    /// Whether the cell's observations reject its prior ([`Options::prior_check`]; at its
    /// last rebuild): the prior then weighs nothing in the cell and its tail is not used.
    /// False without the check.
    ///
    /// # Panics
    /// On a cell outside the estimator's shape.
    pub fn rejects_prior(&self, task_type: usize, machine: usize) -> bool {
        match self.index(task_type, machine) {
            Ok(i) => self.cells[i].rejected,
            Err(e) => panic!("{e}"),
        }
    }

    /// `n` of the blend in the cell's current PMF: the observations its estimate was built
    /// from (completions only when censoring is ignored).
    ///
    /// # Panics
    /// On a cell outside the estimator's shape.
    pub fn weight(&self, task_type: usize, machine: usize) -> usize {
        match self.index(task_type, machine) {
            Ok(i) => self.cells[i].used,
            Err(e) => panic!("{e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::geometric_tail;

    #[test]
    fn a_geometric_tail_has_its_mean_excess_and_sums_to_one() {
        let t = geometric_tail(10, 4.0);
        let total: f64 = t.iter().map(|x| x.1).sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(t[0].0, 11);
        // P(11) = 1/4, P(12) = 3/16.
        assert!((t[0].1 - 0.25).abs() < 1e-15);
        assert!((t[1].1 - 0.1875).abs() < 1e-15);
        let mean: f64 = t.iter().map(|&(x, p)| (x - 10) as f64 * p).sum();
        assert!((mean - 4.0).abs() < 1e-3, "{mean}");
    }

    #[test]
    fn options_out_of_range_name_their_field() {
        for (o, field) in [
            (
                Options {
                    prior_weight: -1.0,
                    ..Options::default()
                },
                "prior_weight",
            ),
            (
                Options {
                    window: Some(0),
                    ..Options::default()
                },
                "window",
            ),
            (
                Options {
                    cadence: 0,
                    ..Options::default()
                },
                "cadence",
            ),
        ] {
            match o.validate() {
                Err(LearnError::InvalidOption { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
    }
}
