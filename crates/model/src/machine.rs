//! A machine: at most one executing task, a FCFS queue of pending tasks, and the cached
//! completion-time PMFs of everything in it.
//!
//! With a PCT epsilon `eps > 0` ([`Machine::with_pct_epsilon`], the experiment's
//! `[system] pct_epsilon`; default 0 = exact) every PCT the machine computes is trimmed by
//! [`Pmf::trim_tv`] right after it is computed, and whoever extends the machine's chain (the
//! virtual queues, the pruner's walk, MOC's culling) trims at the machine's
//! [`Machine::pct_epsilon`] too. The `k`-th PCT of the queue (the executing task counting
//! as one) is then within total variation `k * eps` of the exact one (the `pmf` crate's
//! `pct` docs), and so is every success probability read from it.

use std::cell::{Cell, OnceCell};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use pmf::{DropModel, Pmf, TailCdf, Tick, executing_pct, next_pct};
use workload::Pet;

use crate::task::{MachineId, TaskId, TaskSpec};

/// The task a machine is executing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Running {
    /// The task.
    pub task: TaskId,
    /// The tick it started.
    pub start: Tick,
    /// The tick its execution would end (start + actual execution time). Known to the
    /// simulator only: the PCTs the mapper sees never read it.
    pub end: Tick,
}

/// The kept `E[C1]` of [`Machine::chain_mean_bounds`].
#[derive(Debug, Clone, Copy)]
struct FirstMean {
    /// The first pending task it is computed for.
    task: TaskId,
    /// That task's data-ready tick.
    ready: Tick,
    /// The first tick of the executing PCT it is computed on.
    from: Tick,
    /// `E[C1]`.
    e1: f64,
}

/// One queue position as the mapper sees it.
#[derive(Debug, Clone)]
pub struct Slot {
    /// The task in this position.
    pub task: TaskId,
    /// Its completion-time PMF (the machine's free time after its slot) under the scenario's
    /// dropping model; for the executing task, conditioned on not having ended by `now`.
    pub pct: Pmf,
    /// The task's deadline.
    deadline: Tick,
    /// [`Slot::success`], on first read: only the pruner, MOC's culling and the bounds on a
    /// stale cache read it, and the sum is a chain of dependent additions over the PCT.
    success: OnceCell<f64>,
}

impl Slot {
    fn new(task: TaskId, pct: Pmf, deadline: Tick) -> Self {
        Slot {
            task,
            pct,
            deadline,
            success: OnceCell::new(),
        }
    }

    /// P(the task completes before its deadline), paper eq. (1): `P(C < d)` of its PCT,
    /// computed on first read and kept.
    #[inline]
    pub fn success(&self) -> f64 {
        *self
            .success
            .get_or_init(|| self.pct.prob_before(self.deadline))
    }
}

/// Slots are equal when their task, PCT and deadline are: whether the chance has been read
/// yet does not count.
impl PartialEq for Slot {
    fn eq(&self, other: &Self) -> bool {
        self.task == other.task && self.deadline == other.deadline && self.pct == other.pct
    }
}

/// A machine and its local queue.
#[derive(Debug, Clone)]
pub struct Machine {
    id: MachineId,
    /// Size limit of the queue, counting the executing task; `None` = unbounded.
    limit: Option<usize>,
    running: Option<Running>,
    pending: VecDeque<TaskId>,
    /// Data-ready tick of each pending task (JPDC-2016 staging), parallel to `pending`;
    /// `Tick::MIN` = no staging.
    ready: VecDeque<Tick>,
    /// One slot beyond the limit, granted by an early mapping event (JPDC-2016 eq. 5) for the
    /// slot expected to free soon; given back when a task leaves the machine.
    reserved: usize,
    // --- cache of PCTs ---
    /// The tick the machine is at ([`Machine::advance`]).
    now: Tick,
    /// The PCTs at `now`, computed on first use ([`Machine::cache`]).
    current: OnceCell<Cache>,
    /// The last cache computed for this same queue at an earlier tick, kept while `current`
    /// is empty: its values bound the current ones ([`Machine::stale`]).
    last: Option<Cache>,
    /// The executing task's `E[C]` ([`Machine::executing_mean`]) with the first tick of
    /// the support it was computed on: it holds at every tick before that one (the
    /// conditioning removes nothing), until the queue changes.
    exec_mean: Cell<Option<(Tick, f64)>>,
    /// `E[C1]` of [`Machine::chain_mean_bounds`] with the first pending task and its
    /// data-ready tick it was computed for, and the first tick of the executing PCT it was
    /// computed on: it holds, like `exec_mean`, at every tick before that one.
    first_mean: Cell<Option<FirstMean>>,
    /// Number of PCT recomputations (a performance counter).
    recomputations: Cell<u64>,
    /// Every PCT is trimmed within this total-variation distance ([`Pmf::trim_tv`]); 0 =
    /// exact.
    pct_epsilon: f64,
}

