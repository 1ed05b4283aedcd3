//! The capacity LP ([`crate::WindowFamily::Capacity`], the default bound) by a simplex that
//! exploits its structure.
//!
//! The LP has one assignment row per counted task (`sum_j x_kj <= 1`: a generalised upper
//! bound, GUB) and one capacity row per machine (`sum_k p_kj x_kj <= C_j`). A basis then holds
//! one *key* variable per task (its `x_kj` or its slack `s_k`) and `m` further basic variables,
//! and only the `m x m` *working basis* `W` needs a factorisation (the GUB simplex of Dantzig
//! and Van Slyke, 1967). With `m = 8` machines a pivot prices a block of tasks (partial
//! pricing), refactorises `W` (`O(m^3)`) and runs the ratio test over the `m` non-key basic
//! variables and the keys of their tasks, against a general simplex over `n + m` rows.
//!
//! `W` and its right-hand side hold integers (the realised times and the windows are ticks):
//! `W` is rebuilt and refactorised from the basis at every pivot, and the right-hand side is
//! updated exactly, so no rounding error accumulates over the pivots. The start is a greedy
//! integral assignment (every machine's capacity slack basic, `W = I`), already optimal when
//! it places every task (light loads). Dantzig's rule prices; after a run of degenerate pivots
//! Bland's rule takes over until one makes progress (no cycling). At the end the reduced costs
//! certify optimality and the dual objective must equal the primal one; when anything fails
//! (a singular working basis, too many pivots, too many machines, a duality gap) [`solve`]
//! answers `None` and the caller uses the generic solver, so the answer is always the LP
//! optimum.

use pmf::Tick;

use crate::instance::Instance;

/// Instances with more machines go to the generic solver (the working basis is
/// refactorised at every pivot, `O(m^3)`).
pub(crate) const MAX_MACHINES: usize = 64;

/// A reduced cost above this lets a variable enter.
const COST_TOL: f64 = 1e-9;
/// A basic variable whose rate of change is below this in magnitude does not block.
const PIVOT_TOL: f64 = 1e-9;
/// Two step lengths closer than this are a tie in the ratio test.
const RATIO_TIE: f64 = 1e-12;
/// A basic value below `-FEAS_TOL` at the end is infeasible (never expected: fall back).
const FEAS_TOL: f64 = 1e-7;
/// The largest primal-dual gap accepted at the end.
const GAP_TOL: f64 = 1e-7;
/// A pivot of the working basis's LU below this in magnitude means a singular basis.
const SINGULAR: f64 = 1e-11;
/// Degenerate pivots in a row before Bland's rule takes over.
const DEGENERATE_RUN: usize = 50;
/// Partial pricing scans the tasks in blocks of this many.
const PRICING_BLOCK: usize = 32;

/// The capacity LP in column form.
///
/// Variables, by id: the `x` columns `0..n_cols` (grouped by task), the task slacks
/// `n_cols..n_cols + n_tasks` and the machine slacks after them, one per capacity row.
#[derive(Debug)]
struct CapacityLp {
    /// The columns of task `i` are `task_cols[i]..task_cols[i + 1]`.
    task_cols: Vec<usize>,
    /// Task of each column.
    col_task: Vec<usize>,
    /// Capacity row of each column.
    col_row: Vec<usize>,
    /// Coefficient (the realised time) of each column in its row.
    col_p: Vec<f64>,
    /// Right-hand side of each capacity row (window length).
    cap: Vec<f64>,
    /// Machine of each capacity row.
    row_machine: Vec<usize>,
}

/// A variable of the LP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Var {
    /// Column `c`: `x_kj`.
    X(usize),
    /// Slack of task `i`'s assignment row.
    S(usize),
    /// Slack of capacity row `r`.
    T(usize),
}

