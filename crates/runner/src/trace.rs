//! Traces of a trial: one row per task (what happened to it, when, and who ended it) and one
//! row per mapping event (the oversubscription level, whether dropping was engaged, what the
//! pruner and the heuristic did). The columns are documented in `docs/trace.md`.
//!
//! The engine records through a [`Tracer`] it is handed ([`crate::engine::simulate_traced`]);
//! without one it does nothing but test for `None`. The tracer keeps a few numbers per task
//! (linear in the tasks) and hands each row to a [`TraceSink`] as soon as it is complete: a
//! task's row when the task gets its outcome, an event's row when the next event starts (and
//! the last one at [`Tracer::finish`]). [`CsvTrace`] writes the rows to two CSV files as they
//! come, so a long trial never holds its trace in memory; [`MemoryTrace`] keeps them.
//!
//! Times are ticks: one tick is one time unit of the experiment. Task rows come in the order
//! the tasks ended (non-decreasing `end`); event rows in event order.

use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

use model::{MachineId, Outcome, TaskId, TaskSpec};
use pmf::Tick;
use serde::{Deserialize, Serialize};

use crate::engine::TaskRecord;
use crate::error::RunError;
use crate::files::AtomicFile;

/// Who ended a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndedBy {
    /// It ran to its end: on time or late.
    Completion,
    /// Its deadline: it expired in the batch queue, in a machine queue or while executing.
    Deadline,
    /// The pruner dropped it (dropping engaged, its chance at or below the drop threshold).
    Pruner,
    /// The heuristic dropped it from a machine queue or discarded it from the batch queue
    /// (MOC's culling).
    Heuristic,
}

impl EndedBy {
    /// A stable snake_case name (the CSV's).
    pub fn name(self) -> &'static str {
        match self {
            EndedBy::Completion => "completion",
            EndedBy::Deadline => "deadline",
            EndedBy::Pruner => "pruner",
            EndedBy::Heuristic => "heuristic",
        }
    }

    /// Who ends a task with `outcome`; `by_heuristic`: a drop the heuristic asked for.
    pub fn of(outcome: Outcome, by_heuristic: bool) -> Self {
        match outcome {
            Outcome::OnTime | Outcome::Late => EndedBy::Completion,
            Outcome::ExpiredPending | Outcome::ExpiredExecuting | Outcome::Unmapped => {
                EndedBy::Deadline
            }
            Outcome::PrunedPending | Outcome::PrunedExecuting if by_heuristic => EndedBy::Heuristic,
            Outcome::PrunedPending | Outcome::PrunedExecuting => EndedBy::Pruner,
            Outcome::Discarded => EndedBy::Heuristic,
        }
    }
}

/// One task of a trial: a row of `tasks-<k>.csv`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TaskRow {
    /// Index in arrival order (the task's id in the trial).
    pub task: TaskId,
    /// Its type (PET row).
    pub task_type: usize,
    /// Arrival tick (the real arrival rounded up).
    pub arrival: Tick,
    /// Deadline tick: it is on time when it completes strictly before it.
    pub deadline: Tick,
    /// Whether it counts toward the measures (not among the first `skip_first` or last
    /// `skip_last` by arrival).
    pub counted: bool,
    /// The first mapping event whose heuristic considered it; empty if none did.
    pub considered: Option<Tick>,
    /// How many mapping events deferred it.
    pub deferrals: u32,
    /// The first tick it was deferred; empty if never.
    pub first_deferred: Option<Tick>,
    /// The tick it was mapped to a machine; empty if never.
    pub mapped: Option<Tick>,
    /// The machine (index; names in `manifest.json`'s `machines`); empty if never mapped.
    pub machine: Option<MachineId>,
    /// Its chance of completing before its deadline on that machine when it was mapped,
    /// `P(C < d)` of its completion-time PMF at the tail of the queue; empty if never mapped.
    pub chance: Option<f64>,
    /// The tick it started executing; empty if it never did.
    pub start: Option<Tick>,
    /// The tick its outcome was decided.
    pub end: Tick,
    /// Its outcome ([`Outcome::name`]).
    pub outcome: Outcome,
    /// Who ended it.
    pub ended_by: EndedBy,
}

