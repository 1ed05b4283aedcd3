//! The pruner on its own, for a scheduler of one's own: one queue type ([`Queue`] of
//! [`Task`]s), one call per decision ([`Pruner::verdict`] for a task of the batch queue,
//! [`Pruner::drops`] for the machine queues), and the oversubscription detector kept inside
//! (the caller reports how tasks end, [`Pruner::ended`], and starts each mapping event,
//! [`Pruner::mapping_event`]). Nothing here names the simulator's types: tasks are a type, a
//! deadline tick and a row of the PET, machines are the positions of a slice of queues.
//!
//! The decisions are those of the simulator's pruner and PAM's first phase on the same
//! state, computed by the same functions: the drop walk of thesis Algorithm 1
//! ([`ProbabilisticPruner::drops_for_queue`]), the completion-time PMFs of paper eqs. (2)-(5)
//! ([`pmf::evaluate_queue`]) and the append query ([`TailCdf::append_success`]). A property
//! test (`crates/heuristics/tests/it/standalone.rs`) holds them equal to the simulator's
//! pruner and to the reference loop of PAM on random systems.
//!
//! ```
//! use pmf::{DropModel, ExecPmf, Pmf};
//! use pruner::PrunerConfig;
//! use pruner::standalone::{End, Pruner, Queue, Task, Verdict};
//!
//! // One task type; machine 0 takes 2 or 4 ticks, machine 1 always 3.
//! let row = [Pmf::new(2, vec![0.5, 0.0, 0.5]).unwrap(), Pmf::point(3)].map(ExecPmf::from);
//! let mut pruner = Pruner::new(PrunerConfig::default(), 1, DropModel::All).unwrap();
//! let mut queues = vec![Queue::new(Some(4)), Queue::new(Some(4))];
//! let task = Task { task_type: 0, deadline: 4, pet: &row };
//! // At tick 0 both machines are idle: machine 1 makes the deadline surely.
//! assert!(!pruner.mapping_event());
//! assert_eq!(pruner.verdict(0, &task, &queues).unwrap(), Verdict::Map { machine: 1, chance: 1.0 });
//! // Machine 1 busy until tick 3: the best chance is machine 0's 50%, at or below the
//! // paper's defer threshold of 90%, so the task waits in the batch queue.
//! queues[1].executing = Some((Task { deadline: 10, ..task }, 0));
//! assert_eq!(pruner.verdict(0, &task, &queues).unwrap(), Verdict::Defer { machine: 0, chance: 0.5 });
//! // Past its deadline it leaves the system.
//! assert_eq!(pruner.verdict(4, &task, &queues).unwrap(), Verdict::Drop);
//! // Two deadline misses engage dropping (paper eq. (8), lambda 0.9, toggle 1).
//! pruner.ended(0, End::Missed);
//! pruner.ended(0, End::Missed);
//! assert!(pruner.mapping_event());
//! ```

use pmf::{DropModel, ExecPmf, Executing, Pending, PmfError, TailCdf, Tick, evaluate_queue};
use thiserror::Error;

use crate::{ConfigError, ProbabilisticPruner, PrunerConfig, QueuedTask};

/// A task as the standalone pruner sees it, in the batch queue or in a machine queue.
#[derive(Debug, Clone, Copy)]
pub struct Task<'a> {
    /// Its type (for the per-type thresholds and fairness).
    pub task_type: usize,
    /// Its deadline tick: it succeeds when it completes strictly before it.
    pub deadline: Tick,
    /// Its execution-time PMF on each machine (its type's row of the PET): `pet[m]` for
    /// machine `m`, the position of the machine's queue in the slice the calls take.
    pub pet: &'a [ExecPmf],
}

impl<'a> Task<'a> {
    fn pet_on(&self, machine: usize) -> Result<&'a ExecPmf, StandaloneError> {
        self.pet.get(machine).ok_or(StandaloneError::MissingPet {
            task_type: self.task_type,
            machine,
        })
    }
}

/// One machine's FCFS queue: the executing task with the tick it started, then the pending
/// tasks in order, and the most tasks the queue holds (the executing one included).
#[derive(Debug, Clone, Default)]
pub struct Queue<'a> {
    /// The executing task and its start tick, if any.
    pub executing: Option<(Task<'a>, Tick)>,
    /// The pending tasks, first to start first.
    pub pending: Vec<Task<'a>>,
    /// The queue size limit (`None`: unbounded).
    pub limit: Option<usize>,
}

