//! The `prunesim` command line: [`main`] parses the arguments and runs the command.
//!
//! `prunesim` alone runs the built-in default experiment (the paper's headline setting);
//! `prunesim sweep FILE...` runs sweep files (`experiments/`).

mod compare;
mod inputs;
mod output;
mod reports;
mod run_folder;
mod side_by_side;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use runner::{
    ExperimentConfig, GivenTrials, Preparation, Prepared, RunManifest, RunOptions, Summary,
    TaskRange, Tracing, TrialMetrics, TrialSource, resources,
};

use self::inputs::{
    Repairs, expand_files, pet_source, read_stdin_experiment, read_trials, report_repairs,
};

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
    /// Run again what a `run --out DIR` wrote to DIR/manifest.json, after checking that its
    /// input files are unchanged, and compare the outputs with DIR's: the last line says
    /// whether every file was reproduced bit for bit, or which differ (an error). A
    /// comparison folder (`run --heuristic A,B --out DIR`) reruns as a whole.
    Rerun(RerunArgs),
    /// Write the interactive HTML report of a run folder (what `run --out DIR` wrote; with
    /// its traces when the run was traced), or of a sweep's output folder (the figure with
    /// every point linked to its trials and traced timelines), to DIR/report.html: one
    /// self-contained file that opens offline in a browser (user guide: Outputs and traces).
    Report(ReportArgs),
    /// Run sweep files (every figure in experiments/, or your own): points and trials in
    /// parallel, resumed from the point files of an earlier run; writes OUT/<id>.csv, the
    /// manifest, SVG and PNG. `--slurm`, `--shard` and `--collect` split the sweeps into a
    /// Slurm job array and merge it back (user guide: Sweeps on a Slurm cluster).
    Sweep(SweepArgs),
    /// Write a new cargo crate NAME: this command line with a heuristic and a pruning rule of
    /// your own registered beside the built-in ones, on prunesim's crates by path (the
    /// checkout this prunesim was built from) or by git (the user guide's "Write your own
    /// heuristic").
    NewPolicy(NewPolicyArgs),
    /// List the heuristics, the variant names and the pruner presets.
    List,
    /// Print the glossary of the measures: unit and definition of each.
    Metrics {
        /// As Markdown (the user guide's Measures chapter).
        #[arg(long)]
        markdown: bool,
    },
    /// Print the configuration reference as Markdown: every key of experiment and sweep
    /// files with its type, default, unit, allowed values and the papers' name for it (the
    /// user guide's Configuration chapter).
    ConfigReference,
}

/// `--tick`: a length, or `auto` (chosen from a samples CSV's times).
#[derive(Debug, Clone, Copy, PartialEq)]
enum TickArg {
    /// A tick of this length.
    Length(f64),
    /// [`workload::io::auto_tick`] of the PET's samples CSV.
    Auto,
}

/// Parses `--tick`: `auto`, or a positive, finite length.
fn parse_tick(text: &str) -> Result<TickArg, String> {
    if text.eq_ignore_ascii_case("auto") {
        return Ok(TickArg::Auto);
    }
    match text.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 => Ok(TickArg::Length(t)),
        _ => Err(format!(
            "expected a positive length or `auto`, found {text:?}"
        )),
    }
}

/// How a histogram bin of a samples CSV becomes a tick.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
enum BinValueArg {
    /// The bin's upper edge (the thesis' reading: no time is underestimated).
    #[default]
    Upper,
    /// The bin's centre.
    Centre,
    /// The bin's lower edge.
    Lower,
}

impl From<BinValueArg> for pmf::BinValue {
    fn from(b: BinValueArg) -> Self {
        match b {
            BinValueArg::Upper => pmf::BinValue::Upper,
            BinValueArg::Centre => pmf::BinValue::Centre,
            BinValueArg::Lower => pmf::BinValue::Lower,
        }
    }
}