impl CapacityLp {
    /// The LP [`crate::upper_bound`] builds for the capacity family: a column for every
    /// counted task and machine where the task can be on time, an assignment row per task
    /// with a column, a capacity row per machine with a column, its window the earliest
    /// arrival to the latest latest completion of those columns' tasks.
    fn new(inst: &Instance) -> Self {
        let m = inst.n_machines();
        let mut task_cols = vec![0];
        let mut col_task = Vec::new();
        let mut col_machine = Vec::new();
        let mut col_p = Vec::new();
        let mut start = vec![Tick::MAX; m];
        let mut end = vec![Tick::MIN; m];
        for k in inst.counted.clone() {
            let first = col_machine.len();
            for j in 0..m {
                if inst.can_be_on_time(k, j) {
                    col_task.push(task_cols.len() - 1);
                    col_machine.push(j);
                    col_p.push(inst.exec[[k, j]] as f64);
                    start[j] = start[j].min(inst.arrival[k]);
                    end[j] = end[j].max(inst.latest_completion(k));
                }
            }
            if col_machine.len() > first {
                task_cols.push(col_machine.len());
            }
        }
        let mut row_of = vec![usize::MAX; m];
        let mut cap = Vec::new();
        let mut row_machine = Vec::new();
        for j in 0..m {
            if start[j] <= end[j] {
                row_of[j] = cap.len();
                row_machine.push(j);
                cap.push(end[j].saturating_sub(start[j]) as f64);
            }
        }
        CapacityLp {
            task_cols,
            col_task,
            col_row: col_machine.iter().map(|&j| row_of[j]).collect(),
            col_p,
            cap,
            row_machine,
        }
    }

    fn n_tasks(&self) -> usize {
        self.task_cols.len() - 1
    }

    fn n_cols(&self) -> usize {
        self.col_p.len()
    }

    fn n_rows(&self) -> usize {
        self.cap.len()
    }

    fn id(&self, v: Var) -> usize {
        match v {
            Var::X(c) => c,
            Var::S(i) => self.n_cols() + i,
            Var::T(r) => self.n_cols() + self.n_tasks() + r,
        }
    }

    /// The task whose assignment row holds `v` (none for a machine slack).
    fn owner(&self, v: Var) -> Option<usize> {
        match v {
            Var::X(c) => Some(self.col_task[c]),
            Var::S(i) => Some(i),
            Var::T(_) => None,
        }
    }

    fn cost(v: Var) -> f64 {
        match v {
            Var::X(_) => 1.0,
            Var::S(_) | Var::T(_) => 0.0,
        }
    }

    /// Adds `sign` times the capacity-row part of `v`'s column to `out` (length `n_rows`).
    fn add_column(&self, v: Var, sign: f64, out: &mut [f64]) {
        match v {
            Var::X(c) => out[self.col_row[c]] += sign * self.col_p[c],
            Var::S(_) => {}
            Var::T(r) => out[r] += sign,
        }
    }

    /// `v`'s column in the working basis: its capacity-row part minus its key's.
    fn transformed(&self, v: Var, key: &[Var], out: &mut [f64]) {
        out.fill(0.0);
        self.add_column(v, 1.0, out);
        if let Some(i) = self.owner(v) {
            self.add_column(key[i], -1.0, out);
        }
    }
}

/// A dense LU factorisation with partial pivoting: `P A = L U`.
struct Lu {
    n: usize,
    /// `L` (unit diagonal, below) and `U` (on and above), row-major.
    a: Vec<f64>,
    /// Row `i` of `P A` is row `perm[i]` of `A`.
    perm: Vec<usize>,
}

impl Lu {
    /// Factorises the `n x n` row-major matrix `a`; `None` when it is (numerically) singular.
    fn new(n: usize, mut a: Vec<f64>) -> Option<Self> {
        let mut perm: Vec<usize> = (0..n).collect();
        for k in 0..n {
            let p = (k..n).max_by(|&x, &y| a[x * n + k].abs().total_cmp(&a[y * n + k].abs()))?;
            if a[p * n + k].abs() < SINGULAR {
                return None;
            }
            if p != k {
                for c in 0..n {
                    a.swap(k * n + c, p * n + c);
                }
                perm.swap(k, p);
            }
            let pivot = a[k * n + k];
            for i in k + 1..n {
                let f = a[i * n + k] / pivot;
                a[i * n + k] = f;
                if f != 0.0 {
                    for c in k + 1..n {
                        a[i * n + c] -= f * a[k * n + c];
                    }
                }
            }
        }
        Some(Lu { n, a, perm })
    }

