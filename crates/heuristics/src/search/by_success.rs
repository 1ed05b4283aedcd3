//! Phase 1 by maximum success probability ([`max_success`]): machines visited by decreasing
//! upper bound, the search stopping once no remaining machine can reach or tie with the best
//! found.

use super::*;

/// The result of [`max_success`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Best {
    /// The phase-1 choice ([`max_success_choice`]) and the highest chance, `top`.
    Machine { choice: Choice, top: f64 },
    /// No machine in scope.
    NoMachine,
    /// Deferring is on and every machine's chance is below the task's defer threshold by more
    /// than the slack: the task is deferred whichever machine is chosen.
    BelowDefer,
}

/// Defer thresholds from which [`max_success_indexed`] indexes machines at the threshold (the
/// keys and cuts of its indexes stay above 0 down to `LEVEL_SHIFTS`' last share).
pub(super) const LEVEL_MIN: f64 = 16.0 * BOUND_SLACK;

/// Phase 1 by maximum success probability, ties by minimum expected completion, then the
/// lower machine index ([`max_success_choice`]). Machines are visited by decreasing upper
/// bound and the search stops once no remaining machine can reach or tie with the best found
/// (its bound below it less [`TIE_MARGIN`]): the result is the one of evaluating every
/// machine, at a fraction of the cost.
///
/// With deferring on, the task's defer threshold is a floor too: a task whose best chance is
/// at or below it is deferred whichever machine that is, so machines whose bound is below
/// it (with the slack) need no exact evaluation, and a task whose every bound is below it is
/// [`Best::BelowDefer`] without any. This is where an oversubscribed system with many
/// machines saves most: most candidates are hopeless, and their bounds say so.
pub(super) fn max_success(
    view: &View<'_>,
    scope: Phase1Scope,
    vq: &VirtualQueues,
    succ: &mut SuccessCache,
    order: &mut Vec<(f64, MachineId)>,
    machines: &[MachineId],
    (i, t): (usize, TaskId),
    kept_out: &mut (usize, f64),
) -> Best {
    *kept_out = (0, f64::NAN);
    let defer_floor = view
        .defer()
        .map_or(f64::NEG_INFINITY, |th| th[view.task(t).task_type]);
    // Pass 1: the tail-side bound `P(T < d - min E)` of every machine (one read of the
    // machine's cached tail CDF).
    order.clear();
    let mut top: Option<(f64, MachineId)> = None;
    for &m in machines {
        if scope == Phase1Scope::FreeMachines && vq.free(m) == 0 {
            continue;
        }
        let a = tail_bound(view, vq, t, m);
        if top.is_none_or(|(b, _)| a > b) {
            top = Some((a, m));
        }
        order.push((a, m));
    }
    let Some((a_top, m0)) = top else {
        return Best::NoMachine;
    };
    if a_top + BOUND_SLACK < defer_floor {
        return Best::BelowDefer;
    }
    if defer_floor > f64::NEG_INFINITY
        && succ.use_memo
        && settled_below(view, vq, succ, order, t, defer_floor)
    {
        return Best::BelowDefer;
    }
    // Pass 2: the machine of highest tail bound sets a floor, its exact chance (or the defer
    // threshold when higher). A machine whose bound is below the floor less the tie margin
    // can neither beat nor tie the best of a task that is not deferred with the margin (when
    // the highest chance is below the threshold less the slack, the task is deferred
    // whichever machine is chosen); the others get the full bound, and only those still
    // reaching the floor are sorted and visited. The machines below it stay in `order`,
    // after them, with their bounds, for [`Memo`].
    let floor = succ.get(view, vq, i, t, m0).max(defer_floor);
    let mut kept = 0;
    for j in 0..order.len() {
        let (a, m) = order[j];
        if a + TIE_MARGIN < floor {
            continue;
        }
        let ub = full_bound(view, vq, t, m, a);
        order[j].0 = ub;
        if ub + TIE_MARGIN >= floor {
            order.swap(kept, j);
            kept += 1;
        }
    }
    if kept == 0 {
        // Only when the floor is the threshold: m0 itself passes a floor of its own chance.
        return Best::BelowDefer;
    }
    // Machine ids are unique: the unstable sort gives the one order.
    order[..kept].sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    *kept_out = (kept, floor);
    let mut scored = std::mem::take(&mut succ.scored);
    scored.clear();
    best_of(
        view,
        scope,
        vq,
        succ,
        order[..kept].iter().copied(),
        (i, t),
        &mut scored,
    );
    let best = scored
        .choose(view, vq, t)
        .map_or(Best::NoMachine, |choice| Best::Machine {
            choice,
            top: scored.top,
        });
    succ.scored = scored;
    best
}