impl Machine {
    /// An idle machine with an empty queue.
    pub fn new(id: MachineId, limit: Option<usize>) -> Self {
        Machine {
            id,
            limit,
            running: None,
            pending: VecDeque::new(),
            ready: VecDeque::new(),
            reserved: 0,
            now: Tick::MIN,
            current: OnceCell::new(),
            last: None,
            exec_mean: Cell::new(None),
            first_mean: Cell::new(None),
            recomputations: Cell::new(0),
            pct_epsilon: 0.0,
        }
    }

    /// The same machine with its PCTs trimmed at `eps` ([`Pmf::trim_tv`]; 0 = exact, the
    /// default). Approximate: see the module docs for the error bound.
    pub fn with_pct_epsilon(mut self, eps: f64) -> Self {
        self.pct_epsilon = eps;
        self.changed();
        self
    }

    /// The total-variation distance each PCT of this machine is trimmed within (0 = exact).
    /// Code that extends the machine's PCT chain trims its PCTs at this value too.
    pub fn pct_epsilon(&self) -> f64 {
        self.pct_epsilon
    }

    /// The machine's index.
    pub fn id(&self) -> MachineId {
        self.id
    }

    /// The queue-size limit, counting the executing task.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// The executing task.
    pub fn running(&self) -> Option<Running> {
        self.running
    }

    /// Pending tasks in FCFS order.
    pub fn pending(&self) -> &VecDeque<TaskId> {
        &self.pending
    }

    /// Tasks in the queue, the executing one included.
    pub fn len(&self) -> usize {
        self.pending.len() + usize::from(self.running.is_some())
    }

    /// True when nothing is executing or pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The limit plus a reserved slot, if one was granted ([`Machine::reserve_slot`]).
    pub fn capacity(&self) -> Option<usize> {
        self.limit.map(|l| l + self.reserved)
    }

    /// True while a slot beyond the limit is reserved.
    pub fn has_reserved_slot(&self) -> bool {
        self.reserved > 0
    }

    /// Grants one slot beyond the limit (an early mapping event, JPDC-2016 section 5) until
    /// a task leaves the machine ([`Machine::release_reserved_slot`]).
    pub fn reserve_slot(&mut self) {
        self.reserved = 1;
    }

    /// Gives the reserved slot back: a task left, so the slot it was reserved for is free.
    pub fn release_reserved_slot(&mut self) {
        self.reserved = 0;
    }

    /// Free slots (`usize::MAX` when unbounded).
    pub fn free_slots(&self) -> usize {
        match self.capacity() {
            Some(l) => l.saturating_sub(self.len()),
            None => usize::MAX,
        }
    }

    /// True when the machine is executing nothing.
    pub fn is_idle(&self) -> bool {
        self.running.is_none()
    }

