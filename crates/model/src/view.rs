//! The read-only view of the system that heuristics and the pruner decide on: the machine
//! queues, the batch queue, and the [`Oracle`]'s answers about them in the papers' terms.

use pmf::{DropModel, Pmf, TailCdf, Tick};
use workload::{Pet, Staging};

use crate::machine::Machine;
use crate::oracle::{Cache, Oracle, Slot, Stale};
use crate::task::{MachineId, TaskId, TaskSpec};

/// What is known of a value without computing anything new: the value itself, or a bound on
/// it, or nothing. A policy that needs the value asks for it (which may compute it); a policy
/// that can decide on a bound uses this to skip the work.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Known {
    /// The value.
    Exact(f64),
    /// At least this.
    AtLeast(f64),
    /// At most this.
    AtMost(f64),
    /// Nothing known without computing.
    Unknown,
}

/// A snapshot of the system at a mapping event. Every answer about a machine's queue (its
/// tasks' completion-time PMFs and chances, its tail, expected completions, bounds) comes
/// from the [`Oracle`], computed on first use at this tick; PMFs are trimmed at
/// [`View::pct_epsilon`] (0 = exact), which code building further PMFs applies too. The
/// oracle itself is sealed: a policy asks the view's questions ([`View::queue`],
/// [`View::tail`], [`View::append_success`] and their `_known` forms), never the oracle, and
/// reads the rest of the snapshot through accessors ([`View::now`], [`View::batch`], ...).
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// The current tick.
    pub(crate) now: Tick,
    /// The PET matrix (execution-time PMFs per task type and machine).
    pub(crate) pet: &'a Pet,
    /// Every task of the trial, indexed by id.
    pub(crate) tasks: &'a [TaskSpec],
    /// The batch queue: unmapped tasks in arrival order.
    pub(crate) batch: &'a [TaskId],
    /// The machines with their queues.
    pub(crate) machines: &'a [Machine],
    /// What is derived from the queues (read through the view's questions alone, and by
    /// [`crate::VirtualQueues`]).
    pub(crate) oracle: &'a Oracle,
    /// The dropping scenario the PMFs are computed under.
    pub(crate) model: DropModel,
    /// Defer thresholds per task type: a task whose best success probability is at or below
    /// its type's threshold is not mapped (`None`: deferring is off).
    pub(crate) defer: Option<&'a [f64]>,
    /// Input-data staging of the trial (JPDC-2016), `None` when staging is off.
    pub(crate) staging: Option<&'a Staging>,
}

impl<'a> View<'a> {
    /// The view of `machines` (their queues of `tasks`, at `now`) with the batch queue
    /// `batch`, its answers from `oracle` (synced to `now`) under the PET `pet` and the
    /// dropping scenario `model`; deferring and staging off ([`View::with_defer`],
    /// [`View::with_staging`]).
    pub fn new(
        now: Tick,
        pet: &'a Pet,
        tasks: &'a [TaskSpec],
        batch: &'a [TaskId],
        machines: &'a [Machine],
        oracle: &'a Oracle,
        model: DropModel,
    ) -> Self {
        View {
            now,
            pet,
            tasks,
            batch,
            machines,
            oracle,
            model,
            defer: None,
            staging: None,
        }
    }

    /// The current tick.
    pub fn now(&self) -> Tick {
        self.now
    }

