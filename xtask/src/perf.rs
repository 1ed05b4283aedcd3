//! `perf`: measures the performance targets, as written in `experiments/scale.toml`,
//! and prints a table of targets against measurements (docs/performance.md, "Measuring the
//! targets").
//!
//! * The 800-task trials run in this process on one thread: warm-up runs, then the median of
//!   several timed runs of trial 0.
//! * Each scale point runs in a child process, this binary's hidden `perf-point` subcommand,
//!   so that its peak resident memory (`VmHWM` of `/proc/self/status`, read by the child when
//!   done) is its own; a child still running after `--point-timeout` seconds is killed and
//!   reported as timed out.
//! * `--figures` times `reproduce-figure all` the same way, in a child writing to a temporary
//!   folder.
//!
//! Progress goes to stderr; the tables go to stdout; `--out DIR` also writes `DIR/perf.csv`.

use std::fmt::Write as _;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use runner::{Prepared, TrialSource};
use serde::{Deserialize, Serialize};

mod scale_file;

pub(crate) use scale_file::{Limits, ScaleFile};

/// The file stem of the scale study in `experiments/`; it is not a figure, so
/// `reproduce-figure all` and `list-figures` skip it.
pub(crate) const SCALE_ID: &str = "scale";

/// Arguments of `perf`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The scale study: the targets and the grid.
    #[arg(long, default_value = "experiments/scale.toml")]
    pub scale: PathBuf,
    /// Skip the grid's largest machine count and largest task count (1,024 machines and
    /// 10^6 tasks in experiments/scale.toml): a smoke run for CI.
    #[arg(long)]
    pub quick: bool,
    /// Run only the scale points with at most this many tasks.
    #[arg(long)]
    pub max_tasks: Option<usize>,
    /// Run only the scale points with at most this many machines.
    #[arg(long)]
    pub max_machines: Option<usize>,
    /// Also time `reproduce-figure all --jobs 2 --fresh` (30 trials) into a temporary folder:
    /// minutes.
    #[arg(long)]
    pub figures: bool,
    /// Write OUT/perf.csv with every measurement.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seconds after which a scale point's child process is killed and reported as timed out.
    #[arg(long, default_value_t = 300.0)]
    pub point_timeout: f64,
    /// Seconds after which `--figures`' run is killed and reported as timed out.
    #[arg(long, default_value_t = 3600.0)]
    pub figures_timeout: f64,
    /// Timed runs of each 800-task trial (default: the file's `trial.repetitions`).
    #[arg(long)]
    pub repetitions: Option<usize>,
}

/// Arguments of the hidden `perf-point` subcommand: one scale point, run by `perf` in a child.
#[derive(clap::Args, Debug)]
pub(crate) struct PointArgs {
    /// The scale study.
    #[arg(long)]
    pub scale: PathBuf,
    /// The point's machines.
    #[arg(long)]
    pub machines: usize,
    /// The point's tasks.
    #[arg(long)]
    pub tasks: usize,
}

/// What a `perf-point` child prints on stdout, as one JSON line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PointReport {
    /// Machines of the PET.
    pub machines: usize,
    /// Tasks of the trial.
    pub tasks: usize,
    /// Seconds to build the PET and check the experiment.
    pub setup_seconds: f64,
    /// Seconds of trial 0: generating its arrivals, simulating, measuring.
    pub trial_seconds: f64,
    /// Peak resident memory of the child, KiB (`VmHWM`), when the system reports it.
    pub peak_rss_kib: Option<u64>,
    /// The trial's robustness in % (a check that the point is oversubscribed).
    pub robustness: f64,
}

/// How a timed run ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome<T> {
    /// Finished, in this many wall-clock seconds.
    Done {
        /// Wall-clock seconds of the whole child process (or run).
        wall_seconds: f64,
        /// What it reported.
        report: T,
    },
    /// Killed after this many seconds.
    TimedOut(f64),
    /// Failed with this message.
    Failed(String),
    /// Not run, for this reason.
    Skipped(String),
}

/// One scale point's result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PointResult {
    /// Machines.
    pub machines: usize,
    /// Tasks.
    pub tasks: usize,
    /// How it ended.
    pub outcome: Outcome<PointReport>,
}

