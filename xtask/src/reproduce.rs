//! `reproduce-figure`: run a figure's sweep, write its CSVs, manifest and plots.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use std::fmt::Write as _;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use runner::{Estimate, FigureSpec, Point, Prepared, TrialMetrics, TrialSource};
use serde::Serialize;
use workload::{Pet, PetSource};

use crate::plot::{self, Bar, Figure};

/// Arguments of `reproduce-figure`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A figure id (the name of a file in experiments/ without `.toml`), or `all`.
    pub id: String,
    /// Trials per point (default: the figure's, 30 for the thesis' figures).
    #[arg(long)]
    pub trials: Option<u64>,
    /// Output folder.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Worker threads (0 = all cores); results are identical for any value.
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Run on this PET (.etc) instead of the generated default.
    #[arg(long)]
    pub pet: Option<PathBuf>,
    /// Run on the arrival trials in this folder (`arr<R>k_<T>.dat`), instead of generated ones.
    #[arg(long)]
    pub workloads: Option<PathBuf>,
    /// Folder of the figure TOML files.
    #[arg(long, default_value = "experiments")]
    pub experiments: PathBuf,
    /// Recompute every point, ignoring the saved point files of an earlier run.
    #[arg(long, conflicts_with = "collect")]
    pub fresh: bool,
    /// Compute only shard S of `--shards N` (the points whose index is S mod N) and save their
    /// point files, writing nothing else: what each task of a Slurm job array runs.
    #[arg(long, value_name = "S", requires = "shards", conflicts_with_all = ["slurm", "collect"])]
    pub shard: Option<usize>,
    /// The number of shards of the sweep (for `--shard`, `--slurm`, `--collect`).
    #[arg(long, value_name = "N")]
    pub shards: Option<usize>,
    /// Write a Slurm job-array script, `OUT/<id>.sbatch`, whose task S runs `--shard S`.
    #[arg(long, conflicts_with = "collect")]
    pub slurm: bool,
    /// Slurm partition of the job array (with `--slurm`).
    #[arg(long, requires = "slurm")]
    pub partition: Option<String>,
    /// Slurm time limit of each array task, e.g. 01:00:00 (with `--slurm`).
    #[arg(long, requires = "slurm")]
    pub time: Option<String>,
    /// Submit the script with `sbatch` once written (with `--slurm`).
    #[arg(long, requires = "slurm")]
    pub submit: bool,
    /// The xtask binary the array tasks run (default: target/release/xtask).
    #[arg(long, requires = "slurm")]
    pub binary: Option<PathBuf>,
    /// Render the figure from the saved point files only (after a sharded run); lists the
    /// missing points and the shards to resubmit, and computes nothing.
    #[arg(long)]
    pub collect: bool,
}

/// What a `reproduce-figure` run does with a figure's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Compute the missing points, then render.
    Full,
    /// Compute the missing points of shard `s` of `n`; render nothing.
    Shard { s: usize, n: usize },
    /// Render from the saved points; compute nothing.
    Collect,
}

impl Args {
    fn mode(&self) -> Result<Mode> {
        if let Some(s) = self.shard {
            let n = self.shards.unwrap_or(1);
            if n == 0 || s >= n {
                bail!("--shard {s} --shards {n}: the shard must be below the number of shards");
            }
            return Ok(Mode::Shard { s, n });
        }
        Ok(if self.collect {
            Mode::Collect
        } else {
            Mode::Full
        })
    }
}

/// The trials of one finished point, as saved on disk, with the full key they were computed
/// for and their count: a file whose key differs from the point's (another configuration,
/// seed, data or program) or that holds another number of trials (cut or edited) is never
/// reused.
#[derive(Serialize, serde::Deserialize)]
struct PointFile {
    /// [`point_key`] of the point.
    key: String,
    /// The trials the point has.
    trials_expected: u64,
    trials: Vec<TrialMetrics>,
}

/// Everything that decides a point's results: its resolved configuration, trials, seed,
/// bound flag, the data it runs on (the PET's content hash, the given trials' content hash,
/// the paths they came from), and the program (version, git revision).
fn point_key(prep: &Prepared, sources: &str) -> Result<String> {
    Ok(format!(
        "config={}|trials={}|seed={}|bound={}|pet_sha256={}|given_sha256={}|{sources}|version={}|revision={}",
        serde_json::to_string(&prep.config)?,
        prep.trials,
        prep.seed,
        prep.with_bound,
        runner::provenance::pet_sha256(&prep.pet),
        given_sha256(&prep.source),
        runner::provenance::VERSION,
        runner::provenance::GIT_REVISION
    ))
}

/// A content hash of given trials (`-` when generated).
fn given_sha256(source: &TrialSource) -> String {
    match source {
        TrialSource::Generated => "-".into(),
        TrialSource::Given(v) => runner::provenance::sha256_hex(format!("{v:?}").as_bytes()),
    }
}