    /// The PET matrix the policies read (execution-time PMFs per task type and machine).
    pub fn pet(&self) -> &'a Pet {
        self.pet
    }

    /// Every task of the trial, indexed by id ([`View::task`] reads one).
    pub fn tasks(&self) -> &'a [TaskSpec] {
        self.tasks
    }

    /// The batch queue: unmapped tasks in arrival order.
    pub fn batch(&self) -> &'a [TaskId] {
        self.batch
    }

    /// The machines with their queues.
    pub fn machines(&self) -> &'a [Machine] {
        self.machines
    }

    /// The dropping scenario the PMFs are computed under.
    pub fn model(&self) -> DropModel {
        self.model
    }

    /// Defer thresholds per task type (`None`: deferring is off; [`View::should_defer`]
    /// applies them).
    pub fn defer(&self) -> Option<&'a [f64]> {
        self.defer
    }

    /// Input-data staging of the trial (JPDC-2016), `None` when staging is off.
    pub fn staging(&self) -> Option<&'a Staging> {
        self.staging
    }

    /// The same view with the defer thresholds per task type `defer` (`None`: off).
    pub fn with_defer(self, defer: Option<&'a [f64]>) -> Self {
        View { defer, ..self }
    }

    /// The same view with the trial's input-data staging `staging` (`None`: off).
    pub fn with_staging(self, staging: Option<&'a Staging>) -> Self {
        View { staging, ..self }
    }

    /// The same view answered by `oracle` instead (another oracle of the same machines at
    /// the same tick: a copy whose reads leave the first untouched).
    pub fn with_oracle(self, oracle: &'a Oracle) -> Self {
        View { oracle, ..self }
    }

    /// Machine `m`'s PMFs at `now`, computed on first use (for the accelerated searches that
    /// work on the oracle's own structures: [`crate::VirtualQueues`]).
    pub(crate) fn cache(&self, m: MachineId) -> &'a Cache {
        let oracle: &'a Oracle = self.oracle;
        debug_assert_eq!(oracle.now(m), self.now, "machine {m} was not synced");
        oracle.cache(m, &self.machines[m], self.tasks, self.pet, self.model)
    }

    /// Earlier PMFs of machine `m`'s unchanged queue, bounding the current ones, while the
    /// current ones are not computed ([`Oracle::stale`]).
    pub(crate) fn stale(&self, m: MachineId) -> Option<Stale<'a>> {
        let oracle: &'a Oracle = self.oracle;
        oracle.stale(m, &self.machines[m], self.tasks, self.pet, self.model)
    }

    /// Machine `m`'s queue at `now`, executing task first: each task's completion-time PMF
    /// (PCT, paper eqs. 2-5) and chance ([`Slot::success`], eq. 1).
    pub fn queue(&self, m: MachineId) -> &'a [Slot] {
        self.cache(m).slots()
    }

    /// Machine `m`'s tail at `now`: when it is expected to be free for a new task, as a CDF
    /// for the append query ([`TailCdf::append_success`]).
    pub fn tail(&self, m: MachineId) -> &'a TailCdf {
        self.cache(m).tail()
    }

    /// Machine `m`'s expected tail `E[tail]` at `now`.
    pub fn tail_mean(&self, m: MachineId) -> f64 {
        self.cache(m).tail_mean()
    }

    /// Machine `m`'s tail variance at `now` (0 when it is empty).
    pub fn tail_variance(&self, m: MachineId) -> f64 {
        self.cache(m).tail_variance()
    }

    /// Machine `m`'s tail PCT at `now` (`None` when it is empty: its tail is `now`).
    pub fn tail_pct(&self, m: MachineId) -> Option<&'a Pmf> {
        self.cache(m).tail_pct()
    }

    /// The chance of task `t` appended to machine `m`'s queue (paper eq. 1 on the PCT of
    /// eqs. 2-5, by the append query).
    pub fn append_success(&self, t: TaskId, m: MachineId) -> f64 {
        let spec = self.task(t);
        self.tail(m)
            .append_success(self.pet.exec_pmf(spec.task_type, m), spec.deadline)
    }

    /// What is known of the expected tail of machine `m` without computing: exact when
    /// computed at this tick; a lower bound from earlier PMFs of its unchanged queue
    /// (`Oracle::stale`); else nothing.
    pub fn tail_mean_known(&self, m: MachineId) -> Known {
        if self.oracle.is_computed(m) {
            return Known::Exact(self.tail_mean(m));
        }
        match self.stale(m) {
            Some(st) => Known::AtLeast(st.tail_mean_lower()),
            None => Known::Unknown,
        }
    }

    /// What is known of the chance of task `t` appended to machine `m` without computing:
    /// exact when the machine's PMFs are computed at this tick; an upper bound from earlier
    /// PMFs of its unchanged queue; else nothing.
    pub fn append_success_known(&self, t: TaskId, m: MachineId) -> Known {
        if self.oracle.is_computed(m) {
            return Known::Exact(self.append_success(t, m));
        }
        let spec = self.task(t);
        match self.stale(m) {
            Some(st) => Known::AtMost(
                st.upper_factor()
                    * st.cache
                        .tail()
                        .append_success(self.pet.exec_pmf(spec.task_type, m), spec.deadline),
            ),
            None => Known::Unknown,
        }
    }

    /// True when every task of machine `m`'s queue from position `from` on (0 = the executing
    /// task) has a chance above `floor(task)` (at least it, with `inclusive`), as far as can be
    /// told without computing the queue's PMFs: earlier PMFs of its unchanged queue prove it
    /// with a margin of [`pmf::prec::DECISION_SLACK`]. `false` means "not proven", not
    /// "false": the caller then reads [`View::queue`].
    pub fn chances_proven_above(
        &self,
        m: MachineId,
        from: usize,
        inclusive: bool,
        floor: impl Fn(TaskId) -> f64,
    ) -> bool {
        let Some(st) = self.stale(m) else {
            return false;
        };
        let slots = st.cache.slots();
        (from..slots.len()).all(|k| {
            let lower = st.success_lower(k);
            let f = floor(slots[k].task);
            if inclusive {
                lower >= f + pmf::prec::DECISION_SLACK
            } else {
                lower > f + pmf::prec::DECISION_SLACK
            }
        })
    }

    /// The trim of every PMF built on the queues (0 = exact; see [`Oracle::pct_epsilon`]).
    pub fn pct_epsilon(&self) -> f64 {
        self.oracle.pct_epsilon()
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
