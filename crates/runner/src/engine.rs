//! The discrete-event engine (thesis 3.2, paper III, JPDC-2016 2 and 4).
//!
//! Events are task arrivals and task ends (completion, or the drop of the executing task at
//! its deadline when the scenario allows it), ordered by (tick, sequence number) so that
//! simultaneous events resolve first-in-first-out. All events of a tick are applied, then one
//! mapping event runs if any of them was an arrival or an end:
//!
//! 1. tasks past their deadline leave the batch queue (never mapped) and, unless nothing is
//!    ever dropped, the machine queues (expired while pending);
//! 2. the pruner sees the deadline misses since the previous event and, when dropping is
//!    engaged, drops tasks from the machine queues;
//! 3. the heuristic maps (batch mode: into free slots, deferring at the pruner's thresholds;
//!    immediate mode: every batch task at once);
//! 4. idle machines start the head of their queue. A task's actual execution time is the
//!    quantile of its PET on the machine that runs it at the task's own uniform draw (common
//!    random numbers: two heuristics on the same trial face the same luck).
//!
//! With input-data staging ([`JpdcOptions::staging`], JPDC-2016), each machine has a link
//! that stages its mapped tasks' data one at a time in queue order, from the tick a task is
//! mapped: a task's data-ready tick is `max(now, link free) + size / rate`. An idle machine
//! whose head task's data are not ready starts it at its data-ready tick (a `DataReady`
//! event, which is followed by a mapping event). With early mapping
//! ([`JpdcOptions::early_mapping`], JPDC-2016 section 5) a mapping event is also scheduled
//! at `t_map` of eq. (5), and at each mapping event a full machine whose earliest free slot
//! `e_j` is within `t_h + t_lj` of now gets one slot beyond its limit, so the task for the
//! slot about to appear is mapped, and its data staged, before the slot appears.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use heuristics::Mapper;
use model::{
    Machine, MachineId, Oracle, Outcome, Pruner, TaskId, TaskSpec, View, earliest_free_slot,
    next_mapping_time,
};
use pmf::{DropModel, Tick};
use serde::{Deserialize, Serialize};
use workload::{Pet, Staging};

use crate::trace::{TraceSink, Tracer};

/// A queue-size limit: a number of tasks counting the executing one, or unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum QueueSize {
    /// At most this many tasks per machine, the executing one included.
    Limit(usize),
    /// `"unbounded"` (immediate mode).
    Unbounded(Unbounded),
}

/// The word `unbounded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unbounded {
    /// No limit.
    Unbounded,
}

impl<'de> Deserialize<'de> for QueueSize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Int(i64),
            Word(String),
            Other(serde::de::IgnoredAny),
        }
        let expected = "queue_size: expected a number of tasks >= 1 (counting the executing one) or \"unbounded\"";
        match Repr::deserialize(d)? {
            Repr::Int(n) if n >= 0 => Ok(QueueSize::Limit(n as usize)),
            Repr::Word(w) if w == "unbounded" => Ok(QueueSize::Unbounded(Unbounded::Unbounded)),
            Repr::Int(n) => Err(serde::de::Error::custom(format!("{expected}, found {n}"))),
            Repr::Word(w) => Err(serde::de::Error::custom(format!(
                "{expected}, found \"{w}\""
            ))),
            Repr::Other(_) => Err(serde::de::Error::custom(expected)),
        }
    }
}

impl QueueSize {
    /// The limit, `None` when unbounded.
    pub fn limit(self) -> Option<usize> {
        match self {
            QueueSize::Limit(l) => Some(l),
            QueueSize::Unbounded(_) => None,
        }
    }
}

/// What happened to one task, and when.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// Its final state.
    pub outcome: Outcome,
    /// The machine it was mapped to, if any.
    pub machine: Option<MachineId>,
    /// The tick it started executing, if it did.
    pub start: Option<Tick>,
    /// The tick its outcome was decided.
    pub end: Tick,
    /// How many mapping events deferred it.
    pub deferrals: u32,
}

/// Everything one simulated trial produced, before metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Per task, in arrival order.
    pub tasks: Vec<TaskRecord>,
    /// Ticks each machine spent executing.
    pub busy: Vec<Tick>,
    /// Ticks each machine spent executing tasks that did not complete on time.
    pub wasted: Vec<Tick>,
    /// Number of mapping events.
    pub mapping_events: u64,
    /// Mapping events at which dropping was engaged.
    pub engaged_events: u64,
    /// First arrival to last event.
    pub span: Tick,
    /// PCT recomputations over all machines (a performance counter).
    pub pct_recomputations: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct End {
    machine: MachineId,
    task: TaskId,
}

