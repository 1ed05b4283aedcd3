//! The read-only view of the system that heuristics and the pruner decide on.

use pmf::{DropModel, Tick};
use workload::{Pet, Staging};

use crate::machine::Machine;
use crate::task::{TaskId, TaskSpec};

/// A snapshot of the system at a mapping event. Machines' PCT caches are fresh at `now`.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// The current tick.
    pub now: Tick,
    /// The PET matrix (execution-time PMFs per task type and machine).
    pub pet: &'a Pet,
    /// Every task of the trial, indexed by id.
    pub tasks: &'a [TaskSpec],
    /// The batch queue: unmapped tasks in arrival order.
    pub batch: &'a [TaskId],
    /// The machines with their queues and cached PCTs.
    pub machines: &'a [Machine],
    /// The dropping scenario the PCTs are computed under.
    pub model: DropModel,
    /// Defer thresholds per task type: a task whose best success probability is at or below
    /// its type's threshold is not mapped (`None`: deferring is off).
    pub defer: Option<&'a [f64]>,
    /// Input-data staging of the trial (JPDC-2016), `None` when staging is off.
    pub staging: Option<&'a Staging>,
}

impl View<'_> {
    /// The spec of a task.
    pub fn task(&self, id: TaskId) -> &TaskSpec {
        &self.tasks[id]
    }

    /// True when the task should be deferred given its best success probability.
    pub fn should_defer(&self, id: TaskId, best_success: f64) -> bool {
        match self.defer {
            Some(th) => best_success <= th[self.tasks[id].task_type],
            None => false,
        }
    }
}
