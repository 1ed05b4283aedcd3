//! The live scheduler: the state and rules of [`System`] driven by a dispatcher's
//! notifications instead of the simulator's event heap.

use std::borrow::Cow;

use heuristics::{HeuristicConfig, Mapper};
use model::{MachineId, Outcome, Pruner, TaskSpec};
use pmf::{DropModel, Tick};
use pruner::ProbabilisticPruner;
use workload::Pet;

use system::{Action, Cause, Env, Hooks, SchedulerConfig, System, TaskRecord};

/// A task's id: the index [`Scheduler::submit`] returned (0, 1, 2, ... in submission order).
pub type TaskId = usize;

/// The tasks ended since the last compaction that make one worthwhile, at the least
/// ([`Scheduler::keep_records`]).
const COMPACT_MIN: usize = 64;

mod actions;
mod learning;

pub use actions::{Counts, Fate, LiveError};
pub use learning::{LearnConfig, Sample};

/// A completion a dispatcher reported, before [`Scheduler::decide`] applies it.
#[derive(Debug, Clone, Copy)]
struct Reported {
    tick: Tick,
    seq: u64,
    task: TaskId,
    at: f64,
    failed: bool,
}

/// The scheduler a dispatcher owns. It is told what happened ([`Scheduler::submit`],
/// [`Scheduler::started`], [`Scheduler::completed`], [`Scheduler::failed`]) and asked what
/// to do ([`Scheduler::decide`]); times are seconds on the dispatcher's clock, never
/// decreasing.
///
/// The rules are the simulator's own ([`System`]): a trial replayed through a `Scheduler`
/// takes the simulator's decisions. A decision applies every end reported since the previous
/// one in the order of (tick, start), drops executing tasks whose deadline has passed (when
/// the drop model drops them), and runs one mapping event when anything happened: a
/// submission, an end, a task in a queue past its deadline.
///
/// ```
/// use live::{Action, Scheduler, SchedulerConfig};
/// use workload::Pet;
///
/// let pet = Pet::default_pet(1); // 12 task types x 8 machines, 1 s ticks
/// let mut s = Scheduler::new(pet, SchedulerConfig::default()).unwrap();
/// let a = s.submit(0.0, 3, 60.0).unwrap(); // type 3, due at 60 s
/// let actions = s.decide(0.0).unwrap();
/// let Some(&Action::Start { task, machine }) =
///     actions.iter().find(|x| matches!(x, Action::Start { .. }))
/// else {
///     panic!("an idle system starts the task at once")
/// };
/// assert_eq!(task, a);
/// s.started(a, 0.1).unwrap();
/// s.completed(a, 12.5).unwrap();
/// s.decide(12.5).unwrap();
/// assert_eq!(s.fate(a), Ok(live::Fate::Ended(live::Outcome::OnTime)));
/// # let _ = machine;
/// // Misuse is an error, never a panic.
/// assert!(s.completed(a, 13.0).is_err());
/// assert!(s.decide(1.0).is_err());
/// ```
pub struct Scheduler {
    /// The state, the rules and the PET decided on ([`System::pet`]).
    sys: System<'static>,
    heuristic: HeuristicConfig,
    mapper: Mapper,
    pruner: ProbabilisticPruner,
    drop_model: DropModel,
    /// The live side of the rules and what it keeps of them (the system's hooks).
    hooks: LiveHooks,
    /// The latest time seen.
    latest: f64,
    /// Tasks submitted: the next task's id.
    submitted: usize,
    /// The tasks the system holds (its ids are indices into this and the vectors below),
    /// by their [`TaskId`] (increasing).
    ids: Vec<TaskId>,
    /// Keep every task's record: never compact.
    keep_records: bool,
    /// Deadlines in seconds, per task.
    deadline: Vec<f64>,
    /// Per task, true once its end was reported.
    reported: Vec<bool>,
    /// Per task, true when it failed.
    failed: Vec<bool>,
    ends: Vec<Reported>,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler")
            .field("heuristic", &self.heuristic.name)
            .field("machines", &self.sys.pet().n_machines())
            .field("tasks", &self.submitted)
            .field("latest", &self.latest)
            .finish_non_exhaustive()
    }
}

