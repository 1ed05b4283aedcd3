//! What the rules report and whom they ask ([`Hooks`]), the environment of a mapping event
//! ([`Env`]), and what every task's end records ([`TaskRecord`], [`Records`], [`Cause`]).

use model::{MachineId, Outcome, TaskId, TaskSpec};
use pmf::Tick;
use serde::{Deserialize, Serialize};
use workload::Staging;

#[cfg(doc)]
use super::System;

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

/// What a finished run leaves ([`System::into_records`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    /// Per task, in id order.
    pub tasks: Vec<TaskRecord>,
    /// Ticks each machine spent executing.
    pub busy: Vec<Tick>,
    /// Ticks each machine spent executing tasks that did not complete on time.
    pub wasted: Vec<Tick>,
}

/// Why a task's outcome was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The executing task ended by itself (a completion, on time or late).
    Completion,
    /// The executing task failed (live dispatchers only).
    Failure,
    /// The scheduler decided it: a drop, an expiry, a discard.
    Decision,
}

/// The settings that hold for a whole run: the JPDC-2016 additions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Env<'a> {
    /// Input-data staging draws of the trial; `None` = data are always ready.
    pub staging: Option<&'a Staging>,
    /// Mapping events before machines go idle (JPDC-2016 eqs. 3-5); batch mode only.
    pub early_mapping: bool,
    /// `t_h` of JPDC-2016 eq. (5): the heuristic's execution time, time units.
    pub heuristic_time: f64,
}

impl Env<'_> {
    /// The thesis' system: no staging, no early mapping.
    pub fn plain() -> Self {
        Env::default()
    }
}

/// What the owner of a [`System`] learns or provides as the rules run. Every method but
/// [`Hooks::started`] has a default that does nothing.
pub trait Hooks {
    /// Machine `m` starts task `spec` at `now`: returns its actual execution time when the
    /// caller knows it (the simulator, which schedules its end), else 0 (a live dispatcher,
    /// which reports the end). `stop` is the tick it is dropped at if it still executes
    /// then, its deadline ([`System::deadline_drop`]), `None` when it runs to its end.
    fn started(&mut self, m: MachineId, spec: &TaskSpec, now: Tick, stop: Option<Tick>) -> Tick;
    /// Machine `m` is idle and waits for its head task's staged data: wake it at `at`.
    fn wait_data(&mut self, _m: MachineId, _at: Tick) {}
    /// A task has its outcome.
    fn settled(&mut self, _spec: &TaskSpec, _record: &TaskRecord, _deferrals: u32, _cause: Cause) {}
    /// A mapping event starts at `now`.
    fn begin_event(&mut self, _now: Tick) {}
    /// The pruner's step is done (see `runner::trace::Tracer::pruned`; called only when
    /// [`Hooks::traced`]).
    fn pruned(
        &mut self,
        _misses: usize,
        _level: Option<f64>,
        _engaged: bool,
        _batch: usize,
        _free_slots: Option<usize>,
    ) {
    }
    /// The heuristic considers the tasks of `batch` at `now`.
    fn considered(&mut self, _batch: &[TaskId], _now: Tick) {}
    /// The heuristic asks to drop these tasks (before they are dropped).
    fn heuristic_drops(&mut self, _drops: &[TaskId]) {}
    /// The heuristic deferred `t` at `now`.
    fn deferred(&mut self, _t: TaskId, _now: Tick) {}
    /// `t` was appended to machine `m`'s queue at `now`.
    fn assigned(&mut self, _t: TaskId, _m: MachineId, _now: Tick) {}
    /// True when the hooks record a trace: the rules then compute what only a trace reads
    /// (the free slots of [`Hooks::pruned`], each mapped task's chance for [`Hooks::mapped`],
    /// which may cost a PCT).
    fn traced(&self) -> bool {
        false
    }
    /// `t` was appended to a machine's queue at `now` with this chance of meeting its
    /// deadline there (called only when [`Hooks::traced`]).
    fn mapped(&mut self, _t: TaskId, _now: Tick, _chance: f64) {}
}