/// One 800-task trial target's result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TrialResult {
    /// The heuristic.
    pub heuristic: String,
    /// Median milliseconds over the repetitions: what the goal is compared with.
    pub median_ms: f64,
    /// The fastest and the slowest repetition (ms): on a shared host, how far its load moved
    /// the runs of one binary.
    pub spread_ms: (f64, f64),
    /// Number of timed runs.
    pub repetitions: usize,
}

/// Everything `perf` measured.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Measurements {
    /// The 800-task trials.
    pub trials: Vec<TrialResult>,
    /// The scale points, in grid order.
    pub points: Vec<PointResult>,
    /// `reproduce-figure all`; `Skipped` unless `--figures`.
    pub figures: Outcome<()>,
}

/// Whether a target is met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Met {
    /// Measured within the goal.
    Yes,
    /// Measured beyond the goal (or timed out after the goal).
    No,
    /// Not measured.
    Unknown,
}

impl Met {
    fn from_bool(b: bool) -> Met {
        if b { Met::Yes } else { Met::No }
    }

    fn label(self) -> &'static str {
        match self {
            Met::Yes => "yes",
            Met::No => "no",
            Met::Unknown => "—",
        }
    }
}

/// A row of the targets table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TargetRow {
    /// What is measured.
    pub target: String,
    /// The goal, e.g. `≤ 5 ms`.
    pub goal: String,
    /// The measurement, or why there is none.
    pub measured: String,
    /// Met?
    pub met: Met,
}

