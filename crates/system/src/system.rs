//! The scheduler's state and its rules, one implementation for the simulator and the live
//! API: the batch queue, the machine queues and the [`Oracle`] over them, every task's one
//! outcome, and the mapping event (thesis 3.2, paper III, JPDC-2016 2 and 4):
//!
//! 1. tasks past their deadline leave the batch queue (never mapped) and, unless nothing is
//!    ever dropped, the machine queues (expired while pending);
//! 2. the pruner sees the deadline misses since the previous event and, when dropping is
//!    engaged, drops tasks from the machine queues;
//! 3. the heuristic maps (batch mode: into free slots, deferring at the pruner's thresholds;
//!    immediate mode: every batch task at once);
//! 4. with a learned belief, each machine left idle takes one waiting task of a cell it
//!    has observed fewer than `learn::Options::explore` times (exploration, the `learn`
//!    crate docs, step 5);
//! 5. idle machines start the head of their queue.
//!
//! What differs between the simulator and a live dispatcher goes through [`Hooks`]: how long
//! a started task runs (the simulator knows it, a dispatcher learns it), when a machine waits
//! for staged data, and what is recorded (traces, actions). [`System`] is the only code that
//! mutates machines.
//!
//! The system owns the PET the policies and the oracle read (the belief, [`System::pet`]).
//! It changes a cell at a time ([`System::set_pmf`]) or whole ([`System::set_pet`]), the
//! oracle forgetting exactly what read a changed cell ([`Oracle::pet_changed`]). With an
//! online estimator ([`System::set_estimator`]) every execution the system ends is observed
//! where it ends: a completion exactly, an execution stopped by a drop or a failure
//! right-censored at the time it ran (a task dropped before it started is not observed), and
//! the cells whose estimate changed replace the belief's PMFs at a cadence (at once in the
//! simulator; every `refresh_every` observations in the live scheduler): the one learning
//! path of both drivers.

use std::borrow::Cow;

use heuristics::Mapper;
use model::{Machine, MachineId, Oracle, Outcome, Pruner, TaskId, TaskSpec, View};
use pmf::{DropModel, Tick};
use workload::Pet;

mod belief;
mod drops;
mod early;
mod explore;
mod hooks;

pub use hooks::{Cause, Env, Hooks, Records, TaskRecord};

/// The state of the system and the rules that change it.
#[derive(Debug, Clone)]
pub struct System<'p> {
    /// The PET the policies and the oracle read (the belief).
    belief: Cow<'p, Pet>,
    /// The online estimator a completed or stopped execution feeds, if the belief is
    /// learned, and the cells it changed that the belief has yet to take.
    learning: Option<belief::Learning>,
    model: DropModel,
    tasks: Vec<TaskSpec>,
    machines: Vec<Machine>,
    limit: Option<usize>,
    /// What is derived from the machine queues (completion-time PMFs, bounds).
    oracle: Oracle,
    /// The oracle's PCT trimming (a compaction builds a new oracle with it).
    pct_epsilon: f64,
    batch: Vec<TaskId>,
    /// At or before the earliest deadline in the batch queue (`Tick::MAX` when none came):
    /// the pass that takes expired tasks out of it runs only once this tick has come.
    batch_earliest: Tick,
    records: Vec<Option<TaskRecord>>,
    deferrals: Vec<u32>,
    assigned_to: Vec<Option<MachineId>>,
    /// Scratch marks of the batch queue's tasks during one mapping event (all false between
    /// events).
    in_batch: Vec<bool>,
    /// Per machine, the tick its staging link is free (staging only).
    link_free: Vec<Tick>,
    /// The next early mapping event (JPDC-2016 eq. 5).
    next_map: Option<Tick>,
    /// Something happened since the last mapping event: an arrival, the end of an
    /// execution, a machine's staged data ready.
    due: bool,
    /// A waiting task whose deadline passed calls for a mapping event too
    /// ([`System::expiries_wake`]).
    expiries_wake: bool,
    misses: usize,
    busy: Vec<Tick>,
    wasted: Vec<Tick>,
    mapping_events: u64,
    engaged_events: u64,
}