/// The file of point `pi` in `dir`: its index and the SHA-256 of its key.
fn point_file(dir: &Path, pi: usize, key: &str) -> PathBuf {
    let hash = runner::provenance::sha256_hex(key.as_bytes());
    dir.join(format!("{pi:04}-{}.toml", &hash[..32]))
}

/// What decides a point's clairvoyant bracket: its trials (the PET, the workload, the seed and
/// the trial count, the data sources) and the counted range, nothing of the heuristic or the
/// pruner.
fn bracket_key(prep: &Prepared) -> Result<String> {
    Ok(format!(
        "{}|{}|{}|{}|{}|{}|{}",
        serde_json::to_string(&prep.config.workload)?,
        prep.config.system.skip_first,
        prep.config.system.skip_last,
        prep.trials,
        prep.seed,
        runner::provenance::pet_sha256(&prep.pet),
        // Given trials are the files of `--workloads` for the workload's rate.
        match &prep.source {
            TrialSource::Generated => "generated",
            TrialSource::Given(_) => "given",
        }
    ))
}

/// FNV-1a over what decides a point's trials once variant names are resolved: the
/// configuration with its heuristic and pruner replaced by the ones
/// [`runner::ExperimentConfig::resolved`] gives and its name cleared (a trial reads nothing
/// else of them: `Prepared::run_trial`), the trials, seed and bound flag, and the PET and
/// workload sources. Two points with the same key run the same trials: e.g. the base point
/// that JPDC-2016 figs. 7, 8 and 11 share, or a defer-only variant (`MM-D`) across a sweep
/// of the dropping toggle, which it sets to `never` whatever the sweep says.
fn effective_key(prep: &Prepared, sources: &str) -> Result<String> {
    let config = runner::ExperimentConfig {
        name: String::new(),
        mapper: prep.heuristic.clone(),
        pruner: Some(pruner::PrunerTable::explicit(&prep.pruner)),
        ..prep.config.clone()
    };
    Ok(format!(
        "{}|{}|{}|{}|{}",
        serde_json::to_string(&config)?,
        prep.trials,
        prep.seed,
        prep.with_bound,
        sources,
    ))
}

/// The points computed in this run, by [`effective_key`], for the figures (or points of one
/// figure) that run the same trials: each is computed once. A point not finished yet is
/// computed again rather than waited for (a wait inside the pool could block a thread on
/// work queued behind it): figures sharing points rarely run them at the same moment.
#[derive(Default)]
struct Computed(Mutex<HashMap<String, Arc<Vec<TrialMetrics>>>>);

impl Computed {
    fn get(&self, key: &str) -> Option<Arc<Vec<TrialMetrics>>> {
        self.0.lock().ok()?.get(key).cloned()
    }

    fn insert(&self, key: String, trials: &[TrialMetrics]) {
        if let Ok(mut map) = self.0.lock() {
            map.entry(key).or_insert_with(|| Arc::new(trials.to_vec()));
        }
    }
}

/// A saved point: its trials when the file exists, its key is `key` in full and it holds
/// exactly `expected` trials; `None` otherwise, with a warning when a file exists but does not
/// qualify (it is then recomputed and overwritten).
fn load_point(path: &Path, key: &str, expected: u64) -> Option<Vec<TrialMetrics>> {
    let text = std::fs::read_to_string(path).ok()?;
    let why = match toml::from_str::<PointFile>(&text) {
        Err(e) => format!("unreadable ({})", e.message()),
        Ok(p) if p.key != key => "made for another configuration, data or program".into(),
        Ok(p) if p.trials_expected != expected || p.trials.len() as u64 != expected => {
            format!("holds {} of {expected} trials", p.trials.len())
        }
        Ok(p) => return Some(p.trials),
    };
    tracing::warn!(file = %path.display(), "point file {why}: recomputing it");
    None
}

/// Writes a point file atomically ([`runner::files::write_atomic`]).
fn save_point(path: &Path, key: &str, trials: &[TrialMetrics]) -> Result<()> {
    let text = toml::to_string(&PointFile {
        key: key.to_owned(),
        trials_expected: trials.len() as u64,
        trials: trials.to_vec(),
    })?;
    runner::files::write_atomic(path, text.as_bytes())?;
    Ok(())
}

/// Figures of the neighbouring seeds, run by name (not part of `all`).
pub const NEIGHBOURS: &[(&str, &str)] = &[
    (
        "gao-table4",
        "seed 004, table 4: cutting strategies vs ORACLE, b = 1000, d = 100",
    ),
    (
        "gao-table5",
        "seed 004, table 5: cutting strategies vs ORACLE, b = 50, d = 5",
    ),
    (
        "hansen-4",
        "seed 002, fig. 4: robustness of the moldable-application heuristics",
    ),
    (
        "hansen-5",
        "seed 002, fig. 5: normalised gap to the upper bound vs processor types",
    ),
];