    /// All task ids in queue order, executing first.
    pub fn tasks(&self) -> impl Iterator<Item = TaskId> + '_ {
        self.running
            .iter()
            .map(|r| r.task)
            .chain(self.pending.iter().copied())
    }

    /// How many times the PCTs were recomputed.
    pub fn recomputations(&self) -> u64 {
        self.recomputations.get()
    }

    /// Appends a task to the tail of the queue. The caller checks the limit.
    pub fn push(&mut self, task: TaskId) {
        self.push_staged(task, Tick::MIN);
    }

    /// Appends a task whose input data are ready at tick `ready` (JPDC-2016 staging): it
    /// cannot start before, and its PCT starts from max(previous PCT, `ready`).
    pub fn push_staged(&mut self, task: TaskId, ready: Tick) {
        self.pending.push_back(task);
        self.ready.push_back(ready);
        self.changed();
    }

    /// Appends a task (data ready at `ready`, `Tick::MIN` without staging) and, when the
    /// PCTs at the machine's tick are computed, extends them by the new slot instead of
    /// dropping them: the same computation, in the same order, that computing the whole
    /// queue would do, so the same values, for one convolution instead of a chain.
    pub fn append(
        &mut self,
        task: TaskId,
        ready: Tick,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) {
        self.append_computed(task, ready, None, tasks, pet, model);
    }

    /// As [`Machine::append`], with the new slot's PCT already computed by the caller on this
    /// machine's PCTs at its tick (a batch heuristic's virtual queues hand theirs over in
    /// [`crate::Decision::pcts`]). `pct` must be what [`Machine::append`] would compute: the
    /// tail's `next_pct` with the task's PET, deadline and `model`, trimmed at the machine's
    /// epsilon (checked in debug builds). It is used when it applies (the PCTs at the tick
    /// are computed, the task's data are ready); otherwise the slot is computed.
    pub fn append_computed(
        &mut self,
        task: TaskId,
        ready: Tick,
        pct: Option<Pmf>,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) {
        let Some(mut cache) = self.current.take() else {
            self.push_staged(task, ready);
            return;
        };
        self.push_staged(task, ready);
        let (now, id, eps) = (self.now, self.id, self.pct_epsilon);
        let compute = |cache: &Cache| {
            pending_slot(
                cache.slots.last(),
                task,
                ready,
                now,
                id,
                tasks,
                pet,
                model,
                eps,
            )
        };
        let slot = match pct.filter(|_| ready <= now) {
            Some(pct) => {
                debug_assert_eq!(
                    pct,
                    compute(&cache).pct,
                    "a handed-over PCT differs from the one the machine computes"
                );
                Slot::new(task, pct, tasks[task].deadline)
            }
            None => compute(&cache),
        };
        // The tail moved: its CDF, mean and variance are built again on first use, and it
        // is another content.
        cache.tail.take();
        cache.mean.take();
        cache.variance.take();
        cache.id = next_cache_id();
        cache.slots.push(slot);
        let _ = self.current.set(cache);
    }

    /// Data-ready ticks of the pending tasks, in queue order (`Tick::MIN` = no staging).
    pub fn pending_ready(&self) -> &VecDeque<Tick> {
        &self.ready
    }

    /// The data-ready tick of the head of the pending queue.
    pub fn head_ready(&self) -> Option<Tick> {
        self.ready.front().copied()
    }

    /// Starts the head of the queue at `now`, with its actual execution time.
    pub fn start(&mut self, now: Tick, task: TaskId, exec_time: Tick) {
        debug_assert!(self.running.is_none());
        self.running = Some(Running {
            task,
            start: now,
            end: now + exec_time,
        });
        self.changed();
    }

    /// Pops the head of the pending queue.
    pub fn pop_pending(&mut self) -> Option<TaskId> {
        let t = self.pending.pop_front();
        self.ready.pop_front();
        if t.is_some() {
            self.changed();
        }
        t
    }

    /// Ends the executing task (completed or dropped) and returns it.
    pub fn finish_running(&mut self) -> Option<Running> {
        let r = self.running.take();
        if r.is_some() {
            self.reserved = 0;
            self.changed();
        }
        r
    }

    /// Removes a pending task wherever it is; returns whether it was there.
    pub fn remove_pending(&mut self, task: TaskId) -> bool {
        if let Some(pos) = self.pending.iter().position(|&t| t == task) {
            self.pending.remove(pos);
            self.ready.remove(pos);
            self.reserved = 0;
            self.changed();
            true
        } else {
            false
        }
    }

    /// Marks the cache stale (after an outside change).
    pub fn invalidate(&mut self) {
        self.changed();
    }

    /// The queue changed: neither cache describes it any more.
    fn changed(&mut self) {
        self.current.take();
        self.last = None;
        self.exec_mean.set(None);
        self.first_mean.set(None);
    }

    /// Moves the machine to tick `now` (the engine calls this at every mapping event, before
    /// anything reads the cache). Nothing is computed here: the PCTs are computed when first
    /// read ([`Machine::cache`]). A cache whose executing PCT has no mass at or before `now`
    /// stays as it is (conditioning on the task not having ended changes nothing); any other
    /// one is kept aside, for bounds, until the queue changes ([`Machine::stale`]). With a
    /// PCT epsilon, an executing PCT whose trimmed lower tail covered `now` is kept too: it
    /// is still within total variation `eps` of the exact conditioned PCT at `now` (the
    /// conditioning removes only mass that the trimming had moved up), so the `k * eps`
    /// bound still holds.
    pub fn advance(&mut self, now: Tick) {
        if now == self.now {
            return;
        }
        self.now = now;
        if self.running.is_none() {
            // An idle machine's tail is `now` itself.
            self.current.take();
            self.last = None;
            return;
        }
        if let Some(c) = self.current.take() {
            self.last = Some(c);
        }
        // A kept-aside cache whose executing PCT lies wholly after `now` is the exact one.
        if self
            .last
            .as_ref()
            .is_some_and(|c| c.slots.first().is_some_and(|s| s.pct.min() > now))
        {
            if let Some(c) = self.last.take() {
                let _ = self.current.set(c);
            }
        }
    }

    /// The tick the machine is at.
    pub fn now(&self) -> Tick {
        self.now
    }

    /// Moves to `now` and computes the PCTs at once (the eager form of [`Machine::advance`]
    /// followed by [`Machine::cache`]).
    pub fn refresh(&mut self, now: Tick, tasks: &[TaskSpec], pet: &Pet, model: DropModel) {
        self.advance(now);
        let _ = self.cache(tasks, pet, model);
    }

    /// The PCTs of every queued task at the machine's tick, computed on first use and kept
    /// until the machine moves on or its queue changes. The values are the same whenever
    /// they are computed: every input is fixed for the tick.
    pub fn cache(&self, tasks: &[TaskSpec], pet: &Pet, model: DropModel) -> &Cache {
        self.current.get_or_init(|| self.compute(tasks, pet, model))
    }

    /// `E[C]` of the executing task at the machine's tick (the mean of slot 0 of
    /// [`Machine::cache`], the same value), without computing the rest of the queue when the
    /// PCTs are not computed yet: one conditioning of the executing task's PMF instead of a
    /// chain. `None` when the machine is idle.
    pub fn executing_mean(&self, tasks: &[TaskSpec], pet: &Pet, model: DropModel) -> Option<f64> {
        let r = self.running?;
        // Computed at an earlier tick on a support that still lies wholly after this one:
        // the PCT is the same (as in `advance`).
        if let Some((min, mean)) = self.exec_mean.get() {
            if min > self.now {
                return Some(mean);
            }
        }
        let (min, mean) = match self.current.get().and_then(|c| c.slots.first()) {
            Some(s) => (s.pct.min(), s.pct.mean()),
            None => {
                let spec = &tasks[r.task];
                let pet_pmf = pet.pmf(spec.task_type, self.id);
                let mut pct = executing_pct(pet_pmf, r.start, self.now, spec.deadline, model);
                pct.trim_tv(self.pct_epsilon);
                (pct.min(), pct.mean())
            }
        };
        self.exec_mean.set(Some((min, mean)));
        Some(mean)
    }

    /// Bounds `(lower, upper)` on the expected tail `E[tail]` of this queue at the machine's
    /// tick as [`Machine::cache`] computes it, from the executing task's PCT alone: no
    /// convolution. `None` for a queue of fewer than two tasks (the tail is then the
    /// executing PCT itself or the tick), of more than `MEAN_BOUNDS_MAX_PENDING` pending
    /// tasks (1: the bounds are exact but for rounding with one, looser with each one more),
    /// or with a PCT epsilon (trimming moves means by more than rounding).
    ///
    /// With `S = max(C0, ready)` the first pending task's start (`C0` the executing task's
    /// completion) and `E` its execution time, the first pending task ends at `S + E`
    /// (nothing dropped), at `S` when `S` is at or after its deadline `d` and else at
    /// `S + E` (`pending`) or `min(S + E, d)` (`all`). So `E[C1] = E[S] + sum_{s < d}
    /// P(S = s) E[min(E, d - s)]` under `all` ([`Pmf::expected_min`]), `E[S] + P(S < d)
    /// E[E]` under `pending` and `E[S] + E[E]` under `none`: one pass over `C0`. Every
    /// later task ends no earlier than its predecessor and at most `E[E_k]` plus its data's
    /// wait after `now` later, so `E[C1] <= E[tail] <= E[C1] + sum_k (E[E_k] + max(0,
    /// ready_k - now))`. Widened by `1e-11` relative against rounding (the PCTs' own
    /// rounding is far below it).
    pub fn chain_mean_bounds(
        &self,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) -> Option<(f64, f64)> {
        let r = self.running?;
        let (&t1, &r1) = self.pending.front().zip(self.ready.front())?;
        if self.pct_epsilon > 0.0 || self.pending.len() > MEAN_BOUNDS_MAX_PENDING {
            return None;
        }
        let e1 = match self.first_mean.get() {
            Some(f) if f.task == t1 && f.ready == r1 && f.from > self.now => f.e1,
            _ => {
                let (from, e1) = self.first_mean_at_tick(tasks, pet, model, r, t1, r1);
                self.first_mean.set(Some(FirstMean {
                    task: t1,
                    ready: r1,
                    from,
                    e1,
                }));
                e1
            }
        };
        let later: f64 = self
            .pending
            .iter()
            .zip(&self.ready)
            .skip(1)
            .map(|(&t, &ready)| {
                let wait = if ready > self.now {
                    (ready - self.now) as f64
                } else {
                    0.0
                };
                pet.mean(tasks[t].task_type, self.id) + wait
            })
            .sum();
        let slack = 1e-11 * e1.abs().max(1.0);
        Some((e1 - slack, e1 + later + slack))
    }

    /// `E[C1]` of [`Machine::chain_mean_bounds`] at the machine's tick, with the first tick
    /// of the executing PCT it is computed on: one pass over that PCT.
    fn first_mean_at_tick(
        &self,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
        r: Running,
        t1: TaskId,
        r1: Tick,
    ) -> (Tick, f64) {
        let spec = &tasks[r.task];
        let c0 = executing_pct(
            pet.pmf(spec.task_type, self.id),
            r.start,
            self.now,
            spec.deadline,
            model,
        );
        let spec1 = &tasks[t1];
        let (pet1, d1) = (pet.pmf(spec1.task_type, self.id), spec1.deadline);
        let mu1 = pet.mean(spec1.task_type, self.id);
        let mut e1 = 0.0;
        for (s, &p) in (c0.min()..).zip(c0.masses()) {
            if p == 0.0 {
                continue;
            }
            let s = s.max(r1);
            let run = match model {
                DropModel::None => mu1,
                _ if s >= d1 => 0.0,
                DropModel::Pending => mu1,
                DropModel::All => pet1.expected_min(d1 - s),
            };
            e1 += p * (s as f64 + run);
        }
        (c0.min(), e1)
    }

    /// [`Cache::id`] of the PCTs at the machine's tick, when they are computed.
    pub fn cache_id(&self) -> Option<u64> {
        self.current.get().map(|c| c.id)
    }

    /// True when the PCTs at the machine's tick are computed.
    pub fn is_computed(&self) -> bool {
        self.current.get().is_some()
    }

    /// An earlier cache of the same queue, with the factor that turns its values into bounds
    /// on the current ones, when the current PCTs are not computed yet. `None` when they
    /// are, or when no such bound holds (the queue changed, the machine is idle, or, when
    /// executing tasks are dropped, the executing task's deadline has come).
    ///
    /// Why it bounds: every PCT in the queue is a positive linear image of the executing
    /// task's unconditioned completion-time measure restricted to after the tick (each later
    /// task maps a start time to a completion time, dropping included), divided by that
    /// measure's mass `Z(t)`. From tick `t0` to `t1 > t0` the restricted measure only loses
    /// mass, so, with `r = Z(t0) / Z(t1) >= 1`, every CDF value and every success
    /// probability `s` obeys `s1 <= r * s0` and `1 - s1 <= r * (1 - s0)`. When nothing or
    /// everything may be dropped, a later start never gives an earlier completion, so
    /// `s1 <= s0`, `F1 <= F0` and `E1 >= E0` too ([`Stale`]).
    ///
    /// With a PCT epsilon ([`Machine::pct_epsilon`]) the PCTs are not exactly linear images
    /// any more: these relations hold between the *exact* values, and each trimmed value of
    /// slot `k` is within `k * eps` of its exact one, at both ticks. So a bound read from a
    /// trimmed earlier cache holds for the trimmed current value up to a slack of about
    /// `(1 + r) k eps` (success probabilities and CDF values; `k eps` times the PCTs' width
    /// for expected values): decisions taken on bounds are those of success probabilities
    /// within about `2 k eps` of the exact ones, not necessarily those of computing the
    /// trimmed PCTs.
    pub fn stale(&self, tasks: &[TaskSpec], pet: &Pet, model: DropModel) -> Option<Stale<'_>> {
        if self.current.get().is_some() {
            return None;
        }
        let (c, r) = (self.last.as_ref()?, self.running?);
        let spec = &tasks[r.task];
        if model == DropModel::All && spec.deadline <= self.now {
            return None;
        }
        let z1 = survival(pet.pmf(spec.task_type, self.id), r.start, self.now);
        if !(z1 >= MIN_SURVIVAL && c.z.is_finite() && c.z > 0.0) {
            return None;
        }
        // A hair above the ratio, against rounding in the two sums.
        let ratio = (c.z / z1).max(1.0) * (1.0 + 1e-12);
        Some(Stale {
            cache: c,
            ratio,
            monotone: model != DropModel::Pending,
        })
    }

    fn compute(&self, tasks: &[TaskSpec], pet: &Pet, model: DropModel) -> Cache {
        let now = self.now;
        self.recomputations.set(self.recomputations.get() + 1);
        let mut slots: Vec<Slot> = Vec::with_capacity(self.len());
        let mut z = 1.0;
        if let Some(r) = self.running {
            let spec = &tasks[r.task];
            let pet_pmf = pet.pmf(spec.task_type, self.id);
            z = survival(pet_pmf, r.start, now);
            let mut pct = executing_pct(pet_pmf, r.start, now, spec.deadline, model);
            pct.trim_tv(self.pct_epsilon);
            slots.push(Slot::new(r.task, pct, spec.deadline));
        }
        for (&t, &ready) in self.pending.iter().zip(&self.ready) {
            let slot = pending_slot(
                slots.last(),
                t,
                ready,
                now,
                self.id,
                tasks,
                pet,
                model,
                self.pct_epsilon,
            );
            slots.push(slot);
        }
        Cache {
            id: next_cache_id(),
            slots,
            tail: OnceCell::new(),
            mean: OnceCell::new(),
            variance: OnceCell::new(),
            at: now,
            z,
        }
    }
}