impl<'p> System<'p> {
    /// The idle machines of `pet` (its columns; `pet` is the belief, [`System::pet`]) with
    /// queues of at most `limit` tasks (the executing one included; `None` = unbounded), PCTs
    /// under `model` trimmed at `pct_epsilon`, and the tasks known in advance
    /// (`tasks[i].id == i`; none for a live system, whose tasks come with
    /// [`System::add_task`]).
    pub fn new(
        pet: Cow<'p, Pet>,
        limit: Option<usize>,
        model: DropModel,
        pct_epsilon: f64,
        tasks: Vec<TaskSpec>,
    ) -> Self {
        let n = tasks.len();
        let machines = pet.n_machines();
        System {
            belief: pet,
            learning: None,
            model,
            tasks,
            machines: (0..machines).map(|j| Machine::new(j, limit)).collect(),
            limit,
            oracle: Oracle::new(machines).with_pct_epsilon(pct_epsilon),
            pct_epsilon,
            batch: Vec::new(),
            batch_earliest: Tick::MAX,
            records: vec![None; n],
            deferrals: vec![0; n],
            assigned_to: vec![None; n],
            in_batch: vec![false; n],
            link_free: vec![Tick::MIN; machines],
            next_map: None,
            due: false,
            expiries_wake: false,
            misses: 0,
            busy: vec![0; machines],
            wasted: vec![0; machines],
            mapping_events: 0,
            engaged_events: 0,
        }
    }

    /// Adds a task (its id is set to the next index, which is returned). It waits nowhere
    /// until [`System::arrive`].
    pub fn add_task(&mut self, mut spec: TaskSpec) -> TaskId {
        let id = self.tasks.len();
        spec.id = id;
        self.tasks.push(spec);
        self.records.push(None);
        self.deferrals.push(0);
        self.assigned_to.push(None);
        self.in_batch.push(false);
        id
    }

    /// Forgets the tasks that have their outcome (a live system, whose memory is then
    /// bounded by the tasks in it, not those ever seen): the others are renumbered 0, 1, ...
    /// in their order (so a rule that breaks ties by id breaks them alike), and what is
    /// derived from the queues is computed afresh when next read (a new oracle). Returns the
    /// old id of each task kept, by new id. Counters, busy and wasted ticks stay.
    ///
    /// The heuristic's memos name tasks and the oracle's contents: the owner builds its
    /// heuristic afresh. Not with staging, whose draws are indexed by the trial's ids.
    pub fn compact(&mut self) -> Vec<TaskId> {
        let kept: Vec<TaskId> = (0..self.tasks.len())
            .filter(|&t| self.records[t].is_none())
            .collect();
        let new_id = |t: TaskId| kept.binary_search(&t).unwrap_or(usize::MAX);
        self.tasks = kept
            .iter()
            .enumerate()
            .map(|(i, &t)| TaskSpec {
                id: i,
                ..self.tasks[t]
            })
            .collect();
        self.records = vec![None; kept.len()];
        self.deferrals = kept.iter().map(|&t| self.deferrals[t]).collect();
        self.assigned_to = kept.iter().map(|&t| self.assigned_to[t]).collect();
        self.in_batch = vec![false; kept.len()];
        for t in &mut self.batch {
            *t = new_id(*t);
        }
        for mc in &mut self.machines {
            mc.rename_tasks(new_id);
        }
        self.oracle = Oracle::new(self.machines.len()).with_pct_epsilon(self.pct_epsilon);
        self.check_invariants();
        kept
    }

    /// Task `t` arrives: it joins the batch queue (a mapping event is due).
    pub fn arrive(&mut self, t: TaskId) {
        self.batch.push(t);
        if let Some(spec) = self.tasks.get(t) {
            self.batch_earliest = self.batch_earliest.min(spec.deadline);
        }
        self.due = true;
    }

    /// Whether a mapping event fires at `now`: something happened since the last one (an
    /// arrival, the end of an execution, a machine's staged data ready), the early mapping
    /// event is due (JPDC-2016 eq. 5), or, when expiries wake the system
    /// ([`System::expiries_wake`]), a task waits past its deadline (in the batch queue, or in
    /// a machine queue unless nothing is ever dropped). Both drivers ask it after applying
    /// everything that happened at `now`.
    pub fn mapping_due(&self, now: Tick) -> bool {
        self.due || self.next_map == Some(now) || (self.expiries_wake && self.expiry_due(now))
    }

