//! A machine: at most one executing task and a FCFS queue of pending tasks. Only the
//! scheduler's rules (`system::System`) mutate machines; everything derived from a queue (the completion-time PMFs of its tasks,
//! bounds from earlier ones) belongs to the [`crate::Oracle`], which tells a changed queue by
//! its [`Machine::version`].

use std::collections::VecDeque;

use pmf::Tick;

use crate::task::{MachineId, TaskId};

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
    /// Counts the changes of the queue (a task pushed, started, ended or removed).
    version: u64,
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
            version: 0,
        }
    }

    /// A number that changes whenever the queue does: what is derived from the queue holds
    /// while it is the same.
    pub fn version(&self) -> u64 {
        self.version
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

    /// Appends a task to the tail of the queue. The caller checks the limit.
    pub fn push(&mut self, task: TaskId) {
        self.push_staged(task, Tick::MIN);
    }

    /// Appends a task whose input data are ready at tick `ready` (JPDC-2016 staging): it
    /// cannot start before, and its PCT starts from max(previous PCT, `ready`).
    pub fn push_staged(&mut self, task: TaskId, ready: Tick) {
        self.pending.push_back(task);
        self.ready.push_back(ready);
        self.changed();
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
        self.changed();
    }

    /// Renames the queue's tasks by `f` (a live system that forgets ended tasks renumbers
    /// the others, [`TaskId`]s being indices); the version changes.
    pub fn rename_tasks(&mut self, mut f: impl FnMut(TaskId) -> TaskId) {
        if let Some(r) = self.running.as_mut() {
            r.task = f(r.task);
        }
        for t in &mut self.pending {
            *t = f(*t);
        }
        self.version += 1;
    }

    /// Moves the executing task's start to `start` (a live dispatcher started it later than
    /// decided); nothing when idle.
    pub fn restamp_start(&mut self, start: Tick) {
        if let Some(r) = &mut self.running {
            r.end = start.saturating_add(r.end.saturating_sub(r.start));
            r.start = start;
            self.changed();
        }
    }

    /// Gives the executing task another end (a simulation run forward from the present draws
    /// its own, the truth's being unknown to it); nothing when idle. The queue's version is
    /// kept: nothing derived from the queue reads the end.
    pub fn redraw_end(&mut self, end: Tick) {
        if let Some(r) = &mut self.running {
            r.end = end;
        }
    }

    /// Pops the head of the pending queue.
    pub fn pop_pending(&mut self) -> Option<TaskId> {
        let t = self.pending.pop_front();
        self.ready.pop_front();
        if t.is_some() {
            self.changed();
        }
        t
    }

    /// Ends the executing task (completed or dropped) and returns it.
    pub fn finish_running(&mut self) -> Option<Running> {
        let r = self.running.take();
        if r.is_some() {
            self.reserved = 0;
            self.changed();
        }
        r
    }

    /// Removes a pending task wherever it is; returns whether it was there.
    pub fn remove_pending(&mut self, task: TaskId) -> bool {
        if let Some(pos) = self.pending.iter().position(|&t| t == task) {
            self.pending.remove(pos);
            self.ready.remove(pos);
            self.reserved = 0;
            self.changed();
            true
        } else {
            false
        }
    }

    /// The queue changed.
    fn changed(&mut self) {
        self.version += 1;
    }
}