    /// `x` with `A x = b`.
    fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = self.n;
        let mut x: Vec<f64> = self.perm.iter().map(|&p| b[p]).collect();
        for i in 0..n {
            let s: f64 = (0..i).map(|c| self.a[i * n + c] * x[c]).sum();
            x[i] -= s;
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|c| self.a[i * n + c] * x[c]).sum();
            x[i] = (x[i] - s) / self.a[i * n + i];
        }
        x
    }

    /// `x` with `A^T x = b`.
    fn solve_transpose(&self, b: &[f64]) -> Vec<f64> {
        let n = self.n;
        // U^T z = b, then L^T w = z, then x = P^T w.
        let mut w = b.to_vec();
        for i in 0..n {
            let s: f64 = (0..i).map(|r| self.a[r * n + i] * w[r]).sum();
            w[i] = (w[i] - s) / self.a[i * n + i];
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|r| self.a[r * n + i] * w[r]).sum();
            w[i] -= s;
        }
        let mut x = vec![0.0; n];
        for (i, &p) in self.perm.iter().enumerate() {
            x[p] = w[i];
        }
        x
    }
}

/// The right-hand side of the working basis for the keys `key`: the capacities less what the
/// keys use (every key at 1).
fn key_rhs(lp: &CapacityLp, key: &[Var]) -> Vec<f64> {
    let mut rhs = lp.cap.clone();
    for &k in key {
        lp.add_column(k, -1.0, &mut rhs);
    }
    rhs
}

/// What a solve did, for tests.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Solved {
    /// The LP optimum.
    pub lp: f64,
    /// Pivots after the greedy start.
    pub pivots: usize,
    /// Pivots made under Bland's rule.
    pub bland_pivots: usize,
    /// The optimal dual of each machine's capacity row (0 for a machine without one).
    pub duals: Vec<f64>,
}

/// Limits and rules of a solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Give up after this many pivots (and in any case after `20 (n + m) + 1000`).
    pub max_pivots: usize,
    /// Degenerate pivots in a row before Bland's rule takes over.
    pub bland_after: usize,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            max_pivots: usize::MAX,
            bland_after: DEGENERATE_RUN,
        }
    }
}

/// The capacity LP's optimum, or `None` when this solver cannot certify it (the caller then
/// uses the generic solver).
#[cfg(test)]
pub(crate) fn solve(inst: &Instance) -> Option<f64> {
    solve_with(inst, Rules::default()).map(|s| s.lp)
}

