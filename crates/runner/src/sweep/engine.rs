//! The sweep engine: every kind of sweep file runs through [`run`], which computes its points'
//! trials in parallel, saves and resumes point files, shards a sweep for a job array and
//! collects it back, and writes the CSVs, the manifest and the plots.
//!
//! # Points, trials and results
//! A sweep is a list of points; point `p` runs trials `0..n_p`, each a pure function of
//! `(p, k)` and the sweep file (the random streams of a trial are keyed by its index and the
//! sweep's seed). Trials run on a rayon pool of `--jobs` threads, nested in the points and in
//! the sweeps of the same run, and are collected by index: results do not depend on the
//! thread count or on the order in which trials finish.
//!
//! # Point files
//! A finished point is saved atomically ([`crate::files`]) as
//! `OUT/<id>.points/<index:04>-<hash>.toml`, where the hash is the first 32 hex digits of the
//! SHA-256 of the point's key: everything that decides its results (its resolved
//! configuration, trials, seed, data sources, crate version and git revision). The file's
//! first line is the SHA-256 of the rest (`checksum = "<hex>"`), which holds the key in full,
//! the number of trials and the trials. A run loads a point from its file only when the
//! checksum verifies, the key matches and every trial is there; anything else (a file cut
//! short, edited, damaged, not a regular file, or made for another run) is recomputed with a
//! warning naming the point and what is wrong. So an interrupted run resumes where it
//! stopped, and `--fresh` recomputes everything.
//!
//! # Shards
//! [`Mode::Shard`] computes the points whose index is `s mod n` and writes nothing else;
//! [`Mode::Collect`] computes nothing and renders from the point files, or reports the missing
//! points. A collected sweep is byte for byte a local run's.
//!
//! # Twins
//! Points that run the same trials (a kind gives them the same twin key) are computed once per
//! run and handed to every point and sweep that has them; each still gets its own point file.
//! A twin not finished yet is computed again rather than waited for: a wait inside the pool
//! could block a thread on work queued behind it.

use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::RunError;
use crate::sweep::file::SweepFile;

/// What a run does with each sweep's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Compute the points that have no point file, then render.
    #[default]
    Full,
    /// Compute the missing points of shard `shard` of `shards` (index mod `shards`); render
    /// nothing.
    Shard {
        /// This shard, below `shards`.
        shard: usize,
        /// The number of shards.
        shards: usize,
    },
    /// Render from the point files; compute nothing.
    Collect,
}

/// How a run runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The output folder.
    pub out: PathBuf,
    /// Worker threads (0 = all cores; at most the cores).
    pub jobs: usize,
    /// Trials per point, overriding every sweep file's.
    pub trials: Option<u64>,
    /// A PET (`.etc`) replacing the generated default of simulator sweeps.
    pub pet: Option<PathBuf>,
    /// A folder of arrival trials (`arr<R>k_<T>.dat`) replacing the generated ones.
    pub workloads: Option<PathBuf>,
    /// The length of one tick in the unit of the measured times (`workload.tick`) of every
    /// point of the simulator sweeps, replacing the sweep files' (part of each point's
    /// configuration, so of its key).
    pub tick: Option<f64>,
    /// Recompute every point, ignoring the point files.
    pub fresh: bool,
    /// Full, shard or collect.
    pub mode: Mode,
    /// The memory the run may need, in bytes (`None`: [`crate::resources::default_budget`]);
    /// a run with a point, or points together, estimated above it is refused before any point
    /// runs ([`check_budget`]).
    pub max_memory: Option<u64>,
}

impl Options {
    /// The data sources as they enter a point's key: the `--pet` and `--workloads` paths as
    /// written.
    pub(crate) fn sources(&self) -> String {
        format!(
            "pet={:?};workloads={:?}",
            self.pet.as_ref().map(|p| p.display().to_string()),
            self.workloads.as_ref().map(|p| p.display().to_string())
        )
    }
}

/// What a run tells its caller while it runs (progress bars, printed tables). Called from the
/// worker threads.
pub trait Monitor: Sync {
    /// Sweep `id` starts computing (or loading) `runs` trials in all.
    fn started(&self, id: &str, runs: u64) {
        let _ = (id, runs);
    }
    /// Sweep `id` finished `runs` more trials.
    fn advanced(&self, id: &str, runs: u64) {
        let _ = (id, runs);
    }
    /// Sweep `id` is done: its table (or its shard's line) and its wall time in seconds.
    fn finished(&self, id: &str, text: &str, seconds: f64) {
        let _ = (id, text, seconds);
    }
    /// Whether the run is to stop, asked before every trial: once true, no trial starts, the
    /// trials running end and the run returns [`RunError::Interrupted`] (the Python package
    /// answers true after Ctrl-C). The points saved before stay valid: a rerun loads them.
    fn cancelled(&self) -> bool {
        false
    }
}