impl TaskRow {
    /// True when it executed (it has a start): on time, late, or dropped while executing.
    pub fn executed(&self) -> bool {
        self.start.is_some()
    }
}

/// One mapping event of a trial: a row of `events-<k>.csv`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EventRow {
    /// Index of the event in the trial, from 0.
    pub event: u64,
    /// Its tick.
    pub tick: Tick,
    /// Deadline misses since the previous event (`mu_t` of paper eq. 8): late, expired or
    /// never mapped, including the tasks expired at this event.
    pub misses: usize,
    /// The oversubscription level `d_t` of paper eq. (8) after this event's misses; empty for
    /// a pruner without one.
    pub level: Option<f64>,
    /// Whether dropping was engaged at this event.
    pub engaged: bool,
    /// Tasks in the batch queue after the pruner's step (expired tasks gone).
    pub batch: usize,
    /// Free machine-queue slots over all machines after the pruner's drops; empty with
    /// unbounded queues (immediate mode).
    pub free_slots: Option<usize>,
    /// Whether the heuristic ran (batch mode: not when the batch is empty or no slot is free).
    pub heuristic_ran: bool,
    /// Tasks the pruner dropped.
    pub dropped: usize,
    /// Tasks the heuristic dropped from machine queues or discarded from the batch queue.
    pub heuristic_dropped: usize,
    /// Tasks deferred.
    pub deferred: usize,
    /// Tasks mapped to machines.
    pub assigned: usize,
}

/// Where the rows of a trace go.
pub trait TraceSink {
    /// A task's row, when the task has its outcome.
    fn task(&mut self, row: &TaskRow) -> io::Result<()>;
    /// A mapping event's row, when the next one starts or the trial ends.
    fn event(&mut self, row: &EventRow) -> io::Result<()>;
}

/// The rows, kept in memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryTrace {
    /// Task rows in the order the tasks ended.
    pub tasks: Vec<TaskRow>,
    /// Event rows in event order.
    pub events: Vec<EventRow>,
}

impl TraceSink for MemoryTrace {
    fn task(&mut self, row: &TaskRow) -> io::Result<()> {
        self.tasks.push(*row);
        Ok(())
    }
    fn event(&mut self, row: &EventRow) -> io::Result<()> {
        self.events.push(*row);
        Ok(())
    }
}

/// The per-task trace file of trial `k` in `dir`.
pub fn tasks_path(dir: &Path, k: u64) -> PathBuf {
    dir.join(format!("tasks-{k}.csv"))
}

/// The per-event trace file of trial `k` in `dir`.
pub fn events_path(dir: &Path, k: u64) -> PathBuf {
    dir.join(format!("events-{k}.csv"))
}

/// The rows written as they come to `tasks-<k>.csv` and `events-<k>.csv`, each a temporary
/// file until [`CsvTrace::commit`] renames it into place: an interrupted run leaves no
/// partial trace under the final names.
pub struct CsvTrace {
    tasks: csv::Writer<AtomicFile>,
    events: csv::Writer<AtomicFile>,
}

impl CsvTrace {
    /// Starts the two files of trial `k` in `dir` (which must exist).
    pub fn create(dir: &Path, k: u64) -> Result<Self, RunError> {
        Ok(CsvTrace {
            tasks: csv::Writer::from_writer(AtomicFile::create(&tasks_path(dir, k))?),
            events: csv::Writer::from_writer(AtomicFile::create(&events_path(dir, k))?),
        })
    }

    /// Flushes both files to disk and renames them into place.
    pub fn commit(self) -> Result<(), RunError> {
        for w in [self.tasks, self.events] {
            let path = w.get_ref().path().to_path_buf();
            let file = w.into_inner().map_err(|e| RunError::Io {
                path,
                message: e.error().to_string(),
            })?;
            file.commit()?;
        }
        Ok(())
    }
}