/// [`solve`] under `rules`, with the pivot counts.
pub(crate) fn solve_with(inst: &Instance, rules: Rules) -> Option<Solved> {
    if inst.n_machines() > MAX_MACHINES {
        return None;
    }
    let lp = CapacityLp::new(inst);
    let (n, m) = (lp.n_tasks(), lp.n_rows());
    if lp.n_cols() == 0 {
        return Some(Solved {
            lp: 0.0,
            pivots: 0,
            bland_pivots: 0,
            duals: vec![0.0; inst.n_machines()],
        });
    }
    let max_pivots = rules.max_pivots.min(20 * (n + m) + 1000);
    let n_vars = lp.n_cols() + n + m;

    // The machine slacks are the non-key basic variables of the greedy start.
    let mut key = greedy_keys(&lp);
    let mut slots: Vec<Var> = (0..m).map(Var::T).collect();
    let mut basic = vec![false; n_vars];
    for &v in key.iter().chain(&slots) {
        basic[lp.id(v)] = true;
    }

    let mut w = vec![0.0; m * m];
    let mut col = vec![0.0; m];
    let mut pivots = 0;
    let mut bland_pivots = 0;
    let mut degenerate_run = 0;
    let mut cursor = 0;
    // The working basis's right-hand side, `cap - sum of the keys' columns`, kept up to date.
    let mut rhs = key_rhs(&lp, &key);
    loop {
        // The working basis and the values of the non-key basic variables.
        for (s, &v) in slots.iter().enumerate() {
            lp.transformed(v, &key, &mut col);
            for r in 0..m {
                w[r * m + s] = col[r];
            }
        }
        let lu = Lu::new(m, w.clone())?;
        debug_assert_eq!(rhs, key_rhs(&lp, &key));
        let y = lu.solve(&rhs);
        // Duals: lambda for the capacity rows, mu for the assignment rows.
        let c_b: Vec<f64> = slots
            .iter()
            .map(|&v| CapacityLp::cost(v) - lp.owner(v).map_or(0.0, |i| CapacityLp::cost(key[i])))
            .collect();
        let lambda = lu.solve_transpose(&c_b);
        let mu = |i: usize| -> f64 {
            match key[i] {
                Var::X(c) => 1.0 - lambda[lp.col_row[c]] * lp.col_p[c],
                _ => 0.0,
            }
        };

        let bland = degenerate_run >= rules.bland_after;
        let basis = Basis {
            lp: &lp,
            key: &key,
            slots: &slots,
            y: &y,
        };
        let (entering, scanned) = price(&basis, &lambda, &basic, &mu, bland, cursor);
        cursor = (cursor + scanned) % n;
        let Some(e) = entering else {
            // Optimal: reported once feasibility and strong duality are checked.
            let (primal, duals) = basis.certify(inst, &lambda, &mu)?;
            return Some(Solved {
                lp: primal,
                pivots,
                bland_pivots,
                duals,
            });
        };
        if pivots >= max_pivots {
            return None;
        }

        // Ratio test along the entering column.
        lp.transformed(e, &key, &mut col);
        let alpha = lu.solve(&col);
        let q = lp.owner(e);
        // No blocking variable: unbounded, impossible for this LP.
        let (theta, what) = basis.ratio_test(&alpha, q, bland)?;
        pivots += 1;
        if bland {
            bland_pivots += 1;
        }
        if theta <= RATIO_TIE {
            degenerate_run += 1;
        } else {
            degenerate_run = 0;
        }
        let out = match what {
            Ok(s) => std::mem::replace(&mut slots[s], e),
            Err(i) => {
                let old = key[i];
                if q == Some(i) {
                    key[i] = e;
                } else {
                    // Another basic variable of task i becomes its key; the entering
                    // variable takes its slot (any choice keeps the basis nonsingular).
                    let s = slots.iter().position(|&v| lp.owner(v) == Some(i))?;
                    key[i] = std::mem::replace(&mut slots[s], e);
                }
                // Integers (ticks) below 2^53: the update is exact.
                lp.add_column(old, 1.0, &mut rhs);
                lp.add_column(key[i], -1.0, &mut rhs);
                old
            }
        };
        basic[lp.id(out)] = false;
        basic[lp.id(e)] = true;
    }
}

/// The greedy start's keys: tasks by their shortest time, each on the machine where it is
/// shortest among those with room left (its key that column), else its assignment slack.
fn greedy_keys(lp: &CapacityLp) -> Vec<Var> {
    let n = lp.n_tasks();
    let mut order: Vec<(f64, usize)> = (0..n)
        .map(|i| {
            let q = lp.col_p[lp.task_cols[i]..lp.task_cols[i + 1]]
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            (q, i)
        })
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut room = lp.cap.clone();
    let mut key: Vec<Var> = (0..n).map(Var::S).collect();
    for &(_, i) in &order {
        let fit = (lp.task_cols[i]..lp.task_cols[i + 1])
            .filter(|&c| lp.col_p[c] <= room[lp.col_row[c]])
            .min_by(|&a, &b| lp.col_p[a].total_cmp(&lp.col_p[b]));
        if let Some(c) = fit {
            room[lp.col_row[c]] -= lp.col_p[c];
            key[i] = Var::X(c);
        }
    }
    key
}

