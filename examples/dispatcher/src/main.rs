//! A dispatcher running real OS processes under the live scheduler (`live::Scheduler`).
//!
//! Tasks arrive from a Poisson clock in wall time; each is of one of three types, with an
//! amount of work (seconds on a machine of speed factor 1) and a wall-time deadline. There
//! are N local worker slots, each with a speed factor: a task on slot `j` runs as a child
//! process (this binary in worker mode) for `work x factor_j` seconds. The dispatcher tells
//! the scheduler what happened and does what it decides: it starts processes, and kills
//! and reaps the process of an executing task the scheduler drops.
//!
//! The PET is calibrated before the run: the cost of starting a process is measured on a
//! few empty workers, and each (type, slot) PMF is the histogram of the type's work
//! distribution times the slot's factor plus that cost. While it runs, the PET is refreshed
//! online from the observed completions (`Scheduler::record_samples`,
//! `Scheduler::set_pet`): a pair with enough completions takes the histogram of its recent
//! ones. Censored observations (tasks stopped at their deadline) are not used by this
//! simple refresh; an estimator that uses them (Kaplan-Meier) plugs in at the same place,
//! `refresh_pet`.
//!
//! ```text
//! cargo run --release -p dispatcher -- --seconds 8 --rate 12 --speeds 1,1.5,2,3
//! ```
//!
//! It prints a summary (JSON with `--json`): tasks, outcomes, robustness, and its checks:
//! every task ended exactly once, no task counted on time ended after its deadline by the
//! wall clock, no child process left.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use live::{Action, Fate, Outcome, Scheduler, SchedulerConfig};
use ndarray::Array2;
use pmf::BinValue;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;
use rand_distr::{Distribution, Exp};
use workload::Pet;

/// Mean work of each task type, seconds at speed factor 1.
const WORK: [f64; 3] = [0.10, 0.25, 0.45];
/// A task's work is its type's mean times a uniform factor in this range.
const SPREAD: (f64, f64) = (0.6, 1.4);
/// Seconds per tick of the PET.
const RESOLUTION: f64 = 0.01;
/// Completions of a (type, slot) pair before its PMF is taken from them.
const LEARN_AFTER: usize = 8;
/// The most recent completions a learnt PMF is built from.
const LEARN_WINDOW: usize = 200;

#[derive(Parser, Debug)]
#[command(about = "Runs real processes under the live scheduler")]
struct Args {
    /// Seconds during which tasks arrive.
    #[arg(long, default_value_t = 8.0)]
    seconds: f64,
    /// Arrivals per second (Poisson).
    #[arg(long, default_value_t = 12.0)]
    rate: f64,
    /// Speed factor of each worker slot: a task's work takes work x factor seconds there.
    #[arg(long, value_delimiter = ',', default_value = "1,1.5,2,3")]
    speeds: Vec<f64>,
    /// Deadline slack: a task is due `slack` x its type's mean time over the slots after it
    /// arrives.
    #[arg(long, default_value_t = 2.5)]
    slack: f64,
    /// Seed of the arrivals and the work.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The mapping heuristic (the pruner is the paper's).
    #[arg(long, default_value = "PAM")]
    heuristic: String,
    /// Queue size per slot, the executing task included.
    #[arg(long, default_value_t = 3)]
    queue_size: usize,
    /// A word on every worker's command line, to find leftover processes.
    #[arg(long, default_value = "prunesim-worker")]
    marker: String,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Worker mode: sleep this many seconds and exit.
    #[arg(long, hide = true)]
    work: Option<f64>,
}

/// One task as the dispatcher sees it.
#[derive(Debug, Clone)]
struct Task {
    task_type: usize,
    work: f64,
    deadline: f64,
    /// When its process was seen to end or it was dropped, seconds.
    ended_at: Option<f64>,
    /// How many ends it had (completion seen, or dropped): must be 1.
    ends: u32,
}

fn main() -> Result<()> {
    let args = Args::parse();
    if let Some(w) = args.work {
        std::thread::sleep(Duration::from_secs_f64(w.max(0.0)));
        return Ok(());
    }
    if args.speeds.is_empty() || args.speeds.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        bail!("--speeds: give at least one positive speed factor");
    }
    if !(args.rate.is_finite() && args.rate > 0.0) {
        bail!("--rate must be positive, found {}", args.rate);
    }
    let summary = run(&args)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        for (k, v) in summary.as_object().into_iter().flatten() {
            println!("{k:>22}: {v}");
        }
    }
    Ok(())
}

/// Starts a worker process for `seconds`.
fn spawn(marker: &str, seconds: f64) -> Result<Child> {
    let exe = std::env::current_exe().context("locating the dispatcher's binary")?;
    Command::new(exe)
        .args(["--work", &format!("{seconds:.4}"), "--marker", marker])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting a worker process")
}

