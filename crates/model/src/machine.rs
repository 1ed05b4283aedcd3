//! A machine: at most one executing task, a FCFS queue of pending tasks, and the cached
//! completion-time PMFs of everything in it.

use std::collections::VecDeque;

use pmf::{DropModel, Pmf, TailCdf, Tick, executing_pct, next_pct};
use workload::Pet;

use crate::task::{MachineId, TaskId, TaskSpec};

/// The task a machine is executing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Running {
    /// The task.
    pub task: TaskId,
    /// The tick it started.
    pub start: Tick,
    /// The tick its execution would end (start + actual execution time). Known to the
    /// simulator only: the PCTs the mapper sees never read it.
    pub end: Tick,
}

/// One queue position as the mapper sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// The task in this position.
    pub task: TaskId,
    /// Its completion-time PMF (the machine's free time after its slot) under the scenario's
    /// dropping model; for the executing task, conditioned on not having ended by `now`.
    pub pct: Pmf,
    /// P(the task completes before its deadline), paper eq. (1).
    pub success: f64,
}

/// A machine and its local queue.
#[derive(Debug, Clone)]
pub struct Machine {
    id: MachineId,
    /// Size limit of the queue, counting the executing task; `None` = unbounded.
    limit: Option<usize>,
    running: Option<Running>,
    pending: VecDeque<TaskId>,
    /// Data-ready tick of each pending task (JPDC-2016 staging), parallel to `pending`;
    /// `Tick::MIN` = no staging.
    ready: VecDeque<Tick>,
    /// One slot beyond the limit, granted by an early mapping event (JPDC-2016 eq. 5) for the
    /// slot expected to free soon; given back when a task leaves the machine.
    reserved: usize,
    // --- cache, valid for `valid_at` unless `dirty` ---
    slots: Vec<Slot>,
    tail: TailCdf,
    dirty: bool,
    valid_at: Tick,
    /// Number of PCT recomputations (a performance counter).
    recomputations: u64,
}

impl Machine {
    /// An idle machine with an empty queue.
    pub fn new(id: MachineId, limit: Option<usize>) -> Self {
        Machine {
            id,
            limit,
            running: None,
            pending: VecDeque::new(),
            ready: VecDeque::new(),
            reserved: 0,
            slots: Vec::new(),
            tail: TailCdf::idle(0),
            dirty: true,
            valid_at: Tick::MIN,
            recomputations: 0,
        }
    }

    /// The machine's index.
    pub fn id(&self) -> MachineId {
        self.id
    }

    /// The queue-size limit, counting the executing task.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// The executing task.
    pub fn running(&self) -> Option<Running> {
        self.running
    }

    /// Pending tasks in FCFS order.
    pub fn pending(&self) -> &VecDeque<TaskId> {
        &self.pending
    }

    /// Tasks in the queue, the executing one included.
    pub fn len(&self) -> usize {
        self.pending.len() + usize::from(self.running.is_some())
    }

    /// True when nothing is executing or pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The limit plus a reserved slot, if one was granted ([`Machine::reserve_slot`]).
    pub fn capacity(&self) -> Option<usize> {
        self.limit.map(|l| l + self.reserved)
    }

    /// True while a slot beyond the limit is reserved.
    pub fn has_reserved_slot(&self) -> bool {
        self.reserved > 0
    }

    /// Grants one slot beyond the limit (an early mapping event, JPDC-2016 section 5) until
    /// a task leaves the machine ([`Machine::release_reserved_slot`]).
    pub fn reserve_slot(&mut self) {
        self.reserved = 1;
    }

    /// Gives the reserved slot back: a task left, so the slot it was reserved for is free.
    pub fn release_reserved_slot(&mut self) {
        self.reserved = 0;
    }

    /// Free slots (`usize::MAX` when unbounded).
    pub fn free_slots(&self) -> usize {
        match self.capacity() {
            Some(l) => l.saturating_sub(self.len()),
            None => usize::MAX,
        }
    }

    /// True when the machine is executing nothing.
    pub fn is_idle(&self) -> bool {
        self.running.is_none()
    }