/// A monitor that reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Monitor for Silent {}

/// The outcome of one sweep of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepReport {
    /// The sweep's id.
    pub id: String,
    /// Its wall time in seconds (excluding its PNG, rendered in the background).
    pub seconds: f64,
    /// The indices of its missing point files (only a collect has any: it then renders
    /// nothing for this sweep).
    pub missing: Vec<usize>,
    /// Its point-file folder.
    pub points_dir: PathBuf,
}

/// The outcome of a run, one report per sweep in the order given.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// Per sweep.
    pub sweeps: Vec<SweepReport>,
}

impl Report {
    /// The number of missing point files over every sweep.
    pub fn missing(&self) -> usize {
        self.sweeps.iter().map(|s| s.missing.len()).sum()
    }

    /// The shards that hold the missing points, for a sweep split into `shards`.
    pub fn missing_shards(&self, shards: usize) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .sweeps
            .iter()
            .flat_map(|s| s.missing.iter().map(|i| i % shards.max(1)))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// What one kind of sweep computes: the engine's view of a sweep file once its points are
/// resolved. `Trial` is what one trial of a point computes, saved in the point files.
pub(crate) trait Kind: Sync {
    /// One trial's result.
    type Trial: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;
    /// The sweep's id (the output files' stem).
    fn id(&self) -> &str;
    /// The number of points.
    fn points(&self) -> usize;
    /// The trials of point `p`.
    fn trials(&self, p: usize) -> u64;
    /// Everything that decides point `p`'s results.
    fn key(&self, p: usize) -> &str;
    /// Points with the same twin key run the same trials (`None`: no twin).
    fn twin(&self, p: usize) -> Option<&str> {
        let _ = p;
        None
    }
    /// Runs trial `k` of point `p`.
    fn run_trial(&self, p: usize, k: u64) -> Result<Self::Trial, RunError>;
    /// The outputs from every point's trials, in point order.
    fn render(&self, results: &[Vec<Self::Trial>]) -> Result<Rendered, RunError>;
}

/// A sweep's outputs.
#[derive(Debug, Default)]
pub(crate) struct Rendered {
    /// The table printed when the sweep is done.
    pub text: String,
    /// Files in the output folder, written in this order: name and content.
    pub files: Vec<(String, Vec<u8>)>,
    /// The plot, written as `<id>.svg` and `<id>.png`.
    pub plot: Option<figures::Plot>,
}

/// The trials of one finished point, as saved on disk, with the full key they were computed
/// for and their count: a file whose key differs from the point's (another configuration,
/// seed, data or program) or that holds another number of trials (cut or edited) is never
/// reused.
#[derive(Serialize, Deserialize)]
#[serde(bound(deserialize = "T: DeserializeOwned"))]
struct PointFile<T> {
    /// The point's key.
    key: String,
    /// The trials the point has.
    trials_expected: u64,
    trials: Vec<T>,
}

/// The file of point `p` in `dir`: its index and the SHA-256 of its key.
fn point_file(dir: &Path, p: usize, key: &str) -> PathBuf {
    let hash = crate::provenance::sha256_hex(key.as_bytes());
    dir.join(format!("{p:04}-{}.toml", &hash[..32]))
}

/// The first line of a point file: the SHA-256 of the rest of the file.
const CHECKSUM: &str = "checksum = \"";

/// A saved point: its trials when the file exists, its checksum verifies, its key is `key` in
/// full and it holds exactly `expected` trials; `None` otherwise, with a warning naming
/// `point` and what is wrong when a file exists but does not qualify (it is then recomputed
/// and overwritten).
fn load_point<T: DeserializeOwned>(
    path: &Path,
    point: &str,
    key: &str,
    expected: u64,
) -> Option<Vec<T>> {
    let why = match read_point(path, key, expected) {
        Ok(None) => return None,
        Ok(Some(trials)) => return Some(trials),
        Err(why) => why,
    };
    tracing::warn!(
        file = %path.display(),
        "the point file of {point} {why}: recomputing the point"
    );
    None
}

/// The trials of a point file (`Ok(None)`: no file), or why it cannot be used.
fn read_point<T: DeserializeOwned>(
    path: &Path,
    key: &str,
    expected: u64,
) -> Result<Option<Vec<T>>, String> {
    match workload::io::check_input_file(path, workload::io::max_input_bytes()) {
        Ok(_) => {}
        Err(workload::WorkloadError::Io { error, .. })
            if error.kind() == std::io::ErrorKind::NotFound =>
        {
            return Ok(None);
        }
        Err(e) => return Err(format!("cannot be read ({e})")),
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
    let (first, rest) = match bytes.iter().position(|&b| b == b'\n') {
        Some(at) => (&bytes[..at], &bytes[at + 1..]),
        None => (&bytes[..], &[][..]),
    };
    let sum = std::str::from_utf8(first)
        .ok()
        .and_then(|l| l.strip_prefix(CHECKSUM)?.strip_suffix('"'))
        .ok_or("has no checksum line (damaged, or not a point file)")?;
    if sum != crate::provenance::sha256_hex(rest) {
        return Err("does not match its checksum (edited or damaged)".into());
    }
    let text = std::str::from_utf8(rest).map_err(|_| "is not UTF-8 text".to_owned())?;
    let file = toml::from_str::<PointFile<T>>(text)
        .map_err(|e| format!("is unreadable ({})", e.message()))?;
    if file.key != key {
        return Err("was made for another configuration, data or program".into());
    }
    let held = file.trials.len() as u64;
    if held != file.trials_expected {
        return Err(format!(
            "holds {held} trials but says it holds {}",
            file.trials_expected
        ));
    }
    if held != expected {
        return Err(format!("holds {held} trials and the point has {expected}"));
    }
    Ok(Some(file.trials))
}

/// Writes a point file atomically: its checksum line, then the key, the trial count and the
/// trials.
fn save_point<T: Serialize + Clone>(path: &Path, key: &str, trials: &[T]) -> Result<(), RunError> {
    let text = toml::to_string(&PointFile {
        key: key.to_owned(),
        trials_expected: trials.len() as u64,
        trials: trials.to_vec(),
    })
    .map_err(|e| RunError::Input(format!("{}: {e}", path.display())))?;
    let sum = crate::provenance::sha256_hex(text.as_bytes());
    crate::files::write_atomic(path, format!("{CHECKSUM}{sum}\"\n{text}").as_bytes())
}

/// The points computed in this run, by twin key: each is computed once and handed to the
/// sweeps (or points of one sweep) that run the same trials.
#[derive(Default)]
struct Twins(Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>);

impl Twins {
    fn get<T: Send + Sync + 'static>(&self, key: &str) -> Option<Arc<Vec<T>>> {
        let any = self.0.lock().ok()?.get(key).cloned()?;
        any.downcast::<Vec<T>>().ok()
    }

    fn insert<T: Clone + Send + Sync + 'static>(&self, key: &str, trials: &[T]) {
        if let Ok(mut map) = self.0.lock() {
            map.entry(key.to_owned())
                .or_insert_with(|| Arc::new(trials.to_vec()));
        }
    }
}