#[derive(clap::Args, Debug, Default)]
struct RunArgs {
    /// Experiment TOML file (`-`: read it from standard input).
    experiment: Option<PathBuf>,
    /// Number of trials (default: the experiment's, or the number of workload files).
    #[arg(long)]
    trials: Option<u64>,
    /// Master seed: the same as `workload.seed` in the file (it seeds the trials and, unless
    /// `workload.pet_seed` is set, the generated PET and the machines drawn).
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads (0 = all cores; more than the cores are capped); results are identical
    /// for any value.
    #[arg(long, default_value_t = 0)]
    jobs: usize,
    /// The memory a run may need, e.g. `8GiB` or `500MB` (default: half of this machine's
    /// memory); a run estimated above it is refused before it starts.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<bytesize::ByteSize>,
    /// Write the per-trial CSV, the summary JSON and the manifest into this folder. A run
    /// folder holds one run, decided by its whole configuration (the experiment, trials,
    /// seed, bracket and input contents): a folder holding a run of another configuration is
    /// refused (see --force), a run of the same one replaced. A file an output would take
    /// that no run manifest names (your own trials.csv, or an input of the run) is refused,
    /// --force or not: prunesim never writes over or removes a file it did not write.
    #[arg(long)]
    out: Option<PathBuf>,
    /// With --out: when the folder holds a run of another configuration, remove the files
    /// that run's manifest names first; no other file is ever removed.
    #[arg(long)]
    force: bool,
    /// Print the summary JSON on stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// Print every measure and its definition, not only robustness, the bracket, the
    /// outcomes and the worst task type's share.
    #[arg(long)]
    all: bool,
    /// Use this PET instead of the experiment's: an `.etc` file, or a CSV of measured
    /// execution times (columns task_type, machine, execution_time). Without an experiment
    /// file and without --heuristic, the recommended heuristic `auto` runs on it.
    #[arg(long)]
    pet: Option<PathBuf>,
    /// Histogram bin width, in ticks, for a samples CSV given with --pet (default: per pair,
    /// at most 200 bins over its samples' range).
    #[arg(long, value_name = "W")]
    bin_width: Option<i64>,
    /// The length of one tick in the unit of the measured times of a samples CSV and of
    /// workload CSV files (the experiment's `workload.tick`, default 1), e.g. 0.001 for times
    /// in seconds on a millisecond grid; `auto`: a hundredth of the samples CSV's shortest
    /// cell mean, rounded down to 1, 2 or 5 times a power of ten (the run folder records it).
    #[arg(long, value_name = "LENGTH|auto", value_parser = parse_tick)]
    tick: Option<TickArg>,
    /// The name of the time unit of the measured times ("ms", "s", ...), printed with every
    /// time and rate (the experiment's `workload.unit`); nothing is converted by it.
    #[arg(long, value_name = "NAME")]
    unit: Option<String>,
    /// The offered load, replacing the experiment's rate: tasks arrive at L times the
    /// machines' capacity (1: as many as they complete at best on mean times; the
    /// experiment's `workload.load`).
    #[arg(long, value_name = "L", conflicts_with = "arrival_rate")]
    load: Option<f64>,
    /// Tasks per time unit, replacing the experiment's rate (`workload.arrival_rate`).
    #[arg(long, value_name = "R")]
    arrival_rate: Option<f64>,
    /// The tick a histogram bin [k W, (k+1) W) of a samples CSV stands for.
    #[arg(long, value_enum, default_value = "upper")]
    bin_value: BinValueArg,
    /// Use these arrival trials (.dat or workload CSV files): a file, a folder, or a glob such
    /// as 'dir/arr34k_*.dat' (quote it), in natural order (arr34k_2 before arr34k_10).
    #[arg(long)]
    workload: Option<String>,
    /// Heuristic (or variant) name, replacing `[mapper] name`; the table's other keys stay.
    /// Several separated by commas (auto,PAM,MM-P) run on the same trials and print one
    /// table with their paired differences to the best; with --out, DIR/<heuristic>/ each.
    #[arg(long, value_name = "NAME[,NAME...]")]
    heuristic: Option<String>,
    /// Skip the clairvoyant bracket, both its sides: `optimum_lower` and `optimum_upper` (computed
    /// per trial by default; the bracket costs more than the simulation).
    #[arg(long)]
    no_bound: bool,
    /// Trim every completion-time PMF within this total-variation distance (0 = exact;
    /// faster, approximate, labelled; user guide: Command line), overriding
    /// `[system] pct_epsilon`.
    #[arg(long, value_name = "EPS", allow_negative_numbers = true)]
    pct_epsilon: Option<f64>,
    /// Trace every trial (as `trace = true` in the experiment): DIR/trace/ gets per-task and
    /// per-event CSVs per trial; needs --out DIR (user guide: Outputs and traces). Results
    /// are the same as without.
    #[arg(long)]
    trace: bool,
    /// Also draw each traced trial's timeline figure, DIR/trace/timeline-<k>.svg and .png
    /// (implies --trace; needs --out DIR). The HTML report draws timelines without them.
    #[arg(long)]
    timelines: bool,
    /// After the run, write the interactive HTML report DIR/report.html (implies --trace;
    /// needs --out DIR).
    #[arg(long)]
    report: bool,
}

