//! The bracket `[L, U]` around the clairvoyant optimum of a trial.

use std::ops::Range;

use model::TaskSpec;
use pmf::Tick;
use workload::Pet;

use crate::error::BoundError;
use crate::instance::{Instance, instance_from};
use crate::lagrange::{TimeIndexed, lagrangian};
use crate::lower::{LowerBound, LowerOptions, Problem, lower_bound_of};
use crate::lp::{Bound, BoundOptions, floor_count, upper_bound_with_duals};

/// How hard to work on the Lagrangian bound of the time-indexed formulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LagrangianOptions {
    /// Evaluations of the Lagrangian (one longest path per machine each): the first at the
    /// capacity LP's duals, the others after subgradient steps. 0 leaves the bound out.
    pub evaluations: usize,
    /// Leave the bound out when one evaluation would visit more cells (ticks of the machine
    /// horizons plus, for every tick, the tasks that may complete then): bounds the time,
    /// and the memory (a value and a choice per tick of the longest horizon).
    pub max_cells: u64,
}

impl Default for LagrangianOptions {
    /// One evaluation (at the capacity LP's duals: subgradient steps from there gain little
    /// for their cost, see `docs/bound.md`), at most 2 x 10^7 cells (an 800-task trial on 8
    /// machines has about 5 x 10^5).
    fn default() -> Self {
        LagrangianOptions {
            evaluations: 1,
            max_cells: 20_000_000,
        }
    }
}

impl LagrangianOptions {
    /// No Lagrangian bound: the upper side is the LP alone.
    pub fn off() -> Self {
        LagrangianOptions {
            evaluations: 0,
            ..LagrangianOptions::default()
        }
    }

    /// The options with another number of evaluations.
    pub fn with_evaluations(self, evaluations: usize) -> Self {
        LagrangianOptions {
            evaluations,
            ..self
        }
    }
}

/// The Lagrangian bound of one trial (see [`lagrangian_bound`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LagrangianBound {
    /// The smallest value found: no schedule has more counted tasks on time.
    pub value: f64,
    /// `floor(value)` (up to 1e-6).
    pub on_time: usize,
    /// The value at the capacity LP's duals (at most the LP's value).
    pub start: f64,
    /// Evaluations run.
    pub evaluations: usize,
    /// Cells of one evaluation.
    pub cells: u64,
}

/// How to compute a [`Bracket`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct BracketOptions {
    /// The LP bound (default: the capacity LP).
    pub upper: BoundOptions,
    /// The Lagrangian bound that tightens it.
    pub lagrangian: LagrangianOptions,
    /// The search for a good schedule.
    pub lower: LowerOptions,
}

impl Default for BracketOptions {
    /// The capacity LP, one Lagrangian evaluation and the default search (their cost on an
    /// 800-task trial is in `docs/bound.md`).
    fn default() -> Self {
        BracketOptions {
            upper: BoundOptions::default(),
            lagrangian: LagrangianOptions::default(),
            lower: LowerOptions::default(),
        }
    }
}

impl BracketOptions {
    /// A tighter bracket for more time: 30 Lagrangian evaluations, and a search with ten
    /// times the default budget that stops after six idle sweeps (its cost is in
    /// `docs/bound.md`).
    pub fn thorough() -> Self {
        BracketOptions {
            upper: BoundOptions::default(),
            lagrangian: LagrangianOptions::default().with_evaluations(30),
            lower: LowerOptions::default()
                .with_max_steps(30_000_000)
                .with_patience(6),
        }
    }

    /// The options with other LP options.
    pub fn with_upper(self, upper: BoundOptions) -> Self {
        BracketOptions { upper, ..self }
    }

    /// The options with other Lagrangian options.
    pub fn with_lagrangian(self, lagrangian: LagrangianOptions) -> Self {
        BracketOptions { lagrangian, ..self }
    }

    /// The options with another search.
    pub fn with_lower(self, lower: LowerOptions) -> Self {
        BracketOptions { lower, ..self }
    }
}

/// The clairvoyant optimum of a trial lies in `[lower_on_time, upper_on_time]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bracket {
    /// Number of counted tasks.
    pub counted: usize,
    /// Counted tasks on time in the best schedule found ([`Bracket::lower`]): achievable.
    pub lower_on_time: usize,
    /// No schedule has more counted tasks on time: the smaller of the LP's and the
    /// Lagrangian's counts.
    pub upper_on_time: usize,
    /// `100 * lower_on_time / counted` (0 when nothing is counted).
    pub lower_robustness: f64,
    /// `100 * upper_on_time / counted` (0 when nothing is counted).
    pub upper_robustness: f64,
    /// The LP bound.
    pub lp: Bound,
    /// The Lagrangian bound (`None` when left out by the options or the cell limit).
    pub lagrangian: Option<LagrangianBound>,
    /// The schedule behind the lower side.
    pub lower: LowerBound,
}