    /// Makes a task that waits past its deadline call for a mapping event, which expires it
    /// then ([`System::mapping_due`]): for a driver asked at any time rather than at its
    /// own events (the live scheduler, whose dispatcher decides when it likes). The
    /// simulator, which wakes only at its events, leaves it off: such a task expires at the
    /// next mapping event. Off by default.
    pub fn expiries_wake(&mut self, on: bool) {
        self.expiries_wake = on;
    }

    /// A task waits past its deadline at `now`: in the batch queue, or in a machine queue
    /// unless nothing is ever dropped.
    fn expiry_due(&self, now: Tick) -> bool {
        let tasks = &self.tasks;
        self.batch.iter().any(|&t| tasks[t].deadline <= now)
            || (self.model != DropModel::None
                && self
                    .machines
                    .iter()
                    .any(|mc| mc.pending().iter().any(|&t| tasks[t].deadline <= now)))
    }

    /// The tick executing task `t` is dropped at if it is still executing: its deadline,
    /// when the drop model drops executing tasks ([`DropModel::All`]); `None` when it runs to
    /// its end. The simulator ends the execution there when it would end later (the `stop`
    /// of [`Hooks::started`]); the live scheduler drops it when its deadline passes on the
    /// dispatcher's clock.
    pub fn deadline_drop(&self, t: TaskId) -> Option<Tick> {
        (self.model == DropModel::All).then(|| self.tasks[t].deadline)
    }

    /// Every task, indexed by id.
    pub fn tasks(&self) -> &[TaskSpec] {
        &self.tasks
    }

    /// The machines and their queues.
    pub fn machines(&self) -> &[Machine] {
        &self.machines
    }

    /// The batch queue: unmapped tasks in arrival order.
    pub fn batch(&self) -> &[TaskId] {
        &self.batch
    }

    /// Task `t`'s outcome, once it has one (`deferrals` counted at the end of a run).
    pub fn record(&self, t: TaskId) -> Option<&TaskRecord> {
        self.records.get(t).and_then(Option::as_ref)
    }

    /// How many mapping events deferred task `t`.
    pub fn deferrals(&self, t: TaskId) -> u32 {
        self.deferrals.get(t).copied().unwrap_or(0)
    }

    /// The machine task `t` was mapped to.
    pub fn assigned_to(&self, t: TaskId) -> Option<MachineId> {
        self.assigned_to.get(t).copied().flatten()
    }

    /// Ticks each machine spent executing.
    pub fn busy(&self) -> &[Tick] {
        &self.busy
    }

    /// Ticks each machine spent executing tasks that did not complete on time.
    pub fn wasted(&self) -> &[Tick] {
        &self.wasted
    }

    /// Mapping events so far.
    pub fn mapping_events(&self) -> u64 {
        self.mapping_events
    }

    /// Mapping events at which dropping was engaged.
    pub fn engaged_events(&self) -> u64 {
        self.engaged_events
    }

    /// PCT recomputations over all machines (a performance counter).
    pub fn pct_recomputations(&self) -> u64 {
        self.oracle.recomputations()
    }

    /// The next early mapping event (JPDC-2016 eq. 5), if one is scheduled.
    pub fn next_map(&self) -> Option<Tick> {
        self.next_map
    }

    /// The executing task on `m` stops at `now`: its machine is idle, the time it ran counts
    /// as busy, and an online estimator observes it (`censored`: it was stopped before it
    /// ended), for `observed` ticks when the driver measured them on a finer clock, else for
    /// `now` less its start. Every end of an execution passes here.
    fn stop_running(
        &mut self,
        m: MachineId,
        now: Tick,
        censored: bool,
        observed: Option<f64>,
    ) -> Option<model::Running> {
        let r = self.machines[m].finish_running()?;
        let ran = now - r.start;
        self.busy[m] += ran;
        self.observe(r.task, m, observed.unwrap_or(ran as f64), censored);
        Some(r)
    }

    /// A copy of the system to run forward from the present (a rollout): the same queues,
    /// records, belief and estimator, each executing task's end given by
    /// `end(machine, running)` in place of the one its driver drew, which the copy must not
    /// know.
    #[must_use]
    pub fn fork(&self, mut end: impl FnMut(MachineId, model::Running) -> Tick) -> Self {
        let mut copy = self.clone();
        for (m, machine) in copy.machines.iter_mut().enumerate() {
            if let Some(r) = machine.running() {
                machine.redraw_end(end(m, r));
            }
        }
        copy
    }

