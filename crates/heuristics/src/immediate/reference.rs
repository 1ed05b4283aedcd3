//! The plain definitions of the immediate heuristics (thesis 3.3.2, JPDC-2016 6.1): one loop
//! over the machines each, reading only exact values from the [`View`] (expected tails,
//! success probabilities, completion-time PMFs), as the papers state them. What
//! [`ImmediateHeuristic::choose`] of each must return: property tests compare them on random
//! systems (`tests/it/reference.rs`), near ties included; the heuristics pass over machines
//! by bounds from earlier PMFs, which must never change the choice.
//!
//! Every minimum goes to the first machine in the order scanned that attains it (exact
//! comparisons: an immediate heuristic has no tie slack).

use model::{MachineId, TaskId, View};
use pmf::Pmf;

#[cfg(doc)]
use model::ImmediateHeuristic;

use super::MaxRobust;

/// The first of `scored` (machine, value) with the least value; machine 0 when it is empty.
fn first_least(scored: impl IntoIterator<Item = (MachineId, f64)>) -> MachineId {
    let mut best: Option<(MachineId, f64)> = None;
    for (m, v) in scored {
        if best.is_none_or(|(_, b)| v < b) {
            best = Some((m, v));
        }
    }
    best.map_or(0, |(m, _)| m)
}

/// The `k` share of the machines with the least expected execution time of `t`'s type, in
/// increasing order of it (ties: lower index): `round(k M)` of them, at least one
/// (JPDC-2016 6.1.3: 50% = 4 of 8).
fn k_percent_best(view: &View<'_>, t: TaskId, k: f64) -> Vec<MachineId> {
    let ty = view.task(t).task_type;
    let count = view.machines().len();
    let mut ms: Vec<MachineId> = (0..count).collect();
    ms.sort_by(|&a, &b| {
        view.pet()
            .mean(ty, a)
            .total_cmp(&view.pet().mean(ty, b))
            .then(a.cmp(&b))
    });
    ms.truncate(((k * count as f64).round() as usize).clamp(1, count.max(1)));
    ms
}

/// FCFS (thesis 3.3.2.1): the first machine with an empty queue (idle, nothing pending);
/// when none is, the least expected completion of the queue's last task, `E[tail]`.
pub fn fcfs(view: &View<'_>) -> MachineId {
    for m in 0..view.machines().len() {
        if view.machines()[m].is_empty() {
            return m;
        }
    }
    first_least((0..view.machines().len()).map(|m| (m, view.tail_mean(m))))
}

/// MET (thesis 3.3.2.2, JPDC-2016 eq. 6): the least expected execution time `E[PET(i, m)]`
/// of the task's type `i`.
pub fn met(view: &View<'_>, t: TaskId) -> MachineId {
    let ty = view.task(t).task_type;
    first_least((0..view.machines().len()).map(|m| (m, view.pet().mean(ty, m))))
}

/// MCT (thesis 3.3.2.3, JPDC-2016 6.1.1): the least expected completion time
/// `E[tail] + E[PET(i, m)]`.
pub fn mct(view: &View<'_>, t: TaskId) -> MachineId {
    let ty = view.task(t).task_type;
    first_least((0..view.machines().len()).map(|m| (m, view.tail_mean(m) + view.pet().mean(ty, m))))
}

/// KPB (thesis 3.3.2.4, JPDC-2016 6.1.3): MCT among the `k` share of machines with the least
/// expected execution time, scanned in that order.
pub fn kpb(view: &View<'_>, t: TaskId, k: f64) -> MachineId {
    let ty = view.task(t).task_type;
    first_least(
        k_percent_best(view, t, k)
            .into_iter()
            .map(|m| (m, view.tail_mean(m) + view.pet().mean(ty, m))),
    )
}

/// MaxRobust (thesis 3.3.2.5, JPDC-2016 6.1.4): of KPB's `k` best machines, each one's
/// success probability `P(m)` with the task appended (eq. 1); `P*` the highest; of the
/// machines with `P(m) >= P* - epsilon`, the least variance of the task's completion-time
/// PMF on `m` with dropping (eqs. 2-5, under the view's drop model), scanned in KPB's order.
pub fn max_robust(view: &View<'_>, t: TaskId, mr: MaxRobust) -> MachineId {
    let spec = view.task(t);
    let cands = k_percent_best(view, t, mr.k);
    let chance: Vec<f64> = cands.iter().map(|&m| view.append_success(t, m)).collect();
    let best = chance.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let near = cands
        .iter()
        .zip(&chance)
        .filter(|&(_, &p)| p >= best - mr.epsilon)
        .map(|(&m, _)| m);
    first_least(near.map(|m| {
        let start = Pmf::point(view.now());
        let tail = view.tail_pct(m).unwrap_or(&start);
        let pct = pmf::next_pct(
            tail,
            view.pet().exec_pmf(spec.task_type, m),
            spec.deadline,
            view.model(),
        )
        .unwrap_or_else(|e| panic!("a completion-time PMF too wide to hold: {e}"));
        (m, pct.variance())
    }))
}
