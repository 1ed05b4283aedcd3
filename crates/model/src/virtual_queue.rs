//! The virtual copy of the machine queues a batch heuristic plans on (thesis 3.3.1): after each
//! provisional assignment the chosen machine's tail changes, so only its candidates need
//! re-evaluating.

use std::cell::OnceCell;

use pmf::{Pmf, TailCdf, Tick, next_pct_in};

use crate::machine::Machine;
use crate::memo::ChanceMemo;
use crate::oracle::{Cache, Oracle, Stale};
use crate::task::{MachineId, TaskId};
use crate::view::View;

/// One machine in the virtual queues: read from the machine's cache (computed on first use)
/// until a provisional assignment changes its tail; from then on a copy of its own.
#[derive(Debug, Clone)]
pub struct VirtualMachine<'a> {
    /// Free slots left (`usize::MAX` when unbounded).
    pub free: usize,
    machine: &'a Machine,
    /// The machine's earlier PCTs, when its current ones were not computed at the start of
    /// the event (read once: the bound is used many times).
    stale: Option<Stale<'a>>,
    /// What [`VirtualQueues::bound_tail`] reads while the tail is unchanged: the exact tail
    /// when computed at the start of the event, else the earlier one with its factor.
    bound: Option<(&'a TailCdf, f64)>,
    /// The same, as the cache whose tail CDF is built on first read
    /// ([`VirtualQueues::from_view_lazy`]; `bound` is then `None`).
    lazy: Option<(&'a Cache, f64)>,
    /// [`VirtualQueues::tail_mean_bounds`] while the tail is unchanged, found once per event.
    mean_bounds: OnceCell<Option<(f64, f64)>>,
    /// Boxed: most machines never get one in an event, and a small `VirtualMachine` keeps
    /// the scans over many machines in cache.
    own: Option<Box<OwnTail>>,
}

/// A tail changed by the heuristic.
#[derive(Debug, Clone)]
struct OwnTail {
    /// `None` while the machine is idle and empty (its tail is `now`).
    pct: Option<Pmf>,
    /// Its CDF, built on first use (expectation-based heuristics read only the mean).
    cdf: OnceCell<TailCdf>,
    /// Its mean, kept on first use.
    mean: OnceCell<f64>,
    /// True while the tail is the machine's PCTs at this tick extended by
    /// [`VirtualQueues::assign`] only (no [`VirtualQueues::set_tail`]).
    on_machine: bool,
}

impl OwnTail {
    fn new(pct: Option<Pmf>, on_machine: bool) -> Self {
        OwnTail {
            pct,
            cdf: OnceCell::new(),
            mean: OnceCell::new(),
            on_machine,
        }
    }

    /// The tail CDF (`now` itself while idle and empty).
    fn cdf(&self, now: Tick) -> &TailCdf {
        self.cdf.get_or_init(|| match &self.pct {
            Some(p) => TailCdf::new(p),
            None => TailCdf::idle(now),
        })
    }

    /// `E[tail]`: the CDF's mean, or the same sum without building it ([`Pmf::mean`]).
    fn mean(&self, now: Tick) -> f64 {
        *self.mean.get_or_init(|| match self.cdf.get() {
            Some(c) => c.mean(),
            None => self.pct.as_ref().map_or(now as f64, Pmf::mean),
        })
    }

    /// The first tick of the tail's support.
    fn min(&self, now: Tick) -> Tick {
        self.pct.as_ref().map_or(now, Pmf::min)
    }
}

/// [`VirtualQueues::idle`] of a machine with a task, or one assigned a task in the event.
const NOT_IDLE: Tick = Tick::MIN;

/// The fewest machines for which [`VirtualQueues::idle`] is kept.
const IDLE_COLUMN_MIN: usize = 256;

/// The virtual queues of one mapping event.
#[derive(Debug, Clone)]
pub struct VirtualQueues<'a> {
    now: pmf::Tick,
    machines: Vec<VirtualMachine<'a>>,
    /// Machines with a free slot (kept so that [`VirtualQueues::any_free`] is O(1)).
    with_free: usize,
    /// Per machine, the tick of [`VirtualQueues::idle_at`], or [`NOT_IDLE`]: a dense column,
    /// read for every machine of a search with many machines (from [`IDLE_COLUMN_MIN`]
    /// machines; empty below, where `idle_at` reads the machine).
    idle: Vec<Tick>,
    /// What is derived from the machines' queues.
    oracle: &'a Oracle,
    /// Planning deeper than committing ([`VirtualQueues::plan_ahead`]).
    commit: Option<Commit>,
}