/// PNGs rendered on a thread of their own, in the order queued, while the next sweeps
/// compute; [`Renderer::finish`] waits for them.
struct Renderer {
    queue: std::sync::mpsc::Sender<(String, PathBuf)>,
    thread: std::thread::JoinHandle<Result<(), RunError>>,
}

impl Renderer {
    fn start() -> Result<Self, RunError> {
        let (queue, jobs) = std::sync::mpsc::channel::<(String, PathBuf)>();
        let thread = std::thread::Builder::new()
            .name("png".into())
            .spawn(move || -> Result<(), RunError> {
                for (svg, path) in jobs {
                    let png = figures::png(&svg)
                        .map_err(|e| RunError::Input(format!("{}: {e}", path.display())))?;
                    crate::files::write_atomic(&path, &png)?;
                }
                Ok(())
            })
            .map_err(|e| RunError::Input(format!("starting the PNG renderer: {e}")))?;
        Ok(Renderer { queue, thread })
    }

    fn render(&self, svg: String, path: PathBuf) -> Result<(), RunError> {
        self.queue
            .send((svg, path))
            .map_err(|_| RunError::Input("the PNG renderer stopped".into()))
    }

    fn finish(self) -> Result<(), RunError> {
        drop(self.queue);
        self.thread
            .join()
            .map_err(|_| RunError::Input("the PNG renderer panicked".into()))?
    }
}

/// What every sweep of a run shares.
struct Ctx<'a> {
    options: &'a Options,
    monitor: &'a dyn Monitor,
    twins: Twins,
    renderer: Renderer,
    pet: Option<workload::Pet>,
}

