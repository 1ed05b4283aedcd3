//! The two-phase batch loop shared by every batch heuristic (thesis 3.3.1, paper V-D and VI-C,
//! JPDC-2016 6.2).
//!
//! Each iteration: phase 1 finds, for every candidate task, its best machine by the
//! heuristic's phase-1 objective; tasks whose chance on that machine is at or below their
//! defer threshold are deferred (when deferring is on); phase 2 picks, among the pairs whose
//! machine has a free slot, the single best pair by the phase-2 criterion; that pair is
//! provisionally assigned to the virtual queues. Only the chosen machine's tail changed, so
//! only its column of cached scores is re-evaluated. The loop ends when no machine has a
//! free slot or no candidate is left.

use model::{Decision, MachineId, TaskId, View, VirtualQueues};
use serde::{Deserialize, Serialize};

/// Which machines phase 1 may choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase1Scope {
    /// Every machine, full ones included: a task whose best machine is full waits for it
    /// (JPDC-2016 6.2.2, thesis Algorithm 2). The default.
    #[default]
    AllMachines,
    /// Only machines with a free slot (the other reading; on the paper's data it moves the
    /// baselines by 8-14 points while PAM barely moves).
    FreeMachines,
}

/// Phase-1 objective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Phase1 {
    /// Minimum expected completion time (MM, MSD, MMU, EDF, SJF).
    MinCompletion,
    /// Maximum success probability (PAM, MOC); ties by minimum expected completion.
    MaxSuccess,
}

/// Phase-2 criterion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Phase2 {
    /// Minimum expected completion time; with `tie_by_execution`, ties go to the shortest
    /// expected execution time (PAM).
    MinCompletion { tie_by_execution: bool },
    /// Soonest deadline, ties by minimum expected completion (MSD, EDF).
    SoonestDeadline,
    /// Maximum urgency `U = 1 / (delta - E[C])` (MMU, paper/thesis eq. 3.6).
    MaxUrgency,
    /// MOC (JPDC-2016 6.2.5): per machine, the tasks within `epsilon` of the highest
    /// success probability on it; of those, the minimum expected completion time.
    Shortlist { epsilon: f64 },
}

/// A batch heuristic as data: its two phases and options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Plan {
    pub phase1: Phase1,
    pub phase2: Phase2,
    pub scope: Phase1Scope,
}

/// Success probabilities of (candidate, machine) pairs, computed on demand and cached until
/// the machine's tail changes (only the assigned machine's column is invalidated).
struct SuccessCache {
    machines: usize,
    values: Vec<f64>,
}

impl SuccessCache {
    fn new(n: usize, machines: usize) -> Self {
        SuccessCache {
            machines,
            values: vec![f64::NAN; n * machines],
        }
    }

    fn get(
        &mut self,
        view: &View<'_>,
        vq: &VirtualQueues,
        i: usize,
        t: TaskId,
        m: MachineId,
    ) -> f64 {
        let v = &mut self.values[i * self.machines + m];
        if v.is_nan() {
            *v = vq.success(view, m, t);
        }
        *v
    }

    fn invalidate_machine(&mut self, m: MachineId) {
        for row in self.values.chunks_mut(self.machines) {
            row[m] = f64::NAN;
        }
    }
}

/// Slack kept when skipping a machine by its upper bound, far above rounding error, so that a
/// skipped machine can never have tied or beaten the best one: the choice is exactly the
/// one of evaluating every machine.
const BOUND_SLACK: f64 = 1e-9;

/// An O(1) upper bound on the success probability of appending `t` to machine `m`:
/// `P(T + E < d) <= min(P(T < d - min E), P(E < d - min T))`.
fn success_upper_bound(view: &View<'_>, vq: &VirtualQueues, t: TaskId, m: MachineId) -> f64 {
    let spec = view.task(t);
    let pet = view.pet.pmf(spec.task_type, m);
    let tail = &vq.machines()[m].tail;
    let a = tail.at(spec.deadline - 1 - pet.min());
    let k = spec.deadline - tail.min() - pet.offset();
    let b = pet.mass_below_bin(k.max(0) as usize);
    a.min(b)
}