/// The live scheduler's side of the rules: starts, drops, deferrals and assignments become
/// [`Action`]s.
struct LiveHooks {
    actions: Vec<Action>,
    counts: Counts,
    /// Tasks the system holds that ended (forgotten at the next compaction).
    settled: usize,
    /// Per task, the order of its start (0: not started).
    start_seq: Vec<u64>,
    next_seq: u64,
    /// The executions observed, kept for [`Scheduler::drain_samples`].
    samples: Option<Vec<Sample>>,
    /// Seconds per tick.
    resolution: f64,
}

impl Hooks for LiveHooks {
    fn started(&mut self, m: MachineId, spec: &TaskSpec, _now: Tick, _stop: Option<Tick>) -> Tick {
        self.next_seq += 1;
        if let Some(s) = self.start_seq.get_mut(spec.id) {
            *s = self.next_seq;
        }
        self.actions.push(Action::Start {
            task: spec.id,
            machine: m,
        });
        0
    }

    fn settled(&mut self, spec: &TaskSpec, record: &TaskRecord, _deferrals: u32, cause: Cause) {
        self.settled += 1;
        if cause == Cause::Failure {
            self.counts.failed += 1;
        } else if let Some(i) = Outcome::ALL.iter().position(|&o| o == record.outcome) {
            self.counts.outcomes[i] += 1;
        }
        if let Some(a) = Action::of_settled(spec.id, record, cause) {
            self.actions.push(a);
        }
        if cause == Cause::Decision {
            if let (Some(samples), Some(m), Some(start)) =
                (self.samples.as_mut(), record.machine, record.start)
            {
                samples.push(Sample {
                    task_type: spec.task_type,
                    machine: m,
                    seconds: (record.end - start) as f64 * self.resolution,
                    censored: true,
                });
            }
        }
    }

    fn deferred(&mut self, t: model::TaskId, _now: Tick) {
        self.actions.push(Action::Defer { task: t });
    }

    fn assigned(&mut self, t: model::TaskId, m: MachineId, _now: Tick) {
        self.actions.push(Action::Assign {
            task: t,
            machine: m,
        });
    }
}

fn finite(what: &'static str, value: f64) -> Result<f64, LiveError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(LiveError::NotFinite { what, value })
    }
}

impl Scheduler {
    /// A scheduler for the machines of `pet` (its columns), all idle.
    ///
    /// Errors: a heuristic or pruner configuration that does not build, a queue size of 0, a
    /// resolution that is not finite and positive, a `pct_epsilon` outside [0, 1).
    pub fn new(pet: Pet, config: SchedulerConfig) -> Result<Self, LiveError> {
        if !(config.resolution.is_finite() && config.resolution > 0.0) {
            return Err(LiveError::Config(format!(
                "resolution must be a positive number of seconds per tick, found {}",
                config.resolution
            )));
        }
        if config.queue_size == 0 {
            return Err(LiveError::Config(
                "queue_size must be at least 1 (it counts the executing task)".into(),
            ));
        }
        if !(0.0..1.0).contains(&config.pct_epsilon) {
            return Err(LiveError::Config(format!(
                "pct_epsilon must lie in [0, 1), found {}",
                config.pct_epsilon
            )));
        }
        let mapper = heuristics::build(&config.heuristic, config.drop_model)
            .map_err(|e| LiveError::Config(e.to_string()))?;
        let pruner = ProbabilisticPruner::new(config.pruner.clone(), pet.n_types())
            .map_err(|e| LiveError::Config(e.to_string()))?;
        let limit = (!mapper.is_immediate()).then_some(config.queue_size);
        let mut sys = System::new(
            Cow::Owned(pet),
            limit,
            config.drop_model,
            config.pct_epsilon,
            Vec::new(),
        );
        // The dispatcher decides when it likes: a task waiting past its deadline expires at
        // the next decision.
        sys.expiries_wake(true);
        Ok(Scheduler {
            sys,
            heuristic: config.heuristic,
            mapper,
            pruner,
            drop_model: config.drop_model,
            hooks: LiveHooks {
                actions: Vec::new(),
                counts: Counts::default(),
                settled: 0,
                start_seq: Vec::new(),
                next_seq: 0,
                samples: None,
                resolution: config.resolution,
            },
            latest: f64::NEG_INFINITY,
            submitted: 0,
            ids: Vec::new(),
            keep_records: false,
            deadline: Vec::new(),
            reported: Vec::new(),
            failed: Vec::new(),
            ends: Vec::new(),
        })
    }

