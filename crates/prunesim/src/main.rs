//! `prunesim`: run experiments of probabilistic task pruning.
//!
//! `prunesim` alone runs the built-in default experiment (the paper's headline setting).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use runner::experiment::DEFAULT_PRICES;
use runner::{ExperimentConfig, Prepared, Summary, TrialMetrics, TrialSource};

#[derive(Parser, Debug)]
#[command(
    name = "prunesim",
    version,
    about = "Probabilistic task pruning for heterogeneous computing systems"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run an experiment (the built-in default when no file is given).
    Run(RunArgs),
    /// List the heuristics and the variant names.
    List,
}

#[derive(clap::Args, Debug, Default)]
struct RunArgs {
    /// Experiment TOML file.
    experiment: Option<PathBuf>,
    /// Number of trials (default: the experiment's, or the number of workload files).
    #[arg(long)]
    trials: Option<u64>,
    /// Master seed (default: the experiment's).
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads (0 = all cores); results are identical for any value.
    #[arg(long, default_value_t = 0)]
    jobs: usize,
    /// Write per-trial CSV and summary JSON into this folder.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the summary JSON on stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// Use this PET (.etc file) instead of the experiment's.
    #[arg(long)]
    pet: Option<PathBuf>,
    /// Use these arrival trials (.dat or workload CSV files; a glob such as 'dir/arr34k_*.dat').
    #[arg(long)]
    workload: Option<String>,
    /// Heuristic (or variant) name, overriding the experiment's.
    #[arg(long)]
    heuristic: Option<String>,
    /// Skip the clairvoyant upper bound (computed per trial by default).
    #[arg(long)]
    no_bound: bool,
    /// Trim every completion-time PMF within this total-variation distance (0 = exact;
    /// faster, approximate, labelled; docs/performance.md), overriding `[system] pct_epsilon`.
    #[arg(long, value_name = "EPS", allow_negative_numbers = true)]
    pct_epsilon: Option<f64>,
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
    let result = match cli.command {
        None => run(&RunArgs::default()),
        Some(Command::Run(a)) => run(&a),
        Some(Command::List) => list(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn list() -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "Base heuristics:")?;
    for (name, desc) in heuristics::HEURISTICS {
        writeln!(out, "  {name:<9} {desc}")?;
    }
    writeln!(out, "Variants (a heuristic plus a pruner configuration):")?;
    for (name, desc) in runner::variants::VARIANTS {
        writeln!(out, "  {name:<9} {desc}")?;
    }
    Ok(())
}

/// Expands a simple glob (`*` and `?` in the file name part) into sorted paths.
fn expand_glob(pattern: &str) -> Result<Vec<PathBuf>> {
    let path = Path::new(pattern);
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    if path.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("reading folder {}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        v.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
        return Ok(v);
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let pat = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| wildcard(&pat, &n.to_string_lossy()))
        })
        .collect();
    v.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
    if v.is_empty() {
        bail!("no file matches '{pattern}'");
    }
    Ok(v)
}

fn wildcard(p: &str, s: &str) -> bool {
    let (p, s): (Vec<char>, Vec<char>) = (p.chars().collect(), s.chars().collect());
    let (mut pi, mut si, mut star, mut mark) = (0, 0, None, 0);
    while si < s.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = si;
            pi += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// Orders `arr34k_2` before `arr34k_10`.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |s: &str| {
        let mut parts: Vec<(String, u64)> = Vec::new();
        let mut text = String::new();
        let mut num = String::new();
        for c in s.chars() {
            if c.is_ascii_digit() {
                num.push(c);
            } else {
                if !num.is_empty() {
                    parts.push((std::mem::take(&mut text), num.parse().unwrap_or(u64::MAX)));
                    num.clear();
                }
                text.push(c);
            }
        }
        parts.push((text, num.parse().unwrap_or(0)));
        parts
    };
    key(a).cmp(&key(b))
}

