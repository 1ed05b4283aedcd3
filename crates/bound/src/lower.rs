//! A lower bound on the clairvoyant optimum: the best feasible schedule found.

use pmf::Tick;

use crate::error::BoundError;
use crate::instance::Instance;
use crate::schedule::Placement;

/// The counted tasks that can be on time somewhere, with their data in flat arrays.
pub(crate) struct Problem {
    /// Instance index of each task.
    pub ids: Vec<usize>,
    /// Arrival.
    pub a: Vec<Tick>,
    /// Latest completion (`deadline - 1`).
    pub d: Vec<Tick>,
    /// Realised times, row-major `n x m`.
    pub p: Vec<Tick>,
    /// Machines.
    pub m: usize,
}

impl Problem {
    pub(crate) fn new(inst: &Instance) -> Self {
        let m = inst.n_machines();
        let mut pr = Problem {
            ids: Vec::new(),
            a: Vec::new(),
            d: Vec::new(),
            p: Vec::new(),
            m,
        };
        for k in inst.counted.clone() {
            if (0..m).any(|j| inst.can_be_on_time(k, j)) {
                pr.ids.push(k);
                pr.a.push(inst.arrival[k]);
                pr.d.push(inst.latest_completion(k));
                pr.p.extend((0..m).map(|j| inst.exec[[k, j]]));
            }
        }
        pr
    }

    pub(crate) fn n(&self) -> usize {
        self.ids.len()
    }

    #[inline]
    pub(crate) fn p(&self, k: usize, j: usize) -> Tick {
        self.p[k * self.m + j]
    }

    /// Task `k` can be on time on machine `j` alone.
    #[inline]
    pub(crate) fn ok(&self, k: usize, j: usize) -> bool {
        self.a[k].saturating_add(self.p(k, j)) <= self.d[k]
    }
}

/// One machine's sequence, each task started as early as its arrival and the previous
/// completion allow.
#[derive(Debug, Clone)]
struct Seq {
    tasks: Vec<usize>,
    /// Completion of each task.
    done: Vec<Tick>,
    /// `ready[i]`: the latest tick the machine may become free before position `i` with the
    /// tasks from `i` on still on time; `ready[len] = Tick::MAX`.
    ready: Vec<Tick>,
    /// Sum of the tasks' times.
    load: Tick,
}

impl Seq {
    fn empty() -> Self {
        Seq {
            tasks: Vec::new(),
            done: Vec::new(),
            ready: vec![Tick::MAX],
            load: 0,
        }
    }

    fn recompute(&mut self, pr: &Problem, j: usize) {
        let n = self.tasks.len();
        self.done.resize(n, 0);
        self.ready.resize(n + 1, 0);
        let mut free = Tick::MIN;
        self.load = 0;
        for (i, &k) in self.tasks.iter().enumerate() {
            free = free.max(pr.a[k]) + pr.p(k, j);
            self.done[i] = free;
            self.load += pr.p(k, j);
        }
        self.ready[n] = Tick::MAX;
        for i in (0..n).rev() {
            let k = self.tasks[i];
            self.ready[i] = pr.d[k].min(self.ready[i + 1]) - pr.p(k, j);
        }
    }

    /// The free tick before position `i`.
    #[inline]
    fn free(&self, i: usize) -> Tick {
        if i == 0 { Tick::MIN } else { self.done[i - 1] }
    }

    /// The best position to insert `k` (the earliest completion, the latest position among
    /// equal ones), and that completion: from the last position free by `k`'s arrival on,
    /// until `k` would be late or complete later than the best so far.
    fn insertion(
        &self,
        pr: &Problem,
        j: usize,
        k: usize,
        steps: &mut u64,
    ) -> Option<(usize, Tick)> {
        let (a, p, d) = (pr.a[k], pr.p(k, j), pr.d[k]);
        let first = self.done.partition_point(|&c| c <= a);
        let mut best: Option<(usize, Tick)> = None;
        for i in first..=self.tasks.len() {
            *steps += 1;
            let c = self.free(i).max(a) + p;
            if c > d || best.is_some_and(|(_, bc)| c > bc) {
                break;
            }
            if c <= self.ready[i] {
                best = Some((i, c));
            }
        }
        best
    }