    /// Moves the executing task's start on machine `m` to `start` (a dispatcher reports that
    /// it started later than decided); nothing when another task or none executes.
    pub fn restamp_start(&mut self, m: MachineId, t: TaskId, start: Tick) {
        if let Some(mc) = self.machines.get_mut(m) {
            if mc.running().map(|r| r.task) == Some(t) {
                mc.restamp_start(start);
            }
        }
    }

    /// Gives a task its one outcome.
    fn settle(
        &mut self,
        t: TaskId,
        outcome: Outcome,
        machine: Option<MachineId>,
        start: Option<Tick>,
        end: Tick,
        cause: Cause,
        pruner: &mut dyn Pruner,
        hooks: &mut dyn Hooks,
    ) {
        debug_assert!(self.records[t].is_none(), "task {t} settled twice");
        let record = TaskRecord {
            outcome,
            machine,
            start,
            end,
            deferrals: 0,
        };
        hooks.settled(&self.tasks[t], &record, self.deferrals[t], cause);
        self.records[t] = Some(record);
        if outcome.is_deadline_miss() {
            self.misses += 1;
        }
        pruner.on_task_end(self.tasks[t].task_type, outcome.is_success());
    }

    /// The executing task on `m` ends at `now`: completed (`on_time` when it made its
    /// deadline), or dropped at its deadline when its actual end lies after `now`. Then the
    /// machine starts its next task. `observed`: the time it ran in ticks, when the driver
    /// measured it on a clock finer than the tick (a dispatcher's seconds), for the online
    /// estimator; `None`: `now` less its start.
    pub fn finish_running(
        &mut self,
        m: MachineId,
        now: Tick,
        on_time: bool,
        observed: Option<f64>,
        pruner: &mut dyn Pruner,
        hooks: &mut dyn Hooks,
    ) {
        let censored = self.machines[m].running().is_some_and(|r| r.end > now);
        let Some(r) = self.stop_running(m, now, censored, observed) else {
            return;
        };
        self.due = true;
        let ran = now - r.start;
        let (outcome, cause) = if r.end > now {
            (Outcome::ExpiredExecuting, Cause::Decision)
        } else if on_time {
            (Outcome::OnTime, Cause::Completion)
        } else if self.model == DropModel::All {
            (Outcome::ExpiredExecuting, Cause::Completion)
        } else {
            (Outcome::Late, Cause::Completion)
        };
        if outcome != Outcome::OnTime {
            self.wasted[m] += ran;
        }
        self.settle(
            r.task,
            outcome,
            Some(m),
            Some(r.start),
            now,
            cause,
            pruner,
            hooks,
        );
        self.start_next(m, now, pruner, hooks);
    }

    /// The executing task on `m` is dropped at `now` because its deadline passed (a live
    /// system, where no end event is scheduled at the deadline), or it failed (`failed`: it
    /// is recorded as dropped while executing, not a deadline miss). Then the machine starts
    /// its next task. `observed` as for [`System::finish_running`].
    pub fn end_running(
        &mut self,
        m: MachineId,
        now: Tick,
        failed: bool,
        observed: Option<f64>,
        pruner: &mut dyn Pruner,
        hooks: &mut dyn Hooks,
    ) {
        let Some(r) = self.stop_running(m, now, true, observed) else {
            return;
        };
        self.due = true;
        self.wasted[m] += now - r.start;
        let (outcome, cause) = if failed {
            (Outcome::PrunedExecuting, Cause::Failure)
        } else {
            (Outcome::ExpiredExecuting, Cause::Decision)
        };
        self.settle(
            r.task,
            outcome,
            Some(m),
            Some(r.start),
            now,
            cause,
            pruner,
            hooks,
        );
        self.start_next(m, now, pruner, hooks);
    }

    /// The data of machine `m`'s head task are ready at `now` (staging): it starts while the
    /// machine is idle ([`Hooks::wait_data`] asked for this wake-up), and a mapping event is
    /// due.
    pub fn data_ready(
        &mut self,
        m: MachineId,
        now: Tick,
        pruner: &mut dyn Pruner,
        hooks: &mut dyn Hooks,
    ) {
        self.due = true;
        self.start_next(m, now, pruner, hooks);
    }