#[derive(clap::Args, Debug)]
struct ReportArgs {
    /// The folder a `run --out` or a `sweep --out` wrote (or a traced sweep point's folder,
    /// OUT/<id>.trace/<point>: its sweep's report).
    dir: PathBuf,
    /// Write the report here instead of DIR/report.html.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also draw each traced trial's timeline figure, DIR/trace/timeline-<k>.svg and .png
    /// (a run's folder).
    #[arg(long)]
    timelines: bool,
}

#[derive(clap::Args, Debug)]
struct NewPolicyArgs {
    /// The crate's name, also its program's: letters, digits, '-' and '_'.
    name: String,
    /// The folder to write (default: NAME in the current folder); an existing one must be
    /// empty.
    #[arg(long, value_name = "DIR")]
    path: Option<PathBuf>,
    /// The prunesim checkout to depend on by path (default: the one this prunesim was built
    /// from).
    #[arg(long, value_name = "DIR", conflicts_with = "git")]
    prunesim_path: Option<PathBuf>,
    /// Depend on prunesim's crates from this git repository instead of a checkout.
    #[arg(long, value_name = "URL")]
    git: Option<String>,
}

#[derive(clap::Args, Debug)]
struct SweepArgs {
    /// Sweep files (TOML): a figure's experiments, a cutting table or a moldable figure.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    options: crate::sweep::SweepOptions,
}

#[derive(clap::Args, Debug)]
struct RerunArgs {
    /// The folder a `run --out` wrote, or its manifest.json.
    manifest: PathBuf,
    /// Worker threads (0 = all cores); results are identical for any value.
    #[arg(long, default_value_t = 0)]
    jobs: usize,
    /// Write the outputs into this folder (as `run --out`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// With --out: when the folder holds a run of another configuration, remove the files
    /// that run's manifest names first (as `run --force`).
    #[arg(long)]
    force: bool,
    /// Print the summary JSON on stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// Print every measure and its definition (as `run --all`).
    #[arg(long)]
    all: bool,
}