    /// [`Seq::insertion`] trying every position: the plain reference of the tests.
    #[cfg(test)]
    fn insertion_reference(&self, pr: &Problem, j: usize, k: usize) -> Option<(usize, Tick)> {
        let (a, p, d) = (pr.a[k], pr.p(k, j), pr.d[k]);
        let mut best: Option<(usize, Tick)> = None;
        for i in 0..=self.tasks.len() {
            let c = self.free(i).max(a) + p;
            if c <= d && c <= self.ready[i] && best.is_none_or(|(_, bc)| c <= bc) {
                best = Some((i, c));
            }
        }
        best
    }

    /// The best slot to insert `k` once the task at position `r` is removed (a slot of the
    /// sequence without it: the earliest completion, the latest slot among equal ones), and
    /// `k`'s completion there. Only the slots from the last one free by `k`'s arrival to the
    /// last one where `k` can still be on time are visited, and only the completions and
    /// ready ticks that the removal changes and that those slots need are recomputed.
    fn insertion_without(
        &self,
        pr: &Problem,
        j: usize,
        r: usize,
        k: usize,
        scratch: &mut (Vec<Tick>, Vec<Tick>),
        steps: &mut u64,
    ) -> Option<(usize, Tick)> {
        let len = self.tasks.len();
        let (a, p, d) = (pr.a[k], pr.p(k, j), pr.d[k]);
        let (nd, nr) = scratch;
        // Completions of the sequence without r, by new index `i`: the old ones before r;
        // from r on, recomputed forward into `nd` until one equals the old completion (all
        // later ones do too) or is past `d - p` (no later slot can take k).
        nd.clear();
        let mut merged = false;
        let mut prev = self.free(r);
        for old in r + 1..len {
            let t = self.tasks[old];
            prev = prev.max(pr.a[t]) + pr.p(t, j);
            nd.push(prev);
            if prev == self.done[old] {
                merged = true;
                break;
            }
            if prev > d - p {
                break;
            }
        }
        *steps += nd.len() as u64 + 1;
        // `None`: past the recomputed ones without a merge, so past `d - p`.
        let done_new = |i: usize| -> Option<Tick> {
            if i < r {
                Some(self.done[i])
            } else if i - r < nd.len() {
                Some(nd[i - r])
            } else if merged {
                Some(self.done[i + 1])
            } else {
                None
            }
        };
        // The last slot free by the arrival: after every task that completes by then.
        let mut first = self.done[..r].partition_point(|&c| c <= a);
        if first == r {
            while first < len - 1 && done_new(first).is_some_and(|c| c <= a) {
                first += 1;
            }
        }
        // Ready ticks of the slots first..r, recomputed backward from r until one equals
        // the old ready tick (all earlier ones do too).
        nr.clear();
        if first < r {
            nr.resize(r - first, 0);
            let mut next = self.ready[r + 1];
            let mut i = r;
            while i > first {
                i -= 1;
                let t = self.tasks[i];
                let v = pr.d[t].min(next) - pr.p(t, j);
                *steps += 1;
                nr[i - first] = v;
                if v == self.ready[i] {
                    nr[..i - first].copy_from_slice(&self.ready[first..i]);
                    break;
                }
                next = v;
            }
        }
        let mut best: Option<(usize, Tick)> = None;
        for s in first..len {
            *steps += 1;
            let free = if s == 0 {
                Tick::MIN
            } else {
                match done_new(s - 1) {
                    Some(c) => c,
                    None => break,
                }
            };
            let c = free.max(a) + p;
            if c > d || best.is_some_and(|(_, bc)| c > bc) {
                break;
            }
            let ready = if s < r {
                nr[s - first]
            } else {
                self.ready[s + 1]
            };
            if c <= ready {
                best = Some((s, c));
            }
        }
        best
    }

    /// [`Seq::insertion_without`] by removing `r`, recomputing everything and trying every
    /// slot: the plain reference of the tests.
    #[cfg(test)]
    fn insertion_without_reference(
        &self,
        pr: &Problem,
        j: usize,
        r: usize,
        k: usize,
    ) -> Option<(usize, Tick)> {
        let mut tmp = self.clone();
        tmp.remove(pr, j, r);
        tmp.insertion_reference(pr, j, k)
    }

