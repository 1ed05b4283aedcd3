//! Deferral inference: the tasks of a type deferred without evaluating each, by a binary search
//! over their deadlines ([`infer_deferrals`]).

use super::*;

/// Margin below the defer threshold at which a probe's verdict is extended to the tasks of its
/// type with earlier deadlines: twice the decision slack, once for the chosen machine's chance
/// lying up to the slack below the highest ([`crate::plan`], "Ties"), once, far above rounding
/// error, so that the inference never disagrees with evaluating each task.
pub(super) const DEFER_SLACK: f64 = 2.0 * pmf::prec::DECISION_SLACK;

/// Deferrals decided without evaluating every task (first iteration of the loop, real tails).
///
/// For tasks of one type, the chance on every machine, `P(T_m + E_m < d)`, cannot decrease
/// with the deadline `d`, and neither can its maximum over machines `P*` nor the chance on
/// the minimum-expected-completion machine (MM's, the same machine for every task of the
/// type). PAM's phase-1 machine has a chance within the decision slack `s` of `P*`. So when a
/// task is deferred with a margin (`p <= threshold - 2 s`, hence `P* <= threshold - s`, or
/// [`Best::BelowDefer`], `P* < threshold - s`), every task of its type with an earlier or
/// equal deadline has every chance below the threshold and is deferred too. Per type, a
/// binary search over the tasks sorted by deadline evaluates `O(log n)` probes through
/// `evaluate` (which records their verdicts) and returns the tasks it inferred deferred; the
/// rest are evaluated as usual. The decisions are exactly those of evaluating every task.
pub(super) fn infer_deferrals<'s>(
    view: &View<'_>,
    cands: &[TaskId],
    sc: &'s mut DeferScratch,
    mut evaluate: impl FnMut(usize) -> Verdict,
) -> &'s [usize] {
    by_type_and_deadline(view, cands, sc);
    let DeferScratch {
        starts,
        by_type,
        probed,
        inferred,
        marked,
        ..
    } = sc;
    inferred.clear();
    // One group per task type present, in type order.
    for k in 0..starts.len().saturating_sub(1) {
        let group = &by_type[starts[k]..starts[k + 1]];
        if group.is_empty() {
            continue;
        }
        let threshold = view.defer().map_or(f64::NEG_INFINITY, |th| th[k]);
        reset(probed, group.len(), false);
        let lo = deferred_prefix(group.len(), |j| {
            probed[j] = true;
            matches!(evaluate(group[j].1), Verdict::Deferred { p } if p <= threshold - DEFER_SLACK)
        });
        inferred.extend((0..lo).filter(|&j| !probed[j]).map(|j| group[j].1));
        // Probes at or after `lo` already hold their verdicts; the loop skips them.
    }
    // In index order: a mark per candidate and one scan, O(n) where a sort was O(n log n)
    // at every event.
    reset(marked, cands.len(), false);
    for &i in inferred.iter() {
        marked[i] = true;
    }
    inferred.clear();
    inferred.extend((0..cands.len()).filter(|&i| marked[i]));
    inferred
}