/// One basis of [`solve_with`]'s simplex: each task's key, the non-key basic variables (the
/// slots, one per capacity row) and their values `y`.
struct Basis<'a> {
    lp: &'a CapacityLp,
    key: &'a [Var],
    slots: &'a [Var],
    y: &'a [f64],
}

impl Basis<'_> {
    /// The value of task `i`'s key: 1 less its basic variables in the slots.
    fn key_value(&self, i: usize) -> f64 {
        1.0 - self
            .slots
            .iter()
            .zip(self.y)
            .filter(|(v, _)| self.lp.owner(**v) == Some(i))
            .map(|(_, y)| y)
            .sum::<f64>()
    }

    /// At an optimal basis (no entering variable): its primal value and the capacity rows'
    /// duals by machine, once feasibility and strong duality are checked (`lambda` the
    /// capacity rows' duals, `mu` the assignment rows'); `None` when either fails.
    fn certify(
        &self,
        inst: &Instance,
        lambda: &[f64],
        mu: &impl Fn(usize) -> f64,
    ) -> Option<(f64, Vec<f64>)> {
        let lp = self.lp;
        let n = lp.n_tasks();
        let mut primal = 0.0;
        let mut has_slot = vec![false; n];
        for (&v, &yv) in self.slots.iter().zip(self.y) {
            if yv < -FEAS_TOL {
                return None;
            }
            if let Some(i) = lp.owner(v) {
                has_slot[i] = true;
            }
        }
        for i in 0..n {
            let kv = if has_slot[i] { self.key_value(i) } else { 1.0 };
            if kv < -FEAS_TOL {
                return None;
            }
            if matches!(self.key[i], Var::X(_)) {
                primal += kv;
            }
        }
        primal += self
            .slots
            .iter()
            .zip(self.y)
            .filter(|(v, _)| matches!(v, Var::X(_)))
            .map(|(_, y)| y)
            .sum::<f64>();
        let dual: f64 = lp.cap.iter().zip(lambda).map(|(c, l)| c * l).sum::<f64>()
            + (0..n).map(mu).sum::<f64>();
        if (primal - dual).abs() > GAP_TOL {
            return None;
        }
        let mut duals = vec![0.0; inst.n_machines()];
        for (&j, &l) in lp.row_machine.iter().zip(lambda) {
            duals[j] = l;
        }
        Some((primal, duals))
    }

    /// The ratio test along the entering column `alpha` (its variable owned by task `q`):
    /// the step and what leaves (`Ok(s)`: slot `s`; `Err(i)`: task `i`'s key), the least step
    /// with ties broken by the larger rate, or under Bland's rule by the lower variable;
    /// `None` when nothing blocks.
    fn ratio_test(
        &self,
        alpha: &[f64],
        q: Option<usize>,
        bland: bool,
    ) -> Option<(f64, Result<usize, usize>)> {
        let lp = self.lp;
        // (step, |rate|, id, what leaves): a slot, or the key of a task.
        let mut leave: Option<(f64, f64, usize, Result<usize, usize>)> = None;
        let mut offer = |theta: f64, rate: f64, id: usize, what: Result<usize, usize>| {
            let better = match leave {
                None => true,
                Some((bt, br, bid, _)) => {
                    if theta < bt - RATIO_TIE {
                        true
                    } else if theta <= bt + RATIO_TIE {
                        if bland { id < bid } else { rate > br }
                    } else {
                        false
                    }
                }
            };
            if better {
                leave = Some((theta, rate, id, what));
            }
        };
        for (s, &v) in self.slots.iter().enumerate() {
            if alpha[s] > PIVOT_TOL {
                offer(self.y[s].max(0.0) / alpha[s], alpha[s], lp.id(v), Ok(s));
            }
        }
        // Keys change only for the tasks with slots and for the entering variable's task.
        let mut tasks: Vec<usize> = self.slots.iter().filter_map(|&v| lp.owner(v)).collect();
        tasks.extend(q);
        tasks.sort_unstable();
        tasks.dedup();
        for i in tasks {
            let rate: f64 = self
                .slots
                .iter()
                .zip(alpha)
                .filter(|(v, _)| lp.owner(**v) == Some(i))
                .map(|(_, a)| a)
                .sum::<f64>()
                - if q == Some(i) { 1.0 } else { 0.0 };
            if rate < -PIVOT_TOL {
                offer(
                    self.key_value(i).max(0.0) / -rate,
                    -rate,
                    lp.id(self.key[i]),
                    Err(i),
                );
            }
        }
        leave.map(|(theta, _, _, what)| (theta, what))
    }
}