    /// While machine `m` is idle, starts the head of its queue (dropping pending tasks whose
    /// deadline has passed, unless nothing is ever dropped).
    fn start_next(
        &mut self,
        m: MachineId,
        now: Tick,
        pruner: &mut dyn Pruner,
        hooks: &mut dyn Hooks,
    ) {
        while self.machines[m].is_idle() {
            // --- staging: an idle machine waits for its head task's data (JPDC-2016) ---
            if let (Some(&t), Some(ready)) = (
                self.machines[m].pending().front(),
                self.machines[m].head_ready(),
            ) {
                let deadline = self.tasks[t].deadline;
                let expired = self.model != DropModel::None && deadline <= now;
                if ready > now && !expired {
                    // Wake up when the data arrive, or at the deadline when the task would
                    // be dropped before they do.
                    let at = if self.model == DropModel::None {
                        ready
                    } else {
                        ready.min(deadline)
                    };
                    hooks.wait_data(m, at);
                    return;
                }
            }
            // --- end staging ---
            let Some(t) = self.machines[m].pop_pending() else {
                return;
            };
            let spec = self.tasks[t];
            if self.model != DropModel::None && spec.deadline <= now {
                self.machines[m].release_reserved_slot();
                self.settle(
                    t,
                    Outcome::ExpiredPending,
                    Some(m),
                    None,
                    now,
                    Cause::Decision,
                    pruner,
                    hooks,
                );
                continue;
            }
            let stop = self.deadline_drop(t);
            let exec = hooks.started(m, &spec, now, stop);
            self.machines[m].start(now, t, exec);
        }
    }

    /// Moves every machine to `now`. Nothing is computed here: a machine's PCTs are computed
    /// when a heuristic or the pruner first reads them, and the pruner's and heuristics'
    /// bounds often make that unnecessary ([`model::Oracle::stale`]).
    fn advance(&mut self, now: Tick) {
        self.oracle.sync(&self.machines, now);
    }