/// Runs the `prunesim` command line on the program's arguments, with every heuristic the
/// registry holds at the time ([`heuristics::register`]: a policy crate registers its own
/// first, and `run`, `sweep`, `report` and the rest take them by name), and returns the
/// exit code. Logs go to stderr (`RUST_LOG`, default `warn`), as `prunesim`'s own.
pub fn main() -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_ansi(std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none())
        .with_writer(std::io::stderr)
        .try_init();
    let cli = Cli::parse();
    if let Err(e) = workload::io::max_input_bytes_checked() {
        eprintln!("error: {}", output::escape_controls(&e.to_string()));
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        None => run(&RunArgs::default()),
        Some(Command::Run(a)) => run(&a),
        Some(Command::Rerun(a)) => rerun(&a),
        Some(Command::Report(a)) => report(&a),
        Some(Command::Sweep(a)) => sweep(&a),
        Some(Command::NewPolicy(a)) => new_policy(&a),
        Some(Command::List) => list(),
        Some(Command::Metrics { markdown: false }) => {
            output::print_glossary(&mut std::io::stdout().lock())
        }
        Some(Command::Metrics { markdown: true }) => {
            print!("{}", runner::metrics::glossary_markdown());
            Ok(())
        }
        Some(Command::ConfigReference) => {
            print!("{}", runner::config_reference::markdown());
            Ok(())
        }
    };
    // The peak to hold against the estimate logged before the run (`RUST_LOG=info`).
    if let Some(peak) = resources::peak_memory() {
        tracing::info!(
            peak = %resources::bytes(peak),
            peak_bytes = peak,
            "peak memory"
        );
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", output::escape_controls(&format!("{e:#}")));
            ExitCode::FAILURE
        }
    }
}

fn sweep(args: &SweepArgs) -> Result<()> {
    let sweeps = crate::sweep::load(&args.files)?;
    let caller = crate::sweep::Caller::prunesim(&args.files, &sweeps)?;
    crate::sweep::run(&args.files, &sweeps, &args.options, &caller)
}

fn new_policy(args: &NewPolicyArgs) -> Result<()> {
    use crate::template;
    let source = match (&args.git, &args.prunesim_path) {
        (Some(url), _) => template::Source::Git(url.clone()),
        (None, Some(dir)) => template::Source::Path(template::checkout(dir)?),
        (None, None) => template::Source::Path(template::checkout(&template::built_from())
            .context("the checkout this prunesim was built from is gone or moved: give --prunesim-path DIR or --git URL")?),
    };
    let dir = args
        .path
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.name));
    template::write(&args.name, &dir, &source)
        .with_context(|| format!("prunesim new-policy {}", args.name))?;
    let from = match &source {
        template::Source::Path(root) => format!("the checkout {}", root.display()),
        template::Source::Git(url) => url.clone(),
    };
    println!(
        "wrote the crate {} in {} (prunesim's crates from {from}); run it there with: cargo run --release -- run --heuristic MSP-EDF-P,PAM,MM",
        args.name,
        dir.display()
    );
    Ok(())
}

fn list() -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "Base heuristics ([mapper] parameters they take):")?;
    for entry in heuristics::entries() {
        let (name, desc) = (entry.name, entry.description);
        let params = entry.parameters;
        let params = if params.is_empty() {
            "-".to_string()
        } else {
            params.join(", ")
        };
        writeln!(out, "  {name:<9} [{params}] {desc}")?;
    }
    writeln!(out, "Variants (a heuristic plus a pruner configuration):")?;
    for (name, desc) in runner::variants::VARIANTS {
        writeln!(out, "  {name:<9} {desc}")?;
    }
    let rules = pruner::registry::rules();
    if !rules.is_empty() {
        writeln!(
            out,
            "Pruning rules of your own ([pruner] rule = \"...\", instead of the papers' pruner):"
        )?;
        for r in rules {
            writeln!(out, "  {:<9} {}", r.name, r.description)?;
        }
    }
    writeln!(out, "Pruner presets ([pruner] preset = \"...\"):")?;
    for (p, name) in pruner::Preset::ALL {
        writeln!(out, "  {name:<9} {}", output::pruner_line(&p.config()))?;
    }
    writeln!(
        out,
        "Fairness modes ([pruner] fairness_mode = \"...\", with fairness > 0; also fairness_cap = the most relief may move a threshold, fairness_relief = \"both\" | \"defer\"):"
    )?;
    for (m, name) in pruner::FairnessMode::ALL {
        writeln!(out, "  {name:<9} {}", m.description())?;
    }
    Ok(())
}