/// What the event heap holds: a task's end (completion, or drop at its deadline), or the
/// tick the data of a machine's head task are ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    TaskEnded(End),
    DataReady(MachineId),
}

/// The JPDC-2016 system's additions, all off by default (the thesis' system).
#[derive(Debug, Clone, Copy, Default)]
pub struct JpdcOptions<'a> {
    /// Input-data staging draws of the trial; `None` = data are always ready.
    pub staging: Option<&'a Staging>,
    /// Mapping events before machines go idle (eqs. 3-5); batch mode only.
    pub early_mapping: bool,
    /// `t_h` of eq. (5): the heuristic's execution time, time units.
    pub heuristic_time: f64,
}

/// The engine's settings for one trial.
#[derive(Debug, Clone, Copy)]
pub struct EngineConfig {
    /// Queue-size limit (ignored in immediate mode, whose queues are unbounded).
    pub queue_size: QueueSize,
    /// Which tasks are dropped at their deadline.
    pub drop_model: DropModel,
    /// Every PCT is trimmed within this total-variation distance (`[system] pct_epsilon`,
    /// [`model::Oracle::with_pct_epsilon`]); 0 = exact.
    pub pct_epsilon: f64,
}

/// What the policies know of the PET (the belief), and how the truth changes during the
/// trial ([`simulate_with`]). The default is today's simulator: the policies read the
/// truth itself and it never changes.
#[derive(Debug, Clone, Default)]
pub struct Knowledge<'a> {
    /// The PET the mapper, the pruner and the oracle read.
    pub belief: Belief<'a>,
    /// Changes of the truth: from the first event at or after each tick, the PET given
    /// draws the actual execution times of the tasks that start (ticks increasing).
    pub drift: &'a [(Tick, Pet)],
}

/// Where the belief comes from.
#[derive(Debug, Clone, Default)]
pub enum Belief<'a> {
    /// The truth itself, following its drift.
    #[default]
    Oracle,
    /// A fixed PET (a file, a perturbed copy of the truth, a histogram of a few samples).
    Fixed(&'a Pet),
    /// Learned online ([`learn::Estimator`]): `prior` is the belief before any observation
    /// (the estimator's priors are its PMFs); every completed execution and every execution
    /// ended by a drop (right-censored at the time it ran) is observed, and a cell whose
    /// estimate changed replaces the belief's PMF, the oracle forgetting exactly what read
    /// it ([`model::Oracle::pet_changed`]).
    Learned {
        /// The belief before any observation.
        prior: &'a Pet,
        /// The estimator, holding the same priors.
        estimator: Box<learn::Estimator>,
    },
}

struct Engine<'a> {
    /// The PET that draws the actual execution times, as of the current tick.
    truth: &'a Pet,
    /// The truth's changes ([`Knowledge::drift`]) and the next one to apply.
    drift: &'a [(Tick, Pet)],
    next_drift: usize,
    /// The PET the policies and the oracle read.
    belief: Cow<'a, Pet>,
    /// The belief is the truth and follows its drift.
    follows_truth: bool,
    /// The online estimator of a learned belief.
    estimator: Option<Box<learn::Estimator>>,
    tasks: &'a [TaskSpec],
    luck: &'a [f64],
    model: DropModel,
    machines: Vec<Machine>,
    /// What is derived from the machine queues (completion-time PMFs, bounds).
    oracle: Oracle,
    batch: Vec<TaskId>,
    records: Vec<Option<TaskRecord>>,
    deferrals: Vec<u32>,
    assigned_to: Vec<Option<MachineId>>,
    /// Scratch marks of the batch queue's tasks during one mapping event (all false between
    /// events).
    in_batch: Vec<bool>,
    heap: BinaryHeap<Reverse<(Tick, u64, Event)>>,
    seq: u64,
    jpdc: JpdcOptions<'a>,
    /// Per machine, the tick its staging link is free (staging only).
    link_free: Vec<Tick>,
    /// Per machine, the tick of its pending `DataReady` event.
    waiting: Vec<Option<Tick>>,
    /// The next early mapping event (eq. 5).
    next_map: Option<Tick>,
    misses: usize,
    busy: Vec<Tick>,
    wasted: Vec<Tick>,
    mapping_events: u64,
    engaged_events: u64,
    /// The recorder of a traced trial ([`simulate_traced`]); `None`: nothing is recorded.
    trace: Option<&'a mut Tracer<dyn TraceSink>>,
}