/// The slot of pending task `t` (data ready at `ready`) queued behind `prev` (`None`: first
/// in an idle machine's queue), at tick `now`, its PCT trimmed at `eps`.
#[allow(clippy::too_many_arguments)]
fn pending_slot(
    prev: Option<&Slot>,
    t: TaskId,
    ready: Tick,
    now: Tick,
    machine: MachineId,
    tasks: &[TaskSpec],
    pet: &Pet,
    model: DropModel,
    eps: f64,
) -> Slot {
    let spec = &tasks[t];
    let pet_pmf = pet.pmf(spec.task_type, machine);
    // --- staging (JPDC-2016): the task starts no earlier than its data-ready tick ---
    // (data ready by `now` change nothing: every PCT here lies after `now`)
    let staged = (ready > now).then(|| match prev {
        Some(prev) => prev.pct.at_least(ready),
        None => Pmf::point(now).at_least(ready),
    });
    // --- end staging ---
    // Each PCT builds on the previous slot's (no copy), or on `now` for an idle head.
    let pct = match (&staged, prev) {
        (Some(free), _) => next_pct(free, pet_pmf, spec.deadline, model),
        (None, Some(prev)) => next_pct(&prev.pct, pet_pmf, spec.deadline, model),
        (None, None) => next_pct(&Pmf::point(now), pet_pmf, spec.deadline, model),
    };
    let mut pct = pct.unwrap_or_else(|e| too_wide(&e));
    pct.trim_tv(eps);
    Slot::new(t, pct, spec.deadline)
}