/// Lists the figures.
pub fn list(dir: &Path) -> Result<()> {
    for id in figure_ids(dir)? {
        let spec = FigureSpec::load(&dir.join(format!("{id}.toml")))?;
        println!("{id:<16} {}", spec.title);
    }
    for (id, title) in NEIGHBOURS {
        println!("{id:<16} {title}");
    }
    Ok(())
}

fn figure_ids(dir: &Path) -> Result<Vec<String>> {
    let mut ids: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        // The scale study of `perf` lives beside the figures but is not one.
        .filter(|id| id != crate::perf::SCALE_ID)
        .collect();
    ids.sort();
    Ok(ids)
}

/// Runs `reproduce-figure`.
pub fn run(args: &Args) -> Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    for stale in runner::files::clean_temporaries(&args.out) {
        tracing::info!(file = %stale.display(), "removed a temporary file a killed run left");
    }
    let mode = args.mode()?;
    let is_neighbour = NEIGHBOURS.iter().any(|(n, _)| *n == args.id);
    if is_neighbour && (mode != Mode::Full || args.slurm) {
        bail!(
            "{} has no point files: it runs whole (drop --shard, --slurm and --collect)",
            args.id
        );
    }
    if args.slurm {
        let path = args.experiments.join(format!("{}.toml", args.id));
        if args.id != "all" && !path.exists() {
            bail!("no figure '{}': {} does not exist", args.id, path.display());
        }
        return crate::slurm::write(args);
    }
    let ids = if args.id == "all" {
        figure_ids(&args.experiments)?
    } else {
        vec![args.id.clone()]
    };
    let pet_file = match &args.pet {
        Some(p) => Some(
            workload::io::read_etc(p)
                .with_context(|| format!("reading {}", p.display()))?
                .0,
        ),
        None => None,
    };
    let mut timings = Vec::new();
    let mut missing_shards = std::collections::BTreeSet::new();
    let mut missing_points = 0;
    let shards = match mode {
        Mode::Collect => crate::slurm::shards_of(args)?,
        Mode::Shard { n, .. } => Some(n),
        Mode::Full => None,
    };
    // PNGs are rendered on a thread of their own while the next figures simulate; a
    // figure's time below excludes its PNG. Waited for before returning.
    let renderer = crate::plot::Background::start()?;
    let progress = if std::io::stderr().is_terminal() {
        MultiProgress::new()
    } else {
        MultiProgress::with_draw_target(ProgressDrawTarget::hidden())
    };
    // Figures run side by side on one pool of `--jobs` threads, their points and trials
    // too: a thread that finishes its part of one figure takes up work of another, so no
    // core waits at the end of a figure. Each figure's table is printed whole when it is
    // done (in the order they finish); results do not depend on the order (every trial's
    // random streams are its own).
    // Points that run the same trials are computed once (see [`Computed`]).
    let computed = Computed::default();
    let (jobs, warning) = runner::resources::worker_threads(args.jobs);
    if let Some(w) = warning {
        tracing::warn!("{w}");
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build()?;
    let outcomes: Vec<Result<(f64, Vec<usize>)>> = pool.install(|| {
        ids.par_iter()
            .map(|id| -> Result<(f64, Vec<usize>)> {
                let start = Instant::now();
                let mut text = String::new();
                let missing = if id.starts_with("gao-") {
                    gao(id, args, &mut text).map(|()| Vec::new())
                } else if id == "hansen-4" {
                    hansen4(args, &mut text).map(|()| Vec::new())
                } else if id == "hansen-5" {
                    hansen5(args, &mut text).map(|()| Vec::new())
                } else {
                    let path = args.experiments.join(format!("{id}.toml"));
                    if !path.exists() {
                        bail!(
                            "no figure '{id}': {} does not exist (see `cargo xtask list-figures`)",
                            path.display()
                        );
                    }
                    let spec = FigureSpec::load(&path)?;
                    figure(
                        &spec,
                        args,
                        mode,
                        pet_file.as_ref(),
                        &computed,
                        &mut text,
                        &progress,
                    )
                }?;
                let secs = start.elapsed().as_secs_f64();
                progress.suspend(|| {
                    print!("{text}");
                    eprintln!("{id}: {secs:.1} s");
                });
                Ok((secs, missing))
            })
            .collect()
    });
    for (id, outcome) in ids.iter().zip(outcomes) {
        let (secs, missing) = outcome?;
        if !missing.is_empty() {
            let labels: Vec<String> = missing.iter().map(|i| format!("{i:04}")).collect();
            eprintln!(
                "{id}: {} point file(s) missing in {}: {}",
                missing.len(),
                args.out.join(format!("{id}.points")).display(),
                labels.join(" ")
            );
            missing_points += missing.len();
            if let Some(n) = shards {
                missing_shards.extend(missing.iter().map(|i| i % n));
            }
        }
        timings.push((id.clone(), secs));
    }
    renderer.finish()?;
    if mode == Mode::Collect && missing_points > 0 {
        match shards {
            Some(n) => {
                let list: Vec<String> = missing_shards.iter().map(|s| s.to_string()).collect();
                eprintln!(
                    "missing shards ({} of {n}): {}",
                    missing_shards.len(),
                    list.join(",")
                );
                eprintln!(
                    "resubmit them alone: sbatch --array={} {}",
                    list.join(","),
                    crate::slurm::script_path(args).display()
                );
            }
            None => eprintln!(
                "no --shards given and no {} to read it from: cannot name the shards",
                crate::slurm::script_path(args).display()
            ),
        }
        bail!(
            "{missing_points} point file(s) missing: nothing rendered for the incomplete figures"
        );
    }
    if mode != Mode::Full {
        // Shards and collects must not overwrite the timings of a real run.
        return Ok(());
    }
    // Wall-clock times live apart from the results, so results stay reproducible.
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["figure", "seconds"])?;
    for (id, s) in &timings {
        w.write_record([id.as_str(), &format!("{s:.3}")])?;
    }
    runner::files::write_atomic(&args.out.join("timings.csv"), &w.into_inner()?)?;
    Ok(())
}

