//! The LP relaxation and its cutting-plane loop.

use std::collections::HashSet;

use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem, Solution, Variable};
use pmf::Tick;

use crate::capacity;
use crate::cheap::{capacity_bound, eligible_tasks};
use crate::error::BoundError;
use crate::instance::Instance;

/// Rounds that add more rows than this re-solve from scratch instead of row by row.
const REBUILD_ABOVE: usize = 4;

/// `on_time = floor(lp + ON_TIME_SLACK)`: an LP optimum a rounding error below an integer
/// still counts it.
const ON_TIME_SLACK: f64 = 1e-6;

/// The capacity LP's specialised solver (`capacity::solve_with`) is trusted only when its value
/// is farther than this from a point where `floor(lp + ON_TIME_SLACK)` changes: two exact
/// solvers differ by rounding errors far below it, so they then give the same `on_time`.
const FLOOR_GUARD: f64 = 5e-7;

/// A bound's value as a task count: `floor(value + ON_TIME_SLACK)`, at least 0.
pub(crate) fn floor_count(value: f64) -> usize {
    (value + ON_TIME_SLACK).floor().max(0.0) as usize
}

/// True when `lp` is within [`FLOOR_GUARD`] of a value where `on_time` changes.
fn near_floor_boundary(lp: f64) -> bool {
    let v = lp + ON_TIME_SLACK;
    (v - v.round()).abs() < FLOOR_GUARD
}

/// The specialised solver's answer when `upper_bound` may use it: certified, and not near
/// where `on_time` changes.
fn trusted(specialised: Option<f64>) -> Option<f64> {
    specialised.filter(|&lp| !near_floor_boundary(lp))
}

/// Which window constraints the LP carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WindowFamily {
    /// No window: only `x_kj <= 1` and `sum_j x_kj <= 1` (this LP equals the trivial bound).
    None,
    /// One window per machine, the whole horizon `[A, E]` (earliest arrival, latest latest
    /// completion of the eligible counted tasks).
    Capacity,
    /// The capacity windows and every interval `[s, e]` with `s` an arrival and `e` a latest
    /// completion of the eligible counted tasks, `0 < e - s <= max_len` (`None`: any length).
    /// Separated exactly by cutting planes, so the result is the LP over the whole family.
    Intervals {
        /// The longest window, in ticks; `None` for all of them.
        max_len: Option<Tick>,
    },
}

/// How to compute the bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundOptions {
    /// The window family.
    pub windows: WindowFamily,
    /// Also separate energetic windows (tasks that must run partly inside a window count
    /// their minimum overlap with it), over windows of the same family. Ignored for
    /// [`WindowFamily::None`] and [`WindowFamily::Capacity`].
    pub energetic: bool,
    /// The most cutting-plane rounds. The value after any round is a valid bound (the LP
    /// holds a subset of the family's constraints); more rounds only tighten it.
    pub max_rounds: usize,
    /// The most violated windows added per machine and round.
    pub cuts_per_machine: usize,
    /// A window counts as violated when its load exceeds its length by more than this many
    /// ticks (a tolerance for convergence only: it never makes the bound invalid).
    pub tolerance: f64,
}

impl Default for BoundOptions {
    /// The capacity LP: the cheapest LP, a few ms for an 800-task trial on 8 machines and
    /// tens of ms for 2,500 tasks with its specialised simplex (see `docs/bound.md`;
    /// [`BoundOptions::tight`] is tighter by 1-2 points and far slower).
    fn default() -> Self {
        BoundOptions {
            windows: WindowFamily::Capacity,
            energetic: false,
            max_rounds: 200,
            cuts_per_machine: 32,
            tolerance: 1e-4,
        }
    }
}

impl BoundOptions {
    /// All intervals, separated exactly (no energetic windows): the tightest bound short of
    /// energetic reasoning, seconds per 800-task trial.
    pub fn tight() -> Self {
        BoundOptions {
            windows: WindowFamily::Intervals { max_len: None },
            ..BoundOptions::default()
        }
    }

