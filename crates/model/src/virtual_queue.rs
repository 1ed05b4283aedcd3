//! The virtual copy of the machine queues a batch heuristic plans on (thesis 3.3.1): after each
//! provisional assignment the chosen machine's tail changes, so only its candidates need
//! re-evaluating.

use std::borrow::Cow;

use pmf::{Pmf, TailCdf, next_pct};

use crate::task::{MachineId, TaskId};
use crate::view::View;

/// One machine's tail in the virtual queues: borrowed from the machine's cache until a
/// provisional assignment changes it (with 1,024 machines, copying every tail at every
/// mapping event would cost more than the event itself).
#[derive(Debug, Clone)]
pub struct VirtualMachine<'a> {
    /// Free slots left (`usize::MAX` when unbounded).
    pub free: usize,
    /// The tail PCT, `None` while the machine is idle and empty (its tail is `now`).
    pub tail_pct: Option<Cow<'a, Pmf>>,
    /// The cached CDF of the tail, for the fast append query.
    pub tail: Cow<'a, TailCdf>,
}

/// The virtual queues of one mapping event.
#[derive(Debug, Clone)]
pub struct VirtualQueues<'a> {
    now: pmf::Tick,
    machines: Vec<VirtualMachine<'a>>,
    /// Machines with a free slot (kept so that [`VirtualQueues::any_free`] is O(1)).
    with_free: usize,
}

impl<'a> VirtualQueues<'a> {
    /// The tails of the view's machines (borrowed, copied on the first change).
    pub fn from_view(view: &View<'a>) -> Self {
        let machines = view
            .machines
            .iter()
            .map(|m| VirtualMachine {
                free: m.free_slots(),
                tail_pct: m.tail_pct().map(Cow::Borrowed),
                tail: Cow::Borrowed(m.tail()),
            })
            .collect::<Vec<_>>();
        let with_free = machines.iter().filter(|m| m.free > 0).count();
        VirtualQueues {
            now: view.now,
            machines,
            with_free,
        }
    }

    /// The machines.
    pub fn machines(&self) -> &[VirtualMachine<'a>] {
        &self.machines
    }

    /// Free slots of machine `m`.
    pub fn free(&self, m: MachineId) -> usize {
        self.machines[m].free
    }

    /// True when some machine has a free slot.
    pub fn any_free(&self) -> bool {
        self.with_free > 0
    }

    /// Success probability of appending `task` to machine `m` (paper eq. (1) via the fast
    /// query).
    pub fn success(&self, view: &View<'_>, m: MachineId, task: TaskId) -> f64 {
        let spec = view.task(task);
        self.machines[m]
            .tail
            .append_success(view.pet.pmf(spec.task_type, m), spec.deadline)
    }

    /// Expected completion time of appending `task` to machine `m`: E[tail] + E[PET].
    pub fn expected_completion(&self, view: &View<'_>, m: MachineId, task: TaskId) -> f64 {
        let spec = view.task(task);
        self.machines[m]
            .tail
            .append_expected_completion(view.pet.mean(spec.task_type, m))
    }

    /// Variance of the completion time of appending `task` to machine `m` (independent sum).
    pub fn completion_variance(&self, view: &View<'_>, m: MachineId, task: TaskId) -> f64 {
        let spec = view.task(task);
        self.machines[m].tail.variance() + view.pet.pmf(spec.task_type, m).variance()
    }

    /// Replaces machine `m`'s tail, e.g. after a heuristic culled tasks from its queue.
    pub fn set_tail(&mut self, m: MachineId, tail_pct: Option<Pmf>, free: usize) {
        let vm = &mut self.machines[m];
        match &tail_pct {
            Some(p) => rebuild(&mut vm.tail, p),
            None => vm.tail = Cow::Owned(TailCdf::idle(self.now)),
        }
        vm.tail_pct = tail_pct.map(Cow::Owned);
        self.with_free = self.with_free + usize::from(free > 0) - usize::from(vm.free > 0);
        vm.free = free;
    }

    /// Provisionally appends `task` to machine `m`: its tail becomes the task's PCT under
    /// the view's dropping model.
    pub fn assign(&mut self, view: &View<'_>, m: MachineId, task: TaskId) {
        let spec = view.task(task);
        let vm = &mut self.machines[m];
        let prev = vm
            .tail_pct
            .take()
            .unwrap_or_else(|| Cow::Owned(Pmf::point(self.now)));
        let pct = next_pct(
            &prev,
            view.pet.pmf(spec.task_type, m),
            spec.deadline,
            view.model,
        );
        rebuild(&mut vm.tail, &pct);
        vm.tail_pct = Some(Cow::Owned(pct));
        if vm.free == 1 {
            self.with_free -= 1;
        }
        vm.free = vm.free.saturating_sub(1);
    }
}

/// Re-caches `tail` from `pmf`, reusing its buffer when it is already a copy.
fn rebuild(tail: &mut Cow<'_, TailCdf>, pmf: &Pmf) {
    match tail {
        Cow::Owned(t) => t.rebuild(pmf),
        Cow::Borrowed(_) => *tail = Cow::Owned(TailCdf::new(pmf)),
    }
}