    /// The PET the scheduler decides on.
    pub fn pet(&self) -> &Pet {
        self.sys.pet()
    }

    /// Replaces the PET (an online estimate improved, [`Scheduler::drain_samples`]) the way
    /// the simulator replaces its belief ([`System::set_pet`]): the next decision computes the
    /// completion-time PMFs that read a changed cell from it, and the heuristic starts afresh
    /// (its memos are of the old PET). The tasks, queues and pruner state stay.
    ///
    /// Errors: a PET of another shape (task types x machines).
    pub fn set_pet(&mut self, pet: Pet) -> Result<(), LiveError> {
        let (types, machines) = (self.sys.pet().n_types(), self.sys.pet().n_machines());
        if (pet.n_types(), pet.n_machines()) != (types, machines) {
            return Err(LiveError::Config(format!(
                "the new PET is {} x {}, the scheduler's {types} x {machines} (task types x machines)",
                pet.n_types(),
                pet.n_machines(),
            )));
        }
        self.sys
            .set_pet(Cow::Owned(pet))
            .map_err(|e| LiveError::Config(e.to_string()))?;
        self.mapper = heuristics::build(&self.heuristic, self.drop_model)
            .map_err(|e| LiveError::Config(e.to_string()))?;
        Ok(())
    }

    /// Seconds per tick.
    pub fn resolution(&self) -> f64 {
        self.hooks.resolution
    }

    /// The number of machines.
    pub fn machines(&self) -> usize {
        self.sys.pet().n_machines()
    }

    /// The number of tasks submitted.
    pub fn tasks(&self) -> usize {
        self.submitted
    }

    /// How many tasks were submitted and how they ended.
    pub fn counts(&self) -> Counts {
        self.hooks.counts
    }

    /// The tasks whose state the scheduler holds: those in the system (waiting, queued,
    /// executing) and those that ended since the last compaction (all that ended, with
    /// [`Scheduler::keep_records`]). Its memory per task is bounded by this.
    pub fn held(&self) -> usize {
        self.ids.len()
    }

    /// Keeps every task's record for [`Scheduler::fate`] and [`Scheduler::record`] (off by
    /// default): a long-running dispatcher then grows by about 150 bytes per task. Off, the
    /// tasks that ended are forgotten at a later decision, once they are at least as many as
    /// those in the system (and at least 64): their fate is [`Fate::Forgotten`], their
    /// outcomes in [`Scheduler::counts`]. The decisions are the same either way.
    pub fn keep_records(&mut self, on: bool) {
        self.keep_records = on;
    }

    /// The tasks in the batch queue (unmapped), in arrival order.
    pub fn batch(&self) -> Vec<TaskId> {
        self.sys.batch().iter().map(|&i| self.ids[i]).collect()
    }

    /// Machine `m`'s queue, executing task first (empty for an unknown machine).
    pub fn queue(&self, m: usize) -> Vec<TaskId> {
        self.sys
            .machines()
            .get(m)
            .map(|mc| mc.tasks().map(|i| self.ids[i]).collect())
            .unwrap_or_default()
    }

    /// Where task `t` stands.
    pub fn fate(&self, t: TaskId) -> Result<Fate, LiveError> {
        let Some(i) = self.held_index(t)? else {
            return Ok(Fate::Forgotten);
        };
        if self.failed[i] {
            return Ok(Fate::Failed);
        }
        if let Some(r) = self.sys.record(i) {
            return Ok(Fate::Ended(r.outcome));
        }
        if self.reported[i] {
            return Ok(Fate::Reported);
        }
        Ok(Fate::Open)
    }

    /// Task `t`'s outcome record (machine, start and end ticks), once it has ended (while
    /// it is held, [`Scheduler::keep_records`]).
    pub fn record(&self, t: TaskId) -> Option<TaskRecord> {
        let i = self.held_index(t).ok().flatten()?;
        self.sys.record(i).map(|r| TaskRecord {
            deferrals: self.sys.deferrals(i),
            ..*r
        })
    }

