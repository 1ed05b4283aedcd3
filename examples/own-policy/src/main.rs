//! The whole `prunesim` command line with a heuristic ([`heuristic`]) and a pruning rule
//! ([`pruner`]) of your own registered beside the built-in ones: `run`, `sweep`, `report`,
//! `rerun` and `list` take them by name, in experiment files (`[mapper] name = "MSP-EDF"`,
//! `[pruner] rule = "below-floor"`), on the command line (`--heuristic MSP-EDF,PAM`) and as
//! variants (`MSP-EDF-P`: with the paper's pruner). In the crate's folder:
//!
//! ```text
//! cargo run --release -- run --heuristic MSP-EDF-P,PAM,MM --trials 30
//! cargo run --release -- list
//! ```

mod heuristic;
mod pruner;

use std::process::ExitCode;

fn main() -> ExitCode {
    if let Err(e) = heuristics::register(heuristic::ENTRY) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    if let Err(e) = ::pruner::registry::register(pruner::RULE) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    prunesim::cli::main()
}