/// The options that change the experiment, as they read on the command line (for the title).
fn overrides(args: &RunArgs) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(h) = &args.heuristic {
        v.push(format!("--heuristic {h}"));
    }
    if let Some(p) = &args.pet {
        v.push(format!(
            "--pet {}",
            p.file_name().unwrap_or(p.as_os_str()).to_string_lossy()
        ));
    }
    if let Some(w) = &args.workload {
        v.push(format!("--workload {w}"));
    }
    if let Some(e) = args.pct_epsilon {
        v.push(format!("--pct-epsilon {e}"));
    }
    match args.tick {
        Some(TickArg::Length(t)) => v.push(format!("--tick {t}")),
        Some(TickArg::Auto) => v.push("--tick auto".to_owned()),
        None => {}
    }
    if let Some(u) = &args.unit {
        v.push(format!("--unit {u}"));
    }
    if let Some(l) = args.load {
        v.push(format!("--load {l}"));
    }
    if let Some(r) = args.arrival_rate {
        v.push(format!("--arrival-rate {r}"));
    }
    v
}

/// `prunesim run`: the command's steps in order (the experiment read and checked, the header,
/// the trials with their progress bar, the outputs, the report). One function because each
/// step reads what the steps before it made and the order is what the command does.
fn run(args: &RunArgs) -> Result<()> {
    if args.bin_width.is_some() && args.pet.is_none() {
        bail!("--bin-width applies to a samples CSV given with --pet");
    }
    let mut config = match &args.experiment {
        Some(p) if p.as_os_str() == "-" => read_stdin_experiment(args.seed)?,
        Some(p) => ExperimentConfig::load_seeded(p, args.seed)?,
        None => ExperimentConfig::paper_default(),
    };
    // The built-in experiment as it is: the paper's headline setting, whose published value
    // the table places against the bracket.
    let headline = args.experiment.is_none() && overrides(args).is_empty();
    let changed = overrides(args);
    if !changed.is_empty() {
        let base = match &args.experiment {
            Some(_) => config.name.clone(),
            None => "built-in experiment".to_owned(),
        };
        config.name = format!("{base} with {}", changed.join(" "));
    }
    let heuristics = side_by_side::names(args.heuristic.as_deref())?;
    if let Some(h) = heuristics.first() {
        config.mapper.name.clone_from(h);
    } else if args.experiment.is_none() && args.pet.is_some() {
        // On one's own PET the paper's headline heuristic is not the point: the recommended
        // one runs (docs/reproduction.md, "The recommended scheduler").
        config.mapper = heuristics::HeuristicConfig::named("auto");
        config.name.push_str(" and the recommended heuristic auto");
    }
    if let Some(s) = args.seed {
        config.workload.seed = s;
    }
    if let Some(eps) = args.pct_epsilon {
        config.system.pct_epsilon = eps;
    }
    if args.trace || args.report || args.timelines {
        config.trace = true;
    }
    if let Some(p) = &args.pet {
        config.workload.pet = pet_source(args, p)?;
    }
    match args.tick {
        Some(TickArg::Length(t)) => config.workload.tick = t,
        Some(TickArg::Auto) => {
            config.workload.tick = f64::NAN;
            inputs::auto_tick(&mut config.workload)?;
        }
        None => {}
    }
    if let Some(u) = &args.unit {
        config.workload.unit = Some(u.clone());
    }
    if args.load.is_some() || args.arrival_rate.is_some() {
        let w = &mut config.workload;
        (w.rate, w.load, w.arrival_rate) = (None, args.load, args.arrival_rate);
    }
    let mut with_options = changed;
    if let Some(s) = args.seed {
        with_options.push(format!("--seed {s}"));
    }
    config
        .validate()
        .map_err(anyhow::Error::msg)
        .with_context(|| {
            let what = args
                .experiment
                .as_ref()
                .map_or("the built-in experiment".to_owned(), |p| {
                    p.display().to_string()
                });
            if with_options.is_empty() {
                what
            } else {
                format!("{what} with {}", with_options.join(" "))
            }
        })?;
    if heuristics.len() > 1 {
        return side_by_side::run(args, &config, &heuristics);
    }
    let (prepared, manifest, repairs) = prepare(args, config, !args.no_bound)?;
    let experiment_file = args.experiment.as_deref().filter(|p| p.as_os_str() != "-");
    execute(
        &prepared,
        &manifest,
        threads(args.jobs),
        &Outputs {
            dir: args.out.as_deref(),
            force: args.force,
            kept: true,
            timelines: args.timelines,
            report: args.report,
            inputs: run_folder::inputs(&manifest, experiment_file),
        },
        Printing {
            json: args.json,
            all: args.all,
            headline,
        },
    )?;
    if prepared_from_files(args) {
        report_repairs(&repairs);
    }
    Ok(())
}