/// Simulates one trial: `tasks` in arrival order with ids `0..n`, `luck[i]` the uniform draw
/// of task `i` in [0, 1).
///
/// # Panics
/// When `tasks` and `luck` differ in length or a task's type or a machine is outside the PET
/// (the runner validates inputs before calling).
pub fn simulate(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    config: EngineConfig,
    mapper: &mut Mapper,
    pruner: &mut dyn Pruner,
) -> TrialRecord {
    simulate_jpdc(
        pet,
        tasks,
        luck,
        config,
        JpdcOptions::default(),
        mapper,
        pruner,
    )
}

/// [`simulate`] with the JPDC-2016 additions: input-data staging and early mapping events.
///
/// # Panics
/// As [`simulate`], and when the staging draws do not cover every task and machine.
pub fn simulate_jpdc(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    config: EngineConfig,
    jpdc: JpdcOptions<'_>,
    mapper: &mut Mapper,
    pruner: &mut dyn Pruner,
) -> TrialRecord {
    simulate_traced(pet, tasks, luck, config, jpdc, mapper, pruner, None)
}

/// [`simulate_jpdc`] recording the trial's per-task and per-event trace into `trace`
/// ([`crate::trace`]); call [`Tracer::finish`] afterwards for the last event's row. The
/// record is the same as without a trace.
///
/// # Panics
/// As [`simulate_jpdc`].
pub fn simulate_traced(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    config: EngineConfig,
    jpdc: JpdcOptions<'_>,
    mapper: &mut Mapper,
    pruner: &mut dyn Pruner,
    trace: Option<&mut Tracer<dyn TraceSink>>,
) -> TrialRecord {
    simulate_with(
        pet,
        tasks,
        luck,
        config,
        jpdc,
        Knowledge::default(),
        mapper,
        pruner,
        trace,
    )
}