    /// The earliest time a [`Scheduler::decide`] has something to do without being told of
    /// anything: the earliest deadline of an executing task the drop model drops at its
    /// deadline ([`System::deadline_drop`]). `None` when there is none.
    pub fn next_wakeup(&self) -> Option<f64> {
        self.sys
            .machines()
            .iter()
            .filter_map(|mc| mc.running())
            .filter(|r| !self.reported[r.task] && self.sys.deadline_drop(r.task).is_some())
            .map(|r| self.deadline[r.task])
            .min_by(f64::total_cmp)
    }

    fn tick(&self, t: f64) -> Tick {
        let x = (t / self.hooks.resolution).floor();
        x.clamp(pmf::MIN_TICK as f64, pmf::MAX_TICK as f64) as Tick
    }

    fn deadline_tick(&self, d: f64) -> Tick {
        let x = (d / self.hooks.resolution).ceil();
        x.clamp(pmf::MIN_TICK as f64, pmf::MAX_TICK as f64) as Tick
    }

    /// `t` (seconds, finite) when it lies in the tick range: [`pmf::MAX_TICK`] ticks either
    /// side of 0.
    fn in_range(&self, what: &'static str, t: f64) -> Result<f64, LiveError> {
        let max = pmf::MAX_TICK as f64;
        if (t / self.hooks.resolution).abs() <= max {
            Ok(t)
        } else {
            Err(LiveError::OutOfRange {
                what,
                value: t,
                max: max * self.hooks.resolution,
            })
        }
    }

    fn check_time(&self, what: &'static str, at: f64) -> Result<f64, LiveError> {
        let at = finite(what, at)?;
        if at < self.latest {
            return Err(LiveError::TimeWentBackwards {
                at,
                latest: self.latest,
            });
        }
        Ok(at)
    }

    /// The system's index of task `t`: `None` when it ended and was forgotten.
    fn held_index(&self, t: TaskId) -> Result<Option<usize>, LiveError> {
        if t >= self.submitted {
            return Err(LiveError::UnknownTask(t));
        }
        Ok(self.ids.binary_search(&t).ok())
    }

    /// Checks that task `t` (the system's `i`) is executing and not yet reported; returns
    /// its machine.
    fn check_executing(&self, t: TaskId, i: Option<usize>) -> Result<MachineId, LiveError> {
        let Some(i) = i else {
            return Err(LiveError::AlreadyEnded { task: t });
        };
        if self.sys.record(i).is_some() || self.reported[i] {
            return Err(LiveError::AlreadyEnded { task: t });
        }
        match self.sys.assigned_to(i) {
            Some(m) if self.sys.machines()[m].running().map(|r| r.task) == Some(i) => Ok(m),
            _ => Err(LiveError::NotStarted { task: t }),
        }
    }

    /// Forgets the tasks that ended, once they are at least as many as those in the system
    /// (and [`COMPACT_MIN`]): the memory held stays within twice the tasks in the system.
    fn compact(&mut self) {
        let open = self.ids.len() - self.hooks.settled;
        if self.keep_records || self.hooks.settled < open.max(COMPACT_MIN) {
            return;
        }
        let kept = self.sys.compact();
        fn pick<T: Copy>(kept: &[usize], v: &[T]) -> Vec<T> {
            kept.iter().map(|&i| v[i]).collect()
        }
        self.ids = pick(&kept, &self.ids);
        self.deadline = pick(&kept, &self.deadline);
        self.hooks.start_seq = pick(&kept, &self.hooks.start_seq);
        self.reported = pick(&kept, &self.reported);
        self.failed = pick(&kept, &self.failed);
        for e in &mut self.ends {
            e.task = kept.binary_search(&e.task).unwrap_or(usize::MAX);
        }
        self.hooks.settled = 0;
        // The heuristic's memos name the old ids.
        match heuristics::build(&self.heuristic, self.drop_model) {
            Ok(m) => self.mapper = m,
            Err(e) => tracing::error!("heuristic not rebuilt: {e}"),
        }
    }