    /// The options with another window family.
    pub fn with_windows(self, windows: WindowFamily) -> Self {
        BoundOptions { windows, ..self }
    }
}

impl BoundOptions {
    fn validate(&self) -> Result<(), BoundError> {
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(BoundError::Options(format!(
                "tolerance must be finite and >= 0, got {}",
                self.tolerance
            )));
        }
        if self.cuts_per_machine == 0 {
            return Err(BoundError::Options(
                "cuts_per_machine must be at least 1".into(),
            ));
        }
        if let WindowFamily::Intervals { max_len: Some(l) } = self.windows {
            if l <= 0 {
                return Err(BoundError::Options(format!(
                    "max_len must be positive, got {l}"
                )));
            }
        }
        Ok(())
    }
}

/// The bound on one trial, with the cheaper bounds beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// Number of counted tasks.
    pub counted: usize,
    /// The LP optimum: no scheduler, even one that knows the future, finishes more counted
    /// tasks on time than this.
    pub lp: f64,
    /// `floor(lp)` (up to 1e-6): the bound as a task count.
    pub on_time: usize,
    /// `100 * on_time / counted` (0 when nothing is counted): the bound on robustness, in %.
    pub robustness: f64,
    /// Counted tasks that can be on time on some machine at all ([`crate::trivial_bound`]).
    pub trivial: usize,
    /// The greedy capacity count ([`crate::capacity_bound`]).
    pub capacity_only: usize,
    /// The LP with the capacity windows only (the first LP of the cutting-plane loop; equals
    /// `trivial` for [`WindowFamily::None`]).
    pub capacity_lp: f64,
    /// Cutting-plane rounds run (LP re-solves after the first).
    pub rounds: usize,
    /// Window constraints added by separation.
    pub cuts: usize,
    /// True when no window of the family is violated by more than the tolerance: `lp` is then
    /// the LP optimum over the whole family.
    pub converged: bool,
}

/// One machine's view of the LP: the eligible tasks and their variables.
struct MachineCols {
    /// (task, column in `vars`)
    cols: Vec<(usize, usize)>,
}

/// A window constraint on one machine: `sum_k coef_k x_kj <= e - s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Window {
    machine: usize,
    start: Tick,
    end: Tick,
    energetic: bool,
}

/// The upper bound on the counted on-time tasks of `inst` that any scheduler could reach.
///
/// # Formulation
/// Variables `x_kj in [0, 1]` for each counted task `k` and machine `j` with
/// `a_k + p_kj < D_k` (else task `k` cannot be on time on `j`, and `x_kj` is fixed at 0):
///
/// ```text
/// maximise   sum_kj x_kj
/// subject to sum_j x_kj <= 1                                   every task k
///            sum_{k: a_k >= s, D_k - 1 <= e} p_kj x_kj <= e - s  every machine j, window [s, e]
/// ```
///
/// A 0/1 solution is the on-time set of a schedule: on-time tasks that arrive at or after `s`
/// and complete by `e` run entirely inside `[s, e]`, one at a time. So the LP optimum bounds
/// every schedule. With `energetic`, the windows also count tasks that must run partly
/// inside them, with coefficient `min(max(0, min(e, a+p) - max(s, a)), max(0, min(e, d) -
/// max(s, d-p)))` (`d = D - 1`: the overlap when started as early, or as late, as
/// possible; every start in between overlaps at least the smaller of the two).
///
/// Tasks outside `inst.counted` are left out. That loses nothing: every constraint is a
/// packing constraint with non-negative coefficients, so a solution that uses them stays
/// feasible with their `x` set to 0, at the same objective; and in a schedule, removing them
/// never delays a counted task.
///
/// The windows of the family are added by cutting planes: solve, find on each machine the
/// windows the current solution violates most (exactly, over all candidate `[s, e]`), add up
/// to `cuts_per_machine` of them, re-solve from the previous basis (dual simplex), until none
/// is violated or `max_rounds` is reached. Every intermediate value is already a bound.
///
/// The default [`WindowFamily::Capacity`] LP is solved by a simplex specialised to its
/// structure (one generalised upper bound per task, an `m x m` working basis), about a
/// hundred times faster than the generic one on thousands of tasks. It certifies its optimum
/// (no improving reduced cost, primal value equal to the dual one); when it cannot, or when
/// the optimum lies within 5e-7 of where `on_time = floor(lp + 1e-6)` changes, the generic
/// solver answers instead. The two solvers agree up to rounding errors (about 1e-12), so on
/// `on_time`.
///
/// Errors: an invalid instance or options, or an LP solver failure.
pub fn upper_bound(inst: &Instance, opts: &BoundOptions) -> Result<Bound, BoundError> {
    upper_bound_by(inst, opts, Solver::Auto).map(|(b, _)| b)
}