/// Trials of the paper's files for a rate label, e.g. `arr34k_*.dat`, in trial order.
fn trials_for_rate(dir: &Path, rate: f64) -> Result<Vec<workload::Trial>> {
    let label = format!("arr{}k_", (rate / 1000.0).round() as i64);
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            let rest = name.strip_prefix(&label)?.strip_suffix(".dat")?;
            Some((rest.parse().ok()?, p))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|(_, p)| {
            workload::io::read_dat(&p)
                .map(|(t, _)| t)
                .with_context(|| format!("reading {}", p.display()))
        })
        .collect()
}

#[derive(Debug, Clone, Serialize)]
struct PointManifest {
    x: String,
    series: String,
    config: runner::ExperimentConfig,
    heuristic: String,
    pruner: pruner::PrunerConfig,
    trials: u64,
    seed: u64,
}

/// Runs one figure's sweep in `mode`; returns the indices of its missing point files (only a
/// collect has any: it then renders nothing).
fn figure(
    spec: &FigureSpec,
    args: &Args,
    mode: Mode,
    pet_file: Option<&Pet>,
    computed: &Computed,
    text: &mut String,
    progress: &MultiProgress,
) -> Result<Vec<usize>> {
    let points = spec.points(args.trials).map_err(anyhow::Error::msg)?;
    let mut prepared: Vec<(usize, Prepared)> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    // Per entry of `prepared`, the key of its trials' clairvoyant bracket.
    let mut bracket_keys: Vec<String> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let pet = pet_file.map(|base| match p.config.workload.pet {
            PetSource::Homogeneous { machine } => {
                base.homogeneous(machine.min(base.n_machines() - 1))
            }
            _ => base.clone(),
        });
        let source = match &args.workloads {
            Some(dir) => {
                let trials = trials_for_rate(dir, p.config.workload.rate)?;
                if trials.is_empty() {
                    skipped.push(format!(
                        "x={} series={}: no arr{}k_*.dat",
                        p.x_label,
                        p.series,
                        (p.config.workload.rate / 1000.0).round()
                    ));
                    continue;
                }
                TrialSource::Given(trials)
            }
            None => TrialSource::Generated,
        };
        let n = match (&source, args.trials) {
            (_, Some(t)) => t,
            (TrialSource::Given(v), None) => v.len() as u64,
            (TrialSource::Generated, None) => spec.trials,
        };
        let n = match &source {
            TrialSource::Given(v) => n.min(v.len() as u64),
            TrialSource::Generated => n,
        };
        let mut prep = Prepared::new(p.config.clone(), pet, source, Some(n), None)?;
        // The bracket depends on the trials, not on the series or on what the x axis varies
        // besides the trials (a pruner setting): compute it once per distinct set of trials.
        let key = bracket_key(&prep)?;
        prep.with_bound = spec.bound && !bracket_keys.contains(&key);
        bracket_keys.push(key);
        prepared.push((i, prep));
    }
    for s in &skipped {
        eprintln!("{}: cannot run {s}", spec.id);
    }
    // Each point's trials are saved atomically in its own file once they are all done, keyed
    // by a hash of everything that decides them: a re-run resumes, skipping finished points.
    let points_dir = args.out.join(format!("{}.points", spec.id));
    std::fs::create_dir_all(&points_dir)
        .with_context(|| format!("creating {}", points_dir.display()))?;
    let sources = format!(
        "pet={:?};workloads={:?}",
        args.pet.as_ref().map(|p| p.display().to_string()),
        args.workloads.as_ref().map(|p| p.display().to_string())
    );
    for stale in runner::files::clean_temporaries(&points_dir) {
        tracing::info!(file = %stale.display(), "removed a temporary file a killed run left");
    }
    let keys: Vec<String> = prepared
        .iter()
        .map(|(_, prep)| point_key(prep, &sources))
        .collect::<Result<_>>()?;
    let files: Vec<PathBuf> = keys
        .iter()
        .enumerate()
        .map(|(pi, key)| point_file(&points_dir, pi, key))
        .collect();
    let load = |pi: usize| load_point(&files[pi], &keys[pi], prepared[pi].1.trials);
    match mode {
        Mode::Collect => {
            let missing: Vec<usize> = (0..files.len()).filter(|&pi| load(pi).is_none()).collect();
            if !missing.is_empty() {
                return Ok(missing);
            }
        }
        Mode::Shard { s, n } => {
            // Sharding by point: shard s computes the points with index s mod n. Every point's
            // trials are seeded by their index, so they equal a local run's.
            let mine: Vec<usize> = (0..prepared.len()).filter(|pi| pi % n == s).collect();
            // On the pool of `run`.
            let computed: Vec<bool> = {
                mine.par_iter()
                    .map(|&pi| -> Result<bool> {
                        let prep = &prepared[pi].1;
                        if !args.fresh && load(pi).is_some() {
                            return Ok(false);
                        }
                        let trials = (0..prep.trials)
                            .into_par_iter()
                            .map(|k| prep.run_trial(k).map(|(_, m)| m))
                            .collect::<Result<Vec<_>, _>>()?;
                        save_point(&files[pi], &keys[pi], &trials)?;
                        Ok(true)
                    })
                    .collect::<Result<Vec<_>>>()
            }?;
            let fresh = computed.iter().filter(|c| **c).count();
            writeln!(
                text,
                "{} shard {s} of {n}: {} point(s) of {} ({fresh} computed, {} already saved) in {}",
                spec.id,
                mine.len(),
                prepared.len(),
                mine.len() - fresh,
                points_dir.display()
            )?;
            return Ok(Vec::new());
        }
        Mode::Full => {}
    }
    let total: u64 = prepared.iter().map(|(_, p)| p.trials).sum();
    let bar = progress.add(ProgressBar::new(total));
    bar.set_style(
        ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} runs {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(spec.id.clone());
    // On the pool of `run`, shared with the figures running beside this one.
    let per_point: Vec<Vec<TrialMetrics>> = {
        prepared
            .par_iter()
            .enumerate()
            .map(|(pi, (_, prep))| -> Result<Vec<TrialMetrics>> {
                let file = &files[pi];
                let key = effective_key(prep, &sources)?;
                if !args.fresh {
                    if let Some(done) = load(pi) {
                        bar.inc(prep.trials);
                        computed.insert(key, &done);
                        return Ok(done);
                    }
                }
                if let Some(done) = computed.get(&key) {
                    bar.inc(prep.trials);
                    save_point(file, &keys[pi], &done)?;
                    return Ok(done.to_vec());
                }
                let trials = (0..prep.trials)
                    .into_par_iter()
                    .map(|k| {
                        let r = prep.run_trial(k).map(|(_, m)| m);
                        bar.inc(1);
                        r
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                computed.insert(key, &trials);
                save_point(file, &keys[pi], &trials)?;
                Ok(trials)
            })
            .collect::<Result<Vec<_>>>()
    }?;
    bar.finish_and_clear();
    progress.remove(&bar);
    let by_point: Vec<Vec<&TrialMetrics>> = per_point.iter().map(|v| v.iter().collect()).collect();
    let metric = |m: &TrialMetrics, name: &str| -> Result<f64> {
        m.scalar(name)
            .with_context(|| format!("{}: unknown metric '{name}'", spec.id))
    };
    let out = &args.out;
    let mut csv_w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["x", "series", "mean", "ci95_low", "ci95_high", "n"]
        .map(String::from)
        .to_vec();
    for m in &spec.extra_metrics {
        header.extend([m.clone(), format!("{m}_ci95_low"), format!("{m}_ci95_high")]);
    }
    csv_w.write_record(&header)?;
    let mut trials_w = csv::Writer::from_writer(Vec::new());
    trials_w.write_record(["x", "series", "trial", "metric", "value"])?;
    let mut bars: Vec<Bar> = Vec::new();
    let mut manifest_points = Vec::new();
    writeln!(text, "{} — {}", spec.id, spec.title)?;
    write!(
        text,
        "{:<12} {:<18} {:>10} {:>22} {:>4}",
        "x", "series", "mean", "95% CI", "n"
    )?;
    for m in &spec.extra_metrics {
        write!(text, " {m:>10}")?;
    }
    writeln!(text)?;
    for (pi, (orig, prep)) in prepared.iter().enumerate() {
        let point: &Point = &points[*orig];
        let mut values = Vec::new();
        let mut labels = Vec::new();
        let mut extra = vec![Vec::new(); spec.extra_metrics.len()];
        for (k, m) in by_point[pi].iter().enumerate() {
            let v = metric(m, &spec.metric)?;
            values.push(v);
            trials_w.write_record([
                point.x_label.clone(),
                point.series.clone(),
                k.to_string(),
                spec.metric.clone(),
                v.to_string(),
            ])?;
            if let Some(lm) = &spec.label_metric {
                let l = metric(m, lm)?;
                labels.push(l);
                trials_w.write_record([
                    point.x_label.clone(),
                    point.series.clone(),
                    k.to_string(),
                    lm.clone(),
                    l.to_string(),
                ])?;
            }
            for (j, name) in spec.extra_metrics.iter().enumerate() {
                let v = metric(m, name)?;
                extra[j].push(v);
                if *name != spec.metric && spec.label_metric.as_ref() != Some(name) {
                    trials_w.write_record([
                        point.x_label.clone(),
                        point.series.clone(),
                        k.to_string(),
                        name.clone(),
                        v.to_string(),
                    ])?;
                }
            }
        }
        let e = Estimate::of_metric(&spec.metric, &values);
        let extra: Vec<Estimate> = spec
            .extra_metrics
            .iter()
            .zip(&extra)
            .map(|(name, v)| Estimate::of_metric(name, v))
            .collect();
        write_row(text, &mut csv_w, &point.x_label, &point.series, &e, &extra)?;
        let label = spec
            .label_metric
            .as_ref()
            .map(|_| Estimate::new(&labels).mean);
        bars.push(Bar {
            x_index: point.x_index,
            series_index: point.series_index,
            estimate: e,
            label,
        });
        manifest_points.push(PointManifest {
            x: point.x_label.clone(),
            series: point.series.clone(),
            config: prep.config.clone(),
            heuristic: prep.heuristic.name.clone(),
            pruner: prep.pruner.clone(),
            trials: prep.trials,
            seed: prep.seed,
        });
    }
    // The clairvoyant optimum's bracket: its upper side ("clairvoyant bound") and lower side
    // ("clairvoyant schedule") as rows of the CSVs, drawn as a band behind the series.
    let bracket_metrics = match spec.metric.as_str() {
        "robustness" => Some(("optimum_lower", "bound")),
        "on_time" => Some(("optimum_lower_on_time", "bound_on_time")),
        _ => None,
    };
    let series_names: Vec<String> = spec.series.iter().map(|s| s.label.clone()).collect();
    let mut bands: Vec<plot::Band> = Vec::new();
    if let (true, Some((lower_metric, upper_metric))) = (spec.bound, bracket_metrics) {
        let mut x_done = Vec::new();
        for (pi, (orig, _)) in prepared.iter().enumerate() {
            let point: &Point = &points[*orig];
            if x_done.contains(&point.x_index) {
                continue;
            }
            x_done.push(point.x_index);
            // The point that computed this x's bracket (the first with the same trials).
            let Some(pi) = (0..prepared.len())
                .find(|&j| prepared[j].1.with_bound && bracket_keys[j] == bracket_keys[pi])
            else {
                continue;
            };
            let mut sides = Vec::new();
            for (label, name) in [
                ("clairvoyant bound", upper_metric),
                ("clairvoyant schedule", lower_metric),
            ] {
                let mut values = Vec::new();
                for (k, m) in by_point[pi].iter().enumerate() {
                    let v = metric(m, name)?;
                    values.push(v);
                    trials_w.write_record([
                        point.x_label.clone(),
                        label.into(),
                        k.to_string(),
                        spec.metric.clone(),
                        v.to_string(),
                    ])?;
                }
                let e = Estimate::of_metric(name, &values);
                let blank = vec![Estimate::new(&[]); spec.extra_metrics.len()];
                write_row(text, &mut csv_w, &point.x_label, label, &e, &blank)?;
                sides.push(e.mean);
            }
            bands.push(plot::Band {
                x_index: point.x_index,
                lower: sides[1],
                upper: sides[0],
            });
        }
    }
    runner::files::write_atomic(&out.join(format!("{}.csv", spec.id)), &csv_w.into_inner()?)?;
    runner::files::write_atomic(
        &out.join(format!("{}.trials.csv", spec.id)),
        &trials_w.into_inner()?,
    )?;
    let manifest = serde_json::json!({
        "figure": spec.id,
        "title": spec.title,
        "source": spec.source,
        "git_revision": runner::provenance::GIT_REVISION,
        "version": runner::provenance::VERSION,
        "pet": args.pet.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "generated default".into()),
        "workloads": args.workloads.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "generated".into()),
        "skipped": skipped,
        "notes": spec.notes,
        "points": manifest_points,
    });
    runner::files::write_atomic(
        &out.join(format!("{}.manifest.json", spec.id)),
        serde_json::to_string_pretty(&manifest)?.as_bytes(),
    )?;
    let fig = Figure {
        title: format!("{} ({})", spec.title, spec.source),
        x_label: spec.x.label.clone(),
        y_label: spec.y_label.clone().unwrap_or_else(|| spec.metric.clone()),
        x_labels: (0..spec.x.values.len())
            .map(|i| spec.x_label_of(i))
            .collect(),
        series: series_names,
        bars,
        bands,
        chart: spec.chart,
    };
    plot::write(
        &fig,
        &out.join(format!("{}.svg", spec.id)),
        &out.join(format!("{}.png", spec.id)),
    )?;
    Ok(Vec::new())
}

