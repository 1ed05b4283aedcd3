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
//!    applied ([`pmf::transform::scale_time`]).
//!
//!    **From the evidence** ([`Options::scale_by_evidence`], on by default; without
//!    `machine_scale`). The factor is estimated as above but applied only while the
//!    machine's observations say it is **slower than its prior**: the estimate above 1, and
//!    every cell of the machine holding [`MIN_SCALE_EVIDENCE`] observations (at
//!    least [`evidence::JOIN_TYPES`] cells, all the types when fewer, and 2) nearer its prior
//!    stretched by the estimate than its prior itself (the Kolmogorov-Smirnov distance of
//!    its Kaplan-Meier CDF over the observed range, [`departure`]). Otherwise the factor
//!    is 1. Here the factor stretches only the **prior**: each cell keeps its times as
//!    observed, and blends them with its prior stretched by the factor (which also places
//!    the mass beyond a censored observation), so the factor weighs `n0 / (n0 + n)` of a
//!    cell's belief: all of it in a cell never run, little in a busy one, and a factor
//!    that moves or stops applying leaves the observations as they were. The argument:
//!    a cell learns from its own observations, so what a factor adds is the evidence of
//!    the machine's busy cells carried to the cells that run too few tasks to learn by
//!    themselves. A prior too fast there makes those cells look better than they are, and a
//!    scheduler sends them tasks that miss (the error is acted on); a prior too slow makes
//!    them lose comparisons they would mostly lose anyway, and exploration (step 5) tries
//!    them. So a prior too fast for a whole machine is corrected, one too slow, one right
//!    to within noise, or one wrong cell by cell (the cells disagree) is left to each
//!    cell. A prior equal on every machine (a flat one) has no machine to be slower than:
//!    no factor (the copies are found from the evidence instead, step 6). The measurement
//!    behind it is in docs/reproduction.md ("Learning from any prior"). With both options
//!    off every factor is 1 and nothing is scaled.
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
//!    observations. The model is that copies stay copies: a machine that may drift apart
//!    from its copies (one of them slowing down) is learned apart with
//!    `pool_copies = false`. A prior drawn per cell (a histogram of samples) or a flat
//!    prior over machines that differ does not make copies of distinct machines.
//!
//!    **From the evidence** ([`Options::pool_by_evidence`], on by default). A prior equal
//!    on every machine (a flat one, a homogeneous PET) tells no machines apart and so says
//!    nothing about which are copies. Then each machine records in its own cells, and
//!    every [`POOL_EVERY`] observations per machine the copies are found from the
//!    observations ([`evidence`]: a two-sample Kolmogorov-Smirnov test of the cells'
//!    Kaplan-Meier CDFs, type by type): machines alike in every task type compared (at
//!    least [`JOIN_TYPES`]) learn every type together, and the cells of a type alike on
//!    machines that are not copies learn that type together. A group's cells are rebuilt
//!    from their observations together (the counts merged: the same estimate as one cell
//!    holding them all) and every member reads the result ([`Estimator::cell_copies`]);
//!    machines and cells are learned apart again once a type tells them apart. Until a
//!    first group forms, every PMF is the one learned without looking, bit for bit. Not
//!    with the machine factor.
//!
//! 7. **The prior guard** ([`Options::prior_guard`], on by default). The prior check
//!    (step 3) judges each cell by its own observations, and so never reaches the cells a
//!    scheduler does not run, which are the ones a wrong prior hurts most: a prior from
//!    another system, with machine types swapped, or flat keeps every cell it believes slow
//!    unobserved, and a greedy policy's first few unlucky observations of a cell keep it so.
//!    The guard judges a machine: after each rebuild of one of its cells it counts the
//!    machine's cells holding [`GUARD_OBSERVATIONS`] observations and, among them, those
//!    whose Kaplan-Meier CDF departs from their prior (stretched by the machine factor, if
//!    one applies) by more than the prior check's band ([`contradicts`]). When more than
//!    half of them do, at least [`GUARD_CELLS`] (all the types, when fewer), and no one
//!    factor for the whole machine explains it or waits for its evidence to (with
//!    [`Options::scale_by_evidence`], step 4: a prior wrong only by a factor is right in
//!    shape; too fast, the factor corrects it, too slow, the cells do), the machine **drops
//!    its prior**
//!    ([`Estimator::dropped_prior`]): every cell of the machine is from then on learned as
//!    from no prior at all, its observations alone (no weight, the geometric tail beyond
//!    a censored last observation), and a cell not yet observed is read as one tick. The
//!    drop is for good: a prior once contradicted on most of a machine is not trusted
//!    again (a drift is for the window to follow).
//!
//!    **No prior.** A prior of one tick in every cell weighing nothing is no prior at all:
//!    what a scheduler has that knows the task types and the machines and no time. An
//!    unobserved cell read as one tick is the most favourable belief there is, so every
//!    policy tries it (optimism in the face of ignorance, which costs one task per cell),
//!    and from its first observation on it reads its observations alone. Which machines
//!    are copies no time can say; the user who names the kinds of their machines does
//!    ([`Estimator::with_machine_types`]).
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