/// Reads the trial files; a task type the PET lacks is an error naming the file and line.
fn read_trials(pattern: &str, pet: &workload::Pet) -> Result<Vec<workload::Trial>> {
    let mut trials = Vec::new();
    for p in expand_glob(pattern)? {
        let is_csv = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let trial = if is_csv {
            workload::io::read_workload_csv_with_names(&p, pet.type_names())?
        } else {
            let options = workload::io::DatOptions {
                task_types: Some(pet.n_types()),
                ..workload::io::DatOptions::default()
            };
            let (t, report) = workload::io::read_dat_with(&p, &options)?;
            tracing::info!(file = %p.display(), ?report, "read trial");
            t
        };
        trials.push(trial);
    }
    Ok(trials)
}

fn run(args: &RunArgs) -> Result<()> {
    let mut config = match &args.experiment {
        Some(p) => ExperimentConfig::load(p)?,
        None => ExperimentConfig::paper_default(),
    };
    if let Some(h) = &args.heuristic {
        config.mapper = heuristics::HeuristicConfig::named(h);
        config
            .validate()
            .map_err(anyhow::Error::msg)
            .context("--heuristic")?;
    }
    if let Some(eps) = args.pct_epsilon {
        config.system.pct_epsilon = eps;
        config
            .validate()
            .map_err(anyhow::Error::msg)
            .context("--pct-epsilon")?;
    }
    let pet = match &args.pet {
        Some(p) => {
            let (pet, report) = workload::io::read_etc(p)?;
            tracing::info!(file = %p.display(), ?report, "read PET");
            pet
        }
        None => config
            .workload
            .pet()
            .with_context(|| match &args.experiment {
                Some(p) => format!("{}: the PET of [workload]", p.display()),
                None => "the built-in experiment's PET".to_owned(),
            })?,
    };
    let source = match &args.workload {
        Some(g) => TrialSource::Given(read_trials(g, &pet)?),
        None => TrialSource::Generated,
    };
    let mut prepared = Prepared::new(config, Some(pet), source, args.trials, args.seed)?;
    prepared.with_bound = !args.no_bound;
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(prepared.trials)
    } else {
        ProgressBar::with_draw_target(Some(prepared.trials), ProgressDrawTarget::hidden())
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} trials {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let trials = prepared.run(args.jobs, &|| bar.inc(1))?;
    bar.finish_and_clear();
    let summary = Summary::new(&prepared, &trials);
    if let Some(dir) = &args.out {
        write_outputs(dir, &summary, &trials)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_table(&summary, &prepared);
    }
    Ok(())
}

fn write_outputs(dir: &Path, summary: &Summary, trials: &[TrialMetrics]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("trials.csv");
    let mut w =
        csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))?;
    if let Some(first) = trials.first() {
        let mut header = vec!["trial".to_string()];
        header.extend(first.scalars().into_iter().map(|(n, _)| n.to_string()));
        w.write_record(&header)?;
    }
    for (k, t) in trials.iter().enumerate() {
        let mut row = vec![k.to_string()];
        row.extend(t.scalars().into_iter().map(|(_, v)| v.to_string()));
        w.write_record(&row)?;
    }
    w.flush()?;
    let path = dir.join("summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(summary)?)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn print_table(summary: &Summary, prepared: &Prepared) {
    println!(
        "{} — {} ({} trials, seed {}, {} machines, {} task types)",
        summary.experiment,
        summary.heuristic,
        summary.trials,
        summary.seed,
        prepared.pet.n_machines(),
        prepared.pet.n_types()
    );
    println!("{:<22} {:>12} {:>25}", "metric", "mean", "95% CI");
    for (name, e) in &summary.metrics {
        println!(
            "{:<22} {:>12.3} [{:>11.3}, {:>11.3}]",
            name, e.mean, e.ci95_low, e.ci95_high
        );
    }
    if let (Some(b), Some(r)) = (
        summary.metrics.get("bound"),
        summary.metrics.get("robustness"),
    ) {
        println!(
            "clairvoyant upper bound: {:.2}% on average; {} reaches {:.1}% of it (gap {:.2} points)",
            b.mean,
            summary.heuristic,
            100.0 * r.mean / b.mean,
            b.mean - r.mean
        );
    }
    if summary.pct_epsilon > 0.0 {
        println!(
            "approximate: PCT tails trimmed at epsilon = {:e} (docs/performance.md)",
            summary.pct_epsilon
        );
    }
    if prepared.config.system.prices.is_none() {
        println!("(cost uses the default price table {DEFAULT_PRICES:?} per machine-hour)");
    }
}