/// [`upper_bound`] and, when the specialised solver certified the capacity LP's optimum,
/// its optimal duals of the machines' capacity rows (0 for a machine without a row).
pub(crate) fn upper_bound_with_duals(
    inst: &Instance,
    opts: &BoundOptions,
) -> Result<(Bound, Option<Vec<f64>>), BoundError> {
    upper_bound_by(inst, opts, Solver::Auto)
}

/// Which simplex computes the capacity LP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Solver {
    /// The specialised one for [`WindowFamily::Capacity`] when it certifies its optimum and
    /// the optimum is not near where `on_time` changes; else the generic one.
    Auto,
    /// Always the generic one (`microlp`), as before the specialised solver (tests compare
    /// the two).
    #[cfg(test)]
    Generic,
}

/// [`upper_bound`] with a choice of solver, and the capacity LP's duals when the specialised
/// solver certified them.
pub(crate) fn upper_bound_by(
    inst: &Instance,
    opts: &BoundOptions,
    solver: Solver,
) -> Result<(Bound, Option<Vec<f64>>), BoundError> {
    inst.validate()?;
    opts.validate()?;
    let counted = inst.n_counted();
    let trivial = eligible_tasks(inst).len();
    let capacity_only = capacity_bound(inst);
    let finish = |lp: f64, capacity_lp: f64, rounds, cuts, converged| {
        let on_time = floor_count(lp);
        Bound {
            counted,
            lp,
            on_time,
            robustness: if counted == 0 {
                0.0
            } else {
                100.0 * on_time as f64 / counted as f64
            },
            trivial,
            capacity_only,
            capacity_lp,
            rounds,
            cuts,
            converged,
        }
    };
    let solved = (solver == Solver::Auto).then(|| capacity::solve_with(inst, Default::default()));
    let duals = solved.clone().flatten().map(|s| s.duals);
    if matches!(opts.windows, WindowFamily::Capacity) {
        // The same LP by a simplex specialised to its structure, tens of times faster; the
        // generic solver below when it cannot certify the optimum, or when the optimum is so
        // close to where `on_time` changes that the two solvers' rounding could disagree.
        if let Some(lp) = trusted(solved.flatten().map(|s| s.lp)) {
            return Ok((finish(lp, lp, 0, 0, true), duals));
        }
    }
    Ok((generic(inst, opts, finish)?, duals))
}