mod cell;
mod error;
mod estimate;
pub mod evidence;
mod factor;
mod guard;
mod options;

use std::collections::VecDeque;

use pmf::Pmf;

pub use error::LearnError;
pub use estimate::{
    MAX_TAIL_TICKS, PRIOR_CHECK_DELTA, blend, contradicts, departure, estimate, estimate_checked,
    median_ratio, optimism, optimistic, prior_band,
};
pub use factor::{MAX_SCALE, MIN_MACHINE_OBSERVATIONS, MIN_SCALE_EVIDENCE, SCALE_STEP};
pub use guard::{GUARD_CELLS, GUARD_OBSERVATIONS};
pub use options::{Censoring, DEFAULT_EXPLORE, Options, Tail};

use cell::{Cell, Verdict};
use estimate::{read, stretch};
pub use evidence::{
    JOIN_DELTA, JOIN_TYPES, LEAVE_DELTA, MIN_POOL_OBSERVATIONS, POOL_EVERY, copies_band,
    two_sample_distance,
};
use factor::Factor;
use options::rebuild_after;

/// The most distinct times a cell records exactly; beyond them a new time is recorded on
/// its tick (the crate docs, "Cost and memory").
pub const MAX_KEYS: usize = 4096;

/// What an observation changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// No PMF.
    Unchanged,
    /// The PMF of the observed cell (on every copy of its machine, [`Estimator::copies`]).
    Cell,
    /// Every cell of the observed machine (its factor moved, [`Options::machine_scale`] or
    /// [`Options::scale_by_evidence`]; and of every copy of it).
    Machine,
    /// Any cell: the copies found from the evidence changed ([`Options::pool_by_evidence`],
    /// [`Estimator::copies`]), and with them what machines read.
    All,
}

impl Update {
    /// True when some PMF changed.
    pub fn changed(self) -> bool {
        self != Update::Unchanged
    }
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
    /// Whether the machine factors are estimated: [`Options::machine_scale`], or
    /// [`Options::scale_by_evidence`] with a prior that tells the machines apart.
    scaled: bool,
    /// Per cell, its prior stretched by its machine's factor from the evidence
    /// ([`Options::scale_by_evidence`]); `None`: the prior itself.
    stretched: Vec<Option<Pmf>>,
    /// Per machine, the machine whose cells it learns in: the first of its copies
    /// ([`Options::pool_copies`]), else itself.
    class: Vec<usize>,
    /// Per machine, the machines learned together with it (itself included, in order).
    copies: Vec<Vec<usize>>,
    /// Copies found from the evidence ([`Options::pool_by_evidence`]), when the prior tells
    /// no machines apart.
    evidence: Option<Evidence>,
    /// Per machine (the first of its copies), whether the guard dropped its prior
    /// ([`Options::prior_guard`]).
    dropped: Vec<bool>,
    options: Options,
}

