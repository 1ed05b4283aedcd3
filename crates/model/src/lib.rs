//! The state of a heterogeneous computing system as the papers model it (thesis 3.2, paper
//! III, JPDC-2016 2): tasks on the tick grid, machines with bounded FCFS queues (the limit
//! counts the executing task), the completion-time PMFs of every queued task cached per
//! machine, and the plug points for mapping heuristics and the pruner.
//!
//! This crate is pure: no I/O, no clock, no randomness. The engine in `runner` owns the
//! event loop and is the only place that mutates a [`Machine`].

mod early;
mod machine;
mod policy;
mod task;
mod view;
mod virtual_queue;

pub use early::{earliest_free_slot, next_mapping_time};
pub use machine::{Cache, Machine, Running, Slot, Stale};
pub use policy::{BatchHeuristic, Decision, ImmediateHeuristic, NoPruner, Pruner};
pub use task::{MachineId, Outcome, TaskId, TaskSpec};
pub use view::View;
pub use virtual_queue::{VirtualMachine, VirtualQueues};