impl Bracket {
    /// `upper_robustness - lower_robustness`: the width of the bracket in points of
    /// robustness.
    pub fn width(&self) -> f64 {
        self.upper_robustness - self.lower_robustness
    }
}

fn pct(x: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * x as f64 / of as f64
    }
}

/// Lower and upper bounds on the most counted tasks of `inst` that any schedule, even one
/// that knows every realised time, finishes on time.
///
/// The lower side is the best feasible schedule the search of [`crate::lower_bound`] finds;
/// the upper side the LP of [`crate::upper_bound`] with `opts.upper`, tightened by the
/// Lagrangian bound of the time-indexed formulation ([`lagrangian_bound`]) started from
/// the capacity LP's duals, its subgradient steps aimed at the lower side. Deterministic:
/// budgets count work, not time.
///
/// Errors: an invalid instance or options, an LP solver failure, or a lower side above the
/// upper one ([`BoundError::Crossed`], which would be a bug).
pub fn bracket(inst: &Instance, opts: &BracketOptions) -> Result<Bracket, BoundError> {
    inst.validate()?;
    let pr = Problem::new(inst);
    bracket_of(inst, &pr, inst, None, opts)
}

/// The bracket of a trial whose execution times are known only within limits: each task
/// runs at least `fast.exec` and at most `slow.exec` ticks on each machine (a truth that
/// drifts during the trial, where a task's time depends on when it starts). The lower side
/// is the best schedule the search finds on the slow times (it stays on time with any
/// times at most those: each task starts no later and completes no later); the upper side
/// bounds the fast times (no schedule of times at least those does better). So any
/// schedule whose times lie between the two is bracketed. [`bracket`] is this with one
/// instance as both.
///
/// Errors: an invalid instance or options; two instances that differ in anything but
/// their times, or a slow time below a fast one ([`BoundError::Shape`]); an LP failure;
/// a crossed bracket (a bug).
pub fn bracket_between(
    fast: &Instance,
    slow: &Instance,
    opts: &BracketOptions,
) -> Result<Bracket, BoundError> {
    fast.validate()?;
    slow.validate()?;
    if fast.arrival != slow.arrival
        || fast.deadline != slow.deadline
        || fast.counted != slow.counted
        || fast.exec.dim() != slow.exec.dim()
    {
        return Err(BoundError::Shape(
            "the fast and the slow instance differ in more than their execution times".into(),
        ));
    }
    if let Some(((task, machine), _)) = fast
        .exec
        .indexed_iter()
        .zip(slow.exec.iter())
        .find(|((_, f), s)| *s < *f)
        .map(|(f, _)| f)
    {
        return Err(BoundError::Shape(format!(
            "task {task} is slower on machine {machine} in the fast instance than in the slow one"
        )));
    }
    let pr = Problem::new(fast);
    let slow_pr = Problem::new(slow);
    bracket_of(fast, &pr, slow, Some(&slow_pr), opts)
}

/// The upper side on `fast` (its problem `pr`), the lower side's search on `slow` (its
/// problem `slow_pr`, or `pr` when `None`: the same instance).
fn bracket_of(
    fast: &Instance,
    pr: &Problem,
    slow: &Instance,
    slow_pr: Option<&Problem>,
    opts: &BracketOptions,
) -> Result<Bracket, BoundError> {
    let (lp, duals) = upper_bound_with_duals(fast, &opts.upper)?;
    let lower = lower_bound_of(slow, slow_pr.unwrap_or(pr), &opts.lower)?;
    let lagrangian = if lp.on_time > lower.on_time {
        lagrangian_of(pr, duals.as_deref(), &opts.lagrangian, lower.on_time)
    } else {
        None
    };
    let upper_on_time = lagrangian
        .as_ref()
        .map_or(lp.on_time, |l| l.on_time.min(lp.on_time));
    if lower.on_time > upper_on_time {
        return Err(BoundError::Crossed {
            lower: lower.on_time,
            upper: upper_on_time,
        });
    }
    let counted = fast.n_counted();
    Ok(Bracket {
        counted,
        lower_on_time: lower.on_time,
        upper_on_time,
        lower_robustness: pct(lower.on_time, counted),
        upper_robustness: pct(upper_on_time, counted),
        lp,
        lagrangian,
        lower,
    })
}