/// Runs `sweeps` side by side on one pool of `options.jobs` threads: a thread done with its
/// share of one sweep takes up another's points and trials. Each sweep's table goes to
/// `monitor` when it is done. In [`Mode::Full`], also writes `OUT/timings.csv` (each sweep's
/// wall time, kept apart from the results). Returns after every PNG is written.
///
/// A collect with missing point files renders the complete sweeps and reports the others'
/// missing points in the [`Report`]; an error in one sweep is returned after the others are
/// done.
pub fn run(
    sweeps: &[SweepFile],
    options: &Options,
    monitor: &dyn Monitor,
) -> Result<Report, RunError> {
    if let Mode::Shard { shard, shards } = options.mode {
        if shard >= shards {
            return Err(RunError::Input(format!(
                "--shard {shard} --shards {shards}: the shard must be below the number of shards"
            )));
        }
    }
    if options.trials == Some(0) {
        return Err(RunError::Input(
            "0 trials: nothing to run (set --trials to at least 1)".into(),
        ));
    }
    let out = &options.out;
    std::fs::create_dir_all(out).map_err(|e| io_error(out, &e))?;
    // Shards of one array write their point files into one folder at once; the outputs are
    // written by a full run or a collect, one process at a time.
    let _lock = match options.mode {
        Mode::Shard { .. } => None,
        Mode::Full | Mode::Collect => crate::files::lock_folder(out)?,
    };
    check_outputs(sweeps, options)?;
    for stale in crate::files::clean_temporaries(out) {
        tracing::info!(file = %stale.display(), "removed a temporary file a killed run left");
    }
    let pet = match &options.pet {
        Some(p) => Some(workload::io::read_etc(p)?.0),
        None => None,
    };
    let (jobs, warning) = crate::resources::worker_threads(options.jobs);
    if let Some(w) = warning {
        tracing::warn!("{w}");
    }
    if options.mode != Mode::Collect {
        let budget = options
            .max_memory
            .unwrap_or_else(crate::resources::default_budget);
        check_budget(sweeps, options, pet.as_ref(), jobs, budget)?;
    }
    let ctx = Ctx {
        options,
        monitor,
        twins: Twins::default(),
        renderer: Renderer::start()?,
        pet,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| RunError::Input(e.to_string()))?;
    let outcomes: Vec<Result<SweepReport, RunError>> =
        pool.install(|| sweeps.par_iter().map(|s| run_one(s, &ctx)).collect());
    let Ctx { renderer, .. } = ctx;
    let rendered = renderer.finish();
    let sweeps = outcomes.into_iter().collect::<Result<Vec<_>, _>>()?;
    rendered?;
    let report = Report { sweeps };
    if options.mode == Mode::Full {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["figure", "seconds"])
            .map_err(|e| csv_error(&e))?;
        for s in &report.sweeps {
            w.write_record([s.id.as_str(), &format!("{:.3}", s.seconds)])
                .map_err(|e| csv_error(&e))?;
        }
        let bytes = w.into_inner().map_err(|e| RunError::Input(e.to_string()))?;
        crate::files::write_atomic(&out.join("timings.csv"), &bytes)?;
    }
    Ok(report)
}

/// The files a sweep `id` writes into the output folder, besides its points folder.
pub fn output_files(id: &str) -> [String; 5] {
    [
        format!("{id}.csv"),
        format!("{id}.trials.csv"),
        format!("{id}.manifest.json"),
        format!("{id}.svg"),
        format!("{id}.png"),
    ]
}

/// Refuses a run of `sweeps` (read from `files`) whose outputs, or `more` outputs of the
/// caller's, would replace an input: a sweep file or the PET ([`crate::files::check_clashes`]).
pub fn check_inputs(
    files: &[PathBuf],
    sweeps: &[SweepFile],
    options: &Options,
    more: &[PathBuf],
) -> Result<(), RunError> {
    let mut inputs: Vec<(&str, &Path)> = files
        .iter()
        .map(|f| ("the sweep file", f.as_path()))
        .collect();
    if let Some(p) = &options.pet {
        inputs.push(("the PET", p));
    }
    let outputs: Vec<PathBuf> = sweeps
        .iter()
        .flat_map(|s| output_files(s.id()))
        .chain(["timings.csv".to_owned()])
        .map(|f| options.out.join(f))
        .chain(more.iter().cloned())
        .collect();
    crate::files::check_clashes(&inputs, &outputs)
}

/// Whether `path` is the manifest of sweep `id` (a JSON object naming it as its `figure`).
fn is_sweep_manifest(path: &Path, id: &str) -> bool {
    crate::files::read_input(path)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| {
            v.get("figure").and_then(|f| f.as_str()) == Some(id) && v.get("version").is_some()
        })
}

/// Refuses, before anything is written, an output of `sweeps` that would take the place of a
/// file prunesim did not write: a sweep's outputs are its own when its manifest
/// (`<id>.manifest.json`) is there, `timings.csv` when it is a timings table; any other file of
/// an output's name is the user's. An output that cannot be written (a folder, a device) is
/// refused too.
pub fn check_outputs(sweeps: &[SweepFile], options: &Options) -> Result<(), RunError> {
    if matches!(options.mode, Mode::Shard { .. }) {
        return Ok(());
    }
    let out = &options.out;
    let there = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    let foreign = |p: &Path| {
        RunError::Input(format!(
            "{} is not a file prunesim wrote (no sweep manifest beside it names it), and prunesim never writes over a file it did not write: move it, or give another --out",
            p.display()
        ))
    };
    for s in sweeps {
        let id = s.id();
        let files = output_files(id);
        let manifest = out.join(&files[2]);
        let ours = there(&manifest) && is_sweep_manifest(&manifest, id);
        for f in &files {
            let p = out.join(f);
            if !there(&p) {
                continue;
            }
            if !ours {
                return Err(foreign(&p));
            }
            crate::files::output_target(&p)?;
        }
    }
    let timings = out.join("timings.csv");
    if options.mode == Mode::Full && there(&timings) {
        let is_timings = crate::files::read_input(&timings)
            .is_ok_and(|t| t.lines().next() == Some("figure,seconds"));
        if !is_timings {
            return Err(foreign(&timings));
        }
        crate::files::output_target(&timings)?;
    }
    Ok(())
}