fn gao(id: &str, args: &Args, text: &mut String) -> Result<()> {
    let table: cutting::tables::GaoTable = id.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    let instances = args.trials.unwrap_or(1000) as usize;
    let rows = cutting::tables::reproduce(table, instances, 2020)?;
    let path = args.out.join(format!("{id}.csv"));
    cutting::tables::write_csv(
        &rows,
        std::fs::File::create(&path).with_context(|| format!("writing {}", path.display()))?,
    )?;
    writeln!(text, "{}", cutting::tables::render(&rows))?;
    plot::write_gao(
        &rows,
        id,
        &args.out.join(format!("{id}.svg")),
        &args.out.join(format!("{id}.png")),
    )?;
    Ok(())
}

fn hansen4(args: &Args, text: &mut String) -> Result<()> {
    let trials = args.trials.unwrap_or(48) as usize;
    let rows = moldable::experiments::figure4(trials, 2)?;
    let path = args.out.join("hansen-4.csv");
    moldable::experiments::write_csv(
        &rows,
        std::fs::File::create(&path).with_context(|| format!("writing {}", path.display()))?,
    )?;
    let mut series: Vec<String> = Vec::new();
    for r in &rows {
        if !series.contains(&r.series) {
            series.push(r.series.clone());
        }
    }
    writeln!(
        text,
        "hansen-4 — robustness per heuristic ({trials} trials)"
    )?;
    writeln!(
        text,
        "{:<14} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "series", "min", "q1", "median", "q3", "max"
    )?;
    let mut boxes = Vec::new();
    for s in &series {
        let mut v: Vec<f64> = rows
            .iter()
            .filter(|r| &r.series == s)
            .map(|r| r.robustness)
            .collect();
        v.sort_by(f64::total_cmp);
        let q = plot::quartiles(&v);
        writeln!(
            text,
            "{:<14} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
            s, q[0], q[1], q[2], q[3], q[4]
        )?;
        boxes.push((s.clone(), q));
    }
    plot::write_boxes(
        "hansen-4: robustness of the allocations (Hansen et al., fig. 4)",
        "Robustness Psi",
        &boxes,
        &args.out.join("hansen-4.svg"),
        &args.out.join("hansen-4.png"),
    )
}

