//! MOC's step 1 (JPDC-2016 6.2.5), accelerated: [`cull_below`].

use super::*;

/// MOC's step 1 (JPDC-2016 6.2.5), fast: each machine's pending tasks whose chance is below
/// `alpha` are dropped, walking the queue from its head and recomputing the chances behind a
/// dropped task; the virtual queues take the culled tails. What
/// [`crate::reference::moc_cull_and_discard`] does plainly, skipping the queues whose pending
/// tasks the oracle proves above `alpha` without computing them, and reading the queue's own
/// PMFs until the first drop.
pub(crate) fn cull_below(
    view: &View<'_>,
    alpha: f64,
    vq: &mut VirtualQueues,
    decision: &mut Decision,
) {
    for (m, machine) in view.machines().iter().enumerate() {
        let first_pending = usize::from(machine.running().is_some());
        if machine.len() <= first_pending {
            continue;
        }
        // A queue whose pending tasks are proven above alpha without computing its PMFs
        // culls nothing. With a PCT epsilon the proof holds up to about `2 k eps`
        // (`Oracle::stale`).
        if view.chances_proven_above(m, first_pending, true, |_| alpha) {
            continue;
        }
        let slots = view.queue(m);
        // Until the first cull every task's chance is its slot's (no PCT is copied).
        let Some(first) = (first_pending..slots.len()).find(|&k| slots[k].success() < alpha) else {
            continue;
        };
        let mut prev: Pmf = match first {
            0 => Pmf::point(view.now()),
            k => slots[k - 1].pct.clone(),
        };
        let mut kept = first;
        let mut culled = false;
        let ready = machine.pending_ready().iter().skip(first - first_pending);
        for (slot, &ready) in slots[first..].iter().zip(ready) {
            let spec = view.task(slot.task);
            let pct = if culled {
                // With staging, the task starts no earlier than its data-ready tick.
                let start = if ready > view.now() {
                    prev.at_least(ready)
                } else {
                    prev.clone()
                };
                let mut pct = next_pct(
                    &start,
                    view.pet().exec_pmf(spec.task_type, m),
                    spec.deadline,
                    view.model(),
                )
                .unwrap_or_else(|e| panic!("a completion-time PMF too wide to hold: {e}"));
                pct.trim_tv(view.pct_epsilon());
                pct
            } else {
                slot.pct.clone()
            };
            if pct.prob_before(spec.deadline) < alpha {
                decision.drop.push(slot.task);
                culled = true;
            } else {
                prev = pct;
                kept += 1;
            }
        }
        if culled {
            let tail = if kept == 0 { None } else { Some(prev) };
            let free = machine
                .limit()
                .map_or(usize::MAX, |l| l.saturating_sub(kept));
            vq.set_tail(m, tail, free);
        }
    }
}