/// [`simulate_traced`] with the policies reading a belief other than the truth `pet`, and
/// the truth changing during the trial ([`Knowledge`]). With the default knowledge it is
/// [`simulate_traced`], bit for bit.
///
/// # Panics
/// As [`simulate_traced`], and when a belief, prior or drift PET differs from `pet` in
/// shape.
pub fn simulate_with(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    config: EngineConfig,
    jpdc: JpdcOptions<'_>,
    knowledge: Knowledge<'_>,
    mapper: &mut Mapper,
    pruner: &mut dyn Pruner,
    trace: Option<&mut Tracer<dyn TraceSink>>,
) -> TrialRecord {
    let shape = (pet.n_types(), pet.n_machines());
    let same = |p: &Pet| (p.n_types(), p.n_machines()) == shape;
    assert!(
        knowledge.drift.iter().all(|(_, p)| same(p)),
        "every drift PET has the truth's shape"
    );
    let (belief, follows_truth, estimator) = match knowledge.belief {
        Belief::Oracle => (Cow::Borrowed(pet), true, None),
        Belief::Fixed(p) => (Cow::Borrowed(p), false, None),
        Belief::Learned { prior, estimator } => (Cow::Owned(prior.clone()), false, Some(estimator)),
    };
    assert!(same(&belief), "the belief has the truth's shape");
    if let Some(st) = jpdc.staging {
        assert!(
            st.sizes_mb().len() >= tasks.len() && st.rates_gbps().len() >= pet.n_machines(),
            "staging draws for every task and machine"
        );
    }
    assert_eq!(tasks.len(), luck.len(), "one uniform draw per task");
    let limit = if mapper.is_immediate() {
        None
    } else {
        config.queue_size.limit()
    };
    let m = pet.n_machines();
    let mut e = Engine {
        truth: pet,
        drift: knowledge.drift,
        next_drift: 0,
        belief,
        follows_truth,
        estimator,
        tasks,
        luck,
        model: config.drop_model,
        machines: (0..m).map(|j| Machine::new(j, limit)).collect(),
        oracle: Oracle::new(m).with_pct_epsilon(config.pct_epsilon),
        batch: Vec::new(),
        records: vec![None; tasks.len()],
        deferrals: vec![0; tasks.len()],
        assigned_to: vec![None; tasks.len()],
        in_batch: vec![false; tasks.len()],
        heap: BinaryHeap::new(),
        seq: 0,
        jpdc,
        link_free: vec![Tick::MIN; m],
        waiting: vec![None; m],
        next_map: None,
        misses: 0,
        busy: vec![0; m],
        wasted: vec![0; m],
        mapping_events: 0,
        engaged_events: 0,
        trace,
    };
    let first = tasks.first().map_or(0, |t| t.arrival);
    let mut last = first;
    let mut next_arrival = 0;
    loop {
        let t_arr = tasks.get(next_arrival).map(|t| t.arrival);
        let t_end = e.heap.peek().map(|Reverse((t, _, _))| *t);
        let t_end = match (t_end, e.next_map) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let now = match (t_arr, t_end) {
            (None, None) => break,
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (Some(a), Some(b)) => a.min(b),
        };
        last = now;
        e.apply_drift(now);
        let mut trigger = false;
        while let Some(&Reverse((t, _, event))) = e.heap.peek() {
            if t != now {
                break;
            }
            e.heap.pop();
            match event {
                Event::TaskEnded(end) => {
                    if e.machines[end.machine].running().map(|r| r.task) == Some(end.task) {
                        e.finish_running(end.machine, now, pruner);
                        trigger = true;
                    }
                }
                Event::DataReady(m) => {
                    if e.waiting[m] == Some(now) {
                        e.waiting[m] = None;
                    }
                    e.start_next(m, now, pruner);
                    trigger = true;
                }
            }
        }
        if e.next_map == Some(now) {
            e.next_map = None;
            trigger = true;
        }
        while next_arrival < tasks.len() && tasks[next_arrival].arrival == now {
            debug_assert_eq!(tasks[next_arrival].id, next_arrival);
            e.batch.push(next_arrival);
            next_arrival += 1;
            trigger = true;
        }
        if trigger {
            e.mapping_event(now, mapper, pruner);
        }
    }
    // Tasks still waiting when nothing else can happen can only expire in the batch queue.
    for t in std::mem::take(&mut e.batch) {
        let end = tasks[t].deadline.max(last);
        e.settle(t, Outcome::Unmapped, None, None, end, pruner);
    }
    let pct_recomputations = e.oracle.recomputations();
    let records: Vec<TaskRecord> = e
        .records
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let mut r = r.unwrap_or_else(|| panic!("task {i} has no outcome"));
            r.deferrals = e.deferrals[i];
            r
        })
        .collect();
    TrialRecord {
        tasks: records,
        busy: e.busy,
        wasted: e.wasted,
        mapping_events: e.mapping_events,
        engaged_events: e.engaged_events,
        span: last - first,
        pct_recomputations,
    }
}