fn hansen5(args: &Args, text: &mut String) -> Result<()> {
    let trials = args.trials.unwrap_or(48) as usize;
    let rows = moldable::experiments::figure5(trials, 2)?;
    let path = args.out.join("hansen-5.csv");
    moldable::experiments::write_csv(
        &rows,
        std::fs::File::create(&path).with_context(|| format!("writing {}", path.display()))?,
    )?;
    writeln!(
        text,
        "hansen-5 — B_norm of RF Duplex vs processor types ({trials} trials)"
    )?;
    let bars: Vec<Bar> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| -> Result<Bar> {
            writeln!(
                text,
                "N_p = {:<3} B_norm = {:.4} ± {:.4}",
                r.n_types, r.mean_b_norm, r.ci95
            )?;
            Ok(Bar {
                x_index: i,
                series_index: 0,
                estimate: Estimate {
                    mean: r.mean_b_norm,
                    ci95_low: Some(r.mean_b_norm - r.ci95),
                    ci95_high: Some(r.mean_b_norm + r.ci95),
                    std_dev: None,
                    n: r.n,
                },
                label: None,
            })
        })
        .collect::<Result<_>>()?;
    let fig = Figure {
        title: "hansen-5: normalised gap to the upper bound (Hansen et al., fig. 5)".into(),
        x_label: "Processor types".into(),
        y_label: "B_norm = (B - Psi) / B".into(),
        x_labels: rows.iter().map(|r| r.n_types.to_string()).collect(),
        series: vec!["RF Duplex".into()],
        bars,
        bands: Vec::new(),
        chart: runner::Chart::Lines,
    };
    plot::write(
        &fig,
        &args.out.join("hansen-5.svg"),
        &args.out.join("hansen-5.png"),
    )
}