    /// Position of task `k` in the sequence.
    fn position(&self, k: usize) -> usize {
        self.tasks
            .iter()
            .position(|&x| x == k)
            .expect("the task is on this machine")
    }

    /// Number of tasks that start before tick `t` (starts never decrease along a sequence).
    fn starting_before(&self, pr: &Problem, j: usize, t: Tick) -> usize {
        let (mut lo, mut hi) = (0, self.tasks.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.done[mid] - pr.p(self.tasks[mid], j) < t {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn insert(&mut self, pr: &Problem, j: usize, pos: usize, k: usize) {
        self.tasks.insert(pos, k);
        self.recompute(pr, j);
    }

    fn remove(&mut self, pr: &Problem, j: usize, pos: usize) -> usize {
        let k = self.tasks.remove(pos);
        self.recompute(pr, j);
        k
    }
}

/// The state of the search: machine sequences and where each task is.
#[derive(Clone)]
struct State<'a> {
    pr: &'a Problem,
    seqs: Vec<Seq>,
    /// Machine of each task, `usize::MAX` when not scheduled.
    at: Vec<usize>,
    count: usize,
    steps: u64,
    /// A stamp per machine, new at every change of its sequence.
    stamp: Vec<u64>,
    /// `failed[u * m + j]`: machine `j`'s stamp when task `u` last failed to enter it, by
    /// insertion or by ejecting one task (0: never tried). Tried again only after a change.
    failed: Vec<u64>,
    /// The last stamp given out (never reused, also when a state is restored).
    last_stamp: u64,
}

impl<'a> State<'a> {
    fn new(pr: &'a Problem) -> Self {
        State {
            pr,
            seqs: vec![Seq::empty(); pr.m],
            at: vec![usize::MAX; pr.n()],
            count: 0,
            steps: 0,
            stamp: vec![1; pr.m],
            failed: vec![0; pr.n() * pr.m],
            last_stamp: 1,
        }
    }

    fn load(&self) -> Tick {
        self.seqs.iter().map(|s| s.load).sum()
    }

    /// Marks machine `j` changed.
    fn touch(&mut self, j: usize) {
        self.last_stamp += 1;
        self.stamp[j] = self.last_stamp;
    }

    fn known_to_fail(&self, u: usize, j: usize) -> bool {
        self.failed[u * self.pr.m + j] == self.stamp[j]
    }

    fn insert(&mut self, j: usize, pos: usize, k: usize) {
        self.seqs[j].insert(self.pr, j, pos, k);
        self.at[k] = j;
        self.touch(j);
    }

    /// Inserts `k` on the first machine of `machines` where it fits.
    fn try_insert(&mut self, k: usize, machines: &[usize]) -> bool {
        for &j in machines {
            if self.known_to_fail(k, j) {
                continue;
            }
            if let Some((pos, _)) = self.seqs[j].insertion(self.pr, j, k, &mut self.steps) {
                self.insert(j, pos, k);
                self.count += 1;
                return true;
            }
        }
        false
    }

    fn placements(&self) -> Vec<Placement> {
        let mut out = Vec::with_capacity(self.count);
        for (j, s) in self.seqs.iter().enumerate() {
            for (i, &k) in s.tasks.iter().enumerate() {
                out.push(Placement {
                    machine: j,
                    start: s.done[i] - self.pr.p(k, j),
                    task: self.pr.ids[k],
                });
            }
        }
        out
    }
}

/// Machines where task `k` can be on time, shortest first.
fn machine_order(pr: &Problem, k: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..pr.m).filter(|&j| pr.ok(k, j)).collect();
    v.sort_by_key(|&j| (pr.p(k, j), j));
    v
}

/// The width of the windows of time that ruin and recreate empties, in ticks.
const RUIN_WIDTH: Tick = 200;

/// How to search for a good schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LowerOptions {
    /// The search stops after this many elementary steps (slots tested, completions and
    /// ready ticks recomputed): a deterministic budget, the same on every machine.
    pub max_steps: u64,
    /// Ruin-and-recreate sweeps in a row without one more task on time before the search
    /// stops (0: the local search alone).
    pub patience: usize,
}

