//! The simulation engine and experiment runner of prunesim.
//!
//! * [`engine`]: the discrete-event loop over one trial (arrivals, completions, deadline drops,
//!   mapping events).
//! * [`experiment`]: experiment TOML files, trials in parallel (identical results for any
//!   thread count), summaries.
//! * [`metrics`]: robustness and the other measures of a trial, and mean with a Student-t 95%
//!   confidence interval over trials.
//! * [`variants`]: names such as PAMF or MM-D resolved to a heuristic plus a pruner.
//! * [`trace`]: per-task and per-event traces of a trial, streamed to CSV (docs/trace.md).
//! * [`sweep`]: sweep files (simulator experiments, Gao, Robert, Vivien's cutting tables,
//!   Hansen et al.'s moldable figures) and the engine that runs them: points and trials in
//!   parallel, point files to resume from, Slurm shards, CSVs, manifests and plots.
//!
//! Only this crate, `report`, the `prunesim` binary and `xtask` touch files, clocks or
//! threads; the crates below are pure, single-threaded and take their randomness as arguments
//! (docs/ARCHITECTURE.md, "Architecture invariants").

pub mod belief;
pub mod comparison;
pub mod config_reference;
pub mod engine;
mod error;
pub mod experiment;
pub mod files;
pub mod manifest;
pub mod metrics;
pub mod provenance;
pub mod resources;
pub mod rollout;
pub mod run;
pub mod summary;
pub mod sweep;
pub mod system_config;
pub mod trace;
/// Names such as PAMF or MM-P resolved to a heuristic plus a pruner (the scheduler's core,
/// `system`, which the live scheduler shares).
pub use system::variants;

pub use belief::{BeliefConfig, BeliefSource, DriftConfig, PriorKind};
pub use engine::{
    Belief, EngineConfig, JpdcOptions, Knowledge, QueueSize, TaskRecord, TrialRecord, simulate,
    simulate_jpdc, simulate_traced, simulate_with,
};
pub use error::RunError;
pub use experiment::{
    ExperimentConfig, GivenTrials, PetSummary, Policies, Preparation, Prepared, Summary,
    SystemConfig, TaskRange, TrialSource, summarise,
};
/// The `[mapper]` table's type (a base heuristic with its parameters).
pub use heuristics::{HeuristicConfig, Mapper};
pub use manifest::{FileRef, RunManifest};
pub use metrics::{Counting, Estimate, METRICS, MetricDoc, TrialMetrics, metric_doc};
pub use run::{RunOptions, Tracing, TrialRun};
pub use sweep::{Chart, FigureSpec, Point, Series, SweepFile, XAxis};