impl Engine<'_> {
    /// Gives a task its one outcome.
    fn settle(
        &mut self,
        t: TaskId,
        outcome: Outcome,
        machine: Option<MachineId>,
        start: Option<Tick>,
        end: Tick,
        pruner: &mut dyn Pruner,
    ) {
        debug_assert!(self.records[t].is_none(), "task {t} settled twice");
        let record = TaskRecord {
            outcome,
            machine,
            start,
            end,
            deferrals: 0,
        };
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.settled(&self.tasks[t], &record, self.deferrals[t]);
        }
        self.records[t] = Some(record);
        if outcome.is_deadline_miss() {
            self.misses += 1;
        }
        pruner.on_task_end(self.tasks[t].task_type, outcome.is_success());
    }

    /// The executing task on `m` ends at `now`: completed, or dropped at its deadline.
    fn finish_running(&mut self, m: MachineId, now: Tick, pruner: &mut dyn Pruner) {
        let Some(r) = self.machines[m].finish_running() else {
            return;
        };
        let spec = self.tasks[r.task];
        let ran = now - r.start;
        self.busy[m] += ran;
        let outcome = if r.end > now {
            Outcome::ExpiredExecuting
        } else if now < spec.deadline {
            Outcome::OnTime
        } else if self.model == DropModel::All {
            Outcome::ExpiredExecuting
        } else {
            Outcome::Late
        };
        if outcome != Outcome::OnTime {
            self.wasted[m] += ran;
        }
        self.learn(r.task, m, ran, r.end > now);
        self.settle(r.task, outcome, Some(m), Some(r.start), now, pruner);
        self.start_next(m, now, pruner);
    }

    /// A learned belief observes an execution of `t` on `m` that ran `ran` ticks, complete
    /// or not (`censored`); a cell whose estimate changed replaces the belief's PMF and the
    /// oracle forgets what read it.
    fn learn(&mut self, t: TaskId, m: MachineId, ran: Tick, censored: bool) {
        let Some(est) = self.estimator.as_mut() else {
            return;
        };
        let ty = self.tasks[t].task_type;
        match est.observe(ty, m, ran as f64, censored) {
            Ok(true) => {
                let p = est.pmf(ty, m).clone();
                if let Err(e) = self.belief.to_mut().set_pmf(ty, m, p) {
                    tracing::error!(task_type = ty, machine = m, "belief not updated: {e}");
                    return;
                }
                self.oracle
                    .pet_changed(m, ty, &self.machines[m], self.tasks);
            }
            Ok(false) => {}
            Err(e) => tracing::warn!(task_type = ty, machine = m, "observation ignored: {e}"),
        }
    }

    /// Applies the truth's changes due at `now`; an oracle belief follows them, the oracle
    /// forgetting what read a changed cell.
    fn apply_drift(&mut self, now: Tick) {
        let drift = self.drift;
        while let Some((at, pet)) = drift.get(self.next_drift) {
            if *at > now {
                break;
            }
            self.next_drift += 1;
            let old = std::mem::replace(&mut self.truth, pet);
            if self.follows_truth {
                self.belief = Cow::Borrowed(pet);
                for t in 0..pet.n_types() {
                    for m in 0..pet.n_machines() {
                        if old.pmf(t, m) != pet.pmf(t, m) {
                            self.oracle.pet_changed(m, t, &self.machines[m], self.tasks);
                        }
                    }
                }
            }
        }
    }

    /// While machine `m` is idle, starts the head of its queue (dropping pending tasks whose
    /// deadline has passed, unless nothing is ever dropped).
    fn start_next(&mut self, m: MachineId, now: Tick, pruner: &mut dyn Pruner) {
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
                    if self.waiting[m] != Some(at) {
                        self.waiting[m] = Some(at);
                        self.seq += 1;
                        self.heap.push(Reverse((at, self.seq, Event::DataReady(m))));
                    }
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
                self.settle(t, Outcome::ExpiredPending, Some(m), None, now, pruner);
                continue;
            }
            let pmf = self.truth.pmf(spec.task_type, m);
            let exec = pmf
                .quantile(self.luck[t].clamp(0.0, 1.0))
                .unwrap_or(pmf.max())
                .max(0);
            self.machines[m].start(now, t, exec);
            let end = now + exec;
            let at = if self.model == DropModel::All && end >= spec.deadline {
                spec.deadline
            } else {
                end
            };
            self.seq += 1;
            self.heap.push(Reverse((
                at,
                self.seq,
                Event::TaskEnded(End {
                    machine: m,
                    task: t,
                }),
            )));
        }
    }

    /// Moves every machine to `now`. Nothing is computed here: a machine's PCTs are computed
    /// when a heuristic or the pruner first reads them, and the pruner's and heuristics'
    /// bounds often make that unnecessary ([`model::Oracle::stale`]).
    fn advance(&mut self, now: Tick) {
        self.oracle.sync(&self.machines, now);
    }

    fn mapping_event(&mut self, now: Tick, mapper: &mut Mapper, pruner: &mut dyn Pruner) {
        self.mapping_events += 1;
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.begin_event(now);
        }
        // 1. Tasks past their deadline leave the batch queue and the machine queues.
        let mut expired = Vec::new();
        self.batch.retain(|&t| {
            let keep = self.tasks[t].deadline > now;
            if !keep {
                expired.push(t);
            }
            keep
        });
        for t in expired {
            self.settle(t, Outcome::Unmapped, None, None, now, pruner);
        }
        if self.model != DropModel::None {
            for m in 0..self.machines.len() {
                let tasks = self.tasks;
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
                    self.settle(t, Outcome::ExpiredPending, Some(m), None, now, pruner);
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
                let view = self.view(now, None);
                pruner.select_drops(&view)
            };
            self.apply_drops(&drops, now, pruner);
            self.advance(now);
        }
        if let Some(tr) = self.trace.as_deref_mut() {
            let free = (!mapper.is_immediate())
                .then(|| self.machines.iter().map(Machine::free_slots).sum());
            tr.pruned(misses, pruner.level(), engaged, self.batch.len(), free);
        }
        // 3. Mapping.
        match mapper {
            Mapper::Batch(h) => {
                if self.jpdc.early_mapping {
                    self.reserve_slots(now);
                }
                if self.batch.is_empty() || self.machines.iter().all(|m| m.free_slots() == 0) {
                    self.schedule_early_mapping(now);
                    self.check_invariants();
                    return;
                }
                let defer: Option<Vec<f64>> = pruner.defer_thresholds().map(<[f64]>::to_vec);
                if let Some(tr) = self.trace.as_deref_mut() {
                    tr.considered(&self.batch, now);
                }
                let decision = {
                    let view = self.view(now, defer.as_deref());
                    h.map(&view)
                };
                if let Some(tr) = self.trace.as_deref_mut() {
                    tr.heuristic_drops(&decision.drop);
                }
                self.apply_drops(&decision.drop, now, pruner);
                for &t in &decision.deferred {
                    self.deferrals[t] += 1;
                    if let Some(tr) = self.trace.as_deref_mut() {
                        tr.deferred(t, now);
                    }
                }
                // `in_batch` marks the batch queue's tasks; a task leaving it is unmarked, so
                // a second decision about it is recognised in O(1).
                for &t in &self.batch {
                    self.in_batch[t] = true;
                }
                for &t in &decision.discard {
                    if t < self.tasks.len() && self.in_batch[t] {
                        self.in_batch[t] = false;
                        self.settle(t, Outcome::Discarded, None, None, now, pruner);
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
                    self.push_task(m, t, now);
                    self.assigned_to[t] = Some(m);
                    self.trace_mapped(m, t, now);
                }
                let in_batch = &mut self.in_batch;
                self.batch.retain(|&t| std::mem::take(&mut in_batch[t]));
                for m in 0..self.machines.len() {
                    self.start_next(m, now, pruner);
                }
                self.schedule_early_mapping(now);
            }
            Mapper::Immediate(h) => {
                // With deferring on (MCT-D, KPB-P, ...), a task whose chance on the machine
                // the heuristic chose is at or below its type's defer threshold stays in the
                // batch queue, the defer pool, and is mapped again at the next mapping event
                // (thesis 7.2.5); its deadline removes it like any unmapped task.
                let defer: Option<Vec<f64>> = pruner.defer_thresholds().map(<[f64]>::to_vec);
                let batch = std::mem::take(&mut self.batch);
                if let Some(tr) = self.trace.as_deref_mut() {
                    tr.considered(&batch, now);
                }
                for t in batch {
                    self.advance(now);
                    let (m, deferred) = {
                        let view = self.view(now, defer.as_deref());
                        let m = h.choose(&view, t).min(self.machines.len() - 1);
                        let deferred = defer.is_some() && {
                            let spec = view.task(t);
                            let chance = view
                                .tail(m)
                                .append_success(view.pet.pmf(spec.task_type, m), spec.deadline);
                            view.should_defer(t, chance)
                        };
                        (m, deferred)
                    };
                    if deferred {
                        self.deferrals[t] += 1;
                        if let Some(tr) = self.trace.as_deref_mut() {
                            tr.deferred(t, now);
                        }
                        self.batch.push(t);
                        continue;
                    }
                    self.push_task(m, t, now);
                    self.assigned_to[t] = Some(m);
                    self.trace_mapped(m, t, now);
                    self.start_next(m, now, pruner);
                }
            }
        }
        self.check_invariants();
    }

    fn view<'v>(&'v self, now: Tick, defer: Option<&'v [f64]>) -> View<'v> {
        View {
            now,
            oracle: &self.oracle,
            pet: &self.belief,
            tasks: self.tasks,
            batch: &self.batch,
            machines: &self.machines,
            model: self.model,
            defer,
            staging: self.jpdc.staging,
        }
    }

    /// Appends `t` to machine `m`'s queue; with staging, its data go over the machine's link
    /// after the data of the tasks mapped before it. The oracle extends the machine's PMFs
    /// by the new slot when they are computed ([`Oracle::appended`]).
    fn push_task(&mut self, m: MachineId, t: TaskId, now: Tick) {
        let ready = match self.jpdc.staging {
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
            self.tasks,
            &self.belief,
            self.model,
        );
    }

    /// Traced trials: `t`, just appended to machine `m`'s queue, with its chance there,
    /// `P(C < d)` of its slot's PCT (computed now if the machine's PCTs are not).
    fn trace_mapped(&mut self, m: MachineId, t: TaskId, now: Tick) {
        if let Some(tr) = self.trace.as_deref_mut() {
            let machine = &self.machines[m];
            self.oracle
                .refresh(m, machine, now, self.tasks, &self.belief, self.model);
            let cache = self
                .oracle
                .cache(m, machine, self.tasks, &self.belief, self.model);
            let slot = cache.slots().last();
            debug_assert_eq!(slot.map(|s| s.task), Some(t), "the appended slot is last");
            tr.mapped(t, now, slot.map_or(f64::NAN, model::Slot::success));
        }
    }

    /// `t_lj` of eq. (3) for every machine: the largest unmapped input staged to it.
    fn worst_staging(&self) -> Vec<f64> {
        let n = self.machines.len();
        match self.jpdc.staging {
            Some(st) => {
                let s = self
                    .batch
                    .iter()
                    .map(|&t| st.sizes_mb()[t])
                    .fold(0.0, f64::max);
                (0..n).map(|m| st.units_for(s, m)).collect()
            }
            None => vec![0.0; n],
        }
    }

    /// Full machines, without a reserved slot yet, whose earliest free slot `e_j` (eq. 4)
    /// lies at most `t_h + t_lj` ahead; `None` in the list for the others.
    fn early_candidates(&self) -> Vec<Option<f64>> {
        self.machines
            .iter()
            .map(|mc| {
                if mc.limit().is_none() || mc.free_slots() > 0 || mc.has_reserved_slot() {
                    None
                } else {
                    earliest_free_slot(mc, &self.oracle, self.tasks, &self.belief, self.model)
                }
            })
            .collect()
    }

    /// Early mapping (JPDC-2016 section 5): at this mapping event, a full machine whose
    /// `e_j - (t_h + t_lj)` has come gets a slot for the task that will follow.
    fn reserve_slots(&mut self, now: Tick) {
        if self.batch.is_empty() {
            return;
        }
        let worst = self.worst_staging();
        let e = self.early_candidates();
        for (m, e) in e.into_iter().enumerate() {
            if let Some(e) = e {
                if e - (self.jpdc.heuristic_time + worst[m]) <= now as f64 {
                    self.machines[m].reserve_slot();
                }
            }
        }
    }

    /// Schedules the next early mapping event at `t_map` of eq. (5) (the next tick when that
    /// time has passed), if anything waits in the batch queue.
    fn schedule_early_mapping(&mut self, now: Tick) {
        if !self.jpdc.early_mapping {
            return;
        }
        self.next_map = None;
        if self.batch.is_empty() {
            return;
        }
        self.advance(now);
        let worst = self.worst_staging();
        let e = self.early_candidates();
        if let Some(t) = next_mapping_time(&e, &worst, self.jpdc.heuristic_time) {
            self.next_map = Some((t.floor() as Tick).max(now + 1));
        }
    }

    /// Removes tasks chosen by the pruner (or a heuristic) from the machine queues.
    fn apply_drops(&mut self, drops: &[TaskId], now: Tick, pruner: &mut dyn Pruner) {
        let mut touched = Vec::new();
        for &t in drops {
            if self.records[t].is_some() {
                continue;
            }
            let Some(m) = self.assigned_to[t] else {
                continue;
            };
            if self.machines[m].running().map(|r| r.task) == Some(t) {
                if self.model != DropModel::All {
                    // JPDC-2016 scenario (a): the executing task runs to completion.
                    tracing::warn!(
                        task = t,
                        machine = m,
                        "a drop of an executing task ignored: drop_model is not \"all\""
                    );
                    continue;
                }
                let start = self.machines[m].finish_running().map(|r| {
                    let ran = now - r.start;
                    self.busy[m] += ran;
                    self.wasted[m] += ran;
                    r.start
                });
                if let Some(s) = start {
                    self.learn(t, m, now - s, true);
                }
                self.settle(t, Outcome::PrunedExecuting, Some(m), start, now, pruner);
                touched.push(m);
            } else if self.machines[m].remove_pending(t) {
                self.settle(t, Outcome::PrunedPending, Some(m), None, now, pruner);
                touched.push(m);
            }
        }
        for m in touched {
            self.start_next(m, now, pruner);
        }
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