/// [`upper_bound`] by the generic simplex (`microlp`), with the cutting planes of the
/// interval families; `finish` makes the [`Bound`] from (lp, capacity LP, rounds, cuts,
/// converged).
fn generic(
    inst: &Instance,
    opts: &BoundOptions,
    finish: impl Fn(f64, f64, usize, usize, bool) -> Bound,
) -> Result<Bound, BoundError> {
    let m = inst.n_machines();
    let mut problem = Problem::new(OptimizationDirection::Maximize);
    let mut vars: Vec<(usize, usize, Variable)> = Vec::new();
    let mut machines: Vec<MachineCols> = (0..m).map(|_| MachineCols { cols: Vec::new() }).collect();
    for k in inst.counted.clone() {
        let first = vars.len();
        for (j, mc) in machines.iter_mut().enumerate() {
            if inst.can_be_on_time(k, j) {
                mc.cols.push((k, vars.len()));
                vars.push((k, j, problem.add_var(1.0, (0.0, 1.0))));
            }
        }
        if vars.len() - first >= 2 {
            let expr: LinearExpr = vars[first..].iter().map(|&(_, _, v)| (v, 1.0)).collect();
            problem.add_constraint(expr, ComparisonOp::Le, 1.0);
        }
    }
    if vars.is_empty() {
        return Ok(finish(0.0, 0.0, 0, 0, true));
    }
    let with_windows = !matches!(opts.windows, WindowFamily::None);
    if with_windows {
        for (j, mc) in machines.iter().enumerate() {
            let Some(w) = capacity_window(inst, j, mc) else {
                continue;
            };
            let (expr, rhs) = window_row(inst, mc, &vars, w);
            problem.add_constraint(expr, ComparisonOp::Le, rhs);
        }
    }
    let mut sol = solve(&problem)?;
    let capacity_lp = sol.objective();
    let WindowFamily::Intervals { max_len } = opts.windows else {
        return Ok(finish(capacity_lp, capacity_lp, 0, 0, true));
    };
    let max_len = max_len.unwrap_or(Tick::MAX);
    let mut added: HashSet<Window> = HashSet::new();
    let mut rounds = 0;
    let mut converged = false;
    loop {
        let x: Vec<f64> = vars.iter().map(|&(_, _, v)| sol.var_value(v)).collect();
        let mut cuts = Vec::new();
        for (j, mc) in machines.iter().enumerate() {
            let mut found = separate_intervals(inst, j, mc, &x, max_len, opts);
            if found.is_empty() && opts.energetic {
                found = separate_energetic(inst, j, mc, &x, max_len, opts);
            }
            cuts.extend(found.into_iter().filter(|w| !added.contains(w)));
        }
        if cuts.is_empty() {
            converged = true;
            break;
        }
        if rounds >= opts.max_rounds {
            break;
        }
        rounds += 1;
        if cuts.len() > REBUILD_ABOVE {
            // Adding a row re-factorises the basis; many rows at once are cheaper re-solved.
            for w in cuts {
                added.insert(w);
                let (expr, rhs) = window_row(inst, &machines[w.machine], &vars, w);
                problem.add_constraint(expr, ComparisonOp::Le, rhs);
            }
            sol = solve(&problem)?;
        } else {
            for w in cuts {
                added.insert(w);
                let (expr, rhs) = window_row(inst, &machines[w.machine], &vars, w);
                problem.add_constraint(expr.clone(), ComparisonOp::Le, rhs);
                sol = sol
                    .add_constraint(expr, ComparisonOp::Le, rhs)
                    .map_err(|e| BoundError::Solver(e.to_string()))?
                    .into_solution()
                    .map_err(|e| BoundError::Solver(format!("{e:?}")))?;
            }
        }
    }
    Ok(finish(
        sol.objective(),
        capacity_lp,
        rounds,
        added.len(),
        converged,
    ))
}

pub(crate) fn solve(problem: &Problem) -> Result<Solution, BoundError> {
    problem
        .solve()
        .map_err(|e| BoundError::Solver(e.to_string()))?
        .into_solution()
        .map_err(|e| BoundError::Solver(format!("{e:?}")))
}

/// The whole-horizon window of machine `j`, if it has eligible tasks.
fn capacity_window(inst: &Instance, j: usize, mc: &MachineCols) -> Option<Window> {
    let start = mc.cols.iter().map(|&(k, _)| inst.arrival[k]).min()?;
    let end = mc
        .cols
        .iter()
        .map(|&(k, _)| inst.latest_completion(k))
        .max()?;
    Some(Window {
        machine: j,
        start,
        end,
        energetic: false,
    })
}