/// A PCT too wide to hold ([`next_pct`]'s error): a PET whose shortest execution time lies
/// more than `pmf::prec::MAX_SPAN` ticks beyond the spread of the PCT ahead of it, under
/// `DropModel::Pending`.
#[cold]
pub(crate) fn too_wide(e: &pmf::PmfError) -> ! {
    panic!("a completion-time PMF too wide to hold: {e} (PET times beyond 2^26 ticks)")
}

/// [`Machine::chain_mean_bounds`] answers only for queues with at most this many pending
/// tasks: its bounds are exact but for rounding with one, and looser with each one more
/// (callgrind, MM at 34k with queue size 6: 170 M -> 184 M instructions with no limit; the
/// JPDC-2016 configurations, queue size 2: -29%).
const MEAN_BOUNDS_MAX_PENDING: usize = 1;

/// Below this survival probability of the executing task, [`Machine::stale`] gives no
/// bound (its ratio would amplify rounding).
const MIN_SURVIVAL: f64 = 1e-6;

/// `Z(now) = P(start + E > now)`, the unconditioned mass of the executing task's completion
/// after `now`, from the PET's cached cumulative sums (O(1)).
fn survival(pet: &Pmf, start: Tick, now: Tick) -> f64 {
    let total = pet.mass_below_bin(pet.len());
    let k = (now + 1 - start - pet.offset()).max(0);
    let k = usize::try_from(k).unwrap_or(usize::MAX);
    (total - pet.mass_below_bin(k)).max(0.0)
}