/// True when every machine of `order` is below the defer threshold `q` by more than the slack
/// without an exact evaluation: by its tail bound (already in `order`), by the chance kept
/// from an earlier event on its earlier PCTs times their factor
/// ([`SuccessCache::stale_bound`]), or by its full bound. Stops at the first machine that
/// none of them settles. A bound found here replaces the tail bound in `order` (the lower,
/// still an upper bound).
///
/// Oversubscribed, a deferred task stays in the batch and is probed again at the next event
/// ([`infer_deferrals`]); its chances from then usually settle it again, where the search
/// below would compute the exact chance of its best-bounded machine (and that machine's
/// PCTs) first.
pub(super) fn settled_below(
    view: &View<'_>,
    vq: &VirtualQueues,
    succ: &SuccessCache,
    order: &mut [(f64, MachineId)],
    t: TaskId,
    q: f64,
) -> bool {
    let spec = view.task(t);
    let (ty, d) = (spec.task_type, spec.deadline);
    order.iter_mut().all(|(a, m)| {
        if *a + BOUND_SLACK < q {
            return true;
        }
        if let Some(k) = succ.stale_bound(vq, t, *m) {
            *a = a.min(k);
            if *a + BOUND_SLACK < q {
                return true;
            }
        }
        *a = staged_bound(view, vq, (ty, d), *m, *a, q);
        *a + BOUND_SLACK < q
    })
}

/// [`full_bound`] in two steps, the O(1) execution half first: when that already puts the
/// machine below `floor` (with the slack), the segment bound's reads are skipped and the
/// lower of the two first bounds is returned (still an upper bound, below the floor). Only
/// where a machine below the floor is settled for good ([`settled_below`]): phase 1's second
/// pass sorts by the full bound, and a looser one there costs more exact chances than the
/// reads it saves (docs/performance.md, "Constants chosen by measurement").
#[inline]
pub(super) fn staged_bound(
    view: &View<'_>,
    vq: &VirtualQueues,
    (ty, d): (usize, Tick),
    m: MachineId,
    a: f64,
    floor: f64,
) -> f64 {
    let pet = view.pet().exec_pmf(ty, m);
    let (tail, f) = vq.bound_tail(view, m);
    let b = a.min(exec_bound(pet, tail, d));
    if b + BOUND_SLACK < floor {
        return b;
    }
    b.min(f * tail.append_success_bound(pet, d))
}

/// The O(1) bound of [`success_upper_bound`] and the segment bound, the lower of the two:
/// a few more reads than the first, far tighter on wide PETs.
///
/// `a` is the tail half, [`tail_bound`], already read.
pub(super) fn full_bound(
    view: &View<'_>,
    vq: &VirtualQueues,
    t: TaskId,
    m: MachineId,
    a: f64,
) -> f64 {
    let spec = view.task(t);
    let pet = view.pet().exec_pmf(spec.task_type, m);
    let (tail, f) = vq.bound_tail(view, m);
    let seg = f * tail.append_success_bound(pet, spec.deadline);
    a.min(exec_bound(pet, tail, spec.deadline)).min(seg)
}

/// Scores the machines of `order` (sorted by decreasing upper bound) into `scored`, visited
/// in that order until no remaining bound can reach or tie with the highest chance scored
/// (its bound below it less [`TIE_MARGIN`]). Machines out of `scope` are skipped.
pub(super) fn best_of(
    view: &View<'_>,
    scope: Phase1Scope,
    vq: &VirtualQueues,
    succ: &mut SuccessCache,
    order: impl IntoIterator<Item = (f64, MachineId)>,
    (i, t): (usize, TaskId),
    scored: &mut Scored,
) {
    // With few machines there are few copies, and looking for them costs more than it saves.
    if view.machines().len() >= NARROW_MIN_MACHINES && !plain() {
        return best_of_copies(view, scope, vq, succ, order, (i, t), scored);
    }
    for (ub, m) in order {
        if ub + TIE_MARGIN < scored.top {
            scored.stop = scored.stop.max(ub);
            break;
        }
        if scope == Phase1Scope::FreeMachines && vq.free(m) == 0 {
            continue;
        }
        let p = succ.get(view, vq, i, t, m);
        scored.push(m, p);
    }
}

/// [`best_of`] with many machines: an idle, empty copy (the same PET column, the same tick)
/// of a machine visited before it with a lower index has that machine's chance and expected
/// completion ([`VirtualQueues::idle_at`]); the two tie in every respect and the copy, with a
/// higher index, is never chosen nor needed as the highest chance or the least expected
/// completion, so it is not evaluated. With many copies of a few machines, most machines of
/// a search are such copies.
pub(super) fn best_of_copies(
    view: &View<'_>,
    scope: Phase1Scope,
    vq: &VirtualQueues,
    succ: &mut SuccessCache,
    order: impl IntoIterator<Item = (f64, MachineId)>,
    (i, t): (usize, TaskId),
    scored: &mut Scored,
) {
    // The idle, empty machines visited so far: (PET column, idle tick, machine), at most
    // `IDLE_SEEN` of them.
    let mut seen = std::mem::take(&mut succ.seen);
    seen.clear();
    for (ub, m) in order {
        if ub + TIE_MARGIN < scored.top {
            scored.stop = scored.stop.max(ub);
            break;
        }
        if scope == Phase1Scope::FreeMachines && vq.free(m) == 0 {
            continue;
        }
        if let Some(k) = vq.idle_at(m) {
            let column = view.pet().canonical(m);
            if seen.iter().any(|&(c, s, e)| c == column && s == k && e < m) {
                continue;
            }
            if seen.len() < IDLE_SEEN {
                seen.push((column, k, m));
            }
        }
        let p = succ.get(view, vq, i, t, m);
        scored.push(m, p);
    }
    succ.seen = seen;
}

/// Idle machines [`best_of`] remembers per search (beyond, it evaluates every machine).
pub(super) const IDLE_SEEN: usize = 32;