/// Whether `run` reads its trials from files (`--workload`).
fn prepared_from_files(args: &RunArgs) -> bool {
    args.workload.is_some()
}

/// The PET read or generated, the trial files read, the memory checked (before the machines
/// are drawn and the trials read) and the run prepared, with its manifest and what the
/// readers repaired; the clairvoyant bracket when `with_bound`.
fn prepare(
    args: &RunArgs,
    config: ExperimentConfig,
    with_bound: bool,
) -> Result<(Prepared, RunManifest, Repairs)> {
    let pet_context = || match &args.experiment {
        Some(p) => format!("{}: the PET of [workload]", p.display()),
        None => "the PET".to_owned(),
    };
    let source_pet = config.workload.source_pet().with_context(pet_context)?;
    let files = args.workload.as_deref().map(expand_files).transpose()?;
    let given = files.as_ref().map(|f| GivenTrials {
        trials: f.len() as u64,
        // A task line of a trial file holds at least 6 bytes ("1 0 3;").
        most_tasks: f
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len() / 6)
            .max()
            .unwrap_or(0),
    });
    let prep = Preparation {
        trials: args.trials,
        jobs: args.jobs,
        with_bound,
        report: args.report,
        budget: args
            .max_memory
            .map_or_else(resources::default_budget, |b| b.as_u64()),
        given,
    };
    let mut repairs = Repairs::default();
    let tick = config.workload.tick;
    let prepared = Prepared::checked(config, source_pet, &prep, |pet| {
        read_trials(
            files.as_deref().unwrap_or_default(),
            pet,
            tick,
            &mut repairs,
        )
    })?;
    let manifest = RunManifest::new(&prepared, files.as_deref())?;
    Ok((prepared, manifest, repairs))
}

/// The worker threads for `--jobs`, capped at the machine's cores with a warning.
fn threads(jobs: usize) -> usize {
    let (threads, warning) = resources::worker_threads(jobs);
    if let Some(w) = warning {
        tracing::warn!("{w}");
    }
    threads
}