/// `1024` → `1,024`.
pub(crate) fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number with no needless decimals: `5` for 5.0, `0.5` for 0.5.
fn plain(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn mib(kib: u64) -> String {
    format!("{:.0} MiB", kib as f64 / 1024.0)
}

/// The smallest and the largest value of a list (`(inf, -inf)` when empty).
pub(crate) fn spread(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

/// The median of a non-empty list (the mean of the two middle values for an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Why an outcome has no measurement, for a table cell.
fn unmeasured<T>(o: &Outcome<T>) -> String {
    match o {
        Outcome::Done { .. } => String::new(),
        Outcome::TimedOut(s) => format!("timed out after {} s", plain(*s)),
        Outcome::Failed(m) => format!("failed: {m}"),
        Outcome::Skipped(r) => format!("not run ({r})"),
    }
}

/// Met for a time goal when nothing finished: a timeout at or beyond the goal is a miss.
fn met_unfinished<T>(o: &Outcome<T>, goal_seconds: f64) -> Met {
    match o {
        Outcome::TimedOut(s) if *s >= goal_seconds => Met::No,
        Outcome::Failed(_) => Met::No,
        _ => Met::Unknown,
    }
}

/// The targets table's rows.
pub(crate) fn target_rows(file: &ScaleFile, m: &Measurements) -> Vec<TargetRow> {
    let mut rows = Vec::new();
    for t in &file.trial.target {
        let r = m.trials.iter().find(|r| r.heuristic == t.heuristic);
        rows.push(TargetRow {
            target: format!(
                "{}-task {} trial at {}k, default PET, one thread",
                thousands(file.trial.tasks),
                t.heuristic,
                plain(file.trial.rate / 1000.0)
            ),
            goal: format!("≤ {} ms", plain(t.max_ms)),
            measured: r.map_or("not run".into(), |r| {
                format!(
                    "{:.2} ms (median of {}; {:.2}-{:.2} ms)",
                    r.median_ms, r.repetitions, r.spread_ms.0, r.spread_ms.1
                )
            }),
            met: r.map_or(Met::Unknown, |r| Met::from_bool(r.median_ms <= t.max_ms)),
        });
    }
    let st = &file.scale.target;
    let label = format!(
        "{} machines, {} tasks, {}, queue {}",
        thousands(st.machines),
        thousands(st.tasks),
        file.scale.heuristic,
        file.scale.queue_size
    );
    let point = m
        .points
        .iter()
        .find(|p| p.machines == st.machines && p.tasks == st.tasks);
    let outcome = point.map_or(Outcome::Skipped("not in the grid".into()), |p| {
        p.outcome.clone()
    });
    let (time, memory) = match &outcome {
        Outcome::Done {
            wall_seconds,
            report,
        } => (
            (
                format!("{wall_seconds:.1} s"),
                Met::from_bool(*wall_seconds <= st.max_seconds),
            ),
            match report.peak_rss_kib {
                Some(k) => (
                    mib(k),
                    Met::from_bool(k as f64 <= st.max_memory_gib * 1024.0 * 1024.0),
                ),
                None => ("not reported by the system".into(), Met::Unknown),
            },
        ),
        other => (
            (unmeasured(other), met_unfinished(other, st.max_seconds)),
            (unmeasured(other), Met::Unknown),
        ),
    };
    rows.push(TargetRow {
        target: format!("{label}: wall time"),
        goal: format!("≤ {} s", plain(st.max_seconds)),
        measured: time.0,
        met: time.1,
    });
    rows.push(TargetRow {
        target: format!("{label}: peak memory"),
        goal: format!("≤ {} GiB", plain(st.max_memory_gib)),
        measured: memory.0,
        met: memory.1,
    });
    let f = &file.figures;
    rows.push(TargetRow {
        target: format!(
            "reproduce-figure all, {} trials, {} threads",
            f.trials, f.jobs
        ),
        goal: format!("≤ {} s", plain(f.max_seconds)),
        measured: match &m.figures {
            Outcome::Done { wall_seconds, .. } => format!("{wall_seconds:.1} s"),
            other => unmeasured(other),
        },
        met: match &m.figures {
            Outcome::Done { wall_seconds, .. } => Met::from_bool(*wall_seconds <= f.max_seconds),
            other => met_unfinished(other, f.max_seconds),
        },
    });
    rows
}

/// The targets table, in markdown.
pub(crate) fn render_targets(rows: &[TargetRow]) -> String {
    let mut s = String::from("| target | goal | measured | met? |\n|---|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            r.target,
            r.goal,
            r.measured,
            r.met.label()
        );
    }
    s
}

/// A short cell for an unfinished point.
fn short<T>(o: &Outcome<T>) -> String {
    match o {
        Outcome::Done { .. } => String::new(),
        Outcome::TimedOut(s) => format!("> {} s", plain(*s)),
        Outcome::Failed(_) => "failed".into(),
        Outcome::Skipped(_) => "—".into(),
    }
}

/// µs per task of a finished point.
fn us_per_task(p: &PointResult) -> Option<f64> {
    match &p.outcome {
        Outcome::Done { report, .. } => Some(report.trial_seconds / p.tasks as f64 * 1e6),
        _ => None,
    }
}

/// The growth table, in markdown: µs per task of each (machines, tasks) point, with the
/// growth from the smallest to the largest measured task count on each row, and from the
/// smallest to the largest measured machine count in each column.
pub(crate) fn render_growth(points: &[PointResult]) -> String {
    let mut machines: Vec<usize> = points.iter().map(|p| p.machines).collect();
    let mut tasks: Vec<usize> = points.iter().map(|p| p.tasks).collect();
    machines.sort_unstable();
    machines.dedup();
    tasks.sort_unstable();
    tasks.dedup();
    let find = |m: usize, n: usize| points.iter().find(|p| p.machines == m && p.tasks == n);
    let ratio = |v: &[f64]| match (v.first(), v.last()) {
        (Some(a), Some(b)) if v.len() >= 2 && *a > 0.0 => format!("×{:.2}", b / a),
        _ => "—".into(),
    };
    let mut s = String::from("| machines \\ tasks |");
    for n in &tasks {
        let _ = write!(s, " {} |", thousands(*n));
    }
    s.push_str(" growth over tasks |\n|---|");
    for _ in 0..=tasks.len() {
        s.push_str("---|");
    }
    s.push('\n');
    for &m in &machines {
        let _ = write!(s, "| {} |", thousands(m));
        let mut row = Vec::new();
        for &n in &tasks {
            let cell = match find(m, n) {
                Some(p) => match us_per_task(p) {
                    Some(us) => {
                        row.push(us);
                        format!("{us:.1}")
                    }
                    None => short(&p.outcome),
                },
                None => "—".into(),
            };
            let _ = write!(s, " {cell} |");
        }
        let _ = writeln!(s, " {} |", ratio(&row));
    }
    s.push_str("| growth over machines |");
    for &n in &tasks {
        let col: Vec<f64> = machines
            .iter()
            .filter_map(|&m| find(m, n).and_then(us_per_task))
            .collect();
        let _ = write!(s, " {} |", ratio(&col));
    }
    s.push_str(" |\n");
    s
}

/// The scale points in detail, in markdown.
pub(crate) fn render_points(points: &[PointResult]) -> String {
    let mut s = String::from(
        "| machines | tasks | wall | trial | µs/task | peak RSS | robustness (%) |\n|---|---|---|---|---|---|---|\n",
    );
    for p in points {
        let _ = write!(s, "| {} | {} |", thousands(p.machines), thousands(p.tasks));
        match &p.outcome {
            Outcome::Done {
                wall_seconds,
                report,
            } => {
                let _ = writeln!(
                    s,
                    " {wall_seconds:.2} s | {:.2} s | {:.1} | {} | {:.1} |",
                    report.trial_seconds,
                    report.trial_seconds / p.tasks as f64 * 1e6,
                    report.peak_rss_kib.map_or("n/a".into(), mib),
                    report.robustness
                );
            }
            other => {
                let _ = writeln!(s, " {} | | | | |", unmeasured(other));
            }
        }
    }
    s
}

/// One line of progress for a finished (or failed) scale point.
fn progress_line(p: &PointResult) -> String {
    let at = format!(
        "scale point {} machines x {} tasks",
        thousands(p.machines),
        thousands(p.tasks)
    );
    match &p.outcome {
        Outcome::Done {
            wall_seconds,
            report,
        } => format!(
            "{at}: {wall_seconds:.2} s wall, {:.1} µs/task, peak {}, robustness {:.1}%",
            report.trial_seconds / p.tasks as f64 * 1e6,
            report.peak_rss_kib.map_or("n/a".into(), mib),
            report.robustness
        ),
        other => format!("{at}: {}", unmeasured(other)),
    }
}

/// Writes every measurement to a CSV file.
fn write_csv(path: &Path, m: &Measurements) -> Result<()> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
    w.write_record([
        "measure",
        "heuristic",
        "machines",
        "tasks",
        "status",
        "seconds",
        "trial_seconds",
        "us_per_task",
        "peak_rss_kib",
        "robustness",
    ])?;
    for t in &m.trials {
        for (measure, ms) in [
            ("trial_median", t.median_ms),
            ("trial_fastest", t.spread_ms.0),
            ("trial_slowest", t.spread_ms.1),
        ] {
            w.write_record([
                measure,
                &t.heuristic,
                "",
                "",
                "done",
                &format!("{:.6}", ms / 1000.0),
                "",
                "",
                "",
                "",
            ])?;
        }
    }
    let status = |o: &Outcome<PointReport>| match o {
        Outcome::Done { .. } => "done".to_string(),
        other => unmeasured(other),
    };
    for p in &m.points {
        let (secs, trial, us, rss, rob) = match &p.outcome {
            Outcome::Done {
                wall_seconds,
                report,
            } => (
                format!("{wall_seconds:.3}"),
                format!("{:.3}", report.trial_seconds),
                format!("{:.3}", report.trial_seconds / p.tasks as f64 * 1e6),
                report.peak_rss_kib.map_or(String::new(), |k| k.to_string()),
                format!("{:.6}", report.robustness),
            ),
            _ => Default::default(),
        };
        w.write_record([
            "scale_point",
            "",
            &p.machines.to_string(),
            &p.tasks.to_string(),
            &status(&p.outcome),
            &secs,
            &trial,
            &us,
            &rss,
            &rob,
        ])?;
    }
    let (fs, fsecs) = match &m.figures {
        Outcome::Done { wall_seconds, .. } => ("done".to_string(), format!("{wall_seconds:.3}")),
        other => (unmeasured(other), String::new()),
    };
    w.write_record([
        "reproduce_figure_all",
        "",
        "",
        "",
        &fs,
        &fsecs,
        "",
        "",
        "",
        "",
    ])?;
    w.flush()?;
    Ok(())
}