impl Default for LowerOptions {
    /// 3 x 10^6 steps (more than most trials need; the cost is in `docs/bound.md`),
    /// patience 2.
    fn default() -> Self {
        LowerOptions {
            max_steps: 3_000_000,
            patience: 2,
        }
    }
}

impl LowerOptions {
    /// The options with another budget.
    pub fn with_max_steps(self, max_steps: u64) -> Self {
        LowerOptions { max_steps, ..self }
    }

    /// The options with another patience.
    pub fn with_patience(self, patience: usize) -> Self {
        LowerOptions { patience, ..self }
    }
}

/// The best schedule found.
#[derive(Debug, Clone, PartialEq)]
pub struct LowerBound {
    /// Number of counted tasks.
    pub counted: usize,
    /// Counted tasks on time in [`LowerBound::schedule`]: achievable, so at most the optimum.
    pub on_time: usize,
    /// `100 * on_time / counted` (0 when nothing is counted).
    pub robustness: f64,
    /// On-time count of the construction the search started from.
    pub constructed: usize,
    /// Elementary steps spent.
    pub steps: u64,
    /// The schedule: every placed task is counted and on time.
    pub schedule: Vec<Placement>,
}

/// A feasible schedule of the counted tasks of `inst` with as many on time as the search
/// finds, and so a lower bound on the clairvoyant optimum.
pub fn lower_bound(inst: &Instance, opts: &LowerOptions) -> Result<LowerBound, BoundError> {
    inst.validate()?;
    lower_bound_of(inst, &Problem::new(inst), opts)
}

/// [`lower_bound`] of a validated instance and its problem.
pub(crate) fn lower_bound_of(
    inst: &Instance,
    pr: &Problem,
    opts: &LowerOptions,
) -> Result<LowerBound, BoundError> {
    let n = pr.n();
    let machines: Vec<Vec<usize>> = (0..n).map(|k| machine_order(pr, k)).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| (pr.p(k, machines[k][0]), pr.d[k], k));
    let mut st = State::new(pr);
    for &k in &order {
        st.try_insert(k, &machines[k]);
    }
    let constructed = st.count;
    search(&mut st, &machines, &order, opts);
    perturb(&mut st, &machines, &order, opts);
    let counted = inst.n_counted();
    Ok(LowerBound {
        counted,
        on_time: st.count,
        robustness: if counted == 0 {
            0.0
        } else {
            100.0 * st.count as f64 / counted as f64
        },
        constructed,
        steps: st.steps,
        schedule: st.placements(),
    })
}

/// Local search over the tasks of `order` (in that order): a task not on time enters by
/// insertion, or by ejecting a task that is then placed elsewhere, or replaces a longer task
/// (the load shrinks); a task on time moves to a machine where it is shorter. Repeated until
/// no move applies or the budget is spent; every move raises the count or lowers the load.
fn search(st: &mut State, machines: &[Vec<usize>], order: &[usize], opts: &LowerOptions) {
    let pr = st.pr;
    loop {
        let before = (st.count, st.load());
        for &u in order {
            if st.steps > opts.max_steps {
                return;
            }
            if st.at[u] == usize::MAX && !st.try_insert(u, &machines[u]) {
                eject_insert(st, u, machines);
            }
        }
        for &r in order {
            let j1 = st.at[r];
            if j1 == usize::MAX || st.steps > opts.max_steps {
                continue;
            }
            for &j2 in &machines[r] {
                if pr.p(r, j2) >= pr.p(r, j1) {
                    break;
                }
                if let Some((pos, _)) = st.seqs[j2].insertion(pr, j2, r, &mut st.steps) {
                    let i = st.seqs[j1].position(r);
                    st.seqs[j1].remove(pr, j1, i);
                    st.touch(j1);
                    st.insert(j2, pos, r);
                    break;
                }
            }
        }
        let after = (st.count, st.load());
        if after.0 == before.0 && after.1 >= before.1 {
            return;
        }
    }
}