    /// All task ids in queue order, executing first.
    pub fn tasks(&self) -> impl Iterator<Item = TaskId> + '_ {
        self.running
            .iter()
            .map(|r| r.task)
            .chain(self.pending.iter().copied())
    }

    /// How many times the PCTs were recomputed.
    pub fn recomputations(&self) -> u64 {
        self.recomputations
    }

    /// Appends a task to the tail of the queue. The caller checks the limit.
    pub fn push(&mut self, task: TaskId) {
        self.push_staged(task, Tick::MIN);
    }

    /// Appends a task whose input data are ready at tick `ready` (JPDC-2016 staging): it
    /// cannot start before, and its PCT starts from max(previous PCT, `ready`).
    pub fn push_staged(&mut self, task: TaskId, ready: Tick) {
        self.pending.push_back(task);
        self.ready.push_back(ready);
        self.dirty = true;
    }

    /// Data-ready ticks of the pending tasks, in queue order (`Tick::MIN` = no staging).
    pub fn pending_ready(&self) -> &VecDeque<Tick> {
        &self.ready
    }

    /// The data-ready tick of the head of the pending queue.
    pub fn head_ready(&self) -> Option<Tick> {
        self.ready.front().copied()
    }

    /// Starts the head of the queue at `now`, with its actual execution time.
    pub fn start(&mut self, now: Tick, task: TaskId, exec_time: Tick) {
        debug_assert!(self.running.is_none());
        self.running = Some(Running {
            task,
            start: now,
            end: now + exec_time,
        });
        self.dirty = true;
    }

    /// Pops the head of the pending queue.
    pub fn pop_pending(&mut self) -> Option<TaskId> {
        let t = self.pending.pop_front();
        self.ready.pop_front();
        if t.is_some() {
            self.dirty = true;
        }
        t
    }

    /// Ends the executing task (completed or dropped) and returns it.
    pub fn finish_running(&mut self) -> Option<Running> {
        let r = self.running.take();
        if r.is_some() {
            self.reserved = 0;
            self.dirty = true;
        }
        r
    }

    /// Removes a pending task wherever it is; returns whether it was there.
    pub fn remove_pending(&mut self, task: TaskId) -> bool {
        if let Some(pos) = self.pending.iter().position(|&t| t == task) {
            self.pending.remove(pos);
            self.ready.remove(pos);
            self.reserved = 0;
            self.dirty = true;
            true
        } else {
            false
        }
    }

    /// Brings the cached PCTs up to date at `now`. Only a machine whose queue changed, or
    /// whose executing task's PCT had mass at or before `now` (so conditioning on the task
    /// not having ended changes it), is recomputed.
    pub fn refresh(&mut self, now: Tick, tasks: &[TaskSpec], pet: &Pet, model: DropModel) {
        if !self.dirty && self.valid_at == now {
            return;
        }
        // An idle machine's tail is `now` itself; an executing PCT changes only when some of
        // its mass (at or before `now`) is no longer possible.
        let stale = self.dirty
            || self.running.is_none()
            || self.slots.first().is_none_or(|s| s.pct.min() <= now);
        self.valid_at = now;
        if !stale {
            return;
        }
        self.dirty = false;
        self.recomputations += 1;
        self.slots.clear();
        if let Some(r) = self.running {
            let spec = &tasks[r.task];
            let pct = executing_pct(
                pet.pmf(spec.task_type, self.id),
                r.start,
                now,
                spec.deadline,
                model,
            );
            let success = pct.prob_before(spec.deadline);
            self.slots.push(Slot {
                task: r.task,
                pct,
                success,
            });
        }
        for (&t, &ready) in self.pending.iter().zip(&self.ready) {
            let spec = &tasks[t];
            let pet_pmf = pet.pmf(spec.task_type, self.id);
            // --- staging (JPDC-2016): the task starts no earlier than its data-ready tick ---
            // (data ready by `now` change nothing: every PCT here lies after `now`)
            let staged = (ready > now).then(|| match self.slots.last() {
                Some(prev) => prev.pct.at_least(ready),
                None => Pmf::point(now).at_least(ready),
            });
            // --- end staging ---
            // Each PCT builds on the previous slot's (no copy), or on `now` for an idle head.
            let pct = match (&staged, self.slots.last()) {
                (Some(free), _) => next_pct(free, pet_pmf, spec.deadline, model),
                (None, Some(prev)) => next_pct(&prev.pct, pet_pmf, spec.deadline, model),
                (None, None) => next_pct(&Pmf::point(now), pet_pmf, spec.deadline, model),
            };
            let success = pct.prob_before(spec.deadline);
            self.slots.push(Slot {
                task: t,
                pct,
                success,
            });
        }
        match self.slots.last() {
            Some(p) => self.tail.rebuild(&p.pct),
            None => self.tail = TailCdf::idle(now),
        }
    }

    /// The cached queue positions, executing first. Valid after [`Machine::refresh`].
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The cached tail CDF: when the machine is expected to be free for a new task.
    pub fn tail(&self) -> &TailCdf {
        &self.tail
    }

    /// The tail PCT itself (`None` for an empty machine, whose tail is `now`).
    pub fn tail_pct(&self) -> Option<&Pmf> {
        self.slots.last().map(|s| &s.pct)
    }

    /// Marks the cache stale (after an outside change).
    pub fn invalidate(&mut self) {
        self.dirty = true;
    }
}