    /// One mapping event at `now`, which a driver runs when [`System::mapping_due`]:
    /// expiries, the pruner, the heuristic, starts.
    ///
    /// One function because it is the mapping event's steps in the papers' order (expiries,
    /// the pruner, the heuristic, starts), each changing the queues and the oracle the next
    /// reads; the numbered comments mark them.
    pub fn mapping_event(
        &mut self,
        now: Tick,
        env: &Env<'_>,
        mapper: &mut Mapper,
        pruner: &mut dyn Pruner,
        hooks: &mut dyn Hooks,
    ) {
        self.mapping_events += 1;
        self.due = false;
        if self.next_map == Some(now) {
            self.next_map = None;
        }
        hooks.begin_event(now);
        // 1. Tasks past their deadline leave the batch queue and the machine queues.
        let mut expired = Vec::new();
        if self.batch_earliest <= now {
            let tasks = &self.tasks;
            let mut earliest = Tick::MAX;
            self.batch.retain(|&t| {
                let d = tasks[t].deadline;
                if d > now {
                    earliest = earliest.min(d);
                    return true;
                }
                expired.push(t);
                false
            });
            self.batch_earliest = earliest;
        }
        for t in expired {
            self.settle(
                t,
                Outcome::Unmapped,
                None,
                None,
                now,
                Cause::Decision,
                pruner,
                hooks,
            );
        }
        if self.model != DropModel::None {
            for m in 0..self.machines.len() {
                let tasks = &self.tasks;
                if !self.machines[m]
                    .pending()
                    .iter()
                    .any(|&t| tasks[t].deadline <= now)
                {
                    continue;
                }
                let late: Vec<TaskId> = self.machines[m]
                    .pending()
                    .iter()
                    .copied()
                    .filter(|&t| tasks[t].deadline <= now)
                    .collect();
                for t in late {
                    self.machines[m].remove_pending(t);
                    self.settle(
                        t,
                        Outcome::ExpiredPending,
                        Some(m),
                        None,
                        now,
                        Cause::Decision,
                        pruner,
                        hooks,
                    );
                }
            }
        }
        // 2. The pruner.
        let misses = std::mem::take(&mut self.misses);
        let engaged = pruner.observe(misses);
        self.advance(now);
        if engaged {
            self.engaged_events += 1;
            let drops = {
                let view = self.view(now, None, env);
                pruner.select_drops(&view)
            };
            self.apply_drops(&drops, now, pruner, hooks);
            self.advance(now);
        }
        if hooks.traced() {
            let free = (!mapper.is_immediate())
                .then(|| self.machines.iter().map(Machine::free_slots).sum());
            hooks.pruned(misses, pruner.level(), engaged, self.batch.len(), free);
        }
        // 3. Mapping.
        match mapper {
            Mapper::Batch(h) => {
                if env.early_mapping {
                    self.reserve_slots(now, env);
                }
                if self.batch.is_empty() || self.machines.iter().all(|m| m.free_slots() == 0) {
                    self.schedule_early_mapping(now, env);
                    self.check_invariants();
                    return;
                }
                let defer: Option<Vec<f64>> = pruner.defer_thresholds().map(<[f64]>::to_vec);
                hooks.considered(&self.batch, now);
                let decision = {
                    let view = self.view(now, defer.as_deref(), env);
                    h.map(&view)
                };
                hooks.heuristic_drops(&decision.drop);
                self.apply_drops(&decision.drop, now, pruner, hooks);
                for &t in &decision.deferred {
                    self.deferrals[t] += 1;
                    hooks.deferred(t, now);
                }
                // `in_batch` marks the batch queue's tasks; a task leaving it is unmarked, so
                // a second decision about it is recognised in O(1).
                for &t in &self.batch {
                    self.in_batch[t] = true;
                }
                for &t in &decision.discard {
                    if t < self.tasks.len() && self.in_batch[t] {
                        self.in_batch[t] = false;
                        self.settle(
                            t,
                            Outcome::Discarded,
                            None,
                            None,
                            now,
                            Cause::Decision,
                            pruner,
                            hooks,
                        );
                    }
                }
                for &(t, m) in &decision.assign {
                    let valid = t < self.tasks.len()
                        && self.in_batch[t]
                        && m < self.machines.len()
                        && self.machines[m].free_slots() > 0;
                    debug_assert!(valid, "{} made an invalid assignment ({t}, {m})", h.name());
                    if !valid {
                        tracing::error!(
                            heuristic = h.name(),
                            task = t,
                            machine = m,
                            "invalid assignment ignored"
                        );
                        continue;
                    }
                    self.in_batch[t] = false;
                    self.push_task(m, t, now, env);
                    self.assigned_to[t] = Some(m);
                    self.mapped(m, t, now, hooks);
                }
                let in_batch = &mut self.in_batch;
                self.batch.retain(|&t| std::mem::take(&mut in_batch[t]));
                self.explore_idle(now, env, hooks);
                for m in 0..self.machines.len() {
                    self.start_next(m, now, pruner, hooks);
                }
                self.schedule_early_mapping(now, env);
            }
            Mapper::Immediate(h) => {
                // With deferring on (MCT-D, KPB-P, ...), a task whose chance on the machine
                // the heuristic chose is at or below its type's defer threshold stays in the
                // batch queue, the defer pool, and is mapped again at the next mapping event
                // (thesis 7.2.5); its deadline removes it like any unmapped task.
                let defer: Option<Vec<f64>> = pruner.defer_thresholds().map(<[f64]>::to_vec);
                let batch = std::mem::take(&mut self.batch);
                hooks.considered(&batch, now);
                for t in batch {
                    self.advance(now);
                    let (m, deferred) = {
                        let view = self.view(now, defer.as_deref(), env);
                        let m = h.choose(&view, t).min(self.machines.len() - 1);
                        let deferred = defer.is_some() && {
                            let spec = view.task(t);
                            let chance = view.tail(m).append_success(
                                view.pet().exec_pmf(spec.task_type, m),
                                spec.deadline,
                            );
                            view.should_defer(t, chance)
                        };
                        (m, deferred)
                    };
                    if deferred {
                        self.deferrals[t] += 1;
                        hooks.deferred(t, now);
                        self.batch.push(t);
                        continue;
                    }
                    self.push_task(m, t, now, env);
                    self.assigned_to[t] = Some(m);
                    self.mapped(m, t, now, hooks);
                    self.start_next(m, now, pruner, hooks);
                }
                if !self.batch.is_empty() {
                    self.explore_idle(now, env, hooks);
                    for m in 0..self.machines.len() {
                        self.start_next(m, now, pruner, hooks);
                    }
                }
            }
        }
        self.check_invariants();
    }

