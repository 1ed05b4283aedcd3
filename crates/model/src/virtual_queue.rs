//! The virtual copy of the machine queues a batch heuristic plans on (thesis 3.3.1): after each
//! provisional assignment the chosen machine's tail changes, so only its candidates need
//! re-evaluating.

use pmf::{Pmf, TailCdf, next_pct};

use crate::task::{MachineId, TaskId};
use crate::view::View;

/// One machine's tail in the virtual queues.
#[derive(Debug, Clone)]
pub struct VirtualMachine {
    /// Free slots left (`usize::MAX` when unbounded).
    pub free: usize,
    /// The tail PCT, `None` while the machine is idle and empty (its tail is `now`).
    pub tail_pct: Option<Pmf>,
    /// The cached CDF of the tail, for the fast append query.
    pub tail: TailCdf,
}

/// The virtual queues of one mapping event.
#[derive(Debug, Clone)]
pub struct VirtualQueues {
    now: pmf::Tick,
    machines: Vec<VirtualMachine>,
    /// Machines with a free slot (kept so that [`VirtualQueues::any_free`] is O(1)).
    with_free: usize,
}

impl VirtualQueues {
    /// Copies the tails of the view's machines.
    pub fn from_view(view: &View<'_>) -> Self {
        let machines = view
            .machines
            .iter()
            .map(|m| VirtualMachine {
                free: m.free_slots(),
                tail_pct: m.tail_pct().cloned(),
                tail: m.tail().clone(),
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
    pub fn machines(&self) -> &[VirtualMachine] {
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
            Some(p) => vm.tail.rebuild(p),
            None => vm.tail = TailCdf::idle(self.now),
        }
        vm.tail_pct = tail_pct;
        self.with_free = self.with_free + usize::from(free > 0) - usize::from(vm.free > 0);
        vm.free = free;
    }

    /// Provisionally appends `task` to machine `m`: its tail becomes the task's PCT under
    /// the view's dropping model.
    pub fn assign(&mut self, view: &View<'_>, m: MachineId, task: TaskId) {
        let spec = view.task(task);
        let vm = &mut self.machines[m];
        let prev = vm.tail_pct.take().unwrap_or_else(|| Pmf::point(self.now));
        let pct = next_pct(
            &prev,
            view.pet.pmf(spec.task_type, m),
            spec.deadline,
            view.model,
        );
        vm.tail.rebuild(&pct);
        vm.tail_pct = Some(pct);
        if vm.free == 1 {
            self.with_free -= 1;
        }
        vm.free = vm.free.saturating_sub(1);
    }
}