/// The minimum time task `k` spends inside `[s, e]` on machine `j` if it is on time there.
fn min_overlap(inst: &Instance, k: usize, j: usize, s: Tick, e: Tick) -> Tick {
    let a = inst.arrival[k];
    let d = inst.latest_completion(k);
    let p = inst.exec[[k, j]];
    let left = e.min(a.saturating_add(p)).saturating_sub(s.max(a)).max(0);
    let right = e.min(d).saturating_sub(s.max(d.saturating_sub(p))).max(0);
    left.min(right)
}

/// The coefficient of task `k` in window `w`.
fn coefficient(inst: &Instance, k: usize, w: Window) -> Tick {
    if w.energetic {
        min_overlap(inst, k, w.machine, w.start, w.end)
    } else if inst.arrival[k] >= w.start && inst.latest_completion(k) <= w.end {
        inst.exec[[k, w.machine]]
    } else {
        0
    }
}

/// The row of window `w`: its expression and right-hand side `e - s`.
fn window_row(
    inst: &Instance,
    mc: &MachineCols,
    vars: &[(usize, usize, Variable)],
    w: Window,
) -> (LinearExpr, f64) {
    let expr: LinearExpr = mc
        .cols
        .iter()
        .filter_map(|&(k, c)| {
            let coef = coefficient(inst, k, w);
            (coef > 0).then(|| (vars[c].2, coef as f64))
        })
        .collect();
    (expr, w.end.saturating_sub(w.start) as f64)
}

/// The tasks of machine `j` the solution `x` uses, as (arrival, latest completion, task,
/// value), sorted by latest completion.
fn support(inst: &Instance, mc: &MachineCols, x: &[f64]) -> Vec<(Tick, Tick, usize, f64)> {
    let mut pos: Vec<(Tick, Tick, usize, f64)> = mc
        .cols
        .iter()
        .filter(|&&(_, c)| x[c] > 1e-9)
        .map(|&(k, c)| (inst.arrival[k], inst.latest_completion(k), k, x[c]))
        .collect();
    pos.sort_unstable_by_key(|&(a, d, k, _)| (d, a, k));
    pos
}

/// Keeps the `limit` most violated windows, most violated first (ties by window, so the
/// result does not depend on the order of discovery).
fn most_violated(mut found: Vec<(f64, Window)>, limit: usize) -> Vec<Window> {
    found.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then((a.1.start, a.1.end).cmp(&(b.1.start, b.1.end)))
    });
    found.into_iter().take(limit).map(|(_, w)| w).collect()
}

/// The most violated interval windows of machine `j`: for each start `s` (an arrival of a
/// used task), the end `e` (a latest completion) maximising `load(s, e) - (e - s)`, where
/// `load` sums `p_kj x_kj` over the used tasks inside. Exact over all candidate windows of
/// the family in `O(n^2)` for `n` used tasks: only used tasks add load, and moving `s` up to
/// the first arrival inside or `e` down to the last latest completion inside only shrinks
/// the length.
fn separate_intervals(
    inst: &Instance,
    j: usize,
    mc: &MachineCols,
    x: &[f64],
    max_len: Tick,
    opts: &BoundOptions,
) -> Vec<Window> {
    let pos = support(inst, mc, x);
    let mut starts: Vec<Tick> = pos.iter().map(|p| p.0).collect();
    starts.sort_unstable();
    starts.dedup();
    let mut found = Vec::new();
    for &s in &starts {
        let mut load = 0.0;
        let mut best: Option<(f64, Tick)> = None;
        for &(a, d, k, v) in &pos {
            if d.saturating_sub(s) > max_len {
                break;
            }
            if a < s {
                continue;
            }
            load += inst.exec[[k, j]] as f64 * v;
            let viol = load - d.saturating_sub(s) as f64;
            if viol > opts.tolerance && best.is_none_or(|(b, _)| viol > b) {
                best = Some((viol, d));
            }
        }
        if let Some((viol, e)) = best {
            found.push((
                viol,
                Window {
                    machine: j,
                    start: s,
                    end: e,
                    energetic: false,
                },
            ));
        }
    }
    most_violated(found, opts.cuts_per_machine)
}

