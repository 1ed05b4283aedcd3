//! The discrete-event engine (thesis 3.2, paper III, JPDC-2016 2 and 4).
//!
//! Events are task arrivals and task ends (completion, or the drop of the executing task at
//! its deadline when the scenario allows it, [`System::deadline_drop`]), ordered by (tick,
//! sequence number) so that simultaneous events resolve first-in-first-out. All events of a
//! tick are applied, then one mapping event runs if the rules call for one
//! ([`System::mapping_due`]: an arrival, an end, staged data ready, an early mapping tick):
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
//! The PET that draws the actual execution times (the truth, which may drift during the
//! trial) is apart from the PET the policies and the oracle read (the belief,
//! [`Knowledge`]), which the shared rules own ([`System::pet`]): an oracle belief follows
//! the truth's drift ([`System::set_pet`]), a learned one is changed by the observations the
//! rules make where an execution ends ([`System::set_estimator`]).
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
use model::{MachineId, Pruner, TaskId, TaskSpec};
use pmf::{DropModel, Tick};
use serde::{Deserialize, Serialize};
use system::{Action, Cause, Env, Hooks, System};
use workload::{Pet, Staging};

use crate::rollout::Rollout;
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

pub use system::TaskRecord;

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
    /// it ([`model::Oracle::pet_changed`], through [`System::set_pmf`]).
    Learned {
        /// The belief before any observation.
        prior: &'a Pet,
        /// The estimator, holding the same priors.
        estimator: Box<learn::Estimator>,
    },
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
    simulate_inner(
        pet,
        tasks,
        luck,
        config,
        jpdc,
        knowledge,
        mapper,
        pruner,
        trace,
        None,
        None,
        &|_| {},
    )
}

/// [`simulate`] recording every decision as an [`Action`], each with the tick it was
/// taken: the same trial replayed through the live scheduler (`live::Scheduler`) gives the
/// same list (the replay test).
///
/// # Panics
/// As [`simulate`].
pub fn simulate_actions(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    config: EngineConfig,
    mapper: &mut Mapper,
    pruner: &mut dyn Pruner,
) -> (TrialRecord, Vec<(Tick, Action)>) {
    let mut actions = Vec::new();
    let record = simulate_inner(
        pet,
        tasks,
        luck,
        config,
        JpdcOptions::default(),
        Knowledge::default(),
        mapper,
        pruner,
        None,
        Some(&mut actions),
        None,
        &|_| {},
    );
    (record, actions)
}

/// What the simulator adds to the shared rules ([`System`]): actual execution times from
/// the tasks' luck on the truth, the event heap, the trace and the action log.
struct SimHooks<'a, 't> {
    /// The PET that draws the actual execution times, as of the current tick.
    truth: &'a Pet,
    luck: &'a [f64],
    heap: BinaryHeap<Reverse<(Tick, u64, Event)>>,
    seq: u64,
    /// Per machine, the tick of its pending `DataReady` event.
    waiting: Vec<Option<Tick>>,
    /// The recorder of a traced trial ([`simulate_traced`]); `None`: nothing is recorded.
    trace: Option<&'t mut Tracer<dyn TraceSink>>,
    actions: Option<&'t mut Vec<(Tick, Action)>>,
    /// Told of every task that reached its outcome (a progress count; changes nothing).
    done: &'t dyn Fn(u64),
}

impl Hooks for SimHooks<'_, '_> {
    fn started(&mut self, m: MachineId, spec: &TaskSpec, now: Tick, stop: Option<Tick>) -> Tick {
        let t = spec.id;
        let pmf = self.truth.exec_pmf(spec.task_type, m);
        let exec = pmf
            .quantile(self.luck[t].clamp(0.0, 1.0))
            .unwrap_or(pmf.max())
            .max(0);
        // It leaves its machine at its end, or when it is dropped at its deadline.
        let end = now + exec;
        let at = stop.map_or(end, |stop| end.min(stop));
        self.seq += 1;
        self.heap.push(Reverse((
            at,
            self.seq,
            Event::TaskEnded(End {
                machine: m,
                task: t,
            }),
        )));
        if let Some(a) = self.actions.as_deref_mut() {
            a.push((
                now,
                Action::Start {
                    task: t,
                    machine: m,
                },
            ));
        }
        exec
    }

    fn wait_data(&mut self, m: MachineId, at: Tick) {
        if self.waiting[m] != Some(at) {
            self.waiting[m] = Some(at);
            self.seq += 1;
            self.heap.push(Reverse((at, self.seq, Event::DataReady(m))));
        }
    }