/// The tasks a plan that looks deeper than it commits may commit.
#[derive(Debug, Clone)]
struct Commit {
    /// Per machine, how many of its first assignments are committed.
    commit: Vec<usize>,
    /// Per machine, how many more may be.
    left: Vec<usize>,
    /// The machines that may commit another.
    open: usize,
}

impl<'a> VirtualQueues<'a> {
    /// The view's machines as they are (nothing is copied or computed but the tail CDFs of
    /// the machines' current or earlier PCTs, which [`VirtualQueues::bound_tail`] reads: on
    /// this hot path of the success-based heuristics, the CDF is then one read away).
    pub fn from_view(view: &View<'a>) -> Self {
        Self::new(view, false)
    }

    /// As [`VirtualQueues::from_view`], building no tail CDF until one is read: for the
    /// heuristics that read only expected tails ([`VirtualQueues::expected_completion`]).
    pub fn from_view_lazy(view: &View<'a>) -> Self {
        Self::new(view, true)
    }

    fn new(view: &View<'a>, lazy: bool) -> Self {
        let machines = view
            .machines
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let stale = view.stale(i);
                let bound = match (view.oracle.is_computed(i), &stale) {
                    (true, _) => Some((view.cache(i), 1.0)),
                    (false, Some(st)) => Some((st.cache, st.upper_factor())),
                    (false, None) => None,
                };
                let (bound, lazy) = match bound {
                    Some(b) if lazy => (None, Some(b)),
                    b => (b.map(|(c, f)| (c.tail(), f)), None),
                };
                VirtualMachine {
                    free: m.free_slots(),
                    machine: m,
                    stale,
                    bound,
                    lazy,
                    mean_bounds: OnceCell::new(),
                    own: None,
                }
            })
            .collect::<Vec<_>>();
        let with_free = machines.iter().filter(|m| m.free > 0).count();
        let idle = if view.machines.len() >= IDLE_COLUMN_MIN {
            let idle = |m: &Machine| if m.is_empty() { view.now } else { NOT_IDLE };
            view.machines.iter().map(idle).collect()
        } else {
            Vec::new()
        };
        VirtualQueues {
            now: view.now,
            machines,
            with_free,
            idle,
            oracle: view.oracle,
            commit: None,
        }
    }

    /// The machines.
    pub fn machines(&self) -> &[VirtualMachine<'a>] {
        &self.machines
    }

    /// Free slots of machine `m`.
    pub fn free(&self, m: MachineId) -> usize {
        self.machines[m].free
    }

    /// Caps every machine's free slots so that at most `depth` tasks (the executing one
    /// included) are in its queue: a heuristic that commits tasks no deeper than `depth`
    /// leaves the rest in the batch queue, to be placed later with what is known then. A
    /// machine already holding `depth` or more tasks gets no slot; a larger `depth` than
    /// the queue's limit changes nothing.
    pub fn limit_depth(&mut self, depth: usize) {
        for vm in &mut self.machines {
            let room = depth.saturating_sub(vm.machine.len());
            if room < vm.free {
                if vm.free > 0 && room == 0 {
                    self.with_free -= 1;
                }
                vm.free = room;
            }
        }
    }

    /// Plans deeper than it commits: the plan fills the queues to their limits, while only
    /// the first `commit[m]` tasks assigned to machine `m` are committed (at most its free
    /// slots; one entry per machine). The plan is open ([`VirtualQueues::any_free`]) while
    /// some machine has a free slot and some machine may still commit a task: the tasks
    /// planned after that would not be committed. Only a committed task's PCT is handed
    /// over to the oracle. What the caller keeps of the plan is, per machine, its first
    /// [`VirtualQueues::commits`] assignments.
    pub fn plan_ahead(&mut self, commit: Vec<usize>) {
        debug_assert_eq!(commit.len(), self.machines.len());
        let commit: Vec<usize> = commit
            .into_iter()
            .zip(&self.machines)
            .map(|(c, vm)| c.min(vm.free))
            .collect();
        let open = commit.iter().filter(|&&c| c > 0).count();
        self.commit = Some(Commit {
            left: commit.clone(),
            commit,
            open,
        });
    }

    /// How many of the tasks assigned to machine `m` are committed: every one, unless the
    /// queues plan ahead ([`VirtualQueues::plan_ahead`]).
    pub fn commits(&self, m: MachineId) -> usize {
        self.commit.as_ref().map_or(usize::MAX, |c| c.commit[m])
    }

    /// True when some machine has a free slot (and, planning ahead, some machine may still
    /// commit a task).
    pub fn any_free(&self) -> bool {
        self.with_free > 0 && self.commit.as_ref().is_none_or(|c| c.open > 0)
    }

    /// Machine `m`'s tail CDF (the machine's PCTs are computed if they were not yet).
    pub fn tail(&self, view: &View<'_>, m: MachineId) -> &TailCdf {
        let vm = &self.machines[m];
        match &vm.own {
            Some(o) => o.cdf(self.now),
            None => self
                .oracle
                .cache(m, vm.machine, view.tasks, view.pet, view.model)
                .tail(),
        }
    }

    /// Machine `m`'s expected tail `E[tail]`, the same value as `tail(view, m).mean()`
    /// without building the tail CDF (the machine's PCTs are computed if they were not yet).
    pub fn tail_mean(&self, view: &View<'_>, m: MachineId) -> f64 {
        let vm = &self.machines[m];
        match &vm.own {
            Some(o) => o.mean(self.now),
            None => self
                .oracle
                .cache(m, vm.machine, view.tasks, view.pet, view.model)
                .tail_mean(),
        }
    }

    /// `Some(tick)` when machine `m`'s queue is empty and nothing was assigned to it in this
    /// event: its tail is then the point mass at the machine's tick (the view's tick). Two such
    /// machines at the same tick with the same PET column ([`workload::Pet::canonical`])
    /// give every task the same chance and the same expected completion, bit for bit.
    /// Reads no PCT.
    #[inline]
    pub fn idle_at(&self, m: MachineId) -> Option<Tick> {
        match self.idle.get(m) {
            Some(&k) => (k != NOT_IDLE).then_some(k),
            None => {
                let vm = &self.machines[m];
                (vm.own.is_none() && vm.machine.is_empty()).then_some(self.now)
            }
        }
    }

    /// Machine `m`'s tail PCT (`None` while it is idle and empty).
    pub fn tail_pct(&self, view: &View<'_>, m: MachineId) -> Option<&Pmf> {
        let vm = &self.machines[m];
        match &vm.own {
            Some(o) => o.pct.as_ref(),
            None => self
                .oracle
                .cache(m, vm.machine, view.tasks, view.pet, view.model)
                .tail_pct(),
        }
    }

    /// A tail CDF and a factor `f` such that every success probability or CDF value at `now`
    /// is at most `f` times the one read from that CDF: the exact tail with `f = 1` when it
    /// was computed at the start of the event or changed since, else an earlier one of the
    /// same queue (`Oracle::stale`), which costs nothing to read (kept even once the
    /// exact one is computed: still a bound, and one branch less on this hot path). Computes
    /// the tail when neither exists.
    #[inline]
    pub fn bound_tail(&self, view: &View<'_>, m: MachineId) -> (&TailCdf, f64) {
        let vm = &self.machines[m];
        if let Some(o) = &vm.own {
            return (o.cdf(self.now), 1.0);
        }
        match vm.bound {
            Some(b) => b,
            None => match vm.lazy {
                Some((c, f)) => (c.tail(), f),
                None => (self.tail(view, m), 1.0),
            },
        }
    }

    /// A lower bound on machine `m`'s expected tail: exact when computed, else the earlier
    /// tail's when that bounds it (`Oracle::stale`); computes the tail otherwise.
    pub fn tail_mean_lower(&self, view: &View<'_>, m: MachineId) -> f64 {
        match self.usable_stale(m).map(|st| st.tail_mean_lower()) {
            Some(mean) => mean,
            None => self.tail_mean(view, m),
        }
    }

    /// Bounds `(lower, upper)` on machine `m`'s expected tail while its current PCTs are
    /// neither computed nor changed here: from its earlier PCTs (`Oracle::stale`), else
    /// from its executing task's PCT and first pending task (`Oracle::chain_mean_bounds`,
    /// no convolution); `None` when there are none (the tail is then known exactly or must
    /// be computed).
    pub fn tail_mean_bounds(&self, view: &View<'_>, m: MachineId) -> Option<(f64, f64)> {
        let vm = &self.machines[m];
        if vm.own.is_some() || self.oracle.is_computed(m) {
            return None;
        }
        *vm.mean_bounds.get_or_init(|| {
            let stale = vm
                .stale
                .as_ref()
                .map(|st| (st.tail_mean_lower(), st.tail_mean_upper()));
            // The chain-free bounds too, for a full machine whose earlier PCTs give no bounds
            // or loose ones (`pending`: no `E1 >= E0`). A free machine is worth computing: its
            // PCTs serve the events after this one too, through `Machine::stale`, and are
            // read if it is chosen.
            if vm.free > 0 || vm.stale.as_ref().is_some_and(|st| st.monotone) {
                return stale;
            }
            let chain = self
                .oracle
                .chain_mean_bounds(m, vm.machine, view.tasks, view.pet, view.model);
            match (stale, chain) {
                (Some((lo, up)), Some((lo2, up2))) => Some((lo.max(lo2), up.min(up2))),
                (stale, chain) => stale.or(chain),
            }
        })
    }

    /// The earlier PCTs of machine `m` while its tail is neither changed here nor computed.
    fn usable_stale(&self, m: MachineId) -> Option<&Stale<'a>> {
        let vm = &self.machines[m];
        if vm.own.is_some() || self.oracle.is_computed(m) {
            return None;
        }
        vm.stale.as_ref()
    }

    /// A lower bound on the first tick of machine `m`'s tail, without computing anything:
    /// the tail's own when known, an earlier tail's (whose support starts no later), or the
    /// tick itself (nothing completes before it).
    pub fn tail_min_lower(&self, m: MachineId) -> pmf::Tick {
        let vm = &self.machines[m];
        match (&vm.own, vm.bound, vm.lazy) {
            (Some(o), _, _) => o.min(self.now),
            (None, Some((tail, _)), _) => tail.min(),
            (None, None, Some((c, _))) => c.tail_min(),
            (None, None, None) => self.now,
        }
    }

    /// The [`crate::Cache::id`] of machine `m`'s earlier PCTs ([`Oracle::stale`]) and their
    /// factor `f`, while its tail is unchanged here: any success probability computed from
    /// that earlier tail before (in an earlier event, kept by its id), times `f`, bounds the
    /// current one from above, as [`VirtualQueues::bound_tail`]'s CDF values do.
    #[inline]
    fn stale_id(&self, m: MachineId) -> Option<(u64, f64)> {
        let vm = &self.machines[m];
        if vm.own.is_some() {
            return None;
        }
        vm.stale
            .as_ref()
            .map(|st| (st.cache.id(), st.upper_factor()))
    }

    /// [`crate::Cache::id`] of the machine's own PCTs while machine `m`'s tail is theirs (no
    /// provisional assignment or culling here) and they are computed: a value computed from
    /// that tail before, in any event, holds while the id is the same.
    #[inline]
    fn own_cache_id(&self, m: MachineId) -> Option<u64> {
        let vm = &self.machines[m];
        if vm.own.is_some() {
            return None;
        }
        self.oracle.cache_id(m)
    }

    /// Task `t`'s chance on machine `m` kept in `memo`, when it was computed on the PCTs
    /// machine `m`'s tail is now (its own, computed; no provisional assignment here): then
    /// it is [`VirtualQueues::success`]'s value, bit for bit.
    #[inline]
    pub fn kept_success(&self, memo: &ChanceMemo, t: TaskId, m: MachineId) -> Option<f64> {
        memo.get(t, m, self.own_cache_id(m)?)
    }

    /// Keeps task `t`'s chance `p` on machine `m` ([`VirtualQueues::success`]'s value) in
    /// `memo` with the identity of the PCTs it was computed on, while machine `m`'s tail is
    /// its own computed PCTs (else nothing is kept).
    #[inline]
    pub fn keep_success(&self, memo: &mut ChanceMemo, t: TaskId, m: MachineId, p: f64) {
        if let Some(id) = self.own_cache_id(m) {
            memo.put(t, m, id, p);
        }
    }

    /// An upper bound on task `t`'s current chance on machine `m` from `memo`: its chance
    /// on the machine's earlier PCTs of the unchanged queue (`Oracle::stale`), when kept
    /// from an earlier event, times their factor (as [`VirtualQueues::bound_tail`]'s values).
    #[inline]
    pub fn kept_success_bound(&self, memo: &ChanceMemo, t: TaskId, m: MachineId) -> Option<f64> {
        let (id, f) = self.stale_id(m)?;
        memo.get(t, m, id).map(|p| f * p)
    }

    /// The oracle's version of machine `m`'s PCTs (`Oracle::content_version`) while its
    /// tail is theirs (no provisional assignment or culling here), computed or not: every
    /// chance and expected completion read here for a task on machine `m` is the same
    /// whenever the version is.
    pub fn version(&self, m: MachineId) -> Option<u64> {
        if self.machines[m].own.is_some() {
            return None;
        }
        Some(self.oracle.content_version(m))
    }

    /// True when machine `m`'s tail is known exactly without computing anything.
    pub fn is_exact(&self, m: MachineId) -> bool {
        let vm = &self.machines[m];
        vm.own.is_some() || self.oracle.is_computed(m)
    }

    /// Success probability of appending `task` to machine `m` (paper eq. (1) via the fast
    /// query).
    pub fn success(&self, view: &View<'_>, m: MachineId, task: TaskId) -> f64 {
        let spec = view.task(task);
        self.tail(view, m)
            .append_success(view.pet.exec_pmf(spec.task_type, m), spec.deadline)
    }

    /// Expected completion time of appending `task` to machine `m`: `E[tail] + E[PET]`
    /// ([`TailCdf::append_expected_completion`], without building the tail CDF).
    pub fn expected_completion(&self, view: &View<'_>, m: MachineId, task: TaskId) -> f64 {
        let spec = view.task(task);
        self.tail_mean(view, m) + view.pet.mean(spec.task_type, m)
    }

    /// Variance of the completion time of appending `task` to machine `m` (independent sum).
    pub fn completion_variance(&self, view: &View<'_>, m: MachineId, task: TaskId) -> f64 {
        let spec = view.task(task);
        self.tail_pct(view, m).map_or(0.0, Pmf::variance) + view.pet.variance(spec.task_type, m)
    }

    /// Replaces machine `m`'s tail, e.g. after a heuristic culled tasks from its queue.
    pub fn set_tail(&mut self, m: MachineId, tail_pct: Option<Pmf>, free: usize) {
        if let Some(k) = self.idle.get_mut(m) {
            *k = NOT_IDLE;
        }
        let vm = &mut self.machines[m];
        if let Some(p) = vm
            .own
            .replace(Box::new(OwnTail::new(tail_pct, false)))
            .and_then(|o| o.pct)
        {
            self.oracle.give_back(p);
        }
        self.with_free = self.with_free + usize::from(free > 0) - usize::from(vm.free > 0);
        vm.free = free;
    }

    /// Provisionally appends `task` to machine `m`: its tail becomes the task's PCT under
    /// the view's dropping model, trimmed at the machine's PCT epsilon.
    pub fn assign(&mut self, view: &View<'_>, m: MachineId, task: TaskId) {
        let spec = view.task(task);
        let point;
        let prev = match self.tail_pct(view, m) {
            Some(p) => p,
            None => {
                point = Pmf::point(self.now);
                &point
            }
        };
        // Built in, and copied into, the oracle's spare buffers.
        let mut spare = self.oracle.spare();
        let mut pct = next_pct_in(
            prev,
            view.pet.exec_pmf(spec.task_type, m),
            spec.deadline,
            view.model,
            &mut spare,
        )
        .unwrap_or_else(|e| crate::oracle::too_wide(&e));
        pct.trim_tv(self.oracle.pct_epsilon());
        let vm = &self.machines[m];
        let on_machine = vm.own.as_ref().is_none_or(|o| o.on_machine);
        let committed = match &mut self.commit {
            None => true,
            Some(c) => match c.left[m] {
                0 => false,
                left => {
                    c.left[m] = left - 1;
                    c.open -= usize::from(left == 1);
                    true
                }
            },
        };
        // The same convolution the oracle would compute when the engine appends the task.
        let handover = (on_machine && committed).then(|| pct.clone_in(&mut spare));
        drop(spare);
        if let Some(copy) = handover {
            self.oracle.hand_over(m, task, copy);
        }
        if let Some(k) = self.idle.get_mut(m) {
            *k = NOT_IDLE;
        }
        let vm = &mut self.machines[m];
        match &mut vm.own {
            // The box is reused; the old tail's buffer goes back to the oracle.
            Some(o) => {
                let old = std::mem::replace(&mut **o, OwnTail::new(Some(pct), on_machine));
                if let Some(p) = old.pct {
                    self.oracle.give_back(p);
                }
            }
            None => vm.own = Some(Box::new(OwnTail::new(Some(pct), on_machine))),
        }
        if vm.free == 1 {
            self.with_free -= 1;
        }
        vm.free = vm.free.saturating_sub(1);
    }
}

