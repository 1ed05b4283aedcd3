//! Runs a heuristic and a pruner of your own ([`heuristic`], [`pruner`]) beside PAM and MM on the paper's
//! headline experiment: the same trials, seeds and measures. In the crate's folder:
//!
//! ```text
//! cargo run --release -- [TRIALS]
//! ```

mod heuristic;
mod pruner;

use heuristics::{HeuristicConfig, Mapper};
use runner::{ExperimentConfig, Policies, Prepared, RunOptions, TrialRun, TrialSource};

fn main() -> Result<(), runner::RunError> {
    let trials: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(30);
    let mean = |runs: &[TrialRun]| {
        runs.iter().map(|r| r.metrics.robustness).sum::<f64>() / runs.len() as f64
    };
    let prepared = |name: &str| -> Result<Prepared, runner::RunError> {
        let mut config = ExperimentConfig::paper_default();
        config.mapper = HeuristicConfig::named(name);
        Prepared::new(config, None, TrialSource::Generated, Some(trials), None)
    };
    println!("heuristic            robustness (%), {trials} trials, PAM at 34k's setting");
    for name in ["PAM", "MM"] {
        let runs = prepared(name)?.run(RunOptions::default())?;
        println!("{name:<20} {:.2}", mean(&runs));
    }
    // Yours, with the paper's pruner of the PAM run (its defer thresholds and drops).
    let mine = || Mapper::Batch(Box::new(heuristic::MaxChanceEarliestDeadline));
    let with_paper_pruner = Policies {
        heuristic: Some(&mine),
        pruner: None,
    };
    let runs = prepared("PAM")?.run(RunOptions::default().policies(with_paper_pruner))?;
    println!("{:<20} {:.2}", "MSP-EDF", mean(&runs));
    // Yours, with a pruner of your own.
    let floor = |_types: usize| Box::new(pruner::BelowFloor(0.2)) as Box<dyn model::Pruner>;
    let both = Policies {
        heuristic: Some(&mine),
        pruner: Some(&floor),
    };
    let runs = prepared("PAM")?.run(RunOptions::default().policies(both))?;
    println!("{:<20} {:.2}", "MSP-EDF, below 0.2", mean(&runs));
    Ok(())
}
