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
    let need_success = plan.phase1 == Phase1::MaxSuccess
        || view.defer.is_some()
        || matches!(plan.phase2, Phase2::Shortlist { .. });
    // Cached success probabilities, task-major; only the assigned machine's column is
    // recomputed after an assignment.
    let mut succ = vec![0.0; if need_success { n * m_count } else { 0 }];
    if need_success {
        for (i, &t) in cands.iter().enumerate() {
            for m in 0..m_count {
                succ[i * m_count + m] = vq.success(view, m, t);
            }
        }
    }
    let mut alive = vec![true; n];
    let mut best_m = vec![0usize; n];
    let mut shortlist_best = vec![f64::NEG_INFINITY; m_count];
    loop {
        if !vq.any_free() {
            break;
        }
        // Phase 1.
        for (i, &t) in cands.iter().enumerate() {
            if !alive[i] {
                continue;
            }
            let Some(m) = phase1_choice(view, plan, vq, &succ, i, t) else {
                alive[i] = false;
                continue;
            };
            if view.defer.is_some() && view.should_defer(t, succ[i * m_count + m]) {
                alive[i] = false;
                decision.deferred.push(t);
                continue;
            }
            best_m[i] = m;
        }
        if let Phase2::Shortlist { .. } = plan.phase2 {
            shortlist_best.fill(f64::NEG_INFINITY);
            for i in (0..n).filter(|&i| alive[i]) {
                let m = best_m[i];
                shortlist_best[m] = shortlist_best[m].max(succ[i * m_count + m]);
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
                if succ[i * m_count + m] < shortlist_best[m] - epsilon {
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
        if need_success {
            for (k, &u) in cands.iter().enumerate() {
                if alive[k] {
                    succ[k * m_count + m] = vq.success(view, m, u);
                }
            }
        }
    }
}

/// Phase 1: the task's best machine, or `None` when the scope leaves no machine.
fn phase1_choice(
    view: &View<'_>,
    plan: Plan,
    vq: &VirtualQueues,
    succ: &[f64],
    i: usize,
    t: TaskId,
) -> Option<MachineId> {
    let m_count = view.machines.len();
    let mut best: Option<(MachineId, f64, f64)> = None;
    for m in 0..m_count {
        if plan.scope == Phase1Scope::FreeMachines && vq.free(m) == 0 {
            continue;
        }
        let ect = vq.expected_completion(view, m, t);
        let better = match (plan.phase1, best) {
            (_, None) => true,
            (Phase1::MinCompletion, Some((_, _, b))) => ect < b,
            (Phase1::MaxSuccess, Some((_, s, b))) => {
                let p = succ[i * m_count + m];
                p > s || (p == s && ect < b)
            }
        };
        if better {
            let p = if succ.is_empty() {
                0.0
            } else {
                succ[i * m_count + m]
            };
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