/// The tails the heuristic changed give their buffers back to the oracle, for the PCTs it
/// computes next.
impl Drop for VirtualQueues<'_> {
    fn drop(&mut self) {
        for vm in &mut self.machines {
            if let Some(p) = vm.own.take().and_then(|o| o.pct) {
                self.oracle.give_back(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::TaskSpec;
    use ndarray::Array2;
    use pmf::DropModel;
    use workload::Pet;

    /// Planning ahead: machine 0 (empty) may commit one task and machine 1 (executing one)
    /// none, while both take tasks in the plan. Only the committed task's PCT is handed over,
    /// and the plan closes once no machine may commit another.
    #[test]
    fn a_plan_ahead_commits_only_the_first_tasks_and_closes() {
        let pet = Pet::new(
            Array2::from_shape_vec((1, 2), vec![Pmf::point(3), Pmf::point(5)]).unwrap(),
            vec!["t".into()],
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        let tasks: Vec<TaskSpec> = (0..5)
            .map(|id| TaskSpec {
                id,
                task_type: 0,
                arrival: 0,
                deadline: 1_000,
            })
            .collect();
        let mut machines = vec![Machine::new(0, Some(4)), Machine::new(1, Some(4))];
        machines[1].start(0, 0, 5);
        let mut oracle = Oracle::new(2);
        oracle.sync(&machines, 0);
        let batch = [1, 2, 3, 4];
        let view = View::new(0, &pet, &tasks, &batch, &machines, &oracle, DropModel::All);
        let mut vq = VirtualQueues::from_view(&view);
        vq.plan_ahead(vec![1, 0]);
        assert_eq!((vq.commits(0), vq.commits(1)), (1, 0));
        assert!(vq.any_free());
        // Machine 1 first: planned, not committed, so not handed over; the plan stays open.
        vq.assign(&view, 1, 1);
        assert!(!oracle.handed_over(1, 1));
        assert!(vq.any_free());
        // Machine 0's first task is committed and handed over; then no machine may commit.
        vq.assign(&view, 0, 2);
        assert!(oracle.handed_over(0, 2));
        assert!(!vq.any_free());
        // The queues still plan: machine 0's tail is past its committed task.
        assert_eq!(vq.free(0), 3);
        assert_eq!(vq.expected_completion(&view, 0, 3), 6.0);
        // Without planning ahead every assignment is committed.
        let plain = VirtualQueues::from_view(&view);
        assert_eq!(plain.commits(0), usize::MAX);
    }
}