/// The identity of the next [`Cache`] content: unique in the process, so that an id read
/// from any machine, trial or simulation names one content (it never decides a result: it
/// is only compared for equality).
static NEXT_CACHE_ID: AtomicU64 = AtomicU64::new(0);

fn next_cache_id() -> u64 {
    NEXT_CACHE_ID.fetch_add(1, Ordering::Relaxed)
}

/// The PCTs of one machine queue at one tick.
#[derive(Debug, Clone)]
pub struct Cache {
    /// Names this content ([`Cache::id`]).
    id: u64,
    slots: Vec<Slot>,
    /// The tail CDF, built on first use ([`Cache::tail`]): the expectation-based
    /// heuristics read only the tail's mean.
    tail: OnceCell<TailCdf>,
    /// `E[tail]`, kept on first use ([`Cache::tail_mean`]).
    mean: OnceCell<f64>,
    /// `Var[tail]`, kept on first use ([`Cache::tail_variance`]).
    variance: OnceCell<f64>,
    /// The tick they were computed at.
    at: Tick,
    /// `Z(at)` of the executing task (see [`Machine::stale`]); 1 when idle.
    z: f64,
}

impl Cache {
    /// A token naming this content: two caches with the same id hold the same PCTs, so
    /// anything computed from one holds for the other (a cache carried over to a later tick
    /// by [`Machine::advance`] keeps its id; computing or appending gives a new one). Ids
    /// are unique in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The queue positions, executing first.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The tail CDF: when the machine is expected to be free for a new task (built on
    /// first use).
    #[inline]
    pub fn tail(&self) -> &TailCdf {
        self.tail.get_or_init(|| match self.slots.last() {
            Some(s) => TailCdf::new(&s.pct),
            None => TailCdf::idle(self.at),
        })
    }