    /// The tasks still waiting in the batch queue when nothing else can happen: each expires
    /// at its deadline (or `last`, when later).
    pub fn expire_batch(&mut self, last: Tick, pruner: &mut dyn Pruner, hooks: &mut dyn Hooks) {
        for t in std::mem::take(&mut self.batch) {
            let end = self.tasks[t].deadline.max(last);
            self.settle(
                t,
                Outcome::Unmapped,
                None,
                None,
                end,
                Cause::Decision,
                pruner,
                hooks,
            );
        }
    }

    /// Every task's record, in id order, with its deferrals, and the machines' busy and
    /// wasted ticks; `Err(t)` for the first task without an outcome.
    pub fn into_records(self) -> Result<Records, TaskId> {
        let mut tasks = Vec::with_capacity(self.records.len());
        for (i, r) in self.records.into_iter().enumerate() {
            let mut r = r.ok_or(i)?;
            r.deferrals = self.deferrals[i];
            tasks.push(r);
        }
        Ok(Records {
            tasks,
            busy: self.busy,
            wasted: self.wasted,
        })
    }

    /// The read-only view the policies decide on.
    pub fn view<'v>(&'v self, now: Tick, defer: Option<&'v [f64]>, env: &Env<'v>) -> View<'v> {
        self.plain_view(now)
            .with_defer(defer)
            .with_staging(env.staging)
    }

    /// The view at `now` with deferring and staging off.
    fn plain_view(&self, now: Tick) -> View<'_> {
        View::new(
            now,
            &self.belief,
            &self.tasks,
            &self.batch,
            &self.machines,
            &self.oracle,
            self.model,
        )
    }

    /// Appends `t` to machine `m`'s queue; with staging, its data go over the machine's link
    /// after the data of the tasks mapped before it. The oracle extends the machine's PMFs
    /// by the new slot when they are computed ([`Oracle::appended`]).
    fn push_task(&mut self, m: MachineId, t: TaskId, now: Tick, env: &Env<'_>) {
        let ready = match env.staging {
            Some(st) => {
                let ready = self.link_free[m].max(now) + st.ticks(t, m);
                self.link_free[m] = ready;
                ready
            }
            None => Tick::MIN,
        };
        self.machines[m].push_staged(t, ready);
        self.oracle.appended(
            m,
            &self.machines[m],
            t,
            ready,
            &self.tasks,
            &self.belief,
            self.model,
        );
    }

    /// `t`, just appended to machine `m`'s queue: the hooks learn it, with its chance there
    /// when they want it (`P(C < d)` of its slot's PCT, computed now if the machine's PCTs
    /// are not).
    fn mapped(&mut self, m: MachineId, t: TaskId, now: Tick, hooks: &mut dyn Hooks) {
        hooks.assigned(t, m, now);
        if hooks.traced() {
            self.oracle.refresh(
                m,
                &self.machines[m],
                now,
                &self.tasks,
                &self.belief,
                self.model,
            );
            let slot = self.plain_view(now).queue(m).last();
            debug_assert_eq!(slot.map(|s| s.task), Some(t), "the appended slot is last");
            hooks.mapped(t, now, slot.map_or(f64::NAN, model::Slot::success));
        }
    }

    /// The queue-size limit the machines were built with.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// Debug builds check at every mapping event: no task in two places, queue limits held.
    fn check_invariants(&self) {
        if !cfg!(debug_assertions) {
            return;
        }
        let mut seen = vec![0u8; self.tasks.len()];
        for &t in &self.batch {
            seen[t] += 1;
            assert!(
                self.batch_earliest <= self.tasks[t].deadline,
                "task {t} in the batch with its deadline before the batch's earliest"
            );
            assert!(
                self.records[t].is_none(),
                "task {t} in the batch after its outcome"
            );
        }
        for m in &self.machines {
            if let Some(l) = m.capacity() {
                assert!(m.len() <= l, "machine {} holds {} > {l}", m.id(), m.len());
            }
            for t in m.tasks() {
                seen[t] += 1;
                assert!(
                    self.records[t].is_none(),
                    "task {t} queued after its outcome"
                );
            }
        }
        for (t, &s) in seen.iter().enumerate() {
            assert!(s <= 1, "task {t} is in {s} places");
        }
    }
}