    fn settled(&mut self, spec: &TaskSpec, record: &TaskRecord, deferrals: u32, cause: Cause) {
        (self.done)(1);
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.settled(spec, record, deferrals);
        }
        if let Some(a) = self.actions.as_deref_mut() {
            if let Some(action) = Action::of_settled(spec.id, record, cause) {
                a.push((record.end, action));
            }
        }
    }

    fn begin_event(&mut self, now: Tick) {
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.begin_event(now);
        }
    }

    fn pruned(
        &mut self,
        misses: usize,
        level: Option<f64>,
        engaged: bool,
        batch: usize,
        free_slots: Option<usize>,
    ) {
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.pruned(misses, level, engaged, batch, free_slots);
        }
    }

    fn considered(&mut self, batch: &[TaskId], now: Tick) {
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.considered(batch, now);
        }
    }

    fn heuristic_drops(&mut self, drops: &[TaskId]) {
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.heuristic_drops(drops);
        }
    }

    fn deferred(&mut self, t: TaskId, now: Tick) {
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.deferred(t, now);
        }
        if let Some(a) = self.actions.as_deref_mut() {
            a.push((now, Action::Defer { task: t }));
        }
    }

    fn assigned(&mut self, t: TaskId, m: MachineId, now: Tick) {
        if let Some(a) = self.actions.as_deref_mut() {
            a.push((
                now,
                Action::Assign {
                    task: t,
                    machine: m,
                },
            ));
        }
    }

    fn traced(&self) -> bool {
        self.trace.is_some()
    }

    fn mapped(&mut self, t: TaskId, now: Tick, chance: f64) {
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.mapped(t, now, chance);
        }
    }
}

/// Simulates one trial ([`simulate_with`]), telling `done` of each task that reaches its
/// outcome (a progress count: nothing it does changes the trial).
///
/// One function because it is the event loop of one trial: arrivals, completions, drops and
/// mapping events read and change the same clock, queues, records and trace.
pub(crate) fn simulate_inner(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    config: EngineConfig,
    jpdc: JpdcOptions<'_>,
    knowledge: Knowledge<'_>,
    mapper: &mut Mapper,
    pruner: &mut dyn Pruner,
    trace: Option<&mut Tracer<dyn TraceSink>>,
    actions: Option<&mut Vec<(Tick, Action)>>,
    mut rollout: Option<&mut Rollout>,
    done: &dyn Fn(u64),
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
        Belief::Learned { prior, estimator } => {
            // The estimator's reading before any observation: the prior, or its optimistic
            // reading when explored cells are read optimistically (`learn::Options::optimism`).
            let start = if estimator.options().optimistic_below() > 0 {
                prior
                    .map_pmfs(|t, m, _| {
                        Ok::<_, workload::WorkloadError>(estimator.pmf(t, m).clone())
                    })
                    .unwrap_or_else(|_| prior.clone())
            } else {
                prior.clone()
            };
            (Cow::Owned(start), false, Some(estimator))
        }
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
    let env = Env {
        staging: jpdc.staging,
        early_mapping: jpdc.early_mapping,
        heuristic_time: jpdc.heuristic_time,
    };
    let mut sys = System::new(
        belief,
        limit,
        config.drop_model,
        config.pct_epsilon,
        tasks.to_vec(),
    );
    // The simulator's cadence: the belief takes every change at once.
    sys.set_estimator(estimator, 1);
    let drift = knowledge.drift;
    let mut next_drift = 0;
    let mut h = SimHooks {
        truth: pet,
        luck,
        heap: BinaryHeap::new(),
        seq: 0,
        waiting: vec![None; m],
        trace,
        actions,
        done,
    };
    let first = tasks.first().map_or(0, |t| t.arrival);
    let mut last = first;
    let mut next_arrival = 0;
    loop {
        let t_arr = tasks.get(next_arrival).map(|t| t.arrival);
        let t_end = h.heap.peek().map(|Reverse((t, _, _))| *t);
        let t_end = match (t_end, sys.next_map()) {
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
        // The truth's changes due at `now`; an oracle belief follows them.
        while let Some((at, p)) = drift.get(next_drift) {
            if *at > now {
                break;
            }
            next_drift += 1;
            h.truth = p;
            if follows_truth {
                sys.set_pet(Cow::Borrowed(p))
                    .expect("the drift PET has the truth's shape");
            }
        }
        while let Some(&Reverse((t, _, event))) = h.heap.peek() {
            if t != now {
                break;
            }
            h.heap.pop();
            match event {
                Event::TaskEnded(end) => {
                    if sys.machines()[end.machine].running().map(|r| r.task) == Some(end.task) {
                        let on_time = system::meets_deadline(now, tasks[end.task].deadline);
                        sys.finish_running(end.machine, now, on_time, None, pruner, &mut h);
                    }
                }
                Event::DataReady(m) => {
                    if h.waiting[m] == Some(now) {
                        h.waiting[m] = None;
                    }
                    sys.data_ready(m, now, pruner, &mut h);
                }
            }
        }
        while next_arrival < tasks.len() && tasks[next_arrival].arrival == now {
            debug_assert_eq!(tasks[next_arrival].id, next_arrival);
            sys.arrive(next_arrival);
            next_arrival += 1;
        }
        if sys.mapping_due(now) {
            match rollout.as_deref_mut() {
                Some(r) => {
                    let arrived = &tasks[..next_arrival];
                    r.mapping_event(&mut sys, now, &env, mapper, pruner, &mut h, arrived);
                }
                None => sys.mapping_event(now, &env, mapper, pruner, &mut h),
            }
        }
    }
    // Tasks still waiting when nothing else can happen can only expire in the batch queue.
    sys.expire_batch(last, pruner, &mut h);
    let mapping_events = sys.mapping_events();
    let engaged_events = sys.engaged_events();
    let pct_recomputations = sys.pct_recomputations();
    let r = sys
        .into_records()
        .unwrap_or_else(|i| panic!("task {i} has no outcome"));
    TrialRecord {
        tasks: r.tasks,
        busy: r.busy,
        wasted: r.wasted,
        mapping_events,
        engaged_events,
        span: last - first,
        pct_recomputations,
    }
}