/// `prunesim report DIR`: of a run folder, only a finished run, and into it only files that
/// are the run's or new ([`run_folder::adopt`]: the manifest then names them too).
fn report(args: &ReportArgs) -> Result<()> {
    let dir = &args.dir;
    let manifest = dir.join(run_folder::MANIFEST);
    let _lock = if dir.is_dir() && std::fs::symlink_metadata(&manifest).is_ok() {
        run_folder::check_complete(dir, "report")?;
        let trials = RunManifest::load(&manifest)?.trials;
        let mut names = Vec::new();
        if args.output.is_none() {
            names.push(report::html::REPORT_FILE.to_owned());
        }
        if args.timelines {
            for k in 0..trials {
                names.push(format!("trace/timeline-{k}.svg"));
                names.push(format!("trace/timeline-{k}.png"));
            }
        }
        run_folder::adopt(dir, &names)?
    } else {
        // A sweep's folder: its report is the only page of that name prunesim writes there.
        let page = dir.join(report::html::REPORT_FILE);
        if args.output.is_none() && !reports::is_report_page(&page) {
            bail!(
                "{} is not a report prunesim wrote, and prunesim never writes over a file it did not write: move it, or give --output FILE",
                page.display()
            );
        }
        None
    };
    reports::write_report(dir, args.output.as_deref())?;
    if args.timelines {
        reports::draw_timelines(dir, 0)?;
    }
    Ok(())
}

fn rerun(args: &RerunArgs) -> Result<()> {
    if side_by_side::is_comparison(&args.manifest) {
        if args.out.is_some() || args.json || args.all || args.force {
            bail!(
                "{}: a comparison is rerun into a temporary folder and compared; --out, --json, --all and --force apply to one run folder ({}/<heuristic>)",
                args.manifest.display(),
                args.manifest.display()
            );
        }
        return side_by_side::rerun(&args.manifest, args.jobs);
    }
    let compare::Reread {
        run_dir,
        manifest,
        prepared,
        repairs,
        before,
        timelines,
    } = compare::reread(&args.manifest, "the run")?;
    // Without --out, the outputs go to a temporary folder to be compared.
    let scratch;
    let out: &Path = match &args.out {
        Some(o) => o,
        None => {
            scratch = tempfile::tempdir().context("creating a temporary folder for the rerun")?;
            scratch.path()
        }
    };
    execute(
        &prepared,
        &manifest,
        args.jobs,
        &Outputs {
            dir: Some(out),
            force: args.force,
            kept: args.out.is_some(),
            timelines,
            report: false,
            inputs: run_folder::inputs(&manifest, None),
        },
        Printing {
            json: args.json,
            all: args.all,
            headline: false,
        },
    )?;
    if manifest.workload_files.is_some() {
        report_repairs(&repairs);
    }
    let verdict = compare::verdict(&before, out, prepared.trials)
        .with_context(|| format!("rerun of {}", run_dir.display()))?;
    eprintln!("{verdict}");
    Ok(())
}

/// Where a run's results go.
struct Outputs<'a> {
    /// The run folder (`--out`), if any.
    dir: Option<&'a Path>,
    /// Replace a run of another configuration there (`--force`).
    force: bool,
    /// Whether `dir` is the user's folder (its traces are named) or a temporary one.
    kept: bool,
    /// Draw each traced trial's timeline figure too.
    timelines: bool,
    /// Write the HTML report into the folder.
    report: bool,
    /// The run's input files, which no output may replace.
    inputs: Vec<run_folder::Input>,
}

/// What a run prints on standard output.
#[derive(Debug, Clone, Copy)]
struct Printing {
    /// The summary as JSON instead of the table.
    json: bool,
    /// Every measure and the definitions (`--all`).
    all: bool,
    /// The built-in experiment as it is: the table says where the paper's value lies.
    headline: bool,
}

impl Printing {
    fn table(self) -> output::Table {
        output::Table {
            all: self.all,
            headline: self.headline,
        }
    }
}

/// Runs the trials, then writes and prints the results ([`simulate`]).
fn execute(
    prepared: &Prepared,
    manifest: &RunManifest,
    jobs: usize,
    outputs: &Outputs<'_>,
    printing: Printing,
) -> Result<()> {
    let (summary, _) = simulate(prepared, manifest, jobs, outputs)?;
    let mut stdout = std::io::stdout().lock();
    if printing.json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        // Names come from files: none may drive the terminal.
        let mut table = Vec::new();
        output::print_table(&mut table, &summary, prepared, printing.table())?;
        let table = String::from_utf8_lossy(&table);
        write!(stdout, "{}", output::escape_controls(&table))?;
    }
    Ok(())
}