/// The most violated energetic windows of machine `j`, over starts in
/// `{a_k, d_k - p_kj}` and ends in `{d_k, a_k + p_kj}` of the used tasks (the breakpoints of
/// the minimum overlaps), `O(n^3)`.
fn separate_energetic(
    inst: &Instance,
    j: usize,
    mc: &MachineCols,
    x: &[f64],
    max_len: Tick,
    opts: &BoundOptions,
) -> Vec<Window> {
    let pos = support(inst, mc, x);
    let mut starts: Vec<Tick> = Vec::with_capacity(2 * pos.len());
    let mut ends: Vec<Tick> = Vec::with_capacity(2 * pos.len());
    for &(a, d, k, _) in &pos {
        let p = inst.exec[[k, j]];
        starts.extend([a, d.saturating_sub(p)]);
        ends.extend([d, a.saturating_add(p)]);
    }
    starts.sort_unstable();
    starts.dedup();
    ends.sort_unstable();
    ends.dedup();
    let mut found = Vec::new();
    for &s in &starts {
        let mut best: Option<(f64, Tick)> = None;
        for &e in ends.iter().filter(|&&e| e > s) {
            if e.saturating_sub(s) > max_len {
                break;
            }
            let load: f64 = pos
                .iter()
                .filter(|p| p.0 < e && p.1 > s)
                .map(|&(_, _, k, v)| min_overlap(inst, k, j, s, e) as f64 * v)
                .sum();
            let viol = load - e.saturating_sub(s) as f64;
            if viol > opts.tolerance && best.is_none_or(|(b, _)| viol > b) {
                best = Some((viol, e));
            }
        }
        if let Some((viol, e)) = best {
            found.push((
                viol,
                Window {
                    machine: j,
                    start: s,
                    end: e,
                    energetic: true,
                },
            ));
        }
    }
    most_violated(found, opts.cuts_per_machine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_guard() {
        assert!(!near_floor_boundary(2.0));
        assert!(!near_floor_boundary(2.0 - 1e-9));
        assert!(!near_floor_boundary(1.5));
        assert!(!near_floor_boundary(0.0));
        assert!(near_floor_boundary(1.999999));
        assert!(near_floor_boundary(2.0 - 1.2e-6));
        assert!(!near_floor_boundary(2.0 - 2e-6));
        assert_eq!(trusted(Some(1.999999)), None);
        assert_eq!(trusted(Some(2.0)), Some(2.0));
        assert_eq!(trusted(Some(1.25)), Some(1.25));
        assert_eq!(trusted(None), None);
    }

    #[test]
    fn an_optimum_at_the_floor_boundary_comes_from_the_generic_solver() {
        // One machine, window [0, 10^6]: the short task fits whole, and 999,999/10^6 of the
        // long one: lp = 1.999999, where floor(lp + 1e-6) is decided by rounding.
        let inst = Instance::new(
            vec![0, 0],
            vec![1_000_001, 1_000_001],
            ndarray::array![[1_000_000], [1]],
            0..2,
        )
        .unwrap();
        let fast = crate::capacity::solve(&inst).unwrap();
        assert!((fast - 1.999999).abs() < 1e-12, "{fast}");
        assert_eq!(trusted(Some(fast)), None);
        let auto = upper_bound(&inst, &BoundOptions::default()).unwrap();
        let generic = upper_bound_by(&inst, &BoundOptions::default(), Solver::Generic)
            .unwrap()
            .0;
        assert_eq!(auto.lp.to_bits(), generic.lp.to_bits());
        assert_eq!(auto, generic);
    }
}