/// Tries to insert `u` on a machine by removing one task `r` there: when `r` then fits
/// elsewhere, both are placed (one more on time); when it does not but `u` is shorter, `u`
/// replaces `r` (the load shrinks). Only tasks `r` that run inside `u`'s window, or next to
/// one that does, are tried. Returns true on a change.
fn eject_insert(st: &mut State, u: usize, machines: &[Vec<usize>]) -> bool {
    let pr = st.pr;
    let mut replace: Option<(usize, usize, Tick)> = None;
    let mut scratch = (Vec::new(), Vec::new());
    for &j in &machines[u] {
        if st.known_to_fail(u, j) {
            continue;
        }
        let seq = &st.seqs[j];
        let len = seq.tasks.len();
        // Positions whose task runs inside [a_u, d_u], one more on each side.
        let first = seq
            .done
            .partition_point(|&c| c <= pr.a[u])
            .saturating_sub(1);
        let last = (seq.starting_before(pr, j, pr.d[u]) + 1).min(len);
        for r in first..last {
            let seq = &st.seqs[j];
            let Some((pos, _)) = seq.insertion_without(pr, j, r, u, &mut scratch, &mut st.steps)
            else {
                continue;
            };
            let rk = seq.tasks[r];
            // Can the ejected task go elsewhere (or elsewhere on j)?
            let saved = st.seqs[j].clone();
            st.seqs[j].tasks.remove(r);
            st.seqs[j].tasks.insert(pos, u);
            st.seqs[j].recompute(pr, j);
            for &j2 in &machines[rk] {
                if let Some((p2, _)) = st.seqs[j2].insertion(pr, j2, rk, &mut st.steps) {
                    st.at[u] = j;
                    st.touch(j);
                    st.insert(j2, p2, rk);
                    st.count += 1;
                    return true;
                }
            }
            st.seqs[j] = saved;
            let gain = pr.p(rk, j) - pr.p(u, j);
            if gain > 0 && replace.is_none_or(|(_, _, g)| gain > g) {
                replace = Some((j, r, gain));
            }
        }
        st.failed[u * pr.m + j] = st.stamp[j];
    }
    if let Some((j, r, _)) = replace {
        let (pos, _) = st.seqs[j]
            .insertion_without(pr, j, r, u, &mut scratch, &mut st.steps)
            .expect("checked above");
        let rk = st.seqs[j].tasks.remove(r);
        st.seqs[j].tasks.insert(pos, u);
        st.seqs[j].recompute(pr, j);
        st.touch(j);
        st.at[rk] = usize::MAX;
        st.at[u] = j;
        return true;
    }
    false
}

