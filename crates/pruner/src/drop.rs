//! Probabilistic dropping (thesis Algorithm 1, paper V-A): walk a machine queue from the
//! executing task to the tail, computing each task's success probability given the tasks
//! ahead of it that are kept, and drop it when the probability is at or below its threshold.

use std::borrow::Cow;

use model::Slot;
use pmf::{DropModel, ExecPmf, Pmf, PmfError, Tick, executing_pct, next_pct};

use crate::thresholds::{drop_threshold, dynamic_offset};

/// A task in a machine queue, as any scheduler can describe it.
#[derive(Debug, Clone, Copy)]
pub struct QueuedTask<'a> {
    /// Its type (for fairness).
    pub task_type: usize,
    /// Its execution-time PMF on this machine.
    pub pet: &'a ExecPmf,
    /// Its deadline tick (success: completion strictly before it).
    pub deadline: Tick,
    /// `Some(start)` for the executing task (the queue's first), `None` when pending.
    pub start: Option<Tick>,
}

/// What the walk needs to know besides the queue.
#[derive(Debug, Clone, Copy)]
pub struct DropRule<'a> {
    /// The base drop threshold.
    pub threshold: f64,
    /// Weight `p` of eq. (7); 0 = a uniform threshold.
    pub dynamic_weight: f64,
    /// Sufferage per task type, subtracted from the threshold (empty = none).
    pub sufferage: &'a [f64],
}

/// Walks one machine queue (executing task first, if any) at `now` and returns, for each task,
/// whether to drop it. Dropping a task improves those behind it, so each probability is
/// computed given the kept tasks ahead only.
///
/// The executing task is a candidate only under [`DropModel::All`]: under
/// [`DropModel::Pending`] and [`DropModel::None`] it runs to completion (JPDC-2016, scenario
/// (a): the executing task cannot be dropped), so it is always kept, and the tasks behind it
/// are judged on its full completion-time PMF.
///
/// Any ticks are accepted (see `pmf`'s crate docs, "The tick range"). A threshold that is NaN
/// drops nothing (no chance is at or below it).
///
/// # Errors
/// [`PmfError::TooWide`] when a PCT along the queue is too wide to hold ([`next_pct`]).
pub fn walk_queue(
    now: Tick,
    queue: &[QueuedTask<'_>],
    model: DropModel,
    rule: DropRule<'_>,
) -> Result<Vec<bool>, PmfError> {
    walk_queue_cached(now, queue, model, rule, None, 0.0)
}

/// As [`walk_queue`], reusing `cached[i]`, the slot of position `i` with nothing dropped
/// ahead (a simulator's cache at `now`: its PCT and its kept chance, [`Slot::success`]),
/// until the first drop; from there on PCTs are recomputed, each trimmed at `pct_epsilon`
/// ([`Pmf::trim_tv`]; the cache's own, 0 = exact). Until then nothing is copied: the walk
/// builds on the cache's PCTs in place. A cache shorter than the queue is read for the
/// positions it covers (the rest are computed); slots beyond the queue are not read.
///
/// # Errors
/// As [`walk_queue`].
pub fn walk_queue_cached(
    now: Tick,
    queue: &[QueuedTask<'_>],
    model: DropModel,
    rule: DropRule<'_>,
    cached: Option<&[Slot]>,
    pct_epsilon: f64,
) -> Result<Vec<bool>, PmfError> {
    let mut drops = vec![false; queue.len()];
    // The PCT of the last kept task: the cache's until the first drop, then the walk's own.
    let mut prev: Option<Cow<'_, Pmf>> = None;
    let mut kept = 0usize;
    let mut dropped_any = false;
    for (i, task) in queue.iter().enumerate() {
        // `Slot::success` is `prob_before` of the same PCT and deadline: the same value.
        let slot = cached.and_then(|c| c.get(i)).filter(|_| !dropped_any);
        let (pct, success) = match slot {
            Some(slot) => (Cow::Borrowed(&slot.pct), slot.success()),
            None => {
                let mut pct = match (task.start, &prev) {
                    (Some(start), _) => executing_pct(task.pet, start, now, task.deadline, model),
                    (None, Some(p)) => next_pct(p, task.pet, task.deadline, model)?,
                    (None, None) => next_pct(&Pmf::point(now), task.pet, task.deadline, model)?,
                };
                pct.trim_tv(pct_epsilon);
                let success = pct.prob_before(task.deadline);
                (Cow::Owned(pct), success)
            }
        };
        let phi = if rule.dynamic_weight > 0.0 {
            dynamic_offset(pct.bounded_skewness(), kept, rule.dynamic_weight)
        } else {
            0.0
        };
        let suff = rule.sufferage.get(task.task_type).copied().unwrap_or(0.0);
        let droppable = task.start.is_none() || model == DropModel::All;
        if droppable && success <= drop_threshold(rule.threshold, suff, phi) {
            drops[i] = true;
            dropped_any = true;
        } else {
            prev = Some(pct);
            kept += 1;
        }
    }
    Ok(drops)
}