/// One point's estimate: a row of `<id>.csv` and a line of the printed table.
/// A row of `<id>.csv` and of the printed table: the figure's measure, then the means and
/// intervals of its `extra_metrics` (empty cells where they have no value, e.g. on the rows of
/// the clairvoyant optimum).
fn write_row(
    text: &mut String,
    csv_w: &mut csv::Writer<Vec<u8>>,
    x: &str,
    series: &str,
    e: &Estimate,
    extra: &[Estimate],
) -> Result<()> {
    let cell = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.6}"));
    let mut record = vec![
        x.to_string(),
        series.to_string(),
        format!("{:.6}", e.mean),
        cell(e.ci95_low),
        cell(e.ci95_high),
        e.n.to_string(),
    ];
    for x in extra {
        record.extend([
            cell((x.n > 0).then_some(x.mean)),
            cell(x.ci95_low),
            cell(x.ci95_high),
        ]);
    }
    csv_w.write_record(&record)?;
    write!(
        text,
        "{:<12} {:<18} {:>10.3} [{:>9.3}, {:>9.3}] {:>4}",
        x,
        series,
        e.mean,
        e.ci95_low.unwrap_or(f64::NAN),
        e.ci95_high.unwrap_or(f64::NAN),
        e.n
    )?;
    for x in extra.iter().filter(|x| x.n > 0) {
        write!(text, " {:>10.3}", x.mean)?;
    }
    writeln!(text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small experiment at rate 19k: `mapper` and the dropping toggle as given.
    fn prepared(name: &str, mapper: &str, toggle: &str, bound: bool) -> Prepared {
        let text = format!(
            "name = \"{name}\"\n\
             [workload]\nrate = 19000\ntasks = 120\nseed = 7\n\
             [system]\nskip_first = 10\nskip_last = 10\n\
             [mapper]\nname = \"{mapper}\"\n\
             [pruner]\ndrop_threshold = 0.75\ndefer_threshold = 0.75\ntoggle = {toggle}\n"
        );
        let config = runner::ExperimentConfig::from_toml_str(&text, "test", None).unwrap();
        let mut prep = Prepared::new(config, None, TrialSource::Generated, Some(2), None).unwrap();
        prep.with_bound = bound;
        prep
    }

    #[test]
    fn points_that_resolve_alike_share_their_key_and_their_trials() {
        // A defer-only variant sets the toggle to `never` whatever the sweep gives it.
        let a = prepared("x=1", "MM-D", "1", false);
        let b = prepared("x=None", "MM-D", "\"never\"", false);
        assert_eq!(
            effective_key(&a, "s").unwrap(),
            effective_key(&b, "s").unwrap()
        );
        // The point keys (which name the files) still differ: the raw configs do.
        assert_ne!(point_key(&a, "s").unwrap(), point_key(&b, "s").unwrap());
        // And the premise: the trials read nothing but the resolved configuration.
        for k in 0..2 {
            assert_eq!(a.run_trial(k).unwrap().1, b.run_trial(k).unwrap().1);
        }
    }

    #[test]
    fn points_that_run_differently_have_different_keys() {
        let base = effective_key(&prepared("p", "MM-P", "1", false), "s").unwrap();
        // The toggle matters to a variant that drops.
        assert_ne!(
            base,
            effective_key(&prepared("p", "MM-P", "0", false), "s").unwrap()
        );
        // So do the heuristic, the bound flag and the sources.
        assert_ne!(
            base,
            effective_key(&prepared("p", "MSD-P", "1", false), "s").unwrap()
        );
        assert_ne!(
            base,
            effective_key(&prepared("p", "MM-P", "1", true), "s").unwrap()
        );
        assert_ne!(
            base,
            effective_key(&prepared("p", "MM-P", "1", false), "t").unwrap()
        );
    }

    #[test]
    fn the_run_level_memo_hands_back_what_was_put_in() {
        let prep = prepared("p", "MM", "1", false);
        let trials: Vec<TrialMetrics> = (0..2).map(|k| prep.run_trial(k).unwrap().1).collect();
        let memo = Computed::default();
        assert!(memo.get("1").is_none());
        memo.insert("1".into(), &trials);
        assert_eq!(memo.get("1").unwrap().as_slice(), trials.as_slice());
        assert!(memo.get("2").is_none());
    }
}