/// `VmHWM` (peak resident set size) in KiB from the text of `/proc/<pid>/status`.
pub(crate) fn parse_vmhwm(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// Runs one scale point in this process and prints its [`PointReport`] as JSON on stdout.
pub(crate) fn run_point(args: &PointArgs) -> Result<()> {
    let file = ScaleFile::load(&args.scale)?;
    let start = Instant::now();
    let cfg = file.point_config(args.machines, args.tasks)?;
    let prep = Prepared::new(cfg, None, TrialSource::Generated, Some(1), None)?;
    let setup_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let (_, metrics) = prep.run_trial(0)?;
    let trial_seconds = start.elapsed().as_secs_f64();
    let peak_rss_kib = std::fs::read_to_string("/proc/self/status")
        .ok()
        .as_deref()
        .and_then(parse_vmhwm);
    let report = PointReport {
        machines: prep.pet.n_machines(),
        tasks: args.tasks,
        setup_seconds,
        trial_seconds,
        peak_rss_kib,
        robustness: metrics.robustness,
    };
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}

/// Runs a child to its end or its time limit; returns its wall seconds and stdout.
fn run_child(cmd: &mut Command, timeout: f64, capture: bool) -> Outcome<String> {
    let start = Instant::now();
    cmd.stdin(Stdio::null()).stderr(Stdio::inherit());
    cmd.stdout(if capture {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return Outcome::Failed(format!("cannot start {cmd:?}: {e}")),
    };
    let limit = Duration::from_secs_f64(timeout.max(0.0));
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let wall_seconds = start.elapsed().as_secs_f64();
                let mut out = String::new();
                if let Some(mut o) = child.stdout.take() {
                    let _ = o.read_to_string(&mut out);
                }
                if !status.success() {
                    return Outcome::Failed(format!("exit {status}"));
                }
                return Outcome::Done {
                    wall_seconds,
                    report: out,
                };
            }
            Ok(None) if start.elapsed() >= limit => {
                // Only this child, by its own handle.
                let _ = child.kill();
                let _ = child.wait();
                return Outcome::TimedOut(timeout);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Outcome::Failed(e.to_string()),
        }
    }
}