/// Ruin and recreate: for windows of [`RUIN_WIDTH`] ticks swept over the horizon (shifted
/// by half a window every other sweep), removes the tasks that start inside one, re-inserts
/// the tasks whose windows meet it (by deadline, or in the construction's order, every other
/// sweep), runs the local search on them, and keeps the result unless fewer tasks are on
/// time. Stops after `patience` sweeps in a row without one more on time, or on the budget.
/// A window that meets no task's interval is skipped (it would change nothing), so a sweep
/// costs the windows that meet a task, whatever the span of time between tasks.
fn perturb(st: &mut State, machines: &[Vec<usize>], order: &[usize], opts: &LowerOptions) {
    let pr = st.pr;
    let n = pr.n();
    let (Some(t0), Some(t1)) = (pr.a.iter().copied().min(), pr.d.iter().copied().max()) else {
        return;
    };
    let mut by_deadline: Vec<usize> = (0..n).collect();
    by_deadline.sort_by_key(|&k| (pr.d[k], k));
    // The windows that meet no task's [arrival, latest completion] change nothing (every
    // start lies in its task's interval): the sweep jumps over them, so its cost follows
    // the tasks, not the span of time. `arrivals` sorted, `reach[i]` the latest completion
    // among the tasks of the first `i + 1` arrivals.
    let mut by_arrival: Vec<usize> = (0..n).collect();
    by_arrival.sort_by_key(|&k| (pr.a[k], k));
    let arrivals: Vec<Tick> = by_arrival.iter().map(|&k| pr.a[k]).collect();
    let reach: Vec<Tick> = by_arrival
        .iter()
        .scan(Tick::MIN, |r, &k| {
            *r = (*r).max(pr.d[k]);
            Some(*r)
        })
        .collect();
    let mut sweep: usize = 0;
    let mut idle_sweeps = 0;
    while st.steps <= opts.max_steps && idle_sweeps < opts.patience {
        let start_count = st.count;
        let mut s = if sweep % 2 == 1 {
            t0 + RUIN_WIDTH / 2
        } else {
            t0
        };
        while s < t1 && st.steps <= opts.max_steps {
            let e = s.saturating_add(RUIN_WIDTH);
            // The tasks arriving before `e`; the window meets one when one of them is due
            // at or after `s`.
            let i = arrivals.partition_point(|&a| a < e);
            if i == 0 || reach[i - 1] < s {
                // No task meets this window: on to the first window that meets the next
                // arrival (none: the sweep is over).
                let Some(&next) = arrivals.get(i) else {
                    break;
                };
                s += (next - s) / RUIN_WIDTH * RUIN_WIDTH;
                continue;
            }
            let saved = st.clone();
            let before = (st.count, st.load());
            for j in 0..pr.m {
                let seq = &mut st.seqs[j];
                let mut keep = Vec::with_capacity(seq.tasks.len());
                for (i, &k) in seq.tasks.iter().enumerate() {
                    let start = seq.done[i] - pr.p(k, j);
                    if start >= s && start < e {
                        st.at[k] = usize::MAX;
                        st.count -= 1;
                    } else {
                        keep.push(k);
                    }
                }
                if keep.len() < seq.tasks.len() {
                    seq.tasks = keep;
                    seq.recompute(pr, j);
                    st.steps += seq.tasks.len() as u64;
                    st.touch(j);
                }
            }
            let list: Vec<usize> = if sweep % 2 == 0 {
                &by_deadline[..]
            } else {
                order
            }
            .iter()
            .copied()
            .filter(|&k| pr.d[k] >= s && pr.a[k] < e)
            .collect();
            for &k in &list {
                if st.at[k] == usize::MAX {
                    st.try_insert(k, &machines[k]);
                }
            }
            search(st, machines, &list, opts);
            if st.count < before.0 {
                let last = st.last_stamp;
                let steps = st.steps;
                *st = saved;
                st.last_stamp = last;
                st.steps = steps;
            }
            s = s.saturating_add(RUIN_WIDTH);
        }
        sweep += 1;
        if st.count > start_count {
            idle_sweeps = 0;
        } else {
            idle_sweeps += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use ndarray::Array2;
    use proptest::prelude::*;

    use super::*;

    /// One machine: tasks (arrival, deadline, time).
    fn one_machine(tasks: &[(Tick, Tick, Tick)]) -> Instance {
        let n = tasks.len();
        Instance::new(
            tasks.iter().map(|t| t.0).collect(),
            tasks.iter().map(|t| t.1).collect(),
            Array2::from_shape_fn((n, 1), |(k, _)| tasks[k].2),
            0..n,
        )
        .unwrap()
    }

    #[test]
    fn completions_and_ready_ticks_by_hand() {
        // Tasks (a, D, p): (0, 10, 3), (2, 9, 4), (12, 20, 2). In this order: completions
        // 3, 7, 14; latest completions d = 9, 8, 19; ready ticks (latest free tick before
        // each): ready[2] = 19 - 2 = 17, ready[1] = min(8, 17) - 4 = 4,
        // ready[0] = min(9, 4) - 3 = 1.
        let inst = one_machine(&[(0, 10, 3), (2, 9, 4), (12, 20, 2)]);
        let pr = Problem::new(&inst);
        let mut seq = Seq::empty();
        seq.tasks = vec![0, 1, 2];
        seq.recompute(&pr, 0);
        assert_eq!(seq.done, vec![3, 7, 14]);
        assert_eq!(seq.ready, vec![1, 4, 17, Tick::MAX]);
        assert_eq!(seq.load, 9);
        assert_eq!(seq.starting_before(&pr, 0, 3), 1);
        assert_eq!(seq.starting_before(&pr, 0, 4), 2);
    }

    #[test]
    fn insertion_by_hand() {
        // On the sequence 0, 1, 2 above, a task (a 7, D 12, p 3): before task 0 it would
        // complete at 10 > ready 1; between 1 and 2 at max(7, 7) + 3 = 10 <= 17 and <= 11.
        let inst = one_machine(&[(0, 10, 3), (2, 9, 4), (12, 20, 2), (7, 12, 3)]);
        let pr = Problem::new(&inst);
        let mut seq = Seq::empty();
        seq.tasks = vec![0, 1, 2];
        seq.recompute(&pr, 0);
        assert_eq!(seq.insertion(&pr, 0, 3, &mut 0), Some((2, 10)));
        // Without task 1 (r = 1), it completes at max(3, 7) + 3 = 10 in slot 1.
        let mut scratch = (Vec::new(), Vec::new());
        assert_eq!(
            seq.insertion_without(&pr, 0, 1, 3, &mut scratch, &mut 0),
            Some((1, 10))
        );
        // A task (a 6, D 10, p 3): in slot 1 it would complete at 9 > ready 4, in slot 2 at
        // 10, its deadline tick: late.
        let inst = one_machine(&[(0, 10, 3), (2, 9, 4), (12, 20, 2), (6, 10, 3)]);
        let pr = Problem::new(&inst);
        assert_eq!(seq.insertion(&pr, 0, 3, &mut 0), None);
    }

    fn seq_case() -> impl Strategy<Value = (Instance, Vec<usize>, usize)> {
        (2..14usize).prop_flat_map(|n| {
            (
                proptest::collection::vec((0..60i64, 1..40i64, 0..12i64), n),
                0..n,
            )
                .prop_map(move |(raw, k)| {
                    let inst = one_machine(
                        &raw.iter()
                            .map(|&(a, slack, p)| (a, a + p + slack, p))
                            .collect::<Vec<_>>(),
                    );
                    (inst, (0..n).collect(), k)
                })
        })
    }

    /// Builds a feasible sequence of the tasks other than `k` by inserting them greedily.
    fn build(pr: &Problem, order: &[usize], k: usize) -> Seq {
        let mut seq = Seq::empty();
        for &t in order {
            if t != k {
                if let Some((pos, _)) = seq.insertion_reference(pr, 0, t) {
                    seq.insert(pr, 0, pos, t);
                }
            }
        }
        seq
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The fast insertion equals trying every position.
        #[test]
        fn insertion_equals_the_reference((inst, order, k) in seq_case()) {
            let pr = Problem::new(&inst);
            prop_assume!(k < pr.n());
            let seq = build(&pr, &order[..pr.n()], k);
            prop_assert_eq!(seq.insertion(&pr, 0, k, &mut 0), seq.insertion_reference(&pr, 0, k));
        }

        /// Insertion after a removal equals removing, recomputing and trying every slot.
        #[test]
        fn insertion_without_equals_the_reference((inst, order, k) in seq_case()) {
            let pr = Problem::new(&inst);
            prop_assume!(k < pr.n());
            let seq = build(&pr, &order[..pr.n()], k);
            let mut scratch = (Vec::new(), Vec::new());
            for r in 0..seq.tasks.len() {
                prop_assert_eq!(
                    seq.insertion_without(&pr, 0, r, k, &mut scratch, &mut 0),
                    seq.insertion_without_reference(&pr, 0, r, k),
                    "r = {}", r
                );
            }
        }

        /// An insertion the test accepts keeps every task on time.
        #[test]
        fn an_accepted_insertion_keeps_the_sequence_on_time((inst, order, k) in seq_case()) {
            let pr = Problem::new(&inst);
            prop_assume!(k < pr.n());
            let mut seq = build(&pr, &order[..pr.n()], k);
            if let Some((pos, c)) = seq.insertion(&pr, 0, k, &mut 0) {
                seq.insert(&pr, 0, pos, k);
                prop_assert_eq!(seq.done[pos], c);
                for (i, &t) in seq.tasks.iter().enumerate() {
                    prop_assert!(seq.done[i] <= pr.d[t]);
                    prop_assert!(seq.done[i] - pr.p(t, 0) >= pr.a[t]);
                }
            }
        }
    }
}