/// Pricing: the entering variable (the largest reduced cost above [`COST_TOL`], or under
/// Bland's rule the lowest variable with one) and the tasks scanned. The capacity slacks
/// first, then partial pricing: the tasks from `cursor` on, a block at a time, until a block
/// holds a candidate (Bland's rule, and the proof of optimality, scan them all).
fn price(
    basis: &Basis<'_>,
    lambda: &[f64],
    basic: &[bool],
    mu: &impl Fn(usize) -> f64,
    bland: bool,
    cursor: usize,
) -> (Option<Var>, usize) {
    let lp = basis.lp;
    let n = lp.n_tasks();
    let mut entering: Option<(f64, usize, Var)> = None;
    let consider = |entering: &mut Option<(f64, usize, Var)>, d: f64, v: Var, id: usize| {
        if d > COST_TOL && entering.is_none_or(|(bd, bid, _)| if bland { id < bid } else { d > bd })
        {
            *entering = Some((d, id, v));
        }
    };
    for (r, &l) in lambda.iter().enumerate() {
        let t = lp.id(Var::T(r));
        if !basic[t] {
            consider(&mut entering, -l, Var::T(r), t);
        }
    }
    let mut scanned = 0;
    while scanned < n && (bland || entering.is_none()) {
        let end = (scanned + PRICING_BLOCK).min(n);
        for t in scanned..end {
            let i = (cursor + t) % n;
            let mu_i = mu(i);
            for c in lp.task_cols[i]..lp.task_cols[i + 1] {
                if !basic[c] {
                    consider(
                        &mut entering,
                        1.0 - mu_i - lambda[lp.col_row[c]] * lp.col_p[c],
                        Var::X(c),
                        c,
                    );
                }
            }
            let s = lp.id(Var::S(i));
            if !basic[s] {
                consider(&mut entering, -mu_i, Var::S(i), s);
            }
        }
        scanned = end;
    }
    (entering.map(|(_, _, v)| v), scanned)
}

#[cfg(test)]
mod tests {
    use ndarray::Array2;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;

    use super::*;
    use crate::lp::{Solver, upper_bound_by};
    use crate::{BoundOptions, upper_bound};

    /// The generic solver's capacity LP.
    fn generic(inst: &Instance) -> f64 {
        upper_bound_by(inst, &BoundOptions::default(), Solver::Generic)
            .unwrap()
            .0
            .lp
    }

    /// A random instance: `n` tasks, `m` machines, arrivals in `0..horizon`, slack up to
    /// `max_slack`, times up to `max_exec` (0 included), a random counted range.
    fn instance(
        n: usize,
        m: usize,
        horizon: i64,
        max_slack: i64,
        max_exec: i64,
    ) -> impl Strategy<Value = Instance> {
        (
            proptest::collection::vec((0..horizon, 1..max_slack), n),
            proptest::collection::vec(0..max_exec, n * m),
            0..=n / 4,
            0..=n / 4,
        )
            .prop_map(move |(times, exec, skip0, skip1)| {
                let mut arrival: Vec<i64> = times.iter().map(|t| t.0).collect();
                arrival.sort_unstable();
                let deadline = arrival.iter().zip(&times).map(|(a, t)| a + t.1).collect();
                let exec = Array2::from_shape_vec((n, m), exec).unwrap();
                Instance::new(arrival, deadline, exec, skip0..n - skip1).unwrap()
            })
    }