/// The length of the prefix of a group of `len` items sorted by deadline (the tasks of one
/// type, or their classes) that is deferred with a margin ([`infer_deferrals`]), found with
/// `probe(j)`, true when item `j` is: oversubscribed, most tasks are deferred and the
/// boundary lies near the latest deadlines, so it gallops down from there, then bisects;
/// `O(log len)` probes.
pub(super) fn deferred_prefix(len: usize, mut probe: impl FnMut(usize) -> bool) -> usize {
    // Invariant: items `..lo` are deferred with a margin; items `hi..` are not known to be.
    let (mut lo, mut hi) = (0, len);
    let mut step = 1;
    while lo < hi {
        let mid = hi.saturating_sub(step).max(lo);
        if probe(mid) {
            lo = mid + 1;
            break;
        }
        hi = mid;
        step *= 2;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if probe(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The working memory of [`infer_deferrals`], kept with [`Buffers`].
#[derive(Default)]
pub(super) struct DeferScratch {
    /// (task type, deadline) of each candidate, in index order.
    pub(super) keys: Vec<(usize, Tick)>,
    /// Type `k`'s candidates are `by_type[starts[k]..starts[k + 1]]`.
    pub(super) starts: Vec<usize>,
    pub(super) next: Vec<usize>,
    /// The candidates (deadline, index) ordered by (type, deadline, index).
    pub(super) by_type: Vec<(Tick, usize)>,
    pub(super) probed: Vec<bool>,
    pub(super) inferred: Vec<usize>,
    /// Per candidate: inferred deferred (to list them in index order).
    pub(super) marked: Vec<bool>,
    /// [`merge_runs`]'s buffer and the bounds of its runs.
    pub(super) merge: Vec<(Tick, usize)>,
    pub(super) runs: Vec<usize>,
    /// [`run_by_class`]'s classes, and a round's pairs (first candidate, class, phase-2 key)
    /// with their keys.
    pub(super) classes: Vec<Class>,
    pub(super) entries: Vec<(usize, usize, (f64, f64))>,
    pub(super) keyed: Vec<(f64, f64)>,
}

/// The candidates, with their deadlines, ordered by (task type, deadline, index) into
/// `sc.by_type`, type `k`'s from `sc.starts[k]`: bucketed by type in index order (O(n)), then
/// each bucket sorted by (deadline, index) by merging its runs of deadlines in order
/// ([`merge_runs`]). A type's deadlines usually grow with its arrivals: a bucket is one run,
/// or a few.
pub(super) fn by_type_and_deadline(view: &View<'_>, cands: &[TaskId], sc: &mut DeferScratch) {
    let DeferScratch {
        keys,
        starts,
        next,
        by_type,
        merge,
        runs,
        ..
    } = sc;
    // Keys read once, in index order.
    keys.clear();
    keys.extend(cands.iter().map(|&t| {
        let spec = view.task(t);
        (spec.task_type, spec.deadline)
    }));
    let n_types = keys.iter().map(|k| k.0 + 1).max().unwrap_or(0);
    reset(starts, n_types + 1, 0);
    // The loops below index slices, not the vectors: held in registers, not read again
    // from `sc` after each write.
    let counts = &mut starts[1..];
    for &(k, _) in keys.iter() {
        counts[k] += 1;
    }
    for k in 0..n_types {
        starts[k + 1] += starts[k];
    }
    // Every position is written below: only the length is set.
    by_type.resize(keys.len(), (0, 0));
    next.clear();
    next.extend_from_slice(starts);
    let (next, placed) = (next.as_mut_slice(), by_type.as_mut_slice());
    for (i, &(k, d)) in keys.iter().enumerate() {
        let at = &mut next[k];
        placed[*at] = (d, i);
        *at += 1;
    }
    for k in 0..n_types {
        merge_runs(&mut by_type[starts[k]..starts[k + 1]], merge, runs);
    }
}

/// Sorts `bucket` (deadline, index) in index order by deadline, stably: the order (deadline,
/// index). Its runs of deadlines in order are merged pairwise through `buf` until one is
/// left: a few runs (a few classes of tasks, each in arrival order) in a pass or two, where
/// a general sort costs several times more.
fn merge_runs(bucket: &mut [(Tick, usize)], buf: &mut Vec<(Tick, usize)>, runs: &mut Vec<usize>) {
    runs.clear();
    runs.push(0);
    runs.extend((1..bucket.len()).filter(|&j| bucket[j].0 < bucket[j - 1].0));
    runs.push(bucket.len());
    while runs.len() > 2 {
        buf.clear();
        let mut r = 0;
        let mut kept = 0;
        while r + 1 < runs.len() {
            runs[kept] = runs[r];
            kept += 1;
            let (a, b) = (runs[r], runs[r + 1]);
            let c = runs.get(r + 2).copied().unwrap_or(b);
            let (mut x, mut y) = (a, b);
            while x < b && y < c {
                if bucket[y].0 < bucket[x].0 {
                    buf.push(bucket[y]);
                    y += 1;
                } else {
                    buf.push(bucket[x]);
                    x += 1;
                }
            }
            buf.extend_from_slice(&bucket[x..b]);
            buf.extend_from_slice(&bucket[y..c]);
            r += 2;
        }
        runs[kept] = bucket.len();
        runs.truncate(kept + 1);
        bucket.copy_from_slice(buf);
    }
}