    /// The actions of the system (its task indices) as the dispatcher's.
    fn hand_out(&mut self, out: &mut Vec<Action>) {
        let ids = &self.ids;
        out.extend(self.hooks.actions.drain(..).map(|a| match a {
            Action::Assign { task, machine } => Action::Assign {
                task: ids[task],
                machine,
            },
            Action::Start { task, machine } => Action::Start {
                task: ids[task],
                machine,
            },
            Action::Drop {
                task,
                machine,
                executing,
                reason,
            } => Action::Drop {
                task: ids[task],
                machine,
                executing,
                reason,
            },
            Action::Defer { task } => Action::Defer { task: ids[task] },
        }));
    }

    /// A task of type `task_type` arrives at `now`, due at `deadline` (both seconds): it
    /// joins the batch queue. Returns its id.
    ///
    /// Errors, nothing submitted: a time that is not finite ([`LiveError::NotFinite`]) or
    /// lies beyond 2^52 ticks either side of 0 ([`LiveError::OutOfRange`]), a deadline at or
    /// before `now` ([`LiveError::DeadlineNotAfterArrival`]), a task type outside the PET,
    /// `now` before a time already seen.
    pub fn submit(
        &mut self,
        now: f64,
        task_type: usize,
        deadline: f64,
    ) -> Result<TaskId, LiveError> {
        let now = self.in_range("now", self.check_time("now", now)?)?;
        let deadline = self.in_range("deadline", finite("deadline", deadline)?)?;
        if deadline <= now {
            return Err(LiveError::DeadlineNotAfterArrival {
                deadline,
                arrival: now,
            });
        }
        if task_type >= self.sys.pet().n_types() {
            return Err(LiveError::UnknownTaskType {
                task_type,
                types: self.sys.pet().n_types(),
            });
        }
        let arrival = self.tick(now);
        let spec = TaskSpec {
            id: 0,
            task_type,
            arrival,
            // After the arrival: `deadline > now`, both in the tick range.
            deadline: self.deadline_tick(deadline),
        };
        let i = self.sys.add_task(spec);
        let id = self.submitted;
        self.submitted += 1;
        self.hooks.counts.submitted += 1;
        self.ids.push(id);
        self.deadline.push(deadline);
        self.hooks.start_seq.push(0);
        self.reported.push(false);
        self.failed.push(false);
        self.sys.arrive(i);
        self.latest = now;
        Ok(id)
    }

    /// Task `t`, which a [`Action::Start`] started, actually started at `at` (seconds): when
    /// later than decided, its completion-time PMF starts from `at`.
    ///
    /// A task the same decision started and then dropped (the pruner dropping a task that
    /// just started) is accepted and ignored: the dispatcher acts on the actions in order.
    ///
    /// Like every notification, `at` may not lie before a time already seen
    /// ([`LiveError::TimeWentBackwards`]); it is the latest time seen afterwards, so the
    /// task's end cannot be reported before it.
    pub fn started(&mut self, t: TaskId, at: f64) -> Result<(), LiveError> {
        let i = self.held_index(t)?;
        let at = self.check_time("at", at)?;
        if let Some(i) = i {
            if self.sys.record(i).is_some() && !self.reported[i] && !self.failed[i] {
                self.latest = at;
                return Ok(());
            }
        }
        let m = self.check_executing(t, i)?;
        let i = i.unwrap_or(usize::MAX);
        let tick = self.tick(at);
        let start = self.sys.machines()[m].running().map_or(tick, |r| r.start);
        if tick > start {
            self.sys.restamp_start(m, i, tick);
        }
        self.latest = at;
        Ok(())
    }

    /// Task `t` completed at `at` (seconds): on time when `at` is before its deadline. It
    /// takes effect at the next [`Scheduler::decide`].
    pub fn completed(&mut self, t: TaskId, at: f64) -> Result<(), LiveError> {
        self.report(t, at, false)
    }

    /// Task `t` failed at `at` (seconds) on its machine: it ends without success (not a
    /// deadline miss), and the machine is free. It takes effect at the next
    /// [`Scheduler::decide`].
    pub fn failed(&mut self, t: TaskId, at: f64) -> Result<(), LiveError> {
        self.report(t, at, true)
    }