    /// Random sizes, from tiny to a few dozen tasks, and loads from light to far above the
    /// machines' capacity.
    fn any_instance() -> impl Strategy<Value = Instance> {
        (1..40usize, 1..5usize, 1..200i64, 2..60i64, 1..40i64)
            .prop_flat_map(|(n, m, h, s, e)| instance(n, m, h, s, e))
    }

    fn assert_same(inst: &Instance, rules: Rules) -> Solved {
        let s = solve_with(inst, rules).expect("the specialised solver certifies its optimum");
        let g = generic(inst);
        assert!(
            (s.lp - g).abs() < 1e-7,
            "specialised {} vs generic {g} on {inst:?}",
            s.lp
        );
        s
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn equals_the_generic_solver(inst in any_instance()) {
            assert_same(&inst, Rules::default());
        }

        #[test]
        fn blands_rule_alone_equals_the_generic_solver(inst in any_instance()) {
            let s = assert_same(&inst, Rules { bland_after: 0, ..Rules::default() });
            prop_assert_eq!(s.pivots, s.bland_pivots);
        }

        /// Equal tasks and times: ties everywhere, degenerate pivots.
        #[test]
        fn degenerate_instances_equal_the_generic_solver(
            n in 2..40usize,
            m in 1..4usize,
            p in 1..6i64,
            len in 2..40i64,
        ) {
            let inst = Instance::new(
                vec![0; n],
                vec![len; n],
                Array2::from_elem((n, m), p),
                0..n,
            )
            .unwrap();
            assert_same(&inst, Rules::default());
            assert_same(&inst, Rules { bland_after: 0, ..Rules::default() });
        }
    }

    #[test]
    fn a_larger_oversubscribed_instance_equals_the_generic_solver() {
        // 600 tasks on 8 machines, far more than fits: many pivots.
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let inst = instance(600, 8, 100, 300, 300)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        let s = assert_same(&inst, Rules::default());
        assert!(s.pivots > 50, "{s:?}");
        assert!(s.lp < crate::trivial_bound(&inst) as f64 - 10.0, "{s:?}");
    }

    #[test]
    fn simulated_trials_equal_the_generic_solver() {
        // JPDC-2016 fig. 10a's trials (default PET, bursty arrivals, deadlines beta = 1) at
        // 1,500 tasks (room for nearly all) and 2,000 (oversubscribed: about 1,200 pivots).
        // The trials and their luck are drawn as the runner draws them: the workload's trial
        // `k` and the stream (seed, k, Execution).
        use rand::Rng;
        for tasks in [1500, 2000] {
            let text = format!(
                "[workload]\nrate = {tasks}\nhorizon = 10000\ntasks = {tasks}\n\
                 pattern = \"bursty\"\nbeta = 1.0\nseed = 2016\n"
            );
            let workload = workload::WorkloadConfig::from_toml_str(&text, "test").unwrap();
            let pet = workload::Pet::default_pet(2016);
            for k in 0..2 {
                let trial: Vec<model::TaskSpec> = workload
                    .trial(&pet, k)
                    .unwrap()
                    .tasks
                    .iter()
                    .enumerate()
                    .map(|(i, t)| model::TaskSpec::from_real(i, t))
                    .collect();
                let mut rng = workload::rng::stream(2016, k, workload::rng::Purpose::Execution);
                let luck: Vec<f64> = (0..trial.len()).map(|_| rng.random::<f64>()).collect();
                let counted = 100..trial.len() - 100;
                let inst = crate::instance_from(&pet, &trial, &luck, counted).unwrap();
                let s = assert_same(&inst, Rules::default());
                let auto = upper_bound(&inst, &BoundOptions::default()).unwrap();
                let generic = upper_bound_by(&inst, &BoundOptions::default(), Solver::Generic)
                    .unwrap()
                    .0;
                assert_eq!(auto.on_time, generic.on_time, "{s:?}");
                assert_eq!(auto.robustness.to_bits(), generic.robustness.to_bits());
            }
        }
    }

