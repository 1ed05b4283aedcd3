//! The state of a heterogeneous computing system as the papers model it (thesis 3.2, paper
//! III, JPDC-2016 2): tasks on the tick grid, machines with bounded FCFS queues (the limit
//! counts the executing task), the [`Oracle`] that answers what policies ask of the queues
//! (completion-time PMFs, chances, expected completions, bounds), and the plug points for
//! mapping heuristics and the pruner.
//!
//! This crate is pure: no I/O, no clock, no randomness. The scheduler's rules
//! (`system::System`, which both the simulator's engine and the live scheduler drive)
//! are the only code that mutates a [`Machine`].

mod early;
mod machine;
mod memo;
mod oracle;
mod policy;
mod task;
mod view;
mod virtual_queue;

pub use early::{earliest_free_slot, next_mapping_time};
pub use machine::{Machine, Running};
pub use memo::ChanceMemo;
/// A queue's PCTs at one tick and an earlier tick's as bounds: the oracle's internals
/// (feature `internals`, for the tests of other crates).
#[cfg(feature = "internals")]
pub use oracle::{Cache, Stale};
pub use oracle::{Oracle, Slot};
pub use policy::{BatchHeuristic, Decision, ImmediateHeuristic, NoPruner, Pruner};
pub use task::{MachineId, Outcome, TaskId, TaskSpec};
pub use view::{Known, View};
pub use virtual_queue::{VirtualMachine, VirtualQueues};