impl<'a> Queue<'a> {
    /// An empty queue holding at most `limit` tasks (`None`: unbounded).
    pub fn new(limit: Option<usize>) -> Self {
        Queue {
            executing: None,
            pending: Vec::new(),
            limit,
        }
    }

    /// The tasks in the queue, the executing one included.
    pub fn len(&self) -> usize {
        self.pending.len() + usize::from(self.executing.is_some())
    }

    /// True when nothing executes or waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when the queue can take one more task.
    pub fn has_room(&self) -> bool {
        self.limit.is_none_or(|l| self.len() < l)
    }
}

/// What to do with a task of the batch queue at a mapping event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Map it to `machine`: the machine of the highest success probability, ties by the
    /// least expected completion time, then by the lower index (PAM's first phase, thesis
    /// Algorithm 2; ties within the decision slack, see [`Pruner::verdict`]); `chance` is its
    /// success probability there, above its type's defer threshold.
    Map {
        /// The machine (the position of its queue).
        machine: usize,
        /// The success probability on it.
        chance: f64,
    },
    /// Keep it in the batch queue for the next mapping event: its chance on its best
    /// `machine` is at or below its type's defer threshold (deferring, paper V-B), or that
    /// machine's queue is full (the task waits for it).
    Defer {
        /// Its best machine.
        machine: usize,
        /// The success probability on it.
        chance: f64,
    },
    /// Remove it: its deadline has passed (a deadline miss; report it with [`End::Missed`]).
    Drop,
}

/// Which tasks of one machine queue to drop ([`Pruner::drops`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueueDrops {
    /// Drop (kill) the executing task.
    pub executing: bool,
    /// Drop pending task `i`, per position.
    pub pending: Vec<bool>,
}

impl QueueDrops {
    /// True when nothing is dropped.
    pub fn is_empty(&self) -> bool {
        !self.executing && !self.pending.contains(&true)
    }
}

/// How a task left the system, as the pruner counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// It completed before its deadline.
    OnTime,
    /// It missed its deadline by the clock: it completed late, or its deadline passed while
    /// it waited or executed. These misses drive the oversubscription level (paper eq. (8)).
    Missed,
    /// A decision dropped it before its deadline (the pruner's, or the scheduler's own).
    Dropped,
}

/// A misuse of the standalone pruner.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StandaloneError {
    /// A task's PET row has no PMF for a machine it was asked about.
    #[error("task type {task_type} has no execution-time PMF for machine {machine}")]
    MissingPet {
        /// The task's type.
        task_type: usize,
        /// The machine.
        machine: usize,
    },
    /// A verdict was asked with no machine.
    #[error("no machine queue given")]
    NoMachines,
    /// A completion-time PMF along a queue is too wide to hold ([`pmf::next_pct`]).
    #[error(transparent)]
    Pmf(#[from] PmfError),
}

/// The pruner of the papers for a scheduler of one's own: the drop and defer thresholds of
/// a [`PrunerConfig`], the drop model, and the oversubscription detector's state.
#[derive(Debug, Clone)]
pub struct Pruner {
    inner: ProbabilisticPruner,
    model: DropModel,
    misses: usize,
    engaged: bool,
}

impl Pruner {
    /// A pruner for `task_types` task types under the drop model `model` (which tasks the
    /// system drops at their deadline: see [`DropModel`]).
    ///
    /// # Errors
    /// As [`ProbabilisticPruner::new`]: an out-of-range setting or too many task types.
    pub fn new(
        config: PrunerConfig,
        task_types: usize,
        model: DropModel,
    ) -> Result<Self, ConfigError> {
        Ok(Pruner {
            inner: ProbabilisticPruner::new(config, task_types)?,
            model,
            misses: 0,
            engaged: false,
        })
    }

    /// The pruner underneath (its thresholds, fairness and detector).
    pub fn inner(&self) -> &ProbabilisticPruner {
        &self.inner
    }

    /// The drop model.
    pub fn model(&self) -> DropModel {
        self.model
    }

    /// A task of `task_type` left the system: a miss counts toward the next mapping event's
    /// oversubscription level, and every end toward fairness (its type's relief).
    pub fn ended(&mut self, task_type: usize, end: End) {
        if end == End::Missed {
            self.misses += 1;
        }
        self.inner.record_end(task_type, end == End::OnTime);
    }