/// The cost of a process that does nothing: spawned, run and seen to end, seconds (the
/// largest of a few).
fn process_overhead(marker: &str) -> Result<f64> {
    let mut worst: f64 = 0.0;
    for _ in 0..5 {
        let t0 = Instant::now();
        let mut c = spawn(marker, 0.0)?;
        c.wait().context("waiting for a calibration worker")?;
        worst = worst.max(t0.elapsed().as_secs_f64());
    }
    Ok(worst)
}

/// The calibrated PET: per (type, slot), the histogram of 400 draws of the type's work
/// times the slot's factor plus the process overhead, in ticks of `RESOLUTION` seconds.
fn calibrated_pet(speeds: &[f64], overhead: f64, seed: u64) -> Result<Pet> {
    let mut rng = ChaCha12Rng::seed_from_u64(seed ^ 0x5eed);
    let mut pmfs = Vec::new();
    for &w in &WORK {
        for &f in speeds {
            let samples: Vec<f64> = (0..400)
                .map(|_| (w * rng.random_range(SPREAD.0..SPREAD.1) * f + overhead) / RESOLUTION)
                .collect();
            pmfs.push(pmf::from_samples(&samples, 1, BinValue::Upper)?);
        }
    }
    let pmfs = Array2::from_shape_vec((WORK.len(), speeds.len()), pmfs)?;
    Ok(Pet::new(
        pmfs,
        (0..WORK.len()).map(|t| format!("type{t}")).collect(),
        (0..speeds.len()).map(|m| format!("slot{m}")).collect(),
    )?)
}

/// The online refresh: a (type, slot) pair with at least `LEARN_AFTER` completions takes
/// the histogram of its last `LEARN_WINDOW` ones. Returns the new PET when a pair changed.
fn refresh_pet(pet: &Pet, observed: &BTreeMap<(usize, usize), Vec<f64>>) -> Result<Option<Pet>> {
    let mut pmfs = pet.pmfs().map(|p| p.as_pmf().clone());
    let mut changed = false;
    for (&(t, m), v) in observed {
        if v.len() >= LEARN_AFTER {
            let recent = &v[v.len().saturating_sub(LEARN_WINDOW)..];
            let ticks: Vec<f64> = recent.iter().map(|s| s / RESOLUTION).collect();
            pmfs[[t, m]] = pmf::from_samples(&ticks, 1, BinValue::Upper)?;
            changed = true;
        }
    }
    if !changed {
        return Ok(None);
    }
    Ok(Some(Pet::new(
        pmfs,
        pet.type_names().to_vec(),
        pet.machine_names().to_vec(),
    )?))
}

/// Processes of this one's children still in the process table (Linux `/proc`; 0
/// elsewhere): zombies not reaped, or workers still running.
fn children_left() -> usize {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            // pid (comm) state ppid ...: the comm may hold spaces, so read after its ')'.
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .is_some_and(|ppid| ppid == me)
        })
        .count()
}