impl TraceSink for CsvTrace {
    fn task(&mut self, row: &TaskRow) -> io::Result<()> {
        self.tasks.serialize(row).map_err(io::Error::other)
    }
    fn event(&mut self, row: &EventRow) -> io::Result<()> {
        self.events.serialize(row).map_err(io::Error::other)
    }
}

/// Reads a per-task trace file.
pub fn read_tasks(path: &Path) -> Result<Vec<TaskRow>, RunError> {
    read_rows(path)
}

/// Reads a per-event trace file.
pub fn read_events(path: &Path) -> Result<Vec<EventRow>, RunError> {
    read_rows(path)
}

/// Reads a trace file row by row, without holding it: `f` sees each row. The file must be a
/// regular file (a symlink to one is followed), of any size.
pub fn for_each_row<R: for<'de> Deserialize<'de>>(
    path: &Path,
    mut f: impl FnMut(R),
) -> Result<(), RunError> {
    try_for_each_row(path, |_, r| {
        f(r);
        Ok(())
    })
}

/// Reads a trace CSV row by row, as [`for_each_row`], handing each row with its 1-based line
/// to `f`; an error `f` returns stops the reading and names the file and the line.
pub fn try_for_each_row<R: for<'de> Deserialize<'de>>(
    path: &Path,
    mut f: impl FnMut(u64, R) -> Result<(), String>,
) -> Result<(), RunError> {
    let err = |message: String| RunError::Io {
        path: path.to_path_buf(),
        message,
    };
    // Streamed: any size, but a regular file (a FIFO or a device may never end).
    workload::io::check_input_file(path, u64::MAX)?;
    let mut r = csv::Reader::from_path(path).map_err(|e| err(e.to_string()))?;
    // A trace row is one line, after the header's.
    for (line, row) in (2..).zip(r.deserialize()) {
        f(line, row.map_err(|e| err(e.to_string()))?)
            .map_err(|m| err(format!("line {line}: {m}")))?;
    }
    Ok(())
}

fn read_rows<R: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<R>, RunError> {
    let mut v = Vec::new();
    for_each_row(path, |r| v.push(r))?;
    Ok(v)
}

/// What the tracer knows of a task before it ends (40 bytes): ticks with [`NONE`] for "not
/// yet", the chance NaN until mapped.
#[derive(Debug, Clone, Copy)]
struct Partial {
    considered: Tick,
    first_deferred: Tick,
    mapped: Tick,
    chance: f64,
    by_heuristic: bool,
}

const NONE: Tick = Tick::MIN;

const EMPTY: Partial = Partial {
    considered: NONE,
    first_deferred: NONE,
    mapped: NONE,
    chance: f64::NAN,
    by_heuristic: false,
};

fn tick(t: Tick) -> Option<Tick> {
    (t != NONE).then_some(t)
}

/// The engine's recorder: the engine calls it at a few points of a trial
/// ([`crate::engine::simulate_traced`], which takes it as `&mut Tracer<dyn TraceSink>`) and
/// it hands complete rows to its sink `S`. The first error of the sink is kept (and later
/// rows are not written): [`Tracer::finish`] returns it.
pub struct Tracer<S: ?Sized> {
    counted: Range<usize>,
    tasks: Vec<Partial>,
    event: Option<EventRow>,
    events: u64,
    error: Option<io::Error>,
    sink: S,
}

impl<S: TraceSink> Tracer<S> {
    /// A tracer for a trial of `n` tasks, those in `counted` counting toward the measures.
    pub fn new(sink: S, n: usize, counted: Range<usize>) -> Self {
        Tracer {
            counted,
            tasks: vec![EMPTY; n],
            event: None,
            events: 0,
            error: None,
            sink,
        }
    }

    /// The trial is over: writes the last event's row and gives the sink back, or the sink's
    /// first error.
    pub fn finish(mut self) -> io::Result<S> {
        self.flush_event();
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.sink),
        }
    }
}