/// Runs the two-phase loop over `vq` (already holding any culling the heuristic did) for the
/// candidate tasks `cands` (batch order), appending to `decision`.
pub(crate) fn run(
    view: &View<'_>,
    plan: Plan,
    vq: &mut VirtualQueues,
    cands: &[TaskId],
    decision: &mut Decision,
) {
    let m_count = view.machines.len();
    let n = cands.len();
    if n == 0 || m_count == 0 {
        return;
    }
    let mut succ = SuccessCache::new(n, m_count);
    let mut alive = vec![true; n];
    let mut best_m = vec![0usize; n];
    let mut best_p = vec![0.0f64; n];
    let mut shortlist_best = vec![f64::NEG_INFINITY; m_count];
    let mut order: Vec<(f64, MachineId)> = Vec::with_capacity(m_count);
    // A task's phase-1 choice stays valid until its machine's tail changes: an assignment
    // only makes the assigned machine worse, so no other task's best machine can change.
    let mut valid = vec![false; n];
    loop {
        if !vq.any_free() {
            break;
        }
        // Phase 1.
        for (i, &t) in cands.iter().enumerate() {
            if !alive[i] || valid[i] {
                continue;
            }
            valid[i] = true;
            let choice = match plan.phase1 {
                Phase1::MinCompletion => min_completion(view, plan.scope, vq, t),
                Phase1::MaxSuccess => {
                    max_success(view, plan.scope, vq, &mut succ, &mut order, i, t)
                }
            };
            let Some(m) = choice else {
                alive[i] = false;
                continue;
            };
            let needs_p = view.defer.is_some() || matches!(plan.phase2, Phase2::Shortlist { .. });
            let p = if needs_p {
                succ.get(view, vq, i, t, m)
            } else {
                0.0
            };
            if view.defer.is_some() && view.should_defer(t, p) {
                alive[i] = false;
                decision.deferred.push(t);
                continue;
            }
            best_m[i] = m;
            best_p[i] = p;
        }
        if let Phase2::Shortlist { .. } = plan.phase2 {
            shortlist_best.fill(f64::NEG_INFINITY);
            for i in (0..n).filter(|&i| alive[i]) {
                let m = best_m[i];
                shortlist_best[m] = shortlist_best[m].max(best_p[i]);
            }
        }
        // Phase 2: the best pair whose machine has a free slot.
        let mut chosen: Option<((f64, f64), usize)> = None;
        for (i, &t) in cands.iter().enumerate() {
            if !alive[i] {
                continue;
            }
            let m = best_m[i];
            if vq.free(m) == 0 {
                continue;
            }
            if let Phase2::Shortlist { epsilon } = plan.phase2 {
                if best_p[i] < shortlist_best[m] - epsilon {
                    continue;
                }
            }
            let key = phase2_key(view, plan.phase2, vq, t, m);
            let better = match chosen {
                None => true,
                Some((k, _)) => key.0 < k.0 || (key.0 == k.0 && key.1 < k.1),
            };
            if better {
                chosen = Some((key, i));
            }
        }
        let Some((_, i)) = chosen else { break };
        let (t, m) = (cands[i], best_m[i]);
        vq.assign(view, m, t);
        decision.assign.push((t, m));
        alive[i] = false;
        succ.invalidate_machine(m);
        for k in 0..n {
            if best_m[k] == m {
                valid[k] = false;
            }
        }
    }
}

/// Phase 1 by minimum expected completion time (ties: the lower machine index).
fn min_completion(
    view: &View<'_>,
    scope: Phase1Scope,
    vq: &VirtualQueues,
    t: TaskId,
) -> Option<MachineId> {
    let mut best: Option<(MachineId, f64)> = None;
    for m in 0..view.machines.len() {
        if scope == Phase1Scope::FreeMachines && vq.free(m) == 0 {
            continue;
        }
        let ect = vq.expected_completion(view, m, t);
        if best.is_none_or(|(_, b)| ect < b) {
            best = Some((m, ect));
        }
    }
    best.map(|b| b.0)
}

/// Phase 1 by maximum success probability, ties by minimum expected completion, then the
/// lower machine index. Machines are visited by decreasing upper bound and the search stops
/// once no remaining machine can reach the best found: the result is the one of evaluating
/// every machine, at a fraction of the cost.
fn max_success(
    view: &View<'_>,
    scope: Phase1Scope,
    vq: &VirtualQueues,
    succ: &mut SuccessCache,
    order: &mut Vec<(f64, MachineId)>,
    i: usize,
    t: TaskId,
) -> Option<MachineId> {
    order.clear();
    for m in 0..view.machines.len() {
        if scope == Phase1Scope::FreeMachines && vq.free(m) == 0 {
            continue;
        }
        order.push((success_upper_bound(view, vq, t, m), m));
    }
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut best: Option<(MachineId, f64, f64)> = None;
    for &(ub, m) in order.iter() {
        if let Some((_, p, _)) = best {
            if ub + BOUND_SLACK < p {
                break;
            }
        }
        let p = succ.get(view, vq, i, t, m);
        let ect = vq.expected_completion(view, m, t);
        let better = match best {
            None => true,
            Some((bm, bp, be)) => p > bp || (p == bp && (ect < be || (ect == be && m < bm))),
        };
        if better {
            best = Some((m, p, ect));
        }
    }
    best.map(|b| b.0)
}

/// Phase-2 key, lower is better: (criterion, tie-break).
fn phase2_key(
    view: &View<'_>,
    phase2: Phase2,
    vq: &VirtualQueues,
    t: TaskId,
    m: MachineId,
) -> (f64, f64) {
    let ect = vq.expected_completion(view, m, t);
    match phase2 {
        Phase2::MinCompletion { tie_by_execution } => {
            let tie = if tie_by_execution {
                view.pet.mean(view.task(t).task_type, m)
            } else {
                0.0
            };
            (ect, tie)
        }
        Phase2::SoonestDeadline => (view.task(t).deadline as f64, ect),
        Phase2::MaxUrgency => {
            let slack = view.task(t).deadline as f64 - ect;
            // U = 1 / slack; zero slack is the most urgent possible.
            let urgency = if slack == 0.0 {
                f64::INFINITY
            } else {
                1.0 / slack
            };
            (-urgency, ect)
        }
        Phase2::Shortlist { .. } => (ect, 0.0),
    }
}