/// Runs the trials and writes the results, printing nothing on standard output. The folder
/// is claimed for the run before anything is written ([`run_folder::claim`]) and its
/// manifest says it is finished only once every output is in place
/// ([`run_folder::Claim::finish`]).
fn simulate(
    prepared: &Prepared,
    manifest: &RunManifest,
    jobs: usize,
    outputs: &Outputs<'_>,
) -> Result<(Summary, Vec<TrialMetrics>)> {
    let out = outputs.dir;
    let claim = match out {
        Some(dir) => Some(run_folder::claim(
            dir,
            manifest,
            &outputs.inputs,
            run_folder::planned_files(
                prepared.trials,
                prepared.config.trace,
                outputs.timelines,
                outputs.report,
            ),
            outputs.force,
        )?),
        None => None,
    };
    // The run's files are written in the claim's staging folder and put in place at the end.
    let staging = claim.as_ref().map(run_folder::Claim::staging);
    let trace_dir = match (prepared.config.trace, staging) {
        (false, _) => None,
        (true, Some(dir)) => Some(report::trace_dir(dir)),
        (true, None) => bail!(
            "tracing (--trace, --report or trace = true in the experiment) writes files: give --out DIR"
        ),
    };
    if matches!(prepared.source, TrialSource::Generated) {
        let asked = prepared.config.workload.tasks;
        let range = TaskRange::of(&prepared.tasks_per_trial());
        if range.fewest < asked {
            let w = &prepared.config.workload;
            let simulated = if range.fewest == range.most {
                range.most.to_string()
            } else {
                format!("{} to {}", range.fewest, range.most)
            };
            tracing::warn!(
                "workload.tasks = {asked}, but {simulated} tasks arrive within the horizon \
                 ({} {}): each trial simulates those; raise the rate or the horizon for more",
                w.horizon,
                w.units_name()
            );
        }
    }
    let tasks: u64 = prepared.tasks_per_trial().iter().map(|&n| n as u64).sum();
    let progress = crate::progress::Progress::start(tasks, prepared.trials);
    let tick = || progress.trial_done(prepared.trials);
    let done = |n| progress.tasks_done(n);
    let tracing = trace_dir.as_deref().map_or(Tracing::Off, Tracing::Files);
    let trials: Vec<TrialMetrics> = prepared
        .run(
            RunOptions::default()
                .jobs(jobs)
                .progress(&tick)
                .tasks_done(&done)
                .tracing(tracing),
        )?
        .into_iter()
        .map(|r| r.metrics)
        .collect();
    progress.finish();
    // The manifest hashed the PET already.
    let pet = runner::PetSummary::hashed(&prepared.pet, manifest.pet_sha256.clone());
    let summary = Summary::with_pet(prepared, &trials, pet);
    if let (Some(staging), Some(dir)) = (staging, out) {
        output::write_outputs(staging, dir, &summary, &trials, manifest)?;
        if outputs.report {
            let page = report::html::REPORT_FILE;
            reports::write_run_report(staging, &staging.join(page), &dir.join(page))?;
        }
    }
    if let (Some(_), Some(staging), Some(out)) = (&trace_dir, staging, out) {
        if outputs.timelines {
            reports::draw_timelines(staging, jobs)?;
        }
        if outputs.kept {
            let files = if outputs.timelines {
                "tasks-<k>.csv, events-<k>.csv, timeline-<k>.svg and .png"
            } else {
                "tasks-<k>.csv, events-<k>.csv"
            };
            eprintln!(
                "traces: {} ({files}; user guide: Outputs and traces)",
                report::trace_dir(out).display()
            );
        }
    }
    if let Some(claim) = claim {
        claim.finish(manifest)?;
    }
    Ok((summary, trials))
}