impl<S: TraceSink + ?Sized> Tracer<S> {
    fn write(&mut self, f: impl FnOnce(&mut S) -> io::Result<()>) {
        if self.error.is_none() {
            if let Err(e) = f(&mut self.sink) {
                self.error = Some(e);
            }
        }
    }

    fn flush_event(&mut self) {
        if let Some(row) = self.event.take() {
            self.write(|s| s.event(&row));
        }
    }

    /// A mapping event starts at `now`.
    pub fn begin_event(&mut self, now: Tick) {
        self.flush_event();
        self.event = Some(EventRow {
            event: self.events,
            tick: now,
            misses: 0,
            level: None,
            engaged: false,
            batch: 0,
            free_slots: None,
            heuristic_ran: false,
            dropped: 0,
            heuristic_dropped: 0,
            deferred: 0,
            assigned: 0,
        });
        self.events += 1;
    }

    /// The pruner's step is done: the misses it saw, its level, whether dropping was engaged,
    /// and what the heuristic is left with.
    pub fn pruned(
        &mut self,
        misses: usize,
        level: Option<f64>,
        engaged: bool,
        batch: usize,
        free_slots: Option<usize>,
    ) {
        if let Some(e) = &mut self.event {
            e.misses = misses;
            e.level = level;
            e.engaged = engaged;
            e.batch = batch;
            e.free_slots = free_slots;
        }
    }

    /// The heuristic considers the tasks of `batch` at `now`.
    pub fn considered(&mut self, batch: &[TaskId], now: Tick) {
        for &t in batch {
            if let Some(p) = self.tasks.get_mut(t) {
                if p.considered == NONE {
                    p.considered = now;
                }
            }
        }
        if let Some(e) = &mut self.event {
            e.heuristic_ran = true;
        }
    }

    /// The heuristic deferred `t` at `now`.
    pub fn deferred(&mut self, t: TaskId, now: Tick) {
        if let Some(p) = self.tasks.get_mut(t) {
            if p.first_deferred == NONE {
                p.first_deferred = now;
            }
        }
        if let Some(e) = &mut self.event {
            e.deferred += 1;
        }
    }

    /// `t` was appended to a machine's queue at `now`, with this chance of meeting its
    /// deadline there.
    pub fn mapped(&mut self, t: TaskId, now: Tick, chance: f64) {
        if let Some(p) = self.tasks.get_mut(t) {
            p.mapped = now;
            p.chance = chance;
        }
        if let Some(e) = &mut self.event {
            e.assigned += 1;
        }
    }

    /// The heuristic asks to drop these tasks (before the engine applies the drops).
    pub fn heuristic_drops(&mut self, drops: &[TaskId]) {
        for &t in drops {
            if let Some(p) = self.tasks.get_mut(t) {
                p.by_heuristic = true;
            }
        }
    }

    /// A task has its outcome: its row is written.
    pub fn settled(&mut self, spec: &TaskSpec, record: &TaskRecord, deferrals: u32) {
        let t = spec.id;
        let p = self.tasks.get(t).copied().unwrap_or(EMPTY);
        let ended_by = EndedBy::of(record.outcome, p.by_heuristic);
        if let Some(e) = &mut self.event {
            match ended_by {
                EndedBy::Pruner => e.dropped += 1,
                EndedBy::Heuristic => e.heuristic_dropped += 1,
                EndedBy::Completion | EndedBy::Deadline => {}
            }
        }
        let row = TaskRow {
            task: t,
            task_type: spec.task_type,
            arrival: spec.arrival,
            deadline: spec.deadline,
            counted: self.counted.contains(&t),
            considered: tick(p.considered),
            deferrals,
            first_deferred: tick(p.first_deferred),
            mapped: tick(p.mapped),
            machine: record.machine,
            chance: tick(p.mapped).map(|_| p.chance),
            start: record.start,
            end: record.end,
            outcome: record.outcome,
            ended_by,
        };
        self.write(|s| s.task(&row));
    }
}
