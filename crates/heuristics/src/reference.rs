//! The reference loop: what every batch heuristic means, written as plainly as thesis
//! Algorithm 2 and JPDC-2016 section 6 state it. Every round scores every candidate on every
//! machine in scope, exactly, assigns one pair, and starts again. It is `O(rounds x
//! candidates x machines)` and reads nothing but exact success probabilities and expected
//! completion times. The heuristics that run ([`crate::TwoPhase`], [`crate::Moc`]) search
//! faster (bounds, kept searches, per-type shortcuts, see `batch.rs`) and must take exactly
//! the decisions this loop takes: property tests compare the two on random systems.
//!
//! One round (thesis Algorithm 2):
//! 1. **Phase 1**, per candidate still in play: its machine, the one of minimum expected
//!    completion time (MinCompletion: MM, MSD, MMU, EDF, SJF) or of maximum success
//!    probability, ties by minimum expected completion time (MaxSuccess: PAM, MOC); ties
//!    then go to the lower machine index. A candidate with no machine in scope is out of
//!    play for the event; one whose success probability there is at or below its type's
//!    defer threshold is deferred (out of play for the event).
//! 2. **Phase 2**, among the candidates whose machine has a free slot (for MOC: within
//!    `epsilon` of the best chance any candidate has on that machine): the least phase-2 key
//!    (see [`crate::plan::phase2_key`]); ties to the first in batch order.
//! 3. The pair is assigned provisionally (the machine's tail becomes the task's completion
//!    time); the loop ends when no machine has a free slot or no pair is left.

use model::{Decision, MachineId, TaskId, View, VirtualQueues};

use crate::plan::{Phase1, Phase1Scope, Phase2, Plan, phase2_key};

/// Phase 1 for one task, exactly: its machine, or `None` when no machine is in scope.
fn phase1(view: &View<'_>, plan: Plan, vq: &VirtualQueues, t: TaskId) -> Option<MachineId> {
    let mut best: Option<(MachineId, f64, f64)> = None;
    for m in 0..view.machines.len() {
        if plan.scope == Phase1Scope::FreeMachines && vq.free(m) == 0 {
            continue;
        }
        let ect = vq.expected_completion(view, m, t);
        let better = match (plan.phase1, best) {
            (_, None) => true,
            (Phase1::MinCompletion, Some((_, _, be))) => ect < be,
            (Phase1::MaxSuccess, Some((_, bp, be))) => {
                let p = vq.success(view, m, t);
                p > bp || (p == bp && ect < be)
            }
        };
        if better {
            let p = match plan.phase1 {
                Phase1::MaxSuccess => vq.success(view, m, t),
                Phase1::MinCompletion => 0.0,
            };
            best = Some((m, p, ect));
        }
    }
    best.map(|(m, _, _)| m)
}

/// The reference two-phase loop over `cands` (in batch order) on the virtual queues `vq`,
/// adding its assignments and deferrals to `decision`.
pub fn run(
    view: &View<'_>,
    plan: Plan,
    vq: &mut VirtualQueues,
    cands: &[TaskId],
    decision: &mut Decision,
) {
    let mut in_play: Vec<TaskId> = cands.to_vec();
    while vq.any_free() {
        // Phase 1.
        let mut chosen: Vec<(TaskId, MachineId, f64)> = Vec::new();
        in_play.retain(|&t| {
            let Some(m) = phase1(view, plan, vq, t) else {
                return false;
            };
            let p = vq.success(view, m, t);
            if view.should_defer(t, p) {
                decision.deferred.push(t);
                return false;
            }
            chosen.push((t, m, p));
            true
        });
        // Phase 2.
        let shortlist_best = |m: MachineId| {
            chosen
                .iter()
                .filter(|c| c.1 == m)
                .map(|c| c.2)
                .fold(f64::NEG_INFINITY, f64::max)
        };
        let mut pick: Option<((f64, f64), TaskId, MachineId)> = None;
        for &(t, m, p) in &chosen {
            if vq.free(m) == 0 {
                continue;
            }
            if let Phase2::Shortlist { epsilon } = plan.phase2 {
                if p < shortlist_best(m) - epsilon {
                    continue;
                }
            }
            let key = phase2_key(view, plan.phase2, vq, t, m);
            if pick.is_none_or(|(k, _, _)| key.0 < k.0 || (key.0 == k.0 && key.1 < k.1)) {
                pick = Some((key, t, m));
            }
        }
        let Some((_, t, m)) = pick else { break };
        vq.assign(view, m, t);
        decision.assign.push((t, m));
        in_play.retain(|&x| x != t);
    }
}

/// MOC's steps 1 and 2 (JPDC-2016 6.2.5) done plainly: every machine's queue is walked from
/// its first pending task, each task's chance computed given the tasks kept ahead of it and
/// the task culled when below `alpha`; then the candidates that cannot make their deadline on
/// any machine are discarded. Returns the candidates left, in batch order.
pub(crate) fn moc_cull_and_discard(
    view: &View<'_>,
    alpha: f64,
    vq: &mut VirtualQueues,
    decision: &mut Decision,
) -> Vec<TaskId> {
    for (m, machine) in view.machines.iter().enumerate() {
        let first_pending = usize::from(machine.running().is_some());
        let slots = view.queue(m);
        let mut prev: Option<pmf::Pmf> = slots
            .first()
            .filter(|_| first_pending == 1)
            .map(|s| s.pct.clone());
        let mut kept = first_pending;
        let mut culled = false;
        for (slot, &ready) in slots[first_pending..].iter().zip(machine.pending_ready()) {
            let spec = view.task(slot.task);
            let start = prev.clone().unwrap_or_else(|| pmf::Pmf::point(view.now));
            let start = if ready > view.now {
                start.at_least(ready)
            } else {
                start
            };
            let mut pct = pmf::next_pct(
                &start,
                view.pet.exec_pmf(spec.task_type, m),
                spec.deadline,
                view.model,
            )
            .unwrap_or_else(|e| panic!("a completion-time PMF too wide to hold: {e}"));
            pct.trim_tv(view.pct_epsilon());
            if pct.prob_before(spec.deadline) < alpha {
                decision.drop.push(slot.task);
                culled = true;
            } else {
                prev = Some(pct);
                kept += 1;
            }
        }
        if culled {
            let free = machine
                .limit()
                .map_or(usize::MAX, |l| l.saturating_sub(kept));
            vq.set_tail(m, prev, free);
        }
    }
    crate::named::discard_impossible(view, decision)
}
