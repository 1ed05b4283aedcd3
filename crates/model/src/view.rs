//! The read-only view of the system that heuristics and the pruner decide on.

use pmf::{DropModel, Pmf, TailCdf, Tick};
use workload::{Pet, Staging};

use crate::machine::{Cache, Machine, Slot, Stale};
use crate::task::{MachineId, TaskId, TaskSpec};

/// A snapshot of the system at a mapping event. Machines are at `now`; their PCTs are
/// computed on first read ([`View::cache`]), trimmed at each machine's
/// [`Machine::pct_epsilon`] (0 = exact), which code building further PCTs applies too.
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

impl<'a> View<'a> {
    /// Machine `m`'s PCTs at `now`, computed on first use.
    pub fn cache(&self, m: MachineId) -> &'a Cache {
        let machine: &'a Machine = &self.machines[m];
        debug_assert_eq!(machine.now(), self.now, "machine {m} was not advanced");
        machine.cache(self.tasks, self.pet, self.model)
    }

    /// Machine `m`'s queue positions at `now`, executing first.
    pub fn slots(&self, m: MachineId) -> &'a [Slot] {
        self.cache(m).slots()
    }

    /// Machine `m`'s tail CDF at `now`.
    pub fn tail(&self, m: MachineId) -> &'a TailCdf {
        self.cache(m).tail()
    }

    /// Machine `m`'s expected tail at `now` (`tail(m).mean()` without building the CDF).
    pub fn tail_mean(&self, m: MachineId) -> f64 {
        self.cache(m).tail_mean()
    }

    /// Machine `m`'s tail variance at `now` (`Var` of [`View::tail_pct`], 0 when empty),
    /// computed once per cache ([`Cache::tail_variance`]).
    pub fn tail_variance(&self, m: MachineId) -> f64 {
        self.cache(m).tail_variance()
    }

    /// Machine `m`'s tail PCT at `now` (`None` when it is empty).
    pub fn tail_pct(&self, m: MachineId) -> Option<&'a Pmf> {
        self.cache(m).tail_pct()
    }

    /// Bounds from machine `m`'s earlier cache while its PCTs at `now` are not computed
    /// ([`Machine::stale`]).
    pub fn stale(&self, m: MachineId) -> Option<Stale<'a>> {
        let machine: &'a Machine = &self.machines[m];
        machine.stale(self.tasks, self.pet, self.model)
    }

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
