//! The plug points: batch and immediate mapping heuristics, and the pruner. Policies return
//! decisions as data; only the shared rules (`system::System`, which the simulator's
//! engine and the live scheduler both run) mutate the system.

use crate::task::{MachineId, TaskId};
use crate::view::View;

/// What a batch heuristic decided at one mapping event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// Tasks to append to machine queues, in this order.
    pub assign: Vec<(TaskId, MachineId)>,
    /// Tasks left in the batch queue because their best chance was at or below the defer
    /// threshold (counted per task).
    pub deferred: Vec<TaskId>,
    /// Tasks removed from the batch queue for good (e.g. MOC's tasks that cannot make their
    /// deadline anywhere).
    pub discard: Vec<TaskId>,
    /// Pending tasks dropped from machine queues by the heuristic itself (MOC's culling below
    /// alpha, JPDC-2016 6.2.5). Applied before the assignments.
    pub drop: Vec<TaskId>,
}

/// A batch-mode mapping heuristic (thesis 3.3.1): maps tasks of the batch queue into free
/// slots of the bounded machine queues.
pub trait BatchHeuristic: Send {
    /// A short name, e.g. `"MM"`.
    fn name(&self) -> &str;
    /// Decides the mapping for this event. Must not assign more tasks to a machine than it
    /// has free slots, nor a task twice, nor a task outside the batch.
    fn map(&mut self, view: &View<'_>) -> Decision;
    /// The plain reference loop [`BatchHeuristic::map`] is held to: the same decision on
    /// every view (for a heuristic whose `map` takes shortcuts); `None` when it has none.
    /// The reference tests of `heuristics` run it for every heuristic of its registry.
    fn reference_map(&self, _view: &View<'_>) -> Option<Decision> {
        None
    }
}

/// An immediate-mode heuristic (thesis 3.3.2): maps each arriving task at once to an
/// unbounded machine queue.
pub trait ImmediateHeuristic: Send {
    /// A short name, e.g. `"FCFS"`.
    fn name(&self) -> &str;
    /// Chooses the machine for `task`.
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId;
    /// The plain definition [`ImmediateHeuristic::choose`] is held to: the same machine on
    /// every view; `None` when it has none (as [`BatchHeuristic::reference_map`]).
    fn reference_choose(&self, _view: &View<'_>, _task: TaskId) -> Option<MachineId> {
        None
    }
}

/// The pruner (thesis chapter 4, paper V): drops queued or running tasks whose chance is too
/// low while the system is oversubscribed, and gives the mapper its defer thresholds.
pub trait Pruner: Send {
    /// A short description for logs.
    fn name(&self) -> String;
    /// Called at the start of every mapping event with the number of deadline misses since the
    /// previous one (`mu_t` of paper eq. (8)); returns whether dropping is engaged.
    fn observe(&mut self, misses: usize) -> bool;
    /// The tasks to drop from the machine queues (executing or pending) at this event, when
    /// dropping is engaged. An executing task can be dropped only under
    /// [`pmf::DropModel::All`]; under the other models the engine keeps it running and logs a
    /// warning.
    fn select_drops(&mut self, view: &View<'_>) -> Vec<TaskId>;
    /// Defer thresholds per task type, `None` when deferring is off.
    fn defer_thresholds(&self) -> Option<&[f64]>;
    /// A task left the system: `success` is true when it completed on time. Drives fairness.
    fn on_task_end(&mut self, task_type: usize, success: bool);
    /// A copy of this pruner in its present state (engagement, fairness), for a simulation
    /// run forward from the present (the `rollout` of `runner`); `None` (the default) when
    /// it cannot be copied, which such a simulation refuses.
    fn fork(&self) -> Option<Box<dyn Pruner>> {
        None
    }
    /// The oversubscription level after the last [`Pruner::observe`] (`d_t` of paper eq. 8),
    /// for traces; `None` (the default) for a pruner without one.
    fn level(&self) -> Option<f64> {
        None
    }
}

/// No pruning at all: never drops, never defers.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPruner;

impl Pruner for NoPruner {
    fn name(&self) -> String {
        "none".into()
    }
    fn observe(&mut self, _misses: usize) -> bool {
        false
    }
    fn select_drops(&mut self, _view: &View<'_>) -> Vec<TaskId> {
        Vec::new()
    }
    fn defer_thresholds(&self) -> Option<&[f64]> {
        None
    }
    fn on_task_end(&mut self, _task_type: usize, _success: bool) {}
    fn fork(&self) -> Option<Box<dyn Pruner>> {
        Some(Box::new(*self))
    }
}