    fn report(&mut self, t: TaskId, at: f64, failed: bool) -> Result<(), LiveError> {
        let i = self.held_index(t)?;
        self.check_executing(t, i)?;
        let i = i.unwrap_or(usize::MAX);
        let at = self.check_time("at", at)?;
        self.reported[i] = true;
        self.ends.push(Reported {
            tick: self.tick(at),
            seq: self.hooks.start_seq[i],
            task: i,
            at,
            failed,
        });
        self.latest = at;
        Ok(())
    }

    /// What to do at `now` (seconds): applies the ends reported since the previous decision
    /// and the deadlines passed, and, when anything happened, runs one mapping event (the
    /// pruner, then the heuristic). The actions include those the reported ends caused (the
    /// next task starting on a freed machine).
    pub fn decide(&mut self, now: f64) -> Result<Vec<Action>, LiveError> {
        let mut out = Vec::new();
        self.decide_into(now, &mut out)?;
        Ok(out)
    }

    /// [`Scheduler::decide`] appending to `out` (reuses its allocation).
    pub fn decide_into(&mut self, now: f64, out: &mut Vec<Action>) -> Result<(), LiveError> {
        let now = self.check_time("now", now)?;
        let tick = self.tick(now);
        self.latest = now;
        self.compact();
        // The executing tasks dropped at their deadline ([`System::deadline_drop`]) whose
        // deadline has passed on the dispatcher's clock are dropped at `now`.
        let mut ends = std::mem::take(&mut self.ends);
        for mc in self.sys.machines() {
            if let Some(r) = mc.running() {
                if !self.reported[r.task]
                    && self.sys.deadline_drop(r.task).is_some()
                    && self.deadline[r.task] <= now
                {
                    ends.push(Reported {
                        tick,
                        seq: self.hooks.start_seq[r.task],
                        task: r.task,
                        at: now,
                        failed: false,
                    });
                }
            }
        }
        ends.sort_by_key(|e| (e.tick, e.seq));
        for e in ends.drain(..) {
            let Some(m) = self.sys.assigned_to(e.task) else {
                continue;
            };
            let running = self.sys.machines()[m].running();
            if running.map(|r| r.task) != Some(e.task) {
                continue;
            }
            let start = running.map_or(e.tick, |r| r.start);
            let at = e.tick.max(start);
            // A reported end ran for the seconds the dispatcher's clock says, finer than the
            // tick: the time observed (in ticks, for the online estimator) and sampled.
            let observed = self.reported[e.task].then(|| {
                let seconds = (e.at - start as f64 * self.hooks.resolution).max(0.0);
                if let Some(samples) = self.hooks.samples.as_mut() {
                    samples.push(Sample {
                        task_type: self.sys.tasks()[e.task].task_type,
                        machine: m,
                        seconds,
                        censored: e.failed,
                    });
                }
                seconds / self.hooks.resolution
            });
            let (sys, pruner) = (&mut self.sys, &mut self.pruner);
            if e.failed {
                self.failed[e.task] = true;
                sys.end_running(m, at, true, observed, pruner, &mut self.hooks);
            } else if self.reported[e.task] {
                let on_time = system::meets_deadline(e.at, self.deadline[e.task]);
                sys.finish_running(m, at, on_time, observed, pruner, &mut self.hooks);
            } else {
                sys.end_running(m, at, false, None, pruner, &mut self.hooks);
            }
        }
        self.ends = ends;
        if self.sys.mapping_due(tick) {
            self.sys.mapping_event(
                tick,
                &Env::plain(),
                &mut self.mapper,
                &mut self.pruner,
                &mut self.hooks,
            );
        }
        self.hand_out(out);
        Ok(())
    }

    /// The dispatcher stops at `now`: every task still in the batch queue ends unmapped.
    /// Tasks in machine queues stay until they end.
    pub fn close(&mut self, now: f64) -> Result<Vec<Action>, LiveError> {
        let now = self.check_time("now", now)?;
        let mut out = self.decide(now)?;
        let tick = self.tick(now);
        self.sys
            .expire_batch(tick, &mut self.pruner, &mut self.hooks);
        self.hand_out(&mut out);
        Ok(out)
    }

    /// Mapping events so far.
    pub fn mapping_events(&self) -> u64 {
        self.sys.mapping_events()
    }

    /// The pruner's oversubscription level (paper eq. 8) after the last mapping event.
    pub fn level(&self) -> Option<f64> {
        self.pruner.level()
    }
}
