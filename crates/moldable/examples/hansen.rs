//! A small run of Hansen et al. figs. 4 and 5: prints the box-plot statistics of fig. 4 and
//! the mean `B_norm` of fig. 5.
//!
//! `cargo run --release -p moldable --example hansen -- [TRIALS] [SEED] [OUT_DIR]` (default 8
//! trials, seed 2; the paper's size is 48 trials, run by `cargo xtask reproduce-figure
//! hansen-4`). With `OUT_DIR`, also writes `hansen4.csv`, `hansen5.csv` and
//! `hansen5_trials.csv` there. Wall-clock times go to stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use moldable::MoldableError;
use moldable::experiments::{
    figure4, figure5_trials, summarise_figure4, summarise_figure5, write_csv,
};

fn create(dir: &Option<PathBuf>, name: &str) -> Result<Option<std::fs::File>, MoldableError> {
    match dir {
        None => Ok(None),
        Some(d) => std::fs::File::create(d.join(name))
            .map(Some)
            .map_err(|e| MoldableError::Csv(format!("{}: {e}", d.join(name).display()))),
    }
}

fn run() -> Result<(), MoldableError> {
    let mut args = std::env::args().skip(1);
    let trials: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(2);
    let out: Option<PathBuf> = args.next().map(PathBuf::from);

    println!("Fig. 4: 32 applications, 4 types, 256 processors, high slowdown, {trials} trials");
    println!(
        "{:<12} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "series", "min", "q25", "median", "q75", "max", "mean"
    );
    let start = Instant::now();
    let rows4 = figure4(trials, seed)?;
    eprintln!("figure 4: {:.1} s", start.elapsed().as_secs_f64());
    if let Some(f) = create(&out, "hansen4.csv")? {
        write_csv(&rows4, f)?;
    }
    for b in summarise_figure4(&rows4) {
        println!(
            "{:<12} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3}",
            b.series, b.min, b.q25, b.median, b.q75, b.max, b.mean
        );
    }
    println!();
    println!("Fig. 5: RF Duplex, 32 applications, 256 processors, low slowdown, {trials} trials");
    println!(
        "{:>4} {:>4} {:>8} {:>7} {:>8} {:>7} {:>7}",
        "N_p", "n", "B_norm", "ci95", "median", "B", "Psi"
    );
    let start = Instant::now();
    let trials5 = figure5_trials(trials, seed)?;
    eprintln!("figure 5: {:.1} s", start.elapsed().as_secs_f64());
    let rows5 = summarise_figure5(&trials5);
    if let Some(f) = create(&out, "hansen5.csv")? {
        write_csv(&rows5, f)?;
    }
    if let Some(f) = create(&out, "hansen5_trials.csv")? {
        write_csv(&trials5, f)?;
    }
    for r in rows5 {
        println!(
            "{:>4} {:>4} {:>8.4} {:>7.4} {:>8.4} {:>7.3} {:>7.3}",
            r.n_types, r.n, r.mean_b_norm, r.ci95, r.median_b_norm, r.mean_bound, r.mean_robustness
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