/// Refuses a run of `sweeps` on `threads` threads whose memory estimate exceeds `budget`
/// bytes, before any point is prepared: first any point that alone needs more (the message
/// names the sweep and the point), then the points together (every point holds its PET for
/// the whole run; trials of any point share the threads). Sweeps of cutting tables and
/// moldable figures are not estimated: their trials hold a few vectors.
pub fn check_budget(
    sweeps: &[SweepFile],
    options: &Options,
    pet: Option<&workload::Pet>,
    threads: usize,
    budget: u64,
) -> Result<(), RunError> {
    use crate::resources::{BASE_BYTES, DEFAULT_BUDGET_SHARE, RAISE_BUDGET, bytes};
    let raise = |what: &str| {
        format!(
            "{what}, more than the memory budget of {}: use fewer machines, tasks, points or \
             --jobs, or raise the budget with {RAISE_BUDGET} (default {:.0}% of this machine's \
             memory)",
            bytes(budget),
            DEFAULT_BUDGET_SHARE * 100.0
        )
    };
    let mut held: u64 = BASE_BYTES;
    let mut in_flight: u64 = 0;
    let mut points = 0usize;
    for file in sweeps {
        let SweepFile::Experiment(spec) = file else {
            continue;
        };
        for (label, f) in super::experiment::footprints(spec, options, pet, threads)? {
            if f.total > budget {
                return Err(RunError::Input(raise(&format!(
                    "{}: point {label} needs {f}",
                    spec.id
                ))));
            }
            held = held.saturating_add(f.held.saturating_sub(BASE_BYTES));
            in_flight = in_flight.max(f.per_trial.saturating_mul(f.in_flight));
            points += 1;
        }
    }
    let total = held.saturating_add(in_flight);
    if total > budget {
        return Err(RunError::Input(raise(&format!(
            "the {points} points of this run need about {} together (every point holds its PET \
             for the whole run: {}; the trials in flight {})",
            bytes(total),
            bytes(held),
            bytes(in_flight)
        ))));
    }
    Ok(())
}