/// The dispatcher's run: the PET calibrated, the arrivals drawn, each task started as a
/// worker process when the scheduler says and its end reported to it, then the counts. One function because the loop's steps share the scheduler, the workers and
/// the clock, and read top to bottom as the dispatcher works.
fn run(args: &Args) -> Result<serde_json::Value> {
    let speeds = &args.speeds;
    let slots = speeds.len();
    let overhead = process_overhead(&args.marker)?;
    let pet = calibrated_pet(speeds, overhead, args.seed)?;
    let mean_speed = speeds.iter().sum::<f64>() / slots as f64;
    let config = SchedulerConfig {
        heuristic: live::HeuristicConfig::named(&args.heuristic),
        queue_size: args.queue_size,
        resolution: RESOLUTION,
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(pet, config)?;
    s.record_samples(true);
    // Every task's outcome is read at the end (a long-running dispatcher reads `counts`).
    s.keep_records(true);

    // The arrivals: Poisson in wall time, a type and an amount of work each.
    let mut rng = ChaCha12Rng::seed_from_u64(args.seed);
    let gap = Exp::new(args.rate)?;
    let mut arrivals = Vec::new();
    let mut t = gap.sample(&mut rng);
    while t < args.seconds {
        let ty = rng.random_range(0..WORK.len());
        let work = WORK[ty] * rng.random_range(SPREAD.0..SPREAD.1);
        arrivals.push((t, ty, work));
        t += gap.sample(&mut rng);
    }

    let mut tasks: Vec<Task> = Vec::new();
    let mut running: Vec<Option<(usize, Child)>> = (0..slots).map(|_| None).collect();
    let mut observed: BTreeMap<(usize, usize), Vec<f64>> = BTreeMap::new();
    let mut pet_updates = 0u32;
    let mut last_refresh = 0.0;
    let mut next = 0;
    let start = Instant::now();
    let clock = || start.elapsed().as_secs_f64();
    // A bound on the run: arrivals, then the longest deadline, then a margin.
    let longest = WORK.iter().fold(0.0f64, |a, &w| a.max(w)) * SPREAD.1 * mean_speed;
    let give_up = args.seconds + (args.slack + 2.0) * longest + 10.0;
    loop {
        let now = clock();
        while next < arrivals.len() && arrivals[next].0 <= now {
            let (at, ty, work) = arrivals[next];
            let deadline = at + args.slack * WORK[ty] * mean_speed + overhead;
            let id = s.submit(now, ty, deadline)?;
            debug_assert_eq!(id, tasks.len());
            tasks.push(Task {
                task_type: ty,
                work,
                deadline,
                ended_at: None,
                ends: 0,
            });
            next += 1;
        }
        for slot in running.iter_mut() {
            let exited = match slot {
                Some((_, child)) => child.try_wait().context("polling a worker")?.is_some(),
                None => false,
            };
            if exited {
                if let Some((t, _)) = slot.take() {
                    let at = clock();
                    s.completed(t, at)?;
                    tasks[t].ended_at = Some(at);
                    tasks[t].ends += 1;
                }
            }
        }
        let now = clock();
        for a in s.decide(now)? {
            match a {
                Action::Start { task, machine } => {
                    let secs = tasks[task].work * speeds[machine];
                    match spawn(&args.marker, secs) {
                        Ok(child) => {
                            s.started(task, clock())?;
                            running[machine] = Some((task, child));
                        }
                        Err(e) => {
                            eprintln!("task {task}: {e:#}");
                            s.failed(task, clock())?;
                            tasks[task].ended_at = Some(clock());
                            tasks[task].ends += 1;
                        }
                    }
                }
                Action::Drop {
                    task,
                    machine,
                    executing,
                    ..
                } => {
                    if executing {
                        if let Some(m) = machine {
                            if let Some((t, mut child)) = running[m].take() {
                                debug_assert_eq!(t, task);
                                // Already exited or not, it is killed and reaped.
                                let _ = child.kill();
                                child.wait().context("reaping a dropped worker")?;
                            }
                        }
                    }
                    tasks[task].ended_at = Some(now);
                    tasks[task].ends += 1;
                }
                Action::Assign { .. } | Action::Defer { .. } => {}
            }
        }
        // The online PET: every second, from the completions seen.
        for sample in s.drain_samples() {
            if !sample.censored {
                observed
                    .entry((sample.task_type, sample.machine))
                    .or_default()
                    .push(sample.seconds);
            }
        }
        if now - last_refresh >= 1.0 {
            last_refresh = now;
            if let Some(p) = refresh_pet(s.pet(), &observed)? {
                s.set_pet(p)?;
                pet_updates += 1;
            }
        }
        let all_ended =
            (0..tasks.len()).all(|t| matches!(s.fate(t), Ok(Fate::Ended(_) | Fate::Failed)));
        if next == arrivals.len() && all_ended && running.iter().all(Option::is_none) {
            break;
        }
        if now > give_up {
            // Nothing should be left; whatever is, is stopped and closed.
            for (t, mut c) in running.iter_mut().filter_map(Option::take) {
                let _ = c.kill();
                c.wait().context("reaping a worker at the end")?;
                s.failed(t, clock())?;
            }
            s.close(clock())?;
            break;
        }
        let mut sleep: f64 = 0.002;
        if let Some(&(at, _, _)) = arrivals.get(next) {
            sleep = sleep.min(at - now);
        }
        if let Some(w) = s.next_wakeup() {
            sleep = sleep.min(w - now);
        }
        if sleep > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(sleep));
        }
    }

    let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut on_time = 0usize;
    let mut late_counted_on_time = 0usize;
    for (t, task) in tasks.iter().enumerate() {
        let name = match s.fate(t)? {
            Fate::Ended(o) => o.name(),
            Fate::Failed => "failed",
            Fate::Open | Fate::Reported => "open",
            Fate::Forgotten => "forgotten",
        };
        *outcomes.entry(name).or_default() += 1;
        if s.fate(t)? == Fate::Ended(Outcome::OnTime) {
            on_time += 1;
            if task.ended_at.is_none_or(|e| e >= task.deadline) {
                late_counted_on_time += 1;
            }
        }
    }
    let n = tasks.len();
    Ok(serde_json::json!({
        "tasks": n,
        "slots": slots,
        "speeds": speeds,
        "heuristic": args.heuristic,
        "process_overhead_s": overhead,
        "on_time": on_time,
        "robustness": if n == 0 { 0.0 } else { 100.0 * on_time as f64 / n as f64 },
        "outcomes": outcomes,
        "ended_once": tasks.iter().all(|t| t.ends == 1),
        "late_counted_on_time": late_counted_on_time,
        "children_left": children_left(),
        "pet_updates": pet_updates,
        "mean_type_work_s": WORK,
        "wall_s": clock(),
        "types_seen": tasks.iter().map(|t| t.task_type).collect::<std::collections::BTreeSet<_>>().len(),
    }))
}