/// The state of finding copies from the evidence ([`Options::pool_by_evidence`]): each
/// machine records in its own cells, and the cells of a group of copies are rebuilt from
/// their observations together, every copy reading the same PMF.
#[derive(Debug, Clone)]
struct Evidence {
    /// Observations since the copies were last found.
    since: usize,
    /// Per cell (type-major), the machines whose cells of its task type learn together
    /// with it (itself included, in index order).
    groups: Vec<Vec<usize>>,
    /// Per machine, the first machine it was found alike with in every task type compared
    /// (itself when none).
    classes: Vec<usize>,
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
        let copies = members(&class);
        // The same prior on every machine: the copies are for the evidence to find.
        let equal = machines > 1
            && (0..types).all(|t| {
                let row = &prior[t * machines..(t + 1) * machines];
                row.iter().all(|p| p == &row[0])
            });
        let evidence =
            (options.pool_copies && options.pool_by_evidence && !options.machine_scale && equal)
                .then(|| Evidence {
                    since: 0,
                    groups: (0..types * machines).map(|i| vec![i % machines]).collect(),
                    classes: (0..machines).collect(),
                });
        let scaled = options.machine_scale || (options.scale_by_evidence && !equal);
        Ok(Estimator {
            types,
            machines,
            prior,
            medians,
            cells,
            factors,
            scaled,
            stretched: vec![None; types * machines],
            class,
            copies,
            evidence,
            dropped: vec![false; machines],
            options,
        })
    }

    /// The estimator told which machines are copies: `kinds[m]` names machine `m`'s machine
    /// type (any labels; machines with equal labels are copies), as a user who names the
    /// kinds of their machines knows it without knowing any time. With
    /// [`Options::pool_copies`] the copies learn as one from the first observation, in place
    /// of the copies the prior's equal columns say and of those found from the evidence
    /// ([`Options::pool_by_evidence`]); without it, nothing changes. Call it before any
    /// observation.
    ///
    /// Errors: [`LearnError::PriorShape`] when `kinds` does not have one label per machine.
    pub fn with_machine_types(mut self, kinds: &[usize]) -> Result<Self, LearnError> {
        if kinds.len() != self.machines {
            return Err(LearnError::PriorShape {
                types: self.types,
                machines: self.machines,
                found: kinds.len(),
            });
        }
        if !self.options.pool_copies {
            return Ok(self);
        }
        self.class = (0..self.machines)
            .map(|m| kinds.iter().position(|&k| k == kinds[m]).unwrap_or(m))
            .collect();
        self.copies = members(&self.class);
        self.evidence = None;
        Ok(self)
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
    /// the PMFs of all of them. Found from the evidence ([`Options::pool_by_evidence`]),
    /// they change as the observations do ([`Update::All`]). Out of the estimator's
    /// shape: none.
    pub fn copies(&self, machine: usize) -> &[usize] {
        self.copies.get(machine).map_or(&[], Vec::as_slice)
    }

    /// The machines whose cells of `task_type` are learned together with `machine`'s
    /// (itself included, in index order): its copies ([`Estimator::copies`]), or, with
    /// copies found from the evidence ([`Options::pool_by_evidence`]), the machines whose
    /// observations of `task_type` are alike, which change as the observations do
    /// ([`Update::All`]). An [`Update::Cell`] of an observation of `task_type` on
    /// `machine` changed the PMFs of all of them. Out of the estimator's shape: none.
    pub fn cell_copies(&self, task_type: usize, machine: usize) -> &[usize] {
        if task_type >= self.types {
            return &[];
        }
        match &self.evidence {
            Some(ev) => ev
                .groups
                .get(task_type * self.machines + machine)
                .map_or(&[], Vec::as_slice),
            None => self.copies(machine),
        }
    }

    /// Records an execution of `task_type` on `machine` that ran `time` ticks: completed
    /// (`censored = false`) or ended by a drop before completing (`censored = true`: the
    /// execution time exceeds `time`). Returns what changed: the cell's PMF (rebuilt at the
    /// cadence, [`Options::cadence`]), every PMF of the machine (its factor moved,
    /// [`Options::machine_scale`]), any cell (the copies found from the evidence changed,
    /// [`Options::pool_by_evidence`]), or nothing.
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
        if self.scaled && !self.dropped[machine] {
            match self.update_factor(machine, time / self.medians[i], censored) {
                Ok(true) => update = Update::Machine,
                Ok(false) => {}
                Err(e) => failed = Some(e),
            }
        }
        // With `machine_scale` a cell learns its base times (divided by the factor) and its
        // PMF is their blend stretched by the factor; from the evidence it learns its times
        // as observed and the factor stretches the prior it blends with.
        let factor = if options.machine_scale {
            self.factors[machine].applied
        } else {
            1.0
        };
        let cell = &mut self.cells[i];
        cell.record(time / factor, censored, options.window);
        cell.since += 1;
        if let Some(e) = failed {
            return Err(e);
        }
        if self.evidence.is_some() {
            let pooled = self.observe_pooled(task_type, machine)?;
            if !self.guard(machine)? {
                return Ok(pooled);
            }
            // The machine's cells, and those learned together with them.
            let alone = (0..self.types).all(|t| self.cell_copies(t, machine).len() == 1);
            return Ok(if alone { Update::Machine } else { Update::All });
        }
        let options = self.options_of(machine);
        let cell = &mut self.cells[i];
        if cell.since >= rebuild_after(&options, cell.n) {
            cell.since = 0;
            let prior = self.stretched[i].as_ref().unwrap_or(&self.prior[i]);
            let built = build(cell, prior, factor, &options)?;
            if built.current != cell.current && update == Update::Unchanged {
                update = Update::Cell;
            }
            built.install(cell);
            if self.guard(machine)? {
                update = Update::Machine;
            }
        }
        Ok(update)
    }

    /// After an observation of `task_type` on `machine` recorded in its own cell, with
    /// copies found from the evidence ([`Options::pool_by_evidence`]): the copies found
    /// again when due, then the cell of the observed machine's copies rebuilt from their
    /// observations together at the cadence (their observations and those since the last
    /// rebuild counted together).
    fn observe_pooled(&mut self, task_type: usize, machine: usize) -> Result<Update, LearnError> {
        let mut update = Update::Unchanged;
        if let Some(ev) = self.evidence.as_mut() {
            ev.since += 1;
            if ev.since >= POOL_EVERY.saturating_mul(self.machines) {
                ev.since = 0;
                if self.find_copies()? {
                    update = Update::All;
                }
            }
        }
        let row = task_type * self.machines;
        let group = self.cell_copies(task_type, machine);
        let held: usize = group.iter().map(|&g| self.cells[row + g].n).sum();
        let since: usize = group.iter().map(|&g| self.cells[row + g].since).sum();
        if since >= rebuild_after(&self.options, held)
            && self.rebuild_copies(task_type, machine)?
            && update == Update::Unchanged
        {
            update = Update::Cell;
        }
        Ok(update)
    }

    /// Rebuilds the cells of `task_type` on `machine` and its copies from their
    /// observations together ([`Options::pool_by_evidence`]): every copy reads the same
    /// PMF. Whether a copy's PMF changed.
    fn rebuild_copies(&mut self, task_type: usize, machine: usize) -> Result<bool, LearnError> {
        let row = task_type * self.machines;
        let group = self.cell_copies(task_type, machine).to_vec();
        let first = &self.cells[row + group[0]];
        let merged;
        let cell = if group.len() == 1 {
            first
        } else {
            merged = Cell::merged(first, group[1..].iter().map(|&g| &self.cells[row + g]));
            &merged
        };
        let options = self.options_of(group[0]);
        let built = build(cell, &self.prior[row + group[0]], 1.0, &options)?;
        let mut changed = false;
        for g in group {
            let c = &mut self.cells[row + g];
            c.since = 0;
            changed |= built.current != c.current;
            built.clone().install(c);
        }
        Ok(changed)
    }

    /// Finds the copies again from the observations ([`Options::pool_by_evidence`],
    /// [`evidence`]): the machines, each in index order joining the first group whose
    /// first machine it is a copy of ([`evidence::alike_machines`]); then, type by type,
    /// each cell joining the first group of its type whose first machine is its machine's
    /// copy or whose cell it is alike with ([`evidence::alike`]). The cells whose copies
    /// changed are rebuilt. Whether any changed.
    fn find_copies(&mut self) -> Result<bool, LearnError> {
        let ignore = self.options.censoring == Censoring::Ignore;
        let (types, machines) = (self.types, self.machines);
        let cdfs = self
            .cells
            .iter()
            .map(|c| c.cdf(ignore))
            .collect::<Result<Vec<_>, _>>()?;
        let Some(ev) = self.evidence.as_ref() else {
            return Ok(false);
        };
        let join = types.min(evidence::JOIN_TYPES);
        let mut class: Vec<usize> = Vec::with_capacity(machines);
        let mut firsts: Vec<usize> = Vec::new();
        for m in 0..machines {
            let found = firsts.iter().copied().find(|&r| {
                let together = ev.classes[m] == ev.classes[r];
                evidence::alike_machines(&cdfs, types, machines, (r, m), together, join)
            });
            class.push(found.unwrap_or_else(|| {
                firsts.push(m);
                m
            }));
        }
        // Within a task type: the machines found alike in every type compared, and the
        // cells alike in that type.
        let mut next: Vec<Vec<usize>> = Vec::with_capacity(types * machines);
        for t in 0..types {
            let row = t * machines;
            let mut cell_class: Vec<usize> = Vec::with_capacity(machines);
            let mut cell_firsts: Vec<usize> = Vec::new();
            for m in 0..machines {
                let found = cell_firsts.iter().copied().find(|&r| {
                    class[r] == class[m]
                        || evidence::alike(
                            &cdfs[row + r],
                            &cdfs[row + m],
                            ev.groups[row + m].contains(&r),
                        )
                });
                cell_class.push(found.unwrap_or_else(|| {
                    cell_firsts.push(m);
                    m
                }));
            }
            next.extend(members(&cell_class));
        }
        if next == ev.groups {
            if let Some(ev) = self.evidence.as_mut() {
                ev.classes = class;
            }
            return Ok(false);
        }
        let moved: Vec<usize> = (0..types * machines)
            .filter(|&i| next[i] != ev.groups[i])
            .collect();
        if let Some(ev) = self.evidence.as_mut() {
            ev.groups = next;
            ev.classes = class;
        }
        for &i in &moved {
            let (t, m) = (i / machines, i % machines);
            let first = self.cell_copies(t, m)[0];
            if first == m || !moved.contains(&(t * machines + first)) {
                self.rebuild_copies(t, m)?;
            }
        }
        Ok(true)
    }

    /// The factor applied to `machine`'s cells (1 without [`Options::machine_scale`] or
    /// [`Options::scale_by_evidence`]).
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

    /// The observations of the cell that count (within the window), censored included;
    /// with copies found from the evidence, those of the cell on every copy together.
    ///
    /// # Panics
    /// On a cell outside the estimator's shape.
    pub fn observations(&self, task_type: usize, machine: usize) -> usize {
        match self.held(task_type, machine) {
            Ok(n) => n,
            Err(e) => panic!("{e}"),
        }
    }

    /// The observations the cell's PMF learns from ([`Estimator::observations`]).
    fn held(&self, task_type: usize, machine: usize) -> Result<usize, LearnError> {
        let i = self.index(task_type, machine)?;
        Ok(match self.evidence {
            Some(_) => {
                let row = task_type * self.machines;
                self.cell_copies(task_type, machine)
                    .iter()
                    .map(|&g| self.cells[row + g].n)
                    .sum()
            }
            None => self.cells[i].n,
        })
    }

    /// Whether the cell is explored: it holds fewer than [`Options::explore`] observations
    /// ([`Estimator::observations`]). Out of the estimator's shape: false.
    pub fn explores(&self, task_type: usize, machine: usize) -> bool {
        self.held(task_type, machine)
            .is_ok_and(|n| n < self.options.explore)
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

/// Per machine, the machines of its class (`class[m]` the first of them), in index order.
fn members(class: &[usize]) -> Vec<Vec<usize>> {
    let mut copies = vec![Vec::new(); class.len()];
    for (m, &c) in class.iter().enumerate() {
        copies[c].push(m);
    }
    for m in 0..class.len() {
        if class[m] != m {
            copies[m] = copies[class[m]].clone();
        }
    }
    copies
}

/// A cell's PMFs rebuilt from its observations (steps 1-3 and 5 of the crate docs).
#[derive(Clone)]
struct Built {
    current: Pmf,
    base: Pmf,
    used: usize,
    verdict: Verdict,
}

impl Built {
    fn install(self, cell: &mut Cell) {
        cell.current = self.current;
        cell.base = self.base;
        cell.used = self.used;
        cell.rejected = self.verdict.rejected;
        cell.contradicted = self.verdict.contradicted;
    }
}

/// The cell's estimate blended with its `prior` (a prior the observations reject weighing
/// nothing, [`Options::prior_check`]), stretched by the machine's `factor` and read
/// optimistically while explored.
pub(crate) fn build(
    cell: &Cell,
    prior: &Pmf,
    factor: f64,
    options: &Options,
) -> Result<Built, LearnError> {
    let (estimate, used, verdict) = match cell.estimate(prior, options)? {
        Some((p, n, v)) => (Some(p), n, v),
        None => (None, 0, Verdict::default()),
    };
    let n0 = if verdict.rejected {
        0.0
    } else {
        options.prior_weight
    };
    let base = match estimate {
        Some(e) => blend(prior, n0, &e, used)?,
        None => prior.clone(),
    };
    let current = read(
        stretch(&base, factor)?,
        optimism(options.prior_weight, cell.n, options.optimistic_below()),
    )?;
    Ok(Built {
        current,
        base,
        used,
        verdict,
    })
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