fn io_error(path: &Path, e: &std::io::Error) -> RunError {
    RunError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

pub(crate) fn csv_error(e: &csv::Error) -> RunError {
    RunError::Input(format!("writing a CSV: {e}"))
}

/// Resolves a sweep file into its kind and runs it.
fn run_one(file: &SweepFile, ctx: &Ctx) -> Result<SweepReport, RunError> {
    let start = Instant::now();
    let (text, missing) = match file {
        SweepFile::Experiment(spec) => run_kind(
            &super::experiment::ExperimentSweep::new(spec, ctx.options, ctx.pet.as_ref())?,
            ctx,
        ),
        SweepFile::Cutting(spec) => {
            run_kind(&super::cutting::CuttingSweep::new(spec, ctx.options)?, ctx)
        }
        SweepFile::Moldable(spec) => run_kind(
            &super::moldable::MoldableSweep::new(spec, ctx.options)?,
            ctx,
        ),
    }?;
    let seconds = start.elapsed().as_secs_f64();
    if missing.is_empty() {
        ctx.monitor.finished(file.id(), &text, seconds);
    }
    Ok(SweepReport {
        id: file.id().to_owned(),
        seconds,
        missing,
        points_dir: ctx.options.out.join(format!("{}.points", file.id())),
    })
}

/// Runs one sweep in the run's mode; returns its printed text and the indices of its missing
/// point files (only a collect has any: it then renders nothing).
fn run_kind<K: Kind>(kind: &K, ctx: &Ctx) -> Result<(String, Vec<usize>), RunError> {
    let options = ctx.options;
    let id = kind.id();
    let n = kind.points();
    let points_dir = options.out.join(format!("{id}.points"));
    std::fs::create_dir_all(&points_dir).map_err(|e| io_error(&points_dir, &e))?;
    for stale in crate::files::clean_temporaries(&points_dir) {
        tracing::info!(file = %stale.display(), "removed a temporary file a killed run left");
    }
    let files: Vec<PathBuf> = (0..n)
        .map(|p| point_file(&points_dir, p, kind.key(p)))
        .collect();
    let load = |p: usize| {
        let point = format!("{id} point {p}");
        load_point::<K::Trial>(&files[p], &point, kind.key(p), kind.trials(p))
    };
    let compute = |p: usize, each: &(dyn Fn() + Sync)| -> Result<Vec<K::Trial>, RunError> {
        (0..kind.trials(p))
            .into_par_iter()
            .map(|k| {
                if ctx.monitor.cancelled() {
                    return Err(RunError::Interrupted);
                }
                let r = kind.run_trial(p, k);
                each();
                r
            })
            .collect()
    };
    let results: Vec<Vec<K::Trial>> = match options.mode {
        Mode::Collect => {
            let loaded: Vec<Option<Vec<K::Trial>>> = (0..n).map(load).collect();
            let missing: Vec<usize> = (0..n).filter(|&p| loaded[p].is_none()).collect();
            if !missing.is_empty() {
                return Ok((String::new(), missing));
            }
            loaded.into_iter().flatten().collect()
        }
        Mode::Shard { shard, shards } => {
            let mine: Vec<usize> = (0..n).filter(|p| p % shards == shard).collect();
            let computed = mine
                .par_iter()
                .map(|&p| -> Result<bool, RunError> {
                    if !options.fresh && load(p).is_some() {
                        return Ok(false);
                    }
                    let trials = compute(p, &|| {})?;
                    save_point(&files[p], kind.key(p), &trials)?;
                    Ok(true)
                })
                .collect::<Result<Vec<bool>, RunError>>()?;
            let fresh = computed.iter().filter(|c| **c).count();
            let text = format!(
                "{id} shard {shard} of {shards}: {} point(s) of {n} ({fresh} computed, {} already saved) in {}\n",
                mine.len(),
                mine.len() - fresh,
                points_dir.display()
            );
            return Ok((text, Vec::new()));
        }
        Mode::Full => {
            let total: u64 = (0..n).map(|p| kind.trials(p)).sum();
            ctx.monitor.started(id, total);
            let advance = |runs: u64| ctx.monitor.advanced(id, runs);
            (0..n)
                .into_par_iter()
                .map(|p| -> Result<Vec<K::Trial>, RunError> {
                    let twin = kind.twin(p);
                    if !options.fresh {
                        if let Some(done) = load(p) {
                            advance(kind.trials(p));
                            if let Some(t) = twin {
                                ctx.twins.insert(t, &done);
                            }
                            return Ok(done);
                        }
                    }
                    if let Some(done) = twin.and_then(|t| ctx.twins.get::<K::Trial>(t)) {
                        advance(kind.trials(p));
                        save_point(&files[p], kind.key(p), &done)?;
                        return Ok(done.to_vec());
                    }
                    let trials = compute(p, &|| advance(1))?;
                    if let Some(t) = twin {
                        ctx.twins.insert(t, &trials);
                    }
                    save_point(&files[p], kind.key(p), &trials)?;
                    Ok(trials)
                })
                .collect::<Result<_, RunError>>()?
        }
    };
    let rendered = kind.render(&results)?;
    for (name, bytes) in &rendered.files {
        crate::files::write_atomic(&options.out.join(name), bytes)?;
    }
    if let Some(plot) = &rendered.plot {
        let svg = figures::svg(plot).map_err(|e| RunError::Input(format!("{id}: {e}")))?;
        crate::files::write_atomic(&options.out.join(format!("{id}.svg")), svg.as_bytes())?;
        if figures::PNG {
            ctx.renderer
                .render(svg, options.out.join(format!("{id}.png")))?;
        } else {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                // As documented for such a build (the Python package's default): no warning.
                tracing::info!(
                    "figures written as SVG only: this program was built without PNG rendering (the `png` feature)"
                );
            });
        }
    }
    Ok((rendered.text, Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twins_hand_back_what_was_put_in_and_only_as_its_type() {
        let twins = Twins::default();
        assert!(twins.get::<u64>("1").is_none());
        twins.insert("1", &[3u64, 4]);
        assert_eq!(twins.get::<u64>("1").unwrap().as_slice(), &[3, 4]);
        assert!(twins.get::<f64>("1").is_none());
        // The first value stays.
        twins.insert("1", &[5u64]);
        assert_eq!(twins.get::<u64>("1").unwrap().as_slice(), &[3, 4]);
        assert!(twins.get::<u64>("2").is_none());
    }

    #[test]
    fn a_point_file_is_reused_only_with_its_key_and_every_trial() {
        let dir = tempfile::tempdir().unwrap();
        let path = point_file(dir.path(), 3, "key");
        assert!(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("0003-")
        );
        let load = |key: &str, n: u64| load_point::<Vec<u64>>(&path, "t5 point 3", key, n);
        assert_eq!(load("key", 2), None);
        save_point(&path, "key", &[vec![1u64, 2], vec![3, 4]]).unwrap();
        assert_eq!(load("key", 2), Some(vec![vec![1, 2], vec![3, 4]]));
        assert_eq!(load("other key", 2), None);
        assert_eq!(load("key", 3), None);
        std::fs::write(&path, "garbage").unwrap();
        assert_eq!(load("key", 2), None);
    }

    /// Why a point file is not reused, as the warning says it.
    fn why(path: &Path, key: &str, expected: u64) -> String {
        read_point::<Vec<f64>>(path, key, expected).expect_err("refused")
    }

    /// `text` with its checksum line made to match the rest, as a careful editor would.
    fn resealed(text: &str) -> String {
        let rest = &text[text.find('\n').unwrap() + 1..];
        let sum = crate::provenance::sha256_hex(rest.as_bytes());
        format!("{CHECKSUM}{sum}\"\n{rest}")
    }

    #[test]
    fn an_edited_damaged_or_foreign_point_file_is_recomputed_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let path = point_file(dir.path(), 0, "key");
        let trials = [vec![0.5, 0.25], vec![0.75, 0.125], vec![1.0, 0.0]];
        save_point(&path, "key", &trials).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(CHECKSUM), "{text}");
        assert_eq!(
            read_point::<Vec<f64>>(&path, "key", 3),
            Ok(Some(trials.to_vec()))
        );
        // One trial's value changed: the checksum no longer verifies.
        std::fs::write(&path, text.replacen("0.75", "0.95", 1)).unwrap();
        assert_eq!(load_point::<Vec<f64>>(&path, "p 0", "key", 3), None);
        assert!(why(&path, "key", 3).contains("does not match its checksum"));
        // Binary garbage (not UTF-8) is a damaged file, not a missing one.
        std::fs::write(&path, [0xff, 0xfe, 0x00, 0x9c, b'\n', 0x80]).unwrap();
        assert!(why(&path, "key", 3).contains("no checksum line"));
        std::fs::write(&path, b"").unwrap();
        assert!(why(&path, "key", 3).contains("no checksum line"));
        // A file of the format before checksums.
        std::fs::write(&path, &text[text.find('\n').unwrap() + 1..]).unwrap();
        assert!(why(&path, "key", 3).contains("no checksum line"));
        // Edited with the checksum recomputed: the count it states, then the key.
        std::fs::write(
            &path,
            resealed(&text.replacen("trials_expected = 3", "trials_expected = 4", 1)),
        )
        .unwrap();
        assert_eq!(why(&path, "key", 3), "holds 3 trials but says it holds 4");
        assert_eq!(
            why(&path, "key", 4),
            "holds 3 trials but says it holds 4",
            "never \"holds 3 of 3\""
        );
        std::fs::write(&path, resealed(&text)).unwrap();
        assert_eq!(why(&path, "key", 2), "holds 3 trials and the point has 2");
        assert!(why(&path, "other", 3).contains("another configuration"));
        // Not a regular file: refused, never read.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert!(why(&path, "key", 3).contains("not a regular file (a folder)"));
    }

    fn cutting_table(trials: u64) -> SweepFile {
        SweepFile::from_toml_str(
            &format!(
                "kind = \"cutting\"\nid = \"t5\"\ntitle = \"T\"\ntable = \"table5\"\ntrials = {trials}\nseed = 7\n"
            ),
            "t5.toml",
        )
        .unwrap()
    }

    fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
        ["t5.csv", "t5.manifest.json", "t5.svg", "t5.png"]
            .iter()
            .filter(|f| figures::PNG || !f.ends_with(".png"))
            .map(|f| (f.to_string(), std::fs::read(dir.join(f)).unwrap()))
            .collect()
    }

    #[test]
    fn results_do_not_depend_on_the_threads_and_a_resumed_run_equals_a_whole_one() {
        let dir = tempfile::tempdir().unwrap();
        let run_in = |name: &str, jobs: usize, fresh: bool| {
            let options = Options {
                out: dir.path().join(name),
                jobs,
                fresh,
                ..Options::default()
            };
            let report = run(&[cutting_table(4)], &options, &Silent).unwrap();
            assert_eq!(report.missing(), 0);
            outputs(&options.out)
        };
        let one = run_in("one", 1, false);
        assert_eq!(one, run_in("two", 2, false));
        // Lose a point file and run again: it is recomputed, the others are loaded.
        let points = dir.path().join("one/t5.points");
        let lost = std::fs::read_dir(&points)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .min()
            .unwrap();
        std::fs::remove_file(&lost).unwrap();
        assert_eq!(one, run_in("one", 2, false));
        assert!(lost.is_file());
        assert_eq!(one, run_in("one", 1, true));
        let timings = std::fs::read_to_string(dir.path().join("one/timings.csv")).unwrap();
        assert!(timings.starts_with("figure,seconds\nt5,"), "{timings}");
    }

    #[test]
    fn shards_then_a_collect_give_the_whole_run() {
        let dir = tempfile::tempdir().unwrap();
        let options = |out: &str, mode| Options {
            out: dir.path().join(out),
            jobs: 1,
            mode,
            ..Options::default()
        };
        run(&[cutting_table(2)], &options("whole", Mode::Full), &Silent).unwrap();
        let shard = |shard| Mode::Shard { shard, shards: 3 };
        run(&[cutting_table(2)], &options("parts", shard(2)), &Silent).unwrap();
        let report = run(
            &[cutting_table(2)],
            &options("parts", Mode::Collect),
            &Silent,
        )
        .unwrap();
        // 14 distributions: shard 2 holds 2, 5, 8, 11; the others are missing.
        assert_eq!(report.missing(), 10);
        assert_eq!(report.missing_shards(3), vec![0, 1]);
        assert!(!dir.path().join("parts/t5.csv").exists());
        for s in [0, 1] {
            run(&[cutting_table(2)], &options("parts", shard(s)), &Silent).unwrap();
        }
        let report = run(
            &[cutting_table(2)],
            &options("parts", Mode::Collect),
            &Silent,
        )
        .unwrap();
        assert_eq!(report.missing(), 0);
        assert_eq!(
            outputs(&dir.path().join("parts")),
            outputs(&dir.path().join("whole"))
        );
        let bad = Options {
            mode: Mode::Shard {
                shard: 3,
                shards: 3,
            },
            ..options("parts", Mode::Full)
        };
        assert!(run(&[cutting_table(2)], &bad, &Silent).is_err());
        let none = Options {
            trials: Some(0),
            ..options("parts", Mode::Full)
        };
        assert!(run(&[cutting_table(2)], &none, &Silent).is_err());
    }

    /// Asks the run to stop once `after` trials are done.
    struct StopAfter {
        after: u64,
        done: std::sync::atomic::AtomicU64,
    }

    impl Monitor for StopAfter {
        fn advanced(&self, _: &str, runs: u64) {
            self.done
                .fetch_add(runs, std::sync::atomic::Ordering::Relaxed);
        }
        fn cancelled(&self) -> bool {
            self.done.load(std::sync::atomic::Ordering::Relaxed) >= self.after
        }
    }

    #[test]
    fn a_cancelled_run_stops_between_trials_and_a_rerun_reuses_its_saved_points() {
        let dir = tempfile::tempdir().unwrap();
        let options = |out: &str| Options {
            out: dir.path().join(out),
            jobs: 1,
            ..Options::default()
        };
        let stop = StopAfter {
            after: 5,
            done: 0.into(),
        };
        let err = run(&[cutting_table(2)], &options("cut"), &stop).unwrap_err();
        assert!(matches!(err, RunError::Interrupted), "{err}");
        // One thread: the trials stop at the 5th, and the 2 points finished are saved.
        assert_eq!(stop.done.into_inner(), 5);
        let saved = |out: &str| -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
            let mut v: Vec<_> = std::fs::read_dir(dir.path().join(out).join("t5.points"))
                .unwrap()
                .flatten()
                .map(|e| {
                    let p = e.path();
                    let modified = e.metadata().unwrap().modified().unwrap();
                    (p.clone(), std::fs::read(&p).unwrap(), modified)
                })
                .collect();
            v.sort();
            v
        };
        let before = saved("cut");
        assert_eq!(before.len(), 2);
        assert!(!dir.path().join("cut/t5.csv").exists());
        // The rerun loads them (untouched) and computes the rest: the whole run's outputs.
        run(&[cutting_table(2)], &options("cut"), &Silent).unwrap();
        let after = saved("cut");
        assert_eq!(after.len(), 14);
        assert!(before.iter().all(|b| after.contains(b)));
        run(&[cutting_table(2)], &options("whole"), &Silent).unwrap();
        assert_eq!(
            outputs(&dir.path().join("cut")),
            outputs(&dir.path().join("whole"))
        );
    }

    #[test]
    fn missing_points_name_their_shards() {
        let report = Report {
            sweeps: vec![
                SweepReport {
                    id: "a".into(),
                    seconds: 0.0,
                    missing: vec![0, 3, 5],
                    points_dir: PathBuf::new(),
                },
                SweepReport {
                    id: "b".into(),
                    seconds: 0.0,
                    missing: vec![2],
                    points_dir: PathBuf::new(),
                },
            ],
        };
        assert_eq!(report.missing(), 4);
        assert_eq!(report.missing_shards(3), vec![0, 2]);
    }
}
