//! Project automation: the figure catalogue and the performance table.
//! `cargo xtask reproduce-figure <id|all>` runs the sweep files of `experiments/` (the thesis',
//! the HCW 2019 paper's and JPDC-2016's figures; by id, the related works' tables and figures
//! in its subfolders) through the code of `prunesim sweep`; `cargo xtask perf` measures the
//! performance targets of `experiments/scale.toml`; `cargo xtask guide-figures` draws the user
//! guide's concept figures.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

mod guide;
mod perf;
mod reproduce;

#[derive(Parser, Debug)]
#[command(name = "xtask", about = "prunesim project tasks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Reproduce one figure (its id, e.g. thesis-4.7) or `all` of them; `--slurm`, `--shard`
    /// and `--collect` split a sweep into a Slurm job array and merge it back.
    ReproduceFigure(Box<reproduce::Args>),
    /// List the figures of the catalogue in experiments/.
    ListFigures {
        /// Folder of the figure TOML files.
        #[arg(long, default_value = "experiments")]
        experiments: PathBuf,
    },
    /// Measure the performance targets of experiments/scale.toml (800-task trials, the scale
    /// grid in child processes, optionally `reproduce-figure all`) and print targets vs
    /// measured.
    Perf(Box<perf::Args>),
    /// Draw the user guide's concept figures (docs/guide/src/figures/*.svg) from the
    /// library's own functions.
    GuideFigures(guide::Args),
    /// One scale point of `perf`, run in a child process (prints a JSON report).
    #[command(hide = true)]
    PerfPoint(perf::PointArgs),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let r: Result<()> = match cli.command {
        Command::ReproduceFigure(a) => reproduce::run(&a),
        Command::ListFigures { experiments } => reproduce::list(&experiments),
        Command::Perf(a) => perf::run(&a),
        Command::GuideFigures(a) => guide::run(&a),
        Command::PerfPoint(a) => perf::run_point(&a),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