    /// `E[tail]`, without building the CDF: the same value as `tail().mean()` (the same
    /// sum in the same order, [`Pmf::mean`]).
    #[inline]
    pub fn tail_mean(&self) -> f64 {
        *self.mean.get_or_init(|| match self.tail.get() {
            Some(t) => t.mean(),
            None => self.slots.last().map_or(self.at as f64, |s| s.pct.mean()),
        })
    }

    /// `Var[tail]` ([`Pmf::variance`] of the tail PCT; 0 for an empty machine), kept on
    /// first use: MaxRobust reads it for every near-best machine at every arrival.
    #[inline]
    pub fn tail_variance(&self) -> f64 {
        *self.variance.get_or_init(|| {
            self.tail_pct()
                .map_or(0.0, |p| p.variance_about(self.tail_mean()))
        })
    }

    /// The first tick of the tail's support (`tail().min()`, without building the CDF).
    pub fn tail_min(&self) -> Tick {
        self.slots.last().map_or(self.at, |s| s.pct.min())
    }

    /// The last tick of the tail's support (`tail().max()`, without building the CDF).
    pub fn tail_max(&self) -> Tick {
        self.slots.last().map_or(self.at, |s| s.pct.max())
    }

    /// The tail PCT itself (`None` for an empty machine, whose tail is the tick itself).
    pub fn tail_pct(&self) -> Option<&Pmf> {
        self.slots.last().map(|s| &s.pct)
    }