/// Runs `perf`.
///
/// One function because it is the study's steps in order: the scale file, each point run
/// and timed, its row printed and written.
pub(crate) fn run(args: &Args) -> Result<()> {
    let file = ScaleFile::load(&args.scale)?;
    let exe = std::env::current_exe().context("locating the xtask binary")?;
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let say = |line: String| bar.suspend(|| eprintln!("{line}"));

    // The 800-task trials, in this process, one thread.
    let reps = args.repetitions.unwrap_or(file.trial.repetitions).max(1);
    let mut trials = Vec::new();
    for t in &file.trial.target {
        bar.set_message(format!(
            "{}-task {} trial ({} warm-up, {reps} timed)",
            file.trial.tasks, t.heuristic, file.trial.warmup
        ));
        let cfg = file.trial_config(&t.heuristic)?;
        let prep = Prepared::new(cfg, None, TrialSource::Generated, Some(1), None)?;
        for _ in 0..file.trial.warmup {
            std::hint::black_box(prep.run_trial(0)?);
        }
        let mut ms = Vec::with_capacity(reps);
        for _ in 0..reps {
            let start = Instant::now();
            std::hint::black_box(prep.run_trial(0)?);
            ms.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        let median_ms = median(&ms);
        let spread_ms = spread(&ms);
        say(format!(
            "trial {}: median {median_ms:.2} ms over {reps} runs ({:.2}-{:.2} ms)",
            t.heuristic, spread_ms.0, spread_ms.1
        ));
        trials.push(TrialResult {
            heuristic: t.heuristic.clone(),
            median_ms,
            spread_ms,
            repetitions: reps,
        });
    }

    // The scale points, each in a child process.
    let limits = Limits {
        quick: args.quick,
        max_machines: args.max_machines,
        max_tasks: args.max_tasks,
    };
    let mut points: Vec<PointResult> = Vec::new();
    for (m, n, skip) in file.points(&limits) {
        // A point no smaller than one that timed out would time out too.
        let dominated = points
            .iter()
            .find(|p| matches!(p.outcome, Outcome::TimedOut(_)) && p.machines <= m && p.tasks <= n);
        let outcome = match (skip, dominated) {
            (Some(reason), _) => Outcome::Skipped(reason),
            (None, Some(p)) => Outcome::Skipped(format!(
                "{} x {} timed out",
                thousands(p.machines),
                thousands(p.tasks)
            )),
            (None, None) => {
                bar.set_message(format!(
                    "scale point {} machines x {} tasks",
                    thousands(m),
                    thousands(n)
                ));
                let mut cmd = Command::new(&exe);
                cmd.arg("perf-point").arg("--scale").arg(&args.scale).args([
                    "--machines",
                    &m.to_string(),
                    "--tasks",
                    &n.to_string(),
                ]);
                match run_child(&mut cmd, args.point_timeout, true) {
                    Outcome::Done {
                        wall_seconds,
                        report,
                    } => match serde_json::from_str::<PointReport>(report.trim()) {
                        Ok(report) => Outcome::Done {
                            wall_seconds,
                            report,
                        },
                        Err(e) => Outcome::Failed(format!("unreadable report: {e}")),
                    },
                    Outcome::TimedOut(s) => Outcome::TimedOut(s),
                    Outcome::Failed(e) => Outcome::Failed(e),
                    Outcome::Skipped(r) => Outcome::Skipped(r),
                }
            }
        };
        let p = PointResult {
            machines: m,
            tasks: n,
            outcome,
        };
        if !matches!(p.outcome, Outcome::Skipped(_)) {
            say(progress_line(&p));
        }
        points.push(p);
    }

    // reproduce-figure all, in a child writing to a temporary folder.
    let figures = if args.figures {
        let f = &file.figures;
        let dir =
            std::env::temp_dir().join(format!("prunesim-perf-figures-{}", std::process::id()));
        let experiments = args
            .scale
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        bar.set_message(format!(
            "reproduce-figure all --trials {} --jobs {} --fresh (minutes)",
            f.trials, f.jobs
        ));
        let mut cmd = Command::new(&exe);
        cmd.args(["reproduce-figure", "all", "--fresh"])
            .args(["--trials", &f.trials.to_string()])
            .args(["--jobs", &f.jobs.to_string()])
            .arg("--experiments")
            .arg(experiments)
            .arg("--out")
            .arg(&dir);
        let o = match run_child(&mut cmd, args.figures_timeout, false) {
            Outcome::Done { wall_seconds, .. } => Outcome::Done {
                wall_seconds,
                report: (),
            },
            Outcome::TimedOut(s) => Outcome::TimedOut(s),
            Outcome::Failed(e) => Outcome::Failed(e),
            Outcome::Skipped(r) => Outcome::Skipped(r),
        };
        let _ = std::fs::remove_dir_all(&dir);
        o
    } else {
        Outcome::Skipped("--figures".into())
    };
    bar.finish_and_clear();

    let m = Measurements {
        trials,
        points,
        figures,
    };
    println!("## Targets\n\n{}", render_targets(&target_rows(&file, &m)));
    println!(
        "## Time per task (µs), {} with queue size {}\n\n{}",
        file.scale.heuristic,
        file.scale.queue_size,
        render_growth(&m.points)
    );
    println!("## Scale points\n\n{}", render_points(&m.points));
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
        let path = out.join("perf.csv");
        write_csv(&path, &m)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use runner::QueueSize;

    fn file() -> ScaleFile {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/scale.toml");
        ScaleFile::load(&path).expect("experiments/scale.toml parses")
    }

    fn done(m: usize, n: usize, wall: f64, trial: f64, kib: Option<u64>) -> PointResult {
        PointResult {
            machines: m,
            tasks: n,
            outcome: Outcome::Done {
                wall_seconds: wall,
                report: PointReport {
                    machines: m,
                    tasks: n,
                    setup_seconds: 0.1,
                    trial_seconds: trial,
                    peak_rss_kib: kib,
                    robustness: 0.5,
                },
            },
        }
    }

    #[test]
    fn the_scale_file_holds_the_performance_targets() {
        let f = file();
        let goals: Vec<(&str, f64)> = f
            .trial
            .target
            .iter()
            .map(|t| (t.heuristic.as_str(), t.max_ms))
            .collect();
        assert_eq!(goals, [("PAM", 5.0), ("MM", 2.0)]);
        assert_eq!((f.trial.rate, f.trial.tasks), (34_000.0, 800));
        assert_eq!(f.scale.machines, [8, 64, 1024]);
        assert_eq!(f.scale.tasks, [10_000, 100_000, 1_000_000]);
        assert_eq!((f.scale.heuristic.as_str(), f.scale.queue_size), ("PAM", 6));
        let t = &f.scale.target;
        assert_eq!(
            (t.machines, t.tasks, t.max_seconds, t.max_memory_gib),
            (1024, 1_000_000, 120.0, 1.0)
        );
        assert_eq!(
            (f.figures.trials, f.figures.jobs, f.figures.max_seconds),
            (30, 2, 60.0)
        );
    }

    #[test]
    fn unknown_fields_and_bad_values_are_errors() {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/scale.toml"),
        )
        .unwrap();
        let typo = text.replace("queue_size = 6", "queue_size = 6\nqueue_sise = 6");
        let e = ScaleFile::from_toml_str(&typo, "typo.toml").unwrap_err();
        assert!(format!("{e:#}").contains("queue_sise"), "{e:#}");
        let zero = text.replace("machines = [8, 64, 1024]", "machines = [0]");
        let e = ScaleFile::from_toml_str(&zero, "zero.toml").unwrap_err();
        assert!(format!("{e:#}").contains("scale.machines"), "{e:#}");
    }

    #[test]
    fn quick_skips_the_largest_machines_and_tasks_and_limits_apply() {
        let f = file();
        let run = |l: &Limits| -> Vec<(usize, usize)> {
            f.points(l)
                .into_iter()
                .filter(|p| p.2.is_none())
                .map(|p| (p.0, p.1))
                .collect()
        };
        let quick = Limits {
            quick: true,
            ..Limits::default()
        };
        assert_eq!(
            run(&quick),
            [(8, 10_000), (8, 100_000), (64, 10_000), (64, 100_000)]
        );
        assert_eq!(run(&Limits::default()).len(), 9);
        let small = Limits {
            max_machines: Some(8),
            max_tasks: Some(10_000),
            ..Limits::default()
        };
        assert_eq!(run(&small), [(8, 10_000)]);
        let reasons: Vec<Option<String>> = f.points(&quick).into_iter().map(|p| p.2).collect();
        assert_eq!(reasons[2].as_deref(), Some("--quick"));
    }

    #[test]
    fn the_load_per_machine_is_the_reference_and_enough_tasks_arrive() {
        let f = file();
        let per_machine = |m: usize, n: usize| {
            let (rate, horizon) = f.rate_and_horizon(m, n);
            assert!(rate >= 1.1 * n as f64 * 0.999, "{m} x {n}: rate {rate}");
            rate / horizon / m as f64
        };
        let reference = 34_000.0 / 88_200.0 / 8.0;
        for m in [8, 64, 1024] {
            for n in [800, 10_000, 1_000_000] {
                assert!((per_machine(m, n) - reference).abs() < 1e-12 * reference);
            }
        }
        // At the reference point, the paper's setting.
        let (rate, horizon) = f.rate_and_horizon(8, 800);
        assert!((rate - 34_000.0).abs() < 1e-6 && horizon == 88_200.0);
    }

    #[test]
    fn point_configs_use_the_pet_as_is_at_8_machines_and_draw_beyond() {
        let f = file();
        let c8 = f.point_config(8, 10_000).unwrap();
        assert_eq!(c8.workload.machines, None);
        let c64 = f.point_config(64, 10_000).unwrap();
        assert_eq!(c64.workload.machines, Some(64));
        assert_eq!(c64.workload.pet().unwrap().n_machines(), 64);
        assert_eq!(c64.system.queue_size, Some(QueueSize::Limit(6)));
        assert_eq!(c64.mapper.name, "PAM");
        assert_eq!(c64.workload.tasks, 10_000);
        let t = f.trial_config("MM").unwrap();
        assert_eq!((t.workload.rate, t.workload.tasks), (Some(34_000.0), 800));
    }

    #[test]
    fn the_targets_table_compares_goals_and_measurements() {
        let f = file();
        let m = Measurements {
            trials: vec![
                TrialResult {
                    heuristic: "PAM".into(),
                    median_ms: 4.5,
                    spread_ms: (4.25, 6.0),
                    repetitions: 11,
                },
                TrialResult {
                    heuristic: "MM".into(),
                    median_ms: 20.0,
                    spread_ms: (19.0, 21.0),
                    repetitions: 11,
                },
            ],
            points: vec![
                done(8, 10_000, 2.0, 1.5, Some(20 * 1024)),
                done(1024, 1_000_000, 100.0, 99.0, Some(2 * 1024 * 1024)),
            ],
            figures: Outcome::Skipped("--figures".into()),
        };
        let rows = target_rows(&f, &m);
        let met: Vec<Met> = rows.iter().map(|r| r.met).collect();
        assert_eq!(met, [Met::Yes, Met::No, Met::Yes, Met::No, Met::Unknown]);
        assert_eq!(rows[0].goal, "≤ 5 ms");
        assert_eq!(rows[0].measured, "4.50 ms (median of 11; 4.25-6.00 ms)");
        assert_eq!(rows[2].measured, "100.0 s");
        assert_eq!(rows[3].measured, "2048 MiB");
        assert_eq!(rows[3].goal, "≤ 1 GiB");
        assert_eq!(rows[4].measured, "not run (--figures)");
        let table = render_targets(&rows);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[0], "| target | goal | measured | met? |");
        assert_eq!(lines.len(), 2 + rows.len());
        assert_eq!(
            lines[2],
            "| 800-task PAM trial at 34k, default PET, one thread | ≤ 5 ms | 4.50 ms (median of 11; 4.25-6.00 ms) | yes |"
        );
        assert!(
            lines[6].ends_with("| not run (--figures) | — |"),
            "{}",
            lines[6]
        );
    }

    #[test]
    fn unfinished_points_are_named_not_measured() {
        let f = file();
        let m = Measurements {
            trials: vec![],
            points: vec![PointResult {
                machines: 1024,
                tasks: 1_000_000,
                outcome: Outcome::TimedOut(300.0),
            }],
            figures: Outcome::TimedOut(30.0),
        };
        let rows = target_rows(&f, &m);
        assert_eq!(rows[0].measured, "not run");
        assert_eq!(rows[0].met, Met::Unknown);
        assert_eq!(rows[2].measured, "timed out after 300 s");
        assert_eq!(rows[2].met, Met::No, "a timeout beyond the goal is a miss");
        assert_eq!(rows[3].met, Met::Unknown);
        assert_eq!(
            rows[4].met,
            Met::Unknown,
            "a timeout before the goal says nothing"
        );
        let quick = Measurements {
            points: vec![PointResult {
                machines: 1024,
                tasks: 1_000_000,
                outcome: Outcome::Skipped("--quick".into()),
            }],
            ..m
        };
        assert_eq!(target_rows(&f, &quick)[2].measured, "not run (--quick)");
    }

    #[test]
    fn the_growth_table_has_microseconds_per_task_and_ratios() {
        let points = vec![
            done(8, 10_000, 1.0, 0.5, None),
            done(8, 100_000, 6.0, 5.5, None),
            done(64, 10_000, 3.0, 2.0, None),
            PointResult {
                machines: 64,
                tasks: 100_000,
                outcome: Outcome::TimedOut(300.0),
            },
        ];
        let t = render_growth(&points);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "| machines \\ tasks | 10,000 | 100,000 | growth over tasks |"
        );
        assert_eq!(lines[1], "|---|---|---|---|");
        assert_eq!(lines[2], "| 8 | 50.0 | 55.0 | ×1.10 |");
        assert_eq!(lines[3], "| 64 | 200.0 | > 300 s | — |");
        assert_eq!(lines[4], "| growth over machines | ×4.00 | — | |");
        let detail = render_points(&points);
        assert!(
            detail.contains("| 8 | 10,000 | 1.00 s | 0.50 s | 50.0 | n/a | 0.5 |"),
            "{detail}"
        );
        assert!(
            detail.contains("| 64 | 100,000 | timed out after 300 s |"),
            "{detail}"
        );
    }

    #[test]
    fn helpers_format_and_parse() {
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(1024), "1,024");
        assert_eq!(thousands(64), "64");
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(spread(&[4.0, 1.0, 2.0, 3.0]), (1.0, 4.0));
        assert_eq!(spread(&[]), (f64::INFINITY, f64::NEG_INFINITY));
        assert_eq!(plain(5.0), "5");
        assert_eq!(plain(0.25), "0.25");
        let status = "Name:\txtask\nVmPeak:\t  200 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 100 kB\n";
        assert_eq!(parse_vmhwm(status), Some(12_345));
        assert_eq!(parse_vmhwm("Name: x\n"), None);
    }
}