    #[test]
    fn room_for_every_task_needs_no_pivot() {
        // Two machines with room for all; the greedy start is optimal and exact.
        let inst = Instance::new(
            vec![0, 0, 1, 5],
            vec![20, 20, 21, 25],
            ndarray::array![[3, 4], [5, 2], [6, 6], [0, 9]],
            0..4,
        )
        .unwrap();
        let s = solve_with(&inst, Rules::default()).unwrap();
        assert_eq!(s.pivots, 0);
        assert_eq!(s.lp.to_bits(), 4.0f64.to_bits());
    }

    /// One machine, window [0, 9], three tasks of 4 ticks: two fit, a quarter of the third.
    fn three_fours() -> Instance {
        Instance::new(
            vec![0; 3],
            vec![10; 3],
            ndarray::array![[4], [4], [4]],
            0..3,
        )
        .unwrap()
    }

    #[test]
    fn the_fractional_knapsack_on_one_machine() {
        let inst = three_fours();
        let s = solve_with(&inst, Rules::default()).unwrap();
        assert!((s.lp - 2.25).abs() < 1e-12, "{s:?}");
        assert!(s.pivots > 0);
    }

    #[test]
    fn zero_times_and_empty_windows() {
        // Task 0 takes no time on machine 1; machine 0's window has length 0 (a == d).
        let inst = Instance::new(
            vec![0, 3, 3],
            vec![5, 4, 4],
            ndarray::array![[2, 0], [0, 7], [1, 7]],
            0..3,
        )
        .unwrap();
        assert_same(&inst, Rules::default());
        assert_same(
            &inst,
            Rules {
                bland_after: 0,
                ..Rules::default()
            },
        );
        // Nothing can be on time.
        let none = Instance::new(vec![0], vec![1], ndarray::array![[1]], 0..1).unwrap();
        assert_eq!(solve(&none), Some(0.0));
    }

    #[test]
    fn gives_up_when_out_of_pivots() {
        let inst = three_fours();
        let rules = Rules {
            max_pivots: 0,
            ..Rules::default()
        };
        assert_eq!(solve_with(&inst, rules), None);
        // upper_bound still answers, by the generic solver.
        assert_eq!(
            upper_bound(&inst, &BoundOptions::default())
                .unwrap()
                .on_time,
            2
        );
    }

    #[test]
    fn too_many_machines_go_to_the_generic_solver() {
        let m = MAX_MACHINES + 1;
        let inst = Instance::new(
            vec![0, 0],
            vec![10, 10],
            Array2::from_shape_fn((2, m), |(k, j)| 3 + ((k + j) % 5) as i64),
            0..2,
        )
        .unwrap();
        assert_eq!(solve(&inst), None);
        let b = upper_bound(&inst, &BoundOptions::default()).unwrap();
        let g = upper_bound_by(&inst, &BoundOptions::default(), Solver::Generic)
            .unwrap()
            .0;
        assert_eq!(b, g);
    }

    #[test]
    fn lu_solves_and_transposes() {
        // Needs a row exchange: the first pivot is 0.
        let a = vec![0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        let lu = Lu::new(3, a.clone()).unwrap();
        let x = lu.solve(&[5.0, 3.0, 7.0]);
        for r in 0..3 {
            let ax: f64 = (0..3).map(|c| a[r * 3 + c] * x[c]).sum();
            assert!((ax - [5.0, 3.0, 7.0][r]).abs() < 1e-12, "{x:?}");
        }
        let z = lu.solve_transpose(&[1.0, -2.0, 4.0]);
        for c in 0..3 {
            let atz: f64 = (0..3).map(|r| a[r * 3 + c] * z[r]).sum();
            assert!((atz - [1.0, -2.0, 4.0][c]).abs() < 1e-12, "{z:?}");
        }
        assert!(Lu::new(2, vec![1.0, 2.0, 2.0, 4.0]).is_none());
    }
}