    /// The tick the PCTs were computed at.
    pub fn at(&self) -> Tick {
        self.at
    }
}

/// An earlier cache of a machine's unchanged queue and how its values bound the current
/// ones ([`Machine::stale`]).
#[derive(Debug, Clone, Copy)]
pub struct Stale<'a> {
    /// The earlier cache.
    pub cache: &'a Cache,
    /// `r = Z(t0) / Z(t1) >= 1`.
    pub ratio: f64,
    /// True when a later start never gives an earlier completion (nothing or everything
    /// may be dropped): then the earlier values bound the current ones directly.
    pub monotone: bool,
}

impl Stale<'_> {
    /// The factor `f` with `current <= f * earlier` for success probabilities and CDF values.
    pub fn upper_factor(&self) -> f64 {
        if self.monotone { 1.0 } else { self.ratio }
    }

    /// A lower bound on the current success probability of slot `k`:
    /// `1 - r * (1 - s0)`.
    pub fn success_lower(&self, k: usize) -> f64 {
        1.0 - self.ratio * (1.0 - self.cache.slots[k].success())
    }

    /// An upper bound on the current expected tail, in every dropping model:
    /// `E1 <= E0 + (r - 1) (E0 - min T0)`. The mass lost from `t0` to `t1`, `Z(t0) - Z(t1)`,
    /// lay nowhere before the earlier tail's first tick.
    pub fn tail_mean_upper(&self) -> f64 {
        let e0 = self.cache.tail_mean();
        e0 + (self.ratio - 1.0) * (e0 - self.cache.tail_min() as f64).max(0.0)
    }

    /// A lower bound on the current expected tail, in every dropping model:
    /// `E1 >= E0 - (r - 1) (max T0 - E0)` (the mass lost from `t0` to `t1` lay nowhere after
    /// the earlier tail's last tick), and `E1 >= E0` when a later start never gives an
    /// earlier completion.
    pub fn tail_mean_lower(&self) -> f64 {
        let e0 = self.cache.tail_mean();
        if self.monotone {
            return e0;
        }
        e0 - (self.ratio - 1.0) * (self.cache.tail_max() as f64 - e0).max(0.0)
    }
}