/// The bracket of a simulated trial whose truth drifts: `drift` lists, by tick
/// (increasing), the PET that draws the times of the tasks that start from then on (as
/// `runner::engine` applies it). A task may start under the PET in force at its arrival or
/// under any later one, so its time on a machine lies between the smallest and the largest
/// of those PETs' quantiles at its luck; [`bracket_between`] of the two. Without drift this
/// is [`bracket_trial`].
///
/// Errors: as [`bracket_trial`]; a drift PET of another shape than `pet`.
pub fn bracket_trial_drifting(
    pet: &Pet,
    drift: &[(Tick, Pet)],
    tasks: &[TaskSpec],
    luck: &[f64],
    counted: Range<usize>,
    opts: &BracketOptions,
) -> Result<Bracket, BoundError> {
    let base = instance_from(pet, tasks, luck, counted)?;
    if drift.is_empty() {
        return bracket(&base, opts);
    }
    let shape = (pet.n_types(), pet.n_machines());
    if let Some(i) = drift
        .iter()
        .position(|(_, p)| (p.n_types(), p.n_machines()) != shape)
    {
        return Err(BoundError::Shape(format!(
            "drift PET {i} is not {} task types x {} machines",
            shape.0, shape.1
        )));
    }
    let mut fast = base.clone();
    let mut slow = base;
    for (k, task) in tasks.iter().enumerate() {
        // The PET in force at the arrival, and every later one.
        let first = drift
            .iter()
            .rposition(|(at, _)| *at <= task.arrival)
            .map_or(0, |i| i + 1);
        let in_force = if first == 0 { pet } else { &drift[first - 1].1 };
        let u = luck[k].clamp(0.0, 1.0);
        for j in 0..shape.1 {
            let times = std::iter::once(in_force)
                .chain(drift[first..].iter().map(|(_, p)| p))
                .map(|p| {
                    let pmf = p.exec_pmf(task.task_type, j);
                    pmf.quantile(u).unwrap_or(pmf.max()).max(0)
                });
            let (lo, hi) = times.fold((Tick::MAX, 0), |(lo, hi), t| (lo.min(t), hi.max(t)));
            fast.exec[[k, j]] = lo;
            slow.exec[[k, j]] = hi;
        }
    }
    bracket_between(&fast, &slow, opts)
}

/// [`instance_from`] then [`bracket`]: the bracket of one simulated trial, for a runner that
/// has the trial's tasks, luck and counted range at hand (as [`crate::bound_trial`]).
pub fn bracket_trial(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    counted: Range<usize>,
    opts: &BracketOptions,
) -> Result<Bracket, BoundError> {
    bracket(&instance_from(pet, tasks, luck, counted)?, opts)
}

/// The Lagrangian bound of the time-indexed formulation of `inst` (see the crate's
/// `docs/bound.md`): a bound on the counted on-time tasks that is at most the capacity LP's
/// value when that LP's duals are certified, and usually below it.
///
/// `target` is a count known to be achievable (e.g. [`crate::lower_bound`]'s): the
/// subgradient steps aim at it and stop once the bound reaches it. `None` when the options
/// leave the bound out, or one evaluation would exceed `max_cells`.
///
/// Errors: an invalid instance.
pub fn lagrangian_bound(
    inst: &Instance,
    opts: &LagrangianOptions,
    target: usize,
) -> Result<Option<LagrangianBound>, BoundError> {
    inst.validate()?;
    let (_, duals) = upper_bound_with_duals(inst, &BoundOptions::default())?;
    Ok(lagrangian_of(
        &Problem::new(inst),
        duals.as_deref(),
        opts,
        target,
    ))
}

fn lagrangian_of(
    pr: &Problem,
    duals: Option<&[f64]>,
    opts: &LagrangianOptions,
    target: usize,
) -> Option<LagrangianBound> {
    if opts.evaluations == 0 {
        return None;
    }
    let ti = TimeIndexed::new(pr);
    if ti.cells > opts.max_cells {
        return None;
    }
    // Without certified duals, any multipliers give a bound: zero duals start from the
    // trivial bound and the subgradient steps go down from there.
    let fallback: Vec<f64>;
    let mu = match duals {
        Some(d) => d,
        None => {
            fallback = vec![0.0; pr.m];
            &fallback
        }
    };
    let r = lagrangian(&ti, pr, mu, opts.evaluations, target as f64);
    Some(LagrangianBound {
        value: r.best,
        on_time: floor_count(r.best),
        start: r.start,
        evaluations: r.evaluations,
        cells: ti.cells,
    })
}