    /// Starts a mapping event: the misses reported since the previous one update the
    /// oversubscription level (paper eq. (8)) and the toggle or Schmitt trigger. Returns
    /// whether dropping is engaged for this event; [`Pruner::drops`] follows it.
    pub fn mapping_event(&mut self) -> bool {
        let misses = std::mem::take(&mut self.misses);
        self.engaged = self.inner.observe_misses(misses);
        self.engaged
    }

    /// Whether dropping is engaged (as the last [`Pruner::mapping_event`] found).
    pub fn engaged(&self) -> bool {
        self.engaged
    }

    /// The oversubscription level `d_t` of paper eq. (8).
    pub fn level(&self) -> f64 {
        self.inner.engagement().level()
    }

    /// The defer threshold of a task type; `None` when deferring is off.
    pub fn defer_threshold(&self, task_type: usize) -> Option<f64> {
        self.inner.defer_threshold(task_type)
    }

    /// Which tasks of each machine queue to drop at `now`, one [`QueueDrops`] per queue.
    /// While dropping is engaged, the walk of thesis Algorithm 1: from the executing task
    /// on, each task whose success probability given the kept tasks ahead is at or below its
    /// drop threshold (the executing task only under [`DropModel::All`]). Whether engaged or
    /// not, the tasks whose deadline has passed where the drop model drops them: pending
    /// tasks unless the model is [`DropModel::None`], the executing task under
    /// [`DropModel::All`] (deadline misses: report them with [`End::Missed`], the others
    /// with [`End::Dropped`]).
    ///
    /// # Errors
    /// [`StandaloneError::MissingPet`] for a task without a PMF for its machine;
    /// [`StandaloneError::Pmf`] for a PCT too wide to hold.
    pub fn drops(
        &self,
        now: Tick,
        queues: &[Queue<'_>],
    ) -> Result<Vec<QueueDrops>, StandaloneError> {
        queues
            .iter()
            .enumerate()
            .map(|(m, q)| self.drops_on(now, m, q))
            .collect()
    }

    fn drops_on(&self, now: Tick, m: usize, q: &Queue<'_>) -> Result<QueueDrops, StandaloneError> {
        let walked = if self.engaged {
            let mut tasks = Vec::with_capacity(q.len());
            for (task, start) in q
                .executing
                .iter()
                .map(|&(t, s)| (t, Some(s)))
                .chain(q.pending.iter().map(|&t| (t, None)))
            {
                tasks.push(QueuedTask {
                    task_type: task.task_type,
                    pet: task.pet_on(m)?,
                    deadline: task.deadline,
                    start,
                });
            }
            Some(self.inner.drops_for_queue(now, &tasks, self.model)?)
        } else {
            None
        };
        let first = usize::from(q.executing.is_some());
        let walk = |i: usize| walked.as_ref().is_some_and(|w| w[i]);
        Ok(QueueDrops {
            executing: q.executing.is_some_and(|(t, _)| {
                walk(0) || (self.model == DropModel::All && t.deadline <= now)
            }),
            pending: q
                .pending
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    walk(first + i) || (self.model != DropModel::None && t.deadline <= now)
                })
                .collect(),
        })
    }

    /// The verdict on a task of the batch queue at `now`, given the machine queues: drop it
    /// when its deadline has passed; else its best machine by PAM's first phase (the highest
    /// success probability of the task appended to the queue, ties by the least expected
    /// completion time, then the lower index), where it is deferred when that chance is at or
    /// below its type's defer threshold or the queue is full, and mapped otherwise. Ask again
    /// for the next task once a mapped one is in its queue. Ties are PAM's
    /// (`heuristics::plan`, "Ties"): of the machines whose chance is within
    /// [`pmf::prec::DECISION_SLACK`] of the highest, those whose expected completion ties with
    /// the least of theirs ([`pmf::prec::times_tie`]), the lowest index.
    ///
    /// # Errors
    /// [`StandaloneError::NoMachines`] for an empty `queues`;
    /// [`StandaloneError::MissingPet`] for a task without a PMF for a machine;
    /// [`StandaloneError::Pmf`] for a PCT too wide to hold.
    pub fn verdict(
        &self,
        now: Tick,
        task: &Task<'_>,
        queues: &[Queue<'_>],
    ) -> Result<Verdict, StandaloneError> {
        if queues.is_empty() {
            return Err(StandaloneError::NoMachines);
        }
        if task.deadline <= now {
            return Ok(Verdict::Drop);
        }
        // (machine, chance, expected completion) of every machine.
        let mut scored: Vec<(usize, f64, f64)> = Vec::with_capacity(queues.len());
        for (m, q) in queues.iter().enumerate() {
            let pet = task.pet_on(m)?;
            let tail = self.tail(now, m, q)?;
            let chance = tail.append_success(pet, task.deadline);
            let ect = tail.mean() + pet.mean();
            scored.push((m, chance, ect));
        }
        let top = scored.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
        let near = || scored.iter().filter(|s| pmf::prec::chance_ties(s.1, top));
        let least = near().map(|s| s.2).fold(f64::INFINITY, f64::min);
        let Some(&(machine, chance, _)) = near().find(|s| pmf::prec::times_tie(s.2, least)) else {
            return Err(StandaloneError::NoMachines);
        };
        let deferred = self
            .defer_threshold(task.task_type)
            .is_some_and(|q| chance <= q);
        Ok(if deferred || !queues[machine].has_room() {
            Verdict::Defer { machine, chance }
        } else {
            Verdict::Map { machine, chance }
        })
    }

    /// The CDF of machine `m`'s free time at `now`: the completion time of the last task of
    /// its queue (paper eqs. (2)-(5)), or `now` when empty.
    fn tail(&self, now: Tick, m: usize, q: &Queue<'_>) -> Result<TailCdf, StandaloneError> {
        let executing = match q.executing {
            Some((t, start)) => Some(Executing {
                pet: t.pet_on(m)?,
                start,
                deadline: t.deadline,
            }),
            None => None,
        };
        let pending = q
            .pending
            .iter()
            .map(|t| {
                Ok(Pending {
                    pet: t.pet_on(m)?,
                    deadline: t.deadline,
                })
            })
            .collect::<Result<Vec<_>, StandaloneError>>()?;
        let positions = evaluate_queue(now, executing, &pending, self.model)?;
        Ok(match positions.last() {
            Some(p) => TailCdf::new(&p.pct),
            None => TailCdf::idle(now),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmf::Pmf;

    fn row() -> [ExecPmf; 2] {
        // Machine 0: 2 or 4 ticks, half and half; machine 1: 3 ticks.
        [Pmf::new(2, vec![0.5, 0.0, 0.5]).unwrap(), Pmf::point(3)].map(ExecPmf::from)
    }

    fn pruner(defer: Option<f64>) -> Pruner {
        let config = PrunerConfig {
            defer_threshold: defer,
            ..PrunerConfig::default()
        };
        Pruner::new(config, 1, DropModel::All).unwrap()
    }

    #[test]
    fn an_idle_system_maps_to_the_surest_machine() {
        let row = row();
        let task = Task {
            task_type: 0,
            deadline: 4,
            pet: &row,
        };
        let queues = [Queue::new(None), Queue::new(None)];
        // P(0 + X0 < 4) = P(X0 = 2) = 0.5; P(0 + 3 < 4) = 1.
        assert_eq!(
            pruner(Some(0.9)).verdict(0, &task, &queues).unwrap(),
            Verdict::Map {
                machine: 1,
                chance: 1.0
            }
        );
    }

    #[test]
    fn a_busy_best_machine_defers_below_the_threshold_and_maps_without_deferring() {
        let row = row();
        let task = Task {
            task_type: 0,
            deadline: 4,
            pet: &row,
        };
        let mut queues = [Queue::new(None), Queue::new(None)];
        // Machine 1 executes since tick 0 a task of 3 ticks: the candidate would end at 6.
        queues[1].executing = Some((
            Task {
                deadline: 10,
                ..task
            },
            0,
        ));
        let defer = Verdict::Defer {
            machine: 0,
            chance: 0.5,
        };
        assert_eq!(pruner(Some(0.9)).verdict(0, &task, &queues).unwrap(), defer);
        // A chance equal to the threshold defers too (at or below).
        assert_eq!(pruner(Some(0.5)).verdict(0, &task, &queues).unwrap(), defer);
        let map = Verdict::Map {
            machine: 0,
            chance: 0.5,
        };
        assert_eq!(pruner(Some(0.4)).verdict(0, &task, &queues).unwrap(), map);
        assert_eq!(pruner(None).verdict(0, &task, &queues).unwrap(), map);
        // A full best machine: the task waits for it.
        queues[0].limit = Some(0);
        assert_eq!(pruner(None).verdict(0, &task, &queues).unwrap(), defer);
    }

    #[test]
    fn equal_chances_go_to_the_least_expected_completion_then_the_lower_index() {
        // Both machines make the deadline surely; machine 1 (3 ticks) ends before machine 0
        // (E = 3 as well, then ties by index): 2 or 4 has mean 3, so the lower index wins.
        let row = row();
        let task = Task {
            task_type: 0,
            deadline: 10,
            pet: &row,
        };
        let queues = [Queue::new(None), Queue::new(None)];
        assert_eq!(
            pruner(None).verdict(0, &task, &queues).unwrap(),
            Verdict::Map {
                machine: 0,
                chance: 1.0
            }
        );
        // With machine 0 busy for 2 or 4 ticks, machine 1 ends first (E = 3 vs 6).
        let mut queues = queues;
        queues[0].executing = Some((task, 0));
        assert_eq!(
            pruner(None).verdict(0, &task, &queues).unwrap(),
            Verdict::Map {
                machine: 1,
                chance: 1.0
            }
        );
    }

    #[test]
    fn a_task_past_its_deadline_is_dropped_and_misuse_is_an_error() {
        let row = row();
        let task = Task {
            task_type: 0,
            deadline: 4,
            pet: &row,
        };
        let p = pruner(Some(0.9));
        assert_eq!(
            p.verdict(4, &task, &[Queue::new(None)]).unwrap(),
            Verdict::Drop
        );
        assert_eq!(p.verdict(0, &task, &[]), Err(StandaloneError::NoMachines));
        let short = Task {
            pet: &row[..1],
            ..task
        };
        assert_eq!(
            p.verdict(0, &short, &[Queue::new(None), Queue::new(None)]),
            Err(StandaloneError::MissingPet {
                task_type: 0,
                machine: 1
            })
        );
    }

    #[test]
    fn drops_follow_the_engagement_and_expiries_need_none() {
        // The crate-level example's queue: PET 40..=43 uniform, executing since 0 with
        // deadline 50, a hopeless task (deadline 60: it cannot start before 40), then one
        // with deadline 130.
        let pet = [ExecPmf::from(Pmf::new(40, vec![0.25; 4]).unwrap())];
        let t = |deadline| Task {
            task_type: 0,
            deadline,
            pet: &pet,
        };
        let mut q = Queue::new(None);
        q.executing = Some((t(50), 0));
        q.pending = vec![t(60), t(130)];
        let mut p = pruner(Some(0.9));
        // Not engaged: nothing is past its deadline at tick 10, nothing dropped.
        assert!(!p.mapping_event());
        assert!(p.drops(10, std::slice::from_ref(&q)).unwrap()[0].is_empty());
        // At tick 60 the second task's deadline has passed: it expires without the pruner.
        assert_eq!(
            p.drops(60, std::slice::from_ref(&q)).unwrap()[0],
            QueueDrops {
                executing: true,
                pending: vec![true, false]
            }
        );
        // Paper eq. (8), lambda 0.9, toggle 1: one miss gives d = 0.9 < 1; then two misses
        // (and an on-time end, which is no miss) give 0.9 * 2 + 0.1 * 0.9 = 1.89 >= 1.
        p.ended(0, End::Missed);
        assert!(!p.mapping_event());
        assert!((p.level() - 0.9).abs() < 1e-12);
        p.ended(0, End::Missed);
        p.ended(0, End::Missed);
        p.ended(0, End::OnTime);
        assert!(p.mapping_event());
        assert!((p.level() - 1.89).abs() < 1e-12);
        // Engaged: the walk drops the hopeless task (P = 0 <= 0.5) and keeps the others
        // (the executing one ends by 43 < 50; the last ends at 80..=86 < 130).
        assert_eq!(
            p.drops(10, std::slice::from_ref(&q)).unwrap()[0],
            QueueDrops {
                executing: false,
                pending: vec![true, false]
            }
        );
    }

    #[test]
    fn a_dropped_end_is_no_miss() {
        let mut p = pruner(Some(0.9));
        for _ in 0..5 {
            p.ended(0, End::Dropped);
        }
        assert!(!p.mapping_event());
        assert_eq!(p.level(), 0.0);
    }
}
