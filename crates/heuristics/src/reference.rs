//! The reference loop: what every batch heuristic means, written as plainly as thesis
//! Algorithm 2 and JPDC-2016 section 6 state it. Every round scores every candidate on every
//! machine in scope, exactly, assigns one pair, and starts again. It is `O(rounds x
//! candidates x machines)` and reads nothing but exact success probabilities and expected
//! completion times. The heuristics that run ([`crate::TwoPhase`], [`crate::Moc`]) search
//! faster (bounds, kept searches, per-type shortcuts, module `search`) and must take exactly
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
//!    (see [`crate::plan::phase2_key`]); ties by the key's second component, then to the
//!    first in batch order.
//!
//! Ties are ties within the decision slack, [`pmf::prec::DECISION_SLACK`] (1e-9): chances
//! within it of each other, times within it relative (`|a - b| <= 1e-9 max(1, |a|, |b|)`),
//! deadlines exactly. Each choice takes the best value first and then the set that ties with
//! it, so it does not depend on the order of the scan:
//! * MaxSuccess: `P*` the highest chance over the machines in scope; of the machines whose
//!   chance is at least `P* - 1e-9`, `E*` the least expected completion; of those whose
//!   expected completion ties with `E*`, the lowest machine index;
//! * MinCompletion: of the machines whose expected completion ties with the least, the
//!   lowest index;
//! * phase 2: `K*` the least first key; of the candidates whose first key ties with it, the
//!   least second key; of those whose second key ties with that, the first in batch order.
//!
//! A belief equal to the truth within rounding decides as the truth (see [`crate::plan`],
//! "Ties").
//! 3. The pair is assigned provisionally (the machine's tail becomes the task's completion
//!    time); the loop ends when no machine has a free slot or no pair is left.

use model::{Decision, MachineId, TaskId, View, VirtualQueues};

use crate::plan::{
    Phase1, Phase1Scope, Phase2, Plan, max_success_choice, min_completion_choice, phase2_key,
    phase2_pick,
};

/// Phase 1 for one task, exactly: its machine, or `None` when no machine is in scope. Every
/// machine in scope is scored, then the rule of [`crate::plan`] ("Ties") picks.
fn phase1(view: &View<'_>, plan: Plan, vq: &VirtualQueues, t: TaskId) -> Option<MachineId> {
    let in_scope = (0..view.machines().len())
        .filter(|&m| plan.scope == Phase1Scope::AllMachines || vq.free(m) > 0);
    let choice = match plan.phase1 {
        Phase1::MinCompletion => {
            let scored: Vec<(MachineId, f64)> = in_scope
                .map(|m| (m, vq.expected_completion(view, m, t)))
                .collect();
            min_completion_choice(&scored)
        }
        Phase1::MaxSuccess => {
            let mut scored: Vec<(MachineId, f64, f64)> = in_scope
                .map(|m| (m, vq.success(view, m, t), f64::NAN))
                .collect();
            max_success_choice(&mut scored, |m| vq.expected_completion(view, m, t))
        }
    };
    choice.map(|c| c.m)
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
        let mut eligible: Vec<(TaskId, MachineId)> = Vec::new();
        let mut keys: Vec<(f64, f64)> = Vec::new();
        for &(t, m, p) in &chosen {
            if vq.free(m) == 0 {
                continue;
            }
            if let Phase2::Shortlist { epsilon } = plan.phase2 {
                if p < shortlist_best(m) - epsilon {
                    continue;
                }
            }
            eligible.push((t, m));
            keys.push(phase2_key(view, plan.phase2, vq, t, m));
        }
        let Some(k) = phase2_pick(plan.phase2, &keys) else {
            break;
        };
        let (t, m) = eligible[k];
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
    for (m, machine) in view.machines().iter().enumerate() {
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
            let start = prev.clone().unwrap_or_else(|| pmf::Pmf::point(view.now()));
            let start = if ready > view.now() {
                start.at_least(ready)
            } else {
                start
            };
            let mut pct = pmf::next_pct(
                &start,
                view.pet().exec_pmf(spec.task_type, m),
                spec.deadline,
                view.model(),
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
